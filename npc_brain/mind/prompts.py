"""Prompt pieces shared by the cognition calls."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from npc_brain.memory.records import GameTime, MemoryRecord


def clock(game_time: GameTime) -> str:
    """Game time as the prompts say it: 'Tuesday February 13, 2023, 09:30'."""
    moment = datetime.fromtimestamp(game_time, UTC)
    return f"{moment:%A %B} {moment.day}, {moment.year}, {moment:%H:%M}"


def day(game_time: GameTime) -> str:
    """The game day as the prompts say it: 'Tuesday February 14, 2023'."""
    moment = datetime.fromtimestamp(game_time, UTC)
    return f"{moment:%A %B} {moment.day}, {moment.year}"


def bullet_memories(memories: Sequence[MemoryRecord]) -> str:
    """Memories as a bullet list, or a line saying there are none."""
    if not memories:
        return "(nothing comes to mind)"
    return "\n".join(f"- {memory.description}" for memory in memories)


def one_of(options: Sequence[object]) -> dict[str, object]:
    """A JSON schema admitting exactly these values."""
    return {"enum": list(options)}


_IRREGULAR = {"has": "have", "goes": "go", "does": "do", "is": "be"}


def imperative(phrase: str) -> str:
    """'opens the cafe' -> 'open the cafe' (the first word of a third-person phrase)."""
    first, _, rest = phrase.strip().partition(" ")
    low = first.lower()
    if low in _IRREGULAR:
        first = _IRREGULAR[low]
    elif low.endswith("ies"):
        first = first[:-3] + "y"
    elif low.endswith(("ches", "shes", "sses", "xes")):
        first = first[:-2]
    elif low.endswith("s") and not low.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}".strip()
