"""The log's vectors and the configured embedder must be one model (workers/embedding/compat)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.events import Embedding
from tests.unit.edge_helpers import edge, vec
from workers.embedding.compat import check_log_model, logged_model
from workers.errors import ConfigError
from workers.stores.file_log import FileEventLog


def _log(tmp_path: Path, *models: str) -> FileEventLog:
    log = FileEventLog(tmp_path / "log", fsync=False)
    log.append(
        [
            edge(f"e{i}").model_copy(update={"embedding": Embedding.from_array(m, vec(i))})
            for i, m in enumerate(models)
        ]
    )
    return log


def test_an_empty_log_accepts_any_model(tmp_path: Path) -> None:
    with _log(tmp_path) as log:
        assert logged_model(log) is None
        check_log_model(log, "minilm-l6-v2-int8")


def test_the_same_model_passes(tmp_path: Path) -> None:
    with _log(tmp_path, "minilm-l6-v2-int8", "minilm-l6-v2-int8") as log:
        assert logged_model(log) == "minilm-l6-v2-int8"
        check_log_model(log, "minilm-l6-v2-int8")


def test_another_model_is_refused_with_what_to_set(tmp_path: Path) -> None:
    settings_for = {"minilm-l6-v2-int8": "FR_EMBEDDER=minilm"}
    with _log(tmp_path, "minilm-l6-v2-int8") as log, pytest.raises(ConfigError) as excinfo:
        check_log_model(log, "paraphrase-minilm-l3-v2", settings_for)
    message = str(excinfo.value)
    assert "'minilm-l6-v2-int8'" in message and "'paraphrase-minilm-l3-v2'" in message
    assert "Set FR_EMBEDDER=minilm" in message


def test_an_unknown_model_is_named_without_a_setting(tmp_path: Path) -> None:
    with (
        _log(tmp_path, "text-embedding-3-small") as log,
        pytest.raises(ConfigError, match="Configure the embedder that makes"),
    ):
        check_log_model(log, "minilm-l6-v2-int8", {})
