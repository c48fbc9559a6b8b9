"""The demo's throughput while another process keeps a core busy, against quiet.

    python -m bench.contention [--agents 3] [--hours 1] [--start 2023-02-13T08:00]

A game shares the machine with the brain. This runs the same demo (same town, seed and
game hours, so the same work: the report says how many model calls each run made) on a
quiet machine, then with one other process spinning a core at normal priority (the
game's main loop, as a stand-in), then quiet again; and prints the wall seconds of each
and the throughput with the busy core against the mean of the quiet runs. The fair
share on a machine of C cores is (C - 1) / C when the model can use every core.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator

from bench.demo_scale import measure

SPIN = "while True: pass"


@contextlib.contextmanager
def busy_core() -> Iterator[None]:
    """Another process keeping one core busy (nice 0) while the block runs."""
    spinner = subprocess.Popen([sys.executable, "-c", SPIN])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def run(agents: int, hours: float, start: str, seed: int) -> tuple[float, int]:
    """Wall seconds of one demo run (bench.demo_scale.measure) and its model calls."""
    began = time.perf_counter()
    report = measure(agents, hours, start, seed)
    return time.perf_counter() - began, int(report["model_calls"]["total"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--start", default="2023-02-13T08:00")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    runs: list[tuple[str, float, int]] = []
    for arm in ("quiet", "one core busy", "quiet"):
        with busy_core() if arm != "quiet" else contextlib.nullcontext():
            seconds, calls = run(args.agents, args.hours, args.start, args.seed)
        runs.append((arm, seconds, calls))
        print(f"{arm}: {seconds:.1f} s, {calls} model calls", flush=True)
    quiet = [s for arm, s, _ in runs if arm == "quiet"]
    busy = next(s for arm, s, _ in runs if arm != "quiet")
    cores = os.cpu_count() or 1
    mean_quiet = sum(quiet) / len(quiet)
    print(
        f"\n{args.agents} agents, {args.hours:g} game hours from {args.start}, seed "
        f"{args.seed}, {cores} cores\n"
    )
    print("| run | wall s | model calls |")
    print("|---|---|---|")
    for arm, seconds, calls in runs:
        print(f"| {arm} | {seconds:.1f} | {calls} |")
    print(
        f"\nthroughput with one core busy / quiet: {mean_quiet / busy:.2f}x "
        f"(fair share {(cores - 1) / cores:.2f}x; target >= 0.4x)"
    )


if __name__ == "__main__":
    main()
