"""`frecall serve`: the HTTP API under uvicorn, one process over the embedded stores.

One worker process only: the embedded stores (Qdrant Edge, SQLite, the file log) belong to
one process; concurrency inside it is the API's thread pool (see `frecall.api.app`).
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

from frecall.api.app import ApiLimits, create_api, create_app
from frecall.bootstrap import build, make_embedder, make_extractor
from frecall.settings import Settings

log = logging.getLogger(__name__)


def serve(settings: Settings, host: str, port: int, *, limits: ApiLimits | None = None) -> None:
    """Open the deployment, serve until SIGINT/SIGTERM, then close every store.

    Raises `FRError` when the deployment cannot be opened (e.g. another process holds it).
    With FR_KAFKA_BOOTSTRAP set, this is the distributed serving process: the indexer
    (fr.transitions → the vector index) and the query service, writes going to Kafka.
    """
    if settings.kafka_bootstrap:
        _serve_distributed(settings, host, port, limits)
        return
    extractor = make_extractor(settings)
    app = build(settings, extractor=extractor)
    try:
        _run(create_app(app, extractor, limits=limits), host, port)
    finally:
        app.close()
        log.info("stores closed")


def _serve_distributed(settings: Settings, host: str, port: int, limits: ApiLimits | None) -> None:
    from frecall.api.distributed import DistributedBackend
    from frecall.distributed import ServingNode
    from workers.query.service import QueryService

    embedder = make_embedder(settings)
    node = ServingNode(settings, embedder)
    try:
        queries = QueryService(node.vectors, embedder, node.stores.policy)
        node.start()
        _run(create_api(DistributedBackend(node, queries), limits=limits), host, port)
    finally:
        node.close()
        log.info("indexer stopped, stores closed")


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
