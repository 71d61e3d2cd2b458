"""Subcommands contributed by other packages, found through Python entry points.

A plugin names itself in the `frecall.commands` entry-point group of its distribution, e.g.
`[project.entry-points."frecall.commands"] bench = "bench.cli:register"`. The object is a
`Register`: called with the CLI's subparsers and the parser of the common options, it adds
its subcommand and sets `handler` (a `Handler`) as that parser's default; `frecall` then calls
the handler with the parsed arguments. A plugin that lacks something it needs raises
`ImportError` before it adds anything. The runtime never imports a plugin by name: the
benchmarks sit above it (`bench/`) and may be absent.

A plugin that is absent (no entry point) or cannot load (an `ImportError`: its package or an
optional dependency is not installed) still gets a subcommand when it is one we ship as an
extra (`OPTIONAL`): running it says how to install it and fails, instead of argparse's
"invalid choice".
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Protocol

from workers.errors import FRError

GROUP = "frecall.commands"
Handler = Callable[[argparse.Namespace], int]
Subparsers = argparse._SubParsersAction  # argparse exposes no public name for it
#: Subcommands we ship as optional extras: name → (what it is, the pip requirement).
OPTIONAL: dict[str, tuple[str, str]] = {
    "bench": ("benchmarks (medians, percentiles)", "fortunate-recall[bench]"),
}


class Register(Protocol):
    """What a `frecall.commands` entry point loads to."""

    def __call__(
        self,
        commands: Subparsers[argparse.ArgumentParser],
        common: argparse.ArgumentParser,
    ) -> None: ...


class CommandUnavailable(FRError):
    def __init__(self, command: str, requirement: str, cause: str) -> None:
        self.command, self.requirement, self.cause = command, requirement, cause
        extra = requirement.partition("[")[2].rstrip("]")
        super().__init__(
            f"`frecall {command}` is an optional part that is not installed ({cause}); "
            f"install it with: pip install '{requirement}' "
            f"(in a checkout: pip install -e '.[{extra}]', as `make install` does)"
        )


def register_all(
    commands: Subparsers[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add every installed plugin's subcommand, and a stub for each missing optional one."""
    missing = {name: "no package provides it" for name in OPTIONAL}
    seen: set[str] = set()
    for point in entry_points(group=GROUP):
        if point.name in seen:  # one distribution found twice on sys.path
            continue
        seen.add(point.name)
        try:
            register: Register = point.load()
            register(commands, common)
        except ImportError as exc:  # shown when the command is run (logging is not set up yet)
            missing[point.name] = str(exc)
            continue
        missing.pop(point.name, None)
    for name, cause in missing.items():
        if name in OPTIONAL:
            _stub(commands, common, name, cause)


def _stub(
    commands: Subparsers[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    name: str,
    cause: str,
) -> None:
    what, requirement = OPTIONAL[name]
    # Whatever follows (options included: no prefix character is "-" here) is the missing
    # plugin's to parse; the message is what matters, not the syntax.
    p = commands.add_parser(
        name, help=f"{what} — not installed", add_help=False, prefix_chars="\x00"
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)

    def unavailable(args: argparse.Namespace) -> int:
        raise CommandUnavailable(name, requirement, cause)

    # The common options' defaults (--verbose …), which `main` reads before any handler runs.
    p.set_defaults(**vars(common.parse_args([])), handler=unavailable)
