"""The embedded deployment's event log: append-only JSON-lines segments, one CRC per line.

Layout, inside the data dir::

    <directory>/LOCK                              single-writer lock; holds the writer's pid
    <directory>/segments/log-000001.jsonl, ...    records in append order

Line format: ``<crc32 of the json bytes, 8 lowercase hex digits> <json>\\n``. JSON escapes
control characters, so a raw ``\\n`` byte only ever ends a record.

Crash-safety contract:

* `append` writes a batch with one write and one fsync. A crash mid-write leaves at most one
  torn record, at the end of the last segment: `read` skips it with a warning and the next
  `append` truncates it. A bad line anywhere else is corruption and raises `StorageError`.
* `redact` writes the surviving records to ``segments.new``, fsyncs them, then swaps the
  directories by renames (``segments`` → ``segments.old``, ``segments.new`` → ``segments``) and
  deletes ``segments.old``. Opening the log finishes or discards an interrupted swap.

This module keeps the writer's state (the open segment, its intact end, the lock); the byte-level
work — framing, reading a snapshot, recovering on open — is `log_segments.py`.
"""

from __future__ import annotations

import fcntl
import io
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Final

from schemas.events import ForgetCommand, LogRecord
from workers.errors import StorageError
from workers.stores import log_segments as seg

log = logging.getLogger(__name__)

SEGMENT_BYTES: Final = 64 * 1024 * 1024


