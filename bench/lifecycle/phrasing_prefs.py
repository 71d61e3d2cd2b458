"""Preferences and habits (AV1 superseded preference, AV9 soft updates): replace-semantics
slots whose current value is what matters (paper Table 1 row 7, Appendix F)."""

from __future__ import annotations

from bench.lifecycle.phrasing import Kind
from bench.tables import load, pools, records

_DATA = load("bench.lifecycle", "preferences")
#: Diet, coffee order, milk, cuisine, commute, wake time, music, workouts
#: (`data/preferences.toml`).
PREFERENCE_KINDS: dict[str, Kind] = records(Kind, _DATA["preferences"])
#: Values of every slot-valued kind, drawn without replacement along a chain.
VALUES: dict[str, tuple[str, ...]] = pools(_DATA["state_values"])
#: Career ladders for `role` chains (a chain walks up one ladder).
LADDERS: tuple[tuple[str, ...], ...] = tuple(pools(_DATA["ladders"]).values())
