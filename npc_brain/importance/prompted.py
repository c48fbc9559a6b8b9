"""Importance rated by the chat model with worked examples, constrained to the ten ratings.

The paper's zero-shot prompt makes a 135M model answer 10 for brushing teeth, so the
prompt carries worked examples as earlier chat turns. Where the backend exposes token
probabilities (OptionScorer), the rating is the expected value over the ten answers, not
one sampled token; otherwise it is parsed from a grammar that admits only
{"rating": 1..10}, and an answer somehow cut short rates NEUTRAL_RATING.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from npc_brain.importance.base import Estimate, clamp, is_no_op
from npc_brain.llm.base import ChatModel, Completion, Message, OptionScorer

RATINGS = list(range(1, 11))
NEUTRAL_RATING = 3
IMPORTANCE_SCHEMA = {
    "type": "object",
    "properties": {"rating": {"type": "integer", "enum": RATINGS}},
    "required": ["rating"],
}
EXAMPLES = (
    ("brushing her teeth", 1),
    ("eating breakfast at the kitchen table", 2),
    ("Bram is reading a book in the library", 2),
    ("chatting with a coworker about the weather", 3),
    ("Mira got a good grade on her exam", 5),
    ("planning a birthday party for a close friend", 6),
    ("Finn was offered a new job in another city", 8),
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


def importance_messages(agent_name: str, text: str) -> list[Message]:
    """The few-shot prompt: the scale, eight worked examples as chat turns, the memory."""
    messages = [Message("system", SYSTEM.format(name=agent_name))]
    for example, rating in EXAMPLES:
        messages.append(Message("user", f"Memory: {example}"))
        messages.append(Message("assistant", json.dumps({"rating": rating})))
    messages.append(Message("user", f"Memory: {text}"))
    return messages


def rate_importance(chat: ChatModel, agent_name: str, text: str) -> Rating:
    """Rates one memory 1..10 (no-ops get 1 without a call)."""
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


def expected_rating(shares: Sequence[float]) -> float:
    """The mean of the ten ratings weighted by their probabilities, kept in [1, 10]."""
    total = sum(shares)
    if not total > 0:
        return float(NEUTRAL_RATING)
    return clamp(sum(r * s for r, s in zip(RATINGS, shares, strict=True)) / total)


def parse_rating(text: str) -> int:
    """The rating in a constrained answer; NEUTRAL_RATING if it is unusable."""
    try:
        value = json.loads(text)["rating"]
    except (ValueError, KeyError, TypeError):
        return NEUTRAL_RATING
    return value if isinstance(value, int) and value in RATINGS else NEUTRAL_RATING


class ModelEstimator:
    """The chat model rates each text (one call per text; no-ops cost none)."""

    name = "model"
    uses_chat = True
    uses_agent_name = True

    def __init__(self, chat: ChatModel) -> None:
        self._chat = chat

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]:
        ratings = [rate_importance(self._chat, agent_name, text) for text in texts]
        return [Estimate(r.value, self.name, r.completion) for r in ratings]
