"""Direct table tests of intent detection and category routing (failure class 6: neither had
a direct test). Phrasings are ours, written for these tests, not taken from any benchmark."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.policy import load_policy
from schemas.query import QueryRequest
from workers.embedding.hashing import HashingEmbedder
from workers.embedding.minilm import MiniLMEmbedder
from workers.ports import Hit, SearchFilter
from workers.query.intent import detect_intent
from workers.query.routing import CategoryRouter
from workers.query.service import QueryService
from workers.stores.memory_vectors import InMemoryVectorIndex

C = Category


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Where does she live?", Intent.CURRENT),
        ("Is he still seeing Sam?", Intent.CURRENT),
        ("What does she eat these days?", Intent.CURRENT),
        ("What did she use to drink in the morning?", Intent.HISTORICAL),
        ("Where didn't he use to go?", Intent.HISTORICAL),
        # "use to" after a present auxiliary is "use (a thing) to": the present (round 20).
        ("What does he use to get around now?", Intent.CURRENT),
        ("Which app do I use to track my runs?", Intent.CURRENT),
        ("Where did he work before the startup?", Intent.HISTORICAL),
        ("What was her previous job?", Intent.HISTORICAL),
        ("Which city did they move from?", Intent.HISTORICAL),
        ("Anything coming up next week?", Intent.UPCOMING),
        ("What's on his calendar?", Intent.UPCOMING),
        ("Does she have anything lined up?", Intent.UPCOMING),
        ("What is due soon?", Intent.UPCOMING),
        # Anticipation asks what is still to come (round 24).
        ("What is Priya looking forward to this spring?", Intent.UPCOMING),
        ("any parties I can look forward to?", Intent.UPCOMING),
        ("When did she run the marathon?", Intent.PAST),
        ("When was the inspection?", Intent.PAST),
        ("Did they go to the wedding?", Intent.PAST),
        ("What happened at the interview?", Intent.PAST),
        ("Were the tickets expensive?", Intent.PAST),
        # Experience so far (present perfect of "ever", "been to", "how many … has"): past.
        ("How many marathons has she run?", Intent.PAST),
        ("Which countries has he been to?", Intent.PAST),
        ("Has she ever tried sushi?", Intent.PAST),
        ("How many kids does she have?", Intent.CURRENT),
        # "have got" is possession now, not an experience so far.
        ("How many bikes have you got?", Intent.CURRENT),
        ("How many goats has she got these days?", Intent.CURRENT),
        ("Has he finished the report?", Intent.CURRENT),
        # "before <date>" dates a past question; it is not a change question.
        ("Where was she in the week before 3 March 2025?", Intent.PAST),
        # What one left or quit is a former value; "in the past" asks for the history.
        ("Which team did he leave?", Intent.HISTORICAL),
        ("When did she leave for Rome?", Intent.PAST),
        ("What music did she like in the past?", Intent.HISTORICAL),
        ("Which plans did he cancel?", Intent.CANCELLED),
        # The next occurrence is ahead; a past question's "next" and "next to/door" are not.
        ("When is the van's next service?", Intent.UPCOMING),
        ("which train am I catching to Leeds next?", Intent.UPCOMING),
        ("What did she cook next?", Intent.PAST),
        ("Who lives next door to him?", Intent.CURRENT),
        ("What is next to her office?", Intent.CURRENT),
        # "to go out with" someone is to date them: who the partner is now, nothing ahead.
        ("who am I going out with these days?", Intent.CURRENT),
        ("am I going out on Friday?", Intent.UPCOMING),
        ("What trips fell through?", Intent.CANCELLED),
        # What one gave up is asked for (A.9 q_chg), told as done; the verb ends the question
        # or takes "on". Giving up a habit asked as yes/no, or a phrase, is not.
        ("which hobby did she give up on?", Intent.CANCELLED),
        ("What course has he given up?", Intent.CANCELLED),
        ("Did she give up smoking?", Intent.PAST),
        ("What does the 'never give up' poster say?", Intent.CURRENT),
        # A giving-up not told as done — a wish, a modal, a willingness (review r18 H1).
        ("Which foods am I not willing to give up?", Intent.CURRENT),
        ("What would I never give up?", Intent.CURRENT),
        ("Should I give up?", Intent.CURRENT),
        ("Is my sister going to give up?", Intent.CURRENT),
    ],
)
def test_intent_from_words(question: str, intent: Intent) -> None:
    assert detect_intent(question) is intent


def test_explicit_intent_wins() -> None:
    assert detect_intent("When did she move?", "current") is Intent.CURRENT
    assert detect_intent("When did she move?", "auto") is Intent.PAST


@pytest.fixture(scope="module")
def router() -> Iterator[tuple[CategoryRouter, MiniLMEmbedder]]:
    embedder = MiniLMEmbedder(intra_op_threads=2)
    yield CategoryRouter(embedder), embedder


@pytest.mark.parametrize(
    ("question", "category"),
    [
        ("How much does she pay for her flat each month?", C.FINANCIAL_MATERIAL),
        ("Is he allergic to anything?", C.HEALTH_WELLBEING),
        ("What does she like to eat?", C.PREFERENCES_HABITS),
        ("Who is his girlfriend?", C.RELATIONAL_BONDS),
        ("When is her dentist appointment?", C.OBLIGATIONS),
        ("When does his flight leave?", C.LOGISTICAL_CONTEXT),
        ("What does he do for fun at the weekend?", C.HOBBIES_RECREATION),
        # Table 1's Identity example is an employer ("Works at Google").
        ("What was his previous employer?", C.IDENTITY_SELF_CONCEPT),
    ],
)
def test_routing_top_category(
    router: tuple[CategoryRouter, MiniLMEmbedder], question: str, category: Category
) -> None:
    r, embedder = router
    probs = r.route(question, embedder.embed([question])[0])
    assert probs.sum() == pytest.approx(1.0)
    assert Category(list(C)[int(np.argmax(probs))]) is category


class _Spy(InMemoryVectorIndex):
    def __init__(self) -> None:
        super().__init__()
        self.filters: list[SearchFilter] = []

    def search_dense(
        self, user_id: str, vector: np.ndarray, limit: int, flt: SearchFilter,
        *, exact: bool = False,
    ) -> list[Hit]:  # fmt: skip
        self.filters.append(flt)
        return super().search_dense(user_id, vector, limit, flt, exact=exact)


def _forced_categories(question: str) -> frozenset[Category]:
    spy = _Spy()
    service = QueryService(spy, HashingEmbedder(dim=64), load_policy())
    service.query(QueryRequest(user_id="u", query=question, as_of=datetime(2026, 1, 1, tzinfo=UTC)))
    forced = [f.categories for f in spy.filters if f.categories]
    assert len(forced) == 1
    return forced[0]


def test_upcoming_questions_route_to_the_event_time_categories() -> None:
    """A.7.4: "what's coming up?" is about event-anchored facts whatever its words."""
    assert {C.OBLIGATIONS, C.LOGISTICAL_CONTEXT, C.HEALTH_WELLBEING} <= _forced_categories(
        "What's coming up for her?"
    )
    assert len(_forced_categories("What does she like?")) == 1
