"""Reactions and NPC-to-NPC conversations with a scripted model: the paper's two
questions, the gates that spare the model, re-planning after a conversation, lockstep
ticks and plans that survive a restart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.llm.fakes import RoutedChat, ScriptedChat
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.plan.prompts import Block, DayPlan, parse_revision
from npc_brain.mind.react.prompts import decide_to_talk, parse_reaction
from npc_brain.mind.talk.prompts import thoughts_schema, turn_schema, whole_sentences
from npc_brain.persona import Persona, Switches
from tests.conftest import MIND_KINDS, make_brain

DAY = 1_676_246_400.0  # 2023-02-13 00:00 UTC
T0 = DAY + 9 * 3600  # 09:00
CAFE, PARK = "ville:cafe", "ville:park"
PLAN = {
    "wake_up_hour": 7,
    "plan": [
        {"hour": 8, "activity": "opening the cafe"},
        {"hour": 12, "activity": "having lunch"},
        {"hour": 18, "activity": "reading"},
    ],
}
STEPS = {"steps": [{"activity": "serving coffee", "minutes": 15, "place": CAFE}]}
REVISION = {"plan": [{"hour": 17, "activity": "decorating the cafe for the party"}]}
THOUGHTS = {
    "planning_thought": "I should decorate the cafe for the party.",
    "memo": "Klaus will come to the party.",
}


DEFAULTS: dict[str, dict[str, Any]] = {
    "rating": {"rating": 4},
    "plan": PLAN,
    "steps": STEPS,
    "talk": {"answer": "no"},
    "reaction": {"decision": "continue", "new_activity": "carrying on"},
}


def routed(**queues: list[dict[str, Any]]) -> RoutedChat:
    """A RoutedChat telling this file's kinds of question apart, with their defaults."""
    return RoutedChat(MIND_KINDS, DEFAULTS, **queues)


async def _town(brain: Brain, planning: bool = True) -> None:
    for agent_id, name in (("isabella", "Isabella"), ("klaus", "Klaus")):
        await brain.upsert_agent(
            "",
            agent_id,
            Persona(name, home_address=CAFE),
            T0,
            Switches(reflection=False, planning=planning),
        )


def _isabella_meets_klaus(brain: Brain) -> list[Line]:
    """The lines of the talk Isabella starts on seeing Klaus (the town, one lockstep Tick)."""

    async def scenario() -> list[Line]:
        await _town(brain)
        (result,) = await brain.tick("", T0, [AgentTick("isabella", _sees("klaus"))], lockstep=True)
        return list(result.action.chat)

    return asyncio.run(scenario())


def _sees(other: str, text: str = "is reading at the counter") -> list[Observation]:
    return [Observation(f"{other} {text}", subject=other, address=CAFE, importance=3)]


async def _settle(brain: Brain, agent_id: str, kind: MemoryKind, count: int) -> list[Any]:
    for _ in range(1000):  # up to 10 s on a loaded machine
        page = await brain.list_memories("", agent_id, kinds=[kind])
        if len(page.memories) >= count:
            return list(page.memories)
        await asyncio.sleep(0.01)
    raise AssertionError(f"{agent_id} has fewer than {count} {kind.name} memories")


def test_unusable_answers_mean_no_talk_and_carry_on() -> None:
    assert parse_reaction("nonsense").choice == "continue"
    assert parse_reaction('{"decision": "dance", "new_activity": "x"}').choice == "continue"
    assert parse_reaction('{"decision": "wait", "new_activity": "x"}').choice == "wait"
    for no_activity in ("react", "10:00", "morning"):  # a new activity that is none
        answer = f'{{"decision": "react", "new_activity": "{no_activity}"}}'
        assert parse_reaction(answer).choice == "continue"
    answer = '{"decision": "react", "new_activity": "greet Klaus"}'
    assert parse_reaction(answer).new_activity == "greet Klaus"
    for odd in ("nonsense", '{"answer": "maybe"}', '{"answer": 1}', "[]"):
        talk, _ = decide_to_talk(ScriptedChat(default=odd), Persona("A"), T0, "", "B", "", [])
        assert talk is False


def test_the_opener_greets_the_listener_and_cannot_end_the_talk() -> None:
    import re

    opener = turn_schema(may_end=False, greet="Klaus")["properties"]
    assert opener["end_conversation"] == {"enum": [False]}  # type: ignore[index]
    pattern = opener["utterance"]["pattern"]  # type: ignore[index]
    assert re.match(pattern, "Hi Klaus, I am throwing a party on Tuesday.")
    assert not re.match(pattern, "Hi Isabella, I am Klaus.")
    reply = turn_schema(may_end=True)["properties"]
    assert reply["end_conversation"] == {"type": "boolean"}  # type: ignore[index]


