"""What a composer reads and returns: the Scene (the NPC answering, who speaks to it,
the line as understood, the mind's recall) and the Answer, with what every composer
shares: which memories bear on the line, the NPC's own, its persona as sentences, its
plan, and places as they are said."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from lemminflect import getAllLemmas, getInflection
from numpy.typing import NDArray

from npc_brain.lexicon import TRADE_VERBS
from npc_brain.memory.commitments import hours_of
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, SourceKind
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.when import DAY, HOUR, Window, anchor, clock_times, colon_clocks
from npc_brain.mind.plan.affordances import parts
from npc_brain.mind.plan.planner import block_at
from npc_brain.mind.talk.answers import key_terms, retold, said_line, ungreeted
from npc_brain.mind.talk.realise import first_person, persona_sentences, reported, sentence
from npc_brain.mind.talk.understand import Heard
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord
from npc_brain.words import DETERMINERS, lower_words, sentences, spans

if TYPE_CHECKING:
    from npc_brain.mind.talk.deeds import Deed

# MiniLM cosine from which a memory bears on a question: questions that memories answer
# scored 0.51-0.83 with them, unrelated questions 0.30-0.32 (bench/interview.py's set).
RELEVANT = 0.4


RELATED = 0.25  # with a content word in common, or inside the time asked about


# A question asked: what bears on it, whenever it happened (the paper's equal weights
# bury a week-old fact under this morning's: they stay for planning and reacting).
ASKED_WEIGHTS = Weights(0.1, 0.2, 1.0)


CANDIDATES = 12


@dataclass(frozen=True)
class Answer:
    """What the NPC says (sentences, in its own voice), what they rest on (memories'
    and facts' texts), whether it ends the conversation, whether it states a fact the
    line asked for (`answered`), and whether the model may add a sentence (`worded`:
    after small talk only, where what is said matters less than that something is; after
    a fact, an opinion or a reaction the 135M model's sentence was as often a non
    sequitur as not, in bench.interview's answers)."""

    sentences: tuple[str, ...]
    grounds: tuple[str, ...] = ()
    ends: bool = False
    answered: bool = False
    worded: bool = False
    deed: Deed | None = None  # a game action chosen for the line (deeds.py)

    @property
    def text(self) -> str:
        return " ".join(s for s in self.sentences if s)


Recall = Callable[..., Awaitable[list[MemoryRecord]]]


Embed = Callable[[Sequence[str]], Awaitable[NDArray[np.float32]]]
# The model's choice among declared values for a question, constrained to them by grammar.
Pick = Callable[[str, Sequence[str]], Awaitable[str]]


async def first_option(question: str, options: Sequence[str]) -> str:
    """A Pick without a model: the first option."""
    return options[0]


@dataclass
class Scene:
    """What a composer reads: the world, the NPC answering, who speaks to it (`speaker`:
    its full name, '' for a player the world does not know), the game time, the line as
    understood, the world's other people (id -> full name) and the places the NPC knows;
    `recall` and `embed` are the mind's own (recall only what may be told the speaker)."""

    world: World
    agent: AgentRecord
    speaker_id: str
    speaker: str
    now: GameTime
    heard: Heard
    people: dict[str, str]
    places: list[str]
    recall: Recall
    embed: Embed
    pick: Pick = first_option
    grounds: list[str] = field(default_factory=list)

    @property
    def me(self) -> str:
        return self.agent.persona.name

    def say(self, memory: MemoryRecord) -> str:
        """A memory as the NPC says it to the speaker: its own doings in the first
        person, the speaker's in the second, others' as told, with who told it."""
        self.grounds.append(memory.description)
        text = memory.description
        teller = self.people.get(memory.source.agent_id, "")
        told = memory.source.kind in (SourceKind.HEARD, SourceKind.TOLD)
        if told and teller and said_line(text) is None and teller not in text:
            return sentence(f"{teller} told me that {lowered(text)}")
        if line := said_line(text):  # the greeting in it was for its listener only
            speaker, listener, words = line[0], line[1], ungreeted(line[2])
            if listener == self.me and speaker != self.me:
                if '"' in words:  # a line passed on: 'Ana told me that Tomas said: "..."'
                    return retold(speaker, "me", words)
                first = (sentences(words) or [words])[0]  # what it told
                return reported(speaker, first, "me", self.pronoun_of(speaker))  # "he's"
            text = f'{speaker} said to {listener}: "{words}"'
        if not self.speaker and self.speaker_id:  # a player the world does not know
            text = as_you(text, self.speaker_id)
        persona = self.agent.persona
        return first_person(
            text, self.me, self.speaker, persona.pronoun if persona.pronouns else ""
        )

    def pronoun_of(self, name: str) -> str:
        """How the NPC speaks of the agent called `name` ("they" if none is)."""
        for agent_id, full in self.people.items():
            if full == name and (other := self.world.store.get_agent(agent_id)) is not None:
                return other.persona.pronoun
        return "they"


def as_you(text: str, speaker_id: str) -> str:
    """`text` with the words that are the id of a speaker the world does not know said
    as "you" ("Oda sold a water skin to player" -> "... to you"), its id being all the
    memory has of it; after a determiner the word is a common noun ("the player paid")."""
    out, last, before = [], 0, ""
    for word, start in spans(text):
        if word == speaker_id and before.lower() not in DETERMINERS:
            out += [text[last:start], "you"]
            last = start + len(word)
        before = word
    return "".join(out) + text[last:]


Composer = Callable[[Scene], Awaitable[Answer]]


async def relevant(
    scene: Scene, memories: Sequence[MemoryRecord], floor: float = RELATED
) -> list[MemoryRecord]:
    """The memories that bear on the line, best first: cosine at least RELEVANT, or at
    least `floor` with a content word of the line (names of the two talking aside)."""
    if not memories:
        return []
    vectors = await scene.embed([m.description for m in memories])
    likeness = vectors @ scene.heard.vector
    asked = key_terms(scene.heard.text) - key_terms(f"{scene.me} {scene.speaker}")
    scored = []
    for memory, score in zip(memories, likeness, strict=True):
        shared = len(asked & key_terms(memory.description))
        if score >= RELEVANT or (shared and score >= floor):
            scored.append((float(score) + 0.05 * shared, memory))
    scored.sort(key=lambda pair: -pair[0])
    return [m for _, m in scored]


def own(memory: MemoryRecord, scene: Scene) -> bool:
    """A memory of the NPC's own doings or plans."""
    first = scene.me.split()[0]
    return memory.kind == MemoryKind.PLAN or memory.description.startswith((scene.me, first))


def plans_within(scene: Scene, start: GameTime, end: GameTime) -> list[MemoryRecord]:
    """The NPC's own plans of some hours (not a whole day's plan) for a time between
    `start` and `end`, the latest made first."""
    records = scene.world.stream(scene.agent.agent_id).records
    plans = [m for m in records if m.kind == MemoryKind.PLAN and own(m, scene)]
    return [
        m
        for m in sorted(plans, key=lambda m: -m.created)
        if (hours := _hours_planned(m.description, m.created)) and hours.meets(start, end)
    ]


@lru_cache(maxsize=4096)
def _hours_planned(description: str, created: GameTime) -> Window | None:
    """The hours a plan names, read from its words on the day it was made ("switch the
    reactor to backup power on Friday from 0200 to 0600": those hours of Friday); None
    for no time or a whole day's plan. A memory's words never change: each is read
    once (dateparser takes some milliseconds a plan)."""
    then = anchor(description, created, prefer="future")
    if then is None or then.end - then.start >= DAY:
        return None
    if (hours := hours_of(colon_clocks(description))) is None:
        return then
    midnight = (then.start + then.end) / 2 // DAY * DAY  # "from 0500 to 1100": those hours
    return Window(midnight + hours[0] * HOUR, midnight + hours[1] * HOUR, then.phrase)


def persona_said(scene: Scene) -> dict[str, str]:
    """The NPC's persona as it says it: identity, traits, routine, doing (realise.py)."""
    p = scene.agent.persona
    return persona_sentences(p.name, p.learned, p.innate, p.lifestyle, p.currently)


def priced(memory: MemoryRecord) -> bool:
    """A memory that says a price: a number with a verb of trade ("sells a dagger for
    12 coins", "a pie costs 5") or with what it counts in ("berths at 200 credits
    each"); a clock time or a number of a name ("at 0900", "Bay 3") is no price."""
    words = [w.strip(".;:!?()") for w in memory.description.lower().replace(",", " ").split()]
    numbers = [
        after
        for w, after in zip(words, [*words[1:], ""], strict=True)
        if w.isdecimal() and not clock_times(w) and after not in ("am", "pm")
    ]
    trades = any(TRADE_VERBS & set(getAllLemmas(w).get("VERB", ())) for w in words)
    return any(_counts_in(after) for after in numbers) or (trades and bool(numbers))


def _counts_in(word: str) -> bool:
    """Whether a word after a number says what it counts in: a plural noun ("coins")."""
    nouns = getAllLemmas(word).get("NOUN", ())
    return bool(nouns) and word not in nouns and word not in ("am", "pm")


def has_plan(scene: Scene) -> bool:
    """Whether the NPC has a day plan to read."""
    return scene.world.mind(scene.agent.agent_id).plan is not None


def planned(scene: Scene, moment: GameTime) -> str:
    """What today's plan has the NPC do at `moment` (the same hour, for another day)."""
    mind = scene.world.mind(scene.agent.agent_id)
    if mind.plan is None or mind.plan_day is None:
        return ""
    day_seconds = (moment - mind.plan_day) % (24 * 3600.0)
    block, _, _ = block_at(mind.plan, mind.plan_day, mind.plan_day + day_seconds)
    at = clock_of(moment)
    same_day = mind.plan_day <= moment < mind.plan_day + 24 * 3600.0
    later = "" if same_day else " as usual"
    return sentence(f"At {at} I'll be {progressive(block.activity)}{later}")


def doing_now(scene: Scene) -> str:
    mind = scene.world.mind(scene.agent.agent_id)
    if mind.action is not None and mind.action.description:
        return sentence(f"I'm {progressive(mind.action.description)} right now")
    return persona_said(scene).get("doing", "")


def progressive(activity: str) -> str:
    """An activity as it follows "I'm" or "I'll be": its first word's -ing form when it
    is a verb in the base form ("open the forge" -> "opening the forge")."""
    first, _, rest = activity.strip().partition(" ")
    low = first.lower()
    lemmas = getAllLemmas(low, upos="VERB").get("VERB", ())
    if low in lemmas and (ing := getInflection(low, tag="VBG")):
        return f"{ing[0]} {rest}".strip()
    return activity.strip()


def clock_of(moment: GameTime) -> str:
    at = dt.datetime.fromtimestamp(moment, dt.UTC)
    hour = at.hour % 12 or 12
    half = "am" if at.hour < 12 else "pm"
    return f"{hour} {half}" if not at.minute else f"{hour}:{at.minute:02d} {half}"


def place_name(address: str) -> str:
    """A place as said: its area ('the Red Boar Tavern', 'the gatehouse')."""
    named = parts(address) or [address]
    area = named[0]
    if area.lower().startswith("the ") or "'s " in area:
        return area
    return f"the {area}"


def place_as_said(address: str, text: str) -> str:
    """A place as a line names it: the part of its address the line says, the spot
    first ("the med bay" of "Kestrel Station:Ring A:med bay"); else its area."""
    words = f" {' '.join(lower_words(text))} "
    for part in reversed(parts(address)):
        if f" {' '.join(lower_words(part))} " in words:
            return _the(part)
    return place_name(address)


def place_phrase(address: str) -> str:
    """A place as said in directions: its spot in its area ("the cantina at Ring C",
    "the forge at the Holt Smithy"), or its area alone when the spot is the area's own
    kind ("Marsh Bakery" for "Marsh Bakery:bakery")."""
    named = parts(address) or [address]
    if len(named) == 1:
        return _the(named[0])
    area, spot_name = named[0], named[1]
    if spot_name.lower() in area.lower():
        return _the(area)
    return f"the {spot_name} at {_the(area)}"


def _the(name: str) -> str:
    """A name with the article it takes: none for someone's ("Mira's Cottage"), one
    that has it ("The Anchor"), or a designated one ("Ring C", "Bay 3")."""
    last = name.split()[-1] if name.split() else ""
    if "'s " in name or name.lower().startswith("the ") or len(last) == 1 or last.isdecimal():
        return name
    return f"the {name}"


def dont_know(scene: Scene) -> str:
    """That the NPC does not know, about what was asked: the place, person or thing it
    names, else "that"."""
    named = [place_name(p) for p in scene.heard.places] + list(scene.heard.strangers)
    return sentence(f"I'm afraid I don't know anything about {named[0] if named else 'that'}")


def lowered(text: str) -> str:
    """A sentence to follow "that": its first letter lowercase when its first word is an
    English word (not "I", not a name)."""
    first = text.split(" ", 1)[0]
    if first == "I" or not getAllLemmas(first.lower()):
        return text.rstrip(".")
    return (text[:1].lower() + text[1:]).rstrip(".")
