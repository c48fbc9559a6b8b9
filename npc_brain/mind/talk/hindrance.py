"""What keeps an NPC from doing what it is asked, read from its own state: a memory
that bars the thing asked ("Bay 3 stays sealed until someone checks the shielding"), or
its own plan for the time asked ("switch the reactor to backup power on Friday from
0200 to 0600"). Both the request composer (social.py) and the game actions it might
grant (deeds.py) ask here first, so that neither words nor a game action promise what
the NPC cannot do."""

from __future__ import annotations

from collections.abc import Sequence

from npc_brain.game_actions import ActionOption
from npc_brain.lexicon import BARRING, RELATIVE_DAYS
from npc_brain.memory.records import MemoryRecord
from npc_brain.memory.when import (
    CALENDAR_WORDS,
    HOUR,
    PARTS_OF_DAY,
    TIME_NOUNS,
    Window,
    anchor,
    past_tense,
)
from npc_brain.mind.talk.answers import key_terms
from npc_brain.mind.talk.realise import promised
from npc_brain.mind.talk.scene import Answer, Scene, plans_within, relevant
from npc_brain.words import DEADLINES, NUMBER_WORDS, clauses, lower_words, sentences


async def hindrance(scene: Scene, recalled: Sequence[MemoryRecord]) -> Answer | None:
    """The NPC's refusal, with its reason, when a memory at hand (`recalled`) bars what
    the line asks or its own plan holds the time asked; None when nothing does."""
    if (barred := await _barred(scene, recalled)) is not None:  # "Bay 3 stays sealed"
        refused = ("I'm sorry, I can't.", scene.say(barred))
        return Answer(refused, (barred.description,), answered=True)
    if (busy := _busy_then(scene)) is not None:  # "fix my drone on Friday at 0300?"
        refused = ("I'm sorry, I can't then.", scene.say(busy))
        return Answer(refused, (busy.description,), answered=True)
    return None


def _asked_when(scene: Scene) -> Window | None:
    """The time said of what is asked: in its promise ("open the gate for you
    tomorrow"), else in the line's last clause ("heading out tomorrow, could really use
    an O2 can" asks for nothing tomorrow)."""
    text = scene.heard.text
    asked = promised(text) or clauses(text)[-1]
    return scene.heard.when if asked == text else anchor(asked, scene.now)


async def _barred(scene: Scene, recalled: Sequence[MemoryRecord]) -> MemoryRecord | None:
    """A memory that bars what a request asks for: it bears on the line, and one of its
    clauses names a thing the line asks about (not only a time, nor in a sentence of the
    past; with the line's numbers), says it cannot be had (lexicon.BARRING: "sealed",
    "closed") and holds at the time asked (its own day, if it names one, meets the
    line's; else it holds now): "can I dock in bay 3?" with "Bay 3 stays sealed", not
    "where do I dock?"."""
    text = _unpast(scene.heard.text)
    asked = key_terms(promised(text) or text) - _CALENDAR_TERMS
    asked -= key_terms(f"{scene.me} {scene.speaker}")
    memories = await relevant(scene, recalled)
    window = _window(scene)
    return next((m for m in memories if _bars(m, asked, text, window)), None)


def _unpast(text: str) -> str:
    """A line without its sentences in the past tense, which tell and ask nothing ("I
    worked a double next to Bay 3 before they sealed it. I want to know what's going on
    inside me"); the line when all are."""
    kept = [s for s in sentences(text) if not past_tense(s)]
    return " ".join(kept) if kept else text


async def barred_options(
    scene: Scene, recalled: Sequence[MemoryRecord], options: Sequence[ActionOption]
) -> set[str]:
    """The values of the options a memory at hand bars at the time asked ("Bay 3 stays
    sealed" bars bay 3, not bay 5): a game action is not given one of them."""
    memories = await relevant(scene, recalled)
    window = _window(scene)
    return {
        o.value
        for o in options
        if any(_bars(m, key_terms(o.said), o.said, window) for m in memories)
    }


def _window(scene: Scene) -> tuple[float, float]:
    """The game time a request asks for: the time it says, else the coming hour."""
    wanted = _asked_when(scene)
    return (wanted.start, wanted.end) if wanted else (scene.now, scene.now + HOUR)


def _bars(memory: MemoryRecord, asked: set[str], text: str, window: tuple[float, float]) -> bool:
    """Whether one of a memory's clauses says a thing `text` asks for (`asked`: its key
    terms) cannot be had (BARRING) within `window`. "bay 5" is not "bay 3", nor "the west
    gate" "the east gate"; and what says no number asks for none of several that the
    memory tells apart by theirs."""
    numbers = _numbers(text)
    for clause in clauses(memory.description):
        shared = asked & key_terms(clause)
        if not set(lower_words(clause)) & BARRING or not shared:
            continue
        said = _numbers(clause)
        if not numbers <= said or (said and not numbers):
            continue
        if all(_told_apart(term, text, clause) for term in shared):
            continue
        then = anchor(clause, memory.created, prefer="future")  # "shut on Friday"
        if then is None or then.meets(*window):
            return True
    return False


def _told_apart(term: str, text: str, clause: str) -> bool:
    """Whether the text and the clause say `term` (a key term) of two things, by the
    different words just before it ("the west gate", "the east gate")."""
    mine, theirs = _modifiers(term, text), _modifiers(term, clause)
    return bool(mine) and bool(theirs) and not mine & theirs


def _modifiers(term: str, text: str) -> set[str]:
    """The content words just before each word of `text` whose key term is `term`."""
    words = lower_words(text)
    return {
        words[i - 1]
        for i in range(1, len(words))
        if key_terms(words[i]) == {term} and key_terms(words[i - 1])
    }


def _numbers(text: str) -> set[int]:
    """The numbers a text says, in digits or words ("bay five": 5); "a" and "an" are
    no number here."""
    words = lower_words(text)
    return {
        int(w) if w.isdecimal() else NUMBER_WORDS[w]
        for w in words
        if w.isdecimal() or w in NUMBER_WORDS
    }


# a time alone names no thing asked ("Good day, Captain. I would like a travel pass" asks
# nothing the gate "closed all day Thursday" bars)
_CALENDAR_TERMS = key_terms(" ".join([*CALENDAR_WORDS, *TIME_NOUNS, *PARTS_OF_DAY, *RELATIVE_DAYS]))


def _busy_then(scene: Scene) -> MemoryRecord | None:
    """The NPC's own plan for a time within the one a request asks for (a plan of some
    hours; a whole day's plan holds the NPC's work too) that is not of the thing asked,
    the latest made. A time the thing asked is wanted by ("a seed cake for Saturday",
    "by Friday") is no time the NPC must be at it."""
    wanted = _asked_when(scene)
    if wanted is None or not wanted.future(scene.now) or _deadline(scene.heard.text, wanted):
        return None
    asked = key_terms(scene.heard.text) - _CALENDAR_TERMS - key_terms(f"{scene.me} {scene.speaker}")
    plans = plans_within(scene, wanted.start, wanted.end)
    # a plan of the thing asked about is no other business ("help with the lantern thing
    # saturday?" to the festival's organiser)
    return next((p for p in plans if not asked & key_terms(p.description)), None)


def _deadline(text: str, wanted: Window) -> bool:
    """Whether a line says its time as when the thing asked is wanted by ("for
    Saturday", "by Friday", "before the festival")."""
    words = lower_words(text)
    said = lower_words(wanted.phrase)
    at = next((i for i in range(len(words)) if words[i : i + len(said)] == said), None)
    return at is not None and bool(set(said[:1] + words[max(0, at - 1) : at]) & DEADLINES)
