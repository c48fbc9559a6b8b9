"""Something to say: code chooses each conversation line's intent from the speaker's
memory and the model only words it, with a scripted model and the real store. News the
model never words is said plainly from the memory and travels as a claim; a draw that
carries it is kept; a question is answered, a question asked; without `line_intents`
the speaker brings up what is on its mind."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from npc_brain.brain import Brain
from npc_brain.llm.base import normalise_rows
from npc_brain.llm.fakes import HashingEmbedder, RoutedChat
from npc_brain.memory.records import (
    MemoryKind,
    MemoryRecord,
    Observation,
    Source,
    SourceKind,
)
from npc_brain.mind.perceive import AgentTick
from npc_brain.mind.talk.carry import spoken
from npc_brain.mind.talk.conversation import news_left_out
from npc_brain.mind.talk.intent import (
    NOTABLE,
    SMALL_TALK,
    Intent,
    IntentKind,
    answering,
    carries_words,
    choose,
    eventful,
    newsworthy,
    plain_line,
    ungreeted,
)
from npc_brain.persona import Persona, Switches
from tests.conftest import MIND_KINDS, make_brain

T0 = 1_676_246_400.0 + 9 * 3600  # 2023-02-13 09:00 UTC
CAFE = "ville:hobbs cafe"
SEED = "Isabella is throwing a Valentine's Day party at Hobbs Cafe on February 14."
PLAIN = "Hi Klaus! I'm throwing a Valentine's Day party at Hobbs Cafe on February 14."
CHATTER = "Hi Klaus, what a lovely morning it is today."
DEFAULTS: dict[str, dict[str, Any]] = {
    "rating": {"rating": 4},
    "plan": {"wake_up_hour": 7, "plan": [{"hour": 8, "activity": "working"}]},
    "steps": {"steps": [{"activity": "working", "minutes": 15, "place": CAFE}]},
    "revise": {"plan": [{"hour": 20, "activity": "reading"}]},
    "talk": {"answer": "yes"},
    "thoughts": {"planning_thought": "I will buy flowers.", "memo": "They were kind."},
}


def _line(text: str, end: bool = False) -> dict[str, Any]:
    return {"utterance": text, "end_conversation": end}


async def _talk(brain: Brain) -> list[str]:
    return [text for text, _ in await _talk_with_intents(brain)]


async def _talk_with_intents(brain: Brain) -> list[tuple[str, str]]:
    await _town_of(brain, ("isabella", "Isabella"), ("klaus", "Klaus"))
    seen = [Observation("Klaus is reading at the counter", subject="klaus", object="book")]
    (result,) = await brain.tick("", T0, [AgentTick("isabella", seen)], lockstep=True)
    return [(line.text, line.intent) for line in result.action.chat]


def _line_prompts(chat: RoutedChat) -> list[str]:
    return [prompt for kind, prompt in chat.prompts if kind == "line"]


def test_news_the_model_never_words_is_said_plainly_and_travels_as_a_claim(
    tmp_path: Path,
) -> None:
    chat = RoutedChat(
        MIND_KINDS, DEFAULTS, line=[_line(CHATTER)] * 3 + [_line("Lovely, see you there!", True)]
    )
    brain = make_brain(tmp_path, chat, planner="free", line_intents=True)

    async def scenario() -> tuple[list[tuple[str, str]], Any]:
        lines = await _talk_with_intents(brain)
        return lines, await brain.who_knows("", query="a Valentine's Day party")

    lines, (claim, *_) = asyncio.run(scenario())
    assert lines == [(PLAIN, "news, said plainly"), ("Lovely, see you there!", "ask")]
    prompts = _line_prompts(chat)
    news = f"Tell Klaus this news in your own words: {SEED}"
    assert all(news in p for p in prompts[:3])
    assert claim.text == SEED
    assert [(h.agent_id, h.heard_from) for h in claim.holders] == [
        ("isabella", ""),
        ("klaus", "isabella"),
    ]


class _AlikeEmbedder(HashingEmbedder):
    """One vector for every text: close in meaning to anything, so words decide."""

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return normalise_rows(np.ones((len(texts), self.dimension), dtype=np.float32))


@pytest.mark.parametrize(
    "drawn",
    [
        # close in meaning to a party at Hobbs Cafe (0.55 on MiniLM) by its place alone
        "Hi Klaus! I'm just a regular at Hobbs Cafe!",
        # the 10-agent day: one word of the party, and close to it; retold mouth to mouth
        "Hey Klaus, I'm glad you're enjoying the party and the food at Hobbs Cafe.",
    ],
)
def test_a_draw_close_to_the_news_without_its_words_does_not_carry_it(
    tmp_path: Path, drawn: str
) -> None:
    """News passes on by its words, not by its place or one word and a likeness: the
    news is said plainly instead."""
    chat = RoutedChat(
        MIND_KINDS, DEFAULTS, line=[_line(drawn)] * 3 + [_line("Lovely, see you there!", True)]
    )
    brain = make_brain(tmp_path, chat, _AlikeEmbedder(), planner="free", line_intents=True)
    lines = asyncio.run(_talk_with_intents(brain))
    assert lines[0] == (PLAIN, "news, said plainly")


def test_a_draw_that_carries_the_news_is_kept_the_listener_asks_back_and_is_answered(
    tmp_path: Path,
) -> None:
    told = "Hi Klaus, I am hosting a Valentine's Day party at Hobbs Cafe!"
    chat = RoutedChat(
        MIND_KINDS,
        DEFAULTS,
        line=[
            _line(CHATTER),
            _line(told),
            _line("What time does the party start?"),
            _line("The Valentine's Day party starts at five.", True),
        ],
    )
    brain = make_brain(tmp_path, chat, planner="free", line_intents=True)
    lines = asyncio.run(_talk_with_intents(brain))
    answer = "The Valentine's Day party starts at five."
    assert lines == [
        (told, "news"),
        ("What time does the party start?", "ask"),
        (answer, "answer"),
    ]
    prompts = _line_prompts(chat)
    assert len(prompts) == 4  # one refused draw: the chatter carried no news
    assert "Ask Isabella a question about what Isabella is doing today." in prompts[2]
    assert f"Answer Klaus's question with what you know: {SEED}" in prompts[3]


def test_without_line_intents_the_speaker_brings_up_what_is_on_its_mind(
    tmp_path: Path,
) -> None:
    chat = RoutedChat(MIND_KINDS, DEFAULTS, line=[_line(CHATTER), _line("Indeed it is!", True)])
    brain = make_brain(tmp_path, chat, planner="free", line_intents=False)
    assert asyncio.run(_talk_with_intents(brain)) == [(CHATTER, ""), ("Indeed it is!", "")]
    assert "Bring up what is on your mind" in _line_prompts(chat)[0]
    assert "Tell Klaus" not in _line_prompts(chat)[0]


def _memory(
    text: str,
    kind: MemoryKind = MemoryKind.OBSERVATION,
    source: SourceKind = SourceKind.AUTHOR,
    teller: str = "",
    subject: str = "",
) -> MemoryRecord:
    return MemoryRecord(
        kind=kind,
        description=text,
        created=T0,
        importance=5.0,
        subject=subject,
        source=Source(source, teller),
        memory_id=1,
    )


def test_news_is_an_event_someone_told_or_a_claim_heard_and_not_the_listeners_own() -> None:
    heard = replace(
        _memory(
            'Isabella said to Klaus: "I am throwing a party."',
            MemoryKind.DIALOGUE,
            SourceKind.HEARD,
            "isabella",
        ),
        memory_id=7,
    )
    assert newsworthy(_memory(SEED), "maria", "Maria Lopez")
    assert not newsworthy(_memory("Mei Lin is John Lin's wife"), "maria", "Maria Lopez")
    assert not newsworthy(_memory("Klaus often studies at the cafe."), "maria", "Maria")
    assert newsworthy(heard, "maria", "Maria Lopez", {7})  # it passed a claim on
    assert not newsworthy(heard, "maria", "Maria Lopez")  # a line that carried nothing
    assert not newsworthy(heard, "isabella", "Isabella Rodriguez", {7})  # it is hers
    seen = _memory("Maria is reading", source=SourceKind.SEEN, subject="maria")
    assert not newsworthy(seen, "x", "X")  # a sighting
    fire = _memory("The cafe is burning!", source=SourceKind.SEEN)
    assert not newsworthy(fire, "x", "X")  # importance 5: not notable
    assert newsworthy(replace(fire, importance=NOTABLE), "x", "X")
    picnic = _memory("Klaus is planning a picnic for Maria's birthday.")
    assert not newsworthy(picnic, "maria", "Maria Lopez")  # a surprise for her
    assert not newsworthy(_memory("Maria's cat is sleeping", subject="maria"), "maria", "M")
    plan = _memory("I will buy flowers tomorrow.", MemoryKind.PLAN)
    assert not newsworthy(plan, "maria", "Maria Lopez")


@pytest.mark.parametrize(
    ("text", "event"),
    [
        (SEED, True),
        ("Sam Moore is running for mayor of the Ville", True),
        ("The bakery will open a second shop.", True),
        ("The market is on Sunday.", True),
        ("Tom Moreno sells paint at Harvey Oak Supply Store", False),
        ("Isabella runs Hobbs Cafe, where Sam has coffee every morning", False),
        ("Wolfgang Schulz lives next door in the dorm", False),
        # what someone did is an event; what someone was or had is not
        ("Ines Varga found the sea wall cracked, and warns the harbour", True),
        ("Ines Varga was the harbourmaster", False),
        ("Tomas Reyes had a boat", False),
        ("Tomas Reyes has fished these waters for forty years", False),
        # whatever the subject: a name or a noun phrase
        ("A sandstorm buried the road to the salt oasis yesterday evening.", True),
        ("The caravan arrived from the coast with twelve camels", True),
        ("The causeway to the abbey flooded at high tide last night.", True),
        ("The trading post sells water skins", False),
    ],
)
def test_an_event_is_someone_doing_something_or_something_at_a_time(text: str, event: bool) -> None:
    assert eventful(text) is event


def test_an_intent_is_an_answer_then_news_then_a_question_then_small_talk() -> None:
    fact, news = _memory("The party starts at 5 pm."), _memory(SEED)
    assert choose("When is it?", [fact], [news], "your day") == Intent(
        IntentKind.ANSWER, fact.description, fact
    )
    assert choose("I see.", [fact], [news], "your day").kind == IntentKind.NEWS
    assert choose("When is it?", [], [news], "your day").kind == IntentKind.NEWS
    assert choose("", [], [], "your day") == Intent(IntentKind.ASK, "your day")
    assert choose("", [], [], "") == SMALL_TALK


def test_a_line_that_only_asked_the_question_too_is_no_answer_to_it() -> None:
    """The 25-agent day: asked "What's new?", Tamara said 'Ryan Park told me: "What's
    new?"'."""
    echo = _memory(
        'Ryan Park said to Tamara Taylor: "Hi Tamara, what\'s new?"', MemoryKind.DIALOGUE
    )
    party = _memory(SEED)
    names = {"wolfgang", "schulz", "tamara", "taylor"}
    assert answering("Hello Tamara! What's new?", [echo, party], names) == []
    assert answering("Is the party new?", [echo, party], names) == [party]


