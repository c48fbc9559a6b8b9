"""The demo's game loop against a real gRPC server whose brain thinks with a fake that
answers every structured call with the first valid answer of its schema."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from npc_brain.demo.cast import load_cast
from npc_brain.demo.console import Console
from npc_brain.demo.errors import DemoError
from npc_brain.demo.report import RunInfo, build
from npc_brain.demo.simulation import Plan, Simulation, batches, noticed
from npc_brain.demo.town import load_town
from npc_brain.llm.fakes import SchemaChat
from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import RunningServer, make_brain, start_server

T0 = 1_676_271_600.0  # 2023-02-13 07:00 UTC
TEXT = "chatting with friends"  # every free text the fake writes
CAFE = "the Ville:Hobbs Cafe:cafe"  # where the fake goes when it can


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    running, stop = start_server(
        make_brain(tmp_path, SchemaChat(text=TEXT, prefer=CAFE), planner="free")
    )
    yield running
    stop()


def simulate(server: RunningServer, agents: int, hours: float, **plan: Any) -> tuple[Any, str]:
    town = load_town()
    cast = load_cast(town).first(agents)
    out = io.StringIO()
    console = Console(out, {m.agent_id: m.name for m in cast.members}, town.name)
    simulation = Simulation(server.stub, town, cast, Plan(T0, hours, **plan), console)
    simulation.setup()
    return build(simulation.run(), cast, RunInfo(1, "schema-chat", town.name)), out.getvalue()


def test_agents_move_see_each_other_talk_and_get_to_know_each_other(
    server: RunningServer,
) -> None:
    report, console = simulate(server, 3, 1.0)
    assert "-- 2023-02-13 07:00  step 1/6" in console
    assert "interviewing 3 agents about 2 seeds" in console
    assert report["timeline"], "every agent got an action"
    assert {e["agent"] for e in report["timeline"]} == {"isabella", "maria", "sam"}
    # the fake always says yes to talking: the cast meets at its first known place
    assert report["conversations"]
    assert "💬" in console
    # the fake says the same line every time: the server ends a parroting talk after it
    lines = [line.strip() for line in console.splitlines() if line.startswith(" " * 16)]
    assert any(line.endswith(": chatting with friends") for line in lines)
    # the fake never words the news; Isabella's first line says it plainly (line intents)
    # to whomever she noticed first, who heard it from her
    order = ["isabella", "maria", "sam"]
    first = report["conversations"][0]
    listener = next(p for p in first["participants"] if p != "isabella")
    party = report["diffusion"]["seeds"]["party"]
    assert [k["agent"] for k in party["knowers"][:2]] == ["isabella", listener]
    holder, heard = party["knowers"][:2]
    assert holder["memory"]["source"] == "AUTHOR"
    assert (heard["memory"]["source"], heard["memory"]["source_agent"]) == ("HEARD", "isabella")
    assert "I'm throwing a Valentine's Day party" in heard["memory"]["description"]
    opener = first["lines"][0]
    assert (opener["speaker"], opener["intent"]) == ("isabella", "news, said plainly")
    # the invitation is answered by code: the listener is free then (invitation.py)
    assert first["lines"][1] == {
        "speaker": listener,
        "text": "I'd love to come to the Valentine's Day party at Hobbs Cafe on Tuesday, "
        "February 14 at 5 pm!",
        "intent": "reply to an invitation",
    }
    # the third agent, left out of that talk, is talked with once it is over (reactions)
    talked = {tuple(sorted(t["participants"], key=order.index)) for t in report["conversations"]}
    assert len(talked) >= 2
    density = report["network_density"]
    assert density["start"] == 0.3333  # Isabella and Maria, from backstory
    for pair in talked:  # who talked know each other at the end
        assert list(pair) in density["edges_end"]
    # at the end every agent is interviewed on every seed, and the party's claim chains read
    for seed in report["diffusion"]["seeds"].values():
        asked = seed["interview"]
        assert [a["agent"] for a in asked["answers"]] == order and asked["question"]
        assert all(a["answer"] for a in asked["answers"])
    chains = {a["agent"]: a["chain"] for a in party["interview"]["answers"]}
    assert chains["isabella"] == ["isabella"] and chains[listener] == ["isabella", listener]
    assert all(len(a["also"]) == 2 for a in party["interview"]["answers"])  # 3 wordings
    assert report["hallucinations"]["answers"] == 18  # 3 agents, 2 seeds, 3 wordings
    views = report["relationships"]["agents"]
    partners = sorted(b for a, b in talked if a == "isabella")
    assert sorted(v["other"] for v in views["isabella"]) == partners
    assert report["relationships"]["talked_density"] == round(len(talked) / 3, 4)
    calls = report["model_calls"]
    assert calls["total"] > 0
    assert calls["awake_agent_hours"] == 3.0  # the fake's plan never sleeps in the day
    assert set(calls["agents"]) == {"isabella", "maria", "sam"}
    assert len(calls["by_game_hour"]) == 1
    assert len(report["wall_clock"]["per_game_hour"]) == 1


def test_the_seeds_and_places_are_in_the_agents_minds(server: RunningServer) -> None:
    town = load_town()
    cast = load_cast(town).first(2)
    console = Console(io.StringIO(), {}, town.name)
    Simulation(server.stub, town, cast, Plan(T0, 0.5), console).setup()
    memories = server.stub.ListMemories(
        pb.ListMemoriesRequest(agent_id="isabella", world_id="smallville")
    )
    texts = [m.description for m in memories.memories]
    assert any("Valentine's Day party at Hobbs Cafe" in t for t in texts)
    assert all(m.source.kind == pb.AUTHOR for m in memories.memories)
    with pytest.raises(DemoError, match="already has agent 'isabella'"):
        Simulation(server.stub, town, cast, Plan(T0, 0.5), console).setup()


@pytest.mark.parametrize(
    ("ablation", "switch"),
    [
        ("no-reflection", "reflection_enabled"),
        ("no-planning", "planning_enabled"),
        ("no-memory", "memory_enabled"),
    ],
)
def test_an_ablation_switches_that_part_off_for_every_agent(
    server: RunningServer, ablation: str, switch: str
) -> None:
    town = load_town()
    cast = load_cast(town).first(2)
    plan = Plan(T0, 0.5, ablation=ablation, world_id=ablation)
    Simulation(server.stub, town, cast, plan, Console(io.StringIO(), {}, "")).setup()
    for member in cast.members:
        agent = server.stub.GetAgent(
            pb.GetAgentRequest(world_id=ablation, agent_id=member.agent_id)
        )
        assert getattr(agent, switch) is False
        others = {"reflection_enabled", "planning_enabled", "memory_enabled"} - {switch}
        assert all(getattr(agent, name) for name in others)


def test_an_unknown_ablation_is_refused() -> None:
    town = load_town()
    with pytest.raises(DemoError, match="--ablation: 'no-sleep'"):
        Simulation(None, town, load_cast(town), Plan(T0, 1, ablation="no-sleep"), None)  # type: ignore[arg-type]


def test_big_ticks_are_split_within_the_servers_limits() -> None:
    items = [
        pb.AgentTick(agent_id=f"a{i}", observations=[pb.Observation(text="x")] * 100)
        for i in range(5)
    ]
    assert [len(b) for b in batches(items)] == [2, 2, 1]
    assert [len(b) for b in batches([pb.AgentTick(agent_id="a")] * 300)] == [256, 44]


def test_in_a_crowd_an_agent_notices_its_own_room_first_and_everyone_in_time() -> None:
    # 20 people in a hall, 4 of them in the observer's room: the room is noticed first,
    # and over a day of 10-minute steps every one of the others is noticed, not only
    # the first few of the cast file.
    nearby = {f"p{i:02d}": i < 4 for i in range(20)}
    steps = [T0 + i * 600 for i in range(144)]
    seen = [noticed("me", nearby, t, limit=8) for t in steps]
    assert all(len(s) == 8 and set(s[:4]) == {"p00", "p01", "p02", "p03"} for s in seen)
    assert set().union(*seen) == set(nearby)
    assert len({tuple(s[4:]) for s in seen}) > 100  # a different few each step
    assert noticed("me", nearby, T0) == noticed("me", nearby, T0)  # the same in every run
    assert noticed("me", {"a": False}, T0) == ["a"]


def test_the_closing_interviews_ask_everyone_and_store_nothing(server: RunningServer) -> None:
    town = load_town()
    cast = load_cast(town).first(2)
    console = Console(io.StringIO(), {}, town.name)
    simulation = Simulation(server.stub, town, cast, Plan(T0, 0.5), console)
    simulation.setup()
    record = simulation.run()
    assert {s: set(a) for s, a in record.interviews.items()} == {"party": {"isabella", "maria"}}
    for member in cast.members:
        page = server.stub.ListMemories(
            pb.ListMemoriesRequest(world_id="smallville", agent_id=member.agent_id, page_size=500)
        )
        assert len(page.memories) == len(record.streams[member.agent_id])
