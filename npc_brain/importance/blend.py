"""The blend estimator: a weighted mean of the anchor estimate and the model's rating."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from npc_brain.config import DEFAULT_ANCHOR_WEIGHT
from npc_brain.importance.base import Estimate, ImportanceEstimator, clamp


class BlendEstimator:
    """`anchor_weight` * anchors + (1 - anchor_weight) * model; costs the model's calls."""

    name = "blend"
    uses_chat = True
    uses_agent_name = True

    def __init__(
        self,
        anchors: ImportanceEstimator,
        model: ImportanceEstimator,
        anchor_weight: float = DEFAULT_ANCHOR_WEIGHT,
    ) -> None:
        if not 0.0 <= anchor_weight <= 1.0:
            raise ValueError(f"anchor_weight {anchor_weight} is outside [0, 1]")
        self._anchors, self._model, self._weight = anchors, model, anchor_weight

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]:
        by_anchors = self._anchors.estimate(texts, vectors, agent_name)
        by_model = self._model.estimate(texts, vectors, agent_name)
        return [
            Estimate(
                clamp(self._weight * a.value + (1 - self._weight) * m.value),
                self.name,
                m.completion,
                a.neighbours,
            )
            for a, m in zip(by_anchors, by_model, strict=True)
        ]
