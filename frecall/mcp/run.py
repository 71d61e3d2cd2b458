"""`frecall mcp [--http PORT]`: the MCP server on stdio (default) or Streamable HTTP.

stdio is a local process of one MCP client (Claude Desktop, an IDE, …): it acts as the
operator on its data dir, for `--tenant` and `--user`. Streamable HTTP serves many sessions
at `http://HOST:PORT/mcp` with the keys and rate limits of `frecall serve` (so a
non-loopback address needs a key to exist); `/healthz` answers `{"status": "ok"}`.
"""

from __future__ import annotations

import logging
from importlib import metadata

from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from frecall.access.gate import Gate, refuse_open_network
from frecall.access.ratelimit import RateLimiter
from frecall.access.scoped import TenantView
from frecall.access.tenants import check_tenant
from frecall.deployment import Deployment
from frecall.mcp.sessions import FixedSession, HttpSessions, McpGate
from frecall.mcp.tools import build_server
from frecall.observability.instrumented import Instrumented
from frecall.observability.tracing import setup_tracing
from frecall.process import run_uvicorn
from frecall.settings import Settings
from frecall.wiring import open_deployment, open_keyring
from workers.errors import ConfigError

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"


def run(settings: Settings, *, tenant: str, user: str | None, http: int | None, host: str) -> None:
    """Serve until the client disconnects (stdio) or SIGINT/SIGTERM (HTTP)."""
    check_tenant(tenant)
    if http is None:
        if not user:
            raise ConfigError("frecall mcp (stdio) needs --user: the user whose memory it is")
        _stdio(settings, tenant, user)
    else:
        _http(settings, host, http, user)


def _stdio(settings: Settings, tenant: str, user: str) -> None:
    deployment = open_deployment(settings, quiet=True)
    try:
        sessions = FixedSession(TenantView(deployment, tenant), user)
        build_server(sessions, _version()).run("stdio")
    finally:
        deployment.close()


def http_app(deployment: Deployment, gate: Gate, default_user: str | None, host: str) -> Starlette:
    """The Streamable HTTP app: `/mcp` behind `McpGate`, and `/healthz`."""
    server: MCPServer = build_server(HttpSessions(gate, default_user), _version())

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    server.custom_route("/healthz", methods=["GET"])(healthz)

    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    app.add_middleware(McpGate, gate=gate)
    return app


def _http(settings: Settings, host: str, port: int, default_user: str | None) -> None:
    keyring = open_keyring(settings)
    try:
        refuse_open_network(keyring, host)
        tracing = setup_tracing(settings)
        deployment = Instrumented(
            open_deployment(settings, serving=True, quiet=True), None, tracing
        )
        limiter = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)
        try:
            app = http_app(deployment, Gate(deployment, keyring, limiter), default_user, host)
            logging.getLogger("frecall.access").setLevel(logging.INFO)
            log.info("serving MCP on http://%s:%d%s", host, port, MCP_PATH)
            run_uvicorn(app, host, port)
        finally:
            deployment.close()
            tracing.close()
    finally:
        keyring.store.close()


def _version() -> str:
    try:
        return metadata.version("fortunate-recall")
    except metadata.PackageNotFoundError:
        return "0+unknown"
