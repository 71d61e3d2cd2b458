"""FileEventLog: framing, segments, torn tails, corruption, the writer lock and redaction."""

from __future__ import annotations

import errno
import gc
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.events import EdgeEvent, Embedding, ForgetCommand, LogRecord
from workers.errors import StorageError
from workers.stores.file_log import FileEventLog

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LOGGER = "workers.stores.file_log"


def edge(i: int, *, user: str = "u1", text: str | None = None, dim: int = 4) -> EdgeEvent:
    return EdgeEvent(
        edge_id=f"e{i}",
        user_id=user,
        text=text or f"fact number {i}",
        categories="PREFERENCES_HABITS",
        ingest_time=T0,
        slot_key=f"user.pref_{i % 3}",
        embedding=Embedding.from_array("test", np.arange(dim, dtype=np.float32) + i),
    )


def forget(i: int, *, user: str = "u1", edge_id: str | None = None) -> ForgetCommand:
    return ForgetCommand(command_id=f"c{i}", user_id=user, edge_id=edge_id, issued_at=T0)


def segment(root: Path, number: int = 1) -> Path:
    return root / "segments" / f"log-{number:06d}.jsonl"


def write_log(
    root: Path, records: Sequence[LogRecord], *, segment_bytes: int = 1 << 20, fsync: bool = True
) -> None:
    with FileEventLog(root, segment_bytes=segment_bytes, fsync=fsync) as log:
        log.append(records)


def read_all(root: Path) -> list[LogRecord]:
    with FileEventLog(root) as log:
        return list(log.read())


def torn_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and "torn" in r.message]


# -- round trip and format ------------------------------------------------------------------


def test_round_trip_of_edges_and_forget_commands(tmp_path: Path) -> None:
    records: list[LogRecord] = [edge(1), forget(1, edge_id="e1"), edge(2, user="u2"), forget(2)]
    with FileEventLog(tmp_path / "log") as log:
        log.append(records[:1])
        log.append(records[1:])
        log.append([])
        got = list(log.read())
        assert log.count() == 4
    assert got == records
    first = got[0]
    assert isinstance(first, EdgeEvent) and first.embedding is not None
    np.testing.assert_array_equal(first.embedding.to_array(), np.arange(4, dtype=np.float32) + 1)
    assert read_all(tmp_path / "log") == records


def test_line_format_is_crc32_hex_space_json(tmp_path: Path) -> None:
    write_log(tmp_path / "log", [edge(1, text="line\nbreak \u2028 and \r"), forget(1)])
    data = segment(tmp_path / "log").read_bytes()
    lines = data.split(b"\n")
    assert lines.pop() == b""
    assert len(lines) == 2
    for line in lines:
        assert re.fullmatch(rb"[0-9a-f]{8} \{.*\}", line)
        assert int(line[:8], 16) == zlib.crc32(line[9:])
    assert read_all(tmp_path / "log")[0] == edge(1, text="line\nbreak \u2028 and \r")


def test_segments_roll_at_the_size_limit(tmp_path: Path) -> None:
    root = tmp_path / "log"
    records = [edge(i) for i in range(40)]
    with FileEventLog(root, segment_bytes=2_000) as log:
        for r in records:
            log.append([r])
        assert log.count() == 40
        assert log.size_bytes() == sum(p.stat().st_size for p in (root / "segments").iterdir())
    files = sorted((root / "segments").iterdir())
    assert len(files) > 3
    assert [f.name for f in files] == [f"log-{n:06d}.jsonl" for n in range(1, len(files) + 1)]
    assert all(f.stat().st_size <= 2_000 for f in files)
    assert read_all(root) == records


def test_a_batch_larger_than_a_segment_is_not_split(tmp_path: Path) -> None:
    root = tmp_path / "log"
    records = [edge(i) for i in range(10)]
    write_log(root, [edge(100)], segment_bytes=1_000)
    write_log(root, records, segment_bytes=1_000)
    assert segment(root, 2).read_bytes().count(b"\n") == 10
    assert read_all(root) == [edge(100), *records]


def test_reopen_continues_appending_in_the_last_segment(tmp_path: Path) -> None:
    root = tmp_path / "log"
    for i in range(6):
        write_log(root, [edge(i)], segment_bytes=1_500)
    assert read_all(root) == [edge(i) for i in range(6)]
    numbers = [int(p.name[4:10]) for p in (root / "segments").iterdir()]
    assert sorted(numbers) == list(range(1, len(numbers) + 1))


def test_fsync_false_is_durable_after_close(tmp_path: Path) -> None:
    root = tmp_path / "log"
    with FileEventLog(root, fsync=False, segment_bytes=3_000) as log:
        for i in range(20):
            log.append([edge(i)])
    assert read_all(root) == [edge(i) for i in range(20)]


