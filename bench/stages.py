"""Where the time of an ingest or a replay goes, stage by stage (`frecall bench throughput`).

`StageClock` patches the methods that make up each stage, on their classes, for the length
of a `with` block: every instance the run creates (the stores a replay opens itself
included) is timed. Time is *exclusive*: a call inside another timed call (the slot index
inside the lifecycle's `apply`) counts for its own stage only, so the stages add up to the
wall time, the rest being "other" (input parsing, validation, the loop itself).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

#: stage → (module, attribute path) of what it times. A class method is patched on its
#: class; a module-level function where it is called from (its importer's name).
STAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "extraction": (
        ("workers.extraction.rules", "RuleExtractor.extract"),
        ("workers.extraction.llm", "LLMExtractor.extract"),
    ),
    "date parsing": (("workers.extraction.rules", "find_event_time"),),
    "embedding": (
        ("workers.embedding.minilm", "MiniLMEmbedder.embed"),
        ("workers.embedding.hashing", "HashingEmbedder.embed"),
    ),
    "lifecycle resolution": (
        ("workers.lifecycle.service", "LifecycleService.apply"),
        ("workers.lifecycle.service", "LifecycleService.apply_changes"),
        ("workers.lifecycle.bulk", "BulkLifecycle.apply"),
    ),
    "bm25 + record": (("workers.lifecycle.service", "LifecycleService._indexed"),),
    "log append+fsync": (("workers.stores.file_log", "FileEventLog.append"),),
    "log read+parse": (
        ("workers.stores.file_log", "_scan"),
        ("workers.stores.file_log", "FileEventLog.read_commands"),
    ),
    "association": (("workers.lifecycle.association", "Associations"),),
    "retargeting": (("workers.lifecycle.retargeting", "Retargeting"),),
    # A point's payload, BM25 vector and record JSON built in Python, before Qdrant's update.
    "point building": (
        ("workers.stores.qdrant_payload", "to_point"),
        ("workers.stores.qdrant_edge", "_edge_point"),
    ),
    "vector index": (("workers.stores.qdrant_edge", "QdrantEdgeIndex"),),
    "slot store": (
        ("workers.stores.sqlite_slots", "SqliteSlotIndex"),
        ("workers.stores.redis_slots", "RedisSlotIndex"),
    ),
    "fact store": (("workers.stores.redis_facts", "RedisFactStore"),),
}


class StageClock:
    """Exclusive seconds (and calls) per stage, while `running()`; `extra` adds stages."""

    def __init__(self, extra: Mapping[str, tuple[tuple[str, str], ...]] | None = None) -> None:
        self.stages = {**STAGES, **(extra or {})}
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[Any]] = []  # [stage, start, time spent in nested calls]

    def _enter(self, stage: str) -> None:
        self.calls[stage] = self.calls.get(stage, 0) + 1
        self._stack.append([stage, time.perf_counter(), 0.0])

    def _leave(self) -> None:
        stage, start, nested = self._stack.pop()
        spent = time.perf_counter() - start
        self.seconds[stage] = self.seconds.get(stage, 0.0) + spent - nested
        if self._stack:
            self._stack[-1][2] += spent

    def _timed(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def generator(*args: Any, **kwargs: Any) -> Iterator[Any]:
                it = fn(*args, **kwargs)
                while True:  # each step of the iteration is the stage's time
                    self._enter(stage)
                    try:
                        item = next(it)
                    except StopIteration:
                        return
                    finally:
                        self._leave()
                    yield item

            return generator

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            self._enter(stage)
            try:
                return fn(*args, **kwargs)
            finally:
                self._leave()

        return call

    @contextmanager
    def running(self) -> Iterator[StageClock]:
        with ExitStack() as undo:
            for stage, targets in self.stages.items():
                for module_name, path in targets:
                    self._patch(stage, module_name, path, undo)
            yield self

    def _patch(self, stage: str, module_name: str, path: str, undo: ExitStack) -> None:
        try:
            owner: Any = importlib.import_module(module_name)
        except ImportError:
            return
        *parents, name = path.split(".")
        for part in parents:
            owner = getattr(owner, part, None)
        target = getattr(owner, name, None)
        if target is None:
            return  # renamed or gone (another branch): that stage reads 0
        if inspect.isclass(target):  # every public method of an adapter
            for attr, fn in list(vars(target).items()):
                if not attr.startswith("_") and inspect.isfunction(fn):
                    self._replace(target, attr, fn, stage, undo)
            return
        self._replace(owner, name, target, stage, undo)

    def _replace(
        self, owner: Any, name: str, fn: Callable[..., Any], stage: str, undo: ExitStack
    ) -> None:
        setattr(owner, name, self._timed(stage, fn))
        undo.callback(setattr, owner, name, fn)

    def per_item_ms(self, wall: float, items: int) -> dict[str, float]:
        """Milliseconds per item per stage, and the rest of the wall time as "other"."""
        out = {k: round(v * 1000 / items, 3) for k, v in self.seconds.items() if v > 0}
        out["other"] = round((wall - sum(self.seconds.values())) * 1000 / items, 3)
        return out
