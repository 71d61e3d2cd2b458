"""The HTTP API over one deployment's object graph (`frecall serve`; DESIGN §6).

`create_app` takes an already-built `App` (and the extractor for turns), so tests pass one
built on a temporary data dir and the server passes the one `bootstrap.build` made.

Concurrency: handlers are plain functions run on FastAPI's thread pool. Queries and health
checks run concurrently. Writes (ingest, forget) hold one lock: the lifecycle stage's
read-modify-write spans the slot index and the vector index, and each store only locks its
own calls. Exports hold it too, so that they see a state between two writes. One process
only: the embedded stores lock their directory. Writes are applied before the response is
sent, so a client reads its own writes.

Errors are JSON `{"detail": ...}`: 400 for bad requests, 413 for bodies over the limit
(refused before parsing), 422 with one problem per invalid item (and nothing applied), 503
when a store, the embedder or the extractor fails, 500 otherwise; never a stack trace.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Annotated, Any, Protocol

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
    ItemFailure,
    MemoryExport,
    TurnIn,
    TurnsRequest,
    ValidationErrorBody,
)
from schemas.events import TurnEvent
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult
from streams.embedded import EmbeddedPipeline, IngestReport
from workers.app import App
from workers.errors import EmbeddingError, ExtractionError, FRError, StorageError
from workers.export import dumps_stable, export_user
from workers.extraction.stage import SessionContext
from workers.inputs import EdgeInput
from workers.ports import FactExtractor

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 1 << 20

UserPath = Annotated[str, PathParam(min_length=1, max_length=256, pattern=r"^[^\s]+$")]
EdgePath = Annotated[str, PathParam(min_length=1, max_length=200)]


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """Request limits. Item counts per request are fixed by `models.MAX_ITEMS`."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


class Backend(Protocol):
    """What the HTTP API needs from a deployment: embedded (`_Service`) or distributed
    (frecall/api/distributed.py, producing to Kafka and reading the indexer's index)."""

    def query(self, request: QueryRequest, wait_for: Sequence[str], timeout: float) -> QueryResult:
        """Rank; first wait (up to `timeout` s) until `wait_for` edge ids are queryable."""

    def ingest_turns(self, turns: Sequence[TurnIn]) -> IngestResponse: ...

    def ingest_edges(self, items: Sequence[EdgeInput]) -> IngestResponse: ...

    def forget(self, user_id: str, edge_id: str | None) -> ForgetReceiptOut: ...

    def export(self, user_id: str) -> str: ...

    def count(self) -> int: ...


def create_app(app: App, extractor: FactExtractor, *, limits: ApiLimits | None = None) -> FastAPI:
    """The FastAPI application over `app`; the caller keeps ownership (and closes `app`).

    One application per `App`: the write lock lives in the application.
    """
    return create_api(_Service(app, extractor), limits=limits)


