"""Commitments: the events a memory says will take place at an hour of a day ("a feast at
the Long Hall on June 3 from 5 pm to 7 pm", "the wedding tomorrow at 3 pm"), read once,
when the memory is written, into game time (table `commitments`, migration m009, kept in
the memory's own transaction). A day's planner reads back the commitments of its hours,
however old the memory that made them; nothing is parsed out of sentences at plan time.

The clock words here (at 5 pm, from 5 to 7 pm, 5-7 pm) are also the planner's
(mind/plan/skeleton.py reads a persona's wake and bed hours with them).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from npc_brain.memory.records import GameTime
from npc_brain.memory.when import DAY, anchor, past_tense, reported
from npc_brain.words import DETERMINERS, MODALS, PERSONAL

TIME = (
    r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>a\.?m\.?|p\.?m\.?)?(?![\d:])"
    r"|(?P<word>midnight|noon)"
)
AT_TIME = re.compile(rf"\b(?:at|around|by|from)\s+(?:{TIME})", re.IGNORECASE)
_SPAN = re.compile(
    rf"\bfrom\s+(?:{TIME})\s*(?:to|until|-)\s*(?:{TIME.replace('?P<', '?P<e')})", re.I
)
# "5-7 pm": a span with the half of the day said once, at its end.
_BARE_SPAN = re.compile(r"\b(?P<h>\d{1,2})\s*[-–]\s*(?P<eh>\d{1,2})\s*(?P<ap>[ap]\.?m\.?)", re.I)
# Nouns of events one goes to, in any case ("the Harvest Feast"), with up to three
# capitalised words before ("Harvest Moon") and the place after ("at the Long Hall").
_EVENTS = re.compile(
    r"((?:[A-Z][\w']*\s+){0,3}(?i:party|meeting|dinner|lunch|concert|class|lecture|"
    r"game|festival|celebration|wedding|debate|study session|rehearsal|appointment|dance|"
    r"feast|fair|market|ceremony|gathering|picnic|banquet|service|match|race|show|"
    r"auction|funeral|parade|tournament|trial|hearing))"
    r"(\s+at\s+(?!noon\b|midnight\b)(?:the\s+)?[A-Za-z][\w']*(?:\s+[A-Z][\w']*){0,3})?",
)


# What says one will not go: "can't make the dance at 7", "will miss the feast".
_DECLINED = re.compile(
    r"\b(?:can't|cannot|can not|won't|will not|not going|not coming|will miss|must miss)\b",
    re.IGNORECASE,
)


LONGEST_HOURS = 6  # the most hours one event is taken to last


@dataclass(frozen=True)
class Commitment:
    """An event to go to: what ("go to the wedding at the Long Hall") and its hours."""

    activity: str
    start: GameTime
    end: GameTime

    def overlaps(self, other: Commitment) -> bool:
        return self.start < other.end and other.start < self.end


def commitments_in(text: str, written: GameTime) -> list[Commitment]:
    """The event a text written at `written` places at an hour of a day, if any: an event
    noun, its hours ("from 5 pm to 7 pm", "5-7 pm", "at 3 pm": an hour; at most
    LONGEST_HOURS; those said in its own clause first), and
    its day, read as the next one (its date, its weekday, "tomorrow"; none named: the
    day it was written, when the hour is still ahead). Told in the past tense ("there
    was a meeting at 10"), an hour already past is no commitment; nor is an event one
    says one will not go to ("I can't make the dance at 7")."""
    event = _event(text)
    if event is None:
        return []
    hours = hours_of(_clause_of(text, event)) or hours_of(text)
    if hours is None or hours[0] >= 24 or _DECLINED.search(text):
        return []
    window = anchor(_without_hours(text), written, prefer="future")
    if window is not None and window.end - window.start > DAY:
        return []
    middle = written if window is None else (window.start + window.end) / 2
    day = dt.datetime.fromtimestamp(middle, dt.UTC).replace(hour=0, minute=0, second=0)
    start, end = (day.timestamp() + h * 3600 for h in hours)
    if start <= written and (window is None or past_tense(reported(text))):
        return []  # "a party at 5 pm" said at 6 pm, "there was a meeting at 10"
    return [Commitment(_activity(event), start, end)]


def _clause_of(text: str, event: re.Match[str]) -> str:
    """The part of a text between the commas or semicolons around its event: a plan's
    item ("sell the catch at the fish market at noon"), not the hour of another item."""
    start = max(text.rfind(",", 0, event.start()), text.rfind(";", 0, event.start())) + 1
    ends = [i for i in (text.find(",", event.end()), text.find(";", event.end())) if i >= 0]
    return text[start : min(ends, default=len(text))]


def _without_hours(text: str) -> str:
    """The text without its clock times, whose day it names apart ("7-9 pm" is no date)."""
    for pattern in (_SPAN, _BARE_SPAN, AT_TIME):
        text = pattern.sub(" ", text)
    return text


def hour_of(match: re.Match[str], prefix: str = "") -> int | None:
    """The hour a TIME match names (midnight is 24), or None."""
    word = match.group(f"{prefix}word")
    if word:
        return 24 if word.lower() == "midnight" else 12
    hour = int(match.group(f"{prefix}h"))
    suffix = (match.group(f"{prefix}ap") or "").lower().replace(".", "")
    if suffix == "pm" and hour < 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0 if prefix else 24
    return hour if 0 <= hour <= 24 else None


def hours_of(text: str) -> tuple[int, int] | None:
    """The hours an event takes, from its time: "from 5 pm to 7 pm", "5-7 pm", "at 3 pm"
    (an hour); between 1 and LONGEST_HOURS hours."""
    if (span := _SPAN.search(text)) is not None and (start := hour_of(span)) is not None:
        end = hour_of(span, "e")
    elif (bare := _BARE_SPAN.search(text)) is not None:
        half = 12 if bare["ap"].lower().startswith("p") else 0
        start, end = int(bare["h"]) % 12 + half, int(bare["eh"]) % 12 + half
    elif (at := AT_TIME.search(text)) is not None and (start := hour_of(at)) is not None:
        end = None
    else:
        return None
    return start, start + max(1, min(LONGEST_HOURS, (end or start + 1) - start))


def event_activity(text: str) -> str | None:
    """What one does for the event a text names, or None: "go to the feast at the Long
    Hall"."""
    event = _event(text)
    return None if event is None else _activity(event)


def _event(text: str) -> re.Match[str] | None:
    """The first event noun of a text that is a noun: not a verb after "to", a subject
    or a modal ("to show the boat", "we race at dawn", "I'll show you")."""
    for found in _EVENTS.finditer(text):
        words = found.group(1).split()
        before = (text[: found.start()].split()[-1:] if len(words) == 1 else words[:1]) or [""]
        if before[0].lower().replace("’", "'") not in _BEFORE_A_VERB:
            return found
    return None


_BEFORE_A_VERB = PERSONAL - DETERMINERS | MODALS | {"to", "i'll", "we'll", "you'll", "they'll"}


def _activity(event: re.Match[str]) -> str:
    name = re.sub(r"^(?:the|a|an)\s+", "", event.group(1).strip(), flags=re.IGNORECASE)
    return f"go to the {name} {(event.group(2) or '').strip()}".strip()
