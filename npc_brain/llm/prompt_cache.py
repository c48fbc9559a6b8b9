"""Saved llama.cpp context states for prompt prefixes that repeat (persona, instructions).

Every cognition prompt starts with the agent's persona, and calls for different agents
interleave, so the previous prompt rarely shares more than the chat template's header
with the next one. This keeps the state (KV cache) after a prompt's *boundaries*: the
ends of the first message's paragraphs and the start of the last message, the places
where what repeats stops. Only the llama.cpp state is kept (tens of KB per token for a
small model), not llama-cpp-python's full copy of the logits, which costs far more to
save than the prompt evaluation it spares for small models.

Determinism: a prompt is always evaluated segment by segment, split at its boundaries,
whether or not a state is reused, and a state is reused only where it was computed with
the same splits. So the numbers the model sees do not depend on what was cached before:
same seed and inputs, same answer.

A prefix is stored the second time it is evaluated (one-off prefixes never take room),
but the first time at the end of the persona (every call of the agent repeats it) and
of the paragraphs a prompt's first message says are lasting (`Message.lasting`: a
conversation turn's instructions and standing memories, which the speaker's next turn
repeats); states go least recently used first when `capacity_bytes` would be exceeded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

SIGHTINGS = 4096


@dataclass(frozen=True)
class SavedState:
    """A context state holding exactly `tokens`, computed with segments ending at `ends`."""

    tokens: tuple[int, ...]
    ends: tuple[int, ...]
    data: bytes


@dataclass
class PromptCacheStats:
    """What prompt evaluation cost and what reuse spared, since the model was loaded."""

    prompt_tokens: int = 0  # tokens of every prompt
    reused_tokens: int = 0  # of those, taken from the live context or a saved state
    restores: int = 0  # saved states loaded
    saves: int = 0  # states saved


class PromptStates:
    """Saved states by token prefix, least recently used out past `capacity_bytes`."""

    def __init__(self, capacity_bytes: int) -> None:
        if capacity_bytes < 0:
            raise ValueError(f"capacity_bytes must be >= 0, got {capacity_bytes}")
        self.capacity_bytes = capacity_bytes
        self.size_bytes = 0
        self._states: OrderedDict[tuple[int, ...], SavedState] = OrderedDict()
        self._seen: OrderedDict[tuple[int, ...], None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._states)

    def deepest(self, tokens: Sequence[int], boundaries: Sequence[int]) -> SavedState | None:
        """The saved state of the longest prefix of `tokens` ending at one of `boundaries`
        and computed with the same splits (`boundaries` ascending)."""
        if not self.capacity_bytes:
            return None
        for i in range(len(boundaries) - 1, -1, -1):
            state = self._states.get(tuple(tokens[: boundaries[i]]))
            if state is not None and state.ends == tuple(boundaries[: i + 1]):
                self._states.move_to_end(state.tokens)
                return state
        return None

    def worth_saving(self, prefix: tuple[int, ...], lasting: bool = False) -> bool:
        """Whether this prefix (not stored yet) was evaluated before, or is `lasting`,
        one the prompt says its next calls repeat (the persona: saved at once, it spares
        the second evaluation); notes it."""
        if not self.capacity_bytes or prefix in self._states:
            return False
        seen = prefix in self._seen
        self._seen[prefix] = None
        self._seen.move_to_end(prefix)
        while len(self._seen) > SIGHTINGS:
            self._seen.popitem(last=False)
        return seen or lasting

    def put(self, state: SavedState) -> None:
        if len(state.data) > self.capacity_bytes:
            return
        old = self._states.pop(state.tokens, None)
        if old is not None:
            self.size_bytes -= len(old.data)
        self._states[state.tokens] = state
        self.size_bytes += len(state.data)
        while self.size_bytes > self.capacity_bytes:
            _, evicted = self._states.popitem(last=False)
            self.size_bytes -= len(evicted.data)


def prompt_boundaries(
    prompt: str,
    contents: Sequence[str],
    tokens: Sequence[int],
    tokenize: Callable[[str], list[int]],
) -> list[int]:
    """Token positions where a rendered prompt's repeating parts end: after each blank line
    of the first message, at its end (a persona alone ends where another prompt's persona
    paragraph does), and before the last message's text (ascending, each leaving at least
    one token to evaluate). `contents`: the messages' texts as rendered; `tokens`:
    the whole prompt's; `tokenize` must tokenize a prefix of the prompt the same way."""
    starts: list[int] = []
    cursor = 0
    for content in contents:
        at = prompt.find(content, cursor) if content else -1
        starts.append(at)
        if at >= 0:
            cursor = at + len(content)
    offsets: list[int] = []
    if contents and starts[0] >= 0:
        at = contents[0].find("\n\n")
        while at >= 0:
            offsets.append(starts[0] + at + 2)
            at = contents[0].find("\n\n", at + 2)
        if len(contents) > 1:
            offsets.append(starts[0] + len(contents[0]))
    if len(contents) > 1 and starts[-1] > 0:
        offsets.append(starts[-1])
    # A token may straddle an offset: the boundary is then the last token before it.
    positions = {common_prefix(tokenize(prompt[:offset]), tokens) for offset in offsets}
    return sorted(p for p in positions if 0 < p < len(tokens))


def lasting_ends(ends: Sequence[int], lasting: int) -> frozenset[int]:
    """The boundaries saved the first time they are read: the first (the persona, which
    all the agent's calls repeat) and the deepest of the first `lasting` (where the part
    the agent's next calls of this kind repeat ends)."""
    if not ends or lasting <= 0:
        return frozenset()
    return frozenset((ends[0], ends[min(lasting, len(ends)) - 1]))


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens a and b share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
