"""The benchmarks' word lists and phrasings: TOML package data beside the code that draws them.

The modules keep the logic (how a corpus, a persona, a conversation is drawn); the tables
live in `bench/data/` and `bench/lifecycle/data/` and are read once, when their module is
imported. Generators draw from them with a seeded `random.Random`, so a table's order is
part of every generated set: tables are appended to, not reordered.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from importlib.resources import files
from typing import Any, TypeVar

from schemas.categories import Category

T = TypeVar("T")


def load(package: str, name: str) -> dict[str, Any]:
    """`<package>/data/<name>.toml`, parsed (tables keep their order)."""
    resource = files(package).joinpath("data", f"{name}.toml")
    return tomllib.loads(resource.read_text(encoding="utf-8"))


def frozen(value: Any) -> Any:
    """Arrays as tuples, nested ones too: the tables are constants."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


def pools(table: Mapping[str, list[Any]]) -> dict[str, Any]:
    """A table of arrays (named value pools) with tuple values; the caller's annotation says
    what the arrays hold."""
    return {name: frozen(items) for name, items in table.items()}


def record(make: Callable[..., T], name: str, row: Mapping[str, Any]) -> T:
    """One kind (a frozen dataclass) from its table: the key is its name, arrays become
    tuples and `category` a `Category`."""
    fields = {key: frozen(value) for key, value in row.items()}
    if "category" in fields:
        fields["category"] = Category(fields["category"])
    return make(name=name, **fields)


def records(make: Callable[..., T], rows: Mapping[str, Mapping[str, Any]]) -> dict[str, T]:
    """Every kind of a group (`[states.city]`, `[states.employer]`, …), in file order."""
    return {name: record(make, name, row) for name, row in rows.items()}
