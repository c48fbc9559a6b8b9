"""The report's `days` section: whether each agent's day makes sense (waking hours
covered by real activities, requirements met, places that fit, guards kept) and how
often agents meet, from a small synthetic record; and from a run against a server."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from npc_brain.cli import build_parser, main
from npc_brain.demo import days, run
from npc_brain.demo.cast import Cast, CastMember, load_cast
from npc_brain.demo.console import Console
from npc_brain.demo.days import Judge, Step, agent_day, encounters
from npc_brain.demo.errors import DemoError
from npc_brain.demo.memories import MemoryView
from npc_brain.demo.report import RunInfo, build
from npc_brain.demo.simulation import Plan, Record, Simulation, Usage
from npc_brain.demo.town import load_town
from npc_brain.demo.writing import write_report
from npc_brain.llm.fakes import HashingEmbedder, SchemaChat
from npc_brain.mind.plan.skeleton import skeleton_of
from npc_brain.persona import Persona
from tests.conftest import RunningServer, make_brain, start_server

T0 = 1_676_271_600.0  # 2023-02-13 07:00 UTC
STEP = 600.0
CAFE = "the Ville:Hobbs Cafe:cafe"
COUNTER = "the Ville:Hobbs Cafe:cafe:counter"
PARK = "the Ville:Johnson Park:park"
HOME = "the Ville:Isabella Rodriguez's apartment:main room"
ISABELLA = Persona(
    "Isabella Rodriguez",
    lifestyle="wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
    daily_requirements=("open Hobbs Cafe at 8 am", "serve the customers", "invite people"),
)


class Far(HashingEmbedder):
    """Every text orthogonal to every other (cosine 0): words alone decide."""

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.eye(len(texts), self.dimension, dtype=np.float32)


class Near(HashingEmbedder):
    """Every text the same vector (cosine 1): the embedder says yes to everything."""

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.full((len(texts), self.dimension), self.dimension**-0.5, dtype=np.float32)


def steps(agent: str, *actions: tuple[str, str], start: float = T0) -> list[Step]:
    return [Step(start + i * STEP, agent, d, a) for i, (d, a) in enumerate(actions)]


def day(
    *actions: tuple[str, str], persona: Persona = ISABELLA, start: float = T0
) -> dict[str, Any]:
    return agent_day(persona, steps("isabella", *actions, start=start), Judge(Far()))


def test_a_good_morning_keeps_every_guard() -> None:
    figures = day(
        ("opening the cafe", COUNTER),
        ("serving customers", COUNTER),
        ("talking with Maria Lopez", PARK),  # a conversation fits wherever it happens
        ("having breakfast", CAFE),
    )
    assert figures["waking_share"] == 1.0
    assert figures["distinct_activities"] == 4
    assert figures["fitting_steps"] == 1.0
    assert figures["violations"] == 0
    assert figures["asleep_outside_sleep_hours"] == 0
    assert figures["requirements_kept"] == ["open Hobbs Cafe at 8 am", "serve the customers"]
    assert figures["requirements_met"] == pytest.approx(2 / 3, abs=1e-3)
    assert (figures["wake"], figures["bed"]) == (6, 23)


def test_sleeping_in_waking_hours_is_a_violation_and_sleeping_at_night_is_not() -> None:
    figures = day(("sleeping", HOME), ("serving customers", COUNTER))  # 07:00, 07:10
    assert figures["violations_by_guard"]["asleep_in_waking_hours"] == 1
    assert figures["asleep_outside_sleep_hours"] == 1
    assert figures["violations"] == 1
    assert figures["waking_share"] == 0.5
    assert figures["awake_steps"] == 1  # asleep is not awake: no place to judge
    night = day(("sleeping", HOME), start=T0 - 5 * 3600)  # 02:00
    assert (night["violations"], night["waking_steps"], night["waking_share"]) == (0, 0, None)


def test_a_time_or_a_greeting_as_an_activity_is_a_violation() -> None:
    figures = day(("10:00", COUNTER), ("morning", COUNTER), ("serving customers", COUNTER))
    assert figures["violations_by_guard"]["not_an_activity"] == 2
    assert figures["waking_share"] == pytest.approx(1 / 3, abs=1e-3)
    assert figures["distinct_activities"] == 1
    # the idle fallback is no activity of the day either, but no guard forbids it
    idle = day(("going about the day", HOME), ("idle", HOME))
    assert idle["waking_share"] == 0.0
    assert idle["violations_by_guard"]["not_an_activity"] == 1  # "idle"


def test_a_place_that_does_not_fit_is_a_violation() -> None:
    figures = day(("painting a watercolour", COUNTER), ("taking a walk", PARK))
    assert figures["violations_by_guard"]["place_does_not_fit"] == 1
    assert figures["fitting_steps"] == 0.5
    # talking with someone or waiting for them happens wherever the agent is
    where = day(("talking with Klaus Mueller", PARK), ("waiting for Sam Moore to finish", COUNTER))
    assert where["fitting_steps"] == 1.0


@pytest.mark.parametrize(
    ("requirement", "description", "address", "met"),
    [
        ("open Hobbs Cafe at 8 am", "opening the cafe", COUNTER, True),  # 2 of 3 words
        ("serve the customers", "serving customers", PARK, True),
        ("have breakfast at Hobbs Cafe", "having breakfast", CAFE, True),  # the place's words
        ("have breakfast at Hobbs Cafe", "having breakfast", PARK, False),  # 1 of 3
        ("work the morning shift at Hobbs Cafe", "having lunch", CAFE, False),  # none its own
        ("open Hobbs Cafe at 8 am", "10:00", COUNTER, False),  # not an activity
        ("walk in Johnson Park", "sleeping in the park", PARK, False),  # asleep
        ("study physics at the library", "reading a physics textbook", PARK, False),
    ],
)
def test_requirements_are_met_by_shared_words(
    requirement: str, description: str, address: str, met: bool
) -> None:
    assert Judge(Far()).meets(requirement, description, address) is met


def test_the_embedder_decides_when_words_do_not() -> None:
    judge = Judge(Near())
    assert judge.meets("study physics at the library", "reading a textbook", PARK)
    assert judge.fits("painting a watercolour", COUNTER)
    assert not judge.meets("study physics", "10:00", PARK)  # still not an activity
    words = Judge(None)  # no embedder: words alone
    assert not words.fits("painting a watercolour", COUNTER)
    assert words.fits("serving customers", COUNTER)


def test_by_meaning_an_action_meets_only_the_requirement_nearest_to_it() -> None:
    class Table(HashingEmbedder):
        vectors = {
            "unlocking the door": (1.0, 0.0),
            "open Hobbs Cafe at 8 am": (0.9, 0.436),  # cosine 0.9 with the action
            "serve the customers": (0.5, 0.866),  # 0.5
        }

        def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
            rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
            for i, text in enumerate(texts):
                rows[i, :2] = self.vectors.get(text, (0.0, 0.0))
            return rows

    judge = Judge(Table())
    wanted = ("open Hobbs Cafe at 8 am", "serve the customers")
    assert judge.meets(wanted[0], "unlocking the door", COUNTER, wanted)
    assert not judge.meets(wanted[1], "unlocking the door", COUNTER, wanted)
    assert judge.meets(wanted[1], "unlocking the door", COUNTER)  # alone, 0.5 is enough


def test_content_words_drop_times_and_stopwords_and_stem() -> None:
    assert days.content_words("open Hobbs Cafe at 8 am") == {"open", "hobb", "cafe"}
    assert days.content_words("opening the cafe") == {"open", "cafe"}
    assert days.content_words("serve the customers") == days.content_words("serving customer")
    assert days.content_words("shopping") == days.content_words("shop")


def test_waking_hours_past_midnight() -> None:
    owl = Persona("Owl", lifestyle="wakes up at 10 am, goes to bed at 2 am")
    skeleton = skeleton_of(owl)
    assert [h for h in range(24) if days.is_waking_hour(h, skeleton)] == [0, 1, *range(10, 24)]


def test_encounters_count_awake_pairs_in_one_arena_at_each_step() -> None:
    record = [
        # 07:00: three awake at the cafe (one at its counter): 3 pairs; one in the park
        Step(T0, "a", "having a coffee", CAFE),
        Step(T0, "b", "serving customers", COUNTER),
        Step(T0, "c", "meeting friends", CAFE),
        Step(T0, "d", "taking a walk", PARK),
        # 07:10: two at the cafe, but one asleep; two in the park
        Step(T0 + STEP, "a", "sleeping", CAFE),
        Step(T0 + STEP, "b", "serving customers", COUNTER),
        Step(T0 + STEP, "c", "taking a walk", PARK),
        Step(T0 + STEP, "d", "taking a walk", PARK + ":bench"),
        # 07:20: same sector, other arenas
        Step(T0 + 2 * STEP, "a", "having a coffee", CAFE),
        Step(T0 + 2 * STEP, "b", "baking", "the Ville:Hobbs Cafe:kitchen"),
    ]
    assert encounters(record) == 4


def test_the_latest_plan_for_the_day_is_the_agents_plan() -> None:
    stream = [
        MemoryView("1", "PLAN", "Isabella's plan for the day: wake up at 6:00; 8:00 open", T0),
        MemoryView("2", "PLAN", "Isabella's revised plan: wake up at 6:00", T0 + 60),
        MemoryView("3", "OBSERVATION", "a plan for the day is nice", T0 + 90),
        MemoryView("4", "PLAN", "Isabella's plan for the day: wake up at 6:00; 9:00 x", T0 + 80),
    ]
    assert days.latest_plan(stream).endswith("9:00 x")
    assert days.latest_plan([]) == ""


def record() -> tuple[Record, Cast]:
    cast = Cast(
        (
            CastMember(
                "isabella",
                "Isabella Rodriguez",
                HOME,
                lifestyle=ISABELLA.lifestyle,
                daily_requirements=ISABELLA.daily_requirements,
            ),
            CastMember("maria", "Maria Lopez", HOME, daily_requirements=("study physics",)),
        ),
        (),
    )
    taken = [
        *steps("isabella", ("sleeping", HOME), ("opening the cafe", COUNTER), ("10:00", CAFE)),
        *steps("maria", ("having breakfast", CAFE), ("studying physics", CAFE), ("", CAFE)),
    ]
    usage = {a: Usage(0, 0, 0, {}) for a in ("isabella", "maria")}
    plan = "Isabella Rodriguez's plan for the day: wake up at 6:00; 8:00 open the cafe"
    return (
        Record(
            Plan(T0, 0.5),
            streams={"isabella": [MemoryView("1", "PLAN", plan, T0)], "maria": []},
            usage=[(T0, usage), (T0 + 1800, usage)],
            wall=[(T0, 0.0), (T0 + 1800, 3.0)],
            steps=sorted(taken, key=lambda s: s.game_time),
        ),
        cast,
    )


def test_the_report_has_the_days_and_the_markdown_shows_them(tmp_path: Path) -> None:
    done, cast = record()
    report = build(done, cast, RunInfo(7, "m", "the Ville", "free"), Far())
    assert report["config"]["planner"] == "free"
    section = report["days"]
    assert section["embedder"] == "hashing-embedder"
    assert section["encounters"] == 1  # 07:20: Isabella and Maria both at the cafe
    isabella, maria = section["agents"]["isabella"], section["agents"]["maria"]
    assert isabella["plan"].endswith("8:00 open the cafe")
    assert isabella["violations_by_guard"] == {
        "asleep_in_waking_hours": 1,
        "not_an_activity": 1,
        "place_does_not_fit": 0,
    }
    assert maria["plan"] == ""
    assert maria["waking_share"] == pytest.approx(2 / 3, abs=1e-3)  # no action at 07:20
    assert maria["requirements_met"] == 1.0
    assert maria["violations_by_guard"]["place_does_not_fit"] == 1  # physics at the cafe
    assert section["summary"]["violations"] == {"mean": 1.5, "worst": 2}
    assert section["summary"]["requirements_met"]["worst"] == isabella["requirements_met"]
    markdown = write_report(tmp_path, report).read_text()
    assert "## Days" in markdown
    assert "planner `free`" in markdown
    assert "| Isabella Rodriguez | 6-23 | 33% | 1 | 33% | 100% | 2 (1 / 1 / 0) | 1 |" in markdown
    assert "| *worst* |  | 33% | 1 | 33% | 50% | 2 | 1 |" in markdown
    assert "Encounters: 1." in markdown
    assert "8:00 open the cafe Not done: serve the customers; invite people." in markdown
    assert "no plan for the day" in markdown  # Maria's


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    chat = SchemaChat(text="chatting with friends", prefer="the Ville:Hobbs Cafe:cafe")
    running, stop = start_server(make_brain(tmp_path, chat))
    yield running
    stop()


def test_a_run_records_every_agents_step_and_its_plan(server: RunningServer) -> None:
    town = load_town()
    cast = load_cast(town).first(2)
    console = Console(io.StringIO(), {m.agent_id: m.name for m in cast.members}, town.name)
    simulation = Simulation(server.stub, town, cast, Plan(T0, 0.5), console)
    simulation.setup()
    done = simulation.run()
    assert [(s.game_time, s.agent_id) for s in done.steps] == [
        (T0 + i * STEP, a) for i in range(3) for a in ("isabella", "maria")
    ]
    assert all(s.description and s.address for s in done.steps)
    report = build(done, cast, RunInfo(1, "schema-chat", town.name), HashingEmbedder())
    for agent_id in ("isabella", "maria"):
        figures = report["days"]["agents"][agent_id]
        assert "plan for the day" in figures["plan"]
        assert figures["steps"] == 3


def test_the_demo_passes_its_planner_to_the_server_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[str | None] = []

    class Child:
        def __init__(self, *args: object, planner: str | None = None, **kwargs: object) -> None:
            started.append(planner)
            raise DemoError("stop here")

    monkeypatch.setattr(run, "ChildServer", Child)
    assert build_parser().parse_args(["demo"]).planner is None
    for argv, planner in ((["--planner", "free"], "free"), ([], "composed")):
        assert main(["demo", *argv, "--out", str(tmp_path / "out")]) == 1
        assert started[-1] == planner
    assert main(["demo", "--server", "127.0.0.1:1", "--planner", "free"]) == 1
    assert "--planner: the server given with --server" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--planner", "paper"])
