"""npc-brain: an offline Generative Agents brain for game NPCs."""

__version__ = "0.1.0"
