"""An action's emoji, chosen by meaning instead of generated.

The model never writes an emoji: an activity ("brewing coffee") gets the emoji whose
short description its embedding is nearest to. That costs no model tokens (an emoji
field and its 20-way choice were a fifth of every decomposition's output), it is
deterministic, and it reads the whole activity, where a small model tended to repeat
one emoji for everything.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

MEANINGS: dict[str, str] = {
    "☕": "drinking or brewing coffee or tea at a cafe",
    "🍳": "cooking, making breakfast in the kitchen",
    "🍽": "eating a meal, having lunch or dinner",
    "😴": "sleeping, napping, going to bed",
    "📚": "reading a book, studying, at the library",
    "💼": "working at a job, at the office, in a meeting",
    "🧹": "cleaning, tidying up, sweeping, washing dishes",
    "🚶": "walking to a place, going somewhere, commuting",
    "💬": "talking, chatting, having a conversation",
    "🎨": "painting, drawing, making art",
    "🛒": "shopping, buying groceries at the store",
    "🎉": "a party, celebrating, decorating for an event",
    "🎵": "playing music, singing, listening to music",
    "💻": "using a computer, writing code, programming software, answering emails",
    "📝": "writing, taking notes, planning, doing paperwork",
    "🏃": "jogging, running, exercising, working out",
    "🌳": "relaxing outdoors in the park, gardening",
    "🔧": "fixing or repairing something, building",
    "🏠": "at home: getting dressed, taking a shower, resting, getting ready",
    "🤔": "thinking, waiting, idle",
}
EMOJIS = list(MEANINGS)
IDLE_EMOJI = "🤔"


def nearest_emojis(activities: NDArray[np.float32], meanings: NDArray[np.float32]) -> list[str]:
    """For each activity's unit-length embedding, the emoji of the most similar meaning
    (`meanings`: one unit-length row per emoji, in EMOJIS order)."""
    if len(activities) == 0:
        return []
    best = np.argmax(np.asarray(activities) @ np.asarray(meanings).T, axis=1)
    return [EMOJIS[int(i)] for i in best]
