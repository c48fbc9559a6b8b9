"""The report's charts, drawn by matplotlib without a display: who knows each seed over
game time, the relationship network at the end, and where the invited were during each
event's hours. Each is written as PNG (for reading) and SVG (text kept as text), and the
same report draws the same files."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.dates import AutoDateLocator, DateFormatter, date2num
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from matplotlib.typing import RcKeyType

from npc_brain.demo.clock import parse_time

# Distinct at a glance, in colour and in grey: two seeds with equal counts stay visible.
STYLES: tuple[dict[str, Any], ...] = (
    {"color": "#d62728", "linestyle": "-", "linewidth": 2.5},
    {"color": "#1f77b4", "linestyle": "--", "linewidth": 2.0},
    {"color": "#2ca02c", "linestyle": ":", "linewidth": 2.5},
    {"color": "#ff7f0e", "linestyle": "-.", "linewidth": 2.0},
)
STATES = {  # the attendance timeline's colours, by where the agent was
    "there for it": "#2ca02c",
    "there for something else": "#ff7f0e",
    "elsewhere": "#c7c7c7",
    "asleep": "#7f7f7f",
}
RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "svg.hashsalt": "npc-brain", "font.size": 10}


def save(figure: Figure, out: Path, stem: str) -> list[Path]:
    """`stem`.png and `stem`.svg in `out`, without a date in them."""
    paths = [out / f"{stem}.png", out / f"{stem}.svg"]
    with mpl.rc_context(RC):
        figure.savefig(paths[0], dpi=110, metadata={"Software": None})
        figure.savefig(paths[1], metadata={"Date": None, "Creator": None})
    return paths


def diffusion(times: Sequence[float], series: Mapping[str, Sequence[int]], agents: int) -> Figure:
    """For each seed (title -> counts at `times`), how many agents knew it, as steps."""
    figure = Figure(figsize=(8, 4.5), layout="constrained")
    axes = figure.add_subplot()
    moments = [_x(t) for t in times]
    for i, (title, counts) in enumerate(series.items()):
        label = f"{title} ({counts[-1] if counts else 0} of {agents})"
        axes.step(moments, counts, where="post", label=label, **STYLES[i % len(STYLES)])
    axes.set_ylim(0, max(agents, 1) + 0.5)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    _time_axis(axes)
    axes.set_ylabel("agents who know")
    axes.set_title("Agents who know each seed, over game time")
    axes.grid(alpha=0.3)
    if series:
        axes.legend(loc="upper left")
    return figure


def network(names: Mapping[str, str], edges: Sequence[tuple[str, str]]) -> Figure:
    """Agents on a circle, a line between each pair who know each other."""
    figure = Figure(figsize=(8, 8), layout="constrained")
    axes = figure.add_subplot()
    ids = list(names)
    where = {
        agent_id: (
            math.cos(2 * math.pi * i / max(len(ids), 1) + math.pi / 2),
            math.sin(2 * math.pi * i / max(len(ids), 1) + math.pi / 2),
        )
        for i, agent_id in enumerate(ids)
    }
    for a, b in edges:
        (x1, y1), (x2, y2) = where[a], where[b]
        axes.plot([x1, x2], [y1, y2], color="#1f77b4", linewidth=1.2, alpha=0.6)
    for agent_id, (x, y) in where.items():
        axes.plot([x], [y], "o", color="#d62728", markersize=7)
        side = "left" if x > 0.01 else "right" if x < -0.01 else "center"
        axes.annotate(
            names[agent_id], (x, y), xytext=(8 * x, 8 * y), textcoords="offset points",
            ha=side, va="center",
        )  # fmt: skip
    axes.set_xlim(-1.6, 1.6)
    axes.set_ylim(-1.3, 1.3)
    axes.set_aspect("equal")
    axes.axis("off")
    axes.set_title(f"Who knows whom at the end ({len(edges)} pairs)")
    return figure


def attendance(event: Mapping[str, Any], names: Mapping[str, str]) -> Figure:
    """One row per agent who knew of the event: where it was at each step of its hours."""
    rows = [r for r in event["agents"] if r["knew_since"] and r.get("timeline")]
    figure = Figure(figsize=(8, 1.6 + 0.35 * max(len(rows), 1)), layout="constrained")
    axes = figure.add_subplot()
    start, end = _x(parse_time(event["start"])), _x(parse_time(event["end"]))
    for y, row in enumerate(reversed(rows)):
        moments = [_x(parse_time(t)) for t, _ in row["timeline"]]
        for j, (moment, (_, state)) in enumerate(zip(moments, row["timeline"], strict=True)):
            until = moments[j + 1] if j + 1 < len(moments) else end
            axes.barh(y, until - moment, left=moment, color=STATES[state], height=0.7)
    axes.set_yticks(range(len(rows)), [_label(r, names) for r in reversed(rows)])
    axes.set_xlim(start, end)
    _time_axis(axes)
    keys = [Patch(color=colour, label=state) for state, colour in STATES.items()]
    figure.legend(handles=keys, loc="outside lower center", ncols=4, frameon=False)
    came = f"{event['invited_who_came']} of {event['invited']} invited came"
    axes.set_title(f"{event['title']} at {event['place']}: {came}")
    return figure


def _label(row: Mapping[str, Any], names: Mapping[str, str]) -> str:
    name = names.get(row["agent"], row["agent"])
    return f"{name} (said yes)" if row["said_would_come"] else name


def _x(game_time: float) -> float:
    """Game time as matplotlib's date axis places it."""
    return float(date2num(datetime.fromtimestamp(game_time, UTC)))


def _time_axis(axes: Any) -> None:
    axes.xaxis_date()
    locator = AutoDateLocator(maxticks=8)
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(DateFormatter("%a %H:%M"))
    axes.set_xlabel("game time")
