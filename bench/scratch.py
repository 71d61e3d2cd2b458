"""Where a benchmark builds its stores: the caller's `--data-dir`, kept, or a fresh
temporary directory removed afterwards (shared by the benches that take `--data-dir`)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def bench_root(name: str, data_dir: Path | None) -> Iterator[Path]:
    """`data_dir` (created if missing, kept), or `frecall-bench-<name>-*` in the system's
    temporary directory, removed when the block ends however it ends."""
    owned = data_dir is None
    root = Path(tempfile.mkdtemp(prefix=f"frecall-bench-{name}-")) if data_dir is None else data_dir
    root.mkdir(parents=True, exist_ok=True)
    try:
        yield root
    finally:
        if owned:
            shutil.rmtree(root, ignore_errors=True)
