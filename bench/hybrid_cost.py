"""What hybrid retrieval costs: Retrieve at 100k memories (the FTS5 query and the fused
scoring) against the paper's retrieval of the same stream, and a Perceive's write with
the full-text index kept by its triggers against the same write without them.

    python -m bench.hybrid_cost [--memories 100000] [--queries 200] [--writes 300]

Both in one run, so the ratios hold on a noisy machine. The stream is bench.retrieval's
(MiniLM embeddings of NPC observations, their texts in the store); the write is one
memory per transaction, as a Perceive of one observation commits it (fsync included).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import Row, latencies, ms, p50_p99, slower
from bench.retrieval import (
    DECAY,
    DIM,
    DOINGS,
    HOUR,
    NAMES,
    PLACES,
    QUERIES,
    SENTENCES,
    query_vectors,
    synthetic_stream,
)
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.backends import chat_from_settings, embedder_from_settings
from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import MemoryKind, NewMemory, Observation
from npc_brain.memory.retrieval import Weights
from npc_brain.memory.store import WorldStore
from npc_brain.memory.stream import EXACT_LIMIT, AgentStream, Query
from npc_brain.mind.world import WorldRegistry
from npc_brain.persona import AgentRecord, Persona

SECTION = "long-memory"
AGENT = "a"


def sentences() -> list[str]:
    """The texts bench.retrieval embeds, in the same order (the same generator)."""
    rng = np.random.default_rng(0)
    made = {
        f"{rng.choice(NAMES)} {rng.choice(DOINGS)} {rng.choice(PLACES)}"
        for _ in range(3 * SENTENCES)
    }
    return sorted(made)[:SENTENCES]


def filled_store(
    folder: Path, texts: list[str], vectors: np.ndarray, created: np.ndarray
) -> WorldStore:
    store = WorldStore(folder / "world.sqlite")
    store.upsert_agent(AgentRecord(AGENT, Persona("Ada Stone", 40)))
    batch = 5000
    for start in range(0, len(texts), batch):
        memories = [
            NewMemory(kind=MemoryKind.OBSERVATION, description=t, created=float(c), importance=5.0)
            for t, c in zip(
                texts[start : start + batch], created[start : start + batch], strict=True
            )
        ]
        store.add_memories(AGENT, memories, vectors[start : start + batch])
    return store


def retrieve_rows(memories: int, queries: int) -> list[Row]:
    rng = np.random.default_rng(7)
    vectors, created, accessed, importance, which = synthetic_stream(memories, rng)
    texts = sentences()
    with tempfile.TemporaryDirectory(prefix="npc-hybrid-") as tmp:
        store = filled_store(Path(tmp), [texts[i] for i in which], vectors, created)
        records, stored_vectors = store.load_memories(AGENT, DIM)
        stream = AgentStream(DIM)
        stream.add(records, stored_vectors)
        if stream.needs_index():
            stream.adopt_index(AnnIndex.build(stream.vectors_to_index()))
        probes = query_vectors()
        asked = [*QUERIES, *texts[:40]]
        now = 31 * 24 * HOUR

        def paper(i: int) -> object:
            return stream.retrieve(Query(probes[i % len(probes)], now, 10, Weights(), DECAY))

        def hybrid(i: int) -> object:
            lexical = tuple(store.lexical(AGENT, asked[i % len(asked)], 64))
            query = Query(probes[i % len(probes)], now, 10, Weights(), DECAY, lexical=lexical)
            return stream.retrieve(query)

        paper(0), hybrid(0)  # warm
        theirs, ours = [], []
        for _ in range(max(1, queries // 50)):  # interleaved: the same noise for both
            theirs += latencies(paper, 50)
            ours += latencies(hybrid, 50)
        store.close()
    p99 = p50_p99(ours)[1]
    return [
        Row(
            SECTION,
            f"Retrieve at {memories:,} memories, FTS5 query + fused scoring, p50 / p99",
            ms(ours),
            f"{ms(theirs)} (paper's retrieval)",
            slower(ours, theirs),
            f"p99 <= 10 ms ({'met' if p99 <= 10 else 'not met'})",
        )
    ]


def write_rows(writes: int) -> list[Row]:
    """Perceive of one new observation (embedding, importance, the durable write), on a
    brain whose store keeps the full-text index and on one whose store does not (its
    insert trigger dropped: today's write), interleaved; each store already holds 2,000
    memories."""
    texts = sentences()
    return asyncio.run(_perceive_latencies(texts, writes))


async def _perceive_latencies(texts: list[str], writes: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="npc-fts-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        embedder = embedder_from_settings(settings)
        brains = []
        for name in ("indexed", "bare"):
            config = Settings(data_dir=Path(tmp) / name)
            brain = Brain(
                chat=chat_from_settings(config),
                embedder=embedder,
                worlds=WorldRegistry(
                    config.data_dir, embedder.model_id, embedder.dimension, EXACT_LIMIT
                ),
                settings=config,
            )
            await brain.upsert_agent("", AGENT, Persona("Ada Stone", 40), 0.0)
            for i in range(0, 2000, 100):
                batch = [Observation(f"{t} ({i + n})") for n, t in enumerate(texts[i : i + 100])]
                await brain.perceive("", AGENT, float(i), batch)
            brains.append(brain)
        bare = brains[1]._world("").store  # noqa: SLF001 - the baseline: today's write
        with bare._transaction() as db:  # noqa: SLF001
            db.execute("DROP TRIGGER memories_fts_insert")
        timings: list[list[float]] = [[], []]
        for i in range(writes):
            for which, brain in enumerate(brains):
                text = f"{texts[(2000 + i) % len(texts)]} ({2000 + i})"
                start = time.perf_counter()
                await brain.perceive("", AGENT, 3000.0 + i, [Observation(text)])
                timings[which].append(time.perf_counter() - start)
        for brain in brains:
            brain.close()
    with_index, without = timings
    ratio = p50_p99(with_index)[1] / p50_p99(without)[1]
    return [
        Row(
            SECTION,
            "Perceive of one observation, FTS5 index in the same transaction, p50 / p99",
            ms(with_index),
            f"{ms(without)} (no index)",
            f"{ratio:.2f}x (p99)",
            f"<= 1.2x ({'met' if ratio <= 1.2 else 'not met'})",
        )
    ]


def rows(memories: int = 100_000, queries: int = 200, writes: int = 300) -> list[Row]:
    return [*retrieve_rows(memories, queries), *write_rows(writes)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writes", type=int, default=300)
    args = parser.parse_args()
    print("| measure | hybrid | baseline | ratio | target |\n|---|---|---|---|---|")
    for row in rows(args.memories, args.queries, args.writes):
        print(f"| {row.measure} | {row.value} | {row.baseline} | {row.ratio} | {row.target} |")


if __name__ == "__main__":
    main()
