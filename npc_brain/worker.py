"""A model worker: one thread that owns a model, so calls never interleave.

The embedder runs on one (FIFO is right for it: every call is a few milliseconds);
the chat model has the priority scheduler (scheduler.py). The event loop hands the
work over and awaits the result, so no model ever runs on the loop itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ModelWorker:
    """Runs callables one at a time on a dedicated thread."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
