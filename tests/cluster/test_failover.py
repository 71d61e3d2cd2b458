"""The distributed deployment on real clusters, through a broker crash and a Redis failover.

A Redis Cluster (three masters, a replica each) and a three-broker Kafka (replication factor
3, min.insync.replicas 2) come from deploy/local/with-cluster.sh (`make test-cluster`). Two
`frecall worker` processes and a `frecall serve` run against them while batches of facts
(`frecall ingest-edges`) and conversation turns (`frecall ingest`) are produced one after the
other. In the middle of that ingest the broker coordinating the workers' consumer group is
killed (SIGKILL), then one Redis master fails over to its replica, then the broker comes back.
Afterwards every user's memory is byte-identical to the embedded deployment's on the same
input, every input fact was applied exactly once, and the log holds each fact once.

Black box: the product is driven through its CLI and HTTP API only; Kafka and Redis are
inspected with their own clients.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from redis.cluster import RedisCluster

from tests.cluster.blackbox import Frecall, Kafka, clean_env, wait_until
from tests.cluster.conftest import Clusters

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


def _redis(url: str) -> RedisCluster:
    return RedisCluster.from_url(url.replace("redis+cluster://", "redis://", 1))


def test_a_broker_crash_and_a_redis_failover_mid_ingest_lose_and_duplicate_nothing(
    clusters: Clusters, deployment: Frecall, tmp_path: Path
) -> None:
    inputs = make_inputs(tmp_path / "inputs", deployment)
    reference = embedded_exports(inputs, tmp_path / "embedded")
    total = sum(len(json.loads(doc)["facts"]) for doc in reference.values())
    env = deployment.env
    prefix, group = env["FR_KAFKA_TOPIC_PREFIX"], env["FR_KAFKA_GROUP"]
    kafka = Kafka(clusters.kafka_bootstrap)

    deployment.spawn("worker-0", "worker")
    deployment.spawn("worker-1", "worker")
    deployment.serve()
    wait_until("the workers to join their group", lambda: group in kafka.groups(group))
    # Every topic is replicated on all three brokers and needs two in sync to accept a write.
    for logical in ("fr.turns", "fr.edges", "fr.transitions", "fr.commands", "fr.dlq"):
        assert kafka.replication(prefix + logical) == ({3}, "2"), logical

    producing = Producing(deployment, inputs.batches)
    producing.start()
    log = deployment.tail
    wait_until(f"a fifth of the facts\n{log()}", lambda: deployment.facts() >= total // 5)
    victim = kafka.coordinator(group)
    assert producing.is_alive(), "the ingest ended before the broker was killed"
    clusters.kill_broker(victim)
    at_kill = deployment.facts()
    wait_until(
        f"progress with broker {victim} dead\n{log()}",
        lambda: deployment.facts() >= max(at_kill + 100, total * 45 // 100),
        timeout=240,
    )
    # The master serving a user whose facts are not all in yet: writes follow the failover.
    late_user = inputs.users[-1]
    store = _redis(clusters.redis_url)
    try:
        master = store.get_node_from_key(f"{env['FR_REDIS_PREFIX']}:{{{late_user}}}:facts")
        assert deployment.facts() < total, "the ingest ended before the Redis failover"
        clusters.fail_over_redis(int(master.port))
        at_failover = deployment.facts()
        wait_until(
            f"progress after the Redis failover\n{log()}",
            lambda: deployment.facts() >= min(total, at_failover + 100),
            timeout=240,
        )
        clusters.revive_broker(victim)
        producing.join(timeout=900)
        assert not producing.is_alive() and not producing.failures, producing.failures

        # Quiet: every consumer group of the deployment has committed every message.
        def consumed() -> bool:
            groups = kafka.groups(group)
            indexers = [g for g in groups if g != group]
            return (
                len(indexers) == 1
                and kafka.lag(group, [prefix + "fr.turns", prefix + "fr.edges"]) == 0
                and kafka.lag(indexers[0], [prefix + "fr.transitions"]) == 0
            )

        wait_until(f"zero consumer lag\n{log()}", consumed, timeout=300)
        assert deployment.facts() == total

        for user in inputs.users:
            assert deployment.export(user) == reference[user], user
        for user in (inputs.users[0], late_user):  # and `frecall export` prints the same
            assert deployment.check("export", "--user", user).strip() == reference[user]

        # Applied exactly once: the lifecycle's idempotency keys are the input's edge ids.
        for user, edge_ids in inputs.story_edges.items():
            processed = store.smembers(f"{env['FR_REDIS_PREFIX']}:{{{user}}}:processed")
            assert {p.decode() for p in processed} == edge_ids, user
    finally:
        store.close()
    # The log holds each produced fact once (idempotent producers, through the broker crash).
    in_log = Counter(
        json.loads(value)["edge_id"]
        for key, value in kafka.read(prefix + "fr.edges")
        if key in inputs.story_edges
    )
    expected = Counter(e for edges in inputs.story_edges.values() for e in edges)
    assert in_log == expected
    dead = kafka.read(prefix + "fr.dlq")
    assert dead == [], dead[:3]
