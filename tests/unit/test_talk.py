"""Talking with a player: the line understood (act, names, time), the answer composed from
state and said in the NPC's own voice, the model's extra sentence checked before it
streams. Two settings that are not the demo town: a fantasy village and a space station
(scripted model, hashing embedder)."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.errors import InvalidArgument
from npc_brain.game_actions import ActionArgument, ActionOption, ArgumentType, GameAction
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.mind.talk.acts import Act, Vote, normalised
from npc_brain.mind.talk.checks import REGISTRY, Context, Stage, check, first_refusal
from npc_brain.mind.talk.compose import COMPOSERS
from npc_brain.mind.talk.misfit import Cast
from npc_brain.mind.talk.scene import Scene
from npc_brain.mind.talk.understand import (
    Heard,
    asks_of_the_past,
    consequence,
    strangers_in,
    thing_asked,
    to_you,
)
from npc_brain.persona import AgentRecord, Persona
from tests.conftest import conversed, make_brain

NOW = dt.datetime(2031, 5, 14, 10, 0, tzinfo=dt.UTC).timestamp()  # a Wednesday morning
HOUR = 3600.0
BRAM = Persona(
    "Bram Holt",
    52,
    "gruff, honest, patient",
    "the blacksmith of Thornbury, who forges swords and shoes horses",
    "repairing the town gate's hinges",
    "wakes at dawn, works the forge all day, drinks at the Crooked Oak at night",
    "Thornbury:Bram's forge:anvil",
)
ANA = Persona("Ana Costa", 30, "cheerful", "mends nets at the harbour of Thornbury")
TOMAS = Persona("Tomas Reyes", 67, "stubborn", "an old fisherman of Thornbury")
OSEI = Persona(
    "Imani Osei",
    41,
    "calm, precise",
    "runs the med bay of Halcyon Station and keeps everyone alive",
    "restocking the med bay",
    "starts her shift at 0600, eats in the mess hall, sleeps in the crew ring",
    "Halcyon:crew ring:cabin 4",
)
KAI = Persona("Kai Moreau", 35, "restless", "the dock chief of Halcyon Station")


def said(brain: Brain, world: str, agent: str, line: str, at: float = NOW) -> tuple[str, Line]:
    """What the agent streamed and its final line, to a player."""
    return conversed(brain, world, agent, at, line)


def remember(
    brain: Brain,
    world: str,
    agent: str,
    text: str,
    kind: MemoryKind = MemoryKind.OBSERVATION,
    at: float = NOW - HOUR,
    source: Source | None = None,
) -> None:
    """A memory the agent holds, written at `at`."""
    observation = Observation(text, source=source) if source else Observation(text)
    asyncio.run(brain.add_memory(world, agent, at, kind, observation))


def village(tmp_path: Path, chat: ScriptedChat | None = None, **settings: object) -> Brain:
    brain = make_brain(
        tmp_path,
        chat or ScriptedChat(default={"rating": 3, "utterance": "It is good to have company."}),
        HashingEmbedder(512),
        grounded_replies=True,
        **settings,
    )

    async def seed() -> None:
        for agent_id, persona in (("bram", BRAM), ("ana", ANA), ("tomas", TOMAS)):
            await brain.upsert_agent("thornbury", agent_id, persona, NOW - 48 * HOUR)
        heard = Source(SourceKind.HEARD, "tomas")
        await brain.add_memory(
            "thornbury",
            "ana",
            NOW - 20 * HOUR,
            MemoryKind.OBSERVATION,
            Observation("Tomas Reyes told Ana Costa that he is selling his boat", source=heard),
        )
        await brain.add_memory(
            "thornbury",
            "bram",
            NOW - 20 * HOUR,
            MemoryKind.OBSERVATION,
            Observation("Bram Holt shod a grey mare for a traveller"),
        )
        await brain.add_memory(
            "thornbury",
            "bram",
            NOW - 80 * HOUR,
            MemoryKind.OBSERVATION,
            Observation("Bram Holt mended a plough for a farmer"),
        )

    asyncio.run(seed())
    return brain


def station(tmp_path: Path) -> Brain:
    brain = make_brain(
        tmp_path,
        ScriptedChat(default={"rating": 3}),
        HashingEmbedder(512),
        grounded_replies=True,
        reply_wording="plain",
    )

    async def seed() -> None:
        await brain.upsert_agent("halcyon", "osei", OSEI, NOW - 48 * HOUR)
        await brain.upsert_agent("halcyon", "kai", KAI, NOW - 48 * HOUR)

    asyncio.run(seed())
    return brain


def test_a_greeting_is_answered_in_kind_and_a_farewell_ends_the_talk(tmp_path: Path) -> None:
    brain = station(tmp_path)
    streamed, hello = said(brain, "halcyon", "osei", "Hello there!")
    assert hello.act == "greeting" and not hello.end_conversation
    assert hello.text.startswith("Good morning!") and streamed == hello.text
    assert "I'm not sure" not in hello.text
    streamed, bye = said(brain, "halcyon", "osei", "Goodbye, see you later!")
    assert bye.act == "farewell" and bye.end_conversation and streamed == bye.text


def test_a_persona_fragment_is_said_as_a_sentence(tmp_path: Path) -> None:
    brain = station(tmp_path)
    _, who = said(brain, "halcyon", "osei", "What's your name?")
    assert who.act == "fact"
    assert who.text.startswith("My name is Imani Osei.")
    assert "I run the med bay of Halcyon Station and keep everyone alive." in who.text


def test_another_persons_fact_is_told_as_heard_not_as_ones_own(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, reply = said(brain, "thornbury", "ana", "Who is selling a boat around here?")
    assert reply.text == "Tomas Reyes told me that he is selling his boat."
    assert "my boat" not in reply.text


def test_an_unknown_person_is_named_in_the_answer(tmp_path: Path) -> None:
    brain = station(tmp_path)
    _, reply = said(brain, "halcyon", "osei", "Who is Zedrick Pell?")
    assert reply.text == "I don't think I know anyone called Zedrick Pell."
    assert reply.topic == "Zedrick Pell"


def test_an_unknown_place_is_named_as_a_place(tmp_path: Path) -> None:
    brain = station(tmp_path)
    _, reply = said(brain, "halcyon", "osei", "What happened in Quorath?")
    assert reply.text == "I don't think I know a place called Quorath."


def test_a_question_anchored_in_time_reads_that_time(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, reply = said(brain, "thornbury", "bram", "What did you do yesterday?")
    assert reply.text == "I shod a grey mare for a traveller."
    assert reply.topic == "yesterday"


def test_the_models_sentence_streams_only_once_it_passed_the_checks(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = village(tmp_path, chat, reply_wording="model")
    # A first draw that names a stranger, then one that passes.
    chat.enqueue({"utterance": "Mike Brown sends his regards to you."})
    chat.enqueue({"utterance": "What brings you to the forge today?"})
    streamed, reply = said(brain, "thornbury", "bram", "Hello!")
    assert reply.text.endswith("What brings you to the forge today?")
    assert "Mike" not in streamed and streamed == reply.text
    stats = asyncio.run(brain.stats("thornbury", "bram"))
    assert stats.refusals_by_check == {"town.stranger": 1}


def test_a_sentence_refused_twice_is_left_out(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = village(tmp_path, chat, reply_wording="model")
    chat.enqueue({"utterance": "Hola amigo, que tal estas hoy?"})
    chat.enqueue({"utterance": "Hola amigo, que tal estas hoy?"})
    streamed, reply = said(brain, "thornbury", "bram", "Hello!")
    assert "Hola" not in reply.text and streamed == reply.text
    assert asyncio.run(brain.stats("thornbury")).refusals_by_check == {"town.foreign": 2}


def test_every_check_is_named_with_its_reason_and_stages() -> None:
    assert len(REGISTRY) >= 10
    for name, found in REGISTRY.items():
        assert "." in name and found.reason and found.stages
    with pytest.raises(ValueError, match="registered twice"):
        check("town.stranger", reason="again")(lambda text, ctx: None)


def test_first_refusal_names_the_rule() -> None:
    cast = Cast.of("Bram Holt", "", ["Ana Costa"], ["Bram Holt forges swords"])
    ctx = Context(BRAM, cast, "How are you?")
    refusal = first_refusal("Mike Brown sends his regards to you.", ctx, Stage.REPLY)
    assert refusal is not None and refusal.check == "town.stranger"
    assert first_refusal("The forge is hot today, friend.", ctx, Stage.REPLY) is None
    assert first_refusal("Hi Bram! How are you doing?", ctx, Stage.REPLY) is not None


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        ("Hi Ana! I'm a net mender, you know.", True),  # Ana's trade, not Bram's
        ("Hi Ana! I'm a blacksmith, and the forge is hot today.", False),
        ("Hi Ana! How are the nets?", False),
        ('Hi Ana! Tomas Reyes told me: "I\'m a fisherman, and proud of it."', False),  # quoted
    ],
)
def test_a_speaker_does_not_claim_what_its_persona_does_not_say(line: str, refused: bool) -> None:
    cast = Cast.of("Bram Holt", "Ana Costa", [], ["Ana Costa mends nets"])
    refusal = first_refusal(line, Context(BRAM, cast), Stage.LINE)
    assert (refusal is not None and refusal.check == "line.claims_another_identity") is refused


def test_a_games_own_act_examples_join_the_shipped_ones(tmp_path: Path) -> None:
    examples = tmp_path / "acts.tsv"
    examples.write_text("# our game\nrequest\tReforge the Blade of Ages for me\n", "utf-8")
    brain = make_brain(tmp_path, embedder=HashingEmbedder(512), act_examples=str(examples))
    understanding = brain._minds._replies.understanding  # noqa: SLF001 - what it was given
    assert understanding.acts.examples[-1].text == "Reforge the Blade of Ages for me"
    examples.write_text("bribe\tHere's a gold coin, look away\n", "utf-8")
    with pytest.raises(InvalidArgument) as refused:
        make_brain(tmp_path / "other", act_examples=str(examples))
    assert refused.value.field == "act_examples" and "bribe" in str(refused.value)


def test_every_act_has_its_composer() -> None:
    assert set(COMPOSERS) == set(Act)


def test_who_it_is_is_said_by_an_npc_with_a_past(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, reply = said(brain, "thornbury", "bram", "What's your name?")
    assert reply.text.startswith("My name is Bram Holt."), reply.text


@pytest.mark.parametrize(
    ("line", "asks_the_npc"),
    [
        ("What are your plans?", True),
        ("Been busy?", True),  # the subject left out
        ("Got anything on this week?", True),
        ("Anything planned for tomorrow?", True),  # "(Have you got) anything planned"
        ("Anything happen yesterday?", False),  # of the world
        ("Who runs the forge?", False),
    ],
)
def test_a_question_asks_about_the_npc_itself_when_its_subject_is_you(
    line: str, asks_the_npc: bool
) -> None:
    assert to_you(line) is asks_the_npc


def test_an_opinion_of_a_person_says_what_the_npc_concluded_about_them(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, hearsay = said(brain, "thornbury", "ana", "What do you think of Tomas?")
    assert hearsay.act == "opinion"
    assert hearsay.text == (
        "I don't know Tomas well yet. Tomas Reyes told me that he is selling his boat."
    )
    thinks = "Tomas Reyes keeps telling people he's selling his boat."
    remember(brain, "thornbury", "ana", thinks, MemoryKind.REFLECTION)
    _, concluded = said(brain, "thornbury", "ana", "What do you think of Tomas?")
    assert concluded.text == "I think Tomas Reyes keeps telling people he's selling his boat."
    again = village(tmp_path / "again", reply_wording="plain")  # a reflection that thinks
    thinks = "Ana Costa thinks Tomas Reyes should keep his boat and hire a deckhand."
    remember(again, "thornbury", "ana", thinks, MemoryKind.REFLECTION, NOW)
    _, once = said(again, "thornbury", "ana", "What do you think of Tomas?")
    assert once.text == "I think Tomas Reyes should keep his boat and hire a deckhand."


def test_asked_about_a_day_ahead_the_npc_tells_what_it_agreed_to_do_then(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    said_to = (
        "Bram Holt said to Ana Costa: \"I'd love to come to the Harvest Feast at the"
        ' Long Hall on Friday at 6 pm!"'
    )
    remember(brain, "thornbury", "bram", said_to, MemoryKind.DIALOGUE)
    _, friday = said(brain, "thornbury", "bram", "Are you going anywhere on Friday?")
    assert friday.text == "On Friday, May 16 at 6 pm I'll go to the Harvest Feast at the Long Hall."
    _, thursday = said(brain, "thornbury", "bram", "What will you do on Thursday?")
    assert "Harvest Feast" not in thursday.text and "12:30 am" not in thursday.text


def test_asked_what_someone_said_the_npc_tells_only_what_was_said(tmp_path: Path) -> None:
    """A plan that shares the question's words is no answer to what someone said."""
    brain = village(tmp_path, reply_wording="plain")
    plan = "Bram Holt's plan for May 14: shoe the reeve's horse, rehang the town gate"
    remember(brain, "thornbury", "bram", plan, MemoryKind.PLAN)
    _, reply = said(brain, "thornbury", "bram", "What did the reeve say about the town gate?")
    assert "plan" not in reply.text and "rehang" not in reply.text
    told = Source(SourceKind.TOLD, "ana")
    words = "Ana Costa told Bram Holt that the reeve wants the town gate painted red"
    remember(brain, "thornbury", "bram", words, source=told)
    _, reply = said(brain, "thornbury", "bram", "What did the reeve say about the town gate?")
    assert "painted red" in reply.text


