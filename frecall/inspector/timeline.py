"""The user's memory on a timeline, as inline SVG: one row per category, each fact at the
time it was said, an event-anchored fact linked to the time of its event, supersession and
retraction chains drawn as arrows from the old fact to the one that replaced it, and a line
at "now" (`as_of`) with the upcoming events to its right.

Built as a string here rather than in a template loop: a user with 10,000 facts is one
`<path>` of dots per category and state (a page that renders in well under a second,
docs/inspector.md), a user with a few hundred gets one focusable link per fact, with its
text as the accessible name, so that a keyboard can walk the timeline.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape

from schemas.categories import CATEGORY_ORDER
from schemas.results import InspectedFact

#: Up to this many facts, each is a link of its own; beyond, dots drawn in bulk.
MAX_LINKED = 600
WIDTH = 1000
LABEL_W = 200
ROW_H = 30
TOP = 34
BOTTOM = 26

#: Display states: the lifecycle state as of the time, or `soft-pressured` (active, with a
#: soft update putting it in doubt: Ω < 1).
STATE_ORDER = (
    "active",
    "soft-pressured",
    "superseded",
    "retracted",
    "expired",
    "duplicate",
    "quarantined",
)


def display_state(fact: InspectedFact, as_of: datetime) -> str:
    if fact.state == "active" and any(p.at <= as_of for p in fact.lifecycle.soft_pressures):
        return "soft-pressured"
    return fact.state


@dataclass(frozen=True, slots=True)
class Scale:
    start: datetime
    end: datetime

    def x(self, t: datetime) -> float:
        span = (self.end - self.start).total_seconds() or 1.0
        return LABEL_W + (WIDTH - LABEL_W - 12) * (t - self.start).total_seconds() / span


def scale_for(facts: Sequence[InspectedFact], as_of: datetime) -> Scale:
    times = [f.ingest_time for f in facts] + [f.event_time for f in facts if f.event_time]
    start, end = min([*times, as_of]), max([*times, as_of])
    pad = (end - start) * 0.03
    return Scale(start - pad, end + pad)


def timeline_svg(
    facts: Sequence[InspectedFact],
    as_of: datetime,
    link: Callable[[str], str],
    selected: str | None = None,
) -> Markup:
    """The SVG of `facts` (one user's, states as of `as_of`); `link(edge_id)` is the URL
    that selects a fact."""
    rows = [c.value for c in CATEGORY_ORDER if any(f.category.value == c.value for f in facts)]
    if not rows:
        return Markup("")
    row_of = {c: i for i, c in enumerate(rows)}
    scale = scale_for(facts, as_of)
    height = TOP + ROW_H * len(rows) + BOTTOM
    where: dict[str, tuple[float, float]] = {}
    for f in facts:
        where[f.edge_id] = (scale.x(f.ingest_time), TOP + ROW_H * row_of[f.category.value] + 15)
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" role="group" '
        f'aria-labelledby="timeline-title" xmlns="http://www.w3.org/2000/svg">',
        '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L8 4 L0 8 z" '
        'class="arrowhead"/></marker></defs>',
    ]
    for i, category in enumerate(rows):
        y = TOP + ROW_H * i
        out.append(f'<rect class="row{i % 2}" x="0" y="{y}" width="{WIDTH}" height="{ROW_H}"/>')
        out.append(
            f'<text class="rowlabel" x="6" y="{y + 19}">{escape(category.replace("_", " "))}</text>'
        )
    out += _axis(scale, height)
    now_x = scale.x(as_of)
    # The label goes left of the line near the right edge, so that it stays readable.
    flip = now_x > WIDTH - 170
    out.append(
        f'<line class="now" x1="{now_x:.1f}" y1="{TOP - 6}" x2="{now_x:.1f}" '
        f'y2="{height - BOTTOM}"/><text class="nowlabel" x="{now_x + (-4 if flip else 4):.1f}" '
        f'y="{TOP - 10}" text-anchor="{"end" if flip else "start"}">'
        f"now · {as_of:%Y-%m-%d %H:%M}</text>"
    )
    out += _events(facts, scale, where, as_of)
    out += _chains(facts, where)
    if len(facts) <= MAX_LINKED:
        out += _linked(facts, where, as_of, link, selected)
    else:
        out += _bulk(facts, where, as_of)
    out.append("</svg>")
    return Markup("".join(out))


def _axis(scale: Scale, height: int) -> list[str]:
    ticks = 6
    span = scale.end - scale.start
    out = []
    for i in range(ticks + 1):
        t = scale.start + span * (i / ticks)
        x = scale.x(t)
        anchor = ' text-anchor="end"' if i == ticks else ""  # the last label stays inside
        out.append(
            f'<line class="tick" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{height - BOTTOM}"/>'
            f'<text class="ticklabel" x="{x:.1f}" y="{height - 8}"{anchor}>{t:%Y-%m-%d}</text>'
        )
    return out


def _events(
    facts: Sequence[InspectedFact],
    scale: Scale,
    where: dict[str, tuple[float, float]],
    as_of: datetime,
) -> list[str]:
    """A stalk from when an event was mentioned to when it happens; upcoming ones stand out."""
    out = []
    for f in facts:
        if f.event_time is None:
            continue
        x0, y = where[f.edge_id]
        x1 = scale.x(f.event_time)
        kind = "upcoming" if f.event_time > as_of else "event"
        out.append(
            f'<line class="stalk" x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}"/>'
            f'<path class="{kind}" d="M{x1:.1f} {y - 6:.1f} l6 6 l-6 6 l-6 -6 z">'
            f"<title>{escape(f.text)} — event {f.event_time:%Y-%m-%d}"
            f"{' (upcoming)' if kind == 'upcoming' else ''}</title></path>"
        )
    return out


def _chains(facts: Sequence[InspectedFact], where: dict[str, tuple[float, float]]) -> list[str]:
    """old → new for every supersession and retraction whose both ends are drawn."""
    paths: dict[str, list[str]] = defaultdict(list)
    for f in facts:
        lc = f.lifecycle
        for kind, successor in (("supersedes", lc.superseded_by), ("retracts", lc.retracted_by)):
            if successor is None or successor not in where:
                continue
            (x0, y0), (x1, y1) = where[f.edge_id], where[successor]
            lift = 14 if y0 == y1 else 0
            mid_x, mid_y = (x0 + x1) / 2, min(y0, y1) - lift
            paths[kind].append(f"M{x0:.1f} {y0:.1f} Q{mid_x:.1f} {mid_y:.1f} {x1:.1f} {y1:.1f}")
    return [
        f'<path class="chain {kind}" d="{d}" marker-end="url(#arrow)"/>'
        for kind, ds in sorted(paths.items())
        for d in ds
    ]


def _marker(state: str, x: float, y: float) -> str:
    """A shape per state, so that state is not told by colour alone."""
    if state in ("retracted", "quarantined"):
        return f'<rect class="m {state}" x="{x - 4.5:.1f}" y="{y - 4.5:.1f}" width="9" height="9"/>'
    if state == "expired":
        return (
            f'<path class="m {state}" d="M{x:.1f} {y - 5.5:.1f} l5.5 5.5 l-5.5 5.5 l-5.5 -5.5 z"/>'
        )
    radius = 3 if state == "duplicate" else 5
    return f'<circle class="m {state}" cx="{x:.1f}" cy="{y:.1f}" r="{radius}"/>'


def _linked(
    facts: Sequence[InspectedFact],
    where: dict[str, tuple[float, float]],
    as_of: datetime,
    link: Callable[[str], str],
    selected: str | None,
) -> list[str]:
    out = []
    for f in facts:
        x, y = where[f.edge_id]
        state = display_state(f, as_of)
        label = f"{f.text} — {state}, said {f.ingest_time:%Y-%m-%d}"
        ring = (
            f'<circle class="selected" cx="{x:.1f}" cy="{y:.1f}" r="9"/>'
            if f.edge_id == selected
            else ""
        )
        out.append(
            f'<a class="fact" href="{escape(link(f.edge_id))}" aria-label="{escape(label)}" '
            f'data-edge="{escape(f.edge_id)}" data-state="{state}">{ring}'
            f"{_marker(state, x, y)}<title>{escape(label)}</title></a>"
        )
    return out


def _bulk(
    facts: Sequence[InspectedFact], where: dict[str, tuple[float, float]], as_of: datetime
) -> list[str]:
    """One path of round dots per state: thousands of facts in a few elements."""
    dots: dict[str, list[str]] = defaultdict(list)
    for f in facts:
        x, y = where[f.edge_id]
        dots[display_state(f, as_of)].append(f"M{x:.1f} {y:.1f}h0")
    return [
        f'<path class="dots {state}" d="{"".join(d)}"><title>{len(d)} {state}</title></path>'
        for state, d in sorted(dots.items(), key=lambda kv: _order(kv[0]))
    ]


def _order(state: str) -> int:
    return STATE_ORDER.index(state) if state in STATE_ORDER else len(STATE_ORDER)
