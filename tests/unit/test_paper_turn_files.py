"""The paper-case file format: mistakes in a case file are reported, not scored."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.paper_turns.cases import CaseError, parse
from bench.paper_turns.runner import judge

DOC = {
    "user": "u",
    "as_of": datetime(2026, 1, 1, tzinfo=UTC),
    "session": [{"at": datetime(2025, 1, 1, 10, tzinfo=UTC),
                 "turns": ["u[old]: I live in Rome", "a: nice", "u: hi", "u[new]: moved to Oslo"]}],
    "question": [{"case": "c", "av": "AV4", "gold": ["new"], "stale": ["old"],
                  "ask": ["Where do I live?", "which city?"]}],
}  # fmt: skip


def test_a_case_file_becomes_turns_and_questions() -> None:
    persona = parse("x.toml", DOC)
    assert [t.turn_id for t in persona.turns] == ["old", "a00-01", "u00-02", "new"]
    assert [t.role for t in persona.turns] == ["user", "assistant", "user", "user"]
    assert len(persona.questions) == 2 and persona.questions[0].gold == ("new",)


@pytest.mark.parametrize(
    "change",
    [
        {"question": [{"case": "c", "av": "AV4", "gold": ["nope"], "ask": ["q"]}]},
        {
            "question": [
                {"case": "c", "av": "AV4", "mode": "sometimes", "gold": ["new"], "ask": ["q"]}
            ]
        },
        {"question": [{"case": "c", "av": "AV4", "ask": ["q"]}]},  # no gold, not "absent"
        {"session": [{"at": datetime(2025, 1, 1, 10, tzinfo=UTC), "turns": ["x: what"]}]},
    ],
)
def test_a_broken_case_is_an_error(change: dict[str, object]) -> None:
    with pytest.raises((CaseError, KeyError)):
        parse("x.toml", {**DOC, **change})


def test_judging_follows_lifecyclebench() -> None:
    persona = parse("x.toml", DOC)
    q = persona.questions[0]
    assert judge(q, [["new"], ["old"]]) == (True, True)  # pass, but stale in the top 5
    assert judge(q, [["u00-02"]] * 5 + [["old"], ["new"]]) == (True, False)  # stale below 5
    assert judge(q, [["old"]]) == (False, True)
