"""The memory inspector over plain HTTP: who may look, what the pages hold, how changes
are guarded and made (the browser tests in tests/browser click through the same pages)."""

from __future__ import annotations

import html
import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import grpc
import pytest

from npc_brain.v1 import brain_pb2 as pb
from tests.inspector_town import (
    AUTH,
    HOSTILE,
    ISABELLA,
    REFLECTION,
    T0,
    TOKEN,
    Browserless,
    at,
    csrf_of,
    town,
)

BEARER = {"Authorization": f"Bearer {TOKEN}"}


def test_a_missing_or_wrong_token_gets_401_and_the_right_one_a_strict_cookie(
    tmp_path: Path,
) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        for path, headers in (
            ("/inspect", {}),
            ("/inspect/world?world=default", {"Authorization": "Bearer wrong"}),
            ("/inspect/static/../world?world=default", {}),
        ):
            status, _, page, _ = client.get(path, **headers)
            assert status in (401, 404), path
            assert "Isabella" not in page
        status, headers, page, set_cookies = client.get("/inspect?token=wrong")
        assert status == 401 and set_cookies == [] and "www-authenticate" in headers
        assert 'name="token"' in page  # the login form

        status, headers, _, set_cookies = client.get(f"/inspect/world?world=default&token={TOKEN}")
        assert status == 303
        assert headers["location"] == "/inspect/world?world=default"  # the token is dropped
        token_cookie = next(c for c in set_cookies if c.startswith("npc_brain_token="))
        for attribute in ("HttpOnly", "SameSite=Strict", "Path=/inspect"):
            assert attribute in token_cookie
        status, headers, page, _ = client.get("/inspect/world?world=default")
        assert status == 200 and "Isabella Rodriguez" in page
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"


def test_the_inspector_is_off_with_its_setting(tmp_path: Path) -> None:
    with town(tmp_path, inspector=False) as t:
        status, _, _, _ = Browserless(t.port).get("/inspect", **BEARER)
        assert status == 404
        assert t.doors.http.post("GetAgent", {"agent_id": "isabella"}).status == 401


def test_without_a_token_only_pages_opened_on_this_machine_are_served(tmp_path: Path) -> None:
    with town(tmp_path, token="") as t:
        client = Browserless(t.port)
        assert client.get("/inspect/world?world=default")[0] == 200
        for host in (f"localhost:{t.port}", f"[::1]:{t.port}"):
            assert client.get("/inspect", Host=host)[0] == 200
        for host in (f"rebound.example:{t.port}", "[broken", ""):
            status, _, page, _ = client.get("/inspect", Host=host)
            assert status == 403 and "DNS rebinding" in page, host
        status, _, _, _ = client.get(f"/inspect?token={TOKEN}", Host="rebound.example")
        assert status == 403


