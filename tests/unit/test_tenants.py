"""Tenant scoping (frecall/access/tenants.py): the map from (tenant, user) to a store's user
id is injective, keeps the default tenant's ids as they are, and is undone on the way out."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frecall.access.scoped import TenantView
from frecall.access.tenants import (
    DEFAULT_TENANT,
    MAX_SCOPED_ID,
    TenantError,
    check_tenant,
    max_user_id,
    scope,
    split,
    unscope,
)
from frecall.deployment import Deployment
from workers.errors import InputError
from workers.inputs import EdgeInput, Item

TENANTS = st.from_regex(r"\A[a-z0-9][a-z0-9_-]{0,31}\Z")
#: User ids as the API accepts them (no whitespace), biased towards the separator and
#: towards ids that look like scoped ones.
USERS = st.one_of(
    st.text(st.characters(blacklist_categories=("Zs", "Cc")), min_size=1, max_size=40),
    st.builds(lambda t, u: f"~{t}~{u}", TENANTS, st.text("~ab-_0", min_size=0, max_size=8)),
    st.text("~a", min_size=1, max_size=6),
).filter(lambda u: not any(c.isspace() for c in u) and u)


def test_the_default_tenant_keeps_todays_ids() -> None:
    assert scope(DEFAULT_TENANT, "42") == "42"
    assert scope(DEFAULT_TENANT, "maya") == "maya"
    assert scope(DEFAULT_TENANT, "a~b") == "a~b"  # not shaped like a scoped id: unchanged
    assert scope(DEFAULT_TENANT, "~x") == "~x"


def test_other_tenants_get_their_own_ids() -> None:
    assert scope("acme", "42") == "~acme~42"
    assert scope("beta", "42") == "~beta~42"
    assert split("~acme~42") == ("acme", "42")
    assert split("42") == (DEFAULT_TENANT, "42")


def test_a_default_id_shaped_like_a_scoped_one_cannot_reach_that_tenant() -> None:
    # Without the escape, the default tenant's user "~acme~42" would be acme's user 42.
    assert scope(DEFAULT_TENANT, "~acme~42") == "~default~~acme~42"
    assert scope(DEFAULT_TENANT, "~acme~42") != scope("acme", "42")
    assert unscope("acme", scope(DEFAULT_TENANT, "~acme~42")) is None
    assert unscope(DEFAULT_TENANT, scope(DEFAULT_TENANT, "~acme~42")) == "~acme~42"


def test_ids_no_tenant_owns_are_nobodys() -> None:
    # `scope` never makes "~default~x" (x not shaped like a scoped id): no tenant lists it.
    assert unscope(DEFAULT_TENANT, "~default~x") is None
    assert unscope("x", "~default~x") is None


@given(TENANTS, USERS, TENANTS, USERS)
def test_scoping_is_injective(t1: str, u1: str, t2: str, u2: str) -> None:
    if (t1, u1) != (t2, u2):
        assert scope(t1, u1) != scope(t2, u2)


@given(TENANTS | st.just(DEFAULT_TENANT), USERS)
def test_split_and_unscope_invert_scope(tenant: str, user: str) -> None:
    scoped = scope(tenant, user)
    assert split(scoped) == (tenant, user)
    assert unscope(tenant, scoped) == user
    assert len(scoped) <= MAX_SCOPED_ID


@pytest.mark.parametrize("name", ["", "Acme", "a~b", "a b", "-x", "a" * 33, "ü"])
def test_invalid_tenant_names_are_refused_with_the_rule(name: str) -> None:
    with pytest.raises(TenantError, match="lower-case letters"):
        check_tenant(name)
    with pytest.raises(TenantError):
        scope(name, "42")


def test_user_ids_too_long_for_their_tenant_say_the_limit() -> None:
    assert max_user_id("acme") == MAX_SCOPED_ID - 6
    assert len(scope("acme", "x" * max_user_id("acme"))) == MAX_SCOPED_ID
    with pytest.raises(TenantError, match=r"at most 250 characters in tenant 'acme'"):
        scope("acme", "x" * 251)
    assert scope(DEFAULT_TENANT, "x" * MAX_SCOPED_ID) == "x" * MAX_SCOPED_ID


class _Recorder:
    """The inner deployment of a TenantView: records the items it is given."""

    def __init__(self) -> None:
        self.items: list[tuple[int, str, object]] = []

    def ingest_edges(self, items: Any, source: str) -> None:
        self.items = list(items)


def test_rejected_items_keep_their_tenant_in_the_dead_letters() -> None:
    """The raw line a dead letter keeps names the scoped user, even when the id cannot be
    scoped (too long): never the bare id, which is another tenant's (the default's) user."""
    inner = _Recorder()
    view = TenantView(cast(Deployment, inner), "acme")
    long_id = "x" * (max_user_id("acme") + 1)
    good = {"user_id": "42", "text": "t", "category": "LOGISTICAL_CONTEXT"}
    lines = [
        json.dumps({"user_id": "42", "text": "no category"}),
        json.dumps({**good, "user_id": long_id}),
        "not json",
    ]
    items: list[Item[EdgeInput]] = [
        (0, lines[0], InputError("in", 0, "category: missing")),
        (1, lines[1], EdgeInput.model_validate({**good, "user_id": long_id})),
        (2, lines[2], InputError("in", 2, "not JSON")),
    ]
    view.ingest_edges(items, "in")
    owners = [json.loads(raw)["user_id"] for _, raw, _ in inner.items[:2]]
    assert owners == ["~acme~42", f"~acme~{long_id}"]
    assert isinstance(inner.items[1][2], InputError) and "at most" in str(inner.items[1][2])
    assert inner.items[2][1] == "not json"  # names no user: nobody's letters
