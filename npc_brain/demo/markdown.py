"""The report for people: Markdown, made from the JSON report, linking the pictures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DIFFUSION = "diffusion"  # the charts' file stems (charts.py writes .png and .svg)
NETWORK = "network"


def attendance_chart(seed_id: str) -> str:
    """The stem of a seed's attendance timeline."""
    return f"attendance-{seed_id}"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _time(iso_time: str) -> str:
    return iso_time.replace("T", " ").removesuffix(":00Z")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def render(report: dict[str, Any]) -> str:
    config = report["config"]
    names: dict[str, str] = config["agents"]

    def who(agent_id: str) -> str:
        return names.get(agent_id, agent_id)

    calls = report["model_calls"]
    density = report["network_density"]
    false = report["hallucinations"]
    out = [
        f"# npc-brain demo: {config['town']}, {_time(config['start'])} to {_time(config['end'])}",
        "",
        f"{len(names)} agents for {config['game_hours']:g} game hours in steps of "
        f"{config['step_minutes']} minutes; model `{config['model']}`, seed {config['seed']}, "
        f"ablation `{config['ablation']}`, planner `{config.get('planner', '-')}`.",
        "",
        "## Summary",
        "",
        *_table(
            ["measure", "value"],
            [
                ["conversations", len(report["conversations"])],
                ["reflections written", len(report["reflections"])],
                *[
                    [f"knew of: {s['title']}", f"{s['count']} of {s['of']}"]
                    for s in report["diffusion"]["seeds"].values()
                ],
                *[
                    [
                        f"knew of by interview: {s['title']}",
                        f"{s['interview']['count']} of {s['interview']['of']}",
                    ]
                    for s in report["diffusion"]["seeds"].values()
                ],
                [
                    "false claims (of answers claiming something)",
                    f"{false['false']} of {false['claims']} ({_share(false['rate'])})",
                ],
                *[
                    [
                        f"invited who came: {e['title']}",
                        f"{e['invited_who_came']} of {e['invited']}",
                    ]
                    for e in report.get("attendance", {}).get("events", {}).values()
                ],
                ["network density (start -> end)", f"{density['start']} -> {density['end']}"],
                ["encounters (awake agents in one arena, per step)", report["days"]["encounters"]],
                [
                    "model calls per agent per game hour",
                    calls["per_agent_per_game_hour"]["calls"],
                ],
                ["wall-clock seconds per game hour", report["wall_seconds_per_game_hour"]],
            ],
        ),
        "",
        *_days(report["days"], who),
        "",
        "## Information diffusion",
        "",
        f"![Who knows each seed over game time]({DIFFUSION}.png)",
        "",
        report["diffusion"]["definition"],
        "",
    ]
    for seed in report["diffusion"]["seeds"].values():
        out += [
            f"### {seed['title']} ({seed['count']} of {seed['of']})",
            "",
            f"Started with {who(seed['holder'])}; key phrases: "
            + ", ".join(f"`{p}`" for p in seed["key_phrases"]),
            "",
            *_table(
                ["agent", "knew since", "the record that shows it", "kind", "source"],
                [
                    [
                        who(k["agent"]),
                        _time(k["since"]),
                        k["memory"]["description"],
                        k["memory"]["kind"],
                        k["memory"]["source"]
                        + (
                            f" ({who(k['memory']['source_agent'])})"
                            if k["memory"]["source_agent"]
                            else ""
                        ),
                    ]
                    for k in seed["knowers"]
                ],
            ),
            "",
        ]
    out += _interviews(report, who)
    out += _attendance(report.get("attendance", {}), who)
    out += [
        "## Relationship network",
        "",
        f"![Who knows whom at the end]({NETWORK}.png)",
        "",
        f"Density {density['start']} at the start, {density['end']} at the end. "
        + density["definition"],
        "",
        "Pairs at the end: "
        + (", ".join(f"{who(a)} - {who(b)}" for a, b in density["edges_end"]) or "none"),
        "",
        *_relationships(report["relationships"], who),
        "## Conversations",
        "",
    ]
    for talk in report["conversations"]:
        out.append(
            f"**{_time(talk['time'])}, " + " and ".join(who(p) for p in talk["participants"]) + "**"
        )
        out.append("")
        out += [
            f"- {who(line['speaker'])}{_intent(line.get('intent', ''))}: {_cell(line['text'])}"
            for line in talk["lines"]
        ]
        out.append("")
    if not report["conversations"]:
        out += ["No agents talked.", ""]
    out += ["## Reflections", ""]
    if not report["reflections"]:
        out += ["No reflections were written.", ""]
    else:
        out += _table(
            ["time", "agent", "insight", "depth", "evidence"],
            [
                [
                    _time(r["time"]),
                    who(r["agent"]),
                    r["description"],
                    r["depth"],
                    len(r["evidence_ids"]),
                ]
                for r in report["reflections"]
            ],
        )
    out += ["", *_model_calls(calls, who), "", "## Wall clock", ""]
    out += _table(
        ["game hour until", "seconds"],
        [[_time(h["until"]), h["seconds"]] for h in report["wall_clock"]["per_game_hour"]],
    )
    out += [
        "",
        f"{report['wall_clock']['seconds']} s in all: {report['wall_seconds_per_game_hour']} s "
        "per game hour.",
        "",
        "## Timeline",
        "",
    ]
    out += _table(
        ["time", "agent", "", "action", "where", "minutes"],
        [
            [
                _time(e["time"]),
                who(e["agent"]),
                e["emoji"],
                e["description"],
                e["address"],
                e["duration_minutes"],
            ]
            for e in report["timeline"]
        ],
    )
    return "\n".join(out) + "\n"


