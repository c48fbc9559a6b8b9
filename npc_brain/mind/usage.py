"""Model usage accounting: calls and tokens per world, agent and job kind."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from npc_brain.llm.base import Completion
from npc_brain.memory.records import SECONDS_PER_HOUR, GameTime


@dataclass
class Usage:
    """Counters for one agent (or, summed, for a world)."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0  # of prompt_tokens, those the model did not evaluate again
    calls_by_kind: Counter[str] = field(default_factory=Counter)
    calls_by_hour: Counter[int] = field(default_factory=Counter)  # game hour start -> calls
    refusals_by_check: Counter[str] = field(default_factory=Counter)  # talk/checks.py names
    first_game_time: GameTime | None = None
    last_game_time: GameTime | None = None

    @property
    def game_hours(self) -> float:
        if self.first_game_time is None or self.last_game_time is None:
            return 0.0
        return (self.last_game_time - self.first_game_time) / SECONDS_PER_HOUR

    def merge(self, other: Usage) -> None:
        self.model_calls += other.model_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_prompt_tokens += other.cached_prompt_tokens
        self.calls_by_kind.update(other.calls_by_kind)
        self.calls_by_hour.update(other.calls_by_hour)
        self.refusals_by_check.update(other.refusals_by_check)


@dataclass(frozen=True)
class UsageSummary:
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    calls_by_kind: dict[str, int]
    game_hours: float
    calls_by_game_hour: dict[int, int]
    cached_prompt_tokens: int = 0
    refusals_by_check: dict[str, int] = field(default_factory=dict)


class UsageLedger:
    """Thread-safe counters, updated by the model worker and read by GetStats."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._agents: dict[tuple[str, str], Usage] = {}

    def _usage(self, world_id: str, agent_id: str) -> Usage:
        usage = self._agents.get((world_id, agent_id))
        if usage is None:  # not setdefault: a Usage (two Counters) for every Tick agent adds up
            usage = self._agents[(world_id, agent_id)] = Usage()
        return usage

    def saw(self, world_id: str, agent_id: str, game_time: GameTime) -> None:
        """Notes that an agent was active at game_time (for per-game-hour rates)."""
        with self._lock:
            usage = self._usage(world_id, agent_id)
            if usage.first_game_time is None or game_time < usage.first_game_time:
                usage.first_game_time = game_time
            if usage.last_game_time is None or game_time > usage.last_game_time:
                usage.last_game_time = game_time

    def record(
        self,
        world_id: str,
        agent_id: str,
        kind: str,
        completion: Completion,
        game_time: GameTime | None = None,
    ) -> None:
        """Counts one model call, in the game hour of game_time (default: the agent's
        latest game time seen)."""
        with self._lock:
            usage = self._usage(world_id, agent_id)
            usage.model_calls += 1
            usage.prompt_tokens += completion.prompt_tokens
            usage.completion_tokens += completion.completion_tokens
            usage.cached_prompt_tokens += completion.cached_tokens
            usage.calls_by_kind[kind] += 1
            when = usage.last_game_time if game_time is None else game_time
            if when is not None:
                usage.calls_by_hour[int(when // SECONDS_PER_HOUR * SECONDS_PER_HOUR)] += 1

    def refused(self, world_id: str, agent_id: str, check: str) -> None:
        """Counts a line of the agent that the named check refused."""
        with self._lock:
            self._usage(world_id, agent_id).refusals_by_check[check] += 1

    def summary(self, world_id: str, agent_id: str = "") -> UsageSummary:
        """One agent's usage, or the whole world's when agent_id is empty."""
        total = Usage()
        hours = 0.0
        with self._lock:
            for (world, agent), usage in self._agents.items():
                if world == world_id and agent_id in ("", agent):
                    total.merge(usage)
                    hours += usage.game_hours
        return UsageSummary(
            total.model_calls,
            total.prompt_tokens,
            total.completion_tokens,
            dict(total.calls_by_kind),
            hours,
            dict(total.calls_by_hour),
            total.cached_prompt_tokens,
            dict(total.refusals_by_check),
        )
