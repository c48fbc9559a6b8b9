"""A player talks to the NPCs of three settings (bench/data/player_talk): every line's
reply judged by its own rule, with the real default models.

    python -m bench.player_talk [--split test|train|all] [--out PATH] [--transcript PATH]

Imports `npc_brain` from wherever Python finds it first, so the talk section
(bench/talk_section.py) runs it twice in one run: on this tree, and on the code before
the talk layer was rebuilt (PYTHONPATH pointing at an unpacked copy of it).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.memory.records import MemoryKind, Observation, Source, SourceKind
from npc_brain.persona import Persona
from npc_brain.server.app import build_brain

DATA = Path(__file__).resolve().parent / "data" / "player_talk"
PLAYER = "player"
STOCK = "i'm not sure, i don't know anything about that"
DENIALS = ("don't know", "do not know", "not sure", "no idea", "don't think i know", "never heard")
_KINDS = {
    "observation": MemoryKind.OBSERVATION,
    "dialogue": MemoryKind.DIALOGUE,
    "plan": MemoryKind.PLAN,
    "reflection": MemoryKind.REFLECTION,
}
_SOURCES = {
    "seen": SourceKind.SEEN,
    "heard": SourceKind.HEARD,
    "told": SourceKind.TOLD,
    "author": SourceKind.AUTHOR,
}


def load() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    settings = json.loads((DATA / "settings.json").read_text(encoding="utf-8"))
    if isinstance(settings, dict):
        settings = settings.get("settings", list(settings.values()))
    lines = [
        json.loads(row)
        for row in (DATA / "lines.jsonl").read_text(encoding="utf-8").splitlines()
        if row.strip()
    ]
    return settings, lines


def _time(iso: str) -> float:
    return dt.datetime.fromisoformat(iso).replace(tzinfo=dt.UTC).timestamp()


def _persona(npc: dict[str, Any]) -> Persona:
    p = npc["persona"]
    return Persona(
        p["name"],
        int(p.get("age", 0)),
        p.get("innate", ""),
        p.get("learned", ""),
        p.get("currently", ""),
        p.get("lifestyle", ""),
        p.get("home_address", ""),
        **_pronouns(p),
    )


def _pronouns(persona: dict[str, Any]) -> dict[str, str]:
    """The pronouns, for a Persona that has them (the baseline's code has none)."""
    has = "pronouns" in {f.name for f in dataclasses.fields(Persona)}
    return {"pronouns": persona.get("pronouns", "")} if has else {}


async def build(brain: Brain, setting: dict[str, Any]) -> None:
    """The setting's world: its NPCs, the places they know, their memories; their wares
    as memories the game wrote ("X sells a dagger for 12 silver")."""
    world, start = setting["id"], _time(setting["start"])
    places = [p["address"] if isinstance(p, dict) else p for p in setting["places"]]
    for npc in setting["npcs"]:
        await brain.upsert_agent(world, npc["id"], _persona(npc), start)
        await brain.perceive(world, npc["id"], start - 7 * 86400, [], places)
    for npc in setting["npcs"]:
        name = npc["persona"]["name"]
        for ware in npc.get("wares", []):
            item = ware["item"]
            article = "an" if item[:1].lower() in "aeiou" else "a"
            article = "" if item.lower().startswith(("the ", "a ", "an ")) else article
            currency = setting.get("currency", "")
            text = f"{name} sells {article} {item} for {ware['price']} {currency}"
            text = " ".join(text.split())
            source = Source(SourceKind.AUTHOR)
            await brain.add_memory(
                world,
                npc["id"],
                start - 48 * 3600,
                MemoryKind.OBSERVATION,
                Observation(text, source=source),
            )
        for memory in sorted(npc.get("memories", []), key=lambda m: -float(m["hours_ago"])):
            source = Source(_SOURCES[memory.get("source", "seen")], memory.get("from", ""))
            await brain.add_memory(
                world,
                npc["id"],
                start - float(memory["hours_ago"]) * 3600,
                _KINDS[memory.get("kind", "observation")],
                Observation(memory["text"], source=source),
            )


def says(text: str, phrase: str) -> bool:
    """Whether a reply says a phrase, from a word's start ("he" is not in "the")."""
    return re.search(rf"(?<!\w){re.escape(phrase.lower())}", text) is not None


def judge(line: dict[str, Any], text: str, ends: bool) -> tuple[bool, list[str]]:
    """Whether a reply passes the line's rule, and what it failed."""
    expect, low = line.get("expect", {}), text.lower().replace("’", "'")
    failed = []
    if (any_of := expect.get("any_of")) and not any(says(low, w) for w in any_of):
        failed.append(f"says none of {any_of}")
    if all_of := expect.get("all_of"):
        missing = [w for w in all_of if not says(low, w)]
        if missing:
            failed.append(f"misses {missing}")
    if none_of := expect.get("none_of"):
        wrong = [w for w in none_of if says(low, w)]
        if wrong:
            failed.append(f"says {wrong}")
    if "ends" in expect and bool(expect["ends"]) != ends:
        failed.append("ends the talk" if ends else "does not end the talk")
    if expect.get("not_stock") and STOCK in low:
        failed.append("the stock sentence")
    if expect.get("kind") == "dont_know" and not any(d in low for d in DENIALS):
        failed.append("does not say it does not know")
    if (name := expect.get("names")) and not says(low, name):
        failed.append(f"does not name {name}")
    return not failed, failed


async def run(split: str, settings_overrides: dict[str, Any]) -> list[dict[str, Any]]:
    settings_data, lines = load()
    wanted = [x for x in lines if split == "all" or x.get("split") == split]
    with tempfile.TemporaryDirectory(prefix="npc-talk-") as tmp:
        known = {f.name for f in dataclasses.fields(Settings)}
        extra = {k: v for k, v in settings_overrides.items() if k in known}
        brain = build_brain(Settings(data_dir=Path(tmp), **extra))
        try:
            by_id = {s["id"]: s for s in settings_data}
            for setting in settings_data:
                await build(brain, setting)
            results = []
            for line in wanted:
                setting = by_id[line["setting"]]
                now = _time(setting["start"]) + 60 * len(results)
                started = time.perf_counter()
                streamed, final, error = "", None, ""
                try:
                    async for event in brain.converse(
                        setting["id"], line["npc"], now, PLAYER, line["line"]
                    ):
                        if isinstance(event, str):
                            streamed += event
                        else:
                            final = event
                except Exception as exc:  # what a client sees as INTERNAL
                    error = f"{type(exc).__name__}: {exc}"
                seconds = time.perf_counter() - started
                text = final.text if final is not None else ""
                ends = final.end_conversation if final is not None else False
                ok, failed = judge(line, text, ends)
                if error:
                    ok, failed = False, [f"INTERNAL ({error})"]
                results.append(
                    {
                        "id": line["id"],
                        "setting": line["setting"],
                        "npc": line["npc"],
                        "line": line["line"],
                        "act": line["act"],
                        "got_act": getattr(final, "act", ""),
                        "reply": text,
                        "streamed": streamed,
                        "ends": ends,
                        "ok": ok,
                        "failed": failed,
                        "internal": bool(error),
                        "seconds": seconds,
                        "paraphrase_of": line.get("paraphrase_of", ""),
                        "expect": line.get("expect", {}),
                        "tags": line.get("tags", []),
                    }
                )
                print(f"{len(results)}/{len(wanted)} {line['id']}", file=sys.stderr, flush=True)
            stats = await brain.stats(settings_data[0]["id"])
            results.append({"refusals": getattr(stats, "refusals_by_check", {})})
            return results
        finally:
            brain.close()


def summary(results: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The talk section's measures over one arm's results."""
    rows = [r for r in results if "id" in r]
    n = max(1, len(rows))
    not_fact = [r for r in rows if r["act"] != "fact"]
    trapped = [r for r in rows if "trap" in r.get("tags", ())]
    para_ids = {r["paraphrase_of"] for r in rows if r["paraphrase_of"]}
    paraphrases = [r for r in rows if r["paraphrase_of"] or r["id"] in para_ids]
    farewells = [r for r in rows if r["act"] == "farewell"]
    seconds = sorted(r["seconds"] for r in rows)
    return {
        "lines": len(rows),
        "act_right": sum(r["act"] == r["got_act"] for r in rows) / n,
        "acceptable": sum(r["ok"] for r in rows) / n,
        "stock_not_fact": sum(STOCK in r["reply"].lower() for r in not_fact),
        "others_fact_as_own": sum(
            any(says(r["reply"].lower(), w) for w in r["expect"].get("none_of", ()))
            for r in trapped
        ),
        "paraphrases_right": sum(r["ok"] for r in paraphrases) / max(1, len(paraphrases)),
        "farewells_end": sum(r["ends"] for r in farewells) / max(1, len(farewells)),
        "streamed_is_final": sum(r["streamed"] == r["reply"] for r in rows) / n,
        "internal": sum(r.get("internal", False) for r in rows),
        "p95_seconds": seconds[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
        "p50_seconds": statistics.median(seconds) if seconds else 0.0,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.player_talk", description=__doc__)
    parser.add_argument("--split", default="test", choices=("test", "train", "all"))
    parser.add_argument("--out", type=Path, help="write every reply and verdict (JSON)")
    parser.add_argument("--wording", default="", choices=("", "model", "plain"))
    args = parser.parse_args(argv)
    overrides = {"reply_wording": args.wording} if args.wording else {}
    results = asyncio.run(run(args.split, overrides))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(json.dumps(summary(results), indent=1))


if __name__ == "__main__":
    main()
