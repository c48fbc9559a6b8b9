"""Writes the report's files into the output folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from npc_brain.demo import charts, markdown
from npc_brain.demo.clock import parse_time

REPORT_JSON = "report.json"
REPORT_MD = "report.md"


def write_report(out: Path, report: dict[str, Any]) -> Path:
    """report.json, report.md and the charts (charts.py); returns the Markdown's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / REPORT_JSON).write_text(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    seeds = report["diffusion"]["seeds"]
    first = next(iter(seeds.values()), None)
    times = [parse_time(p["time"]) for p in first["over_time"]] if first else []
    series = {s["title"]: [p["count"] for p in s["over_time"]] for s in seeds.values()}
    agents = report["config"]["agents"]
    charts.save(charts.diffusion(times, series, len(agents)), out, markdown.DIFFUSION)
    edges = [(a, b) for a, b in report["network_density"]["edges_end"]]
    charts.save(charts.network(agents, edges), out, markdown.NETWORK)
    for seed_id, event in report.get("attendance", {}).get("events", {}).items():
        charts.save(charts.attendance(event, agents), out, markdown.attendance_chart(seed_id))
    path = out / REPORT_MD
    path.write_text(markdown.render(report), encoding="utf-8")
    return path


def read_report(out: Path) -> dict[str, Any]:
    """The JSON report a run left in `out`."""
    loaded: dict[str, Any] = json.loads((out / REPORT_JSON).read_text(encoding="utf-8"))
    return loaded
