"""`CI` is read as a truthy flag everywhere (an integration test used to skip silently under
`CI=1`, which only `CI=true` turned into a failure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import in_ci


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("1", True), ("TRUE", True), ("yes", True), (" on ", True),
     ("false", False), ("0", False), ("", False), (None, False)],
)  # fmt: skip
def test_ci_is_a_truthy_flag(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert in_ci() is expected


def test_no_test_reads_ci_by_itself() -> None:
    tests = Path(__file__).resolve().parents[1]
    needles = [f'{call}("CI"' for call in ("environ.get", "getenv", "environ[")]
    readers = [
        str(path.relative_to(tests))
        for path in tests.rglob("*.py")
        if path.name != "conftest.py"
        and path != Path(__file__).resolve()
        and any(needle in path.read_text() for needle in needles)
    ]
    assert readers == [], "read CI through tests.conftest.in_ci"
