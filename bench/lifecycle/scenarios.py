"""The nine attack vectors of LifecycleBench (paper §5, Table 12) as scenarios.

Each builder writes one small story into a persona's timeline — a preference that changes,
an appointment that passes, a plan that is dropped — and returns the question about it with
its gold: the facts that must be retrieved and the facts that must not be served as current.
Slots are reserved per scenario, so nothing else in the timeline touches a question's slot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import TypeVar

from bench.lifecycle import phrasing_events as ev
from bench.lifecycle.halves import pick
from bench.lifecycle.personas import EMPLOYERS, FEMALE_NAMES, FIRST_NAMES, MALE_NAMES
from bench.lifecycle.phrasing import STATE_KINDS, Kind, article, fill
from bench.lifecycle.phrasing_numbers import (
    CHAIN_KINDS,
    SINGLE_KINDS,
    chain_values,
    single_value,
)
from bench.lifecycle.phrasing_prefs import LADDERS, PREFERENCE_KINDS, VALUES
from bench.lifecycle.phrasing_sets import SET_KINDS, SPECIES, STABLE_KINDS, STABLE_VALUES
from bench.lifecycle.timeline import ABSENT, ALL, ANY, Fact, Question, Timeline

T = TypeVar("T")
#: Share of change questions asked backwards ("what did I use to…", Appendix K).
BEFORE_SHARE = 0.15


def pick_kind(t: Timeline, kinds: Mapping[str, T], names: tuple[str, ...] = ()) -> T | None:
    """An unreserved kind (reserving its slot), or None when all are taken."""
    free = [n for n in (names or tuple(kinds)) if f"kind:{n}" not in t.reserved]
    if not free:
        return None
    name = t.rng.choice(sorted(free))
    t.reserve(f"kind:{name}")
    return kinds[name]


def state_values(t: Timeline, name: str, n: int) -> list[str]:
    """n distinct values of a slot-valued kind, the persona's own first where it has one."""
    p, rng = t.persona, t.rng
    if name == "role":
        ladder = rng.choice([lad for lad in LADDERS if len(lad) >= n])
        start = rng.randint(0, len(ladder) - n)
        return list(ladder[start : start + n])
    first, pool = {
        "city": (p.city, p.cities),
        "employer": (p.employer, EMPLOYERS[p.sector]),
        "partner": ("", tuple(FIRST_NAMES)),
    }.get(name, ("", VALUES.get(name, ())))
    rest = [v for v in sorted(set(pool)) if v != first]
    rng.shuffle(rest)
    values = ([first] if first else []) + rest
    return values[:n]


def say(
    t: Timeline,
    kind: Kind,
    session: int,
    templates: tuple[str, ...],
    gold: str,
    values: Mapping[str, str],
    update: str = "replace",
    confidence: float = 1.0,
    plain: str = "",
) -> Fact:
    """One statement of a slot-valued kind ({v}, {old}, … in `values`).

    `plain` is the gold statement when the phrasing drawn does not name the previous value:
    extracted from "I drink cortados now", a fact cannot know what came before.
    """
    slot = kind.slot.format(**values)
    template = pick(t.rng, templates)
    names_old = "{old}" in template or "{a_old}" in template
    statement = plain if plain and not names_old else (gold or kind.gold)
    return t.add(
        session,
        fill(template, **values),
        fill(statement, **values),
        kind.category,
        slot,
        value=values.get("v"),
        update=update,
        confidence=confidence,
        numeric=kind.numeric,
        tag=kind.name,
        old=values.get("old") if names_old else None,
    )


def ask(t: Timeline, templates: tuple[str, ...], **values: str) -> str:
    """A question; templates naming a value the caller did not give are skipped."""
    usable = [q for q in templates if all(f"{{{k}}}" not in q or values.get(k) for k in ("old",))]
    return fill(pick(t.rng, usable or templates), **values)


