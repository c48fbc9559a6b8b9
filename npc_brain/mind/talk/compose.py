"""Deciding what an NPC answers, from structured state: one composer per dialogue act.

A composer reads the persona, today's plan, what the NPC thinks of the people named,
the memories that bear on the line (recalled with the act's own query and time window;
only those it may tell the speaker), and the places it knows; it returns the answer as
sentences already realised in the NPC's own voice (talk/realise.py), with what they
rest on. No model call: the model may word one more sentence afterwards (reply.py).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from lemminflect import getAllLemmas, getInflection
from numpy.typing import NDArray

from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, SourceKind
from npc_brain.memory.retrieval import Weights
from npc_brain.mind.plan.affordances import parts
from npc_brain.mind.plan.planner import block_at
from npc_brain.mind.talk.acts import Act, Facet
from npc_brain.mind.talk.answers import key_terms, said_line, ungreeted
from npc_brain.mind.talk.realise import first_person, persona_sentences, reported, sentence
from npc_brain.mind.talk.relations import relationship
from npc_brain.mind.talk.understand import Heard
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

# MiniLM cosine from which a memory bears on a question: questions that memories answer
# scored 0.51-0.83 with them, unrelated questions 0.30-0.32 (bench/interview.py's set).
RELEVANT = 0.4
RELATED = 0.25  # with a content word in common, or inside the time asked about
GRANTS = 0.3  # cosine of a request to a sentence of the role from which the role grants it
NEWS_WEIGHTS = Weights(0.5, 3.0, 1.0)  # news: what mattered, lately
# A question asked: what bears on it, whenever it happened (the paper's equal weights
# bury a week-old fact under this morning's: they stay for planning and reacting).
ASKED_WEIGHTS = Weights(0.1, 0.2, 1.0)
NOTABLE = 6.0  # importance from which an event the NPC saw itself is news
NEWS_DAYS = 7  # how old news may be, in game days
CANDIDATES = 12


@dataclass(frozen=True)
class Answer:
    """What the NPC says (sentences, in its own voice), what they rest on (memories'
    and facts' texts), whether it ends the conversation, whether it states a fact the
    line asked for (`answered`), and whether the model may add a sentence (`worded`)."""

    sentences: tuple[str, ...]
    grounds: tuple[str, ...] = ()
    ends: bool = False
    answered: bool = False
    worded: bool = False

    @property
    def text(self) -> str:
        return " ".join(s for s in self.sentences if s)


Recall = Callable[..., Awaitable[list[MemoryRecord]]]
Embed = Callable[[Sequence[str]], Awaitable[NDArray[np.float32]]]


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
            return sentence(f"{teller} told me that {_lowered(text)}")
        if line := said_line(text):  # the greeting in it was for its listener only
            speaker, listener, words = line[0], line[1], ungreeted(line[2])
            if listener == self.me and speaker != self.me:  # "Tomas told me he's selling"
                first = re.split(r"(?<=[.!?])\s+", words, maxsplit=1)[0]  # what it told
                return reported(speaker, first, "me", self.pronoun_of(speaker))
            text = f'{speaker} said to {listener}: "{words}"'
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


Composer = Callable[[Scene], Awaitable[Answer]]
COMPOSERS: dict[Act, Composer] = {}


def composer(act: Act) -> Callable[[Composer], Composer]:
    def register(fn: Composer) -> Composer:
        COMPOSERS[act] = fn
        return fn

    return register


async def compose(scene: Scene) -> Answer:
    """The answer to the line, by the composer of its act."""
    return await COMPOSERS[scene.heard.act](scene)


# Social acts -------------------------------------------------------------------------


@composer(Act.GREETING)
async def _greeting(scene: Scene) -> Answer:
    hello = _time_greeting(scene.now)
    first = scene.speaker.split()[0] if scene.speaker else ""
    opening = f"{hello}, {first}!" if first else f"{hello}!"
    met = bool(scene.speaker_id) and bool(
        relationship(scene.world, scene.agent.agent_id, scene.speaker_id)
    )
    who = _self(scene).get("identity", "")
    intro = "" if met or not who else f"I'm {scene.me.split()[0]}. {who}"
    return Answer((opening, intro) if intro else (opening, "Good to see you."), worded=True)


@composer(Act.FAREWELL)
async def _farewell(scene: Scene) -> Answer:
    first = scene.speaker.split()[0] if scene.speaker else ""
    return Answer((f"Goodbye, {first}!" if first else "Goodbye!", "Take care."), ends=True)


_GRATITUDE = "Thank you for your help."
_PRAISE = "You did a wonderful job."


@composer(Act.THANKS)
async def _thanks(scene: Scene) -> Answer:
    vectors = await scene.embed([_GRATITUDE, _PRAISE])
    thanked = float(vectors[0] @ scene.heard.vector) >= float(vectors[1] @ scene.heard.vector)
    said = (
        ("You're welcome.", "Glad to help.") if thanked else ("Thank you!", "That's kind of you.")
    )
    return Answer(said, worded=True)


@composer(Act.HOW_ARE_YOU)
async def _how_are_you(scene: Scene) -> Answer:
    doing = _doing_now(scene)
    return Answer(
        ("I'm well, thank you.", doing) if doing else ("I'm well, thank you.",), worded=True
    )


@composer(Act.SMALL_TALK)
async def _small_talk(scene: Scene) -> Answer:
    doing = _doing_now(scene)
    return Answer(("True enough.", doing) if doing else ("True enough.",), worded=True)


@composer(Act.THREAT)
async def _threat(scene: Scene) -> Answer:
    return Answer(("There's no call for that.", "Leave me be, or you'll regret it."))


@composer(Act.OTHER)
async def _other(scene: Scene) -> Answer:
    return Answer(("I'm not sure what you mean.",), worded=True)


# Wants: requests and trade -----------------------------------------------------------


@composer(Act.REQUEST)
async def _request(scene: Scene) -> Answer:
    """Granted when the request is close to what the NPC's role does (its identity,
    routine or doing) or to what it sells (then with the price); else declined, naming
    who of the world does such things."""
    role = [s for key, s in _self(scene).items() if key in ("identity", "routine", "doing")]
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    wares = [m for m in await _relevant(scene, recalled) if _priced(m) and _own(m, scene)]
    if wares:
        return Answer(("Of course.", scene.say(wares[0])), tuple(scene.grounds), answered=True)
    if role:
        vectors = await scene.embed(role)
        likeness = vectors @ scene.heard.vector
        best = int(np.argmax(likeness))
        if float(likeness[best]) >= GRANTS:
            said = ("Of course, I can help with that.", role[best])
            return Answer(said, (role[best],), answered=True, worded=True)
    declined = ["I'm sorry, I can't help you with that."]
    if other := await _who_does(scene):
        declined.append(f"You could ask {other}.")
    return Answer(tuple(declined), tuple(declined[1:]), worded=True)


async def _who_does(scene: Scene) -> str:
    """The other agent of the world whose role is nearest the line, if near enough."""
    others = [
        (name, agent.persona.learned)
        for agent_id, name in scene.people.items()
        if (agent := scene.world.store.get_agent(agent_id)) is not None and agent.persona.learned
    ]
    if not others:
        return ""
    vectors = await scene.embed([role for _, role in others])
    likeness = vectors @ scene.heard.vector
    best = int(np.argmax(likeness))
    return others[best][0] if float(likeness[best]) >= GRANTS else ""


@composer(Act.TRADE)
async def _trade(scene: Scene) -> Answer:
    """The price of what the line asks about, from the memories that say prices (what
    the game wrote of the NPC's wares); asked about nothing in particular, the first
    few of them."""
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    found = await _relevant(scene, recalled)
    priced = [m for m in found if _priced(m)]
    if priced:
        return Answer((scene.say(priced[0]),), tuple(scene.grounds), answered=True)
    wares = [m for m in recalled if _priced(m) and _own(m, scene)][:WARES]
    if wares:
        return Answer(tuple(scene.say(m) for m in wares), tuple(scene.grounds), answered=True)
    return Answer(("I'm afraid I have nothing like that to sell.",))


WARES = 3  # priced memories said when the line asks about none in particular


def _priced(memory: MemoryRecord) -> bool:
    return any(c.isdigit() for c in memory.description)


# Questions -----------------------------------------------------------------------------


@composer(Act.FACT)
async def _fact(scene: Scene) -> Answer:
    heard = scene.heard
    if heard.strangers and not heard.people and not await _mentioned(scene, heard.strangers[0]):
        return Answer((f"I don't think I know anyone called {heard.strangers[0]}.",))
    if heard.people:
        return await _about_people(scene)
    facet = heard.facet or Facet.WORLD
    if facet == Facet.REACT:
        return _react(scene)
    if facet == Facet.SELF:
        return await _about_self(scene)
    if facet == Facet.NEWS and heard.when is None:
        return await _news(scene)
    if facet == Facet.PLANS or (heard.when is not None and heard.when.future(scene.now)):
        return await _plans(scene)
    return await _memories(scene)


@composer(Act.OPINION)
async def _opinion(scene: Scene) -> Answer:
    if scene.heard.people:
        answer = await _about_people(scene)
        return Answer(answer.sentences, answer.grounds, answered=answer.answered, worded=True)
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    for address in scene.heard.places:  # what it knows of the place asked about
        name = _place(address).removeprefix("the ")
        about = [m for m in recalled if name.lower() in m.description.lower()]
        if about:
            said = (sentence(f"{name}? {scene.say(about[0])}"),)
            return Answer(said, tuple(scene.grounds), answered=True, worded=True)
    found = await _relevant(scene, recalled)
    if found:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True, worded=True)
    return Answer(("I don't have much of an opinion on that.",), worded=True)


@composer(Act.FEELINGS)
async def _feelings(scene: Scene) -> Answer:
    kinds = [MemoryKind.REFLECTION, MemoryKind.THOUGHT, MemoryKind.OBSERVATION]
    recalled = await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds)
    concluded = [m for m in recalled if m.kind in (MemoryKind.REFLECTION, MemoryKind.THOUGHT)]
    # what bears on the line; else what the NPC concluded about its life, nearest first
    found = await _relevant(scene, recalled) or concluded
    if found:
        return Answer(
            ("I've been thinking about this.", scene.say(found[0])),
            tuple(scene.grounds),
            answered=True,
            worded=True,
        )
    traits = _self(scene).get("traits")
    return Answer(
        ("Nothing much troubles me right now.", *([traits] if traits else [])), worded=True
    )


@composer(Act.DIRECTIONS)
async def _directions(scene: Scene) -> Answer:
    places = [p for p in scene.places if p != scene.agent.persona.home_address] or scene.places
    named = [p for p in scene.heard.places if p in places]
    if not named and places:
        phrases = [_place(p) for p in places]
        vectors = await scene.embed(phrases)
        likeness = vectors @ scene.heard.vector
        order = np.argsort(-likeness)
        named = [places[int(i)] for i in order[:2] if float(likeness[int(i)]) >= RELATED]
        named = named or [places[int(order[0])]]
    if not named:
        return Answer(("I'm sorry, I don't know my way around well enough to say.",))
    where = " or ".join(dict.fromkeys(_place(p) for p in named[:2]))
    scene.grounds.extend(named)
    return Answer((sentence(f"You could try {where}"),), tuple(named), answered=True, worded=True)


# Where answers come from ---------------------------------------------------------------


def _react(scene: Scene) -> Answer:
    """What the NPC would do in the situation put to it: it sees to it (the model may
    word how)."""
    first = re.split(r"(?<=[.!?])\s", scene.heard.text, maxsplit=1)[0].rstrip(".!? ")
    condition = re.search(r"\bif\b\s*(.+)", first, re.IGNORECASE)  # "What would you do if ..."
    situation = _as_heard(condition[1] if condition else first)
    return Answer((sentence(f"If {situation}, I'd see to it right away"),), worded=True)


_SECOND_TO_FIRST = {"you": "I", "your": "my", "yours": "mine", "yourself": "myself"}
_BE_AFTER_I = {"are": "am", "were": "was", "'re": "'m"}


def _as_heard(text: str) -> str:
    """A line put to the NPC in the second person, as the NPC says it back ("Your cart
    has lost a wheel" -> "my cart has lost a wheel"; "you are" -> "I am")."""
    words = re.findall(r"[\w']+|[^\w\s]", text.replace("’", "'"))
    out: list[str] = []
    for word in words:
        low = word.lower()
        if low in ("you're",):
            out.append("I'm")
        elif low in _SECOND_TO_FIRST:
            swapped = _SECOND_TO_FIRST[low]
            subject = not out or out[-1].lower() in ("if", "when", ",", "and")
            out.append("me" if low == "you" and not subject else swapped)
        elif out and out[-1] == "I" and low in _BE_AFTER_I:
            out.append(_BE_AFTER_I[low])
        else:
            out.append(word)
    joined = re.sub(r" ([,.!?;:])", r"\1", " ".join(out)).replace(" '", "'")
    first = out[0] if out else ""
    if first == "I" or (first.istitle() and key_terms(first) and not getAllLemmas(first.lower())):
        return joined  # "I", or a name
    return joined[:1].lower() + joined[1:]


async def _about_self(scene: Scene) -> Answer:
    """Who the NPC is (its name and what it does), or the sentence of its persona the
    line asks about (age, home, routine, doing); a memory of its own past when that is
    nearer the line than any of them ("Who taught you your trade?")."""
    p = scene.agent.persona
    said = {"name": f"My name is {p.name}.", **_self(scene)}
    if p.age:
        said["age"] = f"I'm {p.age} years old."
    if p.home_address:
        said["home"] = sentence(f"I live at {_place(p.home_address)}")
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    own = [m for m in recalled if _own(m, scene)]
    texts = [*said.values(), *(m.description for m in own)]
    vectors = await scene.embed(texts)
    likeness = vectors @ scene.heard.vector
    asked = key_terms(scene.heard.text) - key_terms(scene.me)
    # what shares most of the line's words, then what is nearest it in meaning
    rank = [(len(asked & key_terms(t)), float(x)) for t, x in zip(texts, likeness, strict=True)]
    eligible = [i for i in range(len(texts)) if i < len(said) or rank[i][0]]  # memories: a word
    best = max(eligible, key=lambda i: rank[i])
    if best >= len(said):  # a memory of its own past ("Who taught you your trade?")
        return Answer((scene.say(own[best - len(said)]),), tuple(scene.grounds), answered=True)
    key = list(said)[best]
    if key in WHO:  # who it is: its name and what it does
        chosen = [said["name"], *([said["identity"]] if "identity" in said else [])]
    else:
        chosen = [texts[best]]
    return Answer(tuple(chosen), tuple(chosen), answered=True)


WHO = ("name", "identity", "traits")  # persona sentences that answer "who are you?"


async def _about_people(scene: Scene) -> Answer:
    named = scene.heard.people[0]
    name = scene.people[named]
    view = relationship(scene.world, scene.agent.agent_id, named)
    recalled = await scene.recall(f"{name} {scene.heard.text}", CANDIDATES)
    first = name.split()[0].lower()
    about = [m for m in recalled if m.subject == named or first in m.description.lower()]
    found = await _relevant(scene, about, floor=0.0)
    if found:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    if view:
        return Answer((first_person(view, scene.me, scene.speaker),), (view,), answered=True)
    return Answer((f"I don't know much about {name}.",))


async def _news(scene: Scene) -> Answer:
    """News about what the line names ("any news about the gate?"), else the news that
    mattered most lately: what someone told the NPC, or an event it saw that mattered."""
    kinds = [MemoryKind.OBSERVATION, MemoryKind.DIALOGUE]
    about = await _relevant(scene, await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds))
    if about:
        return Answer((scene.say(about[0]),), tuple(scene.grounds), answered=True)
    recalled = await scene.recall(scene.heard.text, CANDIDATES, NEWS_WEIGHTS, kinds=kinds)
    news = [m for m in recalled if _newsworthy(m, scene)]
    if news:
        return Answer((scene.say(news[0]),), tuple(scene.grounds), answered=True)
    doing = _doing_now(scene)
    return Answer(("Nothing much, it's been quiet.", *([doing] if doing else [])))


async def _plans(scene: Scene) -> Answer:
    when = scene.heard.when
    kinds = [MemoryKind.PLAN, MemoryKind.OBSERVATION, MemoryKind.DIALOGUE]
    recalled = await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds)
    relevant = await _relevant(scene, recalled)
    found = [m for m in relevant if _own(m, scene)] or relevant  # its own plans first
    if not found and _to_you(scene.heard.text):  # asked its plans: the plans it made
        found = [m for m in recalled if m.kind == MemoryKind.PLAN and _own(m, scene)]
    if found and (when is None or not _blocks(scene)):
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    planned = _planned(scene, when.start + HALF_HOUR if when else scene.now)
    if planned:
        return Answer((planned,), (planned,), answered=True)
    routine = _self(scene).get("routine") or _self(scene).get("doing")
    if routine and _to_you(scene.heard.text):
        return Answer((routine,), (routine,), answered=True)
    if not _to_you(scene.heard.text):
        return Answer((_dont_know(scene),))
    return Answer(("I haven't made any plans yet.",))


