"""A question for a set (AV5, broad aggregation): one place per item in the window.

"List all my pastimes", "What languages do I speak?" pass only when every item is served
(LifecycleBench's `all` mode, paper C.5; A.7.2: the items of one kind accumulate). Round 17
read every failing AV5 phrasing of heldout3–9 by class (docs/extraction.md, "Round 17"):
most items are told in their own words and yield no fact, so their raw turns are stored as
Other and sit just below the window by similarity, while a fact and its verbatim raw turn —
one item — take two of its places. Without reading any item's wording:

* **One place per source turn.** Among the places after the first `demote_to` (the top 5
  stays the lifecycle ranking's, as for every window rule), a record whose source turns are
  all served above it gives its place up (it follows the window).
* **The freed places go to the asked kind.** The extractor's prototype examples of each
  behavioural category (`workers/extraction/prototypes.toml`, written from the paper's
  definitions, §3.1) say what a statement of that kind is. The candidates after the served k
  take the freed places by σ + `kind_weight` · *kind margin* for the routed category (§3.3):
  the candidate's best similarity to that category's examples minus its best similarity to
  any other behavioural category's (Other left out: it is the absence of a kind). A turn
  about carving is nearer Hobbies than anything else; a rota is not.

* **Chatter yields its place** (round 20). A fact-less raw turn stored as Other whose own
  vector is nearest the Other prototypes ("said thanks", "asked for a recipe": the turn states
  nothing of any kind about the user, `chatter_of`) also gives its window place up —
  but stays a taker: it keeps the place when no candidate after the window beats its
  σ + `kind_weight` · kind margin. Items of a concrete kind, even one the prototypes read
  as another kind than the asked one, keep their places (what lost validation phrasings in
  round 18, below). So does such a turn whose every sentence asks (`states_nothing`: "is
  this cream any good for dry hands?") — a question states no fact (`patterns_guard`); a
  pastime told inside a question keeps its place unless a candidate beats it.

Evicting window items that are no duplicate in favour of the asked kind reached more
phrasings but lost others whose item the prototypes read as another kind (measured, left
out: docs/extraction.md). A set question is `asks_for_set`: `newer_statements.asks_for_many`
(all/every/list/names/each, or a plural noun after what/which) or a possessed plural after
"what are/were" ("What are her hobbies?"), a closed grammatical test — unless its words
place it in the present (`newer_statements.asks_now`): "What tours do I guide now?" asks
which items replaced the earlier ones (A.7.3), and there an earlier item is stale, not one
more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set

import numpy as np

from schemas.categories import Category
from workers.extraction.clauses import sentences
from workers.extraction.patterns_guard import statement_part
from workers.extraction.prototypes import PrototypeClassifier
from workers.query.candidates import MergedCandidate
from workers.query.newer_statements import asks_for_many, asks_now

#: "what are my/his/her/their/your/our/<name>'s <plural noun>": the possessed plural.
_POSSESSED_PLURAL = re.compile(
    r"\bwhat\s+(?:are|were)\s+(?:all\s+(?:of\s+)?)?(?:my|his|her|their|your|our|\w+['’]s?)\s+"
    r"(?:[\w-]+\s+)?[a-z]+[^su\W]s\b",
    re.I,
)


def asks_for_set(question: str) -> bool:
    """Whether the question asks for every item of a kind, not one value — and not which
    items hold now against before ("What tours do I guide now?": A.7.3, the lifecycle's
    question, where an earlier item is stale, not one more)."""
    if asks_now(question):
        return False
    return asks_for_many(question) or _POSSESSED_PLURAL.search(question) is not None


def kind_margins(
    classifier: PrototypeClassifier, vectors: np.ndarray, category: Category
) -> np.ndarray:
    """Per row: similarity to `category`'s own examples minus the best other behavioural
    category's (`Verdict.kind_scores`; Other is no kind)."""
    out = np.zeros(len(vectors), dtype=np.float64)
    for i, verdict in enumerate(classifier.classify(vectors)):
        scores = verdict.kind_scores
        own = scores.get(category)
        others = [s for c, s in scores.items() if c not in (category, Category.OTHER)]
        if own is not None and others:
            out[i] = own - max(others)
    return out


def chatter_margins(classifier: PrototypeClassifier, vectors: np.ndarray) -> np.ndarray:
    """Per row: similarity to the Other examples (a turn that states nothing of a kind: thanks,
    a request, the weather) minus the best behavioural category's (`Verdict.kind_scores`)."""
    out = np.full(len(vectors), -1.0, dtype=np.float64)
    for i, verdict in enumerate(classifier.classify(vectors)):
        scores = verdict.kind_scores
        other = scores.get(Category.OTHER)
        kinds = [s for c, s in scores.items() if c is not Category.OTHER]
        if other is not None and kinds:
            out[i] = other - max(kinds)
    return out


def is_factless_other(candidate: MergedCandidate) -> bool:
    """A raw turn nothing was extracted from and that no kind was read in (stored as Other)."""
    edge = candidate.record.edge
    return edge.episodic and edge.primary_category is Category.OTHER


def margins_of(
    merged: Sequence[MergedCandidate], classifier: PrototypeClassifier, category: Category
) -> dict[int, float]:
    """The kind margin of every candidate with a stored vector, by position in `merged`."""
    rows = [i for i, m in enumerate(merged) if m.vector is not None]
    if not rows:
        return {}
    vectors = np.stack([np.asarray(merged[i].vector, dtype=np.float32) for i in rows])
    found = kind_margins(classifier, vectors, category)
    return {i: float(x) for i, x in zip(rows, found, strict=True)}


