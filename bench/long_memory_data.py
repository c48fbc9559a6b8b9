"""Generates the long-memory bench data (bench/data/long_memory): a month of memories of six
NPCs of Coldwater Reach, a river-trade town, and the questions a player asks them after it.

    python -m bench.long_memory_data [--out DIR]

Deterministic (one `random.Random(SEED)`). Every NPC remembers 30 game days: mostly
routine (chores, the town going by, small talk, a morning plan), and among it one-off
events with names, numbers and rare words, facts that change, and themes it keeps coming
back to, with reflections on them. Each question lists the memories that answer it.
The world's words are in bench/long_memory_town.py; bench/long_memory.py measures
retrieval on the data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from bench import long_memory_town as town
from bench.long_memory_events import (
    EVENTS,
    MULTI_EVENTS,
    SERIES,
    Memory,
    Question,
    Teller,
    Who,
    Window,
    aggregates,
    inside,
    ordinal,
)
from bench.long_memory_town import Npc

START = dt.datetime(2031, 3, 1, 6, 0, tzinfo=dt.UTC)  # day 0, when the first memory may be
DAYS = 30  # days 0..29 (1 to 30 March 2031)
ASK_DAY = DAYS  # every question is asked on 31 March, after the last memory
SEED = 37
TEST_SHARE = 1 / 3
OUT = Path(__file__).resolve().parent / "data" / "long_memory"
CATEGORIES = ("single", "multi", "when", "changed", "open")
PARTS = {"morning": (6.0, 12.0), "afternoon": (12.0, 18.0), "evening": (18.0, 24.0)}


def game_time(day: int, hour: float) -> float:
    """Seconds since 1970 (UTC) of `hour` o'clock on day `day` (day 0: 1 March 2031)."""
    midnight = START.replace(hour=0, minute=0)
    return (midnight + dt.timedelta(days=day, hours=hour)).timestamp()


def date_of(day: int) -> dt.date:
    return START.date() + dt.timedelta(days=day)


# Routine ------------------------------------------------------------------------------


def routine_day(t: Teller, day: int) -> None:
    """A day of mundane memories: the morning plan, chores, the town going by, small talk."""
    seen = {m.text for m in t.memories}

    def fresh(make: Callable[[], str]) -> str:
        """A text the NPC has no memory of yet (after 20 tries, any)."""
        for _try in range(20):
            text = make()
            if text not in seen:
                break
        seen.add(text)
        return text

    def chore() -> str:
        tail = t.rng.choice(town.TAILS) if t.rng.random() < 0.5 else ""
        return t.expand(t.rng.choice(t.npc.chores)) + tail

    def sight() -> str:
        return t.expand(t.rng.choice(town.TOWN_ROUTINE))

    def said_to(lines: Sequence[str], listener: Who) -> str:
        return t.expand(t.rng.choice(lines), o=listener.first)

    def plan() -> str:
        a, b, c = t.rng.sample(t.npc.activities, 3)
        return (
            f"{t.npc.name} plans to {a} in the morning, {b} in the afternoon and {c} in the evening"
        )

    t.remember(day, t.hour(6.0, 6.75), fresh(plan), kind="plan", notable=False)

    for _ in range(t.rng.randint(13, 19)):
        t.remember(
            day, t.hour(6.75, 22.0), fresh(chore if t.rng.random() < 0.6 else sight), notable=False
        )
    for _ in range(t.rng.randint(1, 2)):
        other = t.neighbour()
        first, second = (t.me, other) if t.rng.random() < 0.5 else (other, t.me)
        hour = t.hour(8.0, 21.0)
        t.said(day, hour, first, second, fresh(partial(said_to, town.SMALL_TALK, second)))
        reply = fresh(partial(said_to, town.REPLIES, first))
        t.said(day, hour + 1 / 60, second, first, reply)


def themes(t: Teller) -> None:
    """Each theme recurs once a week, in different words, with two reflections on it; the
    open questions: two per theme, and two about what matters to the NPC at all."""
    reflections = []
    for theme in t.npc.themes:
        found: list[Memory] = []
        for week in range(4):
            day = t.rng.randint(7 * week, 7 * week + 6)
            template = theme.memories[week % len(theme.memories)]
            text = t.expand(template)
            for _try in range(20):
                if all(m.text != text for m in found):
                    break
                text = t.expand(template)
            else:
                text += " again"
            found.append(t.remember(day, t.hour(), text, notable=False))
        for half, text in enumerate(theme.reflections):
            day = t.rng.randint(8 + 10 * half, 17 + 11 * half)
            reflected = t.remember(day, t.hour(20.0, 22.0), text, kind="reflection", notable=False)
            found.append(reflected)
            reflections.append(reflected)
        for question in theme.questions:
            t.ask("open", question, found)
    for question in t.rng.sample(GENERAL_OPEN, 2):
        t.ask("open", question, reflections)


GENERAL_OPEN = (
    "What matters most to you?",
    "What's been on your mind lately?",
    "What do you care about?",
    "What keeps you up at night?",
)


