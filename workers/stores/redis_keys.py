"""What the Redis adapters share: the per-user hash tag, key text, and error mapping.

Every key of a user carries the same hash tag `{<user>}`, so one user's keys live in one
Redis Cluster slot and a Lua script may touch all of them. `<user>` is the user id with
`%`, `{` and `}` percent-encoded: the tag ends at the first `}`, and the encoding keeps
distinct users distinct.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import redis

from workers.errors import StorageError

_T = TypeVar("_T")


def tag(user_id: str) -> str:
    return user_id.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")


def untag(encoded: str) -> str:
    return encoded.replace("%7D", "}").replace("%7B", "{").replace("%25", "%")


def text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def glob_escape(literal: str) -> str:
    """A literal for SCAN MATCH (a user id may contain glob characters)."""
    return "".join("\\" + c if c in "\\*?[]" else c for c in literal)


def call(operation: str, fn: Callable[[], _T]) -> _T:
    """Run a Redis call; its failure becomes a `StorageError` naming the operation."""
    try:
        return fn()
    except redis.RedisError as exc:
        raise StorageError("redis", operation, f"{type(exc).__name__}: {exc}") from exc
