"""The report's pictures, written as SVG by hand: who knows each seed over game time,
and the relationship network at the end."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape

from npc_brain.demo.clock import clock

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")
FONT = 'font-family="sans-serif" font-size="12"'


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">',
            f"<title>{escape(title)}</title>",
            f'<rect width="{width}" height="{height}" fill="white"/>',
            *body,
            "</svg>",
            "",
        ]
    )


def diffusion_chart(
    times: Sequence[float], series: Mapping[str, Sequence[int]], agent_count: int
) -> str:
    """A step chart: for each seed (title -> counts at `times`), how many agents knew."""
    width, height, left, right, top, bottom = 640, 360, 50, 20, 30, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    first, last = (times[0], times[-1]) if times else (0.0, 1.0)
    span = (last - first) or 1.0
    top_count = max(agent_count, 1)

    def x(t: float) -> float:
        return left + (t - first) / span * plot_w

    def y(count: int) -> float:
        return top + plot_h - count / top_count * plot_h

    body = [
        f'<text x="{width / 2}" y="18" text-anchor="middle" {FONT}>'
        "Agents who know each seed, over game time</text>",
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>',
    ]
    for count in sorted({0, top_count // 2, top_count}):
        body.append(
            f'<text x="{left - 6}" y="{y(count) + 4:.1f}" text-anchor="end" {FONT}>{count}</text>'
        )
    for t, anchor in ((first, "start"), (last, "end")):
        body.append(
            f'<text x="{x(t):.1f}" y="{top + plot_h + 16}" text-anchor="{anchor}" {FONT}>'
            f"{escape(clock(t))}</text>"
        )
    body.append(
        f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" {FONT} '
        f'transform="rotate(-90 14 {top + plot_h / 2})">agents who know</text>'
    )
    for i, (title, counts) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        points: list[str] = []
        for j, (t, count) in enumerate(zip(times, counts, strict=True)):
            if j:
                points.append(f"{x(t):.1f},{y(counts[j - 1]):.1f}")  # the step
            points.append(f"{x(t):.1f},{y(count):.1f}")
        body.append(
            f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" '
            'stroke-width="2"/>'
        )
        legend_y = top + plot_h + 34 + 16 * i
        body.append(
            f'<rect x="{left}" y="{legend_y - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{left + 16}" y="{legend_y}" {FONT}>{escape(title)} '
            f"({counts[-1] if counts else 0} of {agent_count})</text>"
        )
    return _svg(width, height + 16 * max(0, len(series) - 1), body, "Information diffusion")


def network_picture(names: Mapping[str, str], edges: Sequence[tuple[str, str]]) -> str:
    """Agents on a circle, a line between each pair who know each other."""
    width, height, radius = 760, 560, 200
    centre, middle = width / 2, height / 2
    ids = list(names)
    where: dict[str, tuple[float, float]] = {}
    for i, agent_id in enumerate(ids):
        angle = 2 * math.pi * i / max(len(ids), 1) - math.pi / 2
        where[agent_id] = (centre + radius * math.cos(angle), middle + radius * math.sin(angle))
    body = [
        f'<text x="{centre}" y="18" text-anchor="middle" {FONT}>'
        f"Who knows whom at the end ({len(edges)} pairs)</text>"
    ]
    for a, b in edges:
        (x1, y1), (x2, y2) = where[a], where[b]
        body.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            'stroke="#1f77b4" stroke-width="1.5"/>'
        )
    for agent_id in ids:
        px, py = where[agent_id]
        anchor = "start" if px > centre + 1 else "end" if px < centre - 1 else "middle"
        dx = 8 if anchor == "start" else -8 if anchor == "end" else 0
        dy = -8 if py < middle and anchor == "middle" else 16 if anchor == "middle" else 4
        body.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" fill="#d62728"/>')
        body.append(
            f'<text x="{px + dx:.1f}" y="{py + dy:.1f}" text-anchor="{anchor}" {FONT}>'
            f"{escape(names[agent_id])}</text>"
        )
    return _svg(width, height, body, "Relationship network")
