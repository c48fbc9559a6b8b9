"""Conversions between protobuf messages and domain values."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.action import Action, Line
from npc_brain.errors import InvalidArgument
from npc_brain.game_actions import (
    ActionArgument,
    ActionOption,
    ArgumentType,
    ChosenAction,
    GameAction,
)
from npc_brain.memory.pages import TimeRange
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    Observation,
    ScoredMemory,
    Source,
    SourceKind,
    sharing_of,
    source_of,
)
from npc_brain.memory.relationships import Relationship
from npc_brain.memory.retrieval import Weights
from npc_brain.mind.knowledge import KnownClaim
from npc_brain.mind.minds import TickResult
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.usage import UsageSummary
from npc_brain.persona import AgentRecord, Persona, Switches
from npc_brain.snapshots import SnapshotInfo
from npc_brain.v1 import brain_pb2 as pb

# Timestamps the store can hold exactly enough: years 1..9999 (protobuf's own range).
_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799
# Times a request may carry: that range less a day at each end, so a day before or after
# any of them (plans, prompts' dates) is still a date.
_DAY = 86400
FIRST_TIME, LAST_TIME = _MIN_SECONDS + _DAY, _MAX_SECONDS - _DAY


def time_from_pb(
    field: str, message: object, *, required: bool = True, field_name: str = ""
) -> GameTime | None:
    """The game time in `message.<field>`; INVALID_ARGUMENT when required and unset.

    Errors name `field_name` (the field's full path) when given, else `field`.
    """
    name = field_name or field
    if not message.HasField(field):  # type: ignore[attr-defined]
        if required:
            raise InvalidArgument(name, "is required (the game clock)")
        return None
    stamp: Timestamp = getattr(message, field)
    if not 0 <= stamp.nanos < 10**9:
        raise InvalidArgument(name, "has nanos outside 0..999999999")
    if not FIRST_TIME <= stamp.seconds <= LAST_TIME:
        raise InvalidArgument(name, "is outside 0001-01-02 .. 9999-12-30 (years 1..9999)")
    return stamp.seconds + stamp.nanos / 1e9


def required_time(field: str, message: object) -> GameTime:
    value = time_from_pb(field, message)
    assert value is not None
    return value


def time_to_pb(game_time: GameTime) -> Timestamp:
    """The Timestamp of a game time, kept within years 1..9999: near the ends a float
    rounds past the last representable second."""
    if game_time >= _MAX_SECONDS + 1:
        return Timestamp(seconds=_MAX_SECONDS, nanos=10**9 - 1)
    seconds = max(_MIN_SECONDS, int(game_time // 1))
    return Timestamp(seconds=seconds, nanos=int(round((game_time - seconds) * 1e9)) % 10**9)


def switches_from_pb(request: pb.UpsertAgentRequest) -> Switches:
    """The ablation switches an UpsertAgent sets (unset ones keep their values)."""

    def given(name: str) -> bool | None:
        return bool(getattr(request, name)) if request.HasField(name) else None

    return Switches(given("reflection_enabled"), given("planning_enabled"), given("memory_enabled"))


def persona_from_pb(p: pb.Persona) -> Persona:
    return Persona(
        name=p.name,
        age=p.age,
        innate=p.innate,
        learned=p.learned,
        currently=p.currently,
        lifestyle=p.lifestyle,
        home_address=p.home_address,
        daily_requirements=tuple(p.daily_requirements),
        pronouns=p.pronouns,
    )


def game_actions_from_pb(
    actions: Sequence[pb.GameAction], field: str = "actions"
) -> tuple[GameAction, ...]:
    """Declared actions as the domain holds them; an unset argument type is None, which
    validation refuses naming the field, and a value no ArgumentType has is refused here."""
    return tuple(
        GameAction(
            a.name,
            a.description,
            tuple(
                ActionArgument(
                    g.name,
                    _argument_type(f"{field}[{i}].arguments[{j}].type", g.type),
                    tuple(
                        ActionOption(o.value, o.label, o.price, tuple(o.aliases)) for o in g.options
                    ),
                    g.min,
                    g.max,
                )
                for j, g in enumerate(a.arguments)
            ),
            a.price,
            a.currency,
            tuple(a.examples),
        )
        for i, a in enumerate(actions)
    )


def _argument_type(field: str, value: int) -> ArgumentType | None:
    if value == 0:
        return None
    if value not in pb.ArgumentType.values():
        raise InvalidArgument(field, f"is not an ArgumentType ({value})")
    return ArgumentType(pb.ArgumentType.Name(value))


def game_actions_to_pb(actions: Sequence[GameAction]) -> list[pb.GameAction]:
    return [
        pb.GameAction(
            name=a.name,
            description=a.description,
            arguments=[
                pb.ActionArgument(
                    name=g.name,
                    type=g.type.value if g.type else None,
                    options=[
                        pb.ActionOption(
                            value=o.value, label=o.label, price=o.price, aliases=o.aliases
                        )
                        for o in g.options
                    ],
                    min=g.low,
                    max=g.high,
                )
                for g in a.arguments
            ],
            price=a.price,
            currency=a.currency,
            examples=a.examples,
        )
        for a in actions
    ]


def chosen_to_pb(chosen: ChosenAction) -> pb.ChosenAction:
    return pb.ChosenAction(
        action_id=chosen.action_id,
        name=chosen.name,
        arguments=chosen.arguments,
        price=chosen.price,
        currency=chosen.currency,
    )


def agent_to_pb(
    world_id: str, agent: AgentRecord, relationships: Sequence[Relationship] = ()
) -> pb.Agent:
    p = agent.persona
    return pb.Agent(
        world_id=world_id,
        agent_id=agent.agent_id,
        persona=pb.Persona(
            name=p.name,
            age=p.age,
            innate=p.innate,
            learned=p.learned,
            currently=p.currently,
            lifestyle=p.lifestyle,
            home_address=p.home_address,
            daily_requirements=list(p.daily_requirements),
            pronouns=p.pronouns,
        ),
        reflection_enabled=agent.reflection_enabled,
        planning_enabled=agent.planning_enabled,
        memory_enabled=agent.memory_enabled,
        relationships=[
            pb.Relationship(
                other_agent_id=r.other_id,
                summary=r.summary,
                conversations=r.conversations,
                updated=time_to_pb(r.updated),
            )
            for r in relationships
        ],
        actions=game_actions_to_pb(agent.actions),
    )


def observations_from_pb(
    observations: Sequence[pb.Observation], prefix: str = ""
) -> list[Observation]:
    return [
        observation_from_pb(f"{prefix}observations[{i}]", o) for i, o in enumerate(observations)
    ]


def observation_from_pb(
    field: str, o: pb.Observation, default_source: SourceKind = SourceKind.SEEN
) -> Observation:
    return Observation(
        text=o.text,
        subject=o.subject,
        predicate=o.predicate,
        object=o.object,
        address=o.address,
        source=source_from_pb(f"{field}.source", o.source, default_source),
        importance=o.importance if o.HasField("importance") else None,
        expires=time_from_pb("expires", o, required=False, field_name=f"{field}.expires"),
        sharing=sharing_of(o.private, tuple(o.share_with)),
    )


def source_from_pb(field: str, source: pb.Source, default: SourceKind = SourceKind.SEEN) -> Source:
    kind = source.kind or default
    if kind not in SourceKind._value2member_map_:
        raise InvalidArgument(f"{field}.kind", f"unknown source kind {kind}")
    return source_of(SourceKind(kind), source.agent_id)


def kind_from_pb(field: str, kind: int) -> MemoryKind:
    """A required memory kind."""
    if kind == 0:
        raise InvalidArgument(field, "is required")
    if kind not in MemoryKind._value2member_map_:
        raise InvalidArgument(field, f"unknown memory kind {kind}")
    return MemoryKind(kind)


def time_range_from_pb(message: object) -> TimeRange:
    """The optional created_after / created_before filter of a request."""
    return TimeRange(
        time_from_pb("created_after", message, required=False),
        time_from_pb("created_before", message, required=False),
    )


def kinds_from_pb(field: str, kinds: Sequence[int]) -> list[MemoryKind]:
    out = []
    for i, kind in enumerate(kinds):
        if kind not in MemoryKind._value2member_map_:
            raise InvalidArgument(f"{field}[{i}]", f"unknown memory kind {kind}")
        out.append(MemoryKind(kind))
    return out


def weights_from_pb(w: pb.Weights) -> Weights:
    return Weights(w.recency, w.importance, w.relevance)


def memory_to_pb(m: MemoryRecord) -> pb.Memory:
    return pb.Memory(
        memory_id=str(m.memory_id),
        kind=pb.MemoryKind.Name(int(m.kind)),
        description=m.description,
        subject=m.subject,
        predicate=m.predicate,
        object=m.object,
        address=m.address,
        source=pb.Source(kind=pb.SourceKind.Name(int(m.source.kind)), agent_id=m.source.agent_id),
        created=time_to_pb(m.created),
        last_accessed=time_to_pb(m.last_accessed),
        importance=m.importance,
        evidence_ids=[str(i) for i in m.evidence_ids],
        depth=m.depth,
        expires=None if m.expires is None else time_to_pb(m.expires),
        private=m.sharing.private,
        share_with=list(m.sharing.share_with),
    )


def scored_to_pb(s: ScoredMemory) -> pb.ScoredMemory:
    return pb.ScoredMemory(
        memory=memory_to_pb(s.memory),
        score=s.score,
        recency=s.recency,
        importance=s.importance,
        relevance=s.relevance,
        dense_rank=s.dense_rank,
        lexical_rank=s.lexical_rank,
    )


def line_to_pb(line: Line) -> pb.Utterance:
    return pb.Utterance(
        speaker_id=line.speaker_id,
        text=line.text,
        end_conversation=line.end_conversation,
        intent=line.intent,
        act=line.act,
        topic=line.topic,
        game_action=chosen_to_pb(line.game_action) if line.game_action else None,
    )


@functools.lru_cache(maxsize=8192)
def action_to_pb(a: Action) -> pb.Action:
    """The message of an action. Cached: a Tick answers every agent's current action,
    which stays the same for many ticks; a message given to another's constructor is
    copied, so the cached one is never changed."""
    return pb.Action(
        description=a.description,
        address=a.address,
        start=time_to_pb(a.start),
        duration_minutes=a.duration_minutes,
        emoji=a.emoji,
        object_state=a.object_state,
        chat_with_agent_id=a.chat_with_agent_id,
        chat=[line_to_pb(line) for line in a.chat],
    )


def agent_ticks_from_pb(ticks: Sequence[pb.AgentTick]) -> list[AgentTick]:
    return [
        AgentTick(
            t.agent_id,
            observations_from_pb(t.observations, f"agents[{i}]."),
            list(t.visible_addresses),
        )
        for i, t in enumerate(ticks)
    ]


def tick_result_to_pb(r: TickResult) -> pb.AgentResult:
    return pb.AgentResult(
        agent_id=r.agent_id,
        action=action_to_pb(r.action),
        pending=r.pending,
        memory_ids=r.memory_ids,
    )


def stats_to_pb(s: UsageSummary) -> pb.Stats:
    return pb.Stats(
        model_calls=s.model_calls,
        prompt_tokens=s.prompt_tokens,
        completion_tokens=s.completion_tokens,
        calls_by_kind=s.calls_by_kind,
        game_hours=s.game_hours,
        cached_prompt_tokens=s.cached_prompt_tokens,
        refusals_by_check=s.refusals_by_check,
        calls_by_hour=[
            pb.HourCalls(hour=time_to_pb(hour), calls=calls)
            for hour, calls in sorted(s.calls_by_game_hour.items())
        ],
    )


def snapshot_to_pb(s: SnapshotInfo) -> pb.Snapshot:
    return pb.Snapshot(
        snapshot_id=s.snapshot_id,
        world_id=s.world_id,
        label=s.label,
        saved_at=time_to_pb(s.saved_at),
    )


def claim_to_pb(c: KnownClaim) -> pb.Claim:
    return pb.Claim(
        claim_id="" if c.claim_id is None else str(c.claim_id),
        text=c.text,
        origin_agent_id=c.origin_agent_id,
        origin_memory_id=str(c.origin_memory_id),
        relevance=c.relevance,
        holders=[
            pb.ClaimHolder(
                agent_id=h.agent_id,
                memory_id=str(h.memory_id),
                heard_from=h.heard_from,
                since=time_to_pb(h.since),
                hops=h.hops,
                confidence=h.confidence,
                sources=list(h.sources),
                chain=list(h.chain),
            )
            for h in c.holders
        ],
    )
