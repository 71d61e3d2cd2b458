"""Category routing ρ(c|q): an offline classifier of which categories a query is about.

Similarity of the query to a few prototype sentences per category (embedded once, lazily,
with the deployment's own embedder), sharpened by a softmax and nudged by keyword cues.
The paper routes with its classifier LLM (§3.3); this needs neither an LLM nor training.
"""

from __future__ import annotations

import re
import threading

import numpy as np

from schemas.categories import CATEGORY_ORDER, Category
from workers.ports import Embedder

C = Category
PROTOTYPES: dict[Category, tuple[str, ...]] = {
    C.IDENTITY_SELF_CONCEPT: (
        "Where do I live? What city am I in?",
        "What is my job, where do I work, what is my profession?",
        "What is my name, age, nationality?",
        # Table 1's Identity example is an employer ("Works at Google"); faith is part of
        # the self-concept too.
        "Which company employs me, who is my employer?",
        "What is my religion or faith?",
    ),
    C.RELATIONAL_BONDS: (
        "Who is my partner, am I dating anyone, am I married?",
        "Tell me about my family, my kids, my friends.",
    ),
    C.INTELLECTUAL_INTERESTS: (
        "What subjects am I interested in learning about?",
        "What topics do I read about and study?",
    ),
    C.HEALTH_WELLBEING: (
        "Do I have any health conditions, allergies or illnesses?",
        "What medication do I take, how is my health?",
    ),
    C.PROJECTS_ENDEAVORS: (
        "What projects am I working on, what is their status?",
        "Did I finish my thesis, my application, my side project?",
    ),
    C.HOBBIES_RECREATION: (
        "What are my hobbies, what do I do for fun?",
        "Which sports or games do I play in my free time?",
    ),
    C.PREFERENCES_HABITS: (
        "What food do I like, what is my diet?",
        "What are my preferences and daily habits, my favorite things?",
    ),
    C.FINANCIAL_MATERIAL: (
        "How much is my rent, my salary, my savings?",
        "How much did it cost, what do I pay per month?",
    ),
    C.OBLIGATIONS: (
        "What appointments, deadlines or commitments do I have?",
        "When is my exam, my dentist appointment, my deadline?",
    ),
    C.LOGISTICAL_CONTEXT: (
        "When is my flight, where am I traveling, what is the plan for today?",
        "Where is the meeting, what time do I leave, when does the delivery arrive?",
    ),
    C.OTHER: ("Tell me something else about me.",),
}

_KEYWORDS: dict[Category, re.Pattern[str]] = {
    C.FINANCIAL_MATERIAL: re.compile(
        r"\b(rent|salary|pay|paid|cost|price|\$|money|savings|budget|mortgage)\b", re.I
    ),
    C.LOGISTICAL_CONTEXT: re.compile(
        r"\b(flight|train|trip|travel|hotel|delivery|pick ?up)\b", re.I
    ),
    C.OBLIGATIONS: re.compile(r"\b(appointment|deadline|due|exam|meeting|interview)\b", re.I),
    C.HEALTH_WELLBEING: re.compile(
        r"\b(health|allerg\w*|diagnos\w*|medication|doctor|sick|condition)\b", re.I
    ),
    C.RELATIONAL_BONDS: re.compile(
        r"\b(partner|girlfriend|boyfriend|wife|husband|married|dating|friend|mom|dad|sister|"
        r"brother)\b",
        re.I,
    ),
    C.PREFERENCES_HABITS: re.compile(r"\b(like|prefer|favou?rite|diet|eat|drink|habit)\b", re.I),
    # The attribute's own words: an occupation ("trade", "for a living", "occupation") and
    # an origin ("grow up", "home town", "originally", "born") ask for who the user is as
    # much as "job" and "live" do (round 25: "What's my trade?" routed to Preferences).
    C.IDENTITY_SELF_CONCEPT: re.compile(
        r"\b(live|city|job|work|name|age|profession|occupation|trade|career|for\s+a\s+living"
        r"|gr[eo]w\s+up|brought\s+up|home\s?town|originally|born)\b",
        re.I,
    ),
    C.HOBBIES_RECREATION: re.compile(r"\b(hobby|hobbies|fun|sport|play)\b", re.I),
    C.PROJECTS_ENDEAVORS: re.compile(r"\b(project|thesis|startup|application|building)\b", re.I),
}

#: Softmax temperature over cosine similarities, and the weight of a keyword hit. Ours.
TEMPERATURE = 0.05
KEYWORD_BONUS = 0.05


class CategoryRouter:
    """p(c|q) over `CATEGORY_ORDER`, from prototypes embedded on first use."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self._centroids: np.ndarray | None = None

    def _prototype_matrix(self) -> np.ndarray:
        with self._lock:
            if self._centroids is None:
                rows = []
                for cat in CATEGORY_ORDER:
                    vecs = self._embedder.embed(list(PROTOTYPES[cat]))
                    rows.append(vecs)
                self._centroids = np.stack([r.mean(axis=0) for r in rows])
                norms = np.linalg.norm(self._centroids, axis=1, keepdims=True)
                self._centroids = self._centroids / np.maximum(norms, 1e-12)
            return self._centroids

    def route(self, query: str, query_vector: np.ndarray) -> np.ndarray:
        """Probabilities over categories (sum 1)."""
        sims = self._prototype_matrix() @ np.asarray(query_vector, dtype=np.float64)
        for i, cat in enumerate(CATEGORY_ORDER):
            pattern = _KEYWORDS.get(cat)
            if pattern is not None and pattern.search(query):
                sims[i] += KEYWORD_BONUS
        logits = (sims - sims.max()) / TEMPERATURE
        probs = np.exp(logits)
        return probs / probs.sum()


def top_categories(probs: np.ndarray, n: int = 3) -> dict[Category, float]:
    """The n most likely categories with their probabilities (for results and forcing)."""
    order = np.argsort(-probs)[:n]
    return {CATEGORY_ORDER[i]: round(float(probs[i]), 4) for i in order}
