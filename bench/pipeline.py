"""`frecall bench pipeline`: the distributed pipeline against a real broker and Redis.

For each worker count N (`--workers 1,2`), in a fresh namespace (topic prefix, Redis key
prefix and consumer group `bench-<uuid8>`), N `frecall worker` processes are started and
waited for (N members of a stable consumer group, then one warm-up edge per user applied).
Then, one after another:

* lifecycle: `--edges` pre-embedded synthetic edges (the growth corpus: slot keys,
  supersessions) are produced to fr.edges; edges/s from the first produce until every one
  is in the Redis fact store;
* end to end: `--turns` conversation turns go to fr.turns (rule extractor, the workers
  embed); turns/s until each turn's raw-turn edge is in the fact store;
* produce → queryable: an indexer in this process (the serving node's: `Indexer` behind a
  `ConsumerLoop` on fr.transitions, into an in-memory vector index) catches up, then single
  edges are produced one every 20 ms; the latency of each is the time from its produce call
  to the indexer's write after which `vectors.get` finds it (p50/p95);
* replay: with the workers stopped, `frecall replay --from-kafka` (`distributed.replay`)
  rebuilds the namespace from the log; edges/s over the wall time of the whole call;
* profile: the lifecycle edges once more through the worker's handler in this process
  (bench/handler_profile.py), in a namespace of their own: time per stage, CPU per edge,
  Redis round trips per user and batch.

Workers are stopped by pid (SIGTERM, SIGKILL after a timeout) and the namespace's Redis
keys, topics and consumer groups are deleted, whatever happens. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import redis
from confluent_kafka.admin import AdminClient

from bench.handler_profile import profile_handler, profile_lines
from bench.pipeline_input import chat_turns, corpus, embedded, warmup
from bench.worker_pool import (
    JOIN_TIMEOUT_S,
    Worker,
    check_alive,
    say,
    start_worker,
    stop_workers,
    wait_joined,
)
from frecall.bootstrap import make_embedder
from frecall.distributed.from_kafka import replay_from_kafka
from frecall.settings import Settings, settings_from
from schemas.events import EdgeEvent
from schemas.streams import EDGES, TRANSITIONS, TURNS
from streams.kafka_io import ConsumerLoop, KafkaProducer
from streams.topics import Topics, client_config, ensure_topics
from workers.distributed.indexer import Indexer
from workers.distributed.messages import Received
from workers.errors import BenchError, ConfigError
from workers.extraction.stage import raw_edge_id
from workers.ports import Embedder
from workers.stores.memory_vectors import InMemoryVectorIndex
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_facts import RedisFactStore

LATENCY_EDGES = 200
LATENCY_INTERVAL_S = 0.02
POLL_S = 0.05

# --- measurement ----------------------------------------------------------------------------


def _by_user(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for user, edge_id in pairs:
        out.setdefault(user, set()).add(edge_id)
    return out


def _wait_stored(
    facts: RedisFactStore,
    pending: dict[str, set[str]],
    timeout: float,
    workers: Sequence[Worker],
    phase: str,
) -> float:
    """Poll the fact store until every pending edge is in it; returns perf_counter then."""
    total = sum(len(ids) for ids in pending.values())
    deadline = time.monotonic() + timeout
    last_report = time.monotonic()
    while True:
        for user in list(pending):
            pending[user] -= {r.edge_id for r in facts.get(user, sorted(pending[user]))}
            if not pending[user]:
                del pending[user]
        if not pending:
            return time.perf_counter()
        left = sum(len(ids) for ids in pending.values())
        check_alive(workers, phase)
        if time.monotonic() > deadline:
            raise BenchError(
                "pipeline", phase, f"{left}/{total} not in the fact store after {timeout:.0f} s"
            )
        if time.monotonic() - last_report >= 2:
            last_report = time.monotonic()
            say(f"  {phase}: {total - left}/{total} stored")
        time.sleep(POLL_S)


def _produce_edges(producer: KafkaProducer, topics: Topics, edges: Iterable[EdgeEvent]) -> None:
    for edge in edges:
        producer.produce(topics.name(EDGES), edge.user_id, edge.model_dump_json().encode())
    producer.flush()


@dataclass
class _Probe:
    """Times from produce to queryable, measured in the indexer's consumer thread."""

    indexer: Indexer
    vectors: InMemoryVectorIndex
    sent: dict[str, dict[str, float]] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.done = threading.Condition(self.lock)

    def expect(self, user: str, edge_id: str, record: bool) -> None:
        with self.lock:
            self.sent.setdefault(user, {})[edge_id] = time.perf_counter() if record else -1.0

    def handle(self, message: Received) -> None:
        self.indexer.handle(message)
        user = message.key
        with self.lock:
            waiting = self.sent.get(user or "")
            if not user or not waiting:
                return
            found = [r.edge_id for r in self.vectors.get(user, list(waiting))]
            now = time.perf_counter()
            for edge_id in found:
                sent = waiting.pop(edge_id)
                if sent >= 0:
                    self.latencies_ms.append((now - sent) * 1000.0)
            if not waiting:
                del self.sent[user]
            self.done.notify_all()

    def wait(self, timeout: float, phase: str) -> None:
        deadline = time.monotonic() + timeout
        with self.done:
            while self.sent:
                left = deadline - time.monotonic()
                if left <= 0:
                    missing = sum(len(ids) for ids in self.sent.values())
                    raise BenchError(
                        "pipeline", phase, f"{missing} edges not indexed after {timeout:.0f} s"
                    )
                self.done.wait(min(left, 0.5))


