"""llama.cpp backends (llama-cpp-python): the chat model and the embedder.

Each instance owns one llama.cpp context and serves one call at a time (a lock
guards it), so several RPCs arriving at once queue rather than corrupt its state. A
call may be interrupted between two tokens (or two prompt chunks) by more urgent ones
(a player's line): its context is set aside (state bytes, tokens, sampler), they run,
and it resumes exactly where it was, with the answer it would have given anyway.
The chat template is the one stored in the GGUF; JSON schemas become grammars.
Prompt prefixes that repeat (persona, instructions) are restored from saved states
rather than evaluated again (prompt_cache.py); the embedder embeds a list in batches.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import llama_cpp
import numpy as np
from llama_cpp import Llama, _internals, llama_chat_format
from llama_cpp.llama_grammar import LlamaGrammar
from numpy.typing import NDArray

from npc_brain.errors import FailedPrecondition
from npc_brain.llm.base import Completion, Interrupts, Message, TokenSink, normalise_rows
from npc_brain.llm.free_cores import FreeCores
from npc_brain.llm.markup import Defuser
from npc_brain.llm.prompt_cache import (
    PromptCacheStats,
    PromptStates,
    SavedState,
    lasting_ends,
    prompt_boundaries,
)
from npc_brain.llm.sampling import GrammarCheckedSampler

# Used when a GGUF carries no chat template of its own.
CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
EMBED_PACK_TOKENS = 64  # texts embedded in one llama.cpp batch, by their token count
# Prompt tokens evaluated between two chances for a player's line to interrupt: about
# 0.3 s of prompt evaluation here, in batches still large enough to run at full speed.
PROMPT_CHUNK_TOKENS = 64
PROMPT_CACHE_BYTES = 256 * 1024 * 1024  # ~100 persona prefixes of SmolLM2-135M


def _require_file(path: Path, what: str) -> None:
    if not path.is_file():
        raise FailedPrecondition(
            f"the {what} model {path} does not exist; run `npc-brain models fetch` "
            f"or point the setting at a GGUF file"
        )


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> LlamaGrammar:
    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


class _Llama(Llama):
    """llama-cpp-python's Llama, sampling under a grammar the way llama.cpp itself does
    (see npc_brain.llm.sampling): the same tokens, without masking the whole vocabulary
    at every step."""

    def _init_sampler(self, *args: Any, grammar: LlamaGrammar | None = None, **kwargs: Any) -> Any:
        chain = super()._init_sampler(*args, **kwargs)
        if grammar is None:
            return chain
        return GrammarCheckedSampler(chain, self._model.vocab, grammar, self._n_vocab)


_LOADING = threading.Lock()
L = TypeVar("L", bound=Llama)


def load_llama(cls: type[L], *args: Any, **kwargs: Any) -> L:
    """A Llama whose weights stay in plain CPU buffers (llama.cpp's `--no-repack`).

    llama.cpp's CPU backend may move weights into "extra" buffer types that repack them
    for a processor feature; on CPUs with Intel AMX, Q4_1 and F16 weights go to the AMX
    buffer, whose matrix multiplication crashed (SIGSEGV in ggml_backend_amx_mul_mat):
    the server as soon as the chat model and the embedder computed at once, and a plain
    Llama's generation on its own. Every Llama of the project (tests and benchmarks
    included) is made here."""
    with _LOADING, plain_buffers():
        return cls(*args, **kwargs)


@contextmanager
def plain_buffers() -> Iterator[None]:
    """While it lasts, models load without extra buffer types: llama-cpp-python has no
    argument for it, so the default model parameters it starts from come with
    `use_extra_bufts` off."""
    module = llama_cpp.llama_cpp
    default = module.llama_model_default_params

    def plain() -> Any:
        params = default()
        params.use_extra_bufts = False
        return params

    module.llama_model_default_params = plain
    try:
        yield
    finally:
        module.llama_model_default_params = default


def _threads(threads: int) -> int:
    return threads if threads > 0 else max(1, os.cpu_count() or 1)


class LlamaChat:
    """A chat model served by llama.cpp from a GGUF file."""

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = 2048,
        threads: int = 0,
        seed: int = 0,
        prompt_cache_bytes: int = PROMPT_CACHE_BYTES,
    ) -> None:
        _require_file(path, "chat")
        self.model_id = path.name
        self._seed = seed
        self._lock = threading.RLock()  # re-entered by the calls that interrupt a call
        self.interrupts: Interrupts | None = None
        self.interruptions = 0  # calls set aside for more urgent ones
        self._states = PromptStates(prompt_cache_bytes)
        self._free_cores = FreeCores() if threads <= 0 else None  # threads 0: the cores left
        self._live_ends: tuple[int, ...] = ()  # the splits the live context was evaluated with
        self.prompt_cache_stats = PromptCacheStats()
        self._llama = load_llama(
            _Llama,
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=_threads(threads),
            seed=seed,
            verbose=False,
        )
        model = self._llama._model  # noqa: SLF001 - the vocabulary is only exposed here
        self._template = _chat_template(model)
        self._defuse = Defuser(_special_texts(model))  # data never becomes a role tag

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
        grammar = _grammar(json.dumps(schema)) if schema is not None else None
        dicts = [_as_dict(m, self._defuse) for m in messages]
        with self._lock:
            self._fit_threads()
            llama: Any = self._llama  # its TypedDicts do not fit streamed chunks
            template: Any = self._template
            rendered = template(messages=dicts)
            add_bos = not rendered.added_special
            tokens = self._tokenize(rendered.prompt, add_bos)
            cached = self._resume(tokens, rendered.prompt, dicts, add_bos, _lasting(messages))
            chunks = llama.create_chat_completion(
                messages=dicts,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=self._seed if seed is None else seed,
                grammar=grammar,
                stream=True,
            )
            pieces: list[str] = []
            finish_reason = None
            for chunk in chunks:
                choice = chunk["choices"][0]
                piece = choice["delta"].get("content") or ""
                if piece:
                    pieces.append(piece)
                    if on_token is not None:
                        on_token(piece)
                finish_reason = choice.get("finish_reason") or finish_reason
                self._let_urgent_calls_in()
            completion_tokens = len(pieces)
            prompt_tokens = max(0, self._llama.n_tokens - completion_tokens)
            if self._llama.input_ids[: len(tokens)].tolist() != tokens:
                self._live_ends = ()  # the handler tokenized otherwise: trust no split
        return Completion(
            "".join(pieces),
            prompt_tokens,
            completion_tokens,
            truncated=finish_reason == "length",
            cached_tokens=cached,
        )

    def option_probabilities(
        self, messages: Sequence[Message], *, answer_prefix: str, options: Sequence[str]
    ) -> tuple[list[float], Completion]:
        """Probabilities of complete options, read from the model's own distribution.

        Walks the token trie of the options, evaluating only where options branch, and
        renormalises over the branches (exactly what a grammar of these options allows).
        Prompt prefixes shared with the previous call are not evaluated again.
        """
        encoded = [self._llama.tokenize(o.encode(), add_bos=False) for o in options]
        _check_no_prefixes(options, encoded)
        dicts = [_as_dict(m, self._defuse) for m in messages]
        with self._lock:
            self._fit_threads()
            template: Any = self._template
            rendered = template(messages=dicts).prompt + answer_prefix
            prompt = self._tokenize(rendered, True)
            cached = self._resume(prompt, rendered, dicts, True, _lasting(messages))
            probabilities, evaluations = trie_probabilities(encoded, prompt, self._logits_after)
        return probabilities, Completion(
            f"{probabilities}", len(prompt), evaluations, cached_tokens=cached
        )

    def _fit_threads(self) -> None:
        """With `threads` 0, uses the cores other processes leave free (free_cores.py)."""
        if self._free_cores is not None:
            self._free_cores.fit(self._llama._ctx.ctx)  # noqa: SLF001

    def _tokenize(self, text: str, add_bos: bool) -> list[int]:
        tokens: list[int] = self._llama.tokenize(text.encode(), add_bos=add_bos, special=True)
        return tokens

    def _resume(
        self,
        tokens: list[int],
        prompt: str,
        dicts: Sequence[Mapping[str, str]],
        add_bos: bool,
        lasting: int,
    ) -> int:
        """Leaves the context holding the prompt but its last token, evaluated split at its
        boundaries: from the live context or a saved state where they fit, evaluating
        only the rest (saving a state at the deepest boundary read before, and at the
        ends of the persona and of the prompt's lasting part: prompt_cache.lasting_ends),
        in chunks of PROMPT_CHUNK_TOKENS between which a player's line may interrupt.
        Generation then evaluates the last token and samples. Returns the tokens not
        evaluated again."""
        llama: Any = self._llama
        if len(tokens) >= llama.n_ctx():
            return 0  # too long: llama-cpp-python refuses it with its own error
        ends = prompt_boundaries(
            prompt, [d["content"] for d in dicts], tokens, lambda t: self._tokenize(t, add_bos)
        )
        live = Llama.longest_token_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
        start = 0
        for i, end in enumerate(ends):
            if end <= live and self._live_ends[: i + 1] == tuple(ends[: i + 1]):
                start = end
        saved = self._states.deepest(tokens, ends)
        if saved is not None and len(saved.tokens) > start and self._restore(saved):
            start = len(saved.tokens)
        if start == 0:
            llama.reset()
        llama.n_tokens = start
        self._live_ends = tuple(ends)
        stats = self.prompt_cache_stats
        stats.prompt_tokens += len(tokens)
        stats.reused_tokens += start
        todo = [end for end in ends if end > start]
        firsts = lasting_ends(ends, lasting)
        worth = [e for e in todo if self._states.worth_saving(tuple(tokens[:e]), e in firsts)]
        keep = {e for e in worth if e in firsts} | set(worth[-1:])  # and the deepest repeated
        for end in [*todo, len(tokens) - 1]:
            while llama.n_tokens < end:
                llama.eval(tokens[llama.n_tokens : min(end, llama.n_tokens + PROMPT_CHUNK_TOKENS)])
                self._let_urgent_calls_in()
            if end in keep:
                self._save(tuple(tokens[:end]), tuple(ends[: ends.index(end) + 1]))
        return start

    def _let_urgent_calls_in(self) -> None:
        """Runs the more urgent calls that wait (a player's line), now, with this call's
        context set aside and put back afterwards."""
        if self.interrupts is None or not self.interrupts.pending():
            return
        self.interruptions += 1
        llama: Any = self._llama
        state = self._state_bytes()
        tokens, ids = llama.n_tokens, llama.input_ids.copy()
        fields = [llama._sampler, llama._mirostat_mu, llama._requires_eval, llama._seed]
        live_ends = self._live_ends
        try:
            self.interrupts.serve()
        finally:
            if not self._set_state(state):
                raise RuntimeError("llama.cpp could not restore an interrupted call's state")
            llama.n_tokens, llama.input_ids[:] = tokens, ids
            llama._sampler, llama._mirostat_mu, llama._requires_eval, llama._seed = fields
            self._live_ends = live_ends

    def _save(self, tokens: tuple[int, ...], ends: tuple[int, ...]) -> None:
        self._states.put(SavedState(tokens, ends, self._state_bytes()))
        self.prompt_cache_stats.saves += 1

    def _restore(self, saved: SavedState) -> bool:
        llama: Any = self._llama
        if not self._set_state(saved.data):
            llama.reset()  # the live context is gone; evaluate from the start
            self._live_ends = ()
            return False
        llama.input_ids[: len(saved.tokens)] = saved.tokens
        llama.n_tokens = len(saved.tokens)
        llama._requires_eval = True
        self.prompt_cache_stats.restores += 1
        return True

    def _state_bytes(self) -> bytes:
        """The context's llama.cpp state (KV cells, logits) as bytes."""
        ctx = self._llama._ctx.ctx  # noqa: SLF001 - the state calls need the raw context
        size = llama_cpp.llama_state_get_size(ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(ctx, buffer, size)
        return ctypes.string_at(buffer, written)

    def _set_state(self, data: bytes) -> bool:
        """Puts a state from _state_bytes back; False if llama.cpp refused it."""
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        ctx = self._llama._ctx.ctx  # noqa: SLF001
        return bool(llama_cpp.llama_state_set_data(ctx, buffer, len(data)) == len(data))

    def _logits_after(self, tokens: list[int]) -> NDArray[np.float32]:
        """Next-token logits after `tokens`, reusing the cached common prefix."""
        llama: Any = self._llama
        cached = llama.input_ids[: llama.n_tokens].tolist()
        llama.n_tokens = min(Llama.longest_token_prefix(cached, tokens), len(tokens) - 1)
        llama.eval(tokens[llama.n_tokens :])
        row = llama._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(row, shape=(llama.n_vocab(),)).copy()


def _lasting(messages: Sequence[Message]) -> int:
    """How many leading paragraphs the prompt's first message says are lasting."""
    return messages[0].lasting if messages else 1


def _as_dict(message: Message, defuse: Defuser) -> dict[str, str]:
    return {"role": message.role, "content": defuse(message.content)}


def _special_texts(model: _internals.LlamaModel) -> list[str]:
    """The texts the tokenizer turns into control tokens (e.g. "<|im_start|>")."""
    markup = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    texts = []
    for token in range(model.n_vocab()):
        if llama_cpp.llama_vocab_get_attr(model.vocab, token) & markup:
            text = model.token_get_text(token)
            if text.strip() and not text[0].isalnum():  # user-defined words stay words
                texts.append(text)
    return texts


def _chat_template(model: _internals.LlamaModel) -> llama_chat_format.Jinja2ChatFormatter:
    """The chat template stored in the GGUF, as llama-cpp-python itself renders it."""
    eos, bos = model.token_eos(), model.token_bos()
    return llama_chat_format.Jinja2ChatFormatter(
        template=model.metadata().get("tokenizer.chat_template", CHATML_TEMPLATE),
        eos_token=model.token_get_text(eos) if eos != -1 else "",
        bos_token=model.token_get_text(bos) if bos != -1 else "",
        stop_token_ids=[eos],
    )


def trie_probabilities(
    encoded: Sequence[list[int]],
    prompt: list[int],
    logits_after: Callable[[list[int]], NDArray[np.float32]],
) -> tuple[list[float], int]:
    """Each option's probability after `prompt` (options as token lists, none a prefix of
    another) and the evaluations it took: walks the options' token trie, asking
    `logits_after` only where options branch, and renormalises over the branches
    (exactly what a grammar of these options allows)."""
    probabilities = [1.0] * len(encoded)
    evaluations = 0

    def walk(prefix: list[int], members: list[int], depth: int) -> None:
        nonlocal evaluations
        branches: dict[int, list[int]] = {}
        for i in members:
            if depth < len(encoded[i]):
                branches.setdefault(encoded[i][depth], []).append(i)
        if len(branches) > 1:
            evaluations += 1
            logits = logits_after(prefix)[list(branches)]
            shares = np.exp(logits - logits.max())
            shares /= shares.sum()
            for branch, share in zip(branches.values(), shares, strict=True):
                for i in branch:
                    probabilities[i] *= float(share)
        for token, branch in branches.items():
            walk([*prefix, token], branch, depth + 1)

    walk(prompt, list(range(len(encoded))), 0)
    return probabilities, evaluations


def _check_no_prefixes(options: Sequence[str], encoded: Sequence[list[int]]) -> None:
    for i, a in enumerate(encoded):
        for j, b in enumerate(encoded):
            if i != j and b[: len(a)] == a:
                raise ValueError(f"option {options[i]!r} is a prefix of {options[j]!r}")


class LlamaEmbedder:
    """A sentence embedder served by llama.cpp (pooling as the GGUF says)."""

    def __init__(self, path: Path, *, threads: int = 0) -> None:
        _require_file(path, "embedding")
        self.model_id = path.name
        self._lock = threading.Lock()
        self._llama = load_llama(
            Llama,
            model_path=str(path),
            embedding=True,
            n_ctx=512,
            n_threads=_threads(threads),
            verbose=False,
        )
        self.dimension = int(self._llama.n_embd())

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows: list[Any] = []
        with self._lock:
            for group in self._packs(texts):
                rows += self._llama.embed(group, truncate=True)
        return normalise_rows(np.asarray(rows, dtype=np.float32))

    def _packs(self, texts: Sequence[str]) -> list[list[str]]:
        """The texts in order, in groups of about EMBED_PACK_TOKENS: llama.cpp decodes a
        group as one batch, and attention across a packed batch grows with its square,
        so 50 short texts in one batch took twice as long as one by one (a long text
        goes alone)."""
        packs: list[list[str]] = []
        size = EMBED_PACK_TOKENS
        for text in texts:
            tokens = len(self._llama.tokenize(text.encode(), add_bos=True))
            if size + tokens > EMBED_PACK_TOKENS:
                packs.append([])
                size = 0
            packs[-1].append(text)
            size += tokens
        return packs