@pytest.mark.parametrize(
    ("line", "without"),
    [
        ("Hi Maria! I am throwing a party.", "I am throwing a party."),
        ("Hello there, nice day.", "Nice day."),
        ("Hey Klaus, the cafe opens at 8 am.", "The cafe opens at 8 am."),
        ("Highlights of the fair are at noon.", "Highlights of the fair are at noon."),
        ("Hi!", "Hi!"),
    ],
)
def test_a_line_passed_on_loses_its_greeting(line: str, without: str) -> None:
    assert ungreeted(line) == without


def test_a_line_carries_news_by_two_of_its_words_besides_names() -> None:
    news = Intent(IntentKind.NEWS, SEED, _memory(SEED))
    names = {"isabella", "klaus"}
    assert carries_words(news, "Hi Klaus, come to my Valentine's party!", names)
    assert not carries_words(news, "Hi Klaus, Isabella here, lovely party.", names)
    assert not carries_words(news, "Hi Klaus, what a lovely morning.", names)
    assert carries_words(Intent(IntentKind.ASK, "your day"), "Nice weather.", names)


@pytest.mark.parametrize(
    ("memory", "opener", "said"),
    [
        (_memory(SEED), True, PLAIN),
        (
            _memory(
                'Isabella said to Klaus: "Hi Klaus! I am throwing a party"',
                MemoryKind.DIALOGUE,
                SourceKind.HEARD,
                "isabella",
            ),
            False,
            'Isabella told me: "I am throwing a party."',
        ),
        (
            _memory(
                'Maria said to Klaus: "Hi Klaus! Isabella told me: "I am throwing a party.""',
                MemoryKind.DIALOGUE,
                SourceKind.HEARD,
                "maria",
            ),
            False,
            'Maria told me that Isabella said: "I am throwing a party."',
        ),
        (_memory("The bakery closes early."), False, "The bakery closes early."),
    ],
)
def test_a_plain_line_is_built_from_the_memory(
    memory: MemoryRecord, opener: bool, said: str
) -> None:
    intent = Intent(IntentKind.NEWS, memory.description, memory)
    assert plain_line(intent, Persona("Isabella"), "Klaus", opener) == said


