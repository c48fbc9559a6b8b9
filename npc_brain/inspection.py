"""Read-only views for the memory inspector: what an agent is up to, and a retrieval
explained. Nothing here validates requests (the Brain facade does that first), changes
an agent's mind or memories, or calls the chat model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from npc_brain.action import Action
from npc_brain.memory.pages import TimeRange
from npc_brain.memory.records import GameTime, MemoryKind
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stream import Explained
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.world import World

RECENT_SECONDS = 24 * 3600.0  # AgentView.recent_memories: created in the last game day


@dataclass(frozen=True)
class AgentView:
    """What an agent is up to, read without changing anything (the memory inspector's
    world and agent pages): its mind state and a summary of its memory stream."""

    action: Action | None
    asleep: bool
    talking: bool
    busy_with: tuple[str, ...]  # background work under way: "decide", "react", "reflect"
    wake_hour: int | None  # today's plan (planning on): wake-up hour and blocks
    plan: tuple[tuple[int, str], ...]  # (hour, activity), in order
    plan_day: GameTime | None  # the midnight that starts the plan's day
    memories: int
    recent_memories: int  # created in the game day before latest_game_time
    latest_game_time: GameTime | None  # the latest game time the agent's state shows


@dataclass(frozen=True)
class Explanation:
    """A retrieval explained: the weights and k applied, and what AgentStream.explain
    found (the top k, the most important memories left out, the memory asked about)."""

    weights: Weights
    k: int
    found: Explained


async def agent_view(faculties: Faculties, world: World, agent_id: str) -> AgentView:
    """The agent's mind state and memory summary, once its memories stored before their
    embeddings are in its stream."""
    await faculties.catch_up.wait(world, agent_id)
    mind = world.mind(agent_id)
    stream = world.streams.get(agent_id)  # in RAM once the agent did anything
    if stream is not None:
        summary = stream.summary(RECENT_SECONDS)
    else:  # exact too, slower: every row of the agent is read
        summary = world.store.memory_summary(agent_id, RECENT_SECONDS)
    action = mind.action
    latest = summary.latest
    if action is not None and (latest is None or action.start > latest):
        latest = action.start
    plan = mind.plan
    return AgentView(
        action=action,
        asleep=mind.asleep,
        talking=mind.talking,
        busy_with=tuple(sorted(mind.tasks)),
        wake_hour=None if plan is None else plan.wake_hour,
        plan=() if plan is None else tuple((b.hour, b.activity) for b in plan.blocks),
        plan_day=mind.plan_day,
        memories=summary.count,
        recent_memories=summary.recent,
        latest_game_time=latest,
    )


async def explain_retrieval(
    faculties: Faculties,
    world: World,
    agent_id: str,
    game_time: GameTime,
    text: str,
    k: int,
    weights: Weights | None,
    kinds: Sequence[MemoryKind],
    created: TimeRange,
    left_out: int,
    focus: int | None,
) -> Explanation:
    """The retrieval Faculties.query builds for recall (same embedding, weights, decay
    and filters), scored by the code AgentStream.retrieve runs: its top k, the `left_out`
    most important memories it leaves out and the memory `focus`, each with its terms
    and rank. The numbers are the Retrieve RPC's, as long as nothing changes in between;
    nothing is marked accessed."""
    asked = await faculties.query(
        world,
        agent_id,
        game_time,
        text,
        k,
        weights,
        kinds,
        created.after,
        created.before,
        asked=True,  # as the Retrieve RPC asks
    )
    found = world.stream(agent_id).explain(asked, left_out, focus)
    return Explanation(asked.weights, asked.k, found)
