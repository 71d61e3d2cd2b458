"""The rule extractor is linear on long clauses (review r16, H1).

`_PREFER`'s "X is my thing" and `_HABIT`'s "I <verb> <val> every day" scanned, from every
start, to the end of a clause for their phrase; `roles` searched the whole sentence once per
clause; `denied_before` searched the clause's whole beginning once per withdrawal verb. 100 kB
turns took up to two minutes with the extraction window lifted (`RuleExtractor.extract` has
none; `long_turns` bounds it in the stage). The scans now find the phrase first and yield
exactly what `finditer` yields (the properties below), and 100 kB adversarial turns complete in
seconds: the subprocess timeout is generous (60 s; before, 1-2 minutes per turn, 150 kB for
the clause without punctuation) so that it fails only if the cost is quadratic again.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workers.extraction import clauses, patterns_values
from workers.extraction.clauses import Clause
from workers.extraction.patterns_values_nouns import roles

N = 100_000
_EXTRACT = """
import sys
from datetime import UTC, datetime
from schemas.events import TurnEvent
from workers.extraction.rules import RuleExtractor
text = {text}
turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text,
                 timestamp=datetime(2026, 1, 1, tzinfo=UTC))
RuleExtractor(normalize=True, withdrawal=True).extract(turn)
"""


@pytest.mark.parametrize(
    "text",
    [
        f"'\"' * {N}",
        f"'(' * {N}",
        f"'scrap the trip ' * {N // 15}",
        f"'i moved to berlin and i love my dog and ' * {3 * N // 80}",  # 150 kB
        f"'I like tea, ' * {N // 12}",
    ],
    ids=["quotes", "parens", "scrap", "no-punctuation", "commas"],
)
def test_a_100_kb_adversarial_turn_is_extracted_without_the_window(text: str) -> None:
    script = _EXTRACT.format(text=text)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


_WORDS = [
    "i",
    "we",
    "I",
    "i've",
    "we're",
    "i'm",
    "really",
    "always",
    "love",
    "like",
    "tea",
    "pizza",
    "is",
    "are",
    "my",
    "our",
    "new",
    "thing",
    "jam",
    "favorite",
    "favourite",
    "go-to",
    "obsession",
    "every",
    "day",
    "days",
    "most",
    "on",
    "weekends",
    "daily",
    "once",
    "twice",
    "a",
    "week",
    "3",
    "12",
    "times",
    "all",
    "long",
    "into",
    "hooked",
    "fan",
    "of",
    "run",
    "eat",
    "the",
    "x",
    ",",
    ".",
    "!",
    "\n",
]
_TEXTS = st.lists(
    st.tuples(st.sampled_from(_WORDS), st.sampled_from([" ", " ", "  ", "", "\n"])),
    max_size=30,
).map(lambda parts: "".join(w + s for w, s in parts))


def _found(matches: object) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in matches]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_the_phrase_first_scans_find_what_finditer_finds(text: str) -> None:
    assert _found(patterns_values._prefer_matches(text)) == _found(
        patterns_values._PREFER.finditer(text)
    )
    assert _found(patterns_values._habit_matches(text)) == _found(
        patterns_values._HABIT.finditer(text)
    )


def test_the_scans_find_their_phrases() -> None:
    text = "i really love tea, pizza is my new thing and we eat out every single week, 3 lol"
    prefer = [m.group(0) for m in patterns_values._prefer_matches(text)]
    assert prefer == ["i really love tea", "pizza is my new thing"]
    assert [m["val"] for m in patterns_values._habit_matches(text)] == ["out"]


_NEGATED = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "not",
                "never",
                "no",
                "one",
                "longer",
                "nobody",
                "almost",
                "came",
                "close",
                "to",
                "going",
                "thought",
                "about",
                "considered",
                "don't",
                "we",
                "scrap",
                "it",
                "(not",
                "x",
                " " * 300,
                "x" * 300,
            ]
        ),
        st.sampled_from([" ", "  ", "", "\n"]),
    ),
    max_size=60,
).map(lambda parts: "".join(w + s for w, s in parts))


@settings(max_examples=150, deadline=None)
@given(_NEGATED, st.integers(min_value=0))
def test_denied_before_reads_what_the_whole_beginning_gives(text: str, at: int) -> None:
    start = at % (len(text) + 1)
    whole = clauses._DENIED_BEFORE.search(text[:start]) is not None
    assert clauses.denied_before(text, start) == whole


def test_roles_of_a_long_sentence_scan_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.extraction import patterns_values_nouns as nouns

    scans: list[str] = []
    real = nouns._APPOSITION

    class Counting:
        def finditer(self, text: str) -> object:
            scans.append(text)
            return real.finditer(text)

    monkeypatch.setattr(nouns, "_APPOSITION", Counting())
    nouns._appositions.cache_clear()
    sentence = "Burak, my apprentice, is great, " + "I like tea, " * 50 + "my apprentice laughed"
    parts = [p for p in sentence.split(", ") if p]
    drafts = [roles(Clause(text=p, sentence=0, index=i, sentence_text=sentence))
              for i, p in enumerate(parts)]  # fmt: skip
    assert len(scans) == 1
    assert [i for i, d in enumerate(drafts) if d] == [1, len(parts) - 1]
    assert {d.value for ds in drafts for d in ds} == {"Burak"}
