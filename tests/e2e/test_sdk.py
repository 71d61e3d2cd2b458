"""The SDK (issue 14): one suite run against `Memory` (in process), `Client` and
`AsyncClient` (over HTTP to a real server with API keys): the same methods, the same typed
results, the same errors — and one tenant never sees another's user of the same id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.live_server import live_server
from frecall import AsyncClient, Client, Memory
from frecall.access.gate import Gate
from frecall.access.key_stores import SqliteKeyStore
from frecall.access.keys import Keyring
from frecall.api import create_api
from frecall.sdk import InvalidInput, NeverQueryable, RateLimited, Unauthorized
from frecall.sdk.calls import Backoff
from frecall.settings import Settings
from frecall.wiring import open_deployment
from schemas.query import QueryResult
from schemas.results import ForgetReceipt, IngestReport, Inspection, MemoryExport

pytestmark = pytest.mark.e2e

STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = datetime(2026, 9, 21, 9, tzinfo=UTC)


def story(user: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in STORY.read_text("utf-8").splitlines() if line.strip()]
    return [{**row, "user_id": user} for row in rows]


def turn(user: str, turn_id: str, text: str, day: int) -> dict[str, Any]:
    return {
        "user_id": user,
        "session_id": "s1",
        "turn_id": turn_id,
        "role": "user",
        "text": text,
        "timestamp": f"2026-06-{day:02d}T10:00:00Z",
    }


class Blocking:
    """An `AsyncClient` driven from synchronous tests: each call awaited on one loop."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._client, name)
        return lambda *a, **kw: self._loop.run_until_complete(method(*a, **kw))

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())
        self._loop.close()


#: A factory of SDK objects: tenant → an object with the SDK's methods.
Opener = Callable[[str], Any]


@pytest.fixture(params=["memory", "client", "async"])
def sdk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    opened: list[Any] = []
    if request.param == "memory":
        memory = Memory(settings=settings, extractor="rules")
        opened.append(memory)

        def as_memory(tenant: str) -> Any:
            return memory.as_tenant(tenant)

        yield as_memory
        memory.close()
        return
    deployment = open_deployment(settings, extractor="rules", serving=True, quiet=True)
    keyring = Keyring(SqliteKeyStore(tmp_path / "keys.sqlite"))
    keys = {t: keyring.create(t).key for t in ("default", "acme", "beta")}
    api = create_api(deployment, gate=Gate(deployment, keyring))
    with live_server(api) as url:

        def client(tenant: str) -> Any:
            made: Any = (
                Client(url, keys[tenant])
                if request.param == "client"
                else Blocking(AsyncClient(url, keys[tenant]))
            )
            opened.append(made)
            return made

        yield client
        for made in opened:
            made.close()
    deployment.close()
    keyring.store.close()


def test_turns_in_then_the_current_fact_out(sdk: Opener) -> None:
    memory = sdk("default")
    report = memory.add_turns(
        [
            turn("ana", "t1", "I live in Porto.", 1),
            turn("ana", "t2", "I moved to Lisbon last week.", 20),
        ]
    )
    assert isinstance(report, IngestReport) and report.turns == 2 and report.failed == 0
    result = memory.query("ana", "where do I live?", wait_for=report.edge_ids, k=5)
    assert isinstance(result, QueryResult)
    texts = [f.text for f in result.results if f.state.value == "active"]
    assert any("Lisbon" in t for t in texts)
    assert all(f.why for f in result.results)


def test_facts_export_inspect_and_forget(sdk: Opener) -> None:
    memory = sdk("default")
    rows = story("maya")
    report = memory.add_facts(rows)
    assert report.accepted == len(rows) and report.edge_ids == [r["edge_id"] for r in rows]

    result = memory.query("maya", "Where does Maya live?", as_of=AS_OF, intent="current", k=3)
    assert result.intent.value == "current" and len(result.results) == 3
    states = {
        f.edge_id: f.state.value
        for f in memory.query("maya", "Where does Maya live?", as_of=AS_OF, k=50).results
    }
    assert states["city-london"] == "active" and "city-istanbul" not in states  # superseded

    exported = memory.export("maya")
    assert isinstance(exported, MemoryExport) and exported.user_id == "maya"
    assert {f.edge["edge_id"] for f in exported.facts} == {r["edge_id"] for r in rows}
    assert {f.edge["user_id"] for f in exported.facts} == {"maya"}

    view = memory.inspect("maya", AS_OF)
    assert isinstance(view, Inspection) and view.facts == len(rows) and view.user_id == "maya"

    receipt = memory.forget("maya", "city-london")
    assert isinstance(receipt, ForgetReceipt) and receipt.removed["log"] == 1
    assert "city-london" not in {f.edge["edge_id"] for f in memory.export("maya").facts}
    receipt = memory.forget("maya")
    assert receipt.edge_id is None and receipt.removed["vector_index"] == len(rows) - 1
    assert memory.export("maya").facts == []
    assert memory.inspect("maya").facts == 0


def test_invalid_input_writes_nothing(sdk: Opener) -> None:
    memory = sdk("default")
    good = turn("ana", "t1", "I live in Porto.", 1)
    bad = {**turn("ana", "t2", "x", 2), "role": "narrator"}
    with pytest.raises(InvalidInput) as caught:
        memory.add_turns([good, bad])
    assert any(
        p["loc"][:2] == ["turns", 1] or p["loc"][1:3] == ["turns", 1] for p in caught.value.problems
    )
    assert memory.export("ana").facts == []
    with pytest.raises(InvalidInput):
        memory.query("ana", "", k=5)


