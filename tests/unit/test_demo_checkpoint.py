"""A demo run's checkpoint: written whole or not at all, read back only by a run with the
same options, and every way it cannot be read is said plainly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from npc_brain.demo import checkpoint
from npc_brain.demo.checkpoint import Checkpoint
from npc_brain.demo.errors import DemoError

OPTIONS = {"--agents": 25, "--hours": 37.0, "--seed": 11}


def test_a_checkpoint_is_read_back_by_a_run_with_the_same_options(tmp_path: Path) -> None:
    saved = Checkpoint(42, "20230213T080000Z-1a2b3c4d", 600.0, OPTIONS, {"where": {"a": "x"}})
    checkpoint.save(tmp_path, saved)
    assert checkpoint.load(tmp_path, dict(OPTIONS)) == saved
    assert not list(tmp_path.glob("*.partial"))


def test_other_options_no_file_or_a_damaged_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DemoError, match="holds no checkpoint"):
        checkpoint.load(tmp_path, OPTIONS)
    checkpoint.save(tmp_path, Checkpoint(1, "s", 1.0, OPTIONS, None))
    with pytest.raises(DemoError, match="made with --agents 25, not 5"):
        checkpoint.load(tmp_path, {**OPTIONS, "--agents": 5})
    (tmp_path / checkpoint.FILE).write_bytes(b"not a pickle")
    with pytest.raises(DemoError, match="cannot be read"):
        checkpoint.load(tmp_path, OPTIONS)


def test_pruning_keeps_the_newest_snapshots_and_the_one_named(tmp_path: Path) -> None:
    for i, name in enumerate(["a", "b", "c", "d"]):
        path = tmp_path / f"{name}.sqlite3"
        path.write_bytes(b"")
        os.utime(path, (i, i))
    checkpoint.prune(tmp_path, keep="a")
    assert sorted(p.stem for p in tmp_path.glob("*.sqlite3")) == ["a", "c", "d"]
