"""`frecall serve`: the HTTP API over the embedded deployment (issue 4, item 5).

In-process through FastAPI's TestClient (no socket), plus one test of the real server as a
subprocess on a free loopback port.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from frecall.api import ApiLimits, create_api
from frecall.api.models import MAX_ITEMS
from frecall.bootstrap import build
from frecall.cli import main
from frecall.embedded.deployment import EmbeddedDeployment
from frecall.settings import Settings
from schemas.events import ForgetCommand, TurnEvent
from schemas.query import QueryRequest
from tests.processes import free_port
from workers.app import App
from workers.errors import ExtractionError, StorageError
from workers.export import dumps_stable, export_user
from workers.extraction.model import ExtractedFact
from workers.extraction.rules import RuleExtractor
from workers.ports import FactExtractor
from workers.stores.dead_letters import read_dead_letters

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = "2026-09-21T09:00:00Z"


def _story() -> list[dict[str, Any]]:
    return [json.loads(line) for line in STORY.read_text("utf-8").splitlines() if line.strip()]


def create_app(app: App, extractor: FactExtractor, limits: ApiLimits | None = None) -> FastAPI:
    """The HTTP API over the embedded deployment of `app` (which the fixture closes)."""
    return create_api(EmbeddedDeployment.over(app, extractor), limits=limits)


def _turn(turn_id: str, text: str, day: int, user: str = "ana") -> dict[str, Any]:
    return {
        "user_id": user,
        "session_id": "s1",
        "turn_id": turn_id,
        "role": "user",
        "text": text,
        "timestamp": f"2026-06-{day:02d}T10:00:00Z",
    }


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[App]:
    app = build(Settings(data_dir=tmp_path / "data", embedder="hashing"), fsync=False)
    try:
        yield app
    finally:
        app.close()


@pytest.fixture
def client(deployment: App) -> Iterator[TestClient]:
    with TestClient(create_app(deployment, RuleExtractor())) as c:
        yield c


def _ask(client: TestClient, user: str, query: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/v1/query", json={"user_id": user, "query": query, **extra})
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


def _states(result: dict[str, Any]) -> dict[str, str]:
    return {r["edge_id"]: r["state"] for r in result["results"]}


def test_healthz_and_openapi_lists_every_endpoint(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "facts": 0}
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths["/v1/query"]) == {"post"}
    assert set(paths["/v1/turns"]) == {"post"} and set(paths["/v1/edges"]) == {"post"}
    assert set(paths["/v1/users/{user_id}/memory"]) == {"get"}
    assert set(paths["/v1/users/{user_id}"]) == {"delete"}
    assert set(paths["/v1/users/{user_id}/facts/{edge_id}"]) == {"delete"}
    assert set(paths["/healthz"]) == {"get"}
    assert {"QueryRequest", "QueryResult", "TurnsRequest", "EdgesRequest"} <= set(
        schema["components"]["schemas"]
    )


def test_edges_then_query_current_value_wins(client: TestClient, deployment: App) -> None:
    story = _story()
    response = client.post("/v1/edges", json={"edges": story})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["accepted"] == len(story) and body["failed"] == 0 and body["rejected"] == 0
    assert body["edge_ids"] == [e["edge_id"] for e in story]  # given ids are kept
    # Net changes of the batch: Istanbul came in and was superseded by London in one request.
    assert (
        body["transitions"]["new->superseded"] >= 1
        and "active->superseded" not in body["transitions"]
    )
    assert client.get("/healthz").json()["facts"] == len(story)

    result = _ask(client, "maya", "Where does Maya live?", as_of=AS_OF, k=50)
    assert _states(result)["city-london"] == "active"
    assert "city-istanbul" not in _states(result)  # superseded: masked for a current query
    # The same JSON as `frecall query --json` (which prints QueryResult.model_dump_json()).
    request = QueryRequest(user_id="maya", query="Where does Maya live?", as_of=AS_OF, k=50)
    assert result == json.loads(deployment.queries.query(request).model_dump_json())
    historical = _ask(client, "maya", "Where did Maya live before moving to London?", as_of=AS_OF)
    assert historical["intent"] == "historical"
    # The hashing test embedder is too coarse to rank by; the state says it all.
    assert _states(historical)["city-istanbul"] == "superseded"


def test_turns_go_through_extraction(client: TestClient) -> None:
    turns = [
        _turn("t1", "I live in Istanbul.", 1),
        _turn("t2", "I moved to London last week.", 10),
        {**_turn("t3", "Sounds great!", 10), "role": "assistant"},
    ]
    response = client.post("/v1/turns", json={"turns": turns})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["turns"] == 3 and body["failed"] == 0 and body["failures"] == []
    assert body["edge_ids"] == ["s1/t1#0", "s1/t1#raw", "s1/t2#0", "s1/t2#raw"]
    assert body["accepted"] == 4

    result = _ask(client, "ana", "Where do I live?", as_of="2026-06-11T00:00:00Z")
    active = [r for r in result["results"] if r["state"] == "active"]
    assert "London" in result["results"][0]["text"]
    assert not [r for r in active if "Istanbul" in r["text"]]
    # Re-sending the same turns is idempotent: same ids, no new facts.
    again = client.post("/v1/turns", json={"turns": turns}).json()
    assert again["edge_ids"] == body["edge_ids"]
    assert client.get("/healthz").json()["facts"] == 4


class _FailsOn:
    """The rule extractor, except that one turn fails as an LLM might."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.rules = RuleExtractor()

    def extract(self, turn: TurnEvent, context: Sequence[TurnEvent]) -> list[ExtractedFact]:
        if turn.turn_id == self.turn_id:
            raise ExtractionError(turn.turn_id, "the model returned garbage")
        return self.rules.extract(turn, context)


