"""What the MCP tools take and return (their JSON schemas are the tools' input and output
schemas): compact forms of the SDK's results, for a model to read."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from schemas.query import QueryResult
from schemas.results import IngestReport, Inspection


class Said(BaseModel):
    """One turn of the conversation."""

    text: str = Field(min_length=1)  # any length (DESIGN §6): a pasted document is kept whole
    role: Literal["user", "assistant"] = "user"
    timestamp: datetime | None = Field(None, description="when it was said (default: now)")


class Remembered(BaseModel):
    turns: int = Field(description="turns taken in")
    facts: int = Field(description="facts (and raw turns) now in the memory")
    transitions: dict[str, int] = Field(
        description='lifecycle changes, e.g. {"active->superseded": 1}'
    )
    edge_ids: list[str]
    failures: list[str] = []

    @classmethod
    def of(cls, report: IngestReport) -> Remembered:
        return cls(
            turns=report.turns,
            facts=report.accepted,
            transitions=dict(sorted(report.transitions.items())),
            edge_ids=report.edge_ids,
            failures=[f.reason for f in report.failures],
        )


class RecalledFact(BaseModel):
    edge_id: str
    text: str
    category: str
    state: str = Field(description="active, superseded, retracted, …")
    score: float
    why: list[str] = Field(description="why it ranked where it did, or why it is masked")
    event_time: datetime | None = None


class Recalled(BaseModel):
    intent: str
    as_of: datetime
    facts: list[RecalledFact]
    suppressed: dict[str, int] = Field(description="candidates hidden, by state")

    @classmethod
    def of(cls, result: QueryResult) -> Recalled:
        return cls(
            intent=result.intent.value,
            as_of=result.as_of,
            facts=[
                RecalledFact(
                    edge_id=f.edge_id,
                    text=f.text,
                    category=f.category.value,
                    state=f.state.value,
                    score=round(f.score, 4),
                    why=f.why,
                    event_time=f.event_time,
                )
                for f in result.results
            ],
            suppressed=result.suppressed,
        )


class InspectedFact(BaseModel):
    edge_id: str
    text: str
    activation: float
    why: list[str]


class Inspected(BaseModel):
    as_of: datetime
    facts: int
    categories: dict[str, dict[str, list[InspectedFact]]] = Field(
        description="category → state → facts"
    )

    @classmethod
    def of(cls, view: Inspection) -> Inspected:
        return cls(
            as_of=view.as_of,
            facts=view.facts,
            categories={
                category: {
                    state: [
                        InspectedFact(
                            edge_id=f.edge_id, text=f.text, activation=f.activation, why=f.why
                        )
                        for f in facts
                    ]
                    for state, facts in states.items()
                }
                for category, states in view.categories.items()
            },
        )


class Forgotten(BaseModel):
    edge_id: str | None = Field(description="null: every fact of the user")
    removed: dict[str, int] = Field(description="records removed, per store")
    at: datetime
