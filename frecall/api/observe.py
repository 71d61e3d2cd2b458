"""Every request measured, traced and logged: latency by route template and status
(`frecall_http_request_duration_seconds`), a span named after the route, and one access
line naming the key id and tenant that made it (never the key).

Routes are labelled by their template (`/v1/users/{user_id}/memory`), never the raw path:
a label per user would grow without bound. A path no route matches is `unmatched`.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from frecall.observability.metrics import Metrics
from frecall.observability.tracing import Tracing

log = logging.getLogger("frecall.access")

#: Why a request was refused, by status (`frecall_http_requests_refused_total{reason}`).
REFUSED: Final = {401: "unauthenticated", 403: "forbidden", 429: "rate_limited"}


class Observe:
    """ASGI middleware: measure, trace and log each HTTP request."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None, tracing: Tracing) -> None:
        self._app = app
        self._metrics = metrics
        self._tracing = tracing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        start = time.perf_counter()
        method: str = scope["method"]
        status = 500

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with self._tracing.span(f"HTTP {method}", **{"http.request.method": method}) as span:
            try:
                await self._app(scope, receive, sent)
            finally:
                route = getattr(scope.get("route"), "path", None) or "unmatched"
                seconds = time.perf_counter() - start
                if span is not None:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)
                    span.set_attribute("http.response.status_code", status)
                self._record(scope, method, route, status, seconds)

    def _record(self, scope: Scope, method: str, route: str, status: int, seconds: float) -> None:
        if self._metrics is not None:
            self._metrics.http.labels(method, route, str(status)).observe(seconds)
            if status in REFUSED:
                self._metrics.refused.labels(REFUSED[status]).inc()
        principal: Any = scope.get("state", {}).get("principal")
        key_id = getattr(principal, "label", "-")
        tenant = getattr(principal, "tenant", "-")
        ms = round(seconds * 1000, 1)
        log.info(
            "%s %s %d %.1f ms key=%s tenant=%s",
            method,
            scope.get("path", ""),
            status,
            ms,
            key_id,
            tenant,
            extra={
                "method": method,
                "route": route,
                "status": status,
                "duration_ms": ms,
                "key_id": key_id,
                "tenant": tenant,
            },
        )
