"""The gRPC servicer: protobuf in, one Brain call, protobuf out; errors mapped once."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc

from npc_brain import validation
from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.errors import InvalidArgument, NpcBrainError
from npc_brain.memory.records import SourceKind
from npc_brain.server import convert
from npc_brain.server.auth import TokenCheck
from npc_brain.server.context import CallContext, Metadata
from npc_brain.server.limits import Admission, retry_metadata
from npc_brain.server.registration import MalformedRequest
from npc_brain.server.status import status_of
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)
Req = TypeVar("Req")
Resp = TypeVar("Resp")
Handler = Callable[[Any, Req, CallContext], Awaitable[Resp]]


async def _abort(error: Exception, context: CallContext) -> None:
    if isinstance(error, NpcBrainError):
        await context.abort(status_of(error), str(error), retry_metadata(error))
    log.exception("unexpected error", exc_info=error)
    await context.abort(grpc.StatusCode.INTERNAL, "internal error; the server log has details")


def unary(method: Handler[Req, Resp]) -> Handler[Req, Resp]:
    """Checks the caller's token and admits the call (or refuses it: UNAUTHENTICATED,
    RESOURCE_EXHAUSTED), then maps domain errors of the handler to statuses; anything
    else is INTERNAL."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Req, context: CallContext) -> Resp:
        try:
            self._auth.check(context.invocation_metadata())
            _check_parsed(request)
            with self._admission.admit():
                return await method(self, request, context)
        except Exception as error:  # noqa: BLE001 - the one place errors become statuses
            await _abort(error, context)
            raise  # unreachable: abort raises

    return wrapper


def _check_parsed(request: object) -> None:
    """INVALID_ARGUMENT for bytes that did not parse as the request message."""
    if isinstance(request, MalformedRequest):
        raise InvalidArgument("request", f"is not a valid {request.type_name} ({request.problem})")


