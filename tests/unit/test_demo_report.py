"""The report made from a run's record: every section, model-call accounting, the wall
clock kept apart, charts (PNG, and SVG with its text as text), and Markdown that links them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from npc_brain.demo import charts
from npc_brain.demo.cast import Cast, CastMember, Seed
from npc_brain.demo.markdown import render
from npc_brain.demo.memories import Bond, Holder, MemoryView
from npc_brain.demo.report import RunInfo, build
from npc_brain.demo.simulation import ActionEvent, Plan, Record, Usage
from npc_brain.demo.writing import read_report, write_report

T0 = 1_676_271_600.0  # 2023-02-13 07:00 UTC
HOME = "the Ville:home:room"
CAST = Cast(
    (
        CastMember("isabella", "Isabella Rodriguez", HOME),
        CastMember("maria", "Maria <Lopez> & co", HOME),  # markup in a name stays text
    ),
    (
        Seed(
            "party",
            "Valentine's Day party",
            "isabella",
            "a Valentine's party",
            ("valentine",),
            "Is there a party coming up? Whose, where and when?",
            (("host", ("Isabella",)), ("place", ("Hobbs Cafe",)), ("date", ("February 14",))),
        ),
    ),
)
PLACES = ("Hobbs Cafe", "Town Hall")
ANSWERS = {
    "isabella": "My Valentine party is at Hobbs Cafe on February 14.",
    "maria": "Isabella's Valentine party is at the Town Hall. I heard it from Isabella.",
}
SECTIONS = (
    "timeline",
    "conversations",
    "reflections",
    "diffusion",
    "hallucinations",
    "network_density",
    "relationships",
    "model_calls",
    "wall_seconds_per_game_hour",
)


def usage(calls: int, **kinds: int) -> Usage:
    return Usage(calls, 100 * calls, 10 * calls, kinds, 60 * calls)


def record(wall: float = 30.0) -> Record:
    plan = Plan(T0, 2.0)
    said = 'Isabella Rodriguez said to Maria <Lopez> & co: "Come to my Valentine party | 5 pm"'
    heard = 'Maria <Lopez> & co said to Isabella Rodriguez: "Sure"'
    return Record(
        plan,
        timeline=[ActionEvent(T0, "isabella", "brewing coffee", HOME, "☕", 15)],
        streams={
            "isabella": [
                MemoryView("1", "OBSERVATION", "a Valentine's party", T0, "AUTHOR"),
                MemoryView("4", "DIALOGUE", said, T0 + 1800),
                MemoryView("5", "DIALOGUE", heard, T0 + 1800, "HEARD", "maria"),
                MemoryView(
                    "6",
                    "REFLECTION",
                    "Maria is coming",
                    T0 + 1800,
                    depth=1,
                    evidence_ids=("4", "5"),
                ),
            ],
            "maria": [
                MemoryView("2", "DIALOGUE", said, T0 + 1800, "HEARD", "isabella"),
                MemoryView("3", "DIALOGUE", heard, T0 + 1800),
                MemoryView("7", "REFLECTION", "I like mornings", T0 + 600, depth=1),
            ],
        },
        usage=[
            (T0, {"isabella": usage(1, importance=1), "maria": usage(0)}),
            (T0 + 3600, {"isabella": usage(5, importance=1, plan=4), "maria": usage(2, plan=2)}),
            (
                T0 + 7200,
                {
                    "isabella": usage(9, importance=1, plan=4, dialogue=4),
                    "maria": usage(4, plan=2, dialogue=2),
                },
            ),
        ],
        wall=[(T0, 0.0), (T0 + 3600, wall / 3), (T0 + 7200, wall)],
        awake_minutes={"isabella": 120.0, "maria": 60.0},
        interviews={"party": dict(ANSWERS)},
        holders={
            "party": [
                Holder("isabella", "", 0, 1.0, ("isabella",)),
                Holder("maria", "isabella", 1, 0.8, ("isabella", "maria")),
            ]
        },
        intents={("isabella", "Come to my Valentine party | 5 pm"): "news, said plainly"},
        relationships={
            "isabella": [Bond("maria", "Maria and I work well together.", 1)],
            "maria": [Bond("isabella", "Isabella and I are friends.", 1)],
        },
    )


def test_the_report_has_every_section_from_the_record() -> None:
    report = build(record(), CAST, RunInfo(7, "model.gguf", "the Ville"))
    assert set(SECTIONS) <= set(report)
    assert report["timeline"][0]["time"] == "2023-02-13T07:00:00Z"
    (talk,) = report["conversations"]
    assert talk["participants"] == ["isabella", "maria"]
    assert [(line["speaker"], line["intent"]) for line in talk["lines"]] == [
        ("isabella", "news, said plainly"),
        ("maria", ""),  # no Tick showed it
    ]
    assert [(r["agent"], r["time"]) for r in report["reflections"]] == [
        ("maria", "2023-02-13T07:10:00Z"),  # by game time, not by agent
        ("isabella", "2023-02-13T07:30:00Z"),
    ]
    assert report["reflections"][1] == {
        "time": "2023-02-13T07:30:00Z",
        "agent": "isabella",
        "description": "Maria is coming",
        "depth": 1,
        "evidence_ids": ["4", "5"],
    }
    party = report["diffusion"]["seeds"]["party"]
    assert [(k["agent"], k["since"]) for k in party["knowers"]] == [
        ("isabella", "2023-02-13T07:00:00Z"),
        ("maria", "2023-02-13T07:30:00Z"),
    ]
    assert party["knowers"][1]["memory"]["source_agent"] == "isabella"
    assert [p["count"] for p in party["over_time"]][:4] == [1, 1, 1, 2]
    density = report["network_density"]
    assert (density["start"], density["end"]) == (0.0, 1.0)
    assert density["edges_end"] == [["isabella", "maria"]]
    assert report["wall_seconds_per_game_hour"] == 15.0


def test_diffusion_is_judged_by_interview_with_each_knowers_source_chain() -> None:
    report = build(record(), CAST, RunInfo(7, "m", "the Ville", places=PLACES))
    asked = report["diffusion"]["seeds"]["party"]["interview"]
    assert (asked["count"], asked["of"], asked["knowers"]) == (1, 2, ["isabella"])
    isabella, maria = asked["answers"]
    assert (isabella["knows"], isabella["right"], isabella["chain"]) == (
        True,
        ["host", "place", "date"],  # "My ... party": the host speaking of itself
        ["isabella"],
    )
    # Maria has the host from Isabella but a wrong place: a false claim.
    assert (maria["knows"], maria["right"], maria["wrong"]) == (False, ["host"], ["place"])
    assert (maria["heard_from"], maria["hops"], maria["chain"]) == (
        "isabella",
        1,
        ["isabella", "maria"],
    )
    false = report["hallucinations"]
    assert (false["answers"], false["claims"], false["false"], false["rate"]) == (2, 2, 1, 0.5)
    assert false["cases"] == [
        {"seed": "party", "agent": "maria", "answer": ANSWERS["maria"], "why": ["wrong place"]}
    ]


def _unheard() -> Record:
    """Maria states the party rightly, with no record of it: no claim, no memory."""
    right = "Isabella's Valentine party is at Hobbs Cafe."
    return replace(
        record(),
        streams={**record().streams, "maria": []},
        holders={"party": []},
        interviews={"party": {"isabella": ANSWERS["isabella"], "maria": right}},
    )


def test_knowing_a_seed_without_any_record_of_it_is_a_false_claim() -> None:
    unheard = _unheard()
    false = build(unheard, CAST, RunInfo(7, "m", "v", places=PLACES))["hallucinations"]
    assert [(c["agent"], c["why"]) for c in false["cases"]] == [("maria", ["no record"])]
    heard = replace(unheard, streams=record().streams)  # Maria heard it: no longer false
    assert build(heard, CAST, RunInfo(7, "m", "v", places=PLACES))["hallucinations"]["false"] == 0
    for kind, source, counts in (("OBSERVATION", "SEEN", True), ("REFLECTION", "SEEN", False)):
        memory = MemoryView(
            "9", kind, "Isabella is inviting people to the Valentine party", T0, source
        )
        known = replace(unheard, streams={**unheard.streams, "maria": [memory]})
        false = build(known, CAST, RunInfo(7, "m", "v", places=PLACES))["hallucinations"]
        assert false["false"] == (0 if counts else 1)  # what it saw; not what it inferred


def test_relationships_are_each_agents_views_and_the_networks_density() -> None:
    section = build(record(), CAST, RunInfo(7, "m", "v"))["relationships"]
    assert section["density"] == {"start": 0.0, "end": 1.0}
    assert section["talked_density"] == 1.0
    assert section["agents"]["maria"] == [
        {"other": "isabella", "summary": "Isabella and I are friends.", "conversations": 1}
    ]
    one_sided = replace(record(), relationships={"isabella": record().relationships["isabella"]})
    assert build(one_sided, CAST, RunInfo(7, "m", "v"))["relationships"]["talked_density"] == 0.0


def test_model_calls_are_what_the_run_made_per_agent_per_game_hour() -> None:
    calls = build(record(), CAST, RunInfo(7, "m", "v"))["model_calls"]
    # during the run: isabella 8 calls (4 plan, 4 dialogue), maria 4 (2 plan, 2 dialogue)
    assert calls["agents"]["isabella"]["calls"] == 4.0
    assert calls["agents"]["isabella"]["calls_by_kind"] == {"dialogue": 2.0, "plan": 2.0}
    assert calls["agents"]["maria"]["prompt_tokens"] == 200.0
    assert calls["per_agent_per_game_hour"]["calls"] == 3.0  # 12 calls / 2 agents / 2 hours
    assert (calls["total"], calls["prompt_tokens"], calls["completion_tokens"]) == (12, 1200, 120)
    assert calls["cached_prompt_tokens"] == 720  # of the run's 1200: what was not read again
    assert calls["calls_by_kind"] == {"dialogue": 6, "plan": 6}  # no importance call in the run
    assert calls["awake_agent_hours"] == 3.0
    assert calls["per_awake_agent_hour"]["calls"] == 4.0  # 12 calls / 3 awake agent-hours
    assert [h["calls"] for h in calls["by_game_hour"]] == [6, 6]
    assert calls["by_game_hour"][1]["calls_by_kind"] == {"dialogue": 6}


def test_only_the_wall_clock_keys_differ_between_runs_of_the_same_game() -> None:
    one = build(record(30.0), CAST, RunInfo(7, "m", "v"))
    two = build(record(90.0), CAST, RunInfo(7, "m", "v"))
    assert one != two
    drop = {k for k in one if k.startswith("wall")}
    assert drop == {"wall_seconds_per_game_hour", "wall_clock"}
    assert {k: v for k, v in one.items() if k not in drop} == {
        k: v for k, v in two.items() if k not in drop
    }


def test_the_files_are_written_and_the_charts_are_png_and_svg(tmp_path: Path) -> None:
    report = build(record(), CAST, RunInfo(7, "m", "the Ville"))
    markdown = write_report(tmp_path, report).read_text()
    assert read_report(tmp_path) == json.loads(json.dumps(report))
    for name in ("diffusion", "network"):
        assert f"]({name}.png)" in markdown
        assert (tmp_path / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert ET.parse(tmp_path / f"{name}.svg").getroot().tag == f"{SVG}svg"
    assert "Maria <Lopez> & co" in _texts(tmp_path / "network.svg")
    assert "Valentine's Day party (2 of 2)" in _texts(tmp_path / "diffusion.svg")
    for heading in (
        "## Information diffusion",
        "## Interviews",
        "## Hallucinations",
        "## Relationship network",
        "### Relationships",
        "## Conversations",
        "## Reflections",
        "## Model calls",
        "## Wall clock",
        "## Timeline",
    ):
        assert heading in markdown
    assert "Valentine party \\| 5 pm" in markdown  # a | in a line does not break the table
    assert "60% of the prompt tokens not evaluated again" in markdown
    assert "- Isabella Rodriguez *(news, said plainly)*: Come to" in markdown


def _texts(path: Path) -> set[str]:
    return {"".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG}text")}


SVG = "{http://www.w3.org/2000/svg}"


def test_the_diffusion_chart_steps_up_when_an_agent_learns() -> None:
    times = [T0, T0 + 600, T0 + 1200]
    figure = charts.diffusion(times, {"party": [1, 1, 2], "mayor": [1, 1, 2]}, 2)
    first, second = figure.axes[0].get_lines()
    assert list(first.get_ydata()) == [1, 1, 2]
    assert first.get_drawstyle() == "steps-post"  # flat, then up at the third time
    # two seeds with equal counts stay apart: another line style and colour
    assert first.get_linestyle() != second.get_linestyle()
    assert first.get_color() != second.get_color()
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ["party (2 of 2)", "mayor (2 of 2)"]


def test_the_same_report_draws_the_same_svg(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for out in (one, two):
        out.mkdir()
        charts.save(charts.network({"a": "Ann", "b": "Bo"}, [("a", "b")]), out, "n")
    assert (one / "n.svg").read_bytes() == (two / "n.svg").read_bytes()


@pytest.mark.parametrize("agents", [0, 1, 25])
def test_network_charts_of_any_size_are_drawn(agents: int, tmp_path: Path) -> None:
    names = {f"a{i}": f"Agent {i}" for i in range(agents)}
    pairs = [(f"a{i}", f"a{i + 1}") for i in range(agents - 1)]
    _, svg = charts.save(charts.network(names, pairs), tmp_path, "network")
    assert {f"Agent {i}" for i in range(agents)} <= _texts(svg)


def test_a_seed_asked_in_three_wordings_is_known_by_any_answer_and_false_by_any() -> None:
    cast = Cast(
        CAST.members,
        (replace(CAST.seeds[0], also_asked=("Anything on at the cafe?", "Busy on the 14th?")),),
    )
    unsure = "I'm not sure what you mean."
    later = "Isabella's Valentine party is at Hobbs Cafe."
    wrong = "Isabella's Valentine party is at the Town Hall."
    rephrased = {"party": {"isabella": [unsure, unsure], "maria": [later, wrong]}}
    asked = replace(
        record(), interviews={"party": {"isabella": ANSWERS["isabella"], "maria": unsure}}
    )
    asked.rephrased.update(rephrased)
    report = build(asked, cast, RunInfo(7, "m", "v", places=PLACES))
    interview = report["diffusion"]["seeds"]["party"]["interview"]
    assert interview["also_asked"] == ["Anything on at the cafe?", "Busy on the 14th?"]
    assert interview["knowers"] == ["isabella", "maria"]  # Maria, in the second wording
    maria = interview["answers"][1]
    assert [a["knows"] for a in maria["also"]] == [True, False]
    false = report["hallucinations"]
    assert (false["answers"], false["false"]) == (6, 1)  # her third answer's place
    assert false["cases"][0]["answer"] == wrong
    assert "(1) I'm not sure what you mean. (2) Isabella's Valentine party" in render(report)


def test_a_seed_the_agents_own_persona_holds_is_no_false_claim() -> None:
    unheard = _unheard()
    told = replace(CAST.members[1], currently="helping with Isabella's Valentine party")
    cast = Cast((CAST.members[0], told), CAST.seeds)
    assert build(unheard, cast, RunInfo(7, "m", "v", places=PLACES))["hallucinations"]["false"] == 0
