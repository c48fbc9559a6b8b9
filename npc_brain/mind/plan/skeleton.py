"""A day's skeleton from what is known: the code composes, the model only chooses.

Wake and bed times, fixed commitments ("open the forge at 8 am"), things to do in a
part of the day ("paint in the morning") and things to do some time come from the
persona (`lifestyle`, `daily_requirements`) and from remembered commitments for the day
("a wedding at the Sleeping Fox Inn on June 3 from 5 pm to 7 pm"). Meals are needs.
`compose` lays them on the waking hours; the free hours get a few ranked options each,
among which the model chooses. Every function here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from npc_brain.memory.commitments import AT_TIME, TIME, event_activity, hour_of, hours_of
from npc_brain.memory.records import GameTime
from npc_brain.memory.when import anchor
from npc_brain.mind.plan.prompts import Block, DayPlan
from npc_brain.mind.prompts import imperative
from npc_brain.persona import Persona

DEFAULT_WAKE, DEFAULT_BED = 7, 23
MORNING, AFTERNOON, EVENING = (8, 11), (13, 17), (18, 21)
MEALS = {"breakfast": (7, 9), "lunch": (12, 13), "dinner": (18, 20)}
EVENING_START = 20  # from then on, the evening's candidates come first
ONE_OFF_VERBS = {
    *("have", "open", "close", "walk", "go", "buy", "visit", "invite", "meet", "call", "take"),
    *("having", "walking", "going", "buying", "visiting", "meeting", "calling", "taking"),
}
OPTIONS_PER_HOUR = 3
MAX_HOURS_EACH = 2  # an activity that is not fixed fills at most this many hours

_WAKE = re.compile(rf"\bwak\w*\s+up\s+(?:at|around|by)?\s*(?:{TIME})", re.IGNORECASE)
_BED = re.compile(
    rf"\b(?:goes|go|going)\s+to\s+(?:bed|sleep)\s+(?:at|around|by)?\s*(?:{TIME})", re.I
)
_PARTS = {"in the morning": MORNING, "in the afternoon": AFTERNOON, "in the evening": EVENING}
_FILLER = re.compile(r"\b(every day|each day|daily|today)\b", re.IGNORECASE)
_NOT_ACTIVITIES = re.compile(
    r"^(?:\d|(?:good\s+)?(?:morning|afternoon|evening|night)\b|hi\b|hello\b|hey\b|"
    r"woke|wake|waking|nothing\b|idle\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Item:
    """Something to do: at a fixed hour, within a window of hours, or any time."""

    activity: str
    hour: int | None = None
    window: tuple[int, int] | None = None
    hours: int = 1  # how long a fixed item lasts
    required: bool = True


@dataclass(frozen=True)
class Skeleton:
    wake: int
    bed: int  # may pass 24: past midnight
    items: tuple[Item, ...]

    @property
    def waking_hours(self) -> range:
        return range(self.wake, min(self.bed, 24))


def is_activity(text: str) -> bool:
    """False for a time, a greeting or a non-activity ("10:00", "morning", "woke up")."""
    text = text.strip()
    return len(text) >= 3 and not _NOT_ACTIVITIES.match(text)


def item_of(text: str, *, required: bool) -> Item | None:
    """An item from one phrase: its time or part of the day taken out of the activity."""
    hour = None
    window = None
    if (at := AT_TIME.search(text)) is not None:
        hour = hour_of(at)
        text = text[: at.start()] + text[at.end() :]
    for words, hours in _PARTS.items():
        if words in text.lower():
            window = hours
            text = re.sub(re.escape(words), "", text, flags=re.IGNORECASE)
    text = " ".join(_FILLER.sub("", text).split()).strip(" ,.;")
    if not is_activity(text):
        return None
    return Item(text, hour if hour is not None and hour < 24 else None, window, 1, required)


def skeleton_of(persona: Persona) -> Skeleton:
    """Wake and bed hours and the items of a persona's lifestyle and requirements."""
    lifestyle = persona.lifestyle
    wake = DEFAULT_WAKE
    if (m := _WAKE.search(lifestyle)) is not None and (h := hour_of(m)) is not None:
        wake = h if h < 13 else DEFAULT_WAKE
    bed = DEFAULT_BED
    if (m := _BED.search(lifestyle)) is not None and (h := hour_of(m)) is not None:
        bed = h + 24 if h < wake else h
    items = [i for r in persona.daily_requirements if (i := item_of(r, required=True))]
    for piece in re.split(r",|;|\band then\b", lifestyle):
        if _WAKE.search(piece) or _BED.search(piece) or not piece.strip():
            continue
        item = item_of(imperative(piece), required=False)
        if item is not None and not any(_same(item, known) for known in items):
            items.append(item)
    return Skeleton(wake, max(bed, wake + 8), tuple(items))


