"""Long memory (issue 37): does retrieval find the memories that answer a player's question
in a month of mostly routine memories? Six NPCs of bench/data/long_memory, through the real
in-process Brain with the default models, beside the baselines, in one run.

    python -m bench.long_memory [--split test|train|all] [--arms paper,relevance,bm25,hybrid]
                                [--npcs N] [--json PATH]

Arms:

- paper: Brain(Settings(retrieval="paper")), the paper's weights (recency, importance,
  relevance all 1).
- relevance: the same Brain, asked with weights (0, 0, 1): embedding similarity alone.
- bm25: no server: per NPC an SQLite FTS5 table of its memories (porter stemming), the
  question's words ORed, ranked by bm25().
- hybrid: Brain(Settings(retrieval="hybrid")), default weights. A setting the Settings of
  this tree lack is left out (said in the output): the arm is then the paper arm again.

Each Brain arm loads every memory once (world "longmem", in game-time order, reflections
switched off so that the streams hold the data's memories only), then asks every question
at its time, in the same order in every arm; Retrieve marks what it returns accessed, as
in a game. Measures per category: hit@10 (an evidence memory among the top 10), recall@10
(the share of the evidence in the top 10); for "when" questions, "from the right window"
(the top memory lies in the question's window and an evidence memory is in the top 10).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.common import Row
from bench.long_memory_data import CATEGORIES, OUT, game_time
from bench.long_memory_town import NPCS
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.backends import embedder_from_settings
from npc_brain.llm.base import Embedder
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.memory.retrieval import Weights
from npc_brain.persona import Persona, Switches
from npc_brain.server.app import build_brain
from npc_brain.words import closed_class

K = 10
WORLD = "longmem"
ARMS = ("paper", "relevance", "bm25", "hybrid")
# Measures beside the arms, asked for by name: hybrid with importance weighed ~0, to see
# whether importance helps questions of fact (issue 37, item 3).
EXTRA_ARMS = ("hybrid-no-importance",)
RETRIEVAL = {
    "paper": "paper",
    "relevance": "paper",
    "hybrid": "hybrid",
    "hybrid-no-importance": "hybrid",
}
NO_IMPORTANCE = Weights(0.0, 1e-6, 0.0)  # zeros: the defaults, shaped by the question
# A zero weight means the configured default (1): a millionth only breaks ties.
RELEVANCE_ONLY = Weights(1e-6, 1e-6, 1.0)
EMBED_BATCH = 64
KINDS = {
    "observation": MemoryKind.OBSERVATION,
    "dialogue": MemoryKind.DIALOGUE,
    "plan": MemoryKind.PLAN,
    "reflection": MemoryKind.REFLECTION,
}
SOURCES = {
    "seen": SourceKind.SEEN,
    "heard": SourceKind.HEARD,
    "told": SourceKind.TOLD,
    "author": SourceKind.AUTHOR,
}

Memory = dict[str, Any]
Question = dict[str, Any]


def load(split: str, npcs: int = 0) -> tuple[list[Memory], list[Question]]:
    """The data's memories in game-time order, and the split's questions in the order they
    are asked; `npcs`: only the first N NPCs (0: all)."""
    memories, questions = (
        [json.loads(line) for line in (OUT / f"{name}.jsonl").read_text().splitlines()]
        for name in ("memories", "questions")
    )
    kept = list(dict.fromkeys(m["npc"] for m in memories))[: npcs or None]
    memories = sorted((m for m in memories if m["npc"] in kept), key=at)
    questions = [q for q in questions if q["npc"] in kept and split in ("all", q["split"])]
    questions.sort(key=lambda q: (q["ask_day"], q["ask_hour"], q["id"]))
    return memories, questions


def at(m: Memory) -> tuple[int, float, str]:
    return (m["day"], m["hour"], m["id"])


# The arms: each gives every question's top K dataset ids, in question order ---------------


class SharedEmbedder:
    """The default embedder, shared by the Brain arms, keeping each text's row: every arm
    stores the same texts, embedded once (in batches, before the arms) instead of once per
    arm. The rows are the model's own, so no arm ranks differently for it."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self._rows: dict[str, NDArray[np.float32]] = {}

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._rows]
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            self._rows.update(zip(batch, self._inner.embed(batch), strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[t] for t in texts])


def settings_for(arm: str, data_dir: Path) -> tuple[Settings, list[str]]:
    """The arm's settings, and the overrides this tree's Settings do not know (left out)."""
    overrides: dict[str, Any] = {"retrieval": RETRIEVAL[arm]}
    known = {f.name for f in dataclasses.fields(Settings)}
    extra = {k: v for k, v in overrides.items() if k in known}
    return Settings(data_dir=data_dir, **extra), sorted(set(overrides) - known)


