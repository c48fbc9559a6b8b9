"""The server's importance estimators, built once from settings and chosen per agent."""

from __future__ import annotations

from pathlib import Path

from npc_brain.config import Settings
from npc_brain.importance.anchors import Anchor, load_anchors, merge, shipped_anchors
from npc_brain.importance.base import ImportanceEstimator
from npc_brain.importance.blend import BlendEstimator
from npc_brain.importance.knn import AnchorEstimator
from npc_brain.importance.prompted import ModelEstimator
from npc_brain.importance.selection import choose, parse_overrides
from npc_brain.llm.base import ChatModel, Embedder

CACHE_DIR = "cache"


def configured_anchors(settings: Settings) -> list[Anchor]:
    """The shipped anchors merged with the game's file (`importance_anchors`), if any."""
    anchors = shipped_anchors()
    if settings.importance_anchors:
        anchors = merge(anchors, load_anchors(Path(settings.importance_anchors)))
    return anchors


class Estimators:
    """One estimator of each kind, sharing the anchor embeddings and the chat model.

    Raises InvalidArgument naming the setting when the game's anchors file is unusable.
    """

    def __init__(self, settings: Settings, chat: ChatModel, embedder: Embedder) -> None:
        self.default = settings.importance_estimator
        self.overrides = parse_overrides(settings.importance_estimator_overrides)
        self.anchors = AnchorEstimator(
            configured_anchors(settings),
            embedder,
            k=settings.importance_neighbours,
            temperature=settings.importance_temperature,
            cache_dir=settings.data_dir / CACHE_DIR,
        )
        self.model = ModelEstimator(chat)
        self.blend = BlendEstimator(self.anchors, self.model, settings.importance_blend_weight)
        self._by_name: dict[str, ImportanceEstimator] = {
            "anchors": self.anchors,
            "model": self.model,
            "blend": self.blend,
        }

    def by_name(self, name: str) -> ImportanceEstimator:
        return self._by_name[name]  # asked for every new memory of every Tick

    def for_agent(self, world_id: str, agent_id: str) -> ImportanceEstimator:
        """The estimator that rates this agent's memories."""
        return self.by_name(choose(self.overrides, self.default, world_id, agent_id))