def commitments(
    texts: Sequence[str], today: GameTime, written: Sequence[GameTime | None] = ()
) -> list[Item]:
    """Events with a time that the texts place on the day starting at `today`: 'a wedding
    at the Sleeping Fox Inn on June 3 from 5 pm to 7 pm' -> attend ... at 17 for 2 hours.
    A text names the day by its date, its weekday or "today"; or, with the time it was
    `written` (one per text, None: unknown), by a time relative to then ("tomorrow at
    5 pm", said the day before)."""
    moment = datetime.fromtimestamp(today, UTC)
    dates = (f"{moment:%B} {moment.day}", f"{moment:%b} {moment.day}", f"{moment:%A}", "today")
    found = []
    times = [*written, *[None] * (len(texts) - len(written))][: len(texts)]
    for text, when in zip(texts, times, strict=True):
        named = any(d.lower() in text.lower() for d in dates)
        if not named and not _placed_on(text, when, today):
            continue
        activity = event_activity(text)
        hours = hours_of(text)
        if activity is None or hours is None or hours[0] >= 24:
            continue
        start, end = hours
        found.append(Item(activity, start, None, end - start))
    return found


def _placed_on(text: str, written: GameTime | None, today: GameTime) -> bool:
    """Whether a text written at `written` speaks of the day starting at `today`
    ("tomorrow", "on Tuesday", read against the time it was written)."""
    if written is None or not today - 7 * 86400 <= written < today + 86400:
        return False
    window = anchor(text, written)
    return window is not None and window.start < today + 86400 and window.end > today


