"""Who runs against a distributed deployment: serving processes and workers register with
a heartbeat, so that `replay --from-kafka` can refuse while any of them is alive — whatever
data dir it is given — and name them (docs/architecture.md, "Replay and generations").

Layout (one key each, under the deployment's prefix, no generation: a process of any
generation counts):

    {prefix}:alive        hash    process id -> JSON {role, pid, host, data_dir, generation,
                                  started, until}; `until` is renewed by the heartbeat
    {prefix}:replaying    string  who is replaying (while a replay runs; with a TTL)

Times are the Redis server's (`TIME`), so that hosts with skewed clocks agree on who is
alive. A process that dies without leaving stays listed until its `until` has passed
(`TTL_S`); a stopped one leaves at once.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import call, text

log = logging.getLogger(__name__)

#: Seconds a registration lasts without a heartbeat; beats come three times as often.
TTL_S = 15.0


class RedisPresence:
    """Registrations and the replay marker of one deployment (`prefix`: its Redis prefix).

    `clock`: seconds since the epoch; the Redis server's time by default (tests inject one).
    """

    def __init__(
        self, client: RedisClient, prefix: str, clock: Callable[[], float] | None = None
    ) -> None:
        self._client = client
        self._alive = f"{prefix}:alive"
        self._replaying = f"{prefix}:replaying"
        self._clock = clock or self._server_time

    def _server_time(self) -> float:
        seconds, micros = call("presence", self._client.time)
        return float(seconds) + float(micros) / 1e6

    def announce(self, member: str, info: dict[str, Any], ttl: float = TTL_S) -> None:
        """Register (or renew) `member` for `ttl` seconds."""
        value = json.dumps({**info, "until": self._clock() + ttl})
        call("presence", lambda: self._client.hset(self._alive, member, value))

    def leave(self, member: str) -> None:
        call("presence", lambda: self._client.hdel(self._alive, member))

    def alive(self) -> list[dict[str, Any]]:
        """Every registered process whose registration has not lapsed (the lapsed are
        dropped), oldest first."""
        rows = call("presence", lambda: self._client.hgetall(self._alive))
        now = self._clock()
        members, lapsed = [], []
        for member, raw in rows.items():
            info = json.loads(text(raw))
            if info.get("until", 0) < now:
                lapsed.append(member)
            else:
                members.append({**info, "id": text(member)})
        if lapsed:
            call("presence", lambda: self._client.hdel(self._alive, *lapsed))
        return sorted(members, key=lambda m: (m.get("started", 0), m["id"]))

    def begin_replay(self, who: str, ttl: float) -> bool:
        """Mark a replay as running for at most `ttl` seconds; False if one already is."""
        done = call(
            "presence", lambda: self._client.set(self._replaying, who, nx=True, ex=int(ttl))
        )
        return bool(done)

    def end_replay(self) -> None:
        call("presence", lambda: self._client.delete(self._replaying))

    def replaying(self) -> str | None:
        """Who is replaying now (None: no replay runs)."""
        raw = call("presence", lambda: self._client.get(self._replaying))
        return None if raw is None else text(raw)


def describe(member: dict[str, Any]) -> str:
    """One registered process, for people: `frecall serve (pid 12 on host, data dir D,
    generation 0)`."""
    return (
        f"frecall {member.get('role', '?')} (pid {member.get('pid', '?')} on "
        f"{member.get('host', '?')}, data dir {member.get('data_dir', '?')}, generation "
        f"{member.get('generation', '?')})"
    )


class Heartbeat:
    """Registers this process and renews the registration from a daemon thread until
    `stop` (which leaves at once). A failed beat is logged and tried again."""

    def __init__(self, presence: RedisPresence, info: dict[str, Any], ttl: float = TTL_S) -> None:
        self.member = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._presence = presence
        self._info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.time(),
            **info,
        }
        self._ttl = ttl
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self._presence.announce(self.member, self._info, self._ttl)  # registered before use
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._ttl / 3):
            try:
                self._presence.announce(self.member, self._info, self._ttl)
            except Exception as exc:  # Redis away: the next beat tries again
                log.warning("heartbeat: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            self._presence.leave(self.member)
        except Exception as exc:  # it lapses by itself
            log.warning("heartbeat: could not leave: %s", exc)
