"""Agents and their personas (domain values, no transport types)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from npc_brain.game_actions import GameAction


@dataclass(frozen=True)
class Persona:
    """Who an agent is; every text goes into the agent's prompts."""

    name: str
    age: int = 0
    innate: str = ""
    learned: str = ""
    currently: str = ""
    lifestyle: str = ""
    home_address: str = ""
    daily_requirements: tuple[str, ...] = ()
    pronouns: str = ""  # "he", "she" or "they" ("" is "they"): how others speak of it

    @property
    def pronoun(self) -> str:
        """The subject pronoun others use for the agent: "he", "she" or "they"."""
        return self.pronouns.split("/", 1)[0].strip().lower() or "they"

    def describe(self) -> str:
        """The persona as the short paragraph the paper puts at the top of prompts."""
        lines = [f"Name: {self.name}"]
        if self.age:
            lines.append(f"Age: {self.age}")
        for label, value in (
            ("Innate traits", self.innate),
            ("Learned traits", self.learned),
            ("Currently", self.currently),
            ("Lifestyle", self.lifestyle),
            ("Home", self.home_address),
        ):
            if value:
                lines.append(f"{label}: {value}")
        if self.daily_requirements:
            lines.append("Daily requirements: " + "; ".join(self.daily_requirements))
        return "\n".join(lines)


@dataclass(frozen=True)
class Switches:
    """Ablation switches in a request; None leaves a switch as it is (new agents: on)."""

    reflection: bool | None = None
    planning: bool | None = None
    memory: bool | None = None


@dataclass(frozen=True)
class AgentRecord:
    """A stored agent: persona plus the paper's ablation switches."""

    agent_id: str
    persona: Persona
    reflection_enabled: bool = True
    planning_enabled: bool = True
    memory_enabled: bool = True  # off: prompts get no memories (the paper's condition)
    actions: tuple[GameAction, ...] = ()  # what the game can make it do when asked

    def switched(
        self, persona: Persona, switches: Switches, actions: tuple[GameAction, ...] = ()
    ) -> AgentRecord:
        """This agent with a new persona, the switches the request sets and the game
        actions it declares (replacing the old ones)."""
        return AgentRecord(
            self.agent_id,
            persona,
            _pick(switches.reflection, self.reflection_enabled),
            _pick(switches.planning, self.planning_enabled),
            _pick(switches.memory, self.memory_enabled),
            actions,
        )

    def acting(self, actions: tuple[GameAction, ...]) -> AgentRecord:
        """This agent with other game actions for one call (none given: its own)."""
        return replace(self, actions=actions) if actions else self


def _pick(requested: bool | None, current: bool) -> bool:
    return current if requested is None else requested
