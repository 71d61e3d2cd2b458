"""Edges with their MiniLM embeddings, for the query-path witnesses that run the real model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, Embedding, ForgetCommand
from schemas.policy import Policy
from schemas.query import QueryRequest
from tests.unit.lifecycle_properties import given_deliveries, given_forgets
from workers.embedding.minilm import MiniLMEmbedder
from workers.lifecycle.service import LifecycleService
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex


def with_embeddings(embedder: MiniLMEmbedder, edges: Sequence[EdgeEvent]) -> dict[str, EdgeEvent]:
    """Edge id → the edge with its MiniLM embedding (one batch for all of them)."""
    vectors = embedder.embed([e.text for e in edges])
    return {
        e.edge_id: e.model_copy(update={"embedding": Embedding.from_array(embedder.model_id, v)})
        for e, v in zip(edges, vectors, strict=True)
    }


def stored(edges: Sequence[EdgeEvent], policy: Policy) -> InMemoryVectorIndex:
    """A fresh in-memory store after the lifecycle applied `edges` in the order given."""
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, policy)
    for edge in edges:
        service.apply(edge)
    return vectors


def stored_forgetting(
    edges: Sequence[EdgeEvent], forgotten: str, at: datetime, policy: Policy
) -> tuple[InMemoryVectorIndex, InMemoryVectorIndex]:
    """(`edges` applied then `forgotten` forgotten, `edges` without it never told)."""
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, policy)
    for edge in edges:
        service.apply(edge)
    service.forget(ForgetCommand(command_id="c", user_id=edges[0].user_id, edge_id=forgotten,
                                 issued_at=at))  # fmt: skip
    return vectors, stored([e for e in edges if e.edge_id != forgotten], policy)


#: A told turn: its text and the facts the extractor drew from it (text, slot key, value).
Turn = tuple[str, Sequence[tuple[str, str | None, str | None]]]


def told_turns(
    turns: Sequence[Turn], now: datetime, category: Category, *,
    update: UpdateSemantics = UpdateSemantics.REPLACE, confidence: float = 0.9,
) -> list[EdgeEvent]:  # fmt: skip
    """The turns as the offline extractor stores them — each turn's facts (`category`, replace
    semantics unless `update` says otherwise), then the raw turn pointing to them — one turn a
    week up to `now`; user "u1", without embeddings (`with_embeddings` adds them)."""
    edges: list[EdgeEvent] = []
    for n, (turn, facts) in enumerate(turns):
        at = now - timedelta(days=7 * (len(turns) - n))
        ids = tuple(f"s{n}#{i}" for i in range(len(facts)))
        common = {"user_id": "u1", "ingest_time": at, "source_turns": (f"s{n}",)}
        for fact_id, (text, slot, value) in zip(ids, facts, strict=True):
            edges.append(EdgeEvent(
                edge_id=fact_id, text=text, categories=category, slot_key=slot, value=value,
                update=update, confidence=confidence, **common,
            ))  # fmt: skip
        edges.append(EdgeEvent(edge_id=f"s{n}#raw", text=turn, categories=Category.OTHER,
                               episodic=True, episodic_of=ids, **common))  # fmt: skip
    return edges


def ask(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str, policy: Policy,
    now: datetime,
) -> list[tuple[str, list[str]]]:  # fmt: skip
    """(edge id, why) of user "u1"'s ranking for `question` as of `now`."""
    service = QueryService(vectors, embedder, policy, clock=lambda: now)
    result = service.query(QueryRequest(user_id="u1", query=question, as_of=now))
    return [(r.edge_id, r.why) for r in result.results]


def off_on(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str, off: Policy,
    on: Policy, now: datetime,
) -> tuple[set[str], set[str]]:  # fmt: skip
    """The edge ids `ask` answers for `question` under `off` and under `on` (a window rule's
    policy without and with it, `with_rule`)."""
    return (
        {e for e, _ in ask(vectors, embedder, question, off, now)},
        {e for e, _ in ask(vectors, embedder, question, on, now)},
    )


