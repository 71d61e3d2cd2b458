"""What the chat-register layer must not do (`workers/text/register.py`, `markdown.py`):
change a fact's meaning, drop a line, rewrite code or addresses, take super-linear time or
hold long texts in its cache (review R14: B1, B2, B3, B8, R3, R3b, R4, N6).

Every sentence here is written for these tests (the review's examples and our own); none
comes from a paper-turn set.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction import RuleExtractor
from workers.text import register
from workers.text.markdown import _LINK, _heading_text, prose_of_markdown
from workers.text.register import _RUN_ON_MARKER, canonical

# ------------------------------------------------------------------ meaning is kept

#: (register text, canonical text): the rewrite around them may happen, the number, unit,
#: name, acronym, hyphenated word, negation, hedge or verb must come out as it went in.
MUST_NOT_CHANGE = [
    # numbers and units
    ("- .5mg melatonin at night", ".5mg melatonin at night."),
    ("i ran .5 miles today", "I ran .5 miles today"),
    ("i ran 0.5 miles today", "I ran 0.5 miles today"),
    ("I bought a 35 mm lens. It was cheap", "I bought a 35 mm lens. It was cheap"),
    ("a 5 um filter lol", "a 5 um filter"),
    ("i drink around 3 a day now", "I drink around 3 a day now"),
    ("we meet by 2 a month", "we meet by 2 a month"),
    ("in 300 bc the city fell", "in 300 bc the city fell"),
    # hyphenated words with a capital
    ("The curve is S-shaped, i think", "The curve is S-shaped, I think"),
    ("i visited the D-Day beaches", "I visited the D-Day beaches"),
    # names and acronyms that are also shorthand
    ("my wife is an RN at St Mary's", "my wife is an RN at St Mary's"),
    ("my wife is an rn at St Mary's", "my wife is an rn at St Mary's"),
    ("send me an IM when you land", "send me an IM when you land"),
    ("Jony Ive designed it, i think", "Jony Ive designed it, I think"),
    ("we went to Bora Bora and Walla Walla lol", "we went to Bora Bora and Walla Walla"),
    ("i moved to York\nYork is where i live now", "I moved to York\nYork is where I live now"),
    # negations and hedges
    ("I'm not not going lol", "I'm not not going"),
    ("It was, kind of, fun tho", "It was, kind of, fun though"),
    ("the flat is, sort of, ours now", "the flat is, sort of, ours now"),
    # verbs and nouns that look like shorthand
    ("my sister weds in June", "my sister weds in June"),
    ("the prob is the car lol", "the prob is the car"),
]


@pytest.mark.parametrize(("raw", "expected"), MUST_NOT_CHANGE)
def test_meaning_is_not_changed(raw: str, expected: str) -> None:
    assert canonical(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # the narrowed rules still rewrite what they are for
        ("im at work rn", "I'm at work right now"),
        ("dinner on weds", "dinner on Wednesday"),
        ("it's prob fine", "it's probably fine"),
        ("i didnt go bc it rained", "I didn't go because it rained"),
        ("Im off to the gym", "I'm off to the gym"),
        ("ok. Ive got it", "ok. I've got it"),
        ("I-I think so", "I think so"),
        ("we we sold the van", "we sold the van"),
        ("dentist at 3 p", "dentist at 3pm"),
    ],
)
def test_narrowed_rules_still_rewrite_their_register(raw: str, expected: str) -> None:
    assert canonical(raw) == expected


TS = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)


def _facts(text: str, *, normalize: bool) -> list[tuple[str, str | None, str | None]]:
    turn = TurnEvent(
        user_id="u1",
        session_id="s1",
        turn_id=f"t-{zlib.crc32(text.encode())}",
        role="user",
        text=text,
        timestamp=TS,
    )
    return [(f.text, f.slot_key, f.value) for f in RuleExtractor(normalize=normalize).extract(turn)]


@pytest.mark.parametrize(
    "text",
    ["my wife is an RN at St Mary's", "my sister weds in June", "i moved to York\nYork is great"],
)
def test_stored_facts_are_those_of_the_raw_turn(text: str) -> None:
    """The review's facts: "an right now", a slot "sister.wednesday", "York is great" as
    the place. A turn that needs no rewrite gives the facts its raw words give."""
    raw = _facts(text, normalize=False)
    assert _facts(text, normalize=True) == raw


# ------------------------------------------------------------------ markdown lines are kept


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I pay $900 rent | bills are extra\n--\nSam", "I pay $900 rent"),
        ("my rent is $900 | I moved to Leeds in May\n---\nthat's all", "I moved to Leeds in May"),
        ("| a | b |\n|---|\n| x | y |", "| x | y |"),  # a separator with too few cells
    ],
)
def test_a_pipe_line_over_a_rule_is_not_a_table(text: str, kept: str) -> None:
    assert kept in canonical(text)


def test_a_real_table_still_is_one() -> None:
    table = "| thing | cost |\n| --- | :--: |\n| gym | $45 a month |"
    assert canonical(table) == "gym is $45 a month."


# ------------------------------------------------------------------ code and addresses


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("i ran `ls u r` tmrw", "I ran `ls u r` tomorrow"),
        ("see https://x.io/_u_/n?u=1&n=2 lol", "see https://x.io/_u_/n?u=1&n=2"),
        ("it's at www.x.io/?u=1. tmrw", "it's at www.x.io/?u=1. tomorrow"),
        ("email im@example.com tmrw", "email im@example.com tomorrow"),
        ("see [x](https://en.wikipedia.org/wiki/Foo_(bar)) lol", "see x"),
    ],
)
def test_inline_code_urls_and_emails_are_kept(raw: str, expected: str) -> None:
    assert canonical(raw) == expected


def test_a_turn_of_only_laughter_or_fillers_is_empty() -> None:
    assert canonical("lol") == canonical("um") == ""


# ------------------------------------------------------------------ bounded cost


def test_long_texts_are_not_cached() -> None:
    """The cache holds key and value: a long turn must not stay in a worker's memory."""
    register._canonical_cached.cache_clear()
    canonical("um " * 1000)  # 3,000 characters
    assert register._canonical_cached.cache_info().currsize == 0
    canonical("um i moved")
    assert register._canonical_cached.cache_info().currsize == 1


