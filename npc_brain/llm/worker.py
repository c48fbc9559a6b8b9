"""A model worker: runs a model's calls one at a time, off the event loop.

The embedder runs on one (FIFO is right for it: every call is a few milliseconds);
the chat model has the priority scheduler (scheduler.py). The event loop hands the
work over and awaits the result, so no model ever runs on the loop itself.

Each call gets a thread of its own that ends with it. llama.cpp computes with OpenMP,
and libgomp counts every live thread that has ever run a parallel region: once they
outnumber the cores, the threads of every team sleep at each barrier instead of
spinning. An idle embedder thread kept alive that way made every chat token twice as
slow on 2 cores (decompositions 10-15 s against 5-7 s, measured side by side).
A thread's start waits until the new thread runs, which on a busy machine took the
event loop milliseconds: the threads are started from a launcher thread of their own
(it never computes, so libgomp does not count it).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thread-launcher")


async def in_fresh_thread(name: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """fn(*args, **kwargs) on a new thread that ends when it returns."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            outcome: tuple[T | None, BaseException | None] = (fn(*args, **kwargs), None)
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            outcome = (None, error)
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits it any more
            loop.call_soon_threadsafe(settle, *outcome)

    _LAUNCHER.submit(threading.Thread(target=work, name=name, daemon=True).start)
    return await done


class ModelWorker:
    """Runs callables one at a time, each on a thread of its own."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._turn = threading.Lock()  # one call at a time, as on one thread
        self._closed = False

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if self._closed:
            raise RuntimeError(f"the {self._name} worker is shut down")

        def one_at_a_time() -> T:
            with self._turn:
                if self._closed:
                    raise RuntimeError(f"the {self._name} worker is shut down")
                return fn(*args, **kwargs)

        return await in_fresh_thread(self._name, one_at_a_time)

    def shutdown(self) -> None:
        """Refuses new calls and waits for the one running, if any."""
        self._closed = True
        with self._turn:
            pass
