"""Importance estimators with fakes: anchors (kNN), model, blend, selection and data files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from npc_brain.config import Settings, load_settings
from npc_brain.errors import InvalidArgument
from npc_brain.importance.anchors import Anchor, load_anchors, merge, shipped_anchors
from npc_brain.importance.base import Estimate, Neighbour
from npc_brain.importance.blend import BlendEstimator
from npc_brain.importance.knn import AnchorEstimator, knn_ratings
from npc_brain.importance.metrics import mean_absolute_error, ranks, spearman
from npc_brain.importance.prompted import ModelEstimator
from npc_brain.importance.registry import Estimators
from npc_brain.importance.selection import choose, parse_overrides
from npc_brain.llm.base import Completion
from npc_brain.llm.fakes import CountingEmbedder, HashingEmbedder, ScriptedChat

ANCHORS = [
    Anchor("brushing her teeth", 1),
    Anchor("making the bed", 1),
    Anchor("her mother passed away", 10),
    Anchor("his father died in the war", 9),
    Anchor("the town holds an election", 5),
]


class Fixed:
    """An estimator that answers one value (and, if `calls`, a completion)."""

    uses_chat = False
    uses_agent_name = False

    def __init__(self, name: str, value: float, calls: bool = False) -> None:
        self.name, self.value, self.calls = name, value, calls

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]:
        done = Completion("", 1, 1) if self.calls else None
        near = (Neighbour("x", self.value, 0.9, 1.0),)
        return [Estimate(self.value, self.name, done, near) for _ in texts]


def test_knn_weights_the_nearest_anchors_by_softmax_of_cosine() -> None:
    ratings = np.array([1.0, 10.0, 5.0])
    found = knn_ratings(np.array([[0.2, 0.9, -np.inf]]), ratings, k=2, temperature=0.1)
    w = np.exp(np.array([0.0, -7.0]))  # softmax of (0.9, 0.2) / 0.1, heaviest first
    assert found.indices[0].tolist() == [1, 0]
    assert found.weights[0] == pytest.approx(w / w.sum())
    assert found.values[0] == pytest.approx((w / w.sum()) @ np.array([10.0, 1.0]))
    only = knn_ratings(np.array([[0.2, 0.9, 0.1]]), ratings, k=99, temperature=1000)
    assert only.values[0] == pytest.approx(ratings.mean(), abs=1e-2)  # k capped, ~uniform


def test_anchor_estimates_are_explained_and_in_range_without_a_model() -> None:
    estimator = AnchorEstimator(ANCHORS, HashingEmbedder(), k=3, temperature=0.05)
    texts = ["her mother passed away", "brushing her teeth", "the bed is idle", "zzz"]
    estimates = estimator.estimate(texts, None, "Isabella")
    values = [e.value for e in estimates]
    assert values[0] > 8 and values[1] < 3 and values[2] == 1.0
    assert all(1.0 <= v <= 10.0 for v in values) and all(e.completion is None for e in estimates)
    first = estimates[0]
    assert first.estimator == "anchors" and first.neighbours[0].text == "her mother passed away"
    assert first.neighbours[0].similarity == pytest.approx(1.0)
    assert sum(n.weight for n in first.neighbours) == pytest.approx(1.0, abs=1e-3)
    assert "her mother passed away" in first.explain()


def test_given_vectors_are_used_and_anchors_are_embedded_once_not_at_construction() -> None:
    embedder = CountingEmbedder()
    estimator = AnchorEstimator(ANCHORS, embedder)
    assert embedder.embedded == []
    vectors = HashingEmbedder().embed(["making the bed", "a party"])
    estimator.estimate(["making the bed", "a party"], vectors, "Isabella")
    estimator.estimate(["making the bed"], vectors[:1], "Isabella")
    assert embedder.embedded == [a.text for a in ANCHORS]


def test_anchor_embeddings_are_cached_on_disk_per_embedder_and_anchor_set(tmp_path: Path) -> None:
    first = CountingEmbedder()
    made = AnchorEstimator(ANCHORS, first, cache_dir=tmp_path).matrix()
    second = CountingEmbedder()
    cached = AnchorEstimator(ANCHORS, second, cache_dir=tmp_path).matrix()
    assert second.embedded == [ANCHORS[0].text]  # one probe: the same model?
    assert cached == pytest.approx(made, abs=1e-3)
    other = CountingEmbedder()
    AnchorEstimator([*ANCHORS, Anchor("a dragon", 10)], other, cache_dir=tmp_path).matrix()
    assert len(other.embedded) == len(ANCHORS) + 1


def test_a_stale_or_broken_anchor_cache_is_recomputed(tmp_path: Path) -> None:
    estimator = AnchorEstimator(ANCHORS, HashingEmbedder(), cache_dir=tmp_path)
    path = tmp_path / estimator.cache_name()
    np.save(path, np.eye(len(ANCHORS), 64, dtype=np.float16))  # another model's vectors
    again = CountingEmbedder()
    AnchorEstimator(ANCHORS, again, cache_dir=tmp_path).matrix()
    assert len(again.embedded) == 1 + len(ANCHORS)
    path.write_bytes(b"not numpy")
    broken = CountingEmbedder()
    AnchorEstimator(ANCHORS, broken, cache_dir=tmp_path).matrix()
    assert len(broken.embedded) == len(ANCHORS)


def test_model_estimator_rates_with_the_chat_model() -> None:
    chat = ScriptedChat()
    chat.enqueue({"rating": 7})
    (estimate,) = ModelEstimator(chat).estimate(["a letter came"], None, "Isabella")
    assert (estimate.value, estimate.estimator) == (7, "model")
    assert estimate.completion is not None and len(chat.history) == 1


def test_blend_is_the_weighted_mean_and_costs_the_model_call() -> None:
    blend = BlendEstimator(Fixed("anchors", 2.0), Fixed("model", 8.0, calls=True), 0.75)
    (estimate,) = blend.estimate(["x"], None, "Isabella")
    assert estimate.value == pytest.approx(0.75 * 2 + 0.25 * 8)
    assert estimate.completion is not None and estimate.neighbours[0].text == "x"
    with pytest.raises(ValueError):
        BlendEstimator(Fixed("a", 1), Fixed("m", 1), 1.5)


def test_anchor_files_tsv_and_json_merge_over_the_shipped_ones(tmp_path: Path) -> None:
    tsv = tmp_path / "game.tsv"
    tsv.write_text("# ours\n10\tthe dragon attacked the village\n3\tMaking the bed.\n")
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps([{"text": "the wyvern roared", "rating": 8}]))
    as_map = tmp_path / "map.json"
    as_map.write_text(json.dumps({"the mage vanished": 9.5}))
    game = load_anchors(tsv)
    assert game == [Anchor("the dragon attacked the village", 10), Anchor("Making the bed.", 3)]
    assert load_anchors(as_list) == [Anchor("the wyvern roared", 8)]
    assert load_anchors(as_map) == [Anchor("the mage vanished", 9.5)]
    shipped = shipped_anchors()
    merged = merge(shipped, game)
    assert len(merged) == len(shipped) + 1  # "Making the bed." replaced "making the bed"
    assert {a.text: a.rating for a in merged}["Making the bed."] == 3


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("11\ttoo much\n", "line 1: rating 11 is outside"),
        ("x\tt\n", "not a number"),
        ("5\n", "line 1"),
    ],
)
def test_a_bad_anchor_file_names_the_setting_and_the_line(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(content)
    with pytest.raises(InvalidArgument, match=problem) as error:
        load_anchors(path)
    assert error.value.field == "importance_anchors"
    with pytest.raises(InvalidArgument, match="cannot read"):
        load_anchors(tmp_path / "missing.tsv")


def test_overrides_pick_per_agent_then_per_world_then_the_default() -> None:
    overrides = parse_overrides(" dungeon=model, default/isabella = blend ,")
    assert overrides == {("dungeon", ""): "model", ("default", "isabella"): "blend"}
    assert choose(overrides, "anchors", "default", "isabella") == "blend"
    assert choose(overrides, "anchors", "default", "klaus") == "anchors"
    assert choose(overrides, "anchors", "dungeon", "isabella") == "model"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("importance_estimator", "gpt"),
        ("importance_estimator_overrides", "dungeon"),
        ("importance_estimator_overrides", "a/b/c=model"),
        ("importance_estimator_overrides", "a/=model"),
        ("importance_estimator_overrides", "a=magic"),
        ("importance_blend_weight", "2"),
    ],
)
def test_bad_estimator_settings_are_refused_naming_them(name: str, value: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        load_settings(env={}, overrides={name: value})
    assert error.value.field == name


def test_the_registry_merges_a_games_anchors_and_chooses_per_agent(tmp_path: Path) -> None:
    game = tmp_path / "game.tsv"
    game.write_text("10\tthe dragon attacked the village\n")
    settings = Settings(
        data_dir=tmp_path,
        importance_anchors=str(game),
        importance_estimator_overrides="dungeon=model,dungeon/boss=blend",
    )
    estimators = Estimators(settings, ScriptedChat(), HashingEmbedder())
    assert len(estimators.anchors.anchors) == len(shipped_anchors()) + 1
    names = [estimators.for_agent(w, a).name for w, a in [("default", "x"), ("dungeon", "x")]]
    assert [*names, estimators.for_agent("dungeon", "boss").name] == ["anchors", "model", "blend"]
    (dragon,) = estimators.anchors.estimate(["the dragon attacked the village"], None, "x")
    assert dragon.value > 8.5 and dragon.neighbours[0].rating == 10
    with pytest.raises(InvalidArgument, match="importance_anchors"):
        Estimators(
            Settings(importance_anchors=str(tmp_path / "no.tsv")), ScriptedChat(), HashingEmbedder()
        )


def test_spearman_and_mae_match_hand_computed_values() -> None:
    assert ranks([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [5, 5, 5]) == 0.0
    # ranks (1, 2, 3, 4, 5) vs (2, 1, 4, 3, 5): 1 - 6 * 4 / (5 * 24) = 0.8
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert mean_absolute_error([1, 5], [2, 8]) == pytest.approx(2.0)
