"""Train and test halves of the phrasing families (issue 11: honest evaluation of extraction).

Every phrasing family (an array of alternative wordings in `data/*.toml`) is split in two by
position: even positions are the *train* half — what the rule extractor may be tuned on —
odd positions the *test* half, never looked at while tuning. A set generated from one half
draws only its wordings, with the same random draws as a whole-family set (a position in the
family, then its place in the half), so the sets of one seed tell the same stories — same
facts, times and questions — in different words, and their scores pair up.

"all" draws from whole families: the sets generated before the split, unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")
HALVES = ("all", "train", "test")
_HALF: ContextVar[str] = ContextVar("phrasing_half", default="all")


@contextmanager
def drawing(half: str) -> Iterator[None]:
    """Generate from `half` of every phrasing family inside the block."""
    if half not in HALVES:
        raise ValueError(f"phrasing half must be one of {HALVES}, not {half!r}")
    token = _HALF.set(half)
    try:
        yield
    finally:
        _HALF.reset(token)


def half_of(family: Sequence[T]) -> list[T]:
    """The wordings of `family` in the current half (a family of one serves both)."""
    half = _HALF.get()
    if half == "all" or len(family) < 2:
        return list(family)
    return list(family[0::2] if half == "train" else family[1::2])


def pick(rng: random.Random, family: Sequence[T]) -> T:
    """One wording of `family`, from the current half. Consumes the random stream exactly
    as `rng.choice(family)` does, whatever the half."""
    position = rng.randrange(len(family))
    half = half_of(family)
    return half[position % len(half)]
