"""Composers of questions: of fact (by facet: the NPC itself, its plans, its past,
people, news, situations put to it), opinions and feelings."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from lemminflect import getAllLemmas

from npc_brain.lexicon import DOING, SPEAKING
from npc_brain.memory.commitments import Commitment
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, SourceKind
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.when import DAY, HOUR, Window, past_tense, perfect
from npc_brain.mind.talk.acts import Act, Facet
from npc_brain.mind.talk.answers import key_terms, said_line
from npc_brain.mind.talk.intent import an_event
from npc_brain.mind.talk.invitation import said_when
from npc_brain.mind.talk.realise import described, first_person, sentence, turned_round
from npc_brain.mind.talk.relations import relationship
from npc_brain.mind.talk.roles import keepers_of, role_likeness
from npc_brain.mind.talk.scene import (
    CANDIDATES,
    RELATED,
    RELEVANT,
    Answer,
    Composer,
    Scene,
    doing_now,
    dont_know,
    has_plan,
    lowered,
    own,
    persona_said,
    place_as_said,
    place_name,
    planned,
    plans_within,
    relevant,
)
from npc_brain.mind.talk.slots import Slot, ago, asked_for, holds, not_known
from npc_brain.mind.talk.understand import asks_doing_now, thing_asked, to_you
from npc_brain.words import FIRST, PLACE_PREPOSITIONS, PREPOSITIONS, lower_words, sentences

NEWS_WEIGHTS = Weights(0.5, 3.0, 1.0)  # news: what mattered, lately


NOTABLE = 6.0  # importance from which an event the NPC saw itself is news


NEWS_DAYS = 7  # how old news may be, in game days


async def _fact(scene: Scene) -> Answer:
    heard = scene.heard
    if heard.strangers and not heard.people and not await _mentioned(scene, heard.strangers[0]):
        name = heard.strangers[0]
        what = "a place" if named_as_place(heard.text, name) else "anyone"
        return Answer((f"I don't think I know {what} called {name}.",))
    if heard.people:
        return await _about_people(scene)
    if _asks_whose_work(heard.text) and (whose := await _whose_work(scene)):
        return whose  # "Who runs the fish market?"
    if asks_doing_now(heard.text, heard.when, scene.now) and (doing := doing_now(scene)):
        return Answer((doing,), (doing,), answered=True)  # "Busy?", "What are you doing?"
    facet = heard.facet or Facet.WORLD
    if facet == Facet.REACT:
        return _react(scene)
    if facet == Facet.SELF:
        return await _about_self(scene)
    if facet == Facet.NEWS and heard.when is None:
        return await _news(scene)
    ahead = heard.when is not None and heard.when.future(scene.now) and not perfect(heard.text)
    if facet == Facet.PLANS or ahead:
        return await _plans(scene)
    return await _memories(scene)


async def _opinion(scene: Scene) -> Answer:
    if scene.heard.people:
        return await _opinion_of(scene)
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    for address in scene.heard.places:  # what it knows of the place asked about
        name = place_as_said(address, scene.heard.text)
        about = [m for m in recalled if name.lower() in m.description.lower()]
        if about:
            said = (sentence(f"{name}? {scene.say(about[0])}"),)
            return Answer(said, tuple(scene.grounds), answered=True)
        kept = [k for k in keepers_of(scene, address) if k.name != scene.me]
        if kept:  # else who keeps it: "The mill? Oskar Lind grinds the valley's grain."
            keeper = described(kept[0].name, kept[0].learned, kept[0].pronoun)
            return Answer((sentence(f"{name}? {keeper}"),), (keeper,), answered=True)
    found = await relevant(scene, recalled)
    if found:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    return Answer(("I don't have much of an opinion on that.",))


async def _feelings(scene: Scene) -> Answer:
    kinds = [MemoryKind.REFLECTION, MemoryKind.THOUGHT, MemoryKind.OBSERVATION]
    recalled = await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds)
    concluded = [m for m in recalled if m.kind in (MemoryKind.REFLECTION, MemoryKind.THOUGHT)]
    # what bears on the line; else what the NPC concluded about its life, nearest first
    found = await relevant(scene, recalled) or concluded
    if found:
        return Answer(
            ("I've been thinking about this.", scene.say(found[0])),
            tuple(scene.grounds),
            answered=True,
        )
    traits = persona_said(scene).get("traits")
    return Answer(("Nothing much troubles me right now.", *([traits] if traits else [])))


def _react(scene: Scene) -> Answer:
    """What the NPC would do in the situation put to it: it sees to it (the model may
    word how)."""
    first = (sentences(scene.heard.text) or [""])[0].rstrip(".!? ")
    condition = re.search(r"\bif\b\s*(.+)", first, re.IGNORECASE)  # "What would you do if ..."
    situation = _as_heard(condition[1] if condition else first)
    return Answer((sentence(f"If {situation}, I'd see to it right away"),))


def _as_heard(text: str) -> str:
    """A line put to the NPC in the second person, as the NPC says it back ("Your cart
    has lost a wheel" -> "my cart has lost a wheel"; "you are" -> "I am")."""
    joined = turned_round(text)
    first = joined.split(" ")[0]
    name = first.istitle() and key_terms(first) and not getAllLemmas(first.lower())
    if first.split("'")[0] == "I" or name:
        return joined  # "I", or a name
    return joined[:1].lower() + joined[1:]


def _asks_whose_work(text: str) -> bool:
    """A who-question of the present, not of the NPC ("Who sells rope?")."""
    return asked_for(text) == Slot.PERSON and not to_you(text) and not past_tense(text)


async def _whose_work(scene: Scene) -> Answer | None:
    """Who a who-question asks about: a memory that bears on it and names someone
    ("Dafydd Moss runs the fish market on the quay"); else the one of the world's
    people whose role it asks about, said with what they are, when one is near enough."""
    found = await relevant(scene, await scene.recall(scene.heard.text, CANDIDATES))
    people = {**scene.people, scene.agent.agent_id: scene.me}
    if any(holds(Slot.PERSON, m.description, scene.now, people, scene.places) for m in found):
        return await _answered(scene, found)
    likeness = await role_likeness(scene)
    likeness.pop(scene.agent.agent_id, None)
    best = max(likeness, key=likeness.__getitem__, default="")
    agent = scene.world.store.get_agent(best) if best else None
    if agent is None or likeness[best] < WHOSE:
        return None
    said = described(agent.persona.name, agent.persona.learned, agent.persona.pronoun)
    return Answer((said,), (said,), answered=True) if said else None


WHOSE = 0.4  # cosine of a who-question to a role from which that role is the answer


async def _about_self(scene: Scene) -> Answer:
    """Who the NPC is (its name and what it does), or the sentence of its persona the
    line asks about (age, home, routine, doing); a memory of its own past when that is
    nearer the line than any of them ("Who taught you your trade?")."""
    p = scene.agent.persona
    said = {"name": f"My name is {p.name}.", **persona_said(scene)}
    if p.age:
        said["age"] = f"I'm {p.age} years old."
    if p.home_address:
        said["home"] = sentence(f"I live at {place_name(p.home_address)}")
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    mine = [m for m in recalled if own(m, scene)]
    texts = [*said.values(), *(m.description for m in mine)]
    vectors = await scene.embed(texts)
    likeness = vectors @ scene.heard.vector
    # a persona sentence is also as near as the questions that ask for it ("What is
    # your job?" asks for what it is, though its routine may be nearer in words)
    asking = [(key, q) for key in said for q in ASKS_FOR.get(key, ())]
    if asking:
        nearest = (await scene.embed([q for _, q in asking])) @ scene.heard.vector
        keys = list(said)
        for (key, _), x in zip(asking, nearest, strict=True):
            likeness[keys.index(key)] = max(likeness[keys.index(key)], float(x))
    asked = key_terms(scene.heard.text) - key_terms(scene.me)
    slot = asked_for(scene.heard.text)
    people = {**scene.people, scene.agent.agent_id: p.name}

    def fits(text: str) -> bool:  # holds what the question asks for ("how long": a time)
        return slot is not None and holds(slot, text, scene.now, people, scene.places)

    # what holds what is asked and shares most of the line's words, then what is nearest;
    # a memory shares a word with the line, or holds what is asked and bears on it
    # asked of its past ("where did you grow up?"), its memories before its persona,
    # which says what it is now ("I live at Ring C")
    back = past_tense(scene.heard.text)
    rank = [
        (fits(t), back and i >= len(said), len(asked & key_terms(t)), float(x))
        for i, (t, x) in enumerate(zip(texts, likeness, strict=True))
    ]
    eligible = [
        i
        for i in range(len(texts))
        if i < len(said) or rank[i][2] or (rank[i][0] and rank[i][3] >= RELATED)
    ]
    best = max(eligible, key=lambda i: rank[i])
    if best >= len(said):  # a memory of its own past ("Who taught you your trade?")
        return Answer((scene.say(mine[best - len(said)]),), tuple(scene.grounds), answered=True)
    key = list(said)[best]
    if key in WHO:  # who it is: its name and what it does
        chosen = [said["name"], *([said["identity"]] if "identity" in said else [])]
    else:
        chosen = [texts[best]]
    return Answer(tuple(chosen), tuple(chosen), answered=True)


# Questions that ask for each sentence of a persona, as English asks them.
ASKS_FOR = {
    "name": ("What's your name?", "What are you called?"),
    "identity": ("What is your job?", "What do you do for a living?", "What is your trade?"),
    "traits": ("What are you like?", "What kind of person are you?"),
    "routine": ("What is a normal day like for you?", "When do you start work?"),
    "doing": ("What are you doing right now?", "What are you busy with these days?"),
    "age": ("How old are you?",),
    "home": ("Where do you live?",),
}


WHO = ("name", "identity", "traits")  # persona sentences that answer "who are you?"


async def _opinion_of(scene: Scene) -> Answer:
    """What the NPC thinks of the person asked about: what it concluded about them (a
    reflection: "I think Kofi Osei keeps me up to date."), else its view of them (the
    relationship), else what it knows of them, as from someone who does not know them
    well."""
    named = scene.heard.people[0]
    name = scene.people[named]
    first = name.split()[0]
    recalled = await scene.recall(f"{name} {scene.heard.text}", CANDIDATES, kinds=list(CONCLUSIONS))
    concluded = [m for m in recalled if first.lower() in m.description.lower()]
    if concluded:
        said = scene.say(concluded[0])  # "I think ..." of a reflection that says so
        thought = said if lower_words(said)[:2] == ["i", "think"] else f"I think {lowered(said)}"
        return Answer((sentence(thought),), tuple(scene.grounds), answered=True)
    if view := relationship(scene.world, scene.agent.agent_id, named):
        return Answer((first_person(view, scene.me, scene.speaker),), (view,), answered=True)
    known = await _about_people(scene)
    if not known.answered:
        return known
    return Answer(
        (f"I don't know {first} well yet.", *known.sentences), known.grounds, answered=True
    )


async def _about_people(scene: Scene) -> Answer:
    named = scene.heard.people[0]
    name = scene.people[named]
    view = relationship(scene.world, scene.agent.agent_id, named)
    recalled = await scene.recall(f"{name} {scene.heard.text}", CANDIDATES)
    first = name.split()[0].lower()
    about = [m for m in recalled if m.subject == named or first in m.description.lower()]
    # what bears on the question; else what the person did or said that it knows
    # ("Is the dock chief leaving?": "End of the month, I'm done."), or thinks of them
    theirs = [m for m in about if m.description.lower().startswith(first) or m.kind in CONCLUSIONS][
        :1
    ]
    found = await relevant(scene, about, floor=0.0) or theirs
    if found:
        return await _answered(scene, found)
    if view:
        return Answer((first_person(view, scene.me, scene.speaker),), (view,), answered=True)
    return Answer((f"I don't know much about {name}.",))


async def _news(scene: Scene) -> Answer:
    """News about what the line names ("any news about the gate?"), else that it has
    heard nothing of it; asked for news in general, the news that mattered most lately:
    what someone told the NPC, or an event it saw that mattered."""
    kinds = [MemoryKind.OBSERVATION, MemoryKind.DIALOGUE]
    about = await relevant(scene, await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds))
    if about:
        return await _answered(scene, about)
    named = thing_asked(scene.heard.text) or next(map(place_name, scene.heard.places), "")
    if named:  # "Any news of the auction?" is no question about the latest news
        return Answer((f"No, I haven't heard anything about {named}.",))
    recalled = await scene.recall(scene.heard.text, CANDIDATES, NEWS_WEIGHTS, kinds=kinds)
    news = [m for m in recalled if _newsworthy(m, scene)]
    if news:
        return Answer((scene.say(news[0]),), tuple(scene.grounds), answered=True)
    doing = doing_now(scene)
    return Answer(("Nothing much, it's been quiet.", *([doing] if doing else [])))


