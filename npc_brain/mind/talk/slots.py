"""What a question asks for, and whether a sentence holds it: "When does the ferry
leave?" wants a time, "Why is the gate shut?" a reason, "Who sells bread?" a person. A
memory about the ferry that says no time does not answer the first; the NPC then says
it does not know when, and what it does know.

The question words are English's closed class of wh-words, not a game's vocabulary;
whether a sentence holds a time is dateparser's call (when.py), a person or a place the
world's own names."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from lemminflect import getAllLemmas

from npc_brain.memory.records import GameTime
from npc_brain.memory.when import anchor
from npc_brain.mind.talk.answers import names_in
from npc_brain.mind.talk.understand import named_places


class Slot(StrEnum):
    """What the answer to a question must hold; the value is the wh-word that asks it."""

    TIME = "when"
    REASON = "why"
    PERSON = "who"
    PLACE = "where"
    AMOUNT = "how much"


# The wh-phrases, longest first so "how much" is read before "how".
_ASKING = (
    (("what", "time"), Slot.TIME),
    (("how", "long"), Slot.TIME),
    (("how", "soon"), Slot.TIME),
    (("how", "come"), Slot.REASON),
    (("what", "made"), Slot.REASON),
    (("how", "much"), Slot.AMOUNT),
    (("how", "many"), Slot.AMOUNT),
    (("when",), Slot.TIME),
    (("why",), Slot.REASON),
    (("who",), Slot.PERSON),
    (("whom",), Slot.PERSON),
    (("where",), Slot.PLACE),
)
# Words that give a cause ("because my knees are bad", "since the raid", "due to").
_CAUSES = frozenset(("because", "since", "due", "cause", "'cause", "after", "so"))
# Number words, for an amount said in words ("three crates").
_NUMBERS = frozenset(
    (
        *("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        *("eleven", "twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand"),
        *("dozen", "half", "couple", "few"),
    )
)
_WORD = re.compile(r"[A-Za-z0-9']+")


def asked_for(question: str) -> Slot | None:
    """What a question asks for, from its first wh-phrase ("what time's the ferry": a
    time; "do you know who sells bread?": a person); None for a yes/no question."""
    words = [_plain(w) for w in _WORD.findall(question.lower())]
    for i in range(len(words)):
        for phrase, slot in _ASKING:
            if tuple(words[i : i + len(phrase)]) == phrase:
                return slot
    return None


def _plain(word: str) -> str:
    """A wh-word without its clitic: "when's", "whens" and "when" are "when"."""
    word = word.removesuffix("'s").removesuffix("'re")
    if word in ("whens", "whys", "wheres", "whos", "whats"):
        return word[:-1]
    return word


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
    words = _WORD.findall(sentence)
    low = [w.lower() for w in words]
    if slot == Slot.TIME:
        return anchor(sentence, now) is not None or any(w.isdigit() for w in words)
    if slot == Slot.REASON:
        return any(w in _CAUSES for w in low)
    if slot == Slot.AMOUNT:
        return any(any(c.isdigit() for c in w) or w in _NUMBERS for w in low)
    if slot == Slot.PERSON:
        return bool(names_in(sentence, people)) or any(_name(w) for w in words[1:])
    if named_places(sentence, places):
        return True
    return any(
        w in ("at", "in", "on", "near", "behind", "inside", "by")
        and i + 1 < len(words)
        and (_name(words[i + 1]) or (low[i + 1] == "the" and i + 2 < len(words)))
        for i, w in enumerate(low)
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
