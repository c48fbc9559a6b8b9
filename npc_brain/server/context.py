"""What the servicer uses of a call's context, the same on both doors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NoReturn, Protocol

import grpc

Metadata = Iterable[tuple[str, str | bytes]]


class CallContext(Protocol):
    """A call's context as BrainServicer uses it: grpc.aio.ServicerContext on the gRPC
    door, http_gateway.GatewayContext on the HTTP door."""

    def invocation_metadata(self) -> Metadata | None:
        """The caller's metadata: gRPC metadata, or the HTTP request's headers."""
        ...

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Sequence[tuple[str, str]] = (),
    ) -> NoReturn:
        """Ends the call with a non-OK status; never returns."""
        ...
