"""Overload is refused, not absorbed: a cap on the calls each door serves at once, and
the retry hint every RESOURCE_EXHAUSTED answer carries."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from npc_brain.errors import NpcBrainError, ResourceExhausted, Unavailable

RETRY_AFTER_MS = "retry-after-ms"  # gRPC trailing metadata; HTTP answers `Retry-After`
OWNER = "npc-brain-owner"  # gRPC trailing metadata; HTTP answers `NPC-Brain-Owner`
BUSY_RETRY_SECONDS = 0.5


class Admission:
    """Counts the calls in flight on one door and refuses those beyond `limit`.

    Used from the event loop thread only, so a plain counter is enough.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0

    @contextlib.contextmanager
    def admit(self) -> Iterator[None]:
        """Holds one slot while the block runs; RESOURCE_EXHAUSTED when none is free."""
        if self.in_flight >= self.limit:
            raise ResourceExhausted(
                f"the server is serving {self.limit} calls at once (max_concurrent_rpcs); "
                f"retry in {BUSY_RETRY_SECONDS:g} s",
                retry_after_s=BUSY_RETRY_SECONDS,
            )
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1


def retry_metadata(error: NpcBrainError) -> tuple[tuple[str, str], ...]:
    """Trailing metadata with the retry hint of a RESOURCE_EXHAUSTED or UNAVAILABLE
    error, and the address of the server that owns the world where another one does."""
    if not isinstance(error, ResourceExhausted | Unavailable):
        return ()
    hint = ((RETRY_AFTER_MS, str(max(1, round(error.retry_after_s * 1000)))),)
    owner = getattr(error, "owner", "")
    return hint + (((OWNER, owner),) if owner else ())
