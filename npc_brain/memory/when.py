"""Time anchors: "yesterday", "at 10 am tomorrow", "on Saturday", "last week", resolved
against the game clock into a window of game time (dateparser, with the game time as
its base; no hand-written lists of months or weekdays)."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache

from dateparser.date import DateDataParser
from dateparser.search import search_dates
from lemminflect import getAllLemmas, getInflection

from npc_brain.memory.records import GameTime
from npc_brain.words import CONJUNCTIONS, DETERMINERS, MODALS, NUMBER_WORDS

HOUR = 3600.0
DAY = 24 * HOUR
# The calendar's names, lowercase, from the standard library (not written out here).
MONTHS = tuple(m.lower() for m in calendar.month_name[1:])
WEEKDAYS = tuple(d.lower() for d in calendar.day_name)
CALENDAR_WORDS = frozenset((*MONTHS, *WEEKDAYS))
_SAYS_WHEN = re.compile(
    rf"\b(?:{'|'.join((*MONTHS, *WEEKDAYS))}|tomorrow|tonight|today|next week|this week"
    r"|\d{1,2}(?::\d\d)?\s?(?:am|pm)|\d{1,2}(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)


# A clock time: "5 pm", "5:30 p.m.", "18:00", or a 24-hour clock's "0600" ("at 0600
# station time"); a date: a month's name and a day ("February 14th").
_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d\d))?\s?([ap])\.?m\b\.?|\b(\d{1,2}):(\d\d)\b|\b([012]\d)([0-5]\d)\b",
    re.IGNORECASE,
)
_DATE = re.compile(rf"\b({'|'.join(MONTHS)})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")  # "the 11th": a day, not "11 pm"


def clock_times(text: str) -> list[str]:
    """The clock times a text says, as a 24-hour clock's "HH:MM" ("5 pm": 17:00,
    "6:30": 06:30, "0600": 06:00)."""
    times = []
    for m in _CLOCK.finditer(text):
        if m[1]:
            hour = int(m[1]) % 12 + (12 if m[3].lower() == "p" else 0)
            times.append(f"{hour:02d}:{m[2] or '00'}")
        else:
            times.append(f"{int(m[4] or m[6]):02d}:{m[5] or m[7]}")
    return times


def dates(text: str) -> list[str]:
    """The dates a text says, as "february 14" ("February 14th")."""
    return [f"{month.lower()} {int(day)}" for month, day in _DATE.findall(text)]


def days_of_month(text: str) -> list[str]:
    """The days of a month a text says, as digits ("the 11th", "February 14": 11, 14)."""
    return [*_ORDINAL.findall(text), *(day for _, day in _DATE.findall(text))]


def without_times(text: str) -> str:
    """A text with its clock times, dates and weekdays left out."""
    text = _CLOCK.sub(" ", _DATE.sub(" ", text))
    return " ".join(w for w in text.split(" ") if w.lower().strip(",.;!?") not in WEEKDAYS)


def says_when(text: str) -> bool:
    """Whether a text says when (a month, a weekday, "tomorrow", a clock time, the 14th):
    cheap, with no date read; `anchor` reads it."""
    return _SAYS_WHEN.search(text) is not None


# How far a window reaches around the moment a period names.
_SPANS = {"time": HOUR, "part_of_day": 3 * HOUR}
# English's units of time, each as long as the window it names at most.
UNITS = {
    **{"second": 1.0, "minute": 60.0, "hour": HOUR, "night": DAY / 2, "day": DAY},
    **{"week": 7 * DAY, "fortnight": 14 * DAY, "month": 31 * DAY, "year": 366 * DAY},
    "decade": 3653 * DAY,
}
# Nouns of a point in time: "what" or "which" before one asks when ("what day ...?").
TIME_NOUNS = frozenset(("time", "date", "hour", "day", "night", "week", "month", "year"))
# Words that make a length of time a point in it ("3 days ago", "in two weeks").
POINTING = frozenset(("ago", "later", "before", "after", "earlier", "from"))


@dataclass(frozen=True)
class Window:
    """A span of game time a line asks about; `phrase` is how the line said it."""

    start: GameTime
    end: GameTime
    phrase: str

    def holds(self, moment: GameTime) -> bool:
        return self.start <= moment < self.end

    def meets(self, start: GameTime, end: GameTime) -> bool:
        """Whether the window and the span from `start` to `end` share some time."""
        return self.start < end and start < self.end

    def future(self, now: GameTime) -> bool:
        """Whether the window lies ahead of `now` (its middle does)."""
        return (self.start + self.end) / 2 > now


def colon_clocks(text: str) -> str:
    """A 24-hour clock's "0300" after a word of time ("at", "from", "until") written
    "03:00", which dateparser reads as an hour, not as the year 300."""

    def written(found: re.Match[str]) -> str:
        before = text[: found.start()].split()[-1:]
        timed = found[6] and before and before[0].lower() in _CLOCK_WORDS
        return f"{found[6]}:{found[7]}" if timed else found[0]

    return _CLOCK.sub(written, text)


_CLOCK_WORDS = frozenset(("at", "from", "to", "until", "till", "by", "before", "after", "around"))
# A length of time with "back" after it, which says "ago" ("forty years back"): dateparser
# reads the length alone as ahead.
_BACK = re.compile(rf"\b(\w+\s+(?:{'|'.join(UNITS)})s?)\s+back\b", re.IGNORECASE)


_TRAILING_CONJUNCTION = re.compile(rf"(?:\s+(?:{'|'.join(sorted(CONJUNCTIONS))}))+$", re.IGNORECASE)


def anchor(text: str, now: GameTime, prefer: str = "") -> Window | None:
    """The window of game time `text` anchors to, or None when it names no time. A
    weekday or date alone is the next one for a line in the future or present tense and
    the last one for a line in the past tense ("what did you do on Saturday?"). A part
    of the day said with it narrows a day to it ("yesterday evening", "on the 21st in
    the morning"); a month or a week is the calendar's ("this month": from the 1st). A
    span that runs up to now ("since Monday", "in the last few days", "over the past
    week") ends now. `prefer` ("past" or "future") overrides the tense."""
    text = _BACK.sub(r"\1 ago", colon_clocks(text))  # "forty years back": ago
    base = dt.datetime.fromtimestamp(now, dt.UTC).replace(tzinfo=None)
    if (running := _up_to_now(text, base, now)) is not None:
        return running
    prefer = prefer or ("past" if past_tense(reported(text)) else "future")
    period = ""
    if (ordinal := _day_of_month(text, base, prefer)) is not None:  # "on the 11th"
        found: list[tuple[str, dt.datetime]] | None = [ordinal]
        period = "day"
    else:
        settings = {
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": prefer,
            "RETURN_TIME_AS_PERIOD": True,
        }
        try:
            found = search_dates(
                _RELATIVE.sub(_two_days_ago, text),
                languages=["en"],
                settings=settings,
            )
        except (ValueError, OverflowError):
            return None
    if not found:
        return None
    phrase, moment = found[0]
    phrase = _TRAILING_CONJUNCTION.sub("", phrase)  # dateparser's "on friday and"
    period = period or _parser(prefer, base).get_date_data(phrase).period or "day"
    at = moment.replace(tzinfo=dt.UTC).timestamp()
    part = _PART_OF_DAY.search(text)
    if part is not None and period in ("day", "part_of_day", "time") and not _clock(phrase):
        first, last = PARTS_OF_DAY[part[1].lower()]
        day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        start = day.replace(tzinfo=dt.UTC).timestamp()
        return Window(start + first * HOUR, start + last * HOUR, phrase)
    if period in _SPANS or (period == "day" and _clock(phrase)):
        span = _SPANS.get(period, HOUR)
        return Window(at - span, at + span, phrase)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        day = day.replace(day=1)
    elif period == "week":
        day -= dt.timedelta(days=day.weekday())
    start = day.replace(tzinfo=dt.UTC).timestamp()
    length = UNITS.get(period, DAY)
    if period == "month":
        following = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        length = (following - day).total_seconds()
    return Window(start, start + length, phrase)


# A span that runs up to now ("since Monday", "in the last few days", "the past week")
# or from now ("the next few days", "the coming week").
_SINCE = re.compile(r"\bsince\s+(.+?)\s*(?=[?.!,;]|$)", re.IGNORECASE)
_LAST = re.compile(
    r"\bthe\s+(last|past|next|coming)\s+(?:(few|couple\s+of|\w+)\s+)?(hour|day|week|month)s?\b",
    re.IGNORECASE,
)
_FEW = {"few": "3", "couple of": "2"}


def _up_to_now(text: str, base: dt.datetime, now: GameTime) -> Window | None:
    """The window from a time named in the past up to now, or from now over the next
    hours, days or weeks named; or None."""
    if (since := _SINCE.search(text)) is not None:
        start = anchor(f"what happened {since[1]}", now)  # read as the past
        if start is not None and start.start < now:
            return Window(start.start, now, since[0])
        return None
    if (last := _LAST.search(text)) is None:
        return None
    count = _FEW.get(c := " ".join((last[2] or "1").lower().split()), c)
    if last[1].lower() in ("next", "coming"):
        number = int(count) if count.isdecimal() else NUMBER_WORDS.get(count, 1)
        return Window(now, now + number * UNITS[last[3].lower()], last[0])
    ago = f"{count} {last[3]}s ago"
    moment = _parser("past", base).get_date_data(ago).date_obj
    if moment is None:
        return None
    return Window(moment.replace(tzinfo=dt.UTC).timestamp(), now, last[0])


# The parts of a day, in hours from midnight: what "in the morning" or "that evening"
# narrows a day to.
PARTS_OF_DAY = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 30)}
_PART_OF_DAY = re.compile(r"\b(morning|afternoon|evening|night)s?\b", re.IGNORECASE)
# "the evening before last": that of 2 days ago (dateparser reads no "before last").
_RELATIVE = re.compile(r"\b(morning|afternoon|evening|night|day) before last\b", re.IGNORECASE)