def _answers(row: dict[str, Any]) -> str:
    """An agent's answers to a seed's wordings, numbered when there are several."""
    said = [row["answer"], *(also["answer"] for also in row.get("also", []))]
    return said[0] if len(said) == 1 else " ".join(f"({i}) {a}" for i, a in enumerate(said, 1))


def _interviews(report: dict[str, Any], who: Callable[[str], str]) -> list[str]:
    """Each seed's interview: every answer, its verdict and how the claim reached the
    agent; then the false claims."""
    out = ["## Interviews", "", report["diffusion"]["interview_definition"], ""]
    for seed in report["diffusion"]["seeds"].values():
        asked = seed["interview"]
        out += [
            f"### {seed['title']}: {asked['count']} of {asked['of']} know it",
            "",
            "Asked: "
            + " · ".join(f"*{_cell(q)}*" for q in [asked["question"], *asked.get("also_asked", [])])
            if asked["question"]
            else "Asked: *(no question)*",
            "",
            *_table(
                ["agent", "answer", "knows", "right", "wrong", "chain", "confidence"],
                [
                    [
                        who(a["agent"]),
                        _answers(a),
                        "yes" if a["knows"] else "no",
                        ", ".join(a["right"]) or "-",
                        ", ".join(a["wrong"]) or "-",
                        " -> ".join(who(x) for x in a["chain"]) or "-",
                        "-" if a["confidence"] is None else a["confidence"],
                    ]
                    for a in asked["answers"]
                ],
            ),
            "",
        ]
    false = report["hallucinations"]
    out += [
        "## Hallucinations",
        "",
        f"{false['false']} false of {false['claims']} answers claiming something "
        f"({_share(false['rate'])}), {false['answers']} answers in all. " + false["definition"],
        "",
    ]
    out += _table(
        ["seed", "agent", "answer", "why"],
        [[c["seed"], who(c["agent"]), c["answer"], ", ".join(c["why"])] for c in false["cases"]],
    )
    return [*out, ""]


def _attendance(section: dict[str, Any], who: Callable[[str], str]) -> list[str]:
    """Per event: who knew, who said they would come, who came, and why not."""
    events = section.get("events", {})
    if not events:
        return []
    out = ["## Attendance", "", section["definition"], ""]
    for seed_id, event in events.items():
        out += [
            f"### {event['title']}: {event['invited_who_came']} of {event['invited']} invited came",
            "",
            f"![Where the invited were in its hours]({attendance_chart(seed_id)}.png)",
            "",
            f"At `{event['place']}` from {_time(event['start'])} to {_time(event['end'])}; "
            f"{event['said_would_come']} of the invited said they would come, "
            f"{event['came']} came in all.",
            "",
            *_table(
                ["agent", "knew since", "from", "said", "minutes there", "for it", "why not"],
                [
                    [
                        who(r["agent"]),
                        _time(r["knew_since"]) if r["knew_since"] else "-",
                        who(r["heard_from"]) if r["heard_from"] else "-",
                        r["said_would_come"] or "-",
                        f"{r['minutes_at_place']:g}",
                        f"{r['minutes_there_for_it']:g}",
                        r["reason"] or "-",
                    ]
                    for r in event["agents"]
                ],
            ),
            "",
        ]
    return out


