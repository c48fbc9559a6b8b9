"""Converse: a reply streamed while the model writes it, resting on facts code chose.

With `grounded_replies` (the default) the question is first understood without a model
call: its topic (the paper's interview categories: self, a person, plans, memory, news,
reflections; and situations to react to) is the nearest of a few anchor sentences, and
the people it names are looked up. The facts the reply should rest on are then gathered
for that topic (the persona, what the agent thinks of the person and its memories of
them, today's plan, recent memories, important news, the agent's reflections; the
agent's ablation switches apply) and given to the model. Code chooses what to say and
the model words it: the plain sentence built from the best fact ("I am planning a
Valentine's Day party at the cafe.") is the answer planned, the reply must begin with
its first words (a pattern in its grammar), and those stream at once, before the model
starts; the rest streams as the model writes it, a word at a time, until it garbles.
A reply that is degenerate or names none of the facts is drawn again (not streamed:
the final Utterance is the reply as stored), then replaced by the planned sentence,
which begins with the same words. With no fact at all the honest "I don't know" is the
reply, without a model call. A greeting and nothing more ("Hello!") is answered in
kind: a greeting back or a line resting on the persona, else a plain greeting.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence, Set
from functools import partial
from typing import Any

import numpy as np

from npc_brain.action import Line
from npc_brain.llm.base import ChatModel, Completion, Message
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.records import ANYONE, GameTime, MemoryKind, MemoryRecord
from npc_brain.memory.retrieval import Weights
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.answers import (
    GREETING,
    TOPICS,
    adds_to,
    broken,
    degenerate,
    denies,
    echoes,
    first_person,
    garbled,
    greets,
    grounded,
    key_terms,
    left_out,
    names_in,
    plain_answer,
    said_line,
    said_words,
    trimmed,
    turned_around,
    unfounded,
)
from npc_brain.mind.talk.intent import tells_when
from npc_brain.mind.talk.misfit import Cast, misfit
from npc_brain.mind.talk.news import NEWS_WEIGHTS, News
from npc_brain.mind.talk.prompts import (
    OPENING_WORDS,
    Reply,
    fact_messages,
    opening_of,
    reply_messages,
    stream_reply,
)
from npc_brain.mind.talk.relations import relationship
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)
# What the question names: by relevance all but alone (a weight of 0 means the default).
WORDS_WEIGHTS = Weights(0.01, 0.01, 1.0)
# MiniLM cosine from which a reply is about the situation asked about: replies that
# react to one scored 0.28-0.65 with it (2 of 16 below), unrelated ones -0.01-0.23 (1 of
# 35 at 0.29), on 5 situations of the interview categories.
TAKES_UP = 0.25
REDRAWS = 2  # a refused reply is drawn again this many times, then replaced
FACTS = 5
# MiniLM cosine from which a memory bears on a question: questions that memories answer
# scored 0.51-0.83 with them, unrelated questions 0.30-0.32 (bench/interview.py's set).
RELEVANT = 0.4
_GENERIC = key_terms(
    "anything special happening town week news new heard event plans doing going yesterday "
    "lately talk talked done happened recently good morning afternoon evening hello hey"
)


class _ListenerLeft(Exception):
    """Raised inside the model thread when the listener of a reply went away."""


class Replies:
    """Replies of agents to whoever speaks to them (a player, or any caller of Converse)."""

    def __init__(self, faculties: Faculties, news: News) -> None:
        self._f = faculties
        self._news = news

    async def converse(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        speaker_id: str,
        utterance: str,
        interview: bool,
    ) -> AsyncIterator[str | Line]:
        """Yields the reply's text pieces as they are generated, then the final Line.
        An agent holding something it may not tell the speaker yields the reply only once
        it is checked (News.vetted): a secret never streams out."""
        speaker = world.store.get_agent(speaker_id)
        speaker_name = speaker.persona.name if speaker else speaker_id
        guarded = self._news.withholds(world, agent.agent_id, speaker_id)
        text, end = "", False
        asked = (speaker_id, speaker_name, utterance)
        async for event in self._reply(world, agent, game_time, asked):
            if isinstance(event, str):
                if not guarded:
                    yield event
            else:
                text, end = event
        text = await self._news.vetted(
            world, agent, speaker_id, utterance, text or "...", interview
        )
        if guarded:
            yield text
        if not interview:
            exchange = [Line(speaker_id, utterance), Line(agent.agent_id, text)]
            own = await self._news.reply_sharing(world, agent, speaker_id, text)
            await self._f.remember_dialogue(
                world, agent, speaker_id, speaker_name, exchange, game_time, "", [ANYONE, own]
            )
        yield Line(agent.agent_id, text, end)

    async def _reply(
        self, world: World, agent: AgentRecord, game_time: GameTime, asked: tuple[str, str, str]
    ) -> AsyncIterator[str | tuple[str, bool]]:
        """The reply's text pieces, then its text as checked and whether it ends the
        conversation. `asked`: the speaker's id and name, and what it said.

        Grounded, code chooses what to say and the model words it: the reply begins as
        the plain answer from the best fact does (asked what it would do, as the plain
        answer but for its last words), and that opening streams before the model
        starts. With no fact to word, the honest answer is the reply, without a model
        call."""
        speaker_id, speaker_name, utterance = asked
        if not self._f.settings.grounded_replies:
            recalled = await self._f.context(world, agent, game_time, utterance, speaker_id)
            messages = reply_messages(agent.persona, game_time, recalled, speaker_name, utterance)
            async for event in self._stream(world, agent, messages, ""):
                yield event if isinstance(event, str) else (event.text, event.end_conversation)
            return
        topic = await self.topic(utterance, agent.persona.name)
        situation = utterance if topic == "situation" else ""
        facts = await self.facts(world, agent, game_time, utterance, topic, speaker_id)
        texts = [agent.persona.describe(), utterance, *facts, *world.store.places(agent.agent_id)]
        cast = Cast.of(agent.persona.name, speaker_name, world.people(), texts)
        fallback = GREETING if topic == "greeting" else plain_reply(agent, facts, situation, cast)
        if not facts and topic not in ("greeting", "situation"):
            yield fallback
            yield fallback, False
            return
        messages = fact_messages(agent.persona, game_time, facts, speaker_name, utterance)
        # Asked what it would do, the agent sees to the thing ("I'd stop what I'm doing
        # and see to my breakfast"), and the model says how.
        opening = opening_of(fallback, len(fallback.split()) - 2 if situation else OPENING_WORDS)
        answer: Reply | None = None
        async for event in self._stream(world, agent, messages, opening):
            if isinstance(event, str):
                yield event
            else:
                answer = event
        assert answer is not None  # _stream ends with the reply
        text = await self._checked(
            world,
            agent,
            (messages, opening),
            answer.text,
            facts,
            (situation, f"{utterance} {agent.persona.name}", utterance),
            cast,
            (topic, fallback),
        )
        yield text, answer.end_conversation

    async def facts(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        utterance: str,
        topic: str,
        speaker_id: str = "",
    ) -> list[str]:
        """What a reply to `utterance` should rest on, most telling first. The topic
        picks the sources (the persona for itself; the plan, plan memories and what the
        persona is doing for plans; conversations for memory; important memories for
        news, else what it is doing; reflections), then come
        memories of the people it names and memories that bear on it (cosine at least
        RELEVANT); those sharing most of the question's words go first. A question none
        of whose words any of this holds gets no facts: the honest answer is "I don't
        know". The agent's ablation switches apply."""
        persona = agent.persona
        own = _persona_facts(agent)
        if not agent.memory_enabled:
            return own[:FACTS] if topic in ("self", "situation", "reflection") else own[:2]
        asked = _asked(utterance)
        # The persona's own facts that hold the question's words: the cafe's owner asked
        # "When do you open the cafe?" starts from running it, not from her party there.
        found = own if topic in ("self", "greeting") else [f for f in own if key_terms(f) & asked]
        recall = partial(self._recalled, world, agent, game_time, told_to=speaker_id)
        plan = world.mind(agent.agent_id).plan
        doing = _doing(agent)
        if topic == "plans" and agent.planning_enabled:
            found += [plan.describe(persona.name)] if plan is not None else []
            found += await recall(utterance, 2, kinds=[MemoryKind.PLAN])
            found += [*doing, *(f for f in own if "wakes" in f or "bed" in f)]
        if topic == "memory":
            found += await recall(utterance, 2, kinds=[MemoryKind.DIALOGUE])
        if topic == "news":  # what the agent is up to, if it heard of nothing
            found += await recall(utterance, 2, NEWS_WEIGHTS) or doing
        if topic == "reflection":  # what the agent concluded; its persona if nothing
            insights = [MemoryKind.REFLECTION, MemoryKind.THOUGHT]
            concluded = (
                await recall(utterance, 2, kinds=insights) if agent.reflection_enabled else []
            )
            found += concluded or own[1:3]
        people = {
            other.agent_id: other.persona.name
            for agent_id in world.store.agent_ids()
            if agent_id not in (agent.agent_id, speaker_id)
            and (other := world.store.get_agent(agent_id)) is not None
        }
        for named in names_in(utterance, people):  # what the agent thinks of them first
            view = relationship(world, agent.agent_id, named)
            found += [view] if view else []
            found += await recall(people[named], 3)
        off = {MemoryKind.REFLECTION} if not agent.reflection_enabled else set()
        off |= {MemoryKind.PLAN} if not agent.planning_enabled else set()
        kinds = [k for k in MemoryKind if k not in off] if off else []
        related = await recall(utterance, 4, kinds=kinds)
        if related:
            vectors = await self._f.embed([utterance, *related])
            likeness = vectors[1:] @ vectors[0]
            found += [f for f, score in zip(related, likeness, strict=True) if score >= RELEVANT]
        # And memories of what the question names, found by its own words (a long day's
        # memories bury "the party" under recent ones for the whole question).
        if asked:
            by_words = await recall(" ".join(sorted(asked)), 5, WORDS_WEIGHTS, kinds=kinds)
            found += [f for f in by_words if key_terms(f) & asked]
        open_ended = ("self", "greeting", "situation", "reflection")
        if topic not in open_ended and not _touches(utterance, found):
            return []
        # Facts that share the question's own words come first (the check and the
        # fallback rest on the first ones), of those, asked about news or plans, the
        # ones that say most of who, where and when (Maria's "we're planning a party at
        # Hobbs Cafe on February 14" before her sighting of "the customer seating:
        # inviting people to the party"; Isabella's own party before Maria's "How about
        # your party tonight?"); else the topic's order.
        unique = list(dict.fromkeys(trimmed(f) for f in found))
        if topic in ("news", "plans"):
            who = {**people, agent.agent_id: persona.name}
            where = {a.split(":")[1] for a in world.store.places(agent.agent_id) if ":" in a}
            unique.sort(key=lambda f: -_details(f, who, where))
        unique.sort(key=lambda f: -len(key_terms(f) & asked))
        return unique[:FACTS]

    async def topic(self, utterance: str, name: str = "") -> str:
        """The question's topic: "greeting" for a greeting and nothing more (to the
        agent named `name`), else the one whose anchor sentence is nearest."""
        if greets(utterance, [name]):
            return "greeting"
        anchors = [(topic, text) for topic, texts in TOPICS.items() for text in texts]
        vectors = await self._f.embed([utterance, *(text for _, text in anchors)])
        likeness = vectors[1:] @ vectors[0]
        return anchors[int(np.argmax(likeness))][0]

    async def _recalled(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        query: str,
        k: int,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        *,
        told_to: str,
    ) -> list[str]:
        asker = world.store.get_agent(told_to) if told_to else None
        name = asker.persona.name if asker else told_to
        found = await self._f.recall(
            world,
            agent.agent_id,
            game_time,
            query,
            k,
            weights,
            kinds,
            told_to=told_to,
            leave_out=partial(_between, agent=agent, asker=name),
        )
        return [s.memory.description for s in found]

    async def _checked(
        self,
        world: World,
        agent: AgentRecord,
        prompt: tuple[list[Message], str],
        text: str,
        facts: list[str],
        asked: tuple[str, str, str],
        cast: Cast,
        planned: tuple[str, str],
    ) -> str:
        """The reply if it is usable; else a redraw that is; else the plain answer
        (`planned`: the topic and that answer; `prompt`: the messages and the opening a
        draw begins with).
        Usable: not degenerate, fitting the town (misfit: English, in the agent's own
        part, naming only what `cast` knows), not repeating the question nor answering it
        for the asker ("No, you have not been invited"), naming no one
        of the town whom neither the facts, the question nor the persona name, and
        resting on one of the three most relevant facts (or, with none, honest, or
        taking up the situation asked about); about news, naming everyone the best
        fact's words name (the agent aside: "Eddy Lin is running for mayor" from a line
        saying Sam Moore is) and denying none ("no one has been running for mayor", said
        by the candidate) and saying what was asked about (`_subject`); asked what it
        would do in a situation, speaking for itself
        ("She would not eat any more" does not, to "... What would you do?"). `asked`:
        the situation asked to react to ('' if none), what was known, and the question."""
        settings = self._f.settings
        situation, known, question = asked
        topic, fallback = planned
        people = [p for p in cast.people if p not in (cast.listener, cast.speaker)]
        at_hand = [*facts, known, agent.persona.describe()]
        news = topic == "news" and bool(facts)
        subject = _subject(question, facts[0]) if news else set()
        for attempt in range(REDRAWS + 1):
            problem = degenerate(text, agent.persona) or misfit(text, cast)
            if problem is None and echoes(text, question):
                problem = "repeats the question"
            if problem is None and turned_around(text, question):
                problem = "answers for the asker"
            if problem is None and (strangers := unfounded(text, at_hand, people)):
                problem = f"names {', '.join(strangers)}, whom no fact names"
            if problem is None and news and (left := left_out(text, facts[0], people)):
                problem = f"leaves out {', '.join(left)}, whom the news is about"
            if problem is None and news and denies(text):
                problem = "denies the news it holds"
            if problem is None and subject and not key_terms(text) & subject:
                problem = f"says nothing of the {'/'.join(sorted(subject))} asked about"
            if problem is None and _misquotes(text, fallback, prompt[1], cast.person_words()):
                problem = "puts other words in the mouth of whom it quotes"
            if problem is None and situation and _asks_you(question) and not first_person(text):
                problem = "not in the first person, asked what it would do"
            if problem is None and not await self._rests_on(text, facts, asked, topic):
                problem = "names none of the facts"
            if problem is None:
                return text
            log.debug("reply of %s refused (%s): %r", agent.agent_id, problem, text)
            if attempt == REDRAWS:
                break
            seed = settings.seed + attempt + 1
            again = await self._draw(world, agent, prompt, seed, lambda _: None)
            text = again.text
        return fallback

    async def _rests_on(
        self, text: str, facts: list[str], asked: tuple[str, str, str], topic: str
    ) -> bool:
        """Grounded in the three best facts (answers.grounded), or, with none, about the
        situation asked about in meaning; a greeting back answers a greeting."""
        situation, known, _ = asked
        if (topic == "greeting" and greets(text)) or grounded(text, facts[:3], situation, known):
            return True
        return bool(situation) and not facts and await self._takes_up(text, situation)

    async def _takes_up(self, text: str, situation: str) -> bool:
        """Whether a reply is about the situation it reacts to in meaning (cosine at
        least TAKES_UP) and adds to it: "I'd call the fire department" to a burning
        breakfast shares no word with it."""
        if not adds_to(text, situation):
            return False
        vectors = await self._f.embed([text, situation])
        return float(vectors[0] @ vectors[1]) >= TAKES_UP

    async def _draw(
        self,
        world: World,
        agent: AgentRecord,
        prompt: tuple[list[Message], str],
        seed: int,
        on_text: Callable[[str], None],
    ) -> Reply:
        """One reply drawn at player-dialogue priority, beginning with the opening of
        `prompt` (its messages, its opening), each new piece of text to on_text."""
        settings = self._f.settings
        messages, opening = prompt

        def reply(chat: ChatModel) -> tuple[Reply, Completion]:
            answer = stream_reply(
                chat,
                messages,
                max_tokens=settings.reply_max_tokens,
                temperature=settings.temperature,
                seed=seed,
                on_text=on_text,
                opening=opening,
            )
            return answer, answer.completion

        return await self._f.think(world, agent, "converse", Priority.PLAYER_DIALOGUE, reply)

    async def _stream(
        self, world: World, agent: AgentRecord, messages: list[Message], opening: str
    ) -> AsyncIterator[str | Reply]:
        """The reply's text pieces (a _Preview of the first draw), then the whole Reply."""
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        listening = True
        loop = asyncio.get_running_loop()
        preview = _Preview(opening)

        def on_text(piece: str) -> None:
            if not listening:
                raise _ListenerLeft
            if new := preview.feed(piece):
                loop.call_soon_threadsafe(pieces.put_nowait, new)

        job: asyncio.Future[Reply] = asyncio.ensure_future(
            self._draw(world, agent, (messages, opening), self._f.settings.seed, on_text)
        )
        job.add_done_callback(_close_queue(pieces))
        try:
            if opening:
                yield opening
            while (piece := await pieces.get()) is not None:
                yield piece
            answer = await job
            if rest := preview.rest(answer.text):
                yield rest
            yield answer
        finally:
            listening = False


class _Preview:
    """What of a draw streams. With an opening (a grounded reply): the opening at once,
    before the model starts, then the draw's text beyond it a whole word at a time,
    until it leaves the opening (a backend that ignores the pattern) or garbles (number
    soup, a loop, a role tag: answers.garbled); the final Utterance tells the rest.
    Without one, the draw as the model writes it."""

    def __init__(self, opening: str) -> None:
        self._opening = opening
        self._written = ""  # the draw's text so far
        self._sent = opening
        self._stopped = False

    def feed(self, piece: str) -> str:
        """The draw's next piece of text; what of it to stream now (maybe '')."""
        self._written += piece
        if not self._opening:
            return piece
        written, opening = self._written, self._opening
        if self._stopped or not written.startswith(opening[: len(written)]):
            self._stopped = True
            return ""
        words = written[: written.rfind(" ") + 1].rstrip()  # its whole words (none: "")
        if len(words) <= len(self._sent):
            return ""
        if garbled(words):
            self._stopped = True
            return ""
        new, self._sent = words[len(self._sent) :], words
        return new

    def rest(self, text: str) -> str:
        """What of the draw's whole text is left to stream, if it still may."""
        if not self._opening or self._stopped or garbled(text) or not text.startswith(self._sent):
            return ""
        return text[len(self._sent) :]


