"""The table and the plot of `frecall bench scale` (scale.md / scale.json / scale.png)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_COLUMNS = (
    ("facts", "facts", "{:>9}"),
    ("loaded", "loaded", "{:>7}"),
    ("largest_user_facts", "largest", "{:>8}"),
    ("ingest_facts_per_s", "ingest/s", "{:>9.0f}"),
    ("replay_edges_per_s", "replay/s", "{:>9}"),
    ("query_p50_ms", "p50 ms", "{:>7.2f}"),
    ("query_p95_ms", "p95 ms", "{:>7.2f}"),
    ("query_p99_ms", "p99 ms", "{:>7.2f}"),
    ("query_p50_vs_smallest", "p50 ×", "{:>6.2f}"),
    ("largest_user_p50_ms", "big p50", "{:>8.2f}"),
    ("largest_user_p99_ms", "big p99", "{:>8.2f}"),
    ("rss_bytes_per_fact", "RSS B/f", "{:>8}"),
    ("disk_bytes_per_fact", "disk B/f", "{:>9}"),
)


def _cell(fmt: str, value: Any) -> str:
    if value is None:
        return fmt.replace(".0f", "").replace(".2f", "").format("-")
    return fmt.format(value)


def table(result: Mapping[str, Any]) -> str:
    head = (
        f"bench scale: {result['users']} users, Zipf skew {result['skew']}, "
        f"{result['queries']} queries per size, embedder {result['embedder']}, "
        f"wall {result['wall_s']} s"
    )
    lines = [head, " ".join(_cell(fmt.split(":")[0] + "}", name) for _, name, fmt in _COLUMNS)]
    for row in result["rows"]:
        lines.append(" ".join(_cell(fmt, row.get(key)) for key, _, fmt in _COLUMNS))
    return "\n".join(lines)


def markdown(result: Mapping[str, Any], plot: str) -> str:
    names = [name for _, name, _ in _COLUMNS]
    out = [
        f"# bench scale ({result['users']} users, Zipf {result['skew']}, "
        f"embedder {result['embedder']}, {result['cpus']} CPUs, wall {result['wall_s']} s)",
        "",
        "| " + " | ".join(names) + " |",
        "|" + "---:|" * len(names),
    ]
    for row in result["rows"]:
        cells = ["-" if row.get(k) is None else str(row.get(k)) for k, _, _ in _COLUMNS]
        out.append("| " + " | ".join(cells) + " |")
    out += ["", f"![cost against store size]({plot})", ""]
    return "\n".join(out)


def scale_png(result: Mapping[str, Any], path: Path) -> Path:
    """Query percentiles, ingest/replay rates and bytes per fact against store size."""
    from matplotlib.figure import Figure

    from bench.plots import save

    rows = result["rows"]
    sizes = [r["facts"] for r in rows]
    fig = Figure(figsize=(13, 4.2), layout="constrained")
    latency, rate, space = fig.subplots(1, 3)
    for key, label in (
        ("query_p50_ms", "p50"),
        ("query_p95_ms", "p95"),
        ("query_p99_ms", "p99"),
        ("largest_user_p50_ms", "largest user p50"),
    ):
        latency.plot(sizes, [r[key] for r in rows], marker="o", label=label)
    latency.set(xscale="log", xlabel="facts stored", ylabel="ms", title="query latency")
    for key, label in (("ingest_facts_per_s", "ingest"), ("replay_edges_per_s", "replay")):
        points = [(s, r[key]) for s, r in zip(sizes, rows, strict=True) if r.get(key)]
        rate.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    rate.set(xscale="log", xlabel="facts stored", ylabel="facts/s", title="write rates")
    for key, label in (("rss_bytes_per_fact", "resident"), ("disk_bytes_per_fact", "disk")):
        space.plot(sizes, [r[key] for r in rows], marker="o", label=label)
    space.set(xscale="log", xlabel="facts stored", ylabel="bytes per fact", title="space")
    for ax in (latency, rate, space):
        ax.legend()
        ax.grid(alpha=0.3)
    return save(fig, path)


def write_report(result: Mapping[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    plot = scale_png(result, out / "scale.png")
    (out / "scale.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "scale.md").write_text(markdown(result, plot.name), encoding="utf-8")
    return [out / "scale.md", out / "scale.json", plot]
