"""The HTTP API over a `Deployment` (`frecall serve`; docs/architecture.md, "Entry points").

`create_api` takes the deployment the wiring opened (tests pass an embedded one over a
temporary data dir); the caller keeps ownership and closes it.

Concurrency: handlers are plain functions run on FastAPI's thread pool; the deployment is
thread-safe (the embedded one serializes writes and exports, the distributed one produces
them to Kafka). Read-your-writes: the ingest endpoints return edge ids, which a query may
pass as `wait_for` (the embedded deployment applies writes before it answers).

Access: `Gate` (frecall/access/gate.py) — once the deployment has a key, every `/v1` route
needs one, and acts in its key's tenant (frecall/access/); `/healthz` is open, `/metrics`
open on loopback. Routes: `memory_routes` (the memory), `key_routes` (admin keys).

Errors are JSON `{"detail": ...}`: 400 for bad requests, 401/403 for a missing or refused
key, 404 for a user with no memory in the tenant, 409 for `wait_for` ids that will never be
queryable for the user, 413 for bodies over the limit (refused
before parsing), 422 with one problem per invalid item (and nothing applied), 429 over a
key's rate, 503 when a store, the embedder or the extractor fails, 500 otherwise; never a
stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import metadata

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frecall.access.gate import Gate
from frecall.access.tenants import TenantError
from frecall.api import key_routes, memory_routes
from frecall.api.deps import AUTH_ERRORS
from frecall.api.models import Health
from frecall.api.observe import Observe
from frecall.deployment import Deployment
from frecall.observability.metrics import CONTENT_TYPE, Metrics
from frecall.observability.tracing import Tracing
from workers.errors import EmbeddingError, ExtractionError, FRError, NotQueryable, StorageError

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """Request limits. Item counts per request are fixed by `models.MAX_ITEMS`."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


def create_api(
    deployment: Deployment,
    *,
    limits: ApiLimits | None = None,
    gate: Gate | None = None,
    metrics: Metrics | None = None,
    tracing: Tracing | None = None,
    metrics_open: bool = True,
) -> FastAPI:
    """The FastAPI application over a deployment (the caller keeps ownership of it).

    `gate`: keys and rate limits (default: none — every caller is the local operator).
    `metrics`: served at `/metrics` (default: a registry of this app's own);
    `metrics_open`: `/metrics` needs no key (the server binds loopback), else an admin key.
    """
    api = FastAPI(
        title="Fortunate Recall",
        version=_version(),
        summary="Long-term memory for LLM chat platforms that knows which facts are current.",
    )
    api.state.gate = gate or Gate(deployment)
    api.state.metrics = metrics = metrics or Metrics()
    api.add_middleware(_BodyLimit, max_bytes=(limits or ApiLimits()).max_body_bytes)
    api.add_middleware(Observe, metrics=metrics, tracing=tracing or Tracing())
    api.add_exception_handler(RequestValidationError, _invalid)
    api.add_exception_handler(TenantError, _tenant)
    api.add_exception_handler(FRError, _failed)
    api.add_exception_handler(Exception, _unexpected)
    api.include_router(memory_routes.router)
    api.include_router(key_routes.router)

    @api.get(
        "/healthz",
        response_model=Health,
        responses={503: memory_routes.ERRORS[503]},
        tags=["service"],
    )
    def healthz() -> Health:
        """Up, with the number of facts held (503 when the vector index fails). No key."""
        return Health(status="ok", facts=deployment.count())

    @api.get(
        "/metrics",
        response_class=PlainTextResponse,
        responses={
            200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
            **{s: r for s, r in AUTH_ERRORS.items() if s != 429},
        },
        tags=["service"],
    )
    def prometheus(request: Request) -> Response:
        """Prometheus metrics (text format). Open when the server binds loopback; otherwise
        it needs an admin key once keys exist."""
        if not metrics_open:
            Gate.require_admin(api.state.gate.authenticate(request))
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    api.add_exception_handler(405, _method_not_allowed(api))
    return api


def _method_not_allowed(api: FastAPI) -> Callable[[Request, Exception], Awaitable[JSONResponse]]:
    """405 with an `Allow` header naming every method of the path (Starlette names only
    those of the route that matched first, and GET and POST /v1/keys are two routes)."""
    routes = [
        (route.path_regex, route.methods or set())
        for router in (api.router, memory_routes.router, key_routes.router)
        for route in router.routes
        if isinstance(route, Route)
    ]

    async def handle(request: Request, exc: Exception) -> JSONResponse:
        path = request.url.path
        allowed = sorted({m for regex, methods in routes if regex.match(path) for m in methods})
        headers = {"Allow": ", ".join(allowed)} if allowed else None
        return JSONResponse({"detail": "Method Not Allowed"}, 405, headers)

    return handle


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


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """422 with one problem per invalid field of each item; without echoing the input."""
    assert isinstance(exc, RequestValidationError)
    problems = [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


async def _tenant(request: Request, exc: Exception) -> JSONResponse:
    """A tenant or user id that cannot be scoped, found past validation: a 422 problem."""
    problem = {"loc": ["request"], "msg": str(exc), "type": "value_error"}
    return JSONResponse({"detail": [problem]}, status_code=422)


async def _failed(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, NotQueryable):
        # Settled: the ids will never be queryable for this user — the request's fault, and
        # a retry (the SDK retries 503) cannot help. Not yet queryable: retry later.
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return JSONResponse({"detail": str(exc)}, status_code=409 if exc.settled else 503)
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
