"""Continuous batching on the real chat model: calls decoded together answer exactly as
each alone (greedy, sampled, under a grammar, option scores), prefixes are reused, and
through the scheduler a player's line gets its first token while the town's calls run."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from npc_brain.config import Settings
from npc_brain.llm.base import Completion, Message
from npc_brain.llm.batching import BatchedLlamaChat
from npc_brain.llm.llama import LlamaChat
from npc_brain.llm.scheduler import Priority, Scheduler
from npc_brain.mind.plan.prompts import day_plan_schema
from npc_brain.persona import Persona

pytestmark = pytest.mark.integration
NAMES = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez", "Sam Moore"]
PLACES = {"enum": ["Hobbs Cafe", "Johnson Park", "Oak Hill College"]}


def persona(name: str) -> Persona:
    return Persona(name, 30, "friendly", "lives in the Ville", "busy", "wakes at 7 am")


def messages(name: str, question: str) -> list[Message]:
    return [
        Message("system", persona(name).describe() + "\n\nAnswer in one or two sentences."),
        Message("user", question),
    ]


# (messages, max_tokens, schema, temperature): replies, plans and choices of four agents
CALLS = [
    *[(messages(n, "What are you doing this morning?"), 24, None, 0.0) for n in NAMES],
    (messages(NAMES[0], "Plan your day."), 40, day_plan_schema(), 0.0),
    *[
        (
            messages(n, "Where do you go next?"),
            12,
            {"type": "object", "properties": {"place": PLACES}, "required": ["place"]},
            0.0,
        )
        for n in NAMES
    ],
    *[(messages(n, "Tell me a story."), 24, None, 0.8) for n in NAMES[1:3]],
]


@pytest.fixture(scope="module")
def path() -> Iterator[object]:
    path = Settings().chat_model_path()
    if not path.is_file():
        pytest.skip(f"{path} is missing; run `npc-brain models fetch` first")
    yield path


@pytest.fixture(scope="module")
def batched(path: object) -> Iterator[BatchedLlamaChat]:
    chat = BatchedLlamaChat(path, slots=4, seed=7)  # type: ignore[arg-type]
    yield chat
    chat.close()


def call(chat: LlamaChat | BatchedLlamaChat, i: int) -> Completion:
    msgs, max_tokens, schema, temperature = CALLS[i]
    return chat.complete(
        msgs, max_tokens=max_tokens, schema=schema, temperature=temperature, seed=i
    )


def test_calls_decoded_together_answer_as_each_alone(
    path: object, batched: BatchedLlamaChat
) -> None:
    alone = LlamaChat(path, seed=7, prompt_cache_bytes=0)  # type: ignore[arg-type]
    expected = [call(alone, i).text for i in range(len(CALLS))]
    answers: dict[int, str] = {}

    def run(i: int) -> None:
        answers[i] = call(batched, i).text

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(CALLS))]
    steps = batched.steps
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert [answers[i] for i in range(len(CALLS))] == expected
    tokens = sum(len(alone._tokenize(t, False)) for t in expected)  # noqa: SLF001
    assert batched.steps - steps < tokens  # steps were shared: they were decoded together


def test_option_scores_match_a_lone_model(path: object, batched: BatchedLlamaChat) -> None:
    alone = LlamaChat(path, seed=7, prompt_cache_bytes=0)  # type: ignore[arg-type]
    msgs = messages("Isabella Rodriguez", "Where do you go next?")
    options = ['Hobbs Cafe"}', 'Johnson Park"}', 'Oak Hill College"}']
    expected, _ = alone.option_probabilities(msgs, answer_prefix='{"place": "', options=options)
    scores, _ = batched.option_probabilities(msgs, answer_prefix='{"place": "', options=options)
    assert scores == expected


def test_a_repeated_prefix_is_not_read_again(batched: BatchedLlamaChat) -> None:
    stats = batched.prompt_cache_stats
    before = stats.reused_tokens
    answers = [
        batched.complete(messages("Sam Moore", question), max_tokens=4)
        for question in ["Where do you live?", "What is your job?", "Who are your friends?"]
    ]
    assert stats.reused_tokens - before > 2 * len(persona("Sam Moore").describe()) // 8
    assert sum(a.cached_tokens for a in answers) == stats.reused_tokens - before  # each says


def test_a_players_first_token_comes_while_the_towns_calls_run(
    batched: BatchedLlamaChat,
) -> None:
    scheduler = Scheduler("test", workers=3, urgent_workers=1)
    batched.is_urgent = scheduler.urgent
    started = threading.Event()
    first_token: list[float] = []

    def background() -> float:
        batched.complete(
            [Message("user", "Count from 1 to 200, separated by commas.")],
            max_tokens=300,
            on_token=lambda _: started.set(),
        )
        return time.monotonic()

    def player() -> Completion:
        return batched.complete(
            messages("Isabella Rodriguez", "Klaus says: Good morning!"),
            max_tokens=30,
            on_token=lambda _: first_token.append(time.monotonic()),
        )

    async def main() -> list[float]:
        jobs = [
            asyncio.ensure_future(scheduler.submit(Priority.REFLECTION, background))
            for _ in range(3)
        ]
        await asyncio.to_thread(started.wait, 60)
        await scheduler.submit(Priority.PLAYER_DIALOGUE, player)
        return list(await asyncio.gather(*jobs))

    try:
        ended = asyncio.run(main())
    finally:
        batched.is_urgent = None
        scheduler.close()
    assert first_token and first_token[0] < min(ended)
