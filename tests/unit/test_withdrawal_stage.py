"""The withdrawal probe reads the vector the raw turn is stored with: each turn's text is
embedded once, in both deployments (issue 11; workers/extraction/withdrawal_probe.py).

The rule extractor yields a candidate retraction for a turn whose markers found none; the
extraction stage (`classify.embedded_edges`, run by the embedded pipeline and by the
distributed extraction handler) keeps it when the probe scores the raw turn's vector at least
the threshold, and only then embeds the retraction's own text. Counted here: every text the
embedder is handed, per call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from frecall.bootstrap import build, make_embedder, rule_extractor
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.embedded.replay import replay_data_dir
from frecall.settings import Settings
from schemas.categories import LifecycleState
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import load_policy
from schemas.streams import EDGES
from workers.app import App
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.lifecycle import LifecycleHandler
from workers.distributed.messages import Received, Rejections
from workers.embedding.hashing import HashingEmbedder
from workers.extraction.classify import embedded_edges
from workers.extraction.model import ExtractedFact
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn
from workers.extraction.withdrawal_probe import WithdrawalGate
from workers.lifecycle.service import LifecycleService
from workers.ports import Embedder
from workers.stores.dead_letters import InMemoryDeadLetters
from workers.stores.memory_archive import InMemoryArchive
from workers.stores.memory_facts import InMemoryFactStore
from workers.stores.memory_ledger import InMemoryDeliveryLedger
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_turns import InMemoryTurnContext

T0 = datetime(2026, 5, 4, 18, tzinfo=UTC)
#: A plan, then its withdrawal in words no retraction marker holds (asserted below).
PLAN = "I'm planning to open a pottery studio in the old mill"
OFF = "Turns out the pottery studio won't work out. The lease costs too much"
CHAT = "Any idea what to cook with leftover rice?"


class Counting:
    """An embedder that counts every text it is handed (`Embedder` over another one)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts: Counter[str] = Counter()
        self.calls = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts.update(texts)
        return self.inner.embed(texts)


def turns(user: str) -> list[TurnEvent]:
    said = [PLAN, CHAT, OFF]
    return [
        TurnEvent(
            user_id=user,
            session_id="s1",
            turn_id=f"t{i}",
            role="user",
            text=text,
            timestamp=T0 + timedelta(minutes=i),
        )
        for i, text in enumerate(said)
    ]


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return make_embedder(Settings(embedder="minilm"))


@pytest.fixture
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    opened = build(Settings(data_dir=tmp_path_factory.mktemp("stage") / "data"), fsync=False)
    try:
        yield opened
    finally:
        opened.close()


def test_the_rules_alone_find_no_retraction_in_the_witness() -> None:
    plan, _, off = turns("x")
    assert not any(f.retracts for f in RuleExtractor().extract(off, [plan]))


def test_embedded_pipeline_retracts_with_one_embedding_per_turn(app: App) -> None:
    counting = Counting(app.embedder)
    counted = replace(app, embedder=counting)
    extractor = rule_extractor(app.policy, app.embedder)
    report = EmbeddedPipeline(counted, quiet=True).ingest_turn_items(
        [(i, "", t) for i, t in enumerate(turns("maya"))], extractor, "test"
    )
    assert report.ok, report
    states = {r.edge.edge_id: r.lifecycle.state for r in app.vectors.scroll("maya")}
    assert states["s1/t0#raw"] == LifecycleState.RETRACTED
    assert states["s1/t1#raw"] == LifecycleState.ACTIVE
    for text in (PLAN, CHAT, OFF):
        assert counting.texts[text] == 1, (text, counting.texts)
    # The one retraction's own text, embedded once, after the probe confirmed it.
    retraction = [t for t in counting.texts if t.endswith(f'("{OFF}")')]
    assert len(retraction) == 1 and counting.texts[retraction[0]] == 1


