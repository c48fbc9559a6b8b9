"""The player-talk bench data (bench/data/player_talk): settings and labelled player lines."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "player_talk"

ACTS = {
    "greeting",
    "farewell",
    "thanks",
    "how_are_you",
    "small_talk",
    "request",
    "trade",
    "fact",
    "opinion",
    "directions",
    "feelings",
    "threat",
    "other",
}
KINDS = {
    "greet_back",
    "goodbye",
    "welcome",
    "state",
    "chat",
    "grant",
    "decline",
    "price",
    "state_fact",
    "dont_know",
    "opinion",
    "direct",
    "feel",
    "defuse",
    "deflect",
}
EXPECT_KEYS = {"any_of", "all_of", "none_of", "ends", "kind", "not_stock", "names"}
LINE_KEYS = {"id", "setting", "npc", "line", "act", "expect", "split"}
OPTIONAL_LINE_KEYS = {"paraphrase_of", "tags"}
TAGS = {"time", "trap", "unknown"}
MEMORY_KINDS = {"observation", "dialogue", "plan", "reflection"}
MEMORY_SOURCES = {"seen", "heard", "told", "author"}
PERSONA_KEYS = {
    "name",
    "age",
    "innate",
    "learned",
    "currently",
    "lifestyle",
    "home_address",
    "pronouns",
}
# The shipped demo's world; the bench must not lean on it.
DEMO_WORDS = ("party", "mayor", "election", "valentine", "hobbs", "isabella", "klaus", "the ville")


@cache
def settings() -> dict[str, dict[str, Any]]:
    loaded = json.loads((DATA / "settings.json").read_text(encoding="utf-8"))
    return {s["id"]: s for s in loaded}


@cache
def lines() -> list[dict[str, Any]]:
    text = (DATA / "lines.jsonl").read_text(encoding="utf-8")
    return [json.loads(row) for row in text.splitlines() if row.strip()]


def npcs(setting: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in setting["npcs"]}


def test_three_settings_of_four_npcs() -> None:
    loaded = json.loads((DATA / "settings.json").read_text(encoding="utf-8"))
    assert len(loaded) == len(settings()) == 3
    for s in settings().values():
        assert {"id", "name", "start", "places", "npcs"} <= s.keys()
        assert 6 <= len(s["places"]) <= 10
        assert len(s["npcs"]) == len(npcs(s)) == 4


def test_places_and_homes() -> None:
    for s in settings().values():
        addresses = [p["address"] for p in s["places"]]
        assert len(set(addresses)) == len(addresses)
        for address in addresses:
            world, sector, arena = address.split(":")
            assert world == s["name"] and sector and arena
        for n in s["npcs"]:
            assert n["id"] == n["id"].lower()
            assert set(n["persona"]) == PERSONA_KEYS
            assert n["persona"]["home_address"] in addresses, n["id"]
            assert n["role_can"], n["id"]
            for ware in n["wares"]:
                assert set(ware) == {"item", "price"} and ware["price"] > 0


def test_memories() -> None:
    for s in settings().values():
        ids = npcs(s).keys()
        seen: set[str] = set()
        for n in s["npcs"]:
            assert 8 <= len(n["memories"]) <= 14, n["id"]
            for m in n["memories"]:
                assert m["id"] not in seen, m["id"]
                seen.add(m["id"])
                assert m["kind"] in MEMORY_KINDS and m["source"] in MEMORY_SOURCES, m["id"]
                assert m["hours_ago"] >= 0
                if m["source"] in ("heard", "told"):
                    assert m["from"] in ids and m["from"] != n["id"], m["id"]
                else:
                    assert m["from"] == "", m["id"]
            hours = [m["hours_ago"] for m in n["memories"]]
            assert any(18 <= h <= 30 for h in hours), f"{n['id']}: nothing from yesterday"
            assert any(72 <= h <= 144 for h in hours), f"{n['id']}: nothing from 3-6 days ago"


def test_lines_point_at_real_npcs() -> None:
    rows = lines()
    assert len(rows) >= 300
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert LINE_KEYS <= r.keys() <= LINE_KEYS | OPTIONAL_LINE_KEYS, r["id"]
        assert r["setting"] in settings(), r["id"]
        assert r["npc"] in npcs(settings()[r["setting"]]), r["id"]
        assert r["line"].strip(), r["id"]
        assert r["split"] in ("train", "test"), r["id"]
        assert set(r.get("tags", [])) <= TAGS, r["id"]


def test_every_act_is_covered() -> None:
    per_act = Counter(r["act"] for r in lines())
    assert set(per_act) == ACTS
    for act, n in per_act.items():
        assert n >= 15, act
    assert per_act["fact"] >= 80
    fact_tags = Counter(t for r in lines() if r["act"] == "fact" for t in r.get("tags", []))
    assert fact_tags["time"] >= 15 and fact_tags["trap"] >= 10 and fact_tags["unknown"] >= 10


@pytest.mark.parametrize("act", sorted(ACTS))
def test_about_a_third_of_each_act_is_test(act: str) -> None:
    rows = [r for r in lines() if r["act"] == act]
    share = sum(r["split"] == "test" for r in rows) / len(rows)
    assert 0.25 <= share <= 0.40, f"{act}: {share:.0%} test"


def test_paraphrases() -> None:
    by_id = {r["id"]: r for r in lines()}
    groups: dict[str, list[str]] = defaultdict(list)
    for r in lines():
        if "paraphrase_of" not in r:
            continue
        first = by_id.get(r["paraphrase_of"])
        assert first is not None, r["id"]
        assert "paraphrase_of" not in first, r["id"]
        assert (first["setting"], first["split"]) == (r["setting"], r["split"]), r["id"]
        assert (first["npc"], first["act"]) == (r["npc"], r["act"]), r["id"]
        assert first["line"].lower() != r["line"].lower(), r["id"]
        groups[first["id"]].append(r["id"])
    assert len(groups) >= 30
    assert all(len(g) == 2 for g in groups.values())


def test_expect_rules() -> None:
    for r in lines():
        e = r["expect"]
        assert set(e) <= EXPECT_KEYS, r["id"]
        assert e["kind"] in KINDS, r["id"]
        for key in ("any_of", "all_of", "none_of"):
            terms = e.get(key, [])
            assert isinstance(terms, list), r["id"]
            assert all(isinstance(t, str) and t and t == t.lower() for t in terms), r["id"]
        assert not set(e.get("any_of", [])) & set(e.get("none_of", [])), r["id"]
        # The bench judges terms as substrings of the reply: "no" would pass on "know",
        # "6" on "16".
        for term in e.get("any_of", []) + e.get("all_of", []):
            assert len(term) >= (2 if term.isdigit() else 3), (r["id"], term)
        if "names" in e:
            assert e["kind"] == "dont_know", r["id"]
            assert isinstance(e["names"], str) and e["names"], r["id"]
        if r["act"] == "farewell":
            assert e.get("ends") is True and e["kind"] == "goodbye", r["id"]
        elif r["act"] == "greeting":
            assert e.get("ends") is False, r["id"]
        if r["act"] != "fact":
            assert e.get("not_stock") is True, r["id"]


def test_no_demo_town() -> None:
    for name in ("settings.json", "lines.jsonl"):
        text = (DATA / name).read_text(encoding="utf-8").lower()
        for word in DEMO_WORDS:
            assert word not in text, f"{name}: {word!r}"
