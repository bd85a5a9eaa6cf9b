"""The sandbox attack table: PLANFILE-2/3/4/5, DELEG-1/3 and ACCESS-8 against reference_host.sandbox.

Every row is ``(id, setup, op, access, expected)``. ``setup(root, outside)`` plants the trap,
``op`` is a SandboxOp (or a callable building one from the real paths), ``expected`` is
``"admitted"``, ``"admitted scope=<guest dir>"``, ``"refused <RULE>"``, ``"refused -"`` (a plain
filesystem refusal with no rule) or ``"error"`` (SandboxError: malformed input). After every row,
nothing outside the root may have changed, and a refused op must not have changed the root either.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolconformance.host.attacks import snapshot
from reference_host.errors import SandboxError
from reference_host.sandbox import Sandbox, SandboxAccess, SandboxOp, child_access

PLAN = "/workspace/.plans/p1/plan.md"
PLAN_DIR = "/workspace/.plans/p1"
SIBLING = "/workspace/.plans/p1/notes.md"
PLAN_NFC = unicodedata.normalize("NFC", "/workspace/.plans/café/plan.md")
PLAN_NFD = unicodedata.normalize("NFD", PLAN_NFC)
assert PLAN_NFC != PLAN_NFD

PLAN_TURN = SandboxAccess(read_only=True, plan_file=PLAN)
BUILD = SandboxAccess(read_only=False, plan_file=None)
READ_ONLY = SandboxAccess(read_only=True, plan_file=None)

Setup = Callable[[Path, Path], None]


# ------------------------------------------------------------------ setup builders


def host(root: Path, guest: str) -> Path:
    """The host path behind a canonical guest path."""
    return root.joinpath(*guest.split("/")[2:])


def read_host(root: Path, guest: str) -> bytes:
    """The bytes behind ``guest``, opened one component at a time (a host path may be over PATH_MAX)."""
    *parents, name = guest.split("/")[2:]
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parents:
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
        file_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
        with os.fdopen(file_fd, "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def nothing(root: Path, outside: Path) -> None:
    """No trap."""


def dirs(*guests: str) -> Setup:
    def setup(root: Path, outside: Path) -> None:
        for guest in guests:
            host(root, guest).mkdir(parents=True, exist_ok=True)

    return setup


def file(guest: str, content: bytes = b"existing") -> Setup:
    def setup(root: Path, outside: Path) -> None:
        target = host(root, guest)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)

    return setup


def link(guest: str, target: str) -> Setup:
    """A symlink at ``guest``; ``target`` may name ``{outside}`` or ``{root}``."""

    def setup(root: Path, outside: Path) -> None:
        at = host(root, guest)
        at.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.format(outside=outside, root=root), at)

    return setup


def hardlink(guest: str, target: str) -> Setup:
    def setup(root: Path, outside: Path) -> None:
        at = host(root, guest)
        at.parent.mkdir(parents=True, exist_ok=True)
        os.link(target.format(outside=outside, root=root), at)

    return setup


def fifo(guest: str) -> Setup:
    def setup(root: Path, outside: Path) -> None:
        at = host(root, guest)
        at.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(at)

    return setup


def socket_file(guest: str) -> Setup:
    """A Unix socket at ``guest``, bound in a short directory (socket paths are capped near 108
    bytes) and renamed into place."""

    def setup(root: Path, outside: Path) -> None:
        at = host(root, guest)
        at.parent.mkdir(parents=True, exist_ok=True)
        short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.bind(str(short / "s"))
            os.rename(short / "s", at)
        finally:
            shutil.rmtree(short, ignore_errors=True)

    return setup


def device(guest: str) -> Setup:
    """A character device at ``guest``: the null device's numbers, so a host that did write through
    it would lose the bytes rather than reach a disk. Needs CAP_MKNOD; skipped where refused."""

    def setup(root: Path, outside: Path) -> None:
        at = host(root, guest)
        at.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mknod(at, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs CAP_MKNOD here")

    return setup


def chain(*setups: Setup) -> Setup:
    def setup(root: Path, outside: Path) -> None:
        for step in setups:
            step(root, outside)

    return setup


def W(path: object, content: bytes = b"# the plan\n", executor: str = "sandbox") -> SandboxOp:
    return SandboxOp("write", path, content=content, executor=executor)  # type: ignore[arg-type]


def UP(path: str, executor: str = "sandbox") -> SandboxOp:
    return SandboxOp("upload", path, content=b"uploaded plan", executor=executor)


def OP(kind: str, path: str | None, dest: str | None = None, executor: str = "sandbox") -> SandboxOp:
    return SandboxOp(kind, path, dest=dest, executor=executor)


LONG_DIR = "/workspace/" + "/".join(["d" * 200] * 21)  # 4231 UTF-8 bytes
assert len(LONG_DIR.encode()) > 4096


def path_of_bytes(total: int, name: str = "f") -> str:
    """A canonical guest path of exactly ``total`` UTF-8 bytes, components of at most 255 bytes."""
    head = "/workspace"
    room = total - len(head) - 1 - len(name)  # the last "/" + name
    comps = []
    while room > 0:
        size = min(255, room - 1)  # each component costs its bytes plus one "/"
        comps.append("d" * size)
        room -= size + 1
    path = "/".join([head, *comps, name])
    assert len(path.encode()) == total, (len(path.encode()), total)
    return path


PATH_4096 = path_of_bytes(4096)
PATH_4097 = path_of_bytes(4097)
ROOT_AS_PLAN = SandboxAccess(read_only=True, plan_file="/workspace")


# ------------------------------------------------------------------------ the table

# One row per line reads as a table; the formatter would explode it.
# fmt: off
ROWS: list[tuple[str, Setup, SandboxOp | Callable[[Path, Path], SandboxOp], SandboxAccess, str]] = [
    # --- the one admitted write and its create-only parents (PLANFILE-2)
    ("PLANFILE-2-exact-write-creates-parents", nothing, W(PLAN), PLAN_TURN, "admitted"),
    ("PLANFILE-2-exact-upload-creates-parents", nothing, UP(PLAN), PLAN_TURN, "admitted"),
    ("PLANFILE-2-existing-parents-traversed", file(SIBLING), W(PLAN), PLAN_TURN, "admitted"),
    ("PLANFILE-2-partial-parents-created", dirs("/workspace/.plans"), W(PLAN), PLAN_TURN, "admitted"),
    ("PLANFILE-2-overwrite-existing-plan", file(PLAN, b"old plan"), W(PLAN), PLAN_TURN, "admitted"),
    # --- anything that is not exactly the plan file
    ("PLANFILE-2-sibling", nothing, W(SIBLING), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-sibling-parent-exists", dirs(PLAN_DIR), W(SIBLING), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-other-plan-dir", nothing, W("/workspace/.plans/p2/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-dir-itself", dirs(PLAN_DIR), W(PLAN_DIR), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-dir-upload", nothing, UP(PLAN_DIR), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-suffix", nothing, W(PLAN + ".bak"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-prefix-of-name", nothing, W(PLAN[:-1]), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-case-variant", nothing, W("/workspace/.plans/p1/Plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-below-plan", nothing, W(PLAN + "/x"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-guest-root", nothing, W("/workspace"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-existing-readme", nothing, W("/workspace/README.md"), PLAN_TURN, "refused PLANFILE-2"),
    # --- traversal and absolute-path tricks
    ("PLANFILE-2-dotdot-back-to-plan", nothing, W("/workspace/.plans/p2/../p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-dotdot-out-of-root", nothing, W("/workspace/../outside/secret.txt"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-dotdot-alone", nothing, W("/workspace/.."), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-absolute-etc", nothing, W("/etc/passwd"), PLAN_TURN, "refused PLANFILE-2"),
    (
        "PLANFILE-2-host-path-spelling",
        nothing,
        lambda root, outside: W(str(host(root, PLAN))),
        PLAN_TURN,
        "refused PLANFILE-2",
    ),
    ("PLANFILE-2-relative", nothing, W(".plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-relative-dot", nothing, W("./workspace/.plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-root-name-prefix", nothing, W("/workspace2/.plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-empty-path", nothing, W(""), PLAN_TURN, "refused PLANFILE-2"),
    # --- other spellings: refused, never normalized
    ("PLANFILE-2-doubled-slash-inner", nothing, W("/workspace/.plans//p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-doubled-slash-leading", nothing, W("//workspace/.plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-trailing-slash", nothing, W(PLAN + "/"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-dot-segment", nothing, W("/workspace/./.plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-trailing-dot-segment", nothing, W(PLAN + "/."), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-backslash-separators", nothing, W("/workspace/.plans\\p1\\plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    # --- links: never followed, wherever they are
    ("PLANFILE-2-symlink-at-plan-inside-dangling", link(PLAN, "target.md"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    (
        "PLANFILE-2-symlink-at-plan-inside-existing",
        chain(file(SIBLING), link(PLAN, "notes.md")),
        W(PLAN),
        PLAN_TURN,
        "refused PLANFILE-2",
    ),
    ("PLANFILE-2-symlink-at-plan-outside-dangling", link(PLAN, "{outside}/stolen.md"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-symlink-at-plan-outside-existing", link(PLAN, "{outside}/secret.txt"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-symlink-at-plan-upload", link(PLAN, "{outside}/secret.txt"), UP(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-symlink-parent-outside", link(PLAN_DIR, "{outside}"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    (
        "PLANFILE-2-symlink-parent-inside",
        chain(dirs("/workspace/.plans/real"), link(PLAN_DIR, "real")),
        W(PLAN),
        PLAN_TURN,
        "refused PLANFILE-2",
    ),
    ("PLANFILE-2-symlink-grandparent-outside", link("/workspace/.plans", "{outside}"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    (
        "PLANFILE-2-symlink-dir-outside-with-p1",
        chain(lambda root, outside: (outside / "p1").mkdir(), link("/workspace/.plans", "{outside}")),
        W(PLAN),
        PLAN_TURN,
        "refused PLANFILE-2",
    ),
    ("PLANFILE-2-symlink-to-filesystem-root", link("/workspace/.plans", "/"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-parent-is-regular-file", file(PLAN_DIR, b"not a dir"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-grandparent-is-regular-file", file("/workspace/.plans", b"x"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-is-directory", dirs(PLAN), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-hardlinked-outside", hardlink(PLAN, "{outside}/secret.txt"), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-is-fifo", fifo(PLAN), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    # --- Unicode look-alikes: different code points, different paths
    ("PLANFILE-2-cyrillic-a-in-name", nothing, W("/workspace/.plans/p1/pl\u0430n.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-cyrillic-a-in-dir", nothing, W("/workspace/.pl\u0430ns/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-fullwidth-solidus", nothing, W("/workspace/.plans/p1\uff0fplan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-fullwidth-letters", nothing, W("/workspace/.plans/\uff50\uff11/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-zero-width-space", nothing, W("/workspace/.plans/p1/plan\u200b.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-nfd-op-nfc-plan", nothing, W(PLAN_NFD), SandboxAccess(True, PLAN_NFC), "refused PLANFILE-2"),
    ("PLANFILE-2-nfc-op-nfd-plan", nothing, W(PLAN_NFC), SandboxAccess(True, PLAN_NFD), "refused PLANFILE-2"),
    ("PLANFILE-2-nfc-exact-admitted", nothing, W(PLAN_NFC), SandboxAccess(True, PLAN_NFC), "admitted"),
    ("PLANFILE-2-nfd-exact-admitted", nothing, W(PLAN_NFD), SandboxAccess(True, PLAN_NFD), "admitted"),
    # --- NUL and control characters
    ("PLANFILE-2-nul-byte", nothing, W(PLAN + "\x00.txt"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-nul-only-suffix", nothing, W(PLAN + "\x00"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-newline", nothing, W("/workspace/.plans/p1/plan\n.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-escape-char", nothing, W("/workspace/.plans/p1/\x1bplan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-del-char", nothing, W("/workspace/.plans/p1/plan\x7f.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-c1-control", nothing, W("/workspace/.plans/p1/plan\x85.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-lone-surrogate", nothing, W("/workspace/.plans/p1/plan\udcff.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-file-itself-has-newline", nothing, W("/workspace/.plans/p1/plan\n.md"), SandboxAccess(True, "/workspace/.plans/p1/plan\n.md"), "refused PLANFILE-2"),
    ("ACCESS-8-build-nul-byte", nothing, W("/workspace/a\x00b"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-newline", nothing, W("/workspace/a\nb"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-escape-char", nothing, W("/workspace/\x1b[31mred"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-del-char", nothing, W("/workspace/a\x7fb"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-c1-control", nothing, W("/workspace/a\x9bb"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-lone-surrogate", nothing, W("/workspace/a\udc80b"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-unicode-name-admitted", nothing, W("/workspace/caf\u00e9-\u0430\uff50.md"), BUILD, "admitted"),
    # --- lengths, counted in UTF-8 bytes
    ("ACCESS-8-component-255-bytes-admitted", nothing, W("/workspace/" + "a" * 255), BUILD, "admitted"),
    ("ACCESS-8-component-256-bytes", nothing, W("/workspace/" + "a" * 256), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-component-multibyte-256-bytes", nothing, W("/workspace/" + "é" * 128), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-path-over-4096-bytes", nothing, W(LONG_DIR + "/f"), BUILD, "refused ACCESS-8"),
    ("PLANFILE-2-long-path-plan-turn", nothing, W(LONG_DIR + "/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    # --- mkdir: only missing ancestors of the plan file, create-only
    ("PLANFILE-2-mkdir-missing-parent", nothing, OP("mkdir", PLAN_DIR), PLAN_TURN, "admitted"),
    ("PLANFILE-2-mkdir-missing-top", nothing, OP("mkdir", "/workspace/.plans"), PLAN_TURN, "admitted"),
    ("PLANFILE-2-mkdir-existing-parent", dirs(PLAN_DIR), OP("mkdir", PLAN_DIR), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-existing-top", dirs("/workspace/.plans"), OP("mkdir", "/workspace/.plans"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-non-ancestor", nothing, OP("mkdir", "/workspace/other"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-plan-path", nothing, OP("mkdir", PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-guest-root", nothing, OP("mkdir", "/workspace"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-through-symlink", link("/workspace/.plans", "{outside}"), OP("mkdir", PLAN_DIR), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-mkdir-over-symlink", link(PLAN_DIR, "{outside}"), OP("mkdir", PLAN_DIR), PLAN_TURN, "refused PLANFILE-2"),
    # --- no remove, rename, copy, lifecycle or Desktop, the plan file included (PLANFILE-3)
    ("PLANFILE-3-remove-plan", file(PLAN), OP("remove", PLAN), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-remove-sibling", file(SIBLING), OP("remove", SIBLING), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-remove-plan-dir", dirs(PLAN_DIR), OP("remove", PLAN_DIR), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-rename-plan", file(PLAN), OP("rename", PLAN, "/workspace/.plans/p1/old.md"), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-rename-onto-plan", file(SIBLING), OP("rename", SIBLING, PLAN), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-copy-plan", file(PLAN), OP("copy", PLAN, SIBLING), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-copy-onto-plan", file(SIBLING), OP("copy", SIBLING, PLAN), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-lifecycle", nothing, OP("lifecycle", None), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-lifecycle-naming-plan", nothing, OP("lifecycle", PLAN), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-3-desktop", nothing, OP("desktop", None), PLAN_TURN, "refused PLANFILE-3"),
    # --- reading changes nothing: admitted in every mode, but never through a link
    ("PLANFILE-2-read-plan-admitted", file(PLAN), OP("read", PLAN), PLAN_TURN, "admitted"),
    ("PLANFILE-2-list-admitted", file(PLAN), OP("list", PLAN_DIR), PLAN_TURN, "admitted"),
    ("ACCESS-8-read-through-symlink", link("/workspace/leak", "{outside}/secret.txt"), OP("read", "/workspace/leak"), PLAN_TURN, "refused ACCESS-8"),
    ("ACCESS-8-list-symlinked-dir", link("/workspace/out", "{outside}"), OP("list", "/workspace/out"), PLAN_TURN, "refused ACCESS-8"),
    ("ACCESS-8-read-dotdot", nothing, OP("read", "/workspace/../outside/secret.txt"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-read-fifo", fifo("/workspace/pipe"), OP("read", "/workspace/pipe"), BUILD, "refused ACCESS-8"),
    # --- the paired-computer executor (PLANFILE-4)
    ("PLANFILE-4-paired-exact-write-scope-parent", dirs(PLAN_DIR), W(PLAN, executor="paired"), PLAN_TURN, "admitted scope=" + PLAN_DIR),
    ("PLANFILE-4-paired-overwrite", file(PLAN), W(PLAN, executor="paired"), PLAN_TURN, "admitted scope=" + PLAN_DIR),
    ("PLANFILE-4-paired-upload", dirs(PLAN_DIR), UP(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-mkdir", nothing, OP("mkdir", PLAN_DIR, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-sibling", dirs(PLAN_DIR), W(SIBLING, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-missing-parent", nothing, W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-symlink-parent", link(PLAN_DIR, "{outside}"), W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-symlink-at-plan", link(PLAN, "{outside}/secret.txt"), W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-doubled-slash", dirs(PLAN_DIR), W("/workspace/.plans/p1//plan.md", executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-remove", file(PLAN), OP("remove", PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-3"),
    ("PLANFILE-4-paired-read-only-no-plan", dirs(PLAN_DIR), W(PLAN, executor="paired"), READ_ONLY, "refused PLANFILE-2"),
    ("PLANFILE-4-paired-build-write-unscoped", nothing, W("/workspace/src/a.py", executor="paired"), BUILD, "admitted scope=None"),
    # --- read-only without a plan file: nothing mutating (DELEG-1)
    ("DELEG-1-read-only-write", nothing, W("/workspace/notes.md"), READ_ONLY, "refused PLANFILE-2"),
    ("DELEG-1-read-only-write-plan-like-path", nothing, W(PLAN), READ_ONLY, "refused PLANFILE-2"),
    ("DELEG-1-read-only-upload", nothing, UP(PLAN), READ_ONLY, "refused PLANFILE-2"),
    ("DELEG-1-read-only-mkdir", nothing, OP("mkdir", PLAN_DIR), READ_ONLY, "refused PLANFILE-2"),
    ("DELEG-1-read-only-remove", nothing, OP("remove", "/workspace/README.md"), READ_ONLY, "refused PLANFILE-3"),
    ("DELEG-1-read-only-rename", nothing, OP("rename", "/workspace/README.md", "/workspace/R.md"), READ_ONLY, "refused PLANFILE-3"),
    ("DELEG-1-read-only-copy", nothing, OP("copy", "/workspace/README.md", "/workspace/R.md"), READ_ONLY, "refused PLANFILE-3"),
    ("DELEG-1-read-only-lifecycle", nothing, OP("lifecycle", None), READ_ONLY, "refused PLANFILE-3"),
    ("DELEG-1-read-only-desktop", nothing, OP("desktop", None), READ_ONLY, "refused PLANFILE-3"),
    ("DELEG-1-read-only-read-admitted", nothing, OP("read", "/workspace/README.md"), READ_ONLY, "admitted"),
    # --- a plan path handed to a child is gone (PLANFILE-5), read-only stays (DELEG-3)
    ("PLANFILE-5-child-write-plan", nothing, W(PLAN), child_access(PLAN_TURN), "refused PLANFILE-2"),
    ("PLANFILE-5-child-upload-plan", nothing, UP(PLAN), child_access(PLAN_TURN), "refused PLANFILE-2"),
    ("PLANFILE-5-child-mkdir-plan-parent", nothing, OP("mkdir", PLAN_DIR), child_access(PLAN_TURN), "refused PLANFILE-2"),
    ("DELEG-3-child-of-read-only-stays-read-only", nothing, W("/workspace/x"), child_access(READ_ONLY), "refused PLANFILE-2"),
    # --- build turns: everything inside the root, nothing through a link (ACCESS-8)
    ("ACCESS-8-build-write-nested", nothing, W("/workspace/src/pkg/a.py"), BUILD, "admitted"),
    ("ACCESS-8-build-write-ignores-plan-file", nothing, W(SIBLING), SandboxAccess(False, PLAN), "admitted"),
    ("ACCESS-8-build-mkdir", nothing, OP("mkdir", "/workspace/a/b"), BUILD, "admitted"),
    ("ACCESS-8-build-mkdir-existing", dirs("/workspace/a"), OP("mkdir", "/workspace/a"), BUILD, "admitted"),
    ("ACCESS-8-build-remove", nothing, OP("remove", "/workspace/README.md"), BUILD, "admitted"),
    ("ACCESS-8-build-rename", nothing, OP("rename", "/workspace/README.md", "/workspace/R.md"), BUILD, "admitted"),
    ("ACCESS-8-build-copy", nothing, OP("copy", "/workspace/README.md", "/workspace/R.md"), BUILD, "admitted"),
    ("ACCESS-8-build-lifecycle", nothing, OP("lifecycle", None), BUILD, "admitted"),
    ("ACCESS-8-build-desktop", nothing, OP("desktop", None), BUILD, "admitted"),
    ("ACCESS-8-build-symlink-parent-outside", link("/workspace/out", "{outside}"), W("/workspace/out/x"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-symlink-at-target", link("/workspace/t", "{outside}/secret.txt"), W("/workspace/t"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-hardlink-outside", hardlink("/workspace/h", "{outside}/secret.txt"), W("/workspace/h"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-dotdot", nothing, W("/workspace/../outside/new"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-rename-dest-dotdot", nothing, OP("rename", "/workspace/README.md", "/workspace/../outside/R"), BUILD, "refused ACCESS-8"),
    (
        "ACCESS-8-build-rename-into-symlinked-dir",
        link("/workspace/out", "{outside}"),
        OP("rename", "/workspace/README.md", "/workspace/out/README.md"),
        BUILD,
        "refused ACCESS-8",
    ),
    (
        "ACCESS-8-build-copy-from-symlink",
        link("/workspace/leak", "{outside}/secret.txt"),
        OP("copy", "/workspace/leak", "/workspace/copy.txt"),
        BUILD,
        "refused ACCESS-8",
    ),
    ("ACCESS-8-build-remove-link-not-target", link("/workspace/out", "{outside}"), OP("remove", "/workspace/out"), BUILD, "admitted"),
    ("ACCESS-8-build-remove-guest-root", nothing, OP("remove", "/workspace"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-outside-roots", nothing, W("/workspace/docs/x"), SandboxAccess(False, None, ("/workspace/src",)), "refused ACCESS-8"),
    ("ACCESS-8-build-inside-roots", nothing, W("/workspace/src/x"), SandboxAccess(False, None, ("/workspace/src",)), "admitted"),
    ("ACCESS-8-read-outside-roots", nothing, OP("read", "/workspace/README.md"), SandboxAccess(True, None, ("/workspace/src",)), "refused ACCESS-8"),
    ("PLANFILE-2-plan-outside-roots", nothing, W(PLAN), SandboxAccess(True, PLAN, ("/workspace/src",)), "refused PLANFILE-2"),
    ("ACCESS-8-build-parent-is-file", file("/workspace/a"), W("/workspace/a/b"), BUILD, "refused -"),
    # --- the audit's cases: special files at the plan path or its parent
    ("PLANFILE-2-plan-is-socket", socket_file(PLAN), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-is-device", device(PLAN), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-upload-onto-fifo", fifo(PLAN), UP(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-parent-is-fifo", fifo(PLAN_DIR), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-parent-is-socket", socket_file(PLAN_DIR), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-parent-is-device", device(PLAN_DIR), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-dir-with-plan-inside", chain(dirs(PLAN), file(PLAN + "/x")), W(PLAN), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-4-paired-plan-is-fifo", fifo(PLAN), W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-plan-is-socket", socket_file(PLAN), W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("PLANFILE-4-paired-plan-hardlinked-outside", hardlink(PLAN, "{outside}/secret.txt"), W(PLAN, executor="paired"), PLAN_TURN, "refused PLANFILE-4"),
    ("ACCESS-8-build-target-is-socket", socket_file("/workspace/sock"), W("/workspace/sock"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-target-is-device", device("/workspace/dev"), W("/workspace/dev"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-target-is-fifo", fifo("/workspace/pipe"), W("/workspace/pipe"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-upload-hardlink-outside", hardlink("/workspace/h", "{outside}/secret.txt"), UP("/workspace/h"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-copy-onto-hardlink-outside", hardlink("/workspace/h", "{outside}/secret.txt"), OP("copy", "/workspace/README.md", "/workspace/h"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-build-hardlink-inside-refused", hardlink("/workspace/h", "{root}/README.md"), W("/workspace/h"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-read-device", device("/workspace/dev"), OP("read", "/workspace/dev"), BUILD, "refused ACCESS-8"),
    ("ACCESS-8-read-socket", socket_file("/workspace/sock"), OP("read", "/workspace/sock"), BUILD, "refused ACCESS-8"),
    # --- lengths at the boundary: 4,096 UTF-8 bytes is the most a guest path may be
    ("ACCESS-8-path-of-4096-bytes-admitted", nothing, W(PATH_4096), BUILD, "admitted"),
    ("ACCESS-8-path-of-4097-bytes", nothing, W(PATH_4097), BUILD, "refused ACCESS-8"),
    ("PLANFILE-2-plan-of-4096-bytes-exact-admitted", nothing, W(PATH_4096), SandboxAccess(True, PATH_4096), "admitted"),
    ("PLANFILE-2-plan-of-4097-bytes", nothing, W(PATH_4097), SandboxAccess(True, PATH_4097), "refused PLANFILE-2"),
    # --- case variants, trailing "/" and "/./"
    ("PLANFILE-2-case-variant-dir", nothing, W("/workspace/.PLANS/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-case-variant-upper-name", nothing, W("/workspace/.plans/p1/PLAN.MD"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-case-variant-root", nothing, W("/Workspace/.plans/p1/plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-inner-dot-segment", nothing, W("/workspace/.plans/p1/./plan.md"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-trailing-slash-dot-slash", nothing, W(PLAN + "/./"), PLAN_TURN, "refused PLANFILE-2"),
    ("PLANFILE-2-plan-file-itself-trailing-slash", nothing, W(PLAN + "/"), SandboxAccess(True, PLAN + "/"), "refused PLANFILE-2"),
    ("PLANFILE-2-plan-file-itself-dot-segment", nothing, W("/workspace/./plan.md"), SandboxAccess(True, "/workspace/./plan.md"), "refused PLANFILE-2"),
    ("PLANFILE-2-plan-file-itself-nul", nothing, W(PLAN + "\x00"), SandboxAccess(True, PLAN + "\x00"), "refused PLANFILE-2"),
    ("PLANFILE-2-nfd-variant-of-ascii-free-plan", nothing, W(PLAN_NFD.replace("plan.md", "PLAN.md")), SandboxAccess(True, PLAN_NFC), "refused PLANFILE-2"),
    # --- the guest root itself as the plan path
    ("PLANFILE-2-root-as-plan-write-root", nothing, W("/workspace"), ROOT_AS_PLAN, "refused PLANFILE-2"),
    ("PLANFILE-2-root-as-plan-write-below", nothing, W("/workspace/README.md"), ROOT_AS_PLAN, "refused PLANFILE-2"),
    ("PLANFILE-2-root-as-plan-mkdir", nothing, OP("mkdir", "/workspace/x"), ROOT_AS_PLAN, "refused PLANFILE-2"),
    ("PLANFILE-2-root-as-plan-upload", nothing, UP("/workspace"), ROOT_AS_PLAN, "refused PLANFILE-2"),
    ("PLANFILE-4-root-as-plan-paired", nothing, W("/workspace", executor="paired"), ROOT_AS_PLAN, "refused PLANFILE-4"),
    ("PLANFILE-2-root-with-trailing-slash-as-plan", nothing, W("/workspace/"), SandboxAccess(True, "/workspace/"), "refused PLANFILE-2"),
    # --- malformed operations are errors, not policy refusals
    ("SANDBOX-unknown-kind", nothing, OP("chmod", PLAN), PLAN_TURN, "error"),
    ("SANDBOX-unknown-executor", nothing, W(PLAN, executor="remote"), PLAN_TURN, "error"),
    ("SANDBOX-path-not-str", nothing, W(PLAN.encode()), BUILD, "error"),
]
# fmt: on


# ------------------------------------------------------------------------ snapshots


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret")
    (outside / "subdir").mkdir()
    (root / "README.md").write_bytes(b"readme")
    return root, outside


def test_table_is_big_enough() -> None:
    assert len(ROWS) >= 45
    assert len({row[0] for row in ROWS}) == len(ROWS), "row ids must be unique"


@pytest.mark.parametrize(("setup", "op", "access", "expected"), [pytest.param(*row[1:], id=row[0]) for row in ROWS])
def test_attack(world: tuple[Path, Path], setup: Setup, op: SandboxOp, access: SandboxAccess, expected: str) -> None:
    root, outside = world
    tmp = root.parent
    setup(root, outside)
    if callable(op):
        op = op(root, outside)
    before_root, before_rest = snapshot(root), snapshot(tmp, skip=root)

    with Sandbox(root) as sandbox:
        if expected == "error":
            with pytest.raises(SandboxError):
                sandbox.perform(op, access)
            result = None
        else:
            result = sandbox.perform(op, access)

    assert snapshot(tmp, skip=root) == before_rest, "something outside the root was created or changed"
    if result is None:
        assert snapshot(root) == before_root
        return
    verdict, _, detail = expected.partition(" ")
    if verdict == "refused":
        assert not result.admitted, f"expected a refusal, got {result}"
        want_rule = None if detail == "-" else detail
        assert result.rule == want_rule, result.reason
        if want_rule:
            assert f"[{want_rule}]" in result.reason and repr(op.path) in result.reason, result.reason
        assert snapshot(root) == before_root, "a refused op changed the root"
        return
    assert result.admitted, result.reason
    if detail.startswith("scope="):
        want_scope = detail.removeprefix("scope=")
        assert result.scope == (None if want_scope == "None" else want_scope)
    if op.kind in ("write", "upload"):
        assert read_host(root, op.path) == op.content
    elif op.kind == "mkdir":
        assert host(root, op.path).is_dir()
    elif op.kind == "copy":
        assert host(root, op.dest).read_bytes() == before_root[op.path.removeprefix("/workspace/")][1]
    elif op.kind in ("read", "list", "lifecycle", "desktop"):
        assert snapshot(root) == before_root, "a read-only op changed the root"
        if op.kind == "read":
            assert result.data == host(root, op.path).read_bytes()


# ----------------------------------------------------------- the normalization contract


@pytest.fixture
def sandbox(world: tuple[Path, Path]) -> Iterator[Sandbox]:
    with Sandbox(world[0]) as sb:
        yield sb


def test_planfile2_canonical_paths_resolve_to_components(sandbox: Sandbox) -> None:
    assert sandbox.resolve_guest_path("/workspace") == ()
    assert sandbox.resolve_guest_path(PLAN) == (".plans", "p1", "plan.md")
    assert sandbox.guest_path(sandbox.resolve_guest_path(PLAN)) == PLAN


@pytest.mark.parametrize(
    "path",
    [
        "/workspace//a", "/workspace/a/", "/workspace/./a", "/workspace/a/..", "//workspace/a",
        "workspace/a", "/work", "/workspacex/a", "", "/workspace/a\x00", "/workspace/\udcff",
    ],
    ids=lambda p: "PLANFILE-2-noncanonical-" + (repr(p)[1:-1] or "empty"),
)  # fmt: skip
def test_planfile2_noncanonical_spellings_are_refused_not_normalized(sandbox: Sandbox, path: str) -> None:
    with pytest.raises(SandboxError):
        sandbox.resolve_guest_path(path)


def test_planfile2_nfc_and_nfd_are_different_paths(sandbox: Sandbox) -> None:
    assert sandbox.resolve_guest_path(PLAN_NFC) != sandbox.resolve_guest_path(PLAN_NFD)


def test_planfile3_lifecycle_recorded_only_on_build(sandbox: Sandbox) -> None:
    assert not sandbox.perform(OP("lifecycle", None), PLAN_TURN).admitted
    assert sandbox.events == []
    assert sandbox.perform(OP("desktop", None), BUILD).admitted
    assert sandbox.events == [("desktop", None)]


def test_planfile5_child_access_drops_plan_keeps_read_only() -> None:
    child = child_access(PLAN_TURN)
    assert child.plan_file is None and child.read_only is True
    assert child_access(BUILD).read_only is False


def test_access8_sandbox_never_caches_access(sandbox: Sandbox) -> None:
    # The same op under a fresh access decides afresh: admitted, then refused once revoked.
    assert sandbox.perform(W(PLAN), PLAN_TURN).admitted
    assert not sandbox.perform(W(PLAN), child_access(PLAN_TURN)).admitted
    assert sandbox.perform(W(PLAN, content=b"again"), PLAN_TURN).admitted


# ------------------------------------------------------------------ sequences from the audit


@pytest.mark.parametrize(
    ("guest", "access", "rule"),
    [
        pytest.param(PLAN, PLAN_TURN, "PLANFILE-2", id="PLANFILE-2-plan-file"),
        pytest.param("/workspace/src/a.py", BUILD, "ACCESS-8", id="ACCESS-8-build-target"),
    ],
)
def test_hard_link_made_from_outside_between_two_writes(
    world: tuple[Path, Path], guest: str, access: SandboxAccess, rule: str
) -> None:
    """Someone outside the root hard-links the written file between two writes: the second write
    neither changes the outside name's bytes nor goes through; nothing outside changes."""
    root, outside = world
    with Sandbox(root) as sandbox:
        assert sandbox.perform(W(guest, b"first\n"), access).admitted
        os.link(host(root, guest), outside / "linked-from-outside")
        before = snapshot(outside)
        second = sandbox.perform(W(guest, b"second\n"), access)
        assert not second.admitted and second.rule == rule, second.reason
        assert snapshot(outside) == before
        assert (outside / "linked-from-outside").read_bytes() == b"first\n"
        # Once the outside name is gone the file has one link again, and writing it is fine.
        os.unlink(outside / "linked-from-outside")
        assert sandbox.perform(W(guest, b"third\n"), access).admitted
        assert host(root, guest).read_bytes() == b"third\n"