def ranking_properties(
    stream: Sequence[EdgeEvent], question: str, policy: Policy, now: datetime
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The two properties a query-time window rule owes (it is a function of the edge set):
    the ranking of `question` is the same whatever order `stream` was delivered in, with
    repeats, and forgetting an edge ends where never telling it does. Two test functions, to
    bind to `test_…` names in a module that provides the `embedder` and `embedded` fixtures."""
    examples = settings(
        deadline=None, max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )

    def answer(edges: Sequence[EdgeEvent], embedder: MiniLMEmbedder) -> list[tuple[str, list[str]]]:
        return ask(stored(edges, policy), embedder, question, policy, now)

    @examples
    @given_deliveries(stream, max_repeats=3)
    def delivery_order(
        embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent], order: list[EdgeEvent],
        repeats: list[EdgeEvent],
    ) -> None:  # fmt: skip
        in_order = sorted(stream, key=lambda e: (e.ingest_time, e.edge_id))
        reference = answer([embedded[e.edge_id] for e in in_order], embedder)
        assert answer([embedded[e.edge_id] for e in [*order, *repeats]], embedder) == reference

    @examples
    @given_forgets(stream)
    def forgetting(
        embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent], order: list[EdgeEvent],
        forgotten: str,
    ) -> None:  # fmt: skip
        edges = [embedded[e.edge_id] for e in order]
        forgot, never = stored_forgetting(edges, forgotten, now, policy)
        assert ask(forgot, embedder, question, policy, now) == ask(
            never, embedder, question, policy, now
        )

    return delivery_order, forgetting


def as_of_property(
    stream: Sequence[EdgeEvent], question: str, policy: Policy, as_of: datetime
) -> Callable[..., Any]:
    """A query-time rule reads only what was told by the question's as_of: the ranking of
    `question` as of `as_of` over the whole `stream` (delivered in any order) is the ranking
    over the edges ingested by then. For streams without a slot replaced after `as_of` (a
    superseded fact is admitted to an as_of question in its stored state). One test function,
    bound like `ranking_properties`'."""
    examples = settings(
        deadline=None, max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )

    @examples
    @given_deliveries(stream, max_repeats=2)
    def as_of_cut(
        embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent], order: list[EdgeEvent],
        repeats: list[EdgeEvent],
    ) -> None:  # fmt: skip
        told = [embedded[e.edge_id] for e in [*order, *repeats]]
        then = [e for e in told if e.ingest_time <= as_of]
        assert ask(stored(told, policy), embedder, question, policy, as_of) == ask(
            stored(then, policy), embedder, question, policy, as_of
        )

    return as_of_cut


def with_rule(policy: Policy, name: str, **fields: Any) -> Policy:
    """`policy` with its rule `name` (a window rule's policy block) changed by `fields`."""
    return policy.model_copy(update={name: getattr(policy, name).model_copy(update=fields)})


def moved_by(answer: Sequence[tuple[str, Sequence[str]]], reason: str) -> set[str]:
    """The edge ids of an `ask` answer whose `why` holds a reason starting with `reason`
    (which window rule moved them)."""
    return {e for e, why in answer if any(w.startswith(reason) for w in why)}


def embedded_stream(stream: Sequence[EdgeEvent]) -> Any:
    """A module-scoped `embedded` fixture: edge id → the edge of `stream` with its MiniLM
    embedding (bind it as `embedded = embedded_stream(STREAM)` in the witness module)."""

    @pytest.fixture(scope="module")
    def embedded(embedder: MiniLMEmbedder) -> dict[str, EdgeEvent]:
        return with_embeddings(embedder, stream)

    return embedded


def asker(default: Policy, now: datetime) -> Callable[..., list[tuple[str, list[str]]]]:
    """`ask` as of `now` with the witness module's policy, another one passed for a run."""

    def _ask(
        vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str,
        policy: Policy = default,
    ) -> list[tuple[str, list[str]]]:  # fmt: skip
        return ask(vectors, embedder, question, policy, now)

    return _ask
