"""Prompt pieces shared by the cognition calls."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from npc_brain.memory.records import GameTime, MemoryRecord


def clock(game_time: GameTime) -> str:
    """Game time as the prompts say it: 'Saturday June 3, 2023, 09:30'."""
    moment = datetime.fromtimestamp(game_time, UTC)
    return f"{moment:%A %B} {moment.day}, {moment.year}, {moment:%H:%M}"


def day(game_time: GameTime) -> str:
    """The game day as the prompts say it: 'Saturday June 3, 2023'."""
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


_DOUBLED = {"run", "sit", "get", "put", "jog", "chat", "shop", "plan", "stop", "swim", "set"}


def progressive(phrase: str) -> str:
    """'stoke the forge' -> 'stoking the forge' (the first word of an imperative or
    third-person phrase; a phrase already in -ing stays)."""
    first, _, rest = imperative(phrase).partition(" ")
    low = first.lower()
    if low.endswith("ing") or not low.isalpha():
        return phrase.strip()
    if low in _DOUBLED:
        first += first[-1]
    elif low.endswith("ie"):
        first = first[:-2] + "y"
    elif low.endswith("e") and not low.endswith(("ee", "ye", "oe")) and len(low) > 2:
        first = first[:-1]
    return f"{first}ing {rest}".strip()


def imperative(phrase: str) -> str:
    """'opens the inn' -> 'open the inn' (the first word of a third-person phrase)."""
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
