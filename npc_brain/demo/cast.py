"""The cast: who lives in the town, what each knows at the start, and the seeds of news
whose spread the report follows."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from npc_brain.demo.clock import parse_time
from npc_brain.demo.errors import DemoError
from npc_brain.demo.fields import Fields, read_toml
from npc_brain.demo.town import SHIPPED_TOWN, Town, shipped_file


@dataclass(frozen=True)
class CastMember:
    """One agent: the proto's Persona, plus the places and memories it starts with."""

    agent_id: str
    name: str
    home: str
    age: int = 0
    innate: str = ""
    learned: str = ""
    currently: str = ""
    lifestyle: str = ""
    daily_requirements: tuple[str, ...] = ()
    pronouns: str = ""
    places: tuple[str, ...] = ()
    memories: tuple[str, ...] = ()


FACTS = ("host", "place", "date")  # what an interview answer is judged on


@dataclass(frozen=True)
class Event:
    """Where and when a seed's event takes place: `place`, an address of the town or its
    start ("Thornbury:Red Boar"), from `start` to `end` (game time)."""

    place: str
    start: float
    end: float


@dataclass(frozen=True)
class Seed:
    """News one agent starts with; a memory mentions it when it holds a key phrase. At
    the end every agent is asked `question` and each of `also_asked` (the same in other
    words), and its answers judged against `facts`: for each of FACTS the phrases that
    state it rightly (none: not judged on it)."""

    seed_id: str
    title: str
    holder: str
    memory: str
    key_phrases: tuple[str, ...]
    question: str = ""
    facts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    event: Event | None = None  # where and when the news says something will happen
    also_asked: tuple[str, ...] = ()

    @property
    def questions(self) -> tuple[str, ...]:
        """Every wording the seed is asked in, `question` first."""
        return (self.question, *self.also_asked) if self.question else ()

    def mentioned_in(self, text: str) -> bool:
        lowered = text.lower()
        return any(phrase.lower() in lowered for phrase in self.key_phrases)


@dataclass(frozen=True)
class Cast:
    members: tuple[CastMember, ...]
    seeds: tuple[Seed, ...]

    def first(self, count: int) -> Cast:
        """The first `count` members, with the seeds whose holder is among them."""
        members = self.members[:count]
        ids = {m.agent_id for m in members}
        return Cast(members, tuple(s for s in self.seeds if s.holder in ids))


def load_cast(town: Town, path: Path | None = None, shipped: str = SHIPPED_TOWN) -> Cast:
    """The cast in `path`, or the shipped town `shipped`'s, checked against the town."""
    if path is None:
        with resources.as_file(shipped_file(shipped, "cast.toml")) as p:
            return parse_cast(read_toml(p), f"{shipped}/cast.toml", town)
    return parse_cast(read_toml(path), str(path), town)


def parse_cast(table: object, source: str, town: Town) -> Cast:
    """Checks a cast table: `[[agents]]` (ids unique, homes and places in the town) and
    `[[seeds]]` (ids unique, holders among the agents, a question with the facts)."""
    fields = Fields(table, "", source)
    addresses = town.addresses()
    members: list[CastMember] = []
    for agent in fields.tables("agents"):
        member = _member(agent, addresses, town.name)
        if any(m.agent_id == member.agent_id for m in members):
            raise agent.error("id", f"{member.agent_id!r} is already the id of another agent")
        members.append(member)
    ids = {m.agent_id for m in members}
    seeds: list[Seed] = []
    for entry in fields.tables("seeds", required=False):
        seed_id = entry.identifier("id")
        seed = Seed(
            seed_id,
            entry.text("title") or seed_id,
            entry.identifier("holder"),
            entry.text("memory", required=True),
            entry.texts("key_phrases", required=True),
            entry.text("question"),
            tuple((name, phrases) for name in FACTS if (phrases := entry.texts(name))),
            _event(entry, addresses),
            entry.texts("also_asked"),
        )
        entry.done()
        if seed.holder not in ids:
            raise entry.error("holder", f"{seed.holder!r} is not the id of an agent")
        if any(s.seed_id == seed.seed_id for s in seeds):
            raise entry.error("id", f"{seed.seed_id!r} is already the id of another seed")
        if not seed.mentioned_in(seed.memory):
            raise entry.error("key_phrases", "none of them occurs in the seed's own memory")
        if (seed.facts or seed.also_asked) and not seed.question:
            raise entry.error("question", "is needed to judge the facts by interview")
        seeds.append(seed)
    fields.done()
    return Cast(tuple(members), tuple(seeds))


def _event(entry: Fields, addresses: set[str]) -> Event | None:
    """The seed's `event_place`, `event_start` and `event_end`, all or none."""
    place, start, end = (entry.text(f"event_{key}") for key in ("place", "start", "end"))
    if not (place or start or end):
        return None
    for key, value in (("place", place), ("start", start), ("end", end)):
        if not value:
            raise entry.error(f"event_{key}", "is needed with the other event_ keys")
    if not any(a == place or a.startswith(f"{place}:") for a in addresses):
        raise entry.error("event_place", f"{place!r} is no address of the town or its start")
    event = Event(place, _time(entry, "event_start", start), _time(entry, "event_end", end))
    if event.end <= event.start:
        raise entry.error("event_end", f"{end!r} is not after event_start {start!r}")
    return event


def _time(entry: Fields, key: str, text: str) -> float:
    try:
        return parse_time(text, key)
    except DemoError:
        raise entry.error(key, f"{text!r} is not an ISO time like 2023-02-14T17:00") from None


def _member(agent: Fields, addresses: set[str], world: str) -> CastMember:
    member = CastMember(
        agent_id=agent.identifier("id"),
        name=agent.text("name", required=True),
        home=agent.text("home", required=True),
        age=agent.integer("age", 0, 0, 200),
        innate=agent.text("innate"),
        learned=agent.text("learned"),
        currently=agent.text("currently"),
        lifestyle=agent.text("lifestyle"),
        daily_requirements=agent.texts("daily_requirements"),
        pronouns=agent.text("pronouns"),
        places=agent.texts("places"),
        memories=agent.texts("memories"),
    )
    agent.done()
    hint = f"(an address of the town, e.g. {sorted(addresses)[0]!r})" if addresses else ""
    if member.home not in addresses:
        raise agent.error("home", f"{member.home!r} is not an address of {world} {hint}")
    for i, place in enumerate(member.places):
        if place not in addresses:
            raise agent.error(f"places[{i}]", f"{place!r} is not an address of {world} {hint}")
    return member
