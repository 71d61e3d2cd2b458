"""Labelled user turns for the withdrawal probe (issue 11, AV7 selective forgetting): does a
turn withdraw / give up an earlier plan or intention of the speaker?

Labels come from the data's own annotations, never from reading wording into rules:

* the generator's TRAIN phrasing half: a user turn that tells an edge with `retracts` (the
  AV7 retraction turns, paper §3.3) is a withdrawal; every other user turn (plans, changes,
  appointments, small talk) is not;
* `tests/paper_cases/data`: gold facts with `retracts` (reported in the third person — "Priya
  dropped the dog plan") are withdrawals, every other fact text is not;
* `bench/paper_turns/*`: with a `gold/` directory, a turn whose label is a gold fact with
  `retracts`; without one (`cases`, `heldout`), a turn an AV7 question lists as `neutral`
  (the retraction itself, A.9). Every other user turn of the set is not.

Roles: `DEV_SETS` are training data (judged by leaving each out); `VALIDATION_SETS` are only
measured (precision/recall), never trained on. heldout6 is sealed and never read here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from bench.attribute_items import FILES, REPO, Item, _jsonl, unique
from bench.lifecycle.generator import generate

WITHDRAWAL = "withdrawal"
NONE = "none"
LABELS = (WITHDRAWAL, NONE)
DEV_SETS = ("paper-cases", "cases", "heldout", "heldout2")
VALIDATION_SETS = ("heldout3", "heldout4", "heldout5")


def generator_items(half: str, personas: int, seed: int) -> list[Item]:
    """Every user turn of a generated set of `half`, labelled by its edges' `retracts`."""
    with tempfile.TemporaryDirectory(prefix="withdrawal-items-") as tmp:
        out = Path(tmp)
        generate(personas, seed, out, phrasings=half)
        edges, turns, _ = (_jsonl(out / f) for f in FILES)
    withdrawn = {e["source_turns"][0] for e in edges if e.get("retracts")}
    source = f"generator-{half}"
    items = [
        Item(t["text"], WITHDRAWAL if t["turn_id"] in withdrawn else NONE, "statement", source)
        for t in turns
        if t["role"] == "user"
    ]
    return unique(items)


def paper_cases_items(directory: Path | None = None) -> list[Item]:
    directory = directory or REPO / "tests" / "paper_cases" / "data"
    items = []
    for path in sorted(directory.glob("*.json")):
        for user in json.loads(path.read_text(encoding="utf-8")).get("users", ()):
            for fact in user["facts"]:
                label = WITHDRAWAL if fact.get("retracts") else NONE
                items.append(Item(fact["text"], label, "statement", "paper-cases"))
    return unique(items)


def _retraction_labels(base: Path) -> set[str]:
    gold_dir = base / "gold"
    if gold_dir.is_dir():
        return {
            fact["id"]
            for path in sorted(gold_dir.glob("*.json"))
            for user in json.loads(path.read_text(encoding="utf-8")).get("users", ())
            for fact in user["facts"]
            if fact.get("retracts")
        }
    import tomllib

    out: set[str] = set()
    for path in sorted(base.glob("*.toml")):
        for q in tomllib.loads(path.read_text("utf-8")).get("question", ()):
            if q.get("av") == "AV7":
                out.update(q.get("neutral", ()))
    return out


def paper_turns_items(name: str) -> list[Item]:
    """Every user turn of one `bench/paper_turns` set, labelled as the module says."""
    from bench.paper_turns.cases import load

    if name == "heldout6":
        raise ValueError("heldout6 is sealed")
    base = REPO / "bench" / "paper_turns" / name
    positive = _retraction_labels(base)
    items = []
    for persona in load(base):
        for turn in persona.turns:
            if turn.role == "user":
                label = WITHDRAWAL if turn.turn_id in positive else NONE
                items.append(Item(turn.text, label, "statement", name))
    return unique(items)


def set_items(name: str) -> list[Item]:
    return paper_cases_items() if name == "paper-cases" else paper_turns_items(name)
