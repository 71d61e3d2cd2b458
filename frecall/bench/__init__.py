"""`frecall bench …`: benchmarks print medians and percentiles, with a baseline alongside."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    if args.bench == "scorer":
        from frecall.bench import scorer

        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        return scorer.run(sizes, args.iterations, args.json)
    if args.bench == "query":
        from frecall.bench import query

        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        return query.run(args, sizes)
    if args.bench == "locomo":
        from frecall.bench import locomo

        return locomo.run(args)
    if args.bench == "lifecycle":
        from frecall.bench import lifecycle

        if args.lifecycle == "generate":
            return lifecycle.generate_cmd(args)
        if args.lifecycle == "noise":
            from frecall.bench.lifecycle.noise import noise_cmd

            return noise_cmd(args)
        return lifecycle.run_cmd(args)
    if args.bench == "paper-cases":
        from frecall.bench import paper_cases

        return paper_cases.run(args)
    if args.bench == "growth":
        from frecall.bench import growth

        return growth.run(args)
    if args.bench == "pipeline":
        from frecall.bench import pipeline

        return pipeline.run(args)
    raise AssertionError(f"unknown bench {args.bench}")
