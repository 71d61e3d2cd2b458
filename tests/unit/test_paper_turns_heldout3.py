"""The fourth telling of the paper turns (bench/paper_turns/heldout3, SEALED): its
gold-metadata telling asks the same questions with the same labels, each labelled turn's fact
at that turn's time (the checks every written set shares, and the seal, are in
test_paper_turns_written_sets.py)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from bench.paper_turns import SEALED
from bench.paper_turns.cases import load

HELDOUT3 = SEALED["heldout3"]
#: The turn id `cases.parse` gives a turn without a label.
UNLABELLED = re.compile(r"[ua]\d\d-\d\d")


def test_the_gold_metadata_telling_asks_the_same_questions_with_the_same_labels() -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT3 / "gold")

    def ids(user: str, edge_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(e.removeprefix(f"h3-{user}/") for e in edge_ids)

    gold: set[tuple[object, ...]] = set()
    for q in suite.questions:
        user = q.user_id.removeprefix("h3-")
        gold.add((user, q.qid, q.text, q.as_of, q.mode, ids(user, q.gold), ids(user, q.stale)))
    turns: set[tuple[object, ...]] = set()
    for persona in load(HELDOUT3):
        for asked in persona.questions:
            key = (persona.user_id, asked.case, asked.text, asked.as_of, asked.mode)
            turns.add((*key, asked.gold, asked.stale))
    assert gold == turns


def test_every_labelled_turn_has_its_gold_fact_at_the_turns_time() -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT3 / "gold")
    times = {str(e["edge_id"]): str(e["ingest_time"]) for e in suite.edges}
    for persona in load(HELDOUT3):
        for turn in persona.turns:
            if turn.role != "user" or UNLABELLED.fullmatch(turn.turn_id):
                continue  # an unlabelled turn: only the A.7.1 distractors have facts
            edge = f"h3-{persona.user_id}/{turn.turn_id}"
            assert edge in times, edge
            # The loader spaces one user's facts a minute apart, in file order.
            told = datetime.fromisoformat(times[edge])
            assert timedelta(0) <= told - turn.timestamp < timedelta(minutes=20), edge
