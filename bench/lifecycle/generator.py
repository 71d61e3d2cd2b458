"""`frecall bench lifecycle generate`: a LifecycleBench-style set, deterministic in (N, seed).

The paper's benchmark is not public (§5, Appendix C), so we generate our own: N personas,
~35 sessions over ~18 months each, facts in all 11 categories, and questions over the nine
attack vectors in Table 12's proportions. Output (one directory):

* `edges.jsonl` — gold edges, `frecall ingest-edges` format, `edge_id` = fact id and
  `source_turns` = the user turn that told it (the gold-metadata track);
* `turns.jsonl` — the conversations, `frecall ingest` format (the text track); every fact is
  told in exactly one user turn, so a result is scored through its `source_turns`;
* `questions.jsonl` — question, `as_of`, mode (any / all / absent), gold and stale fact ids;
* `manifest.json` — counts, seed, version, phrasing half, personas.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.lifecycle.background import background, filler
from bench.lifecycle.halves import drawing, pick
from bench.lifecycle.personas import make_persona
from bench.lifecycle.phrasing_filler import ASSISTANT, SMALL_TALK
from bench.lifecycle.scenarios import AV_NAMES, BUILDERS, PAPER_COUNTS
from bench.lifecycle.timeline import (
    ABSENT,
    EVENT_CATEGORIES,
    Fact,
    Question,
    Timeline,
    final_states,
)
from workers.errors import FRError

VERSION = 1
#: Minutes between a user turn and the next (the assistant answers in between).
TURN_MINUTES = 3


class GeneratorError(FRError):
    def __init__(self, persona: str, detail: str) -> None:
        self.persona, self.detail = persona, detail
        super().__init__(f"lifecycle generator, persona {persona}: {detail}")


def quotas(n: int) -> list[dict[str, int]]:
    """Questions per persona and attack vector: Table 12 scaled to n personas (exactly
    Table 12 at n = 40), spread round-robin so personas carry near-equal loads."""
    out: list[dict[str, int]] = [{} for _ in range(n)]
    offset = 0
    for av, paper in PAPER_COUNTS.items():
        total = max(1, int(paper * n / 40 + 0.5))
        for j in range(total):
            i = (offset + j) % n
            out[i][av] = out[i].get(av, 0) + 1
        offset += total
    return out


def build_persona(index: int, seed: int, quota: dict[str, int]) -> Timeline:
    rng = random.Random(f"lifecycle:{seed}:{index}")
    t = Timeline(make_persona(index, rng), rng)
    for av, builder in BUILDERS.items():
        for _ in range(quota.get(av, 0)):
            question = builder(t)
            if question is None:
                raise GeneratorError(t.persona.pid, f"no free slot left for {av}")
            t.questions.append(question)
    background(t)
    filler(t)
    _layout(t)
    _calendar_questions(t)
    check(t)
    return t


def _layout(t: Timeline) -> None:
    """Order each session's turns and give every fact its turn, time and id."""
    p = t.persona
    n = 0
    for s, start in enumerate(p.sessions):
        mine = sorted((f for f in t.facts if f.session == s), key=lambda f: f.order)
        items: list[Fact | None] = [f for f in mine if f.after is None]
        for dep in (f for f in mine if f.after is not None):
            items.insert(items.index(dep.after) + 1, dep)
        for _ in range(t.small_talk.get(s, 0)):
            items.insert(t.rng.randint(0, len(items)), None)
        turn = 0
        for item in items:
            turn += 1
            if item is None:
                continue
            n += 1
            item.fid = f"{p.pid}-f{n:04d}"
            item.turn_id = f"{p.pid}-s{s:02d}-t{2 * turn - 1:02d}"
            item.time = start + timedelta(minutes=TURN_MINUTES * (turn - 1))
        t.session_turns[s] = len(items)


def _calendar_questions(t: Timeline) -> None:
    """AV2 "what's coming up?": gold = every calendar fact still ahead and current,
    stale = every calendar fact already past (C.3: earlier obligations must not surface)."""
    states = final_states(t.facts, t.persona.as_of)
    calendar = [f for f in t.facts if f.event_time is not None and f.category in EVENT_CATEGORIES]
    for q in t.questions:
        if q.variant == "generic":
            q.gold = [f for f in calendar if states[id(f)] == "active"]
            q.stale = [f for f in calendar if f.event_time and f.event_time < t.persona.as_of]


def check(t: Timeline) -> None:
    """Ground-truth consistency: gold facts exist and hold at `as_of`; stale facts do not."""
    states = final_states(t.facts, t.persona.as_of)
    for q in t.questions:
        if q.mode != ABSENT and not q.gold:
            raise GeneratorError(t.persona.pid, f"{q.av} {q.text!r} has no gold fact")
        if set(map(id, q.gold)) & set(map(id, q.stale)):
            raise GeneratorError(t.persona.pid, f"{q.av} {q.text!r}: gold and stale overlap")
        current = any(states[id(f)] == "active" for f in q.gold)
        if q.variant != "before" and q.mode != ABSENT and not current:
            raise GeneratorError(t.persona.pid, f"{q.av} {q.text!r}: no gold is current")
        if q.variant != "before" and any(states[id(f)] == "active" for f in q.stale):
            raise GeneratorError(t.persona.pid, f"{q.av} {q.text!r}: a stale fact is current")


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def edge_line(f: Fact, user: str) -> dict[str, Any]:
    """One `ingest-edges` line (the fields of `workers.inputs.EdgeInput`)."""
    assert f.time is not None
    line: dict[str, Any] = {
        "edge_id": f.fid, "user_id": user, "text": f.gold, "category": f.category.value,
        "slot_key": f.slot, "value": f.value, "confidence": f.confidence, "update": f.update,
        "event_time": _iso(f.event_time) if f.event_time else None,
        "ingest_time": _iso(f.time), "retracts": list(f.retracts), "numeric": f.numeric,
        "source_turns": [f.turn_id],
    }  # fmt: skip
    return {k: v for k, v in line.items() if v not in (None, [])}


