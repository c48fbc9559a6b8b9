"""Continuous batching: generated tokens a second with N calls at once against one.

    python -m bench.batching [--concurrency 1,2,4,8] [--tokens 96] [--rounds 2]
                             [--no-llama-server]

The embedded chat model (the default GGUF): `BatchedLlamaChat` with as many slots as the
largest concurrency, and the one-call-at-a-time `LlamaChat` (the baseline, which serves
N calls one after another, from one thread of a process of its own, as the server's
scheduler worker does: llama.cpp computes with OpenMP, and two threads of one process
that each call it slow each other to a third); beside them the anchor, llama.cpp's
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
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.llama_server import Unavailable, server
from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Completion, Message, TokenSink
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


class ChatInChildProcess:
    """A LlamaChat in a process of its own whose one thread makes every call: the
    server's layout (one scheduler worker owns the model), away from the other arms'
    threads. Calls from several threads are served one after another."""

    def __init__(self, path: Path, threads: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve_chat, args=(child, path, threads), daemon=True
        )
        self._process.start()
        self._turn = threading.Lock()
        self.model_id = str(self._call("model_id"))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion:
        kwargs = {"max_tokens": max_tokens, "schema": schema, "seed": seed}
        completion: Completion = self._call(
            "complete", list(messages), temperature=temperature, **kwargs
        )
        return completion

    def close(self) -> None:
        self._conn.send(None)
        self._process.join(timeout=30)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        with self._turn:
            self._conn.send((method, args, kwargs))
            ok, value = self._conn.recv()
        if not ok:
            raise RuntimeError(f"the one-at-a-time arm failed: {value}")
        return value


def _serve_chat(conn: Connection, path: Path, threads: int) -> None:
    chat = LlamaChat(path, threads=threads)
    while (request := conn.recv()) is not None:
        method, args, kwargs = request
        try:
            value = (
                chat.model_id if method == "model_id" else getattr(chat, method)(*args, **kwargs)
            )
            conn.send((True, value))
        except Exception as error:  # noqa: BLE001 - reported by the parent
            conn.send((False, repr(error)))


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
    # Every arm gets every core, as llama-server does: with `threads` 0 an arm would
    # count the arm that ran just before it as a busy process (llm/free_cores.py).
    cores = settings.threads or os.cpu_count() or 1
    arms: dict[str, ChatModel] = {
        "batched": BatchedLlamaChat(path, slots=max(levels), threads=cores),
        "one at a time": ChatInChildProcess(path, cores),
    }
    with contextlib.ExitStack() as stack:
        stack.callback(arms["one at a time"].close)  # type: ignore[attr-defined]
        if not args.no_llama_server:
            try:
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
