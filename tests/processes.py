"""What tests that run `frecall` processes share: a free port, a bounded wait, a clean stop."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import pytest


def run_frecall(
    env: dict[str, str], *args: str, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`frecall ARGS` in a child process with `env`, its output captured (not checked)."""
    return subprocess.run(
        [sys.executable, "-m", "frecall.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def free_port() -> int:
    """A loopback port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(
    what: str, check: Callable[[], bool], timeout: float = 180, detail: Callable[[], str] = str
) -> None:
    """Poll `check` until it holds; fail after `timeout` s with `detail()` (e.g. log tails)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    pytest.fail(f"timed out after {timeout} s waiting for {what}\n{detail()}")


def stop(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """Stop a process we started, by its pid: TERM, then KILL after `timeout` s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