def chain(
    t: Timeline, kind: Kind, values: list[str], sessions: list[int], implicit: bool = False
) -> list[Fact]:
    """A supersession chain: the first value stated, each later one an (explicit) change."""
    facts = [say(t, kind, sessions[0], kind.say, kind.gold, {"v": values[0]})]
    for i in range(1, len(values)):
        if implicit:
            # AV6: the new value only shows in passing; gold metadata still knows the slot.
            facts.append(say(t, kind, sessions[i], kind.implicit, kind.gold,
                             {"v": values[i], "old": values[i - 1]}, confidence=0.95))  # fmt: skip
        else:
            facts.append(say(t, kind, sessions[i], kind.change, kind.gold_change,
                             {"v": values[i], "old": values[i - 1]}, plain=kind.gold))  # fmt: skip
    return facts


def change_question(
    t: Timeline, av: str, kind: Kind, facts: list[Fact], values: list[str]
) -> Question:
    """Current value (gold: the last fact; stale: the rest) or, sometimes, the one before:
    then the previous fact is gold, and so is the change when it names the old value ("now
    cortados instead of cappuccinos" answers "what did I drink before?")."""
    if kind.ask_before and t.rng.random() < BEFORE_SHARE:
        text = ask(t, kind.ask_before, v=values[-1])
        gold = [facts[-2]] + ([facts[-1]] if facts[-1].old else [])
        return Question(av, text, kind.name, "before", ANY, gold, [])
    text = ask(t, kind.ask, old=values[-2])
    return Question(av, text, kind.name, "current", ANY, [facts[-1]], facts[:-1])


def av1(t: Timeline) -> Question | None:
    """Superseded preference: one explicit change; sometimes the old value is restated."""
    kind = pick_kind(t, PREFERENCE_KINDS)
    if kind is None:
        return None
    values = state_values(t, kind.name, 2)
    s1, s2 = t.spread(2, 0, t.last - 1, gap=4)
    facts = chain(t, kind, values, [s1, s2])
    if s2 - s1 >= 2 and t.rng.random() < 0.25:
        again = say(t, kind, t.rng.randint(s1 + 1, s2 - 1), kind.say, kind.gold, {"v": values[0]})
        facts.insert(1, again)
    q = change_question(t, "AV1", kind, facts, values)
    if q.variant == "before":
        q.gold = facts[:-1] + ([facts[-1]] if facts[-1].old else [])
    return q


def av4(t: Timeline) -> Question | None:
    """Multi-version fact: 3–5 versions, the latest is current."""
    kind = pick_kind(t, STATE_KINDS)
    if kind is None:
        return None
    n = t.rng.choices((3, 4, 5), weights=(5, 3, 2))[0]
    values = state_values(t, kind.name, n)
    sessions = t.spread(len(values), 0, t.last - 1, gap=4)
    return change_question(t, "AV4", kind, chain(t, kind, values, sessions), values)


def av6(t: Timeline) -> Question | None:
    """Cross-session contradiction: the later value is implied, never announced (C.1)."""
    kind = pick_kind(t, STATE_KINDS, ("city", "employer", "partner", "car", "manager", "role"))
    if kind is None:
        return None
    values = state_values(t, kind.name, 2)
    s1 = t.rng.randint(0, 12)
    s2 = t.rng.randint(s1 + 8, t.last)
    facts = chain(t, kind, values, [s1, s2], implicit=True)
    text = ask(t, kind.ask, old=values[0])
    return Question("AV6", text, kind.name, "implicit", ANY, [facts[1]], [facts[0]])


