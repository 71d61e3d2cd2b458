from __future__ import annotations

import math
import zlib

import pytest

from workers.text import bm25
from workers.text.bm25 import document_vector, query_vector, token_index, tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("I moved to Berlin", ["mov", "berlin"]),
        ("The rent went from $950 to 1,100 dollars", ["rent", "went", "950", "1100", "dollar"]),
        ("$1,250.50 and 3.5 and 12,345", ["1250.50", "3.5", "12345"]),
        ("1,2,3", ["1", "2", "3"]),
        ("Sarah's hikes; she hiked, loves hiking", ["sarah", "hik", "hik", "lov", "hik"]),
        ("running swimming falling", ["run", "swim", "fall"]),
        ("cities boxes classes married", ["city", "box", "class", "marry"]),
        ("bus analysis need", ["bus", "analysis", "need"]),
        ("Café in MÜNCHEN, B12 and covid19", ["café", "münchen", "b12", "covid19"]),
        ("I don't think it's a problem", ["think", "problem"]),
        ("", []),
        ("   ...!?  ", []),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_token_index_is_a_stable_31_bit_crc32() -> None:
    # Replays on other machines depend on these exact numbers: never change them silently.
    assert token_index("toyota") == zlib.crc32(b"toyota") & 0x7FFFFFFF
    assert token_index("toyota") == 508133599
    assert all(0 <= token_index(t) < 2**31 for t in ["a", "münchen", "1100", "x" * 1000])


def test_document_vector_weights_follow_bm25_tf() -> None:
    vec = document_vector("Toyota Toyota corolla")  # 3 tokens, tf(toyota) = 2
    norm = bm25.K1 * (1 - bm25.B + bm25.B * 3 / bm25.AVG_DOC_LEN)
    expected = {
        token_index("toyota"): 2 * (bm25.K1 + 1) / (2 + norm),
        token_index("corolla"): 1 * (bm25.K1 + 1) / (1 + norm),
    }
    assert dict(zip(vec.indices, vec.values, strict=True)) == pytest.approx(expected)
    assert list(vec.indices) == sorted(vec.indices)


def test_longer_documents_weigh_a_term_less() -> None:
    short = document_vector("toyota corolla")
    long = document_vector("toyota corolla parked outside the old red brick garage downtown")
    idx = token_index("toyota")
    weight = {v: dict(zip(v.indices, v.values, strict=True))[idx] for v in (short, long)}
    assert weight[short] > weight[long] > 0


def test_query_vector_has_unit_weight_per_distinct_token() -> None:
    vec = query_vector("Which Toyota? toyota, TOYOTA corolla")
    assert sorted(vec.indices) == sorted({token_index("toyota"), token_index("corolla")})
    assert set(vec.values) == {1.0}


def test_empty_text_gives_empty_vectors() -> None:
    assert document_vector("the and of").indices == ()
    assert query_vector("").values == ()


def test_colliding_indices_are_summed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25, "token_index", lambda token: 7)
    assert query_vector("alpha beta").indices == (7,)
    assert query_vector("alpha beta").values == (2.0,)
    doc = document_vector("alpha beta")
    norm = bm25.K1 * (1 - bm25.B + bm25.B * 2 / bm25.AVG_DOC_LEN)
    assert doc.values == pytest.approx((2 * (bm25.K1 + 1) / (1 + norm),))


def test_vectors_are_deterministic() -> None:
    text = "I paid $1,100 for the flight to Lisbon"
    assert document_vector(text) == document_vector(text)
    assert all(math.isfinite(v) and v > 0 for v in document_vector(text).values)
