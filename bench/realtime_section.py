"""The "real time" section of the suite: issue 20's rows, each beside its baseline
measured in the same run.

    python -m bench --only realtime [--quick]     (about 30 minutes on 2 quiet cores,
    python -m bench.realtime_section [--quick]     plus llama-server's build, once)

- A player's first token (Converse), idle and while 6 agents plan and reflect, and the
  whole reply (its final Utterance): the default server (one call at a time, a
  player's line interrupting the running job) against the serial scheduler (the line
  waits for the job), bench/realtime.py. With grounded replies the first token is the
  reply's opening, chosen by code; the whole reply is the model's time.
- Generated tokens a second with 8 calls at once against 1: the batching engine
  (`chat_slots` 8) against one call at a time, with llama.cpp's own llama-server
  (`--parallel 8`) beside them where it can be built (bench/batching.py).
- The default demo town (`npc-brain demo`, 5 agents, 2 game hours): model calls per
  awake agent-hour, and the share of its prompt tokens not evaluated again.
- 25 agents for one game day, projected from a daytime game hour (x 24), beside one
  agent's hour in the same run (bench/demo_scale.py).
- Tick of 100 agents while a player dialogue keeps the model busy, p99, beside the bare
  gRPC round trip (health Check) of the same server in the same state.
- The demo's throughput while another process keeps a core busy, against quiet runs
  before and after (bench/contention.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench import (
    batching,
    contention,
    decode_ceiling,
    demo_report,
    demo_scale,
    realtime,
    tick_latency,
)
from bench.common import Row, latencies, p50_p99, render
from bench.llama_server import Unavailable, server
from npc_brain.config import Settings
from npc_brain.demo.run import DemoOptions, run_demo
from npc_brain.demo.writing import read_report
from npc_brain.llm.base import ChatModel
from npc_brain.llm.batching import BatchedLlamaChat

SECTION = "real time"
DAY_START = "2023-02-13T12:00"


def first_token_rows(questions: int, busy_agents: int) -> list[Row]:
    """A player's first token on the default server and on the serial scheduler."""
    ours_arm, serial_arm = realtime.ARMS[1], realtime.ARMS[2]
    args = argparse.Namespace(questions=questions, busy_agents=busy_agents)
    ours, serial = realtime.measure(ours_arm, args), realtime.measure(serial_arm, args)
    (i50, i95), (b50, b95) = _p50_p95(ours.idle), _p50_p95(ours.busy)
    (si50, si95), (sb50, sb95) = _p50_p95(serial.idle), _p50_p95(serial.busy)
    return [
        Row(
            SECTION,
            f"player Converse, time to first token, idle (p95; {questions} questions)",
            f"{i95:.2f} s (p50 {i50:.2f})",
            f"{si95:.2f} s (p50 {si50:.2f}) the serial scheduler",
            f"{si95 / i95:.1f}x",
            "<= 0.5 s",
        ),
        Row(
            SECTION,
            f"... while {busy_agents} other agents plan and reflect (p95); busy / idle",
            f"{b95:.2f} s (p50 {b50:.2f}); {b95 / i95:.1f}x idle",
            f"{sb95:.2f} s (p50 {sb50:.2f}); {sb95 / si95:.1f}x idle, the serial scheduler",
            f"{sb95 / b95:.1f}x",
            "<= 1.0 s and <= 2x idle",
        ),
        _whole_row(
            "the whole reply (its final Utterance), idle (p95)", ours.idle_whole, serial.idle_whole
        ),
        _whole_row(
            f"... while {busy_agents} other agents plan and reflect (p95)",
            ours.busy_whole,
            serial.busy_whole,
        ),
        Row(
            SECTION,
            "the town's model calls a minute while the player talks",
            f"{ours.background_per_min:.1f}",
            f"{serial.background_per_min:.1f} the serial scheduler",
            "",
            "",
        ),
    ]


def _whole_row(measure: str, ours: list[float], serial: list[float]) -> Row:
    """Seconds to the reply as checked and stored, beside the serial scheduler's."""
    (o50, o95), (s50, s95) = _p50_p95(ours), _p50_p95(serial)
    return Row(
        SECTION,
        measure,
        f"{o95:.2f} s (p50 {o50:.2f})",
        f"{s95:.2f} s (p50 {s50:.2f}) the serial scheduler",
        f"{s95 / o95:.1f}x",
        "",
    )


