"""The core file tools (Read, Write, Edit, ListDir, Glob, Grep, FileInfo) over one sandbox.

ACCESS-5/8: access is read from the provider immediately before each operation; ACCESS-6: Write
and Edit go through the mutation queue; ACCESS-7: the read-before-write guard runs on the bytes
about to be replaced; NAME-2: FileInfo's scope parameter is ``path``.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections.abc import Callable
from typing import Any

from ..errors import SandboxError
from .operations import Sandbox
from .paths import Components, bad_char
from .policy import SandboxAccess, SandboxOp
from .queue import MutationQueue, Ticket, ToolResult
from .tree import EntryInfo, SandboxRefusal

AccessProvider = Callable[[], SandboxAccess]


def _version(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
        if not isinstance(pattern, str) or not pattern or pattern.startswith("/") or bad_char(pattern):
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