def test_a_request_a_memory_bars_is_declined_with_it(tmp_path: Path) -> None:
    """What the NPC knows bars a request for the thing it names, at the time asked: the
    sealed bay, the forge shut on Friday; not another bay, nor another day."""
    brain = station(tmp_path)
    sealed = "Kai Moreau sealed docking bay 3 after a coolant leak and moved the Plover to bay 5"
    remember(brain, "halcyon", "kai", sealed, at=NOW - 5 * HOUR)
    _, bay3 = said(brain, "halcyon", "kai", "Can you put my ship in docking bay 3?")
    assert bay3.text.startswith("I'm sorry, I can't. I sealed docking bay 3"), bay3.text
    _, bay5 = said(brain, "halcyon", "kai", "Can you put my ship in docking bay 5?")
    assert not bay5.text.startswith("I'm sorry, I can't."), bay5.text
    gates = "Kai Moreau keeps the east airlock sealed all day while the seals cure"
    remember(brain, "halcyon", "kai", gates, at=NOW - 2 * HOUR)
    _, east = said(brain, "halcyon", "kai", "Can you open the east airlock for me?")
    assert east.text.startswith("I'm sorry, I can't. I keep the east airlock sealed"), east.text
    _, west = said(brain, "halcyon", "kai", "Can you open the west airlock for me?")
    assert not west.text.startswith("I'm sorry, I can't."), west.text  # another airlock
    village_brain = village(tmp_path / "village", reply_wording="plain")
    shut = "Bram Holt plans to keep the forge shut on Friday for his cousin's wedding"
    remember(village_brain, "thornbury", "bram", shut, MemoryKind.PLAN)
    _, friday = said(village_brain, "thornbury", "bram", "Can you open the forge for me on Friday?")
    assert friday.text.startswith("I'm sorry, I can't. I plan to keep the forge shut"), friday.text
    _, today = said(village_brain, "thornbury", "bram", "Can you open the forge for me today?")
    assert not today.text.startswith("I'm sorry, I can't."), today.text


