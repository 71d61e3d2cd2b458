"""Another checkout's code in the same bench invocation: the mechanism behind `--baseline`.

A run is a child process (`python SCRIPT --child …`) whose imports resolve to one tree
(`PYTHONPATH`), so two runs differ only in the product's code, not in the interpreter, the
installed dependencies or the machine's moment (benches alternate the trees). The script
prints its result as one JSON line last; the machine's load average is kept beside it. The
script must put the tree first on its path before any product import (`sys.path[0] =
os.environ["PYTHONPATH"]`: Python puts the script's own directory there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: This checkout: the tree `bench/` was imported from.
HERE = Path(__file__).resolve().parent.parent


def checkout(path: Path) -> Path | None:
    """`path` resolved when it holds the product's code, else None."""
    return path.resolve() if (path / "workers" / "lifecycle").is_dir() else None


def run_child(script: Path, tree: Path, argv: list[str]) -> dict[str, Any]:
    """`script --child argv` over `tree`'s code: its JSON result, seconds and load average."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    load_before = os.getloadavg()[0]
    began = time.perf_counter()
    command = [sys.executable, str(script), "--child", *argv]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{script.stem} run over {tree} failed:\n{done.stderr[-2000:]}")
    return {
        "tree": str(tree),
        "result": json.loads(done.stdout.strip().splitlines()[-1]),
        "seconds": round(time.perf_counter() - began, 1),
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }
