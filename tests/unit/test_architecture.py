"""Imports point one way: bench → frecall → streams → workers → scorer; all may import schemas.

`scorer/` is pure math: no clients, no I/O libraries, no logging setup (CONVENTIONS 1).
`bench/` (the benchmarks, an optional extra) sits above the product: nothing below imports
it, and no runtime module imports its plotting library. No module imports itself back
through others (no cycles, function-local imports included), frecall/ keeps its inner layers
(docs/architecture.md, "Layers"), and only the wiring decides which deployment runs.
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


# --- no import cycles, layers inside frecall/ ----------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_graph() -> dict[str, set[str]]:
    """module → the project modules it imports, counting every import statement: at module
    level, inside functions (a function-local import is still a dependency, only a later
    one) and under TYPE_CHECKING."""
    paths = {_module_name(p): p for package in sorted(OURS) for p in _modules(package)}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # `from a import b`: the module a.b if there is one, else a (b is a name).
                names = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names
                ]
            else:
                continue
            for name in names:
                while name and name not in paths:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    targets.add(name)
        graph[module] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_detector_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    assert _cycles(_import_graph()) == []


#: frecall/ from the top down: a module may import its own package and the layers below
#: it, never a layer above, nor another package of its own layer (bench/, above frecall/,
#: is a top-level package of its own).
FRECALL_LAYERS = [
    ["frecall.cli"],
    ["frecall.commands"],
    ["frecall.api", "frecall.demo", "frecall.plugins", "frecall.mcp", "frecall.sdk"],
    ["frecall.wiring"],
    ["frecall.embedded", "frecall.distributed"],
    ["frecall.bootstrap"],
    # Used by the entry points around the port: who may see what, and how it is observed.
    ["frecall.access", "frecall.observability"],
    ["frecall.deployment", "frecall.settings", "frecall.process"],
]


def _unit(module: str) -> tuple[int, str]:
    for level, units in enumerate(FRECALL_LAYERS):
        for unit in units:
            if module == unit or module.startswith(unit + "."):
                return level, unit
    raise AssertionError(f"{module} is in no layer of FRECALL_LAYERS")


def test_frecall_layers() -> None:
    graph = _import_graph()
    wrong = []
    for module, targets in sorted(graph.items()):
        if not module.startswith("frecall.") or module == "frecall":
            continue
        level, unit = _unit(module)
        for target in sorted(t for t in targets if t.startswith("frecall.")):
            target_level, target_unit = _unit(target)
            if target_unit != unit and target_level <= level:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


#: Where a condition may test the broker setting: the wiring, which chooses the deployment
#: from it; and two checks that a distributed-only job has its services (they refuse, they
#: do not choose). Everywhere else the deployment is a `Deployment`, whichever it is.
DEPLOYMENT_CHOICE = {
    "frecall/wiring.py",
    "frecall/distributed/stores.py",  # require_services
    "bench/pipeline.py",  # the pipeline benchmark: needs the real services it measures
}


def _branches_on(tree: ast.AST, attribute: str) -> bool:
    tests = [n.test for n in ast.walk(tree) if isinstance(n, ast.If | ast.IfExp | ast.While)]
    return any(
        isinstance(n, ast.Attribute) and n.attr == attribute for t in tests for n in ast.walk(t)
    )


def test_the_detector_sees_a_deployment_branch() -> None:
    assert _branches_on(ast.parse("if s.kafka_bootstrap:\n    pass"), "kafka_bootstrap")
    assert _branches_on(ast.parse("x = a if not s.kafka_bootstrap else b"), "kafka_bootstrap")
    assert not _branches_on(ast.parse("connect(s.kafka_bootstrap or '')"), "kafka_bootstrap")


def test_the_deployment_is_chosen_only_in_the_wiring() -> None:
    branching = {
        str(path.relative_to(ROOT))
        for package in sorted(OURS)
        for path in _modules(package)
        if _branches_on(ast.parse(path.read_text("utf-8")), "kafka_bootstrap")
    }
    assert branching <= DEPLOYMENT_CHOICE, sorted(branching - DEPLOYMENT_CHOICE)