def test_a_request_for_a_time_the_npc_has_planned_otherwise_is_declined_with_the_plan(
    tmp_path: Path,
) -> None:
    """A plan of some hours (not a day's plan, which holds its work too) takes the time
    it names: asked for that time, the NPC says its plan; for another, it is free."""
    brain = station(tmp_path)
    plan = "Imani Osei plans to scan the night crew on Friday from 0800 to 1200"
    remember(brain, "halcyon", "osei", plan, MemoryKind.PLAN)
    _, busy = said(brain, "halcyon", "osei", "Can you look at my arm on Friday at 0900?")
    assert (
        busy.text
        == "I'm sorry, I can't then. I plan to scan the night crew on Friday from 0800 to 1200."
    )
    _, late = said(brain, "halcyon", "osei", "Can you look at my arm on Friday at 1130?")
    assert late.text.startswith("I'm sorry, I can't then."), late.text  # within its hours
    _, free = said(brain, "halcyon", "osei", "Can you look at my arm on Friday at 1600?")
    assert not free.text.startswith("I'm sorry, I can't then."), free.text
    # a plan of the thing asked about is no other business
    _, same = said(
        brain, "halcyon", "osei", "Can I help you scan the night crew on Friday at 0900?"
    )
    assert not same.text.startswith("I'm sorry, I can't then."), same.text


