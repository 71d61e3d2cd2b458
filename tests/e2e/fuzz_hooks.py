"""Schemathesis hooks for tests/e2e/test_api_fuzz.py (loaded by the `schemathesis` process
through SCHEMATHESIS_HOOKS): user ids drawn often from the ones the seeded tenants hold, and
a check that no response carries another tenant's data or a scoped (internal) user id."""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from hypothesis import strategies as st

#: Text only the other tenants' facts hold (the fuzzing key is tenant acme's).
PRIVATE = ("BETA-PRIVATE", "DEFAULT-PRIVATE")
#: How scoped ids start: a response may show one only if the request named it as a user id.
SCOPED = ("~acme~", "~beta~", "~default~")
#: Users the seeded tenants have, and ids shaped like their scoped forms.
USERS = ("42", "maya", "~beta~42", "~default~42", "~acme~42", "~beta~maya")


@schemathesis.hook
def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> Any:
    if not path_parameters or "user_id" not in path_parameters:
        return st.just(path_parameters)
    known = st.sampled_from(USERS).map(lambda u: {**path_parameters, "user_id": u})
    return st.one_of(st.just(path_parameters), known)


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("user_id"), str):
        return st.one_of(
            st.just(body), st.sampled_from(USERS).map(lambda u: {**body, "user_id": u})
        )
    return st.just(body)


@schemathesis.check
def no_other_tenants_data(ctx: Any, response: Any, case: Any) -> None:
    """Nothing of tenant beta's or the default tenant's, nor an internal id, comes back."""
    text = response.text
    for marker in PRIVATE:
        if marker in text:
            raise AssertionError(f"another tenant's fact in the response ({marker})")
    asked = json.dumps([case.path_parameters, case.query, case.body], default=str)
    for prefix in SCOPED:
        if prefix in text and prefix not in asked and json.dumps(prefix)[1:-1] not in asked:
            raise AssertionError(f"a scoped user id in the response ({prefix}…)")