async def _plans(scene: Scene) -> Answer:
    when = scene.heard.when
    kinds = [MemoryKind.PLAN, MemoryKind.OBSERVATION, MemoryKind.DIALOGUE]
    recalled = await scene.recall(scene.heard.text, CANDIDATES, kinds=kinds)
    bearing = await relevant(scene, recalled)
    asked_me = to_you(scene.heard.text)
    found = ([m for m in bearing if own(m, scene)] if asked_me else []) or bearing
    if not found and asked_me and when is not None:  # its plans for the time asked
        found = plans_within(scene, when.start, when.end)
    if not found and asked_me:  # asked its plans: the plans it made
        found = [m for m in recalled if m.kind == MemoryKind.PLAN and own(m, scene)]
    if when is not None and asked_me and (booked := _booked(scene, when.start, when.end)):
        said = tuple(sentence(f"On {said_when(c.start)} I'll {c.activity}") for c in booked)
        return Answer(said, said, answered=True)  # what it agreed to do then
    # what it knows of others' plans; its own, from today's plan when it has one
    if found and (when is None or not has_plan(scene) or not asked_me):
        return await _answered(scene, found)
    plan = planned(scene, _moment_in(when) if when else scene.now)
    if plan:
        return Answer((plan,), (plan,), answered=True)
    routine = persona_said(scene).get("routine") or persona_said(scene).get("doing")
    if routine and to_you(scene.heard.text):
        return Answer((routine,), (routine,), answered=True)
    if not to_you(scene.heard.text):
        return Answer((dont_know(scene),))
    return Answer(("I haven't made any plans yet.",))


