"""The sandbox: guest paths, the plan-file allowance and link-safe file access.

Rules: PLANFILE-2 (only the exact plan file and its create-only parents), PLANFILE-3 (no
remove, rename, copy, lifecycle or Desktop on a read-only turn), PLANFILE-4 (the paired-computer
executor writes only the plan file, narrowed to its parent), PLANFILE-5 (a child never inherits
the plan file), ACCESS-5/8 (access is passed in fresh for every operation and confines it).

Guest paths and normalization
-----------------------------
The sandbox does **not** normalize guest paths; it refuses every spelling that is not canonical.
A canonical guest path is ``guest_root`` or ``guest_root + "/" + "/".join(components)`` where no
component is empty (no doubled or trailing slash), ``.`` or ``..``. So ``/workspace//a``,
``/workspace/./a``, ``/workspace/a/`` and ``/workspace/a/../a`` are all refused rather than
rewritten: each admitted file has exactly one spelling, and the plan-file comparison is plain
equality of the component tuples, code point by code point. There is no case folding and no
Unicode normalization: the NFC and NFD spellings of the plan path, or a Cyrillic ``а`` in place of
a Latin ``a``, are different paths and neither of the look-alikes is the plan file. Paths must
also be valid UTF-8 (no lone surrogates), hold no NUL, C0, DEL or C1 control character, no
component over 255 UTF-8 bytes and no more than 4096 UTF-8 bytes in total.

Filesystem safety
-----------------
The host root is opened once as a directory fd. Every operation walks from it one component at
a time with ``O_NOFOLLOW|O_DIRECTORY`` relative to the parent fd, creates missing parents with
``mkdir(dir_fd=...)`` (create-only: an existing entry is re-opened with ``O_NOFOLLOW``, never
replaced) and opens the final name with ``O_NOFOLLOW`` too. A symbolic link anywhere on the way
makes the operation refused; nothing is resolved first and opened later, so there is no
check-then-use window for a swapped link. The final file is opened without ``O_TRUNC`` and
checked with ``fstat`` first, because truncating at open would already have emptied a hard link
to a file outside the root (or a FIFO) before it could be refused; a hard-linked file is never
written. Reads of hard-linked files are allowed (they change nothing).

Result semantics
----------------
``SandboxResult.admitted`` is true when the operation was carried out. A refusal by policy or
by link safety names its rule (PLANFILE-2/3/4 on a read-only turn, ACCESS-8 otherwise); a plain
filesystem outcome on a build turn (a missing file, a non-empty directory) has ``rule=None``.
Malformed operations (unknown kind or executor, a path that is not a str) raise ``SandboxError``;
a str path that is not a valid guest path is a refusal, since it comes from the model.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import re
import stat
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SandboxError

GUEST_ROOT = "/workspace"
MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096

MUTATING_KINDS = frozenset({"write", "upload", "mkdir", "remove", "rename", "copy", "lifecycle", "desktop"})
READ_KINDS = frozenset({"read", "list"})
KINDS = MUTATING_KINDS | READ_KINDS
EXECUTORS = frozenset({"sandbox", "paired"})
# The kinds the plan allowance never grants, whatever the path (PLANFILE-3).
UNGRANTED_KINDS = frozenset({"remove", "rename", "copy", "lifecycle", "desktop"})

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK so a FIFO planted at the target can't hang the host before fstat refuses it.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_RDWR_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20

Components = tuple[str, ...]
Rewrite = Callable[[bytes | None], bytes]


@dataclass(frozen=True)
class SandboxAccess:
    """The access one operation runs under, built fresh from the live descriptor each time."""

    read_only: bool
    plan_file: str | None
    roots: tuple[str, ...] = (GUEST_ROOT,)

    def __post_init__(self) -> None:
        if not isinstance(self.read_only, bool):
            raise SandboxError(f"read_only must be a bool, got {self.read_only!r}", subject="read_only")
        if self.plan_file is not None and not isinstance(self.plan_file, str):
            raise SandboxError(f"plan_file must be a str or None, got {self.plan_file!r}", subject="plan_file")
        if not isinstance(self.roots, tuple) or not all(isinstance(r, str) for r in self.roots):
            raise SandboxError(f"roots must be a tuple of str, got {self.roots!r}", subject="roots")


def child_access(parent: SandboxAccess) -> SandboxAccess:
    """Access for a delegated child: read-only is kept (DELEG-3), the plan file never is (PLANFILE-5)."""
    return SandboxAccess(read_only=parent.read_only, plan_file=None, roots=parent.roots)


@dataclass(frozen=True)
class SandboxOp:
    """One file operation as a plugin or core tool asks for it."""

    kind: str
    path: str | None
    dest: str | None = None
    content: bytes = b""
    executor: str = "sandbox"


@dataclass(frozen=True)
class SandboxResult:
    """What happened to an operation; ``admitted`` means it was carried out."""

    admitted: bool
    reason: str
    rule: str | None
    scope: str | None = None
    data: bytes | list[str] | None = None


@dataclass(frozen=True)
class EntryInfo:
    """One directory entry as seen without following links."""

    name: str
    kind: str  # "file", "dir", "link" or "other"
    size: int
    mode: int
    mtime: float
    nlink: int
    target: str | None = None  # a link's text, reported, never resolved


class SandboxRefusal(Exception):
    """The filesystem walk, or a rewrite callback, refused an operation.

    ``security`` marks a refusal that protects the root (a link, a hard link, a non-regular
    file); ``rule`` is set when the refusal belongs to a rule of its own (e.g. ACCESS-7).
    """

    def __init__(self, message: str, *, security: bool = False, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.security = security
        self.rule = rule


def _bad_char(path: str) -> str | None:
    for ch in path:
        code = ord(ch)
        if code == 0:
            return "contains a NUL character"
        if code < 0x20 or 0x7F <= code <= 0x9F:
            return f"contains the control character U+{code:04X}"
    return None


class Sandbox:
    """A guest file tree backed by a real host directory, walked only through directory fds."""

    def __init__(self, root: Path, guest_root: str = GUEST_ROOT) -> None:
        self.root = Path(root)
        self.guest_root = guest_root
        parts = guest_root.split("/") if isinstance(guest_root, str) else []
        if len(parts) < 2 or parts[0] != "" or any(p in ("", ".", "..") for p in parts[1:]) or _bad_char(guest_root):
            raise SandboxError(f"guest_root must be a canonical absolute path like '/workspace', got {guest_root!r}")
        self._root_parts = tuple(parts[1:])
        # The host's own root path is host configuration, so following links in it is fine;
        # everything below it is walked from this fd and never followed.
        self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._finalizer = weakref.finalize(self, os.close, self._root_fd)
        self._events_lock = threading.Lock()
        self.events: list[tuple[str, str | None]] = []

    def close(self) -> None:
        """Close the root fd; the sandbox is unusable afterwards."""
        self._finalizer()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- guest paths

    def resolve_guest_path(self, path: str) -> Components:
        """Validate a canonical guest path and return its components below ``guest_root``."""
        if not isinstance(path, str):
            raise SandboxError(f"a guest path must be a str, got {type(path).__name__}", subject=repr(path))
        if not path:
            raise SandboxError("the guest path is empty", subject=path)
        try:
            total = len(path.encode("utf-8"))
        except UnicodeEncodeError:
            raise SandboxError(f"{path!r} is not valid Unicode text (lone surrogate)", subject=repr(path)) from None
        problem = _bad_char(path)
        if problem:
            raise SandboxError(f"{path!r} {problem}", subject=repr(path))
        if total > MAX_PATH_BYTES:
            raise SandboxError(
                f"guest path is {total} UTF-8 bytes, over the {MAX_PATH_BYTES}-byte limit", subject=path[:64]
            )
        if not path.startswith("/"):
            raise SandboxError(f"{path!r} is relative; give an absolute path under {self.guest_root}", subject=path)
        parts = path.split("/")[1:]
        if ".." in parts:
            raise SandboxError(f"{path!r} contains a '..' segment; traversal is not allowed", subject=path)
        if "." in parts or "" in parts:
            raise SandboxError(
                f"{path!r} is not canonical (doubled or trailing slash, or a '.' segment); "
                f"spell it as {self.guest_root}/dir/name",
                subject=path,
            )
        n = len(self._root_parts)
        if tuple(parts[:n]) != self._root_parts:
            raise SandboxError(f"{path!r} is outside the guest root {self.guest_root}", subject=path)
        comps = tuple(parts[n:])
        for comp in comps:
            size = len(comp.encode("utf-8"))
            if size > MAX_COMPONENT_BYTES:
                raise SandboxError(
                    f"a component of {path[:64]!r}... is {size} UTF-8 bytes, over the {MAX_COMPONENT_BYTES}-byte limit",
                    subject=path[:64],
                )
        return comps

    def guest_path(self, comps: Components) -> str:
        """The canonical guest spelling of ``comps``."""
        return "/".join((self.guest_root, *comps))

    def _within_roots(self, comps: Components, access: SandboxAccess) -> bool:
        for root in access.roots:
            try:
                rc = self.resolve_guest_path(root)
            except SandboxError:
                continue  # an unusable root confines to nothing rather than to everything
            if comps[: len(rc)] == rc:
                return True
        return False

    # ---------------------------------------------------------------------- policy

    def _validate_op(self, op: SandboxOp, access: SandboxAccess) -> None:
        if not isinstance(op, SandboxOp):
            raise SandboxError(f"expected a SandboxOp, got {type(op).__name__}")
        if not isinstance(access, SandboxAccess):
            raise SandboxError(f"expected a SandboxAccess, got {type(access).__name__}")
        if op.kind not in KINDS:
            raise SandboxError(
                f"unknown operation kind {op.kind!r}; expected one of {sorted(KINDS)}", subject=str(op.kind)
            )
        if op.executor not in EXECUTORS:
            raise SandboxError(
                f"unknown executor {op.executor!r}; expected one of {sorted(EXECUTORS)}", subject=str(op.executor)
            )
        for name in ("path", "dest"):
            value = getattr(op, name)
            if value is not None and not isinstance(value, str):
                raise SandboxError(f"op.{name} must be a str, got {type(value).__name__}", subject=name)
        if op.path is None and op.kind not in ("lifecycle", "desktop"):
            raise SandboxError(f"a {op.kind} operation needs a path", subject=op.kind)
        if op.dest is None and op.kind in ("rename", "copy"):
            raise SandboxError(f"a {op.kind} operation needs a dest", subject=op.kind)
        if not isinstance(op.content, bytes):
            raise SandboxError(f"op.content must be bytes, got {type(op.content).__name__}", subject="content")

    @staticmethod
    def _plan_turn(op: SandboxOp, access: SandboxAccess) -> bool:
        return access.read_only and op.kind in MUTATING_KINDS

    @staticmethod
    def _rule_for(op: SandboxOp, access: SandboxAccess) -> str:
        if access.read_only and op.kind in MUTATING_KINDS:
            return "PLANFILE-4" if op.executor == "paired" else "PLANFILE-2"
        return "ACCESS-8"

    def _refuse(self, rule: str | None, op: SandboxOp, why: str, scope: str | None = None) -> SandboxResult:
        prefix = f"[{rule}] " if rule else ""
        return SandboxResult(False, f"{prefix}{op.kind} {op.path!r} refused: {why}", rule, scope)

    def check(self, op: SandboxOp, access: SandboxAccess) -> SandboxResult | None:
        """Apply policy only: a refusal, or None when policy admits ``op`` under ``access``."""
        self._validate_op(op, access)
        decision, _ = self._decide(op, access)
        return decision

    def _decide(self, op: SandboxOp, access: SandboxAccess) -> tuple[SandboxResult | None, dict[str, Components]]:
        rule = self._rule_for(op, access)
        if access.read_only and op.kind in MUTATING_KINDS:
            if op.kind in UNGRANTED_KINDS:
                return self._refuse(
                    "PLANFILE-3", op, f"a read-only turn grants no {op.kind} permission, the plan file included"
                ), {}
            if access.plan_file is None:
                return self._refuse(
                    "PLANFILE-2", op, "this read-only access carries no plan file, so it admits no write"
                ), {}
            if op.executor == "paired" and op.kind != "write":
                return self._refuse(
                    "PLANFILE-4",
                    op,
                    f"the paired-computer executor admits only a write of the plan file, not {op.kind}",
                ), {}
        resolved: dict[str, Components] = {}
        for name in ("path", "dest"):
            value = getattr(op, name)
            if value is None:
                continue
            try:
                comps = self.resolve_guest_path(value)
            except SandboxError as err:
                return self._refuse(rule, op, err.detail), {}
            if not self._within_roots(comps, access):
                return self._refuse(rule, op, f"{value!r} is outside this access's roots {list(access.roots)}"), {}
            resolved[name] = comps
        if access.read_only and op.kind in MUTATING_KINDS:
            assert access.plan_file is not None
            try:
                plan = self.resolve_guest_path(access.plan_file)
            except SandboxError as err:
                return self._refuse(rule, op, f"the plan file is unusable: {err.detail}"), {}
            if not plan:
                return self._refuse(rule, op, "the plan file names the guest root itself"), {}
            comps = resolved["path"]
            if op.kind in ("write", "upload"):
                if comps != plan:
                    return self._refuse(
                        rule, op, f"only the plan file {access.plan_file!r} may be written on this turn"
                    ), {}
            elif op.kind == "mkdir":
                if not comps or len(comps) >= len(plan) or plan[: len(comps)] != comps:
                    return self._refuse(
                        rule, op, f"only missing ancestors of the plan file {access.plan_file!r} may be created"
                    ), {}
            resolved["plan"] = plan
        return None, resolved

    # ------------------------------------------------------------------- perform

    def perform(self, op: SandboxOp, access: SandboxAccess, *, rewrite: Rewrite | None = None) -> SandboxResult:
        """Carry out ``op`` under ``access`` if policy and the link-safe walk allow it.

        ``rewrite`` (write/upload only) is called with the target's current bytes (None if it
        does not exist), read from the very fd that will be written; what it returns is written
        instead of ``op.content``, and it refuses by raising ``SandboxRefusal``.
        """
        self._validate_op(op, access)
        decision, resolved = self._decide(op, access)
        if decision is not None:
            return decision
        plan_turn = self._plan_turn(op, access)
        rule = self._rule_for(op, access)
        comps = resolved.get("path")
        scope: str | None = None
        if plan_turn and op.executor == "paired":
            assert comps is not None
            scope = self.guest_path(comps[:-1])
        try:
            data = self._execute(op, comps, resolved.get("dest"), plan_turn, rewrite)
        except SandboxRefusal as err:
            refusal_rule = err.rule or (rule if (plan_turn or err.security) else None)
            return self._refuse(refusal_rule, op, err.message, scope)
        return SandboxResult(True, f"{op.kind} {op.path!r} done", None, scope, data)

    def _execute(
        self, op: SandboxOp, comps: Components | None, dest: Components | None, plan_turn: bool, rewrite: Rewrite | None
    ) -> bytes | list[str] | None:
        kind = op.kind
        if kind in ("lifecycle", "desktop"):
            with self._events_lock:
                self.events.append((kind, op.path))
            return None
        assert comps is not None
        if kind in ("write", "upload"):
            # The paired executor is narrowed to the plan file's existing parent: it makes no directories.
            create = not (plan_turn and op.executor == "paired")
            self.write_bytes(comps, op.content, create_parents=create, rewrite=rewrite)
            return None
        if kind == "mkdir":
            self.make_dir(comps, create_only=plan_turn)
            return None
        if kind == "read":
            return self.read_bytes(comps)
        if kind == "list":
            return [e.name for e in self.list_entries(comps)]
        if kind == "remove":
            self.remove_entry(comps)
            return None
        assert dest is not None
        if kind == "rename":
            self.rename_entry(comps, dest)
            return None
        self.copy_file(comps, dest)
        return None

    # -------------------------------------------------------------- the fd walk

    def _where(self, comps: Components) -> str:
        return repr(self.guest_path(comps))

    def _classify(self, parent_fd: int, name: str, comps: Components, err: OSError, want: str) -> SandboxRefusal:
        """Turn a failed no-follow open into a refusal that says what was found there."""
        where = self._where(comps)
        try:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except OSError:
            st = None
        if (st is not None and stat.S_ISLNK(st.st_mode)) or err.errno == errno.ELOOP:
            return SandboxRefusal(f"{where} is a symbolic link; links are never followed", security=True)
        if st is None:
            return SandboxRefusal(f"{where} does not exist")
        if want == "dir" and not stat.S_ISDIR(st.st_mode):
            return SandboxRefusal(f"{where} is not a directory ({_kind(st.st_mode)})")
        if want == "file" and stat.S_ISDIR(st.st_mode):
            return SandboxRefusal(f"{where} is a directory")
        # What is there now is what we wanted: it changed under us, so refuse rather than retry forever.
        return SandboxRefusal(f"{where} changed while it was being opened ({err.strerror})", security=True)

    def _open_child_dir(self, parent_fd: int, name: str, comps: Components, create: bool) -> int:
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError as err:
            if not create:
                raise SandboxRefusal(f"{self._where(comps)} does not exist") from err
        except OSError as err:
            raise self._classify(parent_fd, name, comps, err, "dir") from err
        try:
            os.mkdir(name, 0o755, dir_fd=parent_fd)
        except FileExistsError:
            pass  # made concurrently; the no-follow open below decides whether it is usable
        except OSError as err:
            raise self._classify(parent_fd, name, comps, err, "dir") from err
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except OSError as err:
            raise self._classify(parent_fd, name, comps, err, "dir") from err

    def _open_dir(self, comps: Components, *, create: bool = False) -> int:
        """An fd for the directory at ``comps``; the caller closes it."""
        fd = os.dup(self._root_fd)
        try:
            for i, name in enumerate(comps):
                child = self._open_child_dir(fd, name, comps[: i + 1], create)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _open_file_for_read(self, dir_fd: int, name: str, comps: Components) -> int:
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError as err:
            raise SandboxRefusal(f"{self._where(comps)} does not exist") from err
        except OSError as err:
            raise self._classify(dir_fd, name, comps, err, "file") from err
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise SandboxRefusal(f"{self._where(comps)} is a directory")
            if not stat.S_ISREG(st.st_mode):
                raise SandboxRefusal(f"{self._where(comps)} is not a regular file ({_kind(st.st_mode)})", security=True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    # ----------------------------------------------------------------- helpers

    def read_bytes(self, comps: Components, *, limit: int | None = None) -> bytes:
        """Read a regular file without following links; over ``limit`` bytes is refused."""
        if not comps:
            raise SandboxRefusal(f"{self._where(comps)} is a directory")
        dir_fd = self._open_dir(comps[:-1])
        try:
            fd = self._open_file_for_read(dir_fd, comps[-1], comps)
            try:
                if limit is not None and os.fstat(fd).st_size > limit:
                    raise SandboxRefusal(f"{self._where(comps)} is larger than {limit} bytes")
                return _read_all(fd)
            finally:
                os.close(fd)
        finally:
            os.close(dir_fd)

    def write_bytes(
        self, comps: Components, data: bytes, *, create_parents: bool = True, rewrite: Rewrite | None = None
    ) -> bytes:
        """Write a regular file (see ``perform`` for ``rewrite``); returns the bytes written."""
        if not comps:
            raise SandboxRefusal(f"{self._where(comps)} is a directory")
        dir_fd = self._open_dir(comps[:-1], create=create_parents)
        try:
            return self._write_at(dir_fd, comps[-1], comps, data, rewrite)
        finally:
            os.close(dir_fd)

    def _write_at(self, dir_fd: int, name: str, comps: Components, data: bytes, rewrite: Rewrite | None) -> bytes:
        where = self._where(comps)
        for _ in range(4):
            try:
                fd = os.open(name, _RDWR_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                out = rewrite(None) if rewrite else data
                try:
                    # O_EXCL never follows a (dangling) link and never opens what someone made meanwhile.
                    fd = os.open(name, _CREATE_FLAGS, 0o644, dir_fd=dir_fd)
                except FileExistsError:
                    continue
                except OSError as err:
                    raise self._classify(dir_fd, name, comps, err, "file") from err
                try:
                    _write_all(fd, out)
                finally:
                    os.close(fd)
                return out
            except OSError as err:
                raise self._classify(dir_fd, name, comps, err, "file") from err
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise SandboxRefusal(f"{where} is not a regular file ({_kind(st.st_mode)})", security=True)
                if st.st_nlink != 1:
                    raise SandboxRefusal(
                        f"{where} has {st.st_nlink} hard links; writing it could change a file outside the root",
                        security=True,
                    )
                out = rewrite(_read_all(fd)) if rewrite else data
                os.ftruncate(fd, 0)
                _write_all(fd, out)
                return out
            finally:
                os.close(fd)
        raise SandboxRefusal(f"{where} kept changing while it was being written", security=True)

    def make_dir(self, comps: Components, *, create_only: bool = False) -> None:
        """Make a directory and its missing parents; ``create_only`` refuses an existing one."""
        if not comps:
            if create_only:
                raise SandboxRefusal(f"{self._where(comps)} already exists")
            return
        dir_fd = self._open_dir(comps[:-1], create=True)
        try:
            if create_only:
                try:
                    os.mkdir(comps[-1], 0o755, dir_fd=dir_fd)
                except FileExistsError as err:
                    raise SandboxRefusal(
                        f"{self._where(comps)} already exists; only missing directories are created"
                    ) from err
                except OSError as err:
                    raise self._classify(dir_fd, comps[-1], comps, err, "dir") from err
                return
            os.close(self._open_child_dir(dir_fd, comps[-1], comps, create=True))
        finally:
            os.close(dir_fd)

    def list_entries(self, comps: Components) -> list[EntryInfo]:
        """The entries of a directory, sorted by name; links are reported, not followed."""
        fd = self._open_dir(comps)
        try:
            return sorted(self._entries(fd), key=lambda e: e.name)
        finally:
            os.close(fd)

    @staticmethod
    def _entries(dir_fd: int) -> list[EntryInfo]:
        out: list[EntryInfo] = []
        with os.scandir(dir_fd) as it:  # scandir works on its own dup of dir_fd
            for entry in it:
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed since listing began
                out.append(_info(entry.name, st, dir_fd))
        return out

    def stat_entry(self, comps: Components) -> EntryInfo:
        """Describe one entry without following it."""
        if not comps:
            return _info(self.guest_root, os.fstat(self._root_fd), None)
        dir_fd = self._open_dir(comps[:-1])
        try:
            try:
                st = os.stat(comps[-1], dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError as err:
                raise SandboxRefusal(f"{self._where(comps)} does not exist") from err
            return _info(comps[-1], st, dir_fd)
        finally:
            os.close(dir_fd)

    def walk(self, comps: Components, *, max_depth: int = 64) -> Iterator[tuple[Components, EntryInfo]]:
        """Every entry below the directory ``comps``, depth first; links are yielded, never entered."""
        fd = self._open_dir(comps)
        try:
            yield from self._walk_fd(fd, comps, max_depth)
        finally:
            os.close(fd)

    def _walk_fd(self, fd: int, comps: Components, depth: int) -> Iterator[tuple[Components, EntryInfo]]:
        for entry in sorted(self._entries(fd), key=lambda e: e.name):
            here = (*comps, entry.name)
            yield here, entry
            if entry.kind != "dir" or depth <= 0:
                continue
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue  # swapped for a link or removed since listing: skip, never follow
            try:
                yield from self._walk_fd(child, here, depth - 1)
            finally:
                os.close(child)

    def remove_entry(self, comps: Components) -> None:
        """Remove a file, a link (the link itself) or an empty directory."""
        if not comps:
            raise SandboxRefusal("the guest root itself cannot be removed", security=True)
        dir_fd = self._open_dir(comps[:-1])
        try:
            try:
                os.unlink(comps[-1], dir_fd=dir_fd)
                return
            except FileNotFoundError as err:
                raise SandboxRefusal(f"{self._where(comps)} does not exist") from err
            except (IsADirectoryError, PermissionError):
                pass  # a directory: try rmdir below
            try:
                os.rmdir(comps[-1], dir_fd=dir_fd)
            except OSError as err:
                raise SandboxRefusal(f"{self._where(comps)} could not be removed ({err.strerror})") from err
        finally:
            os.close(dir_fd)

    def rename_entry(self, src: Components, dest: Components) -> None:
        """Rename an entry; both parents are walked without following links."""
        if not src or not dest:
            raise SandboxRefusal("the guest root itself cannot be renamed or replaced", security=True)
        src_fd = self._open_dir(src[:-1])
        try:
            dest_fd = self._open_dir(dest[:-1])
            try:
                os.rename(src[-1], dest[-1], src_dir_fd=src_fd, dst_dir_fd=dest_fd)
            except OSError as err:
                raise SandboxRefusal(
                    f"{self._where(src)} could not be renamed to {self._where(dest)} ({err.strerror})"
                ) from err
            finally:
                os.close(dest_fd)
        finally:
            os.close(src_fd)

    def copy_file(self, src: Components, dest: Components) -> None:
        """Copy a regular file; the destination's parent must exist."""
        self.write_bytes(dest, self.read_bytes(src), create_parents=False)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _info(name: str, st: os.stat_result, dir_fd: int | None) -> EntryInfo:
    kind = _kind(st.st_mode)
    target = None
    if kind == "link" and dir_fd is not None:
        try:
            target = os.readlink(name, dir_fd=dir_fd)
        except OSError:
            target = None
    return EntryInfo(name, kind, st.st_size, stat.S_IMODE(st.st_mode), st.st_mtime, st.st_nlink, target)


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, _CHUNK, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)


