"""An edge stream and the query results to compare it by, shared by the embedded and the
distributed ranking-determinism tests (issue 12): rankings, not exports, are the object —
an export leaves the vectors and every ranking statistic out.

`stream()` is the demo story (supersession, a soft update, a retraction, quarantine,
event-time expiry) for two users, with restatements no slot key names (slot association by
similarity, issue 11: it must be as order-independent as the rest), with notes enough to
fill every candidate cut; a third user talks about the same things in the same words.
`rankings()` is the full JSON of every question of a user, as of a time before, inside and
after the story's events, with both rankings.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from schemas.query import QueryRequest, QueryResult

STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
USERS = ("ana", "ben")
#: Talks about Lisbon, London, rent, dogs and coffee — the others' words — thirty times.
NEIGHBOUR = "zoe"
QUESTIONS = (
    "Where does she live now?",
    "how much is the rent",
    "is she getting a dog",
    "when is the dentist appointment",
    "what does she eat",
    "Lisbon flight",
    "coffee in London",
    "which milk does she take in her coffee",
    "when does she play football",
)
#: Before the story's last events, between them, and long after (expiry; the past and future).
AS_OFS = (
    datetime(2026, 6, 20, tzinfo=UTC),
    datetime(2026, 9, 21, 9, tzinfo=UTC),
    datetime(2027, 6, 1, tzinfo=UTC),
)


def story_for(user: str) -> list[dict[str, Any]]:
    rows = []
    for line in STORY.read_text().splitlines():
        row = json.loads(line)
        row.update(user_id=user, edge_id=f"{user}/{row['edge_id']}")
        rows.append(row)
    return rows


def restatements_for(user: str) -> list[dict[str, Any]]:
    """Facts without a slot key that restate a keyed fact of the story in other words: each
    joins that slot by similarity (soft, or superseding on a clear match with a new value).
    One is said before the fact it matches was (it must not join), and the rent's is
    delivered out of order in any permutation."""
    rows = [
        ("milk-almond", "Maya prefers almond milk in her coffee now", "2026-09-20", "almond milk"),
        ("football-mondays", "Maya plays five-a-side football on Mondays now", "2026-09-25", None),
        ("rent-1250", "Maya's rent is $1,250 a month now", "2026-09-28", "$1,250/month"),
        ("cafe-early", "Maya's favorite cafe in London is Prufrock Coffee", "2026-08-01", None),
    ]
    category = {"rent-1250": "FINANCIAL_MATERIAL"}
    return [
        {
            "user_id": user,
            "edge_id": f"{user}/{edge_id}",
            "text": text,
            "category": category.get(edge_id, "PREFERENCES_HABITS"),
            "ingest_time": f"{day}T12:00:00Z",
            **({"value": value} if value else {}),
        }
        for edge_id, text, day, value in rows
    ]


def notes_for(user: str, n: int, seed: int) -> list[dict[str, Any]]:
    """`n` everyday notes in a small vocabulary, some of them word for word the same: more
    candidates than a search's cut (BM25 top-20, dense top-60), and exact ties at the cuts."""
    rng = random.Random(seed)
    words = ("Lisbon", "London", "rent", "dog", "coffee", "dentist", "fish", "Istanbul")
    name = user.capitalize()
    rows = []
    for i in range(n):
        picked = rng.sample(words, 2) if i % 4 else ["coffee", "London"]  # repeated text
        rows.append(
            {
                "user_id": user,
                "edge_id": f"{user}/note-{i:02d}",
                "text": f"{name} talked about {picked[0]} and {picked[1]} today",
                "category": "OTHER",
                "ingest_time": f"2026-07-{1 + i % 28:02d}T10:00:00Z",
            }
        )
    return rows


def neighbour_rows(n: int = 30) -> list[dict[str, Any]]:
    """The neighbour's notes: the others' words, thirty times."""
    return notes_for(NEIGHBOUR, n, seed=12)


def stream() -> list[dict[str, Any]]:
    """Every edge of the two users, story, restatements and notes, user after user."""
    return [
        row
        for i, user in enumerate(USERS)
        for row in story_for(user) + restatements_for(user) + notes_for(user, 48, seed=i)
    ]


def shuffled_with_duplicates(rows: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """A permutation of `rows` with a third of them delivered again, anywhere."""
    rng = random.Random(seed)
    out = list(rows) + rng.sample(list(rows), len(rows) // 3)
    rng.shuffle(out)
    return out


def requests(user: str) -> list[QueryRequest]:
    return [QueryRequest(user_id=user, query=q, as_of=at, k=10) for q in QUESTIONS for at in AS_OFS]


Ask = Callable[[QueryRequest, str], QueryResult]


def rankings(ask: Ask, user: str) -> list[str]:
    """The full JSON of every question of `user`, lifecycle and similarity ranking."""
    return [
        ask(request, ranking).model_dump_json()
        for request in requests(user)
        for ranking in ("lifecycle", "similarity")
    ]


def first_difference(got: Sequence[str], want: Sequence[str]) -> str:
    """The first result that differs, for an assertion message."""
    for g, w in zip(got, want, strict=True):
        if g != w:
            return f"\n got: {g}\nwant: {w}"
    return ""
