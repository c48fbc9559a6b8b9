"""Settings: precedence file < env < overrides, bounds, and help generated from fields."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

import npc_brain.config
from npc_brain.cli import build_parser
from npc_brain.config import Settings, describe_fields, describe_groups, load_settings
from npc_brain.errors import InvalidArgument


def test_file_then_env_then_overrides(tmp_path: Path) -> None:
    file = tmp_path / "s.toml"
    file.write_text('port = 6000\nseed = 5\ndata_dir = "/x"\n')
    env = {"NPC_BRAIN_PORT": "7000", "NPC_BRAIN_SEED": "6"}
    settings = load_settings(file, env=env, overrides={"seed": "9", "host": None})
    assert (settings.port, settings.seed, settings.data_dir, settings.host) == (
        7000,
        9,
        Path("/x"),
        "127.0.0.1",
    )


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"port": "70000"}, "port"),
        ({"recency_decay": "x"}, "recency_decay"),
        ({"nope": 1}, "nope"),
        ({"chat_api_extra": "{oops"}, "chat_api_extra"),
        ({"chat_api_extra": "[1, 2]"}, "chat_api_extra"),
    ],
)
def test_bad_settings_name_the_setting(values: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        load_settings(env={}, overrides=values)
    assert error.value.field == field


def test_settings_built_in_code_check_their_bounds() -> None:
    with pytest.raises(InvalidArgument) as error:
        Settings(port=70000)
    assert error.value.field == "port"
    assert "70000 is outside [0, 65535]" in str(error.value)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"http_port": -2}, "http_port"),
        ({"temperature": float("nan")}, "temperature"),
        ({"reply_max_tokens": 4}, "reply_max_tokens"),
        ({"port": "6000"}, "port"),
        ({"insecure": False, "threads": True}, "threads"),
        ({"chat_api_constrain": "grammar"}, "chat_api_constrain"),
        ({"importance_estimator": "oracle"}, "importance_estimator"),
        ({"importance_estimator_overrides": "dungeon"}, "importance_estimator_overrides"),
    ],
)
def test_replace_checks_settings_too(values: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        dataclasses.replace(Settings(), **values)
    assert error.value.field == field


def test_every_number_setting_has_bounds_that_hold_its_default() -> None:
    for f in describe_fields():
        if type(f.default) in (int, float):
            low, high = f.metadata["low"], f.metadata["high"]
            assert low is not None and high is not None, f.name
            assert low <= f.default <= high, f.name


def test_config_imports_nothing_of_npc_brain_but_its_errors() -> None:
    tree = ast.parse(Path(npc_brain.config.__file__).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add(node.module or "")
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
    ours = {name for name in imported if name.split(".")[0] == "npc_brain"}
    assert ours == {"npc_brain.errors", "npc_brain.errors.InvalidArgument"}


def test_every_setting_has_a_serve_flag_with_its_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for field in describe_fields():
        assert "--" + field.name.replace("_", "-") in text
        assert " ".join(field.metadata["help"].split()[:3]) in text


def test_serve_help_lists_the_settings_under_their_groups(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = capsys.readouterr().out
    groups = describe_groups()
    assert len(groups) > 1
    assert sum(len(fields) for fields in groups.values()) == len(describe_fields())
    starts = [text.index(f"settings: {title}:") for title in groups]
    assert starts == sorted(starts)  # the groups in declaration order
    for fields, start, end in zip(groups.values(), starts, [*starts[1:], None], strict=True):
        for field in fields:
            assert "--" + field.name.replace("_", "-") + " " in text[start:end], field.name


def test_readme_documents_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for field in describe_fields():
        assert f"`{field.name}`" in readme, f"README's configuration table lacks {field.name}"
