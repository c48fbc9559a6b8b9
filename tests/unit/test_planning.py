"""Planning with a scripted model: day plans, hour decompositions, sleep, odd answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.memory.records import MemoryKind
from npc_brain.mind.emoji import EMOJIS
from npc_brain.mind.plan.planner import block_at, step_at
from npc_brain.mind.plan.prompts import (
    Block,
    Step,
    default_day,
    parse_day_plan,
    parse_steps,
    place_labels,
)
from npc_brain.persona import Persona
from tests.conftest import make_brain

DAY = 1_676_246_400.0  # 2023-02-13 00:00 UTC
HOUR = 3600.0
HOME, CAFE = "ville:isabella's apartment", "ville:hobbs cafe"
PLAN = {
    "wake_up_hour": 7,
    "plan": [
        {"hour": 8, "activity": "opening the cafe"},
        {"hour": 12, "activity": "having lunch"},
        {"hour": 6, "activity": "too early, before waking"},
        {"hour": 9, "activity": "serving"},
        {"hour": 18, "activity": "planning the party"},
    ],
}
STEPS = {
    "steps": [
        {"activity": "unlocking the door", "minutes": 5, "place": CAFE},
        {"activity": "brewing coffee", "minutes": 15, "place": CAFE},
        {"activity": "wiping tables", "minutes": 10, "place": "the moon"},
    ]
}


def test_a_day_plan_is_ordered_starts_after_waking_and_ends_in_one_sleep_block() -> None:
    plan = parse_day_plan(str(PLAN).replace("'", '"'))
    assert plan.wake_hour == 7
    assert [b.hour for b in plan.blocks] == [8, 9, 12, 18, 22]
    assert plan.blocks[-1] == Block(22, "sleeping")
    assert parse_day_plan("{}") == default_day() == parse_day_plan('{"wake_up_hour": 3}')


def test_blocks_and_steps_cover_the_day() -> None:
    plan = parse_day_plan(str(PLAN).replace("'", '"'))
    assert block_at(plan, DAY, DAY + 3 * HOUR) == (Block(0, "sleeping"), DAY, DAY + 7 * HOUR)
    assert block_at(plan, DAY, DAY + 7.5 * HOUR)[0].activity == "opening the cafe"
    assert block_at(plan, DAY, DAY + 23 * HOUR)[0].activity == "sleeping"
    steps = [Step("a", 5, CAFE, "☕"), Step("b", 15, CAFE, "☕")]
    assert step_at(steps, DAY, DAY + 60) == (steps[0], DAY, 5)
    assert step_at(steps, DAY, DAY + 30 * 60) == (steps[1], DAY + 300, 55)  # last: to hour end


def test_odd_steps_fall_back_to_known_places_and_never_vanish() -> None:
    steps = parse_steps(str(STEPS).replace("'", '"'), "serving", [CAFE, HOME])
    assert [s.place for s in steps] == [CAFE, CAFE, CAFE]
    assert parse_steps("nonsense", "serving", [HOME]) == [Step("serving", 60, HOME, "🤔")]


def test_a_step_names_its_place_without_what_all_known_places_share() -> None:
    places = ["the Ville:Hobbs Cafe:cafe", "the Ville:Oak Hill College:library"]
    assert list(place_labels(places)) == ["Hobbs Cafe:cafe", "Oak Hill College:library"]
    assert list(place_labels(["the Ville:Hobbs Cafe:cafe", "the Ville:Hobbs Cafe:bar"])) == [
        "Hobbs Cafe:cafe",
        "Hobbs Cafe:bar",
    ]
    answer = {
        "steps": [
            {"activity": "reading", "minutes": 15, "place": "Oak Hill College:library"},
            {"activity": "coffee", "minutes": 5, "place": "the Ville:Hobbs Cafe:cafe"},
        ]
    }
    steps = parse_steps(json.dumps(answer), "studying", places)
    assert [s.place for s in steps] == places[::-1]  # by its label or its address


def test_act_follows_the_plan_decomposing_each_hour_once(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 4})
    chat.enqueue(PLAN, {"rating": 5}, STEPS)
    brain = make_brain(tmp_path, chat, planner="free")

    async def scenario() -> list[tuple[str, str, str]]:
        await brain.upsert_agent("", "isabella", Persona("Isabella", home_address=HOME), DAY)
        await brain.perceive("", "isabella", DAY, [], [CAFE])
        seen = []
        for minutes in (6 * 60, 8 * 60 + 1, 8 * 60 + 7, 8 * 60 + 30):
            action, pending = await brain.act("", "isabella", DAY + minutes * 60, 5000)
            assert not pending
            seen.append((action.description, action.address, action.emoji))
        return seen

    seen = asyncio.run(scenario())
    assert [s[:2] for s in seen] == [
        ("sleeping", HOME),
        ("unlocking the door", CAFE),
        ("brewing coffee", CAFE),
        ("wiping tables", CAFE),
    ]
    # The model writes no emoji; each comes from its activity's meaning (the fake
    # embedder matches shared words: "brewing coffee" is nearest to the coffee emoji).
    assert seen[0][2] == "😴" and seen[2][2] == "☕"
    assert all(emoji in EMOJIS for *_, emoji in seen)
    kinds = [c.schema and next(iter(c.schema["properties"])) for c in chat.history]
    assert kinds == ["wake_up_hour", "rating", "steps"]  # one plan, one decomposition
    plans = asyncio.run(brain.list_memories("", "isabella", kinds=[MemoryKind.PLAN]))
    assert "wake up at 7:00" in plans.memories[0].description