def test_world_and_agent_pages_show_actions_memories_and_usage(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        status, _, home, _ = client.get("/inspect", **BEARER)
        assert status == 200 and 'href="/inspect/world?world=default"' in home
        _, _, world, _ = client.get("/inspect/world?world=default", **BEARER)
        assert "serving coffee to the customers" in world and "writing his research paper" in world
        assert 'href="/inspect/agent?world=default&amp;agent=isabella"' in world
        assert 'id="calls-by-kind"' in world and "<td>importance</td>" in world
        assert 'id="calls-by-hour"' in world
        _, _, agent, _ = client.get("/inspect/agent?world=default&agent=isabella", **BEARER)
        for text, _, _, _ in ISABELLA:
            assert text in unescape(agent)
        assert "heard from maria" in agent
        reflection_row = re.search(rf'<tr id="m-{t.reflection_id}".*?</tr>', agent)
        assert reflection_row is not None
        for evidence in t.evidence_ids:
            assert f"id={evidence}" in reflection_row.group(0)

        assert '<p class="muted" id="relationships">No conversation yet.</p>' in agent
        store = t.doors.grpc.brain._worlds.get("default").store  # noqa: SLF001
        store.relationships.save("isabella", "klaus", "Klaus and I <talk> daily.", T0)
        _, _, agent, _ = client.get("/inspect/agent?world=default&agent=isabella", **BEARER)
        assert (
            '<ul id="relationships"><li><a href="/inspect/agent?world=default&amp;agent=klaus">'
            "klaus</a>: Klaus and I &lt;talk&gt; daily. <small class=muted>(1 conversation)"
            in agent
        )

        _, _, paged, _ = client.get("/inspect/agent?world=default&agent=isabella&size=4", **BEARER)
        assert paged.count('class="memory-link"') == 4 and 'id="next-page"' in paged
        _, _, reflections, _ = client.get(
            "/inspect/agent?world=default&agent=isabella&kind=REFLECTION", **BEARER
        )
        assert REFLECTION.replace("'", "&#x27;") in reflections
        assert reflections.count('class="memory-link"') == 1


def test_a_memory_page_shows_the_evidence_tree_of_a_reflection(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        path = f"/inspect/memory?world=default&agent=isabella&id={t.reflection_id}"
        status, _, page, _ = client.get(path, **BEARER)
        assert status == 200
        tree = page[page.index('id="evidence"') :]
        for evidence in t.evidence_ids:
            assert f'data-memory-id="{evidence}"' in tree
        status, _, _, _ = client.get(
            "/inspect/memory?world=default&agent=klaus&id=" + t.evidence_ids[0], **BEARER
        )
        assert status == 404  # another agent's memory is not reachable through klaus


def _numbers(page: str, table: str) -> list[dict[str, str]]:
    section = page[page.index(f'id="{table}"') :]
    section = section[: section.index("</table>")]
    return [
        dict(re.findall(r'data-([a-z-]+)="([^"]*)"', row))
        for row in re.findall(r"<tr data-memory-id=[^>]*>", section)
    ]


def test_why_this_memory_equals_the_retrieve_rpc_and_recalls_nothing(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        before = {m.memory_id: m.last_accessed.seconds for m in t.memories()}
        query = {"world": "default", "agent": "isabella", "q": "the party at the cafe", "k": "3"}
        status, _, page, _ = client.get("/inspect/why?" + urlencode(query), **BEARER)
        assert status == 200
        assert {m.memory_id: m.last_accessed.seconds for m in t.memories()} == before
        head = page[page.index('id="why-result"') :].split(">", 1)[0]
        result = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', head))
        game_time = float(result["game-time"])
        assert game_time == T0 + 95 * 60  # the latest game time the agent's state shows
        chosen = _numbers(page, "chosen")
        answer = t.doors.stub.Retrieve(
            pb.RetrieveRequest(
                agent_id="isabella",
                game_time=at((game_time - T0) / 60),
                query=query["q"],
                k=3,
            ),
            metadata=AUTH,
        )
        assert [row["memory-id"] for row in chosen] == [s.memory.memory_id for s in answer.memories]
        for row, scored in zip(chosen, answer.memories, strict=True):
            for term in ("score", "recency", "importance", "relevance"):
                assert float(row[term]) == getattr(scored, term), term
        left_out = _numbers(page, "not-chosen")
        chosen_ids = {row["memory-id"] for row in chosen}
        assert left_out and not chosen_ids & {row["memory-id"] for row in left_out}
        ratings = {m.memory_id: m.importance for m in t.memories()}
        outside = sorted((ratings[i] for i in ratings if i not in chosen_ids), reverse=True)
        assert [ratings[row["memory-id"]] for row in left_out] == outside[: len(left_out)]
        assert "kept-out" in page


def test_recalling_goes_through_retrieve_and_marks_the_top_k_accessed(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        query = {"world": "default", "agent": "isabella", "q": "coffee", "k": "2"}
        _, _, page, _ = client.get("/inspect/why?" + urlencode(query), **BEARER)
        recall_form = page[page.index('id="recall-form"') :].split("</form>", 1)[0]
        form = dict(
            re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', recall_form)
        )
        status, _, recalled, _ = client.request(
            "POST", "/inspect/why", urlencode({k: unescape(v) for k, v in form.items()}), BEARER
        )
        assert status == 200 and "Recalled through the Retrieve RPC" in recalled
        chosen = _numbers(recalled, "chosen")
        accessed = {m.memory_id: m.last_accessed.seconds for m in t.memories()}
        for row in chosen:
            assert accessed[row["memory-id"]] == T0 + 95 * 60


def test_changes_need_the_session_csrf_token_and_this_origin(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        client.log_in()
        victim = t.ids[ISABELLA[1][0]]
        _, _, page, _ = client.get(f"/inspect/memory?world=default&agent=isabella&id={victim}")
        csrf = csrf_of(page)
        form = {"world": "default", "agent": "isabella", "id": victim}
        refused = [
            ({**form}, {}),  # no CSRF token
            ({**form, "csrf": "0" * 64}, {}),  # a wrong one
            ({**form, "csrf": csrf}, {"Origin": "http://evil.example"}),
            ({**form, "csrf": csrf}, {"Sec-Fetch-Site": "cross-site"}),
            ({**form, "csrf": csrf}, {"Content-Type": "text/plain"}),
        ]
        for body, headers in refused:
            status, _, _, _ = client.request("POST", "/inspect/forget", urlencode(body), headers)
            assert status in (403, 415), (body, headers)
        stranger = Browserless(t.port)  # the right token but another session
        status, _, _, _ = stranger.request(
            "POST", "/inspect/forget", urlencode({**form, "csrf": csrf}), BEARER
        )
        assert status == 403
        assert victim in {m.memory_id for m in t.memories()}

        status, headers, _, _ = client.request(
            "POST",
            "/inspect/forget",
            urlencode({**form, "csrf": csrf, "by": "Dana"}),
            {"Origin": f"http://127.0.0.1:{t.port}"},
        )
        assert status == 303 and "notice=forgot" in headers["location"]
        assert victim not in {m.memory_id for m in t.memories()}
        with pytest.raises(grpc.RpcError) as error:
            t.doors.stub.ForgetMemory(
                pb.ForgetMemoryRequest(agent_id="isabella", memory_id=victim), metadata=AUTH
            )
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
        audit = tmp_path / "data" / "inspector" / "audit.jsonl"
        (line,) = audit.read_text().splitlines()
        record = json.loads(line)
        assert (record["action"], record["memory_id"], record["by"]) == ("forget", victim, "Dana")
        assert record["peer"].startswith("ipv4:127.0.0.1") and record["wall_time"]
        _, _, world, _ = client.get("/inspect/world?world=default")
        assert "Dana" in world and 'id="corrections"' in world


def test_an_amendment_is_a_new_author_memory_citing_the_old_one_which_is_kept(
    tmp_path: Path,
) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        client.log_in()
        old = t.ids[ISABELLA[3][0]]
        _, _, page, _ = client.get(f"/inspect/memory?world=default&agent=isabella&id={old}")
        body = {
            "world": "default",
            "agent": "isabella",
            "id": old,
            "csrf": csrf_of(page),
            "text": "the cafe's coffee machine was repaired",
            "importance": "4",
            "by": "Dana",
        }
        status, headers, _, _ = client.request("POST", "/inspect/amend", urlencode(body))
        assert status == 303
        memories = {m.memory_id: m for m in t.memories()}
        assert old in memories  # kept
        (new,) = [m for m in memories.values() if "repaired" in m.description]
        assert new.description == f"the cafe's coffee machine was repaired (amends memory {old})"
        assert new.source.kind == pb.AUTHOR and new.importance == 4
        assert new.created.seconds == T0 + 95 * 60
        assert f"id={new.memory_id}" in headers["location"]
        _, _, old_page, _ = client.get(f"/inspect/memory?world=default&agent=isabella&id={old}")
        assert 'id="superseded-by"' in old_page and f"id={new.memory_id}" in old_page
        _, _, new_page, _ = client.get(headers["location"])
        assert 'id="amends"' in new_page
        _, _, stream, _ = client.get("/inspect/agent?world=default&agent=isabella")
        assert "superseded by" in stream


def test_an_amended_secret_stays_a_secret(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        secret = t.doors.stub.AddMemory(
            pb.AddMemoryRequest(
                agent_id="isabella",
                game_time=at(0),
                kind=pb.OBSERVATION,
                observation=pb.Observation(text="the safe code is 1234", share_with=["klaus"]),
            ),
            metadata=AUTH,
        )
        client = Browserless(t.port)
        client.log_in()
        path = f"/inspect/memory?world=default&agent=isabella&id={secret.memory_id}"
        _, _, page, _ = client.get(path)
        assert "may be told to" in page and "klaus" in page
        body = {
            "world": "default",
            "agent": "isabella",
            "id": secret.memory_id,
            "csrf": csrf_of(page),
            "text": "the safe code is 4321",
        }
        status, _, _, _ = client.request("POST", "/inspect/amend", urlencode(body))
        assert status == 303
        (new,) = [m for m in t.memories() if "4321" in m.description]
        assert (new.private, list(new.share_with)) == (False, ["klaus"])


def test_memory_texts_are_always_escaped(tmp_path: Path) -> None:
    with town(tmp_path, hostile=True) as t:
        client = Browserless(t.port)
        pages = [
            "/inspect/world?world=default",
            "/inspect/agent?world=default&agent=mallory",
            "/inspect/why?" + urlencode({"world": "default", "agent": "mallory", "q": "party"}),
        ]
        pages += [
            f"/inspect/memory?world=default&agent=mallory&id={m.memory_id}"
            for m in t.memories("mallory")
        ]
        for path in pages:
            status, _, page, _ = client.get(path, **BEARER)
            assert status == 200, path
            assert "<script>window" not in page and "<img" not in page and "<svg onload" not in page
            assert "<b onmouseover" not in page and "<i>attic" not in page
        _, _, page, _ = client.get("/inspect/agent?world=default&agent=mallory", **BEARER)
        for text in HOSTILE:
            assert html.escape(text, quote=True) in page
        _, _, error, _ = client.get("/inspect/agent?world=default&agent=<script>", **BEARER)
        assert "<script>" not in error


def test_unknown_pages_methods_and_bad_fields(tmp_path: Path) -> None:
    with town(tmp_path) as t:
        client = Browserless(t.port)
        assert client.get("/inspect/nothing", **BEARER)[0] == 404
        assert client.request("POST", "/inspect/world", "", BEARER)[0] == 405
        assert client.get("/inspect/world?world=nowhere", **BEARER)[0] == 404
        assert client.get("/inspect/agent?world=default&agent=nobody", **BEARER)[0] == 404
        status, _, page, _ = client.get(
            "/inspect/agent?world=default&agent=isabella&after=yesterday", **BEARER
        )
        assert status == 400 and "after" in page
        assert client.get("/inspect/static/inspector.js")[0] == 200
        assert client.get("/inspect/static/secret.py")[0] == 404