def create_api(service: Backend, *, limits: ApiLimits | None = None) -> FastAPI:
    """The FastAPI application over a backend (the caller keeps ownership of it)."""
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
        return service.query(request, wait_for or [], wait_timeout)

    @api.post("/v1/turns", response_model=IngestResponse, responses=errors, tags=["ingest"])
    def ingest_turns(body: TurnsRequest) -> IngestResponse:
        """Conversation turns through extraction into the memory (`frecall ingest`)."""
        return service.ingest_turns(body.turns)

    @api.post("/v1/edges", response_model=IngestResponse, responses=errors, tags=["ingest"])
    def ingest_edges(body: EdgesRequest) -> IngestResponse:
        """Pre-extracted facts (`frecall ingest-edges`); a given `edge_id` is kept."""
        return service.ingest_edges(body.edges)

    @api.get(
        "/v1/users/{user_id}/memory",
        response_model=MemoryExport,
        responses=errors,
        tags=["memory"],
    )
    def export(user_id: UserPath) -> Response:
        """Every fact of the user with its lifecycle, byte for byte `frecall export`."""
        return Response(service.export(user_id), media_type="application/json")

    @api.delete(
        "/v1/users/{user_id}", response_model=ForgetReceiptOut, responses=errors, tags=["erase"]
    )
    def forget_user(user_id: UserPath) -> ForgetReceiptOut:
        """Erase a user from every store and from the log, with a receipt."""
        return service.forget(user_id, None)

    @api.delete(
        "/v1/users/{user_id}/facts/{edge_id:path}",
        response_model=ForgetReceiptOut,
        responses=errors,
        tags=["erase"],
    )
    def forget_fact(user_id: UserPath, edge_id: EdgePath) -> ForgetReceiptOut:
        """Erase one fact (ids may contain `/`; `#` must be sent as `%23`)."""
        return service.forget(user_id, edge_id)

    @api.get("/healthz", response_model=Health, responses={503: errors[503]}, tags=["service"])
    def healthz() -> Health:
        """Up, with the number of facts held (503 when the vector index fails)."""
        return Health(status="ok", facts=service.count())

    return api


class _Service:
    """The write side: validation of every item first, then one locked pass through the
    embedded pipeline (log first, then the stores)."""

    def __init__(self, app: App, extractor: FactExtractor) -> None:
        self.app = app
        self.extractor = extractor
        self.writes = threading.Lock()
        # Sessions continue across requests: "scrap it" may refer to an earlier request.
        self.context = SessionContext()

    def query(self, request: QueryRequest, wait_for: Sequence[str], timeout: float) -> QueryResult:
        return self.app.queries.query(request)  # writes were applied before they answered

    def export(self, user_id: str) -> str:
        with self.writes:  # a state between two writes
            return dumps_stable(export_user(self.app.vectors, user_id))

    def count(self) -> int:
        return self.app.vectors.count()

    def ingest_edges(self, items: Sequence[EdgeInput]) -> IngestResponse:
        validate_edges(items, self.app.policy)
        batch = [
            (i, item.model_dump_json(exclude_unset=True), item) for i, item in enumerate(items)
        ]
        with self.writes:
            report = self._pipeline().ingest_edge_items(batch, "http:/v1/edges")
        return _response(report)

    def ingest_turns(self, turns: Sequence[TurnIn]) -> IngestResponse:
        events = validate_turns(turns)
        batch = [(i, event.model_dump_json(), event) for i, event in enumerate(events)]
        with self.writes:
            report = self._pipeline().ingest_turn_items(
                batch, self.extractor, "http:/v1/turns", self.context
            )
        return _response(report)

    def _pipeline(self) -> EmbeddedPipeline:
        # Per-item problems reach the client in the response and the log below; stderr
        # is the CLI's channel, not the server's.
        return EmbeddedPipeline(self.app, err=io.StringIO())

    def forget(self, user_id: str, edge_id: str | None) -> ForgetReceiptOut:
        with self.writes:
            receipt = EmbeddedPipeline(self.app).forget(user_id, edge_id)
        log.info("forgot user %s edge %s: %s", user_id, edge_id, dict(receipt.removed))
        return ForgetReceiptOut(
            user_id=receipt.user_id,
            edge_id=receipt.edge_id,
            removed=dict(receipt.removed),
            at=datetime.now(UTC),
        )


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
    for index, reason in report.failures:
        log.warning("ingest item %d: %s", index, reason)
    return IngestResponse(
        turns=report.turns,
        accepted=report.accepted,
        rejected=report.rejected,
        failed=report.failed,
        transitions=dict(sorted(report.transitions.items())),
        edge_ids=report.edge_ids,
        failures=[ItemFailure(index=i, reason=r) for i, r in report.failures],
    )


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """422 with one problem per invalid field of each item; without echoing the input."""
    assert isinstance(exc, RequestValidationError)
    problems = [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


async def _failed(request: Request, exc: Exception) -> JSONResponse:
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
