"""The long-memory bench data's month, written by code: the types memories and questions
are made of (a Teller writes one NPC's month), and the one-off events, multi-memory
stories and changing facts of that month, each with the questions a player asks about it.
Used by bench/long_memory_data.py; the words are in bench/long_memory_town.py.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench import long_memory_town as town
from bench.long_memory_town import Npc

Window = tuple[int, float, int, float]  # after (day, hour), before (day, hour)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Who:
    """A person in a memory: an NPC (with its id) or someone of the town (no id)."""

    name: str
    id: str = ""

    @property
    def first(self) -> str:
        return self.name.split()[0]


@dataclass
class Memory:
    npc: str
    day: int
    hour: float
    kind: str
    text: str
    source: str = "seen"
    from_: str = ""
    notable: bool = False  # an event, not routine: what "what happened on ..." asks for
    id: str = ""

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "npc": self.npc,
            "day": self.day,
            "hour": round(self.hour, 3),
            "kind": self.kind,
            "text": self.text,
            "source": self.source,
            "from": self.from_,
        }


@dataclass
class Question:
    npc: str
    question: str
    category: str
    evidence: list[Memory]
    window: Window | None = None  # after (day, hour), before (day, hour)
    ask_hour: float = 12.0
    id: str = ""
    split: str = "train"

    def row(self, ask_day: int) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": self.id,
            "npc": self.npc,
            "question": self.question,
            "category": self.category,
            "evidence": [m.id for m in self.evidence],
            "ask_day": ask_day,
            "ask_hour": self.ask_hour,
            "split": self.split,
        }
        if self.window:
            keys = ("after_day", "after_hour", "before_day", "before_hour")
            row["window"] = dict(zip(keys, self.window, strict=True))
        return row


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def inside(m: Memory, window: Window) -> bool:
    after, before = (window[0], window[1]), (window[2], window[3])
    return after <= (m.day, m.hour) < before


@dataclass
class Teller:
    """One NPC's month: its memories, and the questions about them."""

    npc: Npc
    rng: random.Random
    town_npcs: Sequence[Npc]
    memories: list[Memory] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    logs: dict[str, list[Memory]] = field(default_factory=lambda: defaultdict(list))
    talks: dict[tuple[int, str], list[Memory]] = field(default_factory=lambda: defaultdict(list))
    _pools: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def me(self) -> Who:
        return Who(self.npc.name, self.npc.id)

    @property
    def others(self) -> list[Npc]:
        return [n for n in self.town_npcs if n.id != self.npc.id]

    def take(self, pool: str, items: Sequence[Any]) -> Any:
        """An item of `items` not taken before from this pool (the pool is shuffled once)."""
        if pool not in self._pools:
            self._pools[pool] = self.rng.sample(list(items), len(items))
        return self._pools[pool].pop()

    def person(self) -> Who:
        """Someone of the town, never met before in this NPC's memories."""
        return Who(f"{self.take('first', town.FIRST_NAMES)} {self.take('last', town.SURNAMES)}")

    def neighbour(self) -> Who:
        npc = self.rng.choice(self.others)
        return Who(npc.name, npc.id)

    def ship(self) -> str:
        adjective, noun = (self.take(f"ship{i}", w.split()) for i, w in enumerate(town.SHIP_WORDS))
        return f"the {adjective} {noun}"

    def hour(self, low: float = 7.0, high: float = 20.0) -> float:
        return round(self.rng.uniform(low, high) * 4) / 4

    def expand(self, template: str, **slots: str) -> str:
        """The template with one choice of each (a|b|c) group and its slots filled."""
        text = re.sub(r"\(([^()]*\|[^()]*)\)", lambda m: self.rng.choice(m[1].split("|")), template)
        other = self.rng.choice(self.others)
        values = {
            "me": self.npc.name,
            "pos": self.npc.pos,
            "other": other.name,
            "n": str(self.rng.randint(2, 12)),
            "workplace": self.npc.workplace,
            **slots,
        }
        return capital(text.format(**values))

    def remember(
        self,
        day: int,
        hour: float,
        text: str,
        *,
        kind: str = "observation",
        source: str = "seen",
        from_: str = "",
        notable: bool = True,
        log: str = "",
    ) -> Memory:
        memory = Memory(self.npc.id, day, hour, kind, capital(text), source, from_, notable)
        self.memories.append(memory)
        if log:
            self.logs[log].append(memory)
        return memory

    def said(
        self, day: int, hour: float, speaker: Who, listener: Who, line: str, notable: bool = False
    ) -> Memory:
        """A line of dialogue, as the server stores it; heard lines carry the speaker."""
        mine = speaker.id == self.npc.id
        memory = self.remember(
            day,
            hour,
            f'{speaker.name} said to {listener.name}: "{line}"',
            kind="dialogue",
            source="seen" if mine else "heard",
            from_="" if mine else speaker.id,
            notable=notable,
        )
        self.talks[(day, (listener if mine else speaker).id)].append(memory)
        return memory

    def ask(
        self,
        category: str,
        question: str,
        evidence: Sequence[Memory],
        window: Window | None = None,
    ) -> None:
        self.questions.append(Question(self.npc.id, question, category, list(evidence), window))

    def ask_some(self, options: Sequence[tuple[str, str]], evidence: Sequence[Memory]) -> None:
        """One or two of the (category, question) options, drawn."""
        for category, question in self.rng.sample(list(options), self.rng.randint(1, 2)):
            self.ask(category, question, evidence)


