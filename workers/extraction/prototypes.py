"""Category and slot attribute of a fact from its embedding: nearest prototypes (issue 11).

Rules can find *that* a clause states a value ("… is my thing now", "I've been really into
…", "… had to go") without knowing what the value is about. What it is about — the behavioral
category (paper §3.1: classify the fact, not the utterance, §3.2) and, for facts whose slot the
rules cannot name, the slot attribute (Appendix F: a normalized (subject, attribute) key) —
is decided here by similarity to prototype statements written from the paper's definitions
and examples (`prototypes.toml`), with the product's own offline embedder: wording the rules
have never seen still lands near the prototype it means.

The classifier reads the vector the fact is stored with, so it costs no embedding of its own
(`workers/extraction/stage.py` classifies after the batch is embedded).
"""

from __future__ import annotations

import re
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from schemas.categories import Category
from workers.extraction.clauses import head_noun
from workers.extraction.lexicon import PETS
from workers.extraction.slots import plan_topic
from workers.ports import Embedder

#: A fact whose nearest attribute prototype is less similar than this keeps no slot key (the
#: lifecycle's slot association may still place it). Measured: docs/extraction.md.
ATTRIBUTE_MIN = 0.55
#: The nearest attribute must beat the nearest *other* attribute by this much.
ATTRIBUTE_MARGIN = 0.02
#: A second category within this similarity of the first shares the fact (§3.1 soft
#: membership, 0.8 / 0.2 as the pattern families do).
SECOND_CATEGORY = 0.03


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    slot: str  # "user.diet", or a template: "hobby.{head}"
    category: Category


@dataclass(frozen=True, slots=True)
class Verdict:
    categories: dict[Category, float]
    attribute: Attribute | None
    similarity: float  # of the nearest attribute prototype (0 when none)
    #: The best similarity to each category's and each attribute's prototypes.
    category_scores: Mapping[Category, float]
    attribute_scores: Mapping[str, float]
    #: The best similarity to each category's own examples (attribute examples left out):
    #: what kind of statement this is, apart from which attribute's words it shares.
    kind_scores: Mapping[Category, float] = field(default_factory=dict)

    def slot_for(self, value: str | None) -> str | None:
        """The attribute's slot key; per-item attributes take the value's head noun."""
        if self.attribute is None:
            return None
        if "{" not in self.attribute.slot:
            return self.attribute.slot
        if "{species}" in self.attribute.slot:  # "golden retriever litters" → a dog
            species = next((PETS[w] for w in re.findall(r"[a-z]+", (value or "").lower())
                            if w in PETS), None)  # fmt: skip
            return self.attribute.slot.format(species=species) if species else None
        if "{topic}" in self.attribute.slot:  # "a book proposal", "the book": one plan
            topic = plan_topic(value or "")
            return self.attribute.slot.format(topic=topic) if topic else None
        head = _singular(head_noun(value or ""))
        return self.attribute.slot.format(head=head) if head else None


@dataclass(frozen=True, slots=True)
class Table:
    """The prototype statements: (text, category, attribute or None) each."""

    texts: tuple[str, ...]
    categories: tuple[Category, ...]
    attributes: tuple[Attribute | None, ...]


@cache
def default_table() -> Table:
    raw = resources.files("workers.extraction").joinpath("prototypes.toml").read_text("utf-8")
    return parse_table(tomllib.loads(raw))


def parse_table(doc: Mapping[str, object]) -> Table:
    texts: list[str] = []
    cats: list[Category] = []
    attrs: list[Attribute | None] = []
    categories = doc.get("categories", {})
    attributes = doc.get("attributes", {})
    assert isinstance(categories, dict) and isinstance(attributes, dict)
    for cat, body in categories.items():
        for text in body["examples"]:
            texts.append(text)
            cats.append(Category(cat))
            attrs.append(None)
    for name, body in attributes.items():
        attribute = Attribute(name, body["slot"], Category(body["category"]))
        for text in body["examples"]:
            texts.append(text)
            cats.append(attribute.category)
            attrs.append(attribute)
    return Table(tuple(texts), tuple(cats), tuple(attrs))