async def brain_arm(
    arm: str, memories: Sequence[Memory], questions: Sequence[Question], embedder: Embedder
) -> dict[str, Any]:
    weights = {"relevance": RELEVANCE_ONLY, "hybrid-no-importance": NO_IMPORTANCE}.get(arm)
    with tempfile.TemporaryDirectory(prefix="npc-longmem-") as tmp:
        settings, missing = settings_for(arm, Path(tmp))
        brain = build_brain(settings, embedder)
        try:
            started = time.perf_counter()
            ids = await remember(brain, memories)
            loaded = time.perf_counter()
            ranked, seconds = [], []
            for q in questions:
                asked = time.perf_counter()
                found = await brain.retrieve(
                    WORLD,
                    q["npc"],
                    game_time(q["ask_day"], q["ask_hour"]),
                    q["question"],
                    k=K,
                    weights=weights,
                )
                seconds.append(time.perf_counter() - asked)
                ranked.append([ids.get((q["npc"], s.memory.memory_id), "") for s in found])
            return {
                "ranked": ranked,
                "load_s": loaded - started,
                "query_s": time.perf_counter() - loaded,
                "query_p50_ms": 1000 * statistics.median(seconds) if seconds else 0.0,
                "missing_settings": missing,
            }
        finally:
            brain.close()


async def remember(brain: Brain, memories: Sequence[Memory]) -> dict[tuple[str, int], str]:
    """Every NPC and its memories, in game-time order; the stored id of each -> its id in
    the data. Reflections are off: a stream holds the data's memories only."""
    start = game_time(0, 6.0)
    for npc in NPCS:
        if any(m["npc"] == npc.id for m in memories):
            persona = Persona(npc.name, pronouns=npc.pronoun)
            await brain.upsert_agent(WORLD, npc.id, persona, start, Switches(reflection=False))
    ids = {}
    for m in memories:
        source = Source(SOURCES[m["source"]], m["from"])
        stored = await brain.add_memory(
            WORLD,
            m["npc"],
            game_time(m["day"], m["hour"]),
            KINDS[m["kind"]],
            Observation(m["text"], source=source),
        )
        ids[(m["npc"], stored.memory_id)] = m["id"]
    return ids


def bm25_arm(memories: Sequence[Memory], questions: Sequence[Question]) -> dict[str, Any]:
    started = time.perf_counter()
    tables: dict[str, sqlite3.Connection] = {}
    for m in memories:
        if m["npc"] not in tables:
            tables[m["npc"]] = sqlite3.connect(":memory:")
            tables[m["npc"]].execute(
                "CREATE VIRTUAL TABLE m USING fts5(text, id UNINDEXED, tokenize='porter')"
            )
        tables[m["npc"]].execute("INSERT INTO m (text, id) VALUES (?, ?)", (m["text"], m["id"]))
    loaded = time.perf_counter()
    ranked = []
    for q in questions:
        words = [w for w in re.findall(r"\w+", q["question"].lower()) if not closed_class(w)]
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        query = "SELECT id FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT ?"
        found = tables[q["npc"]].execute(query, (match, K)).fetchall() if match else []
        ranked.append([row[0] for row in found])
    for db in tables.values():
        db.close()
    return {
        "ranked": ranked,
        "load_s": loaded - started,
        "query_s": time.perf_counter() - loaded,
        "missing_settings": [],
    }


def run_arm(
    arm: str,
    memories: Sequence[Memory],
    questions: Sequence[Question],
    embedder: Embedder,
) -> dict[str, Any]:
    if arm == "bm25":
        return bm25_arm(memories, questions)
    return asyncio.run(brain_arm(arm, memories, questions, embedder))


# Measures ---------------------------------------------------------------------------------


def measure(
    memories: Sequence[Memory], questions: Sequence[Question], ranked: Sequence[list[str]]
) -> dict[str, dict[str, float]]:
    """Per category and "all": questions, hit@10, recall@10; "window" for "when"."""
    when = {m["id"]: (m["day"], m["hour"]) for m in memories}
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for q, top in zip(questions, ranked, strict=True):
        evidence = set(q["evidence"])
        found = len(evidence & set(top[:K]))
        for group in (q["category"], "all"):
            sums[group]["n"] += 1
            sums[group]["hit"] += found > 0
            sums[group]["recall"] += found / len(evidence)
        if w := q.get("window"):
            after, before = (w["after_day"], w["after_hour"]), (w["before_day"], w["before_hour"])
            first = top[0] if top else ""
            inside = first in when and after <= when[first] < before
            sums[q["category"]]["window"] += inside and found > 0
    return {
        group: {k: v if k == "n" else v / s["n"] for k, v in s.items()} for group, s in sums.items()
    }


