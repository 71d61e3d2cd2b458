"""The inspector's pages over HTTP, without a browser: the login and its session, CSRF on
the forms that change something, a revoked key ending its sessions, an admin's choice of
tenant, the page headers, and the JSON API left as it was (tests/browser/ has the person's
path through the pages)."""

from __future__ import annotations

import json
import re
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
from frecall.deployment import Deployment
from frecall.settings import Settings
from frecall.wiring import open_deployment

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))


def story() -> list[dict[str, Any]]:
    return [json.loads(x) for x in STORY.read_text("utf-8").splitlines() if x.strip()]


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, extractor="rules", serving=True, quiet=True)) as d:
        yield d


class Site:
    def __init__(self, client: TestClient, keyring: Keyring) -> None:
        self.client = client
        self.keyring = keyring
        self.made = {
            "acme": keyring.create("acme"),
            "beta": keyring.create("beta"),
            "admin": keyring.create("ops", admin=True),
        }
        self.keys = {who: made.key for who, made in self.made.items()}
        added = client.post("/v1/edges", json={"edges": story()}, headers=self.bearer("acme"))
        assert added.status_code == 200, added.text

    def bearer(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[who]}"}

    def log_in(self, who: str) -> None:
        answer = self.client.post("/ui/login", data={"key": self.keys[who]}, follow_redirects=False)
        assert answer.status_code == 303, answer.text

    def csrf(self) -> str:
        found = re.search(r'name="csrf" value="([^"]+)"', self.client.get("/ui/users").text)
        assert found is not None
        return found.group(1)


@pytest.fixture
def site(deployment: Deployment, tmp_path: Path) -> Iterator[Site]:
    keyring = Keyring(SqliteKeyStore(tmp_path / "data" / "keys.sqlite"))
    app = create_api(deployment, gate=Gate(deployment, keyring))
    try:
        with TestClient(app) as client:
            yield Site(client, keyring)
    finally:
        keyring.store.close()


def test_pages_send_a_visitor_without_a_session_to_the_login(site: Site) -> None:
    answer = site.client.get("/ui/users/maya?as_of=2026-07-01", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/ui/login?next=%2Fui%2Fusers%2Fmaya%3Fas_of%3D2026-07-01"
    # A bearer key is no way around the login: pages read the session only.
    with_header = site.client.get("/ui/users", headers=site.bearer("acme"), follow_redirects=False)
    assert with_header.status_code == 303


def test_the_session_cookie_holds_no_key_and_leads_only_inside_the_inspector(site: Site) -> None:
    answer = site.client.post(
        "/ui/login",
        data={"key": site.keys["acme"], "next": "https://elsewhere.example/ui"},
        follow_redirects=False,
    )
    assert answer.headers["location"] == "/ui/users"
    cookie = answer.headers["set-cookie"]
    assert site.keys["acme"] not in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    page = site.client.get("/ui/users")
    assert page.status_code == 200 and "maya" in page.text
    assert page.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert site.keys["acme"] not in page.text


def test_a_wrong_key_is_refused_with_the_form_again(site: Site) -> None:
    answer = site.client.post("/ui/login", data={"key": "frk_nope_nope"})
    assert answer.status_code == 401
    assert "unknown or revoked" in answer.text
    assert "set-cookie" not in answer.headers


def test_forget_needs_the_sessions_csrf_token(site: Site) -> None:
    site.log_in("acme")
    refused = site.client.post("/ui/users/maya/forget", data={"fact": "rent-950", "csrf": "x"})
    assert refused.status_code == 403
    memory = site.client.get("/v1/users/maya/memory", headers=site.bearer("acme")).text
    assert "rent-950" in memory
    done = site.client.post("/ui/users/maya/forget", data={"fact": "rent-950", "csrf": site.csrf()})
    assert done.status_code == 200 and "Receipt" in done.text
    memory = site.client.get("/v1/users/maya/memory", headers=site.bearer("acme")).text
    assert "rent-950" not in memory and "city-london" in memory


def test_forgetting_a_user_shows_the_receipt_and_the_user_is_gone(site: Site) -> None:
    site.log_in("acme")
    confirm = site.client.get("/ui/users/maya/forget")
    assert "Forget user maya?" in confirm.text
    done = site.client.post("/ui/users/maya/forget", data={"csrf": site.csrf()})
    assert done.status_code == 200
    assert re.search(r"<th scope=\"row\">log</th><td class=\"num\">\d+", done.text)
    gone = site.client.get("/v1/users/maya/memory", headers=site.bearer("acme"))
    assert gone.status_code == 404


def test_a_revoked_key_ends_its_sessions(site: Site) -> None:
    site.log_in("acme")
    assert site.client.get("/ui/users").status_code == 200
    site.keyring.revoke(site.made["acme"].record.key_id)
    answer = site.client.get("/ui/users", follow_redirects=False)
    assert answer.status_code == 303
    assert "revoked" in answer.headers["location"]


def test_a_tenant_key_cannot_switch_tenants_and_an_admin_can(site: Site) -> None:
    site.log_in("beta")
    assert "maya" not in site.client.get("/ui/users").text
    assert site.client.get("/ui/users/maya").status_code == 404
    refused = site.client.post("/ui/tenant", data={"tenant": "acme", "csrf": site.csrf()})
    assert refused.status_code == 403
    assert site.client.get("/ui/users/maya").status_code == 404
    site.log_in("admin")
    switched = site.client.post("/ui/tenant", data={"tenant": "acme", "csrf": site.csrf()})
    assert switched.status_code == 200 and "Users of tenant acme" in switched.text
    assert site.client.get("/ui/users/maya").status_code == 200


def test_the_json_api_keeps_its_json_errors(site: Site) -> None:
    assert site.client.get("/v1/users").json() == {"detail": "an API key is required"}
    missing = site.client.get("/v1/users/nobody/memory", headers=site.bearer("acme"))
    assert missing.status_code == 404 and missing.json()["detail"].startswith("no memory")
    site.log_in("acme")
    page = site.client.get("/ui/users/nobody")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")


def test_without_any_key_the_operator_enters_and_is_warned(deployment: Deployment) -> None:
    with TestClient(create_api(deployment)) as client:
        assert client.post("/v1/edges", json={"edges": story()[:3]}).status_code == 200
        form = client.get("/ui/login")
        assert "no API key" in form.text
        assert client.post("/ui/login", data={}, follow_redirects=False).status_code == 303
        page = client.get("/ui/users/maya")
        assert page.status_code == 200
        assert "No API key exists in this deployment" in page.text


def test_as_of_must_be_a_time(site: Site) -> None:
    site.log_in("acme")
    answer = site.client.get("/ui/users/maya", params={"as_of": "yesterday-ish"})
    assert answer.status_code == 400 and "as_of" in answer.text


def test_pages_count_against_the_keys_rate_limit(deployment: Deployment, tmp_path: Path) -> None:
    keyring = Keyring(SqliteKeyStore(tmp_path / "data" / "keys.sqlite"))
    try:
        key = keyring.create("acme").key
        gate = Gate(deployment, keyring, RateLimiter(0.001, 3, clock=lambda: 0.0))
        with TestClient(create_api(deployment, gate=gate)) as client:
            assert client.post("/ui/login", data={"key": key}).status_code == 200  # 2 takes
            assert client.get("/ui/users").status_code == 200  # the third
            over = client.get("/ui/users")
            assert over.status_code == 429
            assert over.headers["content-type"].startswith("text/html")
            assert int(over.headers["retry-after"]) > 0
    finally:
        keyring.store.close()
