"""RedisSlotIndex on a real Redis: the shared contract, then atomicity under concurrency."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from tests.conftest import scratch_prefix
from tests.slot_index_contract import RedisSlotIndexContract, edge
from workers.ports import SlotIndex
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_slots import RedisSlotIndex

pytestmark = pytest.mark.integration


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    with scratch_prefix(redis_url) as prefix:
        yield prefix


@pytest.fixture
def client(redis_url: str) -> Iterator[RedisClient]:
    client = connect(redis_url)
    yield client
    client.close()


class TestRedisSlotIndex(RedisSlotIndexContract):
    @pytest.fixture
    def index(self, redis_url: str, prefix: str) -> Iterator[SlotIndex]:
        index = RedisSlotIndex(connect(redis_url), prefix=prefix)
        yield index
        index.close()


def _add_edges(url: str, prefix: str, edge_ids: list[str]) -> list[tuple[int, int]]:
    """Add edges one by one; returns (version, member count) as each `add` saw them."""
    index = RedisSlotIndex(connect(url), prefix=prefix)
    try:
        return [
            (version, len(members))
            for version, members in (index.add("alice", "s", edge(i)) for i in edge_ids)
        ]
    finally:
        index.close()


def _check_concurrent_adds(
    url: str, prefix: str, per_writer: list[list[tuple[int, int]]], total: int
) -> None:
    seen = [answer for answers in per_writer for answer in answers]
    # Each add added exactly one member atomically: its version equals the members it saw.
    assert all(version == count for version, count in seen)
    assert sorted(version for version, _ in seen) == list(range(1, total + 1))
    for answers in per_writer:
        versions = [version for version, _ in answers]
        assert versions == sorted(set(versions))  # strictly increasing for each writer
    index = RedisSlotIndex(connect(url), prefix=prefix)
    try:
        assert len(index.members("alice", "s")) == total
    finally:
        index.close()


def test_concurrent_threads_lose_nothing(redis_url: str, prefix: str) -> None:
    writers, per_writer = 8, 40
    results: list[list[tuple[int, int]]] = [[] for _ in range(writers)]
    errors: list[BaseException] = []
    start = threading.Barrier(writers)

    def run(n: int) -> None:
        try:
            start.wait()
            results[n] = _add_edges(redis_url, prefix, [f"t{n}-{i}" for i in range(per_writer)])
        except BaseException as exc:  # surfaced below: a thread's exception is not a failure
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    _check_concurrent_adds(redis_url, prefix, results, writers * per_writer)


def test_concurrent_processes_lose_nothing(redis_url: str, prefix: str) -> None:
    # spawn, not fork: forking a process that runs threads is unsafe (and warns on 3.12+).
    ctx = multiprocessing.get_context("spawn")
    processes, per_process = 2, 150
    with ProcessPoolExecutor(max_workers=processes, mp_context=ctx) as pool:
        futures = [
            pool.submit(_add_edges, redis_url, prefix, [f"p{n}-{i}" for i in range(per_process)])
            for n in range(processes)
        ]
        results = [future.result(timeout=120) for future in futures]
    _check_concurrent_adds(redis_url, prefix, results, processes * per_process)
