"""Literal openings in a reply's pattern become grammars llama.cpp parses, for any text.

Each schema goes the way npc_brain sends it (llm/llama.py: `_grammar`, llama-cpp-python's
converter) and is parsed by llama.cpp itself, as llm/sampling.py does when it starts
sampling (`LlamaGrammar.from_string` only keeps the text: it never parses). The parser
needs no vocabulary for a grammar without tokens, so only the last test needs a model.
"""

from __future__ import annotations

import json
import re
from typing import Any

import llama_cpp
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

from npc_brain.config import DEFAULT_CHAT_MODEL, REPO_MODELS_DIR
from npc_brain.llm.base import Message
from npc_brain.llm.grammar_text import literal_pattern
from npc_brain.llm.llama import LlamaChat, _grammar
from npc_brain.mind.talk.prompts import reply_schema, turn_schema

pytestmark = pytest.mark.integration

MODEL = REPO_MODELS_DIR / DEFAULT_CHAT_MODEL
TEXTS = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_categories=["Cs"]),
    min_size=1,
    max_size=40,
)
EXAMPLES = [
    "I had breakfast.",
    "Have you heard any news lately?",
    "Hi! What are you up to today?",
    "Jean-Luc O'Neil",
    "C:\\path",
    "a.b*c+d(e)[f]{g}|h^i$j",
    "Zoë Ångström",
    'She said "hi" / \\ - : #&~',
    "Smile \U0001f600 \u2014 done\u2026",
]


def with_examples(test: Any) -> Any:
    for text in reversed(EXAMPLES):
        test = example(text)(test)
    return test


def llama_cpp_parses(gbnf: str) -> bool:
    """Whether llama.cpp's GBNF parser accepts the grammar (a grammar sampler starts)."""
    sampler = llama_cpp.llama_sampler_init_grammar(None, gbnf.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def parses(schema: dict[str, Any]) -> bool:
    grammar = _grammar(json.dumps(schema))
    assert isinstance(LlamaGrammar.from_string(grammar._grammar, verbose=False), LlamaGrammar)
    return llama_cpp_parses(grammar._grammar)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(TEXTS)
@with_examples
def test_a_reply_opening_always_makes_a_grammar_llama_cpp_parses(opening: str) -> None:
    assert parses(reply_schema(opening))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(TEXTS)
@with_examples
def test_a_greeted_name_always_makes_a_grammar_llama_cpp_parses(name: str) -> None:
    assert parses(turn_schema(may_end=False, greet=name))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(TEXTS)
@with_examples
def test_the_pattern_matches_exactly_the_text(text: str) -> None:
    pattern = literal_pattern(text)
    assert re.fullmatch(pattern, text)
    assert not re.fullmatch(pattern, text + "x")
    assert not re.fullmatch(pattern, text[:-1])
    # The fragment stays one unit before what follows it, in both readers.
    assert re.fullmatch(f"{pattern}[.!?]", text + "!")
    assert llama_cpp_parses(json_schema_to_gbnf(json.dumps({"pattern": f"^{pattern}[.!?]$"})))


def test_the_old_escaping_of_a_full_stop_is_refused_by_llama_cpp() -> None:
    """The bug: `\\.` goes through the converter unchanged, and llama.cpp's parser knows
    no such escape ("unknown escape at \\."), so a reply whose opening held a "." failed."""
    old = re.sub(r"([.?])", r"\\\1", "I had breakfast.")
    schema = reply_schema("I had breakfast.")
    schema["properties"]["utterance"]["pattern"] = schema["properties"]["utterance"][
        "pattern"
    ].replace(literal_pattern("I had breakfast."), old)
    assert old in json_schema_to_gbnf(json.dumps(schema))
    assert not parses(schema)
    assert not llama_cpp_parses(
        json_schema_to_gbnf(json.dumps({"pattern": f"^{re.escape('J.R.')}$"}))
    )


def test_the_default_model_starts_its_reply_with_the_opening() -> None:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    chat = LlamaChat(MODEL, n_ctx=512, threads=1, prompt_cache_bytes=0)
    messages = [
        Message("system", "You are Isabella, who runs Hobbs Cafe. Answer with JSON."),
        Message("user", "Klaus: What did you do this morning?"),
    ]
    completion = chat.complete(messages, max_tokens=150, schema=reply_schema("I had breakfast."))
    utterance = json.loads(completion.text)["utterance"]
    assert utterance.startswith("I had breakfast.")
    assert re.fullmatch(
        reply_schema("I had breakfast.")["properties"]["utterance"]["pattern"], utterance
    )
