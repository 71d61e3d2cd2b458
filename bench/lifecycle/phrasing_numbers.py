"""Numbers people track (AV8 numeric preservation, paper Appendix H): rent, salary, savings,
prices, personal bests. Amounts are rendered in the persona's currency at local scale."""

from __future__ import annotations

import math
import random

from bench.lifecycle.phrasing import Kind
from bench.tables import load, pools, records

_DATA = load("bench.lifecycle", "numbers")
#: Amounts that change over time (rent, salary, …) and amounts said once (`data/numbers.toml`).
CHAIN_KINDS: dict[str, Kind] = records(Kind, _DATA["chain"])
SINGLE_KINDS: dict[str, Kind] = records(Kind, _DATA["single"])
#: Purchases: item → USD price range.
ITEMS: dict[str, tuple[int, int]] = pools(_DATA["items"])
#: USD ranges and the relative step of one change (rent goes up, PBs come down).
_RANGES: dict[str, tuple[int, int, int]] = pools(_DATA["ranges"])


def money(usd: float, scale: float, symbol: str) -> str:
    """An amount in local currency, rounded to three significant figures: "€1,130"."""
    local = usd * scale
    step = 10 ** max(0, math.floor(math.log10(max(local, 1))) - 2)
    return f"{symbol}{round(local / step) * step:,}"


def chain_values(kind: str, n: int, rng: random.Random, scale: float, symbol: str) -> list[str]:
    """n increasing amounts (or decreasing times for a PB), rendered."""
    if kind == "pb":
        seconds = rng.randint(6300, 8100)  # 1:45–2:15
        out = []
        for _ in range(n):
            out.append(f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}")
            seconds -= rng.randint(60, 300)
        return out
    low, high, step = _RANGES[kind]
    amount = rng.randrange(low, high, step)
    values = []
    for _ in range(n):
        values.append(money(amount, scale, symbol))
        amount = int(amount * rng.uniform(1.04, 1.18) / step + 1) * step
    return values


def single_value(kind: str, rng: random.Random, scale: float, symbol: str) -> dict[str, str]:
    """Values of a single-version numeric fact ({v}, and {item}/{slug} for purchases)."""
    if kind == "flat":
        return {"v": str(rng.randint(38, 120))}
    item = rng.choice(sorted(ITEMS))
    low, high = ITEMS[item]
    return {
        "v": money(rng.randint(low, high), scale, symbol),
        "item": item,
        "slug": item.replace(" ", "_").replace("-", "_"),
    }
