"""The distributed deployment on real clusters, through a broker crash and a Redis failover.

A Redis Cluster (three masters, a replica each) and a three-broker Kafka (replication factor
3, min.insync.replicas 2) come from deploy/local/with-cluster.sh (`make test-cluster`). Two
`frecall worker` processes and a `frecall serve` run against them while batches of facts
(`frecall ingest-edges`) and conversation turns (`frecall ingest`) are produced one after the
other. In the middle of that ingest the broker coordinating the workers' consumer group is
killed (SIGKILL); then one Redis master hands over to its replica (a planned CLUSTER
FAILOVER) and another one is killed (its replica is promoted); then the broker and the Redis
node come back. The batches are let go in steps, so that each fault meets a batch being
applied and more still to come, on a fast machine as on a slow one. Afterwards every user's
memory is byte-identical to the embedded deployment's on the same input, every input fact
was applied exactly once, and the log holds each sent fact exactly once.

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

from tests.cluster.blackbox import Frecall, Kafka, clean_env
from tests.cluster.conftest import Clusters
from tests.processes import wait_until
from workers.stores.redis_client import connect

pytestmark = pytest.mark.cluster

STORY = Path(__file__).resolve().parents[2] / "frecall" / "demo" / "story.jsonl"
STORY_USERS = 96  # x 29 facts of the demo story
EDGE_BATCHES = 8
PERSONAS = 3  # generated conversations, ~530 turns each, through extraction
PARTITIONS = 6


@dataclass(frozen=True)
class Batch:
    """One `frecall ingest…` run: its command, its file, the users in it."""

    command: str
    path: Path
    users: tuple[str, ...]


@dataclass
class Inputs:
    """What is ingested, in order: batches, and who is in them."""

    batches: list[Batch] = field(default_factory=list)
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
    turn_batches = []
    for user, lines in by_user.items():  # one file per user: a user's turns stay in order
        path = tmp / f"turns-{user}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        turn_batches.append(Batch("ingest", path, (user,)))
        inputs.persona_users.append(user)
    story_users = [f"c{i:03d}" for i in range(STORY_USERS)]
    # Turns interleaved with facts: e0 t0 e1 e2 t1 e3 e4 t2 e5 e6 e7.
    for b in range(EDGE_BATCHES):
        users = tuple(story_users[b::EDGE_BATCHES])
        rows = [row for user in users for row in _story(user)]
        for row in rows:
            inputs.story_edges.setdefault(row["user_id"], set()).add(row["edge_id"])
        path = tmp / f"edges-{b}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        inputs.batches.append(Batch("ingest-edges", path, users))
        if b % 2 == 0 and turn_batches:
            inputs.batches.append(turn_batches.pop(0))
    inputs.batches += turn_batches
    return inputs


def embedded_exports(inputs: Inputs, tmp: Path) -> dict[str, str]:
    """The reference: the same batches through the embedded deployment."""
    frecall = Frecall(clean_env(FR_DATA_DIR=str(tmp / "data"), FR_EMBEDDER="hashing"), tmp)
    try:
        for batch in inputs.batches:
            frecall.check(batch.command, str(batch.path), timeout=600)
        frecall.serve()
        return {user: frecall.export(user) for user in inputs.users}
    finally:
        frecall.close()


class Producing(threading.Thread):
    """Runs the batches' `frecall ingest…` one after the other (as a platform would), as
    far as the test released them: each fault meets a batch in flight and more to come,
    however fast this machine is today."""

    def __init__(self, frecall: Frecall, batches: list[Batch]) -> None:
        super().__init__(name="producing", daemon=True)
        self.frecall, self.batches = frecall, batches
        self.done = self.released = 0
        self.failures: list[str] = []
        self._released = threading.Condition()

    def release(self, count: int) -> None:
        """Let the first `count` batches go."""
        with self._released:
            self.released = max(self.released, count)
            self._released.notify()

    def run(self) -> None:
        for n, batch in enumerate(self.batches):
            with self._released:
                self._released.wait_for(lambda: self.released > n)  # noqa: B023 (called here)
            result = self.frecall.run(batch.command, str(batch.path), timeout=300)
            if result.returncode != 0:
                self.failures.append(f"frecall {batch.command} {batch.path.name}: {result.stderr}")
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

    # Facts served once the first n batches are: each fault waits until the last batch
    # released is being served, with the rest held back.
    after = [0]
    for batch in inputs.batches:
        after.append(after[-1] + sum(len(json.loads(reference[u])["facts"]) for u in batch.users))
    producing = Producing(deployment, inputs.batches)
    producing.start()

    def into(n: int) -> None:
        producing.release(n)
        batch = inputs.batches[n - 1].path.name
        waiting(f"{batch} being served", lambda: deployment.facts() >= after[n - 1] + 50)
        assert deployment.facts() < total and not producing.failures, producing.failures

    owed: list[Callable[[], None]] = []  # revivals, done even if the test fails
    store = connect(clusters.redis_url)
    assert isinstance(store, RedisCluster)
    try:
        into(3)
        victim = kafka.coordinator(group)  # the worst broker to lose: the group's coordinator
        note(f"SIGKILL broker {victim}; {producing.done}/{len(inputs.batches)} batches produced")
        clusters.kill_broker(victim)
        owed.append(lambda: clusters.revive_broker(victim))
        # Two more batches go in with the broker dead; then a planned failover of the master
        # of a user whose facts are not in yet ...
        into(5)
        late_user = inputs.users[-1]
        master = int(store.get_node_from_key(f"{tag}:{{{late_user}}}:facts").port)
        note(f"Redis: planned failover of master {master}")
        promoted = clusters.fail_over_redis(master)
        note(f"Redis: {promoted} took over from {master}")
        # ... then a crash of another master (its replica is promoted within seconds).
        into(7)
        crashed = next(port for port in clusters.redis_masters() if port != promoted)
        note(f"Redis: SIGKILL master {crashed}")
        owed.append(lambda: clusters.revive_redis(crashed))
        note(f"Redis: {clusters.crash_redis_master(crashed)} took over from {crashed}")
        producing.release(len(inputs.batches))
        at_crash = deployment.facts()
        waiting("progress after the Redis crash", lambda: deployment.facts() >= at_crash + 100)
        note(f"reviving broker {victim} and Redis node {crashed}")
        while owed:
            owed.pop(0)()
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
        for revive in owed:  # the next tests need whole clusters
            revive()

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