# One-off events: one memory each, two questions -----------------------------------------------

Event = Callable[[Teller, int], None]


def pennies(n: int) -> str:
    return "1 penny" if n == 1 else f"{n} pennies"


def arrival(t: Teller, day: int) -> None:
    trader, ship = t.person(), t.ship()
    cargo, para = t.take("cargo", town.CARGOES)
    text = t.expand(
        f"{trader.name}, a {t.rng.choice(town.TRADES)} from {t.take('city', town.CITIES)}, "
        f"(moored|tied up) {ship} at the east quay with a hold full of {cargo}"
    )
    memory = t.remember(day, t.hour(), text, log="arrivals")
    t.ask_some(
        [
            ("single", f"Who came in on {ship}?"),
            ("single", f"Has anyone brought {para} up the river lately?"),
            ("single", f"Where was {trader.first}'s boat from?"),
        ],
        [memory],
    )


def sale(t: Teller, day: int) -> None:
    buyer = t.person() if t.rng.random() < 0.7 else t.neighbour()
    item, short, para, (low, high) = t.take("goods", town.GOODS)
    price = t.rng.randint(low, high)
    text = f"{buyer.name} bought {item} from {t.npc.name} for {price} pennies"
    memory = t.remember(day, t.hour(), text, log="sales")
    t.logs["callers"].append(memory)
    t.ask_some(
        [
            ("single", f"How much did {buyer.first} pay for the {short}?"),
            ("single", f"Who bought {para} off you?"),
        ],
        [memory],
    )


def purchase(t: Teller, day: int) -> None:
    seller = t.person()
    item, short, para, (low, high) = t.take("goods", town.GOODS)
    price = t.rng.randint(low, high)
    where = t.rng.choice(("at the fish market", "off a passing barge", "at the Fennick fair"))
    text = f"{t.npc.name} bought {item} from {seller.name} {where} for {price} pennies"
    memory = t.remember(day, t.hour(), text, log="purchases")
    t.ask_some(
        [
            ("single", f"What did you pay for that {short}?"),
            ("single", f"Who sold you {para}?"),
        ],
        [memory],
    )


def visitor(t: Teller, day: int) -> None:
    role, topic, para = t.take("visitor", town.VISITORS)
    who = t.person()
    text = f"A {role} named {who.name} came to {t.npc.workplace} asking about {topic}"
    memory = t.remember(day, t.hour(), text, log="visitors")
    t.logs["callers"].append(memory)
    t.ask_some(
        [
            ("single", f"What did the {role.split()[0]} want?"),
            ("single", f"Has anyone come round asking about {para}?"),
        ],
        [memory],
    )


def rumour(t: Teller, day: int) -> None:
    claim, question = t.take("rumour", town.RUMOURS)
    teller = t.neighbour()
    text = f"{teller.name} told {t.npc.name} that {claim}"
    memory = t.remember(day, t.hour(), text, source="told", from_=teller.id, log="rumours")
    t.ask_some([("single", question), ("single", f"Who told you {claim}?")], [memory])


