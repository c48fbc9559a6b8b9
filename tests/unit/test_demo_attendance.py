"""The report's attendance of a seed's event, in a farming village with a harvest dance
(not the demo's town): who knew, who said they would come, who came for it, and why
each who knew did not."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from npc_brain.demo import charts
from npc_brain.demo.attendance import attendance_section
from npc_brain.demo.cast import Cast, CastMember, Event, Seed
from npc_brain.demo.days import Step
from npc_brain.demo.memories import Conversation, Line, MemoryView

STEP = 30  # game minutes a step stands for
SVG = "{http://www.w3.org/2000/svg}"
BARN, MILL, HOME = "Elmfield:Tull's Barn:floor", "Elmfield:Mill:wheel", "Elmfield:cottage:bed"


def at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2031, 9, day, hour, minute, tzinfo=UTC).timestamp()


DANCE = Seed(
    "dance",
    "Harvest dance",
    "ada",
    "Ada Tull is holding a harvest dance in Tull's Barn on September 6 from 7 pm to 9 pm",
    ("harvest dance",),
    event=Event("Elmfield:Tull's Barn", at(6, 19), at(6, 21)),
)
MEMBERS = ("ada", "ben", "cal", "dot", "eli", "fay", "gus", "hal")
CAST = Cast(tuple(CastMember(a, a.title(), HOME) for a in MEMBERS), (DANCE,))


def heard(agent_id: str, hour: int, source: str = "ada") -> MemoryView:
    text = f'Ada said to {agent_id.title()}: "Come to the harvest dance tomorrow!"'
    return MemoryView(f"{agent_id}-1", "DIALOGUE", text, at(5, hour), "HEARD", source)


def plan(agent_id: str, items: str) -> MemoryView:
    return MemoryView(
        f"{agent_id}-2", "PLAN", f"{agent_id.title()}'s plan for the day: {items}", at(6, 6)
    )


STREAMS = {
    "ada": [MemoryView("ada-0", "OBSERVATION", DANCE.memory, at(1, 8), "AUTHOR")],
    "ben": [heard("ben", 10), plan("ben", "6:00 feed the hens; 19:00 go to the harvest dance")],
    "cal": [heard("cal", 11), plan("cal", "6:00 milk the cows; 18:00 grind the late wheat")],
    "dot": [heard("dot", 12)],
    "gus": [
        heard("gus", 14),
        MemoryView(
            "gus-3",
            "THOUGHT",
            "Gus can't go to the harvest dance at 19:00, because he will go to the vigil then",
            at(6, 6),
        ),
    ],
    "eli": [heard("eli", 13)],
    "fay": [],
    "hal": [heard("hal", 15), plan("hal", "6:00 shoe the horses; 19:00 go to the harvest dance")],
}


def steps() -> list[Step]:
    doing = {
        "ada": ("host the harvest dance", BARN),
        "ben": ("go to the harvest dance", BARN),
        "cal": ("grind the late wheat", MILL),
        "dot": ("sweep the floor", BARN),
        "eli": ("sleeping", HOME),
        "fay": ("mend a fence", HOME),
        "gus": ("keep the vigil", "Elmfield:chapel:nave"),
        "hal": ("talking with Ben", BARN),  # came for the dance, and talked there
    }
    found = []
    for minutes in range(0, 180, STEP):
        moment = at(6, 18) + minutes * 60
        for agent_id, (what, where) in doing.items():
            found.append(Step(moment, agent_id, what, where))
    return found


TALKS = [
    Conversation(
        at(5, 10),
        ("ada", "ben"),
        (
            Line("ada", "Come to the harvest dance tomorrow!"),
            Line("ben", "I'll be there, wouldn't miss it."),
        ),
    )
]


def test_who_knew_said_came_and_why_not() -> None:
    section = attendance_section(CAST, STREAMS, steps(), TALKS, STEP)
    dance = section["events"]["dance"]
    rows = {r["agent"]: r for r in dance["agents"]}
    assert (dance["invited"], dance["said_would_come"], dance["invited_who_came"]) == (6, 1, 2)
    assert dance["came"] == 3  # the host too
    assert rows["ben"]["came"] and rows["ben"]["said_would_come"].startswith("I'll be there")
    assert rows["ben"]["heard_from"] == "ada" and rows["ben"]["minutes_there_for_it"] == 120
    assert rows["cal"]["reason"] == "another commitment: grind the late wheat"
    assert rows["dot"]["reason"] == "at the place for something else: sweep the floor"
    assert rows["dot"]["minutes_at_place"] == 120 and not rows["dot"]["came"]
    assert rows["eli"]["reason"] == "asleep"
    assert rows["fay"]["reason"] == "never heard" and rows["fay"]["knew_since"] == ""
    assert rows["gus"]["reason"].startswith("another commitment: Gus can't go to the harvest")
    assert [state for _, state in rows["ben"]["timeline"]] == ["there for it"] * 4
    assert {state for _, state in rows["dot"]["timeline"]} == {"there for something else"}
    # talking at the place, in the hours its plan gave the dance: there for it
    assert [state for _, state in rows["hal"]["timeline"]] == ["there for it"] * 4
    assert {state for _, state in rows["eli"]["timeline"]} == {"asleep"}
    assert {state for _, state in rows["cal"]["timeline"]} == {"elsewhere"}


def test_the_timeline_chart_has_a_row_for_each_who_knew(tmp_path: Path) -> None:
    dance = attendance_section(CAST, STREAMS, steps(), TALKS, STEP)["events"]["dance"]
    png, svg = charts.save(charts.attendance(dance, {a: a.title() for a in MEMBERS}), tmp_path, "a")
    assert png.read_bytes().startswith(b"\x89PNG")
    texts = {"".join(t.itertext()) for t in ET.parse(svg).getroot().iter(f"{SVG}text")}
    assert {"Ada", "Ben (said yes)", "Cal", "Dot", "Eli", "Gus"} <= texts
    assert "Fay" not in texts  # never heard of it
    assert {"there for it", "there for something else", "elsewhere", "asleep"} <= texts


def test_one_who_knew_and_planned_nothing_for_that_day_forgot() -> None:
    quiet = {**STREAMS, "cal": [heard("cal", 11)]}
    rows = {
        r["agent"]: r
        for r in attendance_section(CAST, quiet, steps(), [], STEP)["events"]["dance"]["agents"]
    }
    assert rows["cal"]["reason"] == "forgot"


def test_a_seed_without_an_event_has_no_attendance() -> None:
    news = Seed("mill", "New miller", "ada", "The mill has a new miller", ("new miller",))
    assert (
        attendance_section(Cast(CAST.members, (news,)), STREAMS, steps(), [], STEP)["events"] == {}
    )
