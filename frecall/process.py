"""Running a server process: uvicorn until SIGINT/SIGTERM, returning cleanly so that the
caller closes its stores (`frecall serve`, `frecall mcp --http`)."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import uvicorn
from starlette.types import ASGIApp

log = logging.getLogger(__name__)


def run_uvicorn(app: ASGIApp, host: str, port: int) -> None:
    """Serve `app` on one worker process until SIGINT/SIGTERM."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        workers=1,
        # The entry point configured logging once (CONVENTIONS 12); uvicorn's loggers
        # propagate to it instead of installing handlers of their own.
        log_config=None,
        timeout_graceful_shutdown=10,
    )
    with _sigterm_returns():
        uvicorn.Server(config).run()


@contextmanager
def _sigterm_returns() -> Iterator[None]:
    """Make SIGTERM a clean return, so that the stores are flushed and closed.

    uvicorn shuts down gracefully on SIGTERM, then raises the signal again for the handler
    that was installed before it; with the default handler that kills the process before
    `serve` could close the stores. A no-op handler lets `run()` return instead.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are the main thread's (uvicorn then installs none either)
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _terminated(signum: int, frame: FrameType | None) -> None:
    log.info("terminated by signal %d", signum)
