"""Reflection: the paper's, with a scripted model (the trigger, cited evidence, depth,
odd answers), and the default composed by code from the patterns in the memories."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.memory.records import PRIVATE, MemoryKind, MemoryRecord, Observation, Sharing
from npc_brain.mind.reflect.patterns import composed_insights
from npc_brain.mind.reflect.prompts import (
    Insight,
    parse_choice,
    parse_insights,
    parse_questions,
)
from npc_brain.persona import Persona, Switches
from tests.conftest import make_brain

T0 = 1_676_365_200.0
QUESTIONS = {
    "questions": ["What is Isabella planning?", "Who helps Isabella?", "How does Isabella feel?"]
}


def _insights(*cited: list[int]) -> dict[str, object]:
    return {
        "insights": [
            {"insight": f"Isabella insight {i} from {c}", "because_of": c}
            for i, c in enumerate(cited)
        ]
    }


def _record(memory_id: int, depth: int = 0) -> MemoryRecord:
    return MemoryRecord(
        kind=MemoryKind.OBSERVATION,
        description=f"m{memory_id}",
        created=0.0,
        importance=1.0,
        memory_id=memory_id,
        depth=depth,
    )


def test_odd_answers_give_fewer_insights_never_an_error() -> None:
    evidence = [_record(1), _record(2)]
    assert parse_questions("not json") == [] and parse_questions('{"questions": [1, " "]}') == []
    kept = parse_insights(
        '{"insights": [{"insight": "a", "because_of": [2, 9, 2]},'
        ' {"insight": "b", "because_of": [7]}, {"insight": "", "because_of": [1]}, 5]}',
        evidence,
    )
    assert [(i.text, [m.memory_id for m in i.evidence]) for i in kept] == [("a", [2])]


def test_the_importance_trigger_reflects_in_the_background_citing_evidence(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 5})
    rating = {"rating": 7}  # each insight is rated as it is stored
    chat.enqueue(
        QUESTIONS,
        _insights([1, 2]),
        rating,
        _insights([3]),
        rating,
        _insights([1], [2]),
        rating,
        rating,
    )
    brain = make_brain(tmp_path, chat, reflection_threshold=50.0, reflections="model")

    async def scenario() -> list[MemoryRecord]:
        await brain.upsert_agent("", "isabella", Persona("Isabella Rodriguez"), T0)
        for i in range(6):  # 6 x 10 = 60 > 50
            await brain.perceive(
                "", "isabella", T0 + i, [Observation(f"party preparation step {i}", importance=10)]
            )
        for _ in range(1000):  # up to 10 s on a loaded machine
            await asyncio.sleep(0.01)
            page = await brain.list_memories("", "isabella", kinds=[MemoryKind.REFLECTION])
            if len(page.memories) == 4:
                return page.memories
        raise AssertionError("no reflection")

    reflections = asyncio.run(scenario())
    stream_ids = {m.memory_id for m in asyncio.run(brain.list_memories("", "isabella")).memories}
    for reflection in reflections:
        assert reflection.evidence_ids and set(reflection.evidence_ids) <= stream_ids
        assert reflection.depth == 1
    assert brain.usage.summary("default", "isabella").calls_by_kind["reflection"] == 4


def test_reflections_on_reflections_are_deeper_and_the_switch_turns_it_off(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 5})
    brain = make_brain(tmp_path, chat, reflection_threshold=20.0, reflections="model")

    async def scenario() -> tuple[list[MemoryRecord], list[MemoryRecord]]:
        await brain.upsert_agent(
            "", "isabella", Persona("Isabella Rodriguez"), T0, Switches(reflection=False)
        )
        await brain.add_memory(
            "",
            "isabella",
            T0,
            MemoryKind.REFLECTION,
            Observation("Isabella loves hosting", importance=8),
        )
        for i in range(5):
            await brain.perceive("", "isabella", T0 + i, [Observation(f"event {i}", importance=9)])
        await asyncio.sleep(0.1)
        untouched = await brain.list_memories("", "isabella", kinds=[MemoryKind.REFLECTION])
        chat.enqueue(
            {"questions": ["Q one?", "Q two?", "Q three?"]},
            _insights([1]),
            {"insights": []},
            "garbage",
        )
        forced = await brain.reflect("", "isabella", T0 + 10)
        return untouched.memories, forced

    untouched, forced = asyncio.run(scenario())
    assert len(untouched) == 1  # the switch kept the trigger from firing
    assert len(forced) == 1
    assert forced[0].depth >= 1


def test_a_reflection_that_stores_nothing_still_resets_its_trigger(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 5})
    chat.enqueue({"questions": []})  # the one reflection finds nothing to ask
    brain = make_brain(tmp_path, chat, reflection_threshold=20.0, reflections="model")

    async def scenario() -> None:
        await brain.upsert_agent("", "isabella", Persona("Isabella Rodriguez"), T0)
        for i in range(3):  # 3 x 10 = 30 > 20: the trigger fires once
            await brain.perceive("", "isabella", T0 + i, [Observation(f"event {i}", importance=10)])
        for _ in range(1000):
            await asyncio.sleep(0.01)
            if brain.usage.summary("default", "isabella").calls_by_kind.get("reflection"):
                break
        await asyncio.sleep(0.05)
        for i in range(3, 5):  # 20 more: at the threshold, not past it
            await brain.perceive("", "isabella", T0 + i, [Observation(f"event {i}", importance=9)])
        await asyncio.sleep(0.1)

    asyncio.run(scenario())
    assert brain.usage.summary("default", "isabella").calls_by_kind["reflection"] == 1


def test_a_reflection_drawn_in_view_of_a_secret_is_no_more_tellable(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 5})
    brain = make_brain(tmp_path, chat, reflections="model")

    async def scenario() -> list[MemoryRecord]:
        await brain.upsert_agent(
            "", "isabella", Persona("Isabella Rodriguez"), T0, Switches(reflection=False)
        )
        for text, sharing in (
            ("Isabella bakes bread every morning", Sharing()),
            ("Isabella owes the mayor money", PRIVATE),
        ):
            memory = Observation(text, importance=5, sharing=sharing)
            await brain.add_memory("", "isabella", T0, MemoryKind.OBSERVATION, memory)
        chat.enqueue({"questions": ["When does Isabella bake bread?"]}, _insights([1]))
        return await brain.reflect("", "isabella", T0 + 10)

    (insight,) = asyncio.run(scenario())
    assert insight.evidence_ids == (1,)  # it cites the bread only
    assert insight.sharing == PRIVATE  # but the secret was in view


# Composed reflection (the default) ----------------------------------------------------

NAMES = {"mei": "Mei Lin", "eddy": "Eddy Lin", "klaus": "Klaus Mueller"}
COLLEGE = "the Ville:Oak Hill College:classroom"


def _seen(
    memory_id: int, minutes: float, text: str, subject: str = "", doing: str = ""
) -> MemoryRecord:
    return MemoryRecord(
        kind=MemoryKind.OBSERVATION,
        description=text,
        created=T0 + 60 * minutes,
        importance=5.0,
        subject=subject,
        predicate="is" if subject else "",
        object=doing,
        address=COLLEGE,
        memory_id=memory_id,
    )


def test_a_doing_seen_in_two_episodes_is_a_habit_citing_its_sightings() -> None:
    memories = [
        _seen(1, 0, "Mei Lin is teaching a class", "mei", "teach a class"),
        _seen(2, 10, "Class is on", "mei", "teach a class"),  # the game's subject, object
        _seen(3, 20, "Eddy Lin is reading", "eddy", "read"),  # once: no pattern
        _seen(4, 180, "Mei Lin is teaching a class"),  # no subject: read from the text
    ]
    (habit,) = composed_insights(memories, NAMES)
    assert habit.text == "Mei Lin is often teaching a class at Oak Hill College."
    assert [m.memory_id for m in habit.evidence] == [1, 2, 4]


def test_one_episode_is_a_habit_only_when_it_lasts_hours() -> None:
    short = [_seen(i, 10 * i, "Mei Lin is grading papers") for i in range(1, 7)]  # 50 min
    long = [_seen(i, 20 * i, "Mei Lin is grading papers") for i in range(1, 8)]  # 2 h
    assert composed_insights(short, NAMES) == []
    assert [i.text for i in composed_insights(long, NAMES)] == [
        "Mei Lin spends hours grading papers at Oak Hill College."
    ]


def test_people_seen_talking_in_two_episodes_often_talk_and_passing_states_are_no_habit() -> None:
    line = replace(
        _seen(3, 120, 'Eddy Lin said to Klaus Mueller: "Hi Klaus!"'), kind=MemoryKind.DIALOGUE
    )
    memories = [
        _seen(1, 0, "Klaus Mueller is talking with Eddy Lin"),
        _seen(2, 0, "Eddy Lin is talking with Klaus Mueller"),
        line,
        _seen(4, 0, "Mei Lin is talking with Lionel Smith"),  # not someone of the town
        _seen(5, 120, "Mei Lin is talking with Lionel Smith"),
        _seen(6, 0, "Mei Lin is waiting for Eddy Lin to finish"),
        _seen(7, 120, "Mei Lin is waiting for Eddy Lin to finish"),
        _seen(8, 0, "Mei Lin is sleeping"),
        _seen(9, 120, "Mei Lin is sleeping"),
    ]
    (pair,) = composed_insights(memories, NAMES)
    assert pair.text == "Eddy Lin and Klaus Mueller often talk with each other."
    assert [m.memory_id for m in pair.evidence] == [1, 2, 3]


def test_the_people_the_memories_are_most_about_come_first() -> None:
    memories = [
        *(_seen(i, 200 * i, "Eddy Lin is playing chess") for i in (1, 2)),
        *(_seen(10 + i, 200 * i, "Mei Lin is baking bread") for i in (1, 2)),
        *(
            _seen(
                20 + i,
                5 * i,
                "Mei Lin is singing",
            )
            for i in range(1, 4)
        ),  # salience
    ]
    texts = [i.text for i in composed_insights(memories, NAMES)]
    assert texts == [
        "Mei Lin is often baking bread at Oak Hill College.",
        "Eddy Lin is often playing chess at Oak Hill College.",
    ]


def test_a_composed_reflection_makes_no_model_call_and_stores_each_belief_once(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 5})
    brain = make_brain(tmp_path, chat, importance_estimator="anchors", perception_retention=0)

    async def scenario() -> tuple[list[MemoryRecord], list[MemoryRecord], list[MemoryRecord]]:
        for agent_id, name in (("isabella", "Isabella Rodriguez"), ("klaus", "Klaus Mueller")):
            await brain.upsert_agent("", agent_id, Persona(name), T0, Switches(reflection=False))
        for minutes, sharing in ((0, Sharing()), (10, Sharing()), (180, PRIVATE)):
            seen = Observation(
                "Klaus Mueller is writing his paper", subject="klaus", sharing=sharing
            )
            await brain.perceive("", "isabella", T0 + 60 * minutes, [seen])
        first = await brain.reflect("", "isabella", T0 + 3 * 3600)
        again = await brain.reflect("", "isabella", T0 + 4 * 3600)
        page = await brain.list_memories("", "isabella", kinds=[MemoryKind.REFLECTION])
        return first, again, page.memories

    first, again, stored = asyncio.run(scenario())
    assert [m.description for m in stored] == ["Klaus Mueller is often writing his paper."]
    assert first == stored and again == []
    assert first[0].evidence_ids == (1, 2, 3) and first[0].depth == 1
    assert first[0].sharing == PRIVATE  # one of the sightings it counts is a secret
    assert "reflection" not in brain.usage.summary("default", "isabella").calls_by_kind


# What generalises: traits, goals, causes, informants (two settings of other genres) ------

VILLAGE = {"wren": "Wren Hale", "bram": "Bram Ashford", "tomas": "Tomas Reyes"}
STATION = {"dara": "Dara Vex", "kofi": "Kofi Osei", "ilse": "Ilse Brandt"}


def _line(memory_id: int, minutes: float, speaker: str, listener: str, words: str) -> MemoryRecord:
    return MemoryRecord(
        kind=MemoryKind.DIALOGUE,
        description=f'{speaker} said to {listener}: "{words}"',
        created=T0 + 60 * minutes,
        importance=4.0,
        memory_id=memory_id,
    )


def test_a_pursuit_of_two_game_days_that_nobody_shares_is_a_trait_and_a_shared_one_a_habit() -> (
    None
):
    day = 24 * 60
    memories = [
        _seen(1, 0, "Kofi Osei is calibrating the long-range scanner"),
        _seen(2, day, "Kofi Osei is calibrating the long-range scanner"),
        _seen(3, 0, "Dara Vex is eating breakfast"),
        _seen(4, day, "Dara Vex is eating breakfast"),
        _seen(5, 10, "Ilse Brandt is having breakfast"),
    ]
    texts = [i.text for i in composed_insights(memories, STATION)]
    assert texts == [
        "Kofi Osei is dedicated to calibrating the long-range scanner.",
        "Dara Vex is often eating breakfast at Oak Hill College.",
    ]


def test_lines_naming_one_event_in_two_conversations_are_a_goal_citing_them() -> None:
    memories = [
        _line(
            1,
            0,
            "Bram Ashford",
            "Wren Hale",
            "Hi Wren! Will you come to the Harvest Feast at the Long Hall at 6 pm?",
        ),
        _line(2, 1, "Wren Hale", "Bram Ashford", "What will there be to eat?"),
        _line(
            3,
            90,
            "Bram Ashford",
            "Wren Hale",
            "Don't forget the Harvest Feast at the Long Hall tomorrow at 6 pm.",
        ),
    ]
    (goal, *_) = composed_insights(memories, VILLAGE, "Wren Hale")
    assert goal.text == "Bram Ashford is looking forward to the Harvest Feast at the Long Hall."
    assert [m.memory_id for m in goal.evidence] == [1, 3]


def test_news_told_to_two_people_is_a_cause_reported_with_the_right_pronoun() -> None:
    memories = [
        _line(
            1,
            0,
            "Tomas Reyes",
            "Wren Hale",
            "I am selling my fishing boat, the Gull, because my knees are bad.",
        ),
        _line(
            2,
            60,
            "Tomas Reyes",
            "Bram Ashford",
            "Good morning! I am selling my fishing boat, the Gull.",
        ),
        _line(3, 61, "Bram Ashford", "Tomas Reyes", "Sorry to hear that."),
    ]
    texts = [
        i.text for i in composed_insights(memories, VILLAGE, "Tomas Reyes", {"Tomas Reyes": "he"})
    ]
    assert texts == ["Tomas Reyes keeps telling people he's selling his fishing boat."]


def test_one_who_told_me_different_news_in_two_conversations_keeps_me_up_to_date() -> None:
    once = [
        _line(
            1,
            0,
            "Kofi Osei",
            "Dara Vex",
            "The supply shuttle Nadir docks at bay three on Thursday.",
        ),
        _line(2, 1, "Kofi Osei", "Dara Vex", "The hydroponics bay lost pressure overnight."),
    ]
    again = [
        _line(
            3,
            120,
            "Kofi Osei",
            "Dara Vex",
            "The supply shuttle Nadir docks at bay three on Thursday, remember.",
        )
    ]
    later = [
        _line(4, 240, "Kofi Osei", "Dara Vex", "Commander Brandt cancelled the reactor drill.")
    ]

    def told(memories: list[MemoryRecord]) -> list[Insight]:
        found = composed_insights(memories, STATION, "Dara Vex")
        return [i for i in found if "up to date" in i.text]

    assert told(once) == []  # one conversation
    assert told(once + again) == []  # the same news again
    (informant,) = told(once + again + later)
    assert informant.text == "Kofi Osei keeps Dara Vex up to date."
    assert [m.memory_id for m in informant.evidence] == [1, 2, 4]


def test_the_model_chooses_among_insights_and_an_odd_choice_keeps_codes_order() -> None:
    shown = [Insight(f"Belief {i}.", ()) for i in range(1, 6)]
    assert [i.text for i in parse_choice('{"most_telling": [5, 9, 5]}', shown)] == [
        "Belief 5.",
        "Belief 1.",
        "Belief 2.",
    ]
    assert parse_choice("no", shown) == shown[:3]


def test_a_composed_reflection_of_more_insights_than_it_keeps_asks_the_model_to_choose(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 5})
    chat.enqueue({"most_telling": [4]})
    brain = make_brain(tmp_path, chat, importance_estimator="anchors", perception_retention=0)

    async def scenario() -> tuple[list[MemoryRecord], list[str]]:
        for agent_id, name in STATION.items():
            await brain.upsert_agent("", agent_id, Persona(name), T0, Switches(reflection=False))
        doings = ("welding a hull plate", "sorting medical supplies", "tuning the reactor")
        for minutes in (0, 180):
            seen = [
                Observation(f"{n} is {d}") for n, d in zip(STATION.values(), doings, strict=True)
            ]
            seen.append(Observation("Dara Vex is reading a manual"))
            await brain.perceive("", "dara", T0 + 60 * minutes, seen)
        page = await brain.list_memories("", "dara")
        found = composed_insights(page.memories, STATION, "Dara Vex")
        return await brain.reflect("", "dara", T0 + 4 * 3600), [i.text for i in found]

    stored, found = asyncio.run(scenario())
    assert len(found) == 4
    assert [m.description for m in stored] == [found[3], found[0], found[1]]
    assert brain.usage.summary("default", "dara").calls_by_kind["reflection"] == 1