def _latency(
    settings: Settings,
    facts: RedisFactStore,
    producer: KafkaProducer,
    warmup: list[EdgeEvent],
    edges: list[EdgeEvent],
) -> dict[str, float]:
    topics = Topics(settings.kafka_topic_prefix)
    vectors = InMemoryVectorIndex()
    probe = _Probe(Indexer(facts, vectors), vectors)
    loop = ConsumerLoop(
        settings.kafka_bootstrap or "",
        f"{settings.kafka_group}-indexer",
        [topics.name(TRANSITIONS)],
        probe.handle,
        name="bench-indexer",
    )
    loop.start()
    try:
        # Catch up on the earlier phases' transitions: each user's warm-up edge comes last
        # on that user's partition.
        for edge in warmup:
            probe.expect(edge.user_id, edge.edge_id, record=False)
        _produce_edges(producer, topics, warmup)
        probe.wait(JOIN_TIMEOUT_S, "latency warm-up")
        start = time.perf_counter()
        for i, edge in enumerate(edges):
            pause = start + i * LATENCY_INTERVAL_S - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            probe.expect(edge.user_id, edge.edge_id, record=True)
            producer.produce(topics.name(EDGES), edge.user_id, edge.model_dump_json().encode())
        producer.flush()
        probe.wait(60.0, "latency")
    finally:
        loop.stop()
    samples = np.asarray(probe.latencies_ms)
    return {
        "p50": round(float(np.percentile(samples, 50)), 1),
        "p95": round(float(np.percentile(samples, 95)), 1),
        "max": round(float(samples.max()), 1),
    }


@dataclass(frozen=True)
class _Sizes:
    edges: int
    turns: int
    users: int


def _one(
    base: Settings, embedder: Embedder, count: int, sizes: _Sizes, bulk: bool
) -> dict[str, Any]:
    name = f"bench-{uuid.uuid4().hex[:8]}"
    data_dir = Path(tempfile.mkdtemp(prefix=f"frecall-{name}-"))
    settings = base.model_copy(
        update={
            "kafka_topic_prefix": name + ".",
            "redis_prefix": name,
            "kafka_group": name,
            "data_dir": data_dir,
            "lifecycle_bulk": bulk,
        }
    )
    bootstrap, url = settings.kafka_bootstrap or "", settings.redis_url or ""
    topics = Topics(settings.kafka_topic_prefix)
    users = [f"bench-u{i:03d}" for i in range(sizes.users)]
    mode = "bulk" if bulk else "one-by-one"
    say(f"bench pipeline: {count} worker(s), {mode}, namespace {name}; embedding the input")
    edges = embedded(embedder, settings, corpus(sizes.edges, users, 1, "b-"))
    probes = embedded(embedder, settings, corpus(LATENCY_EDGES, users, 2, "l-"))
    warm = embedded(embedder, settings, warmup(users, "warm-up") + warmup(users, "warm-up-2"))
    turns = chat_turns(sizes.turns, users)
    client = connect(url)
    facts = RedisFactStore(client, name)
    producer = KafkaProducer(bootstrap)
    workers: list[Worker] = []
    result: dict[str, Any] = {}
    try:
        ensure_topics(bootstrap, topics, settings.kafka_partitions, settings.kafka_replication)
        workers = [start_worker(settings, i) for i in range(count)]
        wait_joined(bootstrap, name, workers)
        _produce_edges(producer, topics, warm[: len(users)])
        _wait_stored(
            facts,
            _by_user((e.user_id, e.edge_id) for e in warm[: len(users)]),
            JOIN_TIMEOUT_S,
            workers,
            "warm-up",
        )
        say(f"  workers ready; lifecycle: {len(edges)} edges")

        pending = _by_user((e.user_id, e.edge_id) for e in edges)
        start = time.perf_counter()
        _produce_edges(producer, topics, edges)
        end = _wait_stored(facts, pending, max(60.0, len(edges) * 0.1), workers, "lifecycle")
        result["lifecycle_edges_per_s"] = round(len(edges) / (end - start), 1)

        say(f"  end to end: {len(turns)} turns (rule extractor)")
        pending = _by_user((t.user_id, raw_edge_id(t)) for t in turns)
        start = time.perf_counter()
        for turn in turns:
            producer.produce(topics.name(TURNS), turn.user_id, turn.model_dump_json().encode())
        producer.flush()
        end = _wait_stored(facts, pending, max(60.0, len(turns) * 0.5), workers, "turns")
        result["turns_per_s"] = round(len(turns) / (end - start), 1)

        say(f"  produce → queryable: {len(probes)} edges, one every 20 ms")
        result["latency_ms"] = _latency(settings, facts, producer, warm[len(users) :], probes)

        stop_workers(workers)
        say("  replay --from-kafka")
        start = time.perf_counter()
        replayed = replay_from_kafka(settings, bulk=bulk)
        seconds = time.perf_counter() - start
        result["replay_edges_per_s"] = round(replayed.edges / seconds, 1)
        result["replayed_edges"] = replayed.edges

        say("  the lifecycle handler in this process: where its time goes")
        profiled = settings.model_copy(update={"redis_prefix": f"{name}.profile"})
        result["handler_profile"] = profile_handler(profiled, edges)
    finally:
        stop_workers(workers)
        cleanup_namespace(client, bootstrap, name)
        client.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    return result


