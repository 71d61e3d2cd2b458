"""The `Deployment` port, as the SDK, MCP server and inspector to come will use it: the
embedded deployment through `open_deployment`, typed results only."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import pytest
from pydantic import ValidationError

from frecall.deployment import Deployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from schemas.categories import LifecycleState
from schemas.events import EdgeEvent, Embedding
from schemas.query import QueryRequest, QueryResult
from schemas.results import ForgetReceipt, ItemFailure
from workers.embedding.hashing import HashingEmbedder
from workers.errors import NotQueryable
from workers.export import dumps_stable
from workers.inputs import EdgeInput, listed, read_jsonl
from workers.stores.dead_letters import read_dead_letters
from workers.stores.file_log import FileEventLog

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = datetime(2026, 9, 21, 9, tzinfo=UTC)


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, quiet=True)) as opened:
        rows = [EdgeInput.model_validate_json(line) for line in STORY.read_text().splitlines()]
        report = opened.ingest_edges(listed(rows, exclude_unset=True), "story")
        assert report.ok and report.accepted == 29 and not report.queued
        yield opened


def test_users_counts_and_the_inspection_are_typed(deployment: Deployment) -> None:
    (maya,) = deployment.users()
    assert maya.user_id == "maya" and maya.facts == 29 == deployment.count("maya")
    assert maya.by_state[LifecycleState.SUPERSEDED] >= 2
    assert sum(maya.by_category.values()) == 29
    view = deployment.inspect("maya", AS_OF)
    assert view.facts == 29 and view.as_of == AS_OF
    (rent,) = view.categories["FINANCIAL_MATERIAL"]["superseded"]
    assert rent.edge_id == "rent-950" and rent.lifecycle.superseded_by == "rent-1100"
    assert "expired" in view.categories["LOGISTICAL_CONTEXT"]  # as of the time asked


def test_lifecycle_and_plain_similarity_ranking_side_by_side(deployment: Deployment) -> None:
    request = QueryRequest(user_id="maya", query="Where does Maya live?", as_of=AS_OF, k=29)
    life = deployment.query(request, wait_for=["city-london"])  # applied: nothing to wait for
    plain = deployment.query(request, ranking="similarity")
    assert {r.state for r in life.results} == {LifecycleState.ACTIVE}
    assert LifecycleState.SUPERSEDED in {r.state for r in plain.results}


def test_wait_for_an_id_not_in_the_users_memory_answers_at_once(
    deployment: Deployment,
) -> None:
    request = QueryRequest(user_id="maya", query="Where does Maya live?", as_of=AS_OF)
    with pytest.raises(NotQueryable, match="not in the memory of user maya") as caught:
        deployment.query(request, wait_for=["city-london", "someone-elses"], timeout=30)
    assert caught.value.settled and caught.value.missing == ["someone-elses"]


def test_a_batch_answers_in_order_and_dead_letters_bad_items(
    deployment: Deployment, tmp_path: Path
) -> None:
    good = QueryRequest(user_id="maya", query="rent", as_of=AS_OF)
    path = tmp_path / "q.jsonl"
    path.write_text(f"{good.model_dump_json()}\n{{not json\n{good.model_dump_json()}\n")
    answers = list(deployment.query_batch(read_jsonl(path, QueryRequest), str(path)))
    assert [type(a) for a in answers] == [QueryResult, ItemFailure, QueryResult]
    assert answers[1] == ItemFailure(index=2, reason="invalid JSON")
    letters = read_dead_letters(tmp_path / "data" / "dead-letters.jsonl")
    assert [(d["position"], d["raw"]) for d in letters] == [("2", "{not json")]


def test_forget_replay_and_compact_report_what_they_did(deployment: Deployment) -> None:
    receipt = deployment.forget("maya", "city-london")
    assert not receipt.pending
    assert receipt.removed == {"vector_index": 1, "slot_index": 1, "log": 1, "archive": 0}
    before = dumps_stable(deployment.export("maya").model_dump())
    replayed = deployment.replay()
    assert (replayed.edges, replayed.forget_commands, replayed.generation) == (28, 1, None)
    assert dumps_stable(deployment.export("maya").model_dump()) == before
    report = deployment.compact(datetime(2028, 1, 1, tzinfo=UTC))
    assert report.archived > 0 and report.remaining == deployment.count() == 28 - report.archived
    assert report.archive is not None and report.archive.endswith("/archive.jsonl")


def test_a_receipt_names_only_known_stores() -> None:
    with pytest.raises(ValidationError, match="unknown stores"):
        ForgetReceipt(user_id="u", edge_id=None, removed={"qdrant": 1}, at=AS_OF)


def test_facts_that_carry_their_vectors_keep_them_and_another_models_are_rejected(
    tmp_path: Path,
) -> None:
    embedder = HashingEmbedder()
    rows = [EdgeInput.model_validate_json(line) for line in STORY.read_text().splitlines()]
    # Not what this deployment would have made (negated): kept means kept, bit for bit.
    carried = {
        r.text: Embedding.from_array(embedder.model_id, -embedder.embed([r.text])[0]) for r in rows
    }
    given = [r.model_copy(update={"embedding": carried[r.text]}) for r in rows]
    alien = Embedding.from_array("another-model", embedder.embed(["x"])[0])
    foreign = rows[0].model_copy(update={"edge_id": "foreign", "embedding": alien})
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, quiet=True)) as opened:
        report = opened.ingest_edges(listed([*given, foreign], exclude_unset=True), "story")
    assert report.accepted == len(rows) and report.rejected == 1
    (failure,) = report.failures
    assert "made by another-model" in failure.reason and failure.index == len(rows)
    log = FileEventLog(tmp_path / "data" / "log")
    try:
        stored = {e.text: e.embedding for e in log.read() if isinstance(e, EdgeEvent)}
    finally:
        log.close()
    assert stored == carried
