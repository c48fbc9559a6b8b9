"""Continuous batching: one llama.cpp context decodes the calls of many agents together.

Each call is a sequence of its own (a llama.cpp seq_id, in a KV stream of its own) with
its own sampler and grammar. A decode thread runs rounds: one decode holding a token for
every call that generates, then the next prompt chunk of the first call still reading
its prompt. A call that arrives joins at the next round instead of waiting for the
others to end, and generating costs about one pass over the weights per decode whatever
the number of sequences: that is where batching pays on a CPU.

An urgent call (a player's line, see `is_urgent`) has its prompt read first, chunk after
chunk, while the others wait between two decodes with their KV cells kept; once it
generates, the others generate beside it, and no other prompt is read until it ends.

Prompt prefixes stay evaluated: a call takes the free slot whose sequence shares most
with its prompt, or starts from the longest prefix another sequence holds (its stream
copied), or from a saved sequence state (prompt_cache.py: prefixes ending at the
prompt's boundaries, saved the second time they are read, where its lasting part ends
the first time), whichever holds most.

Answers equal a lone LlamaChat's, to the bit: a prompt is read in the chunks LlamaChat
reads it in (64 tokens, stopping at its boundaries, the last token alone), each chunk
in a decode of its own (llama.cpp computes a batch of several sequences in other
pieces, which changes the numbers), prefixes are reused only where they were read with
the same splits, and each sequence's attention runs over its own stream
(tests/integration/test_batching.py).
"""

from __future__ import annotations

import ctypes
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import _internals
from llama_cpp._logger import set_verbose
from numpy.typing import NDArray

from npc_brain.llm.base import Completion, Message, TokenSink
from npc_brain.llm.batch_plan import Call, Slot, plan_step, resumable
from npc_brain.llm.free_cores import FreeCores
from npc_brain.llm.llama import (
    PROMPT_CACHE_BYTES,
    _as_dict,
    _chat_template,
    _check_no_prefixes,
    _grammar,
    _lasting,
    _require_file,
    _special_texts,
    _threads,
    trie_probabilities,
)
from npc_brain.llm.markup import Defuser
from npc_brain.llm.prompt_cache import (
    PromptCacheStats,
    PromptStates,
    SavedState,
    common_prefix,
    lasting_ends,
    prompt_boundaries,
)
from npc_brain.llm.sampling import GrammarCheckedSampler
from npc_brain.llm.scheduler import lower_priority

BATCH_TOKENS = 512  # the most tokens one decode step holds


