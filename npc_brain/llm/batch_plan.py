"""What each decode of the continuous-batching engine (batching.py) holds: the calls and
their slots, and the plan of one round, in plain Python (unit-tested without a model)."""

from __future__ import annotations

import codecs
import queue
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from npc_brain.llm.llama import PROMPT_CHUNK_TOKENS
from npc_brain.llm.prompt_cache import common_prefix


@dataclass
class Slot:
    """A llama.cpp sequence and the tokens its KV cells hold, in order."""

    seq_id: int
    tokens: list[int] = field(default_factory=list)
    ends: tuple[int, ...] = ()  # the boundaries its tokens were read with


@dataclass
class Call:
    """One call on one slot: read `prompt`, then return its last logits (sampler None)
    or generate up to max_tokens."""

    slot: Slot
    prompt: list[int]
    sampler: Any | None
    max_tokens: int
    urgent: bool
    ends: tuple[int, ...]  # the prompt's boundaries: where reading stops and may resume
    exact: bool = False  # resume from all the slot holds of the prompt (an option walk)
    # the boundaries saved the first time they are read (prompt_cache.lasting_ends)
    keep: frozenset[int] = frozenset()
    events: queue.SimpleQueue[tuple[str, Any]] = field(default_factory=queue.SimpleQueue)
    started: bool = False
    next_token: int | None = None  # sampled, to be evaluated at the next step
    generated: int = 0
    held: int = 0  # prompt tokens its slot held already (not read again)
    decoder: Any = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))

    @property
    def reading(self) -> bool:
        """Whether prompt tokens but the last are still to read (the last is read alone,
        like a generated token, as llama-cpp-python does: the same numbers)."""
        return len(self.slot.tokens) < len(self.prompt) - 1


def plan_step(calls: Sequence[Call]) -> list[list[tuple[Call, list[int]]]]:
    """One round of decodes, each a list of (call, tokens). While an urgent call reads its
    prompt, its next chunk alone. Else one decode of a token for every call that
    generates, then (unless an urgent call generates) the next chunk of the first call
    still reading. A chunk is what LlamaChat evaluates at once (up to
    PROMPT_CHUNK_TOKENS, stopping at the prompt's next boundary and before its last
    token) and is decoded without other calls' tokens: llama.cpp computes a batch of
    several sequences in other pieces, so a chunk's numbers, and the answer, would
    depend on its company. Tokens of calls that generate, one each, do not."""
    reading = [c for c in calls if c.reading]
    if urgent := [c for c in reading if c.urgent]:
        return [[(urgent[0], _chunk(urgent[0]))]]
    decodes = []
    if generating := [(c, [c.next_token]) for c in calls if c.next_token is not None]:
        decodes.append(generating)
    if reading and not any(c.urgent for c in calls):
        decodes.append([(reading[0], _chunk(reading[0]))])
    return decodes


def _chunk(call: Call) -> list[int]:
    start, prompt = len(call.slot.tokens), call.prompt
    stop = min([len(prompt) - 1, start + PROMPT_CHUNK_TOKENS, *(e for e in call.ends if e > start)])
    return prompt[start:stop]


def resumable(slot: Slot, prompt: Sequence[int], ends: tuple[int, ...]) -> int:
    """The longest prefix of `prompt` the slot holds that ends at one of its boundaries
    (0: none) and was read with the same ones before it."""
    common = common_prefix(slot.tokens, prompt)
    held = 0
    for i, end in enumerate(ends):
        if end <= common and slot.ends[: i + 1] == ends[: i + 1]:
            held = end
    return held
