"""The event log's files: line framing, segment order, snapshot reads and crash recovery.

`FileEventLog` (`file_log.py`, where the layout and the crash-safety contract are written)
keeps the writer's state; this module holds what only concerns bytes on disk, as functions:

* a record's line, ``<crc32, 8 hex digits> <json>\\n`` (`frame`), and whether a line is intact;
* segment files in append order, a snapshot's lines up to the end it saw (`Plan`, `lines`,
  `scan`), a line's record or a `StorageError` naming its file and line (`parse`);
* what opening the log recovers: the torn tail a crash mid-append left (`intact_end`), a
  `redact` interrupted between its renames (`recover`), the single-writer lock (`acquire_lock`).
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from pydantic import TypeAdapter, ValidationError

from schemas.events import LogRecord
from workers.errors import StorageError

#: One logger for the event log, whichever of its modules speaks (log filters name it).
log = logging.getLogger("workers.stores.file_log")

STORE: Final = "event log"
_ADAPTER: Final[TypeAdapter[LogRecord]] = TypeAdapter(LogRecord)
_SEGMENT_RE: Final = re.compile(r"log-(\d{6,})\.jsonl")
LIVE, NEW, OLD = "segments", "segments.new", "segments.old"
_READ_BUFFER: Final = 1 << 20
_TAIL_CHUNK: Final = 64 * 1024


def frame(record: LogRecord) -> bytes:
    payload = _ADAPTER.dump_json(record)
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def _payload(line: bytes) -> bytes | None:
    """The json of an intact line (newline-terminated, checksum matches), else None."""
    if len(line) < 11 or line[-1] != 0x0A or line[8] != 0x20:
        return None
    payload = line[9:-1]
    return payload if b"%08x" % zlib.crc32(payload) == line[:8] else None


def segment_name(number: int) -> str:
    return f"log-{number:06d}.jsonl"


def segments(live: Path) -> list[Path]:
    """Segment files in append order (numeric, so that log-1000000 sorts after log-999999)."""
    found = [(int(m.group(1)), p) for p in live.iterdir() if (m := _SEGMENT_RE.fullmatch(p.name))]
    return [p for _, p in sorted(found)]


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def intact_end(path: Path) -> tuple[int, int]:
    """(offset where a torn tail starts, file size); equal when the last line is intact."""
    with path.open("rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0, 0
        start = _line_start(f, size - 1)
        f.seek(size - 1)
        if f.read(1) != b"\n":
            return start, size  # unterminated: don't read what may be megabytes of garbage
        f.seek(start)
        return (size if _payload(f.read(size - start)) is not None else start), size


def _line_start(f: IO[bytes], end: int) -> int:
    """Offset just after the last newline before `end`, or 0."""
    pos = end
    while pos > 0:
        step = min(_TAIL_CHUNK, pos)
        pos -= step
        f.seek(pos)
        i = f.read(step).rfind(b"\n")
        if i >= 0:
            return pos + i + 1
    return 0


def recover(root: Path) -> Path:
    """Finish or discard a `redact` interrupted by a crash; returns the live segment dir."""
    live, new, old = root / LIVE, root / NEW, root / OLD
    if not live.exists():
        if new.exists():
            # Crashed between the two renames: segments.new was complete and fsynced first.
            log.warning("event log: finishing an interrupted redact in %s", root)
            new.rename(live)
        elif old.exists():
            raise StorageError(STORE, "open", f"{old} exists without {live}; refusing to guess")
    for leftover in (new, old):
        if leftover.exists():
            # .new is an unfinished rewrite; .old holds records a finished redact erased.
            log.warning("event log: removing %s left by an interrupted redact", leftover)
            shutil.rmtree(leftover)
    live.mkdir(exist_ok=True)
    fsync_dir(root)
    return live


def acquire_lock(path: Path) -> IO[bytes]:
    f = path.open("a+b")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().decode(errors="replace").strip() or "unknown"
        f.close()
        detail = f"{path.parent} is locked by another writer (pid {holder})"
        raise StorageError(STORE, "open", detail) from None
    except OSError:
        f.close()
        raise
    f.truncate(0)
    f.write(f"{os.getpid()}\n".encode())
    f.flush()
    return f


@dataclass(frozen=True, slots=True)
class Plan:
    """What a scan reads: (segment, bytes to read) in order, and a torn tail to skip."""

    parts: list[tuple[Path, int]]
    torn: tuple[Path, int, int] | None  # (segment, offset, bytes)


#: What every edge line holds, and no other record's can (a string inside a value would be
#: escaped): `read_commands` skips the lines with it unparsed.
EDGE_MARK = b'"kind":"edge"'


def lines(plan: Plan) -> Iterator[tuple[Path, int, bytes]]:
    """(segment, line number, raw line) of every complete line in the plan."""
    for path, limit in plan.parts:
        try:
            with path.open("rb", buffering=_READ_BUFFER) as f:
                pos = 0
                for lineno, line in enumerate(f, 1):
                    if pos >= limit:
                        break  # appended after the snapshot, or the torn tail
                    pos += len(line)
                    yield path, lineno, line
        except OSError as exc:
            raise StorageError(STORE, "read", f"{path}: {exc}") from exc
    if plan.torn is not None:
        log.warning("event log: skipped a torn tail: %s (offset %d, %d bytes)", *plan.torn)


def scan(plan: Plan) -> Iterator[tuple[LogRecord, bytes]]:
    """(record, raw line) for every intact record in the plan; raises on a bad one."""
    for path, lineno, line in lines(plan):
        yield parse(line, path, lineno), line


def parse(line: bytes, path: Path, lineno: int) -> LogRecord:
    payload = _payload(line)
    if payload is None:
        detail = "bad checksum or framing" if line.endswith(b"\n") else "incomplete record"
        raise StorageError(STORE, "read", f"{path}:{lineno}: corrupt record ({detail})")
    try:
        return _ADAPTER.validate_json(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise StorageError(
            STORE, "read", f"{path}:{lineno}: invalid record: {where}: {first['msg']}"
        ) from exc


def count_lines(path: Path, limit: int) -> int:
    with path.open("rb") as f:
        return sum(
            f.read(min(_READ_BUFFER, limit - pos)).count(b"\n")
            for pos in range(0, limit, _READ_BUFFER)
        )


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:  # a regular file takes it all at once, but a signal may cut a write short
        view = view[os.write(fd, view) :]