def injury(t: Teller, day: int) -> None:
    victim = t.person()
    hurt, para = t.take("injury", town.INJURIES)
    place = t.take("place", town.PLACES)
    surface = t.rng.choice(town.SURFACES)
    text = f"{victim.name} slipped on {surface} at {place} and {hurt}"
    memory = t.remember(day, t.hour(), text, log="injuries")
    t.ask_some(
        [
            ("single", f"Who got hurt at {place}?"),
            ("single", f"What happened to {victim.first}?"),
            ("single", f"Did somebody {para} recently?"),
        ],
        [memory],
    )


def animal(t: Teller, day: int) -> None:
    subject, name, deed = t.take("animal", town.ANIMALS)
    memory = t.remember(day, t.hour(), t.expand(f"{subject} {deed}"))
    t.ask_some(
        [
            ("single", f"What did the {name} do?"),
            ("single", "Has some animal been giving you trouble?"),
        ],
        [memory],
    )


def gift(t: Teller, day: int) -> None:
    giver = t.person() if t.rng.random() < 0.5 else t.neighbour()
    present, short, para, reason = t.take("gift", town.GIFTS)
    memory = t.remember(day, t.hour(), f"{giver.name} gave {t.npc.name} {present} {reason}")
    t.logs["callers"].append(memory)
    t.ask_some(
        [("single", f"Who gave you the {short}?"), ("single", f"Has anyone given you {para}?")],
        [memory],
    )


def find(t: Teller, day: int) -> None:
    thing, short, where = t.take("find", town.FINDS)
    memory = t.remember(day, t.hour(), f"{t.npc.name} found {thing} {where}")
    t.ask_some(
        [
            ("single", "Have you found anything unusual lately?"),
            ("single", f"Where did you come across that {short}?"),
        ],
        [memory],
    )


def wager(t: Teller, day: int) -> None:
    other = t.neighbour()
    won = t.rng.random() < 0.5
    stake = t.rng.randint(2, 20)
    topic = t.take("wager", town.WAGERS)
    text = (
        f"{t.npc.name} {'won' if won else 'lost'} a wager of {stake} pennies with "
        f"{other.name} on {topic}"
    )
    memory = t.remember(day, t.hour(), text)
    t.ask_some(
        [
            ("single", f"Did you win your bet with {other.first}?"),
            ("single", "Have you been gambling lately?"),
        ],
        [memory],
    )


def town_life(t: Teller, day: int) -> None:
    a, b = t.person(), t.person()
    kind = t.take("life", ("wedding", "birth", "death"))
    if kind == "wedding":
        text = f"{a.name} married {b.name} at the chapel of St. Ebba"
        options = [("single", "Who got married recently?"), ("single", f"Who did {a.first} wed?")]
    elif kind == "birth":
        baby = t.take("first", town.FIRST_NAMES)
        text = f"{a.name} and {b.name} had a baby girl and named her {baby}"
        options = [
            ("single", f"What did {a.first} and {b.first} call their daughter?"),
            ("single", "Has anyone had a baby lately?"),
        ]
    else:
        job = t.rng.choice(town.JOBS)
        text = f"Old {a.name}, the {job}, died in the night and was buried at St. Ebba's"
        options = [
            ("single", "Has anyone passed away recently?"),
            ("single", f"What happened to old {a.first}?"),
        ]
    t.ask_some(options, [t.remember(day, t.hour(), text)])


def notice(t: Teller, day: int) -> None:
    rule, question = t.take("notice", town.NOTICES)
    place = t.rng.choice(town.PLACES)
    memory = t.remember(day, t.hour(), f"The town council posted a notice at {place}: {rule}")
    t.ask_some([("single", question), ("single", "Has the council made any new rules?")], [memory])


def aground(t: Teller, day: int) -> None:
    ship = t.ship()
    cargo, _ = t.take("cargo", town.CARGOES)
    sandbar = t.rng.choice(town.SANDBARS)
    memory = t.remember(day, t.hour(), f"{ship}, loaded with {cargo}, ran aground on {sandbar}")
    t.ask_some(
        [("single", "Did a boat get stuck anywhere?"), ("single", f"What happened to {ship}?")],
        [memory],
    )


