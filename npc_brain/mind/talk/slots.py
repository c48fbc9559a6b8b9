"""What a question asks for, and whether a sentence holds it: "When does the ferry
leave?" wants a time, "Why is the gate shut?" a reason, "Who sells bread?" a person. A
memory about the ferry that says no time does not answer the first; the NPC then says
it does not know when, and what it does know.

The question words are English's closed class of wh-words, not a game's vocabulary;
whether a sentence holds a time is dateparser's call (when.py), a person or a place the
world's own names."""

from __future__ import annotations

from collections.abc import Sequence

from lemminflect import getAllLemmas

from npc_brain.memory.records import GameTime
from npc_brain.memory.when import POINTING, UNITS, anchor, clock_times
from npc_brain.mind.talk.answers import names_in
from npc_brain.mind.talk.understand import named_places
from npc_brain.mind.talk.wh import Slot, asked_for
from npc_brain.words import CAUSAL, COUNTING_WORDS, NUMBER_WORDS, tokens

__all__ = ["Slot", "ago", "asked_for", "holds", "not_known"]


# Words of an amount said in words ("three crates", "a few days", "half a day").
_NUMBERS = NUMBER_WORDS.keys() | COUNTING_WORDS.keys() | {"half", "few"}


def holds(
    slot: Slot,
    sentence: str,
    now: GameTime,
    people: dict[str, str],
    places: Sequence[str],
) -> bool:
    """Whether a sentence holds what `slot` asks for: a time (one dateparser finds, or a
    clock figure), a cause, someone's name (the world's people, or a name nobody has),
    a place (one of `places`' names, or a name after "at", "in", ...), an amount."""
    words = tokens(sentence)
    low = [w.lower() for w in words]
    if slot == Slot.DURATION:
        return bool(_spans(low))
    if slot == Slot.TIME:
        return bool(clock_times(sentence)) or anchor(_undated(sentence, low), now) is not None
    if slot == Slot.REASON:
        return any(w in CAUSAL for w in low)
    if slot in (Slot.AMOUNT, Slot.COUNT):
        return any(any(c.isdecimal() for c in w) or w in _NUMBERS for w in low)
    if slot == Slot.PERSON:
        return bool(names_in(sentence, people)) or any(_name(w) for w in words)
    if named_places(sentence, places):
        return True
    return any(
        w in ("at", "in", "on", "near", "behind", "inside", "by")
        and i + 1 < len(words)
        and (_name(words[i + 1]) or (low[i + 1] == "the" and i + 2 < len(words)))
        for i, w in enumerate(low)
    )


def _spans(low: Sequence[str]) -> list[tuple[int, int]]:
    """Where words say a length of time: a number and a unit ("twelve years")."""
    return [
        (i, i + 2)
        for i in range(len(low) - 1)
        if (low[i].isdecimal() or low[i] in _NUMBERS or low[i] in ("a", "an"))
        and set(getAllLemmas(low[i + 1]).get("NOUN", ())) & UNITS.keys()
    ]


def _undated(sentence: str, low: Sequence[str]) -> str:
    """A sentence without its lengths of time ("I served twelve years" says no date),
    but with those that point at a time ("three days ago", "in two weeks")."""
    keep = []
    for i, j in _spans(low):
        pointed = (j < len(low) and low[j] in POINTING) or (i and low[i - 1] in ("in", "within"))
        if not pointed:
            keep.append((i, j))
    return " ".join(
        w for k, w in enumerate(tokens(sentence)) if not any(i <= k < j for i, j in keep)
    )


def _name(word: str) -> bool:
    """A capitalised word English does not know: a name ("Marla", "Ceres")."""
    return word[:1].isupper() and word != "I" and not getAllLemmas(word.lower())


def not_known(slot: Slot) -> str:
    """That the NPC does not know what was asked: "I don't know when, exactly."."""
    return f"I don't know {slot.value}, exactly."


def ago(moment: GameTime, now: GameTime) -> str:
    """When `moment` was, said from `now` ("earlier today", "yesterday", "3 days ago",
    "2 weeks ago"): for an event the NPC saw, whose memory's time is the answer."""
    days = int(now // DAY) - int(moment // DAY)
    if days <= 0:
        return "earlier today"
    if days == 1:
        return "yesterday"
    if days < 14:
        return f"{days} days ago"
    return f"{days // 7} weeks ago"


DAY = 24 * 3600.0
