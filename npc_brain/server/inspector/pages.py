"""The inspector's pages: plain functions from what the servicer answered to HTML.

Every value that comes from a world (memory texts, names, addresses, ids) goes through
`h` (HTML escaping) or `link` (URL-encoded, then escaped): nothing a memory holds is
ever markup. Numbers a test or a person may compare with the Retrieve RPC are written
twice: rounded for reading, and exactly (Python's repr of the double) in data-*
attributes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.inspection import AgentView
from npc_brain.memory.records import SECONDS_PER_HOUR, GameTime
from npc_brain.memory.retrieval import Weights
from npc_brain.server.inspector.audit import Correction
from npc_brain.server.inspector.web import PREFIX, format_time, h, link, options, time_input
from npc_brain.v1 import brain_pb2 as pb

KINDS = ("OBSERVATION", "REFLECTION", "PLAN", "DIALOGUE", "THOUGHT")
TERMS = ("recency", "importance", "relevance")


def seconds(stamp: Timestamp) -> GameTime:
    return stamp.seconds + stamp.nanos / 1e9


def layout(title: str, crumbs: Sequence[tuple[str, str]], body: str) -> str:
    """A whole page. `crumbs`: (href, label) pairs after the inspector's home, the
    hrefs already made by `link`."""
    trail = "".join(f' / <a href="{href}">{h(label)}</a>' for href, label in crumbs)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{h(title)} - npc-brain inspector</title>"
        f'<link rel="stylesheet" href="{PREFIX}/static/inspector.css">'
        f'<script src="{PREFIX}/static/inspector.js" defer></script>'
        "</head><body>"
        f'<header><nav><a class="home" href="{PREFIX}">npc-brain inspector</a>{trail}</nav>'
        "</header>"
        f'<main id="main">{body}</main>'
        "</body></html>\n"
    )


def error_page(status: int, status_name: str, message: str, login: bool = False) -> str:
    form = ""
    if login:
        form = (
            f'<form class="login" method="get" action="{PREFIX}">'
            '<label>Token <input type="password" name="token" autocomplete="current-password"'
            ' required></label> <button type="submit">Open the inspector</button>'
            "<p class=note>The server's token (its <code>token</code> setting). It is kept in"
            " a cookie that only this server's /inspect pages get.</p></form>"
        )
    body = f'<h1>{status} {h(status_name)}</h1><p class="error" id="error">{h(message)}</p>{form}'
    return layout(f"{status} {status_name}", [], body)


# Home and world ---------------------------------------------------------------------------


def home_page(worlds: Sequence[tuple[str, int]]) -> str:
    if not worlds:
        items = "<p>No world yet: a game's first <code>UpsertAgent</code> creates one.</p>"
    else:
        rows = "".join(
            f'<li><a href="{link("world", world=w)}">{h(w)}</a> <span class="muted">'
            f"{n} agent{'s' if n != 1 else ''}</span></li>"
            for w, n in worlds
        )
        items = f'<ul class="worlds">{rows}</ul>'
    return layout("Worlds", [], f"<h1>Worlds</h1>{items}")


@dataclass(frozen=True)
class AgentRow:
    agent: pb.Agent
    view: AgentView
    stats: pb.Stats


def world_page(
    world_id: str,
    agents: Sequence[AgentRow],
    stats: pb.Stats,
    corrections: Sequence[Correction],
) -> str:
    rows = "".join(_agent_row(world_id, row) for row in agents)
    table = (
        '<table class="agents" id="agents"><thead><tr><th>agent</th><th>doing now</th>'
        "<th>state</th><th>today's plan</th><th>memories<br><small>all / last game day</small>"
        "</th><th>model calls</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if agents
        else "<p>No agent in this world yet.</p>"
    )
    live = (
        '<p class="live"><label><input type="checkbox" id="live" checked> refresh every 5 s'
        "</label></p>"
    )
    body = (
        f"<h1>World {h(world_id)}</h1>{live}"
        f'<div id="live-area" data-refresh="5000">'
        f"<section><h2>Agents</h2>{table}</section>"
        f"<section><h2>Model usage</h2>{_usage(stats)}</section>"
        "</div>"
        f"<section><h2>Corrections made here</h2>{_corrections(corrections)}</section>"
    )
    return layout(f"World {world_id}", [(link("world", world=world_id), world_id)], body)


def _agent_row(world_id: str, row: AgentRow) -> str:
    a, v = row.agent, row.view
    name = h(a.persona.name)
    agent_link = link("agent", world=world_id, agent=a.agent_id)
    return (
        f'<tr data-agent="{h(a.agent_id)}">'
        f'<td><a href="{agent_link}">{name}</a><br><small class="muted">{h(a.agent_id)}</small>'
        f"</td><td>{_doing(world_id, v)}</td><td>{_state(v)}</td>"
        f"<td>{_plan_summary(v)}</td>"
        f'<td class="num">{v.memories} / {v.recent_memories}</td>'
        f'<td class="num">{row.stats.model_calls}</td></tr>'
    )


def _doing(world_id: str, v: AgentView) -> str:
    action = v.action
    if action is None:
        return '<span class="muted">nothing yet (no Act or Tick so far)</span>'
    chat = ""
    if action.chat_with_agent_id:
        other = link("agent", world=world_id, agent=action.chat_with_agent_id)
        chat = f' with <a href="{other}">{h(action.chat_with_agent_id)}</a>'
    return (
        f'<span class="emoji">{h(action.emoji)}</span> {h(action.description)}{chat}'
        f'<br><small class="muted">at {h(action.address)}, from {h(format_time(action.start))}'
        f" for {action.duration_minutes} min</small>"
    )


def _state(v: AgentView) -> str:
    parts = []
    if v.asleep:
        parts.append("asleep")
    if v.talking:
        parts.append("talking")
    waiting = {"decide": "deciding its next action", "react": "reacting", "reflect": "reflecting"}
    parts += [f"waiting for the model: {waiting.get(t, t)}" for t in v.busy_with]
    return h("; ".join(parts)) if parts else '<span class="muted">-</span>'


def _current_block(v: AgentView) -> int | None:
    if not v.plan or v.latest_game_time is None or v.plan_day is None:
        return None
    hour = (v.latest_game_time - v.plan_day) / SECONDS_PER_HOUR
    current = None
    for i, (start, _) in enumerate(v.plan):
        if start <= hour:
            current = i
    return current


def _plan_summary(v: AgentView) -> str:
    if not v.plan:
        return '<span class="muted">no plan today</span>'
    i = _current_block(v)
    if i is None:
        return h(f"wakes at {v.wake_hour}:00; {len(v.plan)} blocks")
    hour, activity = v.plan[i]
    return h(f"{hour}:00 {activity}") + f' <small class="muted">({i + 1} of {len(v.plan)})</small>'


def _usage(stats: pb.Stats) -> str:
    kinds = sorted(stats.calls_by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
    by_kind = "".join(f'<tr><td>{h(k)}</td><td class="num">{n}</td></tr>' for k, n in kinds)
    table = (
        f'<table class="kinds" id="calls-by-kind"><thead><tr><th>kind</th><th>calls</th></tr>'
        f"</thead><tbody>{by_kind}</tbody></table>"
        if kinds
        else '<p class="muted">No model call yet.</p>'
    )
    summary = (
        f"<p>{stats.model_calls} model calls, {stats.prompt_tokens} prompt and "
        f"{stats.completion_tokens} completion tokens over {stats.game_hours:.1f} agent game "
        "hours, since the server started.</p>"
    )
    by_hour = {h.hour.seconds: h.calls for h in stats.calls_by_hour}
    return f'<div class="usage">{summary}{table}{_hour_chart(by_hour)}</div>'


def _hour_chart(by_hour: Mapping[int, int]) -> str:
    """Model calls per game hour as SVG bars (no script, no style attribute)."""
    if not by_hour:
        return ""
    hours = sorted(by_hour.items())[-48:]
    top = max(n for _, n in hours) or 1
    width, height, bar = 24 * len(hours) + 40, 160, 20
    bars = []
    for i, (hour, n) in enumerate(hours):
        tall = round(110 * n / top)
        x = 30 + 24 * i
        label = format_time(float(hour))[11:13]
        bars.append(
            f'<rect x="{x}" y="{130 - tall}" width="{bar}" height="{tall}" class="bar">'
            f"<title>{h(format_time(float(hour)))}: {n} calls</title></rect>"
            f'<text x="{x + bar / 2}" y="146" class="tick">{h(label)}</text>'
        )
    return (
        f'<figure class="chart"><svg id="calls-by-hour" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="model calls per game hour">'
        f'<text x="2" y="14" class="label">{top} calls a game hour</text>'
        f'<line x1="28" y1="130" x2="{width}" y2="130" class="axis"/>{"".join(bars)}</svg>'
        "<figcaption>model calls per game hour (UTC hour of game time)</figcaption></figure>"
    )


def _corrections(corrections: Sequence[Correction]) -> str:
    if not corrections:
        return '<p class="muted">None.</p>'
    rows = "".join(
        f"<tr><td>{h(c.wall_time)}</td><td>{h(c.by)}<br><small class=muted>{h(c.peer)}</small>"
        f"</td><td>{h(c.action)}</td><td>"
        f'<a href="{link("agent", world=c.world_id, agent=c.agent_id)}">{h(c.agent_id)}</a></td>'
        f"<td>#{h(c.memory_id)}"
        + (
            f' &rarr; <a href="{_memory_href(c.world_id, c.agent_id, c.new_memory_id)}">'
            f"#{h(c.new_memory_id)}</a>"
            if c.new_memory_id
            else ""
        )
        + f'</td><td class="text">{h(c.text)}</td></tr>'
        for c in corrections[:50]
    )
    return (
        '<table class="corrections" id="corrections"><thead><tr><th>when (wall clock, UTC)'
        "</th><th>by</th><th>what</th><th>agent</th><th>memory</th><th>text</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


# Agent ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamFilter:
    kinds: tuple[str, ...] = ()
    after: str = ""
    before: str = ""
    size: int = 50
    page: str = ""


def agent_page(
    world_id: str,
    agent: pb.Agent,
    view: AgentView,
    memories: Sequence[pb.Memory],
    next_page: str,
    shown: StreamFilter,
    superseded: Mapping[str, str],
    notice: str = "",
) -> str:
    p = agent.persona
    facts = [
        ("age", str(p.age) if p.age else ""),
        ("innate", p.innate),
        ("learned", p.learned),
        ("currently", p.currently),
        ("lifestyle", p.lifestyle),
        ("home", p.home_address),
        ("daily requirements", "; ".join(p.daily_requirements)),
        (
            "switches",
            ", ".join(
                f"{name} {'on' if on else 'off'}"
                for name, on in (
                    ("reflection", agent.reflection_enabled),
                    ("planning", agent.planning_enabled),
                    ("memory", agent.memory_enabled),
                )
            ),
        ),
    ]
    persona = "".join(f"<dt>{h(k)}</dt><dd>{h(v)}</dd>" for k, v in facts if v)
    rows = "".join(_memory_row(world_id, agent.agent_id, m, superseded) for m in memories)
    table = (
        '<table class="memories" id="memories"><thead><tr><th>#</th><th>created</th>'
        "<th>kind</th><th>importance</th><th>source</th><th>memory</th><th>evidence</th>"
        "<th>last accessed</th><th>expires</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if memories
        else '<p class="muted" id="memories-empty">No memory matches.</p>'
    )
    base = {
        "world": world_id,
        "agent": agent.agent_id,
        "kind": ",".join(shown.kinds),
        "after": shown.after,
        "before": shown.before,
        "size": shown.size if shown.size != 50 else "",
    }
    pager = []
    if shown.page:
        pager.append(f'<a href="{link("agent", **base)}" id="first-page">first page</a>')
    if next_page:
        pager.append(
            f'<a href="{link("agent", **base, page=next_page)}" id="next-page">next page</a>'
        )
    latest = view.latest_game_time
    day_ago = None if latest is None else latest - 24 * SECONDS_PER_HOUR
    quick = link("agent", world=world_id, agent=agent.agent_id, after=time_input(day_ago))
    filters = (
        f'<form class="filters" method="get" action="{PREFIX}/agent">'
        f'<input type="hidden" name="world" value="{h(world_id)}">'
        f'<input type="hidden" name="agent" value="{h(agent.agent_id)}">'
        '<label>kind <select name="kind"><option value="">all</option>'
        f"{options([(k, k.lower()) for k in KINDS], shown.kinds)}</select></label> "
        f'<label>created from <input name="after" value="{h(shown.after)}" size="16"'
        ' placeholder="2023-02-13 08:00"></label> '
        f'<label>before <input name="before" value="{h(shown.before)}" size="16"></label> '
        f'<label>per page <input name="size" value="{shown.size}" size="3"></label> '
        '<button type="submit">show</button> '
        f'<a href="{quick}">the last game day</a></form>'
    )
    body = (
        _notice(notice) + f"<h1>{h(p.name)} <small class=muted>{h(agent.agent_id)}</small></h1>"
        f'<div class="columns"><section><h2>Persona</h2><dl class="facts">{persona}</dl>'
        f"</section><section><h2>Now</h2>{_now(world_id, view)}</section></div>"
        f"{_relationships(world_id, agent)}"
        f"<section><h2>Why this memory?</h2>{why_form(world_id, agent.agent_id, view)}"
        "</section>"
        f"<section><h2>Memory stream <small class=muted>({view.memories} memories, oldest "
        f"first)</small></h2>{filters}{table}"
        f'<p class="pager">{" ".join(pager)}</p></section>'
    )
    crumbs = [
        (link("world", world=world_id), world_id),
        (link("agent", world=world_id, agent=agent.agent_id), p.name or agent.agent_id),
    ]
    return layout(p.name or agent.agent_id, crumbs, body)


def _relationships(world_id: str, agent: pb.Agent) -> str:
    """What the agent thinks of each agent it talked with (GetAgent's relationships)."""
    rows = "".join(
        f'<li><a href="{link("agent", world=world_id, agent=r.other_agent_id)}">'
        f"{h(r.other_agent_id)}</a>: {h(r.summary)} <small class=muted>({r.conversations} "
        f"conversation{'' if r.conversations == 1 else 's'})</small></li>"
        for r in agent.relationships
    )
    shown = (
        f'<ul id="relationships">{rows}</ul>'
        if rows
        else ('<p class="muted" id="relationships">No conversation yet.</p>')
    )
    return f"<section><h2>Relationships</h2>{shown}</section>"


def _notice(notice: str) -> str:
    return f'<p class="notice" id="notice">{h(notice)}</p>' if notice else ""


def _now(world_id: str, v: AgentView) -> str:
    plan = ""
    if v.plan:
        current = _current_block(v)
        items = "".join(
            f"<li{' class=current' if i == current else ''}>{hour}:00 {h(activity)}</li>"
            for i, (hour, activity) in enumerate(v.plan)
        )
        plan = f"<p>Today's plan (wakes at {v.wake_hour}:00):</p><ol class=plan>{items}</ol>"
    return (
        f"<p>{_doing(world_id, v)}</p><p>state: {_state(v)}</p>{plan}"
        f"<p class=muted>latest game time seen: {h(format_time(v.latest_game_time))}</p>"
    )


def _memory_href(world_id: str, agent_id: str, memory_id: str) -> str:
    return link("memory", world=world_id, agent=agent_id, id=memory_id)


def _source(m: pb.Memory) -> str:
    kind = pb.SourceKind.Name(m.source.kind).lower().replace("source_kind_unspecified", "seen")
    return h(kind + (f" from {m.source.agent_id}" if m.source.agent_id else ""))


def _memory_row(world_id: str, agent_id: str, m: pb.Memory, superseded: Mapping[str, str]) -> str:
    evidence = " ".join(
        f'<a class="evidence" href="{_memory_href(world_id, agent_id, e)}">#{h(e)}</a>'
        for e in m.evidence_ids
    )
    note = ""
    if m.memory_id in superseded:
        new = superseded[m.memory_id]
        note = (
            f' <span class="superseded">superseded by <a href='
            f'"{_memory_href(world_id, agent_id, new)}">#{h(new)}</a></span>'
        )
    expires = format_time(seconds(m.expires)) if m.HasField("expires") else ""
    kind = pb.MemoryKind.Name(m.kind)
    return (
        f'<tr id="m-{h(m.memory_id)}" class="{h(kind.lower())}" data-memory-id="{h(m.memory_id)}">'
        f'<td><a class="memory-link" href="{_memory_href(world_id, agent_id, m.memory_id)}">'
        f"#{h(m.memory_id)}</a></td>"
        f'<td class="time">{h(format_time(seconds(m.created)))}</td><td>{h(kind.lower())}</td>'
        f'<td class="num">{m.importance:.1f}</td><td>{_source(m)}</td>'
        f'<td class="text">{h(m.description)}{note}</td><td>{evidence}</td>'
        f'<td class="time">{h(format_time(seconds(m.last_accessed)))}</td>'
        f'<td class="time">{h(expires)}</td></tr>'
    )


# Memory -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceNode:
    memory_id: str
    memory: pb.Memory | None  # None: forgotten (or not this agent's)
    children: tuple[EvidenceNode, ...] = ()


def memory_page(
    world_id: str,
    agent: pb.Agent,
    m: pb.Memory,
    evidence: Sequence[EvidenceNode],
    superseded_by: str,
    amends: str,
    view: AgentView,
    csrf: str,
    text_limit: int,
    notice: str = "",
) -> str:
    kind = pb.MemoryKind.Name(m.kind)
    facts = [
        ("kind", kind.lower()),
        ("created", format_time(seconds(m.created))),
        ("last accessed", format_time(seconds(m.last_accessed))),
        ("importance", f"{m.importance:g}"),
        ("source", ""),
        ("address", m.address),
        (
            "subject / predicate / object",
            " / ".join((m.subject, m.predicate, m.object)) if m.subject or m.object else "",
        ),
        ("depth", str(m.depth) if m.depth else ""),
        ("expires", format_time(seconds(m.expires)) if m.HasField("expires") else ""),
        ("may be told to", "nobody (private)" if m.private else ", ".join(m.share_with)),
    ]
    rows = "".join(
        f"<dt>{h(k)}</dt><dd>{_source(m) if k == 'source' else h(v)}</dd>"
        for k, v in facts
        if v or k == "source"
    )
    links = []
    if superseded_by:
        links.append(
            f'<p class="superseded" id="superseded-by">Superseded by an amendment: <a href="'
            f'{_memory_href(world_id, agent.agent_id, superseded_by)}">#{h(superseded_by)}</a>'
            " (kept, and still recalled, until forgotten)</p>"
        )
    if amends:
        links.append(
            f'<p class="amends" id="amends">Amends <a href="'
            f'{_memory_href(world_id, agent.agent_id, amends)}">#{h(amends)}</a></p>'
        )
    tree = (
        '<section><h2>Evidence</h2><ul class="tree" id="evidence">'
        f"{_tree(world_id, agent, evidence)}</ul></section>"
        if evidence
        else ""
    )
    why = link(
        "why",
        world=world_id,
        agent=agent.agent_id,
        q=m.description,
        focus=m.memory_id,
        time=time_input(view.latest_game_time),
    )
    importance = max(1, min(10, round(m.importance)))
    hidden = (
        f'<input type="hidden" name="world" value="{h(world_id)}">'
        f'<input type="hidden" name="agent" value="{h(agent.agent_id)}">'
        f'<input type="hidden" name="id" value="{h(m.memory_id)}">'
        f'<input type="hidden" name="csrf" value="{h(csrf)}">'
    )
    correct = (
        "<section><h2>Correct</h2>"
        f'<form class="amend" id="amend" method="post" action="{PREFIX}/amend">{hidden}'
        "<p>Amend: stores what the agent should remember instead as a new memory (source:"
        " author) that cites this one; this one is kept, marked superseded here.</p>"
        f'<textarea name="text" rows="3" cols="80" maxlength="{text_limit}" required>'
        f"{h(m.description)}</textarea><br>"
        f'<label>importance <input name="importance" value="{importance}" size="2"></label> '
        f'<label>at game time <input name="time" value="{h(time_input(view.latest_game_time))}"'
        ' size="20"></label> '
        '<label>by <input name="by" size="14" maxlength="64" placeholder="your name"></label> '
        '<button type="submit" id="amend-button">amend</button></form>'
        f'<form class="forget" id="forget" method="post" action="{PREFIX}/forget" '
        'data-confirm="Forget this memory for good?">'
        f"{hidden}<p>Forget: deletes the memory from the store and the index, for good.</p>"
        '<label>by <input name="by" size="14" maxlength="64" placeholder="your name"></label> '
        '<button type="submit" id="forget-button" class="danger">forget</button></form>'
        "</section>"
    )
    body = (
        _notice(notice)
        + f'<h1>Memory #{h(m.memory_id)} <small class="muted">of {h(agent.persona.name)}'
        f"</small></h1>"
        f'<blockquote class="text" id="memory-text">{h(m.description)}</blockquote>'
        f'{"".join(links)}<dl class="facts">{rows}</dl>'
        f'<p><a href="{why}" id="why-link">Why would this memory come up? (its rank for its own'
        " text)</a></p>"
        f"{tree}{correct}"
    )
    crumbs = [
        (link("world", world=world_id), world_id),
        (link("agent", world=world_id, agent=agent.agent_id), agent.persona.name),
        (_memory_href(world_id, agent.agent_id, m.memory_id), f"#{m.memory_id}"),
    ]
    return layout(f"Memory #{m.memory_id}", crumbs, body)


def _tree(world_id: str, agent: pb.Agent, nodes: Sequence[EvidenceNode]) -> str:
    items = []
    for node in nodes:
        href = _memory_href(world_id, agent.agent_id, node.memory_id)
        if node.memory is None:
            items.append(f'<li class="forgotten">#{h(node.memory_id)} (forgotten)</li>')
            continue
        m = node.memory
        children = f"<ul>{_tree(world_id, agent, node.children)}</ul>" if node.children else ""
        items.append(
            f'<li data-memory-id="{h(m.memory_id)}"><a class="evidence" href="{href}">'
            f"#{h(m.memory_id)}</a> <small class=muted>{h(pb.MemoryKind.Name(m.kind).lower())},"
            f" importance {m.importance:g}, {h(format_time(seconds(m.created)))}</small> "
            f'<span class="text">{h(m.description)}</span>{children}</li>'
        )
    return "".join(items)


# Why this memory ---------------------------------------------------------------------------


def why_form(world_id: str, agent_id: str, view: AgentView, asked: WhyAsked | None = None) -> str:
    a = asked or WhyAsked(query="", k=0, game_time=view.latest_game_time, weights=None, kinds=())
    w = a.weights

    def weight(name: str, value: float | None) -> str:
        shown = "" if value is None else f"{value:g}"
        return f'<label>{name} <input name="w_{name[:3]}" value="{shown}" size="3"></label> '

    return (
        f'<form class="why" id="why-form" method="get" action="{PREFIX}/why">'
        f'<input type="hidden" name="world" value="{h(world_id)}">'
        f'<input type="hidden" name="agent" value="{h(agent_id)}">'
        f'<label>query <input name="q" id="why-query" value="{h(a.query)}" size="50" required'
        ' placeholder="what the agent is thinking about"></label> '
        f'<label>k <input name="k" value="{a.k or ""}" size="3" placeholder="10"></label> '
        f'<label>at game time <input name="time" value="{h(time_input(a.game_time))}"'
        ' size="20"></label><br>'
        "<small>weights (empty: the server's):</small> "
        + weight("recency", None if w is None else w.recency or None)
        + weight("importance", None if w is None else w.importance or None)
        + weight("relevance", None if w is None else w.relevance or None)
        + '<label>kind <select name="kind"><option value="">all</option>'
        f"{options([(k, k.lower()) for k in KINDS], a.kinds)}</select></label> "
        '<button type="submit" id="why-button">explain</button></form>'
    )


@dataclass(frozen=True)
class WhyAsked:
    query: str
    k: int
    game_time: GameTime | None
    weights: Weights | None  # as asked; zeros (or None) mean the server's
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class WhyAnswer:
    weights: Weights  # as applied
    k: int
    chosen: Sequence[pb.ScoredMemory]
    not_chosen: Sequence[tuple[int, pb.ScoredMemory]]  # (rank, memory), most important first
    focus: tuple[int, pb.ScoredMemory] | None  # the memory asked about, with its rank
    candidates: int
    recalled: bool  # the top k were recalled through the Retrieve RPC (marked accessed)


def why_page(
    world_id: str,
    agent: pb.Agent,
    view: AgentView,
    asked: WhyAsked,
    answer: WhyAnswer | None,
    csrf: str,
) -> str:
    form = why_form(world_id, agent.agent_id, view, asked)
    result = "" if answer is None else _why_result(world_id, agent.agent_id, asked, answer, csrf)
    crumbs = [
        (link("world", world=world_id), world_id),
        (link("agent", world=world_id, agent=agent.agent_id), agent.persona.name),
        (link("why", world=world_id, agent=agent.agent_id), "why this memory"),
    ]
    body = (
        f"<h1>Why this memory? <small class=muted>{h(agent.persona.name)}</small></h1>"
        f"{form}{result}"
    )
    return layout("Why this memory", crumbs, body)


def _why_result(world_id: str, agent_id: str, asked: WhyAsked, answer: WhyAnswer, csrf: str) -> str:
    w = answer.weights
    kth = answer.chosen[-1] if answer.chosen else None
    how = (
        "Recalled through the Retrieve RPC: these memories are now marked accessed at this "
        "game time, as when the agent thinks of it."
        if answer.recalled
        else "Explained without recalling: nothing was marked accessed. These are the numbers"
        " the Retrieve RPC answers for the same query, k, game time, weights and kinds."
    )
    header = (
        f'<div id="why-result" data-game-time="{asked.game_time!r}" data-k="{answer.k}" '
        f'data-w-recency="{w.recency!r}" data-w-importance="{w.importance!r}" '
        f'data-w-relevance="{w.relevance!r}" data-query="{h(asked.query)}">'
        f"<p>score = {w.recency:g} &times; recency + {w.importance:g} &times; importance + "
        f"{w.relevance:g} &times; relevance, each term min-max normalised over the "
        f"{answer.candidates} memories the query may return, at game time "
        f"{h(format_time(asked.game_time))}.</p><p class=muted>{how}</p>"
        "<p class=muted>With hybrid retrieval (the setting <code>retrieval</code>) relevance "
        "is the memory's rank by embedding (dense rank) and by BM25 in the full-text index "
        "fused by reciprocal rank; a dash: not among that list's best. A question that looks "
        "back weighs recency at a tenth.</p>"
    )
    chosen = "".join(
        _scored_row(world_id, agent_id, i + 1, s, w, None) for i, s in enumerate(answer.chosen)
    )
    chosen_table = (
        f"<h2>Chosen: the top {answer.k}</h2>" + _scored_table("chosen", chosen, gap=False)
        if answer.chosen
        else "<p>No memory matches.</p>"
    )
    others = "".join(
        _scored_row(world_id, agent_id, rank, s, w, kth) for rank, s in answer.not_chosen
    )
    others_table = (
        "<h2>The most important memories not chosen</h2>"
        "<p class=muted>By importance rating; <em>kept out by</em> is the term whose weighted "
        "value falls furthest below the last chosen memory's.</p>"
        + _scored_table("not-chosen", others, gap=True)
        if answer.not_chosen
        else ""
    )
    focus = ""
    if answer.focus is not None:
        rank, s = answer.focus
        chosen_ids = {c.memory.memory_id for c in answer.chosen}
        if s.memory.memory_id in chosen_ids:
            focus = (
                f'<p id="focus-chosen">Memory #{h(s.memory.memory_id)} is chosen, at rank {rank}.'
                "</p>"
            )
        else:
            focus = f"<h2>Memory #{h(s.memory.memory_id)}, not chosen</h2>" + _scored_table(
                "focus", _scored_row(world_id, agent_id, rank, s, w, kth), gap=True
            )
    recall = ""
    if not answer.recalled:
        fields = {
            "world": world_id,
            "agent": agent_id,
            "q": asked.query,
            "k": str(asked.k or ""),
            "time": repr(asked.game_time),
            "kind": ",".join(asked.kinds),
            "csrf": csrf,
        }
        if asked.weights is not None:
            fields |= {
                "w_rec": f"{asked.weights.recency!r}",
                "w_imp": f"{asked.weights.importance!r}",
                "w_rel": f"{asked.weights.relevance!r}",
            }
        hidden = "".join(
            f'<input type="hidden" name="{h(k)}" value="{h(v)}">' for k, v in fields.items()
        )
        recall = (
            f'<form method="post" action="{PREFIX}/why" id="recall-form">{hidden}'
            '<button type="submit" id="recall-button">recall it through Retrieve</button> '
            "<small class=muted>(marks the top k accessed at this game time, which raises their"
            " recency from now on)</small></form>"
        )
    return f"{header}{focus}{chosen_table}{recall}{others_table}</div>"


def _scored_table(table_id: str, rows: str, *, gap: bool) -> str:
    extra = "<th>below the k-th</th><th>kept out by</th>" if gap else ""
    return (
        f'<table class="scored" id="{h(table_id)}"><thead><tr><th>rank</th><th>#</th>'
        "<th>score</th><th>recency</th><th>importance</th><th>relevance</th>"
        "<th>dense rank</th><th>BM25 rank</th>"
        f"<th>rating</th><th>kind</th><th>memory</th>{extra}</tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _scored_row(
    world_id: str,
    agent_id: str,
    rank: int,
    s: pb.ScoredMemory,
    w: Weights,
    kth: pb.ScoredMemory | None,
) -> str:
    m = s.memory
    values = {"score": s.score, "recency": s.recency, "importance": s.importance}
    values["relevance"] = s.relevance
    data = " ".join(f'data-{k}="{v!r}"' for k, v in values.items())
    cells = "".join(f'<td class="num {k}">{v:.4f}</td>' for k, v in values.items())
    ranks = {"dense-rank": s.dense_rank, "lexical-rank": s.lexical_rank}
    data += "".join(f' data-{k}="{v}"' for k, v in ranks.items())
    cells += "".join(f'<td class="num {k}">{v or "-"}</td>' for k, v in ranks.items())
    extra = ""
    if kth is not None:
        shortfall = {
            term: getattr(w, term) * (getattr(kth, term) - getattr(s, term)) for term in TERMS
        }
        worst = max(TERMS, key=lambda t: shortfall[t])
        why = f"{worst} (-{shortfall[worst]:.4f})" if shortfall[worst] > 0 else "ties"
        gap = kth.score - s.score
        extra = f'<td class="num gap">{gap:.4f}</td><td class="kept-out">{h(why)}</td>'
    return (
        f'<tr data-memory-id="{h(m.memory_id)}" data-rank="{rank}" {data}>'
        f'<td class="num">{rank}</td><td><a href="{_memory_href(world_id, agent_id, m.memory_id)}">'
        f"#{h(m.memory_id)}</a></td>{cells}<td class=num>{m.importance:g}</td>"
        f"<td>{h(pb.MemoryKind.Name(m.kind).lower())}</td>"
        f'<td class="text">{h(m.description)}</td>{extra}</tr>'
    )
