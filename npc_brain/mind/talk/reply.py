"""Converse: understand the line, decide the answer from state, realise it, and let the
model word one more sentence; what streams is what stays.

With `grounded_replies` (the default) a line said to an NPC is first understood (its
dialogue act, whom and what it names, the time it asks about: understand.py), then the
act's composer decides the answer from the NPC's persona, plan, relationships, memories
and places, and realises it in the NPC's own voice (compose.py, realise.py). That answer
is checked for secrets and streams at once. Where the act leaves room for it (greetings,
small talk; `reply_wording` "model", off by default), the model words one more sentence in
character under a grammar; it is checked by the named rules (checks.py), drawn again
once if refused, and streams only once it passed, else is left out. So the streamed text
is the final text, always. A farewell ends the conversation.

Without grounded replies the model answers freely from the memories a prompt recalls,
as the paper's agents do, and streams as it writes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from npc_brain.action import Line
from npc_brain.game_actions import Offer
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import ANYONE, GameTime, MemoryKind, MemoryRecord
from npc_brain.memory.retrieval import Weights
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.acts import load_game_examples
from npc_brain.mind.talk.answers import said_line
from npc_brain.mind.talk.checks import Context, Refusal, Stage, first_refusal
from npc_brain.mind.talk.compose import compose
from npc_brain.mind.talk.misfit import Cast
from npc_brain.mind.talk.news import REFUSAL, News
from npc_brain.mind.talk.prompts import (
    Reply,
    pick_option,
    reply_messages,
    stream_reply,
    wording_schema,
)
from npc_brain.mind.talk.realise import persona_sentences
from npc_brain.mind.talk.scene import ASKED_WEIGHTS, Answer, Scene
from npc_brain.mind.talk.understand import Understanding
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord
from npc_brain.words import sentences

log = logging.getLogger(__name__)
WORDING_DRAWS = 2  # the model's sentence is drawn again once if refused, then left out
WORDING_TOKENS = 48


class _ListenerLeft(Exception):
    """Raised inside the model thread when the listener of a reply went away."""


class Replies:
    """Replies of agents to whoever speaks to them (a player, or any caller of Converse)."""

    def __init__(self, faculties: Faculties, news: News) -> None:
        self._f = faculties
        self._news = news
        extra = faculties.settings.act_examples
        self.understanding = Understanding(
            faculties, load_game_examples(Path(extra)) if extra else ()
        )

    async def converse(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool,
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces, then the final Line (whose text they make)."""
        speaker = world.store.get_agent(speaker_id)
        speaker_name = speaker.persona.name if speaker else ""
        asked = (speaker_id, speaker_name, utterance)
        grounded = self._f.settings.grounded_replies
        if grounded:  # checked piece by piece: what streams is what stays
            replying = self._grounded(world, agent, game_time, asked, interview)
        else:
            replying = self._free(world, agent, game_time, asked)
        # A free reply of an agent holding what it may not tell the speaker is checked
        # whole before a word of it leaves (News.leaks): a secret never streams out.
        guarded = not grounded and self._news.withholds(world, agent.agent_id, speaker_id)
        pieces: list[str] = []
        last: Line | None = None
        async for event in replying:
            if isinstance(event, str):
                pieces.append(event)
                if not guarded:
                    yield event
            else:
                last = event
        assert last is not None
        text = "".join(pieces)
        if guarded:
            if await self._leaks(world, agent, speaker_id, utterance, text):
                text = REFUSAL
            yield text
        if (
            interview
            and not grounded
            and (source := await self._news.source_of(world, agent, text))
        ):
            yield f" {source}"
            text = f"{text} {source}"
        if not interview:
            exchange = [Line(speaker_id, utterance), Line(agent.agent_id, text)]
            own = await self._news.reply_sharing(world, agent, speaker_id, text)
            name = speaker_name or speaker_id
            await self._f.remember_dialogue(
                world, agent, speaker_id, name, exchange, game_time, "", [ANYONE, own]
            )
        yield Line(
            agent.agent_id,
            text,
            last.end_conversation,
            act=last.act,
            topic=last.topic,
            game_action=last.game_action,
        )

    async def _grounded(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        asked: tuple[str, str, str],
        interview: bool,
    ) -> AsyncIterator[str | Line]:
        """The composed answer's sentences, then in an interview where the memories it
        rests on came from (News.source_of), then the model's sentence if one passed, then
        a Line carrying the act and topic (its text is what streamed)."""
        speaker_id, speaker_name, utterance = asked
        scene, answer = await self._composed(
            world, agent, game_time, speaker_id, speaker_name, utterance
        )
        heard, text = scene.heard, answer.text
        for i, piece in enumerate(answer.sentences):
            yield piece if i == 0 else f" {piece}"
        if interview and text != REFUSAL and answer.grounds:  # nothing recalled: no source
            source = await self._news.source_of(world, agent, " ".join(answer.grounds), text)
            if source:
                yield f" {source}"
        if answer.worded and self._f.settings.reply_wording == "model" and text != REFUSAL:
            extra = await self._worded(world, agent, scene, answer)
            if extra:
                yield f" {extra}"
        log.debug("%s heard %s (%s): %r", agent.agent_id, heard.act, heard.topic, utterance)
        chosen = None
        if answer.deed is not None and not interview:  # kept before the game hears of it
            chosen = answer.deed.chosen()
            agreed = Offer(chosen, agent.agent_id, speaker_id, answer.deed.agreed, game_time)
            world.store.add_offer(agreed)
        yield Line(
            agent.agent_id,
            "",
            answer.ends,
            act=heard.act.value,
            topic=heard.topic,
            game_action=chosen,
        )

    async def answer(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        speaker_name: str,
        utterance: str,
    ) -> Answer:
        """The composed answer to a line (understood, decided, realised: no model call),
        REFUSAL where it would give away what the agent may not tell the speaker."""
        _, answer = await self._composed(
            world, agent, game_time, speaker_id, speaker_name, utterance
        )
        return answer

    async def _composed(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        speaker_name: str,
        utterance: str,
    ) -> tuple[Scene, Answer]:
        """The scene and its composed answer, REFUSAL where it gives a secret away."""
        scene = await self._scene(world, agent, game_time, speaker_id, speaker_name, utterance)
        answer = await compose(scene)
        if await self._leaks(world, agent, speaker_id, utterance, answer.text):
            answer = Answer((REFUSAL,))
        return scene, answer

    async def _scene(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        speaker_name: str,
        utterance: str,
    ) -> Scene:
        """The line understood, with what a composer reads of the world."""
        agents = [a for i in world.store.agent_ids() if (a := world.store.get_agent(i)) is not None]
        others = {
            a.agent_id: a.persona.name
            for a in agents
            if a.agent_id not in (agent.agent_id, speaker_id)
        }
        roles = {a.agent_id: a.persona.learned for a in agents if a.agent_id in others}
        places = world.store.places(agent.agent_id)
        talking = [agent.persona.name, speaker_name]
        heard = await self.understanding.hear(utterance, game_time, others, places, roles, talking)
        return Scene(
            world,
            agent,
            speaker_id,
            speaker_name,
            game_time,
            heard,
            others,
            places,
            partial(self._recall, world, agent, game_time, speaker_id, speaker_name),
            self._f.embed,
            partial(self._pick, world, agent, game_time),
        )

    async def _pick(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        question: str,
        options: Sequence[str],
    ) -> str:
        """The model's choice among a game action's declared values (prompts.pick_option)."""
        thought = partial(pick_option, persona=agent.persona, question=question, options=options)
        return await self._f.think(
            world, agent, "converse", Priority.PLAYER_DIALOGUE, thought, game_time=game_time
        )

    async def _recall(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        speaker_name: str,
        query: str,
        k: int,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        created_after: GameTime | None = None,
        created_before: GameTime | None = None,
    ) -> list[MemoryRecord]:
        """What the agent recalls to tell the speaker: only what it may tell it, never
        the lines the two said to each other, and nothing its ablation switches turn off."""
        if not agent.memory_enabled:
            return []
        off = {MemoryKind.REFLECTION} if not agent.reflection_enabled else set()
        off |= {MemoryKind.PLAN} if not agent.planning_enabled else set()
        kinds = [k for k in (kinds or list(MemoryKind)) if k not in off]
        found = await self._f.recall(
            world,
            agent.agent_id,
            game_time,
            query,
            k,
            weights or ASKED_WEIGHTS,
            kinds,
            created_after,
            created_before,
            told_to=speaker_id,
            leave_out=partial(_between, agent=agent, asker=speaker_name or speaker_id),
            asked=True,
        )
        return [s.memory for s in found]

    async def _leaks(
        self, world: World, agent: AgentRecord, listener: str, utterance: str, text: str
    ) -> bool:
        names = [agent.persona.name, listener]
        return await self._news.leaks(world, agent.agent_id, listener, text, [utterance], names)

    async def _worded(self, world: World, agent: AgentRecord, scene: Scene, answer: Answer) -> str:
        """One more sentence in the agent's voice, worded by the model after the answer,
        if a draw passes the checks (and gives nothing away); else ''."""
        heard = scene.heard
        persona = agent.persona
        texts = [persona.describe(), heard.text, answer.text, *answer.grounds, *scene.places]
        cast = Cast.of(persona.name, scene.speaker, world.people(), texts)
        ctx = Context(
            persona,
            cast,
            heard.text,
            (answer.text, *answer.grounds),
            list(scene.people.values()),
            answer.answered,
            answer.text,
        )
        messages = wording_messages(agent, scene.speaker, heard.text, answer.text)
        for attempt in range(WORDING_DRAWS):
            seed = self._f.settings.seed + attempt
            try:  # the sentence is optional: a prompt past the context (a long persona) is none
                drawn = await self._draw(world, agent, messages, seed)
            except ValueError as exc:
                log.warning("no wording for %s: %s", agent.agent_id, exc)
                return ""
            refusal = (
                first_refusal(drawn, ctx, Stage.REPLY)
                if drawn
                else Refusal("form.degenerate", "no sentence")
            )
            if refusal is None and await self._leaks(
                world, agent, scene.speaker_id, heard.text, drawn
            ):
                refusal = Refusal("secret.leaks", "gives away what it may not tell")
            if refusal is None:
                return drawn
            self._f.usage.refused(world.world_id, agent.agent_id, refusal.check)
            log.debug("wording of %s refused (%s): %r", agent.agent_id, refusal, drawn)
        return ""

    async def _draw(
        self, world: World, agent: AgentRecord, messages: list[Message], seed: int
    ) -> str:
        settings = self._f.settings

        def word(chat: ChatModel) -> tuple[str, Completion]:
            completion = chat.complete(
                messages,
                max_tokens=WORDING_TOKENS,
                schema=wording_schema(),
                seed=seed,
                temperature=settings.temperature,
            )
            try:
                said = json.loads(completion.text).get("utterance", "")
            except (ValueError, AttributeError):
                said = ""
            return (said.strip() if isinstance(said, str) else ""), completion

        return await self._f.think(world, agent, "converse", Priority.PLAYER_DIALOGUE, word)

    async def _free(
        self, world: World, agent: AgentRecord, game_time: GameTime, asked: tuple[str, str, str]
    ) -> AsyncIterator[str | Line]:
        """The paper's reply: the model answers from the memories the line recalls, and
        its text streams as it writes (no checks: what it writes is what it says)."""
        speaker_id, speaker_name, utterance = asked
        recalled = await self._f.context(world, agent, game_time, utterance, speaker_id)
        messages = reply_messages(
            agent.persona, game_time, recalled, speaker_name or speaker_id, utterance
        )
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        listening = True
        loop = asyncio.get_running_loop()

        def on_text(piece: str) -> None:
            if not listening:
                raise _ListenerLeft
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        def reply(chat: ChatModel) -> tuple[Reply, Completion]:
            answer = stream_reply(
                chat,
                messages,
                max_tokens=self._f.settings.reply_max_tokens,
                temperature=self._f.settings.temperature,
                seed=self._f.settings.seed,
                on_text=on_text,
            )
            return answer, answer.completion

        job: asyncio.Future[Reply] = asyncio.ensure_future(
            self._f.think(world, agent, "converse", Priority.PLAYER_DIALOGUE, reply)
        )
        job.add_done_callback(_close_queue(pieces))
        streamed = ""
        try:
            while (piece := await pieces.get()) is not None:
                streamed += piece
                yield piece
            answer = await job
            if answer.text.startswith(streamed) and (rest := answer.text[len(streamed) :]):
                yield rest
            elif not answer.text.startswith(streamed):
                log.debug("reply of %s streamed more than it kept", agent.agent_id)
            yield Line(agent.agent_id, "", answer.end_conversation)
        finally:
            listening = False


