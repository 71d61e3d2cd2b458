"""Fixtures every tier shares. Services come from `deploy/local/with-services.sh`."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from workers.stores.redis_client import connect

#: What a truthy environment flag looks like (`CI=true`, `CI=1`, `CI=yes`; not `CI=false`).
TRUTHY = frozenset({"1", "true", "yes", "on"})


def in_ci() -> bool:
    """Whether `CI` is set to a truthy value: then a missing service fails the run instead
    of skipping (CONVENTIONS 15), however the CI spells it."""
    return os.environ.get("CI", "").strip().lower() in TRUTHY


@pytest.fixture(autouse=True)
def _clean_fr_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings come from `FR_*` variables: a developer's shell must not leak into tests.

    `FR_TEST_*` (service addresses exported by with-services.sh) are kept.
    """
    for name in list(os.environ):
        if name.startswith("FR_") and not name.startswith("FR_TEST_"):
            monkeypatch.delenv(name)


@pytest.fixture
def redis_url() -> str:
    """A real Redis; skipped when absent, except under CI where absence fails the run."""
    url = os.environ.get("FR_TEST_REDIS_URL")
    if not url:
        reason = "FR_TEST_REDIS_URL is not set (run the tests via deploy/local/with-services.sh)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return url


def require_service(variable: str, what: str, how: str = "deploy/local/with-services.sh") -> str:
    """The value of `variable`; the test is skipped when it is unset, except under CI."""
    value = os.environ.get(variable)
    if not value:
        reason = f"{variable} is not set ({what}; run the tests via {how})"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return value


@pytest.fixture(scope="module")
def kafka_bootstrap() -> str:
    """A real Kafka broker; skipped when absent, except under CI where absence fails."""
    return require_service("FR_TEST_KAFKA_BOOTSTRAP", "a Kafka broker")


@pytest.fixture(scope="module")
def module_redis_url() -> str:
    return require_service("FR_TEST_REDIS_URL", "a Redis server")


@contextmanager
def scratch_prefix(redis_url: str) -> Iterator[str]:
    """A fresh Redis key prefix; on leaving, pass or fail, its keys are deleted (on every
    master of a cluster)."""
    prefix = f"fr-test-{uuid.uuid4().hex}"
    try:
        yield prefix
    finally:
        _delete_prefix(redis_url, prefix)


def _delete_prefix(redis_url: str, prefix: str) -> None:
    with connect(redis_url) as client:
        for key in client.scan_iter(match=f"{prefix}:*", count=1000):
            client.delete(key)
