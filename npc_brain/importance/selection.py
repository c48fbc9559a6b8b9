"""Which estimator rates whose memories: names, and per-world / per-agent overrides.

Overrides are one setting, comma-separated `world=estimator` or `world/agent=estimator`
entries (e.g. `dungeon=model, default/isabella=blend`); an agent's entry beats its
world's, which beats the server default. No imports of the settings module here, so
settings can validate with these functions.
"""

from __future__ import annotations

from npc_brain.errors import InvalidArgument

ESTIMATOR_NAMES = ("anchors", "model", "blend")
Overrides = dict[tuple[str, str], str]


def check_estimator(name: str, setting: str = "importance_estimator") -> str:
    """The name if it is an estimator; InvalidArgument naming `setting` otherwise."""
    if name not in ESTIMATOR_NAMES:
        raise InvalidArgument(setting, f"{name!r} is not one of {', '.join(ESTIMATOR_NAMES)}")
    return name


def parse_overrides(text: str, setting: str = "importance_estimator_overrides") -> Overrides:
    """{(world, agent or ""): estimator} from `world=name, world/agent=name`."""
    overrides: Overrides = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        target, sep, name = (piece.strip() for piece in entry.partition("="))
        world, _, agent = (piece.strip() for piece in target.partition("/"))
        if not sep or not world or (target.count("/") and not agent) or target.count("/") > 1:
            raise InvalidArgument(
                setting, f"{entry!r}: expected world=estimator or world/agent=estimator"
            )
        overrides[(world, agent)] = check_estimator(name, setting)
    return overrides


def choose(overrides: Overrides, default: str, world_id: str, agent_id: str) -> str:
    """The estimator name for an agent: its own override, its world's, or the default."""
    return overrides.get((world_id, agent_id)) or overrides.get((world_id, ""), default)
