"""Fuzzed conversations with the real default models over gRPC: random personas,
memories and utterances (bench/talk_fuzz.py's generator, a fixed seed) through Converse
on one real server. No call ends INTERNAL or UNKNOWN, every OK stream ends with a final
event and nothing after it, and its text is the streamed tokens joined."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.talk_fuzz import (
    FuzzServer,
    Generator,
    count_code,
    earlier_calls,
    failure_report,
    run,
    summary,
)

pytestmark = pytest.mark.integration
SEED = 20_240_213
CALLS = 100


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzServer]:
    folder = Path(tmp_path_factory.mktemp("talk-fuzz"))
    (folder / "data").mkdir()
    server = FuzzServer(folder / "data", folder / "server.log")
    yield server
    server.stop()


def test_fuzzed_conversations_end_ok_with_the_streamed_text_as_final(
    server: FuzzServer,
) -> None:
    calls = list(Generator(SEED).calls(CALLS))
    outcomes = run(server, calls)
    print(summary(outcomes, SEED))
    reports = [failure_report(o, SEED, earlier_calls(calls, o.call)) for o in outcomes if o.failed]
    assert not reports, "\n\n".join(reports)
    assert count_code(outcomes, "INTERNAL") == 0
    assert count_code(outcomes, "UNKNOWN") == 0
    answered = [o for o in outcomes if o.status == "OK"]
    assert all(o.final is not None for o in answered)
    assert all(o.streamed == o.final for o in answered)
    assert len(answered) >= CALLS * 3 // 4  # the fuzz reaches the model, not only the checks
