"""The sealed tellings of the paper turns (bench/paper_turns/heldout3 to heldout19): each
gold-metadata telling asks the same questions with the same labels, each labelled turn's fact at
that turn's time (the checks every written set shares, and the seal, are in
test_paper_turns_written_sets.py; heldout4's to heldout19's own rule checks in
test_paper_turns_heldout4.py to test_paper_turns_heldout7_8.py)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bench.paper_turns import SEALED
from bench.paper_turns.cases import load

#: Sealed set → the prefix its gold telling gives user ids.
GOLD_TELLINGS = {
    "heldout3": "h3-",
    "heldout4": "h4-",
    "heldout5": "h5-",
    "heldout6": "h6-",
    "heldout7": "h7-",
    "heldout8": "h8-",
    "heldout9": "h9-",
    "heldout10": "h10-",
    "heldout11": "h11-",
    "heldout12": "h12-",
    "heldout13": "h13-",
    "heldout14": "h14-",
    "heldout15": "h15-",
    "heldout16": "h16-",
    "heldout17": "h17-",
    "heldout18": "h18-",
    "heldout19": "h19-",
}
#: The turn id `cases.parse` gives a turn without a label.
UNLABELLED = re.compile(r"[ua]\d\d-\d\d")
each_telling = pytest.mark.parametrize(
    ("directory", "prefix"),
    [(SEALED[name], prefix) for name, prefix in GOLD_TELLINGS.items()],
    ids=GOLD_TELLINGS.keys(),
)


@each_telling
def test_the_gold_metadata_telling_asks_the_same_questions_with_the_same_labels(
    directory: Path, prefix: str
) -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(directory / "gold")

    def ids(user: str, edge_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(e.removeprefix(f"{prefix}{user}/") for e in edge_ids)

    gold: set[tuple[object, ...]] = set()
    for q in suite.questions:
        user = q.user_id.removeprefix(prefix)
        gold.add((user, q.qid, q.text, q.as_of, q.mode, ids(user, q.gold), ids(user, q.stale)))
    turns: set[tuple[object, ...]] = set()
    for persona in load(directory):
        for asked in persona.questions:
            key = (persona.user_id, asked.case, asked.text, asked.as_of, asked.mode)
            turns.add((*key, asked.gold, asked.stale))
    assert gold == turns


@each_telling
def test_every_labelled_turn_has_its_gold_fact_at_the_turns_time(
    directory: Path, prefix: str
) -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(directory / "gold")
    times = {str(e["edge_id"]): str(e["ingest_time"]) for e in suite.edges}
    for persona in load(directory):
        for turn in persona.turns:
            if turn.role != "user" or UNLABELLED.fullmatch(turn.turn_id):
                continue  # an unlabelled turn: only the A.7.1 distractors have facts
            edge = f"{prefix}{persona.user_id}/{turn.turn_id}"
            assert edge in times, edge
            # The loader spaces one user's facts a minute apart, in file order.
            told = datetime.fromisoformat(times[edge])
            assert timedelta(0) <= told - turn.timestamp < timedelta(minutes=20), edge
