"""Chat weights: the Q8_0 copy `models fetch` writes against the Q4_1 file it comes from.

    python -m bench.weights [--agents 3] [--rounds 2] [--max-tokens 48] [--threads N]

The same cognition prompts as bench.prompt_cache (decisions, reactions, conversation
turns, decompositions, reflection's questions for agents with different personas, in a
scheduler's shuffled order), made by two `LlamaChat`s that differ only in their GGUF,
taking turns call by call so that load on the machine hits both alike; greedy, with the
calls' own grammars, no saved prompt states (every prompt token is evaluated: what is
measured is the weights). Prompt tokens a second are the prompt's tokens over the time to
the first token; generated tokens a second the rest of the tokens over the rest of the
time. Also given: how many answers are the same text under both weights.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import Row, render
from bench.prompt_cache import Call, prompts
from npc_brain.config import DEFAULT_CHAT_MODEL, REPO_MODELS_DIR, SOURCE_CHAT_MODEL, Settings
from npc_brain.llm.llama import LlamaChat


@dataclass
class Arm:
    name: str
    chat: LlamaChat
    prompt_tokens: int = 0
    prompt_seconds: float = 0.0
    generated_tokens: int = 0
    generating_seconds: float = 0.0
    answers: list[str] = field(default_factory=list)

    def run(self, call: Call, max_tokens: int) -> None:
        start = time.perf_counter()
        first: list[float] = []

        def on_token(_: str) -> None:
            if not first:
                first.append(time.perf_counter())

        answer = self.chat.complete(
            call.messages, max_tokens=max_tokens, schema=call.schema, on_token=on_token
        )
        end = time.perf_counter()
        reached = first[0] if first else end
        self.prompt_tokens += answer.prompt_tokens
        self.prompt_seconds += reached - start
        self.generated_tokens += max(0, answer.completion_tokens - 1)  # the first is the prompt's
        self.generating_seconds += end - reached
        self.answers.append(answer.text)


def measure(
    candidate: Path, baseline: Path, agents: int, rounds: int, max_tokens: int, threads: int
) -> tuple[list[Row], Arm, Arm]:
    settings = Settings()

    def chat(path: Path) -> LlamaChat:
        return LlamaChat(
            path, n_ctx=settings.chat_context, threads=threads, seed=settings.seed,
            prompt_cache_bytes=0,
        )  # fmt: skip

    new, old = Arm(candidate.name, chat(candidate)), Arm(baseline.name, chat(baseline))
    calls = [c for c in prompts(agents, rounds) if not c.options]
    for call in calls[:2]:  # warm both up, not counted
        for arm in (new, old):
            arm.chat.complete(call.messages, max_tokens=4, schema=call.schema)
    for i, call in enumerate(calls):
        for arm in (new, old) if i % 2 == 0 else (old, new):
            arm.run(call, max_tokens)
    same = sum(a == b for a, b in zip(new.answers, old.answers, strict=True))
    label = f"{len(calls)} cognition calls"
    rows = [
        Row(
            "weights",
            f"prompt evaluation, {label}",
            f"{new.prompt_tokens / new.prompt_seconds:.0f} tokens/s ({new.name})",
            f"{old.prompt_tokens / old.prompt_seconds:.0f} tokens/s ({old.name})",
            f"{old.prompt_seconds / new.prompt_seconds:.2f}x faster",
        ),
        Row(
            "weights",
            f"generation, {label}",
            f"{new.generated_tokens / new.generating_seconds:.0f} tokens/s",
            f"{old.generated_tokens / old.generating_seconds:.0f} tokens/s",
            f"{(new.generated_tokens / new.generating_seconds) / (old.generated_tokens / old.generating_seconds):.2f}x faster",  # noqa: E501
        ),
        Row(
            "weights",
            f"whole calls (max_tokens={max_tokens}); answers the same text",
            f"{new.prompt_seconds + new.generating_seconds:.1f} s; {same}/{len(calls)}",
            f"{old.prompt_seconds + old.generating_seconds:.1f} s",
            f"{(old.prompt_seconds + old.generating_seconds) / (new.prompt_seconds + new.generating_seconds):.2f}x faster",  # noqa: E501
        ),
    ]
    return rows, new, old


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=0, help="chat model CPU threads (0: all)")
    parser.add_argument("--candidate", type=Path, default=REPO_MODELS_DIR / DEFAULT_CHAT_MODEL)
    parser.add_argument("--baseline", type=Path, default=REPO_MODELS_DIR / SOURCE_CHAT_MODEL)
    args = parser.parse_args()
    threads = args.threads
    rows, _, _ = measure(
        args.candidate, args.baseline, args.agents, args.rounds, args.max_tokens, threads
    )
    print(render(rows))


if __name__ == "__main__":
    main()
