"""`connect`: one URL for one Redis server or a Redis Cluster (FR_REDIS_URL)."""

from __future__ import annotations

import pytest
import redis

from tests.processes import free_port
from workers.errors import ConfigError, StorageError
from workers.stores.redis_client import cluster_seeds, connect, is_cluster_url


def test_a_server_url_gives_a_plain_client_that_connects_on_first_use() -> None:
    client = connect(f"redis://127.0.0.1:{free_port()}/3")
    try:
        assert type(client) is redis.Redis
        assert client.connection_pool.connection_kwargs["db"] == 3
        with pytest.raises(redis.ConnectionError):
            client.ping()
    finally:
        client.close()


def test_a_cluster_url_names_every_seed_node() -> None:
    url = "rediss+cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7001 , [::1]:7002,node-4/0?x=1"
    assert is_cluster_url(url) and is_cluster_url("REDIS+CLUSTER://h:1")
    assert not is_cluster_url("redis://h:1") and not is_cluster_url("unix:///tmp/r.sock")
    first, others = cluster_seeds(url)
    # Credentials, TLS and options go with the first seed; redis-py applies them to all.
    assert first == "rediss://app:s3cret@10.0.0.1:7000/0?x=1"
    assert others == [("10.0.0.2", 7001), ("::1", 7002), ("node-4", 6379)]
    assert cluster_seeds("redis+cluster://[::1]:7000") == ("redis://[::1]:7000", [])


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+cluster://", "names no node"),
        ("redis+cluster://,", "names no node"),
        ("redis+cluster://h:1,h:port", "bad node 'h:port'"),
        ("redis+cluster://h:70000", "bad node 'h:70000'"),
        ("redis+cluster://h:1/2", "database 0 only"),
        ("redis+cluster://u:hidden@h:1/2", "u:***@h:1/2"),
        ("http://h:1", "redis://, rediss://, unix://"),
    ],
)
def test_a_bad_url_is_a_config_error_without_its_password(url: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        connect(url)
    assert says in str(info.value) and "hidden" not in str(info.value)


def test_a_cluster_none_of_whose_seeds_answers_is_a_storage_error() -> None:
    url = f"redis+cluster://127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    with pytest.raises(StorageError) as info:
        connect(url)
    assert (info.value.store, info.value.operation) == ("redis", "connect")
    assert "Connection refused" in info.value.detail
