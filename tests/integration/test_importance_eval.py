"""The importance estimators with the real default models on the hand-rated evaluation set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from npc_brain.config import Settings
from npc_brain.importance.anchors import Anchor, shipped_anchors
from npc_brain.importance.knn import AnchorEstimator
from npc_brain.importance.metrics import spearman
from npc_brain.importance.prompted import EXAMPLES
from npc_brain.importance.registry import Estimators
from npc_brain.llm.base import ChatModel
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.llm.llama import LlamaChat, LlamaEmbedder
from tests.importance_eval import evaluation_set

pytestmark = pytest.mark.integration
SETTINGS = Settings()


@pytest.fixture(scope="module")
def embedder() -> Iterator[LlamaEmbedder]:
    # One thread: llama.cpp's threads spin, so on a busy shared machine more are slower.
    yield LlamaEmbedder(SETTINGS.embed_model_path(), threads=1)


def _chat() -> ChatModel:
    """The real chat model where the default estimator asks it; otherwise a fake that
    fails the test if it is ever asked."""
    if SETTINGS.importance_estimator == "anchors":
        return ScriptedChat(default="not a rating")
    return LlamaChat(SETTINGS.chat_model_path(), threads=SETTINGS.threads, seed=SETTINGS.seed)


def test_the_default_estimator_agrees_with_people_on_unseen_observations(
    tmp_path: Path, embedder: LlamaEmbedder
) -> None:
    """Spearman >= 0.75 on the evaluation set, which no anchor or setting was tuned on."""
    items = evaluation_set()
    chat = _chat()
    estimator = Estimators(Settings(data_dir=tmp_path), chat, embedder).by_name(
        SETTINGS.importance_estimator
    )
    texts = [i.text for i in items]
    estimates = estimator.estimate(texts, embedder.embed(texts), "the NPC")
    rho = spearman([i.rating for i in items], [e.value for e in estimates])
    assert rho >= 0.75, f"Spearman {rho:.3f}"
    if isinstance(chat, ScriptedChat):
        assert chat.history == [] and all(e.completion is None for e in estimates)


def test_no_evaluation_sentence_is_nearly_an_anchor_or_an_example(embedder: LlamaEmbedder) -> None:
    items = evaluation_set()
    references = [a.text for a in shipped_anchors()] + [text for text, _ in EXAMPLES]
    anchors = AnchorEstimator(shipped_anchors(), embedder).matrix()
    examples = embedder.embed([text for text, _ in EXAMPLES])
    cosines = embedder.embed([i.text for i in items]) @ np.vstack([anchors, examples]).T
    worst = np.unravel_index(np.argmax(cosines), cosines.shape)
    assert cosines.max() < 0.95, (items[worst[0]].text, references[worst[1]])


def test_the_shipped_anchor_embeddings_are_used_with_the_default_embedder(
    embedder: LlamaEmbedder,
) -> None:
    class Counting:
        model_id, dimension = embedder.model_id, embedder.dimension
        texts: list[str] = []

        def embed(self, texts: list[str]) -> np.ndarray:  # type: ignore[type-arg]
            self.texts.extend(texts)
            return embedder.embed(texts)

    counting = Counting()
    matrix = AnchorEstimator(shipped_anchors(), counting).matrix()
    assert len(counting.texts) == 1  # the probe, not the 199 anchors
    fresh = embedder.embed([a.text for a in shipped_anchors()[:20]])
    assert (fresh * matrix[:20]).sum(axis=1).min() > 0.999


def test_a_games_own_anchor_decides_observations_close_to_it(embedder: LlamaEmbedder) -> None:
    text = "the crystal of Eldoria has cracked"
    vectors = embedder.embed([text])
    shipped = AnchorEstimator(shipped_anchors(), embedder)
    game = AnchorEstimator(
        [*shipped_anchors(), Anchor("the crystal of Eldoria cracked", 10)], embedder
    )
    (before,) = shipped.estimate([text], vectors, "x")
    (after,) = game.estimate([text], vectors, "x")
    assert after.neighbours[0].text == "the crystal of Eldoria cracked"
    assert after.value >= 8.5 and after.value >= before.value + 3, (before.value, after.value)