def test_a_line_the_length_limit_cut_keeps_its_whole_sentences() -> None:
    import re

    cut = (
        "Hi Maria, it's me. I'm Isabella, and we're planning a party at Hobbs Cafe on "
        "February 14. We're having a big-d."
    )
    pattern = turn_schema(may_end=False, greet="Maria")["properties"]["utterance"]["pattern"]  # type: ignore[index]
    assert re.match(pattern, cut) and not re.match(pattern, cut[:-1] + "ay.")  # at the limit
    assert whole_sentences(cut, greeted=True) == cut[: cut.index(" We're")]
    assert whole_sentences("Hi Maria, I'm here. See you.", greeted=True).endswith("See you.")
    long = "I am running for mayor of the Ville in the local election and I want to tell " + (
        "everybody about it, so vote for me."
    )
    assert len(long) == 112 and whole_sentences(long) == long  # one sentence: kept


def test_thoughts_after_a_conversation_are_the_agents_own() -> None:
    import re

    fields = thoughts_schema("Klaus")["properties"]
    planning = fields["planning_thought"]["pattern"]  # type: ignore[index]
    memo = fields["memo"]["pattern"]  # type: ignore[index]
    assert re.match(planning, "I will decorate the cafe for the party.")
    assert re.match(memo, "Klaus is coming to the party tonight.")
    # The slip the issue saw: the other's line stored as the agent's own belief.
    assert not re.match(memo, "Maria, I am planning a Valentine's Day party.")
    assert not re.match(planning, "Maria, I am planning a Valentine's Day party.")


def test_a_parroted_line_is_drawn_again_and_three_in_a_row_end_the_conversation(
    tmp_path: Path,
) -> None:
    parrot = {"utterance": "It is a lovely day at the cafe, Klaus!", "end_conversation": False}
    chat = routed(
        line=[
            {"utterance": "Hi Klaus, it is a lovely day at the cafe.", "end_conversation": False},
            {"utterance": "Yes, I finished my paper today.", "end_conversation": False},
            parrot,
            {"utterance": "Will you come to my party tomorrow?", "end_conversation": False},
            {"utterance": "Yes, I finished my paper today!", "end_conversation": False},
            {"utterance": "Yes, I finished my paper today.", "end_conversation": False},
            parrot,
        ]
    )
    chat.queues["talk"] = [{"answer": "yes"}]
    brain = make_brain(tmp_path, chat, planner="free", small_talk_lines=6)

    assert [line.text for line in _isabella_meets_klaus(brain)] == [
        "Hi Klaus, it is a lovely day at the cafe.",
        "Yes, I finished my paper today.",
        "Will you come to my party tomorrow?",
        "I'm not sure yet.",  # a question is answered, plainly when no draw will do
    ]
    # 2 fresh, a parrot drawn again, 3 parrots (then the plain answer), 3 more: the end
    assert chat.calls.count("line") == 10


@pytest.mark.parametrize("small_talk_lines", [0, 1])
def test_once_both_have_spoken_small_talk_ends_the_conversation(
    tmp_path: Path, small_talk_lines: int
) -> None:
    """Nothing left to say (no news, answer or question to ask): the talk ends, unless
    `small_talk_lines` lets it go on."""
    chat = routed(
        line=[
            {"utterance": "Hi Klaus, it is a lovely day at the cafe.", "end_conversation": False},
            {"utterance": "Yes, the sun is out at last.", "end_conversation": False},
            {"utterance": "The coffee smells good this morning.", "end_conversation": False},
            {"utterance": "It does, the beans are fresh.", "end_conversation": False},
        ]
    )
    chat.queues["talk"] = [{"answer": "yes"}]
    brain = make_brain(tmp_path, chat, planner="free", small_talk_lines=small_talk_lines)

    # each asks once what the other is doing; then there is small talk only
    intents = [line.intent for line in _isabella_meets_klaus(brain)]
    assert intents == ["ask", "ask"] + ["small talk"] * small_talk_lines
    assert chat.calls.count("line") == 2 + small_talk_lines


