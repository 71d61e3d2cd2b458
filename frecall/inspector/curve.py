"""A fact's fade as inline SVG: activation (and Ω) over time from `workers.query.fade`,
with "now", the event, the expiry and the archive date marked, and the semantic floor drawn
as the level a perfect match never scores below while the floor applies."""

from __future__ import annotations

from datetime import datetime

from markupsafe import Markup, escape

from workers.query.fade import Fade

W, H = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 14, 34


def fade_svg(fade: Fade) -> Markup:
    samples = fade.samples
    start, end = samples[0].at, samples[-1].at
    span = (end - start).total_seconds() or 1.0

    def x(t: datetime) -> float:
        return LEFT + (W - LEFT - RIGHT) * (t - start).total_seconds() / span

    def y(v: float) -> float:
        return TOP + (H - TOP - BOTTOM) * (1.0 - max(0.0, min(1.0, v)))

    activation = " ".join(f"{x(s.at):.1f},{y(s.activation):.1f}" for s in samples)
    omega = " ".join(f"{x(s.at):.1f},{y(s.activation * s.omega):.1f}" for s in samples)
    out = [
        f'<svg class="curve" viewBox="0 0 {W} {H}" role="img" aria-labelledby="curve-title '
        f'curve-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="curve-title">Activation of this fact over time</title>'
        f'<desc id="curve-desc">{escape(_describe(fade))}</desc>',
    ]
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
            f'<text class="ylabel" x="{LEFT - 6}" y="{y(v) + 4:.1f}">{v:.2f}</text>'
        )
    for i in range(5):
        t = start + (end - start) * (i / 4)
        out.append(f'<text class="xlabel" x="{x(t):.1f}" y="{H - 12}">{t:%Y-%m-%d}</text>')
    if fade.floor > 0:
        out.append(
            f'<line class="floor" x1="{LEFT}" x2="{W - RIGHT}" y1="{y(fade.floor):.1f}" '
            f'y2="{y(fade.floor):.1f}"/><text class="floorlabel" x="{W - RIGHT - 4}" '
            f'y="{y(fade.floor) + 12:.1f}">score floor of a perfect match ({fade.floor:.2f})</text>'
        )
    marks = [("now", fade.as_of), ("event", fade.event_time), ("expires", fade.expires_at)]
    if fade.archivable is not None:
        marks.append(("archivable", fade.archivable[1]))
    for name, when in marks:
        if when is not None and start <= when <= end:
            out.append(
                f'<line class="mark {name}" x1="{x(when):.1f}" x2="{x(when):.1f}" y1="{TOP}" '
                f'y2="{H - BOTTOM}"/><text class="marklabel" x="{x(when) + 3:.1f}" '
                f'y="{TOP + 10}">{name}</text>'
            )
    if any(s.omega < 1.0 for s in samples):
        out.append(f'<polyline class="omega" points="{omega}"/>')
    out.append(f'<polyline class="activation" points="{activation}"/>')
    out.append("</svg>")
    return Markup("".join(out))


def _describe(fade: Fade) -> str:
    """The curve in words, for screen readers."""
    first, last = fade.samples[0], fade.samples[-1]
    return (
        f"activation {first.activation:.2f} on {first.at:%Y-%m-%d}, {fade.activation:.2f} now "
        f"({fade.as_of:%Y-%m-%d}), {last.activation:.2f} on {last.at:%Y-%m-%d}"
    )
