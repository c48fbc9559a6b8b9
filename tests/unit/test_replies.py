"""Grounded replies: what a question is about, the facts a reply rests on, degenerate or
ungrounded replies drawn again and then replaced (scripted model, hashing embedder)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.llm.fakes import ScriptedChat, StuckChat
from npc_brain.llm.schema_check import value_error
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.mind.talk.answers import (
    DONT_KNOW,
    GREETING,
    ON_IT,
    broken,
    degenerate,
    denies,
    echoes,
    first_person,
    greets,
    grounded,
    key_terms,
    left_out,
    names_in,
    on_it,
    plain_answer,
    turned_around,
    unfounded,
)
from npc_brain.mind.talk.misfit import Cast
from npc_brain.mind.talk.prompts import REPLY_SCHEMA, opening_of, reply_schema
from npc_brain.mind.talk.reply import _misquotes, plain_reply
from npc_brain.persona import AgentRecord, Persona
from tests.conftest import make_brain

T0 = 1_676_300_000.0
ISABELLA = Persona("Isabella Rodriguez", age=34, learned="owns Hobbs Cafe")
CAFE = "the Ville:Hobbs Cafe:cafe"
PEOPLE = ["Mei Lin", "Sam Moore", "Maria Lopez"]
PARTY = "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe on February 14"


def reply(text: str) -> dict[str, object]:
    return {"utterance": text, "end_conversation": False}


def test_degenerate_replies_are_recognised() -> None:
    assert degenerate("A: 123s, 123s, 123s, 123s", ISABELLA) == "a role tag"
    assert degenerate("so good, so good, so good, so good", ISABELLA) == "a repetition loop"
    assert degenerate("123s, 123s, 123s, 123s, 123s", ISABELLA) == "number soup"
    assert degenerate("Klaus Mueller, 2023.02.01 13:54:32.54.006", ISABELLA) == "number soup"
    assert degenerate("Brian Klaus Mueller", ISABELLA) == "a bare name"
    assert degenerate("Isabella Rodriguez", ISABELLA) == "only a name"
    assert degenerate('{"utterance": "hi"}', ISABELLA) == "a markup or JSON fragment"
    assert degenerate("Yes", ISABELLA) == "too short"
    assert broken("Isabella Rodriguez: Hi Maria! What's new?") == "a role tag"
    assert broken("Hi Maria! What's new?") is None
    maria = "I'm sorry, I'm not a human. I'm a virtual character created to explore the world."
    assert broken(maria) == "out of character"  # the default demo, Maria to Sam
    assert broken("As an AI, I cannot go to parties.") == "out of character"
    assert broken("I'm an AI model trained to help you.") == "out of character"
    assert broken("I'm not a morning person, but the cafe opens at 8.") is None
    assert broken("The virtual tour of the museum starts at noon.") is None
    echoed = "What you know that bears on this:\n- Isabella is planning a party.\n- You're up?"
    assert degenerate(echoed, ISABELLA) == "a list (the prompt's facts echoed)"
    assert degenerate("The party starts at 5:00 pm, do come along!", ISABELLA) is None


def test_a_reply_is_grounded_when_it_names_a_fact() -> None:
    assert grounded("Yes, I'm throwing a party at the cafe on the 14th.", [PARTY])
    assert grounded("Come to Hobbs Cafe!", [PARTY])  # a name is enough
    assert not grounded("I like sunny days and long walks.", [PARTY])
    # echoing the question or one's own name says nothing of the fact
    known = "Is there a party? Isabella Rodriguez"
    assert not grounded("Isabella Rodriguez, a party!", [PARTY], known=known)
    assert grounded("Yes, at Hobbs Cafe.", [PARTY], known=known)
    assert grounded("I don't know.", [])  # nothing known: honesty is grounded
    # asked to react, a reply takes the situation up and adds to it; an echo does not
    fire = "Your breakfast is burning! What would you do?"
    assert grounded("I'd take the burning pan off the stove at once.", [], fire, fire)
    assert grounded("I'd put out the burning breakfast.", [], fire, fire)
    assert not grounded("Your breakfast is burning!", [], fire, fire)
    assert not grounded("I like sunny days.", [], fire, fire)
    # a time nobody gave is made up, however much else the reply shares with the fact
    assert not grounded("My party at Hobbs Cafe starts at 10:00.", [PARTY])
    assert grounded("My party at Hobbs Cafe is on the 14th.", [PARTY])


def test_plain_answers_speak_in_the_first_person() -> None:
    assert plain_answer(ISABELLA, PARTY) == (
        "I am throwing a Valentine's Day party at Hobbs Cafe on February 14."
    )
    assert plain_answer(ISABELLA, "Isabella Rodriguez owns Hobbs Cafe") == "I own Hobbs Cafe."
    assert plain_answer(ISABELLA, "Isabella Rodriguez owns a cafe and loves people") == (
        "I own a cafe and love people."
    )
    assert plain_answer(ISABELLA, "Klaus studies at the library") == (
        "As far as I know, Klaus studies at the library."
    )
    assert plain_answer(ISABELLA, PARTY + ", and wants to invite everyone she meets") == (
        "I am throwing a Valentine's Day party at Hobbs Cafe on February 14."
    )
    assert plain_answer(ISABELLA, "Isabella Rodriguez is planning a party and wants to sing") == (
        "I am planning a party and want to sing."
    )
    lifestyle = "Isabella Rodriguez goes to bed around 11pm, wakes up around 6am"
    assert plain_answer(ISABELLA, lifestyle) == "I go to bed around 11pm, wake up around 6am."
    assert plain_answer(ISABELLA, "Isabella Rodriguez likes tea, sweets") == "I like tea, sweets."
    # the speaker's own name inside a fact is "my" or "me"
    maria = Persona("Maria Lopez", age=21)
    boss = "Isabella Rodriguez owns Hobbs Cafe and is Maria Lopez's boss and friend"
    assert plain_answer(maria, boss) == (
        "As far as I know, Isabella Rodriguez owns Hobbs Cafe and is my boss and friend."
    )
    assert plain_answer(maria, "Klaus invited Maria to the party") == (
        "As far as I know, Klaus invited me to the party."
    )
    heard = 'Maria Lopez said to Isabella Rodriguez: "Klaus is writing a paper."'
    assert plain_answer(ISABELLA, heard) == 'Maria Lopez told me: "Klaus is writing a paper."'
    own = 'Isabella Rodriguez said to Maria Lopez: "Come to my party!"'
    assert plain_answer(ISABELLA, own) == 'I told Maria Lopez: "Come to my party!"'
    # a line passed on twice keeps one pair of quotes and names where it began
    twice = 'Sam Moore said to Isabella Rodriguez: "Maria Lopez told me: "Klaus is writing.""'
    assert plain_answer(ISABELLA, twice) == (
        'Sam Moore told me that Maria Lopez said: "Klaus is writing."'
    )
    thrice = 'Sam Moore said to Isabella Rodriguez: "Eddy told me that Maria said: "Hi.""'
    assert plain_answer(ISABELLA, thrice) == 'Sam Moore told me that Maria said: "Hi."'
    assert plain_answer(ISABELLA, None) == DONT_KNOW
    burning = "Your breakfast is burning! What would you do?"
    assert plain_answer(ISABELLA, None, situation=burning) == ON_IT.format("my breakfast")
    people = {"klaus": "Klaus Mueller", "maria": "Maria Lopez"}
    assert names_in("Have you seen Klaus today?", people) == ["klaus"]


def converse(brain: Brain, utterance: str, agent_id: str = "isabella") -> tuple[str, str]:
    """(the streamed text, the final line's text) of an agent's reply to a player."""

    async def run() -> tuple[str, str]:
        streamed, final = "", ""
        async for event in brain.converse("", agent_id, T0, "player", utterance):
            if isinstance(event, Line):
                final = event.text
            else:
                streamed += event
        return streamed, final

    return asyncio.run(run())


def grounded_brain(tmp_path: Path, chat: ScriptedChat) -> Brain:
    brain = make_brain(tmp_path, chat, grounded_replies=True)

    async def setup() -> None:
        await brain.upsert_agent("", "isabella", ISABELLA, T0)
        await brain.add_memory(
            "", "isabella", T0, MemoryKind.OBSERVATION, Observation(PARTY, importance=8)
        )

    asyncio.run(setup())
    return brain


def test_a_degenerate_reply_is_drawn_again_and_the_final_line_is_the_good_one(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    chat.enqueue(reply("A: 123s, 123s, 123s"), reply("Yes! My Valentine's Day party, on the 14th."))
    streamed, final = converse(brain, "Is there a party at Hobbs Cafe this week?")
    # The plain answer's opening streamed before the model ran; a draw that does not
    # begin with it (this fake ignores grammars) streams no further.
    assert streamed == "I am throwing a"
    assert final == "Yes! My Valentine's Day party, on the 14th."
    replies = [c for c in chat.history if c.schema and "utterance" in str(c.schema)]
    assert len(replies) == 2 and PARTY in replies[0].messages[0].content  # the fact given
    stored = asyncio.run(brain.list_memories("", "isabella", kinds=[MemoryKind.DIALOGUE]))
    assert stored.memories[-1].description.endswith(
        '"Yes! My Valentine\'s Day party, on the 14th."'
    )


def test_replies_that_stay_ungrounded_give_way_to_a_plain_sentence_from_the_best_fact(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    chat.enqueue(*[reply("I like sunny days and long walks.")] * 3)
    _, final = converse(brain, "Is Isabella throwing a party on February 14?")
    assert final.startswith("I am throwing a Valentine's Day party")


def test_a_reply_naming_someone_no_fact_names_gives_way_to_the_plain_sentence(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    asyncio.run(brain.upsert_agent("", "mei", Persona("Mei Lin"), T0))
    chat.enqueue(*[reply("Mei Lin is throwing a party at Hobbs Cafe.")] * 3)
    _, final = converse(brain, "Is Isabella throwing a party on February 14?")
    assert final.startswith("I am throwing a Valentine's Day party")
    assert unfounded("Mei Lin, the mayor.", ["Sam Moore is running for mayor"], PEOPLE) == [
        "Mei Lin"
    ]
    assert unfounded("Sam is, Maria says.", ["Maria said Sam Moore runs"], PEOPLE) == []


async def _town_where_one_heard(brain: Brain, people: dict[str, str], line: str) -> None:
    """The people (id -> name); the first of them remembers the dialogue `line`."""
    for agent_id, name in people.items():
        await brain.upsert_agent("", agent_id, Persona(name), T0)
    memory = Observation(line, importance=8)
    await brain.add_memory("", next(iter(people)), T0, MemoryKind.DIALOGUE, memory)


def test_a_reply_about_news_names_whom_the_news_is_about(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    heard = 'Eddy Lin said to Klaus Mueller: "Sam Moore is running for mayor of the Ville."'

    people = {"klaus": "Klaus Mueller", "eddy": "Eddy Lin", "sam": "Sam Moore"}
    asyncio.run(_town_where_one_heard(brain, people, heard))
    # the 10-agent day: John's answer gave Sam's race to Eddy, who had told him of it
    chat.enqueue(*[reply("The Ville's mayor, Eddy Lin, is running for mayor.")] * 3)

    async def ask() -> str:
        final = ""
        question = "Have you heard of anyone running for mayor? Who?"
        async for event in brain.converse("", "klaus", T0, "player", question, True):
            final = event.text if isinstance(event, Line) else final
        return final

    assert asyncio.run(ask()) == 'Eddy Lin told me: "Sam Moore is running for mayor of the Ville."'
    assert left_out("Sam is running, Eddy says.", heard, ["Eddy Lin", "Sam Moore"]) == []


def test_a_reply_about_news_does_not_deny_the_news_it_holds(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    running = "Sam Moore is running for mayor of the Ville"

    async def setup() -> None:
        await brain.upsert_agent("", "sam", Persona("Sam Moore"), T0)
        memory = Observation(running, importance=8)
        await brain.add_memory("", "sam", T0, MemoryKind.OBSERVATION, memory)

    asyncio.run(setup())
    # the 10-agent day: the candidate himself, asked at the end
    chat.enqueue(*[reply("no, no one has been running for mayor of the Ville.")] * 3)
    _, final = converse(brain, "Have you heard of anyone running for mayor? Who?", "sam")
    assert final == "I am running for mayor of the Ville."
    assert denies("I haven't heard of it.") and not denies("Sam Moore is running.")
    # the 3-agent morning (Q8_0 weights): Maria, who was told the party
    assert denies("no, that party is in the future, it's just a secret.")
    assert not denies("Noah is cooking.") and not denies("Now, yes.")


def test_what_memory_does_not_hold_gets_an_honest_answer(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    asyncio.run(brain.upsert_agent("", "isabella", Persona("Isabella Rodriguez"), T0))
    chat.enqueue(*[reply("Isabella Rodriguez")] * 3)
    _, final = converse(brain, "What did the mayor say about the bridge?")
    assert final == DONT_KNOW


def test_a_situation_may_be_taken_up_without_facts_but_knowledge_may_not() -> None:
    assert grounded("I would put out the fire at once!", [], "Your house is on fire!")
    assert not grounded("The mayor said the bridge is great.", [])
    assert grounded("I'm not sure, I haven't heard about it.", [])


async def news_facts(brain: Brain, agent_id: str, question: str) -> list[str]:
    """The facts a reply to `question` about news would rest on."""
    world = brain._worlds.get("default")  # noqa: SLF001
    agent = world.store.get_agent(agent_id)
    assert agent is not None
    return await brain._minds._replies.facts(world, agent, T0, question, "news")  # noqa: SLF001


def test_the_fact_that_shares_the_question_s_words_comes_first(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    wife = "Jennifer Moore is Sam Moore's wife, a painter"
    mayor = "Sam Moore is running for mayor of the Ville"

    async def facts() -> list[str]:
        for text, importance in ((wife, 9), (mayor, 5)):
            await brain.add_memory(
                "", "isabella", T0, MemoryKind.OBSERVATION, Observation(text, importance=importance)
            )
        question = "Have you heard of anyone running for mayor? Who?"
        return await news_facts(brain, "isabella", question)

    assert asyncio.run(facts())[0] == mayor


def test_asked_about_news_a_fact_that_says_when_comes_before_a_sighting(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    sighting = "the customer seating is in use: inviting people to the party"
    heard = 'Isabella Rodriguez said to Maria Lopez: "We are planning a party on February 14."'

    async def facts() -> list[str]:
        await brain.upsert_agent("", "maria", Persona("Maria Lopez"), T0)
        for kind, text in ((MemoryKind.DIALOGUE, heard), (MemoryKind.OBSERVATION, sighting)):
            await brain.add_memory("", "maria", T0, kind, Observation(text, importance=5))
        question = "Have you heard of a party coming up? Whose is it, where and when?"
        return await news_facts(brain, "maria", question)

    assert asyncio.run(facts())[0] == heard


def test_asked_about_news_the_fact_telling_most_of_who_where_and_when_comes_first(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    # the 25-agent day: the host answered from the vaguest line she had heard
    own = "Isabella Rodriguez is throwing a party at Hobbs Cafe on February 14"
    heard = 'Maria Lopez said to Isabella Rodriguez: "How about your party tonight?"'
    sighting = "the customer seating is in use: inviting people to the party"
    inviting = "Isabella Rodriguez is inviting people to the party"
    question = "Have you heard of a party coming up? Whose is it, where and when?"

    async def facts(agent_id: str, name: str, memories: list[str]) -> list[str]:
        await brain.upsert_agent("", agent_id, Persona(name, home_address=CAFE), T0)
        for text in memories:
            kind = MemoryKind.DIALOGUE if " said to " in text else MemoryKind.OBSERVATION
            await brain.add_memory("", agent_id, T0, kind, Observation(text, importance=5))
        return await news_facts(brain, agent_id, question)

    assert asyncio.run(facts("isabella", "Isabella Rodriguez", [heard, own]))[0] == own
    assert asyncio.run(facts("maria", "Maria Lopez", [sighting, inviting]))[0] == inviting


def test_the_plain_reply_skips_a_fact_that_would_give_a_garbled_line() -> None:
    agent = AgentRecord("isabella", ISABELLA)
    garbled = "Maria Lopez said: Bienvenido Isabella, es la fiesta de la ciudad"
    cast = Cast.of(ISABELLA.name, "", ["Maria Lopez"], [garbled, PARTY])
    assert plain_reply(agent, [garbled, PARTY], "", cast) == (
        "I am throwing a Valentine's Day party at Hobbs Cafe on February 14."
    )
    assert plain_reply(agent, [garbled], "", cast) == DONT_KNOW


def test_asked_what_it_would_do_an_agent_speaks_for_itself_and_sees_to_the_thing() -> None:
    burning = "Your breakfast is burning! What would you do?"
    # the Q8_0 weights' draws for it, each refused
    assert not first_person("She would not eat any more")
    assert not first_person("You should have asked me to.")
    assert echoes("What would you do? You should have asked me to.", burning)
    assert not echoes("I would turn off the stove.", burning)
    assert first_person("I'd turn off the stove.") and first_person("Let's open a window!")
    assert on_it(burning) == ON_IT.format("my breakfast")
    assert on_it("There is a fire in the cafe!") == ON_IT.format("the fire")
    assert on_it("There are some big dogs outside.") == ON_IT.format("the big dogs")
    assert on_it("A customer fainted at the counter.") == ON_IT.format("the customer")
    assert on_it("Smoke is coming from the kitchen") == ON_IT.format("the smoke")
    assert on_it("Klaus is hurt!", ["Klaus Mueller"]) == ON_IT.format("Klaus")
    assert on_it("It is raining. What now?") == on_it("") == ON_IT.format("it")
    # a fact that shares no word with the situation is no answer to it
    agent = AgentRecord("isabella", ISABELLA)
    fire = "There is a fire in the cafe! What do you do?"
    cast = Cast.of(ISABELLA.name, "", PEOPLE, [PARTY])
    assert plain_reply(agent, [PARTY], fire, cast) == ON_IT.format("the fire")


def test_what_the_agent_and_the_asker_said_to_each_other_is_no_fact_to_tell_them(
    tmp_path: Path,
) -> None:
    chat = ScriptedChat(default={"rating": 9})  # the exchange below rates as news would
    brain = grounded_brain(tmp_path, chat)
    to_maria = 'Isabella Rodriguez said to Maria Lopez: "Come to my party on the 14th!"'
    chat.enqueue(reply("I'm making coffee."))
    converse(brain, "Good morning! What are you up to today?")  # remembered, not an interview

    async def facts() -> list[str]:
        await brain.add_memory(
            "", "isabella", T0, MemoryKind.DIALOGUE, Observation(to_maria, importance=6)
        )
        world = brain._worlds.get("default")  # noqa: SLF001
        agent = world.store.get_agent("isabella")
        assert agent is not None
        question = "Have you heard any news?"
        replies = brain._minds._replies  # noqa: SLF001
        return await replies.facts(world, agent, T0, question, "news", "player")

    found = asyncio.run(facts())
    assert to_maria in found
    assert not [f for f in found if "said to player" in f or "player said to" in f], found


def test_an_agent_with_only_a_persona_tells_what_it_is_doing(tmp_path: Path) -> None:
    """A game's first NPC, created and spoken to at once: asked what it is up to or what
    is happening, it tells what its persona is doing (it said "I don't know anything
    about that", the greeting's words being none of the persona's)."""
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    party = "planning a Valentine's Day party at the cafe"
    persona = Persona("Isabella Rodriguez", learned="runs Hobbs Cafe", currently=party)
    asyncio.run(brain.upsert_agent("", "isabella", persona, T0))
    doing = f"Isabella Rodriguez is {party}"

    async def facts(question: str, topic: str) -> list[str]:
        world = brain._worlds.get("default")  # noqa: SLF001
        agent = world.store.get_agent("isabella")
        assert agent is not None
        return await brain._minds._replies.facts(world, agent, T0, question, topic)  # noqa: SLF001

    assert asyncio.run(facts("Good morning! What are you up to today?", "plans"))[0] == doing
    assert asyncio.run(facts("Is anything special happening in town this week?", "news")) == [doing]
    assert asyncio.run(facts("Have you heard what the mayor said?", "news")) == []


def test_a_greeting_and_nothing_more_is_answered_in_kind(tmp_path: Path) -> None:
    """'Hello!' got 'I go to bed around 11pm, wakes up around 6am.' (read as a question
    about plans, its draft resting on no fact)."""
    assert greets("Hello!") and greets("Hi there!") and greets("Hey, what's up?")
    assert greets("Good morning, Isabella!", ["Isabella Rodriguez"])
    assert not greets("Good morning! What are you up to today?")
    assert not greets("Hello, is the cafe open?") and not greets("Goodbye!")
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    chat.enqueue(reply("Good morning to you!"))
    assert converse(brain, "Hello!")[1] == "Good morning to you!"
    chat.enqueue(reply("Hello! Welcome to Hobbs Cafe."))  # rests on the persona
    assert converse(brain, "Hi there!")[1] == "Hello! Welcome to Hobbs Cafe."
    chat.enqueue(*[reply("Hello! You can always find me at the beach!")] * 3)  # made up
    assert converse(brain, "Hey!")[1] == GREETING
    chat.enqueue(*[reply("Isabella Rodriguez")] * 3)  # degenerate: drawn again, then plain
    assert converse(brain, "Hi Isabella!")[1] == GREETING


def test_a_reply_answering_for_the_asker_is_drawn_again(tmp_path: Path) -> None:
    """Asked "Have you been invited to any event?", a new Isabella said "No, you have not
    been invited to any event, as I am currently..."."""
    question = "Have you been invited to any event?"
    wrong = "No, you have not been invited to any event, as I am busy."
    assert turned_around(wrong, question)
    assert not turned_around("No, I have not been invited to any event.", question)
    assert not turned_around("Yes, you should come!", "Do you think I should come?")
    assert turned_around("You are working at the cafe today.", "Are you working today?")
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    wrong = "You are throwing a party at Hobbs Cafe, I heard."
    chat.enqueue(*[reply(wrong)] * 3)
    streamed, final = converse(brain, "Are you throwing a party?")
    assert streamed == "I am throwing a" and final != wrong  # the check replaced the draft
    assert final.startswith("I am throwing a Valentine's Day party")


def test_with_no_fact_to_word_the_honest_answer_comes_without_a_model_call(
    tmp_path: Path,
) -> None:
    """A new Isabella asked "Have you been invited to any event?" had drawn 'No, you have
    not been invited', "I'm not sure, but I've just been invited to a party tonight" and
    number soup: with nothing known, there is nothing for the model to word."""
    chat = ScriptedChat(default={"rating": 3})
    brain = grounded_brain(tmp_path, chat)
    chat.enqueue(*[reply("No, you have not been invited to any event.")] * 3)
    streamed, final = converse(brain, "Have you been invited to any event?")
    assert streamed == final == DONT_KNOW
    assert not [c for c in chat.history if c.schema and "utterance" in str(c.schema)]


def test_the_plain_answers_opening_streams_before_the_model_answers(tmp_path: Path) -> None:
    """Code chose what to say: the reply begins as the plain answer from the best fact
    does, that opening streams at once, and the model's draw, held to begin with it,
    streams the rest (its own copy of the opening is not sent twice)."""
    chat = StuckChat(default={"rating": 3}, timeout_s=10)
    brain = grounded_brain(tmp_path, chat)
    line = "I am throwing a Valentine's Day party at Hobbs Cafe."
    chat.enqueue(reply(line))

    async def run() -> tuple[object, bool, list[object]]:
        events = brain.converse("", "isabella", T0, "player", "Are you throwing a party?")
        first = await anext(events)
        model_stuck = not chat.release.is_set()
        chat.release.set()
        return first, model_stuck, [event async for event in events]

    first, model_stuck, rest = asyncio.run(run())
    assert first == "I am throwing a" and model_stuck
    assert "".join(str(e) for e in rest[:-1]) == " Valentine's Day party at Hobbs Cafe."
    assert isinstance(rest[-1], Line) and rest[-1].text == line
    (call,) = [c for c in chat.history if c.schema and "utterance" in str(c.schema)]
    assert call.schema == reply_schema("I am throwing a")
    assert value_error(reply(line), call.schema) is None
    assert value_error(reply("Yes! A party on the 14th."), call.schema) is not None


def test_a_draw_that_garbles_streams_no_further(tmp_path: Path) -> None:
    """A new Isabella asked "When do you open the cafe?" streamed number soup
    ("11:46:34.54.50.22.35.9008, ...") before the plain answer replaced it."""
    chat = ScriptedChat(default={"rating": 3}, chunk=4)
    brain = grounded_brain(tmp_path, chat)
    soup = "I am throwing a party at 11 46 34 54 50 22 35 9008 and 11 46 34 54 50."
    chat.enqueue(*[reply(soup)] * 3)
    streamed, final = converse(brain, "Are you throwing a party?")
    assert soup.startswith(streamed) and "I am throwing a party" in streamed
    assert "46 34" not in streamed  # it stopped once the numbers outran the words
    assert final.startswith("I am throwing a Valentine's Day party")


def test_the_opening_is_the_planned_answers_first_words_of_plain_speech() -> None:
    assert opening_of("I run Hobbs Cafe and love to make people feel welcome.") == (
        "I run Hobbs Cafe"
    )
    assert opening_of(DONT_KNOW) == "I'm not sure,"  # to the first clause's end
    assert opening_of(GREETING) == "Hello!"
    assert opening_of('Klaus told me: "I am running for mayor."') == "Klaus told me:"
    assert opening_of("I met José at the cafe.") == "I met"  # never half a word
    assert opening_of("Über alles.") == ""  # a reply with no opening: the plain schema
    assert reply_schema("") == REPLY_SCHEMA


def test_a_reply_about_news_says_what_was_asked_about(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    told = (
        'Maria Lopez said to Klaus Mueller: "Isabella Rodriguez told me: "I am throwing a'
        ' Valentine\'s Day party at Hobbs Cafe on February 14 from 5 pm to 7 pm.""'
    )

    people = {"maria": "Maria Lopez", "klaus": "Klaus Mueller", "isabella": "Isabella Rodriguez"}
    asyncio.run(_town_where_one_heard(brain, people, told))
    # the default demo: the opening code gave named the fact's people, the draw went on
    # about something else, and every check but this one took it
    chat.enqueue(
        *[reply("I told Klaus Mueller: You have a secret crush on Isabella Rodriguez.")] * 3
    )
    # (the demo asked "... coming up? Whose is it, where and when?": news with the real
    # embedder; this is news with the tests' hashing one)
    _, final = converse(brain, "Have you heard of a party? Whose is it?", "maria")
    assert "party" in final and "crush" not in final


def test_a_reply_quoting_its_teller_quotes_the_words_told(tmp_path: Path) -> None:
    chat = ScriptedChat(default={"rating": 3})
    brain = make_brain(tmp_path, chat, grounded_replies=True)
    told = (
        'Isabella Rodriguez said to Jennifer Moore: "Hi Jennifer! I am throwing a'
        " Valentine's Day party at Hobbs Cafe on February 14 from 5 pm to 7 pm.\""
    )
    people = {"jennifer": "Jennifer Moore", "isabella": "Isabella Rodriguez"}
    asyncio.run(_town_where_one_heard(brain, people, told))
    # the default demo: every other check took this made-up quote
    made_up = "Isabella Rodriguez told me: 'You can't have a party if it's not your house."
    chat.enqueue(*[reply(made_up)] * 3)
    _, final = converse(brain, "Have you heard of a party? Whose is it?", "jennifer")
    assert final == (
        "Isabella Rodriguez told me: \"I am throwing a Valentine's Day party at Hobbs Cafe"
        ' on February 14 from 5 pm to 7 pm."'
    )
    opening = "Isabella Rodriguez told me:"
    worded = "Isabella Rodriguez told me: she is throwing a party at Hobbs Cafe on February 14."
    assert not _misquotes(worded, final, opening)
    assert _misquotes(made_up, final, opening)
    sam = 'Sam Moore told me: "I am Sam Moore, running for mayor of the Ville."'
    jane = "Sam Moore told me: I'm Jane Moreno, running for mayor of the Ville."
    names = {"sam", "moore", "jane", "moreno"}
    assert _misquotes(jane, sam, "Sam Moore told me:", names)
    assert not _misquotes(jane.replace("Jane Moreno", "Sam"), sam, "Sam Moore told me:", names)


def test_an_ing_form_and_its_verb_are_one_term() -> None:
    # the 10-agent day: Sam had said "I'm planning to run for the local election"
    assert "run" in key_terms("Have you heard of anyone running for mayor?")
    assert key_terms("planning, shopping, sitting") == key_terms("plan, shop, sit")
    assert key_terms("dressing, calling, meeting") == {"dress", "call", "meet"}