def test_a_time_said_of_the_speakers_own_doings_is_not_the_time_asked(tmp_path: Path) -> None:
    """The busy check reads the time of what is asked (its promise, else the last
    clause): "I ship out on Friday at 0900, can you look at my arm?" asks for now; a
    time a thing is wanted by ("for Friday") is no time the NPC must be at it."""
    brain = station(tmp_path)
    plan = "Imani Osei plans to scan the night crew on Friday from 0800 to 1200"
    remember(brain, "halcyon", "osei", plan, MemoryKind.PLAN)
    line = "I ship out on Friday at 0900, can you look at my arm?"
    _, now = said(brain, "halcyon", "osei", line)
    assert not now.text.startswith("I'm sorry, I can't then."), now.text
    _, then = said(brain, "halcyon", "osei", "can you look at my arm on Friday at 0900?")
    assert then.text.startswith("I'm sorry, I can't then."), then.text
    _, wanted_by = said(brain, "halcyon", "osei", "can you mix me a burn salve for Friday?")
    assert not wanted_by.text.startswith("I'm sorry, I can't then."), wanted_by.text
    # the speaker's own wish, its subject left out, is no promise asked of the NPC
    wish = "fancy a trip to the belt on Friday at 0900, so look at my arm first please"
    _, wished = said(brain, "halcyon", "osei", wish)
    assert not wished.text.startswith("I'm sorry, I can't then."), wished.text


