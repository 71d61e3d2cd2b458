"""The LLM extractor: one chat-completions call per user turn, structured output, validated.

The paper's ingestion step (§3, Figure 1; §3.5) with any OpenAI-compatible endpoint: the
model extracts the turn's facts and tags them with category weights, slot key, update
semantics, confidence, event time, retraction targets, quarantine and emotional loading.
It has the interface of `RuleExtractor` and returns the same `ExtractedFact`s.

Reliability contract:
* transient failures (connection, timeout, 408/409/429, 5xx) are retried with exponential
  backoff and jitter within an overall deadline; the client's own retries are turned off so
  that the two policies do not multiply;
* an answer that cannot be used (bad JSON, schema violation, unknown category, weights that
  do not sum to 1 or have no clear primary, bad slot key or time) is not transient: it raises
  `LLMExtractionError` at once, with the raw text. If any fact is invalid the whole turn
  fails, so that nothing half-understood is stored; the caller dead-letters the turn.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from schemas.events import TurnEvent
from workers.errors import ExtractionError
from workers.extraction.model import ExtractedFact
from workers.extraction.prompt import (
    DISTILL_PROMPT,
    EXTRACTION_FORMAT,
    EXTRACTION_PROMPT,
    SELECTION_FORMAT,
    InvalidResponse,
    distill_user_message,
    extraction_user_message,
    parse_facts,
    parse_selection,
)

logger = logging.getLogger(__name__)

#: Status codes worth another try: the client's own retry policy uses the same set.
_TRANSIENT_STATUS = frozenset({408, 409, 429})
#: A Retry-After beyond this is not waited for inside one extraction.
_MAX_RETRY_AFTER_S = 60.0


class LLMExtractionError(ExtractionError):
    """The LLM could not extract a turn. `raw_response` is the model's text when there was
    one (for the dead-letter log); `attempts` is how many requests were made."""

    def __init__(
        self, turn_id: str, detail: str, *, raw_response: str | None = None, attempts: int = 0
    ) -> None:
        super().__init__(turn_id, detail)
        self.raw_response = raw_response
        self.attempts = attempts


@dataclass(frozen=True, slots=True)
class LLMUsage:
    """Cumulative token usage. `calls` counts requests sent (retries included); `failures`
    counts requests whose result could not be used (HTTP, transport or content errors)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    failures: int = 0


class _CallFailed(Exception):
    def __init__(self, detail: str, raw: str | None, attempts: int) -> None:
        super().__init__(detail)
        self.detail, self.raw, self.attempts = detail, raw, attempts


