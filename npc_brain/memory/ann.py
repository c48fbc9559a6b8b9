"""An approximate nearest-neighbour index (FAISS HNSW, inner product) over stream positions.

It only proposes candidates: every score is then computed exactly. It is a cache of
the store, saved beside it with the store's memory version, and rebuilt when that
version no longer matches.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np
from numpy.typing import NDArray

HNSW_NEIGHBOURS = 32
BUILD_EFFORT = 64


class AnnIndex:
    """HNSW over unit vectors; ids are positions 0..count-1 in the agent's stream."""

    def __init__(self, dimension: int, index: faiss.Index | None = None) -> None:
        if index is None:
            index = faiss.IndexHNSWFlat(dimension, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = BUILD_EFFORT
        self._index = index

    @classmethod
    def build(cls, vectors: NDArray[np.float32]) -> AnnIndex:
        index = cls(vectors.shape[1])
        index.add(vectors)
        return index

    @property
    def count(self) -> int:
        return int(self._index.ntotal)

    def add(self, vectors: NDArray[np.float32]) -> None:
        if len(vectors):
            self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))

    def search(
        self, query: NDArray[np.float32], k: int, allowed: NDArray[np.bool_] | None = None
    ) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
        """Up to k positions with the highest inner product, among `allowed` if given."""
        params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]
        params.efSearch = max(k, 64)
        if allowed is not None:
            bitmap = np.packbits(allowed[: self.count], bitorder="little")
            params.sel = faiss.IDSelectorBitmap(self.count, faiss.swig_ptr(bitmap))
        sims, ids = self._index.search(query.reshape(1, -1), min(k, self.count), params=params)
        found = ids[0] >= 0
        return ids[0][found].astype(np.intp), sims[0][found]

    def save(self, path: Path, version: str) -> None:
        """Writes the index, then the stamp naming the store version it reflects.

        The old stamp goes first, so a crash midway leaves an index without a stamp,
        which `load` ignores.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = path.with_suffix(".json")
        stamp.unlink(missing_ok=True)
        _write_atomically(path, lambda partial: faiss.write_index(self._index, str(partial)))
        content = json.dumps({"version": version, "count": self.count})
        _write_atomically(stamp, lambda partial: partial.write_text(content))

    @classmethod
    def load(cls, path: Path, version: str, count: int) -> AnnIndex | None:
        """The saved index if it reflects exactly this store version and count, else None."""
        try:
            stamp = json.loads(path.with_suffix(".json").read_text())
            if stamp != {"version": version, "count": count}:
                return None
            index = faiss.read_index(str(path))
        except (OSError, ValueError, RuntimeError):
            return None
        return cls(index.d, index) if index.ntotal == count else None


def _write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    partial = path.with_name(path.name + ".partial")
    write(partial)
    partial.replace(path)
