"""The most batching can give on this machine: llama.cpp's own decode of one token for
each of N sequences against one token of one sequence.

    python -m bench.decode_ceiling [--sequences 1,2,4,8] [--context 400]

One llama.cpp context laid out as the batching engine's (a KV stream per sequence, flash
attention off, plain CPU buffers), each sequence holding `--context` tokens already read,
then 40 decodes at each N, the median timed. Tokens a second at N over tokens a second at
1 is the ceiling of what decoding N calls together can gain over one call, before any
sampling, grammar or scheduling: where it is below a target, no engine reaches the target
here. The decodes run on a thread that ends (a llama.cpp call from a thread that stays
leaves an OpenMP team behind, which slows later callers on other threads).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

import llama_cpp
from llama_cpp import _internals
from llama_cpp._logger import set_verbose

from npc_brain.config import Settings

PROMPT = b"You are Isabella, who runs Hobbs Cafe in the Ville. Tell me about your morning."


def decode_rates(path: Path, sequences: list[int], context: int, threads: int) -> dict[int, float]:
    """Tokens a second of a decode of one token for each of n sequences, for each n."""
    out: dict[int, float] = {}
    worker = threading.Thread(
        target=lambda: out.update(_measure(path, sequences, context, threads))
    )
    worker.start()
    worker.join()
    return out


def _measure(path: Path, sequences: list[int], context: int, threads: int) -> dict[int, float]:
    set_verbose(False)
    most = max(sequences)
    params = llama_cpp.llama_model_default_params()
    params.use_extra_bufts = False
    model = _internals.LlamaModel(path_model=str(path), params=params, verbose=False)
    options = llama_cpp.llama_context_default_params()
    options.n_ctx = most * (context + 64)
    options.n_batch = options.n_ubatch = 512
    options.n_seq_max = most
    options.kv_unified = False
    options.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    options.n_threads = options.n_threads_batch = threads
    ctx = _internals.LlamaContext(model=model, params=options, verbose=False)
    batch = llama_cpp.llama_batch_init(512, 0, 1)
    try:
        tokens = (model.tokenize(PROMPT, True, True) * context)[:context]

        def decode(items: list[tuple[int, int, int]], logits: bool = True) -> float:
            for n, (seq, token, pos) in enumerate(items):
                batch.token[n], batch.pos[n], batch.n_seq_id[n] = token, pos, 1
                batch.seq_id[n][0], batch.logits[n] = seq, logits
            batch.n_tokens = len(items)
            start = time.perf_counter()
            if llama_cpp.llama_decode(ctx.ctx, batch) != 0:
                raise RuntimeError("llama_decode failed")
            return time.perf_counter() - start

        for seq in range(most):  # each sequence reads the context, 256 tokens a decode
            for at in range(0, context, 256):
                decode([(seq, t, at + i) for i, t in enumerate(tokens[at : at + 256])], False)
        rates = {}
        for n in sequences:
            times = [decode([(s, 100 + k, context + k) for s in range(n)]) for k in range(40)]
            for seq in range(most):
                llama_cpp.llama_memory_seq_rm(ctx.memory, seq, context, -1)
            rates[n] = n / statistics.median(times)
        return rates
    finally:
        llama_cpp.llama_batch_free(batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", default="1,2,4,8")
    parser.add_argument("--context", type=int, default=400, help="tokens each sequence holds")
    args = parser.parse_args()
    settings = Settings()
    levels = sorted({int(n) for n in args.sequences.split(",")} | {1})
    threads = settings.threads or os.cpu_count() or 1
    rates = decode_rates(settings.chat_model_path(), levels, args.context, threads)
    print(f"{settings.chat_model_path().name}, {threads} threads, {args.context} tokens held\n")
    print("| sequences | tokens/s | x one |\n|---|---|---|")
    for n in levels:
        print(f"| {n} | {rates[n]:.0f} | {rates[n] / rates[1]:.2f}x |")


if __name__ == "__main__":
    main()