def av9(t: Timeline) -> Question | None:
    """Soft supersession: a hedge keeps the old value current until a commitment (App. F)."""
    kinds = {**STATE_KINDS, **PREFERENCE_KINDS}
    kind = pick_kind(t, kinds, ("city", "employer", "car", "diet"))
    if kind is None:
        return None
    old, new = state_values(t, kind.name, 2)
    s1 = t.rng.randint(0, 10)
    s2 = t.rng.randint(s1 + 4, t.last - 3)
    first = say(t, kind, s1, kind.say, kind.gold, {"v": old})
    both = {"v": new, "old": old}
    soft = say(t, kind, s2, kind.soft, kind.gold_soft, both, "soft", 0.4)
    text = ask(t, kind.ask, old=old)
    roll, s3 = t.rng.random(), t.rng.randint(s2 + 2, t.last)
    if roll < 0.45:
        return Question("AV9", text, kind.name, "pending", ANY, [first], [], [soft])
    if roll < 0.85:
        done = say(t, kind, s3, kind.commit, kind.gold, both)
        return Question("AV9", text, kind.name, "committed", ANY, [done], [first], [soft])
    stay = say(t, kind, s3, kind.stay, kind.gold_stay, both)
    return Question("AV9", text, kind.name, "declined", ANY, [stay, first], [], [soft])


def av3(t: Timeline) -> Question | None:
    """Stable identity, said once in the first sessions, asked 18 months later."""
    kind = pick_kind(t, STABLE_KINDS)
    if kind is None:
        return None
    value = stable_value(t, kind.name)
    fact = say(t, kind, t.rng.randint(0, 4), kind.say, kind.gold, {"v": value}, "accumulate")
    return Question("AV3", ask(t, kind.ask), kind.name, "stable", ANY, [fact], [])


def stable_value(t: Timeline, name: str) -> str:
    p, rng = t.persona, t.rng
    fixed = {"hometown": p.hometown, "nationality": p.nationality, "language": p.language}
    if name in fixed:
        return fixed[name]
    if name == "birthday":
        return f"{rng.choice(ev._MONTHS)} {rng.randint(1, 28)}"
    names = {"sister": FEMALE_NAMES, "mother": FEMALE_NAMES, "daughter": FEMALE_NAMES,
             "brother": MALE_NAMES}.get(name, FIRST_NAMES)  # fmt: skip
    return rng.choice(STABLE_VALUES.get(name, tuple(names)))


def av8(t: Timeline) -> Question | None:
    """Numeric preservation: amounts that change (chains) or are said once."""
    p = t.persona
    kind = pick_kind(t, CHAIN_KINDS) if t.rng.random() < 0.6 else None
    if kind is not None:
        n = t.rng.choice((2, 2, 3))
        values = chain_values(kind.name, n, t.rng, p.scale, p.currency)
        sessions = t.spread(n, 0, t.last - 1, gap=4)
        return change_question(t, "AV8", kind, chain(t, kind, values, sessions), values)
    single = pick_kind(t, SINGLE_KINDS)
    if single is None:
        return None
    once = single_value(single.name, t.rng, p.scale, p.currency)
    fact = say(t, single, t.rng.randint(0, t.last - 5), single.say, single.gold, once)
    return Question("AV8", ask(t, single.ask, **once), single.name, "single", ANY, [fact], [])


def av5(t: Timeline) -> Question | None:
    """Broad aggregation: every current member of a set; members given up are stale."""
    kind = pick_kind(t, SET_KINDS)
    if kind is None:
        return None
    current, stopped = t.rng.randint(2, 4), t.rng.randint(1, 2)
    names = t.rng.sample(kind.values, current + stopped)
    gold: list[Fact] = []
    stale: list[Fact] = []
    for i, v in enumerate(names):
        values = {"v": v, "slug": v.lower().replace(" ", "_"), "species": t.rng.choice(SPECIES)}
        slot = kind.slot.format(**values)
        if i < current:
            start = t.rng.randint(0, t.last - 2)
        else:
            start = t.rng.randint(0, 20)
            end = t.rng.randint(start + 3, t.last)
            t.add(end, fill(pick(t.rng, kind.stop), **values), fill(kind.gold_stop, **values),
                  kind.category, slot, update="replace", tag=kind.name)  # fmt: skip
        fact = t.add(start, fill(pick(t.rng, kind.say), **values), fill(kind.gold, **values),
                     kind.category, slot, value=v, tag=kind.name)  # fmt: skip
        (gold if i < current else stale).append(fact)
    return Question("AV5", ask(t, kind.ask), kind.name, "aggregate", ALL, gold, stale)