def _two_days_ago(found: re.Match[str]) -> str:
    part = found[1].lower()
    return "2 days ago" if part == "day" else f"{part} 2 days ago"


_ORDINAL_DAY = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?[A-Z])")
_MONTHS = re.compile(
    rf"\b(?:{'|'.join(m.lower() for m in calendar.month_abbr[1:])})[a-z]*\b", re.IGNORECASE
)


def _day_of_month(text: str, base: dt.datetime, prefer: str) -> tuple[str, dt.datetime] | None:
    """ "on the 11th" with no month: the 11th of this month, or of the month before (for
    the past) or after (for the future) when this month's is on the wrong side of now;
    dateparser reads a lone ordinal as a month."""
    found = _ORDINAL_DAY.search(text)
    if found is None or _MONTHS.search(text):
        return None
    number = int(found[1])
    month = base.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    for _ in range(3):
        try:
            day = month.replace(day=number)
        except ValueError:
            day = None
        if day is not None and (
            (day <= base) if prefer == "past" else (day >= base - dt.timedelta(days=1))
        ):
            return found[0], day
        step = dt.timedelta(days=-1 if prefer == "past" else 32)  # into the month before or after
        month = (month + step).replace(day=1)
    return None


# A part of a day named by what happened on it, or by the day before or after it: "the
# morning of the flood", "the night of the Lantern Float", "the day after the storm".
_EVENT_DAY = re.compile(
    r"\b(morning|afternoon|evening|night|day)\s+(of|after|before)\s+(?:the\s+)?"
    r"([A-Za-z][\w' -]*?)\s*(?=[?.!,;]|$)",
    re.IGNORECASE,
)
_DAYS_FROM = {"of": 0, "after": 1, "before": -1}


