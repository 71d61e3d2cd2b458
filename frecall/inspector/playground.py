"""The query playground: one question, the lifecycle ranking and the plain-similarity
ranking side by side (`Deployment.query(ranking=...)`), each result with its score terms and
why, and what each state suppressed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from frecall.inspector.pages import require_user
from frecall.inspector.render import page, parse_as_of
from frecall.inspector.visitor import VisitorDep
from schemas.categories import Intent
from schemas.query import QueryRequest, QueryResult

router = APIRouter(include_in_schema=False)

#: The terms shown beside each result, in the order the score multiplies them out.
SHOWN_TERMS = (
    ("sigma", "σ"),
    ("decay", "decay"),
    ("validity", "validity"),
    ("activation", "activation"),
    ("alpha", "α"),
    ("floor", "floor"),
    ("rho", "ρ"),
    ("omega", "Ω"),
    ("mask", "mask"),
    ("direction", "direction"),
)


@router.get("/ui/users/{user_id}/query")
def playground(
    user_id: str,
    visitor: VisitorDep,
    q: Annotated[str, Query(max_length=4000)] = "",
    as_of: str | None = None,
    intent: Annotated[str, Query(max_length=16)] = "auto",
    k: Annotated[int, Query(ge=1, le=50)] = 10,
) -> Response:
    at = parse_as_of(as_of) or datetime.now(UTC)
    require_user(visitor.view, user_id)
    rankings: list[tuple[str, str, QueryResult]] = []
    if q.strip():
        request = QueryRequest(
            user_id=user_id,
            query=q.strip(),
            as_of=at,
            intent=None if intent == "auto" else Intent(intent),
            k=k,
        )
        rankings = [
            (
                "lifecycle",
                "Lifecycle ranking",
                visitor.view.query(request, ranking="lifecycle"),
            ),
            (
                "similarity",
                "Plain similarity (a flat memory store)",
                visitor.view.query(request, ranking="similarity"),
            ),
        ]
    return page(
        "playground.html",
        visitor=visitor,
        user_id=user_id,
        q=q,
        as_of=at,
        as_of_param=as_of or "",
        intent=intent,
        intents=["auto", *(i.value for i in Intent)],
        k=k,
        rankings=rankings,
        terms=SHOWN_TERMS,
    )
