"""A Faust worker whose lifecycle handler fails on cue (run as a subprocess by
test_faust_agents.py): the real `create_app` and agents, a scripted handler.

    python faust_fault_worker.py BOOTSTRAP TOPIC_PREFIX LOG MODE

MODE `confirm`: the first confirmation raises `StorageError` (Redis gone after the commit).
MODE `produce`: the first handled batch asks for a message the broker refuses (too large).
Every handled and confirmed offset is appended to LOG.
"""

from __future__ import annotations

import sys
from pathlib import Path

from schemas.streams import DLQ
from streams.faust_app import create_app, run_worker
from streams.topics import Topics
from workers.distributed.lifecycle import Handled
from workers.distributed.messages import Outgoing, Received, Rejections
from workers.errors import StorageError
from workers.stores.dead_letters import InMemoryDeadLetters


def main() -> None:
    bootstrap, prefix, log_path, mode = sys.argv[1:5]
    log = Path(log_path)
    failed = {"done": False}

    def note(line: str) -> None:
        with log.open("a") as fh:
            fh.write(line + "\n")

    class Scripted:
        def handle_edge(self, message: Received) -> Handled:
            note(f"handled {message.offset}")
            outgoing: list[Outgoing] = []
            if mode == "produce" and not failed["done"]:
                failed["done"] = True
                outgoing = [Outgoing(DLQ, "k", b"x" * 3_000_000)]  # over message.max.bytes

            def confirm() -> None:
                if mode == "confirm" and not failed["done"]:
                    failed["done"] = True
                    raise StorageError("redis", "mark_processed", "connection refused")
                note(f"confirmed {message.offset}")

            return Handled(outgoing, confirm)

        def handle_command(self, message: Received) -> Handled:
            return Handled()

    app = create_app(
        bootstrap,
        Topics(prefix),
        1,
        prefix + "group",
        Rejections(InMemoryDeadLetters()),
        lifecycle=Scripted(),  # type: ignore[arg-type]
        datadir=str(log.parent / "faust"),
    )
    sys.argv = [sys.argv[0], "worker"]
    run_worker(app, "warning")


if __name__ == "__main__":
    main()
