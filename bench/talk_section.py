"""The bench section "talk": a player's lines in three settings (bench/data/player_talk),
answered by this tree and by the talk layer before it was rebuilt, in the same run.

The baseline is the package as it was at BASELINE (`git archive`, unpacked in a
temporary folder and put first on PYTHONPATH), run by the same script
(bench/player_talk.py) on the same lines with the same models. Writes a transcript of the
test split (line, act, reply, verdict) beside the table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

from bench.common import Row
from bench.player_talk import summary

REPO = Path(__file__).resolve().parents[1]
BASELINE = "dedec4b"  # main before the talk layer was rebuilt (issue 36)
TRANSCRIPT = REPO / "bench" / "results" / "talk_transcript.md"


def arm(split: str, code: Path | None) -> list[dict[str, Any]]:
    """One run of bench.player_talk over `split`, with `npc_brain` from `code` (None:
    this tree); its results."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = dict(os.environ)
        if code is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(code), str(REPO)])
        # run from the code's own folder: `python -m` puts the working folder first
        subprocess.run(
            [sys.executable, "-m", "bench.player_talk", "--split", split, "--out", out.name],
            cwd=code or REPO,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        results: list[dict[str, Any]] = json.loads(Path(out.name).read_text(encoding="utf-8"))
        return results


def baseline_code(folder: Path) -> Path:
    """The package at BASELINE, unpacked under `folder`."""
    archive = subprocess.run(
        ["git", "archive", BASELINE, "npc_brain"], cwd=REPO, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "models").symlink_to(REPO / "models")  # the models beside the package
    return folder


def rows(split: str = "test") -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="npc-talk-baseline-") as tmp:
        before = arm(split, baseline_code(Path(tmp)))
    now = arm(split, None)
    write_transcript(now, before)
    a, b = summary(now), summary(before)

    def pct(x: float) -> str:
        return f"{100 * x:.0f}%"

    def row(measure: str, ours: str, theirs: str, target: str) -> Row:
        return Row("talk", measure, ours, theirs, "", target)

    return [
        row(
            f"act classified right ({split} split, {a['lines']} lines)",
            pct(a["act_right"]),
            "no acts",
            ">= 90%",
        ),
        row(
            "replies acceptable by the line's rule",
            pct(a["acceptable"]),
            pct(b["acceptable"]),
            ">= 85%",
        ),
        row(
            "stock 'I'm not sure' to a line not a question of fact",
            f"{a['stock_not_fact']:.0f}",
            f"{b['stock_not_fact']:.0f}",
            "0",
        ),
        row(
            "another's fact said as one's own (trap lines)",
            f"{a['others_fact_as_own']:.0f}",
            f"{b['others_fact_as_own']:.0f}",
            "0",
        ),
        row(
            "paraphrased questions answered right",
            pct(a["paraphrases_right"]),
            pct(b["paraphrases_right"]),
            ">= 90%",
        ),
        row(
            "farewells that end the conversation",
            pct(a["farewells_end"]),
            pct(b["farewells_end"]),
            ">= 95%",
        ),
        row(
            "streamed text equal to the final text",
            pct(a["streamed_is_final"]),
            pct(b["streamed_is_final"]),
            "100%",
        ),
        row("Converse failing with INTERNAL", f"{a['internal']:.0f}", f"{b['internal']:.0f}", "0"),
        row(
            "whole reply, p50 / p95 (idle)",
            f"{a['p50_seconds']:.2f} / {a['p95_seconds']:.2f} s",
            f"{b['p50_seconds']:.2f} / {b['p95_seconds']:.2f} s",
            "p95 <= 2.5 s",
        ),
    ]


def write_transcript(now: list[dict[str, Any]], before: list[dict[str, Any]]) -> None:
    """Every line of the split: the act read, the reply and its verdict, beside the
    baseline's reply."""
    old = {r["id"]: r for r in before if "id" in r}
    out = ['# Talk transcript (bench section "talk")', ""]
    for r in (x for x in now if "id" in x):
        verdict = "ok" if r["ok"] else "FAIL: " + "; ".join(r["failed"])
        out += [
            f"**{r['id']}** ({r['setting']}, {r['npc']}; {r['act']} -> {r['got_act']})",
            f"> player: {r['line']}",
            f"> now: {r['reply']}  [{verdict}]",
            f"> before: {old[r['id']]['reply'] if r['id'] in old else ''}",
            "",
        ]
    TRANSCRIPT.parent.mkdir(parents=True, exist_ok=True)
    TRANSCRIPT.write_text("\n".join(out), encoding="utf-8")
