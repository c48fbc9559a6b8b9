"""Errors of the demo, phrased for the person running it."""

from __future__ import annotations


class DemoError(Exception):
    """The demo cannot go on; the message says why and what to do."""


class DataError(DemoError):
    """A cast or town file is invalid; names the file and the field (e.g. `agents[2].home`)."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        super().__init__(f"{source}: {field}: {problem}")
        self.source = source
        self.field = field
