"""Importance (poignancy 1..10) rated by the chat model, constrained to the ten ratings.

The paper's zero-shot prompt makes a 135M model answer 10 for brushing teeth, so the
prompt carries worked examples as earlier chat turns. Obvious no-ops ("is idle") get 1
without a model call. Where the backend exposes token probabilities (OptionScorer),
the rating is the expected value over the ten answers, not one sampled token; otherwise
it is parsed from a grammar that admits only {"rating": 1..10}, and an answer somehow
cut short rates NEUTRAL_RATING.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from npc_brain.llm.base import ChatModel, Completion, Message, OptionScorer

RATINGS = list(range(1, 11))
NEUTRAL_RATING = 3
IMPORTANCE_SCHEMA = {
    "type": "object",
    "properties": {"rating": {"type": "integer", "enum": RATINGS}},
    "required": ["rating"],
}
_NO_OP = re.compile(r"\b(is|are) idle\b", re.IGNORECASE)
_EXAMPLES = (
    ("brushing her teeth", 1),
    ("eating breakfast at the kitchen table", 2),
    ("Klaus is reading a book in the library", 2),
    ("chatting with a coworker about the weather", 3),
    ("Maria got a good grade on her exam", 5),
    ("planning a birthday party for a close friend", 6),
    ("John was offered a new job in another city", 8),
    ("her mother passed away this morning", 10),
)
SYSTEM = (
    "You rate how poignant a memory is for {name}, from 1 to 10. "
    "1 is purely mundane (brushing teeth, making the bed, walking). "
    "10 is extremely poignant (a break up, a death, being accepted to college). "
    "Answer with JSON."
)


ANSWER_PREFIX = '{"rating": '
ANSWERS = [f"{rating}}}" for rating in RATINGS]


@dataclass(frozen=True)
class Rating:
    """A rating in [1, 10] and the completion that produced it (None: no model call)."""

    value: float
    completion: Completion | None


def is_no_op(text: str) -> bool:
    """True for observations that need no rating ("the bed is idle")."""
    return bool(_NO_OP.search(text))


def importance_messages(agent_name: str, text: str) -> list[Message]:
    messages = [Message("system", SYSTEM.format(name=agent_name))]
    for example, rating in _EXAMPLES:
        messages.append(Message("user", f"Memory: {example}"))
        messages.append(Message("assistant", json.dumps({"rating": rating})))
    messages.append(Message("user", f"Memory: {text}"))
    return messages


def rate_importance(chat: ChatModel, agent_name: str, text: str) -> Rating:
    """Rates one memory 1..10."""
    if is_no_op(text):
        return Rating(1, None)
    messages = importance_messages(agent_name, text)
    if isinstance(chat, OptionScorer):
        shares, completion = chat.option_probabilities(
            messages, answer_prefix=ANSWER_PREFIX, options=ANSWERS
        )
        return Rating(expected_rating(shares), completion)
    completion = chat.complete(messages, max_tokens=16, schema=IMPORTANCE_SCHEMA)
    return Rating(parse_rating(completion.text), completion)


def expected_rating(shares: list[float]) -> float:
    """The mean of the ten ratings weighted by their probabilities, kept in [1, 10]."""
    total = sum(shares)
    if not total > 0:
        return float(NEUTRAL_RATING)
    mean = sum(r * s for r, s in zip(RATINGS, shares, strict=True)) / total
    return round(min(10.0, max(1.0, mean)), 3)


def parse_rating(text: str) -> int:
    """The rating in a constrained answer; NEUTRAL_RATING if it is unusable."""
    try:
        value = json.loads(text)["rating"]
    except (ValueError, KeyError, TypeError):
        return NEUTRAL_RATING
    return value if isinstance(value, int) and value in RATINGS else NEUTRAL_RATING
