"""Whether days make sense: the free planner (the paper's: the model writes the day)
against the composed one (the day laid out from the persona; the model chooses), the
same town, cast, hours and seed, in one run.

    python -m bench.days [--agents 5] [--hours 12] [--start 2023-02-13T07:00] [--seed 1234]
                         [--out DIR]
    python -m bench.days --calibrate

Each planner runs `npc-brain demo --planner P` (its own server, a fresh town); the
table gives, per planner, the mean and the worst agent of each figure of the report's
`days` section (npc_brain/demo/days.py: the worst is the lowest share, or the most
violations), the town's encounters, model calls per awake agent-hour and the wall
seconds of the run (game steps, not the server's start); then composed / free of the
means. `--out` keeps both demo folders (their report.md shows each agent's day).

`--calibrate` prints the embedding cosines of the labelled pairs in
bench/data/days_fit.tsv (does an action fit a place, does it meet a daily
requirement) and the thresholds that separate them best: where FIT_THRESHOLD and
REQUIREMENT_THRESHOLD come from.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path
from typing import Any

from npc_brain.config import Settings
from npc_brain.demo import days
from npc_brain.demo.cast import load_cast
from npc_brain.demo.run import DemoOptions, run_demo
from npc_brain.demo.town import load_town
from npc_brain.demo.writing import read_report
from npc_brain.llm.llama import LlamaEmbedder

PLANNERS = ("free", "composed")  # before, after
PAIRS = Path(__file__).parent / "data" / "days_fit.tsv"


def measure(planner: str, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    options = DemoOptions(
        agents=args.agents,
        hours=args.hours,
        start=args.start,
        seed=args.seed,
        planner=planner,
        out=out / planner,
    )
    run_demo(options, stdout=io.StringIO())
    return read_report(options.out)


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}".rstrip("0").rstrip(".")


def _ratio(after: float | None, before: float | None) -> str:
    if after is None or before is None:
        return "-"
    if before == 0:
        return "=" if after == 0 else "new"
    return f"{after / before:.2f}x"


def table(reports: dict[str, dict[str, Any]]) -> str:
    """The comparison: a row per figure, a column per planner, then composed / free."""
    before, after = (reports[p] for p in PLANNERS)
    lines = [
        "| measure | free: mean / worst agent | composed: mean / worst agent | composed / free |",
        "|---|---|---|---|",
    ]
    for figure, _ in days.FIGURES:
        cells = []
        for report in (before, after):
            s = report["days"]["summary"][figure]
            cells.append(f"{_number(s['mean'])} / {_number(s['worst'])}")
        means = [r["days"]["summary"][figure]["mean"] for r in (before, after)]
        lines.append(f"| {figure} | {cells[0]} | {cells[1]} | {_ratio(means[1], means[0])} |")

    def town(label: str, values: list[float]) -> None:
        lines.append(
            f"| {label} | {_number(values[0], 1)} | {_number(values[1], 1)} "
            f"| {_ratio(values[1], values[0])} |"
        )

    town("encounters (step, pair in one arena)", [r["days"]["encounters"] for r in (before, after)])
    town(
        "model calls per awake agent-hour",
        [r["model_calls"]["per_awake_agent_hour"]["calls"] for r in (before, after)],
    )
    town("awake agent-hours", [r["awake_agent_hours"] for r in (before, after)])
    town("wall seconds (game steps)", [r["wall_clock"]["seconds"] for r in (before, after)])
    return "\n".join(lines)


def plans(reports: dict[str, dict[str, Any]]) -> str:
    """Each agent's plan for the day under each planner."""
    lines = []
    for planner, report in reports.items():
        for agent_id, day in report["days"]["agents"].items():
            lines.append(f"- {planner}, {agent_id}: {day['plan'] or '(no plan)'}")
    return "\n".join(lines)


def calibrate() -> None:
    """The cosines of the labelled pairs and the thresholds that separate them."""
    judge = days.Judge(LlamaEmbedder(Settings().embed_model_path(), threads=1))
    requirements = [m.daily_requirements for m in load_cast(load_town()).members]
    rows = [
        line.split("\t")
        for line in PAIRS.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for kind, current in (
        ("place", days.FIT_THRESHOLD),
        ("requirement", days.REQUIREMENT_THRESHOLD),
    ):
        scored = []
        for _, action, other, label in (r for r in rows if r[0] == kind):
            if kind == "place":
                cosine = judge.cosine(action, days.place_text(other))
                by_words = days.fits_by_words(action, other)
            else:
                # what is not a real activity meets nothing, whatever its cosine; by
                # meaning, an action meets only the nearest of its agent's requirements
                among = next((r for r in requirements if other in r), (other,))
                nearest = max(among, key=lambda r: judge.cosine(r, action)) == other
                real = days.is_real(action)
                cosine = judge.cosine(other, action) if real and nearest else -1.0
                by_words = real and days.meets_by_words(other, action)
            scored.append((cosine, label == "1", by_words, action, other))
        scored.sort(reverse=True)
        print(f"\n{kind}: {len(scored)} pairs, by cosine (+ fits / meets, - not; w: words decide)")
        for cosine, good, by_words, action, other in scored:
            mark = f"{'+' if good else '-'}{' w' if by_words else '  '}"
            print(f"  {cosine:6.3f} {mark} {action} | {other}")

        def errors(t: float, scored: list[Any] = scored) -> tuple[int, int]:
            alone = sum((c >= t) != good for c, good, _, _, _ in scored)
            both = sum(((c >= t) or w) != good for c, good, w, _, _ in scored)
            return alone, both

        print("  threshold: errors by cosine alone, with the word rule")
        for t in [x / 100 for x in range(15, 50, 2)]:
            print(f"    {t:.2f}: {errors(t)[0]:2d} {errors(t)[1]:2d}")
        cuts = sorted({c for c, *_ in scored})
        best = min(cuts, key=lambda t: (errors(t)[1], errors(t)[0]))
        below = max((c for c in cuts if c < best), default=best)
        print(
            f"  best cut {best:.3f} (midpoint with the cosine below: {(best + below) / 2:.3f}): "
            f"errors {errors(best)[0]} alone, {errors(best)[1]} with words; the current "
            f"{current}: {errors(current)[0]}, {errors(current)[1]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=5)
    parser.add_argument("--hours", type=float, default=12.0)
    parser.add_argument("--start", default="2023-02-13T07:00")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--out", type=Path, help="keep the two demo folders here")
    parser.add_argument("--calibrate", action="store_true", help="the thresholds' data")
    args = parser.parse_args()
    if args.calibrate:
        calibrate()
        return
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        reports = {}
        for planner in PLANNERS:
            print(f"running the demo with --planner {planner} ...", file=sys.stderr, flush=True)
            reports[planner] = measure(planner, args, out)
    print(
        f"\n{args.agents} agents, {args.hours:g} game hours from {args.start}, default models, "
        f"seed {args.seed}\n"
    )
    print(table(reports))
    print("\nplans for the day:\n" + plans(reports))


if __name__ == "__main__":
    main()
