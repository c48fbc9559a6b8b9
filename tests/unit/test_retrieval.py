"""The paper's retrieval score: properties, and agreement with an independent formula."""

from __future__ import annotations

import numpy as np
import pytest

from npc_brain.memory.ann import AnnIndex
from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.memory.retrieval import ZERO_RANGE_VALUE, Weights, min_max, recency_score, score
from npc_brain.memory.stream import AgentStream, Query

HOUR = 3600.0


def test_recency_decays_by_0995_per_game_hour() -> None:
    last = np.array([0.0, -HOUR, -10 * HOUR])
    np.testing.assert_allclose(recency_score(last, 0.0, 0.995), [1.0, 0.995, 0.995**10])


def test_recency_of_a_future_access_counts_as_now() -> None:
    assert recency_score(np.array([5 * HOUR]), 0.0, 0.995)[0] == 1.0


def test_min_max_maps_to_unit_range_and_zero_range_to_the_documented_constant() -> None:
    np.testing.assert_allclose(min_max(np.array([2.0, 4.0, 6.0])), [0.0, 0.5, 1.0])
    np.testing.assert_allclose(min_max(np.array([7.0, 7.0])), [ZERO_RANGE_VALUE] * 2)
    assert min_max(np.array([])).size == 0


@pytest.mark.parametrize("term", ["recency", "importance", "relevance"])
def test_each_term_is_monotone(term: str) -> None:
    rng = np.random.default_rng(1)
    columns = {
        "recency": rng.uniform(0, 1, 20),
        "importance": rng.integers(1, 11, 20).astype(float),
        "relevance": rng.uniform(-1, 1, 20),
    }
    before = score(**columns, weights=Weights()).score
    i = int(np.argmin(columns[term]))
    raised = dict(columns)
    raised[term] = columns[term].copy()
    raised[term][i] = columns[term].max() - 1e-9
    assert score(**raised, weights=Weights()).score[i] > before[i]


def _independent_scores(last, importance, relevance, now, decay, w):  # type: ignore[no-untyped-def]
    """The formula written out again, loop by loop, as in the paper."""

    def norm(values):  # type: ignore[no-untyped-def]
        lo, hi = min(values), max(values)
        return [0.5 if hi == lo else (v - lo) / (hi - lo) for v in values]

    rec = norm([decay ** max(0.0, (now - t) / HOUR) for t in last])
    imp = norm(list(importance))
    rel = norm(list(relevance))
    return [w[0] * a + w[1] * b + w[2] * c for a, b, c in zip(rec, imp, rel, strict=True)]


