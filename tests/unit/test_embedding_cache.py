"""The embedding cache: rows by text, least recently used out, and Faculties.embed using
it (known texts never reach the embedder, missing ones go in one batch, once each)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from npc_brain.config import Settings
from npc_brain.llm.embed_cache import EmbeddingCache
from npc_brain.llm.fakes import CountingEmbedder, HashingEmbedder, ScriptedChat
from npc_brain.mind.faculties import Faculties


def test_lookup_reports_distinct_missing_texts_and_fill_places_rows() -> None:
    cache = EmbeddingCache(8, 16)
    embedder = HashingEmbedder(16)
    texts = ["a cat sleeps", "a dog barks", "a cat sleeps"]
    rows, missing = cache.lookup(texts)
    assert missing == ["a cat sleeps", "a dog barks"]
    filled = cache.fill(rows, texts, missing, embedder.embed(missing))
    np.testing.assert_array_equal(filled, embedder.embed(texts))
    again, missing = cache.lookup(texts)
    assert missing == []
    np.testing.assert_array_equal(again, filled)
    assert (cache.hits, cache.misses) == (3, 3)


def test_least_recently_used_text_goes_first() -> None:
    cache = EmbeddingCache(2, 16)
    embedder = HashingEmbedder(16)
    for text in ("one", "two"):
        rows, missing = cache.lookup([text])
        cache.fill(rows, [text], missing, embedder.embed(missing))
    cache.lookup(["one"])  # "two" is now the least recently used
    rows, missing = cache.lookup(["three"])
    cache.fill(rows, ["three"], missing, embedder.embed(missing))
    assert len(cache) == 2
    assert cache.lookup(["one", "two", "three"])[1] == ["two"]


def test_capacity_zero_keeps_nothing_and_rows_cannot_be_altered() -> None:
    off = EmbeddingCache(0, 16)
    rows, missing = off.lookup(["x"])
    off.fill(rows, ["x"], missing, HashingEmbedder(16).embed(missing))
    assert len(off) == 0 and off.lookup(["x"])[1] == ["x"]
    on = EmbeddingCache(4, 16)
    rows, missing = on.lookup(["x"])
    on.fill(rows, ["x"], missing, HashingEmbedder(16).embed(missing))
    first, _ = on.lookup(["x"])
    first[0, 0] = 99.0  # the caller's copy, not the cached row
    assert on.lookup(["x"])[0][0, 0] != 99.0
    with pytest.raises(ValueError, match="capacity"):
        EmbeddingCache(-1, 16)


def test_faculties_embed_computes_each_missing_text_once_in_one_batch() -> None:
    embedder = CountingEmbedder(16)
    faculties = Faculties(ScriptedChat(), embedder, Settings(embedding_cache_size=16))
    try:
        first = asyncio.run(faculties.embed(["rain", "sun", "rain"]))
        second = asyncio.run(faculties.embed(["sun", "rain"]))
        third = asyncio.run(faculties.embed(["snow", "sun"]))
    finally:
        faculties.close()
    assert embedder.batches == [["rain", "sun"], ["snow"]]
    reference = HashingEmbedder(16)
    np.testing.assert_array_equal(first, reference.embed(["rain", "sun", "rain"]))
    np.testing.assert_array_equal(second, reference.embed(["sun", "rain"]))
    np.testing.assert_array_equal(third, reference.embed(["snow", "sun"]))


def test_faculties_without_cache_still_embeds_every_call() -> None:
    embedder = CountingEmbedder(16)
    faculties = Faculties(ScriptedChat(), embedder, Settings(embedding_cache_size=0))
    try:
        asyncio.run(faculties.embed(["rain"]))
        asyncio.run(faculties.embed(["rain"]))
        assert asyncio.run(faculties.embed([])).shape == (0, 16)
    finally:
        faculties.close()
    assert embedder.batches == [["rain"], ["rain"]]