def plain_reply(agent: AgentRecord, facts: Sequence[str], situation: str, cast: Cast) -> str:
    """The plain answer from the first of the three best facts that gives a usable line
    (a fact may quote a garbled line), else the honest one without a fact. Asked to
    react to a `situation`, that the agent would see to it (answers.on_it): a fact is no
    reaction (the day's plan was the answer to "There is a fire in the cafe!")."""
    for fact in [] if situation else facts[:3]:
        text = plain_answer(agent.persona, fact)
        if not (broken(text) or misfit(text, cast)):
            return text
    return plain_answer(agent.persona, None, situation, cast.people)


def _persona_facts(agent: AgentRecord) -> list[str]:
    """The persona as facts, what it does first."""
    p = agent.persona
    first = p.learned.split(" ", 1)[0]
    article = first.lower() in ("a", "an", "the")
    named = first in p.name.split()  # "Isabella runs Hobbs Cafe ..." names her already
    learned = p.learned if named else f"{p.name} {'is ' if article else ''}{p.learned}"
    facts = [learned if p.learned else ""]
    facts += _doing(agent)
    facts += [f"{p.name} is {p.innate}" if p.innate else ""]
    facts += [f"{p.name} {p.lifestyle}" if p.lifestyle else ""]
    facts += [f"{p.name} is {p.age} years old" if p.age else ""]
    return [f for f in facts if f]


