"""The demo's console view: one line per event, game time first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from npc_brain.demo.clock import clock


class Console:
    """Prints progress, actions and conversations as they happen."""

    def __init__(self, out: TextIO, names: dict[str, str], world: str) -> None:
        self._out = out
        self._names = names
        self._world_prefix = world + ":"
        self._width = max((len(n) for n in names.values()), default=0)

    def _print(self, text: str) -> None:
        print(text, file=self._out, flush=True)

    def note(self, text: str) -> None:
        self._print(text)

    def step(self, game_time: float, index: int, total: int, wall_seconds: float) -> None:
        self._print(f"-- {clock(game_time)}  step {index}/{total}  ({wall_seconds:.0f} s) --")

    def action(self, game_time: float, agent_id: str, emoji: str, text: str, address: str) -> None:
        where = address.removeprefix(self._world_prefix)
        name = self._names.get(agent_id, agent_id).ljust(self._width)
        self._print(f"{clock(game_time)}  {name}  {emoji or ' '} {text}  @ {where}")

    def conversation(
        self, game_time: float, participants: Sequence[str], lines: Sequence[tuple[str, str]]
    ) -> None:
        who = " and ".join(self._names.get(p, p) for p in participants)
        self._print(f"{clock(game_time)}  💬 {who} talk ({len(lines)} lines)")
        for speaker, text in lines:
            self._print(f"{'':16}{self._names.get(speaker, speaker)}: {text}")