def fire(t: Teller, day: int) -> None:
    owner, street = t.person(), t.rng.choice(town.STREETS)
    text = (
        f"A chimney fire broke out at {owner.name}'s house on {street}; neighbours put it out "
        "with buckets from the river"
    )
    memory = t.remember(day, t.hour(), text)
    t.ask_some(
        [("single", "Was there a fire in town?"), ("single", f"Whose house burned on {street}?")],
        [memory],
    )


LETTER_NEWS = (
    "the harvest there had failed",
    "the wedding is set for May",
    "the Ostmark road is closed by a landslide",
    "the family bakery burned down and money is short",
    "their grandmother turned ninety",
)


def letter(t: Teller, day: int) -> None:
    cousin, city = t.person(), t.take("city", town.CITIES)
    news = t.take("news", LETTER_NEWS)
    text = f"{t.npc.name} received a letter from a cousin, {cousin.name} of {city}, saying {news}"
    memory = t.remember(day, t.hour(), text)
    t.ask_some(
        [("single", f"Any news from {city}?"), ("single", "What did your cousin write to you?")],
        [memory],
    )


def stranger(t: Teller, day: int) -> None:
    look, para = t.take("look", town.STRANGER_LOOKS)
    place, coin = t.rng.choice(town.PLACES), t.rng.choice(town.COINS)
    text = f"A stranger with {look} asked {t.npc.name} the way to {place} and paid in {coin}"
    memory = t.remember(day, t.hour(), text)
    t.logs["callers"].append(memory)
    t.ask_some(
        [
            ("single", f"Have you seen a man with {para} around?"),
            ("single", f"Who paid you in {coin}?"),
        ],
        [memory],
    )


EVENTS: tuple[tuple[Event, int], ...] = (
    (arrival, 4),
    (sale, 3),
    (purchase, 3),
    (visitor, 3),
    (rumour, 3),
    (injury, 2),
    (town_life, 2),
    (animal, 1),
    (gift, 1),
    (find, 1),
    (wager, 1),
    (notice, 1),
    (aground, 1),
    (fire, 1),
    (letter, 1),
    (stranger, 1),
)


# Stories of several memories -------------------------------------------------------------------


def theft(t: Teller) -> None:
    thing, short = t.take("theft", town.THEFTS)
    thing = thing.format(pos=t.npc.pos)
    day = t.rng.randint(1, 20)
    text = t.expand(
        f"Someone (broke into|got into) {t.npc.workplace} (in the night|while {t.npc.name} was "
        f"out) and (took|made off with) {thing}"
    )
    stolen = t.remember(day, t.hour(), text)
    culprit = t.person()
    where = t.rng.choice(("at the fish market", "in Fennick", "on a barge at the lock"))
    back = t.remember(
        day + t.rng.randint(2, 6),
        t.hour(),
        f"{culprit.name} was caught with the stolen {short} {where}, and {t.npc.name} got it back",
    )
    t.ask("multi", f"Who took your {short}, and did you get it back?", [stolen, back])
    t.ask("multi", "Has anything been stolen from you lately?", [stolen, back])


def lost(t: Teller) -> None:
    thing, short = t.take("lost", town.LOST_THINGS)
    thing = thing.format(pos=t.npc.pos, workplace=t.npc.workplace)
    a, b = t.rng.sample(town.PLACES, 2)
    day = t.rng.randint(1, 22)
    gone = t.remember(day, t.hour(), f"{t.npc.name} lost {thing} somewhere between {a} and {b}")
    finder = t.person()
    text = f"{finder.name} handed back {t.npc.name}'s {short}, found on a bench by {b}"
    found = t.remember(day + t.rng.randint(1, 5), t.hour(), text)
    t.ask("multi", f"Did your {short} ever turn up?", [gone, found])
    t.ask("multi", "Have you lost anything lately?", [gone, found])


