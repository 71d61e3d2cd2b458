"""Tenants through the command line and every embedded store (issue 14): the default tenant
is exactly what it was before tenants existed; a named tenant's user of the same id is
another person in the log, the vector and slot indexes, the dead letters, exports, queries,
erasures and replay."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from schemas.events import EdgeEvent
from workers.stores.dead_letters import read_dead_letters
from workers.stores.file_log import FileEventLog

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = "2026-09-21T09:00:00Z"


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FR_EMBEDDER", "hashing")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def marked(tmp_path: Path, marker: str, extra: list[str] | None = None) -> Path:
    """The demo story with `marker` before every text (and raw `extra` lines appended)."""
    path = tmp_path / f"story-{marker.strip() or 'plain'}.jsonl"
    lines = []
    for line in STORY.read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            lines.append(json.dumps({**row, "text": marker + row["text"]}))
    path.write_text("\n".join([*lines, *(extra or [])]) + "\n", "utf-8")
    return path


def export(capsys: pytest.CaptureFixture[str], data: Path, *tenant: str) -> str:
    code, out, _ = cli(capsys, "export", "--data-dir", str(data), "--user", "maya", *tenant)
    assert code == 0
    return out


def test_tenants_through_every_embedded_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alone, data = tmp_path / "alone", tmp_path / "data"
    plain = marked(tmp_path, "")
    bad_acme = json.dumps({"user_id": "maya", "text": "ACME broken", "category": "NOPE"})
    bad_default = json.dumps({"user_id": "maya", "text": "default broken", "category": "NOPE"})
    acme = marked(tmp_path, "ACME ", [bad_acme])
    # The reference: a data dir that never saw a tenant.
    assert cli(capsys, "ingest-edges", "--data-dir", str(alone), str(plain))[0] == 0
    reference = export(capsys, alone)

    assert cli(capsys, "ingest-edges", "--data-dir", str(data), str(plain))[0] == 0
    code, _, err = cli(
        capsys, "ingest-edges", "--data-dir", str(data), "--tenant", "acme", str(acme)
    )
    assert code == 1 and "rejected 1" in err  # the broken line, dead-lettered
    with (tmp_path / "bad.jsonl").open("w") as fh:
        fh.write(bad_default + "\n")
    assert cli(capsys, "ingest-edges", "--data-dir", str(data), str(tmp_path / "bad.jsonl"))[0] == 1

    # The default tenant's export is byte for byte what it was before tenants existed.
    assert export(capsys, data) == reference
    acme_export = json.loads(export(capsys, data, "--tenant", "acme"))
    assert acme_export["user_id"] == "maya"
    assert {f["edge"]["user_id"] for f in acme_export["facts"]} == {"maya"}
    assert all(f["edge"]["text"].startswith("ACME ") for f in acme_export["facts"])
    assert export(capsys, data, "--tenant", "beta") == '{"facts":[],"user_id":"maya"}\n'

    code, out, _ = cli(
        capsys,
        "query",
        "--data-dir",
        str(data),
        "--tenant",
        "acme",
        "--user",
        "maya",
        "--as-of",
        AS_OF,
        "--k",
        "50",
        "--json",
        "Where does Maya live?",
    )
    results = json.loads(out)["results"]
    assert code == 0 and results and all(r["text"].startswith("ACME ") for r in results)

    # The log holds both people, apart.
    log = FileEventLog(data / "log")
    log_users = {record.user_id for record in log.read() if isinstance(record, EdgeEvent)}
    log.close()
    assert log_users == {"maya", "~acme~maya"}

    # Erasing acme's fact and acme's user leaves the default tenant's maya whole.
    code, out, _ = cli(
        capsys,
        "forget",
        "--data-dir",
        str(data),
        "--tenant",
        "acme",
        "--user",
        "maya",
        "--edge",
        "city-london",
        "--json",
    )
    assert code == 0 and json.loads(out)["removed"]["vector_index"] == 1
    assert export(capsys, data) == reference
    letters = read_dead_letters(data / "dead-letters.jsonl")
    assert {json.loads(x["raw"])["user_id"] for x in letters} == {"maya", "~acme~maya"}

    # Replay rebuilds both tenants, and the erased fact stays erased.
    acme_before = export(capsys, data, "--tenant", "acme")
    assert "city-london" not in {f["edge"]["edge_id"] for f in json.loads(acme_before)["facts"]}
    assert cli(capsys, "replay", "--data-dir", str(data))[0] == 0
    assert export(capsys, data) == reference
    assert export(capsys, data, "--tenant", "acme") == acme_before

    code, out, _ = cli(
        capsys, "forget", "--data-dir", str(data), "--tenant", "acme", "--user", "maya", "--json"
    )
    removed = json.loads(out)["removed"]
    assert code == 0 and removed["dead_letters"] == 1  # acme's letter, not the default's
    left = read_dead_letters(data / "dead-letters.jsonl")
    assert [json.loads(x["raw"])["user_id"] for x in left] == ["maya"]
    assert json.loads(export(capsys, data, "--tenant", "acme"))["facts"] == []
    assert export(capsys, data) == reference
    assert cli(capsys, "replay", "--data-dir", str(data))[0] == 0
    assert json.loads(export(capsys, data, "--tenant", "acme"))["facts"] == []
    assert export(capsys, data) == reference


def test_a_bad_tenant_name_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(
        capsys, "export", "--data-dir", str(tmp_path), "--tenant", "Not OK", "--user", "u"
    )
    assert code == 1 and "invalid tenant name 'Not OK'" in err


def test_inspect_takes_a_tenant(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "d"
    assert (
        cli(capsys, "ingest-edges", "--data-dir", str(data), "--tenant", "acme", str(STORY))[0] == 0
    )
    code, out, _ = cli(
        capsys, "inspect", "--data-dir", str(data), "--tenant", "acme", "--user", "maya", "--json"
    )
    view: dict[str, Any] = json.loads(out)
    assert code == 0 and view["user_id"] == "maya" and view["categories"]
    code, out, _ = cli(capsys, "inspect", "--data-dir", str(data), "--user", "maya", "--json")
    assert json.loads(out)["categories"] == {}


def test_keys_create_list_revoke(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    code, key, err = cli(capsys, "keys", "create", "--data-dir", data, "--tenant", "acme")
    assert code == 0 and key.startswith("frk_") and key.count("\n") == 1  # the key alone
    key_id = key.split("_")[1]
    assert f"created key {key_id} for tenant acme" in err and key.strip() not in err
    code, _, _ = cli(
        capsys, "keys", "create", "--data-dir", data, "--tenant", "ops", "--admin", "--name", "me"
    )
    assert cli(capsys, "keys", "revoke", "--data-dir", data, key_id)[0] == 0
    code, out, _ = cli(capsys, "keys", "list", "--data-dir", data)
    first, second = out.splitlines()
    assert code == 0 and first.split()[:4] == [key_id, "acme", "tenant", "revoked"]
    assert second.split()[1:4] == ["ops", "admin", "active"] and second.endswith("  me")
    assert first.index("created") == second.index("created")  # aligned columns
    code, _, err = cli(capsys, "keys", "revoke", "--data-dir", data, "000000000000")
    assert code == 1 and "no key 000000000000" in err