def test_a_declared_action_is_not_granted_when_a_memory_bars_it(tmp_path: Path) -> None:
    """The game's action is held to the NPC's state as its words are: the sealed bay
    is refused with its reason and no action; another bay, said in digits or words, is
    granted."""
    brain = station(tmp_path)
    bays = ActionArgument(
        "bay", ArgumentType.PLACE, (ActionOption("bay_3", "bay 3"), ActionOption("bay_5", "bay 5"))
    )
    dock = GameAction("assign_bay", "put a ship in a docking bay", (bays,))
    asyncio.run(brain.upsert_agent("halcyon", "kai", KAI, NOW - 48 * HOUR, actions=(dock,)))
    sealed = "Kai Moreau sealed docking bay 3 after a coolant leak and moved the Plover to bay 5"
    remember(brain, "halcyon", "kai", sealed, at=NOW - 5 * HOUR)
    _, bay3 = said(brain, "halcyon", "kai", "put my ship in docking bay 3")
    assert bay3.game_action is None
    assert bay3.text.startswith("I'm sorry, I can't. I sealed docking bay 3"), bay3.text
    _, bay5 = said(brain, "halcyon", "kai", "put my ship in docking bay five")
    assert bay5.game_action is not None and bay5.game_action.arguments == {"bay": "bay_5"}
    # a line that names no bay asks for none of them: it is given the one not sealed,
    # and told which
    _, any_bay = said(brain, "halcyon", "kai", "put my ship in a docking bay")
    assert any_bay.game_action is not None and any_bay.game_action.arguments == {"bay": "bay_5"}
    assert "Bay 5 it is." in any_bay.text, any_bay.text