def _random_stream(seed: int, n: int, dim: int, exact_limit: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    created = np.sort(rng.uniform(0, 500 * HOUR, n))
    importance = rng.uniform(1, 10, n)
    records = [
        MemoryRecord(
            kind=MemoryKind.OBSERVATION,
            description=f"m{i}",
            created=float(created[i]),
            importance=float(importance[i]),
            memory_id=i + 1,
            last_accessed=float(created[i]),
        )
        for i in range(n)
    ]
    stream = AgentStream(dim, exact_limit=exact_limit, first_candidates=64)
    stream.add(records, vectors)
    query = rng.normal(size=dim).astype(np.float32)
    return stream, vectors, created, importance, query / np.linalg.norm(query)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("indexed", [False, True])
def test_retrieve_top10_equals_the_independent_formula(seed: int, indexed: bool) -> None:
    n = 3000
    stream, vectors, created, importance, query = _random_stream(
        seed, n, 16, exact_limit=100 if indexed else n
    )
    if indexed:
        stream.adopt_index(AnnIndex.build(stream.vectors_to_index()))
    weights = Weights(0.5, 2.0, 3.0) if seed % 2 else Weights()
    now = 520 * HOUR
    got = stream.retrieve(Query(query, now, 10, weights, 0.995))
    expected = _independent_scores(
        created,
        importance,
        vectors @ query,
        now,
        0.995,
        (weights.recency, weights.importance, weights.relevance),
    )
    best = np.argsort(-np.array(expected))[:10]
    assert [m.memory.memory_id for m in got] == [int(i) + 1 for i in best]
    np.testing.assert_allclose([m.score for m in got], np.array(expected)[best], rtol=1e-5)


@pytest.mark.parametrize("indexed", [False, True])
def test_a_stream_added_to_piece_by_piece_answers_as_one_added_at_once(indexed: bool) -> None:
    """Appended rows wait until a column is read (a Tick appends to a hundred streams and
    reads none): reads and adds interleaved give the answers of one add."""
    n, limit = 900, 100 if indexed else 900
    whole, vectors, _, _, query = _random_stream(7, n, 16, exact_limit=limit)
    pieces = AgentStream(16, exact_limit=limit, first_candidates=64)
    rng = np.random.default_rng(1)
    start = 0
    while start < n:
        size = int(rng.integers(1, 40))
        pieces.add(whole.records[start : start + size], vectors[start : start + size])
        start += size
        if rng.random() < 0.3:
            pieces.summary(HOUR)  # a read between two adds
    for stream in (whole, pieces):
        assert stream.forget(5)
        if indexed:
            stream.adopt_index(AnnIndex.build(stream.vectors_to_index()))
    ask = Query(query, 520 * HOUR, 10, Weights(), 0.995)
    got, expected = pieces.retrieve(ask), whole.retrieve(ask)
    assert [m.memory.memory_id for m in got] == [m.memory.memory_id for m in expected]
    assert [m.score for m in got] == [m.score for m in expected]
    assert pieces.summary(HOUR) == whole.summary(HOUR)


def _tiny_stream() -> AgentStream:
    stream = AgentStream(2)
    kinds = [MemoryKind.OBSERVATION, MemoryKind.DIALOGUE, MemoryKind.OBSERVATION]
    records = [
        MemoryRecord(
            kind=k,
            description=str(i),
            created=i * HOUR,
            importance=1.0,
            memory_id=i + 1,
            expires=5 * HOUR if i == 2 else None,
        )
        for i, k in enumerate(kinds)
    ]
    stream.add(records, np.eye(3, 2, dtype=np.float32))
    return stream


def _ids(stream: AgentStream, **filters: object) -> set[int]:
    query = Query(
        np.array([1, 0], dtype=np.float32),
        filters.pop("now", 0.0),
        10,  # type: ignore[arg-type]
        Weights(),
        0.995,
        **filters,
    )  # type: ignore[arg-type]
    return {m.memory.memory_id for m in stream.retrieve(query)}


def test_filters_by_kind_creation_time_expiry_and_forgetting() -> None:
    stream = _tiny_stream()
    assert _ids(stream) == {1, 2, 3}
    assert _ids(stream, kinds=[MemoryKind.DIALOGUE]) == {2}
    assert _ids(stream, created_after=1 * HOUR) == {2, 3}
    assert _ids(stream, created_before=1 * HOUR) == {1}
    assert _ids(stream, now=5 * HOUR) == {1, 2}  # memory 3 expired
    assert stream.forget(1) and not stream.forget(1)
    assert _ids(stream) == {2, 3} and len(stream) == 2


@pytest.mark.parametrize("seed", range(6))
def test_repeated_texts_are_matched_once_and_scored_exactly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, texts, dim = 3000, 200, 16
    text_vectors = rng.normal(size=(texts, dim)).astype(np.float32)
    text_vectors /= np.linalg.norm(text_vectors, axis=1, keepdims=True)
    which = rng.integers(0, texts, n)
    created = np.sort(rng.uniform(0, 500 * HOUR, n))
    importance = rng.uniform(1, 10, n)
    stream = AgentStream(dim, exact_limit=500, first_candidates=20)
    stream.add(
        [
            MemoryRecord(
                kind=MemoryKind.OBSERVATION,
                description=f"text {which[i]}",
                created=float(created[i]),
                importance=float(importance[i]),
                memory_id=i + 1,
                last_accessed=float(created[i]),
            )
            for i in range(n)
        ],
        text_vectors[which],
    )
    assert stream.distinct_texts == texts and not stream.needs_index()
    query = text_vectors[0]
    got = stream.retrieve(Query(query, 520 * HOUR, 10, Weights(), 0.995))
    expected = _independent_scores(
        created, importance, text_vectors[which] @ query, 520 * HOUR, 0.995, (1, 1, 1)
    )
    best = np.argsort(-np.array(expected), kind="stable")[:10]
    assert [m.memory.memory_id for m in got] == [int(i) + 1 for i in best]


def _rescan(stream: AgentStream) -> float:
    """The trigger's sum computed the long way: back to the newest reflection."""
    total = 0.0
    for record in reversed(stream.records):
        if record.kind == MemoryKind.REFLECTION:
            break
        if stream.get(record.memory_id) is not None:
            total += record.importance
    return total


def test_importance_since_reflection_follows_adds_reflections_and_forgetting() -> None:
    rng = np.random.default_rng(4)
    stream = AgentStream(2)
    for memory_id in range(1, 301):
        kind = MemoryKind.REFLECTION if rng.random() < 0.05 else MemoryKind.OBSERVATION
        record = MemoryRecord(
            kind=kind,
            description=f"m{memory_id}",
            created=0.0,
            importance=float(rng.integers(1, 11)),
            memory_id=memory_id,
        )
        stream.add([record], np.ones((1, 2), dtype=np.float32))
        if rng.random() < 0.2:
            stream.forget(int(rng.integers(1, memory_id + 1)))
        assert stream.importance_since_reflection == pytest.approx(_rescan(stream))


def test_a_streams_records_are_out_of_the_cyclic_collectors_sight() -> None:
    import gc

    stream = AgentStream(2)
    records = [
        MemoryRecord(MemoryKind.OBSERVATION, f"m{i}", float(i), 3.0, memory_id=i) for i in (1, 2)
    ]
    assert all(gc.is_tracked(r) for r in records)
    stream.add(records, np.eye(2, dtype=np.float32))
    (touched,) = stream.touch(records[:1], 50.0)
    gc.collect()  # what a full collection would see: nothing of the stream's records
    assert not any(gc.is_tracked(r) for r in stream.records)
    assert stream.records == [touched, records[1]] and touched.last_accessed == 50.0


def test_recent_gives_the_newest_remembered_memories_oldest_first() -> None:
    stream = AgentStream(2)
    records = [
        MemoryRecord(MemoryKind.OBSERVATION, f"m{i}", float(i), 3.0, memory_id=i)
        for i in range(1, 6)
    ]
    stream.add(records, np.ones((5, 2), dtype=np.float32))
    assert [r.memory_id for r in stream.recent(3)] == [3, 4, 5]
    assert stream.recent(0) == [] and len(stream.recent(9)) == 5
    stream.forget(4)
    assert [r.memory_id for r in stream.recent(3)] == [2, 3, 5]
