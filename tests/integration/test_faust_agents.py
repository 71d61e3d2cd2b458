"""The Faust agents' error policy on a real broker: a batch whose output cannot be
produced, or whose confirmation fails, is retried — never acknowledged unprocessed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from schemas.streams import EDGES
from streams.kafka_io import KafkaProducer
from streams.topics import Topics, ensure_topics
from tests.processes import stop

pytestmark = pytest.mark.integration

WORKER = Path(__file__).with_name("faust_fault_worker.py")
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mode", ["confirm", "produce"])
def test_a_failing_batch_is_retried_not_acknowledged(
    kafka_bootstrap: str, tmp_path: Path, mode: str
) -> None:
    prefix = f"fault{uuid.uuid4().hex[:8]}."
    ensure_topics(kafka_bootstrap, Topics(prefix), 1)
    producer = KafkaProducer(kafka_bootstrap)
    for i in range(5):
        producer.produce(prefix + EDGES, "u", f"edge {i}".encode())
    producer.flush()
    log = tmp_path / "worker.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with (tmp_path / "out.log").open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(WORKER), kafka_bootstrap, prefix, str(log), mode],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        confirmed: set[str] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            lines = log.read_text().splitlines() if log.exists() else []
            confirmed = {line.split()[1] for line in lines if line.startswith("confirmed")}
            if confirmed >= {"0", "1", "2", "3", "4"}:
                break
            time.sleep(0.5)
        output = (tmp_path / "out.log").read_text(errors="replace")[-3000:]
        assert proc.poll() is None, f"the worker died:\n{output}"
        assert confirmed == {"0", "1", "2", "3", "4"}, output
        handled = [ln for ln in log.read_text().splitlines() if ln.startswith("handled")]
        assert len(handled) > 5  # the failed batch was handled again
    finally:
        stop(proc, timeout=30)
