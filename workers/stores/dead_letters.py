"""Dead letters: rejected input kept with the reason, so that nothing is dropped silently.

File format: JSON lines, one object per rejected input::

    {"at": "2026-01-01T00:00:00+00:00", "source": "turns.jsonl", "position": "17",
     "reason": "text: field required", "raw": "{\\"user_id\\": ..."}

`at` is an ISO 8601 UTC time; `source` names the file or topic, `position` the line or
partition/offset, `raw` the rejected input as received.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypeGuard

from workers.errors import StorageError

log = logging.getLogger(__name__)

_STORE: Final = "dead letters"
_FIELDS: Final = ("at", "source", "position", "reason", "raw")


def _utc_now() -> datetime:
    return datetime.now(UTC)


def make_letter(at: datetime, source: str, position: str, reason: str, raw: str) -> dict[str, str]:
    return {
        "at": at.astimezone(UTC).isoformat(),
        "source": source,
        "position": position,
        "reason": reason,
        "raw": raw,
    }


class FileDeadLetters:
    """`DeadLetters` appended to a JSON-lines file, flushed on every `put`.

    The file is opened per `put`: dead letters are rare, and this holds no handle between
    calls, so there is nothing to close. Not fsynced: a dead letter is a diagnostic copy whose
    input still exists at its source. Raises `StorageError` when the file cannot be written.
    """

    def __init__(self, path: Path, *, clock: Callable[[], datetime] = _utc_now) -> None:
        self._path = Path(path)
        self._clock = clock
        self._mutex = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def put(self, source: str, position: str, reason: str, raw: str) -> None:
        entry = make_letter(self._clock(), source, position, reason, raw)
        # ensure_ascii: `raw` may hold lone surrogates (undecodable input), which UTF-8 can't
        # encode; escaped, every letter stays one valid ASCII line.
        line = json.dumps(entry, ensure_ascii=True) + "\n"
        with self._mutex:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                with self._path.open("a", encoding="ascii", newline="") as f:
                    f.write(line)
            except OSError as exc:
                raise StorageError(_STORE, "put", f"{self._path}: {exc}") from exc

    def redact_user(self, user_id: str) -> int:
        """Drop the letters whose raw input names `user_id` (erasure); returns how many."""
        with self._mutex:
            letters = read_dead_letters(self._path)
            kept = [entry for entry in letters if user_of(entry["raw"]) != user_id]
            if len(kept) == len(letters):
                return 0
            tmp = self._path.with_suffix(".tmp")
            try:
                with tmp.open("w", encoding="ascii", newline="") as f:
                    f.writelines(json.dumps(k, ensure_ascii=True) + "\n" for k in kept)
                tmp.replace(self._path)
            except OSError as exc:
                raise StorageError(_STORE, "redact", f"{self._path}: {exc}") from exc
            return len(letters) - len(kept)


def owner_of(user_id: str | None, raw: str) -> str | None:
    """Whose rejected input this is: the user given (a message key), else the one the raw
    JSON names, else nobody."""
    owner = user_id or user_of(raw)
    return owner if isinstance(owner, str) and owner else None


def user_of(raw: str) -> object:
    """The `user_id` a raw input names, if it is a JSON object with one."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value.get("user_id") if isinstance(value, dict) else None


class InMemoryDeadLetters:
    """`DeadLetters` fake for tests: `letters` holds what `FileDeadLetters` would write; also
    the fake of `RedisDeadLetters` (letters kept per user, `put_for`/`of`)."""

    def __init__(self, *, clock: Callable[[], datetime] = _utc_now) -> None:
        self.letters: list[dict[str, str]] = []
        self._owners: list[str | None] = []
        self._clock = clock

    def put(self, source: str, position: str, reason: str, raw: str) -> None:
        self.put_for(None, source, position, reason, raw)

    def put_for(
        self, user_id: str | None, source: str, position: str, reason: str, raw: str
    ) -> None:
        self.letters.append(make_letter(self._clock(), source, position, reason, raw))
        self._owners.append(owner_of(user_id, raw))

    def of(self, user_id: str | None) -> list[dict[str, str]]:
        return [k for k, o in zip(self.letters, self._owners, strict=True) if o == user_id]

    def redact_user(self, user_id: str) -> int:
        kept = [(k, o) for k, o in zip(self.letters, self._owners, strict=True) if o != user_id]
        removed = len(self.letters) - len(kept)
        self.letters = [k for k, _ in kept]
        self._owners = [o for _, o in kept]
        return removed


def read_dead_letters(path: Path) -> list[dict[str, str]]:
    """Every letter in the file, oldest first; [] when there is no file.

    A torn last line (a crash during `put`) is skipped with a warning; any other malformed
    line raises `StorageError` naming the file and line.
    """
    try:
        with Path(path).open("r", encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(_STORE, "read", f"{path}: {exc}") from exc
    tail = lines.pop()  # "" when the file ends with a newline, as an intact file does
    if tail:
        log.warning("dead letters: skipped a torn last line in %s", path)
    letters: list[dict[str, str]] = []
    for lineno, line in enumerate(lines, 1):
        try:
            letter = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StorageError(_STORE, "read", f"{path}:{lineno}: {exc}") from exc
        if not _is_letter(letter):
            raise StorageError(_STORE, "read", f"{path}:{lineno}: not a dead letter")
        letters.append(letter)
    return letters


def _is_letter(value: object) -> TypeGuard[dict[str, str]]:
    return (
        isinstance(value, dict)
        and set(value) == set(_FIELDS)
        and all(isinstance(v, str) for v in value.values())
    )