def test_one_tenant_never_sees_anothers_user_of_the_same_id(sdk: Opener) -> None:
    acme, beta = sdk("acme"), sdk("beta")
    a = acme.add_facts([{**r, "text": "ACME " + r["text"]} for r in story("42")])
    b = beta.add_facts(story("42"))
    assert a.edge_ids == b.edge_ids  # the same ids, yet different facts of different people

    acme_texts = {f.edge["text"] for f in acme.export("42").facts}
    beta_texts = {f.edge["text"] for f in beta.export("42").facts}
    assert all(t.startswith("ACME ") for t in acme_texts)
    assert not any(t.startswith("ACME ") for t in beta_texts)
    assert {f.edge["user_id"] for f in acme.export("42").facts} == {"42"}  # never "~acme~42"
    found = acme.query("42", "Where does Maya live?", as_of=AS_OF, k=50).results
    assert found and all(f.text.startswith("ACME ") for f in found)

    # The default tenant's user 42, and a user id shaped like a scoped one, hold nothing.
    default = sdk("default")
    assert default.export("42").facts == []
    assert default.export("~acme~42").facts == []
    assert default.query("~acme~42", "where", k=50).results == []

    receipt = acme.forget("42")
    assert receipt.user_id == "42" and receipt.removed["vector_index"] == len(story("42"))
    assert acme.export("42").facts == []
    assert {f.edge["text"] for f in beta.export("42").facts} == beta_texts
    assert beta.inspect("42").facts == len(story("42"))


def test_waiting_for_another_tenants_ids_fails_at_once_and_names_no_scoped_id(
    sdk: Opener,
) -> None:
    acme, beta = sdk("acme"), sdk("beta")
    theirs = beta.add_facts([{**story("42")[0], "edge_id": "beta-only"}])
    acme.add_facts(story("42")[:1])
    with pytest.raises(NeverQueryable) as caught:  # 409: no retry, no waiting out the timeout
        acme.query("42", "where", wait_for=theirs.edge_ids, timeout=30)
    assert caught.value.status == 409
    assert "user 42:" in str(caught.value) and "~acme~" not in str(caught.value)
    assert "beta-only" in str(caught.value)


def test_users_lists_the_tenants_own_users_only(sdk: Opener) -> None:
    acme, beta = sdk("acme"), sdk("beta")
    acme.add_facts(story("alice")[:2])
    beta.add_facts(story("bob")[:2])
    assert [u.user_id for u in acme.users()] == ["alice"]
    assert [u.user_id for u in beta.users()] == ["bob"]


# --- the HTTP clients only: keys, retries ----------------------------------------------------


def test_a_bad_key_is_unauthorized(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    deployment = open_deployment(settings, extractor="rules", quiet=True)
    keyring = Keyring(SqliteKeyStore(tmp_path / "keys.sqlite"))
    keyring.create("acme")
    with live_server(create_api(deployment, gate=Gate(deployment, keyring))) as url:
        with Client(url, "frk_000000000000_nope") as client, pytest.raises(Unauthorized):
            client.export("42")
        with Client(url) as client, pytest.raises(Unauthorized):
            client.query("42", "anything")
    deployment.close()
    keyring.store.close()


def _scripted(statuses: list[int], seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status = statuses[min(len(seen) - 1, len(statuses) - 1)]
        if status == 200:
            return httpx.Response(200, json={"user_id": "42", "facts": []})
        return httpx.Response(status, json={"detail": "busy"}, headers={"Retry-After": "0"})

    return httpx.MockTransport(handle)


def test_the_client_retries_429_and_503_then_succeeds() -> None:
    seen: list[httpx.Request] = []
    transport = _scripted([429, 503, 200], seen)
    with Client("http://memory", "k", transport=transport) as client:
        assert client.export("42").user_id == "42"
    assert len(seen) == 3
    assert seen[0].headers["authorization"] == "Bearer k"


def test_the_client_gives_up_after_its_retries() -> None:
    seen: list[httpx.Request] = []
    transport = _scripted([429], seen)
    backoff = Backoff(retries=2, base=0.001)
    with (
        Client("http://memory", "k", transport=transport, backoff=backoff) as client,
        pytest.raises(RateLimited) as caught,
    ):
        client.export("42")
    assert len(seen) == 3 and caught.value.retry_after == 0


def test_the_async_client_retries_too() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) < 3:
            return httpx.Response(503, json={"detail": "busy"}, headers={"Retry-After": "0"})
        return httpx.Response(200, json={"user_id": "42", "facts": []})

    async def run() -> MemoryExport:
        transport = httpx.MockTransport(handle)
        async with AsyncClient("http://memory", "k", transport=transport) as client:
            return await client.export("42")

    assert asyncio.run(run()).facts == [] and len(seen) == 3


def test_read_your_writes_is_passed_to_the_server() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200,
            json={
                "intent": "current",
                "categories": {},
                "as_of": "2026-01-01T00:00:00Z",
                "results": [],
            },
        )

    with Client("http://memory", transport=httpx.MockTransport(handle)) as client:
        client.query("42", "where", wait_for=["s1/t1#raw", "e-2"], timeout=3)
    params = seen[0].url.params
    assert (
        params.get_list("wait_for") == ["s1/t1#raw", "e-2"] and float(params["wait_timeout"]) == 3
    )


def test_importing_frecall_loads_no_sdk() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, frecall; "
        "print(sorted(m for m in ('httpx', 'frecall.sdk', 'fastapi') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
