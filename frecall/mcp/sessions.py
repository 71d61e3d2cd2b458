"""Whose memory a tool call uses: the session's tenant and user, never a tool argument.

* stdio (`frecall mcp --user U [--tenant T]`): one fixed tenant and user — the local
  operator's process, on the data dir it was given.
* Streamable HTTP (`frecall mcp --http PORT`): `McpGate` authenticates every HTTP request
  (as `frecall serve` does: `Authorization: Bearer KEY` once keys exist, 401/429 otherwise)
  and the tool acts in the key's tenant (admin keys may name one with `X-Tenant`) for the
  user the session names in its `X-User-Id` header (or `--user`). A user id is always one
  *inside* the key's tenant: no header or argument can reach another tenant's users.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from frecall.access.gate import Gate
from frecall.access.keys import Principal
from frecall.access.scoped import TenantView
from frecall.access.tenants import USER_ID_PATTERN, TenantError

USER_HEADER = "x-user-id"
_USER = re.compile(USER_ID_PATTERN)


@dataclass(frozen=True, slots=True)
class Session:
    view: TenantView
    user_id: str


class Sessions(Protocol):
    def resolve(self, ctx: Context[Any]) -> Session:
        """The tenant view and user of the call (raises `ToolError` to the model)."""


class FixedSession:
    """stdio: one tenant and one user for the life of the process."""

    def __init__(self, view: TenantView, user_id: str) -> None:
        try:
            view.scoped(user_id)
        except TenantError as exc:
            raise TenantError(f"--user: {exc}") from exc
        self._session = Session(view, user_id)

    def resolve(self, ctx: Context[Any]) -> Session:
        return self._session


class HttpSessions:
    """Streamable HTTP: the principal `McpGate` put on the request, the user it names."""

    def __init__(self, gate: Gate, default_user: str | None) -> None:
        self._gate = gate
        self._default_user = default_user

    def resolve(self, ctx: Context[Any]) -> Session:
        request = ctx.request_context.request
        principal: Principal | None = getattr(getattr(request, "state", None), "principal", None)
        if not isinstance(request, Request) or principal is None:
            raise ToolError("not an authenticated HTTP session")
        user_id = request.headers.get(USER_HEADER) or self._default_user
        if not user_id or len(user_id) > 256 or not _USER.match(user_id):
            raise ToolError(
                "no user: configure the session's X-User-Id header (the user whose memory "
                "this is; no spaces, at most 256 characters)"
            )
        try:
            view = self._gate.view(principal, request.headers.get("x-tenant"))
            view.scoped(user_id)
        except HTTPException as exc:
            raise ToolError(str(exc.detail)) from exc
        except TenantError as exc:
            raise ToolError(str(exc)) from exc
        return Session(view, user_id)


class McpGate:
    """ASGI middleware in front of the MCP endpoint: the same keys and rate limits as the
    HTTP API (401/429 JSON before any MCP message is read); `/healthz` stays open."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self._app = app
        self._gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") == "/healthz":
            await self._app(scope, receive, send)
            return
        request = Request(scope)
        try:
            # A key store lookup (SQLite, Redis): off the event loop.
            await anyio.to_thread.run_sync(self._gate.authenticate, request)
        except HTTPException as exc:
            response = JSONResponse({"detail": exc.detail}, exc.status_code, exc.headers)
            await response(scope, receive, send)
            return
        await self._app(scope, receive, send)