def test_closed_log_refuses_work_and_close_is_idempotent(tmp_path: Path) -> None:
    log = FileEventLog(tmp_path / "log")
    log.close()
    log.close()
    with pytest.raises(StorageError, match="closed"):
        log.append([edge(1)])
    with pytest.raises(StorageError, match="closed"):
        log.read()


def test_a_failed_write_is_cut_off_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def half_then_disk_full(fd: int, data: memoryview) -> int:
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    with FileEventLog(tmp_path / "log") as log:
        log.append([edge(1)])
        monkeypatch.setattr(os, "write", half_then_disk_full)
        with pytest.raises(StorageError, match="No space left"):
            log.append([edge(2), edge(3)])
        monkeypatch.undo()
        log.append([edge(4)])
        assert list(log.read()) == [edge(1), edge(4)]
    assert read_all(tmp_path / "log") == [edge(1), edge(4)]


def test_an_abandoned_reader_closes_its_file(tmp_path: Path) -> None:
    with FileEventLog(tmp_path / "log") as log:
        log.append([edge(1), edge(2)])
        reader = log.read()
        assert next(reader) == edge(1)
        del reader
        gc.collect()  # a leaked handle would raise ResourceWarning (an error under pytest)


def test_read_is_a_snapshot_of_what_was_appended_before(tmp_path: Path) -> None:
    with FileEventLog(tmp_path / "log") as log:
        log.append([edge(1)])
        reader = log.read()
        log.append([edge(2)])
        assert list(reader) == [edge(1)]


# -- torn tails -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_torn_tail_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, seed: int
) -> None:
    root = tmp_path / "log"
    records: list[LogRecord] = [edge(1), forget(2), edge(3)]
    write_log(root, records)
    path = segment(root)
    data = path.read_bytes()
    last_line = len(data) - data.rindex(b"\n", 0, len(data) - 1) - 1
    cut = random.Random(seed).randint(1, last_line - 1)
    path.write_bytes(data[:-cut])
    with caplog.at_level(logging.WARNING, logger=LOGGER), FileEventLog(root) as log:
        assert list(log.read()) == records[:2]
        assert log.count() == 2
    assert torn_warnings(caplog)


def test_cut_at_a_line_boundary_is_not_torn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    path = segment(root)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"\n") + 1])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert read_all(root) == [edge(1)]
    assert not torn_warnings(caplog)


def test_bad_checksum_on_the_last_line_counts_as_torn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    path = segment(root)
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert read_all(root) == [edge(1)]
    assert torn_warnings(caplog)


def test_append_after_a_torn_tail_repairs_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    path = segment(root)
    path.write_bytes(path.read_bytes()[:-7])
    with FileEventLog(root) as log:
        log.append([edge(3)])
        assert list(log.read()) == [edge(1), edge(3)]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert read_all(root) == [edge(1), edge(3)]
    assert not caplog.records
    assert path.read_bytes().endswith(b"\n")


def test_torn_tail_made_only_of_garbage(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1)])
    with segment(root).open("ab") as f:
        f.write(b"\0" * 100_000)
    with FileEventLog(root) as log:
        assert list(log.read()) == [edge(1)]
        log.append([edge(2)])
    assert read_all(root) == [edge(1), edge(2)]


# -- corruption -----------------------------------------------------------------------------


def test_corruption_in_the_middle_raises_with_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2), edge(3)])
    path = segment(root)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"fact number 2", b"fact number X")
    path.write_bytes(b"\n".join(lines))
    with FileEventLog(root) as log, pytest.raises(StorageError, match=r"log-000001\.jsonl:2"):
        list(log.read())


def test_an_incomplete_record_in_a_sealed_segment_is_corruption(tmp_path: Path) -> None:
    root = tmp_path / "log"
    for i in range(3):
        write_log(root, [edge(i)], segment_bytes=1)
    first = segment(root, 1)
    first.write_bytes(first.read_bytes()[:-3])
    with FileEventLog(root) as log, pytest.raises(StorageError, match="incomplete record"):
        list(log.read())


def test_a_valid_checksum_over_an_invalid_record_is_corruption(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1)])
    payload = b'{"kind": "edge", "edge_id": "x"}'
    with segment(root).open("ab") as f:
        f.write(b"%08x %s\n" % (zlib.crc32(payload), payload))
    with FileEventLog(root) as log, pytest.raises(StorageError, match=r":2: invalid record"):
        list(log.read())


# -- the writer lock ------------------------------------------------------------------------


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "log"
    with FileEventLog(root), pytest.raises(StorageError, match="locked by another writer"):
        FileEventLog(root)
    with FileEventLog(root) as log:
        log.append([edge(1)])


def test_another_process_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "log"
    script = (
        "import sys; from pathlib import Path; from workers.stores.file_log import FileEventLog\n"
        "FileEventLog(Path(sys.argv[1])).close()"
    )
    with FileEventLog(root):
        done = subprocess.run(
            [sys.executable, "-c", script, str(root)], capture_output=True, text=True, check=False
        )
    assert done.returncode != 0
    assert "locked by another writer" in done.stderr