def _doing(agent: AgentRecord) -> list[str]:
    """What the persona is doing lately, as a fact (none if it does not say)."""
    p = agent.persona
    return [f"{p.name} is {p.currently}"] if p.currently else []


def _details(fact: str, people: dict[str, str], places: Set[str]) -> int:
    """How many of who (one of `people`), where and when a fact tells; of a line, its
    words say them (not its speaker and listener)."""
    words = said_words(fact)
    who = bool(names_in(words, people))
    where = any(place in words for place in places)
    return who + where + tells_when(words)


def _touches(question: str, facts: Sequence[str]) -> bool:
    """Whether the facts hold any of the question's content words (beyond the words
    every question about news or plans has)."""
    asked = _asked(question)
    held = set().union(*(key_terms(f) for f in facts)) if facts else set()
    return bool(facts) and (not asked or bool(asked & held))


def _between(memory: MemoryRecord, agent: AgentRecord, asker: str) -> bool:
    """Whether a memory is a line the agent and the one who asks said to each other: no
    fact to tell them back ('player told me: "Good morning! What are you up to today?"',
    asked by the player what is happening in town; 'I told player: "..."')."""
    line = said_line(memory.description) if memory.kind == MemoryKind.DIALOGUE else None
    return bool(asker) and line is not None and {line[0], line[1]} == {agent.persona.name, asker}


