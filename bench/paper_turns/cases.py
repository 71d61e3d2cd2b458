"""The paper's worked examples as conversations: the case files and what they hold.

Every case file (`cases/*.toml`) is one user's conversations, written from the paper (Table 1
transitions, Table 13 personas, Table 29, the attack-vector examples of §5 and Appendix C,
Appendix F, the A.7 witnesses, A.13, B.5, B.6) in ordinary words, with chat around them, and
the questions to ask afterwards. Nothing here was written from the generator's templates.

A turn line is `u: text` (a user turn nobody asks about), `u[label]: text` (a user turn a
question refers to by its label) or `a: text` (the assistant). A question names the labels
whose turns must be served (`gold`), must not be served (`stale`), or may be (`neutral`),
and is asked in several phrasings; `mode` is `any` (a gold turn in the top 10), `all` (every
gold turn) or `absent` (no stale turn in the top 10: the paper's pass-by-absence, C.5).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from schemas.events import TurnEvent

CASES_DIR = Path(__file__).with_name("cases")
MODES = ("any", "all", "absent")
#: Minutes between two turns of a session.
TURN_MINUTES = 2
_LINE = re.compile(r"^(?P<role>[ua])(?:\[(?P<label>[\w-]+)\])?:\s*(?P<text>.+)$", re.DOTALL)


class CaseError(ValueError):
    """A case file that does not say what it means."""


@dataclass(frozen=True, slots=True)
class Question:
    case: str
    user_id: str
    av: str
    text: str
    as_of: datetime
    mode: str
    gold: tuple[str, ...]
    stale: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Persona:
    user_id: str
    source: str
    turns: tuple[TurnEvent, ...]
    questions: tuple[Question, ...]


def load(directory: Path = CASES_DIR) -> list[Persona]:
    """Every case file of `directory`, sorted by name."""
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise CaseError(f"no case files in {directory}")
    return [parse(path.name, tomllib.loads(path.read_text("utf-8"))) for path in files]


def parse(source: str, doc: dict[str, Any]) -> Persona:
    user = doc["user"]
    turns: list[TurnEvent] = []
    labels: set[str] = set()
    for s, session in enumerate(doc.get("session", [])):
        start: datetime = session["at"]
        for n, line in enumerate(session["turns"]):
            m = _LINE.match(line)
            if m is None:
                raise CaseError(f"{source}: session {s}: not a turn line: {line!r}")
            label = m["label"]
            if label in labels:
                raise CaseError(f"{source}: label {label!r} used twice")
            if label:
                labels.add(label)
            role = "user" if m["role"] == "u" else "assistant"
            turn_id = label or f"{m['role']}{s:02d}-{n:02d}"
            turns.append(
                TurnEvent(
                    user_id=user,
                    session_id=f"{user}-s{s:02d}",
                    turn_id=turn_id,
                    role=role,
                    text=m["text"].strip(),
                    timestamp=start + timedelta(minutes=TURN_MINUTES * n),
                )
            )
    questions: list[Question] = []
    for q in doc.get("question", []):
        mode = q.get("mode", "any")
        gold, stale = tuple(q.get("gold", ())), tuple(q.get("stale", ()))
        unknown = {*gold, *stale, *q.get("neutral", ())} - labels
        # An `absent` question without a stale label, like any other without a gold one,
        # would pass whatever is served: a mistake, not a question.
        needs = stale if mode == "absent" else gold
        if mode not in MODES or unknown or not needs:
            raise CaseError(f"{source}: question {q.get('case')}: mode {mode}, unknown {unknown}")
        for text in q["ask"]:
            as_of = q.get("as_of", doc["as_of"])
            questions.append(Question(q["case"], user, q["av"], text, as_of, mode, gold, stale))
    return Persona(user, source, tuple(turns), tuple(questions))
