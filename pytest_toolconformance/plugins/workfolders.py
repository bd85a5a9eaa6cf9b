"""Work folders: the plugin's private scratch root and each call's freshly seeded folder."""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from pytest_toolconformance.tree import snapshot

SEED_FILES = {"notes.txt": "hello\n", "README.md": "# readme\n", "src/main.py": "print('hi')\n"}


def scratch_root() -> str | None:
    """Where the plugin's workspace goes: a memory file system when the machine has one.

    Every call gets a fresh seeded folder that is removed after it; on a journaling disk that
    removal alone cost 3 ms a call (a third of a plugin run). ``/dev/shm`` (Linux' shared-memory
    tmpfs, world-writable with the sticky bit like ``/tmp``) makes it 0.3 ms; elsewhere the system
    temp folder. The folder is private to the kit either way (``mkdtemp`` makes it mode 0700).
    """
    shm = "/dev/shm"
    try:
        mode = os.stat(shm).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode) and mode & stat.S_ISVTX and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:40] or "plugin"


def reseed_folder(workdir: Path) -> None:
    """Bring a folder back to its seeded state: what earlier calls left in it (a store, pi's agent
    folder) is gone, the seed files are as new."""
    for entry in list(workdir.iterdir()) if workdir.is_dir() else []:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    seed_folder(workdir)


def seed_folder(workdir: Path) -> None:
    for rel, text in SEED_FILES.items():
        target = workdir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")


@functools.cache
def seeded_snapshot() -> dict[str, tuple[Any, ...]]:
    """What every freshly seeded call folder holds (the same files each time): taken once, not
    before each call."""
    with tempfile.TemporaryDirectory(prefix="toolconformance-seed-", dir=scratch_root()) as folder:
        seed_folder(Path(folder))
        return snapshot(Path(folder))
