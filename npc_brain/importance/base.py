"""What every importance estimator shares: the Estimate it returns and its one-verb protocol.

Importance is poignancy on the paper's scale: 1 is purely mundane (brushing teeth),
10 is extremely poignant (a break-up, a death). Every estimator answers a float in
[1, 10] for each text; obvious no-ops ("the bed is idle") get 1 from all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from npc_brain.llm.base import Completion

LOWEST, HIGHEST = 1.0, 10.0
_NO_OP = re.compile(r"\b(is|are) idle\b", re.IGNORECASE)


@dataclass(frozen=True)
class Neighbour:
    """An anchor that took part in a rating: its text, rating, cosine and share of weight."""

    text: str
    rating: float
    similarity: float
    weight: float


@dataclass(frozen=True)
class Estimate:
    """One importance estimate.

    `completion` is the model call it cost (None: no call); `neighbours` are the anchors
    that decided it, heaviest first (empty for the model estimator).
    """

    value: float
    estimator: str
    completion: Completion | None = None
    neighbours: tuple[Neighbour, ...] = ()

    def explain(self) -> str:
        """A one-line account, e.g. `anchors 8.2 <- 'Lucas lost his job' (8, cos 0.71, 40%)`."""
        text = f"{self.estimator} {self.value:.2f}"
        if self.neighbours:
            parts = [
                f"{n.text!r} ({n.rating:g}, cos {n.similarity:.2f}, {n.weight:.0%})"
                for n in self.neighbours[:3]
            ]
            text += " <- " + "; ".join(parts)
        return text


class ImportanceEstimator(Protocol):
    """Rates texts 1..10 for an agent.

    `vectors` are the texts' unit-length embeddings from the server's embedder when the
    caller already has them (None: an estimator that needs them embeds the texts itself).
    `uses_chat` says whether `estimate` calls the chat model, so callers run it on the
    chat model's worker; otherwise it runs on the embedder's. `uses_agent_name` says
    whether an estimate depends on `agent_name` (ratings are cached per agent only then).
    """

    name: str
    uses_chat: bool
    uses_agent_name: bool

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]: ...


def is_no_op(text: str) -> bool:
    """True for observations that need no rating ("the bed is idle")."""
    return bool(_NO_OP.search(text))


def clamp(value: float) -> float:
    """The value kept in [1, 10] and rounded to 3 decimals (what is stored)."""
    return round(min(HIGHEST, max(LOWEST, float(value))), 3)
