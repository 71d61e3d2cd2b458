"""The HTTP API with API keys and tenants (issue 14): 401 without a valid key, a tenant key
sees its tenant only (the same user id in another tenant is another person), admin keys
name a tenant and manage keys, 429 over a key's rate, `/healthz` open, `/metrics` open on
loopback only, and every request in the access log by key id, never by key."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import closing
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from frecall.access.gate import Gate
from frecall.access.key_stores import SqliteKeyStore
from frecall.access.keys import Keyring
from frecall.access.ratelimit import RateLimiter
from frecall.api import create_api
from frecall.api.server import serve
from frecall.deployment import Deployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from workers.errors import ConfigError

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = "2026-09-21T09:00:00Z"


def story(user: str, marker: str = "") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in STORY.read_text("utf-8").splitlines() if line.strip()]
    return [{**r, "user_id": user, "text": marker + r["text"]} for r in rows]


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, extractor="rules", serving=True, quiet=True)) as d:
        yield d


@pytest.fixture
def keyring(tmp_path: Path) -> Iterator[Keyring]:
    ring = Keyring(SqliteKeyStore(tmp_path / "data" / "keys.sqlite"))
    yield ring
    ring.store.close()


class Api:
    def __init__(self, client: TestClient, keys: dict[str, str]) -> None:
        self.client = client
        self.keys = keys

    def __call__(
        self, who: str | None, method: str, path: str, tenant: str | None = None, **kw: Any
    ) -> Any:
        headers = dict(kw.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {self.keys.get(who, who)}"
        if tenant is not None:
            headers["X-Tenant"] = tenant
        return self.client.request(method, path, headers=headers, **kw)


@pytest.fixture
def api(deployment: Deployment, keyring: Keyring) -> Iterator[Api]:
    keys = {
        "acme": keyring.create("acme", name="acme app").key,
        "beta": keyring.create("beta").key,
        "admin": keyring.create("ops", admin=True).key,
    }
    app = create_api(deployment, gate=Gate(deployment, keyring), metrics_open=False)
    with TestClient(app) as client:
        yield Api(client, keys)


def test_without_keys_the_api_is_open_to_the_local_operator(deployment: Deployment) -> None:
    with TestClient(create_api(deployment)) as client:
        assert client.get("/v1/whoami").json() == {
            "key_id": None,
            "tenant": "default",
            "admin": True,
        }
        assert client.post("/v1/edges", json={"edges": story("maya")[:2]}).status_code == 200
        assert client.get("/v1/users/maya/memory").status_code == 200


def test_every_v1_route_needs_a_valid_key(api: Api, keyring: Keyring) -> None:
    routes = [
        ("POST", "/v1/query", {"json": {"user_id": "42", "query": "where"}}),
        ("POST", "/v1/turns", {"json": {"turns": []}}),
        ("POST", "/v1/edges", {"json": {"edges": []}}),
        ("GET", "/v1/users", {}),
        ("GET", "/v1/users/42/memory", {}),
        ("GET", "/v1/users/42/inspect", {}),
        ("DELETE", "/v1/users/42", {}),
        ("DELETE", "/v1/users/42/facts/e1", {}),
        ("GET", "/v1/whoami", {}),
        ("GET", "/v1/keys", {}),
        ("POST", "/v1/keys", {"json": {"tenant": "x"}}),
        ("DELETE", "/v1/keys/0123456789ab", {}),
    ]
    revoked = keyring.create("acme")
    keyring.revoke(revoked.record.key_id)
    for who in (None, "frk_0123456789ab_forged", "not a key", revoked.key):
        for method, path, kw in routes:
            response = api(who, method, path, **kw)
            assert response.status_code == 401, (who, method, path, response.text)
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # A key in the cookie a page would set counts too.
    api.client.cookies.set("frecall_key", api.keys["acme"])
    assert api(None, "GET", "/v1/whoami").json()["tenant"] == "acme"
    api.client.cookies.clear()
    assert api(None, "GET", "/healthz").status_code == 200  # open


def test_a_tenant_key_never_reaches_another_tenants_user(api: Api) -> None:
    assert api("acme", "POST", "/v1/edges", json={"edges": story("42", "ACME ")}).status_code == 200
    assert api("beta", "POST", "/v1/edges", json={"edges": story("42")}).status_code == 200
    assert api("acme", "GET", "/v1/users").json()[0]["user_id"] == "42"

    mine = api("acme", "GET", "/v1/users/42/memory").json()
    assert mine["user_id"] == "42" and all(
        f["edge"]["text"].startswith("ACME ") for f in mine["facts"]
    )
    assert {f["edge"]["user_id"] for f in mine["facts"]} == {"42"}
    theirs = api("beta", "GET", "/v1/users/42/memory").json()
    assert not any(f["edge"]["text"].startswith("ACME ") for f in theirs["facts"])

    query = {"user_id": "42", "query": "Where does Maya live?", "as_of": AS_OF, "k": 50}
    found = api("acme", "POST", "/v1/query", json=query).json()["results"]
    assert found and all(f["text"].startswith("ACME ") for f in found)

    # The default tenant (an admin without X-Tenant acts in its own: ops) and ids shaped like
    # another tenant's scoped ids find nothing.
    for who, user in [("admin", "42"), ("beta", "~acme~42"), ("acme", "~beta~42")]:
        assert api(who, "GET", f"/v1/users/{user}/memory").status_code == 404
        assert api(who, "GET", f"/v1/users/{user}/inspect").status_code == 404
        assert (
            api(who, "POST", "/v1/query", json={**query, "user_id": user}).json()["results"] == []
        )

    # A tenant key may not name another tenant; an admin may.
    assert api("beta", "GET", "/v1/users/42/memory", tenant="acme").status_code == 403
    assert api("beta", "GET", "/v1/users/42/memory", tenant="beta").status_code == 200
    as_acme = api("admin", "GET", "/v1/users/42/memory", tenant="acme").json()
    assert as_acme == mine

    # Erasing acme's user 42 removes nothing of beta's.
    receipt = api("acme", "DELETE", "/v1/users/42").json()
    assert receipt["user_id"] == "42" and receipt["removed"]["vector_index"] == len(story("42"))
    assert api("acme", "GET", "/v1/users/42/memory").status_code == 404
    assert api("beta", "GET", "/v1/users/42/memory").json() == theirs
    fact = api("acme", "DELETE", "/v1/users/42/facts/city-london").json()
    assert sum(fact["removed"].values()) == 0  # acme's is gone; beta's stays
    assert "city-london" in {
        f["edge"]["edge_id"] for f in api("beta", "GET", "/v1/users/42/memory").json()["facts"]
    }


def test_user_ids_too_long_for_a_tenant_are_422(api: Api) -> None:
    long_id = "u" * 253  # fits the default tenant (256), not acme's scoped form (250)
    response = api("acme", "GET", f"/v1/users/{long_id}/memory")
    assert response.status_code == 422
    assert "at most 250 characters in tenant 'acme'" in response.json()["detail"][0]["msg"]
    turn = {
        "user_id": long_id,
        "session_id": "s",
        "turn_id": "t",
        "role": "user",
        "text": "hi",
        "timestamp": "2026-01-01T00:00:00Z",
    }
    refused = api("acme", "POST", "/v1/turns", json={"turns": [turn]})
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"][-1] == "user_id"


def test_admin_keys_manage_keys_over_http(api: Api) -> None:
    assert api("acme", "GET", "/v1/keys").status_code == 403
    assert api("acme", "POST", "/v1/keys", json={"tenant": "acme"}).status_code == 403
    created = api("admin", "POST", "/v1/keys", json={"tenant": "gamma", "name": "g"})
    assert created.status_code == 201
    new = created.json()
    assert new["key"].startswith(f"frk_{new['key_id']}_") and new["tenant"] == "gamma"
    assert api(new["key"], "GET", "/v1/whoami").json() == {
        "key_id": new["key_id"],
        "tenant": "gamma",
        "admin": False,
    }
    listed = api("admin", "GET", "/v1/keys").json()
    assert new["key_id"] in {k["key_id"] for k in listed}
    assert all("key" not in k and "digest" not in k for k in listed)
    assert api("admin", "DELETE", f"/v1/keys/{new['key_id']}").json()["revoked_at"]
    assert api(new["key"], "GET", "/v1/whoami").status_code == 401
    assert api("admin", "DELETE", "/v1/keys/000000000000").status_code == 404


def test_over_its_rate_a_key_gets_429_with_retry_after(
    deployment: Deployment, keyring: Keyring
) -> None:
    key, other = keyring.create("acme").key, keyring.create("beta").key
    gate = Gate(deployment, keyring, RateLimiter(rate=0.5, burst=3))
    with TestClient(create_api(deployment, gate=gate)) as client:
        auth = {"Authorization": f"Bearer {key}"}
        statuses = [client.get("/v1/whoami", headers=auth).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        limited = client.get("/v1/whoami", headers=auth)
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        # Another key has its own bucket.
        assert (
            client.get("/v1/whoami", headers={"Authorization": f"Bearer {other}"}).status_code
            == 200
        )


def test_metrics_need_an_admin_key_off_loopback(api: Api) -> None:
    assert api(None, "GET", "/metrics").status_code == 401
    assert api("acme", "GET", "/metrics").status_code == 403
    assert api("admin", "GET", "/metrics").status_code == 200


def test_the_access_log_names_the_key_id_never_the_key(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="frecall.access")
    api("acme", "GET", "/v1/users/42/memory")
    api("frk_0123456789ab_forged", "GET", "/v1/whoami")
    lines = [r for r in caplog.records if r.name == "frecall.access"]
    acme_id = api.keys["acme"].split("_")[1]
    assert any(
        getattr(r, "key_id", None) == acme_id
        and getattr(r, "tenant", None) == "acme"
        and getattr(r, "route", None) == "/v1/users/{user_id}/memory"
        and getattr(r, "status", None) == 404
        for r in lines
    )
    assert any(
        getattr(r, "status", None) == 401 and getattr(r, "key_id", None) == "-" for r in lines
    )
    text = caplog.text
    assert all(key.split("_", 2)[2] not in text for key in api.keys.values())
    assert "forged" not in text


def test_serve_refuses_an_open_network_without_keys(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with pytest.raises(ConfigError, match=r"refusing to listen on 0\.0\.0\.0.*frecall keys create"):
        serve(settings, "0.0.0.0", 1)
    with pytest.raises(ConfigError, match="no API key exists"):
        serve(settings, "192.0.2.10", 1)
