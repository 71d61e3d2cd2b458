"""The extraction stage's last step: embed a batch of turns' edges, classify provisional facts.

Both deployments call it through `workers.turns.embedded`, where they used to embed (the
embedded pipeline, the distributed extraction agent). One embedder call covers every edge of
the batch; the rule extractor's value-family facts (`ExtractedFact.prototype`: "decide" or
"require") then get their category — and their slot, when the clause named none — from the
vector they are stored with (`prototypes.py`), so classifying costs no embedding of its own.
The raw chunks' categories follow their facts' again.

With an embedder whose similarities mean nothing (the hashing test double), provisional
facts are dropped: the rule extractor then says only what its specific families say.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence, Set

import numpy as np

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, normalize_slot_key, normalize_weights
from workers.embedding.attach import with_embeddings
from workers.extraction import draft as d
from workers.extraction.model import LENDS_NO_CATEGORY, ExtractedFact
from workers.extraction.prototypes import Attribute, PrototypeClassifier, Verdict, is_semantic
from workers.extraction.raw_turns import with_raw_meaning
from workers.extraction.withdrawal_probe import ReadsWithdrawal, is_candidate, unconfirmed
from workers.ports import Embedder

#: A slot a value family named from the clause's own noun ("my phone plan is …") gives way to
#: a classified attribute only when the match is this close (the noun is the better witness).
NOUN_OVERRIDE = 0.75


def embedded_edges(
    turns: Sequence[tuple[Sequence[EdgeEvent], Sequence[ExtractedFact]]],
    embedder: Embedder,
    withdrawal: ReadsWithdrawal | None = None,
) -> list[list[EdgeEvent]]:
    """Each turn's edges (`stage.edges_for_turn`: its facts, then its raw chunks) embedded
    in one call and classified. A candidate withdrawal (`withdrawal_probe`) is left out of
    that call: `withdrawal` reads the raw turn's vector, and only a confirmed candidate's
    text is embedded, in a second call (none in a batch without one)."""
    flat = with_embeddings(
        embedder, [e for edges, facts in turns for e in _embedded_now(edges, facts)]
    )
    semantic = is_semantic(embedder)
    classifier = PrototypeClassifier(embedder) if semantic else None
    out: list[list[EdgeEvent]] = []
    rest = iter(flat)
    for edges, all_facts in turns:
        mine = _merged(edges, all_facts, rest)
        drop = unconfirmed(mine, all_facts, withdrawal)
        facts = [f for f, gone in zip(all_facts, drop, strict=True) if not gone]
        mine = _without(mine, all_facts, drop) if any(drop) else mine
        if classifier is not None:
            mine = _classified(mine, facts, classifier)
        elif not semantic and any(f.prototype in _VALUE_FAMILY for f in facts):
            mine = _without(mine, facts, [f.prototype in _VALUE_FAMILY for f in facts])
        out.append(mine)
    if classifier is not None:
        _raw_classified(out, classifier)
    return _confirmed_embedded(out, embedder)


def _embedded_now(edges: Sequence[EdgeEvent], facts: Sequence[ExtractedFact]) -> list[EdgeEvent]:
    """The edges the batch's one call embeds: all but candidate withdrawals."""
    return [e for i, e in enumerate(edges) if i >= len(facts) or not is_candidate(facts[i])]


def _merged(
    edges: Sequence[EdgeEvent], facts: Sequence[ExtractedFact], rest: Iterator[EdgeEvent]
) -> list[EdgeEvent]:
    """The turn's edges: embedded ones taken from `rest` (the batch's, in order), candidate
    withdrawals as they are."""
    return [
        e if i < len(facts) and is_candidate(facts[i]) else next(rest) for i, e in enumerate(edges)
    ]


def _confirmed_embedded(turns: list[list[EdgeEvent]], embedder: Embedder) -> list[list[EdgeEvent]]:
    """The confirmed withdrawals' own texts, embedded in one call (the rest keep theirs)."""
    if all(e.embedding is not None for edges in turns for e in edges):
        return turns
    flat = iter(with_embeddings(embedder, [e for edges in turns for e in edges]))
    return [[next(flat) for _ in edges] for edges in turns]


