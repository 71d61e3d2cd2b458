"""One isolated distributed deployment for the integration tests: its own topics, consumer
groups, Redis keys and data dir; worker and serving processes started as subprocesses and
stopped by their pids. Waits poll a condition, or the consumer groups' lag: never a sleep
that hopes the pipeline is done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from frecall.distributed.stores import indexer_group, kept_prefix
from frecall.settings import Settings
from schemas.query import QueryRequest, QueryResult
from schemas.streams import COMMANDS, EDGES, TRANSITIONS, TURNS
from streams.topics import lag
from tests.processes import free_port, run_frecall, stop, wait_until
from workers.export import dumps_stable, export_user
from workers.stores.redis_archive import RedisArchive
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_dead_letters import RedisDeadLetters
from workers.stores.redis_facts import RedisFactStore


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@dataclass
class LiveDeployment:
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
            kafka_group=self.env["FR_KAFKA_GROUP"],
            redis_prefix=self.env["FR_REDIS_PREFIX"],
            kafka_partitions=int(self.env["FR_KAFKA_PARTITIONS"]),
            embedder="hashing",
            data_dir=Path(self.env["FR_DATA_DIR"]),
        )

    def topic(self, logical: str) -> str:
        return self.env["FR_KAFKA_TOPIC_PREFIX"] + logical

    def cli(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        return run_frecall({**self.env, **env}, *args, timeout=timeout)

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

    # --- Redis, as the tests read it ------------------------------------------------------

    def client(self) -> RedisClient:
        return connect(self.env["FR_REDIS_URL"])

    def generation(self) -> int:
        client = self.client()
        try:
            return int(client.get(f"{self.env['FR_REDIS_PREFIX']}:generation") or 0)
        finally:
            client.close()

    def facts(self) -> RedisFactStore:
        gen = self.generation()
        prefix = self.env["FR_REDIS_PREFIX"] + ("" if gen == 0 else f".g{gen}")
        return RedisFactStore(self.client(), prefix)

    def archive(self) -> RedisArchive:
        return RedisArchive(self.client(), kept_prefix(self.settings), "unused")

    def letters(self) -> RedisDeadLetters:
        return RedisDeadLetters(self.client(), kept_prefix(self.settings))

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

    # --- waits without sleeps -------------------------------------------------------------

    def settle(self, timeout: float = 180) -> None:
        """Until the workers, then the serving process's indexer, have committed every
        message produced so far (consumer-group lag 0)."""
        bootstrap, settings = self.env["FR_KAFKA_BOOTSTRAP"], self.settings
        worked = [self.topic(t) for t in (TURNS, EDGES, COMMANDS)]
        wait_until(
            f"the workers to catch up\n{self.dump_logs()}",
            lambda: lag(bootstrap, settings.kafka_group, worked) == 0,
            timeout,
        )
        if self.server is not None:
            group = indexer_group(settings, self.generation())
            wait_until(
                "the indexer to catch up",
                lambda: lag(bootstrap, group, [self.topic(TRANSITIONS)]) == 0,
                timeout,
            )

    # --- queries ------------------------------------------------------------------------

    def ask(self, request: QueryRequest) -> str:
        """The full JSON of a query through the serving process, as `QueryResult` writes it."""
        body = request.model_dump(mode="json", exclude_none=True)
        response = httpx.post(self.url("/v1/query"), json=body, timeout=60)
        assert response.status_code == 200, response.text
        return QueryResult.model_validate(response.json()).model_dump_json()

    def dump_logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in self.tmp.glob("*.log")
        )


def new_deployment(kafka: str, redis_url: str, tmp: Path) -> LiveDeployment:
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
    return LiveDeployment(env, tmp)


def drop_keys(redis_url: str, prefix: str) -> None:
    client = connect(redis_url)
    for key in client.scan_iter(f"{prefix}*", count=1000):
        client.delete(key)
    client.close()
