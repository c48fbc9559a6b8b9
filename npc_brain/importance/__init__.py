"""Importance (poignancy 1..10) of a memory, by one of three estimators.

- `anchors` (AnchorEstimator): the similarity-weighted ratings of the nearest rated anchor
  sentences (shipped in data/anchors.tsv, plus a game's own); no model call.
- `model` (ModelEstimator): the chat model with worked examples, constrained output and,
  where the backend exposes them, token probabilities for an expected rating.
- `blend` (BlendEstimator): a weighted mean of the two.

`registry.Estimators` builds them from settings and picks one per world or agent;
`python -m bench.importance` measures them against hand-rated observations.
"""

from npc_brain.importance.anchors import Anchor, load_anchors, merge, shipped_anchors
from npc_brain.importance.base import Estimate, ImportanceEstimator, Neighbour, is_no_op
from npc_brain.importance.blend import BlendEstimator
from npc_brain.importance.knn import AnchorEstimator
from npc_brain.importance.prompted import ModelEstimator, rate_importance
from npc_brain.importance.selection import ESTIMATOR_NAMES

__all__ = [
    "ESTIMATOR_NAMES",
    "Anchor",
    "AnchorEstimator",
    "BlendEstimator",
    "Estimate",
    "ImportanceEstimator",
    "ModelEstimator",
    "Neighbour",
    "is_no_op",
    "load_anchors",
    "merge",
    "rate_importance",
    "shipped_anchors",
]
