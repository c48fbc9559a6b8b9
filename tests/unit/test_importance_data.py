"""The shipped anchors and the evaluation set: size, coverage, and kept apart."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from npc_brain.config import DEFAULT_EMBED_MODEL
from npc_brain.importance.anchors import fingerprint, normalise_text, shipped_anchors
from npc_brain.importance.knn import SHIPPED_CACHE
from npc_brain.importance.prompted import EXAMPLES
from tests.importance_eval import evaluation_set

CATEGORIES = {
    "routine",
    "work",
    "relationships",
    "conflict",
    "loss",
    "celebration",
    "danger",
    "civic",
}


def test_the_shipped_anchors_cover_every_category_and_the_whole_scale() -> None:
    anchors = shipped_anchors()
    assert len(anchors) >= 150
    per_category = Counter(a.category for a in anchors)
    assert set(per_category) == CATEGORIES and min(per_category.values()) >= 15
    assert {int(a.rating) for a in anchors} == set(range(1, 11))
    assert len({normalise_text(a.text) for a in anchors}) == len(anchors)


def test_the_evaluation_set_is_hand_rated_and_disjoint_from_anchors_and_examples() -> None:
    items = evaluation_set()
    assert len(items) >= 100
    assert all(float(i.rating).is_integer() and 1 <= i.rating <= 10 for i in items)
    assert {int(i.rating) for i in items} == set(range(1, 11))
    seen = {normalise_text(a.text) for a in shipped_anchors()}
    seen |= {normalise_text(text) for text, _ in EXAMPLES}
    texts = [normalise_text(i.text) for i in items]
    assert len(set(texts)) == len(texts) and not seen & set(texts)


def test_the_shipped_anchor_embeddings_match_the_shipped_anchors() -> None:
    """Edited data/anchors.tsv? Run `python -m bench.importance --ship-anchor-embeddings`."""
    name = f"anchors-{DEFAULT_EMBED_MODEL}-{fingerprint(shipped_anchors())}.npy"
    with SHIPPED_CACHE.joinpath(name).open("rb") as fh:
        matrix = np.load(fh, allow_pickle=False)
    assert matrix.shape == (len(shipped_anchors()), 384)
    assert np.linalg.norm(matrix.astype(np.float32), axis=1) == pytest.approx(1.0, abs=1e-2)
