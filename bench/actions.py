"""The bench section "actions": game actions chosen in conversation, on labelled lines
(bench/data/actions: requests, trades, threats, price questions and small talk to the
NPCs of bench/data/player_talk's three settings, each NPC with the actions a game would
declare for it).

For each line: the action chosen (or none) against the expected one, its arguments
against those the line determines, and whether the words agree with the choice (no
"Of course" without an action, the price said is the price chosen). Every sale chosen
right is then reported done (ReportOutcome), and the NPC is asked "What did I buy from
you?": its answer must name the item and the price. The replies' latency is measured
twice in the same run: with the actions declared, and with none (the baseline).
With --examples, each action is declared with its example lines (examples.json); with
--aliases, each option with the other names a game's writer gave it (aliases.json).
--split takes several splits, comma-separated ("train,dev,dev2"); --no-baseline skips
the two passes without actions, which only the latency needs (a tuning run of all five
tuning splits then takes under a minute on 2 cores).

    python -m bench.actions [--split test|train|dev|dev2|fresh|...|fresh10|all,...]
                            [--examples] [--aliases] [--no-baseline] [--out results.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from bench.common import Row
from bench.player_talk import PLAYER, _persona, _time, build
from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.game_actions import GameAction
from npc_brain.server.app import build_brain
from npc_brain.server.convert import game_actions_from_pb
from npc_brain.v1 import brain_pb2 as pb

DATA = Path(__file__).resolve().parent / "data"
ASKED_AFTER = "What did I buy from you?"
YES = re.compile(r"(?<!not )\b(of course|sure|certainly|right away|yes)\b", re.IGNORECASE)


def load() -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    settings = json.loads((DATA / "player_talk" / "settings.json").read_text(encoding="utf-8"))
    actions = json.loads((DATA / "actions" / "actions.json").read_text(encoding="utf-8"))
    lines = [
        json.loads(row)
        for row in (DATA / "actions" / "lines.jsonl").read_text(encoding="utf-8").splitlines()
        if row.strip()
    ]
    return settings, actions, lines


def declared(
    actions: Sequence[dict[str, Any]],
    examples: dict[str, list[str]] | None = None,
    aliases: dict[str, Any] | None = None,
) -> tuple[GameAction, ...]:
    """Declared actions from their JSON (the HTTP door's mapping of the proto), each
    with its example lines from `examples` (by action name) and its options' aliases
    from `aliases` (action, argument, option value) when given."""
    given, called = examples or {}, aliases or {}

    def option(action: str, argument: str, o: dict[str, Any]) -> dict[str, Any]:
        return o | {"aliases": called.get(action, {}).get(argument, {}).get(o["value"], [])}

    def argument(action: str, g: dict[str, Any]) -> dict[str, Any]:
        return g | {"options": [option(action, g["name"], o) for o in g.get("options", [])]}

    return game_actions_from_pb(
        [
            json_format.ParseDict(
                a
                | {
                    "examples": given.get(a["name"], []),
                    "arguments": [argument(a["name"], g) for g in a.get("arguments", [])],
                },
                pb.GameAction(),
            )
            for a in actions
        ]
    )


def option_aliases() -> dict[str, Any]:
    """The other names a game's writer gave the options (aliases.json, written from the
    declarations and personas alone)."""
    written: dict[str, Any] = json.loads(
        (DATA / "actions" / "aliases.json").read_text(encoding="utf-8")
    )
    return written


def example_lines() -> dict[str, Any]:
    """The example lines a game's writer gave each action (examples.json, written from
    the declarations and personas alone)."""
    written: dict[str, Any] = json.loads(
        (DATA / "actions" / "examples.json").read_text(encoding="utf-8")
    )
    return written


def _number(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def judge(line: dict[str, Any], text: str, chosen: Any) -> dict[str, Any]:
    expect = line["expect"]
    name = chosen.name if chosen else None
    right = name == expect["action"]
    arguments = chosen.arguments if chosen else {}
    args_right = all(arguments.get(k) == str(v) for k, v in expect.get("arguments", {}).items())
    contradicts = []
    if chosen is None and YES.search(text) and line["act"] in ("request", "trade"):
        contradicts.append("says yes, chooses nothing")
    if chosen is not None and chosen.price and _number(chosen.price) not in text:
        contradicts.append(f"price {chosen.price:g} chosen, not said")
    price = expect.get("price")
    if chosen is None and price and line["act"] == "price" and _number(price) not in text:
        contradicts.append(f"price {price:g} not said")
    if right and chosen is not None and price and _number(chosen.price) != _number(price):
        contradicts.append(f"price {chosen.price:g} chosen, {price:g} right")
    return {
        "right": right and (not chosen or args_right),
        "chosen": name,
        "arguments": arguments,
        "expected": expect["action"],
        "contradicts": contradicts,
    }


async def _reply(
    brain: Brain, world: str, npc: str, now: float, utterance: str
) -> tuple[str, Line | None, float]:
    started = time.perf_counter()
    final = None
    async for event in brain.converse(world, npc, now, PLAYER, utterance):
        if isinstance(event, Line):
            final = event
    return (final.text if final else ""), final, time.perf_counter() - started


async def run(
    split: str, examples: bool = False, with_baseline: bool = True, aliases: bool = False
) -> dict[str, Any]:
    """The split's lines (or the comma-separated splits') to the NPCs, their actions
    declared with their example lines or without; timed against the same lines with no
    actions declared unless not `with_baseline`."""
    settings_data, actions, lines = load()
    written = example_lines() if examples else {}
    called = option_aliases() if aliases else {}
    splits = set(split.split(","))
    wanted = [x for x in lines if "all" in splits or x.get("split") in splits]
    with tempfile.TemporaryDirectory(prefix="npc-actions-") as tmp:
        brain = build_brain(Settings(data_dir=Path(tmp)))
        by_id = {s["id"]: s for s in settings_data}
        try:
            for setting in settings_data:
                await build(brain, setting)
            baseline = []  # the same lines, no actions declared (after a pass that warms
            # the caches both arms share: the lines' embeddings, the model's prefix)
            for warming in (True, False) if with_baseline else ():
                for i, line in enumerate(wanted):
                    setting = by_id[line["setting"]]
                    now = _time(setting["start"]) + 60 * i
                    _, _, seconds = await _reply(
                        brain, setting["id"], line["npc"], now, line["line"]
                    )
                    if not warming:
                        baseline.append(seconds)
            for setting in settings_data:
                for npc in setting["npcs"]:
                    await brain.upsert_agent(
                        setting["id"],
                        npc["id"],
                        _persona(npc),
                        _time(setting["start"]),
                        actions=declared(
                            actions[setting["id"]][npc["id"]],
                            written.get(setting["id"], {}).get(npc["id"]),
                            called.get(setting["id"], {}).get(npc["id"]),
                        ),
                    )
            results, timed = [], []
            for i, line in enumerate(wanted):
                setting = by_id[line["setting"]]
                now = _time(setting["start"]) + 3600 + 120 * i
                text, final, seconds = await _reply(
                    brain, setting["id"], line["npc"], now, line["line"]
                )
                timed.append(seconds)
                chosen = final.game_action if final else None
                verdict = judge(line, text, chosen)
                verdict |= {
                    "id": line["id"],
                    "split": line.get("split"),
                    "line": line["line"],
                    "reply": text,
                }
                sold = chosen is not None and verdict["right"] and line["act"] == "trade"
                if sold and chosen is not None:
                    await brain.report_outcome(
                        setting["id"], line["npc"], chosen.action_id, True, "", now + 30
                    )
                    recalled, _, _ = await _reply(
                        brain, setting["id"], line["npc"], now + 60, ASKED_AFTER
                    )
                    item = next(iter(chosen.arguments.values()), "").replace("_", " ")
                    head = item.split()[-1] if item else ""
                    price = _number(chosen.price)
                    verdict["recalled"] = recalled
                    verdict["recalled_right"] = (  # what it sold, not what it sells
                        head.lower() in recalled.lower()
                        and price in recalled
                        and not recalled.startswith("I have")
                    )
                results.append(verdict)
        finally:
            brain.close()
    return {"results": results, "with_actions": timed, "without_actions": baseline}


def passed(result: dict[str, Any]) -> bool:
    """Whether a judged line is right and its words agree with the choice."""
    return bool(result["right"] and not result["contradicts"])


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def summary(run_: dict[str, Any]) -> dict[str, float]:
    results = run_["results"]
    recalls = [r["recalled_right"] for r in results if "recalled_right" in r]
    return {
        "lines": len(results),
        "right": sum(r["right"] for r in results) / len(results),
        "contradictions": sum(bool(r["contradicts"]) for r in results),
        "recalled": sum(recalls) / len(recalls) if recalls else 0.0,
        "sales_reported": len(recalls),
        "extra_p95_s": (
            p95(run_["with_actions"]) - p95(run_["without_actions"])
            if run_["without_actions"]
            else float("nan")  # --no-baseline
        ),
    }


TRANSCRIPT = Path(__file__).resolve().parent / "results" / "actions_transcript.md"


def write_transcript(done: dict[str, Any], split: str) -> None:
    """Each line of the split with the action chosen, the one expected, and the reply."""
    out = [
        f"# Game actions: the {split} split (python -m bench --only actions)",
        "",
        "Each line: what the player said, the action chosen (arguments) against the one",
        "expected, and what the NPC answered; a sale told back after it was reported.",
        "",
    ]
    for r in done["results"]:
        verdict = "ok" if passed(r) else "WRONG"
        chosen = f"{r['chosen']} {r['arguments']}" if r["chosen"] else "none"
        out += [
            f"**{r['id']}** ({verdict}: chose {chosen}, expected {r['expected'] or 'none'})",
            f"> player: {r['line']}",
            f"> npc: {r['reply']}",
        ]
        if "recalled" in r:
            out.append(f"> player: {ASKED_AFTER}  \n> npc: {r['recalled']}")
        out.append("")
    TRANSCRIPT.write_text("\n".join(out), encoding="utf-8")


def rows(split: str = "test") -> list[Row]:
    done = asyncio.run(run(split))
    write_transcript(done, split)
    s = summary(done)
    # written by ones who had not read the code: fresh3 in stop 56 (held out, as test
    # is); fresh after the first tuning, fresh2 before the deals classifier
    # (data/deals.tsv), dev before ultimatums were read, dev2 before actions that stand
    # out were, fresh4 and fresh5 in stop 59, fresh6 and fresh7 in stop 60, fresh8 and
    # fresh10 in stop 61 (all ten tuned on since); fresh9 in stop 61 (held out, as fresh3
    # is); and the test split again, each action declared with the example lines a
    # game's writer gave it (examples.json), and each option with its aliases
    names = (
        "fresh3",
        "fresh9",
        "fresh",
        "fresh2",
        "dev",
        "dev2",
        "fresh4",
        "fresh5",
        "fresh6",
        "fresh7",
        "fresh8",
        "fresh10",
    )
    fresh = {f"{n} split": summary(asyncio.run(run(n))) for n in names}
    fresh[f"{split} split, with example lines"] = summary(asyncio.run(run(split, True)))
    fresh[f"{split} split, with option aliases"] = summary(asyncio.run(run(split, aliases=True)))
    return [
        Row(
            "actions",
            f"action chosen right, or none ({split} split, {s['lines']:.0f} lines)",
            f"{100 * s['right']:.0f}%",
            "",
            "",
            ">= 90%",
        ),
        *(
            Row(
                "actions",
                f"action chosen right, or none ({name}, {f['lines']:.0f} lines)",
                f"{100 * f['right']:.0f}%",
                "",
                "",
                ">= 90%",
            )
            for name, f in fresh.items()
        ),
        Row(
            "actions", "words that contradict the choice", f"{s['contradictions']:.0f}", "", "", "0"
        ),
        Row(
            "actions",
            f"sale reported, then '{ASKED_AFTER}' answered with item and price",
            f"{100 * s['recalled']:.0f}% of {s['sales_reported']:.0f}",
            "",
            "",
            ">= 90%",
        ),
        Row(
            "actions",
            "extra p95 of a reply with actions over one without",
            f"{s['extra_p95_s']:.2f} s",
            "",
            "",
            "<= 0.3 s",
        ),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="test", type=_splits, help="one or more, by commas")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--examples", action="store_true", help="declare each action with its example lines"
    )
    parser.add_argument(
        "--aliases", action="store_true", help="declare each option with its aliases"
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the passes without actions (no latency figure; for tuning runs)",
    )
    args = parser.parse_args(argv)
    done = asyncio.run(run(args.split, args.examples, not args.no_baseline, args.aliases))
    for r in done["results"]:
        mark = "ok " if passed(r) else "BAD"
        print(
            f"{mark} {r['id']}: {r['line']!r} -> {r['chosen']} {r['arguments']} "
            f"(want {r['expected']}) | {r['reply']}",
            file=sys.stderr,
        )
        if "recalled" in r:
            print(f"      asked after: {r['recalled']}", file=sys.stderr)
    per_split: dict[str, list[int]] = {}
    for r in done["results"]:
        tally = per_split.setdefault(r["split"], [0, 0])
        tally[0] += passed(r)
        tally[1] += 1
    print(" ".join(f"{s} {ok}/{n}" for s, (ok, n) in per_split.items()), file=sys.stderr)
    figures = summary(done)
    if args.no_baseline:  # no latency measured: no NaN in the JSON
        del figures["extra_p95_s"]
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(done, indent=1, default=str), encoding="utf-8")


SPLITS = (
    "test",
    "train",
    "dev",
    "dev2",
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "all",
)


def _splits(value: str) -> str:
    """--split: one or more of SPLITS, comma-separated."""
    unknown = [s for s in value.split(",") if s not in SPLITS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown split {unknown[0]!r}; one of {SPLITS}")
    return value


if __name__ == "__main__":
    main()