@dataclass(frozen=True)
class EventDay:
    """A part of a day named by an event: `days` after the event's day (-1: before)."""

    part: str
    event: str
    days: int

    @property
    def phrase(self) -> str:
        relation = {0: "of", 1: "after", -1: "before"}[self.days]
        return f"the {self.part} {relation} the {self.event}"


def event_day(text: str) -> EventDay | None:
    """The part of a day a line names by an event: ("morning", "flood", 0) for "What
    were you doing the morning of the flood?", ("day", "flood", 1) for "the day after
    the flood"."""
    found = _EVENT_DAY.search(text)
    if found is None:
        return None
    return EventDay(found[1].lower(), found[3], _DAYS_FROM[found[2].lower()])


def days_from(text: str, event: str) -> int:
    """How many days after `event` a text places itself: 1 for "spent the day after the
    flood drying tins", -1 for "the night before the fair"; 0 when it does not say."""
    for found in _EVENT_DAY.finditer(text):
        if found[2].lower() != "of" and found[3].lower().startswith(event.lower()):
            return _DAYS_FROM[found[2].lower()]
    return 0


def part_of(moment: GameTime, part: str, phrase: str) -> Window:
    """The part of the day of `moment` ("day": all of it)."""
    day = dt.datetime.fromtimestamp(moment, dt.UTC).replace(hour=0, minute=0, second=0)
    start = day.timestamp()
    first, last = PARTS_OF_DAY.get(part, (0, 24))
    return Window(start + first * HOUR, start + last * HOUR, phrase)