def test_a_broken_line_is_drawn_again(tmp_path: Path) -> None:
    chat = routed(
        line=[
            {"utterance": "Hi Klaus, how is the paper going?", "end_conversation": False},
            {"utterance": "Sam Moore, Sam Moore, Sam Moore, Sam Moore!", "end_conversation": False},
            {"utterance": "A: fine. Q: and you?", "end_conversation": False},
            {"utterance": "It is going well, thank you.", "end_conversation": True},
        ]
    )
    chat.queues["talk"] = [{"answer": "yes"}]
    brain = make_brain(tmp_path, chat, planner="free")

    assert [line.text for line in _isabella_meets_klaus(brain)] == [
        "Hi Klaus, how is the paper going?",
        "It is going well, thank you.",
    ]


def test_an_opener_is_answered_in_kind_when_no_draw_will_do(tmp_path: Path) -> None:
    """The cognitive-loop test under CI's load: Klaus's "Hi Isabella! It's so nice to
    meet you!" got no answer, each draw refused, and the talk ended at one line."""
    garbled = {
        "utterance": "Sam Moore, Sam Moore, Sam Moore, Sam Moore!",
        "end_conversation": False,
    }
    chat = routed(
        line=[
            {"utterance": "Hi Klaus, what a lovely morning.", "end_conversation": False},
            *[garbled] * 3,
            {"utterance": "See you later, Klaus.", "end_conversation": True},
        ]
    )
    chat.queues["talk"] = [{"answer": "yes"}]
    brain = make_brain(tmp_path, chat, planner="free", line_intents=False)
    lines = [line.text for line in _isabella_meets_klaus(brain)]
    assert lines[:2] == ["Hi Klaus, what a lovely morning.", "Hi Isabella! Good to see you."]


def test_a_revision_keeps_the_past_and_always_ends_in_sleep() -> None:
    plan = DayPlan(7, (Block(8, "opening the cafe"), Block(12, "lunch"), Block(22, "sleeping")))
    revised = parse_revision(json.dumps(REVISION), plan, 9)
    assert revised.blocks == (
        Block(8, "opening the cafe"),
        Block(17, "decorating the cafe for the party"),
        Block(22, "sleeping"),
    )
    assert parse_revision("nonsense", plan, 9) == plan
    assert parse_revision('{"plan": [{"hour": 9, "activity": "past"}]}', plan, 9) == plan
    late = parse_revision('{"plan": [{"hour": 23, "activity": "dancing"}]}', plan, 9)
    assert late.blocks[-1] == Block(23, "dancing")  # no hour left for sleep: no clash


def test_talking_both_remember_think_it_over_and_replan(tmp_path: Path) -> None:
    chat = routed(
        talk=[{"answer": "yes"}],
        line=[
            {"utterance": "Klaus, come to my party!", "end_conversation": False},
            {"utterance": "I would love to.", "end_conversation": False},
            {"utterance": "See you at the party then.", "end_conversation": True},
        ],
        thoughts=[THOUGHTS, THOUGHTS],
        revise=[REVISION, REVISION],
    )
    brain = make_brain(tmp_path, chat, planner="free", afterthoughts="model", small_talk_lines=6)

    async def scenario() -> None:
        await _town(brain)
        for agent_id in ("isabella", "klaus"):  # each has a plan for the day
            await brain.act("", agent_id, T0, 5000)
        await brain.perceive("", "isabella", T0, _sees("klaus"))
        heard = await _settle(brain, "klaus", MemoryKind.DIALOGUE, 3)
        assert {m.source for m in heard} == {
            Source(SourceKind.HEARD, "isabella"),
            Source(SourceKind.SEEN, "klaus"),
        }
        plans = await _settle(brain, "klaus", MemoryKind.PLAN, 2)
        assert "revised plan" in plans[-1].description and "decorating" in plans[-1].description
        thoughts = await _settle(brain, "klaus", MemoryKind.THOUGHT, 2)
        lines = {m.memory_id for m in heard}
        assert all(set(t.evidence_ids) <= lines and t.evidence_ids for t in thoughts)
        page = await brain.list_memories("", "klaus", kinds=[MemoryKind.REFLECTION])
        assert page.memories == []  # thoughts are no reflections
        action, _ = await brain.act("", "klaus", T0 + 60, 0)
        assert action.chat_with_agent_id == "isabella"
        assert [x.speaker_id for x in action.chat] == ["isabella", "klaus", "isabella"]
        # The cooldown: no new decision about Klaus, nor by Klaus about Isabella, yet.
        calls = len(chat.calls)
        await brain.perceive("", "isabella", T0 + 120, _sees("klaus", "waves"))
        await brain.perceive("", "klaus", T0 + 120, _sees("isabella", "waves"))
        await asyncio.sleep(0.1)
        assert chat.calls[calls:].count("talk") == 0

    asyncio.run(scenario())
    assert chat.calls.count("talk") == 1 and chat.calls.count("revise") == 2