@pytest.mark.parametrize(
    ("line", "past"),
    [
        ("What did I buy from you?", True),
        ("Did you sell the boat?", True),
        ("rent me a vac suit for the day?", False),  # "rent", not the past of "rend"
        ("Could you fix it?", False),
        # the tense is the main clause's, not an infinitive's or a relative clause's
        ("how much to fix a drone that fried itself?", False),
        ("what d'you charge to get a mule shod?", False),
        ("what did you sell to the sheriff?", True),
        ("bought a mule off Silas, can you write it in the ledger?", False),  # asks at the end
    ],
)
def test_a_question_of_the_past_is_not_an_order_opened_by_a_verb_of_two_forms(
    line: str, past: bool
) -> None:
    assert asks_of_the_past(line) is past


def test_chat_speak_is_spelled_out_before_a_line_is_read() -> None:
    assert normalised("hw much for a week's mooring, tmrw?") == (
        "how much for a week's mooring, tomorrow?"
    )


def test_asked_its_plans_for_the_next_days_the_npc_tells_the_plans_it_made_for_then(
    tmp_path: Path,
) -> None:
    """However many memories are nearer the line's words (more than a reply recalls)."""
    brain = station(tmp_path)
    plan = "Imani Osei plans to restock the med bay on Friday at 0900"
    remember(brain, "halcyon", "osei", plan, MemoryKind.PLAN)
    for i in range(15):
        seen = f"Imani Osei saw that crew member {i} got anything they needed"
        remember(brain, "halcyon", "osei", seen, at=NOW - i * HOUR)
    _, ahead = said(brain, "halcyon", "osei", "Got anything on for the next few days?")
    assert ahead.text == "I plan to restock the med bay on Friday at 0900."


def test_asked_its_opinion_of_a_place_it_has_no_memory_of_the_npc_says_who_keeps_it(
    tmp_path: Path,
) -> None:
    brain = station(tmp_path)
    places = ["Halcyon:Ring A:med bay", "Halcyon:Ring B:cantina"]
    asyncio.run(brain.perceive("halcyon", "kai", NOW - HOUR, [], places))
    _, kept = said(brain, "halcyon", "kai", "Is the med bay any good?")
    assert kept.text.startswith("The med bay? Imani Osei runs the med bay of Halcyon Station")
    _, nobody = said(brain, "halcyon", "kai", "Is the cantina any good?")
    assert nobody.text == "I don't have much of an opinion on that."