def test_outside_file_hard_linked_in_between_two_writes(world: tuple[Path, Path]) -> None:
    """The plan file is replaced by a hard link to an outside file between two writes."""
    root, outside = world
    with Sandbox(root) as sandbox:
        assert sandbox.perform(W(PLAN, b"first\n"), PLAN_TURN).admitted
        os.unlink(host(root, PLAN))
        os.link(outside / "secret.txt", host(root, PLAN))
        result = sandbox.perform(W(PLAN, b"second\n"), PLAN_TURN)
        assert not result.admitted and result.rule == "PLANFILE-2", result.reason
        assert (outside / "secret.txt").read_bytes() == b"secret"


def test_symlinked_ancestor_above_the_root(tmp_path: Path) -> None:
    """The host root is reached through a symlinked ancestor (host configuration, followed once at
    open). Retargeting that link afterwards, at an outside directory with the same layout, moves
    no write: the sandbox keeps working in the directory it opened."""
    real, decoy = tmp_path / "real", tmp_path / "decoy"
    for base in (real, decoy):
        (base / "root").mkdir(parents=True)
    (decoy / "root" / "README.md").write_bytes(b"decoy")
    via = tmp_path / "via"
    os.symlink(real, via)
    with Sandbox(via / "root") as sandbox:
        assert sandbox.perform(W(PLAN, b"one\n"), PLAN_TURN).admitted
        before = snapshot(decoy)
        os.unlink(via)
        os.symlink(decoy, via)
        assert sandbox.perform(W(PLAN, b"two\n"), PLAN_TURN).admitted
        assert sandbox.perform(W("/workspace/b.txt", b"b\n"), BUILD).admitted
    assert snapshot(decoy) == before, "a write followed the retargeted ancestor link"
    assert host(real / "root", PLAN).read_bytes() == b"two\n"
    assert (real / "root" / "b.txt").read_bytes() == b"b\n"


def test_no_write_leaves_a_temporary_file_behind(world: tuple[Path, Path]) -> None:
    """Writes go through a new file renamed over the target; refused or admitted, none is left."""
    root, outside = world
    with Sandbox(root) as sandbox:
        assert sandbox.perform(W(PLAN, b"first\n"), PLAN_TURN).admitted
        os.link(outside / "secret.txt", host(root, PLAN_DIR + "/other"))
        assert not sandbox.perform(W(PLAN_DIR + "/other", b"x"), BUILD).admitted
        assert sandbox.perform(W(PLAN, b"second\n"), PLAN_TURN).admitted
    assert sorted(os.listdir(host(root, PLAN_DIR))) == ["other", "plan.md"]


def test_a_write_replaces_the_inode_and_keeps_the_mode(world: tuple[Path, Path]) -> None:
    """No existing inode is written in place: the target's inode changes, its permission bits stay."""
    root, _ = world
    target = root / "script.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o751)
    inode = target.stat().st_ino
    with Sandbox(root) as sandbox:
        assert sandbox.perform(W("/workspace/script.sh", b"new\n"), BUILD).admitted
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_ino != inode
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
