"""Witnesses of the query path's lifecycle ranking on realistic text (MiniLM, offline).

Every fact names the user, as in a real store, so that cosine similarities bunch (the
fillers are the paper-cases suite's). One test per failure class of issue 10:
2 — an event ahead that shares no words with a generic "what's coming up?" question;
3 — a successor that shares no words with the question about its predecessor;
5 — questions about what happened are read as such, not as questions about the present.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from schemas.query import QueryRequest, QueryResult
from workers.embedding.minilm import MiniLMEmbedder
from workers.lifecycle.service import LifecycleService
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

C = Category
NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
FILLERS = Path(__file__).parents[1] / "paper_cases" / "data" / "fillers.json"
POLICY = load_policy()


def _service(embedder: MiniLMEmbedder, name: str, facts: Sequence[dict[str, Any]]) -> QueryService:
    """A store with the user's facts among fillers about the same person. A fact: id, text,
    category, days (before NOW); optional slot, value, confidence, event (days from NOW),
    retracts."""
    vectors = InMemoryVectorIndex()
    lifecycle = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    fillers = json.loads(FILLERS.read_text("utf-8"))["fillers"]
    rows: list[dict[str, Any]] = [
        {"id": f"filler{i}", "text": f["text"].format(name=name, pos="her", subj="she"),
         "category": C(f["category"]), "slot": f"filler.{i}", "days": 300 - 11 * i}
        for i, f in enumerate(fillers)
    ]  # fmt: skip
    rows += list(facts)
    vectors_ = embedder.embed([r["text"] for r in rows])
    for row, vector in zip(rows, vectors_, strict=True):
        slot = row.get("slot")
        event = row.get("event")
        lifecycle.apply(
            EdgeEvent(
                edge_id=row["id"],
                user_id="u",
                text=row["text"],
                categories=row["category"],
                slot_key=slot,
                value=row.get("value"),
                update="replace" if slot else "accumulate",
                confidence=row.get("confidence", 0.9),
                retracts=tuple(row.get("retracts", ())),
                ingest_time=NOW - timedelta(days=row["days"]),
                event_time=None if event is None else NOW + timedelta(days=event),
                embedding=Embedding.from_array(embedder.model_id, vector),
            )
        )
    return QueryService(vectors, embedder, POLICY, clock=lambda: NOW)


def _ask(service: QueryService, question: str) -> QueryResult:
    return service.query(QueryRequest(user_id="u", query=question, as_of=NOW))


def _ids(result: QueryResult, k: int = 10) -> list[str]:
    return [r.edge_id for r in result.results[:k]]


def test_class2_an_event_ahead_answers_a_generic_upcoming_question(
    embedder: MiniLMEmbedder,
) -> None:
    """Table 13 (Billy) / A.13: the survey 34 days ahead shares no words with the question;
    on main it ranked after the σ tier of fillers that merely name Billy."""
    service = _service(
        embedder,
        "Billy",
        [{"id": "survey", "text": "Billy has an aerial survey on June 4 for the muskox count, "
          "by helicopter out of Inuvik.", "category": C.OBLIGATIONS, "slot": "billy.survey",
          "value": "June 4", "days": 47, "event": 34}],
    )  # fmt: skip
    result = _ask(service, "What's coming up for Billy?")
    assert result.intent is Intent.UPCOMING
    assert "survey" in _ids(result, 3), _ids(result)


def test_class3_the_successor_answers_for_its_predecessor(embedder: MiniLMEmbedder) -> None:
    """Table 13 (Diane): "Does Diane still grow echinacea?" matches the superseded garden
    fact; the watercolor fact that replaced it shares no words with the question."""
    service = _service(
        embedder,
        "Diane",
        [
            {"id": "garden", "text": "Diane grows perennials mostly: echinacea, black-eyed "
             "Susan and butterfly weed.", "category": C.HOBBIES_RECREATION,
             "slot": "diane.hobby", "value": "gardening", "days": 460},
            {"id": "watercolor", "text": "Diane had to give up the garden; she has found "
             "watercolor and paints the flowers she can no longer kneel beside.",
             "category": C.HOBBIES_RECREATION, "slot": "diane.hobby", "value": "watercolor",
             "days": 160, "confidence": 0.95},
        ],
    )  # fmt: skip
    result = _ask(service, "Does Diane still grow echinacea?")
    assert "garden" not in _ids(result)
    first = result.results[0]
    assert first.edge_id == "watercolor"
    assert any("successor of garden" in why for why in first.why)


def test_class3_a_retraction_answers_for_the_plan_it_cancelled(embedder: MiniLMEmbedder) -> None:
    """Table 13 (Lily): the exchange plan is retracted by "the UBC thing is dead"."""
    service = _service(
        embedder,
        "Lily",
        [
            {"id": "ubc", "text": "Lily is applying for an exchange semester at UBC in "
             "Vancouver.", "category": C.PROJECTS_ENDEAVORS, "slot": "lily.exchange",
             "value": "applying", "days": 300, "confidence": 0.8},
            {"id": "dead", "text": "Lily says the UBC thing is dead and she is scrapping it.",
             "category": C.PROJECTS_ENDEAVORS, "days": 200, "retracts": ["lily.exchange"]},
        ],
    )  # fmt: skip
    result = _ask(service, "Will Lily study abroad?")
    ids = _ids(result)
    assert "ubc" not in ids and "dead" in ids


def test_class5_a_question_about_a_past_event_is_read_as_past(embedder: MiniLMEmbedder) -> None:
    """Table 13 (Mehmet): the hygiene inspection is long past. Asked in the past tense, the
    question admits the expired event (mask M_q of past questions, A.7.4); on main it was
    read as a current-state question and the event was masked."""
    service = _service(
        embedder,
        "Mehmet",
        [{"id": "inspection", "text": "Mehmet has a hygiene inspection at the shop on February "
          "20.", "category": C.OBLIGATIONS, "slot": "mehmet.inspection", "value": "February 20",
          "days": 470, "event": -450}],
    )  # fmt: skip
    for question in ("When was the hygiene inspection at Mehmet's shop?",
                     "Did Mehmet's shop have a hygiene inspection?"):  # fmt: skip
        result = _ask(service, question)
        assert result.intent is Intent.PAST
        assert _ids(result, 3)[0] == "inspection"
    current = _ask(service, "Does Mehmet have an inspection coming up?")
    assert "inspection" not in _ids(current)
