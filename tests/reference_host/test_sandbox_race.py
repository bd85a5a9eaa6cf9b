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
#: A race test writes at least ROUNDS times and on until the race has been live: a swapper starved
#: on a loaded machine costs more writes, never a different verdict. The cap stops a dead swapper.
MAX_ROUNDS = 100_000
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


def _run_race(tmp_path: Path, access: SandboxAccess, swapper: Callable[..., None],
              min_swaps: int) -> tuple[int, int, int]:
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
            for i in range(MAX_ROUNDS):
                if i >= ROUNDS and admitted > 0 and refused > 0 and swaps[0] > min_swaps:
                    break
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
    admitted, refused, swaps = _run_race(tmp_path, access, swap_by_exchange, min_swaps=100)
    assert ROUNDS <= admitted + refused < MAX_ROUNDS, "the race never went live"
    # The race was live: both outcomes happened and the parent really flipped many times.
    assert admitted > 0 and refused > 0 and swaps > 100, (admitted, refused, swaps)


def test_planfile2_unlink_symlink_race_never_writes_outside(tmp_path: Path) -> None:
    access = SandboxAccess(read_only=True, plan_file=PLAN)
    admitted, refused, swaps = _run_race(tmp_path, access, swap_by_unlink, min_swaps=20)
    assert ROUNDS <= admitted + refused < MAX_ROUNDS, "the race never went live"
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
            for i in range(MAX_ROUNDS):
                if i >= ROUNDS and admitted > 0 and refused > 0:
                    break
                result = sandbox.perform(SandboxOp("write", PLAN, content=b"round %d\n" % i), access)
                admitted += result.admitted
                refused += not result.admitted
    finally:
        swapper.kill()
        swapper.wait(timeout=10)
    assert os.listdir(outside) == [], "a write landed outside the root"
    assert admitted > 0 and refused > 0, (admitted, refused)


# ------------------------------------------------------------------ hard-link swaps at the target
#
# The attacker holds a hard link to a file outside the root and, in a loop, renames it over the
# target and then a fresh regular file back over it. A host that opens the target and checks its
# link count afterwards sees 1 again once the rename-back has landed, while its fd is the outside
# file's inode. A host that writes a new file and renames it over the target never
# writes an existing inode at all.

HARDLINK_ROUNDS = 20_000
#: The writer goes on past HARDLINK_ROUNDS until the race has been live (a starved swapper on a
#: loaded machine needs more rounds, never a different verdict); this caps a swapper that never runs.
HARDLINK_MAX_ROUNDS = 400_000
BUILD_TARGET = "/workspace/src/target.txt"
SECRET = b"secret outside the root\n"

HARDLINK_SWAPPER = r"""
import os, sys
secret, target, ready = sys.argv[1:4]
d = os.path.dirname(target)
evil, fresh, spare = (os.path.join(d, n) for n in (".evil", ".fresh", ".spare"))
open(ready, "w").close()
while True:
    try:
        with open(fresh, "wb") as f:
            f.write(b"regular\n")
        os.link(secret, evil)
        os.rename(evil, target)
        with open(spare, "wb") as f:
            f.write(b"spare\n")
        os.rename(fresh, target)
    except OSError:
        pass
"""