def states_nothing(text: str) -> bool:
    """Every sentence of the turn asks (`patterns_guard.statement_part`: a question states no
    fact; a statement with a question tagged on keeps its statement)."""
    return all(statement_part(s) is None for s in sentences(text))


def chatter_of(
    merged: Sequence[MergedCandidate],
    positions: Sequence[int],
    classifier: PrototypeClassifier,
    min_margin: float,
    questions: bool,
) -> set[int]:
    """Of `positions` (the window's places after the top 5), the fact-less Other raw turns whose
    vector is nearer the Other examples than any behavioural kind's by at least `min_margin`,
    and (`questions`) those whose every sentence asks: chatter, which yields its place to a set
    question's items (`fill_window`)."""
    rows = [i for i in positions if is_factless_other(merged[i])]
    asking = {i for i in rows if questions and states_nothing(merged[i].record.edge.text)}
    read = [i for i in rows if i not in asking and merged[i].vector is not None]
    if not read:
        return asking
    vectors = np.stack([np.asarray(merged[i].vector, dtype=np.float32) for i in read])
    found = chatter_margins(classifier, vectors)
    return asking | {i for i, x in zip(read, found, strict=True) if x >= min_margin}


def said_other_kind(
    merged: Sequence[MergedCandidate], positions: Sequence[int], kind: Category
) -> set[int]:
    """Of `positions` (the window's places after the top 5), the records of another concrete
    kind than the asked one whose kind the extractor said itself (`EdgeEvent.kind_said`: a
    family that knows what it looks for — a home, an employer, a drink, a car — or a raw turn
    all of whose facts are such): a drink is no hobby whatever the prototypes make of its
    words. They yield their place as chatter does and compete for it again by σ + kind_weight ·
    kind margin (`fill_window`). A category the prototypes decided keeps its place: a pastime
    a value family told as a vice or a sore hand is read as another kind (round 26)."""
    out: set[int] = set()
    for i in positions:
        edge = merged[i].record.edge
        category = edge.primary_category
        if edge.kind_said and category not in (kind, Category.OTHER):
            out.add(i)
    return out


def turns_told_again(
    ranked: Sequence[int], merged: Sequence[MergedCandidate], kind: Category, keep: int
) -> set[int]:
    """Of the first `keep` places, the raw turns one of whose drawn facts — slot-less, of the
    asked kind: a pastime read from the turn at ingest (`patterns_pastimes`) — is served above
    them. The fact and its verbatim turn are one item of the set; the turn, raised by its own
    words, would take a second of the first places (round 24)."""
    served: set[str] = set()
    out: set[int] = set()
    for i in ranked[:keep]:
        edge = merged[i].record.edge
        if edge.episodic and served & set(edge.episodic_of):
            out.add(i)
        elif not edge.episodic and edge.slot_key is None and edge.primary_category is kind:
            served.add(edge.edge_id)
    return out


def fill_window(
    ranked: Sequence[int],
    merged: Sequence[MergedCandidate],
    admissible: Callable[[int], bool],
    margins: Mapping[int, float],
    weight: float,
    keep: int,
    k: int,
    chatter: Set[int] = frozenset(),
) -> tuple[list[int], set[str]]:
    """The first `keep` places as ranked; of places keep+1 … k, each record whose source turns
    are all served above it (a fact after its verbatim turn, or the reverse: one item of the
    set) gives its place up, and so does each record in `chatter` (a turn stating nothing of a
    kind: it stays a taker); the others keep theirs. The freed places go to the admissible
    candidates after the first k and the yielding chatter by σ + weight · kind margin (ranked
    order on ties), one per source turn; then the rest as ranked. And the edge ids placed by
    kind (a chatter turn that wins its place back is not one)."""
    head = list(ranked[:keep])
    seen = {t for i in head for t in merged[i].record.edge.source_turns}
    kept: list[int] = []
    freed: list[int] = []
    yielded: list[int] = []
    for i in ranked[keep:k]:
        turns = set(merged[i].record.edge.source_turns)
        if turns and turns <= seen:
            freed.append(i)
        elif i in chatter:
            yielded.append(i)
        else:
            kept.append(i)
            seen |= turns
    position = {i: n for n, i in enumerate(ranked)}
    # Any admissible candidate, the asked kind first: requiring a positive kind margin (review
    # r17 M3, against chatter taking a freed place) lost heldout2's (development) item whose
    # kind the prototypes misread.
    pool = sorted(
        [*yielded, *(i for i in ranked[k:] if admissible(i))],
        key=lambda i: (-(merged[i].sigma + weight * margins.get(i, 0.0)), position[i]),
    )
    taken: list[int] = []
    for i in pool:
        if len(taken) >= len(freed) + len(yielded):
            break
        turns = set(merged[i].record.edge.source_turns)
        if turns and turns <= seen:
            continue
        taken.append(i)
        seen |= turns
    chosen = set(taken)
    left = [i for i in yielded if i not in chosen]
    rest = [i for i in ranked[k:] if i not in chosen]
    placed = {merged[i].record.edge_id for i in taken if i not in yielded}
    return head + kept + taken + freed + left + rest, placed


def explain_kind(category: Category, margin: float) -> str:
    return (
        f"a question for a set of {category.value}: placed in the window by its kind "
        f"(margin {margin:+.2f} over any other category's prototypes)"
    )