def _subject(question: str, fact: str) -> set[str]:
    """The question's own words that the best fact holds ("party"): a reply about news
    must say one. The opening that code gives a draw names the fact's people, so a draw
    that went on about something else still named them (the default demo: Maria, asked
    of a party coming up, "I told Klaus Mueller: You have a secret crush on ...")."""
    return _asked(question) & key_terms(fact)


def _misquotes(text: str, planned: str, opening: str, names: Set[str] = frozenset()) -> bool:
    """Whether a draw that reports someone's words (its opening ends in a colon, as in
    'Isabella Rodriguez told me:') says other words than the planned answer quotes:
    fewer than half of the quote's content words, more than half of its own from
    elsewhere, or a person's name (of `names`, lowercase) the quote does not say. The
    default demo: Jennifer, told of Isabella's party, answered "Isabella Rodriguez told
    me: 'You can't have a party if it's not your house.'"; the 10-agent day: Jane, "Sam
    Moore told me: I'm Jane Moreno, I'm running for mayor"."""
    if not opening.endswith(":") or '"' not in planned or not planned.startswith(opening):
        return False
    quote = key_terms(planned[len(opening) :])
    said = key_terms(text[len(opening) :] if text.startswith(opening) else text)
    if not quote:
        return False
    added = said - quote
    return 2 * len(said & quote) < len(quote) or 2 * len(added) > len(said) or bool(added & names)


def _asked(question: str) -> set[str]:
    """The question's own content words: its key terms but those every question about
    news or plans has."""
    return key_terms(question) - _GENERIC


def _asks_you(question: str) -> bool:
    """Whether a question asks the agent itself ("What would you do?")."""
    return re.search(r"\byou\b", question, re.I) is not None


def _close_queue(pieces: asyncio.Queue[str | None]) -> Callable[[asyncio.Future[Any]], None]:
    """A done-callback that ends the piece queue (and retrieves an abandoned job's error)."""

    def close(job: asyncio.Future[Any]) -> None:
        if not job.cancelled() and job.exception() is not None:
            log.debug("reply generation ended early: %r", job.exception())
        pieces.put_nowait(None)

    return close
