"""The pipeline benchmark's input: pre-embedded synthetic edges and chat turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench.corpus import generate_facts
from frecall.distributed.produce import embedded_edges
from frecall.settings import Settings
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import load_policy
from workers.inputs import EdgeInput
from workers.ports import Embedder

_CITIES = ("Lisbon", "Oslo", "Tokyo", "Berlin", "Nairobi", "Lima", "Seoul", "Denver")
_EMPLOYERS = ("Google", "Netflix", "Siemens", "Spotify", "Airbus", "Shopify")
_FOODS = ("sushi", "pizza", "ramen", "tacos", "curry", "falafel")
_TURNS = (
    "I live in {city}",
    "I work at {employer}",
    "I love {food}",
    "I moved to {city} last month",
    "I got a job at {employer}!",
    "I prefer tea over coffee",
    "I made a new friend, Sam",
    "We talked about the weather and the game last night",
)


def embedded(embedder: Embedder, settings: Settings, items: list[EdgeInput]) -> list[EdgeEvent]:
    return list(embedded_edges(embedder, load_policy(settings.policy_file), items))


def corpus(n: int, users: list[str], seed: int, id_prefix: str) -> list[EdgeInput]:
    shares = dict.fromkeys(users, 1.0)
    return [
        EdgeInput.model_validate({**fact, "edge_id": f"{id_prefix}{fact['edge_id']}"})
        for fact in generate_facts(n, seed, shares)
    ]


def warmup(users: list[str], tag: str) -> list[EdgeInput]:
    return [
        EdgeInput(user_id=u, text=f"{u} started benchmark {tag}", category="OTHER", edge_id=tag)
        for u in users
    ]


def chat_turns(n: int, users: list[str]) -> list[TurnEvent]:
    start = datetime.now(UTC) - timedelta(hours=1)
    out = []
    for i in range(n):
        user = users[i % len(users)]
        text = _TURNS[(i // len(users)) % len(_TURNS)].format(
            city=_CITIES[i % len(_CITIES)],
            employer=_EMPLOYERS[i % len(_EMPLOYERS)],
            food=_FOODS[i % len(_FOODS)],
        )
        out.append(
            TurnEvent(
                user_id=user,
                session_id=f"bench-{user}",
                turn_id=f"t{i:06d}",
                role="user",
                text=text,
                timestamp=start + timedelta(seconds=i),
            )
        )
    return out
