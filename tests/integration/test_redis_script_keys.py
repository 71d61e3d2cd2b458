"""Every Redis command the adapters send for a user, Lua scripts' inner calls included, stays
in that user's keys and so in one Redis Cluster slot.

Redis Cluster checks a script's keys only partly: a key built inside the script on another
node fails, one in another slot of the same node passes (Redis 7.0), until that slot moves
during a resharding. So this watches the server itself (MONITOR shows each command a script
runs, as `[db lua]`) while every script of every adapter runs for users whose ids stress the
hash tag, and asks Redis (COMMAND GETKEYS) which arguments of each command are keys.
"""

from __future__ import annotations

import re
import threading
import uuid
from datetime import timedelta

import pytest
import redis
from redis.commands.core import Script
from redis.crc import key_slot

from tests.delivery_ports_contract import T0, fact, turn
from tests.slot_index_contract import SPECIAL_SLOTS, SPECIAL_USERS, edge
from workers.ports import SlotEntry
from workers.stores.redis_archive import RedisArchive
from workers.stores.redis_client import connect
from workers.stores.redis_dead_letters import RedisDeadLetters
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_keys import UserKeys
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_slots import RedisSlotIndex
from workers.stores.redis_turns import RedisTurnContext

pytestmark = pytest.mark.integration

_LINE = re.compile(rb"^\S+ \[\d+ ([^\]]*)\] (.*)$", re.DOTALL)
_ARG = re.compile(rb'"((?:[^"\\]|\\.)*)"')
_ESCAPES = {ord(c): v for c, v in zip('nrtab\\"', b'\n\r\t\a\b\\"', strict=True)}


def _unescape(quoted: bytes) -> bytes:
    """An argument as MONITOR quotes it (sdscatrepr: `\\"`, `\\n`, `\\xHH`, …), as sent."""
    out, i = bytearray(), 0
    while i < len(quoted):
        if quoted[i] != ord("\\"):
            out.append(quoted[i])
            i += 1
        elif quoted[i + 1] == ord("x"):
            out.append(int(quoted[i + 2 : i + 4], 16))
            i += 4
        else:
            out.append(_ESCAPES[quoted[i + 1]])
            i += 2
    return bytes(out)


def _keys(client: redis.Redis, args: list[bytes]) -> list[bytes]:
    """The key arguments of a command (`args` as sent), as Redis itself finds them."""
    if len(args) == 1:  # MULTI, EXEC: nothing to ask
        return []
    try:
        return [k if isinstance(k, bytes) else k.encode() for k in client.command_getkeys(*args)]
    except redis.ResponseError as exc:
        if "no key arguments" in str(exc):
            return []
        raise


class Monitor(threading.Thread):
    """The commands the server runs, as (client, args), until an `ECHO <end>`."""

    def __init__(self, url: str, end: bytes) -> None:
        super().__init__(name="monitor", daemon=True)
        self.client = connect(url)  # kept: its pool holds the monitor's connection
        assert isinstance(self.client, redis.Redis)
        self.monitor, self.end = self.client.monitor(), end
        self.monitor.__enter__()  # MONITOR is on before `start` returns
        self.commands: list[tuple[str, list[bytes]]] = []
        self.ended = False

    def run(self) -> None:
        try:
            while True:
                raw = self.monitor.connection.read_response()
                match = _LINE.match(raw)
                assert match is not None, raw
                args = [_unescape(a) for a in _ARG.findall(match.group(2))]
                if args == [b"ECHO", self.end]:
                    self.ended = True
                    return
                self.commands.append((match.group(1).decode(), args))
        finally:
            self.monitor.__exit__()
            self.client.close()


