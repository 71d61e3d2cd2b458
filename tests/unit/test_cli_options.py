"""The global options (`--data-dir`, `-v`) go before the command or after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from frecall.cli import build_parser


@pytest.mark.parametrize(
    "argv",
    [
        ["--data-dir", "D", "-v", "query", "--user", "u", "q"],
        ["query", "--data-dir", "D", "-v", "--user", "u", "q"],
        ["-v", "query", "--user", "u", "--data-dir", "D", "q"],
        ["--data-dir", "D", "bench", "lifecycle", "run", "x", "-v"],
        ["bench", "lifecycle", "run", "--data-dir", "D", "x", "--verbose"],
    ],
)
def test_global_options_before_or_after_the_command(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.data_dir == Path("D") and args.verbose is True


def test_defaults_without_global_options() -> None:
    args = build_parser().parse_args(["export", "--user", "u"])
    assert args.data_dir is None and args.verbose is False


def test_an_option_after_the_command_wins_over_one_before() -> None:
    args = build_parser().parse_args(
        ["--data-dir", "A", "export", "--data-dir", "B", "--user", "u"]
    )
    assert args.data_dir == Path("B")
