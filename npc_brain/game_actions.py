"""Game actions: what the game can make an NPC do when asked in conversation (sell a
ware, open a gate), as the game declares them, and the one an NPC chose in a reply.

The game declares; the NPC only chooses among what was declared, arguments included
(mind/talk/deeds.py). Prices are the game's.
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field


class ArgumentType(enum.Enum):
    ITEM = "ITEM"
    PLACE = "PLACE"
    AGENT = "AGENT"
    QUEST = "QUEST"
    CHOICE = "CHOICE"
    NUMBER = "NUMBER"


@dataclass(frozen=True)
class ActionOption:
    value: str  # what the game receives: "horseshoe"
    label: str = ""  # how it is said: "a horseshoe"; '' for the value's words
    price: float = 0.0  # ITEM: the price of one (0: the action's own)
    aliases: tuple[str, ...] = ()  # what players also call it: "hand axe" of a hatchet

    @property
    def said(self) -> str:
        return self.label or self.value.replace("_", " ")


@dataclass(frozen=True)
class ActionArgument:
    name: str
    type: ArgumentType | None  # None: unset (refused by validation)
    options: tuple[ActionOption, ...] = ()
    low: int = 0  # NUMBER: the bounds, inclusive
    high: int = 0


@dataclass(frozen=True)
class GameAction:
    name: str  # "sell", "open_gate"
    description: str  # "shoe the customer's horse"
    arguments: tuple[ActionArgument, ...] = ()
    price: float = 0.0
    currency: str = ""
    examples: tuple[str, ...] = ()  # lines asking for it: "My mare's thrown a shoe."

    def argument(self, kind: ArgumentType) -> ActionArgument | None:
        return next((a for a in self.arguments if a.type is kind), None)

    @property
    def items(self) -> tuple[ActionOption, ...]:
        """The options of its ITEM argument (what it sells or gives), if it has one."""
        argument = self.argument(ArgumentType.ITEM)
        return argument.options if argument else ()


@dataclass(frozen=True)
class ChosenAction:
    """A declared action the NPC chose in a reply, with a value for each argument."""

    action_id: str
    name: str
    arguments: dict[str, str] = field(default_factory=dict)
    price: float = 0.0
    currency: str = ""


@dataclass(frozen=True)
class Offer:
    """A chosen action as stored until the game reports what became of it."""

    chosen: ChosenAction
    agent_id: str
    speaker_id: str
    said: str  # what it is, as the NPC's memory words it: "sell a horseshoe"
    created: float  # game time
    reported: bool = False


def dumps(actions: tuple[GameAction, ...]) -> str:
    """Declared actions as the store keeps them (JSON)."""
    return json.dumps([asdict(a) for a in actions], default=lambda kind: kind.value)


def loads(text: str) -> tuple[GameAction, ...]:
    """The declared actions `dumps` wrote."""
    return tuple(
        GameAction(
            a["name"],
            a["description"],
            tuple(
                ActionArgument(
                    g["name"],
                    ArgumentType(g["type"]) if g["type"] else None,
                    tuple(_option(o) for o in g["options"]),
                    g["low"],
                    g["high"],
                )
                for g in a["arguments"]
            ),
            a["price"],
            a["currency"],
            tuple(a.get("examples", ())),  # stored before examples were declared: none
        )
        for a in json.loads(text or "[]")
    )


def _option(stored: dict[str, object]) -> ActionOption:
    """An option `dumps` wrote (one stored before aliases were declared has none)."""
    aliases = stored.get("aliases", ())
    return ActionOption(
        str(stored["value"]),
        str(stored["label"]),
        float(stored["price"]),  # type: ignore[arg-type]
        tuple(aliases) if isinstance(aliases, list | tuple) else (),
    )
