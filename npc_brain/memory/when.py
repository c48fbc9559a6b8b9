"""Time anchors: "yesterday", "at 10 am tomorrow", "on Saturday", "last week", resolved
against the game clock into a window of game time (dateparser, with the game time as
its base; no hand-written lists of months or weekdays)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

from dateparser.date import DateDataParser
from dateparser.search import search_dates
from lemminflect import getAllLemmas, getInflection

from npc_brain.memory.records import GameTime

HOUR = 3600.0
DAY = 24 * HOUR
# How far a window reaches around the moment a period names.
_SPANS = {"time": HOUR, "part_of_day": 3 * HOUR}
_LENGTHS = {"week": 7 * DAY, "month": 31 * DAY, "year": 366 * DAY}


@dataclass(frozen=True)
class Window:
    """A span of game time a line asks about; `phrase` is how the line said it."""

    start: GameTime
    end: GameTime
    phrase: str

    def holds(self, moment: GameTime) -> bool:
        return self.start <= moment < self.end

    def future(self, now: GameTime) -> bool:
        """Whether the window lies ahead of `now` (its middle does)."""
        return (self.start + self.end) / 2 > now


def anchor(text: str, now: GameTime) -> Window | None:
    """The window of game time `text` anchors to, or None when it names no time. A
    weekday or date alone is the next one for a line in the future or present tense and
    the last one for a line in the past tense ("what did you do on Saturday?")."""
    base = dt.datetime.fromtimestamp(now, dt.UTC).replace(tzinfo=None)
    prefer = "past" if past_tense(text) else "future"
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_TIME_AS_PERIOD": True}
    try:
        found = search_dates(text, languages=["en"], settings=settings)
    except (ValueError, OverflowError):
        return None
    if not found:
        return None
    phrase, moment = found[0]
    period = _parser(prefer, base).get_date_data(phrase).period or "day"
    at = moment.replace(tzinfo=dt.UTC).timestamp()
    if period in _SPANS or (period == "day" and any(c.isdigit() for c in phrase) and moment.hour):
        span = _SPANS.get(period, HOUR)
        return Window(at - span, at + span, phrase)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    start = day.replace(tzinfo=dt.UTC).timestamp()
    return Window(start, start + _LENGTHS.get(period, DAY), phrase)


@lru_cache(maxsize=64)
def _parser(prefer: str, base: dt.datetime) -> DateDataParser:
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_TIME_AS_PERIOD": True}
    return DateDataParser(languages=["en"], settings=settings)


# Past forms as often said for the present: "got plans for Friday?" is "have you plans".
_AS_OFTEN_PRESENT = frozenset(("got",))


def past_tense(text: str) -> bool:
    """Whether a line speaks of the past: one of its words is a verb's past tense form
    ("did", "were", "talked"), by lemminflect's tables."""
    for word in text.lower().replace("?", " ").replace(",", " ").split():
        word = word.strip(".!;:'\"")
        if word in _AS_OFTEN_PRESENT:
            continue
        for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
            if word in getInflection(lemma, tag="VBD") and word != lemma:
                return True
    return False


@dataclass(frozen=True)
class TemporalIntent:
    """What a question asks of time: the window it names in the past (or the present, in
    the past tense: "what did you do today?"; None: none, one ahead, whose memories do
    not exist yet, or the present asked in the present tense), and whether it looks back (a
    verb in the past tense, a window before now, or a name: "Who bought the Gull?"),
    which lowers recency's weight in retrieval."""

    window: Window | None
    looks_back: bool


def asked_when(text: str, now: GameTime) -> TemporalIntent:
    """The temporal intent of a question asked at `now`."""
    window, past = anchor(text, now), past_tense(text)
    if window is not None and window.start >= now:
        window = None  # "tomorrow": what is planned for it was written before it
    if window is not None and window.holds(now) and not past:
        window = None  # "right now", "today" in the present tense: recency's to weigh
    named = any(w[:1].isupper() and w != "I" for w in text.split()[1:])
    looks_back = past or named or (window is not None and window.end <= now)
    return TemporalIntent(window, looks_back)
