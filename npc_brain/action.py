"""What an agent is doing (domain value of the Act and Tick answers)."""

from __future__ import annotations

from dataclasses import dataclass

from npc_brain.game_actions import ChosenAction
from npc_brain.memory.records import SECONDS_PER_HOUR, GameTime


@dataclass(frozen=True)
class Line:
    """One line of a conversation."""

    speaker_id: str
    text: str
    end_conversation: bool = False
    intent: str = ""  # NPC conversations: what the line was for (mind/talk/intent.py)
    act: str = ""  # Converse: the dialogue act of the line answered (mind/talk/acts.py)
    topic: str = ""  # Converse: what that line was about (names, places, time)
    game_action: ChosenAction | None = None  # Converse: a declared action it chose


@dataclass(frozen=True)
class Action:
    """An activity at an address the agent knows, from `start` for `duration_minutes`."""

    description: str
    address: str
    start: GameTime
    duration_minutes: int
    emoji: str
    object_state: str = ""
    chat_with_agent_id: str = ""
    chat: tuple[Line, ...] = ()

    def covers(self, game_time: GameTime) -> bool:
        """True while the action is still running at game_time."""
        end = self.start + self.duration_minutes * SECONDS_PER_HOUR / 60
        return self.start <= game_time < end