#: Facts of the value families: meaningless without a semantic embedder.
_VALUE_FAMILY = ("decide", "require", "pastime", "habit")
#: Where a dated fact may go: it expires with its date (Table 1 rows 9–10).
_EVENT_CATEGORIES = (Category.OBLIGATIONS, Category.LOGISTICAL_CONTEXT)
#: A fact kept only for its attribute ("require": a habit, a plain "I'm …") needs a closer
#: match than one whose construction already says it states a value.
REQUIRED = 0.6
#: A rule's slot gives way when a different attribute matches this much better.
CHECK_MARGIN = 0.1
#: A habitual activity (`patterns_pastimes`) stays a Hobbies fact unless the prototypes read
#: it as another kind by more than this: its best similarity to another behavioural
#: category's own examples (`Verdict.kind_scores`) beats Hobbies' by > 0.15. Measured on the
#: paper-turn tellings' 23 readings (docs/extraction.md, round 24): the prototypes read
#: pastimes told in their own words as other kinds by up to 0.13 (a choir joined, a
#: telescope bought, "Evenings: accordion"), an acute illness ("lying on the sofa for two
#: days") by 0.18.
PASTIME_MARGIN = 0.15


def _classified(
    edges: list[EdgeEvent], facts: Sequence[ExtractedFact], classifier: PrototypeClassifier
) -> list[EdgeEvent]:
    """The turn's edges with its facts classified (facts come first, in order)."""
    todo = [i for i, f in enumerate(facts) if f.prototype is not None and not is_candidate(f)]
    if not todo:
        return edges
    vectors = [edges[i].embedding for i in todo]
    verdicts = classifier.classify(np.stack([v.to_array() for v in vectors if v is not None]))
    out: list[EdgeEvent | None] = list(edges)
    for i, verdict in zip(todo, verdicts, strict=True):
        edge = edges[i]
        if facts[i].prototype in ("check", "passing"):
            siblings = {f.slot_key for j, f in enumerate(facts) if j != i and f.slot_key}
            out[i] = _checked(edge, verdict, classifier, siblings)
        else:
            out[i] = _decided(edge, facts[i], verdict)
    kept = [e if e is not None else edges[i] for i, e in enumerate(out)]
    return _without(kept, facts, [out[i] is None for i in range(len(facts))])


def _raw_classified(turns: list[list[EdgeEvent]], classifier: PrototypeClassifier) -> None:
    """Turns without facts, in place: what their raw turn's vector and dates say
    (`raw_turns`), classified in one call for the batch."""
    todo = [
        i
        for i, edges in enumerate(turns)
        if len(edges) == 1 and edges[0].episodic and edges[0].embedding is not None
    ]
    if not todo:
        return
    vectors = np.stack([e.to_array() for i in todo if (e := turns[i][0].embedding) is not None])
    for i, verdict in zip(todo, classifier.classify(vectors), strict=True):
        turns[i] = with_raw_meaning(turns[i], [verdict])


def _without(
    edges: list[EdgeEvent], facts: Sequence[ExtractedFact], drop: Sequence[bool]
) -> list[EdgeEvent]:
    """The turn's edges without the fact edges flagged in `drop`; its raw chunks no longer
    point at them, and take their categories from the facts that remain."""
    dropped = {edges[i].edge_id for i, flag in enumerate(drop) if flag}
    fact_edges = [e for i, e in enumerate(edges[: len(facts)]) if not drop[i]]
    # a pastime or an identity told in passing lends the raw turn no category
    # (`stage._mixed_categories`)
    lending = [
        e
        for i, e in enumerate(edges[: len(facts)])
        if not drop[i] and facts[i].prototype not in LENDS_NO_CATEGORY
    ]
    mixed = _mixed(lending) if lending else {Category.OTHER: 1.0}
    said = bool(lending) and all(e.kind_said for e in lending)
    final = list(fact_edges)
    for raw in edges[len(facts) :]:
        if raw.episodic and raw.episodic_of:
            kept = tuple(x for x in raw.episodic_of if x not in dropped)
            raw = raw.model_copy(
                update={"categories": mixed, "episodic_of": kept, "kind_said": said}
            )
        final.append(raw)
    return final


def _decided(edge: EdgeEvent, fact: ExtractedFact, verdict: Verdict) -> EdgeEvent | None:
    """A value family's fact: category, and slot when its clause named none, from prototypes."""
    if fact.prototype == "pastime":
        return edge if _reads_as_pastime(verdict) else None
    slot = fact.slot_key
    attribute = verdict.attribute
    categories = verdict.categories
    if edge.event_time is not None:
        # A dated statement is an appointment or a plan whatever it is about.
        best = max(_EVENT_CATEGORIES, key=lambda c: verdict.category_scores.get(c, -1.0))
        categories, attribute = {best: 1.0}, None
    elif fact.prototype in ("require", "habit") and verdict.similarity < REQUIRED:
        # a habit or a state worth keeping only as a known attribute — or as a pastime
        return (
            _as_pastime(edge) if fact.prototype == "habit" and _reads_as_pastime(verdict) else None
        )
    elif attribute is not None and "{" in attribute.slot and slot is not None:
        slot = verdict.slot_for(slot.rsplit(".", 1)[-1]) or slot  # "my garden …" → hobby.garden
    elif attribute is not None and (
        slot is None or verdict.similarity >= NOUN_OVERRIDE or _names(slot, attribute)
    ):
        slot = verdict.slot_for(fact.value) or slot
    if slot is None and fact.prototype in ("require", "habit"):
        return (
            _as_pastime(edge) if fact.prototype == "habit" and _reads_as_pastime(verdict) else None
        )
    update = fact.update
    per_item = attribute is not None and "{" in attribute.slot
    if per_item and update is UpdateSemantics.REPLACE and fact.confidence < d.COMMITTED:
        # A hobby, an interest, a condition: stating one does not replace another.
        update = UpdateSemantics.ACCUMULATE
    return edge.model_copy(
        update={
            "categories": normalize_weights({c.value: w for c, w in categories.items()}),
            "slot_key": normalize_slot_key(slot) if slot else None,
            "update": update,
            "kind_said": _names_one_value(attribute, slot),
        }
    )


