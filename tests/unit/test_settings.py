"""The settings object: values from `FR_*` variables, and the ones it refuses."""

from __future__ import annotations

import pytest

from frecall.settings import Settings


def test_kafka_replication_is_the_brokers_default_unless_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().kafka_replication == -1
    monkeypatch.setenv("FR_KAFKA_REPLICATION", "3")
    assert Settings().kafka_replication == 3
    for bad in ("0", "-2"):
        monkeypatch.setenv("FR_KAFKA_REPLICATION", bad)
        with pytest.raises(ValueError, match="kafka_replication"):
            Settings()
