"""What is in a folder, and what changed in it: one snapshot for the sandbox attack table, the
plan-file fixtures and the plugin workspace checks ("the call changed the workspace")."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def snapshot(top: Path, skip: Path | None = None) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``top``, links not followed: kind, bytes or link text, link count.
    ``skip`` leaves one subtree out (the sandbox root, when ``top`` is its parent). Only regular
    files are read, so a FIFO or device an untrusted plugin left behind never blocks the walk."""
    out: dict[str, tuple[Any, ...]] = {}
    if not top.exists():
        return out
    # Plain strings, not Path objects, and one lstat per entry: this runs around every plugin call.
    root = os.fspath(top)
    skipped = os.fspath(skip) if skip is not None else None
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = dirpath[len(root):].lstrip(os.sep)  # os.walk yields root itself, then paths under it
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if path == skipped:
                dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != skipped]
                continue
            rel = os.path.join(base, name) if base else name
            try:
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    out[rel] = ("link", os.readlink(path))
                elif stat.S_ISDIR(info.st_mode):
                    out[rel] = ("dir",)
                elif stat.S_ISREG(info.st_mode):
                    with open(path, "rb") as f:
                        out[rel] = ("file", f.read(), info.st_nlink)
                else:
                    out[rel] = ("other", info.st_mode)
            except OSError as exc:
                out[rel] = ("unreadable", exc.errno)
    return out


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What differs between two snapshots, as short lines."""
    lines = []
    for rel in sorted(set(before) | set(after)):
        if rel not in before:
            lines.append(f"created {rel}")
        elif rel not in after:
            lines.append(f"removed {rel}")
        elif before[rel] != after[rel]:
            lines.append(f"changed {rel}")
    return lines
