"""Where the lifecycle worker's time goes: its handler, in this process, against the real Redis.

`frecall bench pipeline` times the agents end to end through Kafka (several processes, so no
profile). This runs the handler the worker builds (`lifecycle_handler`, frecall/distributed/
stores.py) on the same edges, in batches of the agent's size (`EDGE_BATCH`), each batch's
announcements confirmed as the agent does once they are produced (nothing is produced here:
Kafka is not timed). `StageClock` splits the time by stage — the Redis round trips apart
from the stores' own Python work — and counts the round trips (one per command sent, or per
pipeline), per user and batch: the number the bulk path must cut.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from bench.stages import StageClock
from frecall.distributed.stores import lifecycle_handler, open_stores
from frecall.settings import Settings
from schemas.events import EdgeEvent
from schemas.streams import EDGES
from workers.distributed.messages import Received, Rejections

#: The lifecycle agent's batch (streams/faust_app.py `EDGE_BATCH`; not imported: Faust).
AGENT_BATCH = 256

#: What `StageClock` times besides its own stages: the handler's parsing and ledger, and
#: Redis's round trips (a command or a pipeline sent, and each reply waited for).
HANDLER_STAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "event parsing": (("workers.distributed.lifecycle", "LifecycleHandler._parsed"),),
    "delivery ledger": (("workers.stores.redis_ledger", "RedisDeliveryLedger"),),
    "redis send": (("redis.connection", "AbstractConnection.send_packed_command"),),
    "redis reply": (("redis.connection", "AbstractConnection.read_response"),),
}


def profile_handler(
    settings: Settings, edges: Sequence[EdgeEvent], batch: int = AGENT_BATCH
) -> dict[str, Any]:
    """Apply `edges` through a fresh `LifecycleHandler` in `settings`' Redis namespace (which
    the caller deletes); the rate, CPU and wall time per edge by stage, round trips."""
    stores = open_stores(settings)
    handler = lifecycle_handler(stores, Rejections(stores.letters), settings.lifecycle_bulk)
    messages = [
        Received(EDGES, 0, offset, e.user_id, e.model_dump_json().encode())
        for offset, e in enumerate(edges)
    ]
    clock = StageClock(HANDLER_STAGES)
    user_batches = 0
    try:
        with clock.running():
            start, cpu = time.perf_counter(), time.process_time()
            for first in range(0, len(messages), batch):
                chunk = messages[first : first + batch]
                user_batches += len({m.key for m in chunk})
                for handled in handler.handle_edges(chunk):
                    if handled.confirm is not None:
                        handled.confirm()
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        stores.close()
    n = max(len(edges), 1)
    round_trips = clock.calls.get("redis send", 0)
    return {
        "edges": len(edges),
        "edges_per_s": round(len(edges) / wall, 1),
        "cpu_ms_per_edge": round(cpu * 1000 / n, 3),
        "round_trips_per_user_batch": round(round_trips / max(user_batches, 1), 1),
        "round_trips": round_trips,
        "stages_ms_per_edge": clock.per_item_ms(wall, n),
    }


def profile_lines(profile: dict[str, Any], label: str) -> list[str]:
    """The profile as the bench's table prints it."""
    stages = profile["stages_ms_per_edge"]
    parts = ", ".join(f"{k} {v:.3f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1]))
    return [
        f"  {label}: {profile['edges_per_s']:,.0f} edges/s in-process, "
        f"cpu {profile['cpu_ms_per_edge']:.3f} ms/edge, "
        f"{profile['round_trips_per_user_batch']:.1f} Redis round trips per user and batch",
        f"    ms per edge: {parts}",
    ]
