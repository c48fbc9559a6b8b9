"""The long-memory bench data (bench/data/long_memory): a month of six NPCs' memories and
the questions about them, as bench/long_memory_data.py writes them."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "long_memory"
CATEGORIES = {"single", "multi", "when", "changed", "open"}
MEMORY_KEYS = {"id", "npc", "day", "hour", "kind", "text", "source", "from"}
DEMO_WORDS = ("isabella", "klaus", "hobbs", "valentine", "the ville")


@cache
def rows(name: str) -> tuple[dict[str, Any], ...]:
    lines = (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def memories() -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in rows("memories")}


def test_memories_parse_with_their_fields() -> None:
    assert len(memories()) == len(rows("memories")), "memory ids are unique"
    for m in rows("memories"):
        assert set(m) == MEMORY_KEYS
        assert m["kind"] in {"observation", "dialogue", "plan", "reflection"}
        assert m["source"] in {"seen", "heard", "told", "author"}
        assert m["day"] >= 0 and 0.0 <= m["hour"] < 24.0 and m["text"]


def test_at_least_five_npcs_each_remember_four_weeks() -> None:
    days: dict[str, set[int]] = defaultdict(set)
    for m in rows("memories"):
        days[m["npc"]].add(m["day"])
    assert len(days) >= 5
    assert all(len(d) >= 28 for d in days.values()), {n: len(d) for n, d in days.items()}


def test_questions_cover_every_category_in_both_splits() -> None:
    questions = rows("questions")
    assert len(questions) >= 500
    assert len({q["id"] for q in questions}) == len(questions)
    pairs = {(q["category"], q["split"]) for q in questions}
    assert pairs == {(c, s) for c in CATEGORIES for s in ("train", "test")}
    test_share = sum(q["split"] == "test" for q in questions) / len(questions)
    assert 0.25 <= test_share <= 0.40


def test_evidence_is_the_npcs_own_memories_before_the_question() -> None:
    by_id = memories()
    for q in rows("questions"):
        assert q["evidence"], q["id"]
        for e in q["evidence"]:
            assert by_id[e]["npc"] == q["npc"], (q["id"], e)
            assert by_id[e]["day"] < q["ask_day"], (q["id"], e)


def test_when_questions_have_their_evidence_in_the_window() -> None:
    by_id = memories()
    for q in (q for q in rows("questions") if q["category"] == "when"):
        w = q["window"]
        for e in q["evidence"]:
            at = (by_id[e]["day"], by_id[e]["hour"])
            assert (w["after_day"], w["after_hour"]) <= at < (w["before_day"], w["before_hour"])


def test_routine_is_not_one_sentence_again_and_again() -> None:
    texts = Counter((m["npc"], m["text"]) for m in rows("memories"))
    assert sum(n - 1 for n in texts.values()) < 0.02 * len(rows("memories"))


def test_no_word_of_the_demo_town() -> None:
    for name in ("memories", "questions"):
        text = (DATA / f"{name}.jsonl").read_text(encoding="utf-8").lower()
        assert not [w for w in DEMO_WORDS if w in text]
