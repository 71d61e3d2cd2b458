"""Ingest a user's turns through `frecall ingest --extractor llm` against the local fake
OpenAI server: the set-up the LLM-path e2e tests share (issue 11, item 5)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from tests.fake_openai import ChatReply, serve_fake_openai


def ingest_through_fake_llm(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user_id: str,
    said: Sequence[tuple[str, str, str]],
    replies: Iterable[dict[str, Any]],
) -> tuple[Path, list[dict[str, Any]]]:
    """Write `said` ((turn id, text, timestamp) of one session) as a turns file, ingest it
    with the model answering `replies` in order, and return the data dir and the chat
    requests the model received. The ingest must exit 0."""
    path = tmp_path / "turns.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for turn_id, text, ts in said:
            line = {"user_id": user_id, "session_id": "s1", "turn_id": turn_id, "role": "user"}
            fh.write(json.dumps({**line, "text": text, "timestamp": ts}) + "\n")
    data = tmp_path / "data"
    with serve_fake_openai() as fake:
        fake.chat_replies.extend(ChatReply.json(r) for r in replies)
        monkeypatch.setenv("FR_OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("FR_OPENAI_API_KEY", "sk-test")
        assert main(["ingest", "--data-dir", str(data), "--extractor", "llm", str(path)]) == 0
        return data, fake.chat_requests()
