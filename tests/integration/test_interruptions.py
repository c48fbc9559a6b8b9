"""A player's line interrupting a running job of the real chat model: both answers are
those each call gives alone (greedy and sampled, in prompt evaluation or generation),
and through the scheduler the player's first token comes before the job ends."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest

from npc_brain.config import Settings
from npc_brain.llm.base import Completion, Message
from npc_brain.llm.llama import LlamaChat
from npc_brain.llm.scheduler import Priority, Scheduler
from npc_brain.mind.plan.prompts import day_plan_schema
from npc_brain.persona import Persona

pytestmark = pytest.mark.integration
PERSONA = Persona(
    "Isabella Rodriguez",
    34,
    "friendly, outgoing",
    "owns Hobbs Cafe",
    "planning a Valentine's Day party",
    "wakes up at 6 am, opens the cafe at 8 am",
)
# A long background job: a day plan under its grammar (greedy, as structured calls are).
PLAN = [
    Message("system", PERSONA.describe() + "\nAnswer with JSON."),
    Message("user", "Plan Isabella's day in broad strokes, hour by hour, in detail."),
]
# A player's line: a sampled reply, as Converse draws it.
REPLY = [
    Message("system", PERSONA.describe()),
    Message("user", "Klaus says: Good morning! What are you up to today?"),
]


@pytest.fixture(scope="module")
def chat() -> LlamaChat:
    path = Settings().chat_model_path()
    if not path.is_file():
        pytest.skip(f"{path} is missing; run `npc-brain models fetch` first")
    return LlamaChat(path, seed=7)


def plan(chat: LlamaChat) -> Completion:
    return chat.complete(PLAN, max_tokens=160, schema=day_plan_schema())


def reply(chat: LlamaChat, on_token: Callable[[str], None] | None = None) -> Completion:
    return chat.complete(REPLY, max_tokens=40, temperature=0.7, seed=3, on_token=on_token)


class InterruptAt:
    """Interrupts (the scheduler's part) that let `work` in at the n-th chance."""

    def __init__(self, n: int, work: Callable[[], None]) -> None:
        self.chances, self._n, self._work = 0, n, work

    def pending(self) -> bool:
        self.chances += 1
        return self.chances == self._n

    def serve(self) -> None:
        self._work()


@pytest.mark.parametrize("chance", [1, 3, 40])
def test_an_interrupted_call_and_the_call_that_interrupts_it_answer_as_alone(
    chat: LlamaChat, chance: int
) -> None:
    alone_plan, alone_reply = plan(chat), reply(chat)
    inside: list[Completion] = []
    chat.interrupts = InterruptAt(chance, lambda: inside.append(reply(chat)))
    before = chat.interruptions
    try:
        interrupted = plan(chat)
    finally:
        chat.interrupts = None
    assert chat.interruptions == before + 1
    assert interrupted.text == alone_plan.text
    assert [c.text for c in inside] == [alone_reply.text]
    assert plan(chat).text == alone_plan.text  # and the context is sound afterwards


def test_a_player_reply_through_the_scheduler_starts_before_the_running_job_ends(
    chat: LlamaChat,
) -> None:
    scheduler = Scheduler("test")
    chat.interrupts = scheduler
    started = threading.Event()
    first_token: list[float] = []

    def background() -> float:
        chat.complete(
            [Message("user", "Count from 1 to 100, separated by commas.")],
            max_tokens=200,
            on_token=lambda _: started.set(),
        )
        return time.monotonic()

    def player() -> Completion:
        return reply(chat, on_token=lambda _: first_token.append(time.monotonic()))

    async def main() -> tuple[float, Completion]:
        job = asyncio.ensure_future(scheduler.submit(Priority.REFLECTION, background))
        await asyncio.to_thread(started.wait, 60)
        answer = await scheduler.submit(Priority.PLAYER_DIALOGUE, player)
        return await job, answer

    try:
        ended, answer = asyncio.run(main())
    finally:
        chat.interrupts = None
        scheduler.close()
    assert answer.text == reply(chat).text
    assert first_token and first_token[0] < ended
