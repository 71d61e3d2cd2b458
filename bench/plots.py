"""PNG plots of benchmark results (report artefacts; nothing here is asserted pixel by pixel).

matplotlib's object API (PNG through the Agg canvas): no pyplot, no global state, no display needed.
Every function takes the benchmark's JSON document and writes one PNG at the given path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

DPI = 110
#: No timestamp or version in the file: the same result gives the same bytes.
_METADATA = {"Software": None}


def save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # A bare Figure prints PNG through the Agg canvas; no backend is selected globally.
    fig.savefig(path, format="png", dpi=DPI, metadata=_METADATA)
    return path


def _bars(ax: Axes, groups: Sequence[str], series: Mapping[str, Sequence[float]]) -> None:
    width = 0.8 / max(len(series), 1)
    for j, (name, values) in enumerate(series.items()):
        ax.bar([i + j * width for i in range(len(groups))], values, width, label=name)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], list(groups))


def lifecycle_png(result: Mapping[str, Any], path: Path) -> Path:
    """Pass and staleness per attack vector, one bar per configuration (bench lifecycle)."""
    configs = result["configs"]
    names = list(configs)
    avs = list(configs[names[0]]["per_av"]) if names else []
    fig = Figure(figsize=(12, 7), layout="constrained")
    for row, (metric, label) in enumerate((("pass", "pass %"), ("stale", "stale % (top 5)"))):
        ax = fig.add_subplot(2, 1, row + 1)
        series = {n: [100 * (configs[n]["per_av"][av][metric] or 0.0) for av in avs] for n in names}
        _bars(ax, avs, series)
        ax.set_ylabel(label)
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(f"{label} by attack vector, {result.get('track', '')} track")
    # One legend for both panels, outside the bars (they reach 100 %).
    fig.legend(*fig.axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=len(names) or 1, fontsize=8)  # fmt: skip
    return save(fig, path)


def noise_png(result: Mapping[str, Any], path: Path) -> Path:
    """Jaccard@10 against the clean run vs noise level, one line per perturbation kind
    (bench lifecycle noise; paper Appendix AH's reference points as crosses)."""
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    for name, row in result["noise"].items():
        levels = sorted(row, key=float)
        ax.plot(
            [float(p) for p in levels],
            [row[p]["jaccard10"] for p in levels],
            marker="o",
            label=name,
        )
    for key, value in result.get("paper", {}).items():
        kind, _, level = key.partition("@")
        ax.scatter([float(level)], [value], marker="x", color="black", zorder=3)
        ax.annotate(f"paper {kind}", (float(level), value), fontsize=7, xytext=(4, -10),
                    textcoords="offset points")  # fmt: skip
    ax.set_xlabel("fraction of edges perturbed")
    ax.set_ylabel("mean Jaccard@10 vs clean run")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Robustness to metadata noise (gold track)")
    return save(fig, path)


def growth_png(result: Mapping[str, Any], path: Path) -> Path:
    """Store size and query latency over time, flat retention vs compaction (bench growth)."""
    days = result["day"]
    fig = Figure(figsize=(13, 5), layout="constrained")
    size = fig.add_subplot(1, 2, 1)
    size.plot(days, result["flat_facts"], marker="o", label="flat retention (all facts)")
    size.plot(days, result["compacted_facts"], marker="o", label="with compaction")
    size.plot(days, result["current_facts"], linestyle=":", label="active facts")
    paper = result["paper"]
    if result["facts"] >= paper["flat_edges"] / 2:
        # Table 39 projects a two-year, ~30k-fact user: comparable only at that scale.
        low, high = paper["lifecycle_edges"]
        label = "paper App. L, lifecycle (2 years)"
        mid, half = (low + high) / 2, (high - low) / 2
        size.errorbar([days[-1]], [mid], yerr=half, fmt="none", capsize=6, color="black",
                      label=label)  # fmt: skip
    size.set_xlabel("day")
    size.set_ylabel(f"facts of user {result['user']!r} in the vector index")
    size.grid(alpha=0.3)
    size.legend(fontsize=8)
    size.set_title("Store size")
    latency = fig.add_subplot(1, 2, 2)
    labels = {
        "flat": "lifecycle ranking, flat store",
        "compacted": "lifecycle ranking, compacted store",
        "flat_ranking": "flat similarity ranking, flat store",
    }
    for variant, label in labels.items():
        (line,) = latency.plot(days, result["p50_ms"][variant], marker="o", label=f"{label} p50")
        latency.plot(days, result["p95_ms"][variant], linestyle="--", color=line.get_color(),
                     label=f"{label} p95")  # fmt: skip
    latency.set_xlabel("day")
    latency.set_ylabel(f"query latency, ms (k={result['k']})")
    latency.set_ylim(bottom=0)
    latency.grid(alpha=0.3)
    latency.legend(fontsize=7)
    latency.set_title("Query latency, same questions")
    return save(fig, path)