HALF_HOUR = 1800.0


async def _memories(scene: Scene) -> Answer:
    when = scene.heard.when
    after, before = (when.start, when.end) if when else (None, None)
    recalled = await scene.recall(
        scene.heard.text, CANDIDATES, created_after=after, created_before=before
    )
    found = await _relevant(scene, recalled) or (recalled[:1] if when else [])
    if found:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    persona = await _persona_match(scene)
    if persona:
        return Answer((persona,), (persona,), answered=True)
    if when is not None:
        return Answer((sentence(f"I don't remember anything special about {when.phrase}"),))
    return Answer((_dont_know(scene),))


def _dont_know(scene: Scene) -> str:
    """That the NPC does not know, about what was asked: the place, person or thing it
    names, else "that"."""
    named = [_place(p) for p in scene.heard.places] + list(scene.heard.strangers)
    return sentence(f"I'm afraid I don't know anything about {named[0] if named else 'that'}")


_YOU = frozenset(("you", "your", "yours", "yourself", "u", "ya"))


def _to_you(text: str) -> bool:
    """Whether a line asks about the NPC itself (it says "you" or "your")."""
    return any(w.strip("?.!,'") in _YOU for w in text.lower().split())


async def _mentioned(scene: Scene, name: str) -> bool:
    """Whether a memory of the NPC names `name` (a name nobody of the world has, and no
    place it knows: someone or something it heard of)."""
    return scene.world.stream(scene.agent.agent_id).mentions(name)


