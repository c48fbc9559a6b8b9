"""The memory inspector in a real headless Chromium: log in with the token, click world ->
agent -> memory -> evidence, ask why a memory comes up (the numbers are the Retrieve
RPC's), amend and forget memories and see it through the API, and check that hostile
memory texts and cross-site forms stay harmless. With NPC_BRAIN_SCREENSHOTS set, the
pictures of the README are written on the way."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from npc_brain.action import Action
from npc_brain.server.convert import time_to_pb
from npc_brain.v1 import brain_pb2 as pb
from tests.browser.conftest import screenshot
from tests.inspector_town import (
    AUTH,
    HOSTILE,
    ISABELLA,
    REFLECTION,
    T0,
    TOKEN,
    Town,
    set_action,
    town,
)

TERMS = ("score", "recency", "importance", "relevance")
# Elements a memory text would have made had it been markup: scripts, images, bold and
# italics in the page's body, and any event handler attribute anywhere.
MARKUP_FROM_MEMORIES = """
return [...document.querySelectorAll("*")]
  .filter((e) => (e.closest("main") && ["SCRIPT", "IMG", "B", "I"].includes(e.tagName))
    || [...e.attributes].some((a) => a.name.startsWith("on")))
  .map((e) => e.outerHTML.slice(0, 80));
"""


def wait(driver: webdriver.Chrome, seconds: float = 10) -> WebDriverWait[webdriver.Chrome]:
    """Waits for a condition; a page that replaces the element being read (the live
    world page redraws its lists) is read again."""
    return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException])


def log_in(driver: webdriver.Chrome, t: Town) -> None:
    driver.get(t.url(f"/inspect?token={TOKEN}"))
    assert driver.current_url == t.url("/inspect")  # the token left the address


def go(driver: webdriver.Chrome, element: WebElement) -> None:
    """Clicks a link or a submit button and waits for the next page."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait(driver).until(lambda _: gone(page))


