"""Imports point one way: frecall → streams → workers → scorer; all may import schemas.

`scorer/` is pure math: no clients, no I/O libraries, no logging setup (CONVENTIONS 1).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = {"schemas", "scorer", "workers", "streams", "frecall"}
ALLOWED = {
    "schemas": {"schemas"},
    "scorer": {"schemas", "scorer"},
    "workers": {"schemas", "scorer", "workers"},
    "streams": {"schemas", "scorer", "workers", "streams"},
    "frecall": OURS,
}
SCORER_THIRD_PARTY = {"numpy"}
SERVICE_LIBS = {
    "faust",
    "redis",
    "qdrant_client",
    "qdrant_edge",
    "confluent_kafka",
    "openai",
    "httpx",
    "aiokafka",
    "fastapi",
    "onnxruntime",
    "logging",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(OURS))
def test_imports_point_one_way(package: str) -> None:
    for path in _modules(package):
        wrong = (_imports(path) & OURS) - ALLOWED[package]
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


def test_scorer_is_pure() -> None:
    stdlib = set(sys.stdlib_module_names)
    for path in _modules("scorer"):
        imported = _imports(path) - {"__future__"}
        outside = imported - stdlib - OURS - SCORER_THIRD_PARTY
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"
        assert not imported & SERVICE_LIBS, f"{path.relative_to(ROOT)} does I/O or logging"


def test_faust_stays_in_streams() -> None:
    for package in OURS - {"streams"}:
        for path in _modules(package):
            assert "faust" not in _imports(path), f"{path.relative_to(ROOT)} imports faust"