def compose(
    skeleton: Skeleton,
    extra: Sequence[Item],
    candidates: Sequence[str],
    fit: Mapping[str, float],
    evening: Sequence[str] = (),
) -> tuple[dict[int, str], dict[int, list[str]]]:
    """Lays the skeleton on the waking hours: (fixed hours -> activity, free hours ->
    ranked options). Fixed items and remembered commitments take their hours, meals
    theirs (a requirement that names the meal, "have breakfast at the Sleeping Fox Inn",
    is that meal), required items the best free hour of their window; every other waking
    hour gets the OPTIONS_PER_HOUR best candidates by `fit` (higher is better; the
    `evening` ones only from EVENING_START, and first then), none used up (see `cap`) or
    just done."""
    hours = list(skeleton.waking_hours)
    fixed: dict[int, str] = {}
    for item in [*extra, *skeleton.items]:
        if item.hour is not None:
            for h in range(item.hour, item.hour + item.hours):
                if h in hours and h not in fixed:
                    fixed[h] = item.activity
    untimed = [i for i in skeleton.items if i.hour is None and i.required]
    for meal, window in MEALS.items():
        if any(meal in a.lower() for a in fixed.values()):
            continue
        named = next((i for i in untimed if meal in i.activity.lower()), None)
        if named is not None:
            untimed.remove(named)
        first = skeleton.wake if meal == "breakfast" else window[0]
        _place(fixed, hours, named.activity if named else f"have {meal}", (first, window[1]))
    # Required items go after the day's first fixed commitment (serving customers comes
    # after opening the cafe), in the part of the day they name.
    committed = [h for h, a in fixed.items() if not _is_meal(a)]
    after = min(committed, default=skeleton.wake) + 1
    for item in untimed:
        _place(fixed, hours, item.activity, item.window or (after, hours[-1]))
    used = {a: list(fixed.values()).count(a) for a in set(fixed.values())}
    ranked = sorted(candidates, key=lambda c: -fit.get(c, 0.0))
    late = [c for c in ranked if c in evening] + [c for c in ranked if c not in evening]
    daytime = [c for c in ranked if c not in evening]
    duties = {i.activity for i in skeleton.items if i.required}
    free: dict[int, list[str]] = {}
    for h in hours:
        if h in fixed:
            continue
        pool = late if h >= EVENING_START else daytime
        options = [
            c
            for c in pool
            if used.get(c, 0) < cap(c)
            and c != fixed.get(h - 1)
            and not (h < after and c in duties)  # duties come after the first commitment
        ]
        fallback = sorted(pool or ranked, key=lambda c: used.get(c, 0))[:1]
        options = options[:OPTIONS_PER_HOUR] or fallback
        free[h] = options
        used[options[0]] = used.get(options[0], 0) + 1  # the likeliest choice, for variety
    return dict(sorted(fixed.items())), free


def settle(
    fixed: Mapping[int, str], free: Mapping[int, Sequence[str]], chosen: Mapping[int, str]
) -> dict[int, str]:
    """Every waking hour's activity: the fixed ones, and the chosen ones where no
    activity passes its `cap` (else the hour's next option that does not)."""
    hours = dict(fixed)
    used = {a: list(fixed.values()).count(a) for a in set(fixed.values())}
    for h in sorted(free):
        options = [chosen.get(h, free[h][0]), *free[h]]
        least = min(options, key=lambda o: used.get(o, 0))
        pick = next((o for o in options if used.get(o, 0) < cap(o)), least)
        hours[h] = pick
        used[pick] = used.get(pick, 0) + 1
    return dict(sorted(hours.items()))


def cap(activity: str) -> int:
    """How many hours of a day an activity may fill, fixed hours aside: a one-off
    ("have coffee", "walk in the park") one, anything else MAX_HOURS_EACH."""
    first = activity.split(" ", 1)[0].lower()
    return 1 if first in ONE_OFF_VERBS else MAX_HOURS_EACH


def day_plan(skeleton: Skeleton, hours: Mapping[int, str]) -> DayPlan:
    """The day's blocks: an activity's consecutive hours as one block, then sleep."""
    blocks: list[Block] = []
    for hour in sorted(hours):
        if not blocks or blocks[-1].activity != hours[hour]:
            blocks.append(Block(hour, hours[hour]))
    if skeleton.bed < 24:
        blocks.append(Block(skeleton.bed, "sleeping"))
    return DayPlan(skeleton.wake, tuple(blocks))


def _place(fixed: dict[int, str], hours: list[int], activity: str, window: tuple[int, int]) -> None:
    """The first free hour in [window] (else the first free hour after it) gets activity."""
    first, last = window
    free = [h for h in hours if h not in fixed]
    within = [h for h in free if first <= h <= last] or [h for h in free if h > last]
    if within:
        fixed[within[0]] = activity


def _is_meal(activity: str) -> bool:
    return any(meal in activity.lower() for meal in MEALS)


def _same(a: Item, b: Item) -> bool:
    """Two items about one thing: the same fixed hour, or most words shared."""
    if a.hour is not None and a.hour == b.hour:
        return True
    words_a, words_b = set(a.activity.lower().split()), set(b.activity.lower().split())
    return len(words_a & words_b) > 0.6 * min(len(words_a), len(words_b))
