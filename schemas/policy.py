"""The lifecycle policy as data: a validated file, not code (paper Tables 1, 48, 49).

`default_policy.json` next to this module is the shipped default; a deployment may point
`FR_POLICY_FILE` at its own file. Every number in the default comes from the paper unless
its `note` says otherwise.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from schemas.categories import Category, Intent, LifecycleState, UpdateSemantics


class CategoryPolicy(BaseModel):
    """Lifecycle parameters of one behavioral category (paper Tables 1, 48, 49)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decay_per_hour: float = Field(gt=0, description="λ_c, per hour (Table 49)")
    alpha: float = Field(ge=0, le=1, description="α_c activation weight in the blend (Table 48)")
    floor: float = Field(ge=0, le=1, description="semantic floor: score ≥ floor·σ (Table 48)")
    semantics: UpdateSemantics = Field(description="replace or accumulate (Table 1)")
    event_time: bool = Field(
        default=False,
        description="event-time validity kernel and date-aware expiry apply (§3.3, App. K)",
    )
    told_after_is_history: bool = Field(
        default=False,
        description="an anchor already past when the fact was stated is a record of what "
        "happened, not a pending event: no validity kernel, no expiry (plans, not onsets)",
    )
    anticipation_per_hour: float = Field(default=0.0, ge=0, description="ν_c of A.13")
    post_event_per_hour: float = Field(default=0.0, ge=0, description="μ_c of A.13, μ ≫ ν")
    note: str = ""

    @property
    def half_life_hours(self) -> float:
        return math.log(2) / self.decay_per_hour

    @model_validator(mode="after")
    def _kernel_shape(self) -> CategoryPolicy:
        if self.event_time and not self.post_event_per_hour > self.anticipation_per_hour:
            raise ValueError("event-time kernel needs μ_c > ν_c (paper A.13)")
        return self


class SupersessionPolicy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Appendix Z: replace-semantics categories supersede at confidence ≥ 0.8 ...
    replace_threshold: float = Field(default=0.8, ge=0, le=1)
    #: ... accumulate-semantics ones only on explicit contradiction at ≥ 0.95.
    accumulate_threshold: float = Field(default=0.95, ge=0, le=1)
    #: Appendix Z: near-duplicates (cosine > 0.95) are not stored twice; numerics exempt.
    near_duplicate_cosine: float = Field(default=0.95, ge=0, le=1)
    #: γ of a soft update = its confidence × this (Model 1 leaves the map open). With 0.5,
    #: "thinking about moving" at 0.4 leaves the current city at Ω = 0.8: preserved (App. F)
    #: and still first, with the doubt visible. Our default.
    soft_gamma_scale: float = Field(default=0.5, ge=0, le=1)

    def threshold_for(self, semantics: UpdateSemantics) -> float:
        if semantics is UpdateSemantics.REPLACE:
            return self.replace_threshold
        return self.accumulate_threshold


class AssociationPolicy(BaseModel):
    """Slot association by similarity (issue 11; `workers/lifecycle/association.py`): an
    edge without a slot key joins the replace-semantics slot whose earlier keyed fact it
    matches at cosine ≥ `soft_cosine` (a soft update), and supersedes when the match is
    ≥ `hard_cosine` and it states a different value. Not in the paper: ours, set from the
    measurement in the policy file's note."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    soft_cosine: float = Field(default=0.6, ge=0, le=1)
    hard_cosine: float = Field(default=0.75, ge=0, le=1)
    #: A retraction whose named slot has no earlier member retracts the user's earlier edge
    #: that shares a word with that name and is most similar to it, at cosine ≥ this
    #: (`workers/lifecycle/retargeting.py`).
    retraction_cosine: float = Field(default=0.25, ge=0, le=1)
    #: A later change statement whose object ("I left Google …") shares a content word with
    #: an earlier free edge supersedes it at cosine ≥ this
    #: (`workers/lifecycle/change_naming.py`).
    change_named_cosine: float = Field(default=0.25, ge=0, le=1)
    note: str = ""

    @model_validator(mode="after")
    def _ordered(self) -> AssociationPolicy:
        if self.hard_cosine < self.soft_cosine:
            raise ValueError("association: hard_cosine must be ≥ soft_cosine")
        return self


class NumericRescue(BaseModel):
    """Appendix H, stage 3: numeric edges keep ≥ 0.95·σ when σ ≥ 0.85."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    factor: float = Field(default=0.95, ge=0, le=1)
    min_similarity: float = Field(default=0.85, ge=0, le=1)


