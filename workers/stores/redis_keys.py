"""What the Redis adapters share: the key layout, the per-user hash tag, and error mapping.

Every key of a user carries the same hash tag `{<user>}`, so one user's keys live in one
Redis Cluster slot and a Lua script may touch all of them. `<user>` is the user id with
`%`, `{` and `}` percent-encoded: the tag ends at the first `}`, and the encoding keeps
distinct users distinct. The layout of one generation (`<prefix>` is `fr`, then `fr.g1`, …
after each `replay --from-kafka`; docs/architecture.md "Replay and generations"):

    {prefix}:{<user>}:slot:<slot>      hash    slot index: members (edge_id -> EdgeEvent)
    {prefix}:{<user>}:retr:<slot>      hash    slot index: retractions
    {prefix}:{<user>}:versions         hash    slot index: slot -> version
    {prefix}:{<user>}:slots            set     slot index: live slot keys
    {prefix}:{<user>}:edge:<edge_id>   set     slot index: slots an edge is in
    {prefix}:{<user>}:facts            hash    fact store: edge_id -> FactRecord JSON
    {prefix}:{<user>}:version          string  fact store: bumped by every write
    {prefix}:{<user>}:processed        set     ledger: edges applied and announced
    {prefix}:{<user>}:forgotten        set     ledger: erased edge ids (tombstones)
    {prefix}:{<user>}:erased_at        string  ledger: epoch seconds of the last user erasure
    {prefix}:{<user>}:erasing:<cmd>    string  ledger: slots an erasure must re-resolve
    {prefix}:{<user>}:receipt:<cmd>    string  ledger: what an erasure removed (1 day)
    {prefix}:{<user>}:session:<s>      list    turn context: recent turns of a session
    {prefix}:{<user>}:session:<s>:extracted:<turn>  string  turn context: a turn's facts

The fact store's commit script reads the ledger's two tombstone keys (same hash slot), so
that a fact erased while a worker was resolving it is never written back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import redis

from workers.errors import StorageError
from workers.stores.redis_client import RedisClient

_T = TypeVar("_T")

#: Ledger keys the fact store's commit script checks (see the module docstring).
FORGOTTEN, ERASED_AT = "forgotten", "erased_at"


def tag(user_id: str) -> str:
    return user_id.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")


def untag(encoded: str) -> str:
    return encoded.replace("%7D", "}").replace("%7B", "{").replace("%25", "%")


def text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def glob_escape(literal: str) -> str:
    """A literal for SCAN MATCH (a user id may contain glob characters)."""
    return "".join("\\" + c if c in "\\*?[]" else c for c in literal)


class UserKeys:
    """Key names under one prefix: `{prefix}:{<user>}:<name>`."""

    def __init__(self, prefix: str) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError(f"key prefix must not contain braces: {prefix!r}")
        self.prefix = prefix

    def base(self, user_id: str) -> str:
        """`{prefix}:{<user>}:`, the start of every key of the user."""
        return f"{self.prefix}:{{{tag(user_id)}}}:"

    def __call__(self, user_id: str, name: str) -> str:
        if not user_id:
            raise ValueError("user id must not be empty")
        return self.base(user_id) + name

    def users(self, client: RedisClient, name: str) -> list[str]:
        """Every user with a key `name` (a scan: for maintenance jobs), sorted."""
        pattern = glob_escape(f"{self.prefix}:") + "{*}:" + glob_escape(name)
        keys = call("users", lambda: list(client.scan_iter(pattern, count=1000)))
        out = []
        for key in keys:
            # The tag ends at the first "}" (user ids are encoded without braces); a session
            # key whose name happens to end in "}:<name>" is not the key asked for.
            encoded, _, rest = text(key)[len(self.prefix) + 2 :].partition("}")
            if rest == ":" + name:
                out.append(untag(encoded))
        return sorted(out)

    def delete_matching(self, client: RedisClient, user_id: str, name_prefix: str) -> None:
        """Delete every key of the user whose name starts with `name_prefix`."""
        pattern = glob_escape(self(user_id, name_prefix)) + "*"
        found: list[bytes] = call("delete_user", lambda: list(client.scan_iter(pattern)))
        if found:
            call("delete_user", lambda: client.delete(*found))


def call(operation: str, fn: Callable[[], _T]) -> _T:
    """Run a Redis call; its failure becomes a `StorageError` naming the operation."""
    try:
        return fn()
    except redis.RedisError as exc:
        raise StorageError("redis", operation, f"{type(exc).__name__}: {exc}") from exc