class FileEventLog:
    """`EventLog` over local segment files, with one writer per directory.

    `fsync=False` (bulk loads, benchmarks) skips the per-append fsync; the log is synced when a
    segment is sealed and on `close`. Raises `StorageError` when another writer holds the
    directory, on I/O failure, and on corruption that is not a torn tail. Writes are serialized
    by a mutex; a `read` still being consumed while `redact` swaps the files may fail.
    """

    def __init__(
        self, directory: Path, *, segment_bytes: int = SEGMENT_BYTES, fsync: bool = True
    ) -> None:
        if segment_bytes <= 0:
            raise ValueError("segment_bytes must be positive")
        self._root = Path(directory)
        self._segment_bytes = segment_bytes
        self._fsync = fsync
        self._mutex = threading.Lock()
        self._writer: io.FileIO | None = None
        self._current, self._number = Path(), 0
        self._end = 0  # end of the last intact record of the current segment
        self._torn = 0  # bytes of torn tail after _end
        self._dirty = False  # written but not fsynced (fsync=False)
        self._failed: str | None = None
        try:
            self._root.mkdir(parents=True, exist_ok=True)
            self._lock: IO[bytes] | None = seg.acquire_lock(self._root / "LOCK")
        except OSError as exc:
            raise StorageError(seg.STORE, "open", f"{self._root}: {exc}") from exc
        try:
            self._live = seg.recover(self._root)
            self._open_tail()
        except BaseException as exc:
            self._release()
            if isinstance(exc, OSError):
                raise StorageError(seg.STORE, "open", f"{self._root}: {exc}") from exc
            raise

    def append(self, records: Sequence[LogRecord]) -> None:
        """Write `records` in order: durable on return unless `fsync=False`.

        On failure the batch is cut off again, so the log still ends at the previous append.
        """
        if not records:
            return
        data = b"".join(seg.frame(r) for r in records)
        with self._mutex:
            writer = self._writable("append")
            try:
                if self._torn:
                    # O_APPEND writes land at the end of the file: cut the torn tail off first.
                    log.warning("event log: truncating a torn tail of %s", self._current)
                    self._truncate(writer, self._end)
                if self._end > 0 and self._end + len(data) > self._segment_bytes:
                    self._close_writer()
                    writer = self._start_segment(self._number + 1)
                seg.write_all(writer.fileno(), data)
                if self._fsync:
                    os.fsync(writer.fileno())
            except OSError as exc:
                self._undo(exc)
                raise StorageError(seg.STORE, "append", f"{self._current}: {exc}") from exc
            self._end += len(data)
            self._dirty = not self._fsync

    def read(self) -> Iterator[LogRecord]:
        """Every intact record appended before the call, in append order.

        A torn last record is skipped with a warning; any other bad line raises `StorageError`
        with its file and line number.
        """
        plan = self._plan()
        return (record for record, _ in seg.scan(plan))

    def read_commands(self) -> Iterator[tuple[int, ForgetCommand]]:
        """(position, command) of every forget command, positions counted as `read` counts
        them; edge lines are skipped unparsed (replay's first pass: it reads the log twice).
        Edge lines are checked by the second pass, `read`."""
        for position, (path, lineno, line) in enumerate(seg.lines(self._plan())):
            if seg.EDGE_MARK not in line:
                record = seg.parse(line, path, lineno)
                if isinstance(record, ForgetCommand):
                    yield position, record

    def redact(self, keep: Callable[[LogRecord], bool]) -> int:
        """Rewrite the log with only the records `keep` accepts; returns how many were removed.

        Erased records are gone from the log's files on return (or, after a crash, when the log
        is next opened). Always fsynced, whatever `fsync` says. On corruption or if `keep`
        raises, the log is left unchanged. `keep` must not call back into the log.
        """
        with self._mutex:
            self._writable("redact")
            plan = self._plan(locked=True)
            new, live, old = self._root / seg.NEW, self._live, self._root / seg.OLD
            try:
                shutil.rmtree(new, ignore_errors=True)
                new.mkdir()
                removed = self._rewrite(plan, keep, new)
            except BaseException as exc:
                shutil.rmtree(new, ignore_errors=True)
                if isinstance(exc, OSError):
                    raise StorageError(seg.STORE, "redact", f"{new}: {exc}") from exc
                raise
            if removed == 0:
                shutil.rmtree(new)
                return 0
            try:
                self._close_writer()
                live.rename(old)
                seg.fsync_dir(self._root)  # so the second rename can never persist alone
                new.rename(live)
                seg.fsync_dir(self._root)
                self._open_tail()
                shutil.rmtree(old)
                seg.fsync_dir(self._root)
            except OSError as exc:
                self._failed = f"redact interrupted ({exc}); reopen the log to recover"
                raise StorageError(seg.STORE, "redact", self._failed) from exc
            log.info("event log: redacted %d records", removed)
            return removed

    def count(self) -> int:
        """Intact records (complete lines before a torn tail); read() checks their content."""
        plan = self._plan()
        try:
            return sum(seg.count_lines(path, limit) for path, limit in plan.parts)
        except OSError as exc:
            raise StorageError(seg.STORE, "count", str(exc)) from exc

    def size_bytes(self) -> int:
        """Bytes the segments take on disk, torn tail included."""
        plan = self._plan()
        return sum(limit for _, limit in plan.parts) + (plan.torn[2] if plan.torn else 0)

    def close(self) -> None:
        """Sync what `fsync=False` left unsynced, release the lock. Idempotent."""
        with self._mutex:
            if self._lock is None:
                return
            try:
                self._close_writer()
            except OSError as exc:
                raise StorageError(seg.STORE, "close", f"{self._current}: {exc}") from exc
            finally:
                self._release()

    def __enter__(self) -> FileEventLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- internals; callers hold self._mutex --------------------------------------------------

    def _writable(self, operation: str) -> io.FileIO:
        if self._failed is not None:
            # After a failed write or fsync the file's state is unknown (fsync errors may drop
            # dirty pages): refuse to write on top of it until a reopen re-checks the tail.
            raise StorageError(seg.STORE, operation, self._failed)
        if self._lock is None or self._writer is None:
            raise StorageError(seg.STORE, operation, f"{self._root}: the log is closed")
        return self._writer

    def _open_tail(self) -> None:
        segments = seg.segments(self._live)
        if not segments:
            self._start_segment(1)
            return
        self._current, self._number = segments[-1], int(segments[-1].name[4:-6])
        self._end, size = seg.intact_end(self._current)
        self._torn = size - self._end
        self._writer = open(self._current, "ab", buffering=0)  # noqa: SIM115 - see close()

    def _start_segment(self, number: int) -> io.FileIO:
        path = self._live / seg.segment_name(number)
        self._writer = writer = open(path, "ab", buffering=0)  # noqa: SIM115 - see close()
        self._current, self._number, self._end, self._torn = path, number, 0, 0
        seg.fsync_dir(self._live)  # the new file's directory entry must survive a crash too
        return writer

    def _truncate(self, writer: io.FileIO, end: int) -> None:
        writer.truncate(end)
        os.fsync(writer.fileno())
        self._torn = 0

    def _undo(self, exc: OSError) -> None:
        """Cut off a partly written batch; if even that fails, refuse further writes."""
        try:
            self._truncate(self._writable("append"), self._end)
        except (OSError, StorageError) as again:
            self._failed = f"{self._current}: append failed ({exc}), could not undo: {again}"

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is None:
            return
        with writer:
            if self._dirty:
                os.fsync(writer.fileno())
                seg.fsync_dir(self._live)
                self._dirty = False

    def _release(self) -> None:
        lock, self._lock = self._lock, None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if lock is not None:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
            lock.close()

    def _plan(self, locked: bool = False) -> seg.Plan:
        if not locked:
            with self._mutex:
                return self._plan(locked=True)
        if self._lock is None:
            raise StorageError(seg.STORE, "read", f"{self._root}: the log is closed")
        try:
            sealed = [(p, p.stat().st_size) for p in seg.segments(self._live) if p != self._current]
        except OSError as exc:
            raise StorageError(seg.STORE, "read", f"{self._live}: {exc}") from exc
        torn = (self._current, self._end, self._torn) if self._torn else None
        return seg.Plan([*sealed, (self._current, self._end)], torn)

    def _rewrite(self, plan: seg.Plan, keep: Callable[[LogRecord], bool], target: Path) -> int:
        """Copy the raw lines `keep` accepts into new segments in `target`; returns removed."""
        removed, number, size = 0, 1, 0
        out = (target / seg.segment_name(number)).open("wb")
        try:
            for record, line in seg.scan(plan):
                if not keep(record):
                    removed += 1
                    continue
                if size > 0 and size + len(line) > self._segment_bytes:
                    out.flush()
                    os.fsync(out.fileno())
                    out.close()
                    number, size = number + 1, 0
                    out = (target / seg.segment_name(number)).open("wb")
                out.write(line)
                size += len(line)
            out.flush()
            os.fsync(out.fileno())
        finally:
            out.close()
        seg.fsync_dir(target)
        return removed