# -- redaction ------------------------------------------------------------------------------


def test_redact_removes_exactly_the_matching_records(tmp_path: Path) -> None:
    root = tmp_path / "log"
    records: list[LogRecord] = []
    for i in range(30):
        user = "u2" if i % 3 == 0 else "u1"
        records.append(edge(i, user=user, text=f"secret of {user} #{i}"))
    records.append(forget(99, user="u2"))
    with FileEventLog(root, segment_bytes=2_500) as log:
        log.append(records[:20])
        log.append(records[20:])
        removed = log.redact(lambda r: not (isinstance(r, EdgeEvent) and r.user_id == "u2"))
        assert removed == 10
        kept = [r for r in records if not (isinstance(r, EdgeEvent) and r.user_id == "u2")]
        assert list(log.read()) == kept
        assert log.count() == len(kept)
        log.append([edge(100)])
        assert list(log.read()) == [*kept, edge(100)]
    assert read_all(root) == [*kept, edge(100)]
    assert sorted(p.name for p in root.iterdir()) == ["LOCK", "segments"]
    on_disk = b"".join(p.read_bytes() for p in (root / "segments").iterdir())
    assert b"secret of u2" not in on_disk


def test_redact_of_everything_leaves_an_empty_appendable_log(tmp_path: Path) -> None:
    root = tmp_path / "log"
    with FileEventLog(root) as log:
        log.append([edge(1), edge(2)])
        assert log.redact(lambda r: False) == 2
        assert list(log.read()) == []
        log.append([edge(3)])
    assert read_all(root) == [edge(3)]


def test_redact_that_removes_nothing_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    before = segment(root).stat().st_ino
    with FileEventLog(root) as log:
        assert log.redact(lambda r: True) == 0
    assert segment(root).stat().st_ino == before
    assert read_all(root) == [edge(1), edge(2)]


def test_redact_drops_a_torn_tail(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2), edge(3)])
    segment(root).write_bytes(segment(root).read_bytes()[:-4])
    with FileEventLog(root) as log:
        assert log.redact(lambda r: r.edge_id != "e1") == 1
        assert log.size_bytes() == segment(root).stat().st_size
    assert read_all(root) == [edge(2)]


def test_redact_leaves_the_log_unchanged_when_keep_raises(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])

    def keep(record: LogRecord) -> bool:
        raise RuntimeError("boom")

    with FileEventLog(root) as log:
        with pytest.raises(RuntimeError):
            log.redact(keep)
        assert list(log.read()) == [edge(1), edge(2)]
    assert not (root / "segments.new").exists()


def test_open_finishes_a_redact_interrupted_between_renames(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    (root / "segments.new").mkdir()
    write_log(tmp_path / "scratch", [edge(2)])
    segment(tmp_path / "scratch").rename(root / "segments.new" / "log-000001.jsonl")
    (root / "segments").rename(root / "segments.old")
    assert read_all(root) == [edge(2)]
    assert sorted(p.name for p in root.iterdir()) == ["LOCK", "segments"]


def test_open_discards_an_unfinished_redact(tmp_path: Path) -> None:
    root = tmp_path / "log"
    write_log(root, [edge(1), edge(2)])
    (root / "segments.new").mkdir()
    (root / "segments.new" / "log-000001.jsonl").write_bytes(b"partial")
    assert read_all(root) == [edge(1), edge(2)]
    assert not (root / "segments.new").exists()


# -- property: any truncation point ---------------------------------------------------------

_records = st.lists(
    st.tuples(
        st.booleans(),
        st.text(min_size=1, max_size=30),
        st.none() | st.lists(st.floats(width=32), min_size=1, max_size=6),
    ),
    max_size=10,
)


def _build(spec: list[tuple[bool, str, list[float] | None]]) -> list[LogRecord]:
    out: list[LogRecord] = []
    for i, (is_edge, text, vector) in enumerate(spec):
        if not is_edge:
            out.append(forget(i, edge_id=text))
            continue
        emb = None if vector is None else Embedding.from_array("t", np.array(vector, np.float32))
        out.append(
            EdgeEvent(
                edge_id=f"e{i}",
                user_id="u1",
                text=text,
                categories="OTHER",
                ingest_time=T0,
                embedding=emb,
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(spec=_records, data=st.data())
def test_read_returns_exactly_the_complete_lines(
    spec: list[tuple[bool, str, list[float] | None]], data: st.DataObject
) -> None:
    records = _build(spec)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "log"
        write_log(root, records, fsync=False)
        path = segment(root)
        raw = path.read_bytes()
        cut = data.draw(st.integers(0, len(raw)), label="truncate at")
        path.write_bytes(raw[:cut])
        complete = raw[:cut].count(b"\n")
        with FileEventLog(root, fsync=False) as log:
            assert list(log.read()) == records[:complete]
            assert log.count() == complete
            log.append([forget(1000)])
            assert list(log.read()) == [*records[:complete], forget(1000)]