def test_heading_text_drops_only_a_closing_sequence() -> None:
    """The closing `#`s are cut in Python, not by a pattern that backtracks over spaces."""
    assert _heading_text("Plans ##  ") == "Plans"
    assert _heading_text("C#") == "C#"
    assert _heading_text("a" + " " * 50 + "b") == "a" + " " * 50 + "b"
    assert prose_of_markdown("## Plans ##\n# C#") == "Plans.\nC#."


def test_run_on_marker_matches_only_from_the_start_of_a_space_run() -> None:
    text = "it was nice" + " " * 5 + "anyway I left"
    assert [m.span() for m in _RUN_ON_MARKER.finditer(text)] == [(11, 16)]
    assert _RUN_ON_MARKER.search("a" + " " * 5 + "b") is None


def test_link_text_and_target_stop_at_the_next_bracket() -> None:
    assert _LINK.sub(r"\1", "[a](b(c)d)") == "a"
    assert _LINK.sub(r"\1", "[a](" * 3) == "[a](" * 3
    assert _LINK.sub(r"\1", "[[a](x)") == "[a"


N = 100_000
WORDS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
#: 100 kB turns, one per pattern shape that backtracked on main (a whitespace run, a long
#: token before a digit, unclosed openers, …). They simply have to complete: on main the
#: heading, run-on, blank-line, long-token and bracket shapes take minutes to hours.
ADVERSARIAL = {
    "heading spaces": "# a" + " " * N + "b",
    "heading hashes": "# a " + "#" * N + " b",
    "run-on spaces": WORDS + " " * N + "x",
    "blank lines": "i\n" + "\n" * N + "x",
    "spaces": "i" + " " * N + "x",
    "spaces before a stop": "i" + " " * N + ".",
    "stop then spaces": "i ." + " " * N + "x",
    "comma then spaces": "i ," + " " * N + "x",
    "commas": "i " + ", " * (N // 2),
    "long word before a digit": "i " + "a" * N + "1",
    "triple then long word before a digit": "i aaa" + "b" * N + "1",
    "filler before a digit": "i " + "u" * (N // 2) + "h" * (N // 2) + "1",
    "laugh before a digit": "i " + "ha" * (N // 2) + "1",
    "emoticon": "i :" + "D" * N + "x",
    "laughs": "lol " * (N // 4),
    "emoji": "i 🎉 x " * (N // 6),
    "apostrophes": "a'" * (N // 2),
    "doubled words": "the " * (N // 4),
    "cut letters": "w-" * (N // 2),
    "open brackets": "i " + "[" * N,
    "unclosed links": "[a](" * (N // 4),
    "unclosed link target": "[a](b" + "(" * N,
    "unclosed stars": "*x " * (N // 3),
    "unclosed underscores": "_x " * (N // 3),
    "double stars": "**a " * (N // 4),
    "tildes": "i " + "~" * N,
    "backticks": "i " + "`" * N,
    "fence openers": "i " + "```a" * (N // 4),
    "url of dots": "i http://" + "." * N,
    "email local part": "i " + "a" * N + "@",
    "email ats": "i " + "a@" * (N // 2),
    "table rule of spaces": "| a |\n" + " " * N + "|",
    "table rule of dashes": "| a |\n|" + "-" * N + "x",
    "table pipes": "|" * N + "\n|---|\n" + "|" * N,
    "label spaces": "- a" + " " * N + ":x",
    "rules": "- " * (N // 2) + "x",
    "run-on markers": "i " + "so yeah " * (N // 8),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_a_100_kb_turn_of_any_shape_is_canonicalised(name: str) -> None:
    assert isinstance(canonical(ADVERSARIAL[name]), str)
