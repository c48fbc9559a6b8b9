"""The report as data (the JSON file), made from a run's record alone.

Every key is a pure function of the game (same model + same seed = same report), except
the wall-clock keys, which all start with "wall": drop those to compare two runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from npc_brain.demo import analysis, days
from npc_brain.demo.attendance import attendance_section
from npc_brain.demo.cast import Cast, Seed
from npc_brain.demo.clock import iso
from npc_brain.demo.judge import Verdict, judge
from npc_brain.demo.memories import MemoryView, conversations
from npc_brain.demo.simulation import Record, Usage, usage_minus, usage_sum
from npc_brain.llm.base import Embedder

DENSITY_DEFINITION = (
    "2|E| / (|V|(|V|-1)) over the agents of the run (the paper's network density). "
    "An edge joins two agents who know each other: each one's memory stream holds, by "
    "then, a memory that names the other (full name) or came from the other, and that is "
    "more than a sighting: a line of a conversation, a reflection, or something an author "
    "wrote (backstory), someone said or someone told."
)
DIFFUSION_DEFINITION = (
    "An agent knows a seed when a memory in its stream contains one of the seed's key "
    "phrases (case-insensitive); `since` is the game time the earliest such memory was "
    "created, and `memory` is that record."
)
INTERVIEW_DEFINITION = (
    "As the paper measured it: at the end every agent is asked the seed's question, and "
    "the same in other words (the seed's `also_asked`), in interview mode (Converse with "
    "interview=true: nothing is stored). It knows the seed when one of its answers states "
    "one of the seed's facts (host, place, date) rightly and none wrongly "
    "(demo/judge.py); a false statement in any answer counts as a false claim. `chain` "
    "is how the seed's claim reached it (WhoKnows: agent "
    "ids, the first holder first), empty when it holds no claim of the seed."
)
HALLUCINATION_DEFINITION = (
    "Of the interview answers that say something about a seed (a fact, right or wrong), "
    "the share that is false: a wrong host, place or date, or knowing the seed without "
    "any record of it (no claim of the seed, nothing of it in its persona, and no memory "
    "mentioning it that someone said, told or wrote to the agent, or that it saw)."
)
RELATIONSHIP_DEFINITION = (
    "Each agent's view of each agent it talked with, rewritten after every conversation "
    "(GetAgent). `density` is the paper's: 2|E| / (|V|(|V|-1)), a pair an edge when each "
    "knows of the other (see network_density), at the start and the end; "
    "`talked_density` counts a pair when each keeps a view of the other."
)


@dataclass(frozen=True)
class RunInfo:
    """How the run was made (the report's `config`); `places`: the town's place names,
    which interview answers are judged by."""

    seed: int
    model: str
    town: str
    planner: str = "composed"
    places: tuple[str, ...] = ()


def build(
    record: Record, cast: Cast, info: RunInfo, embedder: Embedder | None = None
) -> dict[str, Any]:
    """The whole report: `timeline`, `conversations`, `reflections`, `diffusion`,
    `attendance`, `hallucinations`, `network_density`, `relationships`, `days`, `model_calls`, and
    the wall-clock keys. `embedder` judges whether places fit actions and actions meet
    requirements (`days`); without one, words alone do."""
    plan = record.plan
    names = {m.agent_id: m.name for m in cast.members}
    streams = record.streams
    talks = conversations(streams, names)
    awake_hours = round(sum(record.awake_minutes.values()) / 60, 3)
    return {
        "config": {
            "world_id": plan.world_id,
            "town": info.town,
            "start": iso(plan.start),
            "end": iso(plan.end),
            "game_hours": plan.hours,
            "step_minutes": plan.step_minutes,
            "agents": names,
            "seed": info.seed,
            "ablation": plan.ablation,
            "model": info.model,
            "planner": info.planner,
        },
        "timeline": [
            {
                "time": iso(e.game_time),
                "agent": e.agent_id,
                "description": e.description,
                "address": e.address,
                "emoji": e.emoji,
                "duration_minutes": e.duration_minutes,
            }
            for e in record.timeline
        ],
        "conversations": [
            {
                "time": iso(c.created),
                "participants": list(c.participants),
                "lines": [
                    {
                        "speaker": line.speaker_id,
                        "text": line.text,
                        "intent": record.intents.get((line.speaker_id, line.text), ""),
                    }
                    for line in c.lines
                ],
            }
            for c in talks
        ],
        "reflections": reflections_section(streams),
        "diffusion": diffusion_section(record, cast, info.places),
        "attendance": attendance_section(cast, streams, record.steps, talks, plan.step_minutes),
        "hallucinations": hallucinations_section(record, cast, info.places),
        "network_density": network_section(streams, names, plan.start, plan.end),
        "relationships": relationships_section(record, names),
        "days": days.days_section(
            {m.agent_id: days.persona_of(m) for m in cast.members},
            record.steps,
            {a: days.latest_plan(stream) for a, stream in streams.items()},
            embedder,
        ),
        "model_calls": model_calls_section(record.usage, plan.hours, awake_hours),
        "awake_agent_hours": awake_hours,
        "wall_seconds_per_game_hour": round(record.wall[-1][1] / plan.hours, 3),
        "wall_clock": {
            "seconds": round(record.wall[-1][1], 3),
            "per_game_hour": [
                {"until": iso(t), "seconds": round(s - before, 3)}
                for (t, s), (_, before) in zip(record.wall[1:], record.wall, strict=False)
            ],
        },
    }


def reflections_section(streams: Mapping[str, Sequence[MemoryView]]) -> list[dict[str, Any]]:
    """Every reflection, by game time (then in the cast's order)."""
    found = [
        (m.created, i, m, agent_id)
        for i, (agent_id, stream) in enumerate(streams.items())
        for m in stream
        if m.kind == "REFLECTION"
    ]
    found.sort(key=lambda item: (item[0], item[1]))
    return [
        {
            "time": iso(m.created),
            "agent": agent_id,
            "description": m.description,
            "depth": m.depth,
            "evidence_ids": list(m.evidence_ids),
        }
        for _, _, m, agent_id in found
    ]


def _memory(m: MemoryView) -> dict[str, Any]:
    return {
        "id": m.memory_id,
        "kind": m.kind,
        "description": m.description,
        "source": m.source_kind,
        "source_agent": m.source_agent,
    }


def diffusion_section(record: Record, cast: Cast, places: Sequence[str] = ()) -> dict[str, Any]:
    """Per seed, who knows it by its key phrases over time, and by interview."""
    times = [*record.plan.steps(), record.plan.end]
    section: dict[str, Any] = {
        "definition": DIFFUSION_DEFINITION,
        "interview_definition": INTERVIEW_DEFINITION,
        "seeds": {},
    }
    for seed in cast.seeds:
        knowers = analysis.diffusion(seed, record.streams)
        counts = analysis.knowing_over_time(knowers, times)
        section["seeds"][seed.seed_id] = {
            "title": seed.title,
            "holder": seed.holder,
            "key_phrases": list(seed.key_phrases),
            "knowers": [
                {"agent": k.agent_id, "since": iso(k.since), "memory": _memory(k.memory)}
                for k in knowers
            ],
            "count": len(knowers),
            "of": len(cast.members),
            "over_time": [{"time": iso(t), "count": n} for t, n in zip(times, counts, strict=True)],
            "interview": _interview(record, cast, seed, places),
        }
    return section


def _interview(record: Record, cast: Cast, seed: Seed, places: Sequence[str]) -> dict[str, Any]:
    """The seed's interview: each agent's answers with their verdict (it knows when any
    answer does), and the knowers' chains."""
    held = {h.agent_id: h for h in record.holders.get(seed.seed_id, [])}
    by_agent: dict[str, list[tuple[str, str, Verdict]]] = {}
    for agent_id, question, answer, verdict in _verdicts(record, cast, seed, places):
        by_agent.setdefault(agent_id, []).append((question, answer, verdict))
    answers = []
    for agent_id, said in by_agent.items():
        holder = held.get(agent_id)
        answers.append(
            {
                "agent": agent_id,
                "answer": said[0][1],
                "knows": any(v.knows for _, _, v in said),
                "right": list(dict.fromkeys(fact for _, _, v in said for fact in v.right)),
                "wrong": list(dict.fromkeys(fact for _, _, v in said for fact in v.wrong)),
                "also": [{"question": q, "answer": a, "knows": v.knows} for q, a, v in said[1:]],
                "heard_from": holder.heard_from if holder else "",
                "hops": holder.hops if holder else None,
                "confidence": holder.confidence if holder else None,
                "chain": list(holder.chain) if holder else [],
            }
        )
    return {
        "question": seed.question,
        "also_asked": list(seed.also_asked),
        "count": sum(a["knows"] for a in answers),
        "of": len(answers),
        "knowers": [a["agent"] for a in answers if a["knows"]],
        "answers": answers,
    }


def _verdicts(
    record: Record, cast: Cast, seed: Seed, places: Sequence[str]
) -> list[tuple[str, str, str, Verdict]]:
    """Each interviewed agent's answers to the seed's questions, each with its question
    and verdict (the agent's own name is not another host it names; a host says "I")."""
    names = {m.agent_id: m.name for m in cast.members}
    # a checkpoint written before `rephrased` was recorded has none
    rephrased = getattr(record, "rephrased", {}).get(seed.seed_id, {})
    found = []
    for agent_id, answer in record.interviews.get(seed.seed_id, {}).items():
        others = {a: n for a, n in names.items() if a != agent_id}
        questions = seed.questions or ("",)
        asked = zip(questions, [answer, *rephrased.get(agent_id, [])], strict=False)
        for question, said in asked:
            verdict = judge(said, seed, others, places, names.get(agent_id, ""), (), question)
            found.append((agent_id, question, said, verdict))
    return found


def hallucinations_section(
    record: Record, cast: Cast, places: Sequence[str] = ()
) -> dict[str, Any]:
    """False claims among the interview answers that say something about a seed."""
    answers = claiming = 0
    cases = []
    personas = {m.agent_id: f"{m.learned} {m.currently}" for m in cast.members}
    for seed in cast.seeds:
        held = {h.agent_id for h in record.holders.get(seed.seed_id, [])}
        for agent_id, _, answer, verdict in _verdicts(record, cast, seed, places):
            answers += 1
            claiming += verdict.claims
            why = [f"wrong {fact}" for fact in verdict.wrong]
            persona = personas.get(agent_id, "")
            if verdict.knows and not _has_record(record, seed, agent_id, held, persona):
                why.append("no record")
            if why:
                cases.append(
                    {"seed": seed.seed_id, "agent": agent_id, "answer": answer, "why": why}
                )
    return {
        "definition": HALLUCINATION_DEFINITION,
        "answers": answers,
        "claims": claiming,
        "false": len(cases),
        "rate": round(len(cases) / claiming, 4) if claiming else None,
        "cases": cases,
    }


def _has_record(
    record: Record, seed: Seed, agent_id: str, holders: set[str], persona: str = ""
) -> bool:
    """Whether the agent holds the seed: its holder, a holder of its claim, its persona
    (the game wrote it: "supporting Vera's campaign for reeve"), or a memory
    mentioning it that someone said, told or wrote to it, or that it saw ("Ana
    Costa is inviting people to the feast"); not one it inferred itself."""
    if agent_id == seed.holder or agent_id in holders or seed.mentioned_in(persona):
        return True
    return any(
        seed.mentioned_in(m.description)
        and (m.kind in ("DIALOGUE", "OBSERVATION") or m.source_kind in ("HEARD", "TOLD", "AUTHOR"))
        for m in record.streams.get(agent_id, ())
    )


def relationships_section(record: Record, names: Mapping[str, str]) -> dict[str, Any]:
    """Each agent's views of the others, and the network's density (start and end)."""
    streams, plan = record.streams, record.plan
    before, after = (analysis.edges(streams, names, t) for t in (plan.start, plan.end))
    views = {a: {b.other_id for b in bonds} for a, bonds in record.relationships.items()}
    talked = [
        (a, b)
        for i, a in enumerate(names)
        for b in list(names)[i + 1 :]
        if b in views.get(a, set()) and a in views.get(b, set())
    ]
    return {
        "definition": RELATIONSHIP_DEFINITION,
        "density": {
            "start": round(analysis.density(len(before), len(names)), 4),
            "end": round(analysis.density(len(after), len(names)), 4),
        },
        "talked_density": round(analysis.density(len(talked), len(names)), 4),
        "agents": {
            agent_id: [
                {"other": b.other_id, "summary": b.summary, "conversations": b.conversations}
                for b in record.relationships.get(agent_id, [])
            ]
            for agent_id in names
        },
    }


def network_section(
    streams: Mapping[str, Sequence[MemoryView]],
    names: Mapping[str, str],
    start: float,
    end: float,
) -> dict[str, Any]:
    before, after = (analysis.edges(streams, names, t) for t in (start, end))
    return {
        "definition": DENSITY_DEFINITION,
        "start": round(analysis.density(len(before), len(names)), 4),
        "end": round(analysis.density(len(after), len(names)), 4),
        "edges_start": [list(e) for e in before],
        "edges_end": [list(e) for e in after],
    }


def _usage_dict(u: Usage, hours: float = 1.0) -> dict[str, Any]:
    def rate(n: int) -> float:
        return round(n / hours, 3) if hours else 0.0

    return {
        "calls": rate(u.calls),
        "prompt_tokens": rate(u.prompt_tokens),
        "completion_tokens": rate(u.completion_tokens),
        "calls_by_kind": {k: rate(n) for k, n in sorted(u.calls_by_kind.items()) if n},
    }


def model_calls_section(
    snapshots: Sequence[tuple[float, Mapping[str, Usage]]], hours: float, awake_hours: float
) -> dict[str, Any]:
    """Model calls and tokens (GetStats) made during the run: in all (`total` is the
    number of calls; `cached_prompt_tokens` the prompt tokens not evaluated again), per
    agent per game hour and per awake agent-hour, by kind; each
    agent's per game hour; and the whole town's in each game hour."""
    (_, first), (_, last) = snapshots[0], snapshots[-1]
    per_agent = {a: usage_minus(last[a], first[a]) for a in last}
    total = usage_sum(list(per_agent.values()))
    agents = max(len(per_agent), 1)
    return {
        "total": total.calls,
        "prompt_tokens": total.prompt_tokens,
        "completion_tokens": total.completion_tokens,
        "cached_prompt_tokens": total.cached_prompt_tokens,
        "calls_by_kind": {k: n for k, n in sorted(total.calls_by_kind.items()) if n},
        "game_hours": hours,
        "awake_agent_hours": awake_hours,
        "per_agent_per_game_hour": _usage_dict(total, hours * agents),
        "per_awake_agent_hour": _usage_dict(total, awake_hours),
        "agents": {a: _usage_dict(u, hours) for a, u in per_agent.items()},
        "by_game_hour": [
            {"until": iso(t), **_usage_dict(usage_sum([usage_minus(now[a], then[a]) for a in now]))}
            for (t, now), (_, then) in zip(snapshots[1:], snapshots, strict=False)
        ],
    }
