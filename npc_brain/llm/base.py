"""The two one-verb protocols every model backend implements."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

TokenSink = Callable[[str], None]


@dataclass(frozen=True)
class Message:
    """One chat message; the backend renders it with the model's own chat template.

    `lasting`, read on a prompt's first message: how many of its leading paragraphs
    (blank-line separated) the next calls will repeat; a backend that keeps evaluated
    prefixes (llm/prompt_cache.py) keeps them the first time they are read instead of
    the second. 1: the persona, which every call of an agent repeats; a conversation
    turn's also holds its instructions and the memories the conversation started with."""

    role: Literal["system", "user", "assistant"]
    content: str
    lasting: int = 1


@dataclass(frozen=True)
class Completion:
    """A finished completion and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool = False  # stopped by max_tokens rather than by the model
    cached_tokens: int = 0  # of prompt_tokens, those not evaluated again (a kept prefix)


class ChatModel(Protocol):
    """A chat model. `schema` (a JSON schema) constrains the output by grammar.

    Implementations serve one call at a time; callers run them off the event loop.
    `on_token`, when given, receives each piece of text as it is generated.
    """

    model_id: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        schema: Mapping[str, Any] | None = None,
        seed: int | None = None,
        temperature: float = 0.0,
        on_token: TokenSink | None = None,
    ) -> Completion: ...


class Interrupts(Protocol):
    """More urgent work that may run in the middle of a model call (the scheduler)."""

    def pending(self) -> bool:
        """Whether such work waits (asked between two tokens: cheap)."""
        ...

    def serve(self) -> None:
        """Runs it now, on the calling thread."""
        ...


@runtime_checkable
class Interruptible(Protocol):
    """A chat model that can set a call aside between two tokens, let `interrupts` run
    (more calls of its own among them), and resume the call exactly where it was."""

    interrupts: Interrupts | None


@runtime_checkable
class Batching(Protocol):
    """A chat model that runs several calls at once, decoded together: `is_urgent`, when
    set, tells it whether the calling thread's call is a player's (read first)."""

    slots: int
    is_urgent: Callable[[], bool] | None


@runtime_checkable
class OptionScorer(Protocol):
    """A chat model that can say how likely each of a few complete answers is.

    After the rendered `messages` and `answer_prefix`, returns the probability of each
    option under a grammar admitting exactly those options (they sum to 1). No option
    may be a prefix of another: end each with a terminator such as '}'.
    """

    def option_probabilities(
        self, messages: Sequence[Message], *, answer_prefix: str, options: Sequence[str]
    ) -> tuple[list[float], Completion]: ...


class Embedder(Protocol):
    """A sentence embedder returning L2-normalised float32 rows, one per text."""

    model_id: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


def normalise_rows(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    """Scales each row to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
