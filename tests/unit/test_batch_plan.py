"""The continuous-batching engine's step plan (llm/batching.py): which tokens of which
calls each decode holds, with plain Python calls (no model)."""

from __future__ import annotations

from npc_brain.llm.batch_plan import Call, Slot, plan_step
from npc_brain.llm.llama import PROMPT_CHUNK_TOKENS


def call(
    seq: int, prompt: int, *, read: int = 0, urgent: bool = False, ends: tuple[int, ...] = ()
) -> Call:
    c = Call(Slot(seq, list(range(read))), list(range(prompt)), None, 10, urgent, ends)
    if not c.reading:
        c.next_token = c.prompt[-1]
    return c


def shape(decodes: list[list[tuple[Call, list[int]]]]) -> list[list[tuple[int, int]]]:
    return [[(c.slot.seq_id, len(tokens)) for c, tokens in decode] for decode in decodes]


def test_calls_that_generate_share_a_decode_and_a_prompt_is_read_alone() -> None:
    calls = [call(0, 50, read=49), call(1, 50, read=49), call(2, 300), call(3, 300)]
    # one token for each generating call together, then the first reader's chunk alone
    assert shape(plan_step(calls)) == [[(0, 1), (1, 1)], [(2, PROMPT_CHUNK_TOKENS)]]


def test_a_chunk_stops_at_a_boundary_and_before_the_last_token() -> None:
    assert shape(plan_step([call(0, 300, read=10, ends=(40, 200))])) == [[(0, 30)]]
    assert shape(plan_step([call(0, 100, read=64)])) == [[(0, 35)]]  # the last one alone
    assert shape(plan_step([call(0, 100, read=99)])) == [[(0, 1)]]


def test_an_urgent_prompt_is_read_before_anything_else() -> None:
    town = [call(0, 50, read=49), call(1, 300)]
    player = call(2, 300, urgent=True)
    assert shape(plan_step([*town, player])) == [[(2, PROMPT_CHUNK_TOKENS)]]


def test_while_an_urgent_call_generates_the_town_only_generates_beside_it() -> None:
    town = [call(0, 50, read=49), call(1, 300)]
    player = call(2, 40, read=39, urgent=True)
    assert shape(plan_step([*town, player])) == [[(0, 1), (2, 1)]]
