"""Progress lines for long jobs, on stderr, at most every couple of seconds."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """`tick(n)` after each unit of work; prints "<label>: done/total (rate/s)"."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        every_s: float = 2.0,
        out: TextIO | None = None,
    ) -> None:
        self.label, self.total, self.every_s = label, total, every_s
        self.out = out if out is not None else sys.stderr
        self.done = 0
        self._start = self._last = time.monotonic()

    def tick(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            self._print(now)

    def finish(self) -> float:
        """Print the final line (for runs long enough to have shown progress); seconds taken."""
        now = time.monotonic()
        if now - self._start >= self.every_s:
            self._print(now)
        return now - self._start

    def _print(self, now: float) -> None:
        rate = self.done / max(now - self._start, 1e-9)
        of = f"/{self.total}" if self.total is not None else ""
        print(f"{self.label}: {self.done}{of} ({rate:,.0f}/s)", file=self.out, flush=True)
