"""How many cores other processes leave free: the embedded model's thread count when the
`threads` setting is 0.

llama.cpp's OpenMP team waits for its slowest thread after every operation, and a thread
that shares its core with a busy process is the slowest every time: on 2 cores with one
other process spinning, 2 threads ran 3 replies in 8.5 s and 1 thread in 5.0 s (quiet:
2.3 s and 3.5 s; docs/performance.md, "CPU contention"). So before each call the model
looks at what the whole machine spent since its last look (Linux /proc/stat) less what
this process spent (/proc/self/stat), and uses the cores left. Elsewhere: every core.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import llama_cpp

MIN_TICKS = 20  # clock ticks of the whole machine between two looks worth reading (~0.1 s)


class FreeCores:
    """Cores not busy with other processes since the previous call (at least 1)."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores or max(1, os.cpu_count() or 1)
        self._last = _sample()
        self._free = self.cores
        self._fitted = 0  # the thread count last given to a context (0: none yet)

    def __call__(self) -> int:
        now = _sample()
        if now is None or self._last is None:
            return self.cores
        total, busy, ours = (a - b for a, b in zip(now, self._last, strict=True))
        if total < MIN_TICKS * self.cores:
            return self._free  # too short a window to tell
        self._last = now
        others = max(0.0, (busy - ours) / total * self.cores)
        self._free = max(1, min(self.cores, round(self.cores - others)))
        return self._free

    def fit(self, ctx: Any) -> None:
        """Gives a llama.cpp context (llama_context_p) as many threads as cores are free,
        when that changed since the last call."""
        if (n := self()) != self._fitted:
            llama_cpp.llama_set_n_threads(ctx, n, n)
            self._fitted = n


def _sample() -> tuple[int, int, int] | None:
    """(all ticks, busy ticks) of the machine and this process's ticks, or None."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        own = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = [int(x) for x in fields[:8]]  # user nice system idle iowait irq softirq steal
    idle = ticks[3] + ticks[4]
    return sum(ticks), sum(ticks) - idle, int(own[11]) + int(own[12])  # utime, stime