def batching_rows(tokens: int, rounds: int, anchor: bool) -> list[Row]:
    """Tokens a second with 8 calls at once, each arm against its own single call."""
    path = Settings().chat_model_path()
    cores = Settings().threads or os.cpu_count() or 1
    batched = BatchedLlamaChat(path, slots=8, threads=cores)
    alone = batching.ChatInChildProcess(path, cores)
    arms: dict[str, ChatModel] = {"batched": batched, "one at a time": alone}
    note = ""
    with contextlib.ExitStack() as stack:
        stack.callback(alone.close)
        stack.callback(batched.close)
        if anchor:
            try:
                arms["llama-server"] = stack.enter_context(server(path, 8, cores))
            except Unavailable as error:
                note = f"; llama-server left out: {error}"
        rates = batching.measure(arms, [1, 8], tokens, rounds)
    ceiling = decode_ceiling.decode_rates(path, [1, 8], 128, cores)
    best: Callable[[str, int], float] = lambda name, n: max(rates[(name, n)])  # noqa: E731
    one, eight = best("batched", 1), best("batched", 8)
    serial = best("one at a time", 8) / best("one at a time", 1)
    baseline = f"one at a time {serial:.2f}x"
    if "llama-server" in arms:
        theirs = best("llama-server", 8) / best("llama-server", 1)
        baseline += f"; llama-server --parallel 8 {theirs:.2f}x ({best('llama-server', 8):.0f}/s)"
    return [
        Row(
            SECTION,
            f"generated tokens/s, 8 calls at once vs 1 ({tokens} tokens a call{note})",
            f"{eight / one:.2f}x ({eight:.0f} vs {one:.0f} tokens/s)",
            baseline,
            f"{(eight / one) / serial:.2f}x",
            ">= 3x",
        ),
        Row(
            SECTION,
            "... the ceiling: llama.cpp's own decode of 8 tokens (8 sequences) vs 1",
            f"{ceiling[8] / ceiling[1]:.2f}x ({ceiling[8]:.0f} vs {ceiling[1]:.0f} tokens/s)",
            "no sampling, grammar or scheduling (bench/decode_ceiling.py)",
            "",
            "",
        ),
    ]


def demo_rows() -> list[Row]:
    """The default demo town: calls per awake agent-hour and prompt reuse."""
    with tempfile.TemporaryDirectory() as out:
        options = DemoOptions(out=Path(out) / "demo")
        run_demo(options, stdout=io.StringIO())
        report = read_report(options.out)
    return demo_report.report_rows(report, "the default demo")


def day_rows(agents: int) -> list[Row]:
    """A game day of `agents` agents projected from a daytime hour, beside one agent's."""
    seed = Settings().seed
    one = demo_scale.measure(1, 1.0, DAY_START, seed)["wall_seconds_per_game_hour"]
    town = demo_scale.measure(agents, 1.0, DAY_START, seed)["wall_seconds_per_game_hour"]
    return [
        Row(
            SECTION,
            f"{agents} agents x 1 game day, projected from the hour from {DAY_START[-5:]} x 24",
            f"{town * 24 / 60:.0f} min ({town:.0f} s a game hour)",
            f"1 agent: {one * 24 / 60:.0f} min ({one:.0f} s a game hour)",
            f"{town / one / agents:.2f}x per agent",
            "<= 60 min (25 agents)",
        )
    ]


def tick_rows(ticks: int) -> list[Row]:
    """Tick of 100 agents while a player dialogue saturates the model, beside the same
    Ticks on the same server with the model idle (what the model's threads add), and the
    bare round trip (health Check) while saturated."""
    with tempfile.TemporaryDirectory() as data:
        arm = tick_latency.Arm(Path(data), None)
        try:
            idle = latencies(arm.tick, ticks)
            with arm.saturated():
                check, tick = latencies(arm.check, ticks), latencies(arm.tick, ticks)
        finally:
            arm.stop()
    (t50, t99), (i50, i99), (c50, c99) = p50_p99(tick), p50_p99(idle), p50_p99(check)
    return [
        Row(
            SECTION,
            f"Tick, {tick_latency.AGENTS} agents, model saturated (p99; {ticks} Ticks)",
            f"{t99:.1f} ms (p50 {t50:.1f})",
            f"{i99:.1f} ms (p50 {i50:.1f}) the same Ticks, model idle",
            f"{t99 / i99:.2f}x",
            "<= 20 ms",
        ),
        Row(
            SECTION,
            "... the bare round trip (health Check), model saturated (p99)",
            f"{c99:.1f} ms (p50 {c50:.1f})",
            "",
            "",
            "",
        ),
    ]


def contention_rows() -> list[Row]:
    """The same demo hour quiet, beside a busy core, and quiet again."""
    seed = Settings().seed
    runs = []
    for busy in (False, True, False):
        with contention.busy_core() if busy else contextlib.nullcontext():
            runs.append(contention.run(3, 1.0, "2023-02-13T08:00", seed)[0])
    quiet = (runs[0] + runs[2]) / 2
    cores = os.cpu_count() or 1
    return [
        Row(
            SECTION,
            "demo throughput with one core kept busy by another process vs quiet",
            f"{quiet / runs[1]:.2f}x ({runs[1]:.0f} s)",
            f"{runs[0]:.0f} s and {runs[2]:.0f} s quiet",
            "",
            f">= 0.4x (fair share {(cores - 1) / cores:.2f}x)",
        )
    ]


def rows(quick: bool, anchor: bool = True) -> list[Row]:
    """Every row of the section (quick: fewer questions and tokens, 10 agents a day)."""
    out = first_token_rows(4 if quick else 8, 6)
    out += batching_rows(48 if quick else 96, 1 if quick else 2, anchor)
    out += demo_rows()
    out += day_rows(10 if quick else 25)
    out += tick_rows(100 if quick else 300)
    out += contention_rows()
    return out


def _p50_p95(samples: list[float]) -> tuple[float, float]:
    p50, p95 = np.percentile(np.asarray(samples), [50, 95])
    return float(p50), float(p95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, 10 agents a day")
    parser.add_argument("--no-llama-server", action="store_true", help="leave the anchor out")
    args = parser.parse_args()
    print(render(rows(args.quick, not args.no_llama_server)))


if __name__ == "__main__":
    main()
