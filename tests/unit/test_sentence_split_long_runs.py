"""`clauses.sentences` on whitespace runs (review r15, F2): the split pattern rescanned a whole
run from each of its positions, so a turn with a long run of spaces in it (pasted logs, padded
tables) took minutes — 20,000 spaces 18 s in `not_the_users`, which the query path calls on
raw turns. These 100 kB turns simply have to complete (as in test_register_guards), and the
sentences must be those of the same text with a short run."""

from __future__ import annotations

import pytest

from workers.extraction import own_withdrawal
from workers.extraction.clauses import sentences

N = 100_000


@pytest.mark.parametrize(
    "text",
    [
        "We dropped the trip" + " " * N + "x",
        "a" + " \n" * (N // 2) + "b",
        "I moved" + "\t " * (N // 2) + "to Rome",
        "we cancelled the cabin" + " " * N + "... or so I thought",
        "we cancelled the cabin" + " " * N + "- never mind",
    ],
)
def test_a_100_kb_whitespace_run_completes(text: str) -> None:
    assert sentences(text)
    assert isinstance(own_withdrawal.not_the_users(text), bool)
    assert isinstance(own_withdrawal.weighed(text), bool)
    assert isinstance(own_withdrawal.denies_withdrawal(text), bool)


@pytest.mark.parametrize("run", [1, 3, 8, 9, 40, 5_000])
def test_a_long_run_before_an_ellipsis_or_a_dash_splits_as_a_short_one(run: int) -> None:
    assert sentences("we sold the van" + " " * run + "... kept the bikes") == [
        "we sold the van",
        "kept the bikes",
    ]
    assert sentences("we sold the van" + " " * run + "— kept the bikes") == [
        "we sold the van",
        "kept the bikes",
    ]
    assert sentences("we sold the van." + " " * run + "...kept the bikes") == [
        "we sold the van.",
        "kept the bikes",
    ]