# Questions anchored in time ----------------------------------------------------------------


def when_questions(t: Teller) -> None:
    """Questions about a window of time, asked on ASK_DAY: what the NPC did in a part of a
    day, what happened on a day, who came by, what a neighbour said."""
    rng = t.rng

    def window(day: int, part: str) -> Window:
        low, high = PARTS[part]
        return (day, low, day + 1, 0.0) if high == 24.0 else (day, low, day, high)

    def in_window(w: Window, notable: bool = False) -> list[Memory]:
        return [m for m in t.memories if inside(m, w) and (m.notable or not notable)]

    asks: list[tuple[str, Window, bool]] = []
    for part in rng.sample(list(PARTS), 2):
        verb = rng.choice(("What did you do", "What were you up to", "How did you spend"))
        asks.append((f"{verb} yesterday {part}?", window(ASK_DAY - 1, part), False))
    part = rng.choice(list(PARTS))
    asks.append((f"What were you doing the {part} before last?", window(ASK_DAY - 2, part), False))
    for day in rng.sample(range(ASK_DAY - 7, ASK_DAY - 2), 2):
        part, weekday = rng.choice(list(PARTS)), date_of(day).strftime("%A")
        asks.append((f"What were you doing last {weekday} {part}?", window(day, part), False))
    for day in rng.sample(range(0, ASK_DAY - 8), 2):
        part, n = rng.choice(list(PARTS)), date_of(day).day
        text = rng.choice(
            (f"on the {part} of March {ordinal(n)}", f"on the {ordinal(n)} in the {part}")
        )
        asks.append((f"What did you get up to {text}?", window(day, part), False))
    asks.append(("What were you doing the morning of the flood?", window(12, "morning"), False))
    asks.append(
        ("What did you get up to the night of the Lantern Float?", window(21, "evening"), False)
    )
    event_days = sorted({m.day for m in t.memories if m.notable} - {12, 21})
    for day in rng.sample(event_days, 5):
        ago = ASK_DAY - day
        if ago in (7, 14, 21):
            anchor = {
                7: "a week ago today",
                14: "two weeks ago today",
                21: "three weeks ago today",
            }[ago]
        elif ago == 1:
            anchor = "yesterday"
        else:
            anchor = rng.choice(
                (f"on the {ordinal(date_of(day).day)}", f"on March {ordinal(date_of(day).day)}")
            )
        text = rng.choice((f"What happened {anchor}?", f"Did anything happen {anchor}?"))
        asks.append((text, (day, 0.0, day + 1, 0.0), True))
    for memory in t.logs["callers"]:
        if ASK_DAY - 7 <= memory.day <= ASK_DAY - 2:
            weekday = date_of(memory.day).strftime("%A")
            text = rng.choice(
                (f"Who came to see you last {weekday}?", f"Did anyone call on you last {weekday}?")
            )
            asks.append((text, (memory.day, 0.0, memory.day + 1, 0.0), True))
    talked = [(d, o) for (d, o) in t.talks if ASK_DAY - 7 <= d <= ASK_DAY - 2 and o]
    for day, other in rng.sample(talked, min(2, len(talked))):
        name = next(n.first for n in t.others if n.id == other)
        weekday = date_of(day).strftime("%A")
        t.ask(
            "when",
            f"What did {name} say to you on {weekday}?",
            t.talks[(day, other)],
            (day, 0.0, day + 1, 0.0),
        )
    for text, w, notable in asks:
        evidence = in_window(w, notable)
        if notable:  # who came by: the callers of that day, not everything notable
            callers = [m for m in t.logs["callers"] if inside(m, w)]
            evidence = callers if text.startswith(("Who came", "Did anyone call")) else evidence
        t.ask("when", text, evidence, w)


# The month ------------------------------------------------------------------------------------


def month(npc: Npc, rng: random.Random) -> Teller:
    t = Teller(npc, rng, town.NPCS)
    for day in range(DAYS):
        routine_day(t, day)
    events = [e for e, count in EVENTS for _ in range(count)]
    rng.shuffle(events)
    for i, event in enumerate(events):
        event(t, min(DAYS - 1, int((i + rng.random()) * DAYS / len(events))))
    for multi in MULTI_EVENTS:
        multi(t)
    aggregates(t)
    for series in (*SERIES[:2], *rng.sample(SERIES[2:], 3)):
        series(t)
    themes(t)
    t.memories.sort(key=lambda m: (m.day, m.hour))
    per_day: Counter[int] = Counter()
    for m in t.memories:
        per_day[m.day] += 1
        m.id = f"{npc.id}-{m.day:02d}-{per_day[m.day]:02d}"
    when_questions(t)
    return t


def generate(seed: int = SEED) -> tuple[list[Memory], list[Question]]:
    rng = random.Random(seed)
    memories: list[Memory] = []
    questions: list[Question] = []
    for npc in town.NPCS:
        t = month(npc, rng)
        memories += t.memories
        for i, q in enumerate(t.questions):
            q.id = f"{npc.id}-q{i:03d}"
            q.ask_hour = rng.choice([h / 2 for h in range(18, 41)])
        questions += t.questions
    split(questions, random.Random(seed + 1))
    return memories, questions


