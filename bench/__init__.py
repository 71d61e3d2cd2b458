"""The benchmarks of Fortunate Recall (`frecall bench …`, the `bench` extra).

A package above the product: it may import `frecall`, `streams`, `workers`, `scorer` and
`schemas`; none of them imports it (tests/unit/test_architecture.py). `bench.cli` adds the
`bench` subcommand to `frecall` through the `frecall.commands` entry point. Every benchmark
prints medians and percentiles, with a baseline measured in the same run.
"""
