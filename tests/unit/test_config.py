"""Settings: precedence file < env < overrides, bounds, and help generated from fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from npc_brain.cli import build_parser
from npc_brain.config import describe_fields, load_settings
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


def test_every_setting_has_a_serve_flag_with_its_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for field in describe_fields():
        assert "--" + field.name.replace("_", "-") in text
        assert " ".join(field.metadata["help"].split()[:3]) in text


def test_readme_documents_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for field in describe_fields():
        assert f"`{field.name}`" in readme, f"README's configuration table lacks {field.name}"