def test_a_question_inside_do_you_know_is_about_its_subject_not_the_npc(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    for line in ("Have you heard of anyone running for mayor? Who?", "Do you know who sells rope?"):
        _, reply = said(brain, "thornbury", "bram", line)
        assert "hinges" not in reply.text, line  # not what the blacksmith is doing now
    _, known = said(brain, "thornbury", "ana", "Do you know who is selling a boat?")
    assert known.text == "Tomas Reyes told me that he is selling his boat."


def test_asked_for_news_of_a_thing_it_has_not_heard_of_the_npc_says_so(tmp_path: Path) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, latest = said(brain, "thornbury", "ana", "Any news?")
    assert "selling his boat" in latest.text  # news in general: the latest it heard
    _, none = said(brain, "thornbury", "ana", "Is there a wedding coming up?")
    assert none.text == "No, I haven't heard anything about a wedding."


@pytest.mark.parametrize(
    ("line", "thing"),
    [
        ("Have you heard of an auction coming up? Who is holding it?", "an auction"),
        ("Heard anything about the new bridge?", "the new bridge"),
        ("Is there an election coming up in town?", "an election"),
        ("Any news in town this week?", ""),  # news in general
        ("Have you heard of anyone running for mayor?", ""),  # no thing with its article
        ("Any word from Halcyon Station?", ""),  # a name is a place or a person, not a thing
    ],
)
def test_the_thing_a_line_asks_after_is_named_with_its_article(line: str, thing: str) -> None:
    assert thing_asked(line) == thing


@pytest.mark.parametrize(
    "line",
    ["What are you doing right now?", "Good morning, Bram! Busy repairing something?", "Busy?"],
)
def test_asked_what_it_is_doing_the_npc_says_what_it_is_doing(tmp_path: Path, line: str) -> None:
    brain = village(tmp_path, reply_wording="plain")
    _, reply = said(brain, "thornbury", "bram", line)
    assert reply.text.endswith("I'm repairing the town gate's hinges.")  # after a greeting back


def test_asked_for_a_thing_it_does_not_sell_the_npc_says_so_and_who_does(
    tmp_path: Path,
) -> None:
    brain = village(tmp_path, reply_wording="plain")

    async def stock() -> None:
        for text in (
            "Ana Costa sells a hand net for 6 coins",
            "Ana Costa sells a coil of rope for 3 coins",
        ):
            memory = Observation(text)
            await brain.add_memory(
                "thornbury", "ana", NOW - 40 * HOUR, MemoryKind.OBSERVATION, memory
            )

    asyncio.run(stock())
    _, boat = said(brain, "thornbury", "ana", "Do you sell boats?")
    assert boat.act == "trade"
    assert boat.text == "No, I don't sell boats. Tomas Reyes told me that he is selling his boat."
    _, swords = said(brain, "thornbury", "ana", "Do you sell swords?")
    assert swords.text == (
        "No, I don't sell swords. I have a hand net for 6 coins and a coil of rope for 3 coins."
    )
    _, rope = said(brain, "thornbury", "ana", "What's the price of rope?")
    assert rope.text == "A coil of rope is 3 coins."


def test_a_shopkeeper_whose_wares_have_no_prices_says_what_its_shop_sells(
    tmp_path: Path,
) -> None:
    brain = station(tmp_path)
    keeper = Persona(
        "Rui Tan", 50, "thrifty", "keeps the ring store, which sells tools, lamps and rations"
    )

    async def hire() -> None:
        await brain.upsert_agent("halcyon", "rui", keeper, NOW - 48 * HOUR)

    asyncio.run(hire())
    _, lamps = said(brain, "halcyon", "rui", "Do you sell lamps?")
    assert lamps.text == "Yes, I do. I keep the ring store, which sells tools, lamps and rations."
    _, price = said(brain, "halcyon", "rui", "How much is a lamp?")
    assert price.text == "I keep the ring store, which sells tools, lamps and rations."
    _, suits = said(brain, "halcyon", "rui", "Do you sell pressure suits?")
    assert suits.text.startswith("No, I don't sell pressure suits. I keep the ring store")


def test_a_line_asking_what_the_npc_is_doing_is_answered_so_whatever_act_it_is_nearest(
    tmp_path: Path,
) -> None:
    # "Busy X?" read as a request was answered "Of course, I can help with that." in
    # NPC conversations (the two-day run): it asks what the NPC is doing, whatever act
    brain = village(tmp_path, reply_wording="plain")
    _, busy = said(brain, "thornbury", "bram", "Busy helping me with my horse?")
    assert busy.act == "request"
    assert busy.text == "I'm repairing the town gate's hinges."


@pytest.mark.parametrize(
    ("line", "then"),
    [
        ("waive my docking fees or I ram your hull", "or I ram your hull"),
        ("Fifty credits, or your depot has an accident.", "or your depot has an accident."),
        ("Hand it over, or else", "or else"),
        (
            "Pay me today, or somebody finds you in the river.",
            "or somebody finds you in the river.",
        ),
        ("Tea or coffee?", None),
        ("one or two loaves please", None),
        ("Is it free or do I pay?", None),
        # an order says what follows if it is done after its "and", put as after an "or"
        (
            "pour me another like that and this stool goes through your window",
            "or this stool goes through your window",
        ),
        ("Cheat me again, and you'll regret it.", "or you'll regret it."),
        ("Two loaves and a pie", None),
        ("Need a bed, I've been riding since dawn and my back is done for.", None),
        # a noun that is a verb's form too opens no order ("head of my axe")
        ("head of my axe is loose and the edge is chipped to hell.", None),
        # a condition on the listener says what follows it after a comma or a subject
        (
            "if you try fining me you're going in the river",
            "or you're going in the river",
        ),
        ("If you touch my cart again, I'll break your arm.", "or I'll break your arm."),
        ("if you've a room, I'll take it", "or I'll take it"),
    ],
)
def test_a_demand_says_what_follows_a_refusal_after_its_or(line: str, then: str | None) -> None:
    assert consequence(line) == then


def test_a_day_or_a_month_is_nobody_unknown() -> None:
    line = "I'd love to come to the feast at the Mill on Tuesday, February 14!"
    assert strangers_in(line, {"mill"}) == []
    assert strangers_in("Do you know a Zedrick Pell?", set()) == ["Zedrick Pell"]


@pytest.mark.parametrize(("share", "warned"), [(0.8, True), (0.3, False)])
def test_only_a_sure_threat_is_warned_off(share: float, warned: bool) -> None:
    """ "There's a fight in the bar!" may be read as a threat, barely: it is calmed, not
    threatened back."""
    vote = Vote("threat", {"threat": share, "other": 1 - share}, "")
    line = "There's a fight in the bar!"
    heard = Heard(line, Act.THREAT, vote, None, (), (), (), None, np.zeros(3, np.float32))
    keeper = AgentRecord("sal", Persona("Sal Ortiz", 44, "loud", "keeps the saloon"))
    scene = Scene(None, keeper, "player", "", 0.0, heard, {}, [], None, None)  # type: ignore[arg-type]
    said = " ".join(asyncio.run(COMPOSERS[Act.THREAT](scene)).sentences)
    assert ("regret" in said) is warned, said


def test_a_role_is_named_by_its_lemma_not_its_stem() -> None:
    """ "engines" share the stem of "engineer" but do not name the engineer."""
    from npc_brain.mind.talk.understand import by_role

    roles = {"teo": "junior engineer who keeps the reactor running", "rook": "the dock chief"}
    assert by_role("engines are warm, waiting on you", roles) == []
    assert by_role("is the engineer about?", roles) == ["teo"]
    assert by_role("where's the dock chief's office?", roles) == ["rook"]


def test_an_offer_of_work_in_a_threats_words_is_no_threat() -> None:
    """ "I'll sweep your floors" has a threat's grammar; a need of work surely shown
    makes it an offer. A threat's own needs (guard, berth) do not."""
    from npc_brain.mind.talk.understand import _offers_work

    assert _offers_work(Vote("work", {"work": 0.52, "none": 0.1}, ""))
    assert not _offers_work(Vote("work", {"work": 0.22, "none": 0.2}, ""))
    assert not _offers_work(Vote("guard", {"guard": 0.6}, ""))


@pytest.mark.parametrize(
    ("line", "asks"),
    [
        ("whats mooring cost by the week", True),
        ("is the causeway passable", True),
        ("Heard the ferry sank. Is it true?", True),
        ("it's my son's birthday on friday and I promised him a cake", False),
        ("I'm a bit lost here.", False),
    ],
)
def test_a_question_is_told_from_a_statement_without_its_mark(line: str, asks: bool) -> None:
    """A statement the act classifier reads as a question of fact asks nothing: the
    need it shows may still be for a game action."""
    from npc_brain.mind.talk.understand import a_question

    assert a_question(line) is asks


@pytest.mark.parametrize(
    ("line", "offers"),
    [
        ("Heard your canisters walked off. Want me to find out where they went?", True),
        ("need a hand with those barrels?", True),
        ("I'll help hang the lanterns if you're short of hands", True),
        ("where do you want me to put her?", False),
        ("I need a hand net", False),
    ],
)
def test_an_offer_to_do_something_for_the_listener_asks_for_work(line: str, offers: bool) -> None:
    from npc_brain.mind.talk.understand import offers_help

    assert offers_help(line) is offers


def test_a_farewell_that_surely_orders_is_an_order(tmp_path: Path) -> None:
    """ "gimme a stim, doc, i'm already fading" reads as a farewell by its words; its
    deal, surely an order, keeps the talk going."""
    from npc_brain.mind.talk.understand import _orders

    assert _orders(Vote("order", {"order": 0.8, "other": 0.2}, ""))
    assert not _orders(
        Vote("order", {"order": 0.56, "other": 0.42, "ask": 0.02}, "")
    )  # "I'll be off then"
    assert not _orders(Vote("other", {"other": 0.9}, ""))
