"""The headless game loop: the cast moves through the town in steps of game time, each
agent told what it sees through Tick, and everything the report needs is collected.

Agents teleport to their action's address. Agents in the same sector see each other
(an observation whose `subject` is the other agent, so reactions and conversations can
start), the arena they are in and its objects (their spatial memory grows). In a crowd an
agent notices at most MAX_SEEN_AGENTS others, those in its own arena first, and a
different few each step (`noticed`), so that nobody goes unseen because of their place in
the cast file.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.demo.cast import Cast, CastMember
from npc_brain.demo.console import Console
from npc_brain.demo.days import Step
from npc_brain.demo.errors import DemoError
from npc_brain.demo.memories import Bond, Holder, MemoryView, conversations
from npc_brain.demo.town import Town
from npc_brain.mind.prompts import progressive
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc

ABLATIONS: dict[str, dict[str, bool]] = {
    "none": {},
    "no-reflection": {"reflection_enabled": False},
    "no-planning": {"planning_enabled": False},
    "no-memory": {"memory_enabled": False},
}
MAX_SEEN_AGENTS = 8  # other agents one agent is told about per step (its arena first)
MAX_TICK_ITEMS = 256  # the server's default max_items: agents and observations per Tick
INTERVIEWER = "interviewer"  # the speaker of interviews (they store nothing)


@dataclass(frozen=True)
class Plan:
    """What to simulate: `hours` of game time from `start` in steps of `step_minutes`."""

    start: float
    hours: float
    step_minutes: int = 10
    ablation: str = "none"
    world_id: str = "smallville"
    max_wait_ms: int = 60_000

    @property
    def end(self) -> float:
        return self.start + self.hours * 3600

    def steps(self) -> list[float]:
        count = math.ceil(self.hours * 60 / self.step_minutes)
        return [self.start + i * self.step_minutes * 60 for i in range(count)]


@dataclass(frozen=True)
class ActionEvent:
    """An agent started doing something new (the timeline's row)."""

    game_time: float
    agent_id: str
    description: str
    address: str
    emoji: str
    duration_minutes: int


@dataclass(frozen=True)
class Usage:
    """An agent's model usage so far (GetStats)."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    calls_by_kind: dict[str, int]
    cached_prompt_tokens: int = 0


@dataclass
class Record:
    """What a run produced; the report is made from it alone."""

    plan: Plan
    timeline: list[ActionEvent] = field(default_factory=list)
    streams: dict[str, list[MemoryView]] = field(default_factory=dict)
    # (game time, usage per agent) at the start, at each game hour and at the end
    usage: list[tuple[float, dict[str, Usage]]] = field(default_factory=list)
    # (game time, wall seconds since the first step) at the same points
    wall: list[tuple[float, float]] = field(default_factory=list)
    # game minutes each agent was awake (its action at a step was not sleep)
    awake_minutes: dict[str, float] = field(default_factory=dict)
    # every agent's action at every step (after its Tick) and where it was
    steps: list[Step] = field(default_factory=list)
    # at the end: each seed's question answered by each agent (seed id -> agent -> answer)
    interviews: dict[str, dict[str, str]] = field(default_factory=dict)
    # at the end: the answers to each seed's `also_asked` (seed id -> agent -> answers)
    rephrased: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # at the end: who holds each seed's claims (WhoKnows), nearest the origin first
    holders: dict[str, list[Holder]] = field(default_factory=dict)
    # at the end: each agent's views of the others (GetAgent)
    relationships: dict[str, list[Bond]] = field(default_factory=dict)
    # what each conversation line was for, as Tick's Action.chat gave it: (speaker, text)
    intents: dict[tuple[str, str], str] = field(default_factory=dict)


def stamp(game_time: float) -> Timestamp:
    return Timestamp(seconds=int(game_time))


def memory_view(memory: pb.Memory) -> MemoryView:
    return MemoryView(
        memory.memory_id,
        pb.MemoryKind.Name(memory.kind),
        memory.description,
        memory.created.seconds + memory.created.nanos / 1e9,
        pb.SourceKind.Name(memory.source.kind),
        memory.source.agent_id,
        memory.depth,
        tuple(memory.evidence_ids),
    )


class Simulation:
    """One run of the cast through the town against a server."""

    def __init__(
        self,
        stub: brain_pb2_grpc.BrainStub,
        town: Town,
        cast: Cast,
        plan: Plan,
        console: Console,
    ) -> None:
        if plan.ablation not in ABLATIONS:
            raise DemoError(f"--ablation: {plan.ablation!r} is not one of {', '.join(ABLATIONS)}")
        self._stub = stub
        self._town = town
        self._cast = cast
        self._plan = plan
        self._console = console
        self._names = {m.agent_id: m.name for m in cast.members}
        self._where = {m.agent_id: m.home for m in cast.members}
        self._actions: dict[str, pb.Action] = {}  # agent id -> its latest action
        self._dialogue: dict[str, dict[str, MemoryView]] = {m.agent_id: {} for m in cast.members}
        self._told: set[tuple[float, frozenset[str]]] = set()
        self._usage_base: dict[str, Usage] = {}  # usage before a resumed run's server
        self.record = Record(plan)

    # Setting up ------------------------------------------------------------------

    def setup(self) -> None:
        """Creates the agents with their personas, places and backstory, and the seeds."""
        world, start = self._plan.world_id, stamp(self._plan.start)
        switches = ABLATIONS[self._plan.ablation]
        for member in self._cast.members:
            self._refuse_existing(member.agent_id)
            request = pb.UpsertAgentRequest(
                world_id=world, agent_id=member.agent_id, persona=persona(member), game_time=start
            )
            for switch, on in switches.items():
                setattr(request, switch, on)
            self._stub.UpsertAgent(request)
            places = [*self._town.visible_from(member.home), *member.places]
            self._stub.Perceive(
                pb.PerceiveRequest(
                    world_id=world,
                    agent_id=member.agent_id,
                    game_time=start,
                    visible_addresses=list(dict.fromkeys(places)),
                )
            )
            for text in member.memories:
                self._add_memory(member.agent_id, text)
        for seed in self._cast.seeds:
            self._add_memory(seed.holder, seed.memory)

    def _refuse_existing(self, agent_id: str) -> None:
        try:
            self._stub.GetAgent(pb.GetAgentRequest(world_id=self._plan.world_id, agent_id=agent_id))
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return
            raise
        raise DemoError(
            f"world {self._plan.world_id!r} on the server already has agent {agent_id!r}; "
            "use a fresh server or another --world-id"
        )

    def _add_memory(self, agent_id: str, text: str) -> None:
        self._stub.AddMemory(
            pb.AddMemoryRequest(
                world_id=self._plan.world_id,
                agent_id=agent_id,
                game_time=stamp(self._plan.start),
                kind=pb.OBSERVATION,
                observation=pb.Observation(text=text, source=pb.Source(kind=pb.AUTHOR)),
            )
        )

    # Running ---------------------------------------------------------------------

    def run(
        self,
        first_step: int = 0,
        wall_seconds: float = 0.0,
        on_hour: Callable[[int, float], None] | None = None,
    ) -> Record:
        """Steps through the plan's game time, then reads every agent's memory stream.
        A resumed run starts at `first_step` with the `wall_seconds` spent before it.
        `on_hour(step, wall seconds)` is called at the start of every game hour after
        the first, before that hour's first step (where a checkpoint is taken)."""
        steps = self._plan.steps()
        began = time.perf_counter() - wall_seconds
        if first_step == 0:
            self._snapshot(self._plan.start, 0.0)
        for index in range(first_step, len(steps)):
            game_time = steps[index]
            since_start = game_time - self._plan.start
            if index > first_step and since_start % 3600 == 0:
                self._snapshot(game_time, time.perf_counter() - began)
                if on_hour is not None:
                    on_hour(index, time.perf_counter() - began)
            self._console.step(game_time, index + 1, len(steps), time.perf_counter() - began)
            self._tick(game_time)
            self._record_steps(game_time)
            self._count_awake(min(self._plan.step_minutes, (self._plan.end - game_time) / 60))
            self._show_conversations(game_time)
        self._snapshot(self._plan.end, time.perf_counter() - began)
        self.record.streams = {m.agent_id: self._memories(m.agent_id) for m in self._cast.members}
        self._interview()
        return self.record

    def state(self) -> SimulationState:
        """What the run has gathered and where its agents are: a checkpoint's part."""
        return SimulationState(
            dict(self._where),
            {a: action.SerializeToString() for a, action in self._actions.items()},
            {a: dict(seen) for a, seen in self._dialogue.items()},
            set(self._told),
            self.record,
        )

    def restore(self, state: SimulationState) -> None:
        """Takes up a checkpoint's state. The server's usage counters restart with it
        (a new server process), so usage read from now on is added to the last read."""
        self._where = dict(state.where)
        self._actions = {a: pb.Action.FromString(data) for a, data in state.actions.items()}
        self._dialogue = {a: dict(seen) for a, seen in state.dialogue.items()}
        self._told = set(state.told)
        self.record = state.record
        last = self.record.usage[-1][1] if self.record.usage else {}
        now = self._usage()
        self._usage_base = {a: usage_minus(used, now[a]) for a, used in last.items() if a in now}

    def _interview(self) -> None:
        """Asks every agent each seed's questions in interview mode (nothing is stored),
        as the paper measured diffusion; reads who holds each seed's claims and what
        each agent thinks of the others."""
        world = self._plan.world_id
        asked = [s for s in self._cast.seeds if s.question]
        if asked:
            self._console.note(
                f"interviewing {len(self._cast.members)} agents about {len(asked)} seeds"
            )
        for seed in self._cast.seeds:
            answers = self.record.interviews.setdefault(seed.seed_id, {})
            rephrased = self.record.rephrased.setdefault(seed.seed_id, {})
            for member in self._cast.members if seed.question else ():
                said = [self._ask(member.agent_id, question) for question in seed.questions]
                answers[member.agent_id], rephrased[member.agent_id] = said[0], said[1:]
            found = self._stub.WhoKnows(pb.WhoKnowsRequest(world_id=world, query=seed.memory))
            self.record.holders[seed.seed_id] = holders_of(
                [c for c in found.claims if seed.mentioned_in(c.text)]
            )
        for member in self._cast.members:
            agent = self._stub.GetAgent(
                pb.GetAgentRequest(world_id=world, agent_id=member.agent_id)
            )
            self.record.relationships[member.agent_id] = [
                Bond(r.other_agent_id, r.summary, r.conversations) for r in agent.relationships
            ]

    def _ask(self, agent_id: str, question: str) -> str:
        """The agent's answer to the interviewer's question at the run's end."""
        request = pb.ConverseRequest(
            world_id=self._plan.world_id,
            agent_id=agent_id,
            game_time=stamp(self._plan.end),
            speaker_id=INTERVIEWER,
            utterance=question,
            interview=True,
        )
        events = self._stub.Converse(request)
        answer: str = next(e.final.text for e in events if e.HasField("final"))
        return answer

    def _tick(self, game_time: float) -> None:
        items = [self._agent_tick(m, game_time) for m in self._cast.members]
        for batch in batches(items):
            # lockstep: the server handles the agents one after another and answers once
            # all the cognition the tick started has finished (same seed, same run)
            reply: pb.TickResponse = self._stub.Tick(
                pb.TickRequest(
                    world_id=self._plan.world_id,
                    game_time=stamp(game_time),
                    agents=batch,
                    max_wait_ms=self._plan.max_wait_ms,
                    lockstep=True,
                )
            )
            for result in reply.results:
                self._update(game_time, result.agent_id, result.action)
                for line in result.action.chat:
                    if line.intent:
                        self.record.intents[(line.speaker_id, line.text)] = line.intent

    def _agent_tick(self, member: CastMember, game_time: float) -> pb.AgentTick:
        here = self._where[member.agent_id]
        sector, arena = self._town.sector_of(here), self._town.arena_of(here)
        others = [
            other
            for other in self._cast.members
            if other.agent_id != member.agent_id
            and self._town.sector_of(self._where[other.agent_id]) == sector
            and other.agent_id in self._actions
        ]
        nearby = {o.agent_id: self._town.arena_of(self._where[o.agent_id]) == arena for o in others}
        members = {o.agent_id: o for o in others}
        observations: list[pb.Observation] = []
        for other in (members[o] for o in noticed(member.agent_id, nearby, game_time)):
            action = self._actions[other.agent_id]
            observations.append(
                pb.Observation(
                    text=f"{other.name} is {progressive(action.description)}",
                    subject=other.agent_id,
                    predicate="is",
                    object=action.description,
                    address=self._where[other.agent_id],
                    source=pb.Source(kind=pb.SEEN),
                )
            )
            if action.object_state and self._town.arena_of(action.address) == arena:
                thing, _, use = action.object_state.rpartition(": ")
                thing = thing or action.address.rsplit(":", 1)[-1]
                text = f"the {thing} is in use: {progressive(use)}" if use else ""
                if text:
                    observations.append(pb.Observation(text=text, address=action.address))
        return pb.AgentTick(
            agent_id=member.agent_id,
            observations=observations,
            visible_addresses=self._town.visible_from(here),
        )

    def _update(self, game_time: float, agent_id: str, action: pb.Action) -> None:
        if not action.description:
            return
        before = self._actions.get(agent_id)
        self._actions[agent_id] = action
        if action.address:
            self._where[agent_id] = action.address
        if before is not None and (before.description, before.address, before.start) == (
            action.description,
            action.address,
            action.start,
        ):
            return
        event = ActionEvent(
            game_time,
            agent_id,
            action.description,
            action.address,
            action.emoji,
            action.duration_minutes,
        )
        self.record.timeline.append(event)
        self._console.action(game_time, agent_id, action.emoji, action.description, action.address)

    def _record_steps(self, game_time: float) -> None:
        for member in self._cast.members:
            action = self._actions.get(member.agent_id)
            self.record.steps.append(
                Step(
                    game_time,
                    member.agent_id,
                    action.description if action else "",
                    self._where[member.agent_id],
                    action.emoji if action else "",
                )
            )

    def _count_awake(self, minutes: float) -> None:
        for member in self._cast.members:
            action = self._actions.get(member.agent_id)
            awake = action is not None and "sleep" not in action.description.lower()
            spent = self.record.awake_minutes.get(member.agent_id, 0.0)
            self.record.awake_minutes[member.agent_id] = spent + (minutes if awake else 0.0)

    def _show_conversations(self, game_time: float) -> None:
        """Prints the conversations that have appeared in the agents' streams."""
        for agent_id, seen in self._dialogue.items():
            for memory in self._memories(agent_id, [pb.DIALOGUE], game_time - 3600):
                seen.setdefault(memory.memory_id, memory)
        streams = {a: list(seen.values()) for a, seen in self._dialogue.items()}
        for talk in conversations(streams, self._names):
            key = (talk.created, frozenset(talk.participants))
            if key not in self._told:
                self._told.add(key)
                lines = [(line.speaker_id, line.text) for line in talk.lines]
                self._console.conversation(talk.created, talk.participants, lines)

    def _memories(
        self, agent_id: str, kinds: Sequence[pb.MemoryKind] = (), after: float | None = None
    ) -> list[MemoryView]:
        """The agent's stream (oldest first), all of it or of some kinds since `after`."""
        found, token = [], ""
        while True:
            request = pb.ListMemoriesRequest(
                world_id=self._plan.world_id,
                agent_id=agent_id,
                kinds=list(kinds),
                page_size=500,
                page_token=token,
            )
            if after is not None:
                request.created_after.CopyFrom(stamp(after))
            page: pb.ListMemoriesResponse = self._stub.ListMemories(request)
            found += [memory_view(m) for m in page.memories]
            token = page.next_page_token
            if not token:
                return found

    def _snapshot(self, game_time: float, wall_seconds: float) -> None:
        base = self._usage_base
        usage = {
            a: usage_sum([used, base[a]]) if a in base else used
            for a, used in self._usage().items()
        }
        self.record.usage.append((game_time, usage))
        self.record.wall.append((game_time, wall_seconds))

    def _usage(self) -> dict[str, Usage]:
        """Each agent's model usage by the server's counters (GetStats)."""
        usage = {}
        for member in self._cast.members:
            stats: pb.Stats = self._stub.GetStats(
                pb.GetStatsRequest(world_id=self._plan.world_id, agent_id=member.agent_id)
            )
            usage[member.agent_id] = Usage(
                stats.model_calls,
                stats.prompt_tokens,
                stats.completion_tokens,
                dict(sorted(stats.calls_by_kind.items())),
                stats.cached_prompt_tokens,
            )
        return usage


@dataclass
class SimulationState:
    """A run's state between two steps (Simulation.state): each agent's place, its
    latest action (serialised), the conversation lines seen, the conversations shown,
    and the record so far."""

    where: dict[str, str]
    actions: dict[str, bytes]
    dialogue: dict[str, dict[str, MemoryView]]
    told: set[tuple[float, frozenset[str]]]
    record: Record


def usage_minus(later: Usage, earlier: Usage) -> Usage:
    """What `later` has beyond `earlier` (negative where it has less)."""
    kinds = set(later.calls_by_kind) | set(earlier.calls_by_kind)
    return Usage(
        later.calls - earlier.calls,
        later.prompt_tokens - earlier.prompt_tokens,
        later.completion_tokens - earlier.completion_tokens,
        {k: later.calls_by_kind.get(k, 0) - earlier.calls_by_kind.get(k, 0) for k in kinds},
        later.cached_prompt_tokens - earlier.cached_prompt_tokens,
    )


def usage_sum(usages: Sequence[Usage]) -> Usage:
    """The usages added up, kind by kind."""
    kinds: dict[str, int] = {}
    for u in usages:
        for k, n in u.calls_by_kind.items():
            kinds[k] = kinds.get(k, 0) + n
    return Usage(
        sum(u.calls for u in usages),
        sum(u.prompt_tokens for u in usages),
        sum(u.completion_tokens for u in usages),
        kinds,
        sum(u.cached_prompt_tokens for u in usages),
    )


def holders_of(claims: Sequence[pb.Claim]) -> list[Holder]:
    """Each agent holding any of the claims, by its shortest chain (then the most sure)."""
    best: dict[str, Holder] = {}
    for claim in claims:
        for h in claim.holders:
            held = Holder(h.agent_id, h.heard_from, h.hops, round(h.confidence, 4), tuple(h.chain))
            now = best.get(h.agent_id)
            if now is None or (held.hops, -held.confidence) < (now.hops, -now.confidence):
                best[h.agent_id] = held
    return sorted(best.values(), key=lambda h: (h.hops, h.agent_id))


def persona(member: CastMember) -> pb.Persona:
    return pb.Persona(
        name=member.name,
        age=member.age,
        innate=member.innate,
        learned=member.learned,
        currently=member.currently,
        lifestyle=member.lifestyle,
        home_address=member.home,
        daily_requirements=list(member.daily_requirements),
        pronouns=member.pronouns,
    )


def noticed(
    observer_id: str, nearby: dict[str, bool], game_time: float, limit: int = MAX_SEEN_AGENTS
) -> list[str]:
    """The others (agent id -> whether in the observer's arena) that the observer notices
    at `game_time`: at most `limit`, its own arena's first, and among equals an order
    drawn afresh each step, the same in every run (a digest, not Python's salted hash)."""

    def draw(other_id: str) -> bytes:
        key = f"{game_time:.0f}:{observer_id}:{other_id}".encode()
        return hashlib.blake2b(key, digest_size=8).digest()

    return sorted(nearby, key=lambda o: (not nearby[o], draw(o)))[:limit]


def batches(
    items: Sequence[pb.AgentTick], limit: int = MAX_TICK_ITEMS
) -> Iterator[list[pb.AgentTick]]:
    """Agent ticks in groups that keep both agents and observations within `limit`."""
    batch: list[pb.AgentTick] = []
    observed = 0
    for item in items:
        count = len(item.observations)
        if batch and (len(batch) == limit or observed + count > limit):
            yield batch
            batch, observed = [], 0
        batch.append(item)
        observed += count
    if batch:
        yield batch