def wording_messages(
    agent: AgentRecord, speaker: str, utterance: str, answer: str
) -> list[Message]:
    """The prompt for one more sentence after the answer code composed: the persona in
    the agent's own voice, the line, and the answer as the agent's own turn."""
    p = agent.persona
    own = persona_sentences(p.name, p.learned, p.innate, p.lifestyle, p.currently)
    who = speaker or "a stranger"
    system = (
        f"You are {p.name}. {' '.join(own.values())}\n\nYou are talking with {who}. "
        f"Stay in character. Answer with JSON."
    )
    return [
        Message("system", system, lasting=1),
        Message("user", f"{speaker or 'Stranger'}: {utterance}"),
        Message("assistant", json.dumps({"utterance": answer})),
        Message("user", f"Say one more short sentence to {who}, in character."),
    ]


def _between(memory: MemoryRecord, agent: AgentRecord, asker: str) -> bool:
    """Whether a memory holds no fact to tell the one who asks: a line the agent and the
    asker said to each other, or a question someone put to the agent ('Player asked
    me: "Who could take me across the pass?"' is no news, and no answer about the pass)."""
    line = said_line(memory.description) if memory.kind == MemoryKind.DIALOGUE else None
    if line is None:
        return False
    speaker, listener, words = line[0], line[1], line[2]
    asked = listener == agent.persona.name and speaker != listener and _only_questions(words)
    return asked or (bool(asker) and {speaker, listener} == {agent.persona.name, asker})


def _only_questions(words: str) -> bool:
    """Whether every sentence of a line is a question (it tells nothing)."""
    said = sentences(words.strip().strip('"'))
    return bool(said) and all(s.rstrip('"').endswith("?") for s in said)


def _close_queue(pieces: asyncio.Queue[str | None]) -> Callable[[asyncio.Future[Any]], None]:
    """A done-callback that ends the piece queue (and retrieves an abandoned job's error)."""

    def close(job: asyncio.Future[Any]) -> None:
        if not job.cancelled() and job.exception() is not None:
            log.debug("reply generation ended early: %r", job.exception())
        pieces.put_nowait(None)

    return close
