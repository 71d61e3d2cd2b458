"""The one rebuild from the log (workers/lifecycle/replay.py): both replays honour forget
commands, each by the order its log has."""

from __future__ import annotations

import io
from datetime import timedelta

from schemas.events import EdgeEvent, ForgetCommand
from schemas.policy import load_policy
from tests.unit.edge_helpers import T0, edge
from workers.lifecycle.replay import ByIssueTime, ByLogPosition, rebuild
from workers.lifecycle.service import LifecycleService
from workers.progress import Progress
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex


def forget(user: str, edge_id: str | None, day: float) -> ForgetCommand:
    return ForgetCommand(
        command_id=f"c-{user}-{edge_id}-{day}",
        user_id=user,
        edge_id=edge_id,
        issued_at=T0 + timedelta(days=day),
    )


def replay(
    log: list[EdgeEvent | ForgetCommand], erasures: ByLogPosition | ByIssueTime
) -> tuple[list[str], int]:
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, load_policy(None))
    report = rebuild(
        ((i, r) for i, r in enumerate(log) if isinstance(r, ForgetCommand)),
        ((i, r) for i, r in enumerate(log) if isinstance(r, EdgeEvent)),
        erasures,
        service.apply,
        Progress("test", out=io.StringIO()),
    )
    assert report.edges + report.skipped_forgotten == sum(isinstance(r, EdgeEvent) for r in log)
    assert report.forget_commands == sum(isinstance(r, ForgetCommand) for r in log)
    kept = sorted(r.edge_id for u in ("u1", "u2") for r in vectors.scroll(u))
    return kept, report.skipped_forgotten


def test_one_ordered_log_erases_what_came_before_the_command() -> None:
    log: list[EdgeEvent | ForgetCommand] = [
        edge("a", day=1, slot="s.a"),
        edge("b", day=2, slot="s.b"),
        edge("x", day=2, slot="s.x", user="u2"),
        forget("u1", None, 3),  # the whole user, as of here
        forget("u2", "x", 3),
        edge("c", day=4, slot="s.c"),  # said after the erasure: stays
        edge("x", day=5, slot="s.x", user="u2"),  # the same id again, later: stays
    ]
    assert replay(log, ByLogPosition()) == (["c", "x"], 3)


def test_two_topics_erase_by_id_whenever_said_and_by_the_user_erasure_time() -> None:
    log: list[EdgeEvent | ForgetCommand] = [
        forget("u1", None, 3),
        forget("u2", "x", 3),
        edge("a", day=1, slot="s.a"),
        edge("b", day=3, slot="s.b"),  # ingested at the erasure's time: erased
        edge("c", day=4, slot="s.c"),
        edge("x", day=5, slot="s.x", user="u2"),  # erased by id, whenever said
        edge("y", day=5, slot="s.y", user="u2"),
    ]
    erasures = ByIssueTime()
    assert replay(log, erasures) == (["c", "y"], 3)
    assert erasures.users == {"u1": T0 + timedelta(days=3)}
    assert erasures.edges == {("u2", "x")}
