"""`bench extraction-ablation`'s two tools: leaving a pattern module out of the rule extractor
for a block, and counting the turns in which a module's drafts are kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.extraction_ablation import coverage, modules, without
from schemas.events import TurnEvent
from workers.errors import ConfigError
from workers.extraction import rules
from workers.extraction.rules import RuleExtractor

MOVED = "I moved to Lisbon last month"


def slots(text: str) -> set[str | None]:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t1", role="user", text=text,
                     timestamp=datetime(2025, 3, 12, tzinfo=UTC))  # fmt: skip
    return {f.slot_key for f in RuleExtractor().extract(turn)}


def test_a_module_left_out_finds_nothing_inside_the_block_and_is_back_after() -> None:
    families = rules.FAMILIES
    assert "user.current_city" in slots(MOVED)
    with without(["patterns_identity"]):
        assert "patterns_identity" not in {f.__module__.rsplit(".", 1)[-1] for f in rules.FAMILIES}
        assert "user.current_city" not in slots(MOVED)
    assert families == rules.FAMILIES
    assert "user.current_city" in slots(MOVED)


def test_an_unknown_module_is_refused_and_the_extractor_is_untouched() -> None:
    families = rules.FAMILIES
    with pytest.raises(ConfigError, match="patterns_nonesuch"), without(["patterns_nonesuch"]):
        pass
    assert families == rules.FAMILIES


def test_the_retraction_mechanism_is_no_module_to_leave_out() -> None:
    assert "retraction" not in modules()
    assert "patterns_identity" in modules()


def test_coverage_counts_the_turns_a_module_is_kept_in_and_those_it_alone_found() -> None:
    got = coverage([MOVED, "The weather is nice", MOVED])
    assert got["patterns_identity"] == {"kept": 2, "sole": 2}
    assert all(row["kept"] == 0 for m, row in got.items() if m != "patterns_identity")
