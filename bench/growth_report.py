"""Reports of `frecall bench growth`: growth.md, growth.json and growth.png."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.plots import growth_png


def rows(result: Mapping[str, Any]) -> list[str]:
    out = [
        "| day | facts ingested | flat store | compacted store | active | p50 ms flat / "
        "compacted | p95 ms flat / compacted | flat ranking p50 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, row in enumerate(result["checkpoints"]):
        p50, p95 = result["p50_ms"], result["p95_ms"]
        out.append(
            f"| {row['day']:g} | {row['ingested']:,} | {row['flat_facts']:,} | "
            f"{row['compacted_facts']:,} | {result['current_facts'][i]:,} | "
            f"{p50['flat'][i]:.1f} / {p50['compacted'][i]:.1f} | "
            f"{p95['flat'][i]:.1f} / {p95['compacted'][i]:.1f} | {p50['flat_ranking'][i]:.1f} |"
        )
    return out


def stale_rows(result: Mapping[str, Any]) -> list[str]:
    out = [
        f"| day | contradictions / expired in top {result['k']}: flat ranking | "
        "lifecycle, flat store | lifecycle, compacted store |",
        "|---|---|---|---|",
    ]
    c, e = result["contradictions_per_query"], result["expired_per_query"]
    for i, day in enumerate(result["day"]):
        cells = " | ".join(
            f"{c[v][i]:.2f} / {e[v][i]:.2f}" for v in ("flat_ranking", "flat", "compacted")
        )
        out.append(f"| {day:g} | {cells} |")
    return out


def table(result: Mapping[str, Any]) -> str:
    final = result["final"]
    head = (
        f"store growth: {result['facts']:,} facts of {result['user']!r} over {result['days']} "
        f"days, {result['queries']} questions per checkpoint, embedder {result['embedder']}; "
        f"after {result['days']} days: flat {final['flat_facts']:,}, compacted "
        f"{final['compacted_facts']:,} ({100 * final['reduction']:.1f} % smaller)"
    )
    return "\n".join([head, "", *rows(result), "", *stale_rows(result)])


def markdown(result: Mapping[str, Any], plot: str) -> str:
    final, paper = result["final"], result["paper"]
    low, high = paper["lifecycle_edges"]
    reasons = ", ".join(f"{n:,} {r}" for r, n in final["archived_by_reason"].items())
    retention = ", ".join(f"{k} {v}" for k, v in result["retention"].items())
    return "\n".join(
        [
            "# Store growth — flat retention vs compaction",
            "",
            f"One heavy user, {result['facts']:,} gold-metadata facts over {result['days']} "
            f"days (seed {result['seed']}), ingested through the embedded pipeline into two "
            "stores side by side; the compacted one runs `frecall compact` at every "
            f"checkpoint. The same {result['queries']} questions (as of the checkpoint, "
            f"k={result['k']}) are timed on both, interleaved; embedder `{result['embedder']}`.",
            "",
            f"After {result['days']} days: **{final['flat_facts']:,}** facts under flat "
            f"retention, **{final['compacted_facts']:,}** with compaction "
            f"({100 * final['reduction']:.1f} % smaller; archived: {reasons}). Paper "
            f"Appendix L projects ~{paper['flat_edges']:,} vs ~{low:,}–{high:,}.",
            "",
            f"Retention (policy `compaction`): {retention}.",
            "",
            "## Size and latency",
            "",
            *rows(result),
            "",
            "## Stale facts served to current-state questions (per question)",
            "",
            *stale_rows(result),
            "",
            f"![growth]({plot})",
            "",
        ]
    )


def write_report(result: Mapping[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    png = growth_png(result, out / "growth.png")
    md = out / "growth.md"
    md.write_text(markdown(result, png.name), encoding="utf-8")
    js = out / "growth.json"
    js.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return [md, js, png]