# ====================================================================== core file tools

AccessProvider = Callable[[], SandboxAccess]
ToolResult = dict[str, Any]


def _version(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Ticket:
    """One queued mutation; ``result`` is set once it has run."""

    def __init__(self, ticket_id: int, label: str, run: Callable[[], ToolResult]) -> None:
        self.id = ticket_id
        self.label = label
        self._run = run
        self.result: ToolResult | None = None
        self.error: BaseException | None = None
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        """Whether the entry has run."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> ToolResult | None:
        """Block until the entry has run; re-raise what it raised."""
        self._done.wait(timeout)
        if self.error is not None:
            raise self.error
        return self.result

    def __repr__(self) -> str:
        return f"Ticket({self.id}, {self.label!r}, done={self.done})"


class MutationQueue:
    """A FIFO of mutations; every entry does its own live access check when it runs (ACCESS-6)."""

    def __init__(self) -> None:
        self._items: deque[Ticket] = deque()
        self._lock = threading.Lock()
        # Entries run one at a time and in order, whoever drains.
        self._run_lock = threading.Lock()
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def enqueue(self, run: Callable[[], ToolResult], *, label: str = "") -> Ticket:
        """Queue ``run``; nothing is checked or done until it runs."""
        ticket = Ticket(next(self._ids), label, run)
        with self._lock:
            self._items.append(ticket)
        return ticket

    def run_next(self) -> Ticket | None:
        """Run the oldest entry; None when the queue is empty."""
        with self._run_lock:
            with self._lock:
                if not self._items:
                    return None
                ticket = self._items.popleft()
            try:
                ticket.result = ticket._run()
            except BaseException as exc:
                ticket.error = exc
                raise
            finally:
                ticket._done.set()
            return ticket

    def drain(self) -> list[Ticket]:
        """Run entries until the queue is empty; returns those this call ran."""
        ran: list[Ticket] = []
        while (ticket := self.run_next()) is not None:
            ran.append(ticket)
        return ran


class FileTools:
    """What the host's Read/Write/Edit/ListDir/Glob/Grep/FileInfo tools do, over one sandbox.

    Every method takes an ``access_provider`` and calls it immediately before the operation
    (for Write/Edit: when the queued entry runs), never caching what it returns (ACCESS-5/8).
    Results are plain dicts ``{"ok", "text", ...}``; a refusal is ``ok: False`` with a text that
    names the rule and the path, for the model to act on (ERR-2).

    The read-state is keyed by (session_key, canonical guest path) and holds the sha256 of the
    bytes that Read returned; a session's own successful Write/Edit records the bytes it wrote,
    so it may keep editing without reading back. FileInfo's parameter is ``path`` (NAME-2).
    """

    def __init__(
        self,
        sandbox: Sandbox,
        queue: MutationQueue | None = None,
        *,
        max_read_bytes: int = 16 * 2**20,
        max_results: int = 1000,
    ) -> None:
        self.sandbox = sandbox
        self.queue = queue if queue is not None else MutationQueue()
        self.max_read_bytes = max_read_bytes
        self.max_results = max_results
        self._versions: dict[tuple[str, str], str] = {}
        self._versions_lock = threading.Lock()

    # ----------------------------------------------------------------- plumbing

    @staticmethod
    def _fail(text: str, rule: str | None, **extra: Any) -> ToolResult:
        return {"ok": False, "text": text, "rule": rule, **extra}

    def _admit(self, kind: str, path: object, access: SandboxAccess) -> tuple[Components, ToolResult | None]:
        if not isinstance(path, str):
            return (), self._fail(f"{kind} refused: path must be a string, got {type(path).__name__}", None)
        refusal = self.sandbox.check(SandboxOp(kind, path), access)
        if refusal is not None:
            return (), self._fail(refusal.reason, refusal.rule, path=path)
        return self.sandbox.resolve_guest_path(path), None

    def _fs_fail(self, kind: str, path: str, err: SandboxRefusal) -> ToolResult:
        rule = err.rule or ("ACCESS-8" if err.security else None)
        prefix = f"[{rule}] " if rule else ""
        return self._fail(f"{prefix}{kind} {path!r} refused: {err.message}", rule, path=path)

    def version_read(self, session_key: str, file_path: str) -> str | None:
        """The version this session last read or wrote of ``file_path`` (None if never)."""
        with self._versions_lock:
            return self._versions.get((session_key, file_path))

    def _remember(self, session_key: str, guest: str, data: bytes) -> str:
        version = _version(data)
        with self._versions_lock:
            self._versions[(session_key, guest)] = version
        return version

    def _guard(self, session_key: str, guest: str, current: bytes | None) -> None:
        """The read-before-write guard (ACCESS-7), run on the bytes of the fd about to be written."""
        if current is None:
            return  # a new file needs no read
        seen = self.version_read(session_key, guest)
        if seen is None:
            raise SandboxRefusal(
                f"{guest!r} exists but was not read in this session; Read it, then write", rule="ACCESS-7"
            )
        now = _version(current)
        if now != seen:
            raise SandboxRefusal(
                f"{guest!r} changed since it was read (read version {seen[:12]}, now {now[:12]}); Read it again",
                rule="ACCESS-7",
            )

    # --------------------------------------------------------------------- Read

    def read(self, access_provider: AccessProvider, file_path: str, session_key: str) -> ToolResult:
        """Read a text file and record its version for this session's read-state."""
        access = access_provider()
        comps, refusal = self._admit("read", file_path, access)
        if refusal:
            return refusal
        guest = self.sandbox.guest_path(comps)
        try:
            data = self.sandbox.read_bytes(comps, limit=self.max_read_bytes)
        except SandboxRefusal as err:
            return self._fs_fail("read", guest, err)
        version = self._remember(session_key, guest, data)
        return {
            "ok": True,
            "text": data.decode("utf-8", errors="replace"),
            "file_path": guest,
            "version": version,
            "size": len(data),
        }

    # -------------------------------------------------------------- Write / Edit

    def _enqueue_mutation(
        self,
        label: str,
        access_provider: AccessProvider,
        file_path: object,
        session_key: str,
        make: Callable[[str, bytes | None], bytes],
    ) -> Ticket:
        if not isinstance(file_path, str):
            refusal = self._fail(f"{label} refused: file_path must be a string, got {type(file_path).__name__}", None)
            return self.queue.enqueue(lambda: refusal, label=label)
        try:
            # Anchor the spelling now; whether it may be written is decided when the entry runs.
            guest = self.sandbox.guest_path(self.sandbox.resolve_guest_path(file_path))
        except SandboxError as err:
            refusal = self._fail(f"{label} {file_path!r} refused: {err.detail}", None, file_path=file_path)
            return self.queue.enqueue(lambda: refusal, label=label)

        def run() -> ToolResult:
            access = access_provider()  # live access at run time, not at enqueue time (ACCESS-6)
            written: list[bytes] = []

            def rewrite(current: bytes | None) -> bytes:
                out = make(guest, current)
                written.append(out)
                return out

            result = self.sandbox.perform(SandboxOp("write", guest), access, rewrite=rewrite)
            if not result.admitted:
                # The sandbox saw a write; the model called Edit, so say Edit.
                text = result.reason.replace(f"write {guest!r}", f"{label} {guest!r}", 1)
                return self._fail(text, result.rule, file_path=guest)
            version = self._remember(session_key, guest, written[-1])
            return {
                "ok": True,
                "text": f"{label} {guest!r}: {len(written[-1])} bytes",
                "file_path": guest,
                "version": version,
            }

        return self.queue.enqueue(run, label=f"{label} {guest}")

    def enqueue_write(self, access_provider: AccessProvider, file_path: str, content: str, session_key: str) -> Ticket:
        """Queue a Write; it checks access, the anchored path and the read guard when it runs."""
        if not isinstance(content, str):
            refusal = self._fail(f"write refused: content must be a string, got {type(content).__name__}", None)
            return self.queue.enqueue(lambda: refusal, label="write")
        data = content.encode("utf-8")

        def make(guest: str, current: bytes | None) -> bytes:
            self._guard(session_key, guest, current)
            return data

        return self._enqueue_mutation("write", access_provider, file_path, session_key, make)

    def enqueue_edit(
        self, access_provider: AccessProvider, file_path: str, old: str, new: str, session_key: str
    ) -> Ticket:
        """Queue an Edit replacing the one occurrence of ``old`` with ``new``."""
        if not isinstance(old, str) or not isinstance(new, str) or not old or old == new:
            refusal = self._fail(
                "edit refused: old and new must be strings, old non-empty and different from new", None
            )
            return self.queue.enqueue(lambda: refusal, label="edit")

        def make(guest: str, current: bytes | None) -> bytes:
            if current is None:
                raise SandboxRefusal(f"{guest!r} does not exist; use Write to create it")
            self._guard(session_key, guest, current)
            try:
                text = current.decode("utf-8")
            except UnicodeDecodeError as err:
                raise SandboxRefusal(f"{guest!r} is not UTF-8 text") from err
            count = text.count(old)
            if count != 1:
                raise SandboxRefusal(
                    f"the old text occurs {count} times in {guest!r}; it must occur exactly once"
                    + ("" if count == 0 else ", so include more context")
                )
            return text.replace(old, new, 1).encode("utf-8")

        return self._enqueue_mutation("edit", access_provider, file_path, session_key, make)

    def _run_ticket(self, ticket: Ticket) -> ToolResult:
        self.queue.drain()
        result = ticket.wait()
        assert result is not None
        return result

    def write(self, access_provider: AccessProvider, file_path: str, content: str, session_key: str) -> ToolResult:
        """Write through the queue and wait for the result."""
        return self._run_ticket(self.enqueue_write(access_provider, file_path, content, session_key))

    def edit(self, access_provider: AccessProvider, file_path: str, old: str, new: str, session_key: str) -> ToolResult:
        """Edit through the queue and wait for the result."""
        return self._run_ticket(self.enqueue_edit(access_provider, file_path, old, new, session_key))

    # ------------------------------------------------------------ the read-only tools

    def list_dir(self, access_provider: AccessProvider, path: str) -> ToolResult:
        """List a directory; a link is shown as a link and never entered."""
        access = access_provider()
        comps, refusal = self._admit("list", path, access)
        if refusal:
            return refusal
        guest = self.sandbox.guest_path(comps)
        try:
            entries = self.sandbox.list_entries(comps)
        except SandboxRefusal as err:
            return self._fs_fail("list", guest, err)
        lines = [_entry_line(e) for e in entries]
        return {
            "ok": True,
            "text": "\n".join(lines) if lines else "(empty directory)",
            "path": guest,
            "entries": [_entry_dict(e) for e in entries],
        }

    def glob(self, access_provider: AccessProvider, path: str, pattern: str) -> ToolResult:
        """Entries below ``path`` whose relative path matches ``pattern`` (``*``, ``?``, ``[...]``, ``**``)."""
        access = access_provider()
        comps, refusal = self._admit("list", path, access)
        if refusal:
            return refusal
        if not isinstance(pattern, str) or not pattern or pattern.startswith("/") or _bad_char(pattern):
            return self._fail(f"glob refused: pattern must be a relative pattern like '**/*.py', got {pattern!r}", None)
        regex = _glob_regex(pattern)
        guest = self.sandbox.guest_path(comps)
        matches: list[str] = []
        truncated = False
        try:
            with contextlib.closing(self.sandbox.walk(comps)) as entries:
                for sub, info in entries:
                    if regex.match("/".join(sub[len(comps) :])):
                        if len(matches) >= self.max_results:
                            truncated = True
                            break
                        matches.append(
                            self.sandbox.guest_path(sub) + ("  (link, not followed)" if info.kind == "link" else "")
                        )
        except SandboxRefusal as err:
            return self._fail(*_fs_text("glob", guest, err), path=guest)
        text = "\n".join(matches) if matches else f"no entries under {guest!r} match {pattern!r}"
        if truncated:
            text += f"\n(truncated at {self.max_results} matches)"
        return {"ok": True, "text": text, "path": guest, "matches": matches, "truncated": truncated}

    def grep(self, access_provider: AccessProvider, path: str, regex: str) -> ToolResult:
        """Lines matching ``regex`` in the file ``path`` or the regular files below it; links are skipped."""
        access = access_provider()
        comps, refusal = self._admit("list", path, access)
        if refusal:
            return refusal
        guest = self.sandbox.guest_path(comps)
        if not isinstance(regex, str):
            return self._fail(f"grep refused: regex must be a string, got {type(regex).__name__}", None)
        try:
            compiled = re.compile(regex)
        except re.error as err:
            return self._fail(f"grep refused: {regex!r} is not a valid regular expression ({err})", None)
        try:
            info = self.sandbox.stat_entry(comps)
            if info.kind == "link":
                raise SandboxRefusal(f"{guest!r} is a symbolic link; links are never followed", security=True)
            if info.kind == "file":
                files = [comps]
                skipped_links = 0
            else:
                files, skipped_links = [], 0
                with contextlib.closing(self.sandbox.walk(comps)) as entries:
                    for sub, entry in entries:
                        if entry.kind == "file":
                            files.append(sub)
                        elif entry.kind == "link":
                            skipped_links += 1
        except SandboxRefusal as err:
            return self._fail(*_fs_text("grep", guest, err), path=guest)
        lines: list[str] = []
        truncated = False
        for sub in files:
            try:
                data = self.sandbox.read_bytes(sub, limit=self.max_read_bytes)
            except SandboxRefusal:
                continue  # changed into something unreadable since the walk: skip it
            if b"\0" in data[:8192]:
                continue  # binary
            where = self.sandbox.guest_path(sub)
            for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
                if compiled.search(line):
                    if len(lines) >= self.max_results:
                        truncated = True
                        break
                    lines.append(f"{where}:{lineno}:{line}")
            if truncated:
                break
        text = "\n".join(lines) if lines else f"no matches for {regex!r} under {guest!r}"
        if skipped_links:
            text += f"\n({skipped_links} symbolic links skipped, not followed)"
        if truncated:
            text += f"\n(truncated at {self.max_results} matches)"
        return {"ok": True, "text": text, "path": guest, "matches": lines, "truncated": truncated}

    def file_info(self, access_provider: AccessProvider, path: str) -> ToolResult:
        """Describe one entry without following it (NAME-2: FileInfo's scope parameter is ``path``)."""
        access = access_provider()
        comps, refusal = self._admit("read", path, access)
        if refusal:
            return refusal
        guest = self.sandbox.guest_path(comps)
        try:
            info = self.sandbox.stat_entry(comps)
        except SandboxRefusal as err:
            return self._fs_fail("file_info", guest, err)
        text = f"{guest}: {info.kind}, {info.size} bytes, mode {info.mode:o}"
        if info.kind == "link":
            text += f", link to {info.target!r} (not followed)"
        return {"ok": True, "text": text, "path": guest, "info": {"path": guest, **_entry_dict(info)}}


def _fs_text(kind: str, path: str, err: SandboxRefusal) -> tuple[str, str | None]:
    rule = err.rule or ("ACCESS-8" if err.security else None)
    prefix = f"[{rule}] " if rule else ""
    return f"{prefix}{kind} {path!r} refused: {err.message}", rule


def _entry_line(e: EntryInfo) -> str:
    if e.kind == "dir":
        return f"{e.name}/"
    if e.kind == "link":
        return f"{e.name} -> {e.target} (link, not followed)"
    if e.kind == "file":
        return f"{e.name} ({e.size} bytes)"
    return f"{e.name} (special file)"


def _entry_dict(e: EntryInfo) -> dict[str, Any]:
    return {"name": e.name, "type": e.kind, "size": e.size, "mode": e.mode, "mtime": e.mtime, "target": e.target}


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob to a regex over '/'-joined relative paths; ``*`` never crosses a '/'."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == n:
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)
