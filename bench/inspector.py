"""`frecall bench inspector`: how long the memory inspector takes to show a user with many
facts (issue 15: the page of a user with 10,000 facts renders in under a second).

One heavy user's life (`bench.growth_data.life`: replace chains with soft updates, events
with reschedules and cancellations, accumulating facts over `--days`) goes into an embedded
deployment; `frecall serve`'s application then runs in this process on a loopback port and
is asked over HTTP, round after round:

* baseline: `GET /v1/users/U/inspect`, the JSON of the same inspection the page draws;
* the user page (`/ui/users/U`: counts, the timeline of every fact, the first page of the
  fact table), the same with a superseded fact selected (its chain and decay curve), and
  the query playground (both rankings);
* with a browser (Debian's chromium through Playwright, when installed — `--no-browser`
  skips it): the user page from navigation start to the end of the load event, which
  includes parsing, styling and laying out the SVG.

Medians and p95 of wall time, the median CPU time (what a request costs, whatever else the
machine runs), in milliseconds; the page's size; the baseline for scale.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import numpy as np

from bench import growth_data as data
from bench.live_server import live_server
from bench.stats import pct
from frecall.api import create_api
from frecall.settings import Settings
from frecall.wiring import open_deployment
from workers.inputs import EdgeInput, Item

#: Chromium's flags for a headless run in a container (no GPU, no sandbox, a small /dev/shm)
#: that contacts nothing of its own accord; the browser tests use the same.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
]


def run(args: argparse.Namespace) -> int:
    facts = data.life(args.facts, args.days, args.seed)
    user = data.USER
    print(f"inspector: {len(facts)} facts of one user over {args.days} days", flush=True)
    with tempfile.TemporaryDirectory(prefix="fr-bench-inspector-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", embedder=args.embedder)
        with closing(open_deployment(settings, extractor="rules", serving=True, quiet=True)) as d:
            started = time.perf_counter()
            report = d.ingest_edges(_items(facts), "bench")
            print(
                f"ingested {report.accepted} facts in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
            with (
                live_server(create_api(d), timeout=30) as url,
                httpx.Client(base_url=url, timeout=120) as http,
            ):
                results = _measure(http, url, user, args)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print(results)
    return 0


def _items(facts: list[dict[str, Any]]) -> Iterator[Item[EdgeInput]]:
    for i, fact in enumerate(facts):
        yield i, json.dumps(fact), EdgeInput.model_validate(fact)


def _timed(get: Callable[[], httpx.Response], rounds: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Wall and CPU milliseconds per request. CPU time (this process: the server's thread
    and the client) is what the request costs; wall time also counts waiting for the
    cores, which other work on the machine takes."""
    get()  # warm: templates compiled, stores open
    wall, cpu = np.empty(rounds), np.empty(rounds)
    size = 0
    for i in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = get()
        wall[i] = (time.perf_counter() - start) * 1000
        cpu[i] = (time.process_time() - start_cpu) * 1000
        response.raise_for_status()
        size = len(response.content)
    return wall, cpu, size


def _measure(http: httpx.Client, url: str, user: str, args: argparse.Namespace) -> dict[str, Any]:
    # No key in this deployment: the login form opens a local operator's session.
    login = http.post("/ui/login", data={"next": "/ui/users"})
    if login.status_code != 303:
        raise RuntimeError(f"the inspector's login answered {login.status_code}")
    page = f"/ui/users/{quote(user)}"
    inspection = http.get(f"/v1/users/{quote(user)}/inspect").json()
    superseded = next(
        f["edge_id"]
        for states in inspection["categories"].values()
        for f in states.get("superseded", [])
    )
    cases: dict[str, Callable[[], httpx.Response]] = {
        "baseline: GET /v1/users/U/inspect (JSON)": lambda: http.get(
            f"/v1/users/{quote(user)}/inspect"
        ),
        "user page": lambda: http.get(page),
        "user page, a superseded fact selected": lambda: http.get(
            page, params={"fact": superseded}
        ),
        "query playground (both rankings)": lambda: http.get(
            page + "/query", params={"q": "where do I live now?"}
        ),
    }
    results: dict[str, Any] = {
        "facts": inspection["facts"],
        "rounds": args.rounds,
        "server": {},
    }
    for name, get in cases.items():
        wall, cpu, size = _timed(get, args.rounds)
        results["server"][name] = {
            "median_ms": pct(wall, 50),
            "p95_ms": pct(wall, 95),
            "cpu_median_ms": pct(cpu, 50),
            "bytes": size,
        }
        print(f"  measured {name}", flush=True)
    browser = None if args.no_browser else _chromium()
    if browser is not None:
        results["browser"] = _in_browser(browser, url + page, http.cookies, args.rounds)
    else:
        results["browser"] = None
    return results


def _chromium() -> str | None:
    return os.environ.get("FR_CHROMIUM") or shutil.which("chromium")


def _in_browser(
    executable: str, page_url: str, cookies: httpx.Cookies, rounds: int
) -> dict[str, Any]:
    """Navigation start → load event end of the user page in headless chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_cookies(
                [
                    {"name": c.name, "value": c.value or "", "url": page_url}
                    for c in cookies.jar
                    if c.name
                ]
            )
            tab = context.new_page()
            tab.goto(page_url, wait_until="load")
            times = np.empty(rounds)
            for i in range(rounds):
                tab.goto(page_url, wait_until="load")
                times[i] = tab.evaluate(
                    "() => { const n = performance.getEntriesByType('navigation')[0];"
                    " return n.loadEventEnd - n.startTime; }"
                )
            return {"load_median_ms": pct(times, 50), "load_p95_ms": pct(times, 95)}
        finally:
            browser.close()


def _print(results: dict[str, Any]) -> None:
    print(f"\nuser with {results['facts']} facts, {results['rounds']} rounds (ms)")
    print(f"{'request':<44} {'median':>8} {'p95':>8} {'cpu':>8} {'bytes':>10}")
    for name, r in results["server"].items():
        print(
            f"{name:<44} {r['median_ms']:>8.1f} {r['p95_ms']:>8.1f} "
            f"{r['cpu_median_ms']:>8.1f} {r['bytes']:>10}"
        )
    browser = results["browser"]
    if browser is None:
        print("browser: not measured (no chromium: bash deploy/local/chromium.sh installs it)")
    else:
        print(
            f"{'browser: user page, navigation → load end':<44} "
            f"{browser['load_median_ms']:>8.1f} {browser['load_p95_ms']:>8.1f}"
        )
