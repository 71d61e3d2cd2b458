"""What tests that run `frecall` processes share: a free port, a bounded wait, a clean stop."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
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


def start_server(
    env: dict[str, str], log: Path, *args: str, timeout: float = 60
) -> tuple[subprocess.Popen[bytes], str]:
    """`frecall ARGS` (a server on a free loopback port, passed as the last argument) until
    its `/healthz` answers; (the process, its base URL). The caller stops it (`stop`)."""
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "frecall.cli", *args, str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return proc.poll() is not None  # it exited: stop waiting, the log says why

    try:
        wait_until(f"frecall {args[0]}", up, timeout, lambda: log.read_text(errors="replace"))
        assert proc.poll() is None, log.read_text(errors="replace")
    except BaseException:
        stop(proc)
        raise
    return proc, url
