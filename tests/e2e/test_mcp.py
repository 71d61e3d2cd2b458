"""`frecall mcp` (issue 14): the tools in process with the `mcp` client, over Streamable HTTP
with API keys, and the stdio command. The user is the session's and the tenant the key's: a
valid key of another tenant recalls nothing of this one."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from bench.live_server import live_server
from frecall.access.gate import Gate
from frecall.access.key_stores import SqliteKeyStore
from frecall.access.keys import Keyring
from frecall.access.ratelimit import RateLimiter
from frecall.access.scoped import TenantView
from frecall.deployment import Deployment
from frecall.mcp.run import MCP_PATH, http_app
from frecall.mcp.sessions import FixedSession
from frecall.mcp.tools import build_server
from frecall.settings import Settings
from frecall.wiring import open_deployment

pytestmark = pytest.mark.e2e
TOOLS = {"remember", "recall", "forget", "inspect"}


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, extractor="rules", serving=True, quiet=True)) as d:
        yield d


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        return {"error": result.content[0].text}  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


def session_server(deployment: Deployment, tenant: str, user: str) -> Any:
    return build_server(FixedSession(TenantView(deployment, tenant), user))


def test_the_four_tools_and_no_user_argument(deployment: Deployment) -> None:
    async def go() -> None:
        async with Client(session_server(deployment, "default", "ana")) as client:
            tools = (await client.list_tools()).tools
            assert {t.name for t in tools} == TOOLS
            for tool in tools:
                properties = tool.input_schema.get("properties", {})
                assert not {"user", "user_id", "tenant"} & set(properties), tool.name
                assert tool.output_schema is not None and tool.description

    run(go())


def test_remember_recall_inspect_forget(deployment: Deployment) -> None:
    async def go() -> None:
        async with Client(session_server(deployment, "default", "ana")) as client:
            first = await call(
                client,
                "remember",
                turns=[{"text": "I live in Porto.", "timestamp": "2026-06-01T10:00:00Z"}],
                session_id="chat",
            )
            assert first["turns"] == 1 and first["facts"] >= 1
            moved = await call(
                client,
                "remember",
                turns=[
                    {"text": "I moved to Lisbon.", "timestamp": "2026-06-20T10:00:00Z"},
                    {"text": "Nice!", "role": "assistant", "timestamp": "2026-06-20T10:00:01Z"},
                ],
                session_id="chat",
            )
            assert moved["turns"] == 2
            recalled = await call(client, "recall", question="where do I live?", k=5)
            assert recalled["facts"], recalled
            top = recalled["facts"][0]
            assert {"edge_id", "text", "state", "why", "score"} <= set(top) and top["why"]
            assert any("Lisbon" in f["text"] and f["state"] == "active" for f in recalled["facts"])

            inspected = await call(client, "inspect")
            assert inspected["facts"] >= 3 and inspected["categories"]

            refused = await call(client, "forget")
            assert "either edge_id" in refused["error"]
            one = await call(client, "forget", edge_id=top["edge_id"])
            assert one["edge_id"] == top["edge_id"] and one["removed"]["log"] == 1
            everything = await call(client, "forget", everything=True)
            assert everything["edge_id"] is None and sum(everything["removed"].values()) > 0
            assert (await call(client, "recall", question="where do I live?"))["facts"] == []

            both = await call(client, "remember", text="x", turns=[{"text": "y"}])
            assert "either text" in both["error"]

    run(go())


def test_a_session_recalls_nothing_of_another_tenants_user(deployment: Deployment) -> None:
    async def go() -> None:
        async with Client(session_server(deployment, "beta", "42")) as beta:
            await call(beta, "remember", text="My bank PIN hint is the name of my cat Biscuit.")
        async with Client(session_server(deployment, "acme", "42")) as acme:
            found = await call(acme, "recall", question="what is my cat called?", k=50)
            assert found["facts"] == []
            assert (await call(acme, "inspect"))["facts"] == 0
            gone = await call(acme, "forget", everything=True)
            assert sum(gone["removed"].values()) == 0  # nothing of beta's was touched
        async with Client(session_server(deployment, "beta", "42")) as beta:
            kept = await call(beta, "recall", question="what is my cat called?", k=50)
            assert any("Biscuit" in f["text"] for f in kept["facts"])

    run(go())


# --- Streamable HTTP with keys -----------------------------------------------------------


@pytest.fixture
def served(deployment: Deployment, tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    keyring = Keyring(SqliteKeyStore(tmp_path / "keys.sqlite"))
    keys = {
        "acme": keyring.create("acme").key,
        "beta": keyring.create("beta").key,
        "admin": keyring.create("ops", admin=True).key,
    }
    gate = Gate(deployment, keyring, RateLimiter(rate=0, burst=1))
    with live_server(http_app(deployment, gate, None, "127.0.0.1")) as url:
        yield url, keys
    keyring.store.close()


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    """An MCP session over Streamable HTTP with these headers (the httpx client is ours to
    close: the transport does not own it)."""
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url + MCP_PATH, http_client=http)) as client,
    ):
        yield client


def test_http_needs_a_key(served: tuple[str, dict[str, str]]) -> None:
    url, _ = served
    assert httpx.get(url + "/healthz").json() == {"status": "ok"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert httpx.post(url + MCP_PATH, json=body).status_code == 401
    bad = {"Authorization": "Bearer frk_000000000000_nope"}
    refused = httpx.post(url + MCP_PATH, json=body, headers=bad)
    assert refused.status_code == 401 and refused.json() == {"detail": "unknown or revoked API key"}


def test_http_tenant_from_the_key_user_from_the_session(
    served: tuple[str, dict[str, str]],
) -> None:
    url, keys = served

    def as_(
        key: str, user: str | None, tenant: str | None = None
    ) -> AbstractAsyncContextManager[Client]:
        headers = {"Authorization": f"Bearer {keys[key]}"}
        if user is not None:
            headers["X-User-Id"] = user
        if tenant is not None:
            headers["X-Tenant"] = tenant
        return http_client(url, headers)

    async def go() -> None:
        async with as_("acme", "42") as acme:
            stored = await call(acme, "remember", text="I am allergic to peanuts.")
            assert stored["facts"] >= 1
            own = await call(acme, "recall", question="what am I allergic to?", k=10)
            assert any("peanuts" in f["text"] for f in own["facts"])
        async with as_("beta", "42") as beta:  # a valid key of another tenant, same user id
            other = await call(beta, "recall", question="what am I allergic to?", k=50)
            assert other["facts"] == []
            assert (await call(beta, "inspect"))["facts"] == 0
        async with as_("beta", "42", tenant="acme") as sneaky:
            refused = await call(sneaky, "recall", question="what am I allergic to?")
            assert "own tenant" in refused["error"]
        async with as_("beta", "~acme~42") as shaped:  # an id shaped like acme's scoped one
            assert (await call(shaped, "recall", question="allergic?", k=50))["facts"] == []
        async with as_("admin", "42", tenant="acme") as admin:
            seen = await call(admin, "recall", question="what am I allergic to?", k=10)
            assert any("peanuts" in f["text"] for f in seen["facts"])
        async with as_("acme", None) as nobody:
            missing = await call(nobody, "recall", question="anything")
            assert "X-User-Id" in missing["error"]

    run(go())


def test_http_rate_limit_is_a_429(deployment: Deployment, tmp_path: Path) -> None:
    keyring = Keyring(SqliteKeyStore(tmp_path / "keys.sqlite"))
    key = keyring.create("acme").key
    gate = Gate(deployment, keyring, RateLimiter(rate=0.01, burst=2))
    headers = {"Authorization": f"Bearer {key}", "X-User-Id": "42"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with live_server(http_app(deployment, gate, None, "127.0.0.1")) as url:
        statuses = [
            httpx.post(url + MCP_PATH, json=body, headers=headers).status_code for _ in range(3)
        ]
        limited = httpx.post(url + MCP_PATH, json=body, headers=headers)
    assert statuses[2] == 429 and limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    keyring.store.close()


# --- stdio: the command itself -------------------------------------------------------------


def test_stdio_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**os.environ, "FR_EMBEDDER": "hashing", "FR_DATA_DIR": str(tmp_path / "data")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "frecall.cli", "mcp", "--user", "ana", "--tenant", "acme"],
        env=env,
        cwd=str(Path(__file__).resolve().parents[2]),
    )

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(params) as client:
            stored = await call(client, "remember", text="My daughter is called Inês.")
            found = await call(client, "recall", question="what is my daughter's name?")
            return stored, found

    stored, found = run(go())
    assert stored["facts"] >= 1
    assert any("Inês" in f["text"] for f in found["facts"])
    # The CLI sees the same memory under the same tenant and user, and none under default.
    from frecall.cli import main

    monkeypatch.setenv("FR_EMBEDDER", "hashing")
    capsys.readouterr()
    data = env["FR_DATA_DIR"]
    assert main(["export", "--data-dir", data, "--tenant", "acme", "--user", "ana"]) == 0
    assert main(["export", "--data-dir", data, "--user", "ana"]) == 0
    lines = capsys.readouterr().out.splitlines()
    acme_export, default_export = (json.loads(line) for line in lines)
    assert acme_export["user_id"] == "ana" and acme_export["facts"]
    assert default_export["facts"] == []
