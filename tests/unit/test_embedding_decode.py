"""`Embedding.to_array` decodes each base64 text once (the lifecycle reads the same vectors
many times per edge); what it returns must still be the vector, read-only, and a header
that lies about its length must still be refused, cached or not."""

from __future__ import annotations

import numpy as np
import pytest

from schemas.events import Embedding


def test_decoded_vector_is_shared_read_only_and_exact() -> None:
    vector = np.linspace(-1, 1, 16, dtype=np.float32)
    first = Embedding.from_array("m", vector)
    again = Embedding.model_validate_json(first.model_dump_json())  # another text object
    a, b = first.to_array(), again.to_array()
    np.testing.assert_array_equal(a, vector)
    assert a.tobytes() == vector.tobytes()
    assert a is b  # decoded once
    with pytest.raises(ValueError):
        a[0] = 5.0  # shared between callers: must not be writable


def test_a_wrong_length_header_is_refused_even_when_the_text_was_decoded() -> None:
    good = Embedding.from_array("m", np.ones(8, dtype=np.float32))
    good.to_array()
    liar = Embedding(model="m", dim=9, b64=good.b64)
    for _ in range(2):
        with pytest.raises(ValueError, match="header says 9"):
            liar.to_array()
