"""The memory inspector in a real browser (issue 15): Playwright drives Debian's chromium,
headless, against a running `frecall serve` with API keys — on the embedded deployment,
and on the distributed one (real Kafka and Redis, a worker process).

One person's path through it: log in with a key; find and open a user; the chain of a
superseded fact is visible; the playground shows both rankings with their terms; moving
`as_of` back shows the old value as active; another tenant's key cannot see the user;
forgetting a fact from the page removes it (checked through the API). The tests of one
deployment share its server and run in file order (the erasure comes last).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from bench.inspector import CHROMIUM_ARGS
from tests.conftest import in_ci, require_service
from tests.integration.live_deployment import drop_keys, new_deployment
from tests.processes import run_frecall, start_server, stop

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
TIMEOUT_MS = 30_000


def chromium_path() -> str:
    """Debian's chromium: `FR_TEST_CHROMIUM` (make test sets it from deploy/local/chromium.sh,
    which installs it when missing), else the one on PATH. Missing: a skip, a failure in CI."""
    path = os.environ.get("FR_TEST_CHROMIUM") or shutil.which("chromium")
    if not path:
        reason = "no chromium (bash deploy/local/chromium.sh installs Debian's)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Site:
    """A running `frecall serve` with keys of two tenants; maya's story is in `acme`."""

    url: str
    keys: dict[str, str] = field(default_factory=dict)

    def api(self, who: str, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.keys[who]}"}
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kw)

    def edge_ids(self, who: str, user: str) -> set[str]:
        response = self.api(who, "GET", f"/v1/users/{user}/memory")
        if response.status_code == 404:
            return set()
        assert response.status_code == 200, response.text
        return {fact["edge"]["edge_id"] for fact in response.json()["facts"]}


def _story() -> list[dict[str, Any]]:
    return [json.loads(x) for x in STORY.read_text("utf-8").splitlines() if x.strip()]


def _keys(env: dict[str, str]) -> dict[str, str]:
    keys = {}
    for tenant in ("acme", "beta"):
        made = run_frecall(env, "keys", "create", "--tenant", tenant)
        assert made.returncode == 0, made.stderr
        keys[tenant] = made.stdout.strip()
    return keys


def _ingest(site: Site) -> None:
    added = site.api("acme", "POST", "/v1/edges", json={"edges": _story()})
    assert added.status_code == 200, added.text
    # Read-your-writes: the distributed deployment applies the edges asynchronously.
    asked = site.api(
        "acme",
        "POST",
        "/v1/query",
        params={"wait_for": added.json()["edge_ids"], "wait_timeout": 60},
        json={"user_id": "maya", "query": "where does maya live"},
    )
    assert asked.status_code == 200, asked.text


@pytest.fixture(
    scope="module",
    params=["embedded", pytest.param("distributed", marks=pytest.mark.integration)],
)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp(f"inspector-{request.param}")
    if request.param == "embedded":
        env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
        env.update(FR_EMBEDDER="hashing", FR_DATA_DIR=str(tmp / "data"))
        keys = _keys(env)
        proc, url = start_server(env, tmp / "serve.log", "serve", "--port")
        try:
            made = Site(url, keys)
            _ingest(made)
            yield made
        finally:
            stop(proc)
        return
    kafka = require_service("FR_TEST_KAFKA_BOOTSTRAP", "a Kafka broker")
    redis_url = require_service("FR_TEST_REDIS_URL", "a Redis server")
    cluster = new_deployment(kafka, redis_url, tmp)
    keys = _keys(cluster.env)
    cluster.start_worker()
    cluster.start_server()
    try:
        made = Site(cluster.url(""), keys)
        _ingest(made)
        yield made
    finally:
        cluster.stop_server()
        cluster.stop_workers()
        drop_keys(redis_url, cluster.env["FR_REDIS_PREFIX"])


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


def log_in(page: Page, site: Site, who: str, target: str = "/ui") -> None:
    page.goto(site.url + target)
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("API key").fill(site.keys[who])
    page.get_by_role("button", name="Log in").click()


def test_a_wrong_key_is_refused_and_a_right_one_logs_in(page: Page, site: Site) -> None:
    page.goto(site.url + "/ui/users")
    page.get_by_label("API key").fill("frk_nothing_real")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("unknown or revoked")
    page.get_by_label("API key").fill(site.keys["acme"])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Users of tenant acme")).to_be_visible()
    # The key itself never reaches the browser: only a session token, HttpOnly.
    cookies = page.context.cookies()
    assert [c["name"] for c in cookies] == ["frecall_ui"]
    assert cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict"
    assert site.keys["acme"] not in json.dumps(cookies) + page.content()


def test_find_and_open_a_user(page: Page, site: Site) -> None:
    log_in(page, site, "acme")
    page.get_by_label("Find a user by id").fill("may")
    page.keyboard.press("Enter")
    page.get_by_role("link", name="maya", exact=True).click()
    expect(page.get_by_role("heading", name="User maya")).to_be_visible()
    counts = page.locator("table.counts")
    expect(counts.get_by_role("row", name="identity self concept")).to_contain_text("2")
    # Every fact is a focusable mark on the timeline, named by its text.
    expect(page.locator("svg.timeline a.fact")).to_have_count(len(_story()))
    expect(page.locator("svg.timeline path.upcoming, svg.timeline path.event")).not_to_have_count(0)