def debt(t: Teller) -> None:
    borrower = t.person()
    amount = t.rng.randint(5, 60)
    reason = t.rng.choice(("a new net", "the doctor", "a wedding suit", "seed corn", "rent"))
    day = t.rng.randint(0, 18)
    text = (
        f"{borrower.name} borrowed {amount} pennies from {t.npc.name} for {reason}, promising to "
        "pay it back within the week"
    )
    lent = t.remember(day, t.hour(), text)
    repaid = t.remember(
        day + t.rng.randint(5, 9),
        t.hour(),
        f"{borrower.name} paid {t.npc.name} back the {amount} pennies from the loan",
    )
    t.ask("multi", f"Did {borrower.first} ever pay you back?", [lent, repaid])
    t.ask("multi", "Has anyone owed you money this month?", [lent, repaid])


def regular_ship(t: Teller) -> None:
    """A barge that calls three times, with a different cargo each time."""
    ship, skipper = t.ship(), t.person()
    visits = []
    for third in range(3):
        day = t.rng.randint(10 * third, 10 * third + 9)
        cargo, _ = t.take("cargo", town.CARGOES)
        if third == 0:
            text = f"{ship}, skippered by {skipper.name}, tied up at the east quay with {cargo}"
        else:
            text = t.expand(
                f"{ship} (called|moored) at the east quay again, (carrying|with) {cargo}"
            )
        visits.append(t.remember(day, t.hour(), text, log="arrivals"))
    t.ask("multi", f"How often has {ship} come through this month?", visits)
    t.ask("multi", f"What has {skipper.first}'s barge been bringing in?", visits)


def flood(t: Teller) -> None:
    harm, after = t.npc.flood
    night = t.remember(
        12, 6.5, f"{t.npc.name} woke to find the Tamsel had burst its banks in the night; {harm}"
    )
    day_after = t.remember(13, t.hour(8.0, 10.0), f"{t.npc.name} {after}")
    other = t.neighbour()
    line = t.said(
        12, t.hour(10.0, 18.0), other, t.me, "Have you ever seen the water so high?", True
    )
    t.ask("multi", "What did the flood do to you?", [night, day_after])
    t.ask("multi", "How bad was the flooding for you?", [night, day_after, line])


def festival(t: Teller) -> None:
    did, line = t.npc.festival
    there = t.remember(21, t.hour(19.0, 21.0), f"At the Lantern Float festival {t.npc.name} {did}")
    said = t.said(21, t.hour(21.5, 23.0), t.me, t.neighbour(), line, True)
    t.ask("multi", "What did you do at the Lantern Float?", [there, said])
    t.ask("multi", "How was the river festival for you?", [there, said])


def aggregates(t: Teller) -> None:
    """Questions whose answer is every memory of one sort."""
    for log, question in (
        ("arrivals", "Which boats have come in this month?"),
        ("purchases", "What have you bought yourself lately?"),
        ("sales", "Who's bought things from you this month?"),
        ("visitors", "Who has come round asking questions?"),
        ("injuries", "Has anyone been hurt lately?"),
        ("rumours", "What gossip have you heard lately?"),
    ):
        t.ask("multi", question, t.logs[log])


MULTI_EVENTS: tuple[Callable[[Teller], None], ...] = (
    theft,
    lost,
    debt,
    regular_ship,
    flood,
    festival,
)


# Facts that change: the old fact early in the month, the new one at least 9 days later ------


def change_days(t: Teller) -> tuple[int, int]:
    old = t.rng.randint(0, 9)
    return old, t.rng.randint(old + 9, 28)


def price(t: Teller, ware: town.Ware) -> None:
    old_day, new_day = change_days(t)
    new = ware.price + t.rng.choice((-1, 1)) * max(1, round(ware.price * t.rng.uniform(0.3, 0.6)))
    before = t.remember(
        old_day,
        t.hour(),
        f"{t.npc.name} charges {pennies(ware.price)} for {ware.name}",
        source="author",
        notable=False,
    )
    if new > ware.price:
        reason = t.rng.choice(
            ("the river board's new levy", "dearer tar since the winter", "rising prices")
        )
        text = f"{t.npc.name} put the price of {ware.name} up to {pennies(new)}, blaming {reason}"
    else:
        text = f"{t.npc.name} cut the price of {ware.name} to {pennies(new)} to win back customers"
    after = t.remember(new_day, t.hour(), text)
    t.ask("changed", f"Has the price of {ware.para} changed?", [before, after])
    t.ask(
        "changed", f"What did {ware.short} cost before, and what does it cost now?", [before, after]
    )


