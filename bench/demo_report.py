"""Model calls and tokens per agent per awake game hour, from a demo town's report.

`npc-brain demo` writes a JSON report (its out directory); this reads its `model_calls`
section: `total` calls, `prompt_tokens`, `completion_tokens` and `awake_agent_hours`
(npc_brain/demo/report.py). Flat reports work too: top-level `model_calls` (a number),
`awake_agent_hours` (or `agents` x `game_hours`) and optional token totals.

The baseline is the authors' code: ~54 model calls per agent per game hour (issue 8;
reported by its users), cited, not measured here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import Row

AUTHORS_CALLS_PER_AGENT_HOUR = 54.0


class ReportError(ValueError):
    """The report lacks a field this needs (the message names it)."""


@dataclass(frozen=True)
class Rates:
    """Per agent-hour: model calls, prompt and generated tokens (None when not reported)."""

    per: str  # "awake agent-hour" or "agent per game hour"
    calls: float
    prompt_tokens: float | None
    completion_tokens: float | None


def _number(section: dict[str, Any], key: str) -> float:
    value = section.get(key)
    if isinstance(value, dict):
        value = value.get("total", value.get("calls"))
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ReportError(f"{key}: expected a number")
    return float(value)


def _optional(section: dict[str, Any], key: str) -> float | None:
    return _number(section, key) if key in section else None


def rates(report: dict[str, Any]) -> Rates:
    """The demo's own per awake agent-hour figures, else its per agent per game hour ones,
    else totals divided by awake agent-hours (or agents x game hours)."""
    section = report.get("model_calls")
    if isinstance(section, dict):
        for key, per in (
            ("per_awake_agent_hour", "awake agent-hour"),
            ("per_agent_per_game_hour", "agent per game hour"),
        ):
            if isinstance(section.get(key), dict):
                r = section[key]
                tokens = (_optional(r, "prompt_tokens"), _optional(r, "completion_tokens"))
                return Rates(per, _number(r, "calls"), *tokens)
        raise ReportError("model_calls: expected per_awake_agent_hour or per_agent_per_game_hour")
    if "awake_agent_hours" in report:
        hours = _number(report, "awake_agent_hours")
    else:
        hours = _number(report, "agents") * _number(report, "game_hours")
    if hours <= 0:
        raise ReportError("awake_agent_hours: must be positive")
    tokens = [_optional(report, k) for k in ("prompt_tokens", "completion_tokens")]
    return Rates(
        "awake agent-hour",
        _number(report, "model_calls") / hours,
        *(None if t is None else t / hours for t in tokens),
    )


def demo_rows(path: Path) -> list[Row]:
    """The suite's rows for a demo report (the JSON file, or the demo's out directory)."""
    if path.is_dir():
        path = path / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(report, dict):
        raise ReportError("the report must be a JSON object")
    return report_rows(report, str(path))


def report_rows(report: dict[str, Any], source: str) -> list[Row]:
    """The rows for a demo report read already (`source`: what to call it)."""
    r = rates(report)
    tokens = ""
    if r.prompt_tokens is not None and r.completion_tokens is not None:
        tokens = f"; {r.prompt_tokens:.0f} prompt + {r.completion_tokens:.0f} generated tokens"
    rows = [
        Row(
            "demo town",
            f"model calls and tokens per {r.per} ({source})",
            f"{r.calls:.1f} calls{tokens}",
            f"~{AUTHORS_CALLS_PER_AGENT_HOUR:.0f} calls, the authors' code (cited, not run)",
            f"{AUTHORS_CALLS_PER_AGENT_HOUR / r.calls:.1f}x fewer" if r.calls else "no calls",
            "<= 10 calls",
        )
    ]
    if (reused := reused_share(report)) is not None:
        rows.append(
            Row(
                "demo town",
                "prompt tokens not evaluated again (the run's steps, interviews aside)",
                f"{100 * reused:.0f}%",
                f"{100 * BEFORE_REUSE:.0f}% before saved prefix states (cited: issue 20)",
                "",
                ">= 60%",
            )
        )
    return rows


# The share the issue measured before prefix states were kept (docs/performance.md).
BEFORE_REUSE = 0.14


def reused_share(report: dict[str, Any]) -> float | None:
    """Of the run's prompt tokens, the share not evaluated again (None in reports
    written before it was recorded)."""
    section = report.get("model_calls")
    if not isinstance(section, dict):
        return None
    cached, prompt = section.get("cached_prompt_tokens"), section.get("prompt_tokens")
    if not isinstance(cached, int) or not isinstance(prompt, int) or prompt <= 0:
        return None
    return cached / prompt
