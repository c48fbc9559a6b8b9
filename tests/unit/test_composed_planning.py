"""The composed planner through the Brain, with a fake model that always takes the first
option: the day follows the persona, steps happen at fitting places, sleep is state."""

from __future__ import annotations

import asyncio
from pathlib import Path

from npc_brain.llm.fakes import SchemaChat
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.mind.plan.affordances import describe, holder
from npc_brain.mind.plan.composer import Composer
from npc_brain.persona import Persona
from tests.conftest import make_brain

FEB_13 = 1_676_246_400.0  # midnight UTC
HOUR = 3600.0
CAFE = "the Ville:Hobbs Cafe:cafe"
COUNTER = "the Ville:Hobbs Cafe:cafe:counter"
TOWN = [CAFE, COUNTER, "the Ville:Oak Hill College:library", "the Ville:Johnson Park:park"]
ISABELLA = Persona(
    "Isabella Rodriguez",
    learned="owns Hobbs Cafe",
    lifestyle="wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
    home_address="the Ville:Isabella's apartment:main room:bed",
    daily_requirements=("serve the customers",),
)
SAM = Persona(
    "Sam Moore",
    learned="a retired navy officer",
    lifestyle="wakes up at 6 am, goes to bed at 10 pm",
    home_address="the Ville:Moore house:Sam's bedroom",
    daily_requirements=("have coffee at Hobbs Cafe in the morning",),
)


def test_a_composed_day_follows_the_persona(tmp_path: Path) -> None:
    chat = SchemaChat(text="serve the customers")
    brain = make_brain(tmp_path, chat, planner="composed")

    async def scenario() -> None:
        for agent_id, persona in (("isabella", ISABELLA), ("sam", SAM)):
            await brain.upsert_agent("", agent_id, persona, FEB_13)
            await brain.perceive("", agent_id, FEB_13 + 5 * HOUR, [], TOWN)
        opening, _ = await brain.act("", "isabella", FEB_13 + 8.5 * HOUR, 10_000)
        assert opening.description == "open the cafe"
        assert opening.address.startswith("the Ville:Hobbs Cafe")
        plans = await brain.list_memories("", "isabella", kinds=[MemoryKind.PLAN])
        plan = plans.memories[-1].description
        assert "wake up at 6:00" in plan and "8:00 open the cafe" in plan
        assert "9:00 serve the customers" in plan and plan.endswith("23:00 sleeping")
        night, _ = await brain.act("", "isabella", FEB_13 + 23.5 * HOUR, 10_000)
        assert "sleep" in night.description
        for hour in (8.2, 9.2, 10.2, 11.2):  # Sam's coffee: a customer, never at the counter
            action, _ = await brain.act("", "sam", FEB_13 + hour * HOUR, 10_000)
            assert action.address != COUNTER and action.object_state == ""

    asyncio.run(scenario())
    world = brain._worlds.get("default")  # noqa: SLF001 - the state under test
    assert world.mind("isabella").asleep  # sleep is state, set by the planner
    asyncio.run(brain.perceive("", "isabella", FEB_13 + 23.6 * HOUR, [Observation("owl")], TOWN))


def test_another_s_rooms_are_for_activities_that_name_them(tmp_path: Path) -> None:
    """The 25-agent day: Tamara wrote her book at the computer of Ryan's apartment,
    Giorgio worked on his proof at the mirror of Carmen's, Klaus relaxed at home in
    Maria's room and Carlos at Hobbs Cafe."""
    brain = make_brain(tmp_path, SchemaChat(text="write a book"), planner="composed")
    composer = Composer(brain._minds.faculties)  # noqa: SLF001 - the part under test
    tamara = Persona(
        "Tamara Taylor",
        learned="a writer of children's books",
        home_address="the Ville:Rose apartments:Tamara's apartment",
    )
    ryans = "the Ville:Rose apartments:Ryan's apartment:computer"
    hers = "the Ville:Rose apartments:Tamara's apartment:desk"
    home = "the Ville:Taylor family's house:living room"
    places = [ryans, hers, home, "the Ville:Hobbs Cafe:cafe"]

    async def options(activity: str) -> set[str]:
        return {o.place for o in await composer.options(activity, places, tamara)}

    assert ryans not in asyncio.run(options("write on the computer"))
    assert hers in asyncio.run(options("write at the desk"))
    assert home in asyncio.run(options("relax in the living room"))  # the family's is hers
    assert ryans in asyncio.run(options("visit Ryan"))
    assert asyncio.run(options("relax at home")) == {hers}  # Carlos relaxed at the cafe
    assert holder(ryans) == "Ryan" and holder("the Ville:Artist's co-living space") == ""
    assert describe(ryans) == "the computer of Ryan's apartment at Rose apartments"


