"""The record of every correction made in the inspector: who, when, what.

One JSON object a line in `data_dir/inspector/audit.jsonl`, appended and fsynced
before the page answers, and logged (logger `npc_brain.server.inspector`). The store
has no "superseded" field, so this record is also where the inspector reads which
memory an amendment replaced (the amendment's own text cites it too).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger("npc_brain.server.inspector")
KEPT = 10_000  # entries kept in RAM for the pages (the file keeps them all)


@dataclass(frozen=True)
class Correction:
    """One change made in the inspector."""

    action: str  # "forget" or "amend"
    world_id: str
    agent_id: str
    memory_id: str  # the memory forgotten or amended
    new_memory_id: str  # the amendment; "" for a forget
    text: str  # the forgotten memory's text, or the amendment's
    by: str  # who said they made it (the form's "by" field), or "anonymous"
    peer: str  # the address the request came from
    wall_time: str  # UTC, ISO 8601
    game_time: float | None  # the game time of the amendment; None for a forget


class Audit:
    """Appends corrections to the file and keeps the latest in RAM."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._entries: list[Correction] = []
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines()[-KEPT:]:
                try:
                    self._entries.append(Correction(**json.loads(line)))
                except (ValueError, TypeError):
                    log.warning("skipping a malformed line of %s", path)

    def record(self, correction: Correction) -> None:
        """Durably appends the correction, then logs it."""
        line = json.dumps(asdict(correction), ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(line)
                file.flush()
                os.fsync(file.fileno())
            self._entries.append(correction)
            del self._entries[:-KEPT]
        log.info(
            "inspector: %s of memory %s of %s/%s by %s from %s%s",
            correction.action,
            correction.memory_id,
            correction.world_id,
            correction.agent_id,
            correction.by,
            correction.peer,
            f" -> memory {correction.new_memory_id}" if correction.new_memory_id else "",
        )

    def of_world(self, world_id: str, agent_id: str = "") -> list[Correction]:
        """The world's (or one agent's) corrections, newest first."""
        with self._lock:
            return [
                c
                for c in reversed(self._entries)
                if c.world_id == world_id and agent_id in ("", c.agent_id)
            ]

    def amended_by(self, world_id: str, agent_id: str, memory_ids: Sequence[str]) -> dict[str, str]:
        """memory id -> the id of the newest amendment that supersedes it."""
        wanted = set(memory_ids)
        found: dict[str, str] = {}
        with self._lock:
            for c in self._entries:
                if (
                    c.action == "amend"
                    and c.world_id == world_id
                    and c.agent_id == agent_id
                    and c.memory_id in wanted
                ):
                    found[c.memory_id] = c.new_memory_id
        return found
