"""API fuzzing (issue 14): Schemathesis against the OpenAPI schema of a running `frecall
serve` (embedded, keys on), with a tenant key and, for the key routes, an admin key.

Every generated request must get a non-5xx answer that matches the schema (status code,
headers, body), and none may reach another tenant's data: tenants `beta` and `default` hold
a user of the same ids as the fuzzed tenant `acme` — their facts carry a marker no response
may show (tests/e2e/fuzz_hooks.py), and their exports are byte for byte the same after the
run. A bounded number of requests per operation: the run takes about a minute here.

`FR_FUZZ_SEED` picks another seed (the run prints the one it used); `FR_FUZZ_EXAMPLES` the
examples per operation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from tests.processes import start_server, stop

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
SEED = int(os.environ.get("FR_FUZZ_SEED", "20261201"))
EXAMPLES = int(os.environ.get("FR_FUZZ_EXAMPLES", "100"))


def _story(path: Path, user: str, marker: str) -> Path:
    rows = [json.loads(x) for x in STORY.read_text("utf-8").splitlines() if x.strip()]
    path.write_text(
        "".join(json.dumps({**r, "user_id": user, "text": marker + r["text"]}) + "\n" for r in rows)
    )
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) in (0,), argv
    return capsys.readouterr().out


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    variables = {
        "FR_EMBEDDER": "hashing",
        "FR_DATA_DIR": str(tmp_path / "data"),
        "FR_RATE_LIMIT_PER_S": "0",  # the limiter is tested elsewhere; here: the API itself
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return {**os.environ, **variables}


@contextmanager
def serving(env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """`frecall serve` on a free loopback port until the block ends (stopped by its pid)."""
    proc, url = start_server(env, tmp_path / "serve.log", "serve", "--port")
    try:
        yield url
    finally:
        stop(proc)
    errors = [
        line
        for line in (tmp_path / "serve.log").read_text(errors="replace").splitlines()
        if line.startswith("ERROR")
    ]
    assert errors == [], errors[:5]


def _schemathesis(
    url: str, key: str, report: Path, env: dict[str, str], *extra: str
) -> dict[str, Any]:
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{url}/openapi.json",
        "--header",
        f"Authorization: Bearer {key}",
        "--checks",
        "all",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--generation-database",
        "none",
        "--no-color",
        # Path parameters must be valid path segments, and Schemathesis draws then filters
        # them: with two ids in one path (user, edge) some seeds filter more than its health
        # check likes. That check is about generation speed, not about the API.
        "--suppress-health-check",
        "filter_too_much",
        "--report",
        "json",
        "--report-json-path",
        str(report),
        *extra,
    ]
    hooks = {"SCHEMATHESIS_HOOKS": "tests.e2e.fuzz_hooks", "PYTHONPATH": str(ROOT)}
    # Run where its cache (.schemathesis/) may go: the report's directory, not the checkout.
    done = subprocess.run(
        command,
        env={**env, **hooks},
        cwd=report.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary: dict[str, Any] = json.loads(report.read_text())
    assert done.returncode == 0 and not summary["failures"] and not summary["errors"], (
        done.stdout[-6000:] + done.stderr[-2000:]
    )
    return summary


def test_schemathesis_finds_no_5xx_no_schema_mismatch_and_no_other_tenants_data(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = env["FR_DATA_DIR"]
    acme = _cli(capsys, "keys", "create", "--tenant", "acme", "--data-dir", data).strip()
    admin = _cli(capsys, "keys", "create", "--tenant", "ops", "--admin", "--data-dir", data).strip()
    for user in ("42", "maya"):
        for tenant, marker in (("beta", "BETA-PRIVATE "), ("default", "DEFAULT-PRIVATE ")):
            path = _story(tmp_path / f"{tenant}-{user}.jsonl", user, marker)
            _cli(capsys, "ingest-edges", "--data-dir", data, "--tenant", tenant, str(path))
        path = _story(tmp_path / f"acme-{user}.jsonl", user, "")
        _cli(capsys, "ingest-edges", "--data-dir", data, "--tenant", "acme", str(path))

    def exports() -> list[str]:
        return [
            _cli(capsys, "export", "--data-dir", data, "--tenant", tenant, "--user", user)
            for tenant in ("beta", "default")
            for user in ("42", "maya", "~acme~42")
        ]

    before = exports()
    runs = []
    with serving(env, tmp_path) as url:
        runs.append(_schemathesis(url, acme, tmp_path / "tenant.json", env))
        runs.append(
            _schemathesis(
                url, admin, tmp_path / "admin.json", env, "--include-path-regex", "^/v1/keys"
            )
        )
    assert exports() == before  # nothing of beta's or the default tenant's changed

    tenant_run, admin_run = runs
    assert tenant_run["operations"]["tested"] == tenant_run["operations"]["total"] >= 14
    assert admin_run["operations"]["tested"] == 3
    with capsys.disabled():
        for name, run in (("tenant key", tenant_run), ("admin key, /v1/keys", admin_run)):
            print(
                f"\nschemathesis ({name}): {run['operations']['tested']} operations, "
                f"{run['test_cases']['generated']} test cases, "
                f"{len(run['failures'])} failures, seed {run['seed']}, "
                f"{run['running_time']:.0f} s"
            )
