"""Timing hooks the serving process listens to; with no listener a hook costs one call.

The embedder is made below the entry points (frecall/bootstrap.py) and used deep in the
pipeline and the query service; rather than import Prometheus or OpenTelemetry there (and
into every CLI command), `TimedEmbedder` reports each call here, and the serving process's
metrics and tracing subscribe (frecall/observability/metrics.py, tracing.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec

import numpy as np

from workers.ports import Embedder

P = ParamSpec("P")


class Hook(Generic[P]):
    """Listeners of one kind of event; `add` returns a function that removes the listener."""

    def __init__(self) -> None:
        self._listeners: tuple[Callable[P, None], ...] = ()
        self._lock = threading.Lock()

    def add(self, listener: Callable[P, None]) -> Callable[[], None]:
        with self._lock:
            self._listeners = (*self._listeners, listener)

        def remove() -> None:
            with self._lock:
                self._listeners = tuple(x for x in self._listeners if x is not listener)

        return remove

    @property
    def active(self) -> bool:
        return bool(self._listeners)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for listener in self._listeners:
            listener(*args, **kwargs)


#: An embedder call: (model id, texts in the batch, start and end as `time.time_ns()`).
EMBEDDING: Hook[[str, int, int, int]] = Hook()
#: The distributed indexer applied an announcement: (edge ids, (from, to) state changes).
INDEXED: Hook[[Sequence[str], Sequence[tuple[str | None, str]]]] = Hook()


class TimedEmbedder:
    """An `Embedder` that reports each call's duration to `EMBEDDING`."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not EMBEDDING.active:
            return self.inner.embed(texts)
        start = time.time_ns()
        vectors = self.inner.embed(texts)
        EMBEDDING.emit(self.inner.model_id, len(texts), start, time.time_ns())
        return vectors

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
