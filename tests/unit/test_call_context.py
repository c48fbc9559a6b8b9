"""Both doors' call contexts have what the servicer uses of one (CallContext). mypy checks
the HTTP door's GatewayContext; grpc ships no type stubs, so this checks the gRPC door's
ServicerContext by signature."""

from __future__ import annotations

import inspect

import grpc
import pytest

from npc_brain.server.context import CallContext
from npc_brain.server.http_gateway import GatewayContext

MEMBERS = sorted(
    name
    for name, value in vars(CallContext).items()
    if inspect.isfunction(value) and not name.startswith("_")
)


def _shape(function: object) -> tuple[list[tuple[str, object]], bool]:
    """Parameter names with their defaults, and whether it is a coroutine function."""
    parameters = inspect.signature(function).parameters.values()  # type: ignore[arg-type]
    return [(p.name, p.default) for p in parameters], inspect.iscoroutinefunction(function)


def test_the_protocol_lists_what_the_servicer_uses() -> None:
    assert MEMBERS == ["abort", "invocation_metadata"]


@pytest.mark.parametrize("door", [grpc.aio.ServicerContext, GatewayContext])
@pytest.mark.parametrize("name", MEMBERS)
def test_each_door_context_has_every_member_with_the_same_shape(door: type, name: str) -> None:
    assert _shape(getattr(door, name)) == _shape(getattr(CallContext, name))
