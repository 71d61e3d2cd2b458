"""`frecall serve`: the HTTP API under uvicorn, over the deployment the settings describe.

One worker process: the embedded stores belong to one process, and in the distributed
deployment this process runs the indexer that owns the vector index. Concurrency inside it
is the API's thread pool (see `frecall.api.app`).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import uvicorn
from fastapi import FastAPI

from frecall.api.app import ApiLimits, create_api
from frecall.settings import Settings
from frecall.wiring import open_deployment

log = logging.getLogger(__name__)


def serve(settings: Settings, host: str, port: int, *, limits: ApiLimits | None = None) -> None:
    """Open the deployment, serve until SIGINT/SIGTERM, then close it.

    Raises `FRError` when the deployment cannot be opened (e.g. another process holds the
    data dir). Per-item problems go into the responses and the dead-letter log, not stderr.
    """
    deployment = open_deployment(settings, serving=True, quiet=True)
    try:
        _run(create_api(deployment, limits=limits), host, port)
    finally:
        deployment.close()
        log.info("deployment closed")


def _run(api: FastAPI, host: str, port: int) -> None:
    config = uvicorn.Config(
        api,
        host=host,
        port=port,
        workers=1,
        # The entry point configured logging once (CONVENTIONS 12); uvicorn's loggers
        # propagate to it instead of installing handlers of their own.
        log_config=None,
        timeout_graceful_shutdown=10,
    )
    log.info("serving the HTTP API on http://%s:%d", host, port)
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