def _relationships(section: dict[str, Any], who: Callable[[str], str]) -> list[str]:
    density = section["density"]
    out = [
        "### Relationships",
        "",
        f"Density {density['start']} -> {density['end']}; pairs who keep a view of each "
        f"other: {section['talked_density']}. " + section["definition"],
        "",
    ]
    rows = [
        [who(agent_id), who(b["other"]), b["conversations"], b["summary"]]
        for agent_id, bonds in section["agents"].items()
        for b in bonds
    ]
    if not rows:
        return [*out, "No agent keeps a view of another.", ""]
    return [*out, *_table(["agent", "of", "conversations", "view"], rows), ""]


def _intent(intent: str) -> str:
    return f" *({_cell(intent)})*" if intent else ""


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _days(section: dict[str, Any], who: Any) -> list[str]:
    """Each agent's day: the figures, the plan, the requirements it did not keep."""
    figures: list[tuple[str, str, Callable[[Any], str]]] = [
        ("waking share", "waking_share", _share),
        ("distinct activities", "distinct_activities", str),
        ("requirements met", "requirements_met", _share),
        ("fitting steps", "fitting_steps", _share),
        ("violations", "violations", str),
        ("asleep in waking hours", "asleep_outside_sleep_hours", str),
    ]
    rows = []
    for agent_id, day in section["agents"].items():
        guards = day["violations_by_guard"]
        rows.append(
            [
                who(agent_id),
                f"{day['wake']}-{day['bed']}",
                *[show(day[key]) for _, key, show in figures[:4]],
                f"{day['violations']} ({guards['asleep_in_waking_hours']} / "
                f"{guards['not_an_activity']} / {guards['place_does_not_fit']})",
                day["asleep_outside_sleep_hours"],
            ]
        )
    for label in ("mean", "worst"):
        cells = []
        for _, key, show in figures:
            value = section["summary"][key][label]
            shown = "-" if value is None else show(value) if show is _share else f"{value:g}"
            cells.append(shown)
        rows.append([f"*{label}*", "", *cells])
    judged = section["embedder"] or "no embedder: words alone"
    out = [
        "## Days",
        "",
        section["definition"],
        f"Meaning judged with {judged}.",
        "",
        *_table(
            [
                "agent",
                "waking hours",
                *[label for label, _, _ in figures[:4]],
                "violations (asleep / not an activity / place)",
                figures[5][0],
            ],
            rows,
        ),
        "",
        f"Encounters: {section['encounters']}.",
        "",
    ]
    for agent_id, day in section["agents"].items():
        missed = [r for r in day["requirements"] if r not in day["requirements_kept"]]
        line = f"- **{_cell(who(agent_id))}**: {_cell(day['plan'] or 'no plan for the day')}"
        if missed:
            line += " Not done: " + "; ".join(_cell(r) for r in missed) + "."
        out.append(line)
    return out


def _kinds(usage: dict[str, Any]) -> str:
    return ", ".join(f"{k} {n:g}" for k, n in usage["calls_by_kind"].items()) or "-"


def _reused(calls: dict[str, Any]) -> str:
    """The share of prompt tokens not evaluated again ('64%'; '-' in older reports)."""
    cached, prompt = calls.get("cached_prompt_tokens"), calls["prompt_tokens"]
    return f"{100 * cached / prompt:.0f}%" if isinstance(cached, int) and prompt else "-"


def _model_calls(calls: dict[str, Any], who: Any) -> list[str]:
    header = ["", "calls", "prompt tokens", "completion tokens", "calls by kind"]

    def row(label: str, u: dict[str, Any]) -> list[object]:
        return [label, u["calls"], u["prompt_tokens"], u["completion_tokens"], _kinds(u)]

    return [
        "## Model calls",
        "",
        f"{calls['total']} model calls in all ({calls['prompt_tokens']} prompt and "
        f"{calls['completion_tokens']} completion tokens; {_reused(calls)} of the prompt "
        "tokens not evaluated again); below, per game hour, from the server's GetStats "
        "(calls and tokens made during the run). An agent is awake at a step when its "
        "action is not sleep.",
        "",
        *_table(
            header,
            [
                row("average agent", calls["per_agent_per_game_hour"]),
                row(
                    f"per awake agent-hour ({calls['awake_agent_hours']:g} awake agent-hours)",
                    calls["per_awake_agent_hour"],
                ),
                *[row(who(a), u) for a, u in calls["agents"].items()],
            ],
        ),
        "",
        "The whole town, game hour by game hour:",
        "",
        *_table(
            ["game hour until", *header[1:]],
            [
                row(h["until"].replace("T", " ").removesuffix(":00Z"), h)
                for h in calls["by_game_hour"]
            ],
        ),
    ]
