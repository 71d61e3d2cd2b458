"""`frecall bench extraction-ablation`: what each pattern module of the rule extractor earns.

The rule extractor runs every pattern family of `workers.extraction.rules.FAMILIES` on every
clause (issue 11: keep the modules that earn their place, delete those that only fit one
generator phrasing). Two measures, each module left out one at a time:

* coverage (fast, no store, no embedding): in how many user turns of each set the module's
  drafts survive the overlap settlement (`rules._scan`), and in how many it is the only
  family that found anything there. A module kept in no turn of a set changes nothing on it.
  For a generated lifecycle set only the turns that tell a fact some question asks about
  (gold or stale) count: the turns whose extraction the score can see.
* end to end, against a baseline with every module in the same run: pass/stale of the paper
  turns (`bench paper-turns`, development and held-out sets: seconds each) for every module;
  LoCoMo evidence recall@10 (`--locomo FILE`, first `--conversations N`) and the generator's
  text track (`--lifecycle DIR`, a set written by `lifecycle generate`) for the `--modules`
  asked only — they take minutes per run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemas.events import TurnEvent
from workers.errors import ConfigError
from workers.extraction import rules
from workers.extraction.clauses import Clause
from workers.extraction.draft import Draft
from workers.extraction.rules import RuleExtractor

Family = Callable[[Clause], list[Draft]]
#: Families that are mechanisms of the extractor, not pattern modules: never left out.
FIXED = frozenset({"retraction"})
_T0 = datetime(2024, 1, 1, tzinfo=UTC)


def module_name(family: Family) -> str:
    return family.__module__.rsplit(".", 1)[-1]


def modules() -> list[str]:
    """The pattern modules the extractor runs, in its order."""
    return [m for f in rules.FAMILIES if (m := module_name(f)) not in FIXED]


@contextmanager
def without(names: Iterable[str]) -> Iterator[None]:
    """The rule extractor without the families of `names` inside the block (this process)."""
    left_out = frozenset(names)
    unknown = left_out - set(modules())
    if unknown:
        raise ConfigError(f"bench extraction-ablation: no pattern module {sorted(unknown)}")
    saved = rules.FAMILIES
    rules.FAMILIES = tuple(f for f in saved if module_name(f) not in left_out)
    _clear_scans()  # scans cached with the other families
    try:
        yield
    finally:
        rules.FAMILIES = saved
        _clear_scans()


def _clear_scans() -> None:
    rules._plain_slots.cache_clear()
    rules._scan_once.cache_clear()


# --- coverage -------------------------------------------------------------------------------


def coverage(texts: Sequence[str]) -> dict[str, dict[str, int]]:
    """module → {"kept": turns where its drafts survive, "sole": turns where only it found}."""
    origin: dict[int, tuple[Draft, str]] = {}  # id(draft) → (draft, module); drafts kept alive

    def traced(family: Family) -> Family:
        name = module_name(family)

        def find(clause: Clause) -> list[Draft]:
            found = family(clause)
            for dr in found:
                origin[id(dr)] = (dr, name)
            return found

        return find

    kept: Counter[str] = Counter()
    sole: Counter[str] = Counter()
    saved = rules.FAMILIES
    rules.FAMILIES = tuple(traced(f) for f in saved)
    try:
        for text in texts:
            origin.clear()
            _, found = rules._scan(text)
            names = {origin[id(f.draft)][1] for f in found if id(f.draft) in origin}
            kept.update(names)
            if len(names) == 1:
                sole.update(names)
    finally:
        rules.FAMILIES = saved
    return {m: {"kept": kept[m], "sole": sole[m]} for m in modules()}


def _generated_texts(directory: Path) -> list[str]:
    """User turns of a generated set that tell a fact some question asks about."""
    asked: set[str] = set()
    with (directory / "questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                asked.update(q["gold"], q["stale"])
    telling: set[str] = set()
    with (directory / "edges.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and (e := json.loads(line))["edge_id"] in asked:
                telling.update(e.get("source_turns", ()))
    texts = []
    with (directory / "turns.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and (t := json.loads(line))["turn_id"] in telling:
                texts.append(t["text"])
    return texts


def _user_texts(turns: Iterable[TurnEvent]) -> list[str]:
    return [t.text for t in turns if t.role == "user"]


# --- end to end -----------------------------------------------------------------------------


def _paper_turns(name: str, embedder: str) -> dict[str, Any]:
    from bench.paper_turns import SETS, measure

    summary, _ = measure(SETS[name], embedder, "rules")
    return {"pass": summary["pass"], "stale": summary["stale"], "n": summary["n"]}


def _locomo(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    from bench import locomo
    from bench.locomo_data import load

    conversations = load(args.locomo, args.conversations)
    run_dir = Path(tempfile.mkdtemp(prefix="locomo-", dir=root))
    result = locomo.measure(conversations, run_dir, args.embedder, (10,))
    shutil.rmtree(run_dir, ignore_errors=True)
    return {"r@10": result["recall@10"]["hybrid"], "n": result["counts"]["questions"]}


def _lifecycle(directory: Path, embedder: str, root: Path) -> dict[str, Any]:
    from bench.lifecycle.runner import measure

    work = Path(tempfile.mkdtemp(prefix="lifecycle-", dir=root))
    result, _ = measure(directory, "text", embedder, work)
    shutil.rmtree(work, ignore_errors=True)
    full = result["configs"]["full"]
    return {"pass": full["pass"], "stale": full["stale"], "n": full["n"]}


def _end_to_end(
    args: argparse.Namespace, root: Path, left_out: Sequence[str], heavy: bool
) -> dict[str, Any]:
    label = "+".join(left_out) or "baseline"
    out: dict[str, Any] = {}
    from bench.paper_turns import SETS

    with without(left_out):
        for name in SETS:
            print(f"bench extraction-ablation: {label}: paper turns {name}", file=sys.stderr)
            out[f"paper {name}"] = _paper_turns(name, args.embedder)
        if heavy and args.locomo is not None:
            print(f"bench extraction-ablation: {label}: LoCoMo", file=sys.stderr)
            out["locomo"] = _locomo(args, root)
        for directory in args.lifecycle if heavy else ():
            print(f"bench extraction-ablation: {label}: lifecycle {directory}", file=sys.stderr)
            out[f"lifecycle {directory.name}"] = _lifecycle(directory, args.embedder, root)
    return out


# --- command --------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> dict[str, Any]:
    asked = [m.strip() for m in (args.modules or "").split(",") if m.strip()]
    with without(asked):  # validates the names
        pass
    sets: dict[str, list[str]] = {}
    from bench.paper_turns import SETS
    from bench.paper_turns.cases import load as load_cases

    for name, directory in SETS.items():
        sets[f"paper {name}"] = _user_texts(t for p in load_cases(directory) for t in p.turns)
    if args.locomo is not None:
        from bench.locomo_data import load

        conversations = load(args.locomo, None)
        sets["locomo"] = _user_texts(t for c in conversations for t in c.turns)
    for directory in args.lifecycle:
        sets[f"lifecycle {directory.name}"] = _generated_texts(directory)
    print(f"bench extraction-ablation: coverage on {len(sets)} sets", file=sys.stderr)
    covered = {name: coverage(texts) for name, texts in sets.items()}
    document: dict[str, Any] = {
        "turns": {name: len(texts) for name, texts in sets.items()},
        "coverage": {m: {name: covered[name][m] for name in sets} for m in modules()},
        "lines": {m: _lines(m) for m in modules()},
    }
    if asked:
        every = [t for texts in sets.values() for t in texts]
        document["extraction_ms_per_turn"] = _speed(every, asked, args.rounds)
    root = Path(tempfile.mkdtemp(prefix="frecall-bench-ablation-"))
    try:
        document["baseline"] = _end_to_end(args, root, (), bool(asked))
        document["without"] = {
            m: _end_to_end(args, root, (m,), m in asked and not args.together)
            for m in (modules() if args.all_paper else () if args.together else asked)
        }
        if args.together and asked:
            document["without"]["+".join(asked)] = _end_to_end(args, root, asked, True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return document


def _speed(texts: Sequence[str], left_out: Sequence[str], rounds: int) -> dict[str, Any]:
    """Rule-extractor milliseconds per turn with every module and without `left_out`,
    alternating (medians of `rounds` passes each; no context, no cache between passes)."""
    turns = [
        TurnEvent(user_id="u", session_id="s", turn_id=f"t{i}", role="user", text=t,
                  timestamp=_T0)
        for i, t in enumerate(texts)
    ]  # fmt: skip
    times: dict[str, list[float]] = {"all": [], "without": []}
    for r in range(rounds):
        for mode in ("all", "without") if r % 2 == 0 else ("without", "all"):
            with without(left_out if mode == "without" else ()):
                extractor = RuleExtractor()
                start = time.perf_counter()
                for turn in turns:
                    extractor.extract(turn)
                times[mode].append(1000 * (time.perf_counter() - start) / len(turns))
    out: dict[str, Any] = {m: round(statistics.median(v), 3) for m, v in times.items()}
    out["ratio"] = round(out["without"] / out["all"], 3)
    out["turns"] = len(turns)
    return out


def _lines(module: str) -> int:
    path = Path(rules.__file__).with_name(f"{module}.py")
    return len(path.read_text(encoding="utf-8").splitlines())


def _delta(row: dict[str, Any], base: dict[str, Any]) -> str:
    if "r@10" in row:
        return f"{row['r@10'] - base['r@10']:+.3f}"
    return f"{100 * (row['pass'] - base['pass']):+.1f}/{100 * (row['stale'] - base['stale']):+.1f}"


def table(document: dict[str, Any]) -> str:
    sets = list(document["turns"])
    lines = [
        "coverage: user turns where the module's drafts are kept (kept/only it); "
        + ", ".join(f"{s} {n}" for s, n in document["turns"].items()),
        f"{'module':<22}{'lines':>6}  " + "".join(f"{s:>22}" for s in sets),
    ]
    for m, row in document["coverage"].items():
        cells = "".join(f"{str(row[s]['kept']) + '/' + str(row[s]['sole']):>22}" for s in sets)
        lines.append(f"{m:<22}{document['lines'][m]:>6}  {cells}")
    base = document["baseline"]
    lines += ["", "end to end: baseline " + "; ".join(
        f"{k} " + (f"r@10 {v['r@10']:.3f}" if "r@10" in v else f"pass {v['pass']:.3f} "
                   f"stale {v['stale']:.3f}") for k, v in base.items()
    ), "Δ without the module (pass/stale in points; LoCoMo Δ r@10):"]  # fmt: skip
    for m, row in document["without"].items():
        lines.append(f"  {m:<22}" + "  ".join(f"{k} {_delta(v, base[k])}" for k, v in row.items()))
    speed = document.get("extraction_ms_per_turn")
    if speed:
        lines.append(
            f"rule extractor, ms per turn over {speed['turns']} turns: every module "
            f"{speed['all']:.3f}, without the --modules {speed['without']:.3f} "
            f"(ratio {speed['ratio']:.2f})"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if (args.conversations is not None and args.conversations < 1) or args.rounds < 1:
        raise ConfigError("bench extraction-ablation: --conversations and --rounds must be ≥ 1")
    for directory in args.lifecycle:
        if not (directory / "questions.jsonl").is_file():
            raise ConfigError(f"bench extraction-ablation: {directory} is no generated set")
    document = measure(args)
    print(json.dumps(document) if args.json else table(document))
    return 0
