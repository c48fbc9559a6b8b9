"""How well estimated importance agrees with human ratings (Spearman, MAE)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray


def ranks(values: Sequence[float]) -> NDArray[np.float64]:
    """Ranks 1..n, ties sharing their mean rank."""
    _, inverse, counts = np.unique(np.asarray(values), return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + 1 + ends) / 2.0)[inverse.reshape(-1)]


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson on tie-averaged ranks); 0 if either is constant."""
    if len(a) != len(b):
        raise ValueError("spearman needs two sequences of the same length")
    ra, rb = ranks(a) - (len(a) + 1) / 2, ranks(b) - (len(b) + 1) / 2
    denominator = float(np.sqrt((ra**2).sum() * (rb**2).sum()))
    return float((ra * rb).sum() / denominator) if denominator > 0 else 0.0


def mean_absolute_error(a: Sequence[float], b: Sequence[float]) -> float:
    """Mean of |a - b|."""
    return float(np.mean(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
