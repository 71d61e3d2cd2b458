"""Reports of a lifecycle run: `report.md` (headline and per-AV tables, significance tests,
failure examples), `report.json` (everything, per question) and `report.png` (pass and
staleness per attack vector, one bar per configuration)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: Failure examples shown per attack vector in the markdown report.
EXAMPLES_PER_AV = 3


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _ci(ci: Sequence[float] | None) -> str:
    return "" if not ci else f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _code(code: Mapping[str, Any] | None) -> str:
    if not code:
        return "unknown (not a git checkout)"
    dirty = code["dirty"]
    return f"commit `{code['commit'][:12]}`" + (
        f" with local changes to {', '.join(dirty)}" if dirty else ""
    )


def headline(result: Mapping[str, Any]) -> list[str]:
    rows = ["| config | pass % [95% CI] | stale % [95% CI] | Hit@1 % | MRR | vs full (b/c, p) |",
            "|---|---|---|---|---|---|"]  # fmt: skip
    for name, c in result["configs"].items():
        test = result["mcnemar"].get(name)
        vs = "–" if test is None else f"{test['b']}/{test['c']}, p={test['p']:.3g}"
        mrr = "–" if c["mrr"] is None else f"{c['mrr']:.3f}"
        rows.append(
            f"| {name} | {_pct(c['pass'])}{_ci(c['ci95']['pass'])} | {_pct(c['stale'])}"
            f"{_ci(c['ci95']['stale'])} | {_pct(c['hit1'])} | {mrr} | {vs} |"
        )
    return rows


def per_av(result: Mapping[str, Any], metric: str) -> list[str]:
    names = list(result["configs"])
    avs = list(result["configs"][names[0]]["per_av"])
    rows = ["| AV | n | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    for av in avs:
        n = result["configs"][names[0]]["per_av"][av]["n"]
        cells = " | ".join(_pct(result["configs"][c]["per_av"][av][metric]) for c in names)
        rows.append(f"| {av} {result['av_names'][av]} | {n} | {cells} |")
    return rows


def failures(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """A few failed (or stale) questions of the full stack per AV, with what came back."""
    out: list[str] = []
    by_av: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        if "returned" in r:
            by_av.setdefault(r["av"], []).append(r)
    for av in sorted(by_av, key=lambda a: int(a[2:])):
        bad = by_av[av]
        failed = sum(1 for r in bad if not r["outcomes"]["full"]["pass"])
        out.append(f"### {av}: {failed} failed, {len(bad) - failed} passed but stale in top 5\n")
        for r in bad[:EXAMPLES_PER_AV]:
            o = r["outcomes"]["full"]
            out.append(f"* **{r['qid']}** ({r['kind']}, {r['variant']}, mode {r['mode']}, "
                       f"intent {r.get('intent')}): \"{r['question']}\" — pass {o['pass']}, "
                       f"stale {o['stale']}")  # fmt: skip
            for fid in r["gold"]:
                out.append(f"  * gold `{fid}`: {r['expected'].get(fid)}")
            for fid in r["stale"][:4]:
                out.append(f"  * stale `{fid}`: {r['expected'].get(fid)}")
            for fid, seen in r.get("extracted", {}).items():
                out.append(f"  * extracted from `{fid}`'s turn: {'; '.join(seen)}")
            for i, ret in enumerate(r["returned"][:5], 1):
                mark = " **(gold)**" if set(ret["facts"]) & set(r["gold"]) else ""
                mark += " **(stale)**" if set(ret["facts"]) & set(r["stale"]) else ""
                why = "; ".join(ret["why"])
                out.append(f"  * {i}. `{ret['edge_id']}` {ret['text']!r} ({ret['state']}, "
                           f"score {ret['score']:.3f}){mark} — {why}")  # fmt: skip
        out.append("")
    return out


def markdown(
    result: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    plots: Sequence[str],
    plot_note: str,
) -> str:
    t = result["timings"]
    lines = [
        f"# Lifecycle benchmark — {result['track']} track",
        "",
        f"{result['questions']} questions over {result['personas']} personas; embedder "
        f"`{result['embedder']}`; pass = gold in top {result['k']} (pass-by-absence for "
        "expired/retracted questions), stale = a stale fact in the top 5 (paper App. C.5). "
        f"Ingest {t['ingest_s']:.1f} s, questions {t['query_s']:.1f} s "
        f"(p50 per query, full: {t['query_p50_ms']['full']} ms).",
        "",
        f"Code: {_code(result.get('code'))}.",
        "",
        "## Headline",
        "",
        *headline(result),
        "",
        "b/c: questions only full passes / only the baseline passes (exact McNemar).",
        "",
        "## Pass by attack vector (%)",
        "",
        *per_av(result, "pass"),
        "",
        "## Staleness by attack vector (% with a stale fact in the top 5)",
        "",
        *per_av(result, "stale"),
        "",
    ]
    if "oracle" in result:
        o = result["oracle"]
        lines += [f"Extraction oracle: gold facts extracted as fact edges for "
                  f"{_pct(o['gold_extracted'])} % of the {o['questions_with_gold']} questions "
                  "with gold facts (the raw turn is always stored).", ""]  # fmt: skip
    lines += ["## Configurations", ""]
    lines += [f"* `{n}` — {d}" for n, d in result["descriptions"].items()]
    lines += ["", "## Plots", ""]
    lines += [f"![{p}]({p})" for p in plots] or [plot_note]
    lines += ["", "## Failures of the full stack (examples)", "", *failures(records)]
    return "\n".join(lines) + "\n"


def _plots(result: Mapping[str, Any], out: Path) -> tuple[list[str], str]:
    from bench.plots import lifecycle_png

    return [lifecycle_png(result, out / "report.png").name], ""


def write_report(
    result: Mapping[str, Any], records: Sequence[Mapping[str, Any]], out: Path
) -> list[Path]:
    """Write report.md, report.json and report.png; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    plots, note = _plots(result, out)
    (out / "report.md").write_text(markdown(result, records, plots, note), encoding="utf-8")
    document = {**result, "plots": plots, "plot_note": note, "per_question": list(records)}
    (out / "report.json").write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")  # fmt: skip
    return [out / "report.md", out / "report.json", *(out / p for p in plots)]


def table(result: Mapping[str, Any]) -> str:
    """The human-readable summary printed without --json."""
    return "\n".join([*headline(result), "", *per_av(result, "pass"), "",
                      *per_av(result, "stale")])  # fmt: skip