async def _persona_match(scene: Scene) -> str:
    """The sentence of the persona that bears on the line, if one does."""
    texts = list(_self(scene).values())
    if not texts:
        return ""
    vectors = await scene.embed(texts)
    likeness = vectors @ scene.heard.vector
    best = int(np.argmax(likeness))
    return texts[best] if float(likeness[best]) >= RELEVANT else ""


async def _relevant(
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


def _newsworthy(memory: MemoryRecord, scene: Scene) -> bool:
    """News for the speaker: told by someone else (not the speaker), or an event the NPC
    saw that mattered (not a sighting of someone: "Maria is talking with Sam" is no
    news); not a line the two said to each other."""
    if memory.source.agent_id == scene.speaker_id:
        return False
    if memory.source.kind == SourceKind.SEEN and memory.subject:
        return False
    line = said_line(memory.description)
    if line is not None and scene.speaker and scene.speaker in (line[0], line[1]):
        return False
    told = memory.source.kind in (SourceKind.HEARD, SourceKind.TOLD)
    recent = scene.now - memory.created <= NEWS_DAYS * 24 * 3600.0
    return recent and (
        told or (memory.importance >= NOTABLE and memory.source.kind != SourceKind.AUTHOR)
    )


def _own(memory: MemoryRecord, scene: Scene) -> bool:
    """A memory of the NPC's own doings or plans."""
    first = scene.me.split()[0]
    return memory.kind == MemoryKind.PLAN or memory.description.startswith((scene.me, first))


def _self(scene: Scene) -> dict[str, str]:
    p = scene.agent.persona
    return persona_sentences(p.name, p.learned, p.innate, p.lifestyle, p.currently)


def _blocks(scene: Scene) -> bool:
    return scene.world.mind(scene.agent.agent_id).plan is not None


def _planned(scene: Scene, moment: GameTime) -> str:
    """What today's plan has the NPC do at `moment` (the same hour, for another day)."""
    mind = scene.world.mind(scene.agent.agent_id)
    if mind.plan is None or mind.plan_day is None:
        return ""
    day_seconds = (moment - mind.plan_day) % (24 * 3600.0)
    block, _, _ = block_at(mind.plan, mind.plan_day, mind.plan_day + day_seconds)
    at = _clock(moment)
    same_day = mind.plan_day <= moment < mind.plan_day + 24 * 3600.0
    later = "" if same_day else " as usual"
    return sentence(f"At {at} I'll be {_ing(block.activity)}{later}")


def _doing_now(scene: Scene) -> str:
    mind = scene.world.mind(scene.agent.agent_id)
    if mind.action is not None and mind.action.description:
        return sentence(f"I'm {_ing(mind.action.description)} right now")
    return _self(scene).get("doing", "")


def _ing(activity: str) -> str:
    """An activity as it follows "I'm" or "I'll be": its first word's -ing form when it
    is a verb in the base form ("open the forge" -> "opening the forge")."""
    first, _, rest = activity.strip().partition(" ")
    low = first.lower()
    lemmas = getAllLemmas(low, upos="VERB").get("VERB", ())
    if low in lemmas and (ing := getInflection(low, tag="VBG")):
        return f"{ing[0]} {rest}".strip()
    return activity.strip()


def _clock(moment: GameTime) -> str:
    at = dt.datetime.fromtimestamp(moment, dt.UTC)
    hour = at.hour % 12 or 12
    half = "am" if at.hour < 12 else "pm"
    return f"{hour} {half}" if not at.minute else f"{hour}:{at.minute:02d} {half}"


def _time_greeting(now: GameTime) -> str:
    hour = dt.datetime.fromtimestamp(now, dt.UTC).hour
    if 5 <= hour < 12:
        return "Good morning"
    if 12 <= hour < 18:
        return "Good afternoon"
    if 18 <= hour < 23:
        return "Good evening"
    return "Hello"


def _place(address: str) -> str:
    """A place as said: its area ('the Red Boar Tavern', 'the gatehouse')."""
    named = parts(address) or [address]
    area = named[0]
    if area.lower().startswith("the ") or "'s " in area:
        return area
    return f"the {area}"


def _lowered(text: str) -> str:
    """A sentence to follow "that": its first letter lowercase when its first word is an
    English word (not "I", not a name)."""
    first = text.split(" ", 1)[0]
    if first == "I" or not getAllLemmas(first.lower()):
        return text.rstrip(".")
    return (text[:1].lower() + text[1:]).rstrip(".")
