"""Round 18's ingest savings, each with no behaviour change (the extraction diff over every
development and validation user turn, the generator halves and LoCoMo dev found none): the
work they skip is what these tests witness."""

from __future__ import annotations

import re
from collections.abc import Iterator

from workers.extraction import slots
from workers.extraction.dates import has_date_cue
from workers.extraction.linear_scan import Gated


class _Untouched:
    """A pattern that must not be read."""

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        raise AssertionError("read a clause without a start")


def test_gated_reads_no_gate_or_stop_in_a_clause_without_a_start() -> None:
    never = _Untouched()
    gated = Gated("no starts here", re.compile("x"), re.compile("zzz"), never, never)  # type: ignore[arg-type]
    assert gated(0) is None


def test_gated_still_finds_a_gated_match() -> None:
    text = "tea is my thing. coffee"
    branch = re.compile(r"(\w+) is my thing")
    gated = Gated(text, branch, re.compile(r"\b\w"), re.compile("my thing"), re.compile(r"\."))
    found = gated(0)
    assert found is not None and found[1] == "tea"


def test_a_clause_asked_twice_for_a_date_cue_is_read_once() -> None:
    text = "my dentist is on the 12th, round 18"
    has_date_cue(text)
    hits = has_date_cue.cache_info().hits
    assert has_date_cue(text) is True
    assert has_date_cue.cache_info().hits == hits + 1


def test_event_nouns_compile_nothing_per_phrase() -> None:
    re.purge()
    before = len(re._cache)  # type: ignore[attr-defined]
    assert slots.event_slot("the whole garden shed thing") is None  # every noun tried
    assert len(re._cache) == before  # type: ignore[attr-defined]
