"""What every part of a mind uses: thinking (the chat model behind the cognition
scheduler, each call counted in the usage ledger where it is made), the embedder on its
worker, recall, importance and remembering. Every memory stored through here tells
`after_remember` (the reflection trigger). Nothing here validates requests; the Brain
facade does that first."""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from npc_brain.action import Line
from npc_brain.config import Settings
from npc_brain.importance.base import Estimate, ImportanceEstimator
from npc_brain.importance.registry import Estimators
from npc_brain.llm.backends import chat_workers
from npc_brain.llm.base import Batching, ChatModel, Completion, Embedder, Interruptible
from npc_brain.llm.embed_cache import EmbeddingCache
from npc_brain.llm.scheduler import Priority, Scheduler
from npc_brain.llm.worker import ModelWorker
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
    ScoredMemory,
    Sharing,
    Source,
    SourceKind,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stream import Query
from npc_brain.memory.when import DAY, Window, asked_when, days_from, event_day, part_of
from npc_brain.mind.backlog import CatchUp
from npc_brain.mind.emoji import MEANINGS, nearest_emojis
from npc_brain.mind.reflect.prompts import Insight
from npc_brain.mind.usage import UsageLedger
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

log = logging.getLogger(__name__)
RATING_CACHE_SIZE = 4096
LEFT_OUT_MARGIN = 16  # memories a recall's `leave_out` may pass over for the next best
LEXICAL_CANDIDATES = 64  # the memories best by BM25 that a hybrid retrieval considers
PAST_RECENCY = 0.1  # recency's share of its weight for a question that looks back
# Relevance's weight, times its own, for a question asked with no time window: what
# bears on it, before what is recent or weighty (long-memory train split: 83% hit@10
# against 80% at 1; a question with a window keeps 1, its window doing that work).
ASKED_RELEVANCE = 3.0
T = TypeVar("T")
Thought = Callable[[ChatModel], tuple[T, Completion | None]]
RememberHook = Callable[[World, AgentRecord, GameTime], None]


