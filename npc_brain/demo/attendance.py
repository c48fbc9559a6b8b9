"""Who came to a seed's event (the report's `attendance`), as the paper counted the
invited who came: who knew of it, from whom and when; who said they would come; who was
at its place in its hours, and there for it (an action that names it, or a talk there
in the hour its plan gave the event), not for something else; and for each who knew and
did not come, the reason from its own record: asleep, at the place for something else,
planned it but was elsewhere, another commitment (its plan for the day at that hour),
or forgot."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from npc_brain.demo import analysis
from npc_brain.demo.cast import Cast, Seed
from npc_brain.demo.clock import iso
from npc_brain.demo.days import Step, is_asleep
from npc_brain.demo.memories import Conversation, MemoryView

DEFINITION = (
    "An agent knew of the event when a memory of its stream mentions the seed (its key "
    "phrases), from `heard_from` (the memory's source). It said it would come when a line "
    "it said in a conversation mentions the seed, or answers a line that does, and says it "
    "will come (I'll / I will / I'd love to / count me in, with come, be there, join, "
    "attend or make it). It came when, at some step in the event's hours, it was at the "
    "event's place doing something that names the seed (or talking there in the hour its "
    "plan gave the event); `minutes_at_place` counts every "
    "step there. For each who knew and did not come, `reason`: asleep at the start, at the "
    "place for something else, planned it but was elsewhere, another commitment (the "
    "thought in which it gave the event up for another, or its plan for that day at that "
    "hour), or forgot (no plan for that day); one who never heard of it: never heard. "
    "`timeline`: where it was at each step of the event's hours (there for it, there for "
    "something else, elsewhere, asleep)."
)
_ACCEPTS = re.compile(
    r"\b(?:i'll|i will|i'd love to|i would love to|count me in|wouldn't miss|see you there)\b",
    re.IGNORECASE,
)
_ATTENDS = re.compile(r"\b(?:come|coming|be there|join|attend|make it|miss it|see you there)\b")
_PLAN_ITEM = re.compile(r"(?:^|;\s*)(\d{1,2}):(\d{2}) ([^;]+)")


def attendance_section(
    cast: Cast,
    streams: Mapping[str, Sequence[MemoryView]],
    steps: Sequence[Step],
    talks: Sequence[Conversation],
    step_minutes: float,
) -> dict[str, Any]:
    """Per seed with an event, every agent of the run: knew, said, came, reason; each
    of `steps` stands for `step_minutes` of game time."""
    events = {}
    for seed in cast.seeds:
        if seed.event is None:
            continue
        knowers = {k.agent_id: k for k in analysis.diffusion(seed, streams)}
        rows = [
            _row(seed, m.agent_id, knowers, streams, steps, talks, step_minutes)
            for m in cast.members
        ]
        invited = [r for r in rows if r["knew_since"] and r["agent"] != seed.holder]
        events[seed.seed_id] = {
            "title": seed.title,
            "place": seed.event.place,
            "start": iso(seed.event.start),
            "end": iso(seed.event.end),
            "agents": rows,
            "invited": len(invited),
            "said_would_come": sum(1 for r in invited if r["said_would_come"]),
            "came": sum(1 for r in rows if r["came"]),
            "invited_who_came": sum(1 for r in invited if r["came"]),
        }
    return {"definition": DEFINITION, "events": events}


def _row(
    seed: Seed,
    agent_id: str,
    knowers: Mapping[str, analysis.Knower],
    streams: Mapping[str, Sequence[MemoryView]],
    steps: Sequence[Step],
    talks: Sequence[Conversation],
    minutes: float,
) -> dict[str, Any]:
    event = seed.event
    assert event is not None
    during = [s for s in steps if s.agent_id == agent_id and event.start <= s.game_time < event.end]
    stream = streams.get(agent_id, ())
    states = [_state(s, event.place, seed, _planned_at(stream, s.game_time)) for s in during]
    there = [s for s, state in zip(during, states, strict=True) if state.startswith(THERE)]
    for_it = [s for s, state in zip(during, states, strict=True) if state == FOR_IT]
    knower = knowers.get(agent_id)
    row: dict[str, Any] = {
        "agent": agent_id,
        "knew_since": iso(knower.since) if knower else "",
        "heard_from": knower.memory.source_agent if knower else "",
        "said_would_come": _said_would_come(seed, agent_id, talks),
        "minutes_at_place": len(there) * minutes,
        "minutes_there_for_it": len(for_it) * minutes,
        "came": bool(for_it),
        "reason": "",
        "timeline": [[iso(s.game_time), state] for s, state in zip(during, states, strict=True)],
    }
    if not for_it:
        row["reason"] = _reason(seed, knower is not None, during, there, stream)
    return row


THERE = "there"  # the states of a step of the event's hours (the timeline)
FOR_IT = f"{THERE} for it"


def _state(step: Step, place: str, seed: Seed, planned: str) -> str:
    """Where the agent was at one step of the event's hours: at the place for the event
    (an action that names it, or a talk there in the hour its plan gave the event) or
    for something else; elsewhere, or asleep."""
    if not step.address.startswith(place):
        return "asleep" if is_asleep(step.description) else "elsewhere"
    talking = step.description.startswith(("talking with", "waiting for"))
    if seed.mentioned_in(step.description) or talking and seed.mentioned_in(planned):
        return FOR_IT
    return f"{THERE} for something else"


def _reason(
    seed: Seed,
    knew: bool,
    during: Sequence[Step],
    there: Sequence[Step],
    stream: Sequence[MemoryView],
) -> str:
    event = seed.event
    assert event is not None
    if not knew:
        return "never heard"
    if during and is_asleep(during[0].description):
        return "asleep"
    if there:
        return f"at the place for something else: {there[0].description}"
    declined = [m for m in stream if m.kind == "THOUGHT" and seed.mentioned_in(m.description)]
    if gave_up := [m for m in declined if "can't" in m.description and m.created <= event.end]:
        return f"another commitment: {gave_up[-1].description}"
    commitment = _planned_at(stream, event.start)
    if commitment and seed.mentioned_in(commitment):
        doing = during[0].description if during else "not stepped"
        return f"planned it, but was elsewhere: {doing}"
    return f"another commitment: {commitment}" if commitment else "forgot"


def _planned_at(stream: Sequence[MemoryView], moment: float) -> str:
    """What the agent's plan for the day of `moment`, made that day before it, holds at
    that hour ("" when it made none)."""
    day = datetime.fromtimestamp(moment, UTC).replace(hour=0, minute=0, second=0).timestamp()
    plans = [
        m
        for m in stream
        if m.kind == "PLAN" and "plan for the day" in m.description and day <= m.created < moment
    ]
    if not plans:
        return ""
    plan = max(plans, key=lambda m: m.created).description
    hour = datetime.fromtimestamp(moment, UTC).hour
    items = [(int(h), what.strip()) for h, _, what in _PLAN_ITEM.findall(plan)]
    before = [what for h, what in items if h <= hour]
    return before[-1] if before else ""


def _said_would_come(seed: Seed, agent_id: str, talks: Sequence[Conversation]) -> str:
    """The first line the agent said that accepts the seed's event ("" if none): one
    that mentions the seed, or answers a line that does, and says it will come."""
    for talk in talks:
        for before, line in zip([None, *talk.lines], talk.lines, strict=False):
            if line.speaker_id != agent_id:
                continue
            about = seed.mentioned_in(line.text) or (
                before is not None and seed.mentioned_in(before.text)
            )
            if about and _ACCEPTS.search(line.text) and _ATTENDS.search(line.text.lower()):
                return line.text
    return ""
