"""Request items checked before anything is written: 422 with one problem per invalid item.

Besides the models' own rules, a user id must fit its tenant (`TenantView.scoped`: a
named tenant's ids are a few characters shorter, and a store never gets an id that could
collide with another tenant's).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from frecall.access.scoped import TenantView
from frecall.access.tenants import TenantError
from frecall.api.models import TurnIn
from schemas.events import TurnEvent
from schemas.policy import Policy
from workers.inputs import EdgeInput


def check_user(view: TenantView, user_id: str, loc: tuple[str | int, ...]) -> None:
    """422 if `user_id` cannot be this tenant's (too long for it)."""
    try:
        view.scoped(user_id)
    except TenantError as exc:
        raise RequestValidationError([_problem(loc, exc)]) from exc


def validate_edges(items: Sequence[EdgeInput], policy: Policy, view: TenantView) -> None:
    """Every item first, nothing written: 422 with one problem per invalid item."""
    now = datetime.now(UTC)
    problems = []
    for index, item in enumerate(items):
        try:
            item.to_event(policy, now, None)
            view.scoped(item.user_id)
        except ValueError as exc:  # pydantic's ValidationError included
            problems.append(_problem(("body", "edges", index), exc))
        except TenantError as exc:
            problems.append(_problem(("body", "edges", index, "user_id"), exc))
    if problems:
        raise RequestValidationError(problems)


def validate_turns(turns: Sequence[TurnIn], view: TenantView) -> list[TurnEvent]:
    """The turns as events, or 422 with one problem per invalid turn (nothing written)."""
    events: list[TurnEvent] = []
    problems = []
    for index, turn in enumerate(turns):
        try:
            events.append(turn.to_event())
            view.scoped(turn.user_id)
        except ValidationError as exc:
            problems.append(_problem(("body", "turns", index), exc))
        except TenantError as exc:
            problems.append(_problem(("body", "turns", index, "user_id"), exc))
    if problems:
        raise RequestValidationError(problems)
    return events


def _problem(loc: tuple[str | int, ...], exc: Exception) -> dict[str, Any]:
    if isinstance(exc, ValidationError):
        msg = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:3]
        )
    else:
        msg = str(exc)
    return {"loc": loc, "msg": msg, "type": "value_error"}