def test_an_invitation_buried_under_a_day_of_memories_is_in_the_days_plan(
    tmp_path: Path,
) -> None:
    """A frontier town: an invitation heard two days before ("the barn dance ... on
    Wednesday, 7-9 pm") is in the plan of that day, though 300 memories came after it;
    one said "tomorrow" the day before counts for the day after it was said."""
    chat = SchemaChat(text="mend the fence")
    brain = make_brain(tmp_path, chat, planner="composed", retrieval="hybrid")
    wednesday = FEB_13 + 2 * 86400.0  # February 15, midnight
    farmer = Persona(
        "Ruth Calder",
        learned="a rancher",
        lifestyle="wakes up at 5 am, goes to bed at 9 pm",
        home_address="the Ville:Calder ranch:kitchen",
    )

    async def scenario() -> str:
        await brain.upsert_agent("", "ruth", farmer, FEB_13)
        await brain.perceive("", "ruth", FEB_13 + 5 * HOUR, [], TOWN)
        await brain.add_memory(
            "",
            "ruth",
            FEB_13 + 9 * HOUR,
            MemoryKind.DIALOGUE,
            Observation(
                'Eli Shaw said to Ruth Calder: "Come to the barn dance at the '
                'Shaw barn on Wednesday, 7-9 pm!"'
            ),
        )
        for i in range(300):  # the two days since: chores, weather, talk
            await brain.add_memory(
                "",
                "ruth",
                FEB_13 + 10 * HOUR + i * 400,
                MemoryKind.OBSERVATION,
                Observation(f"Ruth Calder fed the horses and checked fence post {i}"),
            )
        await brain.act("", "ruth", wednesday + 6 * HOUR, 10_000)
        plans = await brain.list_memories("", "ruth", kinds=[MemoryKind.PLAN])
        return plans.memories[-1].description

    plan = asyncio.run(scenario())
    assert "19:00 go to the dance at the Shaw" in plan, plan


def test_of_two_invitations_at_one_hour_the_first_accepted_stands_and_the_reason_is_kept(
    tmp_path: Path,
) -> None:
    """A frontier town again: a dance and a funeral at the same hours of one evening. The
    day holds the one heard first; the other is remembered as the reason it is missed."""
    chat = SchemaChat(text="mend the fence")
    brain = make_brain(tmp_path, chat, planner="composed")
    wednesday = FEB_13 + 2 * 86400.0
    farmer = Persona(
        "Ruth Calder",
        learned="a rancher",
        lifestyle="wakes up at 5 am, goes to bed at 10 pm",
        home_address="the Ville:Calder ranch:kitchen",
        pronouns="she",
    )
    invitations = [
        'Eli Shaw said to Ruth Calder: "Come to the Barn dance at the Shaw barn on '
        'Wednesday, 7-9 pm!"',
        'Ada Pike said to Ruth Calder: "The Funeral service at the chapel is on Wednesday '
        'from 8 pm to 10 pm."',
    ]

    async def scenario() -> tuple[str, list[str]]:
        await brain.upsert_agent("", "ruth", farmer, FEB_13)
        await brain.perceive("", "ruth", FEB_13 + 5 * HOUR, [], TOWN)
        for i, text in enumerate(invitations):
            await brain.add_memory(
                "", "ruth", FEB_13 + (9 + i) * HOUR, MemoryKind.DIALOGUE, Observation(text)
            )
        await brain.act("", "ruth", wednesday + 6 * HOUR, 10_000)
        plans = await brain.list_memories("", "ruth", kinds=[MemoryKind.PLAN])
        thoughts = await brain.list_memories("", "ruth", kinds=[MemoryKind.THOUGHT])
        return plans.memories[-1].description, [m.description for m in thoughts.memories]

    plan, thoughts = asyncio.run(scenario())
    assert "19:00 go to the Barn dance at the Shaw" in plan, plan
    assert "Funeral" not in plan, plan
    assert thoughts == [
        "Ruth Calder can't go to the Funeral service at the chapel at 20:00 on Wednesday "
        "February 15, 2023, because she "
        "will go to the Barn dance at the Shaw then"
    ]
