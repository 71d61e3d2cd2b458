"""`frecall serve`: the HTTP API under uvicorn, over the deployment the settings describe.

One worker process: the embedded stores belong to one process, and in the distributed
deployment this process runs the indexer that owns the vector index. Concurrency inside it
is the API's thread pool (see `frecall.api.app`).
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import uvicorn
from fastapi import FastAPI

from frecall.access.keys import Keyring
from frecall.access.ratelimit import RateLimiter
from frecall.api.app import ApiLimits, create_api
from frecall.api.auth import Gate
from frecall.observability.instrumented import Instrumented
from frecall.observability.metrics import Metrics
from frecall.observability.tracing import setup_tracing
from frecall.settings import Settings
from frecall.wiring import open_deployment, open_keyring
from workers.errors import ConfigError

log = logging.getLogger(__name__)


def serve(settings: Settings, host: str, port: int, *, limits: ApiLimits | None = None) -> None:
    """Open the deployment, serve until SIGINT/SIGTERM, then close it.

    Raises `FRError` when the deployment cannot be opened (e.g. another process holds the
    data dir), or when `host` is not a loopback address and no API key exists.
    Per-item problems go into the responses and the dead-letter log, not stderr.
    """
    keyring = open_keyring(settings)
    try:
        refuse_open_network(keyring, host, "frecall serve")
        metrics, tracing = Metrics(), setup_tracing(settings)
        deployment = Instrumented(
            open_deployment(settings, serving=True, quiet=True), metrics, tracing
        )
        watch_lag(metrics, deployment.inner)
        limiter = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)
        try:
            api = create_api(
                deployment,
                limits=limits,
                gate=Gate(deployment, keyring, limiter),
                metrics=metrics,
                tracing=tracing,
                metrics_open=is_loopback(host),
            )
            _run(api, host, port)
        finally:
            deployment.close()
            tracing.close()
            metrics.close()
            log.info("deployment closed")
    finally:
        keyring.store.close()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def refuse_open_network(keyring: Keyring, host: str, command: str) -> None:
    """No key and a non-loopback address would serve every user's memory to the network."""
    if not is_loopback(host) and not keyring.required():
        raise ConfigError(
            f"{command} on {host} would answer anyone on the network, and no API key exists. "
            "Create one first — `frecall keys create --tenant TENANT` (add --admin for a key "
            "that manages keys) prints it — then send it as `Authorization: Bearer KEY`; or "
            "bind 127.0.0.1"
        )


def watch_lag(metrics: Metrics, deployment: object) -> None:
    """Consumer lag at every scrape, from a deployment that can tell it (distributed)."""
    read = getattr(deployment, "consumer_lag", None)
    if callable(read):
        metrics.watch_lag(read)


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
    # Every request's access line (key id, tenant, route, status), whatever the level.
    logging.getLogger("frecall.access").setLevel(logging.INFO)
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
