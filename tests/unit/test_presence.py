"""Serving processes and workers register with a heartbeat (workers/stores/redis_presence.py)
so that `replay --from-kafka` refuses while any is alive, whatever data dir it is given."""

from __future__ import annotations

from pathlib import Path

import fakeredis
import pytest

from frecall.distributed.from_kafka import _refuse_if_running
from frecall.distributed.stores import register
from frecall.settings import Settings
from workers.errors import ConfigError
from workers.stores.redis_presence import Heartbeat, RedisPresence, describe


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_registrations_lapse_without_heartbeats_and_leave_at_once() -> None:
    clock = Clock()
    registry = RedisPresence(fakeredis.FakeRedis(), "fr", clock)
    registry.announce("a", {"role": "serve", "pid": 1, "host": "h", "data_dir": "/d"}, ttl=15)
    registry.announce("b", {"role": "worker", "pid": 2, "host": "h", "data_dir": "/e"}, ttl=15)
    assert [m["id"] for m in registry.alive()] == ["a", "b"]
    clock.now += 10
    registry.announce("b", {"role": "worker", "pid": 2, "host": "h", "data_dir": "/e"}, ttl=15)
    clock.now += 10  # a missed its beats; b renewed
    assert [m["role"] for m in registry.alive()] == ["worker"]
    registry.leave("b")
    assert registry.alive() == []


def test_a_heartbeat_registers_before_use_and_leaves_on_stop() -> None:
    registry = RedisPresence(fakeredis.FakeRedis(), "fr", Clock())
    beat = Heartbeat(registry, {"role": "worker", "data_dir": "/d", "generation": 0}).start()
    try:
        (member,) = registry.alive()
        assert member["id"] == beat.member and member["generation"] == 0
        assert describe(member).startswith("frecall worker (pid ")
    finally:
        beat.stop()
    assert registry.alive() == []


def test_replay_refuses_while_anyone_runs_and_processes_refuse_while_it_replays(
    tmp_path: Path,
) -> None:
    client = fakeredis.FakeRedis()
    settings = Settings(data_dir=tmp_path / "served", redis_prefix="fr")
    registry = RedisPresence(client, "fr")
    beat = register(settings, client, "serve")
    try:
        with pytest.raises(ConfigError, match=r"running: frecall serve \(pid .* data dir .*served"):
            _refuse_if_running(registry)  # given no data dir at all: it still knows
    finally:
        beat.stop()
    _refuse_if_running(registry)
    assert registry.begin_replay("pid 9 on h", ttl=60)
    assert not registry.begin_replay("pid 10 on h", ttl=60)  # one replay at a time
    with pytest.raises(ConfigError, match="replay --from-kafka` is running \\(pid 9 on h\\)"):
        register(settings, client, "worker")
    registry.end_replay()
    register(settings, client, "worker").stop()
