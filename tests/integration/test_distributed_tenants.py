"""Tenants, API keys, the SDK, the MCP server and metrics on the distributed deployment
(issue 14), against the real Kafka and Redis `make test` starts.

Keys live in Redis (one hash, outside every generation); a tenant's user is a user id of its
own in every topic key and Redis key; a valid key of another tenant gets nothing of this
one's — over HTTP, through the SDK and through MCP — and `replay --from-kafka` keeps tenants
apart, erasures erased and keys valid. The tests of this module share one deployment and run
in file order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client as McpClient
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from prometheus_client.parser import text_string_to_metric_families

from frecall import Client
from schemas.streams import EDGES
from streams.kafka_io import read_topics
from tests.integration.live_deployment import (
    LiveDeployment,
    drop_keys,
    new_deployment,
    write_jsonl,
)
from tests.processes import start_server, stop, wait_until
from workers.stores.redis_client import connect
from workers.stores.redis_facts import RedisFactStore

pytestmark = pytest.mark.integration
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = "2026-09-21T09:00:00Z"


def story(user: str, marker: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in STORY.read_text("utf-8").splitlines() if x.strip()]
    return [{**r, "user_id": user, "text": marker + r["text"]} for r in rows]


class Tenants:
    """The shared deployment, its keys, and an SDK client per key."""

    def __init__(self, cluster: LiveDeployment) -> None:
        self.cluster = cluster
        self.keys: dict[str, str] = {}
        for name, argv in {
            "acme": ["--tenant", "acme"],
            "beta": ["--tenant", "beta"],
            "admin": ["--tenant", "ops", "--admin"],
            "doomed": ["--tenant", "acme", "--name", "revoked later"],
        }.items():
            made = cluster.cli("keys", "create", *argv)
            assert made.returncode == 0, made.stderr
            self.keys[name] = made.stdout.strip()

    def client(self, who: str) -> Client:
        return Client(self.cluster.url(""), self.keys[who])

    def http(self, who: str | None, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = dict(kw.pop("headers", {}))
        if who:
            headers["Authorization"] = f"Bearer {self.keys.get(who, who)}"
        return httpx.request(method, self.cluster.url(path), headers=headers, timeout=60, **kw)


@pytest.fixture(scope="module")
def tenants(
    kafka_bootstrap: str, module_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Tenants]:
    cluster = new_deployment(kafka_bootstrap, module_redis_url, tmp_path_factory.mktemp("tenants"))
    made = Tenants(cluster)  # keys first: the server starts with keys required
    cluster.start_worker()
    cluster.start_server()
    try:
        yield made
    finally:
        cluster.stop_server()
        cluster.stop_workers()
        drop_keys(module_redis_url, cluster.env["FR_REDIS_PREFIX"])


def test_keys_are_in_redis_and_only_their_hashes(tenants: Tenants) -> None:
    env = tenants.cluster.env
    client = connect(env["FR_REDIS_URL"])
    try:
        stored = client.hgetall(f"{env['FR_REDIS_PREFIX']}:apikeys")
    finally:
        client.close()
    assert len(stored) == len(tenants.keys)
    raw = b"".join(stored.values()).decode()
    assert all(key.split("_", 2)[2] not in raw for key in tenants.keys.values())
    listed = tenants.cluster.cli("keys", "list", "--json")
    assert listed.returncode == 0
    assert {json.loads(line)["tenant"] for line in listed.stdout.splitlines()} == {
        "acme",
        "beta",
        "ops",
    }


def test_the_sdk_over_http_keeps_tenants_apart(tenants: Tenants) -> None:
    with tenants.client("acme") as acme, tenants.client("beta") as beta:
        a = acme.add_facts(story("42", "ACME "))
        b = beta.add_facts(story("42", "BETA "))
        assert a.edge_ids == b.edge_ids  # same ids, different people
        turn = {
            "user_id": "42",
            "session_id": "s1",
            "turn_id": "t1",
            "role": "user",
            "text": "I moved to Lisbon last week.",
            "timestamp": "2026-09-01T10:00:00Z",
        }
        said = acme.add_turns([turn])
        mine = acme.query(
            "42",
            "Where does Maya live?",
            as_of=AS_OF,
            k=50,
            wait_for=[*a.edge_ids, *said.edge_ids],
            timeout=60,
        )
        theirs = beta.query(
            "42", "Where does Maya live?", as_of=AS_OF, k=50, wait_for=b.edge_ids, timeout=60
        )
        assert mine.results and not any(f.text.startswith("BETA ") for f in mine.results)
        assert theirs.results and all(f.text.startswith("BETA ") for f in theirs.results)
        assert any("Lisbon" in f.text for f in mine.results)

        exported = acme.export("42")
        assert exported.user_id == "42" and {f.edge["user_id"] for f in exported.facts} == {"42"}
        assert not any(f.edge["text"].startswith("BETA ") for f in exported.facts)
        assert beta.inspect("42").facts == len(story("42", ""))
        assert beta.export("~acme~42").facts == []  # an id shaped like acme's scoped one


def test_topic_keys_and_redis_keys_carry_the_tenant(tenants: Tenants) -> None:
    env = tenants.cluster.env
    keys = {m.key for m in read_topics(env["FR_KAFKA_BOOTSTRAP"], [tenants.cluster.topic(EDGES)])}
    assert {"~acme~42", "~beta~42"} <= keys and "42" not in keys
    client = connect(env["FR_REDIS_URL"])
    generation = int(client.get(f"{env['FR_REDIS_PREFIX']}:generation") or 0)
    prefix = env["FR_REDIS_PREFIX"] + ("" if generation == 0 else f".g{generation}")
    store = RedisFactStore(client, prefix)
    try:
        assert store.count("~acme~42") > 0 and store.count("~beta~42") == len(story("42", ""))
        assert store.count("42") == 0
    finally:
        store.close()


def test_keys_are_required_and_revocation_applies_at_once(tenants: Tenants) -> None:
    assert tenants.http(None, "GET", "/v1/users/42/memory").status_code == 401
    assert tenants.http("frk_0123456789ab_nope", "GET", "/v1/whoami").status_code == 401
    assert tenants.http("doomed", "GET", "/v1/whoami").json()["tenant"] == "acme"
    key_id = tenants.keys["doomed"].split("_")[1]
    assert tenants.cluster.cli("keys", "revoke", key_id).returncode == 0
    assert tenants.http("doomed", "GET", "/v1/whoami").status_code == 401
    assert tenants.http(None, "GET", "/healthz").status_code == 200
    assert (
        tenants.http("beta", "GET", "/v1/users/42/memory", headers={"X-Tenant": "acme"}).status_code
        == 403
    )
    as_acme = tenants.http("admin", "GET", "/v1/users/42/memory", headers={"X-Tenant": "acme"})
    assert as_acme.status_code == 200 and as_acme.json()["user_id"] == "42"


def test_forget_in_one_tenant_leaves_the_other_whole(tenants: Tenants) -> None:
    with tenants.client("acme") as acme, tenants.client("beta") as beta:
        before = beta.export("42")
        receipt = acme.forget("42", "city-london")
        assert receipt.user_id == "42" and receipt.removed.get("fact_store") == 1
        assert "city-london" not in {f.edge["edge_id"] for f in acme.export("42").facts}
        made = acme.add_facts(story("43", "ACME "))
        # Edges and the forget travel on different topics: the count below is exact once the
        # facts are in (before, the tombstone keeps late ones out, but the receipt counts 0).
        acme.query("43", "Where does Maya live?", wait_for=made.edge_ids, timeout=60)
        gone = acme.forget("43")
        assert gone.removed.get("fact_store") == len(story("43", ""))
        assert acme.export("43").facts == []
        assert beta.export("42") == before


def test_metrics_show_lag_transitions_and_requests(tenants: Tenants) -> None:
    text = tenants.http(None, "GET", "/metrics").text  # loopback: open
    families = {f.name: f for f in text_string_to_metric_families(text)}
    lag = families["frecall_consumer_lag_messages"]
    topics = {s.labels["topic"] for s in lag.samples}
    env = tenants.cluster.env
    assert {
        tenants.cluster.topic(t) for t in ("fr.turns", "fr.edges", "fr.commands", "fr.transitions")
    } <= topics
    assert env["FR_KAFKA_GROUP"] in {s.labels["group"] for s in lag.samples}
    indexer = families["frecall_indexer_lag_seconds"]
    assert any(s.name.endswith("_count") and s.value > 0 for s in indexer.samples)
    kinds = {s.labels["kind"] for s in families["frecall_transitions"].samples}
    assert "new->active" in kinds
    requests = families["frecall_http_request_duration_seconds"]
    assert any(s.labels.get("route") == "/v1/query" for s in requests.samples)


def test_mcp_over_http_on_the_distributed_deployment(tenants: Tenants, tmp_path: Path) -> None:
    env = {**tenants.cluster.env, "FR_DATA_DIR": str(tmp_path / "mcp-data")}
    proc, url = start_server(env, tmp_path / "mcp.log", "mcp", "--http")

    async def recall(who: str) -> list[str]:
        headers = {"Authorization": f"Bearer {tenants.keys[who]}", "X-User-Id": "42"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            McpClient(streamable_http_client(url + "/mcp", http_client=http)) as client,
        ):
            result = await client.call_tool(
                "recall", {"question": "Where does Maya live?", "as_of": AS_OF, "k": 50}
            )
            assert not result.is_error and result.structured_content is not None
            return [f["text"] for f in result.structured_content["facts"]]

    try:
        # Its own indexer catches up from fr.transitions before the facts are queryable.
        wait_until("acme's facts over MCP", lambda: bool(asyncio.run(recall("acme"))), timeout=120)
        acme_facts = asyncio.run(recall("acme"))
        beta_facts = asyncio.run(recall("beta"))
    finally:
        stop(proc)
    assert not any(t.startswith("BETA ") for t in acme_facts)
    assert beta_facts and all(t.startswith("BETA ") for t in beta_facts)


def test_replay_from_kafka_keeps_tenants_erasures_and_keys(tenants: Tenants) -> None:
    cluster = tenants.cluster
    cluster.stop_server()
    cluster.stop_workers()
    before = {
        (tenant, user): cluster.cli("export", "--tenant", tenant, "--user", user).stdout
        for tenant in ("acme", "beta")
        for user in ("42", "43")
    }

    def ids(document: str) -> set[str]:
        return {f["edge"]["edge_id"] for f in json.loads(document)["facts"]}

    assert "city-london" not in ids(before[("acme", "42")])
    assert "city-london" in ids(before[("beta", "42")])
    result = cluster.cli("replay", "--from-kafka", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    for (tenant, user), document in before.items():
        assert cluster.cli("export", "--tenant", tenant, "--user", user).stdout == document
    cluster.start_worker()
    cluster.start_server()
    with tenants.client("acme") as acme, tenants.client("beta") as beta:  # keys survived
        assert "city-london" not in {f.edge["edge_id"] for f in acme.export("42").facts}
        assert acme.export("43").facts == []
        assert "city-london" in {f.edge["edge_id"] for f in beta.export("42").facts}


def test_a_second_serving_process_rate_limits_each_key(tenants: Tenants, tmp_path: Path) -> None:
    env = {
        **tenants.cluster.env,
        "FR_DATA_DIR": str(tmp_path / "limited-data"),
        "FR_RATE_LIMIT_PER_S": "0.05",
        "FR_RATE_LIMIT_BURST": "2",
    }
    proc, url = start_server(env, tmp_path / "limited.log", "serve", "--port")
    try:

        def whoami(who: str) -> httpx.Response:
            auth = {"Authorization": f"Bearer {tenants.keys[who]}"}
            return httpx.get(url + "/v1/whoami", headers=auth, timeout=30)

        statuses = [whoami("acme").status_code for _ in range(3)]
        limited = whoami("acme")
        other = whoami("beta")
    finally:
        stop(proc)
    assert statuses == [200, 200, 429]
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    assert other.status_code == 200  # every key has its own bucket


def test_archive_dead_letters_and_receipts_of_one_tenant_spare_the_other(
    tenants: Tenants,
) -> None:
    """Issue 12's Redis archive and dead letters hold a tenant's user under its scoped id: a
    forget of acme's user 77 empties acme's archive and letters and leaves beta's user 77."""
    cluster = tenants.cluster
    rows = {t: story("77", t.upper() + " ") for t in ("acme", "beta")}
    for tenant, tenant_rows in rows.items():
        bad = {"user_id": "77", "text": f"{tenant}-secret in a rejected line"}  # no category
        path = write_jsonl(cluster.tmp / f"{tenant}-77.jsonl", [*tenant_rows, bad])
        done = cluster.cli("ingest-edges", "--tenant", tenant, str(path))
        assert done.returncode == 1 and f"{path}:{len(tenant_rows) + 1}:" in done.stderr
    scoped = ["~acme~77", "~beta~77"]
    wait_until("both tenants' user 77", lambda: cluster.count(scoped) == 2 * len(rows["acme"]))
    cluster.settle()
    compacted = cluster.cli("compact", "--as-of", "2028-06-01T00:00:00Z", "--json")
    assert compacted.returncode == 0, compacted.stderr
    archive, letters = cluster.archive(), cluster.letters()
    archived = {user: len(archive.records(user)) for user in scoped}
    assert archived["~acme~77"] > 0 and archived["~acme~77"] == archived["~beta~77"]
    assert archive.records("77") == [] and letters.of("77") == []
    beta_letters = letters.of("~beta~77")
    assert [len(letters.of(user)) for user in scoped] == [1, 1]
    assert "beta-secret" in beta_letters[0]["raw"] and "acme" not in beta_letters[0]["raw"]
    cluster.settle()

    with tenants.client("acme") as acme, tenants.client("beta") as beta:
        beta_before = beta.export("77")
        receipt = acme.forget("77")
        assert receipt.user_id == "77"
        assert receipt.removed["archive"] == archived["~acme~77"]
        assert receipt.removed["dead_letters"] == 1
        assert acme.export("77").facts == []
        assert beta.export("77") == beta_before and beta_before.facts
    assert archive.records("~acme~77") == [] and letters.of("~acme~77") == []
    assert len(archive.records("~beta~77")) == archived["~beta~77"]
    assert letters.of("~beta~77") == beta_letters
