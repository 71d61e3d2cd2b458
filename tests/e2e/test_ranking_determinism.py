"""Rankings as deterministic as the state, embedded (issue 12), compared as full query JSON.

* any permutation and duplication of an edge stream gives identical query results;
* forget ≡ never ingested, in a live process (no restart, no replay);
* another user's writes and erasures change nothing in a user's rankings;
* `frecall replay` gives the same rankings.

The deployment is the product's (`open_deployment`: Qdrant Edge, the SQLite slot index, the
file log) with the hashing embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from frecall.deployment import Deployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from tests.ranking_fixtures import (
    NEIGHBOUR,
    USERS,
    first_difference,
    neighbour_rows,
    rankings,
    shuffled_with_duplicates,
    story_for,
    stream,
)
from workers.inputs import EdgeInput, listed

pytestmark = pytest.mark.e2e

Open = Callable[[], Deployment]


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Open]:
    """New embedded deployments, each in its own data dir."""
    with ExitStack() as stack:

        def new() -> Deployment:
            settings = Settings(
                data_dir=tmp_path / f"d{len(stack._exit_callbacks)}", embedder="hashing"
            )
            opened = open_deployment(settings, quiet=True)
            stack.callback(opened.close)
            return opened

        yield new


def ingest(deployment: Deployment, rows: Sequence[dict[str, Any]], batch: int = 1000) -> None:
    for start in range(0, len(rows), batch):
        chunk = [EdgeInput.model_validate(r) for r in rows[start : start + batch]]
        report = deployment.ingest_edges(listed(chunk, exclude_unset=True), "test")
        assert report.ok, report.failures


def all_rankings(deployment: Deployment, users: Sequence[str] = USERS) -> dict[str, list[str]]:
    ask = lambda request, ranking: deployment.query(request, ranking=ranking)  # noqa: E731
    return {user: rankings(ask, user) for user in users}


def assert_same(got: dict[str, list[str]], want: dict[str, list[str]]) -> None:
    for user in want:
        assert got[user] == want[user], user + first_difference(got[user], want[user])


def test_permutations_and_duplications_give_identical_query_results(fresh: Open) -> None:
    rows = stream() + neighbour_rows()
    reference = fresh()
    ingest(reference, rows)
    expected = all_rankings(reference, [*USERS, NEIGHBOUR])
    assert any('"results":[{' in r for r in expected["ana"])
    # Slot association by similarity takes part (soft and superseding): it too must be a
    # function of the edge set.
    assert any("no slot key: supersedes user.rent" in r for r in expected["ana"])
    assert any("no slot key: soft update of hobby.football" in r for r in expected["ana"])
    for seed, batch in ((1, 1000), (2, 7), (3, 1)):
        other = fresh()
        ingest(other, shuffled_with_duplicates(rows, seed), batch)
        assert_same(all_rankings(other, [*USERS, NEIGHBOUR]), expected)
    # As separate commands would: the stores closed and opened again between batches.
    for seed in (5, 6):
        other = fresh()
        shuffled = shuffled_with_duplicates(rows, seed)
        for start in range(0, len(shuffled), 20):
            ingest(other, shuffled[start : start + 20])
            other.close()  # opened again on next use
        assert_same(all_rankings(other, [*USERS, NEIGHBOUR]), expected)


def test_forget_is_never_ingested_for_rankings_in_a_live_process(fresh: Open) -> None:
    # A plain fact, and the keyed fact a restatement was associated with (it is released).
    erased_facts, erased_user = ("ben/city-london", "ben/filler-10"), NEIGHBOUR
    live = fresh()
    ingest(live, stream() + neighbour_rows())
    before = all_rankings(live)
    for fact in erased_facts:
        live.forget("ben", fact)
    live.forget(erased_user)
    never = fresh()
    ingest(never, [r for r in stream() if r["edge_id"] not in erased_facts])
    after = all_rankings(live, [*USERS, NEIGHBOUR])
    assert_same(after, all_rankings(never, [*USERS, NEIGHBOUR]))
    assert after["ben"] != before["ben"]  # the erasure did change Ben's answers
    assert all('"results":[]' in r for r in after[NEIGHBOUR])


def test_another_users_writes_and_erasures_change_nothing(fresh: Open) -> None:
    deployment = fresh()
    ingest(deployment, story_for("ana"))
    alone = all_rankings(deployment, ["ana"])
    ingest(deployment, story_for("ben") + neighbour_rows())
    assert_same(all_rankings(deployment, ["ana"]), alone)
    deployment.forget("ben", "ben/rent-1100")
    deployment.forget(NEIGHBOUR)
    assert_same(all_rankings(deployment, ["ana"]), alone)


def test_replay_gives_the_same_rankings(fresh: Open) -> None:
    deployment = fresh()
    ingest(deployment, shuffled_with_duplicates(stream() + neighbour_rows(), 4), batch=5)
    deployment.forget("ben", "ben/diet-pescatarian")
    deployment.forget(NEIGHBOUR)
    before = all_rankings(deployment)
    deployment.replay()
    assert_same(all_rankings(deployment), before)
