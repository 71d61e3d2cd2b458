"""`partition_for` is Kafka's murmur2 partitioner (read-your-writes asks the workers about
the user's own partition): the Java client's test vectors (UtilsTest.testMurmur2)."""

from __future__ import annotations

import pytest

from streams.topics import _murmur2, partition_for

JAVA = {
    "21": -973932308,
    "foobar": -790332482,
    "a-little-bit-long-string": -985981536,
    "a-little-bit-longer-string": -1486304829,
    "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    "abc": 479470107,
}


@pytest.mark.parametrize(("key", "java"), sorted(JAVA.items()))
def test_murmur2_matches_the_java_client(key: str, java: int) -> None:
    assert _murmur2(key.encode()) == java % 2**32


def test_partition_for_is_the_positive_hash_modulo_the_partitions() -> None:
    assert partition_for("abc", 4) == (479470107 & 0x7FFFFFFF) % 4
    assert {partition_for(f"user-{i}", 4) for i in range(50)} == {0, 1, 2, 3}