def gone(element: WebElement) -> bool:
    """Whether the element's page has been replaced: as expected_conditions.staleness_of,
    and also when chromedriver, asked while the page changes, answers that the node does
    not belong to the document (seen once in CI)."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise
    return False


def fill(element: WebElement, text: str) -> None:
    element.clear()
    element.send_keys(text)


def test_the_token_is_asked_for_and_kept_where_scripts_cannot_read_it(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        browser.get(t.url("/inspect/world?world=default"))
        assert browser.find_element(By.TAG_NAME, "h1").text == "401 UNAUTHENTICATED"
        assert "Isabella" not in browser.page_source
        fill(browser.find_element(By.NAME, "token"), "not the token")
        go(browser, browser.find_element(By.CSS_SELECTOR, "form.login button"))
        assert browser.find_element(By.TAG_NAME, "h1").text == "401 UNAUTHENTICATED"
        fill(browser.find_element(By.NAME, "token"), TOKEN)
        go(browser, browser.find_element(By.CSS_SELECTOR, "form.login button"))
        assert browser.current_url == t.url("/inspect")
        assert browser.find_element(By.TAG_NAME, "h1").text == "Worlds"
        assert browser.execute_script("return document.cookie") == ""  # HttpOnly


def test_click_through_world_agent_memory_and_its_evidence(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        log_in(browser, t)
        go(browser, browser.find_element(By.LINK_TEXT, "default"))
        agents = browser.find_element(By.ID, "agents")
        assert "serving coffee to the customers" in agents.text
        assert "writing his research paper" in agents.text
        assert browser.find_elements(By.CSS_SELECTOR, "#calls-by-hour rect")
        screenshot(browser, "world")

        go(browser, browser.find_element(By.LINK_TEXT, "Isabella Rodriguez"))
        rows = browser.find_elements(By.CSS_SELECTOR, "#memories tbody tr")
        assert len(rows) == len(ISABELLA) + 1
        assert "heard from maria" in browser.find_element(By.ID, "memories").text
        screenshot(browser, "agent")

        reflection = browser.find_element(By.ID, f"m-{t.reflection_id}")
        evidence = [a.text for a in reflection.find_elements(By.CSS_SELECTOR, "a.evidence")]
        assert evidence == [f"#{e}" for e in t.evidence_ids]
        go(browser, reflection.find_element(By.CSS_SELECTOR, "a.memory-link"))
        assert browser.find_element(By.ID, "memory-text").text == REFLECTION
        tree = browser.find_element(By.ID, "evidence")
        assert ISABELLA[2][0] in tree.text and ISABELLA[4][0] in tree.text
        screenshot(browser, "memory")

        go(
            browser,
            tree.find_element(By.CSS_SELECTOR, f'li[data-memory-id="{t.evidence_ids[1]}"] a'),
        )
        assert browser.find_element(By.ID, "memory-text").text == ISABELLA[4][0]
        assert "heard from maria" in browser.find_element(By.CSS_SELECTOR, "dl.facts").text


def test_why_this_memory_shows_the_numbers_of_the_retrieve_rpc(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        log_in(browser, t)
        browser.get(t.url("/inspect/agent?world=default&agent=isabella"))
        fill(browser.find_element(By.ID, "why-query"), "party friends Valentine")
        fill(browser.find_element(By.NAME, "k"), "3")
        go(browser, browser.find_element(By.ID, "why-button"))

        result = browser.find_element(By.ID, "why-result")
        game_time = float(result.get_attribute("data-game-time") or "nan")
        chosen = browser.find_elements(By.CSS_SELECTOR, "#chosen tbody tr")
        left_out = browser.find_elements(By.CSS_SELECTOR, "#not-chosen tbody tr")
        assert len(chosen) == 3 and left_out
        screenshot(browser, "why")

        answer = t.doors.stub.Retrieve(
            pb.RetrieveRequest(
                agent_id="isabella",
                game_time=time_to_pb(game_time),
                query="party friends Valentine",
                k=3,
            ),
            metadata=AUTH,
        )
        assert [row.get_attribute("data-memory-id") for row in chosen] == [
            s.memory.memory_id for s in answer.memories
        ]
        for row, scored in zip(chosen, answer.memories, strict=True):
            for term in TERMS:
                assert float(row.get_attribute(f"data-{term}") or "nan") == getattr(scored, term)
                shown = row.find_element(By.CSS_SELECTOR, f"td.{term}").text
                assert shown == f"{getattr(scored, term):.4f}"
        chosen_ids = {s.memory.memory_id for s in answer.memories}
        for row in left_out:
            assert row.get_attribute("data-memory-id") not in chosen_ids
            assert row.find_element(By.CSS_SELECTOR, "td.kept-out").text
        ratings = {m.memory_id: m.importance for m in t.memories()}
        outside = sorted((r for i, r in ratings.items() if i not in chosen_ids), reverse=True)
        left_out_ratings = [ratings[row.get_attribute("data-memory-id") or ""] for row in left_out]
        assert left_out_ratings == outside[: len(left_out)]  # the most important left out


def test_amend_and_forget_memories_and_see_it_through_the_api(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        log_in(browser, t)
        old = t.ids[ISABELLA[3][0]]
        browser.get(t.url("/inspect/agent?world=default&agent=isabella"))
        go(browser, browser.find_element(By.ID, f"m-{old}").find_element(By.CSS_SELECTOR, "a"))
        fill(browser.find_element(By.NAME, "text"), "the cafe's coffee machine was repaired")
        fill(browser.find_element(By.CSS_SELECTOR, "#amend input[name=by]"), "Dana")
        go(browser, browser.find_element(By.ID, "amend-button"))
        assert f"Memory {old} is amended" in browser.find_element(By.ID, "notice").text
        memories = {m.memory_id: m for m in t.memories()}
        (new,) = [m for m in memories.values() if "repaired" in m.description]
        assert old in memories and new.source.kind == pb.AUTHOR
        assert new.description.endswith(f"(amends memory {old})")
        assert browser.find_element(By.ID, "memory-text").text == new.description
        go(browser, browser.find_element(By.CSS_SELECTOR, "#amends a"))
        assert new.memory_id in browser.find_element(By.ID, "superseded-by").text

        gone = t.ids[ISABELLA[9][0]]
        browser.get(t.url(f"/inspect/memory?world=default&agent=isabella&id={gone}"))
        fill(browser.find_element(By.CSS_SELECTOR, "#forget input[name=by]"), "Dana")
        browser.find_element(By.ID, "forget-button").click()
        wait(browser).until(expected_conditions.alert_is_present())
        browser.switch_to.alert.accept()
        wait(browser).until(expected_conditions.presence_of_element_located((By.ID, "notice")))
        assert f"Memory {gone} is forgotten" in browser.find_element(By.ID, "notice").text
        assert gone not in {m.memory_id for m in t.memories()}
        with pytest.raises(grpc.RpcError) as error:
            t.doors.stub.ForgetMemory(
                pb.ForgetMemoryRequest(agent_id="isabella", memory_id=gone), metadata=AUTH
            )
        assert error.value.code() == grpc.StatusCode.NOT_FOUND

        go(browser, browser.find_element(By.LINK_TEXT, "default"))
        corrections = browser.find_element(By.ID, "corrections").text
        assert corrections.count("Dana") == 2 and "amend" in corrections


def test_hostile_memory_texts_stay_inert_text(tmp_path: Path, browser: webdriver.Chrome) -> None:
    browser.get("data:text/html,<main><b>x</b><img src=x onerror=1></main>")
    assert len(browser.execute_script(MARKUP_FROM_MEMORIES)) == 2  # the check sees markup
    with town(tmp_path, hostile=True) as t:
        log_in(browser, t)
        pages = [
            "/inspect/world?world=default",
            "/inspect/agent?world=default&agent=mallory",
            "/inspect/why?world=default&agent=mallory&q=party+secret+picture",
        ]
        pages += [
            f"/inspect/memory?world=default&agent=mallory&id={m.memory_id}"
            for m in t.memories("mallory")
        ]
        for path in pages:
            browser.get(t.url(path))
            main = browser.find_element(By.ID, "main")
            assert browser.execute_script(MARKUP_FROM_MEMORIES) == [], path
            webdriver.ActionChains(browser).move_to_element(main).perform()
            assert browser.execute_script("return window.pwned === undefined"), path
        browser.get(t.url("/inspect/agent?world=default&agent=mallory"))
        shown = browser.find_element(By.ID, "memories").text
        for text in HOSTILE:
            assert text in shown  # shown as the very text it is


def test_a_form_posted_from_another_origin_changes_nothing(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        log_in(browser, t)
        victim = t.ids[ISABELLA[0][0]]
        browser.get(t.url(f"/inspect/memory?world=default&agent=isabella&id={victim}"))
        csrf = browser.find_element(By.NAME, "csrf").get_attribute("value") or ""
        attack = (
            "<!doctype html><form id=f method=post "
            f'action="{t.url("/inspect/forget")}">'
            f"<input name=world value=default><input name=agent value=isabella>"
            f'<input name=id value="{victim}"><input name=csrf value="{csrf}"></form>'
            "<script>document.getElementById('f').submit()</script>"
        )
        with serving(attack) as attacker:
            browser.get(attacker)  # same site (127.0.0.1), another origin (port)
            wait(browser).until(lambda d: "/inspect/forget" in d.current_url)
        assert browser.find_element(By.TAG_NAME, "h1").text.startswith("403")
        assert victim in {m.memory_id for m in t.memories()}


def test_the_world_page_follows_the_world_as_it_changes(
    tmp_path: Path, browser: webdriver.Chrome
) -> None:
    with town(tmp_path) as t:
        log_in(browser, t)
        browser.get(t.url("/inspect/world?world=default"))
        set_action(
            t.doors,
            "klaus",
            Action(
                "feeding the ducks in the park", "the Ville:Johnson Park:pond", T0 + 6000, 20, "x"
            ),
        )
        wait(browser, 30).until(
            lambda d: "feeding the ducks" in d.find_element(By.ID, "agents").text
        )


@contextmanager
def serving(page: str) -> Iterator[str]:
    """Serves `page` from another port of 127.0.0.1 (another origin); yields its URL."""
    body = page.encode("utf-8")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # a connection the browser keeps open never blocks shutdown
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
