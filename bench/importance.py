"""Importance estimators against hand-rated NPC observations, side by side.

    python -m bench.importance [--tune] [--chat-model GGUF] [--embed-model GGUF]

Runs every estimator on the evaluation set (bench/data/importance_eval.tsv, written for
this project and disjoint from the anchors) with the real models, and prints one
Markdown table: Spearman's rank correlation with the human ratings (with a 95% bootstrap
interval), its difference from the best estimator's (paired bootstrap: the same resampled
observations for both), mean absolute error, model calls per 100 observations and seconds
per observation. The first row is the paper's zero-shot prompt, as a baseline. Seconds
exclude the observation's embedding, which the server computes for every memory anyway;
the one-off embedding of the anchors is printed apart. The last line names the default
by measurement: the best Spearman, where an estimator whose difference from the best is
not significant (its interval reaches 0) ties, and a tie goes to fewer model calls.

--tune prints leave-one-out cross-validation on the anchors themselves (never on the
evaluation set) for the anchor estimator's k and temperature and the blend's weight:
how the defaults in npc_brain/importance were chosen.

--ship-anchor-embeddings only (re)writes the anchor embeddings that ship with the package
for the embedder (npc_brain/importance/data/anchors-<model>-<fingerprint>.npy); run it
after editing data/anchors.tsv (a unit test says when it is stale).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import npc_brain.importance as importance_package
from npc_brain.config import Settings
from npc_brain.importance.anchors import Anchor, shipped_anchors
from npc_brain.importance.base import Estimate, ImportanceEstimator, clamp
from npc_brain.importance.blend import BlendEstimator
from npc_brain.importance.knn import AnchorEstimator, knn_ratings
from npc_brain.importance.metrics import mean_absolute_error, spearman
from npc_brain.importance.prompted import (
    ANSWER_PREFIX,
    ANSWERS,
    ModelEstimator,
    expected_rating,
)
from npc_brain.importance.selection import ESTIMATOR_NAMES
from npc_brain.llm.base import ChatModel, Embedder, Message, OptionScorer
from npc_brain.llm.llama import LlamaChat, LlamaEmbedder
from tests.importance_eval import evaluation_set

SHIPPED_DIR = Path(importance_package.__file__).resolve().parent / "data"
AGENT = "the NPC"
PAPER_PROMPT = (
    "On the scale of 1 to 10, where 1 is purely mundane (e.g., brushing teeth, making bed) "
    "and 10 is extremely poignant (e.g., a break up, college acceptance), rate the likely "
    "poignancy of the following piece of memory. Answer with JSON.\nMemory: {text}"
)
K_GRID = (1, 3, 5, 8, 10, 12, 15, 20, 30, 40)
TEMPERATURE_GRID = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
TOLERANCE = 0.02
BOOTSTRAP_ROUNDS = 2000
WEIGHT_GRID = tuple(round(w, 2) for w in np.linspace(0, 1, 11))


class ZeroShotEstimator:
    """The paper's prompt, zero-shot, same constrained answers (baseline only)."""

    name = "paper zero-shot prompt"
    uses_chat = True
    uses_agent_name = True

    def __init__(self, chat: ChatModel) -> None:
        self._chat = chat

    def estimate(
        self, texts: Sequence[str], vectors: NDArray[np.float32] | None, agent_name: str
    ) -> list[Estimate]:
        out = []
        for text in texts:
            messages = [Message("user", PAPER_PROMPT.format(text=text))]
            if isinstance(self._chat, OptionScorer):
                shares, completion = self._chat.option_probabilities(
                    messages, answer_prefix=ANSWER_PREFIX, options=ANSWERS
                )
                out.append(Estimate(expected_rating(shares), self.name, completion))
            else:
                raise SystemExit("the zero-shot baseline needs a llama.cpp chat model")
        return out


@dataclass(frozen=True)
class Row:
    name: str
    guess: list[float]
    spearman: float
    mae: float
    calls_per_100: float
    seconds: float


def resamples(n: int, rounds: int = BOOTSTRAP_ROUNDS) -> NDArray[np.intp]:
    """The same bootstrap resamples (rows of indices) for every estimator: paired."""
    return np.random.default_rng(0).integers(0, n, (rounds, n))


