"""`npc-brain models check` against scripted OpenAI-compatible servers."""

from __future__ import annotations

import json

import pytest

from npc_brain.cli import main
from tests.fake_openai import FakeOpenAI, Reply, Request, chat_answer, fake_openai


def model_server(constrains: bool) -> FakeOpenAI:
    def answer(request: Request) -> Reply:
        if request.path.endswith("/models"):
            return Reply(body={"data": [{"id": "tiny"}]})
        if request.path.endswith("/embeddings"):
            return Reply(body={"data": [{"index": 0, "embedding": [0.6, 0.8]}]})
        if constrains and "response_format" in request.body:
            return chat_answer(json.dumps({"word": "kumquat-7", "count": 3}))
        return chat_answer("Hello, traveller!")

    return FakeOpenAI(default=answer)


@pytest.mark.parametrize("constrains", [True, False])
def test_check_says_whether_the_server_answers_and_constrains(
    constrains: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_openai(default=model_server(constrains).default) as fake:
        status = main(["models", "check", "--chat-url", fake.url, "--embed-url", fake.url])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert len(out) == 2 and out[0].startswith(f"chat: {fake.url} model tiny: answers")
    verdict = "constrains output (response_format json_schema)"
    assert (verdict in out[0]) is constrains
    assert ("does NOT constrain output" in out[0]) is not constrains
    assert out[1].startswith(f"embed: {fake.url}: answers") and "dimension 2" in out[1]
    assert len(fake.chat_bodies()) == 1, "one probe, no repair: the first answer tells"


def test_check_fails_when_a_backend_does_not_answer(capsys: pytest.CaptureFixture[str]) -> None:
    with fake_openai() as gone:
        url = gone.url
    args = ["--chat-url", url, "--embed-url", url, "--api-retries", "0"]
    assert main(["models", "check", *args]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0] for line in out] == ["chat", "embed"]
    assert all("FAILED" in line and "does not answer" in line for line in out)
