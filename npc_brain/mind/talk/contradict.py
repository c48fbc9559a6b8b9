"""Whether two claims contradict each other: the same subject, a different time or date
("the feast at the Red Boar at 5 pm" against "... at 6 pm"). Pure.

Two texts are about the same thing when, their times and dates aside, most of the
content words of the shorter are in the other (SAME_SUBJECT, besides the people's
names; "Vera's" is "Vera"). They contradict when both state a value of the
same slot (a clock time, a date, a weekday) and no value is the same.
"""

from __future__ import annotations

from collections.abc import Set

from npc_brain.memory.when import WEEKDAYS, clock_times, dates, without_times
from npc_brain.mind.talk.answers import key_terms
from npc_brain.words import tokens

SAME_SUBJECT = 0.6  # share of the shorter text's content words the other must hold


def slots(text: str) -> dict[str, set[str]]:
    """The values a text states: clock times ('17:00'), dates ('february 14'), weekdays."""
    days = {w.lower() for w in tokens(text) if w.lower() in WEEKDAYS}
    found = {"time": set(clock_times(text)), "date": set(dates(text)), "weekday": days}
    return {slot: values for slot, values in found.items() if values}


def contradiction(a: str, b: str, names: Set[str] = frozenset()) -> str:
    """The slot in which `a` and `b` disagree about the same thing ('' if they do not):
    'time', 'date' or 'weekday'."""
    if not _same_subject(a, b, names):
        return ""
    ours, theirs = slots(a), slots(b)
    for slot in ("date", "time", "weekday"):
        if ours.get(slot) and theirs.get(slot) and not ours[slot] & theirs[slot]:
            return slot
    return ""


def _same_subject(a: str, b: str, names: Set[str]) -> bool:
    plain_a, plain_b = (without_times(t) for t in (a, b))
    terms_a, terms_b = (
        {w.removesuffix("'s") for w in key_terms(t)} - names for t in (plain_a, plain_b)
    )
    shorter = min(terms_a, terms_b, key=len)
    if not shorter:
        return False
    return len(terms_a & terms_b) >= SAME_SUBJECT * len(shorter)