def interval(values: Sequence[float] | NDArray[np.float64]) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def bootstrap(truth: Sequence[float], guess: Sequence[float]) -> list[float]:
    """Spearman on each resample."""
    t, g = np.asarray(truth), np.asarray(guess)
    return [spearman(t[pick].tolist(), g[pick].tolist()) for pick in resamples(len(t))]


def measure(
    estimator: ImportanceEstimator, items: Sequence[Anchor], vectors: NDArray[np.float32]
) -> Row:
    texts, truth = [i.text for i in items], [i.rating for i in items]
    start = time.perf_counter()
    estimates = [
        estimator.estimate([text], vectors[i : i + 1], AGENT)[0] for i, text in enumerate(texts)
    ]
    seconds = (time.perf_counter() - start) / len(texts)
    guess = [e.value for e in estimates]
    calls = sum(e.completion is not None for e in estimates)
    return Row(
        estimator.name,
        guess,
        spearman(truth, guess),
        mean_absolute_error(truth, guess),
        100 * calls / len(texts),
        seconds,
    )


def default_by_measurement(rows: Sequence[Row], truth: Sequence[float]) -> tuple[str, str]:
    """The best Spearman; an estimator whose paired-bootstrap difference from it has a 95%
    interval reaching 0 ties with it, and the tie goes to the fewest model calls."""
    best = max(rows, key=lambda r: r.spearman)
    on_best = np.asarray(bootstrap(truth, best.guess))
    tied = [r for r in rows if interval(np.asarray(bootstrap(truth, r.guess)) - on_best)[1] >= 0]
    chosen = min(tied, key=lambda r: (r.calls_per_100, -r.spearman))
    why = f"best Spearman: {best.name}; tied with it: {', '.join(r.name for r in tied)}"
    return chosen.name, why


