"""The inspector on the HTTP door: who may look, what each path shows, how a change is made.

Who may look: the server's token, as for the API. A browser opens
`/inspect?token=<token>` once (or types it in the form a 401 page shows); the token then
lives in an HttpOnly, SameSite=Strict cookie for /inspect only, and the address is
redirected without it. Programs may send `authorization: Bearer <token>` instead. Every
request is checked by the servicer's own token check, and every call the pages make goes
through the servicer with the same credentials, so the servicer checks again (and
validates and admits the call, as for the API).

Without a token, pages are served only to requests whose Host is a loopback address or
the server's own `host` (so a web page cannot reach them through DNS rebinding).

Changes (forget, amend, recall) are POSTs, and are refused unless they carry the CSRF
token of the page's session (an HMAC of the session cookie under a key that lives as
long as the process) and, when the browser says where they come from (Origin,
Sec-Fetch-Site), they come from this server's own pages. Each change is recorded in the
audit file (audit.py) before the answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any
from urllib.parse import urlencode, urlsplit

import grpc
from google.protobuf.message import Message

from npc_brain import validation
from npc_brain.brain import Brain
from npc_brain.errors import InvalidArgument, NotFound, NpcBrainError
from npc_brain.memory.records import GameTime
from npc_brain.memory.retrieval import Weights
from npc_brain.server import convert
from npc_brain.server.auth import is_loopback
from npc_brain.server.http_gateway import HTTP_STATUS_OF, Aborted, GatewayContext
from npc_brain.server.http_protocol import Request
from npc_brain.server.inspector import pages
from npc_brain.server.inspector.audit import Audit, Correction
from npc_brain.server.inspector.web import (
    HTML,
    PREFIX,
    SECURITY_HEADERS,
    Response,
    cookies,
    integer,
    link,
    number,
    one,
    parse_time,
    query_params,
    set_cookie,
)
from npc_brain.server.status import status_of
from npc_brain.v1 import brain_pb2 as pb

log = logging.getLogger("npc_brain.server.inspector")
TOKEN_COOKIE = "npc_brain_token"
SESSION_COOKIE = "npc_brain_session"
FORM = "application/x-www-form-urlencoded"
STATIC = {"inspector.css": "text/css; charset=utf-8", "inspector.js": "text/javascript"}
NOT_CHOSEN = 5  # the most important memories not chosen, shown on the why page
EVIDENCE_NODES = 60  # the evidence tree shows at most this many memories
EVIDENCE_DEPTH = 4
AMENDS = re.compile(r" \(amends memory (\d+)\)$")
_SESSION = re.compile(r"[A-Za-z0-9_-]{20,64}")


def amendment_text(text: str, memory_id: str) -> str:
    """What an amendment stores: the new text, citing the memory it supersedes."""
    return f"{text} (amends memory {memory_id})"


@dataclass(frozen=True)
class Caller:
    """Who is asking: the credentials every servicer call carries, the session, the peer."""

    metadata: tuple[tuple[str, str], ...]
    session: str
    new_session: bool
    peer: str


Page = Callable[[Request, Mapping[str, list[str]], Caller], Awaitable[Response]]


class Inspector:
    """Serves /inspect for one servicer (a BrainServicer) and its brain."""

    def __init__(self, servicer: Any, brain: Brain) -> None:
        self._servicer = servicer
        self._brain = brain
        settings = brain.settings
        self._secure = bool(settings.tls_cert)
        self._token = bool(settings.token)
        self._host = settings.host
        self._text_limit = settings.max_text_chars
        self._key = secrets.token_bytes(32)  # CSRF tokens live as long as the process
        self.audit = Audit(settings.data_dir / "inspector" / "audit.jsonl")
        self._static = {
            name: resources.files(__package__).joinpath("static", name).read_bytes()
            for name in STATIC
        }
        self._pages: dict[tuple[str, str], Page] = {
            ("GET", ""): self._home,
            ("GET", "/world"): self._world,
            ("GET", "/agent"): self._agent,
            ("GET", "/memory"): self._memory,
            ("GET", "/why"): self._why,
            ("POST", "/why"): self._recall,
            ("POST", "/forget"): self._forget,
            ("POST", "/amend"): self._amend,
        }

    @staticmethod
    def serves(path: str) -> bool:
        return path == PREFIX or path.startswith(PREFIX + "/")

    async def handle(self, request: Request, peer: str) -> Response:
        """The answer to one request for a path under /inspect; never raises."""
        try:
            response = await self._handle(request, peer)
        except Aborted as error:
            response = self._error(HTTP_STATUS_OF.get(error.code, 500), error.code, error.details)
        except NpcBrainError as error:
            code = status_of(error)
            response = self._error(HTTP_STATUS_OF.get(code, 500), code, str(error))
        except Exception:
            log.exception("inspector page failed")
            message = "internal error; the server log has details"
            response = self._error(500, grpc.StatusCode.INTERNAL, message)
        response.headers.extend(SECURITY_HEADERS)
        return response

    async def _handle(self, request: Request, peer: str) -> Response:
        path = request.path[len(PREFIX) :].rstrip("/")
        if path.startswith("/static/"):
            return self._static_file(request, path[len("/static/") :])
        page = self._pages.get((request.method, path))
        if page is None:
            if any(p == path for _, p in self._pages):
                allowed = ", ".join(sorted(m for m, p in self._pages if p == path))
                response = self._error(
                    405, grpc.StatusCode.UNIMPLEMENTED, f"{request.method} is not served here"
                )
                response.headers.append(("Allow", allowed))
                return response
            return self._error(404, grpc.StatusCode.NOT_FOUND, f"no page {request.path!r}")
        if not self._token and not self._trusted_host(request.header("host") or ""):
            return self._forbidden(
                "this server has no token, so its inspector answers only pages opened at "
                "127.0.0.1, localhost or its own host setting (a defence against DNS rebinding)"
            )
        params = query_params(urlsplit(request.target).query)
        jar = cookies(request.header("cookie"))
        if request.method == "GET" and "token" in params:
            return self._log_in(request, params, jar, peer)
        caller = self._caller(request, jar, peer)
        refusal = self._authorize(caller)
        if refusal is not None:
            return refusal
        if request.method == "POST":
            refusal = self._check_post(request, caller)
            if refusal is not None:
                return refusal
            params = query_params(_form_text(request))
        response = await page(request, params, caller)
        if caller.new_session:
            response.headers.append(
                ("Set-Cookie", set_cookie(SESSION_COOKIE, caller.session, secure=self._secure))
            )
        return response

    # Who may look --------------------------------------------------------------------

    def _caller(self, request: Request, jar: Mapping[str, str], peer: str) -> Caller:
        header = request.header("authorization")
        metadata: tuple[tuple[str, str], ...] = ()
        if header is not None:
            metadata = (("authorization", header),)
        elif TOKEN_COOKIE in jar:
            token = _cookie_token(jar[TOKEN_COOKIE])
            if token is not None:
                metadata = (("authorization", f"Bearer {token}"),)
        session = jar.get(SESSION_COOKIE, "")
        new = not _SESSION.fullmatch(session)
        if new:
            session = secrets.token_urlsafe(24)
        return Caller(metadata, session, new, peer)

    def _authorize(self, caller: Caller) -> Response | None:
        """None when the servicer's token check lets the caller in; else a 401 page."""
        try:
            self._servicer.authorize(caller.metadata)
        except NpcBrainError as error:
            response = self._error(401, grpc.StatusCode.UNAUTHENTICATED, str(error), login=True)
            response.headers.append(("WWW-Authenticate", 'Bearer realm="npc-brain"'))
            return response
        return None

    def _log_in(
        self, request: Request, params: Mapping[str, list[str]], jar: Mapping[str, str], peer: str
    ) -> Response:
        """`?token=...`: checked like a header; right, it becomes a cookie and the
        address loses it; wrong, 401."""
        token = one(params, "token")
        metadata = (("authorization", f"Bearer {token}"),)
        refusal = self._authorize(Caller(metadata, "", False, peer))
        if refusal is not None:
            return refusal
        caller = self._caller(request, jar, peer)
        rest = [(k, v) for k, values in params.items() if k != "token" for v in values]
        location = request.path + (f"?{urlencode(rest)}" if rest else "")
        cookie = base64.urlsafe_b64encode(token.encode("utf-8")).decode("ascii")
        headers = [
            ("Location", location),
            ("Set-Cookie", set_cookie(TOKEN_COOKIE, cookie, secure=self._secure)),
        ]
        if caller.new_session:
            headers.append(
                ("Set-Cookie", set_cookie(SESSION_COOKIE, caller.session, secure=self._secure))
            )
        return Response(303, b"", HTML, headers)

    def csrf(self, session: str) -> str:
        """The CSRF token of a session: forms carry it, POSTs must."""
        return hmac.new(self._key, session.encode("ascii"), hashlib.sha256).hexdigest()

    def _check_post(self, request: Request, caller: Caller) -> Response | None:
        """A change must come from one of this server's pages: same origin, with the
        CSRF token of the session cookie it came with."""
        if request.header("sec-fetch-site") not in (None, "same-origin"):
            return self._forbidden("a change must come from this server's own pages")
        origin = request.header("origin")
        if origin is not None and origin != self._origin(request):
            return self._forbidden(f"a change from the page of {origin!r} is refused")
        media_type = (request.header("content-type") or "").split(";", 1)[0].strip().lower()
        if media_type != FORM:
            return self._error(
                415, grpc.StatusCode.INVALID_ARGUMENT, f"Content-Type must be {FORM}"
            )
        given = one(query_params(_form_text(request)), "csrf")
        if caller.new_session or not hmac.compare_digest(given, self.csrf(caller.session)):
            return self._forbidden(
                "the form's CSRF token does not match this session; reload the page and retry"
            )
        return None

    def _trusted_host(self, host: str) -> bool:
        """A Host header naming this machine by a loopback address or `host` itself."""
        try:
            name = urlsplit(f"//{host}").hostname or ""
        except ValueError:  # e.g. an unclosed "[" of an IPv6 address
            return False
        return is_loopback(name) or name == self._host.strip("[]").lower()

    def _origin(self, request: Request) -> str:
        return f"{'https' if self._secure else 'http'}://{request.header('host') or ''}"

    def _forbidden(self, message: str) -> Response:
        return self._error(403, grpc.StatusCode.PERMISSION_DENIED, message)

    # Calls through the servicer --------------------------------------------------------

    async def _call(self, method: str, request: Message, caller: Caller) -> Any:
        """One RPC through the servicer, with the caller's credentials (its token check,
        validation and admission apply); a non-OK status raises Aborted."""
        context = GatewayContext(caller.metadata, caller.peer)
        reply = await getattr(self._servicer, method)(request, context)
        code = context.code()
        if code not in (None, grpc.StatusCode.OK):
            raise Aborted(code, context.details())
        return reply

    async def _get_agent(self, world_id: str, agent_id: str, caller: Caller) -> pb.Agent:
        agent: pb.Agent = await self._call(
            "GetAgent", pb.GetAgentRequest(world_id=world_id, agent_id=agent_id), caller
        )
        return agent

    async def _get_memory(
        self, world_id: str, agent_id: str, memory_id: str, caller: Caller
    ) -> pb.Memory | None:
        """One memory, through ListMemories (a page of one, from just before its id)."""
        number = validation.number_id("id", memory_id, "a memory id")
        request = pb.ListMemoriesRequest(
            world_id=world_id,
            agent_id=agent_id,
            page_size=1,
            page_token=str(number - 1) if number > 1 else "",
        )
        page: pb.ListMemoriesResponse = await self._call("ListMemories", request, caller)
        found = [m for m in page.memories if m.memory_id == str(number)]
        return found[0] if found else None

    # Pages ---------------------------------------------------------------------------

    async def _home(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        worlds = [(w, len(await self._brain.agent_ids(w))) for w in self._brain.world_ids()]
        return _page(pages.home_page(worlds))

    async def _world(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        world_id = validation.world_id(one(params, "world"))
        stats = await self._call("GetStats", pb.GetStatsRequest(world_id=world_id), caller)
        rows = []
        for agent_id in await self._brain.agent_ids(world_id):
            agent = await self._get_agent(world_id, agent_id, caller)
            view = await self._brain.agent_view(world_id, agent_id)
            agent_stats = await self._call(
                "GetStats", pb.GetStatsRequest(world_id=world_id, agent_id=agent_id), caller
            )
            rows.append(pages.AgentRow(agent, view, agent_stats))
        corrections = self.audit.of_world(world_id)
        return _page(pages.world_page(world_id, rows, stats, corrections))

    async def _agent(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        world_id, agent_id = _world_agent(params)
        kinds = _kinds(params)
        shown = pages.StreamFilter(
            kinds=tuple(kinds),
            after=one(params, "after"),
            before=one(params, "before"),
            size=integer(params, "size", 50),
            page=one(params, "page"),
        )
        agent = await self._get_agent(world_id, agent_id, caller)
        view = await self._brain.agent_view(world_id, agent_id)
        listing = pb.ListMemoriesRequest(
            world_id=world_id,
            agent_id=agent_id,
            kinds=kinds,
            page_size=shown.size,
            page_token=shown.page,
        )
        _set_time(listing, "created_after", parse_time("after", shown.after))
        _set_time(listing, "created_before", parse_time("before", shown.before))
        page: pb.ListMemoriesResponse = await self._call("ListMemories", listing, caller)
        ids = [m.memory_id for m in page.memories]
        superseded = self.audit.amended_by(world_id, agent_id, ids)
        body = pages.agent_page(
            world_id,
            agent,
            view,
            page.memories,
            page.next_page_token,
            shown,
            superseded,
            _notice(params),
        )
        return _page(body)

    async def _memory(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        world_id, agent_id = _world_agent(params)
        memory_id = one(params, "id")
        agent = await self._get_agent(world_id, agent_id, caller)
        memory = await self._get_memory(world_id, agent_id, memory_id, caller)
        if memory is None:
            raise NotFound(f"agent {agent_id!r} has no memory {memory_id} (forgotten?)")
        view = await self._brain.agent_view(world_id, agent_id)
        evidence = await self._evidence(world_id, agent_id, memory.evidence_ids, caller)
        superseded = self.audit.amended_by(world_id, agent_id, [memory.memory_id])
        cited = AMENDS.search(memory.description)
        body = pages.memory_page(
            world_id,
            agent,
            memory,
            evidence,
            superseded.get(memory.memory_id, ""),
            cited.group(1) if cited else "",
            view,
            self.csrf(caller.session),
            self._text_limit,
            _notice(params),
        )
        return _page(body)

    async def _evidence(
        self, world_id: str, agent_id: str, ids: Sequence[str], caller: Caller
    ) -> list[pages.EvidenceNode]:
        """The evidence tree under a reflection, breadth first, within the page's bounds."""
        budget = [EVIDENCE_NODES]

        async def nodes(ids: Sequence[str], depth: int) -> list[pages.EvidenceNode]:
            found = []
            for memory_id in ids:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                memory = await self._get_memory(world_id, agent_id, memory_id, caller)
                children: list[pages.EvidenceNode] = []
                if memory is not None and depth < EVIDENCE_DEPTH:
                    children = await nodes(memory.evidence_ids, depth + 1)
                found.append(pages.EvidenceNode(memory_id, memory, tuple(children)))
            return found

        return await nodes(ids, 1)

    async def _why(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        return await self._explain(params, caller, recall=False)

    async def _recall(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        return await self._explain(params, caller, recall=True)

    async def _explain(
        self, params: Mapping[str, list[str]], caller: Caller, *, recall: bool
    ) -> Response:
        """Why this memory: the top k a Retrieve gives, each with its terms, and the most
        important memories it leaves out, with the term that kept them out.

        Explaining (GET) marks nothing accessed: the terms come from the very scoring the
        Retrieve RPC runs (Brain.explain_retrieval). Recalling (POST) also calls Retrieve
        through the servicer, which marks the top k accessed, and shows its answer."""
        world_id, agent_id = _world_agent(params)
        agent = await self._get_agent(world_id, agent_id, caller)
        view = await self._brain.agent_view(world_id, agent_id)
        query = one(params, "q")
        weights = Weights(
            number(params, "w_rec", 0.0),
            number(params, "w_imp", 0.0),
            number(params, "w_rel", 0.0),
        )
        asked_time = parse_time("time", one(params, "time"))
        if asked_time is None:
            asked_time = view.latest_game_time or 0.0
        game_time = _as_on_the_wire(asked_time)
        asked = pages.WhyAsked(
            query=query,
            k=integer(params, "k", 0),
            game_time=game_time,
            weights=None if weights == Weights(0, 0, 0) else weights,
            kinds=tuple(_kinds(params)),
        )
        csrf = self.csrf(caller.session)
        if not query:
            return _page(pages.why_page(world_id, agent, view, asked, None, csrf))
        # The servicer's own checks first: token, admission and every field, as Retrieve.
        kinds = convert.kinds_from_pb("kinds", [pb.MemoryKind.Value(n) for n in _kinds(params)])
        retrieve = pb.RetrieveRequest(
            world_id=world_id,
            agent_id=agent_id,
            game_time=convert.time_to_pb(game_time),
            query=query,
            k=asked.k,
            weights=pb.Weights(
                recency=weights.recency, importance=weights.importance, relevance=weights.relevance
            ),
            kinds=_kinds(params),
        )
        self._servicer.authorize(caller.metadata)
        convert.required_time("game_time", retrieve)  # within the years a request may carry
        focus = one(params, "focus")
        explained = await self._brain.explain_retrieval(
            world_id,
            agent_id,
            game_time,
            query,
            asked.k,
            weights,
            kinds,
            left_out=NOT_CHOSEN,
            focus=int(focus) if focus.isdecimal() else None,
        )
        found = explained.found
        chosen = [convert.scored_to_pb(s) for s in found.chosen]
        if recall:
            answer: pb.RetrieveResponse = await self._call("Retrieve", retrieve, caller)
            chosen = list(answer.memories)
        answer_shown = pages.WhyAnswer(
            weights=explained.weights,
            k=explained.k,
            chosen=chosen,
            not_chosen=[(rank, convert.scored_to_pb(s)) for rank, s in found.left_out],
            focus=None
            if found.focus is None
            else (found.focus[0], convert.scored_to_pb(found.focus[1])),
            candidates=found.candidates,
            recalled=recall,
        )
        if recall:
            log.info(
                "inspector: recalled %d memories of %s/%s for %r at game time %s from %s",
                len(chosen),
                world_id,
                agent_id,
                query,
                game_time,
                caller.peer,
            )
        return _page(pages.why_page(world_id, agent, view, asked, answer_shown, csrf))

    async def _forget(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        """Forgets a memory through ForgetMemory, records who did, back to the stream."""
        world_id, agent_id = _world_agent(params)
        memory_id = one(params, "id")
        memory = await self._get_memory(world_id, agent_id, memory_id, caller)
        if memory is None:
            raise NotFound(f"agent {agent_id!r} has no memory {memory_id} (forgotten already?)")
        await self._call(
            "ForgetMemory",
            pb.ForgetMemoryRequest(world_id=world_id, agent_id=agent_id, memory_id=memory_id),
            caller,
        )
        self.audit.record(
            self._correction(
                "forget",
                world_id,
                agent_id,
                memory_id,
                "",
                memory.description,
                params,
                caller,
                None,
            )
        )
        return _redirect("agent", world=world_id, agent=agent_id, notice=f"forgot:{memory_id}")

    async def _amend(
        self, request: Request, params: Mapping[str, list[str]], caller: Caller
    ) -> Response:
        """Amends a memory: AddMemory of the new text (source AUTHOR, the old memory's
        kind, address and knowledge filter) citing the old one, which is kept; records
        who did."""
        world_id, agent_id = _world_agent(params)
        memory_id = one(params, "id")
        text = one(params, "text").strip()
        if not text:
            raise InvalidArgument("text", "is required: what the agent should remember instead")
        old = await self._get_memory(world_id, agent_id, memory_id, caller)
        if old is None:
            raise NotFound(f"agent {agent_id!r} has no memory {memory_id} (forgotten?)")
        view = await self._brain.agent_view(world_id, agent_id)
        game_time = parse_time("time", one(params, "time"))
        if game_time is None:
            game_time = view.latest_game_time or pages.seconds(old.created)
        importance = integer(params, "importance", max(1, min(10, round(old.importance))))
        observation = pb.Observation(
            text=amendment_text(text, memory_id),
            address=old.address,
            source=pb.Source(kind=pb.AUTHOR),
            importance=importance,
            private=old.private,
            share_with=old.share_with,
        )
        added: pb.Memory = await self._call(
            "AddMemory",
            pb.AddMemoryRequest(
                world_id=world_id,
                agent_id=agent_id,
                game_time=convert.time_to_pb(game_time),
                kind=old.kind,
                observation=observation,
            ),
            caller,
        )
        self.audit.record(
            self._correction(
                "amend",
                world_id,
                agent_id,
                memory_id,
                added.memory_id,
                added.description,
                params,
                caller,
                game_time,
            )
        )
        return _redirect(
            "memory",
            world=world_id,
            agent=agent_id,
            id=added.memory_id,
            notice=f"amended:{memory_id}",
        )

    def _correction(
        self,
        action: str,
        world_id: str,
        agent_id: str,
        memory_id: str,
        new_memory_id: str,
        text: str,
        params: Mapping[str, list[str]],
        caller: Caller,
        game_time: GameTime | None,
    ) -> Correction:
        by = " ".join(one(params, "by").split())[:64] or "anonymous"
        wall = datetime.now(UTC).isoformat(timespec="seconds")
        return Correction(
            action,
            world_id,
            agent_id,
            memory_id,
            new_memory_id,
            text,
            by,
            caller.peer,
            wall,
            game_time,
        )

    # Answers ---------------------------------------------------------------------------

    def _static_file(self, request: Request, name: str) -> Response:
        if name not in STATIC:
            return self._error(404, grpc.StatusCode.NOT_FOUND, f"no file {name!r}")
        if request.method != "GET":
            return self._error(405, grpc.StatusCode.UNIMPLEMENTED, "use GET")
        return Response(200, self._static[name], STATIC[name], [])

    def _error(
        self, status: int, code: grpc.StatusCode, message: str, *, login: bool = False
    ) -> Response:
        body = pages.error_page(status, code.name, message, login)
        return Response(status, body.encode("utf-8"))


def _page(body: str) -> Response:
    return Response(200, body.encode("utf-8"))


def _redirect(path: str, **params: str) -> Response:
    location = link(path, **params).replace("&amp;", "&")
    return Response(303, b"", HTML, [("Location", location)])


def _notice(params: Mapping[str, list[str]]) -> str:
    """The line a page shows after a change (fixed texts; only the id comes from the URL)."""
    what, _, memory_id = one(params, "notice").partition(":")
    if not memory_id.isdecimal():
        return ""
    return {
        "forgot": f"Memory {memory_id} is forgotten.",
        "amended": f"Memory {memory_id} is amended: this is the amendment.",
    }.get(what, "")


def _form_text(request: Request) -> str:
    try:
        return request.body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument("body", "is not UTF-8") from None


def _cookie_token(value: str) -> str | None:
    try:
        return base64.urlsafe_b64decode(value.encode("ascii")).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeError):
        return None


def _world_agent(params: Mapping[str, list[str]]) -> tuple[str, str]:
    world_id = validation.world_id(one(params, "world"))
    return world_id, validation.identifier("agent", one(params, "agent"))


def _kinds(params: Mapping[str, list[str]]) -> list[str]:
    """The kinds a page asks for, by name: one field each, or comma-separated."""
    names = [n.strip() for v in params.get("kind", []) for n in v.split(",") if n.strip()]
    for name in names:
        if name not in pages.KINDS:
            raise InvalidArgument("kind", f"{name[:40]!r} is not one of {', '.join(pages.KINDS)}")
    return names


def _set_time(message: Message, field: str, game_time: GameTime | None) -> None:
    if game_time is not None:
        getattr(message, field).CopyFrom(convert.time_to_pb(game_time))


def _as_on_the_wire(game_time: GameTime) -> GameTime:
    """The game time a Retrieve request carrying it would read (Timestamp round trip)."""
    stamp = convert.time_to_pb(game_time)
    return stamp.seconds + stamp.nanos / 1e9