class EmotionPolicy(BaseModel):
    """Appendix B.6 / Table 48: emotional loading briefly boosts activation, decays fast."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: float = Field(default=0.40, ge=0, le=1)
    decay_per_hour: float = Field(default=0.02, gt=0)
    note: str = ""


class LatestValuePolicy(BaseModel):
    """Query-time rule: for a current-state question about a single-valued attribute, the
    older statements of it among the first `window` candidates rank from `demote_to` on
    (workers/query/latest_value.py). Ours; measurements in `Policy.notes["latest_value"]`."""

    enabled: bool = False
    #: The question is about an attribute whose prototypes it is this near to, within
    #: `question_margin` of its nearest attribute.
    question_min: float = Field(default=0.35, ge=-1, le=1)
    question_margin: float = Field(default=0.06, ge=0)
    #: A candidate without a slot key is about it on the same terms, on its stored vector.
    candidate_min: float = Field(default=0.3, ge=-1, le=1)
    candidate_margin: float = Field(default=0.06, ge=0)
    #: How many of the ranking's first candidates take part; where demoted ones go (0-based).
    window: int = Field(default=10, gt=0)
    demote_to: int = Field(default=5, ge=0)
    #: Fixed-key attributes that still hold several values at once.
    multi_valued: frozenset[str] = frozenset({"food_preference", "music_preference"})
    #: The facts drawn from a demoted raw turn follow it, unless keyed to the attribute.
    told_with: bool = True
    #: With `told_with`, a fact keyed to the asked attribute follows its demoted turn too when
    #: the statement that demoted the turn carries no key of the fact's slot: the lifecycle
    #: never compared the two (a newer value told in a turn that yielded no fact of the slot),
    #: so it is not the lifecycle's to decide (round 20, r20-follow; `Policy.notes`).
    told_with_keyed: bool = False
    #: How many more times the window rules judge the candidates their own moves lift into
    #: the first places (`WindowRules.settle`); 0: once, as the ranking came.
    judge_lifted: int = Field(default=0, ge=0)
    #: A later pass of `judge_lifted` lets a newer statement demote only where the present
    #: was said (by the question or the newer turn) and never for a question for a set
    #: (round 22, r22-av6: LoCoMo dev and the AV5 tellings; `Policy.notes["judge_lifted"]`).
    judge_lifted_said_now: bool = True
    #: A raw turn with a hedged or conditional sentence (`own_withdrawal.hedged`) never stands
    #: as the newest statement of the attribute, as a soft update never does (round 23, lead;
    #: `Policy.notes["hedged_never_newest"]`).
    hedged_never_newest: bool = False
    #: The demoted candidates of the window keep their order (False) or go newest first: it
    #: matters where fewer than `demote_to` stay unmoved and the demoted refill the first
    #: places (A.7.3; round 24, lead; `Policy.notes["demoted_newest_first"]`).
    demoted_newest_first: bool = False
    #: The demoted candidates moved as the older of a pair (a newer statement of the same thing
    #: named: `newer_statements`, `pressed_values`, `outdated_siblings`, `bracketed`) refill
    #: the first places after those only the attribute probe moved, each after its pressers
    #: (A.7.3; round 25, r25-av4; `workers/query/demoted_refill.py`,
    #: `Policy.notes["paired_refill_last"]`).
    paired_refill_last: bool = False
    #: For a question that asks which value holds now, a newer statement `newer_statements`
    #: found past the window (`pressers_from`) that says the change itself (a present-time
    #: word, the change said, the older value said over) is lifted to where the demoted block
    #: starts: the newer version takes the older one's turn among the first (A.7.3; round 26,
    #: r26-av4; `workers/query/deeper_lift.py`, `Policy.notes["deeper_marked_lifts"]`).
    deeper_marked_lifts: bool = False
    #: A current question the attribute classifier reads as asking a single-valued attribute
    #: asks which value holds now, present-time word or not: the rules above that read
    #: `asks_current_value` read it too (A.7.3; round 27, r27-av4;
    #: `workers/query/attribute_now.py`, `Policy.notes["attribute_asks_now"]`).
    attribute_asks_now: bool = False
    #: A later pass of `judge_lifted` takes its demotions, while the `_keeping` cap allows,
    #: nearest the newer statement that leads them first (not in window order): the surest
    #: older version before a remark that only touches the topic (round 27, r27-av4;
    #: `workers/query/keeping_order.py`, `Policy.notes["keeping_by_closeness"]`).
    keeping_by_closeness: bool = False
    #: Which classifier says what a question or candidate is about: the nearest prototypes
    #: (`workers/extraction/prototypes.py`, cosines, the thresholds above) or the trained
    #: linear probe (`workers/extraction/attribute_probe.py`, class probabilities with a
    #: "none" class, the `probe_*` thresholds). Measurements: `Policy.notes["latest_value"]`.
    classifier: Literal["prototypes", "probe"] = "prototypes"
    #: With the probe, a question is about its most probable class if that is an attribute
    #: of at least this probability ...
    probe_question_min: float = Field(default=0.3, ge=0, le=1)
    probe_question_margin: float = Field(default=0.0, ge=0)
    #: ... and a candidate about every attribute it gives at least this probability (a turn
    #: may be about two: "the commute from Leith to the infirmary" is residence and work).
    probe_candidate_min: float = Field(default=0.02, ge=0, le=1)
    probe_candidate_margin: float = Field(default=1.0, ge=0)
    #: The newest statement, the one that stands, must be about the attribute at least this
    #: much (a keyed fact of it always is): a turn barely near it ("we bought the van in the
    #: end" for the current city) demotes nothing. `newest_min` on the prototypes' cosines,
    #: `probe_newest_min` on the probe's probabilities.
    newest_min: float = Field(default=-1.0, ge=-1, le=1)
    probe_newest_min: float = Field(default=0.0, ge=0, le=1)

    def thresholds(self) -> LatestValuePolicy:
        """The policy with the chosen classifier's thresholds in the fields the rule reads."""
        if self.classifier == "prototypes":
            return self
        return self.model_copy(update={
            "question_min": self.probe_question_min,
            "question_margin": self.probe_question_margin,
            "candidate_min": self.probe_candidate_min,
            "candidate_margin": self.probe_candidate_margin,
            "newest_min": self.probe_newest_min,
        })  # fmt: skip


