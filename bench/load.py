"""`frecall bench load`: a bounded load test of the HTTP API, embedded and distributed.

For each deployment asked for (`--deployment embedded,distributed`), a `frecall serve`
process is started on a free port of 127.0.0.1 over a fresh data dir (distributed: in a
fresh namespace — topic prefix, Redis key prefix, consumer group — with `--workers`
`frecall worker` processes, against the broker and Redis of FR_KAFKA_BOOTSTRAP and
FR_REDIS_URL, e.g. under `deploy/local/with-services.sh`). Then `bench.load_client` runs
concurrent writers and readers for `--seconds`, and afterwards every user's export is read
back: every edge id the API acknowledged must be there (0 lost writes; the distributed
deployment is given `--settle` seconds to apply its queue). Reported per endpoint:
requests/s, p50/p95/p99, errors.

Every process is started under `timeout` (it ends by itself after the run's bound even if
this one is killed) in its own session, and stopped by its pid (SIGTERM, then SIGKILL);
the namespace's topics, groups and Redis keys are deleted afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.load_client import Load, drive, missing_after_export
from bench.worker_pool import Worker, say, wait_joined
from frecall.settings import Settings, settings_from
from workers.errors import BenchError, ConfigError

START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 20.0
DEPLOYMENTS = ("embedded", "distributed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(FR_DATA_DIR=str(settings.data_dir), FR_EMBEDDER=settings.embedder)
    env.update(FR_ONNX_THREADS=str(settings.onnx_threads))
    if settings.kafka_bootstrap and settings.redis_url:
        env.update(
            FR_KAFKA_BOOTSTRAP=settings.kafka_bootstrap,
            FR_REDIS_URL=settings.redis_url,
            FR_KAFKA_TOPIC_PREFIX=settings.kafka_topic_prefix,
            FR_REDIS_PREFIX=settings.redis_prefix,
            FR_KAFKA_GROUP=settings.kafka_group,
            FR_KAFKA_PARTITIONS=str(settings.kafka_partitions),
        )
    return env


def _spawn(
    args: Sequence[str], settings: Settings, bound_s: float, log: Path
) -> subprocess.Popen[bytes]:
    """`frecall ARGS` under `timeout`: it stops by itself after `bound_s` whatever happens."""
    command = ["timeout", "-k", "10", str(int(bound_s)), sys.executable, "-m", "frecall.cli"]
    with log.open("wb") as out:
        return subprocess.Popen(
            [*command, *args],
            env=_env(settings),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each process group by its leader's pid, SIGKILL what outlives the timeout."""
    for proc in processes:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for proc in processes:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def _wait_healthy(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise BenchError("load", "start", f"frecall serve exited:\n{tail}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise BenchError("load", "start", f"frecall serve not healthy in {START_TIMEOUT_S:.0f} s")


@contextmanager
def _deployment(kind: str, base: Settings, args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """A serving process (and workers) for `kind`; yields its base URL and namespace."""
    name = f"load-{uuid.uuid4().hex[:8]}"
    data_dir = Path(tempfile.mkdtemp(prefix=f"frecall-bench-{name}-"))
    update: dict[str, Any] = {"data_dir": data_dir, "embedder": args.embedder, "qdrant_url": None}
    if kind == "distributed":
        update.update(kafka_topic_prefix=name + ".", redis_prefix=name, kafka_group=name)
    else:
        update.update(kafka_bootstrap=None, redis_url=None)
    settings = base.model_copy(update=update)
    bound = args.seconds + args.settle + START_TIMEOUT_S + 120
    port = _free_port()
    processes: list[subprocess.Popen[bytes]] = []
    workers: list[Worker] = []
    try:
        if kind == "distributed":
            from streams.topics import Topics, ensure_topics

            bootstrap = settings.kafka_bootstrap or ""
            topics = Topics(settings.kafka_topic_prefix)
            ensure_topics(bootstrap, topics, settings.kafka_partitions, settings.kafka_replication)
            roles = ["--roles", "extraction,lifecycle"]
            for i in range(args.workers):
                log = data_dir / f"worker-{i}.log"
                workers.append(Worker(_spawn(["worker", *roles], settings, bound, log), log))
            processes += [w.proc for w in workers]
        log = data_dir / "serve.log"
        server = _spawn(["serve", "--host", "127.0.0.1", "--port", str(port)], settings, bound, log)
        processes.append(server)
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, server, log)
        if workers:
            wait_joined(settings.kafka_bootstrap or "", name, workers)
        yield url, name
    finally:
        _stop(processes)
        if kind == "distributed":
            from bench.pipeline import cleanup_namespace
            from workers.stores.redis_client import connect

            client = connect(settings.redis_url or "")
            cleanup_namespace(client, settings.kafka_bootstrap or "", name)
            client.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def _one(kind: str, base: Settings, args: argparse.Namespace) -> dict[str, Any]:
    load = Load(args.users, args.writers, args.readers, args.seconds, args.batch, args.seed)
    with _deployment(kind, base, args) as (url, name):
        say(f"bench load: {kind} at {url}, namespace {name}")
        tally, seconds = asyncio.run(drive(url, load))
        settle = args.settle if kind == "distributed" else 0.0
        lost, export = missing_after_export(url, tally.written, settle)
    endpoints = tally.summary(seconds)
    acknowledged = sum(len(ids) for ids in tally.written.values())
    return {
        "seconds": round(seconds, 1),
        "endpoints": endpoints,
        "errors": sum(e["errors"] for e in endpoints.values()),
        "error_examples": tally.examples,
        "writes_acknowledged": acknowledged,
        "writes_lost": lost,
        "export": export,
    }


def run(args: argparse.Namespace) -> int:
    kinds = [k.strip() for k in args.deployment.split(",") if k.strip()]
    if not kinds or set(kinds) - set(DEPLOYMENTS):
        raise ConfigError(f"--deployment: a comma-separated subset of {', '.join(DEPLOYMENTS)}")
    if min(args.users, args.writers + args.readers, args.batch) < 1 or args.seconds <= 0:
        raise ConfigError("--users, --batch, --seconds and writers + readers must be positive")
    base = settings_from(args)
    if "distributed" in kinds and not (base.kafka_bootstrap and base.redis_url):
        raise ConfigError(
            "the distributed load test needs FR_KAFKA_BOOTSTRAP and FR_REDIS_URL "
            "(deploy/local/with-services.sh starts both)"
        )
    document: dict[str, Any] = {kind: _one(kind, base, args) for kind in kinds}
    document.update(
        users=args.users, writers=args.writers, readers=args.readers, batch=args.batch,
        embedder=args.embedder, workers=args.workers,
    )  # fmt: skip
    print(json.dumps(document) if args.json else _table(document, kinds))
    failed = any(document[k]["errors"] or document[k]["writes_lost"] for k in kinds)
    return 1 if failed else 0


def _table(document: dict[str, Any], kinds: Sequence[str]) -> str:
    lines = [
        f"bench load: {document['writers']} writers ({document['batch']} facts a request), "
        f"{document['readers']} readers, {document['users']} users, "
        f"embedder {document['embedder']}"
    ]
    head = f"{'deployment':<12}{'endpoint':<18}{'req':>7}{'req/s':>8}{'p50':>8}{'p95':>8}"
    lines.append(head + f"{'p99':>8}{'errors':>7}")
    for kind in kinds:
        result = document[kind]
        for endpoint, s in result["endpoints"].items():
            lines.append(
                f"{kind:<12}{endpoint:<18}{s['requests']:>7}{s['per_s']:>8.1f}"
                f"{s['p50_ms']:>8.1f}{s['p95_ms']:>8.1f}{s['p99_ms']:>8.1f}{s['errors']:>7}"
            )
        lines.append(
            f"{kind:<12}writes acknowledged {result['writes_acknowledged']}, lost "
            f"{result['writes_lost']} (checked by {result['export']['exports']} exports, "
            f"p50 {result['export']['p50_ms']} ms); errors {result['errors']}"
        )
        lines += [f"  {example}" for example in result["error_examples"]]
    return "\n".join(lines)