def test_a_failed_turn_is_reported_per_item_and_dead_lettered(
    deployment: App, tmp_path: Path
) -> None:
    with TestClient(create_app(deployment, _FailsOn("t2"))) as client:
        turns = [_turn("t1", "I live in Istanbul.", 1), _turn("t2", "I am vegetarian.", 2)]
        body = client.post("/v1/turns", json={"turns": turns}).json()
    assert body["failed"] == 1 and body["turns"] == 2
    assert [f["index"] for f in body["failures"]] == [1]
    assert "the model returned garbage" in body["failures"][0]["reason"]
    # The failed turn's raw text is still kept (Appendix AA); its facts are not.
    assert body["edge_ids"] == ["s1/t1#0", "s1/t1#raw", "s1/t2#raw"]
    letters = read_dead_letters(tmp_path / "data" / "dead-letters.jsonl")
    assert len(letters) == 1 and '"turn_id":"t2"' in letters[0]["raw"]


def test_export_is_byte_for_byte_the_cli_export(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    assert client.post("/v1/edges", json={"edges": _story()}).status_code == 200
    served = client.get("/v1/users/maya/memory")
    assert served.status_code == 200
    assert served.headers["content-type"] == "application/json"
    facts = served.json()["facts"]
    assert len(facts) == len(_story()) and {"edge", "lifecycle"} == set(facts[0])

    monkeypatch.setenv("FR_EMBEDDER", "hashing")
    cli_dir = str(tmp_path / "cli")
    assert main(["ingest-edges", "--data-dir", cli_dir, str(STORY)]) == 0
    capsys.readouterr()
    assert main(["export", "--data-dir", cli_dir, "--user", "maya", "--json"]) == 0
    assert capsys.readouterr().out == served.text + "\n"
    # A user with no memory is absent (issue 14: as another tenant's user is): 404.
    missing = client.get("/v1/users/nobody/memory")
    assert missing.status_code == 404 and missing.json() == {
        "detail": "no memory for user 'nobody'"
    }


def test_forget_a_fact_and_a_user_with_receipts(client: TestClient, deployment: App) -> None:
    client.post("/v1/edges", json={"edges": _story()})
    client.post("/v1/turns", json={"turns": [_turn("t1", "I live in Istanbul.", 1)]})

    # Turn-derived ids hold "/" and "#": the "#" is percent-encoded, the "/" may stay.
    receipt = client.delete("/v1/users/ana/facts/s1/t1%230")
    assert receipt.status_code == 200, receipt.text
    body = receipt.json()
    assert body["user_id"] == "ana" and body["edge_id"] == "s1/t1#0"
    assert body["removed"] == {"vector_index": 1, "slot_index": 1, "log": 1, "archive": 0}
    assert "at" in body
    remaining = [f["edge"]["edge_id"] for f in client.get("/v1/users/ana/memory").json()["facts"]]
    assert remaining == ["s1/t1#raw"]

    receipt = client.delete("/v1/users/maya/facts/city-london").json()
    assert receipt["removed"]["vector_index"] == 1 and receipt["removed"]["log"] == 1
    states = _states(_ask(client, "maya", "Where does Maya live?", as_of=AS_OF, k=50))
    assert "city-london" not in states
    assert states["city-istanbul"] == "active"  # the value it had superseded comes back

    receipt = client.delete("/v1/users/maya").json()
    assert receipt["edge_id"] is None
    assert receipt["removed"]["vector_index"] == len(_story()) - 1
    assert receipt["removed"]["log"] == len(_story()) - 1
    assert _ask(client, "maya", "Where does Maya live?")["results"] == []
    assert client.get("/v1/users/maya/memory").status_code == 404  # no memory left
    assert client.get("/healthz").json()["facts"] == 1  # ana's raw turn only
    # Erased from the log too; only the forget commands stay, as tombstones for replay.
    kept = [r for r in deployment.log.read() if r.user_id == "maya"]
    assert kept and all(isinstance(r, ForgetCommand) for r in kept)


def test_request_size_limits(deployment: App) -> None:
    with TestClient(create_app(deployment, RuleExtractor(), limits=ApiLimits(2_000))) as client:
        big = {"edges": [{"user_id": "u", "text": "x" * 3_000, "category": "OTHER"}]}
        declared = client.post("/v1/edges", json=big)
        assert declared.status_code == 413
        assert declared.json() == {"detail": "request body over the limit of 2000 bytes"}
        # A chunked body without Content-Length is cut off once it passes the limit.
        chunks = iter([b'{"edges": [', b" " * 1_500, b" " * 1_500, b"]}"])
        streamed = client.post(
            "/v1/edges", content=chunks, headers={"content-type": "application/json"}
        )
        assert streamed.status_code == 413
        assert client.get("/healthz").json()["facts"] == 0
    with TestClient(create_app(deployment, RuleExtractor())) as client:
        many = [_turn(f"t{i}", "hi", 1) for i in range(MAX_ITEMS + 1)]
        too_many = client.post("/v1/turns", json={"turns": many})
        assert too_many.status_code == 422
        assert too_many.json()["detail"][0]["loc"] == ["body", "turns"]


def test_malformed_items_get_422_per_item_and_nothing_is_applied(client: TestClient) -> None:
    good = {"user_id": "u", "text": "likes tea", "category": "PREFERENCES_HABITS"}
    edges = [
        good,
        {**good, "category": "NOT_A_CATEGORY"},
        {**good, "text": "zero", "category": {"OTHER": 0}},  # valid shape, no weight
        {"user_id": "u", "category": "OTHER"},
    ]
    response = client.post("/v1/edges", json={"edges": edges})
    assert response.status_code == 422
    where = {tuple(p["loc"][:3]) for p in response.json()["detail"]}
    assert where == {("body", "edges", 1), ("body", "edges", 3)}
    # Shape first, then semantics: once the shapes are right, the zero weights are reported.
    response = client.post("/v1/edges", json={"edges": [good, edges[2]]})
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"loc": ["body", "edges", 1], "msg": "category weights must not all be zero",
         "type": "value_error"}
    ]  # fmt: skip
    turns = [_turn("t1", "I live in Istanbul.", 1), {**_turn("t2", "x", 1), "role": "bot"}]
    response = client.post("/v1/turns", json={"turns": turns})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "turns", 1, "role"]
    assert "input" not in response.json()["detail"][0]  # the input is not echoed
    bad_json = client.post(
        "/v1/edges", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad_json.status_code == 422
    assert client.post("/v1/query", json={"user_id": "has space", "query": "q"}).status_code == 422
    assert client.get("/v1/users/has%20space/memory").status_code == 422
    assert client.get("/healthz").json()["facts"] == 0
    assert client.get("/v1/nothing").json() == {"detail": "Not Found"}


def test_errors_are_clean_json(deployment: App, monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(request: QueryRequest) -> Any:
        raise StorageError("qdrant-edge", "query", "/secret/path: disk on fire")

    def broken(request: QueryRequest) -> Any:
        raise RuntimeError("bug")

    api = create_app(deployment, RuleExtractor())
    with TestClient(api, raise_server_exceptions=False) as client:
        monkeypatch.setattr(deployment.queries, "query", unavailable)
        response = client.post("/v1/query", json={"user_id": "u", "query": "q"})
        assert response.status_code == 503
        assert response.json() == {"detail": "qdrant-edge: query failed"}
        monkeypatch.setattr(deployment.queries, "query", broken)
        response = client.post("/v1/query", json={"user_id": "u", "query": "q"})
        assert response.status_code == 500
        assert response.json() == {"detail": "internal server error"}


def test_concurrent_writers_and_readers_stay_isolated(client: TestClient) -> None:
    users = [f"user{i}" for i in range(6)]
    failures: list[str] = []

    def work(user: str) -> None:
        try:
            for day in (1, 2):
                city = "Istanbul" if day == 1 else "London"
                edge = {
                    "user_id": user,
                    "text": f"{user} lives in {city}",
                    "category": "IDENTITY_SELF_CONCEPT",
                    "slot_key": "user.current_city",
                    "update": "replace",
                    "ingest_time": f"2026-06-0{day}T00:00:00Z",
                    "edge_id": f"{user}-{city}",
                }
                assert client.post("/v1/edges", json={"edges": [edge]}).status_code == 200
                for r in _ask(client, user, "where do I live?")["results"]:
                    assert r["edge_id"].startswith(f"{user}-"), r
        except AssertionError as exc:  # pragma: no cover - reported below
            failures.append(repr(exc))

    threads = [threading.Thread(target=work, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not failures
    for user in users:
        top = _ask(client, user, "where do I live?")["results"][0]
        assert top["edge_id"] == f"{user}-London" and top["state"] == "active"
    assert client.get("/healthz").json()["facts"] == 2 * len(users)


# -- the real server -----------------------------------------------------------------------


def _http(url: str, document: Any = None) -> Any:
    data = None if document is None else json.dumps(document).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def _frecall() -> list[str]:
    script = Path(sys.executable).with_name("frecall")
    return [str(script)] if script.exists() else [sys.executable, "-m", "frecall.cli"]


def test_frecall_serve_answers_over_http_and_stops_cleanly(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "data"
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FR_EMBEDDER": "hashing"}
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log_file:
        server = subprocess.Popen(
            [*_frecall(), "serve", "--port", str(port), "--data-dir", str(data)],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60  # start-up on a loaded 2-core machine
            while True:
                try:
                    assert _http(f"{base}/healthz") == {"status": "ok", "facts": 0}
                    break
                except (urllib.error.URLError, ConnectionError):
                    if server.poll() is not None or time.monotonic() > deadline:
                        pytest.fail(f"server did not come up:\n{log_path.read_text()}")
                    time.sleep(0.1)
            ingested = _http(f"{base}/v1/edges", {"edges": _story()})
            assert ingested["accepted"] == len(_story())
            result = _http(
                f"{base}/v1/query",
                {"user_id": "maya", "query": "Where does Maya live?", "as_of": AS_OF, "k": 50},
            )
            assert _states(result)["city-london"] == "active"
            assert "city-istanbul" not in _states(result)
        finally:
            server.terminate()
            try:
                code = server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
                pytest.fail(f"server ignored SIGTERM:\n{log_path.read_text()}")
    assert code == 0, log_path.read_text()
    # Stopped cleanly: the stores were closed and the deployment opens again with the facts.
    app = build(Settings(data_dir=data, embedder="hashing"), fsync=False)
    try:
        assert app.vectors.count() == len(_story())
        exported = export_user(app.vectors, "maya")
    finally:
        app.close()
    assert json.loads(dumps_stable(exported))["facts"][0]["edge"]["user_id"] == "maya"
    shutil.rmtree(data)