class BatchedLlamaChat:
    """A chat model served by llama.cpp from a GGUF file, `slots` calls decoded at once.

    Answers like LlamaChat (the GGUF's chat template, JSON schemas as grammars, the same
    sampler chain); callers may call it from several threads at once, each call taking
    a free slot (or waiting for one)."""

    def __init__(
        self,
        path: Path,
        *,
        slots: int = 4,
        n_ctx: int = 2048,
        threads: int = 0,
        seed: int = 0,
        prompt_cache_bytes: int = PROMPT_CACHE_BYTES,
        nice: int = 0,
    ) -> None:
        _require_file(path, "chat")
        most = llama_cpp.llama_max_parallel_sequences()
        if not 1 <= slots <= most:
            raise ValueError(f"slots must be between 1 and {most}, not {slots}")
        self.model_id = path.name
        self.slots = slots
        self.is_urgent: Callable[[], bool] | None = None  # whether the calling job is a player's
        self.prompt_cache_stats = PromptCacheStats()
        self._seed = seed
        self._n_ctx = n_ctx
        set_verbose(False)  # as Llama(verbose=False): llama.cpp's log shows errors only
        params = llama_cpp.llama_model_default_params()
        params.use_extra_bufts = False  # plain CPU buffers: see llama.load_llama
        self._model = _internals.LlamaModel(path_model=str(path), params=params, verbose=False)
        self._vocab = self._model.vocab
        self._n_vocab = self._model.n_vocab()
        self._states = PromptStates(prompt_cache_bytes)
        self._free_cores = FreeCores() if threads <= 0 else None  # threads 0: the cores left
        context = llama_cpp.llama_context_default_params()
        context.n_ctx = slots * n_ctx
        context.n_batch = context.n_ubatch = BATCH_TOKENS
        context.n_seq_max = slots
        # Each sequence in a KV stream of its own, as if alone: attention then sums over
        # the same cells in the same order, and answers match a lone call's to the bit.
        context.kv_unified = False
        context.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED  # as Llama's
        context.n_threads = context.n_threads_batch = _threads(threads)
        self._ctx = _internals.LlamaContext(model=self._model, params=context, verbose=False)
        self._memory = self._ctx.memory
        self._batch = llama_cpp.llama_batch_init(BATCH_TOKENS, 0, 1)
        self._template = _chat_template(self._model)
        self._defuse = Defuser(_special_texts(self._model))
        self._free = [Slot(i) for i in range(slots)]
        self._all = list(self._free)
        self._calls: list[Call] = []  # the decode thread's
        self._arrivals: list[Call] = []
        self._lock = threading.Condition()
        self._closed = False
        self._nice = nice  # of the decode thread and llama.cpp's threads it starts
        self.steps = 0  # decode steps run
        self._thread = threading.Thread(target=self._decode_loop, name="llama-batch", daemon=True)
        self._thread.start()

    # The ChatModel and OptionScorer protocols ------------------------------------------

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
        template: Any = self._template
        rendered = template(messages=dicts)
        tokens = self._tokenize(rendered.prompt, not rendered.added_special)
        ends = self._ends(tokens, rendered.prompt, dicts, not rendered.added_special)
        keep = lasting_ends(ends, _lasting(messages))
        sampler = self._sampler(temperature, self._seed if seed is None else seed, grammar)
        pieces: list[str] = []
        with self._slot(tokens) as slot:
            call = self._start(slot, tokens, sampler, max_tokens, ends, keep=keep)
            while True:
                kind, value = call.events.get()
                if kind == "piece":
                    pieces.append(value)
                    if on_token is not None:
                        on_token(value)
                elif kind == "error":
                    raise value
                else:
                    text = "".join(pieces)
                    return Completion(text, len(tokens), call.generated, value, call.held)

    def option_probabilities(
        self, messages: Sequence[Message], *, answer_prefix: str, options: Sequence[str]
    ) -> tuple[list[float], Completion]:
        """As LlamaChat.option_probabilities: walks the options' token trie, reading only
        where they branch, on one slot (each branch extends the slot's tokens)."""
        encoded = [self._tokenize(o, False) for o in options]
        _check_no_prefixes(options, encoded)
        dicts = [_as_dict(m, self._defuse) for m in messages]
        template: Any = self._template
        rendered = template(messages=dicts).prompt + answer_prefix
        prompt = self._tokenize(rendered, True)
        ends = self._ends(prompt, rendered, dicts, True)
        keep = lasting_ends(ends, _lasting(messages))
        cached: list[int] = []  # what the prompt's own reading found held
        with self._slot(prompt) as slot:

            def logits_after(tokens: list[int]) -> NDArray[np.float32]:
                exact = tokens is not prompt
                call = self._start(slot, tokens, None, 0, ends, exact=exact, keep=keep)
                kind, value = call.events.get()
                if kind == "error":
                    raise value
                cached.extend([] if exact else [call.held])
                row: NDArray[np.float32] = value
                return row

            probabilities, evaluations = trie_probabilities(encoded, prompt, logits_after)
        return probabilities, Completion(
            f"{probabilities}", len(prompt), evaluations, cached_tokens=sum(cached[:1])
        )

    def close(self) -> None:
        """Fails the calls that run and stops the decode thread."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self._thread.join(timeout=60)
        if self._batch is not None:
            llama_cpp.llama_batch_free(self._batch)
            self._batch = None

    # The calling side ----------------------------------------------------------------

    def _tokenize(self, text: str, add_bos: bool) -> list[int]:
        tokens: list[int] = self._model.tokenize(text.encode(), add_bos, True)
        return tokens

    def _ends(
        self, tokens: list[int], prompt: str, dicts: Sequence[Mapping[str, str]], add_bos: bool
    ) -> tuple[int, ...]:
        contents = [d["content"] for d in dicts]
        return tuple(
            prompt_boundaries(prompt, contents, tokens, lambda t: self._tokenize(t, add_bos))
        )

    def _sampler(self, temperature: float, seed: int, grammar: Any) -> Any:
        """llama-cpp-python's sampler chain for create_chat_completion's defaults (see
        Llama._init_sampler), with the grammar consulted token by token (sampling.py)."""
        chain: Any = _internals.LlamaSampler()  # type: ignore[no-untyped-call]
        chain.add_penalties(self._n_vocab, 64, 1.0, 0.0, 0.0)
        if temperature == 0.0:
            chain.add_greedy()
        else:
            chain.add_top_k(40)
            chain.add_typical(1.0, 1)
            chain.add_top_p(0.95, 1)
            chain.add_min_p(0.05, 1)
            chain.add_temp(temperature)
            chain.add_dist(seed)
        if grammar is None:
            return chain
        return GrammarCheckedSampler(chain, self._vocab, grammar, self._n_vocab)

    class _Lease:
        def __init__(self, owner: BatchedLlamaChat, slot: Slot) -> None:
            self.owner, self.slot = owner, slot

        def __enter__(self) -> Slot:
            return self.slot

        def __exit__(self, *exc: object) -> None:
            with self.owner._lock:
                self.owner._free.append(self.slot)
                self.owner._lock.notify_all()

    def _slot(self, tokens: list[int]) -> BatchedLlamaChat._Lease:
        """A free slot, the one whose tokens share most with `tokens` (waits for one)."""
        if len(tokens) >= self._n_ctx:
            raise ValueError(
                f"Requested tokens ({len(tokens)}) exceed context window of {self._n_ctx}"
            )
        with self._lock:
            while not self._free and not self._closed:
                self._lock.wait()
            if self._closed:
                raise RuntimeError("the chat model is closed")
            best = max(self._free, key=lambda s: common_prefix(s.tokens, tokens))
            self._free.remove(best)
        return self._Lease(self, best)

    def _start(
        self,
        slot: Slot,
        tokens: list[int],
        sampler: Any | None,
        max_tokens: int,
        ends: tuple[int, ...],
        *,
        exact: bool = False,
        keep: frozenset[int] = frozenset(),
    ) -> Call:
        urgent = self.is_urgent is not None and self.is_urgent()
        call = Call(slot, tokens, sampler, max_tokens, urgent, ends, exact, keep)
        with self._lock:
            if self._closed:
                raise RuntimeError("the chat model is closed")
            self._arrivals.append(call)
            self._lock.notify_all()
        return call

    # The decode thread ---------------------------------------------------------------

    def _decode_loop(self) -> None:
        lower_priority(self._nice)
        while True:
            with self._lock:
                while not self._arrivals and not self._calls and not self._closed:
                    self._lock.wait()
                if self._closed:
                    for call in [*self._calls, *self._arrivals]:
                        call.events.put(("error", RuntimeError("the chat model is closed")))
                    return
                arrivals, self._arrivals = self._arrivals, []
            for call in arrivals:
                self._begin(call)
            try:
                self._step()
            except Exception as error:  # noqa: BLE001 - handed to every waiting caller
                for call in self._calls:
                    call.events.put(("error", error))
                    call.slot.tokens = []  # its cells are in doubt: read it all next time
                    llama_cpp.llama_memory_seq_rm(self._memory, call.slot.seq_id, -1, -1)
                self._calls = []

    def _begin(self, call: Call) -> None:
        """Points the call's slot at the longest prefix of its prompt that a sequence or a
        saved state holds, read with the same splits (so its numbers are the same),
        leaving at least the prompt's last token to read."""
        slot, prompt, memory, seq = call.slot, call.prompt, self._memory, call.slot.seq_id
        if call.exact:
            held = min(common_prefix(slot.tokens, prompt), len(prompt) - 1)
            llama_cpp.llama_memory_seq_rm(memory, seq, held, -1)
        else:
            held, source = max(
                ((resumable(other, prompt, call.ends), other) for other in self._all),
                key=lambda pair: (pair[0], pair[1] is slot),
            )
            saved = self._states.deepest(prompt, call.ends)
            if saved is not None and len(saved.tokens) > held and self._restore(slot, saved):
                held = len(saved.tokens)
            elif source is not slot:  # another stream: copied whole, then cut
                llama_cpp.llama_memory_seq_rm(memory, seq, -1, -1)
                llama_cpp.llama_memory_seq_cp(memory, source.seq_id, seq, -1, -1)
                llama_cpp.llama_memory_seq_rm(memory, seq, held, -1)
            else:
                llama_cpp.llama_memory_seq_rm(memory, seq, held, -1)
            slot.ends = call.ends
        slot.tokens = prompt[:held]
        call.held = held
        if not call.reading:
            call.next_token = prompt[-1]
        stats = self.prompt_cache_stats
        stats.prompt_tokens += len(prompt)
        stats.reused_tokens += held
        self._calls.append(call)

    def _restore(self, slot: Slot, saved: SavedState) -> bool:
        """Puts a saved prefix into the slot's sequence; False if llama.cpp refused it."""
        llama_cpp.llama_memory_seq_rm(self._memory, slot.seq_id, -1, -1)
        data = (ctypes.c_uint8 * len(saved.data)).from_buffer_copy(saved.data)
        size = llama_cpp.llama_state_seq_set_data(self._ctx.ctx, data, len(saved.data), slot.seq_id)
        if size != len(saved.data):
            slot.tokens = []
            return False
        self.prompt_cache_stats.restores += 1
        return True

    def _step(self) -> None:
        """One round: the decodes plan_step gives, each followed by what its calls sample."""
        if self._free_cores is not None:
            self._free_cores.fit(self._ctx.ctx)
        for decode in plan_step(self._calls):
            self._run(decode)

    def _run(self, decode: list[tuple[Call, list[int]]]) -> None:
        batch = self._batch
        n = 0
        outputs: list[tuple[Call, int]] = []
        for call, tokens in decode:
            start = len(call.slot.tokens)
            for i, token in enumerate(tokens):
                batch.token[n] = token
                batch.pos[n] = start + i
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = call.slot.seq_id
                batch.logits[n] = call.next_token is not None
                if batch.logits[n]:
                    outputs.append((call, n))
                n += 1
        batch.n_tokens = n
        self._decode(batch)
        self.steps += 1
        for call, tokens in decode:
            call.slot.tokens += tokens
            reading = call.next_token is None
            call.next_token = None
            if reading:
                self._save_prefix(call)
                if not call.reading:
                    call.next_token = call.prompt[-1]  # read alone, as a generated token
        for call, index in outputs:
            self._after(call, index)

    def _decode(self, batch: Any) -> None:
        result = llama_cpp.llama_decode(self._ctx.ctx, batch)
        if result != 0:
            raise RuntimeError(f"llama_decode failed ({result})")

    def _after(self, call: Call, index: int) -> None:
        """What a call does with its logits at batch `index`: hand them over (scoring), or
        sample a token, stream its text and end at an end-of-generation token."""
        if call.sampler is None:
            row = llama_cpp.llama_get_logits_ith(self._ctx.ctx, index)
            logits = np.ctypeslib.as_array(row, shape=(self._n_vocab,)).copy()
            self._calls.remove(call)
            call.events.put(("logits", logits))
            return
        token = call.sampler.sample(self._ctx, index)  # and accepts it
        if llama_cpp.llama_vocab_is_eog(self._vocab, token):
            self._finish(call, truncated=False)
            return
        call.generated += 1
        piece = call.decoder.decode(self._model.detokenize([token]))
        if piece:
            call.events.put(("piece", piece))
        full = len(call.slot.tokens) + 1 >= self._n_ctx
        if call.generated >= call.max_tokens or full:
            self._finish(call, truncated=True)
        else:
            call.next_token = token

    def _finish(self, call: Call, *, truncated: bool) -> None:
        rest = call.decoder.decode(b"", final=True)
        if rest:
            call.events.put(("piece", rest))
        self._calls.remove(call)
        call.events.put(("done", truncated))

    def _save_prefix(self, call: Call) -> None:
        """Saves the slot's sequence if it ends at a boundary read there before, or where
        the prompt's lasting part ends (PromptStates.worth_saving)."""
        read = len(call.slot.tokens)
        prefix = tuple(call.prompt[:read])
        if read not in call.ends or not self._states.worth_saving(prefix, read in call.keep):
            return
        ctx, seq = self._ctx.ctx, call.slot.seq_id
        size = llama_cpp.llama_state_seq_get_size(ctx, seq)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, seq)
        ends = tuple(e for e in call.ends if e <= read)
        self._states.put(SavedState(prefix, ends, ctypes.string_at(buffer, written)))
        self.prompt_cache_stats.saves += 1