def first_price(t: Teller) -> None:
    price(t, t.npc.wares[0])


def second_price(t: Teller) -> None:
    price(t, t.npc.wares[1])


def hours(t: Teller) -> None:
    old_day, new_day = change_days(t)
    early, late = t.rng.sample((5, 6, 7, 8, 9), 2)
    place = t.npc.workplace
    before = t.remember(
        old_day,
        6.0,
        f"{t.npc.name} starts work at {place} at {early} o'clock each morning",
        source="author",
        notable=False,
    )
    reason = t.rng.choice(
        ("the mornings are lighter", "trade is slow early", "of the new lock hours")
    )
    text = (
        f"From now on {t.npc.name} will start work at {place} at {late} o'clock, because {reason}"
    )
    after = t.remember(new_day, t.hour(), text)
    t.ask("changed", "Have your working hours changed?", [before, after])
    t.ask("changed", "What time do you start in the morning these days?", [before, after])


def job(t: Teller) -> None:
    old_day, new_day = change_days(t)
    who = t.person()
    first, second = t.rng.sample(town.JOBS, 2)
    before = t.remember(
        old_day, t.hour(), f"{who.name} works as a {first} in {town.TOWN}", notable=False
    )
    after = t.remember(
        new_day, t.hour(), f"{who.name} gave up being a {first} and now works as a {second}"
    )
    t.ask("changed", f"What does {who.first} do for a living now?", [before, after])
    t.ask("changed", f"Has {who.first} changed jobs?", [before, after])


def friendship(t: Teller) -> None:
    old_day, new_day = change_days(t)
    other = t.neighbour()
    pastime = t.rng.choice(("play draughts", "share a pipe", "walk the towpath"))
    before = t.remember(
        old_day,
        t.hour(18.0, 21.0),
        f"{t.npc.name} and {other.name} get on well and {pastime} together most evenings",
        notable=False,
    )
    quarrel = t.rng.choice(town.QUARRELS).format(pos=t.npc.pos)
    text = f"{t.npc.name} fell out with {other.name} over {quarrel}, and they no longer speak"
    after = t.remember(new_day, t.hour(), text)
    t.ask("changed", f"How are things between you and {other.first}?", [before, after])
    t.ask("changed", f"Are you and {other.first} still friends?", [before, after])


SUPPLIES = {
    "odo": ("tar", "tar for the boat"),
    "wren": ("lamp oil", "stock of oil"),
    "ilse": ("ale", "beer"),
    "faro": ("ink and ledger paper", "writing supplies"),
    "marta": ("coal", "fuel for the forge"),
    "tobin": ("salt for smoking", "salt"),
}


def supplier(t: Teller) -> None:
    old_day, new_day = change_days(t)
    supply, para = SUPPLIES[t.npc.id]
    first, second = t.person(), t.person()
    a, b = t.take("city", town.CITIES), t.take("city", town.CITIES)
    before = t.remember(
        old_day, t.hour(), f"{t.npc.name} buys {supply} from {first.name} of {a}", notable=False
    )
    reason = t.rng.choice(("was cheaper", "delivers by barge", "never waters it down"))
    text = f"{t.npc.name} now buys {supply} from {second.name} of {b} instead, who {reason}"
    after = t.remember(new_day, t.hour(), text)
    t.ask("changed", f"Where do you get your {para} from these days?", [before, after])
    t.ask("changed", "Have you changed who you buy from?", [before, after])


def lodging(t: Teller) -> None:
    old_day, new_day = change_days(t)
    who = t.person()
    place, street = t.rng.choice(town.PLACES[1:]), t.rng.choice(town.STREETS)
    before = t.remember(old_day, t.hour(), f"{who.name} rents a room above {place}", notable=False)
    after = t.remember(
        new_day,
        t.hour(),
        f"{who.name} moved out of the room above {place} and now lives on {street}",
    )
    t.ask("changed", f"Where does {who.first} live now?", [before, after])
    t.ask("changed", f"Has {who.first} moved house?", [before, after])


# The first two for every NPC, three of the others drawn for each.
SERIES: tuple[Callable[[Teller], None], ...] = (
    first_price,
    second_price,
    hours,
    job,
    friendship,
    supplier,
    lodging,
)