class LLMExtractor:
    """Facts from an OpenAI-compatible chat model; thread-safe.

    `retries` is the number of attempts in total (≥ 1); backoff doubles from `backoff_s`;
    each request waits at most `timeout_s`, and no attempt starts after `deadline_s` from the
    first (`clock`, `sleep` and `jitter` are injectable: tests run the retry policy on a
    fake clock). `context_turns` earlier turns of the session go into the prompt so that
    references resolve. Raises `LLMExtractionError`; never returns a partial turn.
    """

    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        *,
        timeout_s: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        deadline_s: float = 60.0,
        context_turns: int = 12,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if not model:
            raise ValueError("model must not be empty")
        if retries < 1:
            raise ValueError(f"retries is the number of attempts and must be ≥ 1, got {retries}")
        if min(timeout_s, deadline_s) <= 0 or backoff_s < 0 or context_turns < 0:
            raise ValueError("timeout_s and deadline_s must be > 0, backoff_s and context ≥ 0")
        # Our retry policy replaces the client's (max_retries=0): nested policies would make
        # 3 × 3 requests and ignore the deadline.
        self._client = client.with_options(max_retries=0)
        self._model = model
        self._timeout_s, self._retries = timeout_s, retries
        self._backoff_s, self._deadline_s = backoff_s, deadline_s
        self._context_turns = context_turns
        # Injected for tests: retries, backoff and the deadline without wall-clock windows.
        self._clock, self._sleep, self._jitter = clock, sleep, jitter
        self._lock = threading.Lock()
        self._usage = LLMUsage()

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    def close(self) -> None:
        """Close the HTTP client and its pooled connections (the deployment that made this
        extractor calls it on close; a pooled socket left to the garbage collector leaks)."""
        self._client.close()

    @property
    def usage(self) -> LLMUsage:
        """A snapshot of the cumulative usage."""
        with self._lock:
            return self._usage

    def extract(self, turn: TurnEvent, context: Sequence[TurnEvent] = ()) -> list[ExtractedFact]:
        """The facts the user states in `turn`; `context` is earlier turns, oldest first.

        Assistant turns and empty turns yield [] without a request: memory is what the user
        said.
        """
        if turn.role != "user" or not turn.text.strip():
            return []
        recent = [t for t in context if t.turn_id != turn.turn_id]
        recent = recent[-self._context_turns :] if self._context_turns else []
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": EXTRACTION_PROMPT},
            {"role": "user", "content": extraction_user_message(turn, recent)},
        ]
        try:
            content, attempts = self._complete("extract", messages, EXTRACTION_FORMAT)
        except _CallFailed as exc:
            # Chain the library error itself (APIStatusError …), not our private carrier.
            raise LLMExtractionError(
                turn.turn_id, exc.detail, raw_response=exc.raw, attempts=exc.attempts
            ) from exc.__cause__
        try:
            facts = parse_facts(content)
        except InvalidResponse as exc:
            self._count(failures=1)
            raise LLMExtractionError(
                turn.turn_id, f"invalid response: {exc}", raw_response=content, attempts=attempts
            ) from exc
        logger.debug("turn %s: %d facts from %s", turn.turn_id, len(facts), self._model)
        return facts

    def distill(self, query: str, candidates: list[tuple[str, str]], k: int = 20) -> list[str]:
        """The ids of the ≤ k candidates most relevant to `query` (paper §3.5, §3.6).

        `candidates` are (edge_id, text). One attempt only: this runs on the query path,
        where a retry would double the latency. On any failure — or an empty selection,
        which would leave the query with no memory at all — the first k ids in input order
        are returned and a warning is logged: the query must not fail because the LLM did.
        With k or fewer candidates there is nothing to select and no request is made.
        """
        if k <= 0:
            return []
        if len(candidates) <= k:
            return [edge_id for edge_id, _ in candidates]
        fallback = [edge_id for edge_id, _ in candidates[:k]]
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": DISTILL_PROMPT},
            {"role": "user", "content": distill_user_message(query, candidates, k)},
        ]
        try:
            content, _ = self._complete("distill", messages, SELECTION_FORMAT, attempts=1)
            picked = parse_selection(content, len(candidates), k)
        except _CallFailed as exc:
            logger.warning("distillation failed, keeping the first %d candidates: %s", k, exc)
            return fallback
        except InvalidResponse as exc:
            self._count(failures=1)
            logger.warning("distillation answer unusable, keeping the first %d: %s", k, exc)
            return fallback
        except Exception:  # anything else (a client bug, an odd transport error): same promise
            self._count(failures=1)
            logger.warning("distillation crashed, keeping the first %d", k, exc_info=True)
            return fallback
        return [candidates[i][0] for i in picked]

    # ------------------------------------------------------------------ requests

    def _complete(
        self,
        purpose: str,
        messages: list[ChatCompletionMessageParam],
        response_format: ResponseFormatJSONSchema,
        attempts: int | None = None,
    ) -> tuple[str, int]:
        """The message text of one successful completion, and the attempts it took."""
        limit = attempts or self._retries
        deadline = self._clock() + self._deadline_s
        attempt = 0
        while True:
            attempt += 1
            timeout = min(self._timeout_s, max(deadline - self._clock(), 0.001))
            try:
                response = self._client.chat.completions.create(
                    model=self._model,
                    messages=messages,
                    response_format=response_format,
                    timeout=timeout,
                )
            except openai.OpenAIError as exc:
                self._count(calls=1, failures=1)
                detail = _describe(exc)
                if not _transient(exc):
                    raise _CallFailed(detail, _error_body(exc), attempt) from exc
                if attempt >= limit:
                    raise _CallFailed(
                        f"gave up after {attempt} attempts: {detail}", None, attempt
                    ) from exc
                delay = self._delay(attempt, exc)
                if self._clock() + delay >= deadline:
                    raise _CallFailed(
                        f"deadline of {self._deadline_s:g}s reached after {attempt} attempts: "
                        f"{detail}",
                        None,
                        attempt,
                    ) from exc
                logger.warning(
                    "%s: %s (attempt %d of %d), retrying in %.2fs",
                    purpose, detail, attempt, limit, delay,
                )  # fmt: skip
                self._sleep(delay)
                continue
            self._record(purpose, response, attempt)
            return self._content(response, attempt), attempt

    def _content(self, response: ChatCompletion, attempt: int) -> str:
        """The assistant text, or why there is none. Not retried: the same prompt would most
        likely be truncated or refused again."""
        # Servers that are only OpenAI-like may answer 200 without choices; the client does
        # not validate the envelope, so neither the list nor its fields can be trusted.
        choices = response.choices if isinstance(response.choices, list) else []
        if not choices or choices[0].message is None:
            raise self._unusable("the response has no message", _dump(response), attempt)
        choice = choices[0]
        content = choice.message.content
        if choice.message.refusal:
            raise self._unusable("the model refused", choice.message.refusal, attempt)
        if choice.finish_reason == "length":
            raise self._unusable("the answer was cut off at the token limit", content, attempt)
        if choice.finish_reason == "content_filter":
            raise self._unusable("the answer was withheld by the content filter", content, attempt)
        if not isinstance(content, str) or not content.strip():
            raise self._unusable("the message is empty", None, attempt)
        return content

    def _unusable(self, problem: str, raw: str | None, attempt: int) -> _CallFailed:
        self._count(failures=1)
        return _CallFailed(problem, raw, attempt)

    def _delay(self, attempt: int, exc: openai.OpenAIError) -> float:
        # Exponential backoff with jitter in [½, 1] of the step: concurrent extraction workers
        # that failed together must not retry in lockstep.
        delay = self._backoff_s * 2.0 ** (attempt - 1) * (0.5 + self._jitter() / 2)
        if isinstance(exc, openai.APIStatusError):
            try:
                retry_after = float(exc.response.headers.get("retry-after", ""))
            except ValueError:
                retry_after = 0.0
            if 0 < retry_after <= _MAX_RETRY_AFTER_S:
                delay = max(delay, retry_after)
        return delay

    def _record(self, purpose: str, response: ChatCompletion, attempt: int) -> None:
        usage = response.usage
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        self._count(calls=1, prompt_tokens=prompt, completion_tokens=completion)
        logger.debug(
            "%s %s: prompt_tokens=%d completion_tokens=%d attempt=%d",
            purpose, self._model, prompt, completion, attempt,
        )  # fmt: skip

    def _count(self, **add: int) -> None:
        with self._lock:
            u = self._usage
            self._usage = LLMUsage(
                prompt_tokens=u.prompt_tokens + add.get("prompt_tokens", 0),
                completion_tokens=u.completion_tokens + add.get("completion_tokens", 0),
                calls=u.calls + add.get("calls", 0),
                failures=u.failures + add.get("failures", 0),
            )


def _transient(exc: openai.OpenAIError) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in _TRANSIENT_STATUS
    return False


def _describe(exc: openai.OpenAIError) -> str:
    # APIStatusError messages already read "Error code: 503 - <the server's message>".
    return f"{type(exc).__name__}: {exc}"


def _error_body(exc: openai.OpenAIError) -> str | None:
    if isinstance(exc, openai.APIStatusError):
        return exc.response.text
    return None


def _dump(response: Any) -> str | None:
    try:
        return str(response.model_dump_json())
    except Exception:  # the raw text is a diagnostic: its absence must not hide the error
        logger.debug("could not serialize a malformed response", exc_info=True)
        return None
