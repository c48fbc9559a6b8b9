"""Retrieve at 1k, 10k and 100k memories per agent: npc-brain vs two baselines.

    python -m bench.retrieval [--sizes 1000 10000 100000] [--queries 200]

(a) the authors' loop, re-implemented faithfully in pure Python (score every node in a
loop, normalise dicts, sort); (b) exact numpy scoring of every memory; npc-brain's
AgentStream (full scoring up to the exact limit, then HNSW candidates + exact rescoring
with a threshold test). Times cover scoring and ranking for a query vector: the query's
embedding and the SQLite write of last_accessed are the same for all three and left out.
Agreement: how often npc-brain's top 10 equals (b)'s, in order.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from npc_brain.config import Settings
from npc_brain.llm.llama import LlamaEmbedder
from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.memory.retrieval import Weights, recency_score, score, top_k
from npc_brain.memory.stream import AgentStream, Query

DIM, DECAY, HOUR = 384, 0.995, 3600.0
SENTENCES = 7500
WEIGHTS = Weights()


NAMES = [
    "Isabella",
    "Klaus",
    "Maria",
    "Sam",
    "Jennifer",
    "Tom",
    "Carmen",
    "Eddy",
    "Latoya",
    "Ryan",
    "Yuriko",
    "Adam",
    "Giorgio",
    "Hailey",
    "Abigail",
    "Arthur",
    "Wolfgang",
    "Mei",
    "John",
    "Carlos",
    "Rajiv",
    "Francisco",
    "Jane",
    "Tamara",
    "Ayesha",
]
DOINGS = [
    "is brewing coffee",
    "is reading a book",
    "is talking about the election",
    "is planning a Valentine's Day party",
    "is painting a portrait",
    "is sleeping",
    "is eating breakfast",
    "is writing a research paper",
    "is buying groceries",
    "is jogging",
    "is arguing about politics",
    "is playing the guitar",
    "is cleaning the kitchen",
    "is waiting for the bus",
    "is studying chemistry",
    "is fixing a leaking pipe",
    "is laughing with friends",
    "is crying quietly",
    "is watering the plants",
    "is opening the store",
    "is closing the cafe",
    "is organising a town meeting",
    "is practising a speech",
    "is feeding the cat",
    "is looking for a lost wallet",
    "is celebrating a birthday",
    "is taking a nap",
    "is chatting about the weather",
    "is sketching the park",
    "is reviewing the accounts",
]
PLACES = [
    "at Hobbs Cafe",
    "in the park",
    "at the college library",
    "at home",
    "at the store",
    "at the pharmacy",
    "by the river",
    "at the town hall",
    "in the kitchen",
    "at the pub",
]


def embedded_sentences(rng: np.random.Generator, count: int) -> NDArray[np.float32]:
    """MiniLM embeddings of NPC observations (cached in bench/.cache), as real streams have:
    many agents doing a few dozen things in a few places, over and over."""
    cache = Path(__file__).with_name(".cache") / f"minilm_observations_{count}.npy"
    if cache.exists():
        return np.load(cache)
    model = Settings().embed_model_path()
    if not model.exists():
        raise SystemExit(f"{model} is missing: run `npc-brain models fetch`")
    sentences = sorted(
        {f"{rng.choice(NAMES)} {rng.choice(DOINGS)} {rng.choice(PLACES)}" for _ in range(count * 3)}
    )[:count]
    print(
        f"embedding {len(sentences)} observations with MiniLM once (cached in {cache})", flush=True
    )
    vectors = LlamaEmbedder(model).embed(sentences)
    cache.parent.mkdir(exist_ok=True)
    np.save(cache, vectors)
    return vectors


def synthetic_stream(n: int, rng: np.random.Generator) -> tuple[NDArray[np.float32], ...]:
    """A stream of n observations drawn from the embedded sentences, 30 game days of
    creation, 20% re-accessed since, ratings 1..10."""
    sentences = embedded_sentences(np.random.default_rng(0), SENTENCES)
    which = rng.integers(0, len(sentences), n)
    vectors = sentences[which]
    created = np.sort(rng.uniform(0, 30 * 24 * HOUR, n))
    touched = created + rng.exponential(48 * HOUR, n) * (rng.random(n) < 0.2)
    accessed = np.minimum(touched, 30 * 24 * HOUR)
    importance = rng.integers(1, 11, n).astype(np.float64)
    return vectors, created, accessed, importance, which


QUERIES = [
    "Valentine's Day party",
    "who is running for mayor",
    "coffee at Hobbs Cafe",
    "what did Klaus say about his research",
    "something sad happened",
    "where is the lost wallet",
    "music in the evening",
    "groceries for dinner",
    "the town meeting tomorrow",
    "Isabella's plans for today",
]


def query_vectors() -> NDArray[np.float32]:
    """Ten questions a game would ask, and forty observations worded like the stream's."""
    rng = np.random.default_rng(1)
    seen = [f"{rng.choice(NAMES)} {rng.choice(DOINGS)} {rng.choice(PLACES)}" for _ in range(40)]
    return LlamaEmbedder(Settings().embed_model_path()).embed([*QUERIES, *seen])


