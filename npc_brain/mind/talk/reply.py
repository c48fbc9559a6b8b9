"""Converse: a reply streamed while the model writes it, then remembered by both lines."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from npc_brain.action import Line
from npc_brain.llm.base import ChatModel, Completion
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import GameTime
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.prompts import Reply, reply_messages, stream_reply
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)


class _ListenerLeft(Exception):
    """Raised inside the model thread when the listener of a reply went away."""


class Replies:
    """Replies of agents to whoever speaks to them (a player, or any caller of Converse)."""

    def __init__(self, faculties: Faculties) -> None:
        self._f = faculties

    async def converse(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool,
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces as they are generated, then the final Line."""
        speaker = world.store.get_agent(speaker_id)
        speaker_name = speaker.persona.name if speaker else speaker_id
        recalled = await self._f.context(world, agent, game_time, utterance)
        messages = reply_messages(agent.persona, game_time, recalled, speaker_name, utterance)
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        listening = True
        loop = asyncio.get_running_loop()

        def on_text(piece: str) -> None:
            if not listening:
                raise _ListenerLeft
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        settings = self._f.settings

        def reply(chat: ChatModel) -> tuple[Reply, Completion]:
            answer = stream_reply(
                chat,
                messages,
                max_tokens=settings.reply_max_tokens,
                temperature=settings.temperature,
                seed=settings.seed,
                on_text=on_text,
            )
            return answer, answer.completion

        job: asyncio.Future[Reply] = asyncio.ensure_future(
            self._f.think(world, agent, "converse", Priority.PLAYER_DIALOGUE, reply)
        )
        job.add_done_callback(_close_queue(pieces))
        try:
            while (piece := await pieces.get()) is not None:
                yield piece
            answer = await job
        finally:
            listening = False
        text = answer.text or "..."
        if not interview:
            exchange = [Line(speaker_id, utterance), Line(agent.agent_id, text)]
            await self._f.remember_dialogue(
                world, agent, speaker_id, speaker_name, exchange, game_time
            )
        yield Line(agent.agent_id, text, answer.end_conversation)


def _close_queue(pieces: asyncio.Queue[str | None]) -> Callable[[asyncio.Future[Any]], None]:
    """A done-callback that ends the piece queue (and retrieves an abandoned job's error)."""

    def close(job: asyncio.Future[Any]) -> None:
        if not job.cancelled() and job.exception() is not None:
            log.debug("reply generation ended early: %r", job.exception())
        pieces.put_nowait(None)

    return close
