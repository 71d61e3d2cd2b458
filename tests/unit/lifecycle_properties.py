"""The two properties every lifecycle rule decided by the edge set must keep (issue 12),
shared by the association, retargeting and change-naming tests: delivered in any order,
with repeats, the edges end where ingest order ends; forgetting an edge ends where never
having seen it ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from schemas.events import EdgeEvent, ForgetCommand
from workers.export import dumps_stable, export_user
from workers.lifecycle.service import LifecycleService
from workers.stores.memory_vectors import InMemoryVectorIndex

MakeService = Callable[[], tuple[LifecycleService, InMemoryVectorIndex]]


def given_deliveries(stream: Sequence[EdgeEvent], max_repeats: int) -> Callable[..., Any]:
    """Hypothesis: the test gets `stream` in any order and up to `max_repeats` repeated edges."""
    return given(st.permutations(stream), st.lists(st.sampled_from(stream), max_size=max_repeats))


def given_forgets(stream: Sequence[EdgeEvent]) -> Callable[..., Any]:
    """Hypothesis: the test gets `stream` in any order and the id of one edge to forget."""
    return given(st.permutations(stream), st.sampled_from([e.edge_id for e in stream]))


def _export(vectors: InMemoryVectorIndex) -> str:
    return dumps_stable(export_user(vectors, "u1"))


def assert_delivery_order_free(
    make: MakeService, stream: Sequence[EdgeEvent], delivered: Sequence[EdgeEvent]
) -> InMemoryVectorIndex:
    """`delivered` (any order, repeats) exports what `stream` in ingest order does; returns
    the delivered store for the caller's own assertions on the outcome."""
    reference, ref_vectors = make()
    for e in sorted(stream, key=lambda x: (x.ingest_time, x.edge_id)):
        reference.apply(e)
    svc, vectors = make()
    for e in delivered:
        svc.apply(e)
    assert _export(vectors) == _export(ref_vectors)
    return vectors


def assert_forget_converges(
    make: MakeService, stream: Sequence[EdgeEvent], order: Sequence[EdgeEvent], forgotten: str
) -> None:
    """Applying `order` then forgetting `forgotten` exports what never seeing it does."""
    reference, ref_vectors = make()
    for e in stream:
        if e.edge_id != forgotten:
            reference.apply(e)
    svc, vectors = make()
    for e in order:
        svc.apply(e)
    svc.forget(ForgetCommand(command_id="c", user_id="u1", edge_id=forgotten,
                             issued_at=datetime(2027, 1, 1, tzinfo=UTC)))  # fmt: skip
    assert _export(vectors) == _export(ref_vectors)
