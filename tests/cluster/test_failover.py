"""The distributed deployment on real clusters, through a broker crash and a Redis failover.

A Redis Cluster (three masters, a replica each) and a three-broker Kafka (replication factor
3, min.insync.replicas 2) come from deploy/local/with-cluster.sh (`make test-cluster`). Two
`frecall worker` processes and a `frecall serve` run against them while batches of facts
(`frecall ingest-edges`) and conversation turns (`frecall ingest`) are produced one after the
other. In the middle of that ingest the broker coordinating the workers' consumer group is
killed (SIGKILL); then one Redis master hands over to its replica (a planned CLUSTER
FAILOVER) and another one is killed (its replica is promoted); then the broker and the Redis
node come back. Afterwards every user's memory is byte-identical to the embedded
deployment's on the same input, every input fact was applied exactly once, and the log holds
each sent fact exactly once.

A crashed Redis master may take with it the writes of its last moment that had not reached
its replica yet (Redis replicates asynchronously; the window is microseconds on loopback).
Should this test ever fail after the crash alone, that is the cause to look for first.

Black box: the product is driven through its CLI and HTTP API only; Kafka is inspected with
its own admin client, Redis with the client `FR_REDIS_URL` gives (workers/stores/redis_client.py).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from redis.cluster import RedisCluster

from tests.cluster.blackbox import Frecall, Kafka, clean_env, wait_until
from tests.cluster.conftest import Clusters
from workers.stores.redis_client import connect

pytestmark = pytest.mark.cluster

STORY = Path(__file__).resolve().parents[2] / "frecall" / "demo" / "story.jsonl"
STORY_USERS = 96  # x 29 facts of the demo story
EDGE_BATCHES = 8
PERSONAS = 3  # generated conversations, ~530 turns each, through extraction
PARTITIONS = 6


@dataclass
class Inputs:
    """What is ingested, in order: (command, file) batches, and who is in them."""

    batches: list[tuple[str, Path]] = field(default_factory=list)
    story_edges: dict[str, set[str]] = field(default_factory=dict)  # user -> edge ids
    persona_users: list[str] = field(default_factory=list)

    @property
    def users(self) -> list[str]:
        return [*self.story_edges, *self.persona_users]


def _story(user: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in STORY.read_text().splitlines()]
    return [{**row, "user_id": user, "edge_id": f"{user}/{row['edge_id']}"} for row in rows]


def make_inputs(tmp: Path, frecall: Frecall) -> Inputs:
    inputs = Inputs()
    generated = tmp / "generated"
    frecall.check(
        "bench", "lifecycle", "generate", "--personas", str(PERSONAS), "--seed", "13",
        "--out", str(generated),
    )  # fmt: skip
    by_user: dict[str, list[str]] = {}
    for line in (generated / "turns.jsonl").read_text().splitlines():
        by_user.setdefault(json.loads(line)["user_id"], []).append(line)
    turn_files = []
    for user, lines in by_user.items():  # one file per user: a user's turns stay in order
        path = tmp / f"turns-{user}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        turn_files.append(path)
        inputs.persona_users.append(user)
    story_users = [f"c{i:03d}" for i in range(STORY_USERS)]
    edge_files = []
    for b in range(EDGE_BATCHES):
        rows = [row for user in story_users[b::EDGE_BATCHES] for row in _story(user)]
        for row in rows:
            inputs.story_edges.setdefault(row["user_id"], set()).add(row["edge_id"])
        path = tmp / f"edges-{b}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        edge_files.append(path)
    # Turns interleaved with facts: e0 t0 e1 e2 t1 e3 e4 t2 e5 e6 e7.
    for b, path in enumerate(edge_files):
        inputs.batches.append(("ingest-edges", path))
        if b % 2 == 0 and turn_files:
            inputs.batches.append(("ingest", turn_files.pop(0)))
    inputs.batches += [("ingest", path) for path in turn_files]
    return inputs


def embedded_exports(inputs: Inputs, tmp: Path) -> dict[str, str]:
    """The reference: the same batches through the embedded deployment."""
    frecall = Frecall(clean_env(FR_DATA_DIR=str(tmp / "data"), FR_EMBEDDER="hashing"), tmp)
    try:
        for command, path in inputs.batches:
            frecall.check(command, str(path), timeout=600)
        frecall.serve()
        return {user: frecall.export(user) for user in inputs.users}
    finally:
        frecall.close()


class Producing(threading.Thread):
    """Runs the batches' `frecall ingest…` one after the other (as a platform would)."""

    def __init__(self, frecall: Frecall, batches: list[tuple[str, Path]]) -> None:
        super().__init__(name="producing", daemon=True)
        self.frecall, self.batches = frecall, batches
        self.done = 0
        self.failures: list[str] = []

    def run(self) -> None:
        for command, path in self.batches:
            result = self.frecall.run(command, str(path), timeout=300)
            if result.returncode != 0:
                self.failures.append(f"frecall {command} {path.name}: {result.stderr}")
                return
            self.done += 1