def av7(t: Timeline) -> Question | None:
    """Selective forgetting: a plan, then its retraction in varied language (paper §3.3)."""
    plan = pick_kind(t, ev.PLAN_KINDS)
    if plan is None:
        return None
    place = t.rng.choice(ev.PLAN_PLACES.get(plan.name, ("",)))
    values = {"place": place, "slug": place.lower().replace(" ", "_")}
    slot = plan.slot.format(**values)
    s1 = t.rng.randint(1, t.last - 3)
    plans = [t.add(s1, fill(pick(t.rng, plan.say), **values), fill(plan.gold, **values),
                   plan.category, slot, confidence=0.9, tag=plan.name)]  # fmt: skip
    now = t.rng.random() < 0.2
    s2 = s1 if now else t.rng.randint(s1 + 2, t.last)
    if s2 - s1 >= 2 and t.rng.random() < 0.3:
        plans.append(t.add(t.rng.randint(s1 + 1, s2 - 1), fill(pick(t.rng, plan.say), **values),
                           fill(plan.gold, **values), plan.category, slot, confidence=0.9,
                           tag=plan.name))  # fmt: skip
    reason = pick(t.rng, plan.reasons)
    reason = reason[:1].upper() + reason[1:]  # every retraction template ends ". {reason}"
    ref = fill(pick(t.rng, plan.refs), **values)
    template = pick(t.rng, ev.DROP_NOW if now else ev.DROP)
    gold = fill(plan.gold, **values).replace("User is ", "User is no longer ", 1)
    drop = t.add(s2, fill(template, ref=ref, reason=reason), f"{gold} ({reason})",
                 plan.category, None, retracts=(slot,), tag=f"{plan.name}-drop",
                 after=plans[-1] if now else None)  # fmt: skip
    text = ask(t, plan.ask, **values)
    return Question("AV7", text, plan.name, "same-session" if now else "later", ABSENT, [],
                    plans, [drop])  # fmt: skip


def event_values(t: Timeline, kind: ev.EventKind) -> dict[str, str]:
    places = ev.EVENT_PLACES.get(kind.name, ())
    if kind.name == "flight":
        places = tuple(c for c in t.persona.cities if c != t.persona.city) or ("Lisbon",)
    place = t.rng.choice(places) if places else ""
    values = {"place": place, "item": place, "slug": place.lower().replace(" ", "_")}
    return {**values, "noun": kind.noun.format(**values)}


def event(
    t: Timeline,
    kind: ev.EventKind,
    session: int,
    days: float,
    values: dict[str, str],
    move: bool = False,
) -> Fact:
    """An occurrence (or a reschedule) said at `session`, `days` after the session starts."""
    said = t.when(session)
    hour = t.rng.choice(kind.hours) if kind.timed else 12
    at = (said + timedelta(days=days)).replace(hour=hour, minute=t.rng.choice((0, 0, 30)))
    on, to = ev.when_phrases(said, at, kind.timed, t.rng.randrange(4))
    when = ev.gold_when(at, kind.timed)
    noun = values["noun"]
    gold = f"User's {noun} was moved to {when}" if move else f"User has {article(noun)} on {when}"
    text = fill(pick(t.rng, kind.move if move else kind.say), when=on, to=to, **values)
    return t.add(session, text, gold, kind.category, kind.slot.format(**values),
                 update="replace", event_time=at, tag=kind.name)  # fmt: skip


