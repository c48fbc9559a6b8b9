"""The benchmark suite: one table, every figure beside a baseline measured in the same run.

    python -m bench [--quick] [--demo-report PATH] [--only SECTION ...] [--json PATH]

Sections (all but realtime by default; a full run takes about 10 minutes on 2 cores,
--quick about 4):

- model: Converse tokens/s through a real gRPC server vs raw llama-cpp-python on the
  same GGUF, prompt, grammar, max_tokens, temperature, seed and threads.
- tick path and scaling: Perceive / Act / Tick latency p50 and p99, idle and while the
  model is saturated, at 1, 5, 25 and 100 agents, beside a bare gRPC round trip
  (health Check); memory (RSS) per agent and per 1,000 memories beside the process's
  RSS with zero agents.
- embedding cache: Perceive of repeated observations with and without it; 50 new
  observations embedded in one batch vs one call each.
- prompt prefixes: the cognition prompts of 5 agents, interleaved, with and without
  saved prefix states, against plain llama-cpp-python (bench/prompt_cache.py).
- retrieval: npc-brain's Retrieve scoring vs exact numpy and the authors' loop
  (bench/retrieval.py, at 1k and 10k memories).
- demo town: model calls and tokens per agent per awake game hour, and the share of
  prompt tokens not evaluated again, from the report `npc-brain demo` writes
  (--demo-report; bench/demo_report.py).
- talk (only with --only talk: about 15 minutes): a player's lines in three settings
  that are not the demo town (bench/data/player_talk, its test split), answered by this
  tree and by the talk layer before its rebuild (git archive of bench/talk_section.py's
  BASELINE), each reply judged by its line's rule; writes bench/results/
  talk_transcript.md (bench/talk_section.py).
- long-memory (only with --only long-memory: about a minute): retrieval in a month of six
  NPCs' mostly routine memories (bench/data/long_memory, test split), hybrid against the
  paper's formula, relevance alone and BM25: hit@10 per category (bench/long_memory.py).
- actions (only with --only actions: about eight minutes): game actions chosen in
  conversation on labelled requests, trades and threats to the player-talk settings' NPCs
  (bench/data/actions, test split): the right action or none, words that contradict the
  choice, a reported sale told back, and a reply's extra latency with actions declared
  over the same lines without (bench/actions.py).
- scale-out (only with --only scale-out: about 5 minutes): several servers sharing one
  real PostgreSQL (tests/postgres/server.py starts it): acked writes lost over 10 SIGKILLs
  of a world's owner and the time to the world served again, a forced lease race,
  Perceive and store writes/s and Retrieve p99 (100,000 memories) against SQLite, 4
  servers with 200 worlds, a database outage under load (bench/scale_out.py).
- realtime (only with --only realtime: about 30 minutes, plus llama-server's build the
  first time): a player's first token idle and while the town thinks, against the
  serial scheduler; 8 calls decoded together against 1, beside llama-server; the default
  demo's calls and prompt reuse; a 25-agent game day projected; Tick under a saturated
  model; the demo beside a busy core (bench/realtime_section.py).

Run alone (each runs the demo, too slow for the suite): `python -m bench.demo_scale`
(seconds per game hour as the town grows) and `python -m bench.days` (the free planner
against the composed one: whether the agents' days make sense). Also alone:
`python -m bench.realtime` (a player's first token while the town thinks: continuous
batching, player_first and the serial scheduler), `python -m bench.batching` (tokens a
second with N calls decoded together against one at a time) and `python -m
bench.interview` (believable answers in the paper's interview categories, with its
ablations).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import (
    actions,
    demo_report,
    long_memory,
    prompt_cache,
    realtime_section,
    retrieval,
    scale_out,
    server_suite,
    talk_section,
)
from bench.common import Row, render, timed
from npc_brain.config import Settings
from npc_brain.llm.llama import LlamaEmbedder

DEFAULT_SECTIONS = ("model", "embedding", "prompts", "retrieval")
SECTIONS = (*DEFAULT_SECTIONS, "realtime", "talk", "long-memory", "actions", "scale-out")


def retrieval_rows(quick: bool) -> list[Row]:
    rng = np.random.default_rng(7)
    rows = []
    for n in (1000,) if quick else (1000, 10_000):
        r = retrieval.bench_size(n, 30 if quick else 100, rng)
        rows.append(
            Row(
                "retrieval",
                f"Retrieve scoring, {n:,} memories (p50 / p99; top 10 = exact "
                f"{100 * r['agreement']:.0f}%)",
                f"{r['ours_p50']:.2f} / {r['ours_p99']:.2f} ms",
                f"{r['exact_p50']:.2f} ms exact numpy; {r['authors_p50']:.1f} ms authors' loop",
                f"{r['exact_p50'] / r['ours_p50']:.1f}x / {r['authors_p50'] / r['ours_p50']:.0f}x",
            )
        )
    return rows


def embedding_batch_row(quick: bool) -> Row:
    """50 observations embedded in one call (batched) vs one call each, taking turns."""
    embedder = LlamaEmbedder(Settings().embed_model_path(), threads=Settings().embed_threads)
    texts = server_suite.observation_pool()[:50]
    single: list[float] = []
    batched: list[float] = []
    for _ in range(2 if quick else 5):
        single.append(timed(lambda: [embedder.embed([t]) for t in texts]))
        batched.append(timed(lambda: embedder.embed(texts)))
    one, many = float(np.median(single)), float(np.median(batched))
    return Row(
        "embedding cache",
        "embedding 50 new observations in one batch (median)",
        f"{1000 * many:.0f} ms",
        f"{1000 * one:.0f} ms one text per call",
        f"{one / many:.1f}x faster",
    )


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.machine()}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls (about 4 minutes)")
    parser.add_argument("--demo-report", type=Path, metavar="PATH", help="demo report JSON")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the details")
    parser.add_argument(
        "--threads", type=int, default=0, help="chat model CPU threads, all arms (0: all cores)"
    )
    args = parser.parse_args(argv)
    sections = set(args.only or DEFAULT_SECTIONS)
    counts = server_suite.Counts.of(args.quick, args.threads)
    rows: list[Row] = []
    detail: dict[str, Any] = {"machine": machine(), "quick": args.quick, "threads": args.threads}
    started = time.perf_counter()

    def progress(what: str) -> None:
        if rows:  # what is measured so far, in case a later section fails
            print(render(rows), file=sys.stderr, flush=True)
        print(f"[{time.perf_counter() - started:5.0f} s] {what}", file=sys.stderr, flush=True)

    if args.demo_report:  # read first: a bad report fails before minutes of measuring
        rows += demo_report.demo_rows(args.demo_report)
    if "model" in sections:
        progress("server: tick path, scaling, memory, Converse vs raw llama-cpp-python")
        server_rows, detail["server"] = server_suite.server_runs(counts)
        rows += server_rows
    if "embedding" in sections:
        progress("embedding cache: Perceive with and without it")
        rows += server_suite.embedding_cache_rows(server_suite.embedding_cache_runs(counts))
        rows.append(embedding_batch_row(args.quick))
    if "prompts" in sections:
        progress("prompt prefixes: cognition prompts with and without saved states")
        agents = 2 if args.quick else 5
        prompt_rows, detail["prompts"] = prompt_cache.measure(agents, 2, 8, args.threads)
        rows += prompt_rows
    if "retrieval" in sections:
        progress("retrieval")
        rows += retrieval_rows(args.quick)
    if "talk" in sections:
        progress("talk: a player's lines in three settings, this tree and the code before")
        rows += talk_section.rows()
    if "long-memory" in sections:
        progress("long memory: a month of six NPCs' memories, hybrid retrieval vs baselines")
        rows += long_memory.rows()
    if "actions" in sections:
        progress("actions: requests, trades and threats to NPCs with game actions declared")
        rows += actions.rows()
    if "scale-out" in sections:
        progress("scale-out: servers sharing one PostgreSQL, failover, leases, outage")
        rows += scale_out.rows()
    if "realtime" in sections:
        progress("real time: first token, batching, the demo town, a day, Tick, contention")
        rows += realtime_section.rows(args.quick)
    progress("done")
    print(f"\nnpc-brain bench on {detail['machine']}; {time.perf_counter() - started:.0f} s\n")
    print(render(rows))
    if args.json:
        detail["rows"] = [r.__dict__ for r in rows]
        args.json.write_text(json.dumps(detail, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