def test_not_talking_asks_the_second_question_react_or_wait(tmp_path: Path) -> None:
    chat = routed(
        reaction=[
            {"decision": "react", "new_activity": "helping klaus with his books"},
            {"decision": "wait", "new_activity": "x"},
        ]
    )
    brain = make_brain(tmp_path, chat, planner="free", reaction_cooldown_minutes=0)

    async def scenario() -> list[str]:
        await _town(brain)
        seen = []
        for i, minutes in enumerate((0, 20)):
            now = T0 + minutes * 60
            observed = _sees("klaus", f"dropped book number {i}")
            await brain.tick("", now, [AgentTick("isabella", observed)], lockstep=True)
            action, _ = await brain.act("", "isabella", now + 60, 0)
            seen.append(f"{action.description} @ {action.address}")
        return seen

    assert asyncio.run(scenario()) == [
        f"helping klaus with his books @ {CAFE}",
        f"waiting for Klaus to finish @ {CAFE}",
    ]
    assert chat.calls.count("talk") == 2 and chat.calls.count("reaction") == 2


def test_of_two_people_seen_the_one_talked_with_least_is_considered(tmp_path: Path) -> None:
    chat = routed(reaction=[{"decision": "wait", "new_activity": "x"}])
    brain = make_brain(tmp_path, chat, planner="free")

    async def scenario() -> str:
        await _town(brain)
        await brain.upsert_agent("", "maria", Persona("Maria", home_address=CAFE), T0)
        world, _ = brain._agent("", "isabella")  # noqa: SLF001 - a talk had, without a talk
        world.store.relationships.save("isabella", "klaus", "Klaus is a regular.", T0 - 3600)
        seen = [*_sees("klaus"), *_sees("maria")]  # Klaus first, but Maria is new to her
        await brain.tick("", T0, [AgentTick("isabella", seen)], lockstep=True)
        action, _ = await brain.act("", "isabella", T0 + 60, 0)
        return action.description

    assert asyncio.run(scenario()) == "waiting for Maria to finish"
    assert chat.calls.count("talk") == 1


def test_nobody_asks_whether_to_talk_to_someone_in_a_conversation(tmp_path: Path) -> None:
    chat = routed(reaction=[{"decision": "wait", "new_activity": "x"}])
    brain = make_brain(tmp_path, chat, planner="free")

    async def scenario() -> str:
        await _town(brain)
        world, _ = brain._agent("", "klaus")  # noqa: SLF001 - no RPC starts a talk alone
        world.mind("klaus").talking = True  # with someone else
        await brain.tick("", T0, [AgentTick("isabella", _sees("klaus"))], lockstep=True)
        action, _ = await brain.act("", "isabella", T0 + 60, 0)
        return action.description

    assert asyncio.run(scenario()) == "waiting for Klaus to finish"
    assert chat.calls.count("talk") == 0 and chat.calls.count("reaction") == 1


def test_gates_spare_the_model(tmp_path: Path) -> None:
    chat = routed()
    brain = make_brain(tmp_path, chat, planner="free")

    async def scenario() -> None:
        await _town(brain)
        at_night = DAY + 3 * 3600  # both asleep before their 7:00 wake-up
        for agent_id in ("isabella", "klaus"):
            action, _ = await brain.act("", agent_id, at_night, 5000)
            assert action.emoji == "😴"
        before = len(chat.calls)
        await brain.tick("", at_night, [AgentTick("isabella", _sees("klaus"))], lockstep=True)
        assert chat.calls[before:] == []  # asleep: no reaction
        await brain.tick("", T0, [AgentTick("isabella", _sees("klaus"))], lockstep=True)
        assert chat.calls.count("talk") == 0  # nothing new perceived: no decision
        await brain.tick("", T0, [AgentTick("isabella", _sees("klaus", "waves"))], lockstep=True)
        assert chat.calls.count("talk") == 1  # awake: one decision (no talk, continue)
        await brain.tick(
            "", T0 + 600, [AgentTick("isabella", _sees("klaus", "eats"))], lockstep=True
        )
        assert chat.calls.count("talk") == 1  # decided about Klaus minutes ago: left be
        await brain.upsert_agent("", "maria", Persona("Maria", home_address=CAFE), T0)
        await brain.tick("", T0 + 900, [AgentTick("isabella", _sees("maria"))], lockstep=True)
        assert chat.calls.count("talk") == 1  # nor anyone else within the cooldown
        await brain.tick(
            "", T0 + 1860, [AgentTick("isabella", _sees("maria", "sits"))], lockstep=True
        )
        assert chat.calls.count("talk") == 2  # 31 minutes on: Maria is considered

    asyncio.run(scenario())


