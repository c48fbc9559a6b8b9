"""Checks of request values that every door shares; each failure names its field."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from npc_brain.errors import InvalidArgument
from npc_brain.game_actions import ActionArgument, ArgumentType, GameAction
from npc_brain.memory.records import Observation
from npc_brain.memory.retrieval import Weights
from npc_brain.persona import Persona

if TYPE_CHECKING:
    from npc_brain.config import Settings

ID_PATTERN = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,63}")
NUMBER_ID = re.compile(r"[0-9]{1,18}")  # memory ids and page tokens: fit SQLite's int64
MAX_TEXT = 4000
MAX_SHORT_TEXT = 500
MAX_ITEMS = 256
DEFAULT_WORLD = "default"


@dataclass(frozen=True)
class Limits:
    """Caps on request values: long texts, short texts, and items in one list."""

    text: int = MAX_TEXT
    short_text: int = MAX_SHORT_TEXT
    items: int = MAX_ITEMS

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits the settings name (max_text_chars, max_short_text_chars, max_items)."""
        return cls(settings.max_text_chars, settings.max_short_text_chars, settings.max_items)


DEFAULT_LIMITS = Limits()


def world_id(value: str) -> str:
    """The world id, "default" when empty."""
    return DEFAULT_WORLD if value == "" else identifier("world_id", value)


def identifier(field: str, value: str) -> str:
    if not value:
        raise InvalidArgument(field, "is required")
    if not ID_PATTERN.fullmatch(value):
        raise InvalidArgument(
            field, "must be 1-64 characters of A-Z a-z 0-9 _ . - and not start with '.'"
        )
    return value


def text(field: str, value: str, *, required: bool = True, limit: int = MAX_TEXT) -> str:
    """Text of at most `limit` characters, valid Unicode, without NUL."""
    if len(value) > limit:
        raise InvalidArgument(field, f"is longer than {limit} characters")
    if required and not value.strip():
        raise InvalidArgument(field, "is required")
    if "\x00" in value:
        raise InvalidArgument(field, "contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from a JSON "\ud800" escape
        raise InvalidArgument(field, "is not valid UTF-8 text") from None
    return value


def number_id(field: str, value: str, what: str) -> int:
    """A decimal id this server handed out (a memory id, a page token)."""
    if not NUMBER_ID.fullmatch(value):
        raise InvalidArgument(field, f"is not {what}")
    return int(value)


def items(field: str, values: Sequence[object], limit: int) -> None:
    """At most `limit` items in one list."""
    if len(values) > limit:
        raise InvalidArgument(field, f"has {len(values)} items; at most {limit} are allowed")


def observation(field: str, o: Observation, limits: Limits = DEFAULT_LIMITS) -> None:
    """Checks one observation; `field` names it (e.g. "observations[2]")."""
    text(f"{field}.text", o.text, limit=limits.text)
    for name in ("subject", "predicate", "object", "address"):
        if value := getattr(o, name):  # empty is valid: most of a Tick's are
            text(f"{field}.{name}", value, required=False, limit=limits.short_text)
    if o.importance is not None:
        number_range(f"{field}.importance", o.importance, 1, 10)
    if o.source.agent_id:
        identifier(f"{field}.source.agent_id", o.source.agent_id)
    sharing(field, o, limits)


def sharing(field: str, o: Observation, limits: Limits = DEFAULT_LIMITS) -> None:
    """The knowledge filter of an observation: private, or share_with ids (agent_id's
    form, each once; they need not name an agent: a player, or an agent not created
    yet), not both."""
    share_with = o.sharing.share_with
    if o.sharing.private and share_with:
        raise InvalidArgument(f"{field}.share_with", "cannot be combined with private")
    items(f"{field}.share_with", share_with, limits.items)
    for i, listener in enumerate(share_with):
        identifier(f"{field}.share_with[{i}]", listener)
        if listener in share_with[:i]:
            raise InvalidArgument(f"{field}.share_with[{i}]", "repeats an earlier id")


def persona(p: Persona, limits: Limits = DEFAULT_LIMITS) -> None:
    """Checks every field of a persona."""
    text("persona.name", p.name, limit=limits.short_text)
    int_range("persona.age", p.age, 0, 100000)
    for name in ("innate", "learned", "currently", "lifestyle"):
        text(f"persona.{name}", getattr(p, name), required=False, limit=limits.text)
    text("persona.home_address", p.home_address, required=False, limit=limits.short_text)
    items("persona.daily_requirements", p.daily_requirements, limits.items)
    for i, requirement in enumerate(p.daily_requirements):
        text(f"persona.daily_requirements[{i}]", requirement, limit=limits.short_text)
    if p.pronouns and p.pronoun not in PRONOUNS:
        raise InvalidArgument(
            "persona.pronouns", f"must be he, she or they (or he/him, ...), got {p.pronouns!r}"
        )


PRONOUNS = ("he", "she", "they")


def int_range(field: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low} and {high}, got {value}")
    return value


def number_range(field: str, value: float, low: float, high: float) -> float:
    """A finite number in [low, high] (NaN and infinities are refused)."""
    if math.isnan(value) or not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low:g} and {high:g}, got {value:g}")
    return value


