"""Importance rated by the chat model: moved to `npc_brain.importance.prompted`.

Kept so existing imports work; estimators (model, anchors, blend) live in
`npc_brain.importance`.
"""

from npc_brain.importance.base import is_no_op
from npc_brain.importance.prompted import (
    ANSWER_PREFIX,
    ANSWERS,
    EXAMPLES,
    IMPORTANCE_SCHEMA,
    NEUTRAL_RATING,
    RATINGS,
    SYSTEM,
    Rating,
    expected_rating,
    importance_messages,
    parse_rating,
    rate_importance,
)

__all__ = [
    "ANSWERS",
    "ANSWER_PREFIX",
    "EXAMPLES",
    "IMPORTANCE_SCHEMA",
    "NEUTRAL_RATING",
    "RATINGS",
    "SYSTEM",
    "Rating",
    "expected_rating",
    "importance_messages",
    "is_no_op",
    "parse_rating",
    "rate_importance",
]
