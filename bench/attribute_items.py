"""Labelled sentences for the attribute probe (issue 11: classification that does not depend
on exact wording): which single-valued attribute a statement or a question is about.

Labels are the fixed-key attributes of `workers/extraction/prototypes.toml` (one slot key, no
"{head}" template) plus `NONE`: small talk, background facts, and statements of attributes
whose slot holds many values or is not among them (hobbies, appointments, pets, …).

Sources, by role:

* training — the generator's TRAIN phrasing half (`frecall bench lifecycle generate
  --phrasings train`): the user turn that tells each fact (the fact's slot key → its
  attribute), the small-talk turns, and the questions (their gold facts' attribute); the
  prototype sentences themselves; and the human-written development sets (`DEV_SETS`):
  `tests/paper_cases/data` (gold facts with slot keys and their questions) and
  `bench/paper_turns/{cases,heldout,heldout2}` (labelled turns and their questions) — judged
  honestly by leaving each one out in turn (`bench attribute-probe --leave-one-out`);
* evaluation only — the generator's TEST half (the same stories in held-out wordings) and the
  validation sets `bench/paper_turns/{heldout3,heldout4}` (`VALIDATION_SETS`).

The slot-key maps below are labels for training and evaluation: they name which attribute a
benchmark's slot key *is*, they classify nothing at run time.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.lifecycle.generator import generate
from workers.extraction.prototypes import Table, default_table
from workers.query.latest_value import slot_attributes

NONE = "none"
REPO = Path(__file__).resolve().parent.parent

#: The generator's slot keys (bench/lifecycle) → the prototype attribute they are: the table's
#: own fixed keys, and three the generator names otherwise. Every other key (appointments,
#: deliveries, hobbies, relatives, the workout time …) is `NONE`.
GENERATOR_SLOTS = slot_attributes(default_table()) | {
    "user.job_title": "profession",
    "user.music": "music_preference",
    "user.favorite_cuisine": "food_preference",
}

#: The development sets' slot-key suffixes ("dev.employer") and turn-label prefixes
#: ("employer-google") → attribute; anything else is `NONE`.
DEV_KEYS = {
    "occupation": "profession", "job": "profession", "employer": "employer",
    "current_city": "current_city", "current_base": "current_city", "city": "current_city",
    "hometown": "hometown", "partner": "partner", "relationship": "partner",
    "relationship.alex": "partner", "rent": "rent", "diet": "diet", "apprentice": "apprentice",
    "food_pref": "food_preference", "food_preference": "food_preference",
    "food": "food_preference", "oat_milk": "milk", "milk": "milk", "coffee": "coffee_order",
    "denomination": "religion", "episcopal": "religion", "ucc": "religion",
    "ordained": "religion", "shift_pattern": "work_schedule", "tea_pref": "drink_preference",
    "morning_drink": "drink_preference", "vehicle": "car", "last_name": "name",
    "lastname": "name", "home_commute": "commute",
    # The validation sets' keys (heldout3, heldout4): labels to judge the probe by, never
    # training data.
    "residence": "current_city", "home": "current_city", "surname": "name",
    "career": "profession", "manager": "manager", "car": "car", "commute": "commute",
    "work_schedule": "work_schedule",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Item:
    text: str
    label: str
    kind: str  # "statement", "question" or "prototype"
    source: str


def labels(table: Table | None = None) -> list[str]:
    """The probe's classes: the fixed-key attributes in table order, then `NONE`."""
    table = table or default_table()
    names = dict.fromkeys(a.name for a in table.attributes if a and "{" not in a.slot)
    return [*names, NONE]


def prototype_items(table: Table | None = None) -> list[Item]:
    """The prototype sentences: an attribute's examples are that attribute; category examples
    and per-item attributes (hobby, health …) are `NONE`."""
    table = table or default_table()
    known = set(labels(table))
    out = []
    for text, attribute in zip(table.texts, table.attributes, strict=True):
        label = attribute.name if attribute and attribute.name in known else NONE
        out.append(Item(text, label, "prototype", "prototypes"))
    return out


