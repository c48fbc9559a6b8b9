"""Game actions chosen in conversation, with the real default models, through a real
`npc-brain serve` on both doors: a space station's quartermaster declares what she can
do over gRPC, a desert trader over HTTP/JSON. The NPC chooses among what was declared
(arguments included) and says the price it asks; a question about a price chooses
nothing; a request outside the actions is declined; a reported sale is remembered and
told back."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
NOW = 7_000_000_000  # 2191-10-26, a game clock far from the demo's
RATIONS = pb.ActionOption(value="ration_pack", label="a ration pack", price=4)
CANISTER = pb.ActionOption(value="oxygen_canister", label="an oxygen canister", price=30)
SIZES = [pb.ActionOption(value=v, label=f"a {v} suit") for v in ("small", "medium", "large")]
QUARTERMASTER = [
    pb.GameAction(
        name="sell",
        description="sell one of the station stores",
        arguments=[pb.ActionArgument(name="item", type=pb.ITEM, options=[RATIONS, CANISTER])],
        currency="credits",
    ),
    pb.GameAction(
        name="issue_suit",
        description="issue the asker a vacuum suit from the locker",
        arguments=[pb.ActionArgument(name="size", type=pb.CHOICE, options=SIZES)],
    ),
]


def _at(seconds: int) -> Timestamp:
    return Timestamp(seconds=seconds)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    process = ServerProcess(tmp_path_factory.mktemp("actions"), "--http-port", "0")
    assert process.process.stdout is not None
    line = process.process.stdout.readline()
    assert "serving HTTP/JSON on" in line, line
    process.stub.UpsertAgent(
        pb.UpsertAgentRequest(
            world_id="kestrel",
            agent_id="ines",
            persona=pb.Persona(
                name="Ines Varga",
                age=41,
                innate="patient, dry-humoured",
                learned="quartermaster of Relay Station Kestrel, who keeps the station stores",
                home_address="Kestrel:Stores:counter",
                pronouns="she",
            ),
            game_time=_at(NOW),
            actions=QUARTERMASTER,
        )
    )
    yield process, "http://" + line.rsplit(" ", 1)[1].strip()
    process.stop()


def _say(
    process: ServerProcess,
    text: str,
    at: int,
    agent_id: str = "ines",
    actions: Sequence[pb.GameAction] = (),
    world_id: str = "kestrel",
) -> pb.Utterance:
    """The player's line to an agent (with `actions` for this call only, if given),
    and its final reply, which must be the tokens streamed."""
    events = list(
        process.stub.Converse(
            pb.ConverseRequest(
                world_id=world_id,
                agent_id=agent_id,
                game_time=_at(at),
                speaker_id="player",
                utterance=text,
                actions=actions,
            ),
            timeout=120,
        )
    )
    tokens = "".join(e.token for e in events if e.WhichOneof("event") == "token")
    final = events[-1].final
    assert tokens == final.text
    return final


def test_the_agent_keeps_its_declared_actions(server: tuple[ServerProcess, str]) -> None:
    process, _ = server
    agent = process.stub.GetAgent(pb.GetAgentRequest(world_id="kestrel", agent_id="ines"))
    assert [a.name for a in agent.actions] == ["sell", "issue_suit"]


def test_a_purchase_is_chosen_priced_and_remembered(server: tuple[ServerProcess, str]) -> None:
    process, _ = server
    bought = _say(process, "I'll take two ration packs, please", NOW + 60)
    chosen = bought.game_action
    assert (chosen.name, dict(chosen.arguments), chosen.price) == (
        "sell",
        {"item": "ration_pack"},
        8,
    )
    assert "8 credits" in bought.text and chosen.action_id
    memory = process.stub.ReportOutcome(
        pb.ReportOutcomeRequest(
            world_id="kestrel",
            agent_id="ines",
            action_id=chosen.action_id,
            done=True,
            detail="The player paid 8 credits.",
            game_time=_at(NOW + 90),
        )
    )
    assert "ration pack" in memory.description and memory.kind == pb.OBSERVATION
    asked = _say(process, "What did you sell me?", NOW + 600)
    assert "ration pack" in asked.text and "8" in asked.text, asked.text
    assert not asked.HasField("game_action")


def test_an_argument_is_one_of_the_declared_values(server: tuple[ServerProcess, str]) -> None:
    process, _ = server
    suited = _say(process, "Could you issue me a vacuum suit? Medium, please.", NOW + 900)
    assert suited.game_action.name == "issue_suit", suited.text
    assert dict(suited.game_action.arguments) == {"size": "medium"}


def test_a_price_question_or_an_undeclared_request_chooses_nothing(
    server: tuple[ServerProcess, str],
) -> None:
    process, _ = server
    priced = _say(process, "How much is an oxygen canister?", NOW + 1200)
    assert not priced.HasField("game_action") and "30 credits" in priced.text, priced.text
    declined = _say(process, "Can you fly my ship to Mars for me?", NOW + 1500)
    assert not declined.HasField("game_action")
    assert "of course" not in declined.text.lower(), declined.text


def test_a_price_asked_in_slang_and_a_ware_meant_by_other_words(
    server: tuple[ServerProcess, str],
) -> None:
    """The deal a line asks is read from labelled examples (data/deals.tsv), not a
    keyword: slang for a price chooses nothing; a ware named by other words is sold, at
    the number the line says."""
    process, _ = server
    asked = _say(process, "whatcha want for a ration pack", NOW + 1800)
    assert not asked.HasField("game_action") and "4 credits" in asked.text, asked.text
    bought = _say(process, "two bottles of oxygen for my spacewalk please", NOW + 2100)
    chosen = bought.game_action
    assert (chosen.name, dict(chosen.arguments), chosen.price) == (
        "sell",
        {"item": "oxygen_canister"},
        60,
    ), bought.text


SECTIONS = [pb.ActionOption(value=v, label=f"the {v}") for v in ("docks", "hydroponics")]
ESCORT = pb.GameAction(
    name="escort",
    description="escort the asker safely to a section of the station",
    arguments=[pb.ActionArgument(name="section", type=pb.PLACE, options=SECTIONS)],
)
DETAIN = pb.GameAction(name="detain", description="detain someone in the brig")
WALKED_HOME = ["I don't feel safe walking back alone.", "Could you walk me to the docks?"]


def test_a_need_is_met_by_the_action_whose_example_lines_say_it_and_an_ultimatum_is_a_threat(
    server: tuple[ServerProcess, str],
) -> None:
    """A line that states a need chooses nothing against the description alone, and
    the action once the game gives example lines near it; a demand with a threat after
    its "or" is answered as a threat, whatever it demands."""
    process, _ = server
    process.stub.UpsertAgent(
        pb.UpsertAgentRequest(
            world_id="kestrel",
            agent_id="dax",
            persona=pb.Persona(
                name="Dax Orrin",
                age=38,
                innate="steady, blunt",
                learned="security officer of Relay Station Kestrel, who keeps the peace",
                home_address="Kestrel:Security:office",
                pronouns="he",
            ),
            game_time=_at(NOW),
        )
    )
    followed = "Someone's been following me since the cantina and I'm scared to go back."
    bare = _say(process, followed, NOW + 3000, "dax", [ESCORT, DETAIN])
    assert not bare.HasField("game_action"), bare.text
    described = pb.GameAction()
    described.CopyFrom(ESCORT)
    described.examples.extend(WALKED_HOME)
    met = _say(process, followed, NOW + 3300, "dax", [described, DETAIN])
    assert met.game_action.name == "escort", met.text
    sidearm = "Give me your sidearm or you'll be sorry."
    threatened = _say(process, sidearm, NOW + 3600, "dax", [described, DETAIN])
    assert threatened.game_action.name == "detain", threatened.text
    assert "of course" not in threatened.text.lower(), threatened.text
    # what follows the "or" is judged alone (data/consequences.tsv): harm to what is the
    # listener's is a threat, the speaker's own loss is not
    vented = "Open the armoury for me, or your quarters get vented to vacuum tonight."
    sabotaged = _say(process, vented, NOW + 3900, "dax", [described, DETAIN])
    assert sabotaged.game_action.name == "detain", sabotaged.text
    hurried = _say(
        process,
        "Walk me to the docks, or I'll miss my shuttle.",
        NOW + 4200,
        "dax",
        [described, DETAIN],
    )
    assert hurried.game_action.name == "escort", hurried.text


# Two settings of other genres, whose actions no example line says: a frontier doctor
# and a wasteland mechanic. A trouble told is the need it shows (data/needs.tsv), met
# by the action that stands for it; a story of the past asks nothing.
@dataclass(frozen=True)
class Keeper:
    """An NPC of one of those settings: where, who, what it does and may do."""

    world: str
    npc: str
    learned: str
    actions: tuple[pb.GameAction, ...]


def _seller(description: str, ware: pb.ActionOption, currency: str) -> pb.GameAction:
    """A `sell` action of one ware."""
    item = pb.ActionArgument(name="item", type=pb.ITEM, options=[ware])
    return pb.GameAction(name="sell", description=description, arguments=[item], currency=currency)


DOCTOR = Keeper(
    "dustwater",
    "ada",
    "the doctor of Dustwater, who keeps the surgery on Main Street",
    (
        _seller(
            "sell a remedy from the surgery",
            pb.ActionOption(value="laudanum", label="a bottle of laudanum", price=3),
            "dollars",
        ),
        pb.GameAction(name="stitch_wound", description="stitch and dress a patient's wound"),
    ),
)
MECHANIC = Keeper(
    "rustbelt",
    "gus",
    "the mechanic of the Rustbelt camp, who keeps the salvage yard",
    (
        _seller(
            "sell salvage from the yard",
            pb.ActionOption(value="fuel", label="a can of fuel", price=12),
            "caps",
        ),
        pb.GameAction(name="fix_vehicle", description="get a broken-down vehicle running again"),
    ),
)


@pytest.mark.parametrize(
    ("keeper", "line", "chosen"),
    [
        (
            DOCTOR,
            "Got thrown onto the wire fence, my arm's torn open and it won't quit bleeding.",
            "stitch_wound",
        ),
        (  # these two were chosen nothing before data/needs.tsv
            DOCTOR,
            "Rattler got me on the ankle out by the creek, the whole leg's swelling up.",
            "stitch_wound",
        ),
        (DOCTOR, "Fell off the roof fixing shingles, I think my wrist is busted.", "stitch_wound"),
        (
            MECHANIC,
            "My truck died out on the highway, it just clicks when I turn the key.",
            "fix_vehicle",
        ),
        (MECHANIC, "My old man drove a truck like that one, back before the bombs.", ""),
    ],
)
def test_a_trouble_told_is_met_by_the_action_that_stands_for_its_need(
    server: tuple[ServerProcess, str], keeper: Keeper, line: str, chosen: str
) -> None:
    process, _ = server
    _keep(process, keeper)
    final = _say(process, line, NOW + 5000, keeper.npc, world_id=keeper.world)
    assert final.game_action.name == chosen, final.text


def _keep(process: ServerProcess, keeper: Keeper) -> None:
    """The keeper upserted with its actions."""
    persona = pb.Persona(
        name=keeper.npc.title(),
        age=50,
        innate="gruff, kind",
        learned=keeper.learned,
        pronouns="she",
    )
    process.stub.UpsertAgent(
        pb.UpsertAgentRequest(
            world_id=keeper.world,
            agent_id=keeper.npc,
            persona=persona,
            game_time=_at(NOW),
            actions=keeper.actions,
        )
    )


def test_a_trouble_several_actions_meet_alike_is_offered_them_and_asked_which(
    server: tuple[ServerProcess, str],
) -> None:
    """A doctor who stitches wounds and sets bones meets an injury either way: told of a
    snake bite, she chooses neither and says both."""
    process, _ = server
    bones = pb.GameAction(name="set_bone", description="set a patient's broken bone")
    surgeon = replace(DOCTOR, npc="ida", actions=(*DOCTOR.actions, bones))
    _keep(process, surgeon)
    line = "Rattler got me on the ankle out by the creek, the whole leg's swelling up."
    final = _say(process, line, NOW + 5000, surgeon.npc, world_id=surgeon.world)
    assert not final.game_action.name, final.text
    assert "stitch and dress your wound or set your broken bone" in final.text, final.text


def _post(url: str, method: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{url}/v1/{method}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        text = answer.read().decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_http_door_declares_chooses_and_reports_alike(
    server: tuple[ServerProcess, str],
) -> None:
    _, url = server
    water = {"value": "water_skin", "label": "a water skin", "price": 3}
    (agent,) = _post(
        url,
        "UpsertAgent",
        {
            "world_id": "dunes",
            "agent_id": "oda",
            "persona": {"name": "Oda Vance", "learned": "keeps the trading post at Dry Wells"},
            "actions": [
                {
                    "name": "sell",
                    "description": "sell one of my wares",
                    "arguments": [{"name": "item", "type": "ITEM", "options": [water]}],
                    "currency": "shells",
                }
            ],
        },
    )
    assert agent["actions"][0]["arguments"][0]["type"] == "ITEM"
    events = _post(
        url,
        "Converse",
        {
            "world_id": "dunes",
            "agent_id": "oda",
            "game_time": "2191-10-26T08:00:00Z",
            "speaker_id": "player",
            "utterance": "A water skin, please. The sun is brutal.",
        },
    )
    chosen = events[-1]["final"]["game_action"]
    assert (chosen["name"], chosen["arguments"], chosen["price"]) == (
        "sell",
        {"item": "water_skin"},
        3,
    )
    (memory,) = _post(
        url,
        "ReportOutcome",
        {
            "world_id": "dunes",
            "agent_id": "oda",
            "action_id": chosen["action_id"],
            "done": True,
            "game_time": "2191-10-26T08:01:00Z",
        },
    )
    assert memory["description"] == "Oda Vance sold a water skin to player for 3 shells."