def table(rows: Sequence[Row], truth: Sequence[float]) -> str:
    best = max(rows, key=lambda r: r.spearman)
    on_best = np.asarray(bootstrap(truth, best.guess))
    lines = [
        "| estimator | Spearman (95% CI) | vs best (95% CI) | MAE | model calls / 100 obs "
        "| s / obs |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        on_row = np.asarray(bootstrap(truth, r.guess))
        (low, high), (d_low, d_high) = interval(on_row), interval(on_row - on_best)
        lines.append(
            f"| {r.name} | {r.spearman:.3f} ({low:.2f}..{high:.2f}) "
            f"| {r.spearman - best.spearman:+.3f} ({d_low:+.2f}..{d_high:+.2f}) | {r.mae:.2f} "
            f"| {r.calls_per_100:.0f} | {r.seconds:.4f} |"
        )
    return "\n".join(lines)


def loo_anchor_scores(
    anchors: Sequence[Anchor], matrix: NDArray[np.float32], k: int, temperature: float
) -> list[float]:
    """Each anchor rated by all the others (leave-one-out)."""
    similarities = (matrix @ matrix.T).astype(np.float64)
    np.fill_diagonal(similarities, -np.inf)
    ratings = np.array([a.rating for a in anchors])
    return [clamp(v) for v in knn_ratings(similarities, ratings, k, temperature).values]


def choose_neighbours(scores: dict[tuple[int, float], float]) -> tuple[int, float]:
    """The most local (k, temperature) within TOLERANCE of the best leave-one-out Spearman:
    smallest k, then smallest temperature, so a game's own close anchors stay decisive."""
    best = max(scores.values())
    return min(key for key, rho in scores.items() if rho >= best - TOLERANCE)


def tune(anchors: Sequence[Anchor], matrix: NDArray[np.float32], chat: ChatModel) -> None:
    """Leave-one-out on the anchors: k x temperature, then the blend weight."""
    truth = [a.rating for a in anchors]
    print(f"Leave-one-out Spearman / MAE on the {len(anchors)} anchors")
    print("| k | " + " | ".join(f"T={t:g}" for t in TEMPERATURE_GRID) + " |")
    print("|---|" + "---|" * len(TEMPERATURE_GRID))
    scores: dict[tuple[int, float], float] = {}
    for k in K_GRID:
        cells = []
        for t in TEMPERATURE_GRID:
            guess = loo_anchor_scores(anchors, matrix, k, t)
            scores[(k, t)] = spearman(truth, guess)
            cells.append(f"{scores[(k, t)]:.3f} / {mean_absolute_error(truth, guess):.2f}")
        print(f"| {k} | " + " | ".join(cells) + " |")
    k, t = choose_neighbours(scores)
    print(
        f"\nbest Spearman {max(scores.values()):.3f}; chosen k={k}, temperature={t:g} "
        f"({scores[(k, t)]:.3f}: the most local within {TOLERANCE} of the best)\n"
    )
    by_anchors = loo_anchor_scores(anchors, matrix, k, t)
    model = ModelEstimator(chat)
    by_model = [model.estimate([a.text], None, AGENT)[0].value for a in anchors]
    print("Blend on the anchors: w * anchors (leave-one-out) + (1 - w) * model")
    print("| w | Spearman | MAE |\n|---|---|---|")
    blends = {}
    for w in WEIGHT_GRID:
        blended = [w * a + (1 - w) * m for a, m in zip(by_anchors, by_model, strict=True)]
        blends[w] = (spearman(truth, blended), -mean_absolute_error(truth, blended))
        print(f"| {w:g} | {blends[w][0]:.4f} | {-blends[w][1]:.2f} |")
    w = max(blends, key=lambda w: blends[w])
    print(f"\nchosen blend weight {w:g} (best Spearman, then MAE)\n")


def run(chat: ChatModel, embedder: Embedder, do_tune: bool) -> None:
    anchors = shipped_anchors()
    items = evaluation_set()
    start = time.perf_counter()
    embedder.embed([a.text for a in anchors])
    anchor_seconds = time.perf_counter() - start
    anchor_estimator = AnchorEstimator(anchors, embedder)  # shipped embeddings if they fit
    matrix = anchor_estimator.matrix()
    if do_tune:
        tune(anchors, matrix, chat)
    vectors = embedder.embed([i.text for i in items])
    model = ModelEstimator(chat)
    estimators: list[ImportanceEstimator] = [
        ZeroShotEstimator(chat),
        model,
        anchor_estimator,
        BlendEstimator(anchor_estimator, model),
    ]
    rows = [measure(e, items, vectors) for e in estimators]
    truth = [i.rating for i in items]
    print(
        f"{len(items)} hand-rated observations; {len(anchors)} anchors (embedding them takes "
        f"{anchor_seconds:.2f} s, once per embedder; the default one's ship with the "
        f"package); chat {chat.model_id}, embedder {embedder.model_id}\n"
    )
    print(table(rows, truth))
    candidates = [r for r in rows if r.name in ESTIMATOR_NAMES]
    chosen, why = default_by_measurement(candidates, truth)
    print(f"\ndefault by measurement: {chosen} ({why}; a tie goes to fewer model calls)")


def ship_anchor_embeddings(embedder: Embedder) -> None:
    """Writes the shipped anchors' embeddings into the package, replacing older ones."""
    estimator = AnchorEstimator(shipped_anchors(), embedder)
    name = estimator.cache_name()
    for old in SHIPPED_DIR.glob(name.rsplit("-", 1)[0] + "-*.npy"):
        old.unlink()
    estimator.save(SHIPPED_DIR / name)
    print(f"wrote {SHIPPED_DIR / name}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tune", action="store_true", help="also cross-validate on the anchors")
    parser.add_argument("--chat-model", type=Path, default=None)
    parser.add_argument("--embed-model", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument(
        "--ship-anchor-embeddings",
        action="store_true",
        help="only rewrite the anchor embeddings shipped in npc_brain/importance/data",
    )
    args = parser.parse_args(argv)
    settings = Settings()
    if args.ship_anchor_embeddings:
        ship_anchor_embeddings(LlamaEmbedder(args.embed_model or settings.embed_model_path()))
        return
    chat_path = args.chat_model or settings.chat_model_path()
    embed_path = args.embed_model or settings.embed_model_path()
    make_chat: Callable[[], ChatModel] = lambda: LlamaChat(  # noqa: E731
        chat_path, n_ctx=settings.chat_context, threads=args.threads, seed=settings.seed
    )
    run(make_chat(), LlamaEmbedder(embed_path, threads=args.threads), args.tune)


if __name__ == "__main__":
    main()
