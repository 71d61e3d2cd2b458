"""Worker processes for the pipeline benchmark: start `frecall worker`s in a namespace,
wait until they joined their consumer group, and stop them by pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import ConsumerGroupState
from confluent_kafka.admin import AdminClient

from frecall.settings import Settings
from streams.topics import client_config
from workers.errors import BenchError

JOIN_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 20.0


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- worker processes ---------------------------------------------------------------------


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def start_worker(settings: Settings, index: int) -> Worker:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(
        FR_KAFKA_BOOTSTRAP=settings.kafka_bootstrap or "",
        FR_REDIS_URL=settings.redis_url or "",
        FR_KAFKA_TOPIC_PREFIX=settings.kafka_topic_prefix,
        FR_REDIS_PREFIX=settings.redis_prefix,
        FR_KAFKA_GROUP=settings.kafka_group,
        FR_KAFKA_PARTITIONS=str(settings.kafka_partitions),
        FR_EMBEDDER=settings.embedder,
        FR_DATA_DIR=str(settings.data_dir),
        FR_ONNX_THREADS=str(settings.onnx_threads),
        FR_LIFECYCLE_BULK=str(settings.lifecycle_bulk).lower(),
    )
    if settings.policy_file is not None:
        env["FR_POLICY_FILE"] = str(settings.policy_file)
    # No FR_OPENAI_*: the workers use the rule extractor, whatever the shell has.
    log = settings.data_dir / f"worker-{index}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "frecall.cli", "worker", "--roles", "extraction,lifecycle"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Worker(proc, log)


def check_alive(workers: Sequence[Worker], phase: str) -> None:
    for worker in workers:
        if worker.proc.poll() is not None:
            raise BenchError(
                "pipeline",
                phase,
                f"worker pid {worker.proc.pid} exited ({worker.proc.returncode}):\n{worker.tail()}",
            )


def stop_workers(workers: Sequence[Worker]) -> None:
    """SIGTERM each by pid, then SIGKILL whatever is still running after the timeout."""
    for worker in workers:
        if worker.proc.poll() is None:
            worker.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for worker in workers:
        try:
            worker.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"bench pipeline: worker pid {worker.proc.pid} ignored SIGTERM; killing it")
            worker.proc.kill()
            worker.proc.wait(10)


def wait_joined(bootstrap: str, group: str, workers: Sequence[Worker]) -> None:
    """Until the workers' consumer group is stable with one member per worker."""
    admin = AdminClient(client_config(bootstrap))
    deadline = time.monotonic() + JOIN_TIMEOUT_S
    members = 0
    while time.monotonic() < deadline:
        check_alive(workers, "start")
        try:
            description = admin.describe_consumer_groups([group], request_timeout=5)[group].result()
            members = len(description.members)
            if members >= len(workers) and description.state == ConsumerGroupState.STABLE:
                return
        except Exception:  # the group does not exist until the first worker joins
            pass
        time.sleep(0.5)
    raise BenchError(
        "pipeline", "start", f"{members}/{len(workers)} workers joined in {JOIN_TIMEOUT_S:.0f} s"
    )