class BrainServicer(pb_grpc.BrainServicer):
    """npc_brain.v1.Brain over a Brain."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain
        self._auth = TokenCheck(brain.settings.token)
        self._admission = Admission(brain.settings.max_concurrent_rpcs)

    def authorize(self, metadata: Metadata | None) -> None:
        """UNAUTHENTICATED unless the metadata carries the server's token (if it has one)."""
        self._auth.check(metadata)

    @unary
    async def UpsertAgent(self, request: pb.UpsertAgentRequest, context: CallContext) -> pb.Agent:
        game_time = convert.time_from_pb("game_time", request, required=False)
        agent = await self._brain.upsert_agent(
            request.world_id,
            request.agent_id,
            convert.persona_from_pb(request.persona),
            game_time,
            convert.switches_from_pb(request),
            convert.game_actions_from_pb(request.actions),
        )
        return convert.agent_to_pb(request.world_id or "default", agent)

    @unary
    async def GetAgent(self, request: pb.GetAgentRequest, context: CallContext) -> pb.Agent:
        agent = await self._brain.get_agent(request.world_id, request.agent_id)
        bonds = await self._brain.relationships(request.world_id, request.agent_id)
        return convert.agent_to_pb(request.world_id or "default", agent, bonds)

    @unary
    async def Perceive(
        self, request: pb.PerceiveRequest, context: CallContext
    ) -> pb.PerceiveResponse:
        ids = await self._brain.perceive(
            request.world_id,
            request.agent_id,
            convert.required_time("game_time", request),
            convert.observations_from_pb(request.observations),
            list(request.visible_addresses),
        )
        return pb.PerceiveResponse(memory_ids=ids)

    @unary
    async def Act(self, request: pb.ActRequest, context: CallContext) -> pb.ActResponse:
        action, pending = await self._brain.act(
            request.world_id,
            request.agent_id,
            convert.required_time("game_time", request),
            request.max_wait_ms,
        )
        return pb.ActResponse(action=convert.action_to_pb(action), pending=pending)

    @unary
    async def Tick(self, request: pb.TickRequest, context: CallContext) -> pb.TickResponse:
        results = await self._brain.tick(
            request.world_id,
            convert.required_time("game_time", request),
            convert.agent_ticks_from_pb(request.agents),
            request.max_wait_ms,
            lockstep=request.lockstep,
        )
        return pb.TickResponse(results=[convert.tick_result_to_pb(r) for r in results])

    async def Converse(
        self, request: pb.ConverseRequest, context: CallContext
    ) -> AsyncIterator[pb.ConverseEvent]:
        try:
            self._auth.check(context.invocation_metadata())
            _check_parsed(request)
            with self._admission.admit():  # held until the stream ends or is abandoned
                async for event in self._converse(request):
                    yield event
        except Exception as error:  # noqa: BLE001 - the one place errors become statuses
            await _abort(error, context)

    async def _converse(self, request: pb.ConverseRequest) -> AsyncIterator[pb.ConverseEvent]:
        limit = self._brain.settings.max_short_text_chars  # the brain never sees this id
        validation.text("conversation_id", request.conversation_id, required=False, limit=limit)
        events = self._brain.converse(
            request.world_id,
            request.agent_id,
            convert.required_time("game_time", request),
            request.speaker_id,
            request.utterance,
            request.interview,
            convert.game_actions_from_pb(request.actions),
        )
        async for event in events:
            if isinstance(event, Line):
                yield pb.ConverseEvent(final=convert.line_to_pb(event))
            else:
                yield pb.ConverseEvent(token=event)

    @unary
    async def ReportOutcome(
        self, request: pb.ReportOutcomeRequest, context: CallContext
    ) -> pb.Memory:
        memory = await self._brain.report_outcome(
            request.world_id,
            request.agent_id,
            request.action_id,
            request.done,
            request.detail,
            convert.required_time("game_time", request),
        )
        return convert.memory_to_pb(memory)

    @unary
    async def Retrieve(
        self, request: pb.RetrieveRequest, context: CallContext
    ) -> pb.RetrieveResponse:
        found = await self._brain.retrieve(
            request.world_id,
            request.agent_id,
            convert.required_time("game_time", request),
            request.query,
            request.k,
            convert.weights_from_pb(request.weights),
            convert.kinds_from_pb("kinds", request.kinds),
            convert.time_range_from_pb(request),
        )
        return pb.RetrieveResponse(memories=[convert.scored_to_pb(s) for s in found])

    @unary
    async def WhoKnows(
        self, request: pb.WhoKnowsRequest, context: CallContext
    ) -> pb.WhoKnowsResponse:
        found = await self._brain.who_knows(
            request.world_id, request.memory_id, request.query, request.k
        )
        return pb.WhoKnowsResponse(claims=[convert.claim_to_pb(c) for c in found])

    @unary
    async def GetStats(self, request: pb.GetStatsRequest, context: CallContext) -> pb.Stats:
        summary = await self._brain.stats(request.world_id, request.agent_id)
        return convert.stats_to_pb(summary)

    @unary
    async def ListMemories(
        self, request: pb.ListMemoriesRequest, context: CallContext
    ) -> pb.ListMemoriesResponse:
        page = await self._brain.list_memories(
            request.world_id,
            request.agent_id,
            convert.kinds_from_pb("kinds", request.kinds),
            request.page_size,
            request.page_token,
            convert.time_range_from_pb(request),
        )
        return pb.ListMemoriesResponse(
            memories=[convert.memory_to_pb(m) for m in page.memories],
            next_page_token=page.next_page_token,
        )

    @unary
    async def AddMemory(self, request: pb.AddMemoryRequest, context: CallContext) -> pb.Memory:
        memory = await self._brain.add_memory(
            request.world_id,
            request.agent_id,
            convert.required_time("game_time", request),
            convert.kind_from_pb("kind", request.kind),
            convert.observation_from_pb("observation", request.observation, SourceKind.AUTHOR),
        )
        return convert.memory_to_pb(memory)

    @unary
    async def ForgetMemory(
        self, request: pb.ForgetMemoryRequest, context: CallContext
    ) -> pb.ForgetMemoryResponse:
        await self._brain.forget_memory(request.world_id, request.agent_id, request.memory_id)
        return pb.ForgetMemoryResponse()

    @unary
    async def Reflect(self, request: pb.ReflectRequest, context: CallContext) -> pb.ReflectResponse:
        reflections = await self._brain.reflect(
            request.world_id, request.agent_id, convert.required_time("game_time", request)
        )
        return pb.ReflectResponse(reflections=[convert.memory_to_pb(m) for m in reflections])

    @unary
    async def SaveWorld(self, request: pb.SaveWorldRequest, context: CallContext) -> pb.Snapshot:
        saved = await self._brain.save_world(request.world_id, request.label)
        return convert.snapshot_to_pb(saved)

    @unary
    async def LoadWorld(
        self, request: pb.LoadWorldRequest, context: CallContext
    ) -> pb.LoadWorldResponse:
        await self._brain.load_world(request.world_id, request.snapshot_id)
        return pb.LoadWorldResponse()

    @unary
    async def ListSnapshots(
        self, request: pb.ListSnapshotsRequest, context: CallContext
    ) -> pb.ListSnapshotsResponse:
        found = await self._brain.list_snapshots(request.world_id)
        return pb.ListSnapshotsResponse(snapshots=[convert.snapshot_to_pb(s) for s in found])