def authors_loop(vectors, accessed, importance, query, now, k):  # type: ignore[no-untyped-def]
    """The authors' retrieve: per-node Python loop, dict normalisation, sort."""

    def normalise(d):  # type: ignore[no-untyped-def]
        lo, hi = min(d.values()), max(d.values())
        return {key: 0.5 if hi == lo else (v - lo) / (hi - lo) for key, v in d.items()}

    recency, imp, rel = {}, {}, {}
    q_norm = float(np.linalg.norm(query))
    for i in range(len(vectors)):
        recency[i] = DECAY ** ((now - accessed[i]) / HOUR)
        imp[i] = importance[i]
        rel[i] = float(np.dot(vectors[i], query)) / (float(np.linalg.norm(vectors[i])) * q_norm)
    recency, imp, rel = normalise(recency), normalise(imp), normalise(rel)
    total = {
        i: WEIGHTS.recency * recency[i] + WEIGHTS.importance * imp[i] + WEIGHTS.relevance * rel[i]
        for i in recency
    }
    return [i for i, _ in sorted(total.items(), key=lambda kv: kv[1], reverse=True)[:k]]


def exact_numpy(vectors, accessed, importance, query, now, k):  # type: ignore[no-untyped-def]
    terms = score(
        recency_score(accessed, now, DECAY),
        importance,
        (vectors @ query).astype(np.float64),
        weights=WEIGHTS,
    )
    return [int(i) for i in top_k(terms.score, k)]


def ours_top10(stream: AgentStream, query: Query) -> list[int]:
    return [m.memory.memory_id for m in stream.retrieve(query)]


def timed(run: Callable[..., object], *args: object) -> tuple[float, Any]:
    start = time.perf_counter()
    result = run(*args)
    return time.perf_counter() - start, result


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(samples, q)) * 1000


def bench_size(n: int, queries: int, rng: np.random.Generator) -> dict[str, float]:
    vectors, created, accessed, importance, which = synthetic_stream(n, rng)
    stream = AgentStream(DIM)
    stream.add(
        [
            MemoryRecord(
                kind=MemoryKind.OBSERVATION,
                description=f"observation {which[i]}",
                created=float(created[i]),
                importance=float(importance[i]),
                memory_id=i,
                last_accessed=float(accessed[i]),
            )
            for i in range(n)
        ],
        vectors,
    )
    build = 0.0
    if stream.needs_index():
        build, index = timed(AnnIndex.build, stream.vectors_to_index())
        stream.adopt_index(index)
    now = 31 * 24 * HOUR
    probes = query_vectors()
    ours, exact, authors, agree = [], [], [], 0
    authors_every = max(1, queries // max(3, int(2e6 // n)))
    for j in range(queries):
        query = probes[j % len(probes)]
        t_ours, got = timed(ours_top10, stream, Query(query, now, 10, WEIGHTS, DECAY))
        t_exact, want = timed(exact_numpy, vectors, accessed, importance, query, now, 10)
        ours.append(t_ours)
        exact.append(t_exact)
        agree += got == want
        if j % authors_every == 0:
            t_authors, theirs = timed(authors_loop, vectors, accessed, importance, query, now, 10)
            authors.append(t_authors)
            assert theirs == want, "the two baselines must agree"
    return {
        "n": n,
        "build_s": build,
        "ours_p50": percentile_ms(ours, 50),
        "ours_p99": percentile_ms(ours, 99),
        "exact_p50": percentile_ms(exact, 50),
        "exact_p99": percentile_ms(exact, 99),
        "authors_p50": percentile_ms(authors, 50),
        "authors_runs": len(authors),
        "agreement": agree / queries,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        "| memories | npc-brain p50 / p99 ms | exact numpy p50 / p99 ms | authors' loop p50 ms "
        "| vs authors (p50) | vs numpy (p50) | top-10 = exact | index build s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        r = bench_size(n, args.queries, rng)
        print(
            f"| {n:,} | {r['ours_p50']:.2f} / {r['ours_p99']:.2f} "
            f"| {r['exact_p50']:.2f} / {r['exact_p99']:.2f} "
            f"| {r['authors_p50']:.1f} ({int(r['authors_runs'])} runs) "
            f"| {r['authors_p50'] / r['ours_p50']:.0f}x "
            f"| {r['exact_p50'] / r['ours_p50']:.1f}x "
            f"| {100 * r['agreement']:.1f}% | {r['build_s']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
