"""What places afford: the activities an agent can do at an arena or an object.

An address is world:sector:arena[:object]. Common objects and arenas of a town have
their activities here (a counter affords serving customers; a library, studying);
an object this table does not know affords "using the <object>", an arena "spending
time at the <arena>". The planner ranks places by how well these fit an activity, so
"study physics" goes to the library and "open the cafe" to the cafe's counter.
"""

from __future__ import annotations

import re

OBJECTS: dict[str, tuple[str, ...]] = {
    "bar": ("having a drink", "chatting at the bar"),
    "bed": ("resting", "reading in bed"),
    "bench": ("sitting on a bench", "reading on a bench"),
    "blackboard": ("teaching a class", "writing on the blackboard"),
    "bookshelf": ("browsing books", "reading a book"),
    "camera": ("taking photos",),
    "checkout counter": ("serving customers", "ringing up sales"),
    "coffee machine": ("making coffee", "brewing coffee"),
    "computer": ("working on the computer", "writing on the computer"),
    "counter": ("serving customers", "taking orders"),
    "customer seating": ("having a coffee", "eating a meal", "chatting with customers"),
    "desk": ("working at the desk", "writing", "studying"),
    "desks": ("attending class", "taking notes"),
    "easel": ("painting", "sketching"),
    "fountain": ("sitting by the fountain",),
    "garden": ("gardening", "tending the garden"),
    "kitchenette": ("making breakfast", "cooking a meal"),
    "meeting room": ("attending a meeting", "meeting people"),
    "music stand": ("practising music", "composing music"),
    "notice board": ("reading the notices", "putting up a notice"),
    "piano": ("playing the piano", "composing music"),
    "pub tables": ("having dinner", "chatting with friends"),
    "refrigerator": ("getting food", "stocking the fridge"),
    "shelves": ("stocking the shelves", "arranging goods"),
    "sofa": ("relaxing on the sofa", "talking with family"),
    "stove": ("cooking", "baking pastries"),
    "study table": ("studying", "writing a paper"),
    "television": ("watching television",),
}
ARENAS: dict[str, tuple[str, ...]] = {
    "bedroom": ("resting", "getting ready for the day"),
    "cafe": ("having breakfast", "having lunch", "meeting friends", "reading the paper"),
    "classroom": ("attending class", "teaching a class"),
    "common room": ("relaxing", "chatting with friends"),
    "hall": ("attending a meeting", "talking to voters", "working at the town hall"),
    "kitchen": ("cooking", "preparing food"),
    "library": ("studying", "reading", "doing research"),
    "living room": ("relaxing", "spending time with family", "having dinner"),
    "park": ("taking a walk", "going for a run", "relaxing outdoors"),
    "pub": ("having dinner", "having a drink"),
    "room": ("resting", "tidying up the room"),
    "store": ("shopping", "serving customers", "stocking the shelves"),
}
SLEEPING_PLACES = ("bed",)
# Someone's own rooms: "Vega's apartment", "Wren's bedroom", "Ashford family's house".
_PRIVATE = re.compile(r"^(.+?)'s (?:\w+ )?(?:room|bedroom|apartment|house|home|flat)$", re.I)
# Objects that only the people who work there use: a customer has coffee, it does not
# make it at the cafe's machine.
STAFF_OBJECTS = {
    "bar",
    "checkout counter",
    "coffee machine",
    "counter",
    "refrigerator",
    "shelves",
    "stove",
}


def parts(address: str) -> list[str]:
    """The address's parts below the world: sector, arena, object (those present)."""
    return [p.strip() for p in address.split(":")[1:] if p.strip()]


def spot(address: str) -> str:
    """The most specific part of an address: its object, else its arena, else sector."""
    named = parts(address)
    return named[-1] if named else address


def describe(address: str) -> str:
    """An address as a phrase: 'the counter of the taproom at Sleeping Fox Inn', 'the
    terminal of Vega's room at Crew Quarters'."""
    named = parts(address)
    if len(named) >= 3:
        return f"the {named[2]} of {_the(named[1])} at {named[0]}"
    if len(named) == 2:
        return f"{_the(named[1])} at {named[0]}"
    return named[0] if named else address


def _the(name: str) -> str:
    """A place's name with its article: none for someone's ("Vega's room")."""
    return name if "'s " in name else f"the {name}"


def holder(address: str) -> str:
    """Whose private room an address is in, the most specific part naming them
    ('Crew Quarters:Vega's room' -> 'Vega'; "Ashford family's house" -> 'Ashford',
    "...:Wren's bedroom" -> 'Wren'); '' for a place anyone may use ("Sailor's Rest",
    Sleeping Fox Inn)."""
    found = [m[1] for part in parts(address) if (m := _PRIVATE.match(part))]
    return found[-1].removesuffix(" family") if found else ""


def affordances(address: str) -> tuple[str, ...]:
    """What can be done at the address: its object's activities, or its arena's."""
    named = parts(address)
    if len(named) >= 3:
        return OBJECTS.get(named[2].lower()) or (f"using the {named[2]}",)
    if len(named) == 2:
        arena = named[1].lower()
        known = ARENAS.get(arena) or next(
            (acts for name, acts in ARENAS.items() if arena.endswith(" " + name)), None
        )
        return known or (f"spending time in {_the(named[1])}",)
    return ("spending time there",)


def is_sleeping_place(address: str) -> bool:
    return spot(address).lower() in SLEEPING_PLACES


def for_staff_only(address: str) -> bool:
    """True for an object only those who work at its place use (a cafe's counter)."""
    named = parts(address)
    return len(named) >= 3 and named[2].lower() in STAFF_OBJECTS


def works_at(occupation: str, address: str) -> bool:
    """Whether an occupation ("runs the Sleeping Fox Inn") names the address's sector."""
    named = parts(address)
    return bool(named) and named[0].lower() in occupation.lower()
