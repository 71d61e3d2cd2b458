"""Numbers people track (AV8 numeric preservation, paper Appendix H): rent, salary, savings,
prices, personal bests. Amounts are rendered in the persona's currency at local scale."""

from __future__ import annotations

import math
import random

from bench.lifecycle.phrasing import C, Kind, tpl

K = Kind
RENT = K(
    "rent", C.FINANCIAL_MATERIAL, "user.rent", "User pays {v} a month in rent",
    say=tpl("my rent is {v} a month|I pay {v} a month in rent|rent's {v} a month for our "
            "place|we pay {v} monthly for the apartment|paying {v} a month for rent, not bad "
            "for the area"),
    change=tpl("they raised my rent to {v}|rent went up to {v} a month|my rent is now {v} a "
               "month|the landlord increased the rent to {v}|paying {v} in rent now, ouch"),
    gold_change="User's rent went up from {old} to {v} a month",
    ask=tpl("How much is my rent?|What do I pay in rent each month?|What's my monthly rent "
            "now?"),
    ask_before=tpl("What was my rent before it went up to {v}?|How much did I pay in rent "
                   "before the increase to {v}?"),
    numeric=True,
)  # fmt: skip
SALARY = K(
    "salary", C.FINANCIAL_MATERIAL, "user.salary", "User earns {v} a year",
    say=tpl("I make {v} a year|my salary is {v}|I'm on {v} a year|I earn about {v} a year "
            "before tax|{v} a year, that's my salary for now"),
    change=tpl("I got a raise, I'm on {v} now|my salary went up to {v}|new salary: {v} a year|"
               "they bumped my salary to {v}|I'm making {v} a year now"),
    gold_change="User's salary went up from {old} to {v} a year",
    ask=tpl("How much do I earn?|What's my salary now?|What's my annual salary these days?"),
    ask_before=tpl("What was my salary before the raise to {v}?|How much did I earn before "
                   "I got {v}?"),
    numeric=True,
)  # fmt: skip
SAVINGS = K(
    "savings", C.FINANCIAL_MATERIAL, "user.savings", "User has {v} in savings",
    say=tpl("I have {v} saved|my savings are at {v}|I've got {v} put away|we have about {v} "
            "in the savings account|{v} in savings so far"),
    change=tpl("savings are up to {v}|I've got {v} saved now|my savings hit {v}|we're at {v} "
               "in savings now|managed to get my savings to {v}"),
    gold_change="User's savings grew from {old} to {v}",
    ask=tpl("How much do I have saved?|What are my savings at now?|How much money have I put "
            "away?"),
    ask_before=tpl("How much did I have saved before I reached {v}?"),
    numeric=True,
)  # fmt: skip
GYM = K(
    "gym", C.FINANCIAL_MATERIAL, "user.gym_fee", "User's gym membership costs {v} a month",
    say=tpl("my gym membership is {v} a month|the gym costs me {v} a month|I pay {v} a month "
            "for the gym|{v} a month for the climbing gym, worth it|gym's {v} monthly"),
    change=tpl("the gym put the price up to {v} a month|my gym membership is {v} now|gym fee "
               "went up to {v}|paying {v} a month for the gym now|membership got bumped to "
               "{v}"),
    gold_change="User's gym membership went up from {old} to {v} a month",
    ask=tpl("How much is my gym membership?|What do I pay for the gym each month?|What does "
            "the gym cost me now?"),
    ask_before=tpl("What did the gym cost before it went up to {v}?"),
    numeric=True,
)  # fmt: skip
RATE = K(
    "rate", C.FINANCIAL_MATERIAL, "user.hourly_rate", "User charges {v} an hour",
    say=tpl("I charge {v} an hour|my hourly rate is {v}|{v} an hour for private clients|I "
            "bill {v} per hour|my rate's {v} an hour"),
    change=tpl("I put my rate up to {v} an hour|my hourly rate is {v} now|new rate: {v} per "
               "hour|I charge {v} an hour these days|raised my rate to {v} an hour"),
    gold_change="User raised their hourly rate from {old} to {v}",
    ask=tpl("What's my hourly rate?|How much do I charge per hour?|What rate do I bill "
            "clients now?"),
    ask_before=tpl("What was my hourly rate before {v}?"),
    numeric=True,
)  # fmt: skip
PB = K(
    "pb", C.HOBBIES_RECREATION, "user.half_marathon_pb",
    "User's half-marathon personal best is {v}",
    say=tpl("my half-marathon PB is {v}|I ran a {v} half marathon, my best yet|{v} is my "
            "half-marathon best|my personal best for the half is {v}|finished the half in "
            "{v}, a new PB"),
    change=tpl("new half-marathon PB: {v}!|I smashed my PB, {v} now|my best half is {v} now|"
               "knocked my half-marathon PB down to {v}|ran {v} on Sunday, beat my old {old}"),
    gold_change="User improved their half-marathon personal best from {old} to {v}",
    ask=tpl("What's my half-marathon personal best?|What's my best half-marathon time now?|"
            "How fast is my best half marathon?"),
    ask_before=tpl("What was my half-marathon PB before {v}?"),
    numeric=True,
)  # fmt: skip
FLAT = K(
    "flat", C.FINANCIAL_MATERIAL, "user.flat_size", "User's flat is {v} square metres",
    say=tpl("our flat is {v} square metres|the apartment is {v} m², small but cosy|we've got "
            "{v} square metres, two bedrooms|my place is about {v} square metres|{v} square "
            "metres, that's our whole flat"),
    ask=tpl("How big is my flat?|How many square metres is my apartment?|What's the size of "
            "my place?"),
    numeric=True,
)  # fmt: skip
PURCHASE = K(
    "purchase", C.FINANCIAL_MATERIAL, "user.purchase.{slug}", "User paid {v} for a new {item}",
    say=tpl("I bought a new {item} for {v}|the new {item} cost me {v}|paid {v} for a new "
            "{item}, worth it|splurged {v} on a new {item}|got myself a new {item}, {v}"),
    ask=tpl("How much did I pay for my {item}?|What did my new {item} cost?|How much was the "
            "{item} I bought?"),
    numeric=True,
)  # fmt: skip
CHAIN_KINDS: dict[str, Kind] = {k.name: k for k in (RENT, SALARY, SAVINGS, GYM, RATE, PB)}
SINGLE_KINDS: dict[str, Kind] = {k.name: k for k in (FLAT, PURCHASE)}
#: Purchases: item → USD price range.
ITEMS: dict[str, tuple[int, int]] = {
    "e-bike": (1500, 3200), "laptop": (900, 2400), "sofa": (600, 2000), "camera": (500, 1800),
    "espresso machine": (300, 900), "guitar": (300, 1500), "road bike": (900, 2500),
    "fridge": (500, 1300), "drone": (400, 1200), "sewing machine": (250, 800),
}  # fmt: skip
#: USD ranges and the relative step of one change (rent goes up, PBs come down).
_RANGES: dict[str, tuple[int, int, int]] = {
    "rent": (800, 2600, 25), "salary": (38_000, 160_000, 1000), "savings": (2_000, 60_000, 500),
    "gym": (25, 95, 1), "rate": (35, 160, 5),
}  # fmt: skip


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
