"""The Brain servicer's methods on a grpc server, with request parsing that never fails
a call by itself: bytes that are not a valid request message (a corrupt wire format,
invalid UTF-8 in a string) reach the servicer as a MalformedRequest, which it answers
INVALID_ARGUMENT, where grpc's own parsing would answer UNKNOWN."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import grpc
from google.protobuf import message_factory
from google.protobuf.message import DecodeError, Message

from npc_brain.v1 import brain_pb2

SERVICE = brain_pb2.DESCRIPTOR.services_by_name["Brain"]


@dataclass(frozen=True)
class MalformedRequest:
    """What a request that is not a valid message of its type parses to."""

    type_name: str
    problem: str


def _lenient(cls: type[Message]) -> Callable[[bytes], Message | MalformedRequest]:
    def parse(data: bytes) -> Message | MalformedRequest:
        try:
            return cls.FromString(data)
        except DecodeError as error:
            return MalformedRequest(cls.DESCRIPTOR.full_name, str(error).rsplit(": ", 1)[-1])

    return parse


def add_brain_to_server(servicer: object, server: grpc.aio.Server) -> None:
    """Serves every RPC of npc_brain.v1.Brain from the servicer's method of that name."""
    handlers = {}
    for method in SERVICE.methods:
        request = message_factory.GetMessageClass(method.input_type)
        reply = message_factory.GetMessageClass(method.output_type)
        make = (
            grpc.unary_stream_rpc_method_handler
            if method.server_streaming
            else grpc.unary_unary_rpc_method_handler
        )
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=_lenient(request),
            response_serializer=reply.SerializeToString,
        )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE.full_name, handlers),)
    )
    server.add_registered_method_handlers(SERVICE.full_name, handlers)
