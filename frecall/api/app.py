"""The HTTP API over a `Deployment` (`frecall serve`; docs/architecture.md, "Entry points").

`create_api` takes the deployment the wiring opened (tests pass an embedded one over a
temporary data dir); the caller keeps ownership and closes it.

Concurrency: handlers are plain functions run on FastAPI's thread pool; the deployment is
thread-safe (the embedded one serializes writes and exports, the distributed one produces
them to Kafka). Read-your-writes: the ingest endpoints return edge ids, which a query may
pass as `wait_for` (the embedded deployment applies writes before it answers).

Errors are JSON `{"detail": ...}`: 400 for bad requests, 413 for bodies over the limit
(refused before parsing), 422 with one problem per invalid item (and nothing applied), 503
when a store, the embedder or the extractor fails, 500 otherwise; never a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frecall.api.models import (
    EdgesRequest,
    ErrorBody,
    ForgetReceiptOut,
    Health,
    IngestResponse,
    MemoryExport,
    TurnIn,
    TurnsRequest,
    ValidationErrorBody,
)
from frecall.deployment import Deployment
from schemas.events import TurnEvent
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult
from schemas.results import IngestReport
from workers.errors import EmbeddingError, ExtractionError, FRError, NotQueryable, StorageError
from workers.export import dumps_stable
from workers.inputs import EdgeInput, listed

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 1 << 20

UserPath = Annotated[str, PathParam(min_length=1, max_length=256, pattern=r"^[^\s]+$")]
EdgePath = Annotated[str, PathParam(min_length=1, max_length=200)]


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """Request limits. Item counts per request are fixed by `models.MAX_ITEMS`."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


def create_api(deployment: Deployment, *, limits: ApiLimits | None = None) -> FastAPI:
    """The FastAPI application over a deployment (the caller keeps ownership of it)."""
    api = FastAPI(
        title="Fortunate Recall",
        version=_version(),
        summary="Long-term memory for LLM chat platforms that knows which facts are current.",
    )
    api.add_middleware(_BodyLimit, max_bytes=(limits or ApiLimits()).max_body_bytes)
    api.add_exception_handler(RequestValidationError, _invalid)
    api.add_exception_handler(FRError, _failed)
    api.add_exception_handler(Exception, _unexpected)
    errors: dict[int | str, dict[str, Any]] = {
        400: {"model": ErrorBody},
        413: {"model": ErrorBody, "description": "body over the size limit"},
        422: {"model": ValidationErrorBody},
        503: {"model": ErrorBody, "description": "a store, the embedder or the LLM failed"},
    }

    @api.post("/v1/query", response_model=QueryResult, responses=errors, tags=["memory"])
    def query(
        request: QueryRequest,
        wait_for: Annotated[list[str] | None, Query(max_length=1000)] = None,
        wait_timeout: Annotated[float, Query(ge=0, le=60)] = 10.0,
    ) -> QueryResult:
        """Rank a user's facts for a query (same JSON as `frecall query --json`).

        Read-your-writes: `wait_for` edge ids (as returned by the ingest endpoints) are
        waited for up to `wait_timeout` s (the distributed deployment applies writes
        asynchronously; the embedded one before it answers).
        """
        return deployment.query(request, wait_for=wait_for or [], timeout=wait_timeout)

    @api.post("/v1/turns", response_model=IngestResponse, responses=errors, tags=["ingest"])
    def ingest_turns(body: TurnsRequest) -> IngestResponse:
        """Conversation turns through extraction into the memory (`frecall ingest`)."""
        events = validate_turns(body.turns)
        return _response(deployment.ingest_turns(listed(events), "http:/v1/turns"))

    @api.post("/v1/edges", response_model=IngestResponse, responses=errors, tags=["ingest"])
    def ingest_edges(body: EdgesRequest) -> IngestResponse:
        """Pre-extracted facts (`frecall ingest-edges`); a given `edge_id` is kept."""
        validate_edges(body.edges, deployment.policy)
        items = listed(body.edges, exclude_unset=True)
        return _response(deployment.ingest_edges(items, "http:/v1/edges"))

    @api.get(
        "/v1/users/{user_id}/memory",
        response_model=MemoryExport,
        responses=errors,
        tags=["memory"],
    )
    def export(user_id: UserPath) -> Response:
        """Every fact of the user with its lifecycle, byte for byte `frecall export`."""
        document = deployment.export(user_id).model_dump()
        return Response(dumps_stable(document), media_type="application/json")

    @api.delete(
        "/v1/users/{user_id}", response_model=ForgetReceiptOut, responses=errors, tags=["erase"]
    )
    def forget_user(user_id: UserPath) -> ForgetReceiptOut:
        """Erase a user from every store and from the log, with a receipt."""
        return _receipt(deployment, user_id, None)

    @api.delete(
        "/v1/users/{user_id}/facts/{edge_id:path}",
        response_model=ForgetReceiptOut,
        responses=errors,
        tags=["erase"],
    )
    def forget_fact(user_id: UserPath, edge_id: EdgePath) -> ForgetReceiptOut:
        """Erase one fact (ids may contain `/`; `#` must be sent as `%23`)."""
        return _receipt(deployment, user_id, edge_id)

    @api.get("/healthz", response_model=Health, responses={503: errors[503]}, tags=["service"])
    def healthz() -> Health:
        """Up, with the number of facts held (503 when the vector index fails)."""
        return Health(status="ok", facts=deployment.count())

    return api