def test_replay_rebuilds_the_probes_retraction_from_the_log(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    opened = build(settings, fsync=False)
    try:
        extractor = rule_extractor(opened.policy, opened.embedder)
        report = EmbeddedPipeline(opened, quiet=True).ingest_turn_items(
            [(i, "", t) for i, t in enumerate(turns("ana"))], extractor, "test"
        )
        assert report.ok, report
        before = {r.edge.edge_id: r.lifecycle.state for r in opened.vectors.scroll("ana")}
    finally:
        opened.close()
    assert before["s1/t0#raw"] == LifecycleState.RETRACTED
    replay_data_dir(settings)  # the logged retraction edge; the probe is not asked again
    reopened = build(settings, fsync=False)
    try:
        after = {r.edge.edge_id: r.lifecycle.state for r in reopened.vectors.scroll("ana")}
    finally:
        reopened.close()
    assert after == before


def test_distributed_extraction_handler_retracts_with_one_embedding_per_turn(
    minilm: Embedder,
) -> None:
    counting = Counting(minilm)
    letters = InMemoryDeadLetters()
    ledger = InMemoryDeliveryLedger()
    context = InMemoryTurnContext()
    gate = WithdrawalGate.for_embedder(minilm, load_policy())
    assert gate is not None
    extraction = ExtractionHandler(
        RuleExtractor(withdrawal=True), counting, context, ledger, Rejections(letters),
        withdrawal=gate,
    )  # fmt: skip
    messages = [
        Received("fr.turns", 0, n, "maya", t.model_dump_json().encode())
        for n, t in enumerate(turns("maya"))
    ]
    out = extraction.handle_turns(messages)
    for text in (PLAN, CHAT, OFF):
        assert counting.texts[text] == 1, (text, counting.texts)
    edges = [EdgeEvent.model_validate_json(o.value) for o in out if o.topic == EDGES]
    (withdrawn,) = [e for e in edges if e.retracts]
    assert withdrawn.embedding is not None and withdrawn.source_turns == ("t2",)
    # A redelivery (the facts kept as context) yields the same edges, embedding again only
    # what the batch needs.
    again = extraction.handle_turns(messages)
    assert [o.value for o in again] == [o.value for o in out]
    # The lifecycle agent applies them: the plan is retracted.
    facts = InMemoryFactStore(ledger)
    service = LifecycleService(InMemorySlotIndex(), facts, load_policy())
    lifecycle = LifecycleHandler(
        service, facts, ledger, context, Rejections(letters), InMemoryArchive()
    )
    lifecycle.handle_edges([Received(EDGES, 0, n, "maya", o.value) for n, o in enumerate(out)])
    states = {r.edge_id: r.lifecycle.state for r in facts.scroll("maya")}
    assert states["s1/t0#raw"] == LifecycleState.RETRACTED
    assert states["s1/t1#raw"] == LifecycleState.ACTIVE


class Fixed:
    """A gate that says the same of every vector."""

    def __init__(self, verdict: bool) -> None:
        self.verdict = verdict
        self.seen: list[np.ndarray] = []

    def withdraws(self, vector: np.ndarray) -> bool:
        self.seen.append(vector)
        return self.verdict


def stage_input() -> list[tuple[list[EdgeEvent], list[ExtractedFact]]]:
    plan, chat, off = turns("x")
    extractor = RuleExtractor(withdrawal=True)
    facts = extractor.extract(off, [plan, chat])
    assert [f.prototype for f in facts] == ["withdrawal"]
    return [(edges_for_turn(off, facts), facts)]


def test_an_unconfirmed_candidate_is_dropped_and_never_embedded() -> None:
    counting = Counting(HashingEmbedder())
    gate = Fixed(False)
    (edges,) = embedded_edges(stage_input(), counting, gate)
    assert [e.edge_id for e in edges] == ["s1/t2#raw"]  # the raw turn alone
    assert edges[0].episodic_of == () and edges[0].embedding is not None
    assert list(counting.texts) == [OFF] and counting.calls == 1
    # The gate read the raw turn's stored vector.
    (seen,) = gate.seen
    assert np.allclose(seen, edges[0].embedding.to_array())


def test_a_confirmed_candidate_is_kept_and_embedded_after_the_turn() -> None:
    counting = Counting(HashingEmbedder())
    (edges,) = embedded_edges(stage_input(), counting, Fixed(True))
    assert [e.edge_id for e in edges] == ["s1/t2#0", "s1/t2#raw"]
    assert edges[0].retracts and edges[0].embedding is not None
    assert edges[1].episodic_of == ("s1/t2#0",)
    assert counting.texts[OFF] == 1 and counting.calls == 2


def test_without_a_gate_every_candidate_goes() -> None:
    (edges,) = embedded_edges(stage_input(), HashingEmbedder(), None)
    assert not any(e.retracts for e in edges)
