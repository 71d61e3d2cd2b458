"""Connecting to Redis: one server, or a Redis Cluster, from the one URL `FR_REDIS_URL` holds.

    redis://[user:password@]host:port[/db]        one server (rediss:// for TLS, unix:// too)
    redis+cluster://[user:password@]host:port[,host:port…]    a Redis Cluster
    rediss+cluster://…                            a Redis Cluster over TLS

A cluster URL may name several seed nodes: the client learns the whole cluster from the
first one that answers, so a process still starts while a seed node is down. The adapters
work on either client unchanged: every key of a user carries the user's hash tag
(workers/stores/redis_keys.py), so each Lua script, pipeline and transaction touches one
cluster slot, and `scan_iter` on a cluster client scans every primary.
"""

from __future__ import annotations

from typing import TypeAlias

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException

from workers.errors import ConfigError, StorageError

#: What the Redis adapters take.
RedisClient: TypeAlias = "redis.Redis | RedisCluster"

#: Cluster scheme -> the scheme of one node's URL.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
DEFAULT_PORT = 6379


def is_cluster_url(url: str) -> bool:
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def cluster_seeds(url: str) -> tuple[str, list[tuple[str, int]]]:
    """A cluster URL as redis-py takes it: the first seed's node URL (credentials, TLS and
    query options included; they apply to every node), and the other seeds' (host, port)."""
    scheme, _, rest = url.partition("://")
    netloc, slash, tail = rest.partition("/")
    credentials, at, hosts = netloc.rpartition("@")
    seeds = [_host_port(seed.strip(), url) for seed in hosts.split(",") if seed.strip()]
    if not seeds:
        raise ConfigError(f"Redis Cluster URL {_safe(url)!r} names no node (host:port,…)")
    if tail.partition("?")[0] not in ("", "0"):
        raise ConfigError(f"Redis Cluster URL {_safe(url)!r}: a cluster has database 0 only")
    host, port = seeds[0]
    netloc = f"{credentials}{at}{f'[{host}]' if ':' in host else host}:{port}"
    return f"{CLUSTER_SCHEMES[scheme.lower()]}://{netloc}{slash}{tail}", seeds[1:]


def connect(url: str) -> RedisClient:
    """A client on `url` (module docstring). A cluster client asks a seed for the cluster's
    layout now (`StorageError` when no seed answers); a plain one connects on first use."""
    if not is_cluster_url(url):
        try:
            return redis.Redis.from_url(url)
        except ValueError as exc:
            raise ConfigError(f"Redis URL {_safe(url)!r}: {exc}") from exc
    first, others = cluster_seeds(url)
    nodes = [ClusterNode(host, port) for host, port in others]  # type: ignore[no-untyped-call]
    try:
        return RedisCluster.from_url(first, startup_nodes=nodes)
    except ValueError as exc:
        raise ConfigError(f"Redis Cluster URL {_safe(url)!r}: {exc}") from exc
    except (RedisClusterException, redis.RedisError) as exc:
        raise StorageError("redis", "connect", f"{type(exc).__name__}: {exc}") from exc


def _host_port(seed: str, url: str) -> tuple[str, int]:
    """`host:port`, `host` (port 6379) or `[ipv6]:port`."""
    host, colon, port = seed.rpartition(":")
    if not colon or "]" in port:  # no port (`host`, `[::1]`)
        host, port = seed, str(DEFAULT_PORT)
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"Redis Cluster URL {_safe(url)!r}: bad node {seed!r} (host:port)")
    return host, int(port)


def _safe(url: str) -> str:
    """`url` without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    credentials, at, _ = rest.partition("/")[0].rpartition("@")
    if not at or ":" not in credentials:
        return url
    user = credentials.partition(":")[0]
    return f"{scheme}{sep}{user}:***@{rest[len(credentials) + 1 :]}"