def occurrences(
    t: Timeline, kind: ev.EventKind, values: dict[str, str], past: int, future: bool
) -> tuple[list[Fact], list[Fact]]:
    """`past` occurrences long before the query time, and optionally one still ahead.

    Past ones happen a month or more before the question, well beyond the 14-day expiry
    buffer (Appendix K), so "is it still ahead?" has one answer; each happens before the
    next one is mentioned. A third of them are rescheduled once, at the next session.
    """
    rng, day = t.rng, timedelta(days=1)
    ahead_session = rng.randint(t.last - 3, t.last) if future else None
    limit = t.persona.as_of - 30 * day
    if ahead_session is not None:
        limit = min(limit, t.when(ahead_session) - day)
    chosen: list[int] = []
    for s in rng.sample(range(1, t.last), t.last - 1):
        fits = t.when(s) + 22 * day < limit
        if fits and all(abs((t.when(s) - t.when(c)).days) > 25 for c in chosen):
            chosen.append(s)
        if len(chosen) == past:
            break
    chosen.sort()
    gone: list[Fact] = []
    for i, s in enumerate(chosen):
        bound = min(limit, t.when(chosen[i + 1])) if i + 1 < len(chosen) else limit
        gap = (t.when(s + 1) - t.when(s)).days
        if rng.random() < 0.3 and t.when(s + 1) + 10 * day < bound:
            lead = gap + rng.randint(1, 5)
            gone.append(event(t, kind, s, lead, values))
            gone.append(event(t, kind, s + 1, lead - gap + rng.randint(1, 4), values, True))
        else:
            gone.append(event(t, kind, s, rng.randint(2, 20), values))
    ahead: list[Fact] = []
    if ahead_session is not None:
        s = ahead_session
        lead = (t.persona.as_of - t.when(s)).days + rng.randint(3, 40)
        ahead.append(event(t, kind, s, lead, values))
        if s < t.last and rng.random() < 0.25:
            s2 = rng.randint(s + 1, t.last)
            shift = (t.when(s2) - t.when(s)).days
            ahead.append(event(t, kind, s2, lead - shift + rng.randint(2, 10), values, True))
    return gone, ahead


def av2(t: Timeline) -> Question | None:
    """Expired logistics: past occurrences must not surface as upcoming (C.3, Mehmet)."""
    kind = pick_kind(t, ev.EVENT_KINDS)
    if kind is None:
        return None
    values = event_values(t, kind)
    roll = t.rng.random()
    if roll < 0.25:
        _, ahead = occurrences(t, kind, values, t.rng.randint(0, 1), future=True)
        # Gold and stale are every future / past calendar fact of the persona (generator).
        return Question("AV2", ask(t, ev.ASK_ANY_UPCOMING), "calendar", "generic", ANY)
    past = t.rng.randint(1, 2)
    gone, ahead = occurrences(t, kind, values, past, future=roll < 0.65)
    text = ask(t, ev.ASK_EVENT, noun=values["noun"])
    if ahead:
        return Question("AV2", text, kind.name, "upcoming", ANY, [ahead[-1]], gone + ahead[:-1])
    return Question("AV2", text, kind.name, "absent", ABSENT, [], gone)


#: Table 12 of the paper: attack vector → questions over 40 personas (516 in all).
PAPER_COUNTS: dict[str, int] = {
    "AV1": 75, "AV2": 75, "AV3": 94, "AV4": 44, "AV5": 40, "AV6": 45, "AV7": 40, "AV8": 63,
    "AV9": 40,
}  # fmt: skip
AV_NAMES: dict[str, str] = {
    "AV1": "Superseded Preference", "AV2": "Expired Logistics", "AV3": "Stable Identity",
    "AV4": "Multi-Version Fact", "AV5": "Broad Aggregation", "AV6": "Cross-Session "
    "Contradiction", "AV7": "Selective Forgetting", "AV8": "Numeric Preservation",
    "AV9": "Soft Supersession",
}  # fmt: skip
#: Build order: the vectors with the fewest candidate kinds reserve first.
BUILDERS: dict[str, Callable[[Timeline], Question | None]] = {
    "AV9": av9, "AV6": av6, "AV4": av4, "AV1": av1, "AV3": av3, "AV5": av5, "AV7": av7,
    "AV2": av2, "AV8": av8,
}  # fmt: skip
