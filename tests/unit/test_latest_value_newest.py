"""The statement that stands must be clearly about the asked attribute (latest_value.newest_min).

The lead's live check (2026-12-02): "where do I live?" demoted "We signed the lease on a flat in
Antwerp" because a later turn about buying a van was near the current city at the probe's
multi-label candidate threshold (0.02) and so stood as "the newest statement". Own wording.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent, Embedding
from schemas.policy import LatestValuePolicy, load_policy
from schemas.records import FactRecord
from workers.embedding.minilm import MiniLMEmbedder
from workers.extraction.attribute_probe import default_probe
from workers.extraction.prototypes import default_table
from workers.query import latest_value

NOW = datetime(2026, 11, 1, tzinfo=UTC)
TABLE = default_table()
RULE = load_policy().latest_value.model_copy(update={"enabled": True}).thresholds()
#: The knob at the value measured (default off: it cost validation stale answers, see notes).
STRICT = RULE.model_copy(update={"newest_min": 0.1})
QUESTION = "where do I live?"
CITY = "we rent a flat in Ghent near the station"


def _demoted(
    embedder: MiniLMEmbedder, newer: str, rule: LatestValuePolicy
) -> dict[str, latest_value.Demotion]:
    texts = [CITY, newer]
    vectors = embedder.embed(texts)
    edges = [
        EdgeEvent(
            edge_id=f"t{i}", user_id="u", text=text, categories=Category.OTHER,
            update="accumulate", confidence=0.9, ingest_time=NOW - timedelta(days=60 - 50 * i),
            embedding=Embedding.from_array(embedder.model_id, vector),
        )
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True))
    ]  # fmt: skip
    probe = default_probe()
    verdicts = latest_value.classify_stored(
        probe, [e.embedding.to_array() for e in edges if e.embedding]
    )
    asked = probe.classify(embedder.embed([QUESTION]))[0]
    allowed = latest_value.single_valued(TABLE, rule)
    slots = latest_value.slot_attributes(TABLE)
    records = [FactRecord(edge=e) for e in edges]
    return latest_value.demotions(Intent.CURRENT, asked, records, verdicts, slots, allowed, rule)


def test_a_turn_barely_near_the_attribute_does_not_stand_as_its_newest_statement(
    embedder: MiniLMEmbedder,
) -> None:
    van = "Joris and I bought the van in the end, so that saving pot is empty."
    assert _demoted(embedder, van, STRICT) == {}
    # Without the threshold (the default) the van turn stands and the city statement moves down.
    assert set(_demoted(embedder, van, RULE)) == {"t0"}


def test_a_clear_newer_statement_still_stands(embedder: MiniLMEmbedder) -> None:
    moved = "the new place in Antwerp has a tiny balcony, we moved in last week"
    demoted = _demoted(embedder, moved, STRICT)
    assert set(demoted) == {"t0"} and demoted["t0"].newer == "t1"
