"""A newer version found past the window takes the place of the older one it leads (issue 11).

`newer_statements` reads its pressers past the window (`pressers_from`) for a question that
says it asks about the present: the question's words often match the old value's turn and not
the newer one's, which then ranks 11th–30th. The pressing moves the older version down inside
the window, but the newer one stays where it ranked — so neither version the question is about
is among the first five, and often the newer one is not served at all (round 26, r26-av4: of
the AV4 phrasings whose newest version ranked past the window, the rules had named it as the
presser of a shown older version in two).

When that presser itself says the value changed — a present-time word that contrasts with
before, the change said ("switched to …", `change_said`), or the older value said over
(`ended_values`) — and the question asks which value holds now (`asks_current_value`), the
presser is lifted to the first place the demoted block starts at: the newer version takes the
older one's turn in the first places (A.7.3, Eq. 37–39: for q_cur the newer statement leads;
successor expansion does the same for a fact the ingest superseded — the replacement is served
with its predecessor's evidence, `successors.py`). Only a user-marked change lifts: an unmarked
deeper turn is as often a later remark on the topic (round 21 measured deeper pressers), and
only a presser past the window is moved (one inside it is already served).

A pure function of the served order, the pressers and their pressed candidates: the lifted go
in the order of the candidates they lead, ties by edge id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set


def lift(
    served: Sequence[int],
    ids: Sequence[str],
    lifters: Mapping[str, str],
    moved: Set[int],
    window: int,
    demote_to: int,
) -> tuple[list[int], dict[str, str]]:
    """(`served` with each presser of `lifters` that ranks past the first `window` moved to
    the place the demoted block starts at, the presser's edge id → the edge id it leads).

    `ids[i]` is the edge id of position `i`; `lifters` maps a presser's edge id to the edge id
    of the candidate it pressed; `moved` holds the positions a window rule moved down. The
    demoted block starts after the unmoved candidates of the first `demote_to` places
    (`latest_value.reorder`), so the lifted one is served among the first `demote_to` + 1."""
    order = list(served)
    at = {ids[i]: n for n, i in enumerate(order)}
    pending = sorted(
        (p for p in lifters if p in at and at[p] >= window and lifters[p] in at),
        key=lambda p: (at[lifters[p]], p),
    )
    if not pending:
        return order, {}
    lifted: dict[str, str] = {}
    head = order[:window]
    start = min(demote_to, sum(1 for i in head if i not in moved))
    for n, presser in enumerate(pending):
        position = next(i for i in order if ids[i] == presser)
        order.remove(position)
        order.insert(start + n, position)
        lifted[presser] = lifters[presser]
    return order, lifted


def explain(led: str) -> str:
    return (
        f"a newer statement that says the value changed, found past the window: it leads "
        f"{led}, an older version the question matched, and takes its place among the first "
        f"(the newer leads current questions)"
    )
