"""A small OpenAI-compatible HTTP server for tests: the real `openai` client, no mocks.

Routes: `POST /v1/embeddings` (vectors from the hashing embedder, base64 or floats) and
`POST /v1/chat/completions` (queued replies, or recorded response bodies replayed verbatim
from `tests/data/llm_responses/`). Every request is recorded with its path, headers and
JSON body so that tests can assert the wire shape.

The server runs on 127.0.0.1 on an ephemeral port in a daemon thread. Shutdown has a hard
fallback: `shutdown()` runs on a helper thread with a bound, the socket is closed regardless,
and replies that are still sleeping (slow-reply tests) are woken up, so nothing outlives the
test.

Use `serve_fake_openai()` for the server and `openai_client(state)` for a client pointed at it.
"""

from __future__ import annotations

import base64
import itertools
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import openai

from workers.embedding.hashing import HashingEmbedder

logger = logging.getLogger(__name__)

RECORDED_DIR = Path(__file__).resolve().parent / "data" / "llm_responses"
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")


def fake_vector(text: str, dim: int) -> list[float]:
    """The vector the fake returns for `text`: the hashing embedder's, scaled.

    Deliberately not unit length, so that an embedder's normalization is observable.
    """
    return [float(x) for x in HashingEmbedder(dim=dim).embed([text])[0] * (2.0 + len(text))]


@dataclass(frozen=True)
class ChatReply:
    """One answer of `/v1/chat/completions`.

    `body` replays a whole recorded response verbatim; otherwise an envelope is built around
    `content` (the assistant message text). A `status` other than 200 answers with an
    OpenAI-style error object. `delay_s` holds the answer back (timeout tests); `usage`
    is (prompt_tokens, completion_tokens), None for a server that reports no usage.
    """

    content: str | None = None
    status: int = 200
    body: dict[str, Any] | None = None
    finish_reason: str = "stop"
    refusal: str | None = None
    usage: tuple[int, int] | None = (120, 40)
    delay_s: float = 0.0

    @classmethod
    def recorded(cls, name: str) -> ChatReply:
        """A recorded response body from tests/data/llm_responses/<name>.json."""
        return cls(body=json.loads((RECORDED_DIR / f"{name}.json").read_text("utf-8")))

    @classmethod
    def json(cls, payload: object, **kwargs: Any) -> ChatReply:
        """A reply whose message content is `payload` serialized as the model would."""
        return cls(content=json.dumps(payload, ensure_ascii=False), **kwargs)

    @classmethod
    def error(cls, status: int) -> ChatReply:
        return cls(status=status)


@dataclass
class FakeOpenAI:
    """State of the fake server: what it received and how it should answer next."""

    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    default_dim: int = 8
    # Embeddings: queued answers for the next requests, an HTTP status (error) or "zero".
    next_answers: list[int | str] = field(default_factory=list)
    # Chat completions: queued replies, then `chat_default` for every further request.
    chat_replies: list[ChatReply] = field(default_factory=list)
    chat_default: ChatReply | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    #: Client connections the server still holds open (keep-alive until the client closes).
    open_connections: int = 0

    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of every chat-completions request, in arrival order."""
        with self.lock:
            return [r["body"] for r in self.requests if r["path"] == "/v1/chat/completions"]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_POST(self) -> None:
        state = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with state.lock:
            state.requests.append(
                {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                }
            )
        if self.path == "/v1/embeddings":
            self._embeddings(body)
        elif self.path == "/v1/chat/completions":
            self._chat(body)
        else:
            self._send(404, {"error": {"message": "no such route", "type": "invalid_request"}})

    def _embeddings(self, body: dict[str, Any]) -> None:
        state = self.server.state
        with state.lock:
            answer = state.next_answers.pop(0) if state.next_answers else None
        if isinstance(answer, int):
            self._error(answer)
            return
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dim = int(body.get("dimensions", state.default_dim))
        data = []
        for index, text in enumerate(inputs):
            vector = [0.0] * dim if answer == "zero" else fake_vector(text, dim)
            if body.get("encoding_format") == "base64":
                raw = np.asarray(vector, dtype="<f4").tobytes()
                encoded: Any = base64.b64encode(raw).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        data.reverse()  # the API does not promise order; the embedder must sort by index
        usage = {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}
        self._send(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server.state
        with state.lock:
            reply = state.chat_replies.pop(0) if state.chat_replies else state.chat_default
        if reply is None:
            # Not retryable on purpose: a test that forgot to queue a reply fails at once.
            self._send(400, {"error": {"message": "fake: no chat reply queued", "type": "test"}})
            return
        if reply.delay_s and state.stopping.wait(reply.delay_s):
            return  # the server is shutting down: drop the reply
        if reply.status != 200:
            self._error(reply.status)
            return
        self._send(200, reply.body if reply.body is not None else _envelope(body, reply))

    def _error(self, status: int) -> None:
        error = {"message": f"fake failure {status}", "type": "server_error", "code": None}
        self._send(status, {"error": error})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout passed): expected in timeout tests.
            logger.debug("fake openai: client went away before the reply")

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("fake openai: " + format, *args)


_ids = itertools.count(1)


def _envelope(request: dict[str, Any], reply: ChatReply) -> dict[str, Any]:
    message = {"role": "assistant", "content": reply.content, "refusal": reply.refusal}
    out: dict[str, Any] = {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_741_977_000,
        "model": request.get("model", "fake"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}
        ],
    }
    if reply.usage is not None:
        prompt, completion = reply.usage
        out["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck keep-alive connection must not block shutdown

    def __init__(self, state: FakeOpenAI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def finish_request(self, request: Any, client_address: Any) -> None:
        # One call per connection: it returns when the client closes it (HTTP/1.1 keep-alive).
        with self.state.lock:
            self.state.open_connections += 1
        try:
            super().finish_request(request, client_address)
        finally:
            with self.state.lock:
                self.state.open_connections -= 1


@contextmanager
def serve_fake_openai() -> Iterator[FakeOpenAI]:
    """Run the fake on 127.0.0.1 (ephemeral port) for the duration of the block."""
    state = FakeOpenAI()
    server = _Server(state)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()  # wake replies that are still being held back
        # shutdown() waits for serve_forever forever; run it on a helper thread with a bound,
        # then close the socket regardless (the hard fallback) so that nothing outlives the test.
        stopper = threading.Thread(target=server.shutdown, daemon=True)
        stopper.start()
        stopper.join(timeout=5)
        server.server_close()
        thread.join(timeout=5)
        if thread.is_alive() or stopper.is_alive():
            logger.warning("fake OpenAI server did not stop cleanly; abandoned (daemon thread)")


@contextmanager
def openai_client(state: FakeOpenAI, **options: Any) -> Iterator[openai.OpenAI]:
    """A real client for the fake: no proxy, no client-side retries, a short timeout.

    Proxy variables are removed for the block (127.0.0.1 must not go through a proxy) and
    restored afterwards.
    """
    saved = {name: os.environ.pop(name) for name in _PROXY_VARIABLES if name in os.environ}
    settings: dict[str, Any] = {"api_key": "sk-test", "max_retries": 0, "timeout": 10.0}
    settings.update(options)
    try:
        with openai.OpenAI(base_url=state.base_url, **settings) as client:
            yield client
    finally:
        os.environ.update(saved)