class _BodyLimit:
    """413 for a body over `max_bytes`, before anything reads it: at once when the declared
    Content-Length is over, else as soon as the streamed chunks add up to more."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self._app = app
        self._max = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        detail = f"request body over the limit of {self._max} bytes"
        declared = _content_length(scope)
        if declared is not None and declared > self._max:
            await JSONResponse({"detail": detail}, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self._max:
                    # FastAPI passes HTTPExceptions from body reading through unchanged.
                    raise HTTPException(413, detail)
            return message

        await self._app(scope, limited, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def validate_edges(items: Sequence[EdgeInput], policy: Policy) -> None:
    """Every item first, nothing written: 422 with one problem per invalid item."""
    now = datetime.now(UTC)
    problems = []
    for index, item in enumerate(items):
        try:
            item.to_event(policy, now, None)
        except ValueError as exc:  # pydantic's ValidationError included
            problems.append(_problem(("body", "edges", index), exc))
    if problems:
        raise RequestValidationError(problems)


def validate_turns(turns: Sequence[TurnIn]) -> list[TurnEvent]:
    """The turns as events, or 422 with one problem per invalid turn (nothing written)."""
    events: list[TurnEvent] = []
    problems = []
    for index, turn in enumerate(turns):
        try:
            events.append(turn.to_event())
        except ValidationError as exc:
            problems.append(_problem(("body", "turns", index), exc))
    if problems:
        raise RequestValidationError(problems)
    return events


def _problem(loc: tuple[str | int, ...], exc: ValueError) -> dict[str, Any]:
    if isinstance(exc, ValidationError):
        msg = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:3]
        )
    else:
        msg = str(exc)
    return {"loc": loc, "msg": msg, "type": "value_error"}


def _response(report: IngestReport) -> IngestResponse:
    for failure in report.failures:
        log.warning("ingest item %d: %s", failure.index, failure.reason)
    document = report.model_dump()
    document["transitions"] = dict(sorted(report.transitions.items()))
    return IngestResponse.model_validate(document)


def _receipt(deployment: Deployment, user_id: str, edge_id: str | None) -> ForgetReceiptOut:
    receipt = deployment.forget(user_id, edge_id)
    log.info("forgot user %s edge %s: %s", user_id, edge_id, receipt.removed)
    return ForgetReceiptOut.model_validate(receipt.model_dump())


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """422 with one problem per invalid field of each item; without echoing the input."""
    assert isinstance(exc, RequestValidationError)
    problems = [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


async def _failed(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, NotQueryable):
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return JSONResponse({"detail": str(exc)}, status_code=503)
    if isinstance(exc, StorageError):
        # The detail names server paths: it goes to the log, not to the client.
        log.error("%s %s: %s", request.method, request.url.path, exc)
        detail, status = f"{exc.store}: {exc.operation} failed", 503
    else:
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        unavailable = isinstance(exc, EmbeddingError | ExtractionError)
        detail, status = str(exc), 503 if unavailable else 400
    return JSONResponse({"detail": detail}, status_code=status)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"detail": "internal server error"}, status_code=500)


def _version() -> str:
    try:
        return metadata.version("fortunate-recall")
    except metadata.PackageNotFoundError:
        return "0+unknown"
