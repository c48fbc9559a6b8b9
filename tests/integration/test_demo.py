"""`npc-brain demo` end to end with the real default models: three agents for a game
hour give a report with every section, the same seed gives the same report again, and
an agent answers an interview from the memories the run left."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration
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


def demo(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "npc_brain", "demo", "--agents", "3", "--hours", "1"]
    done = subprocess.run(
        [*command, "--start", "2023-02-13T12:00", "--seed", "7", "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def without_wall_clock(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if not k.startswith("wall")}


def test_three_agents_for_an_hour_give_the_same_full_report_twice(tmp_path: Path) -> None:
    first = demo(tmp_path / "one")
    report = json.loads((tmp_path / "one" / "report.json").read_text())
    assert set(SECTIONS) <= set(report)
    assert report["config"]["agents"] == {
        "isabella": "Isabella Rodriguez",
        "maria": "Maria Lopez",
        "sam": "Sam Moore",
    }
    assert {e["agent"] for e in report["timeline"]} == {"isabella", "maria", "sam"}
    assert "12:00" in first.stdout and "Isabella Rodriguez" in first.stdout
    party = report["diffusion"]["seeds"]["party"]
    assert party["knowers"][0]["agent"] == "isabella"
    assert "party" in party["knowers"][0]["memory"]["description"].lower()
    assert report["diffusion"]["seeds"]["mayor"]["knowers"][0]["agent"] == "sam"
    for seed in report["diffusion"]["seeds"].values():  # everyone interviewed on each seed
        assert len(seed["interview"]["answers"]) == 3
    assert report["hallucinations"]["answers"] == 18  # 3 agents, 2 seeds, 3 wordings
    assert "by interview: party" in first.stdout
    calls = report["model_calls"]
    assert calls["total"] > 0
    assert calls["prompt_tokens"] > 0
    assert 0 < report["awake_agent_hours"] <= 3
    assert "plan" in calls["agents"]["isabella"]["calls_by_kind"]
    assert report["wall_seconds_per_game_hour"] > 0
    assert 0 <= report["network_density"]["start"] <= report["network_density"]["end"] <= 1
    markdown = (tmp_path / "one" / "report.md").read_text()
    for chart in ("diffusion", "network"):
        assert f"]({chart}.png)" in markdown
        assert (tmp_path / "one" / f"{chart}.png").read_bytes().startswith(b"\x89PNG")
        ET.parse(tmp_path / "one" / f"{chart}.svg")

    demo(tmp_path / "two")
    again = json.loads((tmp_path / "two" / "report.json").read_text())
    assert without_wall_clock(again) == without_wall_clock(report)

    store = tmp_path / "one" / "data" / "worlds" / "smallville.sqlite3"
    before = memories_of(store, "isabella")
    asked = subprocess.run(
        [
            sys.executable,
            "-m",
            "npc_brain",
            "interview",
            "isabella",
            "What are you up to?",
            "--out",
            str(tmp_path / "one"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert asked.returncode == 0, asked.stderr[-3000:]
    assert asked.stdout.strip()
    assert memories_of(store, "isabella") == before  # an interview stores nothing


def memories_of(store: Path, agent_id: str) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        (count,) = db.execute(
            "SELECT count(*) FROM memories WHERE agent_id = ?", (agent_id,)
        ).fetchone()
    return int(count)


def test_a_run_goes_on_from_its_last_game_hour(tmp_path: Path) -> None:
    """A two-hour run leaves the checkpoint of its second hour; resumed from there, the
    run steps that hour again against the world as it was (LoadWorld) and reports both
    hours: the first hour's actions kept, the second's stepped again."""
    out = tmp_path / "run"
    two_hours = ("--agents", "2", "--hours", "2")
    first = demo(out, *two_hours)
    assert "progress: 2023-02-13 13:00, step 7 of 12" in first.stdout
    whole = json.loads((out / "report.json").read_text())

    resumed = demo(out, *two_hours, "--resume")
    assert "resuming at step 7 of 12" in resumed.stdout
    report = json.loads((out / "report.json").read_text())
    first_hour = [e for e in whole["timeline"] if e["time"] < "2023-02-13T13:00"]
    assert [e for e in report["timeline"] if e["time"] < "2023-02-13T13:00"] == first_hour
    assert any(e["time"] >= "2023-02-13T13:00" for e in report["timeline"])
    assert report["model_calls"]["total"] >= whole["model_calls"]["total"] * 0.5
    assert len(list((out / "data" / "snapshots" / "smallville").glob("*.sqlite3"))) <= 2

    other = subprocess.run(
        [sys.executable, "-m", "npc_brain", "demo", "--agents", "3", "--out", str(out), "--resume"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert other.returncode != 0
    assert "made with --agents 2, not 3" in other.stderr