class Faculties:
    """Shared abilities of every agent's mind; one instance per server."""

    def __init__(self, chat: ChatModel, embedder: Embedder, settings: Settings) -> None:
        self.chat = chat
        self.embedder = embedder
        self.settings = settings
        workers, urgent_workers = chat_workers(settings)
        self.scheduler = Scheduler(
            "cognition",
            settings.cognition_queue,
            workers=workers,
            nice=settings.model_nice,
            urgent_workers=urgent_workers,
        )
        if settings.player_first and isinstance(chat, Interruptible):
            chat.interrupts = self.scheduler  # a player's line runs inside a running job
        if settings.player_first and isinstance(chat, Batching):
            chat.is_urgent = self.scheduler.urgent  # a player's line is read first
        self.embed_worker = ModelWorker("embed")
        self.embeddings = EmbeddingCache(settings.embedding_cache_size, embedder.dimension)
        self.usage = UsageLedger()
        self.importance_estimators = Estimators(settings, chat, embedder)
        # (estimator, agent name or "", text) -> estimate, with the anchors that decided it
        self._ratings: OrderedDict[tuple[str, ...], Estimate] = OrderedDict()
        self.after_remember: RememberHook = lambda world, agent, game_time: None
        # what Perceive stored before its embeddings: embedded and rated after
        self.catch_up = CatchUp(self.embed, self._rating)

    def close(self) -> None:
        self.scheduler.close()
        self.embed_worker.shutdown()
        stats = getattr(self.chat, "prompt_cache_stats", None)
        if stats is not None and stats.prompt_tokens:
            log.info(
                "prompt tokens: %d, not evaluated again: %d (%.0f%%)",
                stats.prompt_tokens,
                stats.reused_tokens,
                100 * stats.reused_tokens / stats.prompt_tokens,
            )

    async def think(
        self,
        world: World,
        agent: AgentRecord,
        kind: str,
        priority: Priority,
        thought: Thought[T],
        *,
        game_time: GameTime | None = None,
        supersede: str = "",
    ) -> T:
        """Runs thought(chat) on the cognition scheduler and counts the call as the
        agent's `kind` in the game hour of game_time (default: its latest seen). A newer
        thought of the agent with the same `supersede` label replaces this one while it
        waits."""
        key = f"{supersede}:{world.world_id}:{agent.agent_id}" if supersede else None
        result, completion = await self.scheduler.submit(
            priority, lambda: thought(self.chat), key=key
        )
        if completion is not None:
            self.usage.record(world.world_id, agent.agent_id, kind, completion, game_time)
        return result

    async def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Rows for `texts`: known texts from the cache (without leaving the event loop),
        the others computed in one batch on the embedder's thread, each distinct text once."""
        rows, missing = self.embeddings.lookup(texts)
        if not missing:
            return rows
        computed = await self.embed_worker.run(self.embedder.embed, missing)
        return self.embeddings.fill(rows, texts, missing, computed)

    def known_embeddings(self, texts: Sequence[str]) -> tuple[NDArray[np.float32], list[str]]:
        """Rows for the texts the embedding cache knows, and the texts it does not."""
        return self.embeddings.lookup(texts)

    def known_importance(self, world: World, agent: AgentRecord, o: Observation) -> float | None:
        """The observation's override or its cached rating; None when it needs rating."""
        if o.importance is not None:
            return float(o.importance)
        estimator = self.importance_estimators.for_agent(world.world_id, agent.agent_id)
        key = _rating_key(estimator, agent, o.text)
        if (cached := self._ratings.get(key)) is None:
            return None
        self._ratings.move_to_end(key)
        return cached.value

    async def _rating(
        self, world: World, agent: AgentRecord, memory: MemoryRecord, vector: NDArray[np.float32]
    ) -> float:
        return await self.importance(world, agent, Observation(memory.description), vector=vector)

    async def emojis(self, activities: Sequence[str]) -> list[str]:
        """Each activity's emoji: the one whose meaning its embedding is nearest to."""
        vectors = await self.embed([*MEANINGS.values(), *activities])
        return nearest_emojis(vectors[len(MEANINGS) :], vectors[: len(MEANINGS)])

    async def importance(
        self,
        world: World,
        agent: AgentRecord,
        o: Observation,
        *,
        vector: NDArray[np.float32] | None = None,
    ) -> float:
        """The observation's override, a cached estimate of the same text, or a new one by
        the agent's estimator (`vector`: the text's embedding, when the caller has it)."""
        if o.importance is not None:
            return float(o.importance)
        estimator = self.importance_estimators.for_agent(world.world_id, agent.agent_id)
        key = _rating_key(estimator, agent, o.text)
        if (cached := self._ratings.get(key)) is not None:
            self._ratings.move_to_end(key)
            return cached.value
        args = ([o.text], None if vector is None else vector.reshape(1, -1), agent.persona.name)
        if estimator.uses_chat:
            estimate = await self.think(
                world,
                agent,
                "importance",
                Priority.IMPORTANCE,
                lambda _: _with_completion(estimator.estimate(*args)[0]),
            )
        else:  # the anchors: numpy, plus the embedder once for the anchors themselves
            (estimate,) = await self.embed_worker.run(estimator.estimate, *args)
        log.debug("importance of %r for %s: %s", o.text, agent.agent_id, estimate.explain())
        self._ratings[key] = estimate
        if len(self._ratings) > RATING_CACHE_SIZE:
            self._ratings.popitem(last=False)
        return estimate.value

    def importance_explanation(
        self, world: World, agent: AgentRecord, text: str
    ) -> Estimate | None:
        """The latest estimate of `text` for the agent (with the anchors that decided it),
        while it is in the rating cache; None for overrides and texts not rated lately."""
        estimator = self.importance_estimators.for_agent(world.world_id, agent.agent_id)
        return self._ratings.get(_rating_key(estimator, agent, text))

    async def remember(
        self,
        world: World,
        agent: AgentRecord,
        kind: MemoryKind,
        observations: Sequence[Observation],
        game_time: GameTime,
    ) -> list[MemoryRecord]:
        """Embeds, rates and durably stores observations as memories of one kind."""
        vectors = await self.embed([o.text for o in observations])
        memories = await self.rate(world, agent, kind, observations, game_time, vectors)
        return self._store(world, agent, memories, vectors, game_time)

    async def remember_insights(
        self,
        world: World,
        agent: AgentRecord,
        insights: Sequence[Insight],
        game_time: GameTime,
        kind: MemoryKind = MemoryKind.REFLECTION,
        shown: Sequence[MemoryRecord] = (),
    ) -> list[MemoryRecord]:
        """Stores the agent's own conclusions (REFLECTION, or THOUGHT after a conversation)
        citing their evidence, each at depth 1 + its deepest evidence. What is drawn from
        a memory the agent may not tell is no more tellable than it (Sharing.narrowed):
        than its evidence, and than every memory `shown` to the model beside it."""
        seen = _narrowest(m.sharing for m in shown)
        vectors = await self.embed([i.text for i in insights])
        memories = [
            NewMemory(
                kind=kind,
                description=insight.text,
                created=game_time,
                importance=await self.importance(world, agent, Observation(insight.text)),
                source=Source(SourceKind.SEEN, agent.agent_id),
                evidence_ids=tuple(m.memory_id for m in insight.evidence),
                depth=1 + max((m.depth for m in insight.evidence), default=0),
                sharing=seen.narrowed(_narrowest(m.sharing for m in insight.evidence)),
            )
            for insight in insights
        ]
        return self._store(world, agent, memories, vectors, game_time)

    def _store(
        self,
        world: World,
        agent: AgentRecord,
        memories: Sequence[NewMemory],
        vectors: NDArray[np.float32],
        game_time: GameTime,
    ) -> list[MemoryRecord]:
        stored = world.remember(agent.agent_id, memories, vectors)
        if stored:
            self.after_remember(world, agent, game_time)
        return stored

    async def rate(
        self,
        world: World,
        agent: AgentRecord,
        kind: MemoryKind,
        observations: Sequence[Observation],
        game_time: GameTime,
        vectors: NDArray[np.float32],
    ) -> list[NewMemory]:
        """Rates embedded observations (one row of `vectors` each) as new memories."""
        return [
            o.as_memory(kind, game_time, await self.importance(world, agent, o, vector=vector))
            for o, vector in zip(observations, vectors, strict=True)
        ]

    async def remember_dialogue(
        self,
        world: World,
        agent: AgentRecord,
        other_id: str,
        other_name: str,
        lines: Sequence[Line],
        game_time: GameTime,
        address: str = "",
        sharing: Sequence[Sharing] = (),
    ) -> list[MemoryRecord]:
        """A conversation's lines as the agent's dialogue memories, rated once as a whole;
        the agent's own lines are SEEN, what it heard carries the speaker as its source.
        `sharing`: whom the agent may tell each line (default: anyone)."""
        name = agent.persona.name
        texts = [
            (f'{name} said to {other_name}: "{x.text}"', Source(SourceKind.SEEN, agent.agent_id))
            if x.speaker_id == agent.agent_id
            else (f'{other_name} said to {name}: "{x.text}"', Source(SourceKind.HEARD, other_id))
            for x in lines
        ]
        rating = await self.importance(world, agent, Observation("\n".join(t for t, _ in texts)))
        shared = list(sharing) or [Sharing()] * len(texts)
        memories = [
            Observation(t, address=address, source=s, importance=rating, sharing=w)
            for (t, s), w in zip(texts, shared, strict=True)
        ]
        return await self.remember(world, agent, MemoryKind.DIALOGUE, memories, game_time)

    async def recall(
        self,
        world: World,
        agent_id: str,
        game_time: GameTime,
        text: str,
        k: int,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        created_after: GameTime | None = None,
        created_before: GameTime | None = None,
        told_to: str | None = None,
        *,
        weighed: bool = True,
        leave_out: Callable[[MemoryRecord], bool] | None = None,
        asked: bool = False,
    ) -> list[ScoredMemory]:
        """The k memories that matter for `text` now; they are marked accessed (durably).
        With `weighed` (for thinking: prompts, plans, replies; not the Retrieve RPC), a
        memory a better-supported one contradicts is left out (News.weigh). `told_to`:
        the recall is for telling this listener (a player or an agent), so only memories
        the agent may tell it are recalled (Sharing.allows). `leave_out`: memories not
        wanted here, passed over for the next best (up to LEFT_OUT_MARGIN of them).
        Memories stored before their embeddings are waited for (or embedded here), so
        none is left out."""
        query = await self.query(
            world,
            agent_id,
            game_time,
            text,
            k,
            weights,
            kinds,
            created_after,
            created_before,
            told_to,
            asked,
        )
        stream = world.stream(agent_id)
        outweighed = world.store.contradictions.outweighed(agent_id) if weighed else set()
        margin = len(outweighed) + (LEFT_OUT_MARGIN if leave_out is not None else 0)
        if margin:  # room for the memories left out
            query = replace(query, k=k + margin)
        retrieved = stream.retrieve(query)
        if not retrieved and created_after is None and created_before is None:
            # a window read from the question's words held nothing: ask without it
            retrieved = stream.retrieve(
                replace(query, created_after=None, created_before=None, notable=False)
            )
        found = [
            s
            for s in retrieved
            if s.memory.memory_id not in outweighed and not (leave_out and leave_out(s.memory))
        ][:k]
        world.store.touch([s.memory.memory_id for s in found], game_time)
        touched = stream.touch([s.memory for s in found], game_time)
        return [
            replace(s, memory=memory)  # as touched: accessed now
            for memory, s in zip(touched, found, strict=True)
        ]

    async def query(
        self,
        world: World,
        agent_id: str,
        game_time: GameTime,
        text: str,
        k: int,
        weights: Weights | None = None,
        kinds: Sequence[MemoryKind] = (),
        created_after: GameTime | None = None,
        created_before: GameTime | None = None,
        told_to: str | None = None,
        asked: bool = False,
    ) -> Query:
        """The agent's retrieval of the k memories for `text` now, as recall runs it and
        the inspector explains it: the text's embedding, the weights with defaults filled
        in, the configured recency decay and the filters. Waits first for the agent's
        memories stored before their embeddings, so the stream holds every one.

        `asked`: the text is a question put to the agent (Retrieve, a line said to it),
        retrieved as the `retrieval` setting says; with "hybrid" the memories sharing its
        words are candidates beside the nearest by embedding (Query.lexical), and its
        temporal intent shapes the weights (asked_when). Planning and reacting are
        retrieved by the paper's formula."""
        await self.catch_up.wait(world, agent_id)
        (vector,) = await self.embed([text])
        weighed = self.weights(weights)
        given = weights or Weights(0, 0, 0)  # a zero: the default, shaped by the question
        lexical = None
        notable = False
        if asked and self.settings.retrieval == "hybrid":
            lexical = tuple(world.store.lexical(agent_id, text, LEXICAL_CANDIDATES))
            intent = asked_when(text, game_time)
            if intent.looks_back and not given.recency:
                weighed = replace(weighed, recency=weighed.recency * PAST_RECENCY)
            window = intent.window or self._event_window(world, agent_id, text, game_time)
            if window is None and not given.relevance:
                weighed = replace(weighed, relevance=weighed.relevance * ASKED_RELEVANCE)
            if window is not None and created_after is None and created_before is None:
                created_after, created_before = window.start, window.end
                notable = not _named_within(world, agent_id, text, window)
        return Query(
            vector,
            game_time,
            k,
            weighed,
            self.settings.recency_decay,
            kinds,
            created_after,
            created_before,
            told_to,
            lexical,
            notable,
        )

    def _event_window(
        self, world: World, agent_id: str, text: str, game_time: GameTime
    ) -> Window | None:
        """The part of a day a question names by an event ("the morning of the flood",
        "the day after the flood"): found from the agent's memory that best matches the
        event's words (BM25), when that memory is from before now, and the day it says
        it is on ("spent the day after the flood drying tins": the flood was the day
        before). (The earliest or the weightiest of the best five did worse on the
        long-memory bench: 80% and 81% of 'when' questions from the right window
        against 86%.)"""
        named = event_day(text)
        if named is None:
            return None
        stream = world.stream(agent_id)
        for memory_id in world.store.lexical(agent_id, named.event, 1):
            memory = stream.get(memory_id)
            if memory is not None and memory.created <= game_time:
                days = named.days - days_from(memory.description, named.event)
                return part_of(memory.created + days * DAY, named.part, named.phrase)
        return None

    async def context(
        self,
        world: World,
        agent: AgentRecord,
        game_time: GameTime,
        text: str,
        told_to: str | None = None,
    ) -> list[MemoryRecord]:
        """The memories a prompt about `text` gets: none when the agent's memory is off.
        A prompt for talking to someone passes `told_to` (see recall)."""
        if not agent.memory_enabled:
            return []
        found = await self.recall(
            world,
            agent.agent_id,
            game_time,
            text,
            self.settings.context_memories,
            told_to=told_to,
        )
        return [s.memory for s in found]

    def weights(self, given: Weights | None) -> Weights:
        """The request's weights, each zero replaced by the configured default."""
        s = self.settings
        given = given or Weights(0, 0, 0)
        return Weights(
            given.recency or s.weight_recency,
            given.importance or s.weight_importance,
            given.relevance or s.weight_relevance,
        )


def _narrowest(sharings: Iterable[Sharing]) -> Sharing:
    """Whom a memory drawn from memories of these sharings may be told."""
    return functools.reduce(Sharing.narrowed, sharings, Sharing())


def _with_completion(estimate: Estimate) -> tuple[Estimate, Completion | None]:
    return estimate, estimate.completion


def _rating_key(estimator: ImportanceEstimator, agent: AgentRecord, text: str) -> tuple[str, ...]:
    """Where a rating is cached: per agent name only if the estimator reads the name."""
    return (estimator.name, agent.persona.name if estimator.uses_agent_name else "", text)


def _named_within(world: World, agent_id: str, text: str, window: Window) -> bool:
    """Whether a question says more than its time: a word of it besides its window's
    phrase ("Marta" in "what did Marta say on Thursday?") is in a memory of the window.
    "Did anything happen on the 27th?" says nothing more."""
    rest = text.replace(window.phrase, " ")
    return bool(world.store.lexical(agent_id, rest, 1, (window.start, window.end)))
