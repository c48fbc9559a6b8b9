"""The importance evaluation set: hand-rated NPC observations, written for this project
and kept apart from the anchors (bench/data/importance_eval.tsv). Read by the tests and
by `python -m bench.importance`; importing it needs no model backend."""

from __future__ import annotations

from pathlib import Path

from npc_brain.importance.anchors import Anchor, parse_tsv

EVAL_SET = Path(__file__).resolve().parents[1] / "bench" / "data" / "importance_eval.tsv"


def evaluation_set() -> list[Anchor]:
    """The hand-rated observations (Anchor is just text + rating + category here)."""
    return parse_tsv(EVAL_SET.read_text(encoding="utf-8"))
