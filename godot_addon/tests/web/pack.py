"""Writes a Godot 4 .pck (pack format 3, Godot 4.4+) without Godot: the project's files as
they are (text scenes and GDScript source load in an export template), plus the class
cache that `class_name` lookups need.

    python3 pack.py PROJECT_DIR OUT.pck [--main-scene res://tests/web/runner.tscn]

The format (Godot's core/io/file_access_pack.cpp): a header ("GDPC", pack format 3, the
engine version, flags, the file base, the directory's offset, 16 reserved words), the
files' data from the file base (each 16-byte aligned), then the directory: the file
count, and for each file its path (without "res://", NUL-padded to 4 bytes), offset from
the file base, size, MD5 and flags. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

PACK_FORMAT = 3
ENGINE_VERSION = (4, 6, 0)  # the export template's (packs from newer engines are refused)
PACK_REL_FILEBASE = 1 << 1  # file offsets count from the file base
ALIGNMENT = 16
HEADER = struct.Struct("<4sIIIIIQQ")
# Not packed: editor state, the engine itself, and the harness's own (non-Godot) files.
SKIPPED_DIRS = {".godot", ".git", "engine", "__pycache__"}
SKIPPED_SUFFIXES = {".py", ".pyc", ".sh", ".html", ".md", ".pck", ".import"}
SKIPPED_NAMES = {".gdignore", ".gitignore"}
# The section the project's [autoload] becomes when a main scene is given (runner.gd).
RUNNER_AUTOLOADS = "runner_autoload"

_CLASS_NAME = re.compile(r"^class_name\s+(\w+)", re.M)
_EXTENDS = re.compile(r"^extends\s+(\S+)", re.M)
_ICON = re.compile(r'^@icon\("([^"]*)"\)', re.M)
_TOOL = re.compile(r"^@tool\b", re.M)
_ABSTRACT = re.compile(r"^@abstract\s*\n\s*class_name\b", re.M)


def _align(offset: int) -> int:
    return -(-offset // ALIGNMENT) * ALIGNMENT


def write_pck(files: Mapping[str, bytes], out: Path) -> None:
    """Writes `files` ({"res://path": bytes}) as a pack at `out`."""
    names = sorted(files)
    for name in names:
        if not name.startswith("res://"):
            raise ValueError(f"{name}: paths must start with res://")
    header = HEADER.pack(b"GDPC", PACK_FORMAT, *ENGINE_VERSION, PACK_REL_FILEBASE, 0, 0)
    file_base = _align(len(header) + 16 * 4)
    data = bytearray()
    entries = []
    for name in names:
        data += b"\0" * (_align(len(data)) - len(data))
        entries.append((name, len(data), files[name]))
        data += files[name]
    dir_offset = file_base + _align(len(data))
    directory = bytearray(struct.pack("<I", len(entries)))
    for name, offset, content in entries:
        path = name.removeprefix("res://").encode("utf-8")
        padded = path + b"\0" * (4 - len(path) % 4 if len(path) % 4 else 0)
        directory += struct.pack("<I", len(padded)) + padded
        directory += struct.pack("<QQ", offset, len(content))
        directory += hashlib.md5(content).digest() + struct.pack("<I", 0)
    header = HEADER.pack(
        b"GDPC", PACK_FORMAT, *ENGINE_VERSION, PACK_REL_FILEBASE, file_base, dir_offset
    )
    blob = bytearray(header + b"\0" * (file_base - len(header)))
    blob += data + b"\0" * (dir_offset - file_base - len(data))
    blob += directory
    out.write_bytes(bytes(blob))


def read_pck(path: Path) -> dict[str, bytes]:
    """The files of a pack written by `write_pck` (or by Godot, format 3, unencrypted)."""
    blob = path.read_bytes()
    magic, version, *_, flags, file_base, dir_offset = HEADER.unpack_from(blob)
    if magic != b"GDPC" or version != PACK_FORMAT:
        raise ValueError(f"{path}: not a format {PACK_FORMAT} pack")
    base = file_base if flags & PACK_REL_FILEBASE else 0
    (count,) = struct.unpack_from("<I", blob, dir_offset)
    at = dir_offset + 4
    files = {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", blob, at)
        name = blob[at + 4 : at + 4 + length].rstrip(b"\0").decode("utf-8")
        offset, size = struct.unpack_from("<QQ", blob, at + 4 + length)
        at += 4 + length + 16 + 16 + 4
        files["res://" + name] = blob[base + offset : base + offset + size]
    return files


def class_cache(scripts: Mapping[str, str]) -> bytes:
    """res://.godot/global_script_class_cache.cfg for the `class_name`s of `scripts`
    ({"res://path.gd": source}), as the editor writes it."""
    entries = []
    for path, source in sorted(scripts.items()):
        found = _CLASS_NAME.search(source)
        if found is None:
            continue
        extends = _EXTENDS.search(source)
        base = extends.group(1) if extends else "RefCounted"
        icon = _ICON.search(source)
        fields = [
            ("base", f'&"{base.strip(chr(34))}"'),
            ("class", f'&"{found.group(1)}"'),
            ("icon", f'"{icon.group(1) if icon else ""}"'),
            ("is_abstract", "true" if _ABSTRACT.search(source) else "false"),
            ("is_tool", "true" if _TOOL.search(source) else "false"),
            ("language", '&"GDScript"'),
            ("path", f'"{path}"'),
        ]
        entries.append("{\n" + ",\n".join(f'"{k}": {v}' for k, v in fields) + "\n}")
    return ("list=[" + ", ".join(entries) + "]\n").encode("utf-8")


def _with_application_settings(project_godot: str, settings: Mapping[str, str]) -> str:
    """project.godot with `settings` ({"run/main_scene": '"res://..."'}) in [application]."""
    for key, value in settings.items():
        line = f"{key}={value}"
        pattern = rf"^{re.escape(key)}=.*$"
        if re.search(pattern, project_godot, re.M):
            project_godot = re.sub(pattern, line, project_godot, flags=re.M)
        else:
            project_godot = project_godot.replace(
                "[application]\n", f"[application]\n\n{line}\n", 1
            )
    return project_godot


def project_files(project: Path, main_scene: str | None = None) -> dict[str, bytes]:
    """The files of the Godot project at `project` to pack, with the class cache, and
    `main_scene` as the main scene when given."""
    files: dict[str, bytes] = {}
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if path.is_dir() or SKIPPED_DIRS.intersection(relative.parts[:-1]):
            continue
        if path.suffix in SKIPPED_SUFFIXES or path.name in SKIPPED_NAMES:
            continue
        files["res://" + relative.as_posix()] = path.read_bytes()
    if main_scene is not None:
        # Printed lines reach the page at once (else a crash loses what it buffered).
        settings = {"run/main_scene": f'"{main_scene}"', "run/flush_stdout_on_print": "true"}
        text = files["res://project.godot"].decode("utf-8")
        text = _with_application_settings(text, settings)
        # Godot 4.6's web export template crashed in its first frame ("table index is out
        # of bounds") with this project's autoload: the runner adds the autoloads instead.
        text = text.replace("\n[autoload]\n", f"\n[{RUNNER_AUTOLOADS}]\n")
        files["res://project.godot"] = text.encode("utf-8")
    scripts = {p: b.decode("utf-8") for p, b in files.items() if p.endswith(".gd")}
    files["res://.godot/global_script_class_cache.cfg"] = class_cache(scripts)
    return files


def pack_project(project: Path, out: Path, main_scene: str | None = None) -> list[str]:
    """Packs the project at `project` into `out`; returns the packed paths."""
    files = project_files(project, main_scene)
    write_pck(files, out)
    return sorted(files)


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path, help="the Godot project folder")
    parser.add_argument("out", type=Path, help="the .pck to write")
    parser.add_argument("--main-scene", help="run this scene instead of the project's")
    args = parser.parse_args(list(argv) if argv is not None else None)
    paths = pack_project(args.project, args.out, args.main_scene)
    print(f"{args.out}: {len(paths)} files")


if __name__ == "__main__":
    main()
