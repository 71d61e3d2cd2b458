"""Chat registers → canonical prose for the rule families (`workers/text/register.py`,
`workers/text/markdown.py`; docs/extraction.md, "Chat registers").

Two parts. Per transform: what each rewrite does and what it must leave alone (the sentences
are written for these tests, none from a paper-turn set). Witnesses: a fact said in a voice
transcript, in texting or in markdown that the rule extractor misses (or misreads) when it
reads the raw turn and finds — the same slot and value as the clean phrasing — when it reads
the canonical text.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from schemas.policy import load_policy
from workers.extraction import ExtractedFact, RuleExtractor
from workers.text.register import canonical

TS = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)


def turn(text: str, n: int = 0) -> TurnEvent:
    return TurnEvent(
        user_id="u1",
        session_id="s1",
        turn_id=f"t{n}-{zlib.crc32(text.encode())}",
        role="user",
        text=text,
        timestamp=TS,
    )


def facts(text: str, *, normalize: bool) -> list[ExtractedFact]:
    return RuleExtractor(normalize=normalize).extract(turn(text))


def slots(text: str, *, normalize: bool) -> dict[str, str | None]:
    return {f.slot_key: f.value for f in facts(text, normalize=normalize) if f.slot_key}


# ------------------------------------------------------------------ per transform


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # disfluencies
        ("um so we uh adopted a cat", "so we adopted a cat"),
        ("erm, hmm, the bus was late", "the bus was late"),
        ("I I think the the plan works", "I think the plan works"),
        ("w-we sold the van", "we sold the van"),
        ("the soup was, like, amazing", "the soup was amazing"),
        ("I sold the car, you know, the bike stays", "I sold the car, the bike stays"),
        ("I mean, it's a start", "it's a start"),
        ("it was cold, you know.", "it was cold."),
        # grammatical doubles stay
        ("what it is is a mess", "what it is is a mess"),
        ("she had had enough", "she had had enough"),
        # texting
        ("im off to the gym tmrw", "I'm off to the gym tomorrow"),
        ("u r late again lol", "you are late again"),
        ("ive got a new bike b4 summer", "I've got a new bike before summer"),
        ("i didnt go bc it rained", "I didn't go because it rained"),
        ("dinner w/ my gf on my bday", "dinner with my girlfriend on my birthday"),
        ("thats sooo good", "that's so good"),
        ("a goood day", "a good day"),
        ("ngl the course is hard", "the course is hard"),
        ("idk what to cook", "I don't know what to cook"),
        # "wont" is a noun after a determiner
        ("as is my wont", "as is my wont"),
        ("the printer wont start", "the printer won't start"),
        # emoji and emoticons end a sentence between words, vanish at the end
        ("got the keys 🔑 moving friday", "got the keys. moving friday"),
        ("new job starts monday :)", "new job starts monday"),
        # shorthand
        ("dentist appt at 3p", "dentist appointment at 3pm"),
        ("mtg @ 10", "meeting at 10"),
        ("ibuprofen 200mg bid", "ibuprofen 200mg twice a day"),
        ("a 40 yo runner", "a 40 years old runner"),
        ("my DH starts a new job", "my husband starts a new job"),
        # ambiguous forms keep their other reading
        ("I moved to BC", "I moved to BC"),
        ("he made a bid on the house", "he made a bid on the house"),
    ],
)
def test_token_transforms(raw: str, expected: str) -> None:
    assert canonical(raw) == expected


def test_markdown_structure() -> None:
    text = (
        "## Plans\n- **sold** the van\n- Update: bought a bike\n> from my notes\n---\n1) new flat"
    )
    assert canonical(text) == "Plans.\nsold the van.\nbought a bike.\nfrom my notes\n\nnew flat."


def test_markdown_table_rows_become_sentences() -> None:
    two = "| thing | cost |\n|---|---|\n| gym | $45 a month |\n| phone | $20 a month |"
    assert canonical(two) == "gym is $45 a month.\nphone is $20 a month."
    wide = "| day | class | time |\n| :-- | --- | --: |\n| Monday | yoga | 7pm |"
    assert canonical(wide) == "day is Monday; class is yoga; time is 7pm."


def test_struck_text_is_what_no_longer_holds_and_links_keep_their_text() -> None:
    assert canonical("I live in ~~Porto~~ Braga") == "I live in Braga"
    assert canonical("see [my blog](https://x.example/a_b)") == "see my blog"


def test_code_fences_are_kept_byte_for_byte() -> None:
    code = "```\nim = u  # w/e\n- x\n```"
    assert canonical(f"im done {code}") == f"I'm done {code}"


def test_run_on_transcript_splits_at_discourse_markers() -> None:
    run_on = (
        "so we finally got the keys last week and it's lovely anyway my sister is coming "
        "to stay and then we start painting"
    )
    assert canonical(run_on) == (
        "so we finally got the keys last week and it's lovely. anyway my sister is coming "
        "to stay. and then we start painting"
    )
    short = "anyway my sister is coming"  # a short line is a sentence already
    assert canonical(short) == short


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Lisbon in May.",
        "My rent is €900 a month and I work at the library.",
        "Dr. Rahman said the results look fine, e.g. the iron levels.",
    ],
)
def test_clean_prose_is_returned_unchanged(text: str) -> None:
    assert canonical(text) == text


def test_canonical_is_idempotent() -> None:
    for raw in ("um im moving tmrw 🎉 lol", "- **Rent:** $900\n| a | b |\n|---|---|\n| x | y |"):
        once = canonical(raw)
        assert canonical(once) == once


# ------------------------------------------------------------------ witnesses


@pytest.mark.parametrize(
    ("register", "clean", "slot"),
    [
        ("- moved to Braga last month", "moved to Braga last month", "user.current_city"),
        ("**I moved to Braga** in May", "I moved to Braga in May", "user.current_city"),
        (
            "| item | amount |\n|---|---|\n| rent | $1,150 a month |",
            "rent is $1,150 a month",
            "user.rent",
        ),
    ],
)
def test_witness_markdown_fact_found_only_when_normalized(
    register: str, clean: str, slot: str
) -> None:
    expected = slots(clean, normalize=False)
    assert slot in expected
    assert slot not in slots(register, normalize=False)  # the raw register: missed
    assert slots(register, normalize=True)[slot] == expected[slot]


def test_witness_texting_appointment_gets_its_time() -> None:
    clean = facts("my physio appointment is tomorrow at 4pm", normalize=False)
    raw = facts("my physio appt is tmrw @ 4p", normalize=False)
    normalized = facts("my physio appt is tmrw @ 4p", normalize=True)
    assert clean[0].event_time is not None
    assert [f.event_time for f in raw] == [None]  # the shorthand hides the time
    assert [(f.slot_key, f.event_time) for f in normalized] == [
        (clean[0].slot_key, clean[0].event_time)
    ]


def test_witness_voice_transcript_stutter_keeps_the_verb() -> None:
    text = "um so i i moved to braga last month and uh my rent is 900 a month"
    clean = "I moved to braga last month. My rent is 900 a month"
    raw_texts = [f.text for f in facts(text, normalize=False)]
    assert any("User is moved" in t for t in raw_texts)  # "i i moved" read as a copula
    normalized = facts(text, normalize=True)
    assert {f.slot_key: f.value for f in normalized} == slots(clean, normalize=False)
    assert not any("User is moved" in f.text for f in normalized)


def test_witness_emoji_ends_the_sentence() -> None:
    text = "i work at the bakery now 🎉 started monday"
    raw = facts(text, normalize=False)
    normalized = facts(text, normalize=True)
    assert any("🎉" in f.text for f in raw)  # one run-on fact with the emoji inside
    employer = [f for f in normalized if f.slot_key == "user.employer"]
    assert employer and employer[0].value == "the bakery"
    assert not any("🎉" in f.text for f in normalized)


def test_the_context_turn_is_read_normalized_too() -> None:
    """The session context (what "my flight"-style references and retractions resolve
    against) is read through the same layer as the turn."""
    from workers.extraction.rules import _Context

    earlier = [turn("- moved to Braga last month", 1)]
    assert "user.current_city" not in {s for s, _ in _Context(earlier).pairs()}
    assert "user.current_city" in {s for s, _ in _Context(earlier, canonical).pairs()}


def test_policy_turns_it_on_and_raw_text_is_untouched() -> None:
    assert load_policy().normalization.enabled
    t = turn("im vegan now lol")
    RuleExtractor(normalize=True).extract(t)
    assert t.text == "im vegan now lol"


def test_the_register_set_is_the_cases_told_in_registers() -> None:
    """bench/paper_turns/registers: the same personas, sessions and questions as the
    development cases, only labelled user turns rewritten (its README)."""
    from bench.paper_turns.cases import CASES_DIR, load

    registers = {p.user_id: p for p in load(CASES_DIR.with_name("registers"))}
    cases = {p.user_id: p for p in load(CASES_DIR) if p.user_id in registers}
    assert set(registers) == set(cases) and len(registers) == 4
    for user, persona in registers.items():
        original = cases[user]
        assert persona.questions == original.questions
        assert [(t.turn_id, t.timestamp) for t in persona.turns] == [
            (t.turn_id, t.timestamp) for t in original.turns
        ]
        changed = [
            t for t, o in zip(persona.turns, original.turns, strict=True) if t.text != o.text
        ]
        assert changed and all(t.role == "user" for t in changed)


def test_the_wiring_follows_the_policy() -> None:
    """`frecall.bootstrap.rule_extractor` hands the policy's switch to the extractor."""
    from frecall.bootstrap import rule_extractor
    from workers.embedding.hashing import HashingEmbedder

    on = load_policy()
    off = on.model_copy(
        update={"normalization": on.normalization.model_copy(update={"enabled": False})}
    )
    text = turn("- moved to Braga last month")
    found = {f.slot_key for f in rule_extractor(on, HashingEmbedder()).extract(text)}
    missed = {f.slot_key for f in rule_extractor(off, HashingEmbedder()).extract(text)}
    assert "user.current_city" in found - missed
