"""Screenshots of the inspector's main views for docs/inspector/ (README, docs/inspector.md).

    .venv/bin/python -m tests.browser.screenshots [OUT_DIR]

Runs `frecall serve` on a temporary data dir with the demo's story (tenant `acme`), logs in
with a key and photographs each view in Debian's chromium, as the browser tests drive it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from bench.inspector import CHROMIUM_ARGS
from tests.browser.test_inspector import STORY, Site, _ingest, _keys
from tests.processes import start_server, stop

ROOT = Path(__file__).resolve().parents[2]


def shoot(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    browser_path = os.environ.get("FR_TEST_CHROMIUM") or shutil.which("chromium")
    if not browser_path:
        raise SystemExit("no chromium: bash deploy/local/chromium.sh installs it")
    with tempfile.TemporaryDirectory(prefix="fr-shots-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
        env.update(FR_EMBEDDER="hashing", FR_DATA_DIR=str(Path(tmp) / "data"))
        keys = _keys(env)
        proc, url = start_server(env, Path(tmp) / "serve.log", "serve", "--port")
        try:
            site = Site(url, keys)
            _ingest(site)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=browser_path, args=CHROMIUM_ARGS
                )
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                _views(page, url, keys["acme"], out)
                browser.close()
        finally:
            stop(proc)
    print(f"screenshots of {STORY.name} in {out}")


def _views(page: Page, url: str, key: str, out: Path) -> None:
    page.goto(url + "/ui/users")
    page.screenshot(path=out / "login.png")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Users of tenant acme").wait_for()
    page.screenshot(path=out / "users.png")
    # A day when three events were still ahead ("upcoming"), and the chains already drawn.
    page.goto(url + "/ui/users/maya?as_of=2026-09-17T09:00")
    page.screenshot(path=out / "user.png", full_page=True, clip=_top(page, 1500))
    page.goto(url + "/ui/users/maya?fact=city-istanbul")
    page.locator("#fact").screenshot(path=out / "why.png")
    page.goto(url + "/ui/users/maya?as_of=2026-06-20T12:00&fact=city-istanbul")
    page.screenshot(path=out / "as-of.png", full_page=True, clip=_top(page, 1150))
    page.goto(url + "/ui/users/maya/query?q=where+does+maya+live&k=5")
    page.screenshot(path=out / "playground.png", full_page=True, clip=_top(page, 1400))
    page.goto(url + "/ui/users/maya/forget?fact=rent-950")
    page.get_by_role("button", name="Yes, forget this fact").click()
    page.get_by_role("heading", name="Forgotten").wait_for()
    page.screenshot(path=out / "receipt.png")


def _top(page: Page, height: int) -> dict[str, float]:
    full = page.evaluate("document.documentElement.scrollHeight")
    return {"x": 0, "y": 0, "width": 1280, "height": min(height, full)}


if __name__ == "__main__":
    shoot(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "inspector")
