"""The distributed deployment against a real Kafka broker and a real Redis (issue 4).

Worker processes (`frecall worker`, Faust) consume from Kafka and write Redis; one serving
process (`frecall serve`) owns the Qdrant Edge store through its indexer. The reference is
the embedded deployment on the same input, in this process. The tests of this module share
one deployment and run in file order: equality and isolation, redelivery, dead letters,
erasure, then replay.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.events import TurnEvent
from schemas.query import QueryRequest
from schemas.streams import DLQ, EDGES, TURNS
from streams.kafka_io import KafkaProducer, read_topics
from tests.processes import free_port, run_frecall, stop, wait_until
from workers.export import dumps_stable, export_user
from workers.stores.redis_client import connect
from workers.stores.redis_facts import RedisFactStore

pytestmark = pytest.mark.integration

STORY = Path(__file__).resolve().parents[2] / "frecall" / "demo" / "story.jsonl"
USERS = 60
AS_OF = "2026-12-01T00:00:00Z"
QUERIES = (
    "where does she live now",
    "what is her job",
    "is she getting a dog",
    "how much is the rent",
    "what does she eat",
    "when is the dentist appointment",
)


def story_for(user: str) -> list[dict[str, Any]]:
    """The demo story (supersession, soft update, retraction, quarantine, expiry) as `user`."""
    rows = []
    for line in STORY.read_text().splitlines():
        row = json.loads(line)
        row["user_id"] = user
        row["edge_id"] = f"{user}/{row['edge_id']}"
        rows.append(row)
    return rows


def users(n: int, tag: str) -> list[str]:
    return [f"{tag}-u{i:03d}" for i in range(n)]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@dataclass
class Deployment:
    """One isolated distributed deployment (own topics, consumer groups, Redis keys)."""

    env: dict[str, str]
    tmp: Path
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    server: subprocess.Popen[bytes] | None = None
    port: int = 0

    @property
    def settings(self) -> Settings:
        return Settings(
            kafka_bootstrap=self.env["FR_KAFKA_BOOTSTRAP"],
            redis_url=self.env["FR_REDIS_URL"],
            kafka_topic_prefix=self.env["FR_KAFKA_TOPIC_PREFIX"],
            redis_prefix=self.env["FR_REDIS_PREFIX"],
            kafka_partitions=int(self.env["FR_KAFKA_PARTITIONS"]),
            embedder="hashing",
            data_dir=Path(self.env["FR_DATA_DIR"]),
        )

    def topic(self, logical: str) -> str:
        return self.env["FR_KAFKA_TOPIC_PREFIX"] + logical

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return run_frecall(self.env, *args, timeout=timeout)

    def start_worker(self) -> subprocess.Popen[bytes]:
        with open(self.tmp / f"worker-{len(self.workers)}.log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "frecall.cli", "worker"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.workers.append(proc)
        return proc

    def start_server(self) -> None:
        self.port = free_port()
        with open(self.tmp / "serve.log", "ab") as log:
            self.server = subprocess.Popen(
                [sys.executable, "-m", "frecall.cli", "serve", "--port", str(self.port)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

        def up() -> bool:
            try:
                return httpx.get(self.url("/healthz"), timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until("the serving process", up, timeout=60)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop_server(self) -> None:
        if self.server is not None:
            stop(self.server)
            self.server = None

    def stop_workers(self) -> None:
        for proc in self.workers:
            stop(proc)
        self.workers = []

    def facts(self) -> RedisFactStore:
        client = connect(self.env["FR_REDIS_URL"])
        gen = int(client.get(f"{self.env['FR_REDIS_PREFIX']}:generation") or 0)
        prefix = self.env["FR_REDIS_PREFIX"] + ("" if gen == 0 else f".g{gen}")
        return RedisFactStore(client, prefix)

    def export(self, user: str) -> str:
        store = self.facts()
        try:
            return dumps_stable(export_user(store, user))
        finally:
            store.close()

    def count(self, user_ids: list[str]) -> int:
        store = self.facts()
        try:
            return sum(store.count(u) for u in user_ids)
        finally:
            store.close()

    def dump_logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in self.tmp.glob("*.log")
        )


def new_deployment(kafka: str, redis_url: str, tmp: Path) -> Deployment:
    tag = "t" + uuid.uuid4().hex[:8]
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(
        FR_KAFKA_BOOTSTRAP=kafka,
        FR_REDIS_URL=redis_url,
        FR_KAFKA_TOPIC_PREFIX=f"{tag}.",
        FR_KAFKA_GROUP=f"{tag}-workers",
        FR_REDIS_PREFIX=tag,
        FR_KAFKA_PARTITIONS="4",
        FR_EMBEDDER="hashing",
        FR_DATA_DIR=str(tmp / "data"),
    )
    return Deployment(env, tmp)


def drop_keys(redis_url: str, prefix: str) -> None:
    client = connect(redis_url)
    for key in client.scan_iter(f"{prefix}*", count=1000):
        client.delete(key)
    client.close()


@pytest.fixture(scope="module")
def cluster(
    kafka_bootstrap: str, module_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    deployment = new_deployment(
        kafka_bootstrap, module_redis_url, tmp_path_factory.mktemp("distributed")
    )
    deployment.start_worker()
    deployment.start_worker()
    deployment.start_server()
    try:
        yield deployment
    finally:
        deployment.stop_server()
        deployment.stop_workers()
        drop_keys(module_redis_url, deployment.env["FR_REDIS_PREFIX"])


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedPipeline]:
    """The reference: the embedded deployment, in-process, same embedder."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("embedded"), embedder="hashing")
    app = build(settings, fsync=False)
    try:
        yield EmbeddedPipeline(app)
    finally:
        app.close()


