"""Prompt-prefix reuse: the cognition prompts of several agents, interleaved, evaluated by
plain llama-cpp-python (as LlamaChat called it before) and by LlamaChat with saved
prefix states.

    python -m bench.prompt_cache [--agents 5] [--rounds 2] [--max-tokens 8] [--threads N]

The prompts are the real ones: the cognition modules write them (deciding an action,
reacting, a conversation turn, decomposing an hour, reflection's questions, the model
importance estimator's few-shot prompt) for agents with different personas, and the
calls are shuffled the way a busy scheduler interleaves agents. Each call is made by
both arms in turn (each owns its own llama.cpp context), so load on the machine hits
them alike. Time to first token is the prompt's evaluation; generation is capped at
--max-tokens because it costs the same in both arms. That answers stay exactly those
of a model without saved states is tested (tests/integration/test_prompt_states.py);
here the answers are compared with plain llama-cpp-python's, which evaluates prompts
in other splits, so a rare difference in the last float bits may change a token.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llama_cpp import Llama

from bench.common import Row
from npc_brain.config import Settings
from npc_brain.importance.prompted import ANSWER_PREFIX, ANSWERS, importance_messages
from npc_brain.llm.base import Completion, Message, TokenSink
from npc_brain.llm.llama import LlamaChat, _grammar, load_llama
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.act.prompts import action_messages, action_schema
from npc_brain.mind.plan.prompts import decompose_hour
from npc_brain.mind.react.prompts import decide_reaction
from npc_brain.mind.reflect.prompts import salient_questions
from npc_brain.mind.talk.prompts import conversation_turn
from npc_brain.persona import Persona

T0 = 1_676_365_200.0  # 2023-02-14 09:00 UTC
PLACES = ["the Ville:Hobbs Cafe", "the Ville:Johnson Park", "the Ville:Oak Hill College library"]
CAST = [
    ("Isabella Rodriguez", 34, "friendly, outgoing, hospitable", "runs Hobbs Cafe"),
    ("Klaus Mueller", 20, "kind, inquisitive, passionate", "studies sociology at Oak Hill"),
    ("Maria Lopez", 21, "energetic, enthusiastic", "studies physics and streams games"),
    ("Sam Moore", 65, "wise, warm", "a retired navy officer running for mayor"),
    ("Tom Moreno", 50, "grumpy, hardworking", "owns the grocery store"),
    ("Jennifer Moore", 68, "caring, artistic", "paints watercolours of the park"),
    ("Carmen Ortiz", 44, "organised, cheerful", "runs the pharmacy"),
    ("Eddy Lin", 19, "curious, creative", "composes music at the college"),
]


@dataclass(frozen=True)
class Call:
    kind: str
    messages: list[Message]
    schema: Mapping[str, Any] | None
    options: bool = False  # the importance estimator's option probabilities


@dataclass
class Recorder:
    """A chat model that only records the prompts the cognition modules write."""

    model_id: str = "recorder"
    calls: list[tuple[list[Message], Mapping[str, Any] | None]] = field(default_factory=list)

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
        self.calls.append((list(messages), schema))
        return Completion("{}", 0, 0)


def persona(i: int) -> Persona:
    name, age, innate, currently = CAST[i % len(CAST)]
    return Persona(
        name,
        age,
        innate,
        f"{name.split()[0]} likes the people of the Ville",
        currently,
        "goes to bed around 11pm, wakes up around 7am",
        PLACES[i % len(PLACES)],
        ("eat three meals", "work"),
    )


def memories(i: int, now: float) -> list[MemoryRecord]:
    texts = [
        f"{CAST[(i + 1) % len(CAST)][0]} is brewing coffee at Hobbs Cafe",
        "a Valentine's Day party is planned at Hobbs Cafe on February 14",
        f"{CAST[(i + 2) % len(CAST)][0]} talked about the mayoral election",
    ]
    return [
        MemoryRecord(MemoryKind.OBSERVATION, t, now - 600 * k, 3.0) for k, t in enumerate(texts)
    ]


def prompts(agents: int, rounds: int) -> list[Call]:
    """The cognition modules' prompts for `agents` agents over `rounds` game hours, in a
    seeded shuffle (the order a scheduler serving many agents meets them)."""
    calls: list[Call] = []
    for r in range(rounds):
        now = T0 + 3600 * r
        for i in range(agents):
            me, mine = persona(i), memories(i, now)
            rec = Recorder()
            other = persona(i + 1)
            decide_reaction(rec, me, now, "brewing coffee", f"{other.name} is nearby", mine)
            conversation_turn(
                rec, speaker_id=f"a{i}", speaker=me, listener_name=other.name, now=now,
                memories=mine, so_far=[],
            )  # fmt: skip
            decompose_hour(rec, me, "working", now, PLACES, mine)
            salient_questions(rec, me, mine)
            kinds = ["react", "talk", "decompose", "reflect"]
            calls += [Call(k, m, s) for k, (m, s) in zip(kinds, rec.calls, strict=True)]
            calls.append(Call("act", action_messages(me, now, mine, PLACES), action_schema(PLACES)))
            text = f"{other.name} said the cafe will close early today"
            calls.append(Call("importance", importance_messages(me.name, text), None, True))
    random.Random(0).shuffle(calls)
    return calls


@dataclass
class Arm:
    """One way of making the calls, with what each took."""

    name: str
    call: Callable[[Call, int], tuple[str, float]]  # -> (answer, seconds to first token)
    first_token: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    def run(self, call: Call, max_tokens: int) -> None:
        start = time.perf_counter()
        answer, first = self.call(call, max_tokens)
        self.total.append(time.perf_counter() - start)
        self.first_token.append(first)
        self.answers.append(answer)


def llama_chat_arm(name: str, chat: LlamaChat) -> Arm:
    def call(c: Call, max_tokens: int) -> tuple[str, float]:
        start = time.perf_counter()
        if c.options:
            shares, _ = chat.option_probabilities(
                c.messages, answer_prefix=ANSWER_PREFIX, options=ANSWERS
            )
            return json.dumps(shares), time.perf_counter() - start
        first: list[float] = []

        def on_token(_: str) -> None:
            if not first:
                first.append(time.perf_counter() - start)

        text = chat.complete(c.messages, max_tokens=max_tokens, schema=c.schema, on_token=on_token)
        return text.text, first[0] if first else time.perf_counter() - start

    return Arm(name, call)


def plain_arm(llama: Llama, seed: int) -> Arm:
    """llama-cpp-python as LlamaChat called it before prefix states: create_chat_completion,
    which reuses the longest prefix shared with the previous prompt only."""

    def call(c: Call, max_tokens: int) -> tuple[str, float]:
        start = time.perf_counter()
        messages: Any = [{"role": m.role, "content": m.content} for m in c.messages]
        if c.options:  # one token after the answer prefix: its prompt evaluation
            chunks: Any = llama.create_completion(
                _render(llama, messages) + ANSWER_PREFIX, max_tokens=1, temperature=0.0
            )
            return "", time.perf_counter() - start
        grammar = _grammar(json.dumps(c.schema)) if c.schema is not None else None
        chunks = llama.create_chat_completion(
            messages=messages,
            max_tokens=max_tokens,
            temperature=0.0,
            seed=seed,
            grammar=grammar,
            stream=True,
        )
        first, pieces = 0.0, list[str]()
        for chunk in chunks:
            piece = chunk["choices"][0]["delta"].get("content") or ""
            if piece and not first:
                first = time.perf_counter() - start
            pieces.append(piece)
        return "".join(pieces), first or time.perf_counter() - start

    return Arm("plain llama-cpp-python (before)", call)


def _render(llama: Llama, messages: Any) -> str:
    from npc_brain.llm.llama import _chat_template

    template: Any = _chat_template(llama._model)  # noqa: SLF001
    return str(template(messages=messages).prompt)


def measure(
    agents: int, rounds: int, max_tokens: int, threads: int = 0
) -> tuple[list[Row], dict[str, Any]]:
    settings = Settings()
    path, seed, n_ctx = settings.chat_model_path(), settings.seed, settings.chat_context
    n_threads = threads or os.cpu_count() or 1
    plain = load_llama(
        Llama, model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=seed, verbose=False
    )
    on = LlamaChat(path, n_ctx=n_ctx, threads=threads, seed=seed)
    before, after = plain_arm(plain, seed), llama_chat_arm("saved prefix states", on)
    calls = prompts(agents, rounds)
    for c in calls:
        for arm in (before, after):
            arm.run(c, max_tokens)
    answers = zip(calls, before.answers, after.answers, strict=True)
    texts = [(a, b) for c, a, b in answers if not c.options]
    same = sum(a == b for a, b in texts)
    stats = on.prompt_cache_stats
    detail: dict[str, Any] = {
        "calls": len(calls),
        "answers_as_plain": f"{same}/{len(texts)}",
        "reused_share": stats.reused_tokens / max(1, stats.prompt_tokens),
        "stats": stats.__dict__,
        "states": len(on._states),  # noqa: SLF001 - reported, not used
        "state_bytes": on._states.size_bytes,  # noqa: SLF001
        "arms": {a.name: (sum(a.first_token), sum(a.total)) for a in (before, after)},
    }
    b_first, a_first = sum(before.first_token), sum(after.first_token)
    b_total, a_total = sum(before.total), sum(after.total)
    label = f"{agents} agents x {rounds} h, {len(calls)} calls"
    rows = [
        Row(
            "prompt prefixes",
            f"prompt evaluation (time to first token), {label}",
            f"{a_first:.1f} s",
            f"{b_first:.1f} s plain llama-cpp-python",
            f"{b_first / a_first:.2f}x faster",
        ),
        Row(
            "prompt prefixes",
            f"whole calls (max_tokens={max_tokens}), {label}",
            f"{a_total:.1f} s",
            f"{b_total:.1f} s plain llama-cpp-python",
            f"{b_total / a_total:.2f}x faster",
        ),
        Row(
            "prompt prefixes",
            "prompt tokens not evaluated again; answers as plain llama-cpp-python",
            f"{100 * detail['reused_share']:.0f}%; {detail['answers_as_plain']} identical",
            "",
            "",
        ),
    ]
    return rows, detail


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--threads", type=int, default=0, help="chat model CPU threads (0: all)")
    args = parser.parse_args(argv)
    from bench.common import render

    rows, detail = measure(args.agents, args.rounds, args.max_tokens, args.threads)
    print(render(rows))
    print(json.dumps(detail, indent=1))


if __name__ == "__main__":
    main()
