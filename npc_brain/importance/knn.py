"""The anchor estimator: importance from the nearest rated anchor sentences, no model call.

A text's rating is the softmax(cosine / temperature)-weighted mean of the ratings of its
k most similar anchors. The anchors are embedded once per embedder, on first use (never
at import), and kept in RAM and, with a cache directory, on disk, keyed by the
embedder's model id and the anchors' fingerprint. The package ships that cache for the
default embedder (data/anchors-<model>-<fingerprint>.npy), so the default path costs no
embedding of anchors at all; a cached matrix is used only if one anchor, embedded again,
matches its row (the same model under the same name). Pure numpy on the unit-length
vectors the server computes for every memory anyway.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from npc_brain.config import DEFAULT_K, DEFAULT_TEMPERATURE
from npc_brain.importance.anchors import Anchor, fingerprint
from npc_brain.importance.base import Estimate, Neighbour, clamp, is_no_op
from npc_brain.llm.base import Embedder, normalise_rows

log = logging.getLogger(__name__)

SHIPPED_CACHE = resources.files("npc_brain.importance").joinpath("data")
SAME_MODEL_COSINE = 0.999  # a cached row and the same anchor embedded now agree this well


class Neighbourhood(NamedTuple):
    """For each text: its ratings, and the anchors (indices, weights) that decided them."""

    values: NDArray[np.float64]
    indices: NDArray[np.intp]
    weights: NDArray[np.float64]


def knn_ratings(
    similarities: NDArray[np.floating], ratings: NDArray[np.float64], k: int, temperature: float
) -> Neighbourhood:
    """Similarity-weighted ratings of the k nearest anchors, one row of cosines per text.

    Anchors with similarity -inf never count (leave-one-out uses that).
    """
    sims = np.asarray(similarities, dtype=np.float64)
    k = max(1, min(k, sims.shape[1]))
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    top_sims = np.take_along_axis(sims, top, axis=1)
    order = np.argsort(-top_sims, axis=1)
    top, top_sims = np.take_along_axis(top, order, axis=1), np.take_along_axis(top_sims, order, 1)
    logits = (top_sims - top_sims[:, :1]) / max(temperature, 1e-6)
    weights = np.exp(logits)
    weights /= weights.sum(axis=1, keepdims=True)
    values = (weights * ratings[top]).sum(axis=1)
    return Neighbourhood(values, top, weights)


class AnchorEstimator:
    """Rates texts by their nearest anchors; records the neighbours that decided."""

    name = "anchors"
    uses_chat = False
    uses_agent_name = False

    def __init__(
        self,
        anchors: Sequence[Anchor],
        embedder: Embedder,
        *,
        k: int = DEFAULT_K,
        temperature: float = DEFAULT_TEMPERATURE,
        cache_dir: Path | None = None,
    ) -> None:
        if not anchors:
            raise ValueError("the anchor estimator needs at least one anchor")
        self.anchors = list(anchors)
        self.k = k
        self.temperature = temperature
        self._ratings = np.array([a.rating for a in self.anchors], dtype=np.float64)
        self._embedder = embedder
        self._cache_dir = cache_dir
        self._matrix: NDArray[np.float32] | None = None
        self._lock = threading.Lock()

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]:
        if not texts:
            return []
        if vectors is None:
            vectors = self._embedder.embed(texts)
        similarities = np.asarray(vectors, dtype=np.float32) @ self.matrix().T
        found = knn_ratings(similarities, self._ratings, self.k, self.temperature)
        estimates = []
        for row, text in enumerate(texts):
            if is_no_op(text):
                estimates.append(Estimate(1.0, self.name))
                continue
            neighbours = tuple(
                Neighbour(
                    self.anchors[i].text,
                    self.anchors[i].rating,
                    round(float(similarities[row, i]), 4),
                    round(float(w), 4),
                )
                for i, w in zip(found.indices[row], found.weights[row], strict=True)
            )
            estimates.append(Estimate(clamp(found.values[row]), self.name, None, neighbours))
        return estimates

    def matrix(self) -> NDArray[np.float32]:
        """The anchors' embeddings (one row each), computed or loaded on first use."""
        with self._lock:
            if self._matrix is None:
                self._matrix = self._cached()
                if self._matrix is None:
                    self._matrix = self._embedder.embed([a.text for a in self.anchors])
                    if self._cache_dir is not None:
                        _write(self._cache_dir / self.cache_name(), self._matrix)
            return self._matrix

    def cache_name(self) -> str:
        """The cache file's name: the embedder's model id and the anchors' fingerprint."""
        model = re.sub(r"[^A-Za-z0-9._-]+", "_", self._embedder.model_id)
        return f"anchors-{model}-{fingerprint(self.anchors)}.npy"

    def save(self, path: Path) -> None:
        """Writes the anchor embeddings to `path` (how the shipped cache is made)."""
        _write(path, self.matrix())

    def _cached(self) -> NDArray[np.float32] | None:
        name = self.cache_name()
        places: list[Traversable] = [SHIPPED_CACHE.joinpath(name)]
        if self._cache_dir is not None:
            places.insert(0, self._cache_dir / name)
        for place in places:
            matrix = self._read(place)
            if matrix is not None and self._same_model(matrix):
                return matrix
        return None

    def _read(self, place: Traversable) -> NDArray[np.float32] | None:
        if not place.is_file():
            return None
        try:
            with place.open("rb") as fh:
                matrix = np.load(fh, allow_pickle=False)
        except (OSError, ValueError) as exc:
            log.warning("ignoring the unreadable anchor cache %s: %s", place, exc)
            return None
        if matrix.shape != (len(self.anchors), self._embedder.dimension):
            return None
        return normalise_rows(np.asarray(matrix, dtype=np.float32))

    def _same_model(self, matrix: NDArray[np.float32]) -> bool:
        (probe,) = self._embedder.embed([self.anchors[0].text])
        return float(probe @ matrix[0]) >= SAME_MODEL_COSINE


def _write(path: Path, matrix: NDArray[np.float32]) -> None:
    """Writes a matrix as float16 .npy atomically; a failure is only logged (a cache)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        with open(partial, "wb") as fh:
            np.save(fh, matrix.astype(np.float16), allow_pickle=False)
        os.replace(partial, path)
    except OSError as exc:
        log.warning("could not cache anchor embeddings in %s: %s", path, exc)
