"""Two versions among the few candidates a question singles out (round 26, r26-av6).

`newer_statements` lets a newer raw turn press an older candidate only if it matches the
question at least as well (the σ condition), unless something else vouches for the change: the
turn says it (`says_now`, `change_said`, `ended_values`), restates an amount, or is shown among
the first places. The AV6 stale answers left (docs/extraction.md, "Round 26 (r26-av6)") are a
newer version told with no word of change, a slightly weaker match for a question asked in the
old value's words: "who is her boyfriend?" finds the turn that said "my boyfriend" a little
better than the later one that names another man.

The paper orders co-retrieved values at query time: for a current question the newer of two
statements leads (A.7.3, q_cur: e2 ≻ e1), among the candidates the distillation step judged
relevant (§3.5). Round 25 measured the whole first tier waiving σ: −10 stale phrasings on the
validation tellings, but LoCoMo dev recall@5 0.606 → 0.532 — there the first tier is up to 20
on-topic turns of one conversation, every later one "a newer version". What a large tier lacks,
a small one has: when the relevance tier keeps only a few candidates (at most
`small_tier_max`), the question singles them out, and two of them told in different sessions
about the same thing (their cosine at least `small_tier_min_cosine`) are two answers to one
question, not one answer among twenty remarks. Then the newer leads though its words match
the question a little less well: its σ at least `small_tier_sigma_ratio` of the older's (a
much weaker match is a remark the tier happened to keep; on LoCoMo dev the later turns such a
tier held were mostly 0.5–0.7 of the older's σ, the tellings' newer versions mostly above).

Every other gate of `newer_statements._presses` holds (raw turn, a later session, not the
candidate's own turn, not about how things were, a current-state question, one value asked:
`asks_for_many` excludes a set, whose later item is one more item, AV5). A pure function of the
pair, the tier and the policy; `small_tier_max` 0 is off (main's behaviour).
"""

from __future__ import annotations

from collections.abc import Set

from schemas.policy import NewerStatementsPolicy
from workers.query.candidates import MergedCandidate


def tied(
    older: MergedCandidate,
    newer: MergedCandidate,
    cosine: float,
    many: bool,
    tier: Set[str],
    rule: NewerStatementsPolicy,
) -> bool:
    """Whether the question ties `older` and the newer raw turn `newer` as two answers to it:
    both in a first tier of at most `small_tier_max` candidates, their stored vectors' cosine
    at least `small_tier_min_cosine`, the newer's σ at least `small_tier_sigma_ratio` of the
    older's, one value asked (not `many`)."""
    if many or not 0 < len(tier) <= rule.small_tier_max:
        return False
    if cosine < rule.small_tier_min_cosine:
        return False
    if newer.sigma < rule.small_tier_sigma_ratio * older.sigma:
        return False
    return older.record.edge_id in tier and newer.record.edge_id in tier