class PrototypeClassifier:
    """Nearest-prototype category and attribute for fact vectors of one embedder.

    The prototypes are embedded on first use (once per process and embedder model); nothing
    is downloaded. Vectors must come from the same embedder.
    """

    def __init__(self, embedder: Embedder, table: Table | None = None) -> None:
        self._embedder = embedder
        self._table = table or default_table()
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()

    def _prototypes(self) -> np.ndarray:
        if self._matrix is None:
            with self._lock:
                if self._matrix is None:
                    self._matrix = _embedded(self._embedder, self._table)
        return self._matrix

    def classify(self, vectors: np.ndarray) -> list[Verdict]:
        if len(vectors) == 0:
            return []
        sims = np.asarray(vectors, dtype=np.float32) @ self._prototypes().T
        groups = _groups(self._table)
        # The best similarity per category / category example / attribute, for every row at
        # once (the classifier runs on every turn without facts: no Python loop per prototype).
        best = [(key, sims[:, idx].max(axis=1).tolist()) for key, idx in groups.categories]
        kinds = [(key, sims[:, idx].max(axis=1).tolist()) for key, idx in groups.kinds]
        attrs = [(a, sims[:, idx].max(axis=1).tolist()) for a, idx in groups.attributes]
        return [
            self._verdict(
                {c: col[i] for c, col in best},
                {c: col[i] for c, col in kinds},
                [(col[i], a) for a, col in attrs],
            )
            for i in range(len(sims))
        ]

    def _verdict(
        self,
        best_cat: dict[Category, float],
        kind: dict[Category, float],
        best_attr: list[tuple[float, Attribute]],
    ) -> Verdict:
        ranked = sorted(best_attr, key=lambda x: (-x[0], x[1].name))
        attribute: Attribute | None = None
        similarity = 0.0
        if ranked:
            similarity = ranked[0][0]
            runner_up = ranked[1][0] if len(ranked) > 1 else -1.0
            if similarity >= ATTRIBUTE_MIN and similarity - runner_up >= ATTRIBUTE_MARGIN:
                attribute = ranked[0][1]
        scores = {a.name: score for score, a in best_attr}
        if attribute is not None:
            return Verdict({attribute.category: 1.0}, attribute, similarity, best_cat, scores, kind)
        return Verdict(mix(best_cat), None, similarity, best_cat, scores, kind)

    def attribute_of_slot(self, slot: str) -> Attribute | None:
        """The attribute whose (non-template) slot key is `slot`."""
        return next((a for a in self._table.attributes if a and a.slot == slot), None)


@dataclass(frozen=True, slots=True)
class _Groups:
    """Row indices of a table's prototypes: per category, per category's own examples, per
    attribute (in first-appearance order, as the table lists them)."""

    categories: list[tuple[Category, np.ndarray]]
    kinds: list[tuple[Category, np.ndarray]]
    attributes: list[tuple[Attribute, np.ndarray]]


@cache
def _groups(table: Table) -> _Groups:
    cats: dict[Category, list[int]] = {}
    kinds: dict[Category, list[int]] = {}
    attrs: dict[str, tuple[Attribute, list[int]]] = {}
    for i, (cat, attr) in enumerate(zip(table.categories, table.attributes, strict=True)):
        cats.setdefault(cat, []).append(i)
        if attr is None:
            kinds.setdefault(cat, []).append(i)
        else:
            attrs.setdefault(attr.name, (attr, []))[1].append(i)
    return _Groups(
        [(c, np.array(i)) for c, i in cats.items()],
        [(c, np.array(i)) for c, i in kinds.items()],
        [(a, np.array(i)) for a, i in attrs.values()],
    )


def mix(scores: Mapping[Category, float]) -> dict[Category, float]:
    """Soft membership from category similarities: the best, and a close second (§3.1)."""
    order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0].value))
    (first, s1), (second, s2) = order[0], order[1]
    if s1 - s2 <= SECOND_CATEGORY and second is not Category.OTHER:
        return {first: 0.8, second: 0.2}
    return {first: 1.0}


_MODELS: dict[tuple[str, int], np.ndarray] = {}
_MODELS_LOCK = threading.Lock()


def _embedded(embedder: Embedder, table: Table) -> np.ndarray:
    """The prototypes' vectors, computed once per process for each (model, table)."""
    key = (embedder.model_id, hash(table.texts))
    with _MODELS_LOCK:
        found = _MODELS.get(key)
    if found is None:
        found = np.asarray(embedder.embed(list(table.texts)), dtype=np.float32)
        with _MODELS_LOCK:
            _MODELS[key] = found
    return found


def _singular(word: str) -> str:
    """A crude singular for slot heads ("tours" / "tour" are one slot)."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not re.search(r"(?:ss|us|is)$", word):
        return word[:-1]
    return word


def is_semantic(embedder: Embedder) -> bool:
    """Whether similarity under `embedder` means anything (the hashing test double does not)."""
    return not embedder.model_id.startswith("hashing")
