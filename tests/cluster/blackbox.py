"""Fortunate Recall as a black box: `frecall` processes, their HTTP API, and what Kafka's own
admin API says about topics and consumer groups. Nothing here imports the product."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from tests.processes import free_port, run_frecall, stop, wait_until


def clean_env(**settings: str) -> dict[str, str]:
    """This environment without any `FR_*` variable, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(settings)
    return env


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the test process dies (even by a crash, when
    no finalizer runs), so no worker outlives the run that started it (Linux prctl)."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


_PR_SET_PDEATHSIG = 1


@dataclass
class Frecall:
    """`frecall` commands and long-running processes with one environment; `close` stops
    every process it started."""

    env: dict[str, str]
    logs: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    port: int = 0

    def run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return run_frecall(self.env, *args, timeout=timeout)

    def check(self, *args: str, timeout: float = 180) -> str:
        done = self.run(*args, timeout=timeout)
        assert done.returncode == 0, f"frecall {' '.join(args)}:\n{done.stderr}"
        return done.stdout

    def spawn(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        self.logs.mkdir(parents=True, exist_ok=True)
        with open(self.logs / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "frecall.cli", *args],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        self.processes.append(proc)
        return proc

    def serve(self) -> None:
        self.port = free_port()
        server = self.spawn("serve", "serve", "--port", str(self.port))

        def up() -> bool:
            assert server.poll() is None, f"frecall serve exited\n{self.tail()}"
            try:
                return httpx.get(self.url("/healthz"), timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until("the serving process", up, timeout=90, detail=self.tail)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def facts(self) -> int:
        """How many facts the serving process holds (its `/healthz`)."""
        return int(httpx.get(self.url("/healthz"), timeout=10).json()["facts"])

    def export(self, user: str) -> str:
        """`GET /v1/users/{user}/memory`: byte for byte what `frecall export` prints."""
        response = httpx.get(self.url(f"/v1/users/{user}/memory"), timeout=30)
        assert response.status_code == 200, response.text
        return response.text

    def tail(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def close(self) -> None:
        for proc in reversed(self.processes):
            stop(proc)
        self.processes = []


class Kafka:
    """What the brokers say: topic layout, consumer groups, their lag, the log's records."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 2})

    def _consumer(self, group: str = "cluster-test-reader") -> Consumer:
        """A consumer that is assigned partitions by hand: it never joins `group`."""
        return Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "log_level": 2,
            }
        )

    def replication(self, topic: str) -> tuple[set[int], str]:
        """The replica counts of the topic's partitions, and its min.insync.replicas."""
        partitions = self.admin.list_topics(topic, timeout=15).topics[topic].partitions
        resource = ConfigResource(ResourceType.TOPIC, topic)
        config = self.admin.describe_configs([resource])[resource].result(15)
        return {len(p.replicas) for p in partitions.values()}, config["min.insync.replicas"].value

    def coordinator(self, group: str) -> int:
        """The broker coordinating `group` (its offsets and membership)."""
        description = self.admin.describe_consumer_groups([group])[group].result(15)
        return int(description.coordinator.id)

    def groups(self, prefix: str) -> list[str]:
        listed = self.admin.list_consumer_groups(request_timeout=15).result(15)
        return sorted(g.group_id for g in listed.valid if g.group_id.startswith(prefix))

    def lag(self, group: str, topics: list[str]) -> int:
        """Messages of `topics` that `group` has not committed (a partition it never
        committed counts whole).

        Committed offsets come from a consumer with the group's id that never joins it, not
        from AdminClient.list_consumer_group_offsets: librdkafka crashes the process when
        that call meets NOT_COORDINATOR, as it does after the coordinator moved
        (confluentinc/librdkafka#5040).
        """
        consumer = self._consumer(group)
        try:
            metadata = consumer.list_topics(timeout=15)
            partitions = [
                TopicPartition(topic, partition)
                for topic in topics
                for partition in metadata.topics[topic].partitions
            ]
            lag = 0
            for tp in consumer.committed(partitions, timeout=15):
                low, high = consumer.get_watermark_offsets(tp, timeout=15)
                lag += high - (tp.offset if tp.offset >= 0 else low)
            return lag
        finally:
            consumer.close()

    def read(self, topic: str) -> list[tuple[str, bytes]]:
        """Every (key, value) in `topic` now, from the beginning."""
        consumer = self._consumer()
        try:
            partitions = consumer.list_topics(topic, timeout=15).topics[topic].partitions
            ends, assignment = {}, []
            for partition in partitions:
                low, high = consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=15
                )
                if high > low:
                    ends[partition] = high
                    assignment.append(TopicPartition(topic, partition, low))
            consumer.assign(assignment)
            out: list[tuple[str, bytes]] = []
            deadline = time.monotonic() + 120
            while ends and time.monotonic() < deadline:
                msg = consumer.poll(1.0)
                if msg is None or msg.error():
                    continue
                partition, offset = msg.partition() or 0, msg.offset() or 0
                if partition in ends:
                    out.append(((msg.key() or b"").decode(), msg.value() or b""))
                    if offset + 1 >= ends[partition]:
                        del ends[partition]
            assert not ends, f"{topic}: partitions {sorted(ends)} not read to their end"
            return out
        finally:
            consumer.close()
