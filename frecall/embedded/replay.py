"""`frecall replay` in the embedded deployment: rebuild the data dir's stores from its log.

The one place where the embedded stores are swapped: the new vector index and slot index
are built beside the old ones (`qdrant.replay`, `slots.replay.sqlite`) and switched in only
once complete, so a failed replay leaves the old stores as they were. Nothing else may have
the data dir open meanwhile (the stores lock it).
"""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

from frecall.bootstrap import embedder_settings, make_embedder, make_slots, make_vectors
from frecall.settings import Settings
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.results import ReplayReport
from workers.embedding.compat import check_log_model
from workers.lifecycle.bulk import BulkLifecycle, apply_all
from workers.lifecycle.replay import ByLogPosition, rebuild
from workers.lifecycle.service import LifecycleService
from workers.progress import Progress
from workers.stores.file_log import FileEventLog


def replay_data_dir(settings: Settings, *, bulk: bool = True) -> ReplayReport:
    """Rebuild every store of `settings.data_dir` from its log, then switch over.

    `bulk`: apply the edges in batches, each slot resolved once per batch
    (workers/lifecycle/bulk.py); False: one `apply` per edge (the reference path, which
    `frecall bench throughput` measures against)."""
    data = settings.data_dir
    policy = load_policy(settings.policy_file)
    embedder = make_embedder(settings)
    log = FileEventLog(data / "log", fsync=False)
    try:
        # Replay copies the logged vectors; the stores it builds are then queried with the
        # configured embedder, so the two must be the same model (workers/embedding/compat).
        check_log_model(log, embedder.model_id, embedder_settings(settings))
    except BaseException:
        log.close()
        raise
    dim = embedder.dim
    new_q, new_s = data / "qdrant.replay", data / "slots.replay.sqlite"
    shutil.rmtree(new_q, ignore_errors=True)
    new_s.unlink(missing_ok=True)
    try:
        vectors, slots = make_vectors(settings, dim, new_q), make_slots(settings, new_s)
        try:
            service = LifecycleService(slots, vectors, policy)
            many = BulkLifecycle(slots, vectors, policy)
            report = rebuild(
                log.read_commands(),
                ((i, r) for i, r in enumerate(log.read()) if isinstance(r, EdgeEvent)),
                ByLogPosition(),
                service.apply,
                Progress("replay", log.count()),
                apply_many=partial(apply_all, many, service.apply) if bulk else None,
            )
        finally:
            vectors.close()
            slots.close()
    finally:
        log.close()
    # Switch over only once the new stores are complete: a failed replay leaves the old.
    shutil.rmtree(data / "qdrant", ignore_errors=True)
    new_q.rename(data / "qdrant")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{data / 'slots.sqlite'}{suffix}").unlink(missing_ok=True)
    new_s.rename(data / "slots.sqlite")
    return report
