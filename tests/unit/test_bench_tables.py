"""The benchmarks' tables are TOML package data: typed on load, named without ambiguity."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from bench.lifecycle.phrasing import Kind
from bench.tables import frozen, record
from schemas.categories import Category

LIFECYCLE_DATA = Path(__file__).resolve().parents[2] / "bench" / "lifecycle" / "data"


def test_a_kind_is_built_from_its_table() -> None:
    row = {"category": "OTHER", "slot": "user.x", "gold": "User has {v}", "say": ["a {v}"],
           "ask": ["b?"], "numeric": True}  # fmt: skip
    kind = record(Kind, "x", row)
    assert kind == Kind("x", Category.OTHER, "user.x", "User has {v}", ("a {v}",), ("b?",),
                        numeric=True)  # fmt: skip


def test_a_misspelt_field_in_a_table_is_an_error_not_a_default() -> None:
    row = {"category": "OTHER", "slot": "s", "gold": "g", "say": ["a"], "ask": ["b"],
           "chnage": ["typo"]}  # fmt: skip
    with pytest.raises(TypeError, match="chnage"):
        record(Kind, "x", row)
    with pytest.raises(ValueError, match="NOT_A_CATEGORY"):
        record(Kind, "x", {**row, "category": "NOT_A_CATEGORY"})


def test_arrays_become_tuples_all_the_way_down() -> None:
    assert frozen([["a", "b"], ["c"]]) == (("a", "b"), ("c",))
    assert frozen("abc") == "abc"


def test_phrasing_family_names_are_unique_across_the_data_files() -> None:
    # A family's stable name is its dotted path (`states.city.say`): the top-level groups
    # of the lifecycle data files must not repeat from one file to another.
    groups: Counter[str] = Counter()
    for path in sorted(LIFECYCLE_DATA.glob("*.toml")):
        groups.update(list(tomllib.loads(path.read_text("utf-8"))))
    assert groups and not [g for g, n in groups.items() if n > 1]