def cleanup_namespace(client: RedisClient, bootstrap: str, name: str) -> None:
    """Delete the namespace: Redis keys (every generation), topics, consumer groups."""
    try:
        keys = list(client.scan_iter(match=f"{name}*", count=1000))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
    except redis.RedisError as exc:
        say(f"bench pipeline: could not delete the Redis keys {name}*: {exc}")
    try:
        admin = AdminClient(client_config(bootstrap))
        mine = [t for t in admin.list_topics(timeout=10).topics if t.startswith(name)]
        for future in admin.delete_topics(mine, operation_timeout=10).values() if mine else ():
            future.result(15)
        groups = [name, f"{name}-indexer"]
        for future in admin.delete_consumer_groups(groups, request_timeout=10).values():
            with contextlib.suppress(Exception):  # a group that never committed: none
                future.result(15)
    except Exception as exc:  # cleanup must not hide the benchmark's own error
        say(f"bench pipeline: could not delete the topics/groups of {name}: {exc}")


# --- entry point ----------------------------------------------------------------------------


def _counts(raw: str, partitions: int) -> list[int]:
    try:
        counts = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError as exc:
        raise ConfigError(f"--workers: not a list of counts: {raw!r}") from exc
    if not counts or any(c < 1 or c > partitions for c in counts):
        raise ConfigError(f"--workers: counts must be 1..{partitions} (FR_KAFKA_PARTITIONS)")
    return counts


def _table(document: dict[str, Any]) -> str:
    lines = [
        f"frecall bench pipeline: {document['edges']} edges, {document['turns']} turns, "
        f"{document['users']} users, embedder {document['embedder']}, "
        f"{document['partitions']} partitions",
        f"{'workers':>7}  {'mode':>10}  {'lifecycle edges/s':>17}  {'turns/s':>8}  "
        f"{'p50 ms':>7}  {'p95 ms':>7}  {'replay edges/s':>14}",
    ]
    for key, row in document["workers"].items():
        count, _, mode = key.partition(" ")
        lat = row["latency_ms"]
        lines.append(
            f"{count:>7}  {mode or 'bulk':>10}  {row['lifecycle_edges_per_s']:>17,.1f}  "
            f"{row['turns_per_s']:>8,.1f}  "
            f"{lat['p50']:>7.1f}  {lat['p95']:>7.1f}  {row['replay_edges_per_s']:>14,.1f}"
        )
    lines.append("where the lifecycle handler's time goes (in this process, Kafka aside):")
    for key, row in document["workers"].items():
        count, _, mode = key.partition(" ")
        if "handler_profile" in row:
            lines += profile_lines(row["handler_profile"], f"{count} worker run, {mode or 'bulk'}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if not settings.kafka_bootstrap or not settings.redis_url:
        raise ConfigError(
            "bench pipeline runs against a real broker and Redis: set FR_KAFKA_BOOTSTRAP "
            "and FR_REDIS_URL (e.g. deploy/local/kafka.sh start, deploy/local/redis.sh start)"
        )
    if min(args.edges, args.turns, args.users) < 1:
        raise ConfigError("--edges, --turns and --users must be at least 1")
    counts = _counts(args.workers, settings.kafka_partitions)
    # Replay must not write into a Qdrant server collection: Qdrant Edge in a temp dir.
    settings = settings.model_copy(update={"embedder": args.embedder, "qdrant_url": None})
    sizes = _Sizes(args.edges, args.turns, args.users)
    embedder = make_embedder(settings)
    modes = [False, True] if args.one_by_one else [True]  # the baseline first, same run
    document: dict[str, Any] = {
        "workers": {
            # "N" as before; the baseline beside it as "N one-by-one".
            f"{n}{'' if bulk else ' one-by-one'}": _one(settings, embedder, n, sizes, bulk)
            for n in counts
            for bulk in modes
        },
        "edges": sizes.edges,
        "turns": sizes.turns,
        "users": sizes.users,
        "latency_edges": LATENCY_EDGES,
        "embedder": settings.embedder,
        "partitions": settings.kafka_partitions,
    }
    print(json.dumps(document) if args.json else _table(document))
    return 0
