"""News in talk: the claims a conversation passes on, the secrets it must not, and how
a holder names its sources. Used by NPC-to-NPC conversations and by replies.

What an agent may not tell a listener never reaches the prompt (Faculties.recall with
`told_to`); what the model says anyway is checked here (`leaks`) before anyone hears it.
"""

from __future__ import annotations

from collections.abc import Sequence

from npc_brain.memory.claims import Telling
from npc_brain.memory.contradictions import Contradiction
from npc_brain.memory.diffusion import HOP_CONFIDENCE, holders_of
from npc_brain.memory.records import (
    ANYONE,
    GameTime,
    MemoryKind,
    MemoryRecord,
    ScoredMemory,
    Sharing,
    SourceKind,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stream import Query
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.answers import key_terms
from npc_brain.mind.talk.carry import (
    carried,
    name_terms,
    own_line,
    place_terms,
    reveals,
    source_sentence,
    spoken,
)
from npc_brain.mind.talk.contradict import contradiction
from npc_brain.mind.talk.intent import an_event, newsworthy
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

REFUSAL = "I'd rather not talk about that."
NEWS_WEIGHTS = Weights(0.5, 3.0, 1.0)  # news: what mattered, lately
NEWS_KINDS = (MemoryKind.OBSERVATION, MemoryKind.DIALOGUE)
ONLY_RELEVANCE = Weights(0.0, 0.0, 1.0)
CONTRADICTION_CANDIDATES = 5  # memories nearest a claim heard that are checked against it


class News:
    """Claims and secrets of what agents say to each other or to players."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties

    async def carried(
        self,
        world: World,
        text: str,
        memories: Sequence[MemoryRecord],
        names: Sequence[str],
        said: Sequence[str] = (),
    ) -> MemoryRecord | None:
        """The memory of a speaker's prompt (`memories`) that its line `text` passes on,
        if any; its own earlier lines count only when they told a claim. `names`: the
        people talking; `said`: the conversation's lines before this one, whose words a
        line echoes without passing anything on."""
        linked = set(world.store.claims.of_memories([m.memory_id for m in memories]))
        candidates = [m for m in memories if m.memory_id in linked or not own_line(m)]
        if not candidates:
            return None
        vectors = await self._f.embed([text, *(spoken(m) for m in candidates)])
        # Names and places are what any line about the town says ("I'm a regular at
        # the Red Boar" passes on nothing of the feast there), and so is what was said.
        places = place_terms(world.store.all_places())
        echoed = name_terms(names) | places | key_terms(" ".join(said))
        return carried(text, vectors[0], candidates, vectors[1:], echoed, linked)

    async def news_for(
        self, world: World, speaker: AgentRecord, listener: AgentRecord, game_time: GameTime
    ) -> list[MemoryRecord]:
        """What the speaker could tell the listener as news, most important and recent
        first: events someone told or wrote to the speaker, or lines that passed a
        claim on to it (intent.newsworthy), that it may tell the listener, whose claim
        the two have not exchanged and the listener does not hold already. None when
        the speaker's memory is off."""
        if not speaker.memory_enabled:
            return []
        found = await self._f.recall(
            world,
            speaker.agent_id,
            game_time,
            f"news for {listener.persona.name}",
            3 * self._f.settings.context_memories,
            NEWS_WEIGHTS,
            NEWS_KINDS,
            told_to=listener.agent_id,
        )
        name, book = listener.persona.name, world.store.claims
        recalled = self._first_hand(world, speaker.agent_id, listener.agent_id, found)
        claims = book.of_memories([m.memory_id for m in recalled])
        events = {m for m, c in claims.items() if self._of_an_event(world, c)}
        memories = [m for m in recalled if newsworthy(m, listener.agent_id, name, events)]
        fresh = self.unexchanged(world, speaker.agent_id, listener.agent_id, memories)
        known = {r.claim_id for r in book.held_by(listener.agent_id)}
        return [m for m in fresh if claims.get(m.memory_id) not in known]

    def _of_an_event(self, world: World, claim_id: int) -> bool:
        """Whether a claim started as news (intent.an_event: the party its host was told
        of), not as a sighting or a line that someone retold ("Vera is talking with
        Bram" passed on from mouth to mouth)."""
        claim = world.store.claims.get(claim_id)
        if claim is None or world.store.get_agent(claim.origin_agent_id) is None:
            return False
        origin = world.stream(claim.origin_agent_id).get(claim.origin_memory_id)
        return origin is not None and an_event(origin)

    def _first_hand(
        self, world: World, agent_id: str, listener: str, found: Sequence[ScoredMemory]
    ) -> list[MemoryRecord]:
        """The recalled memories, each claim told by the memory the agent holds it
        closest to its origin (its own, for what it started: not a line someone said
        back to it), once."""
        book, stream = world.store.claims, world.stream(agent_id)
        closest: dict[int, int] = {}
        for row in book.held_by(agent_id):  # by claim, the fewest hops first
            closest.setdefault(row.claim_id, row.memory_id)
        claims = book.of_memories([s.memory.memory_id for s in found])
        memories, seen = [], set()
        for scored in found:
            memory, claim = scored.memory, claims.get(scored.memory.memory_id)
            if claim is not None:
                if claim in seen:
                    continue
                seen.add(claim)
                best = stream.get(closest.get(claim, memory.memory_id))
                if best is not None and best.sharing.allows(listener):
                    memory = best
            memories.append(memory)
        return memories

    def withholds(self, world: World, agent_id: str, listener: str) -> bool:
        """Whether the agent holds anything it may not tell `listener`."""
        return bool(world.withheld_from(agent_id, listener))

    async def leaks(
        self,
        world: World,
        agent_id: str,
        listener: str,
        text: str,
        said: Sequence[str],
        names: Sequence[str],
    ) -> bool:
        """Whether `text` gives away a memory the agent may not tell `listener`, beyond
        what was `said` already and the people's `names`."""
        withheld = world.withheld_from(agent_id, listener)
        if not withheld:
            return False
        known, people = " ".join([*said, *names]), name_terms(names)
        vectors = await self._f.embed([text, *(spoken(m) for m in withheld)])
        return any(
            reveals(text, vectors[0], spoken(m), row, known, people)
            for m, row in zip(withheld, vectors[1:], strict=True)
        )

    async def vetted(
        self,
        world: World,
        agent: AgentRecord,
        listener: str,
        utterance: str,
        text: str,
        interview: bool,
    ) -> str:
        """A reply as it may be said: REFUSAL if it gives away what the agent may not
        tell `listener`; in an interview, with its source chain named (source_of)."""
        names = [agent.persona.name, listener]
        if await self.leaks(world, agent.agent_id, listener, text, [utterance], names):
            return REFUSAL
        source = await self.source_of(world, agent, text) if interview else ""
        return f"{text} {source}" if source else text

    async def reply_sharing(
        self, world: World, agent: AgentRecord, listener: str, text: str
    ) -> Sharing:
        """Whom the agent may tell its own line `text` to `listener`: as narrowly as a
        confidence it carries (a memory shared with the listener only), else anyone."""
        restricted = world.withheld_from(agent.agent_id, "")  # "" is nobody's id
        confided = [m for m in restricted if m.sharing.allows(listener)]
        if not confided:
            return ANYONE
        memory = await self.carried(world, text, confided, [agent.persona.name])
        return ANYONE if memory is None else memory.sharing

    def record(self, world: World, tellings: Sequence[Telling]) -> list[int]:
        """Stores who told whom which claim (durably); the claim ids."""
        return world.store.claims.record(tellings) if tellings else []

    def weigh(
        self,
        world: World,
        tellings: Sequence[Telling],
        claim_ids: Sequence[int],
        names: Sequence[str],
        game_time: GameTime,
    ) -> list[Contradiction]:
        """Each told claim that contradicts another memory of its listener about the same
        thing (talk/contradict.py: a different time, date or weekday): the less
        supported of the two is recorded, linked to the other (a tie: the claim just
        heard), and recall leaves it out from then on. Support: the listener's
        confidence in a claim (WhoKnows), 1 for what it saw or was written, HOP_CONFIDENCE
        for a line heard that holds no claim."""
        found = []
        people = name_terms(names)
        for telling, claim_id in zip(tellings, claim_ids, strict=True):
            stream = world.stream(telling.listener)
            heard = stream.get(telling.listener_line)
            if heard is None:
                continue
            query = Query(telling.vector, game_time, CONTRADICTION_CANDIDATES, ONLY_RELEVANCE, 1.0)
            for scored in stream.retrieve(query):
                other = scored.memory
                if other.memory_id == heard.memory_id or own_line(other):
                    continue
                slot = contradiction(spoken(heard), spoken(other), people)
                if slot:
                    pair = (heard, claim_id, other)
                    found.append(self._weighed(world, telling.listener, pair, slot, game_time))
                    break
        for item in found:
            world.store.contradictions.record(item)
        return found

    def _weighed(
        self,
        world: World,
        agent_id: str,
        pair: tuple[MemoryRecord, int, MemoryRecord],
        slot: str,
        game_time: GameTime,
    ) -> Contradiction:
        """The contradiction between a claim just heard (its memory and claim) and
        another memory of the agent, the less supported one first."""
        heard, claim_id, other = pair
        new = self.support(world, agent_id, heard, claim_id)
        old = self.support(world, agent_id, other)
        if old >= new:
            return Contradiction(
                agent_id, heard.memory_id, other.memory_id, slot, new, old, game_time
            )
        return Contradiction(agent_id, other.memory_id, heard.memory_id, slot, old, new, game_time)

    def support(
        self, world: World, agent_id: str, memory: MemoryRecord, claim_id: int | None = None
    ) -> float:
        """How well the agent's memory is supported: its confidence in the claim it holds
        (noisy-or over its sources), else 1 for what it saw or was written, and one hop's
        confidence for a line it heard."""
        claims = world.store.claims
        if claim_id is None:
            claim_id = claims.of_memories([memory.memory_id]).get(memory.memory_id)
        if claim_id is not None:
            for holder in holders_of(claims.holders(claim_id)):
                if holder.agent_id == agent_id:
                    return holder.confidence
        return HOP_CONFIDENCE if memory.source.kind == SourceKind.HEARD else 1.0

    def exchanged(self, world: World, a: str, b: str) -> set[int]:
        """The claims `a` and `b` have told each other: not news between them."""
        return world.store.claims.exchanged(a, b)

    def unexchanged(
        self, world: World, a: str, b: str, memories: Sequence[MemoryRecord]
    ) -> list[MemoryRecord]:
        """The memories whose claim `a` and `b` have not told each other yet."""
        told = self.exchanged(world, a, b)
        if not told:
            return list(memories)
        claims = world.store.claims.of_memories([m.memory_id for m in memories])
        return [m for m in memories if claims.get(m.memory_id) not in told]

    async def source_of(
        self, world: World, agent: AgentRecord, text: str, said: str | None = None
    ) -> str:
        """A sentence naming where the agent heard what `text` says ("I heard it from
        Bram, who heard it from Vera."), when it carries a claim the agent heard (and
        no better-supported memory contradicts) and what is `said` (default: `text`)
        does not name its teller already; else ''."""
        claims = world.store.claims
        outweighed = world.store.contradictions.outweighed(agent.agent_id)
        heard = {
            r.memory_id: r.claim_id
            for r in claims.held_by(agent.agent_id)
            if r.from_agent_id and r.memory_id not in outweighed
        }
        stream = world.stream(agent.agent_id)
        memories = [m for i in heard if (m := stream.get(i)) is not None]
        memory = await self.carried(world, text, memories, [agent.persona.name])
        if memory is None:
            return ""
        chain = next(
            h.chain
            for h in holders_of(claims.holders(heard[memory.memory_id]))
            if h.agent_id == agent.agent_id
        )
        names = [self._name(world, agent_id) for agent_id in chain]
        teller = names[-2] if len(names) > 1 else ""
        if not teller or teller.split()[0].lower() in (text if said is None else said).lower():
            return ""
        return source_sentence(names)

    def _name(self, world: World, agent_id: str) -> str:
        other = world.store.get_agent(agent_id)
        return other.persona.name if other is not None else agent_id