HALF_HOUR = 1800.0
MOST_BOOKED = 2  # commitments told for one window


def _booked(scene: Scene, start: GameTime, end: GameTime) -> list[Commitment]:
    """The commitments the NPC's memories made in [start, end) (memory/commitments.py)."""
    found = scene.world.store.commitments(scene.agent.agent_id, start, end)
    return list({c.activity: c for _, c in found}.values())[:MOST_BOOKED]


def _moment_in(when: Window) -> GameTime:
    """The moment of a window the plan is read at: its first half hour, or midday of a
    day or longer ("on Saturday": not 12:30 am, asleep)."""
    if when.end - when.start > 6 * 3600:
        return when.start + 12 * 3600 + HALF_HOUR
    return when.start + HALF_HOUR


async def _memories(scene: Scene) -> Answer:
    when = scene.heard.when
    after, before = (when.start, when.end) if when else (None, None)
    recalled = await scene.recall(
        scene.heard.text, CANDIDATES, created_after=after, created_before=before
    )
    found = _events_first(scene, await relevant(scene, recalled))
    if past_tense(scene.heard.text) and _asks_of_talk(scene.heard.text):
        found = [m for m in found if _said(m)]  # "What did the harbourmaster say?"
    found = [*_of_the_speaker(scene, recalled), *found]
    if not found and when is not None:  # what it did then, asked of it; else what happened
        found = _events_first(scene, recalled)[:1]
    if _asks_what_i_did(scene) and not any(own(m, scene) and m.kind in EVENTS for m in found):
        lately = [m for m in recalled if _done(scene, m)]  # "How did you spend your morning?"
        found = sorted(lately, key=lambda m: -m.created)[:1] + found
    if found:
        return await _answered(scene, found)
    persona = await _persona_match(scene)
    if persona:
        return Answer((persona,), (persona,), answered=True)
    concluded = [m for m in recalled if m.kind in (MemoryKind.REFLECTION, MemoryKind.THOUGHT)]
    if concluded and to_you(scene.heard.text):  # what it concluded of its own life
        return Answer((scene.say(concluded[0]),), tuple(scene.grounds), answered=True)
    present = when is not None and when.start <= scene.now <= when.end <= scene.now + HOUR
    if when is not None and not present:  # "right now" asks what is, not what it recalls
        opening = set(lower_words(when.phrase)[:1])  # "special on Friday", "about yesterday"
        about = "" if opening & PREPOSITIONS else "about "
        return Answer((sentence(f"I don't remember anything special {about}{when.phrase}"),))
    if to_you(scene.heard.text) and (doing := doing_now(scene)):  # "been busy?"
        return Answer((doing,), (doing,), answered=True)
    return Answer((dont_know(scene),))


