"""Subcommands from entry points (`frecall.commands`): `frecall bench` when the benchmarks
are installed, a clear install hint when they are not, and any other plugin's command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from importlib.metadata import entry_points
from typing import Any

import pytest

import bench.cli
from frecall import plugins
from frecall.cli import build_parser, main

INSTALL_HINT = "pip install 'fortunate-recall[bench]'"


class _Blocker:
    """A meta-path finder that makes the named top-level packages impossible to import."""

    def __init__(self, *names: str) -> None:
        self.names = set(names)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    for module in [m for m in sys.modules if m.split(".")[0] in names]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(sys, "meta_path", [_Blocker(*names), *sys.meta_path])


def _no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])


MISSING: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "no entry point": _no_entry_points,
    "no bench package": lambda mp: _hide(mp, "bench"),
    "no matplotlib": lambda mp: _hide(mp, "matplotlib"),
}


def test_the_distribution_declares_the_bench_command() -> None:
    found = {p.name: p.value for p in entry_points(group=plugins.GROUP)}
    assert found.get("bench") == "bench.cli:register"


def test_bench_parses_into_the_plugin_handler() -> None:
    args = build_parser().parse_args(["bench", "lifecycle", "generate", "--out", "x"])
    assert args.handler is bench.cli.run
    assert (args.bench, args.lifecycle, args.personas, args.seed) == ("lifecycle", "generate",
                                                                      40, 7)  # fmt: skip


@pytest.mark.parametrize("how", sorted(MISSING))
@pytest.mark.parametrize(
    "argv",
    [["bench"], ["bench", "scorer", "--iterations", "5"], ["bench", "--json"], ["bench", "-h"]],
)
def test_missing_bench_says_how_to_install_it(
    how: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    MISSING[how](monkeypatch)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert INSTALL_HINT in err and "frecall bench" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("how", sorted(MISSING))
def test_missing_bench_leaves_the_other_commands_alone(
    how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    MISSING[how](monkeypatch)
    parser = build_parser()
    args = parser.parse_args(["query", "where do I live?", "--user", "u1"])
    assert (args.command, args.user, getattr(args, "handler", None)) == ("query", "u1", None)
    parser.print_help()
    assert "not installed" in capsys.readouterr().out


class _EntryPoint:
    def __init__(self, name: str, target: Any) -> None:
        self.name, self.value, self._target = name, f"tests:{name}", target

    def load(self) -> Any:
        return self._target


def test_a_plugin_adds_a_command_that_main_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def register(
        commands: plugins.Subparsers[argparse.ArgumentParser], common: argparse.ArgumentParser
    ) -> None:
        p = commands.add_parser("hello", parents=[common])
        p.add_argument("--who", default="world")
        p.set_defaults(handler=lambda args: print(f"hello {args.who}") or 3)

    points = [_EntryPoint("hello", register), _EntryPoint("hello", register)]  # found twice
    monkeypatch.setattr(plugins, "entry_points", lambda group: points)
    assert main(["hello", "--who", "ana"]) == 3
    assert capsys.readouterr().out == "hello ana\n"
