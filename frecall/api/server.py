"""`frecall serve`: the HTTP API under uvicorn, over the deployment the settings describe.

One worker process: the embedded stores belong to one process, and in the distributed
deployment this process runs the indexer that owns the vector index. Concurrency inside it
is the API's thread pool (see `frecall.api.app`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from fastapi import FastAPI

from frecall.access.gate import Gate, is_loopback, refuse_open_network
from frecall.access.ratelimit import RateLimiter
from frecall.api.app import ApiLimits, create_api
from frecall.observability.instrumented import Instrumented
from frecall.observability.metrics import Metrics
from frecall.observability.tracing import setup_tracing
from frecall.process import run_uvicorn
from frecall.settings import Settings
from frecall.wiring import open_deployment, open_keyring

log = logging.getLogger(__name__)


def serve(
    settings: Settings,
    host: str,
    port: int,
    *,
    limits: ApiLimits | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    """Open the deployment, serve until SIGINT/SIGTERM, then close it.

    Raises `FRError` when the deployment cannot be opened (e.g. another process holds the
    data dir), or when `host` is not a loopback address and no API key exists.
    Per-item problems go into the responses and the dead-letter log, not stderr.
    `ready` is called once the deployment is open, just before the server listens.
    """
    keyring = open_keyring(settings)
    try:
        refuse_open_network(keyring, host)
        if not keyring.required():
            log.warning(
                "no API key exists: the API answers anyone who can reach %s:%d "
                "(`frecall keys create --tenant T` makes one, and from then on every /v1 "
                "request needs a key)",
                host,
                port,
            )
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
            if ready is not None:
                ready()
            _run(api, host, port)
        finally:
            deployment.close()
            tracing.close()
            metrics.close()
            log.info("deployment closed")
    finally:
        keyring.store.close()


def watch_lag(metrics: Metrics, deployment: object) -> None:
    """Consumer lag at every scrape, from a deployment that can tell it (distributed)."""
    read = getattr(deployment, "consumer_lag", None)
    if callable(read):
        metrics.watch_lag(read)


def _run(api: FastAPI, host: str, port: int) -> None:
    log.info("serving the HTTP API on http://%s:%d", host, port)
    # Every request's access line (key id, tenant, route, status), whatever the level.
    logging.getLogger("frecall.access").setLevel(logging.INFO)
    run_uvicorn(api, host, port)
