"""A middle version is bracketed by a pair the newer turn marks as a change, and by a pair an
earlier pass of the window rules found (issue 11, round 26, r26-av4;
`bracketed_versions.marked_pairs`, `WindowRules.moved_down(brackets=…)`).

Three versions of one thing: the oldest pressed by the newest, which says the change itself
("… now"). For a question that asks which value holds now, the user's own word ties the pair as
a slot or attribute does, so the middle version follows the oldest down. And when a demotion
lifted the middle version into the first places only in a later pass of `settle`, the pair the
first pass found still brackets it. The statements are the vectors of
`tests/unit/test_bracketed_versions.py`; none comes from a paper-turns set."""

from __future__ import annotations

from schemas.categories import Intent
from tests.unit.test_bracketed_versions import MID, NEW, NOW, OLD, OTHER, OTHER_TOO, _Rules, _unit
from workers.query import newer_statements

WINDOW = [MID, OTHER, OLD, NEW, OTHER_TOO]
RANKED = list(range(len(WINDOW)))


class _Marked(_Rules):
    """The newer-statement rule's verdicts given, marked or not."""

    def __init__(self, newer: dict[str, str], marked: bool) -> None:
        super().__init__({}, newer)
        self._marked = marked

    def _newer(self, *_: object) -> dict[str, newer_statements.Newer]:  # type: ignore[override]
        return {
            k: newer_statements.Newer(v, 0.6, marked=self._marked)
            for k, v in self._given_newer.items()
        }


def _moved(rules: _Rules, question: str = "where now?", **kw: object) -> set[str]:
    qv = _unit(1.0)
    return set(
        rules.moved_down("u1", Intent.CURRENT, qv, WINDOW, RANKED, NOW, question, **kw)  # type: ignore[arg-type]
    )


def test_a_pair_the_newer_turn_marks_brackets_for_a_question_about_now() -> None:
    assert _moved(_Marked({"v1": "v3"}, marked=True)) == {"v1", "v2"}
    # Unmarked: a cosine alone ties it, no bracket (round 20).
    assert _moved(_Marked({"v1": "v3"}, marked=False)) == {"v1"}
    # Marked, but the question does not ask which value holds now.
    assert _moved(_Marked({"v1": "v3"}, marked=True), "where?") == {"v1"}


def test_a_pair_found_by_an_earlier_pass_still_brackets() -> None:
    # No rule moves anything in this pass; the first pass's pair is given.
    brackets = {"v1": "v3"}
    assert _moved(_Rules({}, {}), brackets=brackets) == {"v2"}
    assert _moved(_Rules({}, {})) == set()
    # This pass's own pairs join the given ones.
    found: dict[str, str] = {}
    _moved(_Rules({"v1": "v3"}, {}), brackets=found)
    assert found == {"v1": "v3"}
