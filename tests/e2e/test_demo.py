"""`make demo` (the main job): the story, both rankings, and the replay check, end to end."""

from __future__ import annotations

import pytest

from frecall.cli import main

pytestmark = pytest.mark.e2e


def test_the_demo_tells_the_story_and_replays_identically(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "lifecycle ranking" in out and "similarity only" in out
    assert "Maya moved to London" in out
    assert "identical" in out and "DIFFERENT" not in out
