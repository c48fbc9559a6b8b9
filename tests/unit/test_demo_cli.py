"""`npc-brain demo` and `npc-brain interview` on the command line: options, defaults and
errors phrased for the user (no traceback, exit status 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.cli import build_parser, demo_options, main


def test_demo_options_and_defaults() -> None:
    args = build_parser().parse_args(["demo"])
    options = demo_options(args)
    assert (options.start, options.hours, options.agents, options.seed) == (
        "2023-02-13T12:00",
        2.0,
        5,
        1234,
    )
    assert not options.resume
    assert (args.ablation, args.out, args.server, args.model) == (
        "none",
        Path("npc-brain-demo"),
        None,
        None,
    )
    args = build_parser().parse_args(
        ["demo", "--agents", "25", "--hours", "0.5", "--ablation", "no-memory", "--seed", "9"]
    )
    assert (args.agents, args.hours, args.ablation, args.seed) == (25, 0.5, "no-memory", 9)
    paper = demo_options(build_parser().parse_args(["demo", "--experiment", "paper"]))
    assert (paper.start, paper.hours, paper.agents) == ("2023-02-13T07:00", 37.0, None)
    assert (paper.town, paper.world_id) == ("smallville", "")  # the whole cast, world: town
    town = demo_options(build_parser().parse_args(["demo", "--town", "copperpeak"]))
    assert town.town == "copperpeak"
    fewer = demo_options(
        build_parser().parse_args(["demo", "--experiment", "paper", "--agents", "5"])
    )
    assert (fewer.hours, fewer.agents) == (37.0, 5)  # an option given still counts
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--ablation", "no-sleep"])


def test_interview_takes_an_agent_and_a_question() -> None:
    args = build_parser().parse_args(["interview", "isabella", "What's new?", "--out", "x"])
    assert (args.agent, args.question, args.out, args.server) == (
        "isabella",
        "What's new?",
        Path("x"),
        None,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--agents", "0"], "--agents: 0 is outside 1..25"),
        (["demo", "--hours", "0"], "--hours: 0 is outside"),
        (["demo", "--start", "soon"], "--start: 'soon' is not an ISO time"),
        (["demo", "--model", "nowhere.gguf"], "--model: nowhere.gguf is not a file"),
        (["demo", "--server", "127.0.0.1:1", "--model", "m.gguf"], "--model: the server given"),
        (["interview", "isabella", "hi"], "no demo report in"),
    ],
)
def test_bad_options_are_refused_before_anything_starts(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()