def turn_lines(t: Timeline) -> Iterator[dict[str, Any]]:
    """User and assistant turns in order; small talk fills the turns no fact occupies."""
    p = t.persona
    told = {f.turn_id: f for f in t.facts}
    for s, start in enumerate(p.sessions):
        for turn in range(1, t.session_turns[s] + 1):
            tid = f"{p.pid}-s{s:02d}-t{2 * turn - 1:02d}"
            fact = told.get(tid)
            text = fact.say if fact else pick(t.rng, SMALL_TALK)
            at = start + timedelta(minutes=TURN_MINUTES * (turn - 1))
            base = {"user_id": p.user_id, "session_id": f"{p.pid}-s{s:02d}"}
            yield {**base, "turn_id": tid, "role": "user", "text": text, "timestamp": _iso(at)}
            yield {**base, "turn_id": f"{p.pid}-s{s:02d}-t{2 * turn:02d}", "role": "assistant",
                   "text": pick(t.rng, ASSISTANT),
                   "timestamp": _iso(at + timedelta(minutes=1))}  # fmt: skip


def question_lines(t: Timeline) -> Iterator[dict[str, Any]]:
    p = t.persona
    for i, q in enumerate(sorted(t.questions, key=_question_order), start=1):
        yield {
            "qid": f"{p.pid}-q{i:02d}", "user_id": p.user_id, "av": q.av,
            "av_name": AV_NAMES[q.av], "question": q.text, "as_of": _iso(p.as_of),
            "mode": q.mode, "gold": [f.fid for f in q.gold], "stale": [f.fid for f in q.stale],
            "support": [f.fid for f in q.support], "kind": q.kind, "variant": q.variant,
        }  # fmt: skip


def _question_order(q: Question) -> tuple[int, str]:
    return int(q.av[2:]), q.text


@dataclass
class Written:
    personas: int
    facts: int
    turns: int
    questions: int
    out: Path


def generate(n: int, seed: int, out: Path, phrasings: str = "all") -> Written:
    """Write the four files of a benchmark set with n personas to `out`, its wordings drawn
    from the `phrasings` half of every phrasing family (`halves.py`)."""
    if n < 1:
        raise GeneratorError("-", "--personas must be at least 1")
    with drawing(phrasings):
        return _generate(n, seed, out, phrasings)


def _generate(n: int, seed: int, out: Path, phrasings: str) -> Written:
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    per_av: Counter[str] = Counter()
    per_category: Counter[str] = Counter()
    states: Counter[str] = Counter()
    personas: list[dict[str, Any]] = []
    with (
        (out / "edges.jsonl").open("w", encoding="utf-8") as edges,
        (out / "turns.jsonl").open("w", encoding="utf-8") as turns,
        (out / "questions.jsonl").open("w", encoding="utf-8") as questions,
    ):
        for i, quota in enumerate(quotas(n)):
            t = build_persona(i, seed, quota)
            p = t.persona
            for f in sorted(t.facts, key=lambda f: f.fid):
                edges.write(json.dumps(edge_line(f, p.user_id), ensure_ascii=False) + "\n")
                per_category[f.category.value] += 1
            for line in turn_lines(t):
                turns.write(json.dumps(line, ensure_ascii=False) + "\n")
                counts["turns"] += 1
                counts["user_turns"] += line["role"] == "user"
            for line in question_lines(t):
                questions.write(json.dumps(line, ensure_ascii=False) + "\n")
                per_av[line["av"]] += 1
            states.update(final_states(t.facts, p.as_of).values())
            counts["facts"] += len(t.facts)
            slots = Counter(f.slot for f in t.facts if f.slot)
            counts["slots"] += len(slots)
            counts["slots_updated"] += sum(1 for c in slots.values() if c > 1)
            personas.append({
                "pid": p.pid, "name": p.name, "age": p.age, "nationality": p.nationality,
                "occupation": p.occupation, "city": p.city, "first_session": _iso(p.sessions[0]),
                "as_of": _iso(p.as_of), "sessions": len(p.sessions), "facts": len(t.facts),
                "questions": len(t.questions),
            })  # fmt: skip
    manifest = {
        "benchmark": "lifecycle", "version": VERSION, "seed": seed, "personas": n,
        "phrasings": phrasings,
        "counts": {**dict(counts), "questions": sum(per_av.values()),
                   "per_av": dict(sorted(per_av.items(), key=lambda kv: int(kv[0][2:]))),
                   "per_category": dict(per_category.most_common()),
                   "states_at_as_of": dict(states.most_common())},
        "paper_counts": PAPER_COUNTS, "people": personas,
    }  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return Written(n, counts["facts"], counts["turns"], sum(per_av.values()), out)