def observations(
    observed: Sequence[Observation],
    visible: Sequence[str],
    prefix: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> None:
    """Checks observations and visible addresses; fields are named with `prefix`."""
    items(f"{prefix}observations", observed, limits.items)
    items(f"{prefix}visible_addresses", visible, limits.items)
    for i, o in enumerate(observed):
        observation(f"{prefix}observations[{i}]", o, limits)
    for i, address in enumerate(visible):
        text(f"{prefix}visible_addresses[{i}]", address, limit=limits.short_text)


class _AgentPart(Protocol):
    """One agent's part of a Tick, as the validation reads it."""

    @property
    def agent_id(self) -> str: ...
    @property
    def observations(self) -> Sequence[Observation]: ...
    @property
    def visible_addresses(self) -> Sequence[str]: ...


def tick_agents(agents: Sequence[_AgentPart], limits: Limits = DEFAULT_LIMITS) -> None:
    """Checks a Tick's agents: how many, their ids, what they observed (fields are named
    `agents[i].…`); the Tick's observations count against one `items` limit."""
    items("agents", agents, limits.items)
    observed = sum(len(part.observations) for part in agents)
    if observed > limits.items:
        raise InvalidArgument(
            "agents", f"carry {observed} observations; at most {limits.items} a Tick"
        )
    for i, part in enumerate(agents):
        identifier(f"agents[{i}].agent_id", part.agent_id)
        observations(part.observations, part.visible_addresses, f"agents[{i}].", limits)


def weights(given: Weights | None) -> None:
    """Retrieval weights: each in [0, 100] (zero means the configured default)."""
    if given is not None:
        for name in ("recency", "importance", "relevance"):
            number_range(f"weights.{name}", getattr(given, name), 0, 100)


def page_token(token: str) -> int:
    """The memory id a page token stands for; 0 (from the start) when empty."""
    return number_id("page_token", token, "a token this server gave") if token else 0


def speaker(speaker_id: str, agent_id: str) -> None:
    """Who speaks to an agent: an identifier, never the agent itself (a line "heard"
    from oneself would pass as one's own)."""
    identifier("speaker_id", speaker_id)
    if speaker_id == agent_id:
        raise InvalidArgument("speaker_id", "must differ from agent_id")


ACTION_NAME = re.compile(r"[a-z0-9_]{1,64}")
MAX_ACTION_ARGUMENTS = 4
MAX_ACTION_EXAMPLES = 16
MAX_OPTION_ALIASES = 8
MAX_PRICE = 1e12


def game_actions(
    field: str, actions: Sequence[GameAction], limits: Limits = DEFAULT_LIMITS
) -> None:
    """Declared game actions: names that are identifiers and unique, a description,
    arguments of a type, options for all but NUMBER, bounds in order, prices >= 0, at
    most MAX_ACTION_EXAMPLES example lines and MAX_OPTION_ALIASES aliases an option,
    none empty."""
    items(field, actions, limits.items)
    _unique(field, [a.name for a in actions])
    for i, action in enumerate(actions):
        at = f"{field}[{i}]"
        text(f"{at}.description", action.description, limit=limits.short_text)
        text(f"{at}.currency", action.currency, required=False, limit=limits.short_text)
        number_range(f"{at}.price", action.price, 0.0, MAX_PRICE)
        items(f"{at}.arguments", action.arguments, MAX_ACTION_ARGUMENTS)
        items(f"{at}.examples", action.examples, MAX_ACTION_EXAMPLES)
        for k, example in enumerate(action.examples):
            text(f"{at}.examples[{k}]", example, limit=limits.short_text)
        _unique(f"{at}.arguments", [g.name for g in action.arguments])
        for j, argument in enumerate(action.arguments):
            _argument(f"{at}.arguments[{j}]", argument, limits)


def _argument(at: str, argument: ActionArgument, limits: Limits) -> None:
    if argument.type is None:
        raise InvalidArgument(f"{at}.type", "is required")
    if argument.type is ArgumentType.NUMBER:
        if argument.options:
            raise InvalidArgument(f"{at}.options", "must be empty for a NUMBER")
        if argument.low > argument.high:
            raise InvalidArgument(f"{at}.max", "is less than min")
        return
    if not argument.options:
        raise InvalidArgument(f"{at}.options", "is required: at least one option")
    items(f"{at}.options", argument.options, limits.items)
    _unique(f"{at}.options", [o.value for o in argument.options], "value")
    for k, option in enumerate(argument.options):
        text(f"{at}.options[{k}].label", option.label, required=False, limit=limits.short_text)
        number_range(f"{at}.options[{k}].price", option.price, 0.0, MAX_PRICE)
        items(f"{at}.options[{k}].aliases", option.aliases, MAX_OPTION_ALIASES)
        for n, alias in enumerate(option.aliases):
            text(f"{at}.options[{k}].aliases[{n}]", alias, limit=limits.short_text)


def _unique(field: str, names: Sequence[str], key: str = "name") -> None:
    """Each of `names` an identifier of a-z, 0-9 and _, none twice."""
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not ACTION_NAME.fullmatch(name):
            raise InvalidArgument(f"{field}[{i}].{key}", "must be 1-64 characters of a-z 0-9 _")
        if name in seen:
            raise InvalidArgument(f"{field}[{i}].{key}", f"repeats {name!r}")
        seen.add(name)
