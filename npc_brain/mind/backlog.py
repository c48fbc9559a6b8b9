"""Catching up: memories committed before their embeddings (Perceive answers once its
memories are durable) are embedded and rated in the background, every agent's of a
world in one batch, then move from the World's backlog into their streams. Whatever
reads a stream by meaning waits for it first (`wait`), so no acknowledged memory is ever
missing from a retrieval; rows a crash left without embedding come back into the
backlog when their stream loads (World._recover) and are embedded the same way."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from npc_brain.errors import Unavailable
from npc_brain.memory.records import UNRATED, MemoryRecord
from npc_brain.mind.world import Backlogged, World
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)
Embed = Callable[[Sequence[str]], Awaitable[NDArray[np.float32]]]
Rate = Callable[[World, AgentRecord, MemoryRecord, NDArray[np.float32]], Awaitable[float]]
CaughtUpHook = Callable[[World, AgentRecord, Sequence[MemoryRecord]], None]


class CatchUp:
    """One background task a world at most, embedding (`embed`) and rating (`rate`, for
    memories stored UNRATED) what its backlog holds; `after` hears of every entry that
    reached its stream (not of those recovered after a restart)."""

    def __init__(self, embed: Embed, rate: Rate) -> None:
        self._embed = embed
        self._rate = rate
        self.after: CaughtUpHook = lambda world, agent, memories: None

    def later(self, world: World) -> asyncio.Task[None] | None:
        """Starts catching up in the background unless it runs; the running task, or
        None when there is nothing to embed."""
        task = world.catching_up
        if task is not None and not task.done():
            return task
        if not world.unembedded():
            return None
        task = world.catching_up = asyncio.get_running_loop().create_task(self._run(world))
        task.add_done_callback(_log_failure)
        return task

    async def wait(self, world: World, agent_id: str | None = None) -> None:
        """Returns once every memory of the agent (None: of every loaded agent) stored so
        far is embedded and in its stream, so that retrieval sees it."""
        if agent_id is not None:
            world.stream(agent_id)  # loading it finds what a crash left unembedded
        while world.backlogged(agent_id):
            task = self.later(world)
            if task is None:
                raise RuntimeError("a backlog with nothing to embed")  # embedded() drains
            await asyncio.shield(task)  # a reader that goes does not stop the catch-up

    async def _run(self, world: World) -> None:
        """Embeds the backlog in batches, rates what has no importance, writes both in
        one transaction, then moves the entries into their streams."""
        while waiting := world.unembedded():
            taken = [list(w.records) for w in waiting]  # a forget may shrink them meanwhile
            vectors = await self._embed([r.description for records in taken for r in records])
            rated: list[list[MemoryRecord]] = []
            parts: list[NDArray[np.float32]] = []
            start = 0
            for w, records in zip(waiting, taken, strict=True):
                agent = world.agent(w.agent_id)
                part = vectors[start : start + len(records)]
                start += len(records)
                parts.append(part)
                rated.append(
                    [
                        r
                        if r.importance != UNRATED
                        else replace(r, importance=await self._rate(world, agent, r, v))
                        for r, v in zip(records, part, strict=True)
                    ]
                )
            world.store.embedded(_completed(waiting, rated, vectors))
            for w, records, part in zip(waiting, rated, parts, strict=True):
                kept = world.embedded(w, records, part)
                if kept and not w.recovered:
                    self.after(world, world.agent(w.agent_id), kept)


def _completed(
    waiting: Sequence[Backlogged],
    rated: Sequence[Sequence[MemoryRecord]],
    vectors: NDArray[np.float32],
) -> list[tuple[str, MemoryRecord, NDArray[np.float32]]]:
    """(agent_id, rated memory, embedding) of every backlog entry, in order."""
    rows = [(w.agent_id, r) for w, records in zip(waiting, rated, strict=True) for r in records]
    return [(agent_id, r, v) for (agent_id, r), v in zip(rows, vectors, strict=True)]


def _log_failure(task: asyncio.Task[None]) -> None:
    """A store that cannot be reached (Unavailable) is said in one line: the backlog
    stays, and the next write or read of the world catches up again."""
    if task.cancelled() or (error := task.exception()) is None:
        return
    if isinstance(error, Unavailable):
        log.warning("embedding memories stored before their embeddings waits: %s", error)
    else:
        log.error("embedding memories stored before their embeddings failed", exc_info=error)
