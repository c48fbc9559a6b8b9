"""The paper's retrieval score, vectorised.

score = w_rec * recency + w_imp * importance + w_rel * relevance, where each term is
min-max normalised to [0, 1] over the candidates. recency = decay ** (game hours since
last access), importance is the 1..10 rating, relevance is the cosine similarity of
embeddings. When every candidate has the same value of a term its range is zero and
the term is 0.5 for all of them (as in the authors' code): it then ranks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from npc_brain.memory.records import SECONDS_PER_HOUR, GameTime

FloatArray = NDArray[np.float64]
ZERO_RANGE_VALUE = 0.5


@dataclass(frozen=True)
class Weights:
    """Retrieval weights (paper: all 1; authors' code: 0.5 / 2 / 3)."""

    recency: float = 1.0
    importance: float = 1.0
    relevance: float = 1.0


@dataclass(frozen=True)
class ScoreTerms:
    """Scores and normalised terms for a candidate set, aligned with its order."""

    score: FloatArray
    recency: FloatArray
    importance: FloatArray
    relevance: FloatArray


def min_max(values: FloatArray) -> FloatArray:
    """Normalises to [0, 1]; a zero range gives ZERO_RANGE_VALUE everywhere."""
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low == 0.0:
        return np.full_like(values, ZERO_RANGE_VALUE)
    return (values - low) / (high - low)


def recency_score(last_accessed: FloatArray, now: GameTime, decay: float) -> FloatArray:
    """decay ** hours since last access; a memory accessed in the future counts as now."""
    hours = np.maximum(0.0, (now - last_accessed) / SECONDS_PER_HOUR)
    return np.power(decay, hours)


def score(
    last_accessed: FloatArray,
    importance: FloatArray,
    relevance: FloatArray,
    *,
    now: GameTime,
    decay: float,
    weights: Weights,
) -> ScoreTerms:
    """The paper's score for each candidate."""
    rec = min_max(recency_score(last_accessed, now, decay))
    imp = min_max(importance.astype(np.float64))
    rel = min_max(relevance.astype(np.float64))
    total = weights.recency * rec + weights.importance * imp + weights.relevance * rel
    return ScoreTerms(total, rec, imp, rel)


def top_k(scores: FloatArray, k: int) -> NDArray[np.intp]:
    """Indices of the k best scores, best first; ties keep the earlier (older) candidate."""
    order = np.argsort(-scores, kind="stable")
    return order[:k]
