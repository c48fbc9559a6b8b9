"""The Unity package (unity/com.npc-brain.client) compiled by Mono's C# compiler with
warnings as errors, and its NUnit tests run against a real `npc-brain serve` (the
default models) and the Godot addon's fault gateway. tests/unity/setup.sh installs Mono,
Json.NET and NUnit from Debian (`make test` runs it).

Four assemblies are compiled, as Unity would split them by their asmdefs: the runtime
alone (any .NET engine), the runtime with its Unity layer and the Editor assembly (both
against tests/unity/stubs: the UnityEngine and UnityEditor types they touch, with
Unity's signatures), and the tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import pytest

from npc_brain.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL, REPO_MODELS_DIR
from tests.godot.web import web_run
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "unity" / "com.npc-brain.client"
STUBS = Path(__file__).resolve().parent / "stubs"
LANGUAGE = "7.2"  # mcs's newest; Unity 2021.3 compiles C# 9, a superset
NUNIT_TIMEOUT_S = 600


def _library(package: str, name: str) -> str:
    """The path of assembly `name` in a pkg-config package (Debian's CLI libraries)."""
    found = subprocess.run(
        ["pkg-config", "--libs", package], capture_output=True, text=True, check=False
    )
    for flag in found.stdout.split():
        if flag.removeprefix("-r:").endswith("/" + name):
            return flag.removeprefix("-r:")
    pytest.fail(f"pkg-config finds no {name} in {package}: run tests/unity/setup.sh (make test)")


def _sources(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*.cs"))


def _compile(out: Path, sources: Sequence[str], references: Sequence[str], unity: bool) -> None:
    command = [
        "mcs",
        f"-langversion:{LANGUAGE}",
        "-warnaserror",
        "-warn:4",
        "-target:library",
        f"-out:{out}",
        *(["-define:UNITY_2021_3_OR_NEWER"] if unity else []),
        *(f"-r:{r}" for r in references),
        *sources,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"mcs failed on {out.name}:\n{done.stdout}{done.stderr}"


def _test_names() -> list[str]:
    text = "\n".join(Path(p).read_text() for p in _sources(PACKAGE / "Tests"))
    return re.findall(r"\[Test\]\s+public async Task (\w+)\(", text)


def test_the_unity_package_compiles_and_its_tests_pass_against_a_real_server(
    tmp_path: Path, csharp_report: list[str]
) -> None:
    for tool in ("mcs", "mono", "nunit-console", "pkg-config"):
        if shutil.which(tool) is None:
            pytest.fail(f"no {tool}: run tests/unity/setup.sh (make test does)")
    for model in (DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL):
        if not (REPO_MODELS_DIR / model).exists():
            pytest.fail(f"{model} is missing: run `npc-brain models fetch` (make test)")
    json_net = _library("newtonsoft-json", "Newtonsoft.Json.dll")
    nunit = _library("nunit", "nunit.framework.dll")
    system = ["System.Net.Http", "System.Runtime.Serialization"]
    build, unity = tmp_path / "build", tmp_path / "unity"
    build.mkdir()
    unity.mkdir()

    runtime = build / "NpcBrain.Client.dll"
    _compile(runtime, _sources(PACKAGE / "Runtime"), [json_net, *system], unity=False)
    engine, editor = unity / "UnityEngine.dll", unity / "UnityEditor.dll"
    _compile(engine, [str(STUBS / "UnityEngine.cs")], [], unity=False)
    _compile(editor, [str(STUBS / "UnityEditor.cs")], [], unity=False)
    unity_runtime = unity / "NpcBrain.Client.dll"
    _compile(unity_runtime, _sources(PACKAGE / "Runtime"), [json_net, *system, str(engine)], True)
    _compile(
        unity / "NpcBrain.Client.Editor.dll",
        _sources(PACKAGE / "Editor"),
        [json_net, "System.Net.Http", str(unity_runtime), str(engine), str(editor)],
        unity=True,
    )
    tests = build / "NpcBrain.Client.Tests.dll"
    _compile(
        tests,
        _sources(PACKAGE / "Tests"),
        [json_net, nunit, "System.Net.Http", str(runtime)],
        False,
    )
    for dll in (json_net,):
        shutil.copy(dll, build)

    run = web_run()  # its FaultGateway misbehaves on purpose
    faults = run.FaultGateway()
    with run.serving(faults):
        server = ServerProcess(tmp_path / "data", "--http-port", "0")
        try:
            assert server.process.stdout is not None
            http_line = server.process.stdout.readline()
            assert "serving HTTP/JSON on 127.0.0.1:" in http_line, http_line
            env = os.environ | {
                "NPC_BRAIN_URL": "http://" + http_line.rsplit(" ", 1)[1].strip(),
                "NPC_BRAIN_FAULT_URL": faults.url,
                "NPC_BRAIN_DEAD_URL": run.dead_url(),
            }
            result = tmp_path / "TestResult.xml"
            done = subprocess.run(
                ["nunit-console", "-nologo", "-noshadow", f"-xml={result}", str(tests)],
                capture_output=True,
                text=True,
                env=env,
                cwd=build,
                timeout=NUNIT_TIMEOUT_S,
                check=False,
            )
        finally:
            try:
                server.stop()
            except subprocess.TimeoutExpired:
                server.kill()
    output = done.stdout + done.stderr
    assert result.exists(), f"NUnit wrote no result (exit {done.returncode}):\n{output}"
    totals = ET.parse(result).getroot().attrib
    run_count = int(totals["total"])
    failed = int(totals["failures"]) + int(totals["errors"])
    version = subprocess.run(["mcs", "--version"], capture_output=True, text=True).stdout.strip()
    csharp_report.append(
        f"{version} (C# {LANGUAGE}, warnings as errors): NpcBrain.Client, its Unity layer and "
        f"Editor assembly (against tests/unity/stubs), NpcBrain.Client.Tests; NUnit 2.6: "
        f"{run_count} C# tests run, {run_count - failed} passed, {failed} failed"
    )
    expected = _test_names()
    assert run_count == len(expected), f"expected {len(expected)} C# tests:\n{output}"
    assert failed == 0 and done.returncode == 0, output


def test_the_package_manifests_are_what_unity_reads() -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text())
    assert manifest["name"] == "com.npc-brain.client"
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert "com.unity.nuget.newtonsoft-json" in manifest["dependencies"]
    asmdefs = {p.parent.name: json.loads(p.read_text()) for p in PACKAGE.rglob("*.asmdef")}
    assert set(asmdefs) == {"Runtime", "Editor", "Tests"}
    names = {a["name"] for a in asmdefs.values()}
    assert asmdefs["Editor"]["includePlatforms"] == ["Editor"]
    assert "NpcBrain.Client" in asmdefs["Editor"]["references"]
    assert "NpcBrain.Client" in asmdefs["Tests"]["references"]
    assert "UNITY_INCLUDE_TESTS" in asmdefs["Tests"]["defineConstraints"]
    assert names == {"NpcBrain.Client", "NpcBrain.Client.Editor", "NpcBrain.Client.Tests"}


def test_every_file_of_the_package_has_a_meta_with_its_own_guid() -> None:
    """A package installed from a git URL is read-only: Unity ignores any asset in it
    without a committed .meta file."""
    assets = [p for p in sorted(PACKAGE.rglob("*")) if p.suffix != ".meta"]
    guids = []
    for asset in assets:
        meta = asset.with_name(asset.name + ".meta")
        assert meta.is_file(), f"{meta.relative_to(REPO)} is missing"
        guids += re.findall(r"^guid: ([0-9a-f]{32})$", meta.read_text(), re.M)
    assert len(guids) == len(assets) == len(set(guids))