def generator_items(half: str, personas: int, seed: int) -> list[Item]:
    """Statements (fact turns and small talk) and questions of a generated set of `half`."""
    with tempfile.TemporaryDirectory(prefix="attr-items-") as tmp:
        out = Path(tmp)
        generate(personas, seed, out, phrasings=half)
        edges, turns, questions = (_jsonl(out / f) for f in FILES)
    source = f"generator-{half}"
    told = {e["source_turns"][0]: GENERATOR_SLOTS.get(e.get("slot_key", ""), NONE) for e in edges}
    slot = {e["edge_id"]: GENERATOR_SLOTS.get(e.get("slot_key", ""), NONE) for e in edges}
    items = [
        Item(t["text"], told.get(t["turn_id"], NONE), "statement", source)
        for t in turns
        if t["role"] == "user"
    ]
    for q in questions:
        asked = {slot[g] for g in q["gold"]}
        if len(asked) == 1:  # a question whose gold spans attributes has no one label
            items.append(Item(q["question"], asked.pop(), "question", source))
    return unique(items)


FILES = ("edges.jsonl", "turns.jsonl", "questions.jsonl")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def unique(items: list[Item]) -> list[Item]:
    """First occurrence of each (text, label, kind), in order (filler repeats a lot)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for item in items:
        key = (item.text, item.label, item.kind)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _dev_label(key: str) -> str:
    return DEV_KEYS.get(key, NONE)


def paper_cases_items(directory: Path | None = None) -> list[Item]:
    """Gold facts (their text, their slot key's attribute) and questions of the paper cases."""
    directory = directory or REPO / "tests" / "paper_cases" / "data"
    items = []
    for path in sorted(directory.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for user in doc.get("users", ()):
            slot = {}
            for fact in user["facts"]:
                key = fact.get("slot", "")
                label = _dev_label(key.split(".", 1)[1]) if "." in key else NONE
                slot[fact["id"]] = label
                items.append(Item(fact["text"], label, "statement", "paper-cases"))
            for q in user.get("questions", ()):
                asked = {slot[g] for g in q.get("gold", ()) if g in slot}
                if len(asked) == 1:
                    label = asked.pop()
                    items.extend(Item(text, label, "question", "paper-cases") for text in q["ask"])
    return unique(items)


def paper_turns_items(name: str) -> list[Item]:
    """Labelled user turns and the questions of one `bench/paper_turns` set: heldout2's labels
    are gold fact ids (their slot keys say the attribute), the others' labels start with it."""
    from bench.paper_turns.cases import load

    base = REPO / "bench" / "paper_turns" / name
    gold: dict[str, str] = {}
    if (base / "gold").is_dir():
        for path in sorted((base / "gold").glob("*.json")):
            for user in json.loads(path.read_text(encoding="utf-8")).get("users", ()):
                for fact in user["facts"]:
                    key = fact.get("slot", "")
                    gold[fact["id"]] = _dev_label(key.split(".", 1)[1]) if "." in key else NONE

    def label_of(turn_label: str) -> str:
        if gold:
            return gold.get(turn_label, NONE)
        return _dev_label(turn_label.split("-", 1)[0])

    items = []
    for persona in load(base):
        for turn in persona.turns:
            if turn.role == "user" and not _unlabelled(turn.turn_id):
                items.append(Item(turn.text, label_of(turn.turn_id), "statement", name))
        for q in persona.questions:
            asked = {label_of(g) for g in q.gold}
            if len(asked) == 1:
                items.append(Item(q.text, asked.pop(), "question", name))
    return unique(items)


def _unlabelled(turn_id: str) -> bool:
    """`cases.load` names an unlabelled turn "u03-02" / "a03-03"."""
    return len(turn_id) == 6 and turn_id[0] in "ua" and turn_id[1:3].isdigit()


#: The human-written sets the probe trains on, and the ones it is only judged on.
DEV_SETS = ("paper-cases", "cases", "heldout", "heldout2")
VALIDATION_SETS = ("heldout3", "heldout4")


def set_items(name: str) -> list[Item]:
    return paper_cases_items() if name == "paper-cases" else paper_turns_items(name)


def dev_items() -> Iterator[tuple[str, list[Item]]]:
    for name in DEV_SETS:
        yield name, set_items(name)


def validation_items() -> Iterator[tuple[str, list[Item]]]:
    for name in VALIDATION_SETS:
        yield name, set_items(name)
