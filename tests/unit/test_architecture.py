"""Imports point one way: bench → frecall → streams → workers → scorer; all may import schemas.

`scorer/` is pure math: no clients, no I/O libraries, no logging setup (CONVENTIONS 1).
`bench/` (the benchmarks, an optional extra) sits above the product: nothing below imports
it, and no runtime module imports its plotting library.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = {"schemas", "scorer", "workers", "streams", "frecall"}
OURS = RUNTIME | {"bench"}
ALLOWED = {
    "schemas": {"schemas"},
    "scorer": {"schemas", "scorer"},
    "workers": {"schemas", "scorer", "workers"},
    "streams": {"schemas", "scorer", "workers", "streams"},
    "frecall": RUNTIME,
    "bench": OURS,
}
#: Dependencies of the `bench` extra (pyproject.toml): the runtime must work without them.
BENCH_ONLY_LIBS = {"matplotlib"}
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


@pytest.mark.parametrize("package", sorted(RUNTIME))
def test_runtime_never_imports_bench_only_libraries(package: str) -> None:
    for path in _modules(package):
        wrong = _imports(path) & BENCH_ONLY_LIBS
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)} (the bench extra)"


def test_the_cli_starts_without_loading_the_benchmarks() -> None:
    # `frecall.cli` finds the `bench` plugin on every invocation: registering it must not
    # import a benchmark module or matplotlib (a fresh interpreter: nothing cached).
    probe = (
        "import sys; from frecall.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'bench')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['bench', 'bench.cli']", out.stdout
