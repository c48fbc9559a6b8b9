"""The embedded model's thread count with `threads` 0: the cores other processes leave."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from npc_brain.llm import free_cores
from npc_brain.llm.free_cores import FreeCores


def samples(monkeypatch: pytest.MonkeyPatch, *values: tuple[int, int, int] | None) -> None:
    """`_sample` answers these (all ticks, busy ticks, this process's ticks) in turn."""
    stream: Iterator[tuple[int, int, int] | None] = iter(values)
    monkeypatch.setattr(free_cores, "_sample", lambda: next(stream))


def test_a_core_kept_busy_by_another_process_is_left_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2 cores, 200 ticks: the machine busy 150 of them, this process 50: others took 1 core
    samples(monkeypatch, (0, 0, 0), (200, 150, 50), (400, 200, 100))
    cores = FreeCores(2)
    assert cores() == 1
    assert cores() == 2  # then only this process worked: both cores


def test_a_window_too_short_keeps_the_last_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    samples(monkeypatch, (0, 0, 0), (200, 200, 0), (210, 210, 0))
    cores = FreeCores(2)
    assert cores() == 1  # never fewer than one
    assert cores() == 1


def test_without_proc_every_core_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    samples(monkeypatch, None, None)
    assert FreeCores(4)() == 4


def test_this_machine_can_be_read() -> None:
    assert 1 <= FreeCores()() <= FreeCores().cores