def table(report: dict[str, Any]) -> str:
    arms: dict[str, dict[str, Any]] = report["arms"]
    measures = [r["measures"] for r in arms.values()]
    groups = [c for c in (*CATEGORIES, "all") if any(c in m for m in measures)]
    lines = [
        "| arm | "
        + " | ".join(f"{g} hit / recall@10" for g in groups)
        + " | when: right window | load s | query s |",
        "|---" * (len(groups) + 4) + "|",
    ]
    for arm, r in arms.items():
        cells = [
            f"{pct(r['measures'][g]['hit'])} / {pct(r['measures'][g]['recall'])}" for g in groups
        ]
        window = r["measures"].get("when", {}).get("window")
        cells += [
            "" if window is None else pct(window),
            f"{r['load_s']:.0f}",
            f"{r['query_s']:.1f}",
        ]
        lines.append(f"| {arm} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "questions: " + ", ".join(f"{g} {int(measures[0][g]['n'])}" for g in groups),
        f"memories embedded once for the Brain arms: {report['embedding_s']:.0f} s",
    ]
    return "\n".join(lines)


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def run(split: str = "test", arms: Sequence[str] = ARMS, npcs: int = 0) -> dict[str, Any]:
    """Every arm over the split: its top K per question, measures and times."""
    memories, questions = load(split, npcs)
    embedder = SharedEmbedder(embedder_from_settings(Settings()))
    report: dict[str, Any] = {"split": split, "embedding_s": 0.0, "arms": {}}

    def say(what: str) -> None:
        print(f"long-memory: {what}", file=sys.stderr, flush=True)

    if set(arms) - {"bm25"}:
        say(f"embedding {len(memories)} memories")
        started = time.perf_counter()
        embedder.embed([m["text"] for m in memories])
        report["embedding_s"] = time.perf_counter() - started
    for arm in arms:
        say(f"arm {arm}, {len(memories)} memories, {len(questions)} questions")
        result = run_arm(arm, memories, questions, embedder)
        if result["missing_settings"]:
            say(f"Settings lack {result['missing_settings']}: left out, {arm} is paper")
        result["measures"] = measure(memories, questions, result["ranked"])
        result["questions"] = [q["id"] for q in questions]
        report["arms"][arm] = result
    return report


def rows(split: str = "test") -> list[Row]:
    """The bench section "long-memory": hybrid against the three baselines."""
    arms = run(split)["arms"]
    ours, paper, relevance, bm25 = (arms[a]["measures"] for a in ("hybrid", *ARMS[:3]))

    def row(group: str, what: str, measure_: str, target: str = "") -> Row:
        def of(m: dict[str, dict[str, float]]) -> str:
            return pct(m[group][measure_])

        gain = [100 * (ours[group][measure_] - m[group][measure_]) for m in (bm25, relevance)]
        return Row(
            "long-memory",
            f"{what} ({int(ours[group]['n'])} {split} questions)",
            of(ours),
            f"paper {of(paper)}; relevance only {of(relevance)}; BM25 {of(bm25)}",
            f"{gain[0]:+.0f} / {gain[1]:+.0f} points vs BM25 / relevance",
            target,
        )

    out = [row(c, f"hit@10, {c}", "hit") for c in CATEGORIES]
    out.append(
        row("all", "hit@10, all", "hit", ">= BM25 + 10 points and >= relevance-only + 10 points")
    )
    out.append(row("when", "'when' questions answered from the right window", "window", ">= 90%"))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.long_memory",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--split", default="test", choices=("test", "train", "all"))
    parser.add_argument(
        "--arms", default=",".join(ARMS), help="comma-separated, of " + ", ".join(ARMS)
    )
    parser.add_argument("--npcs", type=int, default=0, help="only the first N NPCs (0: all)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every top 10")
    args = parser.parse_args(argv)
    arms = [a for a in args.arms.split(",") if a]
    if unknown := set(arms) - set(ARMS) - set(EXTRA_ARMS):
        parser.error(f"unknown arms: {', '.join(sorted(unknown))}")
    report = run(args.split, arms, args.npcs)
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
