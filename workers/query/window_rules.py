"""The bounded query-time moves inside the ranking's window (issue 11).

Five rules, each reading no wording of the statements, may move a candidate among the first
`window` down to rank `demote_to` or later, never out of the window (`latest_value.reorder`),
with its reason in `why`: an older statement of the single-valued attribute a current question
asks about (`latest_value.py`), a statement told with a fact since replaced by one ranked above it
(`outdated_siblings.py`), an undated candidate of an upcoming question whose words name a
passed date (`passed_mentions.py`), an earlier value of a slot given a firm newer one below
the supersession threshold (`pressed_values.py`), an earlier statement a newer raw turn about
the same thing leads, for a question about the present (`newer_statements.py`). This module
wires them to the query path: which classifier the first reads, which records the second must
look up, and one map of reasons.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from schemas.categories import Intent, LifecycleState
from schemas.policy import LatestValuePolicy, Policy
from schemas.records import FactRecord
from workers.extraction.attribute_probe import AttributeClassifier, default_probe
from workers.extraction.prototypes import PrototypeClassifier, default_table, is_semantic
from workers.extraction.withdrawal_probe import default_withdrawal_probe, withdrawal_probability
from workers.ports import Embedder, Hit, SearchFilter, VectorIndex
from workers.query import (
    attribute_now,
    bracketed,
    deeper_lift,
    given_up,
    keeping_order,
    lasting_states,
    latest_value,
    newer_statements,
    outdated_siblings,
    passed_mentions,
    pressed_values,
    replaced_chain,
    withdrawn,
)
from workers.query.candidates import MergedCandidate
from workers.text.bm25 import tokenize

#: The stored state of a statement a retraction retracted.
_RETRACTED = frozenset({LifecycleState.RETRACTED})
#: How many of the user's retracted statements, nearest a withdrawal, are asked whether the
#: ingest resolved it (`withdrawn.Retracted`): every one a user has, in practice — compaction
#: deletes retracted facts after `compaction.retracted_days` (90) — and, past it, the nearest.
_RETRACTED_READ = 256


@dataclass(frozen=True, slots=True)
class Settled:
    """The ranking after the window rules, and why each candidate they touched moved."""

    ranked: list[int]
    #: Edge id → why it moved down inside the window (`WindowRules.moved_down`).
    moved_why: dict[str, list[str]]
    #: Edge id → the withdrawal or the passed date that masked it (out of the top k).
    gone: dict[str, withdrawn.Withdrawn]
    past: dict[str, passed_mentions.Passed]


class WindowRules:
    """The five rules over one store, embedder and policy."""

    def __init__(self, vectors: VectorIndex, embedder: Embedder, policy: Policy) -> None:
        self._vectors = vectors
        self._policy = policy
        self._embedder = embedder
        # min_cosine means "about the same thing" only on the vectors it was chosen on.
        self._newer_calibrated = embedder.model_id == policy.newer_statements.embedder_model_id
        self._bracketed_calibrated = (
            embedder.model_id == policy.bracketed_versions.embedder_model_id
        )
        # The withdrawal probe reads only the vectors it was trained on.
        self._withdrawn_calibrated = (
            embedder.model_id == policy.withdrawn.embedder_model_id
            and embedder.model_id == default_withdrawal_probe().model_id
        )
        # The prototypes mean nothing under the hashing test double: no latest-value rule.
        table = default_table()
        self._latest = (
            (
                *_attribute_classifier(embedder, policy.latest_value),
                latest_value.single_valued(table, policy.latest_value),
                latest_value.slot_attributes(table),
            )
            if is_semantic(embedder)
            else None
        )

    def _latest_value(
        self, user: str, intent: Intent, qv: np.ndarray, merged: list[MergedCandidate],
        ranked: list[int], read: dict[str, FactRecord],
    ) -> dict[str, latest_value.Demotion]:  # fmt: skip
        """Older statements of the single-valued attribute a current question asks about,
        among the first candidates (`workers/query/latest_value.py`)."""
        if self._latest is None or intent is not Intent.CURRENT:
            return {}
        classifier, rule, allowed, slots = self._latest
        if not rule.enabled:
            return {}
        question = classifier.classify(np.asarray([qv]))[0]
        if not latest_value.asked_attributes(question, allowed, rule):
            return {}  # most questions: no candidate needs classifying
        window = [merged[i] for i in ranked[: rule.window]]
        verdicts = latest_value.classify_stored(classifier, [m.vector for m in window])
        records = [m.record for m in window]
        keys = self._turn_keys(user, records, read) if rule.told_with_keyed else {}
        return latest_value.demotions(
            intent, question, records, verdicts, slots, allowed, rule, keys
        )

    def _holds_now(self, question: str, intent: Intent, qv: np.ndarray) -> bool:
        """Whether the question asks which value holds now: its words say so, or (with
        `latest_value.attribute_asks_now`) the attribute classifier reads a current question
        as asking a single-valued attribute (`workers/query/attribute_now.py`)."""
        present_habit = self._policy.newer_statements.present_habit_leads
        if newer_statements.asks_current_value(question, present_habit):
            return True
        if self._latest is None or not self._policy.latest_value.attribute_asks_now:
            return False
        classifier, rule, allowed, _ = self._latest
        if not rule.enabled or intent is not Intent.CURRENT:
            return False
        asked = bool(
            latest_value.asked_attributes(classifier.classify(np.asarray([qv]))[0], allowed, rule)
        )
        return attribute_now.asks_value_now(question, intent, asked, present_habit, True)

    def _turn_keys(
        self, user: str, records: list[FactRecord], read: dict[str, FactRecord]
    ) -> dict[str, frozenset[str]]:
        """Raw turn id → the slot keys of the facts drawn from it, read from the store (a
        drawn fact need not be a candidate: the turn carries its key all the same)."""
        turns = [r for r in records if r.edge.episodic and r.edge.episodic_of]
        drawn = self._read(user, [f for r in turns for f in r.edge.episodic_of], read)
        return {
            r.edge_id: frozenset(
                k for f in r.edge.episodic_of if f in drawn and (k := drawn[f].edge.slot_key)
            )
            for r in turns
        }

    def _read(
        self, user: str, ids: list[str], read: dict[str, FactRecord]
    ) -> dict[str, FactRecord]:
        """The records of `ids` that exist, reading from the store only those not in `read`
        (which keeps every record read, for the next rule)."""
        missing = [i for i in ids if i not in read]
        if missing:
            read.update({r.edge_id: r for r in self._vectors.get(user, missing)})
        return {i: read[i] for i in ids if i in read}

    def _told_with_replaced(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        read: dict[str, FactRecord],
    ) -> dict[str, outdated_siblings.Demotion]:  # fmt: skip
        """The first candidates told with a fact replaced by a statement ranked above them
        (`workers/query/outdated_siblings.py`)."""
        if not self._policy.outdated_siblings.enabled or intent is not Intent.CURRENT:
            return {}
        window = [merged[i].record for i in ranked[: self._policy.latest_value.window]]
        told_with = outdated_siblings.turn_facts([m.record for m in merged])
        wanted = outdated_siblings.wanted(window, told_with)
        if not wanted:
            return {}
        facts = self._read(user, wanted, read)
        return outdated_siblings.demotions(intent, window, told_with, facts)

    def _pressed(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime, question: str, read: dict[str, FactRecord],
    ) -> dict[str, pressed_values.Pressed]:  # fmt: skip
        """The first keyed candidates given a firm newer value of their own slot below the
        supersession threshold (`workers/query/pressed_values.py`)."""
        if not self._policy.pressed_values.enabled or intent is not Intent.CURRENT:
            return {}
        window = [merged[i].record for i in ranked[: self._policy.latest_value.window]]
        drawn = pressed_values.told_facts(window)
        told = self._read(user, drawn, read) if drawn else {}
        wanted = pressed_values.pressers([*window, *told.values()])
        if not wanted:
            return {}
        found = self._read(user, wanted, read)
        rule = self._policy.pressed_values
        firm = pressed_values.Firmness(
            self._policy.supersession.replace_threshold, rule.relational_additions
        )
        terms = frozenset(tokenize(question)) if rule.named_keeps else frozenset()
        return pressed_values.demotions(
            intent, window, told, found, as_of, firm, co_retrieved=rule.co_retrieved,
            shown=self._policy.latest_value.demote_to, question_terms=terms,
        )  # fmt: skip

    def _passed(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime, read: dict[str, FactRecord],
    ) -> dict[str, passed_mentions.Passed]:  # fmt: skip
        """The first undated candidates of an upcoming question whose words, or whose raw
        turn's words, date them in the past (`workers/query/passed_mentions.py`)."""
        rule = self._policy.passed_mentions
        if not rule.enabled or intent is not Intent.UPCOMING:
            return {}
        window = [merged[i].record for i in ranked[: self._policy.latest_value.window]]
        buffer = self._policy.expiry_buffer_hours
        out = passed_mentions.passed(intent, window, as_of, buffer)
        if rule.told_with:
            present = {r.edge_id: r for r in window}
            wanted = passed_mentions.turns_wanted(window)
            turns = {i: present[i] for i in wanted if i in present}
            turns |= self._read(user, [i for i in wanted if i not in present], read)
            told = passed_mentions.told_in_passed(intent, window, turns, as_of, buffer)
            out.update({k: v for k, v in told.items() if k not in out})
        return out

    def _newer(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime, question: str, read: dict[str, FactRecord], lifted: bool = False,
        tier: Set[str] = frozenset(),
    ) -> dict[str, newer_statements.Newer]:  # fmt: skip
        """The first candidates a later raw turn about the same thing leads, for a question
        about the present (`workers/query/newer_statements.py`); the turn may rank past the
        window (`pressers_from`) for a question that says it asks about the present.
        `lifted`: a later pass of `settle`, judging what the rules' own moves lifted; with
        `latest_value.judge_lifted_said_now` it presses only where the present was said (by
        the question or the newer turn, not the unmarked reading) and never for a question
        for a set: on LoCoMo dev the lifted candidates an unmarked pressing demoted were
        evidence as often as not (round 22, r22-av6), and a set's lifted item is one more
        item (AV5), not an older value."""
        rule = self._policy.newer_statements
        if not rule.enabled or not self._newer_calibrated:
            return {}
        if lifted and self._policy.latest_value.judge_lifted_said_now:
            if newer_statements.asks_for_many(question):
                return {}
            rule = rule.model_copy(update={"unmarked_single_value": False})
        shape = self._policy.latest_value
        window = [merged[i] for i in ranked[: shape.window]]
        deeper = (
            [merged[i] for i in ranked[shape.window : rule.pressers_from]]
            if rule.pressers_from > shape.window
            and intent is Intent.CURRENT
            and newer_statements.reads_deeper(question, rule.deeper_marked_habit)
            else []
        )
        # The slot keys drawn from the first five and the deeper turns, read from the store
        # only when deeper pressers are read (`newer_statements._keyed_apart`).
        keys = (
            self._turn_keys(user, [m.record for m in [*window[: shape.demote_to], *deeper]], read)
            if deeper
            else {}
        )
        return newer_statements.demotions(
            intent, question, window, as_of, rule, shape.demote_to, deeper, keys, tier
        )

    def _through_replaced(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime, holds_now: bool, read: dict[str, FactRecord],
    ) -> dict[str, replaced_chain.Chained]:  # fmt: skip
        """The first candidates that are earlier versions of a superseded match whose chain
        of replacements ends in the window, for a question that asks which value holds now
        (`holds_now`, `_holds_now`; `workers/query/replaced_chain.py`)."""
        rule = self._policy.newer_statements
        if (
            not rule.enabled
            or not rule.through_replaced
            or not self._newer_calibrated
            or intent is not Intent.CURRENT
            or not holds_now
        ):
            return {}
        replaced = [m for m in merged if m.record.lifecycle.state is LifecycleState.SUPERSEDED]
        if not replaced:
            return {}
        shape = self._policy.latest_value
        window = [merged[i] for i in ranked[: shape.window]]
        return replaced_chain.demotions(
            window, replaced, lambda ids: self._read(user, ids, read), as_of,
            rule.min_cosine, rule.min_gap_hours, shape.demote_to,
        )  # fmt: skip

    def passed_out(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime,
    ) -> dict[str, passed_mentions.Passed]:  # fmt: skip
        """The passed mentions (`_passed`) an upcoming question masks, with
        `passed_mentions.masked`: they leave the top k, as expired events do."""
        if not self._policy.passed_mentions.masked:
            return {}
        out: dict[str, passed_mentions.Passed] = {}
        read: dict[str, FactRecord] = {}
        # Masking lifts the next candidates into the window: they are judged too, until a
        # window holds no passed mention (each round masks at least one, so it ends).
        while found := self._passed(
            user, intent, merged, [i for i in ranked if merged[i].record.edge_id not in out],
            as_of, read,
        ):  # fmt: skip
            out.update(found)
        return out

    def withdrawn(
        self, user: str, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        as_of: datetime, query: str = "", lift: bool = False,
    ) -> dict[str, withdrawn.Withdrawn]:  # fmt: skip
        """The first candidates a later raw turn the ingest left unresolved gives up, for a
        question about now or ahead (`workers/query/withdrawn.py`): they leave the top k.
        `lift`: for a question about what was given up, the plan's candidates anywhere in
        `ranked` (`given_up.py`: they move up to their withdrawal)."""
        rule = self._policy.withdrawn
        if not rule.enabled or not self._withdrawn_calibrated:
            return {}
        if lift and not rule.cancelled_lifts_plan:
            return {}
        probe = default_withdrawal_probe()

        def nearest(vector: np.ndarray, before: datetime) -> list[Hit]:
            flt = SearchFilter(ingested_before=before)
            # Exact: the withdrawn set must not depend on an HNSW graph (review R14, R2).
            return self._vectors.search_dense(user, vector, rule.targets, flt, exact=True)

        def retracted(vector: np.ndarray) -> list[FactRecord]:
            flt = SearchFilter(states=_RETRACTED)
            hits = self._vectors.search_dense(user, vector, _RETRACTED_READ, flt, exact=True)
            return [h.record for h in hits]

        # A withdrawal's drawn facts are asked for by its reading, its resolution and its
        # bound: read from the store once (review r18 L1).
        read: dict[str, FactRecord] = {}
        window = [merged[i] for i in ranked[: self._policy.latest_value.window]]
        # A lifted plan may rank anywhere; a masked one only where masking would lift it.
        head = ranked if lift else ranked[: 2 * self._policy.latest_value.window]
        return withdrawn.withdrawn(
            intent, window, as_of, rule, lambda v: withdrawal_probability(probe, v),
            lambda ids: list(self._read(user, list(ids), read).values()), nearest, retracted,
            query, [merged[i] for i in head], self._embedder.embed, lift,
        )  # fmt: skip

    def _bracketed(
        self, intent: Intent, merged: list[MergedCandidate], ranked: list[int],
        pairs: dict[str, str], as_of: datetime,
    ) -> dict[str, bracketed.Bracketed]:  # fmt: skip
        """The first candidates told between an older version a rule moved down and the
        newer statement that leads it (`workers/query/bracketed.py`)."""
        rule = self._policy.bracketed_versions
        if not rule.enabled or not self._bracketed_calibrated or not pairs:
            return {}
        shape = self._policy.latest_value
        window = [merged[i] for i in ranked[: shape.window]]
        return bracketed.demotions(intent, window, pairs, as_of, rule, shape.demote_to)

    def moved_down(
        self,
        user: str,
        intent: Intent,
        qv: np.ndarray,
        merged: list[MergedCandidate],
        ranked: list[int],
        as_of: datetime,
        question: str,
        lifted: bool = False,
        tier: Set[str] = frozenset(),
        pressers: dict[str, set[str]] | None = None,
        lifters: dict[str, str] | None = None,
        brackets: dict[str, str] | None = None,
        leaders: dict[str, set[str]] | None = None,
    ) -> dict[str, list[str]]:
        """Edge id → why it moves down inside the window (`latest_value.reorder`): the older
        statements, the statements told with a replaced fact, the passed mentions, the pressed
        values, the statements a newer on-topic turn leads, the bounded states a question for
        a lasting one does not serve first. The two rules that look up facts
        share one map of the records read. `tier`: the edge ids of the ranking's first tier
        (`newer_statements.demotions`). `pressers`, if given, receives each candidate moved as
        the older of a pair → the edge ids of the newer statements that lead it (every rule
        but the attribute-only ones, `demoted_refill`); `lifters`, if given, receives each
        presser found past the window that says the change itself → the first candidate it
        leads (`deeper_lift`); `brackets`, if given, holds the pairs earlier passes found and
        receives this pass's: a pair whose older statement a demotion moved out of the first
        places still brackets the middle version that rose into them (`bracketed`); `leaders`,
        if given, receives each candidate moved as an older statement → the newer statements
        that lead it, of every rule that names one (`keeping_order`)."""
        out: dict[str, list[str]] = {}
        led: dict[str, set[str]] = leaders if leaders is not None else {}
        paired: dict[str, set[str]] = pressers if pressers is not None else {}
        read: dict[str, FactRecord] = {}
        # Older → the newer statement that leads it, for the bracketing rule: only the rules
        # that tie the two by one single-valued attribute or slot (latest_value: the probe's
        # attribute; outdated_siblings, pressed_values: a slot key). newer_statements ties
        # them by a cosine alone: as brackets its pairs cost LoCoMo dev recall@5 (round 20).
        pairs: dict[str, str] = brackets if brackets is not None else {}
        for edge_id, demotion in self._latest_value(user, intent, qv, merged, ranked, read).items():
            out.setdefault(edge_id, []).append(latest_value.explain(demotion))
            pairs.setdefault(edge_id, demotion.newer)
            led.setdefault(edge_id, set()).add(demotion.newer)
        for edge_id, sibling in self._told_with_replaced(
            user, intent, merged, ranked, read
        ).items():
            out.setdefault(edge_id, []).append(outdated_siblings.explain(sibling))
            pairs.setdefault(edge_id, sibling.by)
            paired.setdefault(edge_id, set()).add(sibling.by)
            led.setdefault(edge_id, set()).add(sibling.by)
        if not self._policy.passed_mentions.masked:
            for edge_id, mention in self._passed(user, intent, merged, ranked, as_of, read).items():
                out.setdefault(edge_id, []).append(passed_mentions.explain(mention))
        for edge_id, pressed in self._pressed(
            user, intent, merged, ranked, as_of, question, read
        ).items():
            out.setdefault(edge_id, []).append(pressed_values.explain(pressed))
            pairs.setdefault(edge_id, pressed.by)
            paired.setdefault(edge_id, set()).add(pressed.by)
            led.setdefault(edge_id, set()).add(pressed.by)
        # A pair the newer turn marks as a change (its own present-time word, the change
        # said, the older value said over) brackets for a question that asks which value
        # holds now (`bracketed_versions.marked_pairs`): the user's word ties the two.
        holds_now = self._holds_now(question, intent, qv)
        marked_pairs = self._policy.bracketed_versions.marked_pairs and holds_now
        for edge_id, newer in self._newer(
            user, intent, merged, ranked, as_of, question, read, lifted, tier
        ).items():
            out.setdefault(edge_id, []).append(newer_statements.explain(newer))
            led.setdefault(edge_id, set()).add(newer.by)
            # Pressed only for being shown itself, close (`shown_newer_leads`, σ waived): as
            # often a later remark on the topic as a newer version (round 23) — no pair.
            if not newer.shown:
                paired.setdefault(edge_id, set()).add(newer.by)
            if lifters is not None and newer.deeper and (newer.marked or newer.ended):
                lifters.setdefault(newer.by, edge_id)
            if marked_pairs and (newer.marked or newer.ended) and newer.drawn_from is None:
                pairs.setdefault(edge_id, newer.by)
        for edge_id, chained in self._through_replaced(
            user, intent, merged, ranked, as_of, holds_now, read
        ).items():
            if edge_id not in out:  # moved already, for a reason of its own
                out[edge_id] = [replaced_chain.explain(chained)]
                paired.setdefault(edge_id, set()).add(chained.newer)
                led.setdefault(edge_id, set()).add(chained.newer)
        for edge_id, middle in self._bracketed(intent, merged, ranked, pairs, as_of).items():
            if edge_id not in out:  # moved already, for a reason of its own
                out[edge_id] = [bracketed.explain(middle)]
                paired.setdefault(edge_id, set()).add(middle.newer)
                led.setdefault(edge_id, set()).add(middle.newer)
        lasting = self._policy.lasting_states
        if lasting.enabled:
            window = [merged[i].record for i in ranked[: self._policy.latest_value.window]]
            for edge_id, bound in lasting_states.demotions(
                intent, question, window, lasting.recent_days
            ).items():
                out.setdefault(edge_id, []).append(lasting_states.explain(bound))
            if lasting.passed_acute:
                for edge_id, over in lasting_states.passed(
                    intent, question, window, as_of, lasting.recent_days
                ).items():
                    out.setdefault(edge_id, []).append(lasting_states.explain_passed(over))
        return out

    def _paired(
        self, merged: list[MergedCandidate], ranked: list[int], pressers: dict[str, set[str]]
    ) -> dict[int, frozenset[int]] | None:
        """The paired demotions by position, if they refill the first places last."""
        if not self._policy.latest_value.paired_refill_last:
            return None
        return _positions_paired(merged, ranked, pressers)

    def settle(
        self,
        user: str,
        intent: Intent,
        qv: np.ndarray,
        merged: list[MergedCandidate],
        ranked: list[int],
        as_of: datetime,
        question: str,
        tier: Set[str] = frozenset(),
    ) -> Settled:
        """The window rules applied to the ranking they produce, until it holds still.

        Each rule judges only the candidates it finds in the first places (`demote_to` for
        `newer_statements` and `pressed_values`, the window for the others). A demotion lifts
        the candidate below it into those places, and masking a withdrawn or passed one
        lifts a candidate from past the window into it: with one pass such a candidate is
        served without any rule having judged it — an older value among the first 5 whose
        newer statement is right there in the window. With `latest_value.judge_lifted` = n the
        rules are asked again, up to n more times, of the ranking as it will be served (the
        masked left out), and what they newly find joins what they found; a pass that finds
        nothing new ends it. A later pass demotes only while the first pass's window keeps
        `demote_to` candidates unmoved (`_keeping`). With n = 0 this is the one pass the
        query path always made. A pure function of the candidate set, the question and
        as_of, like each rule (the passed mentions already judge what their own masking
        lifts, `passed_out`). `tier`: the edge ids of the ranking's first tier, which
        `newer_statements` may read (`low_cosine_versions.tied`)."""
        window, demote_to = self._policy.latest_value.window, self._policy.latest_value.demote_to
        moved_why: dict[str, list[str]] = {}
        gone: dict[str, withdrawn.Withdrawn] = {}
        past: dict[str, passed_mentions.Passed] = {}
        view, served, first = ranked, ranked, True
        judged = frozenset(merged[i].record.edge_id for i in ranked[:window])
        # The first places the first pass judged: a later pass leaves them as it found them.
        seen_first = frozenset(merged[i].record.edge_id for i in ranked[:demote_to])
        # The demoted block's order only for a question that asks which value holds now (its
        # NOW words, or a simple-present do-question about the asker): newest first, and the
        # older of a pair last. Every order inside the demoted block cost LoCoMo dev recall@5
        # ungated: newest first 0.608 -> 0.600 (round 24), the paired last 0.606 -> 0.603
        # (round 25: third-person questions whose evidence a later remark on the topic pressed).
        holds_now = self._holds_now(question, intent, qv)
        told = (
            (lambda i: merged[i].record.edge.ingest_time)
            if self._policy.latest_value.demoted_newest_first and holds_now
            else None
        )
        # Older of a pair → its pressers, kept across passes: they refill the first places
        # last (`latest_value.paired_refill_last`, `demoted_refill`).
        pressers: dict[str, set[str]] = {}
        # A marked presser found past the window → the candidate it leads (`deeper_lift`).
        lifters: dict[str, str] = {}
        # Older → newer pairs the bracketing rule reads, kept across passes.
        brackets: dict[str, str] = {}
        for _ in range(1 + self._policy.latest_value.judge_lifted):
            found_pressers: dict[str, set[str]] = {}
            found_lifters: dict[str, str] = {}
            found_leaders: dict[str, set[str]] = {}
            fresh = {
                k: v
                for k, v in self.moved_down(
                    user, intent, qv, merged, view, as_of, question, not first, tier,
                    found_pressers, lifters=found_lifters, brackets=brackets,
                    leaders=found_leaders,
                ).items()
                if k not in moved_why
            }  # fmt: skip
            if not first:
                fresh = {k: v for k, v in fresh.items() if k not in seen_first}
                shown_ids = [merged[i].record.edge_id for i in view[:window]]
                if self._policy.latest_value.keeping_by_closeness:
                    # the surest older versions first: nearest the statement that leads them
                    shown_ids = keeping_order.by_closeness(
                        shown_ids,
                        fresh.keys(),
                        found_leaders,
                        {m.record.edge_id: m.vector for m in merged},
                    )
                fresh = _keeping(fresh, shown_ids, judged, moved_why.keys(), demote_to)
            first = False
            moved_why.update(fresh)
            for k in fresh:
                if k in found_pressers:
                    pressers.setdefault(k, set()).update(found_pressers[k])
            for by, led in found_lifters.items():
                if led in fresh:
                    lifters.setdefault(by, led)
            moved = {i for i in ranked if merged[i].record.edge_id in moved_why}
            paired = self._paired(merged, ranked, pressers) if holds_now else None
            masked = {i for i in ranked if merged[i].record.edge_id in gone.keys() | past.keys()}
            order = latest_value.mask(ranked, masked, moved, window, demote_to, told, paired)
            shown = [i for i in order if i not in masked]
            found_gone = {
                k: v
                for k, v in self.withdrawn(user, intent, merged, shown, as_of, question).items()
                if k not in gone
            }
            found_past = {
                k: v
                for k, v in self.passed_out(user, intent, merged, shown, as_of).items()
                if k not in past
            }
            gone.update(found_gone)
            past.update(found_past)
            masked = {i for i in ranked if merged[i].record.edge_id in gone.keys() | past.keys()}
            served = latest_value.mask(ranked, masked, moved, window, demote_to, told, paired)
            if not (fresh or found_gone or found_past):
                break
            view = [i for i in served if i not in masked]
        if lifters and holds_now and self._policy.latest_value.deeper_marked_lifts:
            ids = [m.record.edge_id for m in merged]
            moved = {i for i in served if ids[i] in moved_why}
            served, lifted = deeper_lift.lift(
                [i for i in served if ids[i] not in gone.keys() | past.keys()],
                ids, lifters, moved, window, demote_to,
            )  # fmt: skip
            served += [i for i in ranked if ids[i] in gone.keys() | past.keys()]
            for edge_id, led in lifted.items():
                moved_why.setdefault(edge_id, []).append(deeper_lift.explain(led))
        if intent in withdrawn.LIFT_INTENTS:
            found = self.withdrawn(user, intent, merged, served, as_of, question, lift=True)
            served, lifted = given_up.lift(served, merged, found, window)
            for edge_id, by in lifted.items():
                moved_why.setdefault(edge_id, []).append(given_up.explain(by))
        return Settled(served, moved_why, gone, past)


