"""What the suite's sections share: timing, percentiles, the process's memory, the table."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Row:
    """One line of the suite's table: a figure, the baseline measured in the same run
    beside it, and their ratio (how many times better npc-brain is, or the share kept)."""

    section: str
    measure: str
    value: str
    baseline: str
    ratio: str
    target: str = ""


def timed(fn: Callable[[], object]) -> float:
    """Seconds `fn()` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def latencies(fn: Callable[[int], object], calls: int) -> list[float]:
    """Seconds of each of `calls` calls of fn(i)."""
    return [timed(lambda i=i: fn(i)) for i in range(calls)]  # type: ignore[misc]


def p50_p99(samples: Sequence[float]) -> tuple[float, float]:
    """Median and 99th percentile, in milliseconds."""
    p50, p99 = np.percentile(np.asarray(samples) * 1000, [50, 99])
    return float(p50), float(p99)


def ms(samples: Sequence[float]) -> str:
    p50, p99 = p50_p99(samples)
    return f"{p50:.2f} / {p99:.2f} ms"


def slower(samples: Sequence[float], baseline: Sequence[float]) -> str:
    """p99 of the samples over p99 of the baseline ("how many times the bare cost")."""
    return f"{p50_p99(samples)[1] / p50_p99(baseline)[1]:.1f}x (p99)"


def faster(before: Sequence[float], after: Sequence[float]) -> str:
    """How many times quicker `after` is than `before`, at p50 and p99."""
    b50, b99 = p50_p99(before)
    a50, a99 = p50_p99(after)
    return f"{b50 / a50:.1f}x / {b99 / a99:.1f}x"


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def render(rows: Sequence[Row]) -> str:
    """The suite's one Markdown table."""
    lines = [
        "| section | measure | npc-brain | baseline (same run) | ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.section} | {r.measure} | {r.value} | {r.baseline} | {r.ratio} | {r.target} |"
        for r in rows
    ]
    return "\n".join(lines)
