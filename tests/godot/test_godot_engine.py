"""The Godot addon's GDScript tests, run inside a real Godot 4 engine against a real
`npc-brain serve`: Godot's web export template in headless Chromium, fetched and
installed by godot_addon/tests/web/setup.sh (`make test` runs it). The packer, the page,
the fault gateway and the runner are in godot_addon/tests/web (see its run.py). The
server embeds with the default embedding model and thinks with a quick scripted chat
model (scripted_model.py), so the run takes a minute or two whatever the machine's load."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from npc_brain.config import DEFAULT_EMBED_MODEL, REPO_MODELS_DIR
from tests.godot.scripted_model import MODEL, scripted_model
from tests.godot.web import WEB, web_run
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TEST_FILES = sorted((REPO / "godot_addon" / "tests").glob("test_*.gd"))
ENGINE_TIMEOUT_S = 480.0


def _test_functions() -> list[str]:
    """Every GDScript test function: the engine must run them all."""
    return [
        f"{path.name}:{name}"
        for path in TEST_FILES
        for name in re.findall(r"^func (test_\w+)\(", path.read_text(), re.M)
    ]


def test_the_addon_tests_pass_in_a_real_godot_engine(
    tmp_path: Path, engine_report: list[str]
) -> None:
    run = web_run()
    if missing := run.missing_engine_files():
        pytest.fail(f"the Godot web engine lacks {missing}: run {WEB / 'setup.sh'} (make test)")
    if run.find_chromium() is None:
        pytest.fail(f"no Chromium: run {WEB / 'setup.sh'} (make test does)")
    if not (REPO_MODELS_DIR / DEFAULT_EMBED_MODEL).exists():
        pytest.fail(f"{DEFAULT_EMBED_MODEL} is missing: run `npc-brain models fetch` (make test)")
    pck = tmp_path / "tests.pck"
    run.pack.pack_project(run.PROJECT, pck, run.MAIN_SCENE)
    page, faults = run.PageServer(pck.read_bytes()), run.FaultGateway()
    with run.serving(page), run.serving(faults), scripted_model() as model:
        server = ServerProcess(
            tmp_path / "data",
            *("--http-port", "0", "--http-cors-origins", page.origin),
            *("--chat-url", model.url, "--chat-api-model", MODEL),
            *("--reply-wording", "model"),  # the live test counts the model's sentence
        )
        try:
            assert server.process.stdout is not None
            http_line = server.process.stdout.readline()
            assert "serving HTTP/JSON on 127.0.0.1:" in http_line, http_line
            gateway = "http://" + http_line.rsplit(" ", 1)[1].strip()
            args = run.engine_args(gateway, faults.url, run.dead_url())
            result = run.run_engine(page, args, ENGINE_TIMEOUT_S)
        finally:
            try:  # (draining is tested elsewhere; the town's agents may still be planning)
                server.stop()
            except subprocess.TimeoutExpired:
                server.kill()
    output = result.output
    assert result.version is not None, f"the engine did not start:\n{output}"
    summary = result.summary
    assert summary is not None, f"the engine ran no tests (exit {result.exit_code}):\n{output}"
    engine_report.append(
        f"Godot Engine {result.version} (web export template, headless Chromium): "
        f"{summary['run']} GDScript tests run, {summary['passed']} passed, "
        f"{summary['failed']} failed, {summary['pending']} pending, in {result.seconds:.0f} s"
    )
    expected = _test_functions()
    assert summary["run"] == len(expected), f"expected {len(expected)} tests:\n{output}"
    assert summary["passed"] == summary["run"], f"GDScript tests failed:\n{output}"
    assert result.exit_code == 0, output
    assert result.version.startswith("v4."), result.version