def _exercise(url: str, prefix: str, user: str) -> None:
    """Every operation of every Redis adapter for `user`, each script at least once."""
    client = connect(url)
    facts, ledger = RedisFactStore(client, prefix), RedisDeliveryLedger(client, prefix)
    slots, turns = RedisSlotIndex(client, prefix), RedisTurnContext(client, prefix)
    for n, slot in enumerate(SPECIAL_SLOTS):
        slots.add(user, slot, edge(f"m{n}", user=user))
        slots.add(user, slot, edge("shared", user=user))
        slots.add_retraction(user, slot, edge(f"r{n}", user=user))
    bulk = [
        SlotEntry(slot, edge(f"b{n}", user=user), n % 2 == 1)
        for n, slot in enumerate(SPECIAL_SLOTS)
    ]
    slots.add_many(user, bulk)
    slots.read_many(user, SPECIAL_SLOTS)
    slots.members(user, SPECIAL_SLOTS[0])
    slots.retractions(user, SPECIAL_SLOTS[0])
    slots.slots(user)
    slots.remove(user, "shared")  # builds the key names of every slot the edge is in
    slots.delete_user(user)  # builds every slot's and edge's key names
    ledger.tombstone(user, "gone", T0)
    ledger.tombstone(user, None, T0)
    items = [fact("a", user, 5), fact("b", user, 6), fact("gone", user, 7)]
    assert facts.commit(user, facts.snapshot(user), items, {})
    facts.get(user, ["a", "b"])
    facts.count(user)
    list(facts.scroll(user))
    facts.delete(user, ["a"])
    facts.delete_if(user, facts.snapshot(user), ["b"])
    facts.delete_user(user)
    ledger.mark_processed(user, "a")
    ledger.processed(user, "a")
    ledger.erased(user, "a", T0 + timedelta(1))
    ledger.remember_slots(user, "cmd", ["s"])
    ledger.forget_slots(user, "cmd")
    ledger.put_receipt(user, "cmd", {"fact_store": 1})
    ledger.receipt(user, "cmd")
    ledger.forget_processed(user)
    turns.add(turn("t1", 0, user))
    turns.recent(turn("t2", 1, user))
    turns.remember_extracted(turn("t1", 0, user), [])
    turns.extracted(turn("t1", 0, user))
    turns.forget_user(user)
    # What no generation owns (`<prefix>.kept`): the archive's append reads the ledger's
    # tombstones, in the same user's slot.
    archive, letters = (
        RedisArchive(client, prefix + ".kept", prefix),
        RedisDeadLetters(client, prefix + ".kept"),
    )
    archive.append([(fact("c", user, 8).record, "expired", T0)], T0)
    archive.records(user)
    archive.redact(user, "c")
    archive.redact(user, None, T0)
    letters.put_for(user, "fr.edges", "0/1", "not an edge event", "x")
    letters.of(user)
    letters.redact_user(user)


def _script_shas(url: str) -> set[bytes]:
    """Every Lua script the adapters register (found on them, so a new one is checked too)."""
    client = connect(url)
    adapters = [cls(client, "x") for cls in (RedisFactStore, RedisDeliveryLedger,
                                              RedisSlotIndex, RedisTurnContext)]  # fmt: skip
    adapters += [RedisArchive(client, "x.kept", "x"), RedisDeadLetters(client, "x.kept")]
    scripts = [v for a in adapters for v in vars(a).values() if isinstance(v, Script)]
    client.close()
    assert scripts, "no script found: the adapters' attributes changed, fix this test"
    return {s.sha.encode() for s in scripts}


def test_every_command_and_script_stays_in_the_users_slot(redis_url: str) -> None:
    prefix, end = f"fr-test-{uuid.uuid4().hex}", uuid.uuid4().hex.encode()
    users = ["alice", *SPECIAL_USERS]
    control = connect(redis_url)
    assert isinstance(control, redis.Redis)
    monitor = Monitor(redis_url, end)
    monitor.start()
    for n, user in enumerate(users):
        control.echo(f"{prefix} user {n}")
        _exercise(redis_url, prefix, user)
    control.echo(end)
    monitor.join(timeout=60)
    assert monitor.ended, "MONITOR did not see the end marker"

    keys, kept = UserKeys(prefix), UserKeys(prefix + ".kept")
    user, checked = None, 0
    scripts_run: dict[str, set[bytes]] = {u: set() for u in users}
    for who, args in monitor.commands:
        if args[:1] == [b"ECHO"] and args[1].startswith(prefix.encode()):
            user = users[int(args[1].split()[-1])]
            continue
        if user is None:  # the control connection's handshake
            continue
        if args[0].upper() == b"EVALSHA":
            scripts_run[user].add(args[1])
        base = keys.base(user).encode()
        for key in _keys(control, args):
            assert key.startswith((base, kept.base(user).encode())), (user, who, args)
            assert key_slot(key) == key_slot(base), (user, who, args)
            checked += 1
    control.close()
    assert scripts_run == {u: _script_shas(redis_url) for u in users}  # all, for each user
    assert sum(who == "lua" for who, _ in monitor.commands) > len(users) * 10
    assert checked > len(users) * 30
