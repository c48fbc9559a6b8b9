"""Continuous batching: generated tokens a second with N calls at once against one.

    python -m bench.batching [--concurrency 1,2,4,8] [--tokens 96] [--rounds 2]
                             [--no-llama-server]

The embedded chat model (the default GGUF) in one process: `BatchedLlamaChat` with as
many slots as the largest concurrency, and the one-call-at-a-time `LlamaChat` (the
baseline, which serves N calls one after another); beside them the anchor, llama.cpp's
own `llama-server` with as many parallel slots on the same GGUF and the same requests
(bench/llama_server.py builds it once; when it cannot be built the output says why).
Each round asks N agents, each from a thread of its own, for a free-text answer of
--tokens tokens (sampled, as replies are; short prompts, ~30 tokens, so that generating
dominates; a new question each round); the arms take turns, so load on the machine hits
them alike. Tokens a second count generated tokens over the wall time of the round,
prompt reading included.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable

from bench.llama_server import Unavailable, server
from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Message
from npc_brain.llm.batching import BatchedLlamaChat
from npc_brain.llm.llama import LlamaChat

NAMES = ["Isabella", "Klaus", "Maria", "Sam", "Tom", "Jennifer", "Carmen", "Eddy"]
TOPICS = ["your morning", "the cafe", "the park", "your work", "the town", "your friends"]


def prompt(name: str, topic: str) -> list[Message]:
    return [
        Message("system", f"You are {name}, who lives in the Ville."),
        Message("user", f"Tell me about {topic}, in detail."),
    ]


def round_tokens_per_s(chat: ChatModel, n: int, tokens: int, topic: str, seed: int) -> float:
    """Generated tokens a second for n calls made at once (one thread each)."""
    done: list[int] = []

    def one(i: int) -> None:
        answer = chat.complete(
            prompt(NAMES[i % len(NAMES)], topic), max_tokens=tokens, temperature=0.7, seed=seed + i
        )
        done.append(answer.completion_tokens)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-llama-server", action="store_true", help="leave the anchor out")
    args = parser.parse_args()
    levels = sorted({int(n) for n in args.concurrency.split(",")} | {1})
    settings = Settings()
    path = settings.chat_model_path()
    arms: dict[str, ChatModel] = {
        "batched": BatchedLlamaChat(path, slots=max(levels), threads=settings.threads),
        "one at a time": LlamaChat(path, threads=settings.threads),
    }
    with contextlib.ExitStack() as stack:
        if not args.no_llama_server:
            try:
                cores = os.cpu_count() or 1
                arms["llama-server"] = stack.enter_context(server(path, max(levels), cores))
            except Unavailable as error:
                print(f"llama-server left out: {error}", flush=True)
        rates = measure(arms, levels, args.tokens, args.rounds)
    best: Callable[[str, int], float] = lambda name, n: max(rates[(name, n)])  # noqa: E731
    base = best("one at a time", 1)
    print(
        f"\n{args.tokens} generated tokens a call, best of {args.rounds} rounds, "
        f"tokens/s (ratio to one call alone, one at a time, measured in this run)\n"
    )
    anchor = "llama-server" in arms
    print(
        "| calls at once | one at a time | batched | batched / one at a time |"
        + (" llama-server | batched / llama-server |" if anchor else "")
    )
    print("|---|---|---|---|" + ("---|---|" if anchor else ""))
    for n in levels:
        serial, batched = best("one at a time", n), best("batched", n)
        row = (
            f"| {n} | {serial:.1f} ({serial / base:.2f}x) | {batched:.1f} ({batched / base:.2f}x) "
            f"| {batched / serial:.2f}x |"
        )
        if anchor:
            theirs = best("llama-server", n)
            row += f" {theirs:.1f} ({theirs / base:.2f}x) | {batched / theirs:.2f}x |"
        print(row)


def measure(
    arms: dict[str, ChatModel], levels: list[int], tokens: int, rounds: int
) -> dict[tuple[str, int], list[float]]:
    """Tokens a second of each arm at each level, the arms taking turns."""
    for chat in arms.values():  # warm: the first call loads pages and builds kernels
        # in a thread that ends: a llama.cpp call from the main thread leaves an OpenMP
        # team behind, and calls from other threads then ran at a third of their speed
        warm = threading.Thread(
            target=chat.complete, args=(prompt("Isabella", "tea"),), kwargs={"max_tokens": 4}
        )
        warm.start()
        warm.join()
    rates: dict[tuple[str, int], list[float]] = {}
    topics = itertools.cycle(TOPICS)
    for r in range(rounds):
        for n in levels:
            topic = next(topics)
            for name, chat in arms.items():
                rate = round_tokens_per_s(chat, n, tokens, topic, seed=100 * r)
                rates.setdefault((name, n), []).append(rate)
                print(f"round {r + 1}: {name}, {n} at once: {rate:.1f} tokens/s", flush=True)
    return rates


if __name__ == "__main__":
    main()
