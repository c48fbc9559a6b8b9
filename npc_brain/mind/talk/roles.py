"""Who of the world does what: each agent's role as its parts (what its persona says
it does, its routine, what the places it keeps afford, what the game says it sells),
and how near a line is to each (a request is the work of the nearest; "Who runs the
fish market?" is answered by it)."""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources

from lemminflect import getAllLemmas

from npc_brain.memory.records import MemoryRecord, SourceKind
from npc_brain.mind.plan.affordances import affordances, parts
from npc_brain.mind.talk.realise import first_person, persona_sentences, promised
from npc_brain.mind.talk.scene import Scene, priced
from npc_brain.persona import Persona
from npc_brain.words import CLAUSE_WORDS, PLACE_PREPOSITIONS, lower_words, sentences

FITS = 0.2  # cosine of a request to a role from which the role may do it
MARGIN = 0.03  # how far below another's role the NPC's own may be and it still does it


def own_work(mine: float, theirs: float) -> bool:
    """Whether a request is the NPC's own work, by how near it is to the NPC's role
    (`mine`) and to the nearest other's (`theirs`)."""
    return mine >= FITS and mine + MARGIN >= theirs


async def role_likeness(scene: Scene) -> dict[str, float]:
    """How near the line is to each agent's role (the NPC's own included), by agent id:
    its best cosine to the role's parts (what the agent does, its routine, what the
    places it keeps afford, what the game says it sells). A part that two roles share
    ("resting", where both eat and sleep at the inn) is no part of either."""
    roles: dict[str, list[str]] = {}
    for agent_id in [scene.agent.agent_id, *scene.people]:
        agent = scene.world.store.get_agent(agent_id)
        if agent is None:
            continue
        p = agent.persona
        said = persona_sentences(p.name, p.learned, "", p.lifestyle, "").values()
        work = f"{p.learned} {p.lifestyle}"  # "runs the med bay from 0800 to 2000"
        kept = [
            a
            for place in scene.places
            if keeps(work, place) or place == p.home_address
            for a in affordances(place)
        ]
        sold = [first_person(m.description, p.name) for m in wares(scene, agent_id)]
        done = services(p.learned)  # what such people are asked to do
        roles[agent_id] = [*(s for text in said for s in sentences(text)), *kept, *sold, *done]
    shared = Counter(text for role in roles.values() for text in set(role))
    for agent_id, role in roles.items():  # a part two roles share tells them apart in nothing
        roles[agent_id] = [text for text in role if shared[text] == 1]
    texts = [text for role in roles.values() for text in role]
    if not texts:
        return {}
    asked = promised(scene.heard.text)  # what is asked, without "can you" and the rest
    specific = len(asked.split()) > 1  # "help" says nothing of what: the line does
    vector = (await scene.embed([asked]))[0] if specific else scene.heard.vector
    likeness = iter((await scene.embed(texts)) @ vector)
    return {a: max(float(next(likeness)) for _ in role) for a, role in roles.items() if role}


@cache
def services(learned: str) -> tuple[str, ...]:
    """What people are asked to do whose persona says it is, or keeps, what an entry of
    data/services.tsv names ("the station's medic": "look at your arm", ...; "keeps the
    Red Boar tavern": "pour you a drink", ...), as written or as lemmas ("teaches":
    teach). A place the persona is only at is none of its occupation ("a bard at the
    Red Boar" pours no drinks). Read once a persona: every request asks it."""
    said = occupation_words(learned)
    lemmas = [(*(ls := getAllLemmas(w)).get("NOUN", ()), *ls.get("VERB", ()), w)[0] for w in said]
    words = f" {' '.join(said)} {' '.join(lemmas)} "
    return tuple(
        service
        for names, service in _services()
        if any(f" {name.replace('_', ' ')} " in words for name in names)
    )


def occupation_words(learned: str) -> list[str]:
    """A persona's words of what it is and keeps, lowercase ("a widow who runs the
    boarding house": widow, who, runs, the, boarding, house), leaving out where it is (a
    phrase from a preposition of place, "at", "in", "near", .., to the next comma or
    clause word)."""
    words: list[str] = []
    for clause in learned.split(","):
        placed = False
        for word in lower_words(clause):
            placed = word in PLACE_PREPOSITIONS or (placed and word not in CLAUSE_WORDS)
            if not placed:
                words.append(word)
    return words


@cache
def _services() -> list[tuple[tuple[str, ...], str]]:
    data = resources.files("npc_brain.mind.talk").joinpath("data", "services.tsv")
    rows = (line.split("\t") for line in data.read_text(encoding="utf-8").splitlines())
    return [(tuple(r[0].split()), r[1]) for r in rows if len(r) == 2 and not r[0].startswith("#")]


def wares(scene: Scene, agent_id: str) -> list[MemoryRecord]:
    """What the game says an agent sells: the priced memories it wrote of the agent."""
    records = scene.world.stream(agent_id).records
    return [m for m in records if m.source.kind == SourceKind.AUTHOR and priced(m)]


def keeps(role: str, address: str) -> bool:
    """Whether a role names a place's spot or area ("runs the supply depot")."""
    return any(names_part(role, part) for part in parts(address))


def names_part(role: str, part: str) -> bool:
    """Whether a role names a part of a place ("supply depot"), as a whole word."""
    return f" {' '.join(lower_words(part))} " in f" {' '.join(lower_words(role))} "


def keepers_of(scene: Scene, address: str) -> list[Persona]:
    """Who of the world keeps a place: those who live there, else those whose role
    names its spot ("who runs the supply depot"), else its area ("the keeper of the Red
    Boar Tavern")."""
    agents = [a for i in scene.people if (a := scene.world.store.get_agent(i)) is not None]
    living = [a.persona for a in agents if a.persona.home_address == address]
    if living:
        return living
    for part in reversed(parts(address)):  # the spot first, then the area
        found = [a.persona for a in agents if names_part(a.persona.learned, part)]
        if found:
            return found
    return []