@pytest.fixture
def deployment(clusters: Clusters, tmp_path: Path) -> Iterator[Frecall]:
    tag = "c" + uuid.uuid4().hex[:8]
    env = clean_env(
        FR_KAFKA_BOOTSTRAP=clusters.kafka_bootstrap,
        FR_REDIS_URL=clusters.redis_url,
        FR_KAFKA_TOPIC_PREFIX=f"{tag}.",
        FR_KAFKA_GROUP=f"{tag}-workers",
        FR_REDIS_PREFIX=tag,
        FR_KAFKA_PARTITIONS=str(PARTITIONS),
        FR_EMBEDDER="hashing",
        FR_DATA_DIR=str(tmp_path / "distributed"),
    )
    frecall = Frecall(env, tmp_path / "logs")
    try:
        yield frecall
    finally:
        frecall.close()


def test_a_broker_crash_and_redis_failovers_mid_ingest_lose_and_duplicate_nothing(
    clusters: Clusters, deployment: Frecall, tmp_path: Path
) -> None:
    inputs = make_inputs(tmp_path / "inputs", deployment)
    reference = embedded_exports(inputs, tmp_path / "embedded")
    total = sum(len(json.loads(doc)["facts"]) for doc in reference.values())
    env = deployment.env
    prefix, group, tag = env["FR_KAFKA_TOPIC_PREFIX"], env["FR_KAFKA_GROUP"], env["FR_REDIS_PREFIX"]
    kafka = Kafka(clusters.kafka_bootstrap)
    started = time.monotonic()

    def note(event: str) -> None:  # shown with the failure, if any
        print(f"{time.monotonic() - started:6.1f} s  {deployment.facts()}/{total} facts  {event}")

    def waiting(what: str, check: Callable[[], bool], timeout: float = 240) -> None:
        wait_until(what, check, timeout, detail=deployment.tail)

    deployment.spawn("worker-0", "worker")
    deployment.spawn("worker-1", "worker")
    deployment.serve()
    waiting("the workers to join their group", lambda: group in kafka.groups(group))
    # Every topic is replicated on all three brokers and needs two in sync to accept a write.
    for logical in ("fr.turns", "fr.edges", "fr.transitions", "fr.commands", "fr.dlq"):
        assert kafka.replication(prefix + logical) == ({3}, "2"), logical

    producing = Producing(deployment, inputs.batches)
    producing.start()
    waiting("a fifth of the facts", lambda: deployment.facts() >= total // 5)
    victim = kafka.coordinator(group)  # the worst broker to lose: the group's coordinator
    assert producing.is_alive(), "the ingest ended before the broker was killed"
    note(f"SIGKILL broker {victim}; {producing.done}/{len(inputs.batches)} batches produced")
    clusters.kill_broker(victim)
    at_kill = deployment.facts()
    waiting(
        f"progress with broker {victim} dead",
        lambda: deployment.facts() >= max(at_kill + 100, total * 45 // 100),
    )
    store = connect(clusters.redis_url)
    assert isinstance(store, RedisCluster)
    try:
        # A planned failover of the master of a user whose facts are not all in yet ...
        late_user = inputs.users[-1]
        master = int(store.get_node_from_key(f"{tag}:{{{late_user}}}:facts").port)
        assert deployment.facts() < total, "the ingest ended before the Redis failover"
        note(f"Redis: planned failover of master {master}")
        promoted = clusters.fail_over_redis(master)
        note(f"Redis: {promoted} took over from {master}")
        at_failover = deployment.facts()
        waiting(
            "progress after the Redis failover",
            lambda: deployment.facts() >= min(total, at_failover + 100),
        )
        # ... then a crash of another master (its replica is promoted within seconds).
        crashed = next(port for port in clusters.redis_masters() if port != promoted)
        assert deployment.facts() < total, "the ingest ended before the Redis crash"
        note(f"Redis: SIGKILL master {crashed}")
        note(f"Redis: {clusters.crash_redis_master(crashed)} took over from {crashed}")
        at_crash = deployment.facts()
        waiting(
            "progress after the Redis crash",
            lambda: deployment.facts() >= min(total, at_crash + 100),
        )
        note(f"reviving broker {victim} and Redis node {crashed}")
        clusters.revive_broker(victim)
        clusters.revive_redis(crashed)
        note(f"broker {victim} and Redis node {crashed} are back")
        producing.join(timeout=600)
        assert not producing.is_alive() and not producing.failures, producing.failures

        def consumed() -> bool:  # every consumer group of the deployment committed all
            indexers = [g for g in kafka.groups(group) if g != group]
            return (
                len(indexers) == 1
                and kafka.lag(group, [prefix + "fr.turns", prefix + "fr.edges"]) == 0
                and kafka.lag(indexers[0], [prefix + "fr.transitions"]) == 0
            )

        waiting("zero consumer lag", consumed, timeout=300)
        note("zero consumer lag")
        assert deployment.facts() == total

        # Nothing lost, nothing changed: the embedded deployment's memory, byte for byte.
        exports = {user: deployment.export(user) for user in inputs.users}
        for user in inputs.users:
            assert exports[user] == reference[user], user
        for user in (inputs.users[0], late_user):  # and `frecall export` prints the same
            assert deployment.check("export", "--user", user).strip() == reference[user]

        # Applied once: the lifecycle's idempotency keys are exactly the user's facts, which
        # for the story users are exactly the ids that were sent.
        for user in inputs.users:
            processed = {p.decode() for p in store.smembers(f"{tag}:{{{user}}}:processed")}
            facts = json.loads(exports[user])["facts"]
            assert processed == _ids(exports[user]) and len(facts) == len(processed), user
            if user in inputs.story_edges:
                assert processed == inputs.story_edges[user], user
    finally:
        store.close()

    # The log holds every fact: each sent one exactly once (idempotent producers, through
    # the broker crash), each extracted one at least once (a redelivered turn is extracted
    # again; the lifecycle applies it once, as checked above).
    in_log = Counter(json.loads(value)["edge_id"] for _, value in kafka.read(prefix + "fr.edges"))
    remembered = {edge_id for doc in exports.values() for edge_id in _ids(doc)}
    assert remembered <= set(in_log), sorted(remembered - set(in_log))[:5]
    sent = Counter(e for edges in inputs.story_edges.values() for e in edges)
    assert Counter({e: in_log[e] for e in sent}) == sent
    dead = kafka.read(prefix + "fr.dlq")
    assert dead == [], dead[:3]


def _ids(export: str) -> set[str]:
    return {f["edge"]["edge_id"] for f in json.loads(export)["facts"]}