def _clock(phrase: str) -> bool:
    """Whether a phrase says a clock time ("at 10 am"): it is narrower than a part of day."""
    return any(c.isdecimal() for c in phrase) and bool(re.search(r"\d\s*(?:am|pm|:)", phrase, re.I))


@lru_cache(maxsize=64)
def _parser(prefer: str, base: dt.datetime) -> DateDataParser:
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_TIME_AS_PERIOD": True}
    return DateDataParser(languages=["en"], settings=settings)


# Past forms as often said for the present: "got plans for Friday?" is "have you plans".
_AS_OFTEN_PRESENT = frozenset(("got",))


# Words after which a past form is an adjective ("the torn net"); not "that" or "her",
# which a verb may follow ("the man that cracked the safe", "I saw her leave").
_POSSESSIVE = frozenset(("my", "your", "his", "its", "our", "their"))
_BEFORE_A_NOUN = (DETERMINERS | _POSSESSIVE) - {"that"}
# Present forms of "be", after which a past form is a participle of the present ("where
# am I supposed to park?", "the gate is closed", "we're done").
_PRESENT_BE = frozenset(("am", "is", "are", "i'm", "you're", "we're", "they're", "it's"))


def past_tense(text: str) -> bool:
    """Whether a line speaks of the past: one of its words is a verb's past tense form
    ("did", "were", "talked"), by lemminflect's tables; not a modal ("could you fix
    it?"), nor one after a determiner, which is an adjective ("a busted drone", "my
    cracked visor"), nor a participle a present "is", "am" or "are" shortly before
    makes present ("where am I supposed to park?", "is the gate closed?")."""
    words = [w.strip(".!;:'\"") for w in text.lower().replace("?", " ").replace(",", " ").split()]
    for at, (before, word) in enumerate(zip(["", *words], words, strict=False)):
        if word in _AS_OFTEN_PRESENT or word in MODALS or before in _BEFORE_A_NOUN:
            continue  # "could", "would", "might": modals, of no tense
        being = _PRESENT_BE & set(words[max(0, at - BE_REACH) : at])
        for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
            participle = being and word in getInflection(lemma, tag="VBN")
            if word in getInflection(lemma, tag="VBD") and word != lemma and not participle:
                return True
    return False


BE_REACH = 3  # words a participle of the present may be after its "is" ("is the gate closed?")


_REPORTING = re.compile(r"\bthat\b|:", re.IGNORECASE)


def reported(text: str) -> str:
    """The clause a line reports, whose tense its times are read in: "he is riding out
    on Friday" of "Doc told me that he is riding out on Friday" (the telling is past,
    the riding ahead); the whole line when it reports none ("that" and no verb after it:
    "what did you do on that Friday?")."""
    clause = _REPORTING.split(text)[-1]
    words = re.findall(r"[A-Za-z']+", clause)
    return clause if clause != text and any(getAllLemmas(w, upos="VERB") for w in words) else text


def perfect(text: str) -> bool:
    """Whether a line is in the present perfect ("what've you been doing today?"): it
    asks of what has been, though a window it names ("today") runs on."""
    low = text.lower().replace("’", "'")
    return bool(re.search(r"\b(?:been|have|has)\b|'ve\b", low)) and "will" not in low


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
