"""Embedding with several workers: one session with N intra-op threads, N threads with a
session each, N processes with a session each (`frecall bench throughput --workers`).

Each variant embeds the same texts (split in N even chunks) `rounds` times after a warm-up
that loads every session; the medians are texts per second. Model loading and process
start-up are not timed: a long-running worker pays them once.
"""

from __future__ import annotations

import multiprocessing
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from frecall.bootstrap import make_embedder
from frecall.settings import Settings
from workers.ports import Embedder

_process_embedder: Embedder | None = None


def _load(settings: Settings) -> None:
    global _process_embedder
    _process_embedder = make_embedder(settings)
    _process_embedder.embed(["warm up"])


def _embed_here(texts: Sequence[str]) -> int:
    assert _process_embedder is not None
    return len(_process_embedder.embed(texts))


def _chunks(texts: Sequence[str], n: int) -> list[list[str]]:
    return [list(texts[i::n]) for i in range(n)]


def _median_rate(run: Callable[[], object], texts: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return round(texts / statistics.median(times), 1)


def _one_session(settings: Settings, texts: Sequence[str], n: int, rounds: int) -> float:
    embedder = make_embedder(settings.model_copy(update={"onnx_threads": n}))
    embedder.embed(["warm up"])
    return _median_rate(lambda: embedder.embed(texts), len(texts), rounds)


def _threads(settings: Settings, texts: Sequence[str], n: int, rounds: int) -> float:
    single = settings.model_copy(update={"onnx_threads": 1})
    sessions = [make_embedder(single) for _ in range(n)]
    for embedder in sessions:
        embedder.embed(["warm up"])
    chunks = _chunks(texts, n)

    def embed(pair: tuple[Embedder, list[str]]) -> int:
        return len(pair[0].embed(pair[1]))

    with ThreadPoolExecutor(n) as pool:
        return _median_rate(
            lambda: list(pool.map(embed, zip(sessions, chunks, strict=True))), len(texts), rounds
        )


def _processes(settings: Settings, texts: Sequence[str], n: int, rounds: int) -> float:
    single = settings.model_copy(update={"onnx_threads": 1})
    chunks = _chunks(texts, n)
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(n, initializer=_load, initargs=(single,)) as procs:
        procs.map(_embed_here, [["warm up"]] * n)  # every process has loaded its model
        return _median_rate(lambda: procs.map(_embed_here, chunks), len(texts), rounds)


VARIANTS: dict[str, Callable[[Settings, Sequence[str], int, int], float]] = {
    "one session, N intra-op threads": _one_session,
    "N threads, a session each": _threads,
    "N processes, a session each": _processes,
}


def measure(
    settings: Settings, texts: Sequence[str], counts: Sequence[int], rounds: int
) -> dict[str, Any]:
    """Texts/s per worker count N and variant."""
    return {
        str(n): {name: run(settings, texts, n, rounds) for name, run in VARIANTS.items()}
        for n in counts
    }
