"""A demo run's checkpoints: at every game hour, the server's world (a SaveWorld snapshot)
and the run's own state (where each agent is, what it does, what the report has
gathered), so `npc-brain demo --resume` goes on from the last game hour after a stop.

The run's state is pickled: it is written and read only by this program, in the run's
own folder, and a checkpoint from another version or other options is refused.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from npc_brain import __version__
from npc_brain.demo.errors import DemoError

FILE = "checkpoint.pickle"
KEPT_SNAPSHOTS = 2  # the demo's own server keeps the newest two checkpoints' snapshots


@dataclass(frozen=True)
class Checkpoint:
    """Where a run stood at the start of a game hour: the step to run next, the world's
    snapshot on the server, the wall seconds spent so far, the options it was run with
    (a resumed run must give the same) and the simulation's state."""

    next_step: int
    snapshot_id: str
    wall_seconds: float
    options: dict[str, Any]
    state: Any
    version: str = __version__


def save(folder: Path, checkpoint: Checkpoint) -> None:
    """Writes the checkpoint atomically (a stop while writing leaves the previous one)."""
    path = folder / FILE
    partial = path.with_suffix(".partial")
    with partial.open("wb") as fh:
        pickle.dump(checkpoint, fh, protocol=pickle.HIGHEST_PROTOCOL)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(partial, path)


def load(folder: Path, options: dict[str, Any]) -> Checkpoint:
    """The run's checkpoint in `folder`, made with these options by this version."""
    path = folder / FILE
    if not path.is_file():
        raise DemoError(f"--resume: {folder} holds no checkpoint ({FILE}) to resume from")
    try:
        with path.open("rb") as fh:
            checkpoint = pickle.load(fh)  # noqa: S301 - our own file, see the module note
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError) as error:
        raise DemoError(f"--resume: {path} cannot be read ({error})") from error
    if not isinstance(checkpoint, Checkpoint) or checkpoint.version != __version__:
        raise DemoError(f"--resume: {path} was written by another version of npc-brain")
    for name, value in checkpoint.options.items():
        if options.get(name) != value:
            raise DemoError(
                f"--resume: the run in {folder} was made with {name} {value!r}, "
                f"not {options.get(name)!r}"
            )
    return checkpoint


def prune(snapshots: Path, keep: str) -> None:
    """Deletes the checkpoint snapshots in `snapshots` (the demo's own server's folder
    for its world) but the KEPT_SNAPSHOTS newest, always keeping `keep`."""
    if not snapshots.is_dir():
        return
    files = sorted(snapshots.glob("*.sqlite3"), key=lambda p: p.stat().st_mtime)
    for old in files[:-KEPT_SNAPSHOTS]:
        if old.stem != keep:
            old.unlink(missing_ok=True)
