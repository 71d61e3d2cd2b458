"""The distributed deployment against a real Kafka broker and a real Redis (issues 4, 12).

Worker processes (`frecall worker`, Faust) consume from Kafka and write Redis; one serving
process (`frecall serve`) owns the Qdrant Edge store through its indexer. The reference is
the embedded deployment on the same input, in this process, and the object compared is
the full JSON of query results (an export leaves the vectors and every ranking statistic
out). The tests of this module share one deployment and run in file order: equality and
isolation, redelivery, dead letters, read-your-writes, erasure, replay, compaction, and
erasure after compaction.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.events import TurnEvent
from schemas.streams import COMMANDS, DLQ, EDGES, TRANSITIONS, TURNS, DeadLetter
from streams.kafka_io import KafkaProducer, read_topics
from tests.integration.live_deployment import (
    LiveDeployment,
    drop_keys,
    new_deployment,
    write_jsonl,
)
from tests.processes import wait_until
from tests.ranking_fixtures import first_difference, requests
from tests.ranking_fixtures import story_for as fixture_story
from workers.export import dumps_stable, export_user
from workers.inputs import EdgeInput

pytestmark = pytest.mark.integration

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
    return fixture_story(user)


def users(n: int, tag: str) -> list[str]:
    return [f"{tag}-u{i:03d}" for i in range(n)]


@pytest.fixture(scope="module")
def cluster(
    kafka_bootstrap: str, module_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveDeployment]:
    deployment = new_deployment(kafka_bootstrap, module_redis_url, tmp_path_factory.mktemp("dist"))
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


def reference(embedded: EmbeddedPipeline, rows: list[dict[str, Any]]) -> None:
    report = embedded.ingest_edge_items(
        [(i, json.dumps(r), EdgeInput.model_validate(r)) for i, r in enumerate(rows)], "reference"
    )
    assert report.ok


def rankings(cluster: LiveDeployment, user: str) -> list[str]:
    return [cluster.ask(request) for request in requests(user)]


def assert_same_rankings(cluster: LiveDeployment, embedded: EmbeddedPipeline, user: str) -> None:
    want = [embedded.app.queries.query(r).model_dump_json() for r in requests(user)]
    got = rankings(cluster, user)
    assert got == want, user + first_difference(got, want)


MAIN = users(USERS, "main")


def test_concurrent_producers_match_the_embedded_deployment(
    cluster: LiveDeployment, embedded: EmbeddedPipeline
) -> None:
    rows = [row for user in MAIN for row in story_for(user)]
    reference(embedded, rows)
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
        cluster.settle()  # every announcement projected into the index
    finally:
        stop_queries.set()
        querier.join(timeout=60)
    assert queries_run > 0
    assert seen_foreign == []

    for user in MAIN:
        want = dumps_stable(export_user(embedded.app.vectors, user))
        assert cluster.export(user) == want, user
        assert httpx.get(cluster.url(f"/v1/users/{user}/memory")).text == want
    # Rankings, not only state: the full JSON of every question, before, during and after.
    for user in MAIN[:8]:
        assert_same_rankings(cluster, embedded, user)


def test_turns_through_the_extraction_agents_match_the_embedded_deployment(
    cluster: LiveDeployment, embedded: EmbeddedPipeline
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
    cluster.settle()
    for user in by_user:
        assert cluster.export(user) == expected[user], user
        assert_same_rankings(cluster, embedded, user)


def test_duplicated_and_out_of_order_delivery_give_the_same_rankings(
    cluster: LiveDeployment, embedded: EmbeddedPipeline
) -> None:
    chosen = MAIN[:6]
    before = {u: (cluster.export(u), rankings(cluster, u)) for u in chosen}
    rows = [row for user in chosen for row in story_for(user)]
    again = rows + rows[::2]
    random.Random(3).shuffle(again)
    result = cluster.cli("ingest-edges", str(write_jsonl(cluster.tmp / "again.jsonl", again)))
    assert result.returncode == 0, result.stderr
    # Fresh users, delivered shuffled and twice, equal the in-order embedded reference.
    late = users(4, "late")
    late_rows = [row for user in late for row in story_for(user)]
    reference(embedded, late_rows)
    shuffled = late_rows + late_rows
    random.Random(5).shuffle(shuffled)
    result = cluster.cli("ingest-edges", str(write_jsonl(cluster.tmp / "late.jsonl", shuffled)))
    assert result.returncode == 0, result.stderr
    cluster.settle()  # every copy applied, every announcement indexed
    for user in chosen:  # redelivered facts, and other users' writes, changed nothing
        assert (cluster.export(user), rankings(cluster, user)) == before[user], user
    for user in late:
        assert cluster.export(user) == dumps_stable(export_user(embedded.app.vectors, user))
        assert_same_rankings(cluster, embedded, user)


def test_malformed_input_on_every_entry_point_is_dead_lettered_and_the_pipeline_goes_on(
    cluster: LiveDeployment,
) -> None:
    producer = KafkaProducer(cluster.env["FR_KAFKA_BOOTSTRAP"])
    producer.produce(cluster.topic(EDGES), "bad-user", b"\xff not json")
    producer.produce(cluster.topic(EDGES), "bad-user", b'{"kind": "edge", "user_id": "x"}')
    no_vector = {**story_for("bad-user")[0], "categories": {"IDENTITY_SELF_CONCEPT": 1.0}}
    no_vector.pop("category")
    no_vector["ingest_time"] = "2026-06-01T12:00:00Z"
    producer.produce(cluster.topic(EDGES), "bad-user", json.dumps(no_vector).encode())
    producer.produce(cluster.topic(TURNS), "bad-user", b'{"user_id": "bad-user"}')
    producer.produce(cluster.topic(COMMANDS), "bad-user", b'{"user_id": "bad-user", "secret": 1}')
    good = TurnEvent(
        user_id="after-bad",
        session_id="s1",
        turn_id="t1",
        role="user",
        text="I live in Lisbon and I work as a nurse.",
        timestamp="2026-01-01T10:00:00Z",  # type: ignore[arg-type]
    )
    # The indexer's input, on the partition of the good turn's announcements: it skips what
    # it cannot read and goes on.
    producer.produce(cluster.topic(TRANSITIONS), good.user_id, b"\x00 no announcement")
    producer.produce(cluster.topic(TURNS), good.user_id, good.model_dump_json().encode())
    producer.flush()
    wait_until("the good turn after the bad ones", lambda: cluster.count(["after-bad"]) >= 2)
    cluster.settle()
    body = {"user_id": "after-bad", "query": "where does the user live", "as_of": AS_OF}
    results = httpx.post(cluster.url("/v1/query"), json=body).json()["results"]
    assert any("Lisbon" in r["text"] for r in results)

    def letters() -> list[tuple[DeadLetter, bytes]]:
        found = read_topics(cluster.env["FR_KAFKA_BOOTSTRAP"], [cluster.topic(DLQ)])
        return [(DeadLetter.model_validate_json(m.value), m.value) for m in found]

    wait_until("5 dead letters", lambda: len(letters()) >= 5)
    dead = letters()
    topics = {cluster.topic(t) for t in (EDGES, TURNS, COMMANDS)}
    assert {d.topic for d, _ in dead} == topics
    assert {d.reason for d, _ in dead} == {
        "not an edge event",
        "edge has no embedding",
        "not a turn",
        "not a command",
    }
    # fr.dlq keeps none of the input: the words are with the user's dead letters in Redis.
    assert all(d.raw is None and d.offset >= 0 and d.partition >= 0 for d, _ in dead)
    assert not any(b"secret" in value or b"Istanbul" in value for _, value in dead)
    kept = cluster.letters().of("bad-user")
    assert len(kept) == 5 and any("secret" in k["raw"] for k in kept)
    assert any("Istanbul" in k["raw"] and "no embedding" in k["reason"] for k in kept)

    # The distributed producer: bad lines are reported, kept where a forget reaches them,
    # and the rest goes in.
    path = cluster.tmp / "mixed-turns.jsonl"
    good_line = good.model_copy(update={"user_id": "after-bad-2"}).model_dump_json()
    bad_line = json.dumps({"user_id": "bad-producer", "text": "my secret plan"})
    path.write_text(f"{good_line}\n{bad_line}\nnot json at all\n")
    done = cluster.cli("ingest", str(path))
    assert done.returncode == 1
    assert f"{path}:2:" in done.stderr and f"{path}:3: invalid JSON" in done.stderr
    wait_until("the good line", lambda: cluster.count(["after-bad-2"]) >= 2)
    (letter,) = cluster.letters().of("bad-producer")
    assert letter["position"] == "2" and "my secret plan" in letter["raw"]
    assert [k["raw"] for k in cluster.letters().of(None)][-1] == "not json at all"


def test_http_writes_are_read_back_with_wait_for(cluster: LiveDeployment) -> None:
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
    # Another user's id never becomes queryable for this one: the answer says so at once,
    # once the workers have caught up with the user's partition — not after the timeout.
    started = time.monotonic()
    response = httpx.post(
        cluster.url("/v1/query"),
        params={"wait_for": ["rw-user/edge", f"{MAIN[0]}/city-london"], "wait_timeout": 60},
        json=body,
        timeout=90,
    )
    assert response.status_code == 409  # never: no retry can help (a timeout is a 503)
    detail = response.json()["detail"]
    assert "not in the memory of user rw-user" in detail and f"{MAIN[0]}/city-london" in detail
    assert "rw-user/edge" not in detail
    assert time.monotonic() - started < 30
    # The CLI cannot open the vector index the serving process owns: it says where to go.
    refused = cluster.cli("query", "--user", "rw-user", "where")
    assert refused.returncode == 1 and "POST /v1/query" in refused.stderr


def test_forget_reaches_every_store_and_is_never_ingested_in_the_live_process(
    cluster: LiveDeployment, embedded: EmbeddedPipeline
) -> None:
    gone_user, fact_user, bystander = MAIN[-1], MAIN[-2], MAIN[0]
    untouched = rankings(cluster, bystander)
    response = httpx.delete(cluster.url(f"/v1/users/{gone_user}"), timeout=60)
    assert response.status_code == 200, response.text
    receipt = response.json()["removed"]
    n = len(story_for(gone_user))
    assert (receipt["fact_store"], receipt["vector_index"]) == (n, n)  # each store counted
    assert receipt["slot_index"] > 0 and receipt["archive"] == receipt["dead_letters"] == 0
    edge = f"{fact_user}/city-london"
    response = httpx.delete(cluster.url(f"/v1/users/{fact_user}/facts/{edge}"), timeout=60)
    assert response.status_code == 200, response.text
    one = response.json()["removed"]
    assert (one["fact_store"], one["vector_index"], one["slot_index"]) == (1, 1, 1)

    assert json.loads(cluster.export(gone_user))["facts"] == []
    facts = json.loads(cluster.export(fact_user))["facts"]
    assert edge not in {f["edge"]["edge_id"] for f in facts}
    # The value London superseded is current again: state is a function of the rest.
    states = {f["edge"]["edge_id"]: f["lifecycle"]["state"] for f in facts}
    assert states[f"{fact_user}/city-london-maybe"] == "active"
    client = cluster.client()
    tag = cluster.env["FR_REDIS_PREFIX"]
    leftovers = [k for k in client.scan_iter(f"{tag}:{{{gone_user}}}:*") if b":forgotten" not in k]
    client.close()
    # What stays is bookkeeping without the user's words: the version counter, the
    # tombstone and the receipt (counts only, expires after a day).
    kept = (b":version", b":erased_at")
    assert [k for k in leftovers if not k.endswith(kept) and b":receipt:" not in k] == []
    # Forget ≡ never ingested, for rankings, in the live serving process (no restart): the
    # embedded reference with the same erasures (where that is proven) answers the same.
    embedded.forget(gone_user, None)
    embedded.forget(fact_user, edge)
    for user in (gone_user, fact_user):
        assert_same_rankings(cluster, embedded, user)
    assert all('"results":[]' in r for r in rankings(cluster, gone_user))
    assert rankings(cluster, bystander) == untouched  # another user's erasure changed nothing


def test_replay_from_kafka_rebuilds_the_same_rankings_and_keeps_erasures(
    cluster: LiveDeployment, tmp_path: Path
) -> None:
    refused = cluster.cli("replay", "--from-kafka")
    assert refused.returncode == 1 and "stop the workers" in refused.stderr
    # Whatever data dir it is given: the serving process and the workers are registered.
    elsewhere = cluster.cli("replay", "--from-kafka", FR_DATA_DIR=str(tmp_path / "other"))
    assert elsewhere.returncode == 1, elsewhere.stdout
    assert "frecall serve (pid" in elsewhere.stderr and "frecall worker (pid" in elsewhere.stderr
    every = [*MAIN, *users(4, "late"), "after-bad", "after-bad-2", "rw-user", "p00", "p01", "p02"]
    compared = [*MAIN[:4], MAIN[-2], *users(2, "late"), "p00", "rw-user"]
    before = {u: cluster.export(u) for u in every}
    answers = {u: rankings(cluster, u) for u in compared}
    cluster.stop_server()
    cluster.stop_workers()
    result = cluster.cli("replay", "--from-kafka", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["generation"] == 1 and summary["edges"] > 0
    assert summary["skipped_forgotten"] >= len(story_for(MAIN[-1]))
    for user in every:
        assert cluster.export(user) == before[user], user
    assert json.loads(cluster.export(MAIN[-1]))["facts"] == []
    # The serving process opens the new generation's vector index, complete: the same
    # rankings to the last digit, lexical scores included.
    cluster.start_server()
    cluster.start_worker()
    total = sum(len(json.loads(before[u])["facts"]) for u in every)
    assert httpx.get(cluster.url("/healthz")).json()["facts"] == total
    for user in compared:
        got = rankings(cluster, user)
        assert got == answers[user], user + first_difference(got, answers[user])
    body = {"user_id": MAIN[-1], "query": "where does she live", "as_of": AS_OF}
    assert httpx.post(cluster.url("/v1/query"), json=body).json()["results"] == []


def test_compaction_archives_from_redis_and_the_indexer_follows(cluster: LiveDeployment) -> None:
    before = httpx.get(cluster.url("/healthz")).json()["facts"]
    with closing(cluster.facts()) as facts:
        everyone = facts.users()
    result = cluster.cli("compact", "--as-of", "2028-06-01T00:00:00Z", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["archived"] > 0 and report["remaining"] == before - report["archived"]
    assert report["archive"].startswith("redis ")  # where every process's forget reaches it
    archive = cluster.archive()
    assert sum(len(archive.records(u)) for u in everyone) == report["archived"]
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


def test_a_forget_after_compaction_empties_the_archive_dead_letters_and_dlq_of_the_user(
    cluster: LiveDeployment,
) -> None:
    user = "gdpr-user"
    rows = story_for(user)
    bad = {"user_id": user, "text": "gdpr-secret in a rejected line"}  # no category
    path = write_jsonl(cluster.tmp / "gdpr.jsonl", [*rows, bad])
    done = cluster.cli("ingest-edges", str(path))
    assert done.returncode == 1 and f"{path}:{len(rows) + 1}:" in done.stderr
    producer = KafkaProducer(cluster.env["FR_KAFKA_BOOTSTRAP"])
    producer.produce(cluster.topic(EDGES), user, b'{"user_id": "gdpr-user", "text": "gdpr-secret"}')
    producer.flush()
    wait_until("the user's facts", lambda: cluster.count([user]) == len(rows))
    cluster.settle()
    compacted = cluster.cli("compact", "--as-of", "2028-06-01T00:00:00Z", "--json")
    assert compacted.returncode == 0, compacted.stderr
    archived = len(cluster.archive().records(user))
    assert archived > 0 and len(cluster.letters().of(user)) == 2
    left = cluster.count([user])
    cluster.settle()

    response = httpx.delete(cluster.url(f"/v1/users/{user}"), timeout=60)
    assert response.status_code == 200, response.text
    receipt = response.json()["removed"]
    assert receipt["archive"] == archived and receipt["dead_letters"] == 2
    assert receipt["fact_store"] == receipt["vector_index"] == left
    assert cluster.archive().records(user) == [] and cluster.letters().of(user) == []
    assert json.loads(cluster.export(user))["facts"] == []
    assert all('"results":[]' in r for r in rankings(cluster, user))
    # fr.dlq never held the words: its letters of the user name an offset and a reason.
    dlq = list(read_topics(cluster.env["FR_KAFKA_BOOTSTRAP"], [cluster.topic(DLQ)]))
    mine = [m for m in dlq if m.key == user]
    assert mine and all(DeadLetter.model_validate_json(m.value).raw is None for m in mine)
    assert not any(b"gdpr-secret" in m.value for m in dlq)


def test_kill_9_of_a_worker_loses_and_duplicates_nothing(
    kafka_bootstrap: str,
    module_redis_url: str,
    tmp_path: Path,
    embedded: EmbeddedPipeline,
) -> None:
    deployment = new_deployment(kafka_bootstrap, module_redis_url, tmp_path)
    crash_users = users(40, "crash")
    rows = [row for user in crash_users for row in story_for(user)]
    reference(embedded, rows)
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
        deployment.settle()  # redelivered messages after the last commit are applied
        assert deployment.count(crash_users) == len(rows)
        for user in crash_users:
            want = dumps_stable(export_user(embedded.app.vectors, user))
            assert deployment.export(user) == want, user
    finally:
        deployment.stop_workers()
        drop_keys(module_redis_url, deployment.env["FR_REDIS_PREFIX"])
