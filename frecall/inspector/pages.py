"""The users of a tenant, and one user's memory: counts, timeline, facts, and why one fact
persists or fades — all as of a time (`as_of`, default now)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from frecall.access.scoped import TenantView
from frecall.access.tenants import USER_ID_PATTERN
from frecall.inspector.curve import fade_svg
from frecall.inspector.render import page, parse_as_of, user_url
from frecall.inspector.timeline import STATE_ORDER, display_state, timeline_svg
from frecall.inspector.visitor import VisitorDep
from schemas.results import InspectedFact, Inspection
from workers.query.fade import fade, inspected_record

router = APIRouter(include_in_schema=False)

#: Rows of the fact table and of the user list per page.
PAGE_SIZE = 100
UserId = Annotated[str, Query(min_length=1, max_length=256, pattern=USER_ID_PATTERN)]


@router.get("/ui")
def home() -> Response:
    return RedirectResponse("/ui/users", status_code=303)


@router.get("/ui/users")
def users(
    visitor: VisitorDep,
    q: Annotated[str, Query(max_length=256)] = "",
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
) -> Response:
    """Find a user of the tenant by id (a substring; an exact id first)."""
    found = [u for u in visitor.view.users() if q.lower() in u.user_id.lower()]
    found.sort(key=lambda u: (u.user_id != q, u.user_id))
    start = (page_no - 1) * PAGE_SIZE
    return page(
        "users.html",
        visitor=visitor,
        q=q,
        users=found[start : start + PAGE_SIZE],
        total=len(found),
        page_no=page_no,
        pages=max(1, -(-len(found) // PAGE_SIZE)),
        states=STATE_ORDER,
    )


def require_user(view: TenantView, user_id: str) -> None:
    """404 for a user with no fact in the tenant (another tenant's user is simply absent)."""
    if view.count(user_id) == 0:
        raise HTTPException(404, f"no memory for user {user_id!r} in tenant {view.tenant!r}")


def inspection_of(view: TenantView, user_id: str, as_of: datetime | None) -> Inspection:
    inspection = view.inspect(user_id, as_of)
    if inspection.facts == 0:
        raise HTTPException(404, f"no memory for user {user_id!r} in tenant {view.tenant!r}")
    return inspection


def flat(inspection: Inspection) -> list[InspectedFact]:
    """Every fact of an inspection, in the order it was said."""
    facts = [f for states in inspection.categories.values() for fs in states.values() for f in fs]
    facts.sort(key=lambda f: (f.ingest_time, f.edge_id))
    return facts


def chain_of(facts: dict[str, InspectedFact], edge_id: str) -> list[tuple[str, InspectedFact]]:
    """The fact's supersession and retraction chain, oldest first: (how it was ended, fact)."""
    ended_by: dict[str, list[str]] = {}
    for f in facts.values():
        for successor in (f.lifecycle.superseded_by, f.lifecycle.retracted_by):
            if successor:
                ended_by.setdefault(successor, []).append(f.edge_id)
    before: list[str] = []
    seen = {edge_id}
    frontier = [edge_id]
    while frontier:
        nxt = [p for e in frontier for p in ended_by.get(e, []) if p not in seen]
        seen.update(nxt)
        before = nxt + before
        frontier = nxt
    after: list[str] = []
    current = facts[edge_id]
    while True:
        lc = current.lifecycle
        successor = lc.superseded_by or lc.retracted_by
        if successor is None or successor in seen or successor not in facts:
            break
        seen.add(successor)
        after.append(successor)
        current = facts[successor]
    ids = [*sorted(before, key=lambda e: (facts[e].ingest_time, e)), edge_id, *after]
    return [(_link_kind(facts[e]), facts[e]) for e in ids]


def _link_kind(fact: InspectedFact) -> str:
    if fact.lifecycle.superseded_by:
        return "superseded by"
    if fact.lifecycle.retracted_by:
        return "retracted by"
    return ""


@router.get("/ui/users/{user_id}")
def user(
    user_id: str,
    visitor: VisitorDep,
    as_of: str | None = None,
    fact: Annotated[str | None, Query(max_length=200)] = None,
    category: Annotated[str, Query(max_length=64)] = "",
    state: Annotated[str, Query(max_length=32)] = "",
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
) -> Response:
    when = parse_as_of(as_of)
    inspection = inspection_of(visitor.view, user_id, when)
    at = inspection.as_of
    everything = flat(inspection)
    times = [f.ingest_time for f in everything] + [f.event_time for f in everything if f.event_time]
    # As it was: what was not said yet at `as_of` is not drawn.
    facts = [f for f in everything if f.ingest_time <= at]
    by_id = {f.edge_id: f for f in facts}
    counts: dict[str, Counter[str]] = {}
    states = Counter[str]()
    for f in facts:
        shown = display_state(f, at)
        counts.setdefault(f.category.value, Counter())[shown] += 1
        states[shown] += 1
    listed = [
        f
        for f in reversed(facts)
        if (not category or f.category.value == category)
        and (not state or display_state(f, at) == state)
    ]
    start = (page_no - 1) * PAGE_SIZE
    keep_as_of = as_of or ""

    def link(edge_id: str) -> str:
        return user_url(user_id, as_of=keep_as_of, fact=edge_id) + "#fact"

    selected = by_id.get(fact) if fact else None
    fading = None
    if selected is not None:
        fading = fade(inspected_record(user_id, selected), visitor.view.policy, at)
    return page(
        "user.html",
        visitor=visitor,
        user_id=user_id,
        as_of=at,
        as_of_param=keep_as_of,
        travelling=when is not None,
        first=min(times),
        last=max([*times, datetime.now(UTC)]),
        total=len(facts),
        counts=counts,
        states=[s for s in STATE_ORDER if states[s]],
        state_totals=states,
        timeline=timeline_svg(facts, at, link, fact),
        listed=listed[start : start + PAGE_SIZE],
        listed_total=len(listed),
        page_no=page_no,
        pages=max(1, -(-len(listed) // PAGE_SIZE)),
        category=category,
        state=state,
        display_state=display_state,
        selected=selected,
        chain=chain_of(by_id, selected.edge_id) if selected else [],
        fade=fading,
        fade_svg=fade_svg(fading) if fading else None,
    )