class OutdatedSiblingsPolicy(BaseModel):
    """Query-time rule: for a current-state question, a candidate told in one turn with a
    fact since replaced, ranked below the statement that replaced it, ranks from
    `latest_value.demote_to` on inside `latest_value.window` (workers/query/
    outdated_siblings.py). Ours, after the paper's "slot-key fragmentation" (§6);
    measurements in `Policy.notes["outdated_siblings"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False


class PressedValuesPolicy(BaseModel):
    """Query-time rule: for a current-state question, a keyed candidate among the first
    `latest_value.window` softly pressed by a later firm value of its own slot (not soft, at
    or above the replace threshold, not retracted, told after its last mention) ranks from
    `latest_value.demote_to` on (workers/query/pressed_values.py). Ours, after Appendix F
    (soft supersession: both kept, not equal) and §3.5's query-time choice among values;
    measurements in `Policy.notes["pressed_values"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: Only a newer value that is itself among the first candidates (or its raw turn is).
    co_retrieved: bool = True
    #: A question naming the earlier value's own words keeps it unless the newer value is
    #: among the first `demote_to` ("is Tom still my flatmate?" always shows one of them).
    named_keeps: bool = True
    #: An accumulate newer value of a Relational slot adds a bond (Table 1), not firm. Off:
    #: measured, it cost the gold tellings three stale answers (a flatmate, a manager, a
    #: sous-chef changed, told at the gold default, accumulate).
    relational_additions: bool = False


class NewerStatementsPolicy(BaseModel):
    """Query-time rule: for a current-state question that says so (`explicit_now`), a
    candidate among the first `latest_value.demote_to` with a raw turn told at least
    `min_gap_hours` later among the first `latest_value.window`, about the same thing (stored
    vectors' cosine >= `min_cosine`) and matching the question as well (σ within
    `sigma_margin`), ranks from `demote_to` on (workers/query/newer_statements.py). Ours,
    after A.7.3 (q_cur: the newer statement leads), §3.5 and Appendix F; measurements in
    `Policy.notes["newer_statements"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: Only questions whose words place them in the present ("now", "currently", "still" …).
    explicit_now: bool = True
    min_cosine: float = Field(default=0.3, ge=-1.0, le=1.0)
    sigma_margin: float = Field(default=0.0, ge=0.0, le=1.0)
    #: A later session, not the next line of the same conversation (Appendix G).
    min_gap_hours: float = Field(default=24.0, ge=0.0)
    #: The embedder whose cosines `min_cosine` was chosen on (workers/embedding/minilm.py
    #: MODEL_ID); under any other the rule is off until measured there.
    embedder_model_id: str = "minilm-l6-v2-int8"
    #: A newer turn that itself places what it says in the present ("… now", "these days")
    #: presses any current question's candidate, whatever the question's words and σ: the
    #: user marked the change (issue-11aa; measurements in `Policy.notes`).
    turn_says_now: bool = False
    #: Unmarked pressing (issue-11ag): where neither the question nor the newer turn places
    #: itself in the present, a newer raw turn still presses (every other gate kept) when the
    #: question asks for one value, not a set (`newer_statements.asks_for_many`: AV5).
    unmarked_single_value: bool = False
    #: A newer turn that restates an amount of the older one's currency with another number
    #: presses it whatever its σ (A.7.1: the newer number replaces; round 20, AV8).
    restated_amount: bool = False
    #: A quantity question ("how much …", "how many …") and a newer turn that restates a bare
    #: number of the older one (no currency or period: a running total, a count) with another,
    #: the two at least this close (stored vectors' cosine) and sharing a content word: the
    #: newer presses whatever its σ (A.7.1; round 24, lead). Above 1: never.
    restated_count_min_cosine: float = Field(default=1.1, ge=-1.0, le=1.1)
    #: A fact drawn from a led raw turn (its `episodic_of`), among the first
    #: `latest_value.demote_to`, follows the turn: the σ condition is the turn's, not the
    #: fact's (round 20, r20-follow; `Policy.notes["newer_statements"]`) ...
    facts_follow: bool = False
    #: ... when the question or the newer turn says "now"; with `follow_unmarked` also after
    #: an unmarked pressing (`unmarked_single_value`), unless the question names its moment by
    #: the calendar (`newer_statements.names_its_moment`: the LoCoMo dev loss at 5 of the
    #: unnarrowed follow was such a question; round 25, `Policy.notes["follow_unmarked"]`).
    follow_unmarked: bool = False
    #: For a question that asks which value holds now (`asks_current_value`: "now",
    #: "currently", "these days", not "still"), a newer raw turn that is itself among the
    #: first `latest_value.demote_to` presses whatever its σ when its cosine to the candidate
    #: is at least `shown_min_cosine` (round 21, r21-av4; `Policy.notes["newer_statements"]`).
    shown_newer_leads: bool = False
    #: Two versions of one thing, not two remarks on one topic: set on the generator's seed-29
    #: train half (development): at 0.3 later on-topic remarks pressed three Hit@1 answers.
    shown_min_cosine: float = Field(default=0.4, ge=-1.0, le=1.0)
    #: How deep in the ranking a newer raw turn may be to press a candidate of the first
    #: `latest_value.demote_to` (0 or at most `latest_value.window`: only the window's, as
    #: before round 21). The question's words often match the old value's turn and not the
    #: newer one's, which then ranks past the window. Past it, only for a question that says
    #: it asks about the present, only the candidate of the first five the turn is nearest,
    #: never one keyed apart from it; every other gate is the window's (round 21, r21-deeper;
    #: `Policy.notes["pressers_from"]`).
    pressers_from: int = Field(default=0, ge=0, le=200)
    #: A presser past the window must be this close to the candidate it presses (the window's
    #: own pressers need `min_cosine`): round 22, measured with `shown_newer_leads`.
    deeper_min_cosine: float = Field(default=0.35, ge=-1.0, le=1.0)
    #: Pressers past the window also for a present-habit do-question without a present-time
    #: word (any subject: `asks_current_value` with `others`), but only those that say the
    #: change themselves (`turn_says_now`, `change_said_marks`): round 25, r25-av1;
    #: `Policy.notes["deeper_marked_habit"]`.
    deeper_marked_habit: bool = False
    #: `shown_newer_leads` also for a do-support question in the simple present without a
    #: present-time word ("what car does Sam drive?"; round 22, r22-latest;
    #: `Policy.notes["newer_statements"]`).
    present_habit_leads: bool = False
    #: `present_habit_leads` for a do-question about someone else ("what car does Sam
    #: drive?"), when the shown newer turn is at least this close to the older one (the
    #: asker's own do-question needs `shown_min_cosine`); above 1: never (round 23, lead;
    #: `Policy.notes["present_habit_others_min_cosine"]`).
    present_habit_others_min_cosine: float = Field(default=1.1, ge=-1.0, le=1.1)
    #: A newer raw turn that says the value changed (`turn_says_now`) presses a candidate it
    #: is less close to than `min_cosine`, down to this cosine, when the question ties the two
    #: (σ not below the candidate's; `marked_low_shown`: or shown among the first places);
    #: above 1: never (round 24, r24-lowcos; `workers/query/low_cosine_versions.py`,
    #: `Policy.notes["marked_min_cosine"]`).
    marked_min_cosine: float = Field(default=1.1, ge=-1.0, le=1.1)
    marked_low_sigma: bool = False
    #: Two versions among the few candidates the question singles out: an unmarked newer raw turn
    #: presses though it matches the question less well when both are in a first tier of at most
    #: this many candidates, their cosine at least `small_tier_min_cosine` and its σ at least
    #: `small_tier_sigma_ratio` of the older's (round 26, r26-av6; `workers/query/small_tier.py`,
    #: `Policy.notes["small_tier_max"]`). 0: never.
    small_tier_max: int = Field(default=0, ge=0, le=50)
    small_tier_min_cosine: float = Field(default=0.3, ge=-1.0, le=1.1)
    small_tier_sigma_ratio: float = Field(default=0.0, ge=0.0, le=1.0)
    #: A newer raw turn that says something the older one names is over ("the oil boiler's
    #: gone", "sold the Proton", "no more kebabs") marks the change for that pair, as a turn
    #: that says "now" does (A.7.1; round 25, lead; `workers/query/ended_values.py`,
    #: `Policy.notes["ended_value_marks"]`).
    ended_value_marks: bool = False
    #: With `turn_says_now`, a newer raw turn that says the change itself marks it as a
    #: present-time word does: a verb of replacing told as done ("switched to …"), "it's
    #: changed", a correction's label (round 25, r25-av1; `workers/query/change_said.py`,
    #: `Policy.notes["change_said_marks"]`).
    change_said_marks: bool = False
    #: For a question that asks which value holds now (`asks_current_value`), a candidate of
    #: the first `latest_value.demote_to` without a slot key that is an earlier version of a
    #: superseded statement among the query's masked matches (told `min_gap_hours` before it,
    #: cosine ≥ `min_cosine`, its nearest of the first places) whose replacement chain ends in
    #: the window ranks from `demote_to` on: supersession is transitive along a chain (A.7.1;
    #: round 26, r26-av4; `workers/query/replaced_chain.py`, `Policy.notes["through_replaced"]`).
    through_replaced: bool = False


class BracketedVersionsPolicy(BaseModel):
    """Query-time rule: for a current question, a candidate among the first
    `latest_value.demote_to` told after a candidate another window rule moved down and at
    least `min_gap_hours` before the newer statement that leads it, about the same thing as
    the moved one (stored vectors' cosine >= `min_cosine`) and nearer to it or its newer
    statement than to any other window candidate, ranks from `demote_to` on too: the middle
    of three versions (workers/query/bracketed.py). Ours, after A.7.3 (q_cur: the newest
    version leads) and Appendix F; measurements in `Policy.notes["bracketed_versions"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: "About the same thing", on all-MiniLM-L6-v2 (as `newer_statements.min_cosine`).
    min_cosine: float = Field(default=0.3, ge=-1.0, le=1.0)
    #: Told in an earlier session than the newer statement (Appendix G's session clock).
    min_gap_hours: float = Field(default=24.0, ge=0.0)
    #: The embedder whose cosines `min_cosine` was chosen on; off under any other.
    embedder_model_id: str = "minilm-l6-v2-int8"
    #: For a question that asks which value holds now (`newer_statements.asks_current_value`),
    #: a `newer_statements` pair brackets too when its newer turn says the change itself (a
    #: present-time word, the change said, the older value said over): the user's own word
    #: ties the two as versions, as a slot or attribute does (round 26, r26-av4;
    #: `Policy.notes["bracketed_marked_pairs"]`).
    marked_pairs: bool = False


class SetQuestionsPolicy(BaseModel):
    """Query-time rule for a question that asks for a set (AV5 broad aggregation, A.7.2: the
    items of one kind accumulate, the question wants every one): among the places after the
    first `latest_value.demote_to`, a record whose source turn is already served (a fact and
    its verbatim turn are one item) gives its place to the best candidate after the served k by
    σ + `kind_weight` · its kind margin for the routed category (the extraction prototypes,
    §3.1/§3.3) (workers/query/set_questions.py). Ours; measurements in
    `Policy.notes["set_questions"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: σ + kind_weight · (similarity to the routed category's own prototype examples − the
    #: best similarity to another behavioural category's) orders the freed places' takers.
    kind_weight: float = Field(default=1.0, ge=0.0, le=4.0)
    #: A fact-less raw turn stored as Other among those places, whose vector is nearer the
    #: Other prototype examples than any behavioural kind's by at least `chatter_margin`
    #: (chatter: thanks, a request, the weather), yields its place too and competes for it
    #: again by σ + kind_weight · kind margin (round 20; measured on heldout3–12 by class, see
    #: `Policy.notes["set_questions"]`).
    chatter_yields: bool = False
    chatter_margin: float = Field(default=0.0, ge=-1.0, le=1.0)
    #: A fact-less Other raw turn among those places whose every sentence asks (a question
    #: states no fact, `patterns_guard.statement_part`) yields too, and competes again.
    questions_yield: bool = False
    #: Round 24: a raw turn among the first `latest_value.demote_to` whose slot-less fact of
    #: the asked kind (a pastime read at ingest, `patterns_pastimes`) is served above it is
    #: the same item: it leaves the first places (measured: `Policy.notes["pastimes"]`).
    pastime_turn_yields: bool = False
    #: Round 27: among those places, a record of another concrete kind whose kind the extractor
    #: said itself (`EdgeEvent.kind_said`: a home, an employer, a drink — not the prototypes'
    #: reading) yields too, and competes again as chatter does (`set_questions.said_other_kind`).
    said_kinds_yield: bool = False
    #: The embedder whose prototype cosines the margin was measured on; off under any other.
    embedder_model_id: str = "minilm-l6-v2-int8"


class PassedMentionsPolicy(BaseModel):
    """Query-time rule: for an upcoming question, an undated candidate among the first
    `latest_value.window` whose words name a date more than the expiry buffer before as_of
    ranks from `latest_value.demote_to` on (workers/query/passed_mentions.py). Ours, after
    A.7.4 (an event whose time has passed is not upcoming); measurements in
    `Policy.notes["passed_mentions"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: An undated fact drawn from a raw turn whose words name a passed date follows it
    #: (`passed_mentions.told_in_passed`): "User booked the passport appointment" is the
    #: appointment "8 July, 10:40" its turn names.
    told_with: bool = False
    #: Such a candidate is masked as an expired event is for an upcoming question (the
    #: upcoming M_q admits active facts only, §3): it ranks after every other, out of the
    #: served top k, instead of from `demote_to` on inside the window.
    masked: bool = False


class LastingStatesPolicy(BaseModel):
    """Query-time rule: for a question whose words ask for a lasting state ("long-term",
    "chronic", "live with"), a candidate among the first `latest_value.window` whose words bound
    it to a recent onset or a short duration ranks from `latest_value.demote_to` on
    (workers/query/lasting_states.py). After Table 1 row 4 (chronic: no end; acute: valid from
    now, soon over); measurements in `Policy.notes["lasting_states"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: A "since" whose day lies at most this many days before the turn is a recent onset: a
    #: week, the acute illness's span (the gold rules, after Table 1 row 4).
    recent_days: float = Field(default=7.0, gt=0)
    #: For a question about now or ahead in words of health that asks for no lasting state, a
    #: candidate whose words bound it to a short span that ended before the question ranks
    #: from `demote_to` on, with the facts drawn from its turn (Table 1 row 4: "Acute:
    #: expire"; round 24, lead; `Policy.notes["lasting_states"]`).
    passed_acute: bool = False


class WithdrawalPolicy(BaseModel):
    """Offline extraction: a user turn with no retraction marker whose MiniLM vector the
    withdrawal probe (workers/extraction/withdrawal_probe.py) scores at least `threshold`
    withdraws the plan it names, or the session's latest plan (paper §3.3, A.9, AV7).
    Ours; the measurement that set it is `Policy.notes["withdrawal"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Off unless the policy file turns it on, as every other rule; the shipped
    #: `default_policy.json` does.
    enabled: bool = False
    threshold: float = Field(default=0.9, ge=0, le=1)


class WithdrawnPolicy(BaseModel):
    """Query-time rule: for a current or upcoming question, a raw turn among the first
    `latest_value.window` that the withdrawal probe scores at least `threshold` on its stored
    vector, is the user's own withdrawal (`own_withdrawal.not_the_users`: not weighed, denied,
    reported, wished, of another's plan or taken back) and whose ingest retracted nothing,
    withdraws the live assertion it is closest to in the user's whole memory (exact search;
    cosine >= `min_cosine`, told >= `min_gap_hours` before it) and the other tellings of that
    plan (cosine >= `same_plan_cosine`), unless the user's newest word on the plan since is no
    withdrawal: their candidates leave the served top k (workers/query/withdrawn.py). Ours, after
    §3.3 / A.9 (a retraction masks the plan it names; AV7); measurements in
    `Policy.notes["withdrawn"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    #: The ingest gate's threshold (`withdrawal.threshold`, set on development data).
    threshold: float = Field(default=0.9, ge=0, le=1)
    #: "About the same thing", on all-MiniLM-L6-v2 (as `newer_statements.min_cosine`).
    min_cosine: float = Field(default=0.3, ge=-1.0, le=1.0)
    #: A later session, not the next line of the same conversation (Appendix G).
    min_gap_hours: float = Field(default=24.0, ge=0.0)
    #: How many of the user's earlier statements nearest the withdrawal are looked at.
    targets: int = Field(default=20, ge=1)
    #: A turn the ingest drew a retraction from that retracted nothing (no statement nearest
    #: it retracted by it) is read here too, its target sharing a content word (round 18).
    unresolved: bool = False
    #: "The same plan", on all-MiniLM-L6-v2: another telling of the target's plan (withdrawn
    #: with it) or the user's later word on it (which, if no withdrawal, ends it). Ours, set on
    #: invented development sentences (a follow-up 0.86, a reinstatement 0.60-0.83, a related
    #: plan of the same people 0.43; docs/extraction.md).
    same_plan_cosine: float = Field(default=0.6, ge=-1.0, le=1.0)
    #: Also read a withdrawal the probe misses from an asserted dismissal of a named topic
    #: (`workers/extraction/dismissal.py`: a negated pro-verb, a topic and a bare negative or
    #: a verdict, a dismissive imperative, the verb of withdrawing); its target must share a
    #: content word with the turn. Measurements in `Policy.notes["withdrawn"]`.
    dismissals: bool = False
    #: A withdrawal whose nearest earlier live assertion is under `min_cosine` (a turn long
    #: with its reasons: "the band thing is cooked. X moved away, we're done") still finds
    #: its plan when the plan is in the window too and both say a content word the question
    #: says (`workers/query/asked_topic.py`), if their cosine is at least this. None: off.
    asked_topic_min_cosine: float | None = Field(default=None, ge=-1.0, le=1.0)
    #: The raw turns among the first this many candidates are searched from for a later own
    #: withdrawal of them that ranks below the window (`workers/query/withdrawal_search.py`;
    #: the shipped policy reads the whole window, 10, since round 26);
    #: it then meets every gate a window withdrawal meets. 0: off.
    from_plans: int = Field(default=0, ge=0)
    #: A withdrawal that names what it gives up — the topic before a dismissal's verdict
    #: ("the Lisbon trip: cxl"), the slot the ingest's retraction names — binds a window plan
    #: saying a named word at `asked_topic_min_cosine`, as the question's topic does
    #: (`workers/query/named_topic.py`, round 24).
    named_topic_binds: bool = False
    #: The withdrawal turn's words at least this cosine (single words, all-MiniLM-L6-v2) from a
    #: word of the ingest retraction's slot name it too ("puppy" for the slot "dog"): a plan
    #: saying one meets the slot's bound. None: the slot's own words only.
    slot_kin_min_cosine: float | None = Field(default=None, ge=-1.0, le=1.0)
    #: For a question about what was given up (CANCELLED), the plan a window withdrawal gives
    #: up — found as for a current question — moves up to just after its withdrawal when it
    #: ranks past the window (`workers/query/given_up.py`, round 24).
    cancelled_lifts_plan: bool = False
    #: The embedder whose vectors the probe and `min_cosine` mean something on.
    embedder_model_id: str = "minilm-l6-v2-int8"


class PastimesPolicy(BaseModel):
    """Offline extraction: a clause that tells an activity the user habitually does (a
    frequency or habitual aspect, the user the subject, no duty or daily care) and that no
    other family reads is a Hobbies fact, additive and slot-less (workers/extraction/
    patterns_pastimes.py; Table 1 row 6, A.7.2). Ours; `Policy.notes["pastimes"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Off unless the policy file turns it on, as every other rule.
    enabled: bool = False
    #: A value family's habit that names no attribute ("every evening I play a few blitz
    #: games") becomes the pastime too, instead of nothing. Measured and left off (round 24):
    #: it read farm work and packed lunches as pastimes, −1 pass heldout6, +1 stale heldout8;
    #: measured again in round 26, after `only_hobby_questions`: no set loses, heldout13 AV5
    #: +1 — turned on in the policy file.
    habits: bool = False
    #: A pastime told as taken up — joined a group or a class, took up / started / got into /
    #: signed up for an activity (workers/extraction/patterns_takeups.py) — is the same
    #: Hobbies fact (round 25; measured: `Policy.notes["pastimes"]`).
    takeups: bool = False
    #: Query time: a pastime fact (slot-less, additive, Hobbies only) is a candidate only for
    #: a question routed to Hobbies (§3.3); for any other its raw turn answers alone
    #: (workers/query/pastime_facts.py; round 25, measured: `Policy.notes["pastimes"]`).
    only_hobby_questions: bool = False
    #: The routing weight ρ(Hobbies) below which a question is not a Hobbies question for
    #: `only_hobby_questions`. 0.05: a question for a pastime routed mostly elsewhere ("what
    #: new activity has X started learning?" ρ 0.09–0.16, paper-turn pastime questions routed
    #: elsewhere 0.08–0.27) keeps the facts; a job or ward question (ρ 0.01–0.03) does not.
    #: Measured: `Policy.notes["pastimes"]`.
    hobby_weight_floor: float = Field(default=0.05, ge=0.0, le=1.0)


class OriginFactsPolicy(BaseModel):
    """Query time: an origin fact (`user.hometown`, `user.first_language`) is a candidate only
    for a question that asks for an origin by the attribute's own words (born, grow up, home
    town, originally, first language, "where is X from", …); for any other its raw turn
    answers alone (workers/query/origin_facts.py; §3.3, Table 1 row 1). Ours (round 26);
    `Policy.notes["origin_facts"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Off unless the policy file turns it on, as every other rule.
    only_origin_questions: bool = False


class NormalizationPolicy(BaseModel):
    """Offline extraction: the rule families read a turn in canonical prose — fillers,
    stutters, texting shorthand, markdown structure and professional abbreviations
    rewritten by a closed lexicon (workers/text/register.py); the raw turn is kept and
    indexed verbatim. Ours; the measurement that set it is `Policy.notes["normalization"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Off unless the policy file turns it on, as every other rule.
    enabled: bool = False


class CompactionPolicy(BaseModel):
    """When a long-dead fact may leave the active store (docs/architecture.md, "Compaction":
    archive long-dead facts so the active store stays bounded; paper Appendix L projects
    ~30,000 edges flat vs ~5,000–8,000 retrievable after two years). The retention periods
    are ours: the paper gives none. The log keeps every fact; archived ones go to an archive
    file and `frecall replay` restores them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Superseded this many days ago: archivable ("used to" questions look back that far).
    superseded_days: float = Field(default=180, ge=0)
    #: The latest superseded value of a slot stays whatever its age: it answers "what did I
    #: have before X?" (historical intent, paper §3.3).
    keep_last_superseded: bool = True
    retracted_days: float = Field(default=90, ge=0)
    #: Near-duplicates are folded into their original as mentions (Appendix Z) on arrival.
    duplicate_days: float = Field(default=7, ge=0)
    #: Days after expiry (event time + `expiry_buffer_hours`, Appendix K): "past" questions
    #: admit expired facts, so they stay a while.
    expired_days: float = Field(default=90, ge=0)


class Policy(BaseModel):
    """The whole lifecycle policy of a deployment."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    categories: dict[Category, CategoryPolicy]
    supersession: SupersessionPolicy = SupersessionPolicy()
    association: AssociationPolicy = AssociationPolicy()
    numeric_rescue: NumericRescue = NumericRescue()
    emotion: EmotionPolicy = EmotionPolicy()
    #: Appendix K: date-aware expiry with a 14-day buffer.
    expiry_buffer_hours: float = Field(default=14 * 24, ge=0)
    #: Appendix G: mention frequency slows decay: λ / (1 + r·ln(mentions)). Our default.
    reinforcement: float = Field(default=0.5, ge=0)
    #: Routing prior ρ(c|q) is a factor in [rho_min, 1]. Our default.
    routing_floor: float = Field(default=0.85, ge=0, le=1)
    #: Soft updates ("thinking about moving …") were never committed values: questions about
    #: the current state or about former values weight them by this. Our default.
    tentative_weight: dict[Intent, float] = {Intent.CURRENT: 0.5, Intent.HISTORICAL: 0.5}
    #: w_q: the share of each category's α_c (Table 48) that activation gets for a query
    #: intent, α_eff = w_q·α_c (1 where not listed). Questions about what happened or what
    #: was true before a change are not answered better by recent facts: age is no evidence
    #: there. Our departure from Eq. 2's fixed weights, measured on LoCoMo (README).
    recency_weight: dict[Intent, float] = {}
    #: D_q of facts without an event-time anchor: neither upcoming nor past, so they rank
    #: below anchored ones for "what's coming up" — but most past experiences are told
    #: without a date, so past questions keep them nearly level. Our defaults.
    unanchored_direction: dict[Intent, float] = {Intent.UPCOMING: 0.3, Intent.PAST: 0.8}
    #: σ = w·σ_bm25 + (1-w)·σ_dense when both sources ran (per-source normalized, App. Z).
    #: Our default; measured on LoCoMo dev (README).
    bm25_weight: float = Field(default=0.5, ge=0, le=1)
    #: Raw turns kept beside extracted facts rank below a fact on equal evidence
    #: (Appendix AA: the raw text is a fallback). Our default.
    episodic_weight: float = Field(default=0.9, ge=0, le=1)
    #: Whose decay, α, floor and routing a raw turn without an event anchor is scored
    #: with: its facts' categories ("facts") or OTHER's ("other": the rest of the turn is
    #: unclassified text, workers/query/candidates.py `scored_as_other`). Ours, measured.
    raw_turn_dynamics: Literal["facts", "other"] = "facts"
    #: Relevance gate standing in for the paper's LLM distillation to top-20 (§3.5) when no
    #: LLM is configured: keep at most `distill_candidates` by σ, and only those with
    #: σ ≥ relevance_ratio · max σ. Our defaults.
    distill_candidates: int = Field(default=20, gt=0)
    relevance_ratio: float = Field(default=0.6, ge=0, le=1)
    #: How the candidates after the relevance tier are ordered: by the lifecycle score, or
    #: ("ageless") by it as if every weak match were equally old — age does not tell weak
    #: matches apart (`QueryService._below_tier`). Ours, measured (README).
    below_tier_order: Literal["score", "ageless"] = "score"
    #: M_q: admitted states (and preference weight) for each intent (paper A.1).
    masks: dict[Intent, dict[LifecycleState, float]]
    #: M_q of raw turns (Appendix AA's kept text) where it differs from `masks`, per intent.
    #: A raw turn records what was said — an episode — and takes its state from the facts
    #: drawn from it: one superseded fact does not make the rest of the turn untrue for a
    #: question about what happened. Ours, measured (README).
    raw_turn_masks: dict[Intent, dict[LifecycleState, float]] = {}
    #: §3.6 / Appendix Z: candidate generation sizes.
    dense_candidates: int = Field(default=60, gt=0)
    bm25_candidates: int = Field(default=20, gt=0)
    forced_candidates: int = Field(default=20, gt=0)
    #: How dense and BM25 scores become one σ (App. Z says "per-source normalization", not
    #: how): minmax, raw, calibrated or rank (`workers.query.similarity`). Measured on LoCoMo.
    sigma_normalization: Literal["minmax", "raw", "calibrated", "ceiling", "centered", "rank"] = (
        "minmax"
    )
    #: Intents whose category-forced candidates include the event-time categories: they ask
    #: about event-anchored facts (A.7.4) in words that need not name a category. Ours.
    event_routed_intents: frozenset[Intent] = frozenset({Intent.UPCOMING})
    #: Intents whose category-forced candidates join the relevance tier (the LLM-free
    #: stand-in for distillation), so that anticipatory activation (A.13) can lift an event
    #: that shares no words with the question. Ours, measured (README).
    forced_tier_intents: frozenset[Intent] = frozenset({Intent.UPCOMING})
    #: When no word of a question tells the user's facts apart (each is in more than half
    #: of them, or in none), the routed category's candidates alone form the first tier
    #: (§3.3: category-forced retrieval for abstract queries). Ours, measured (README).
    abstract_routed_tier: bool = False
    #: Successor expansion: a superseded or retracted fact that the intent masks but that
    #: matches the question as strongly as the relevance tier requires brings the fact that
    #: replaced it (the `superseded_by` / `retracted_by` chain) into the pool with its σ.
    #: `masked_candidates` is how many masked facts each source searches. Ours.
    successor_expansion: bool = True
    masked_candidates: int = Field(default=10, gt=0)
    #: The latest statement of a single-valued attribute wins a current-state question
    #: (workers/query/latest_value.py). Ours, a stand-in for §3.5's LLM distillation.
    latest_value: LatestValuePolicy = LatestValuePolicy()
    #: A candidate told with a replaced fact ranks below its replacement's statement
    #: (workers/query/outdated_siblings.py), on latest_value's window. Ours (§6).
    outdated_siblings: OutdatedSiblingsPolicy = OutdatedSiblingsPolicy()
    #: Undated candidates whose words date them in the past, for upcoming questions
    #: (workers/query/passed_mentions.py), on latest_value's window. Ours (A.7.4).
    passed_mentions: PassedMentionsPolicy = PassedMentionsPolicy()
    #: A question for a lasting state does not serve a recent, bounded one first
    #: (workers/query/lasting_states.py), on latest_value's window. After Table 1 row 4.
    lasting_states: LastingStatesPolicy = LastingStatesPolicy()
    #: An earlier value softly pressed by a firm newer one yields to it for current
    #: questions (workers/query/pressed_values.py), on latest_value's window. Ours (App. F).
    pressed_values: PressedValuesPolicy = PressedValuesPolicy()
    #: A newer on-topic raw turn leads a question about the present, where no slot key ties
    #: the two (workers/query/newer_statements.py), on latest_value's window. Ours (A.7.3).
    newer_statements: NewerStatementsPolicy = NewerStatementsPolicy()
    #: A middle version, told between an older one a window rule moved down and the newer
    #: statement that leads it, moves down too (workers/query/bracketed.py). Ours (A.7.3).
    bracketed_versions: BracketedVersionsPolicy = BracketedVersionsPolicy()
    #: A question for a set: kind evidence and one place per source turn
    #: (workers/query/set_questions.py). Ours (§3.3, AV5).
    set_questions: SetQuestionsPolicy = SetQuestionsPolicy()
    compaction: CompactionPolicy = CompactionPolicy()
    #: The trained withdrawal probe behind the retraction markers (offline extractor). Ours.
    withdrawal: WithdrawalPolicy = WithdrawalPolicy()
    #: A withdrawal the ingest left unresolved, read at query time: the statement it gives
    #: up leaves the served top k (workers/query/withdrawn.py). Ours (§3.3, A.9, AV7).
    withdrawn: WithdrawnPolicy = WithdrawnPolicy()
    #: Chat registers rewritten for the rule families (offline extractor). Ours.
    normalization: NormalizationPolicy = NormalizationPolicy()
    pastimes: PastimesPolicy = PastimesPolicy()
    #: An origin fact serves the questions that ask for an origin (workers/query/
    #: origin_facts.py). Ours (§3.3).
    origin_facts: OriginFactsPolicy = OriginFactsPolicy()
    #: Where a setting departs from the paper or the paper is silent: why, and the
    #: measurement behind it (setting name → text). Documentation only.
    notes: dict[str, str] = {}

    @model_validator(mode="after")
    def _complete(self) -> Policy:
        missing = set(Category) - set(self.categories)
        if missing:
            raise ValueError(f"policy lacks categories: {sorted(missing)}")
        missing_intents = set(Intent) - set(self.masks)
        if missing_intents:
            raise ValueError(f"policy lacks masks for intents: {sorted(missing_intents)}")
        for intent, mask in (*self.masks.items(), *self.raw_turn_masks.items()):
            for state in (LifecycleState.DUPLICATE, LifecycleState.QUARANTINED):
                if mask.get(state, 0.0) != 0.0:
                    raise ValueError(f"mask {intent} must not serve {state} facts")
            if any(not 0.0 <= w <= 1.0 for w in mask.values()):
                raise ValueError(f"mask {intent} weights must be within [0, 1]")
        for name in ("tentative_weight", "recency_weight", "unanchored_direction"):
            weights: dict[Intent, float] = getattr(self, name)
            if any(not 0.0 <= w <= 1.0 for w in weights.values()):
                raise ValueError(f"{name} weights must be within [0, 1]")
        return self

    def category(self, category: Category) -> CategoryPolicy:
        return self.categories[category]


def load_policy(path: str | Path | None = None) -> Policy:
    """Load and validate a policy file; `None` loads the shipped default."""
    if path is None:
        text = resources.files("schemas").joinpath("default_policy.json").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    return Policy.model_validate(json.loads(text))
