"""Reflection, as in the paper: the three most salient questions about recent memories,
then insights that cite the memories they come from.

Both calls are grammar-constrained: exactly three questions; each insight's evidence
is a list of numbers among those of the memories shown, so a citation can only name a
memory that was there. Anything unusable gives no reflection rather than an error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.memory.records import MemoryRecord
from npc_brain.persona import Persona

QUESTIONS = 3
MAX_INSIGHTS = 3
MAX_EVIDENCE = 5
# Plain sentences: a small model cannot wander into markup or loops inside them.
QUESTION_PATTERN = "^[A-Z][A-Za-z0-9 ,'-]{6,90}[?]$"
INSIGHT_PATTERN = "^[A-Z][A-Za-z0-9 ,'-]{6,180}[.]$"


@dataclass(frozen=True)
class Insight:
    """A high-level belief and the memories it was drawn from."""

    text: str
    evidence: tuple[MemoryRecord, ...]


def questions_schema() -> dict[str, object]:
    question = {"type": "string", "pattern": QUESTION_PATTERN}
    return {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "items": question,
                "minItems": QUESTIONS,
                "maxItems": QUESTIONS,
            }
        },
        "required": ["questions"],
    }


def insights_schema(evidence_count: int) -> dict[str, object]:
    insight = {
        "type": "object",
        "properties": {
            "insight": {"type": "string", "pattern": INSIGHT_PATTERN},
            "because_of": {
                "type": "array",
                "items": {"enum": list(range(1, evidence_count + 1))},
                "minItems": 1,
                "maxItems": MAX_EVIDENCE,
            },
        },
        "required": ["insight", "because_of"],
    }
    return {
        "type": "object",
        "properties": {
            "insights": {"type": "array", "items": insight, "minItems": 1, "maxItems": MAX_INSIGHTS}
        },
        "required": ["insights"],
    }


def _helping(persona: Persona) -> Message:
    """The system message of every reflection call."""
    return Message(
        "system", f"You help {persona.name} think about their life.\n{persona.describe()}"
    )


def _numbered(memories: Sequence[MemoryRecord]) -> str:
    return "\n".join(f"{i}. {m.description}" for i, m in enumerate(memories, start=1))


def salient_questions(
    chat: ChatModel, persona: Persona, recent: Sequence[MemoryRecord]
) -> tuple[list[str], Completion]:
    """The three most salient high-level questions about the recent memories."""
    messages = [
        _helping(persona),
        Message(
            "user",
            f"{_numbered(recent)}\n\nGiven only the information above, what are "
            f"the {QUESTIONS} most salient high-level questions we can answer "
            f"about the subjects in the statements? Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=300, schema=questions_schema())
    return parse_questions(completion.text), completion


def parse_questions(text: str) -> list[str]:
    try:
        questions = json.loads(text)["questions"]
    except (ValueError, KeyError, TypeError):
        return []
    if not isinstance(questions, list):
        return []
    return [q.strip() for q in questions if isinstance(q, str) and q.strip()][:QUESTIONS]


def insights_for(
    chat: ChatModel, persona: Persona, question: str, evidence: Sequence[MemoryRecord]
) -> tuple[list[Insight], Completion]:
    """Insights answering the question, each citing the memories it rests on."""
    messages = [
        _helping(persona),
        Message(
            "user",
            f"Statements about {persona.name}:\n{_numbered(evidence)}\n\n"
            f"Question: {question}\nWhat high-level insights can you infer from "
            f"the statements above? Cite the numbers of the statements each "
            f"insight is because of. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=400, schema=insights_schema(len(evidence)))
    return parse_insights(completion.text, evidence), completion


def parse_insights(text: str, evidence: Sequence[MemoryRecord]) -> list[Insight]:
    """Insights from a constrained answer; citations outside the evidence are dropped,
    and an insight left without any citation is dropped with them."""
    try:
        items = json.loads(text)["insights"]
    except (ValueError, KeyError, TypeError):
        return []
    insights = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("insight"), str):
            continue
        cited = item.get("because_of")
        numbers = [n for n in cited if isinstance(n, int)] if isinstance(cited, list) else []
        chosen = tuple(dict.fromkeys(evidence[n - 1] for n in numbers if 1 <= n <= len(evidence)))
        if item["insight"].strip() and chosen:
            insights.append(Insight(item["insight"].strip(), chosen))
    return insights


CANDIDATES = 8  # code's insights the model chooses among


def choice_schema(count: int) -> dict[str, object]:
    numbers = {"enum": list(range(1, count + 1))}
    return {
        "type": "object",
        "properties": {
            "most_telling": {
                "type": "array",
                "items": numbers,
                "minItems": 1,
                "maxItems": MAX_INSIGHTS,
            }
        },
        "required": ["most_telling"],
    }


def chosen_insights(
    chat: ChatModel, persona: Persona, candidates: Sequence[Insight]
) -> tuple[list[Insight], Completion]:
    """The MAX_INSIGHTS insights to keep among those code found (at most CANDIDATES):
    the model's choice, by numbers constrained to the candidates', first; then the
    others in code's order."""
    shown = list(candidates[:CANDIDATES])
    listed = "\n".join(f"{i}. {insight.text}" for i, insight in enumerate(shown, start=1))
    messages = [
        _helping(persona),
        Message(
            "user",
            f"What {persona.name} has come to believe:\n{listed}\n\nWhich of these say the "
            f"most about the people in {persona.name}'s life? Choose up to {MAX_INSIGHTS} "
            f"numbers. Answer with JSON.",
        ),
    ]
    completion = chat.complete(messages, max_tokens=30, schema=choice_schema(len(shown)))
    return parse_choice(completion.text, shown), completion


def parse_choice(text: str, shown: Sequence[Insight]) -> list[Insight]:
    """The chosen insights first (numbers outside the list dropped, each once), then
    the rest in their order, MAX_INSIGHTS in all; an odd answer keeps code's order."""
    try:
        numbers = json.loads(text)["most_telling"]
    except (ValueError, KeyError, TypeError):
        numbers = []
    picked = [
        shown[n - 1]
        for n in (numbers if isinstance(numbers, list) else [])
        if isinstance(n, int) and 1 <= n <= len(shown)
    ]
    return list(dict.fromkeys([*picked, *shown]))[:MAX_INSIGHTS]
