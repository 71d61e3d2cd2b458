"""The third telling of the paper turns (bench/paper_turns/heldout2, sealed until stop 19): its
gold-metadata telling asks the same questions with the same labels (the checks every written
set shares are in test_paper_turns_written_sets.py)."""

from __future__ import annotations

from bench.paper_turns import SETS
from bench.paper_turns.cases import load

HELDOUT2 = SETS["heldout2"]

#: Where one labelled turn holds two facts, the gold telling names the one the question is about.
GOLD_SPLITS = {("callum", "callum-hospital"): ("stale", ("leith-job",))}


def test_the_gold_metadata_telling_asks_the_same_questions_with_the_same_labels() -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT2 / "gold")

    def ids(user: str, edge_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(e.removeprefix(f"h2-{user}/") for e in edge_ids)

    gold: set[tuple[object, ...]] = set()
    for q in suite.questions:
        user = q.user_id.removeprefix("h2-")
        gold.add((user, q.qid, q.text, q.mode, ids(user, q.gold), ids(user, q.stale)))
    turns: set[tuple[object, ...]] = set()
    for persona in load(HELDOUT2):
        for asked in persona.questions:
            labels = {"gold": asked.gold, "stale": asked.stale}
            key = (asked.user_id, asked.case)
            field, replaced = GOLD_SPLITS.get(key, ("gold", asked.gold))
            labels[field] = replaced
            turns.add((*key, asked.text, asked.mode, labels["gold"], labels["stale"]))
    assert gold == turns