NUMERIC = (Slot.TIME, Slot.DURATION, Slot.COUNT, Slot.AMOUNT)


def _of_the_speaker(scene: Scene, recalled: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Asked in the past tense about the speaker itself ("What did I buy from you?"),
    what the NPC saw happen that names it (by its name, or its id when the world does
    not know it), the latest first; else nothing."""
    words = set(lower_words(scene.heard.text))
    name = (scene.speaker or scene.speaker_id).lower()
    if not name or not past_tense(scene.heard.text) or not {f.lower() for f in FIRST} & words:
        return []
    named = [m for m in recalled if m.kind in EVENTS and name in m.description.lower()]
    return sorted(named, key=lambda m: -m.created)[:1]


def _asks_what_i_did(scene: Scene) -> bool:
    """Whether a line asks what the NPC has been doing ("what did you do this morning?",
    "been busy?"): of it, of the past, and for no time, person or place in particular."""
    text = scene.heard.text
    words = lower_words(text)
    looks_back = past_tense(text) or "been" in words
    doing = any(w in DOING for w in words[1:])  # "do" as the verb, not "Did you ...?"
    return to_you(text) and looks_back and doing and asked_for(text) is None


def _done(scene: Scene, memory: MemoryRecord) -> bool:
    """A thing the NPC did itself in the last day (an event it saw of its own doing)."""
    recent = scene.now - memory.created <= DAY
    return recent and own(memory, scene) and memory.kind == MemoryKind.OBSERVATION


EVENTS = (MemoryKind.OBSERVATION, MemoryKind.DIALOGUE)  # what happened, not what was thought
CONCLUSIONS = (MemoryKind.REFLECTION, MemoryKind.THOUGHT)


def _events_first(scene: Scene, memories: list[MemoryRecord]) -> list[MemoryRecord]:
    """Memories for a question of fact in the order they answer it: asked of the past,
    what happened before what was concluded or planned ("what did you do this
    morning?" is not "I feel nervous")."""
    when = scene.heard.when
    if not past_tense(scene.heard.text) and (when is None or when.start >= scene.now):
        return memories
    talk = _asks_of_talk(scene.heard.text)  # "Whom did you talk to?": what was said first
    return sorted(
        memories, key=lambda m: (talk and m.kind != MemoryKind.DIALOGUE, m.kind not in EVENTS)
    )


def _said(memory: MemoryRecord) -> bool:
    """A memory of what was said: a talk, or what someone told or the NPC overheard."""
    told = memory.source.kind in (SourceKind.TOLD, SourceKind.HEARD)
    return memory.kind == MemoryKind.DIALOGUE or told


def _asks_of_talk(text: str) -> bool:
    words = lower_words(text)
    return any(SPEAKING & set(getAllLemmas(w).get("VERB", ())) for w in words)


async def _answered(scene: Scene, found: list[MemoryRecord]) -> Answer:
    """The answer from the memories that bear on a question, best first: the first that
    holds what the question asks for (a time, a reason, a person, ...: slots.py); for
    "when" about an event the NPC saw, that memory with when it was; else the sentence
    of the persona that holds it and shares a word with the line ("When does the depot
    open?": its routine); else that it does not know that, and what it does know."""
    slot = asked_for(scene.heard.text)
    if slot is None:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    people = {**scene.people, scene.agent.agent_id: scene.me}
    when = scene.heard.when
    asked = key_terms(scene.heard.text) - key_terms(
        f"{scene.me} {scene.speaker} {when.phrase if when else ''} {slot.value} time"
    )
    names = _names_asked(scene.heard.text, found)

    def fits(text: str) -> bool:  # holds what is asked, about what the line asks of
        low = text.lower()
        # a time or a number is in many a memory: one that holds it shares a word too
        shares = slot not in NUMERIC or not asked or bool(asked & key_terms(text))
        named = all(n in low for n in names)
        return named and shares and holds(slot, text, scene.now, people, scene.places)

    # what holds it, sharing most of the line's words (then nearest); the persona's
    # sentences too ("When does the depot open?": its routine), when they share one
    options: list[tuple[str, MemoryRecord | None]]
    options = [(m.description, m) for m in found if fits(m.description)]
    options += [(t, None) for t in persona_said(scene).values() if fits(t)]
    if options:
        best = max(range(len(options)), key=lambda i: (len(asked & key_terms(options[i][0])), -i))
        text, memory = options[best]
        if memory is not None:
            return Answer((scene.say(memory),), tuple(scene.grounds), answered=True)
        return Answer((text,), (text,), answered=True)
    if slot == Slot.TIME and past_tense(scene.heard.text):
        seen = [m for m in found if m.source.kind == SourceKind.SEEN]
        if seen:
            said = scene.say(seen[0])
            return Answer(
                (said, sentence(f"That was {ago(seen[0].created, scene.now)}")),
                tuple(scene.grounds),
                answered=True,
            )
    known = found[:2] if slot == Slot.REASON else found[:1]  # why: what bears on it
    told = (not_known(slot), *(scene.say(m) for m in known))
    return Answer(told, tuple(scene.grounds), answered=True)


def _names_asked(line: str, memories: Sequence[MemoryRecord]) -> set[str]:
    """The words of a line that the NPC's memories write as names ("the magpie" when
    they say "the freighter Magpie"), lowercase: what an answer must be about."""
    words = {w for w in lower_words(line) if len(w) > 2}
    written = {
        w.lower() for m in memories for w in re.findall(r"(?<=[a-z,] )[A-Z][a-z]+", m.description)
    }
    return words & written


def named_as_place(text: str, name: str) -> bool:
    """Whether a line says a name where a place goes: after a preposition of place, with
    or without "the" ("out in the Whisperwood", "towards Highcastle"); not "from", "to"
    or "for", which people follow as often ("a letter from Marla", "talk to Marla")."""
    words = lower_words(text)
    first = lower_words(name)[:1]
    for i in (i for i, w in enumerate(words) if first and w == first[0]):
        before = words[i - 2 : i] if i >= 2 and words[i - 1] == "the" else words[i - 1 : i]
        if before and before[0] in _TOWARDS_A_PLACE:
            return True
    return False


_TOWARDS_A_PLACE = (PLACE_PREPOSITIONS | {"towards", "toward"}) - {"from"}


async def _mentioned(scene: Scene, name: str) -> bool:
    """Whether a memory of the NPC names `name` (a name nobody of the world has, and no
    place it knows: someone or something it heard of), besides what the speaker and the
    NPC said to each other (asking twice does not make a name known)."""
    stream = scene.world.stream(scene.agent.agent_id)
    if not stream.mentions(name):
        return False
    us = {scene.speaker or scene.speaker_id}
    low = name.lower()
    return any(
        low in m.description.lower()
        and not ((line := said_line(m.description)) and us & set(line[:2]))
        for m in stream.records
    )


async def _persona_match(scene: Scene) -> str:
    """The sentence of the persona that bears on the line, if one does."""
    texts = list(persona_said(scene).values())
    if not texts:
        return ""
    vectors = await scene.embed(texts)
    likeness = vectors @ scene.heard.vector
    best = int(np.argmax(likeness))
    return texts[best] if float(likeness[best]) >= RELEVANT else ""


def _newsworthy(memory: MemoryRecord, scene: Scene) -> bool:
    """News for the speaker: told by someone else (not the speaker), an event the NPC
    saw that mattered (not a sighting of someone: "Ana is talking with Bram" is no
    news), or one the game wrote into its memory ("A sandstorm buried the road
    yesterday"; not a standing fact such as a price); not a line the two said to each
    other."""
    if memory.source.agent_id == scene.speaker_id:
        return False
    if memory.source.kind == SourceKind.SEEN and memory.subject:
        return False
    line = said_line(memory.description)
    if line is not None and scene.speaker and scene.speaker in (line[0], line[1]):
        return False
    told = memory.source.kind in (SourceKind.HEARD, SourceKind.TOLD)
    recent = scene.now - memory.created <= NEWS_DAYS * 24 * 3600.0
    if memory.source.kind == SourceKind.AUTHOR:
        return recent and an_event(memory)
    return recent and (told or memory.importance >= NOTABLE)


QUESTIONS: dict[Act, Composer] = {
    Act.FACT: _fact,
    Act.OPINION: _opinion,
    Act.FEELINGS: _feelings,
}