MAIN = users(USERS, "main")


def test_concurrent_producers_match_the_embedded_deployment(
    cluster: Deployment, embedded: EmbeddedPipeline
) -> None:
    rows = [row for user in MAIN for row in story_for(user)]
    report = embedded.ingest_edge_items(
        [(i, json.dumps(r), _edge_input(r)) for i, r in enumerate(rows)], "reference"
    )
    assert report.ok
    # Four producers at once, each with a share of every user's facts.
    shares = [rows[i::4] for i in range(4)]
    files = [write_jsonl(cluster.tmp / f"share-{i}.jsonl", s) for i, s in enumerate(shares)]
    seen_foreign: list[str] = []
    stop_queries = threading.Event()
    queries_run = 0

    def query_all_the_time() -> None:
        # Tenant isolation under concurrency: no answer ever holds another user's fact.
        nonlocal queries_run
        rng = random.Random(1)
        with httpx.Client(timeout=30) as client:
            while not stop_queries.is_set():
                user = rng.choice(MAIN)
                body = {"user_id": user, "query": rng.choice(QUERIES), "as_of": AS_OF}
                response = client.post(cluster.url("/v1/query"), json=body)
                assert response.status_code == 200, response.text
                for result in response.json()["results"]:
                    if not result["edge_id"].startswith(user + "/"):
                        seen_foreign.append(f"{user}: {result['edge_id']}")
                queries_run += 1

    querier = threading.Thread(target=query_all_the_time)
    querier.start()
    try:
        producers = [
            subprocess.Popen(
                [sys.executable, "-m", "frecall.cli", "ingest-edges", str(f)],
                env=cluster.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for f in files
        ]
        for p in producers:
            _, err = p.communicate(timeout=180)
            assert p.returncode == 0, err.decode()
        wait_until(
            f"{len(rows)} facts in Redis\n{cluster.dump_logs()}",
            lambda: cluster.count(MAIN) == len(rows),
        )
        # Query equality needs the indexer to have caught up with every fact.
        wait_until(
            "the vector index to hold every fact",
            lambda: httpx.get(cluster.url("/healthz")).json()["facts"] >= len(rows),
        )
    finally:
        stop_queries.set()
        querier.join(timeout=60)
    assert queries_run > 0
    assert seen_foreign == []

    for user in MAIN:
        reference = dumps_stable(export_user(embedded.app.vectors, user))
        assert cluster.export(user) == reference, user
        http_export = httpx.get(cluster.url(f"/v1/users/{user}/memory")).text
        assert http_export == reference

    for user in MAIN[:10]:
        for text in QUERIES:
            request = QueryRequest.model_validate({"user_id": user, "query": text, "as_of": AS_OF})
            expected = embedded.app.queries.query(request)
            got = httpx.post(
                cluster.url("/v1/query"), json={"user_id": user, "query": text, "as_of": AS_OF}
            ).json()
            assert [r["edge_id"] for r in got["results"]] == [
                r.edge_id for r in expected.results
            ], (user, text)
            assert [r["state"] for r in got["results"]] == [r.state for r in expected.results]


def _edge_input(row: dict[str, Any]) -> Any:
    from workers.inputs import EdgeInput

    return EdgeInput.model_validate(row)


def test_turns_through_the_extraction_agents_match_the_embedded_deployment(
    cluster: Deployment, embedded: EmbeddedPipeline
) -> None:
    bench = cluster.tmp / "bench"
    made = cluster.cli("bench", "lifecycle", "generate", "--personas", "3", "--out", str(bench))
    assert made.returncode == 0, made.stderr
    lines = (bench / "turns.jsonl").read_text().splitlines()
    by_user: dict[str, list[str]] = {}
    for line in lines:
        by_user.setdefault(json.loads(line)["user_id"], []).append(line)
    # The rule extractor, in-process, on the same turns: the reference.
    from workers.extraction.rules import RuleExtractor
    from workers.inputs import read_jsonl

    report = embedded.ingest_turn_items(
        read_jsonl(bench / "turns.jsonl", TurnEvent), RuleExtractor(), "reference"
    )
    assert report.ok
    expected = {u: dumps_stable(export_user(embedded.app.vectors, u)) for u in by_user}
    total = sum(len(json.loads(doc)["facts"]) for doc in expected.values())
    # One producer per user (a user's turns in order: extraction reads the session so far).
    producers = []
    for user, user_lines in by_user.items():
        path = cluster.tmp / f"turns-{user}.jsonl"
        path.write_text("\n".join(user_lines) + "\n")
        producers.append(
            subprocess.Popen(
                [sys.executable, "-m", "frecall.cli", "ingest", str(path)],
                env=cluster.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
    for p in producers:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err.decode()
    wait_until(
        f"{total} facts from {len(lines)} turns\n{cluster.dump_logs()}",
        lambda: cluster.count(list(by_user)) == total,
    )
    for user in by_user:
        assert cluster.export(user) == expected[user], user


def test_duplicated_and_out_of_order_delivery_give_the_same_export(cluster: Deployment) -> None:
    chosen = MAIN[:8]
    before = {u: cluster.export(u) for u in chosen}
    rows = [row for user in chosen for row in story_for(user)]
    again = rows + rows[::2]
    random.Random(3).shuffle(again)
    result = cluster.cli("ingest-edges", str(write_jsonl(cluster.tmp / "again.jsonl", again)))
    assert result.returncode == 0, result.stderr
    # Fresh users, delivered shuffled and twice, equal the in-order embedded state too.
    late = users(4, "late")
    late_rows = [row for user in late for row in story_for(user)]
    shuffled = late_rows + late_rows
    random.Random(5).shuffle(shuffled)
    result = cluster.cli("ingest-edges", str(write_jsonl(cluster.tmp / "late.jsonl", shuffled)))
    assert result.returncode == 0, result.stderr
    wait_until("late users", lambda: cluster.count(late) == len(late_rows))
    marker = users(1, "marker")
    result = cluster.cli(
        "ingest-edges", str(write_jsonl(cluster.tmp / "marker.jsonl", story_for(marker[0])))
    )
    assert result.returncode == 0, result.stderr
    # Per-partition order: once a later message is applied everywhere, so are the copies.
    wait_until("marker user", lambda: cluster.count(marker) == len(story_for(marker[0])))
    time.sleep(2)
    for user in chosen:
        assert cluster.export(user) == before[user], user
    reference = [u.replace("late", "main") for u in late]
    for user, same_story in zip(late, reference, strict=True):
        got = json.loads(cluster.export(user))
        want = json.loads(before.get(same_story) or cluster.export(same_story))
        assert _states(got) == _states(want)


def _states(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (f["edge"]["edge_id"].split("/", 1)[1], f["lifecycle"]["state"]) for f in document["facts"]
    ]


def test_malformed_messages_are_dead_lettered_and_the_pipeline_goes_on(
    cluster: Deployment,
) -> None:
    producer = KafkaProducer(cluster.env["FR_KAFKA_BOOTSTRAP"])
    producer.produce(cluster.topic(EDGES), "bad-user", b"\xff not json")
    producer.produce(cluster.topic(EDGES), "bad-user", b'{"kind": "edge", "user_id": "x"}')
    no_vector = {**story_for("bad-user")[0], "categories": {"IDENTITY_SELF_CONCEPT": 1.0}}
    no_vector.pop("category")
    no_vector["ingest_time"] = "2026-06-01T12:00:00Z"
    producer.produce(cluster.topic(EDGES), "bad-user", json.dumps(no_vector).encode())
    producer.produce(cluster.topic(TURNS), "bad-user", b'{"user_id": "bad-user"}')
    good = TurnEvent(
        user_id="after-bad",
        session_id="s1",
        turn_id="t1",
        role="user",
        text="I live in Lisbon and I work as a nurse.",
        timestamp="2026-01-01T10:00:00Z",  # type: ignore[arg-type]
    )
    producer.produce(cluster.topic(TURNS), good.user_id, good.model_dump_json().encode())
    producer.flush()
    wait_until("the good turn after the bad ones", lambda: cluster.count(["after-bad"]) >= 2)

    def letters() -> list[dict[str, Any]]:
        found = read_topics(cluster.env["FR_KAFKA_BOOTSTRAP"], [cluster.topic(DLQ)])
        return [json.loads(m.value) for m in found]

    wait_until("4 dead letters", lambda: len(letters()) >= 4)
    dead = letters()
    assert {d["topic"] for d in dead} == {cluster.topic(EDGES), cluster.topic(TURNS)}
    reasons = " | ".join(d["reason"] for d in dead)
    assert "no embedding" in reasons and "not an edge event" in reasons
    assert "not a turn" in reasons
    assert all(d["offset"] >= 0 and d["partition"] >= 0 and d["raw"] for d in dead)


def test_http_writes_are_read_back_with_wait_for(cluster: Deployment) -> None:
    turn = {
        "user_id": "rw-user",
        "session_id": "s1",
        "turn_id": "t1",
        "role": "user",
        "text": "I just moved to Valencia for a new job as a pharmacist.",
        "timestamp": "2026-05-01T09:00:00Z",
    }
    response = httpx.post(cluster.url("/v1/turns"), json={"turns": [turn]}, timeout=30)
    assert response.status_code == 200, response.text
    token = response.json()["edge_ids"]
    assert len(token) == 1
    body = {"user_id": "rw-user", "query": "where does the user live", "as_of": AS_OF}
    response = httpx.post(
        cluster.url("/v1/query"),
        params={"wait_for": token, "wait_timeout": 60},
        json=body,
        timeout=90,
    )
    assert response.status_code == 200, response.text
    texts = [r["text"] for r in response.json()["results"]]
    assert any("Valencia" in t for t in texts)
    edge = {**story_for("rw-user")[0], "edge_id": "rw-user/edge"}
    response = httpx.post(cluster.url("/v1/edges"), json={"edges": [edge]}, timeout=30)
    assert response.json()["edge_ids"] == ["rw-user/edge"]
    response = httpx.post(
        cluster.url("/v1/query"),
        params={"wait_for": ["rw-user/edge"]},
        json={**body, "query": "Istanbul"},
        timeout=90,
    )
    assert "rw-user/edge" in [r["edge_id"] for r in response.json()["results"]]
    response = httpx.post(
        cluster.url("/v1/query"),
        params={"wait_for": ["rw-user/edge", "never/sent#0"], "wait_timeout": 1},
        json=body,
        timeout=30,
    )
    assert response.status_code == 503 and "never/sent#0" in response.json()["detail"]
    assert "rw-user/edge" not in response.json()["detail"]
    # The CLI cannot open the vector index the serving process owns: it says where to go.
    refused = cluster.cli("query", "--user", "rw-user", "where")
    assert refused.returncode == 1 and "POST /v1/query" in refused.stderr


def test_forget_reaches_redis_and_the_vector_index(cluster: Deployment) -> None:
    gone_user, fact_user = MAIN[-1], MAIN[-2]
    response = httpx.delete(cluster.url(f"/v1/users/{gone_user}"), timeout=60)
    assert response.status_code == 200, response.text
    receipt = response.json()["removed"]
    assert receipt["fact_store"] == len(story_for(gone_user))
    assert receipt["slot_index"] > 0
    assert receipt["vector_index"] == len(story_for(gone_user))
    edge = f"{fact_user}/city-london"
    response = httpx.delete(cluster.url(f"/v1/users/{fact_user}/facts/{edge}"), timeout=60)
    assert response.status_code == 200, response.text
    assert response.json()["removed"]["vector_index"] == 1

    assert json.loads(cluster.export(gone_user))["facts"] == []
    facts = json.loads(cluster.export(fact_user))["facts"]
    assert edge not in {f["edge"]["edge_id"] for f in facts}
    # The value London superseded is current again: state is a function of the rest.
    states = {f["edge"]["edge_id"]: f["lifecycle"]["state"] for f in facts}
    assert states[f"{fact_user}/city-london-maybe"] == "active"
    client = connect(cluster.env["FR_REDIS_URL"])
    tag = cluster.env["FR_REDIS_PREFIX"]
    leftovers = [k for k in client.scan_iter(f"{tag}:{{{gone_user}}}:*") if b":forgotten" not in k]
    client.close()
    # What stays is bookkeeping without the user's words: the version counter, the
    # tombstone and the receipt (counts only, expires after a day).
    kept = (b":version", b":erased_at")
    assert [k for k in leftovers if not k.endswith(kept) and b":receipt:" not in k] == []
    for text in QUERIES:
        body = {"user_id": gone_user, "query": text, "as_of": AS_OF}
        assert httpx.post(cluster.url("/v1/query"), json=body).json()["results"] == []
        body = {"user_id": fact_user, "query": text, "as_of": AS_OF}
        ids = [
            r["edge_id"] for r in httpx.post(cluster.url("/v1/query"), json=body).json()["results"]
        ]
        assert edge not in ids


def test_replay_from_kafka_rebuilds_byte_identical_and_keeps_erasures(
    cluster: Deployment,
) -> None:
    refused = cluster.cli("replay", "--from-kafka")
    assert refused.returncode == 1 and "stop the workers" in refused.stderr
    cluster.stop_server()
    cluster.stop_workers()
    every = [
        *MAIN,
        *users(4, "late"),
        *users(1, "marker"),
        "after-bad",
        "rw-user",
        "p00",
        "p01",
        "p02",
    ]
    before = {u: cluster.export(u) for u in every}
    result = cluster.cli("replay", "--from-kafka", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["generation"] == 1 and summary["edges"] > 0
    assert summary["skipped_forgotten"] >= len(story_for(MAIN[-1]))
    for user in every:
        assert cluster.export(user) == before[user], user
    assert json.loads(cluster.export(MAIN[-1]))["facts"] == []
    # The serving process opens the new generation's vector index, complete.
    cluster.start_server()
    total = sum(len(json.loads(before[u])["facts"]) for u in every)
    assert httpx.get(cluster.url("/healthz")).json()["facts"] == total
    body = {"user_id": MAIN[-1], "query": "where does she live", "as_of": AS_OF}
    assert httpx.post(cluster.url("/v1/query"), json=body).json()["results"] == []


def test_compaction_archives_from_redis_and_the_indexer_follows(cluster: Deployment) -> None:
    if cluster.server is None:
        cluster.start_server()
    before = httpx.get(cluster.url("/healthz")).json()["facts"]
    result = cluster.cli("compact", "--as-of", "2028-06-01T00:00:00Z", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["archived"] > 0 and report["remaining"] == before - report["archived"]
    archived = Path(report["archive"]).read_text().splitlines()
    assert len(archived) == report["archived"]
    wait_until(
        "the indexer to drop the archived facts",
        lambda: httpx.get(cluster.url("/healthz")).json()["facts"] == report["remaining"],
        timeout=60,
    )
    user = MAIN[0]
    states = {
        f["edge"]["edge_id"]: f["lifecycle"]["state"]
        for f in json.loads(cluster.export(user))["facts"]
    }
    assert f"{user}/city-istanbul" not in states  # superseded long before mid-2028
    assert states[f"{user}/city-london"] == "active"  # the current value stays


def test_kill_9_of_a_worker_loses_and_duplicates_nothing(
    kafka_bootstrap: str,
    module_redis_url: str,
    tmp_path: Path,
    embedded: EmbeddedPipeline,
) -> None:
    deployment = new_deployment(kafka_bootstrap, module_redis_url, tmp_path)
    crash_users = users(40, "crash")
    rows = [row for user in crash_users for row in story_for(user)]
    reference = embedded.ingest_edge_items(
        [(i, json.dumps(r), _edge_input(r)) for i, r in enumerate(rows)], "reference"
    )
    assert reference.ok
    try:
        result = deployment.cli("ingest-edges", str(write_jsonl(tmp_path / "crash.jsonl", rows)))
        assert result.returncode == 0, result.stderr
        victim = deployment.start_worker()
        wait_until("the worker to be mid-stream", lambda: deployment.count(crash_users) >= 200)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert deployment.count(crash_users) < len(rows), "the worker finished before the kill"
        deployment.start_worker()
        wait_until(
            f"every fact after the restart\n{deployment.dump_logs()}",
            lambda: deployment.count(crash_users) == len(rows),
        )
        time.sleep(2)  # redelivered messages after the last commit are applied by now
        assert deployment.count(crash_users) == len(rows)
        for user in crash_users:
            want = dumps_stable(export_user(embedded.app.vectors, user))
            assert deployment.export(user) == want, user
    finally:
        deployment.stop_workers()
        drop_keys(module_redis_url, deployment.env["FR_REDIS_PREFIX"])
