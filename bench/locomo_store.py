"""`frecall bench locomo --store DIR`: ingest once, ask many times.

Ingesting the LoCoMo dev split takes most of a run (≈ 2,760 turns through the extractor and
the embedder); a query-time change needs only the questions asked again. With `--store`,
the first run ingests into DIR and writes a stamp beside the store; a later run with the
same data file, conversations and embedder opens the store as it is and skips the ingest
(its `ingest` block is the first run's, marked `reused`). A stamp that does not match (other
data, other `--conversations`, other embedder) is an error, never a silent re-ingest into
a store that already holds turns. A change to ingest-time code needs a fresh DIR.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.locomo_data import Conversation
from frecall.bootstrap import build
from frecall.settings import Settings
from workers.app import App
from workers.errors import ConfigError

#: Written beside the store once its ingest finished: what it holds.
STAMP = "locomo-store.json"


def stamp_of(data: Path, conversations: Sequence[Conversation], embedder: str) -> dict[str, Any]:
    """What identifies an ingested store: the data file's digest, the samples, the model."""
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    return {
        "data_sha256": digest,
        "samples": [c.sample_id for c in conversations],
        "embedder": embedder,
    }


def open_store(
    store_dir: Path,
    stamp: dict[str, Any],
    embedder: str,
    ingest: Callable[[App], dict[str, Any]],
) -> tuple[App, dict[str, Any]]:
    """The app over `store_dir/store` and its ingest report: `ingest(app)` on a new
    directory (then stamped), the stamped report on one that already holds this data."""
    path = store_dir / STAMP
    # No fsync: a bulk load that a crash would simply restart (with a fresh directory).
    settings = Settings(data_dir=store_dir / "store", embedder=embedder)
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("stamp") != stamp:
            raise ConfigError(
                f"bench locomo: {store_dir} holds another ingest ({saved.get('stamp')}); "
                "use a fresh --store directory"
            )
        print(f"bench locomo: reusing the ingested store in {store_dir}", file=sys.stderr)
        return build(settings, fsync=False), {**saved["ingest"], "reused": True}
    if (store_dir / "store").exists():
        raise ConfigError(
            f"bench locomo: {store_dir} holds a store without a finished ingest; "
            "use a fresh --store directory"
        )
    store_dir.mkdir(parents=True, exist_ok=True)
    app = build(settings, fsync=False)
    try:
        report = ingest(app)
    except BaseException:
        app.close()
        raise
    path.write_text(json.dumps({"stamp": stamp, "ingest": report}), encoding="utf-8")
    return app, report
