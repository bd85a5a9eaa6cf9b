"""PLANFILE-2 / ACCESS-8 under a race: the plan file's parent is swapped for a link while it is written.

A swapper flips ``.plans/p1`` between a real directory and a symlink to an outside directory as
fast as it can, while the writer writes the plan file through the sandbox. Whatever interleaving
happens, no byte may ever land outside the root: the outside directory must stay empty.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp

PLAN = "/workspace/.plans/p1/plan.md"
ROUNDS = 5000
RENAME_EXCHANGE = 2  # linux/fs.h

_libc = ctypes.CDLL(None, use_errno=True)
_renameat2 = getattr(_libc, "renameat2", None)
AT_FDCWD = -100


def exchange(a: Path, b: Path) -> None:
    """Atomically swap two directory entries (renameat2 RENAME_EXCHANGE): there is never a gap."""
    if _renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def world(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / ".plans" / "p1").mkdir(parents=True)
    outside.mkdir()
    parent = root / ".plans" / "p1"
    alt = root / ".plans" / "p1.alt"
    os.symlink(outside, alt)
    return root, outside, parent, alt


def swap_by_exchange(parent: Path, alt: Path, outside: Path, stop: threading.Event, counter: list[int]) -> None:
    while not stop.is_set():
        exchange(parent, alt)
        counter[0] += 1


def swap_by_unlink(parent: Path, alt: Path, outside: Path, stop: threading.Event, counter: list[int]) -> None:
    """Rename the real directory away, put a link in its place, then put the directory back.

    The writer may recreate the directory in the gap (that is its create-only allowance), so
    every step tolerates losing the race instead of insisting on a state.
    """
    stash = parent.with_name("p1.stash")
    while not stop.is_set():
        try:
            os.rename(parent, stash)
        except OSError:
            pass
        try:
            os.symlink(outside, parent)
        except OSError:
            pass
        counter[0] += 1
        try:
            os.unlink(parent)  # only a link (or file) goes; a directory made by the writer stays
        except OSError:
            pass
        try:
            os.rename(stash, parent)
        except OSError:
            # The writer recreated the directory in the gap and filled it; drop the stash so
            # the next round can move the writer's directory away instead of stalling.
            shutil.rmtree(stash, ignore_errors=True)
        time.sleep(0)  # hand the GIL over while the real directory is in place, so both states get written


def _run_race(tmp_path: Path, access: SandboxAccess, swapper: Callable[..., None]) -> tuple[int, int, int]:
    root, outside, parent, alt = world(tmp_path)
    stop = threading.Event()
    swaps = [0]
    admitted = refused = 0
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            swapper(parent, alt, outside, stop, swaps)
        except BaseException as exc:  # surfaced below, not lost in the thread
            errors.append(exc)

    thread = threading.Thread(target=guarded, daemon=True)
    with Sandbox(root) as sandbox:
        thread.start()
        try:
            for i in range(ROUNDS):
                result = sandbox.perform(SandboxOp("write", PLAN, content=b"round %d\n" % i), access)
                if result.admitted:
                    admitted += 1
                else:
                    refused += 1
                    assert result.rule in ("PLANFILE-2", "ACCESS-8"), result.reason
        finally:
            stop.set()
            thread.join(timeout=10)
    assert not errors, errors
    assert os.listdir(outside) == [], "a write landed outside the root"
    return admitted, refused, swaps[0]


needs_exchange = pytest.mark.skipif(_renameat2 is None, reason="libc has no renameat2")


@needs_exchange
@pytest.mark.parametrize(
    "access",
    [
        pytest.param(SandboxAccess(read_only=True, plan_file=PLAN), id="PLANFILE-2-plan-turn"),
        pytest.param(SandboxAccess(read_only=False, plan_file=None), id="ACCESS-8-build-turn"),
    ],
)
def test_planfile2_exchange_race_never_writes_outside(tmp_path: Path, access: SandboxAccess) -> None:
    admitted, refused, swaps = _run_race(tmp_path, access, swap_by_exchange)
    assert admitted + refused == ROUNDS
    # The race was live: both outcomes happened and the parent really flipped many times.
    assert admitted > 0 and refused > 0 and swaps > 100, (admitted, refused, swaps)


def test_planfile2_unlink_symlink_race_never_writes_outside(tmp_path: Path) -> None:
    access = SandboxAccess(read_only=True, plan_file=PLAN)
    admitted, refused, swaps = _run_race(tmp_path, access, swap_by_unlink)
    assert admitted + refused == ROUNDS
    # Typically a few hundred admitted, thousands refused at the link, hundreds of swaps.
    assert admitted > 0 and refused > 0 and swaps > 20, (admitted, refused, swaps)


SWAPPER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, ready = (os.fsencode(x) for x in sys.argv[1:4])
open(ready, "w").close()
while True:
    libc.renameat2(-100, a, -100, b, 2)
"""


@needs_exchange
def test_planfile2_exchange_race_from_another_process(tmp_path: Path) -> None:
    """The same race with the swapper in its own process, so it runs truly in parallel on 2 cores."""
    root, outside, parent, alt = world(tmp_path)
    ready = tmp_path / "ready"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(parent), str(alt), str(ready)])
    admitted = refused = 0
    try:
        deadline = time.monotonic() + 10
        while not ready.exists():
            assert time.monotonic() < deadline, "swapper did not start"
            time.sleep(0.01)
        with Sandbox(root) as sandbox:
            access = SandboxAccess(read_only=True, plan_file=PLAN)
            for i in range(ROUNDS):
                result = sandbox.perform(SandboxOp("write", PLAN, content=b"round %d\n" % i), access)
                admitted += result.admitted
                refused += not result.admitted
    finally:
        swapper.kill()
        swapper.wait(timeout=10)
    assert os.listdir(outside) == [], "a write landed outside the root"
    assert admitted > 0 and refused > 0, (admitted, refused)
