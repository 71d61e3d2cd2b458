"""Two versions told in words MiniLM does not put near each other (round 24, r24-lowcos).

`newer_statements` ties an older candidate to a newer raw turn "about the same thing" by their
stored vectors' cosine (`min_cosine`, 0.3). The largest stale class left on the validation
tellings (docs/extraction.md, "Round 21 (r21-av4)", "Round 24 (r24-lowcos)") is an old and a
newer version of one attribute both in the window at a cosine below that bar: a new employer,
ship or drink named in words that share little with the old one ("Fjalar now. Transferred last
week." after "On the Skarfur this season."). Lowering the bar for every newer turn was measured
in issue-11u and round 23 and left out: below it a later turn is as often a remark on the topic
as a newer version.

What the pair lacks in closeness, two other things supply together, each the paper's
reading, not a wording of a telling:

* the newer turn *says* the value changed — its own words place it in the present against
  before (`newer_statements.says_now`: "… now", "these days", "no longer", "anymore"); A.7.3's
  q_cur ordering is for a change the user made, and Appendix F keeps both, not equal;
* the *question* ties the two: both are in the ranking's first tier — the candidates the
  relevance tier (or an LLM distiller) judged relevant to what is asked (§3.5, Appendix Z) —
  so each is an answer to it, not a remark the question happened to bring up.

And the two statements must not point away from each other (`marked_min_cosine`, a floor below
`min_cosine`), and the question must ask for one value (a set's later item is one more item,
AV5). Measured and left out (docs/extraction.md, Round 24): the σ condition or the newer turn
shown among the first five as the question's tie (below the tier, chatter pressed chatter and
lifted stale turns: as many stale answers added as removed), the pair's nearest-in-the-window
as the tie (no gain: the newer version is rarely nearest its old one at these cosines). A pure
function of the pair, the flags the caller read, the tier and the policy.
"""

from __future__ import annotations

from collections.abc import Set

from schemas.policy import NewerStatementsPolicy
from workers.query.candidates import MergedCandidate


def tied(
    older: MergedCandidate,
    newer: MergedCandidate,
    cosine: float,
    marked: bool,
    many: bool,
    tier: Set[str],
    rule: NewerStatementsPolicy,
) -> bool:
    """Whether a newer raw turn below `min_cosine` to the older candidate still presses it:
    it says the value changed (`marked`), is no farther than `marked_min_cosine`, the
    question asks for one value (not `many`: a set's later item is one more item, AV5), and
    the question ties the two: both are in the ranking's first tier (`tier`, the candidates
    the relevance tier or the distiller judged relevant to the question, §3.5), and, with
    `marked_low_sigma`, the newer one matches it at least as well (σ within `sigma_margin`)."""
    if not marked or many or cosine < rule.marked_min_cosine or cosine >= rule.min_cosine:
        return False
    if older.record.edge_id not in tier or newer.record.edge_id not in tier:
        return False
    return not rule.marked_low_sigma or newer.sigma >= older.sigma - rule.sigma_margin
