"""An invitation heard in a conversation, answered by code: a line that places an event
at an hour of a day (memory/commitments.py) is accepted when the listener has nothing
booked at those hours, and declined, with what it will do instead, when it has. The
acceptance is said in words the report and the other's memory can read ("I'd love to
come to the feast at the Long Hall on Tuesday, June 3 at 5 pm!"). Pure but for the
store it reads."""

from __future__ import annotations

import datetime as dt
import re

from npc_brain.memory.commitments import LONGEST_HOURS, Commitment, commitments_in
from npc_brain.memory.records import GameTime
from npc_brain.mind.world import World
from npc_brain.words import lower_words


def invitation(text: str, now: GameTime) -> Commitment | None:
    """The event a line asks the listener to ("Come to my party tomorrow at 5 pm!",
    "You're invited to the dance on Friday, 7-9 pm"), at its hours ahead of `now`; not
    news of an event ("her party starts at 6 pm")."""
    if not _ASKS.search(text):
        return None
    found = [c for c in commitments_in(text, now) if c.start > now]
    return found[0] if found else None


# What asks someone along: "come", "join us", "you're invited", "would you like to".
_ASKS = re.compile(
    r"\b(?:come|join|invite|invited|would you like|want to come|hope to see you|"
    r"see you there)\b",
    re.IGNORECASE,
)


def reply(world: World, agent_id: str, invited: Commitment) -> str:
    """Yes, or no with the commitment that stands in the way (the agent's, made before)."""
    since = invited.start - LONGEST_HOURS * 3600  # what began before may still go on
    booked = world.store.commitments(agent_id, since, invited.end)
    clash = next((c for _, c in booked if c.overlaps(invited) and not same_event(c, invited)), None)
    event = invited.activity.removeprefix("go to the ")
    if clash is not None:
        return f"I'm sorry, I can't come to the {event}: I'll {clash.activity} then."
    return f"I'd love to come to the {event} on {said_when(invited.start)}!"


def same_event(one: Commitment, other: Commitment) -> bool:
    """Whether two commitments at overlapping hours are one event, told twice: the words
    of one are all in the other ("go to the feast" and "go to the harvest feast at the
    Long Hall")."""
    words = [set(lower_words(c.activity)) for c in (one, other)]
    return one.overlaps(other) and (words[0] <= words[1] or words[1] <= words[0])


def said_when(moment: GameTime) -> str:
    """ "Tuesday, February 14 at 5 pm"."""
    at = dt.datetime.fromtimestamp(moment, dt.UTC)
    hour = at.hour % 12 or 12
    minutes = f":{at.minute:02d}" if at.minute else ""
    return f"{at:%A}, {at:%B} {at.day} at {hour}{minutes} {'am' if at.hour < 12 else 'pm'}"