def test_news_the_listener_holds_already_is_not_news_to_it(tmp_path: Path) -> None:
    told = "Hi {}, I am hosting a Valentine's Day party at Hobbs Cafe!"
    chat = RoutedChat(
        MIND_KINDS,
        DEFAULTS,
        line=[
            _line(told.format("Klaus")),
            _line("Wonderful, I will come.", True),
            _line(told.format("Maria")),
            _line("Lovely, see you there.", True),
            _line("Hi Maria, nice weather for a walk."),
            _line("It is, I walked to the bakery.", True),
        ],
    )
    brain = make_brain(tmp_path, chat, planner="free")

    async def meet(who: str, other: str, name: str, at: float) -> list[str]:
        seen = [Observation(f"{name} is reading", subject=other, address=CAFE)]
        (result,) = await brain.tick("", at, [AgentTick(who, seen)], lockstep=True)
        return [line.text for line in result.action.chat]

    async def scenario() -> list[list[str]]:
        await _town_of(brain, ("isabella", "Isabella"), ("klaus", "Klaus"), ("maria", "Maria"))
        return [
            await meet("isabella", "klaus", "Klaus", T0),
            await meet("isabella", "maria", "Maria", T0 + 3600),
            await meet("klaus", "maria", "Maria", T0 + 2 * 3600),
        ]

    talks = asyncio.run(scenario())
    assert [talk[0] for talk in talks] == [
        told.format("Klaus"),
        told.format("Maria"),
        "Hi Maria, nice weather for a walk.",
    ]
    opener = _line_prompts(chat)[4]  # Klaus's to Maria, who heard it from Isabella
    assert "Tell Maria this news" not in opener
    assert "Ask Maria a question about what you saw: Maria is reading" in opener


