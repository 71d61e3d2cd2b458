"""The memory routes of the HTTP API: ingest, query, export, inspect, erase, list users.

Each acts in the caller's tenant (`ViewDep`): user ids in paths and bodies are the
tenant's own, and another tenant's users are simply absent — empty results, 404 on their
memory, erasures that remove nothing.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as PathParam
from fastapi.responses import Response
from pydantic import StringConstraints

from frecall.access.scoped import TenantView
from frecall.access.tenants import USER_ID_PATTERN
from frecall.api.deps import AUTH_ERRORS, PrincipalDep, ViewDep
from frecall.api.models import (
    EdgesRequest,
    ErrorBody,
    ForgetReceiptOut,
    IngestResponse,
    MemoryExport,
    QueryRequest,
    TurnsRequest,
    ValidationErrorBody,
    Whoami,
)
from frecall.api.validation import check_user, validate_edges, validate_turns
from schemas.events import UtcDatetime
from schemas.query import QueryResult
from schemas.results import IngestReport, Inspection, UserSummary
from workers.export import dumps_stable
from workers.inputs import listed

log = logging.getLogger(__name__)

UserPath = Annotated[str, PathParam(min_length=1, max_length=256, pattern=USER_ID_PATTERN)]
EdgePath = Annotated[str, PathParam(min_length=1, max_length=200)]

ERRORS: dict[int | str, dict[str, Any]] = {
    **AUTH_ERRORS,
    413: {"model": ErrorBody, "description": "body over the size limit"},
    422: {"model": ValidationErrorBody},
    503: {"model": ErrorBody, "description": "a store, the embedder or the LLM failed"},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "the user has no memory in this tenant"},
}
#: A path no route matches: a `/` or a line break inside an id (`%2F`, `%0A` are decoded
#: before routing).
NO_ROUTE: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "no such path: an id with `/` or a line break"},
}

router = APIRouter()


#: Read-your-writes, settled: ids that will never be queryable for this user (HTTP 409).
NEVER_QUERYABLE: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorBody,
        "description": "wait_for names ids that are not in this user's memory and never will "
        "be (another user's, erased, never sent): retrying cannot help",
    },
}
#: An edge id as `wait_for` takes it: what an ingest returned (never empty).
WaitId = Annotated[str, StringConstraints(min_length=1, max_length=200)]


@router.post(
    "/v1/query",
    response_model=QueryResult,
    responses={**ERRORS, **NEVER_QUERYABLE},
    tags=["memory"],
)
def query(
    request: QueryRequest,
    view: ViewDep,
    wait_for: Annotated[list[WaitId] | None, Query(max_length=1000)] = None,
    wait_timeout: Annotated[float, Query(ge=0, le=60)] = 10.0,
) -> QueryResult:
    """Rank a user's facts for a query (same JSON as `frecall query --json`).

    Read-your-writes: `wait_for` edge ids (as returned by the ingest endpoints) are
    waited for up to `wait_timeout` s (the distributed deployment applies writes
    asynchronously; the embedded one before it answers): 503 if they were not queryable in
    time (retry), 409 at once for ids that never will be (another user's, erased).
    """
    check_user(view, request.user_id, ("body", "user_id"))
    return view.query(request, wait_for=wait_for or [], timeout=wait_timeout)


@router.post("/v1/turns", response_model=IngestResponse, responses=ERRORS, tags=["ingest"])
def ingest_turns(body: TurnsRequest, view: ViewDep) -> IngestResponse:
    """Conversation turns through extraction into the memory (`frecall ingest`)."""
    events = validate_turns(body.turns, view)
    return _response(view.ingest_turns(listed(events), "http:/v1/turns"))


@router.post("/v1/edges", response_model=IngestResponse, responses=ERRORS, tags=["ingest"])
def ingest_edges(body: EdgesRequest, view: ViewDep) -> IngestResponse:
    """Pre-extracted facts (`frecall ingest-edges`); a given `edge_id` is kept."""
    validate_edges(body.edges, view.policy, view)
    items = listed(body.edges, exclude_unset=True)
    return _response(view.ingest_edges(items, "http:/v1/edges"))


@router.get("/v1/users", response_model=list[UserSummary], responses=ERRORS, tags=["memory"])
def users(view: ViewDep) -> list[UserSummary]:
    """Every user of the tenant with facts, sorted, with counts by category and state."""
    return view.users()


@router.get(
    "/v1/users/{user_id}/memory",
    response_model=MemoryExport,
    responses={**ERRORS, **NOT_FOUND},
    tags=["memory"],
)
def export(user_id: UserPath, view: ViewDep) -> Response:
    """Every fact of the user with its lifecycle, byte for byte `frecall export`; 404 when
    the user has no fact in this tenant."""
    check_user(view, user_id, ("path", "user_id"))
    document = view.export(user_id)
    if not document.facts:
        raise HTTPException(404, f"no memory for user {user_id!r}")
    return Response(dumps_stable(document.model_dump()), media_type="application/json")


@router.get(
    "/v1/users/{user_id}/inspect",
    response_model=Inspection,
    responses={**ERRORS, **NOT_FOUND},
    tags=["memory"],
)
def inspect(
    user_id: UserPath, view: ViewDep, as_of: Annotated[UtcDatetime | None, Query()] = None
) -> Inspection:
    """The user's memory by category and state as of a time (default now), with why each
    fact persists or fades (`frecall inspect`); 404 when the user has no fact here."""
    check_user(view, user_id, ("path", "user_id"))
    inspection = view.inspect(user_id, as_of)
    if inspection.facts == 0:
        raise HTTPException(404, f"no memory for user {user_id!r}")
    return inspection


@router.delete(
    "/v1/users/{user_id}",
    response_model=ForgetReceiptOut,
    responses={**ERRORS, **NO_ROUTE},
    tags=["erase"],
)
def forget_user(user_id: UserPath, view: ViewDep, caller: PrincipalDep) -> ForgetReceiptOut:
    """Erase a user from every store and from the log, with a receipt."""
    check_user(view, user_id, ("path", "user_id"))
    return _receipt(view, caller.label, user_id, None)


@router.delete(
    "/v1/users/{user_id}/facts/{edge_id:path}",
    response_model=ForgetReceiptOut,
    responses={**ERRORS, **NO_ROUTE},
    tags=["erase"],
)
def forget_fact(
    user_id: UserPath, edge_id: EdgePath, view: ViewDep, caller: PrincipalDep
) -> ForgetReceiptOut:
    """Erase one fact (ids may contain `/`; `#` must be sent as `%23`)."""
    check_user(view, user_id, ("path", "user_id"))
    return _receipt(view, caller.label, user_id, edge_id)


@router.get("/v1/whoami", response_model=Whoami, responses=AUTH_ERRORS, tags=["service"])
def whoami(view: ViewDep, caller: PrincipalDep) -> Whoami:
    """The key's id, the tenant this request acts in, and whether the key is an admin's."""
    return Whoami(key_id=caller.key_id, tenant=view.tenant, admin=caller.admin)


def _response(report: IngestReport) -> IngestResponse:
    for failure in report.failures:
        log.warning("ingest item %d: %s", failure.index, failure.reason)
    document = report.model_dump()
    document["transitions"] = dict(sorted(report.transitions.items()))
    return IngestResponse.model_validate(document)


def _receipt(view: TenantView, caller: str, user_id: str, edge_id: str | None) -> ForgetReceiptOut:
    receipt = view.forget(user_id, edge_id)
    log.info(
        "key %s forgot tenant %s user %s edge %s: %s",
        caller,
        view.tenant,
        user_id,
        edge_id,
        receipt.removed,
    )
    return ForgetReceiptOut.model_validate(receipt.model_dump())