def hardlink_world(tmp_path: Path, guest: str) -> tuple[Path, Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    target = root.joinpath(*guest.split("/")[2:])
    target.parent.mkdir(parents=True)
    target.write_bytes(b"regular\n")
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_bytes(SECRET)
    return root, secret, target


def swap_hardlink(secret: Path, target: Path, stop: threading.Event, counter: list[int]) -> None:
    evil, fresh, spare = (target.with_name(n) for n in (".evil", ".fresh", ".spare"))
    while not stop.is_set():
        try:
            # Each state lasts one file write (the spare one only passes the time), so the writer
            # meets both the hard link and the regular file however the two share the machine.
            fresh.write_bytes(b"regular\n")
            os.link(secret, evil)
            os.rename(evil, target)
            spare.write_bytes(b"spare\n")
            os.rename(fresh, target)
        except OSError:
            pass
        counter[0] += 1


def _hardlink_writes(root: Path, secret: Path, guest: str, access: SandboxAccess,
                     live: Callable[[int, int], bool]) -> tuple[int, int, int]:
    """Write ``guest`` at least HARDLINK_ROUNDS times and until ``live(admitted, refused)``.

    Stops early at the first write that reached the outside file.
    """
    admitted = refused = 0
    with Sandbox(root) as sandbox:
        for i in range(HARDLINK_MAX_ROUNDS):
            if i >= HARDLINK_ROUNDS and live(admitted, refused):
                return admitted, refused, i
            result = sandbox.perform(SandboxOp("write", guest, content=b"round %d\n" % i), access)
            if result.admitted:
                admitted += 1
            else:
                refused += 1
                assert result.rule in ("PLANFILE-2", "ACCESS-8"), result.reason
            if secret.read_bytes() != SECRET:
                return admitted, refused, i + 1
    return admitted, refused, HARDLINK_MAX_ROUNDS


HARDLINK_TARGETS = [
    pytest.param(PLAN, SandboxAccess(read_only=True, plan_file=PLAN), id="PLANFILE-2-plan-file"),
    pytest.param(BUILD_TARGET, SandboxAccess(read_only=False, plan_file=None), id="ACCESS-8-build-target"),
]


@pytest.mark.parametrize(("guest", "access"), HARDLINK_TARGETS)
def test_hardlink_swap_race_from_a_thread_never_writes_outside(
    tmp_path: Path, guest: str, access: SandboxAccess
) -> None:
    root, secret, target = hardlink_world(tmp_path, guest)
    stop = threading.Event()
    swaps = [0]
    thread = threading.Thread(target=swap_hardlink, args=(secret, target, stop, swaps), daemon=True)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # hand the GIL over often, so the two threads interleave finely
    thread.start()
    try:
        admitted, refused, rounds = _hardlink_writes(
            root, secret, guest, access, lambda admitted, refused: swaps[0] > 100 and admitted > 0 and refused > 0)
    finally:
        stop.set()
        thread.join(timeout=10)
        sys.setswitchinterval(interval)
    assert secret.read_bytes() == SECRET, f"the outside file was overwritten after {rounds} writes"
    assert HARDLINK_ROUNDS <= rounds < HARDLINK_MAX_ROUNDS, f"the race never went live in {rounds} writes"
    # The race was live: the swapper really ran and the writer met both states.
    assert swaps[0] > 100 and admitted > 0 and refused > 0, (admitted, refused, swaps[0])


@pytest.mark.parametrize(("guest", "access"), HARDLINK_TARGETS)
def test_hardlink_swap_race_from_another_process_never_writes_outside(
    tmp_path: Path, guest: str, access: SandboxAccess
) -> None:
    root, secret, target = hardlink_world(tmp_path, guest)
    ready = tmp_path / "ready"
    swapper = subprocess.Popen([sys.executable, "-c", HARDLINK_SWAPPER, str(secret), str(target), str(ready)])
    try:
        deadline = time.monotonic() + 10
        while not ready.exists():
            assert time.monotonic() < deadline, "swapper did not start"
            time.sleep(0.01)
        admitted, refused, rounds = _hardlink_writes(
            root, secret, guest, access, lambda admitted, refused: admitted > 0 and refused > 0)
    finally:
        swapper.kill()
        swapper.wait(timeout=10)
    assert secret.read_bytes() == SECRET, f"the outside file was overwritten after {rounds} writes"
    assert HARDLINK_ROUNDS <= rounds < HARDLINK_MAX_ROUNDS, f"the race never went live in {rounds} writes"
    assert admitted > 0 and refused > 0, (admitted, refused)
