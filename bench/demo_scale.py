"""Wall-clock seconds per game hour of `npc-brain demo` with the default models, for a
growing town, beside a single agent measured in the same run (the baseline).

    python -m bench.demo_scale [--agents 1,5,25] [--hours 1] [--start 2023-02-13T12:00]

Each size runs the demo (its own server, a fresh town) for the same game hours. The
table shows seconds per game hour, per agent-hour, the per-agent ratio to one agent,
model calls per agent per game hour, and the projection of a whole game day for the
largest town against the target: 25 agents for a game day in under 60 minutes.

The projection multiplies the measured seconds per game hour by 24: the measured hours
are daytime, where agents are awake, and include the day's planning, so a real day
(agents asleep a third of it, planning once) should take less.
"""

from __future__ import annotations

import argparse
import io
import tempfile
from pathlib import Path
from typing import Any

from npc_brain.demo.run import DemoOptions, run_demo
from npc_brain.demo.writing import read_report

TARGET_DAY_SECONDS = 60 * 60  # 25 agents, one game day, in under an hour (issue 6)


def measure(agents: int, hours: float, start: str, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        options = DemoOptions(
            agents=agents, hours=hours, start=start, seed=seed, out=Path(out) / "demo"
        )
        run_demo(options, stdout=io.StringIO())
        return read_report(options.out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="1,5,25", help="town sizes, comma-separated")
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--start", default="2023-02-13T12:00")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    sizes = sorted({int(n) for n in args.agents.split(",")} | {1})
    rows = []
    for agents in sizes:
        report = measure(agents, args.hours, args.start, args.seed)
        per_hour = report["wall_seconds_per_game_hour"]
        calls = report["model_calls"]
        rows.append((agents, per_hour, calls, report))
        print(f"measured {agents} agents: {per_hour:.1f} s per game hour", flush=True)
    base = rows[0][1]  # one agent
    print(f"\n{args.hours:g} game hours from {args.start}, default models, seed {args.seed}\n")
    print(
        "| agents | s per game hour | s per agent-hour | per-agent vs 1 agent "
        "| model calls per agent per game hour | prompt + completion tokens per agent-hour "
        "| conversations |"
    )
    print("|---|---|---|---|---|---|---|")
    for agents, per_hour, calls, report in rows:
        per_agent = per_hour / agents
        usage = calls["per_agent_per_game_hour"]
        print(
            f"| {agents} | {per_hour:.1f} | {per_agent:.1f} | {per_agent / base:.2f}x "
            f"| {usage['calls']:.1f} | {usage['prompt_tokens']:.0f} + "
            f"{usage['completion_tokens']:.0f} | {len(report['conversations'])} |"
        )
    agents, per_hour = rows[-1][0], rows[-1][1]
    day = per_hour * 24
    verdict = "meets" if day < TARGET_DAY_SECONDS else "misses"
    print(
        f"\nprojected game day of {agents} agents: {day / 60:.0f} min "
        f"({day / TARGET_DAY_SECONDS:.1f}x the 60-minute target; {verdict} it)"
    )


if __name__ == "__main__":
    main()
