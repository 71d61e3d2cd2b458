"""What the SDK's methods accept, checked the same way in process and over HTTP.

Turns and facts may be given as dicts (the JSON lines of `frecall ingest` / `ingest-edges`)
or as models (`TurnEvent`, `EdgeInput`). `Memory` validates them here; the HTTP clients
send them as JSON and the server validates them the same way (a 422 becomes the same
`InvalidInput`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeAlias

from pydantic import BaseModel, ValidationError

from frecall.access.scoped import TenantView
from frecall.access.tenants import USER_ID_PATTERN, TenantError
from frecall.sdk.errors import InvalidInput
from schemas.events import TurnEvent
from schemas.policy import Policy
from workers.inputs import EdgeInput

_USER = re.compile(USER_ID_PATTERN)

Turn: TypeAlias = TurnEvent | Mapping[str, Any]
Fact: TypeAlias = EdgeInput | Mapping[str, Any]


def as_json(items: Iterable[BaseModel | Mapping[str, Any]], drop: set[str]) -> list[Any]:
    """Items as JSON-ready values: models dumped (without `drop` fields and unset ones)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, BaseModel):
            out.append(item.model_dump(mode="json", exclude=drop, exclude_unset=True))
        else:
            out.append({k: v for k, v in item.items() if k not in drop})
    return out


def turns_of(turns: Iterable[Turn], view: TenantView) -> list[TurnEvent]:
    events: list[TurnEvent] = []
    problems: list[dict[str, Any]] = []
    for index, raw in enumerate(as_json(turns, {"schema_version"})):
        try:
            event = TurnEvent.model_validate(raw)
            check_user(view, event.user_id, ("turns", index, "user_id"))
            events.append(event)
        except ValidationError as exc:
            problems.extend(_problems(("turns", index), exc))
        except InvalidInput as exc:
            problems.extend(exc.problems)
    return _all_or_nothing(events, problems)


def facts_of(facts: Iterable[Fact], view: TenantView, policy: Policy) -> list[EdgeInput]:
    edges: list[EdgeInput] = []
    problems: list[dict[str, Any]] = []
    now = datetime.now(UTC)
    for index, raw in enumerate(as_json(facts, set())):
        try:
            edge = EdgeInput.model_validate(raw)
            edge.to_event(policy, now, None)
            check_user(view, edge.user_id, ("edges", index, "user_id"))
            edges.append(edge)
        except ValidationError as exc:
            problems.extend(_problems(("edges", index), exc))
        except ValueError as exc:
            problems.append(_problem(("edges", index), str(exc)))
        except InvalidInput as exc:
            problems.extend(exc.problems)
    return _all_or_nothing(edges, problems)


def check_user(view: TenantView, user_id: str, loc: tuple[str | int, ...] = ("user_id",)) -> None:
    """The checks of the HTTP API: the pattern it publishes, and the tenant's length."""
    if not _USER.match(user_id):
        raise InvalidInput([_problem(loc, f"String should match pattern '{USER_ID_PATTERN}'")])
    try:
        view.scoped(user_id)
    except TenantError as exc:
        raise InvalidInput([_problem(loc, str(exc))]) from exc


def _all_or_nothing(valid: list[Any], problems: list[dict[str, Any]]) -> list[Any]:
    if problems:
        raise InvalidInput(problems)
    if not valid:
        raise InvalidInput([_problem((), "nothing to add: give at least one item")])
    return valid


def _problems(where: tuple[str | int, ...], exc: ValidationError) -> list[dict[str, Any]]:
    return [_problem((*where, *e["loc"]), e["msg"]) for e in exc.errors(include_url=False)]


def _problem(loc: tuple[str | int, ...], msg: str) -> dict[str, Any]:
    return {"loc": list(loc), "msg": msg, "type": "value_error"}