def _positions_paired(
    merged: list[MergedCandidate], ranked: list[int], pressers: dict[str, set[str]]
) -> dict[int, frozenset[int]]:
    """Position of each candidate moved as the older of a pair → its pressers' positions (a
    presser past the ranking has none: the candidate is paired all the same)."""
    at = {merged[i].record.edge_id: i for i in ranked}
    return {at[k]: frozenset(at[p] for p in by if p in at) for k, by in pressers.items() if k in at}


def _keeping(
    fresh: dict[str, list[str]],
    window: list[str],
    judged: Set[str],
    moved: Set[str],
    demote_to: int,
) -> dict[str, list[str]]:
    """The newly found demotions of a later pass of `WindowRules.settle`, in window order,
    while more than `demote_to` candidates of the first pass's window (`judged`) stand
    unmoved in the window: each demotion lifts the next one into the first places, and
    with fewer `reorder` lets a demoted candidate fill them again in its old order (the
    oldest, best-matching value back on top; round 18 measured the same of chained
    versions without such a cap, docs/extraction.md), or brings up one that no rule ever
    had in its window (masking lifts past it)."""
    kept = sum(1 for edge_id in window if edge_id in judged and edge_id not in moved)
    out: dict[str, list[str]] = {}
    for edge_id in window:
        if edge_id in fresh and kept > demote_to:
            out[edge_id] = fresh[edge_id]
            kept -= edge_id in judged
    return out


def _attribute_classifier(
    embedder: Embedder, rule: LatestValuePolicy
) -> tuple[AttributeClassifier, LatestValuePolicy]:
    """The classifier the latest-value rule reads, with its thresholds: the trained probe if
    the policy asks for it and the vectors are the ones it was trained on, else prototypes."""
    if rule.classifier == "probe" and default_probe().model_id == embedder.model_id:
        return default_probe(), rule.thresholds()
    return PrototypeClassifier(embedder, default_table()), rule.model_copy(
        update={"classifier": "prototypes"}
    )