def _names_one_value(attribute: Attribute | None, slot: str | None) -> bool:
    """Whether a value family's fact is a known single-valued attribute's (a home, a drink, an
    employer, a car: `EdgeEvent.kind_said`) — its kind is that attribute's, one value at a time,
    never an item of a set — not a category the prototypes' examples mixed nor a per-item
    template's ("hobby.{head}", "health.{head}": items of a set, read as whatever kind is
    nearest)."""
    return attribute is not None and "{" not in attribute.slot and slot == attribute.slot


def _as_pastime(edge: EdgeEvent) -> EdgeEvent:
    """A habit that names no attribute, as the pastime its clause tells (`patterns_pastimes`):
    Hobbies, slot-less, additive (A.7.2)."""
    return edge.model_copy(
        update={
            "categories": normalize_weights({Category.HOBBIES_RECREATION.value: 1.0}),
            "slot_key": None,
            "update": UpdateSemantics.ACCUMULATE,
            "confidence": min(edge.confidence, d.STATED),
        }
    )


def _reads_as_pastime(verdict: Verdict) -> bool:
    """Whether the prototypes do not clearly read a habitual activity as another kind."""
    kinds = verdict.kind_scores
    hobby = kinds.get(Category.HOBBIES_RECREATION)
    others = [s for c, s in kinds.items() if c not in (Category.HOBBIES_RECREATION, Category.OTHER)]
    if hobby is None or not others:
        return True
    return max(others) - hobby <= PASTIME_MARGIN


def _names(slot: str, attribute: Attribute) -> bool:
    """Does a value family's own noun slot name the nearest attribute ("the rent on our flat
    is …" → price.rent, nearest attribute rent → user.rent)? Then the slot is the attribute's,
    however far the statement's wording sits from its prototypes: two statements of one
    attribute must meet in one slot for the newer to supersede the older (Table 1)."""
    if "{" in attribute.slot:
        return False
    return slot.rsplit(".", 1)[-1] == attribute.slot.rsplit(".", 1)[-1]


def _checked(
    edge: EdgeEvent,
    verdict: Verdict,
    classifier: PrototypeClassifier,
    siblings: Set[str] = frozenset(),
) -> EdgeEvent:
    """A rule family's fact keeps its slot unless the prototypes clearly name another
    attribute ("I've moved to the United Church of Christ" is a church, not a city).

    Not when a rule already stated that other attribute in the same turn (`siblings`): a
    clause that holds two ("I've been the chaplain at Cumberland Hospice") gives each fact
    its whole text, so the classifier reads the sibling's words ("chaplain") in the
    employer's fact."""
    own = classifier.attribute_of_slot(edge.slot_key or "")
    best = verdict.attribute
    if own is None or best is None or best.name == own.name or best.slot in siblings:
        return edge
    margin = verdict.similarity - verdict.attribute_scores.get(own.name, -1.0)
    if verdict.similarity < NOUN_OVERRIDE or margin < CHECK_MARGIN:
        return edge
    slot = verdict.slot_for(edge.value)
    if slot is None:
        return edge
    return edge.model_copy(
        update={
            "categories": normalize_weights({best.category.value: 1.0}),
            "slot_key": normalize_slot_key(slot),
            # the prototypes' reading now: said only as a single-valued attribute's
            "kind_said": _names_one_value(best, slot),
        }
    )


def _mixed(facts: Sequence[EdgeEvent]) -> dict[Category, float]:
    """The raw turn's soft membership, as `stage.edges_for_turn` computes it."""
    total: dict[Category, float] = defaultdict(float)
    for fact in facts:
        for cat, w in fact.categories.items():
            total[cat] += w / len(facts)
    return normalize_weights({c.value: w for c, w in total.items()})
