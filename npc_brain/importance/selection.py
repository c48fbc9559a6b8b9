"""Which estimator rates whose memories: names, and per-world / per-agent overrides.

Overrides are one setting, comma-separated `world=estimator` or `world/agent=estimator`
entries (e.g. `dungeon=model, default/bram=blend`); an agent's entry beats its
world's, which beats the server default. The names and the parsing live in
npc_brain.config (which validates the settings with them and imports nothing above
it); they are re-exported here.
"""

from __future__ import annotations

from npc_brain.config import ESTIMATOR_NAMES, Overrides, check_estimator, parse_overrides

__all__ = ["ESTIMATOR_NAMES", "Overrides", "check_estimator", "choose", "parse_overrides"]


def choose(overrides: Overrides, default: str, world_id: str, agent_id: str) -> str:
    """The estimator name for an agent: its own override, its world's, or the default."""
    return overrides.get((world_id, agent_id)) or overrides.get((world_id, ""), default)