def test_a_lockstep_tick_answers_with_the_conversation_finished(tmp_path: Path) -> None:
    def run(path: Path) -> list[str]:
        chat = routed(
            talk=[{"answer": "yes"}],
            line=[
                {"utterance": "Hello Isabella.", "end_conversation": False},
                {"utterance": "Bye.", "end_conversation": True},
            ],
        )
        brain = make_brain(path, chat, planner="free")

        async def scenario() -> list[str]:
            await _town(brain, planning=True)
            results = await brain.tick(
                "",
                T0,
                # Klaus, the later agent, starts it: Isabella's result shows it too.
                [AgentTick("isabella"), AgentTick("klaus", _sees("isabella"))],
                max_wait_ms=0,
                lockstep=True,
            )
            assert not any(r.pending for r in results)
            page = await brain.list_memories("", "klaus", kinds=[MemoryKind.DIALOGUE])
            assert len(page.memories) == 2  # stored before the tick answered
            return [f"{r.agent_id}: {r.action.description}" for r in results]

        return asyncio.run(scenario())

    first = run(tmp_path / "a")
    assert first == ["isabella: talking with Klaus", "klaus: talking with Isabella"]
    assert run(tmp_path / "b") == first


def test_the_plan_of_the_day_survives_a_restart(tmp_path: Path) -> None:
    chat = routed()

    async def day_so_far(brain: Brain) -> str:
        await brain.upsert_agent("", "isabella", Persona("Isabella", home_address=CAFE), T0)
        action, _ = await brain.act("", "isabella", T0, 5000)
        brain.close()
        return action.description

    assert asyncio.run(day_so_far(make_brain(tmp_path, chat, planner="free"))) == "serving coffee"
    assert chat.calls.count("plan") == 1 and chat.calls.count("steps") == 1

    async def after_restart(brain: Brain) -> str:
        action, _ = await brain.act("", "isabella", T0 + 600, 5000)
        brain.close()
        return action.description

    again = routed()
    assert (
        asyncio.run(after_restart(make_brain(tmp_path, again, planner="free"))) == "serving coffee"
    )
    assert again.calls == []  # neither the day nor the hour planned again


def test_composed_small_talk_asks_after_what_was_seen_and_answers_by_code(
    tmp_path: Path,
) -> None:
    chat = routed(talk=[{"answer": "yes"}])
    brain = make_brain(tmp_path, chat, planner="free", npc_small_talk="composed")

    async def scenario() -> list[Line]:
        await _town(brain)
        seen = [Observation("Klaus is reading the paper", subject="klaus", address=CAFE)]
        (result,) = await brain.tick("", T0, [AgentTick("isabella", seen)], lockstep=True)
        return list(result.action.chat)

    opener, reply = asyncio.run(scenario())
    assert (opener.speaker_id, opener.text) == (
        "isabella",
        "Good morning, Klaus! Busy reading the paper?",
    )
    assert reply.speaker_id == "klaus" and reply.text and "composed" in reply.intent
    assert chat.calls.count("line") == 0  # neither line is the model's


def test_composed_small_talk_takes_news_with_thanks(tmp_path: Path) -> None:
    news = "Isabella is throwing a party at the cafe on Friday at 5 pm."
    told = {"utterance": "Klaus, I am throwing a party at the cafe on Friday at 5 pm!"}
    chat = routed(talk=[{"answer": "yes"}], line=[{**told, "end_conversation": False}])
    brain = make_brain(tmp_path, chat, planner="free", npc_small_talk="composed")

    async def scenario() -> list[Line]:
        await _town(brain)
        author = Source(SourceKind.AUTHOR, "")
        await brain.add_memory(
            "", "isabella", T0 - 3600, MemoryKind.OBSERVATION, Observation(news, source=author)
        )
        (result,) = await brain.tick("", T0, [AgentTick("isabella", _sees("klaus"))], lockstep=True)
        return list(result.action.chat)

    opener, reply, *_ = asyncio.run(scenario())
    assert opener.intent.startswith("news") and "party" in opener.text
    assert reply.speaker_id == "klaus" and "Isabella" in reply.text and "composed" in reply.intent
    assert any(w in reply.text for w in ("Thanks", "Thank you", "keep that in mind"))