def test_the_chain_of_a_superseded_fact_is_visible(page: Page, site: Site) -> None:
    log_in(page, site, "acme", "/ui/users/maya")
    row = page.locator('table.facts tr[data-edge="city-istanbul"]')
    expect(row).to_have_attribute("data-state", "superseded")
    row.get_by_role("link", name="Maya lives in Istanbul").click()
    panel = page.locator("#fact")
    expect(panel.get_by_role("heading", level=2)).to_contain_text("Maya lives in Istanbul")
    chain = panel.get_by_role("list", name="Supersession and retraction chain")
    expect(chain.get_by_role("listitem")).to_have_count(2)
    expect(chain.get_by_role("listitem").nth(0)).to_contain_text("superseded by")
    expect(chain.get_by_role("listitem").nth(1)).to_contain_text("Maya moved to London")
    # Drawn as an arrow on the timeline, and the fade explained with the scorer's curve.
    expect(page.locator("svg.timeline path.chain.supersedes")).not_to_have_count(0)
    expect(panel.locator("svg.curve polyline.activation")).to_have_count(1)
    expect(panel.locator("dl.params")).to_contain_text("Half-life")


def test_the_playground_shows_both_rankings_and_their_terms(page: Page, site: Site) -> None:
    log_in(page, site, "acme", "/ui/users/maya")
    page.get_by_role("link", name="Query playground").click()
    page.get_by_label("Question").fill("where does maya live")
    page.get_by_role("button", name="Ask").click()
    lifecycle = page.locator("#ranking-lifecycle")
    similarity = page.locator("#ranking-similarity")
    for ranking in (lifecycle, similarity):
        expect(ranking.locator("ol.results > li").first).to_be_visible()
        terms = ranking.locator("dl.terms").first
        for term in ("σ", "decay", "Ω", "mask"):
            expect(terms).to_contain_text(term)
    # The lifecycle answers with the current city; plain similarity with the old one too.
    expect(lifecycle.locator("ol.results > li").first).to_contain_text("London")
    expect(lifecycle.locator('li[data-edge="city-istanbul"]')).to_have_count(0)
    expect(lifecycle.locator("p.meta")).to_contain_text("superseded")
    expect(similarity.locator('li[data-edge="city-istanbul"]')).to_contain_text("superseded")


def test_moving_as_of_back_shows_the_old_value_as_active(page: Page, site: Site) -> None:
    log_in(page, site, "acme", "/ui/users/maya")
    istanbul = page.locator('table.facts tr[data-edge="city-istanbul"]')
    expect(istanbul).to_have_attribute("data-state", "superseded")
    page.get_by_label("Memory as of (UTC)").fill("2026-06-20T12:00")
    page.get_by_role("button", name="Redraw").click()
    expect(page.get_by_role("status").first).to_contain_text("2026-06-20 12:00")
    expect(istanbul).to_have_attribute("data-state", "active")
    # London was not said yet then.
    expect(page.locator('table.facts tr[data-edge="city-london"]')).to_have_count(0)
    # The slider moves through time from the keyboard: Home is the first thing said.
    page.get_by_label("Move through time").focus()
    page.keyboard.press("Home")
    expect(page.get_by_role("status").first).to_contain_text("2026-06-01")


def test_another_tenants_key_cannot_see_the_user(page: Page, site: Site) -> None:
    log_in(page, site, "beta", "/ui/users/maya")
    expect(page.get_by_role("alert")).to_contain_text("no memory for user 'maya'")
    expect(page.locator("body")).not_to_contain_text("Istanbul")
    page.goto(site.url + "/ui/users?q=maya")
    expect(page.get_by_role("status")).to_contain_text("0 users")
    page.goto(site.url + "/ui/users/maya/query?q=where+does+maya+live")
    expect(page.locator("body")).not_to_contain_text("Istanbul")


def test_forgetting_a_fact_from_the_page_removes_it(page: Page, site: Site) -> None:
    assert "rent-950" in site.edge_ids("acme", "maya")
    log_in(page, site, "acme", "/ui/users/maya")
    page.locator('table.facts tr[data-edge="rent-950"]').get_by_role("link").click()
    page.get_by_role("link", name="Forget this fact…").click()
    expect(page.get_by_role("heading", name="Forget this fact?")).to_be_visible()
    page.get_by_role("button", name="Yes, forget this fact").click()
    expect(page.get_by_role("heading", name="Forgotten")).to_be_visible()
    receipt = page.get_by_role("table", name="Receipt: records removed per store")
    expect(receipt).to_be_visible()
    assert "rent-950" not in site.edge_ids("acme", "maya")
    assert "city-london" in site.edge_ids("acme", "maya")
