"""What every part of a mind uses: the models on their workers, recall, importance,
and remembering. Nothing here validates requests; the Brain facade does that first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from npc_brain.cognition.importance import rate_importance
from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.records import (
    GameTime,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Observation,
    ScoredMemory,
)
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.stream import Query
from npc_brain.persona import AgentRecord
from npc_brain.usage import UsageLedger
from npc_brain.worker import ModelWorker
from npc_brain.world import World

RATING_CACHE_SIZE = 4096


class Faculties:
    """Shared abilities of every agent's mind; one instance per server."""

    def __init__(self, chat: ChatModel, embedder: Embedder, settings: Settings) -> None:
        self.chat = chat
        self.embedder = embedder
        self.settings = settings
        self.chat_worker = ModelWorker("chat")
        self.embed_worker = ModelWorker("embed")
        self.usage = UsageLedger()
        self._ratings: OrderedDict[tuple[str, str], float] = OrderedDict()

    def close(self) -> None:
        self.chat_worker.shutdown()
        self.embed_worker.shutdown()

    async def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return await self.embed_worker.run(self.embedder.embed, list(texts))

    async def importance(self, world: World, agent: AgentRecord, o: Observation) -> float:
        """The observation's override, a cached rating of the same text, or a new rating."""
        if o.importance is not None:
            return float(o.importance)
        key = (agent.persona.name, o.text)
        if key in self._ratings:
            self._ratings.move_to_end(key)
            return self._ratings[key]
        rating = await self.chat_worker.run(rate_importance, self.chat, agent.persona.name, o.text)
        if rating.completion is not None:
            self.usage.record(world.world_id, agent.agent_id, "importance", rating.completion)
        self._ratings[key] = rating.value
        if len(self._ratings) > RATING_CACHE_SIZE:
            self._ratings.popitem(last=False)
        return rating.value

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
        memories = [
            NewMemory(
                kind=kind,
                description=o.text,
                created=game_time,
                importance=await self.importance(world, agent, o),
                subject=o.subject,
                predicate=o.predicate,
                object=o.object,
                address=o.address,
                source=o.source,
                expires=o.expires,
            )
            for o in observations
        ]
        return world.remember(agent.agent_id, memories, vectors)

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
    ) -> list[ScoredMemory]:
        """The k memories that matter for `text` now; they are marked accessed (durably)."""
        (vector,) = await self.embed([text])
        query = Query(
            vector,
            game_time,
            k,
            self.weights(weights),
            self.settings.recency_decay,
            kinds,
            created_after,
            created_before,
        )
        stream = world.stream(agent_id)
        found = stream.retrieve(query)
        world.store.touch([s.memory.memory_id for s in found], game_time)
        touched = stream.touch([s.memory for s in found], game_time)
        return [
            ScoredMemory(memory, s.score, s.recency, s.importance, s.relevance)
            for memory, s in zip(touched, found, strict=True)
        ]

    def weights(self, given: Weights | None) -> Weights:
        """The request's weights, each zero replaced by the configured default."""
        s = self.settings
        given = given or Weights(0, 0, 0)
        return Weights(
            given.recency or s.weight_recency,
            given.importance or s.weight_importance,
            given.relevance or s.weight_relevance,
        )