def split(questions: Sequence[Question], rng: random.Random) -> None:
    """About a third of each category to "test", the rest to "train"."""
    for category in CATEGORIES:
        those = [q for q in questions if q.category == category]
        for q in rng.sample(those, round(TEST_SHARE * len(those))):
            q.split = "test"


def readme(memories: Sequence[Memory], questions: Sequence[Question]) -> str:
    kinds = Counter(m.kind for m in memories)
    per_day = Counter((m.npc, m.day) for m in memories).values()
    table = ["| category | train | test | all |", "|---|---|---|---|"]
    for c in CATEGORIES:
        n = Counter(q.split for q in questions if q.category == c)
        table.append(f"| {c} | {n['train']} | {n['test']} | {n['train'] + n['test']} |")
    n = Counter(q.split for q in questions)
    table.append(f"| all | {n['train']} | {n['test']} | {len(questions)} |")
    return README.format(
        memories=len(memories),
        npcs="\n".join(f"- `{n.id}`: {n.name}, at {n.workplace}" for n in town.NPCS),
        kinds=", ".join(
            f"{k} {kinds[k]}" for k in ("observation", "dialogue", "plan", "reflection")
        ),
        table="\n".join(table),
        low=min(per_day),
        high=max(per_day),
        start=START.strftime("%Y-%m-%dT%H:%M"),
        seed=SEED,
    )


README = """# Long-memory bench data (issue 37)

A month of memories of six NPCs of Coldwater Reach, a river-trade town on the Tamsel (not
the shipped demo town), and the questions a player asks them the day after. It measures
whether retrieval finds the right memories in a long history where most memories are
routine: `python -m bench.long_memory` (the bench section "long-memory").

**Generated by code, before retrieval was tuned:** `python -m bench.long_memory_data`
(bench/long_memory_data.py, the world's words in bench/long_memory_town.py and
bench/long_memory_events.py; `random.Random({seed})`, so the same files every run). Change
the generator, not the files. No rule, weight or threshold of the retrieval code may be
written from the `test` split: tune on `train`, measure on `test`.

## `memories.jsonl`

{memories} memories of six NPCs over days 0 to 29, {low} to {high} a day each ({kinds}):

{npcs}

One JSON object a line: `id` (`odo-12-07`: the NPC, the day, the memory's number that
day), `npc`, `day`, `hour` (of the day, 6.0 to 24.0), `kind` (observation, dialogue, plan,
reflection), `text` (third person with full names, dialogue as `Name said to Name: "..."`,
as the server stores it), `source` (seen, heard, told, author) and `from` (the NPC who said
or told it, else empty).

Day 0 is 1 March 2031 (a Saturday); the game starts at {start} UTC (`START`), and a
memory's game time is midnight of its day plus `hour` hours (`game_time`, both in
bench/long_memory_data.py).
Most memories are routine: the morning plan, 13 to 19 chores and sights a day in varied
words, small talk. Among them: one-off events with names, numbers and rare words (a trader
on the Gilded Eel, a sale for 37 pennies, a theft and its recovery, a loan and its
repayment), the town's flood (day 12) and its Lantern Float festival (day 21), facts that
change (a price, working hours, a neighbour's job, a friendship), and three themes per NPC
that recur weekly with two reflections each. Events are spread evenly over the month:
recent memories are as mundane as old ones.

## `questions.jsonl`

One JSON object a line: `id`, `npc`, `question` (what a player says to the NPC, mostly not
in the memory's words), `category`, `evidence` (ids of the NPC's memories that answer it:
all of them), `ask_day` (30, 31 March, the day after the last memory), `ask_hour`,
`split` (train or test: a third of each category, drawn by the seed), and for `when`
questions `window` (`after_day`, `after_hour`, `before_day`, `before_hour`: the evidence
lies at or after the first and before the second).

- `single`: one fact ("How much did Petra pay for the sextant?").
- `multi`: several memories, all in the evidence ("Did your pocket watch ever turn up?").
- `when`: anchored in time ("What did you do yesterday afternoon?", "Who came to see you
  last Tuesday?", "What happened on March 9th?"); the evidence is what lies in the window
  (for "what happened", the events; for "who came", the visitors).
- `changed`: the old and the new fact ("Has the price of a ride across the river changed?").
- `open`: the NPC's themes and reflections ("What matters most to you?").

{table}
"""


def write(out: Path, seed: int = SEED) -> None:
    memories, questions = generate(seed)
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "memories": [m.row() for m in memories],
        "questions": [q.row(ASK_DAY) for q in questions],
    }
    for name, rows in tables.items():
        lines = [json.dumps(row, ensure_ascii=False) for row in rows]
        (out / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "README.md").write_text(readme(memories, questions), encoding="utf-8")
    print(f"{len(memories)} memories, {len(questions)} questions in {out}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_memory_data", description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    write(parser.parse_args(argv).out)


if __name__ == "__main__":
    main()
