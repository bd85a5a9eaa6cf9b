"""Filesystem safety: a guest tree behind one directory fd, walked without following links.

The host root is opened once as a directory fd. Every operation walks from it one component at
a time with ``O_NOFOLLOW|O_DIRECTORY`` relative to the parent fd, creates missing parents with
``mkdir(dir_fd=...)`` (create-only: an existing entry is re-opened with ``O_NOFOLLOW``, never
replaced) and looks at the final name without following it. A symbolic link anywhere on the way
makes the operation refused; nothing is resolved first and opened later, so there is no
check-then-use window for a swapped link.

No existing inode is ever written in place. A write creates a new file exclusively (``O_EXCL``)
in the already-opened parent fd, fills it, and renames it over the target with ``renameat`` on
that same fd. A hard link to a file outside the root, renamed over the target at any moment, is
therefore at worst replaced as a name, never written through; a FIFO or device planted at the
target is never opened for writing. Link safety is still enforced before the rename: a link, a
hard-linked file (more than one link), a directory or a special file at the target is refused.
Reads of hard-linked files are allowed (they change nothing).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .paths import GUEST_ROOT, Components, root_components, spell

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK so a FIFO planted at the target can't hang the host before fstat refuses it.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20

Rewrite = Callable[[bytes | None], bytes]


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


class LinkSafeTree:
    """A real directory, opened once as an fd, whose entries are reached only through dir fds."""

    def __init__(self, root: Path, guest_root: str = GUEST_ROOT) -> None:
        self.root = Path(root)
        self.guest_root = guest_root
        self._root_parts = root_components(guest_root)
        # The host's own root path is host configuration, so following links in it is fine;
        # everything below it is walked from this fd and never followed.
        self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._finalizer = weakref.finalize(self, os.close, self._root_fd)

    def close(self) -> None:
        """Close the root fd; the tree is unusable afterwards."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return not self._finalizer.alive

    def identity(self) -> tuple[int, int]:
        """(device, inode) of the directory this tree opened: the same whatever path names it now."""
        st = os.fstat(self._root_fd)
        return st.st_dev, st.st_ino

    def __enter__(self) -> LinkSafeTree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def guest_path(self, comps: Components) -> str:
        """The canonical guest spelling of ``comps``."""
        return spell(self.guest_root, comps)

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
        """Write ``name`` in the open directory ``dir_fd`` without writing any existing inode.

        The bytes go to a new file created exclusively in the same directory fd, which is then
        renamed over ``name`` (renameat with both dir fds). Whatever is swapped in at ``name``
        meanwhile (a hard link to an outside file, a link, a FIFO) is at worst replaced as a
        name, never written through; the checks before the rename only keep the refusals the
        sandbox promises (links, hard links, special files, directories). With ``rewrite``, the
        target must still be the file whose bytes were rewritten when the rename comes."""
        where = self._where(comps)
        for _ in range(4):
            current, existing = self._current(dir_fd, name, comps, want_bytes=rewrite is not None)
            out = rewrite(current) if rewrite else data
            temp = self._write_temp(dir_fd, comps, out, existing)
            try:
                if rewrite is not None and not self._still(dir_fd, name, existing):
                    continue  # the bytes rewritten are no longer there: decide afresh on what is
                try:
                    os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                except OSError as err:
                    raise self._classify(dir_fd, name, comps, err, "file") from err
                temp = None
                return out
            finally:
                if temp is not None:
                    _unlink_quietly(temp, dir_fd)
        raise SandboxRefusal(f"{where} kept changing while it was being written", security=True)

    def _current(
        self, dir_fd: int, name: str, comps: Components, *, want_bytes: bool
    ) -> tuple[bytes | None, os.stat_result | None]:
        """What is at ``name`` now: its bytes (when wanted) and status, or (None, None) when absent.

        Anything but a regular file with one link is refused, without opening it: a FIFO or a
        device is never opened for writing, and a hard link is refused rather than replaced."""
        where = self._where(comps)
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None, None
        except OSError as err:
            raise self._classify(dir_fd, name, comps, err, "file") from err
        if stat.S_ISLNK(st.st_mode):
            raise SandboxRefusal(f"{where} is a symbolic link; links are never followed", security=True)
        if stat.S_ISDIR(st.st_mode):
            raise SandboxRefusal(f"{where} is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise SandboxRefusal(f"{where} is not a regular file ({_kind(st.st_mode)})", security=True)
        if st.st_nlink != 1:
            raise SandboxRefusal(
                f"{where} has {st.st_nlink} hard links; writing it could change a file outside the root", security=True
            )
        if not want_bytes:
            return None, st
        fd = self._open_file_for_read(dir_fd, name, comps)
        try:
            opened = os.fstat(fd)
            if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
                raise SandboxRefusal(f"{where} changed while it was being read", security=True)
            return _read_all(fd), st
        finally:
            os.close(fd)

    def _write_temp(self, dir_fd: int, comps: Components, data: bytes, existing: os.stat_result | None) -> str:
        """A new file holding ``data``, created with O_EXCL in ``dir_fd``; returns its name."""
        for _ in range(8):
            temp = f".{secrets.token_hex(8)}.toolconformance-write"
            try:
                fd = os.open(temp, _CREATE_FLAGS, 0o644, dir_fd=dir_fd)
            except FileExistsError:
                continue
            except OSError as err:
                raise SandboxRefusal(f"{self._where(comps)} could not be written ({err.strerror})") from err
            try:
                if existing is not None:
                    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                _write_all(fd, data)
            except BaseException:
                os.close(fd)
                _unlink_quietly(temp, dir_fd)
                raise
            os.close(fd)
            return temp
        raise SandboxRefusal(f"{self._where(comps)}: no fresh temporary name could be created", security=True)

    @staticmethod
    def _still(dir_fd: int, name: str, existing: os.stat_result | None) -> bool:
        """Whether ``name`` is still what :meth:`_current` saw (absent, or the same one-link file)."""
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return existing is None
        except OSError:
            return False
        return (
            existing is not None
            and stat.S_ISREG(st.st_mode)
            and st.st_nlink == 1
            and (st.st_dev, st.st_ino) == (existing.st_dev, existing.st_ino)
        )

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


def _unlink_quietly(name: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)