async def _town_of(brain: Brain, *people: tuple[str, str]) -> None:
    for agent_id, name in people:
        await brain.upsert_agent(
            "", agent_id, Persona(name, home_address=CAFE), T0, Switches(reflection=False)
        )
    seed = Observation(SEED, source=Source(SourceKind.AUTHOR))
    await brain.add_memory("", "isabella", T0 - 3600, MemoryKind.OBSERVATION, seed)


def test_a_line_passing_news_on_names_whom_the_news_is_about() -> None:
    others = ["Isabella Rodriguez", "Sam Moore"]  # the town but Maria and Klaus
    told = _memory(
        "Isabella Rodriguez said to Maria Lopez: \"Hi Maria! I am throwing a Valentine's Day"
        ' party at Hobbs Cafe on February 14."',
        MemoryKind.DIALOGUE,
        SourceKind.HEARD,
        "isabella",
    )
    party = Intent(IntentKind.NEWS, ungreeted(spoken(told)), told)
    # the default demo: Maria to Klaus, the host swapped for the listener
    swapped = "Klaus Mueller has just revealed that he is planning a Valentine's Day party."
    assert news_left_out(swapped, party, others) == ["Isabella Rodriguez"]
    assert news_left_out("Isabella is throwing a party on February 14!", party, others) == []
    retold = _memory(
        'Maria Lopez said to Klaus Mueller: "Isabella Rodriguez told me: "I am throwing a party.""',
        MemoryKind.DIALOGUE,
        SourceKind.HEARD,
        "maria",
    )
    passing = Intent(IntentKind.NEWS, spoken(retold), retold)
    town = ["Isabella Rodriguez", "Maria Lopez"]  # Klaus tells Sam: the host, not the teller
    assert news_left_out("Isabella is throwing a party!", passing, town) == []
    assert news_left_out("Maria is throwing a party!", passing, town) == ["Isabella Rodriguez"]
