"""The kit's one child-process supervisor: one bounded JSON-lines child process. Start it, send a
line, read a line by a deadline, keep a stderr tail, close it with its whole process tree.

Used by the plugin bridges (a JS/TS plugin's node, a Python plugin's python, each in a
:class:`~pytest_toolconformance.confinement.Sandbox`) and by wire hosts (as they are). What confines
a process is :mod:`pytest_toolconformance.confinement`; this module only starts the program a
sandbox wraps it in, and ends everything it started.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_toolconformance.confinement import Sandbox

#: A child may write lines up to this long (a large composition is a few MiB at most).
MAX_LINE = 64 * 1024 * 1024
#: The longest a read or write here sleeps at a time. Ctrl-C's SIGINT goes to the whole process and
#: may be delivered to another thread (a stderr reader, a call's worker); the thread waiting here is
#: then not woken, and Python raises KeyboardInterrupt only once it runs Python code again.
SIGNAL_CHECK_SECONDS = 0.25

_POSIX = os.name == "posix"
_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl if _LINUX else None


def _dies_with(parent: int) -> Any:
    """A ``preexec_fn`` that has the kernel kill the child when the kit's process dies.

    Finalizers cover every exit Python sees; this covers the ones it does not (SIGTERM or SIGKILL
    from a CI runner's timeout, a crashed xdist worker), where an orphaned plugin would run on.
    The kernel ties the signal to the forking *thread*, so it is only armed from the main thread:
    a child started from a short-lived worker thread would otherwise die with that thread.
    """
    if _prctl is None or threading.current_thread() is not threading.main_thread():
        return None

    def arm() -> None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the kit died between fork and prctl
            os._exit(1)

    return arm


class ProcessFault(Exception):
    """The process can no longer be trusted: it is gone, hung, or its stream is out of step.

    ``kind``: ``"timeout"`` (no line by the deadline), ``"exited"`` (its stdout closed or its stdin
    refused a write), ``"write"`` (it stopped reading its stdin), ``"too-long"`` (no newline in
    :data:`MAX_LINE` bytes). ``line`` holds the partial data, if any.
    """

    def __init__(self, kind: str, detail: str, line: bytes | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.line = line


class Tail:
    """The last ``limit`` bytes a process wrote to stderr (and any stray stdout), thread-safe."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.truncated = False
        self._data = bytearray()
        self._lock = threading.Lock()

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._data += chunk
            if len(self._data) > self.limit:
                del self._data[: len(self._data) - self.limit]
                self.truncated = True

    def text(self) -> str:
        """The bytes kept, less unshare's words about the kit's kill (however the reads split them)."""
        with self._lock:
            text = self._data.decode("utf-8", "replace")
        return "".join(line for line in text.splitlines(keepends=True) if line.rstrip("\n") != _UNSHARE_NOISE)


# What util-linux's unshare says when the kit kills its child: noise about the kit, not the plugin.
_UNSHARE_NOISE = "unshare: sigprocmask unblock failed: Invalid argument"


def _read_stderr(stream: Any, tail: Tail) -> None:
    try:
        while chunk := stream.read(65536):
            tail.add(chunk)
    except (OSError, ValueError):
        pass
    finally:
        # The reader is the pipe's only user: left to the garbage collector, an unclosed pipe is a
        # ResourceWarning, which a user's `-W error` turns into a failure of whatever check runs then.
        try:
            stream.close()
        except (OSError, ValueError):
            pass


def _descendants(root: int) -> list[int]:
    """Every live process below ``root`` (by parent pid), children first visited first."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _with_marker(marker: str) -> list[int]:
    """Processes whose environment still carries ``marker`` (a tree that left its session)."""
    needle = marker.encode()
    found = []
    for entry in os.listdir("/proc") if _LINUX else []:
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _kill_tree(popen: subprocess.Popen[bytes], marker: str | None) -> None:
    """SIGKILL everything below the process, then the process and its group.

    Below first: with namespaces the process is ``unshare``, which waits for its child, and the
    kernel ends the rest of the PID namespace before that child's exit is reported, so once
    ``unshare`` is gone nothing of the namespace is left."""
    if not _POSIX:
        popen.kill()
        return
    pids = _descendants(popen.pid) if _LINUX else []
    if marker:
        pids += _with_marker(marker)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if pids:
        try:
            popen.wait(2)
        except subprocess.TimeoutExpired:
            pass
    # The group outlives its leader while members remain (and its id is not reused till then).
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except OSError:
        pass
    if popen.poll() is None:
        popen.kill()


def _end(popen: subprocess.Popen[bytes], grace: float, marker: str | None) -> None:
    """Close stdin and give the process ``grace`` seconds to leave, then end its whole tree."""
    if popen.poll() is None and grace > 0:
        try:
            if popen.stdin is not None:
                popen.stdin.close()
            popen.wait(grace)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
    # Always, even when it left by itself: what it started may still run.
    _kill_tree(popen, marker)
    try:
        popen.wait(5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
        pass
    for stream in (popen.stdin, popen.stdout):
        try:
            if stream is not None:
                stream.close()
        except (OSError, ValueError):
            pass


class LineProcess:
    """One run of a program that speaks one line per message on stdin/stdout.

    ``sandbox`` confines it (see :class:`Sandbox`); without one it runs as given, in a session of
    its own. Reads and writes are bounded by the deadlines the caller passes
    (``time.monotonic()`` values) and raise :class:`ProcessFault`; nothing here catches
    ``KeyboardInterrupt``.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (),
        sandbox: Sandbox | None = None,
        stderr_limit: int = 4096,
        name: str = "process",
    ) -> None:
        self.argv = list(argv)
        self.sandbox = sandbox
        self._spec: dict[str, Any] = {
            "cwd": cwd,
            "env": env,
            "pass_fds": pass_fds,
            "sandbox": sandbox,
            "stderr_limit": stderr_limit,
            "name": name,
        }
        self.tail = Tail(stderr_limit)
        # Processes that leave their session still carry this in their environment (fallback only).
        self.marker = "TOOLCONF_TREE=" + os.urandom(8).hex()
        if sandbox is not None:
            full_env = sandbox.environment(self.argv[0])
            full_env.update(env or {})
            argv = sandbox.wrap(self.argv)
        else:
            full_env = dict(env) if env is not None else dict(os.environ)
            argv = self.argv
        key, value = self.marker.split("=", 1)
        full_env[key] = value
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=full_env,
            bufsize=0,
            pass_fds=tuple(pass_fds),
            start_new_session=_POSIX,
            preexec_fn=_dies_with(os.getpid()),
        )
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.in_fd = self.popen.stdin.fileno()
        self.out_fd = self.popen.stdout.fileno()
        os.set_blocking(self.in_fd, False)
        # poll, not select: no limit on descriptor numbers in a long run with many open files.
        self._readable = select.poll()
        self._readable.register(self.out_fd, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(self.in_fd, select.POLLOUT)
        self._buffer = bytearray()
        self._stderr = threading.Thread(
            target=_read_stderr,
            args=(self.popen.stderr, self.tail),
            name=f"toolconformance-{name}-{self.popen.pid}-stderr",
            daemon=True,
        )
        self._stderr.start()
        # Runs at interpreter exit too, so no child outlives the test run.
        self._finalizer = weakref.finalize(self, _end, self.popen, 0.0, self.marker)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` by ``deadline``."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.in_fd, view)
            except BlockingIOError:
                written = 0
            except (OSError, ValueError) as exc:
                raise ProcessFault(
                    "exited",
                    f"its stdin is closed ({getattr(exc, 'strerror', None) or exc}); "
                    f"it has exited {self.status_text()}",
                ) from None
            view = view[written:]
            if view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProcessFault(
                        "write", "it stopped reading its stdin (the request could not be written in time)"
                    )
                self._writable.poll(max(1, int(min(left, SIGNAL_CHECK_SECONDS) * 1000)))

    def read_line(self, deadline: float) -> bytes:
        """The next line (with its ``\\n``), read by ``deadline``."""
        start = 0
        while True:
            newline = self._buffer.find(b"\n", start)
            if newline >= 0:
                line = bytes(self._buffer[: newline + 1])
                del self._buffer[: newline + 1]
                return line
            if len(self._buffer) > MAX_LINE:
                raise ProcessFault("too-long", f"no newline in the first {MAX_LINE} bytes", bytes(self._buffer[:400]))
            start = len(self._buffer)
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProcessFault("timeout", "")
            # In slices, so that Ctrl-C stops the wait (SIGNAL_CHECK_SECONDS).
            if not self._readable.poll(max(1, int(min(left, SIGNAL_CHECK_SECONDS) * 1000 + 0.5))):
                continue
            try:
                chunk = os.read(self.out_fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                partial = bytes(self._buffer) if self._buffer else None
                raise ProcessFault("exited", f"it closed its stdout {self.status_text(wait=1.0)}", partial)
            self._buffer += chunk

    def status_text(self, wait: float = 0.0) -> str:
        try:
            code = self.popen.wait(wait) if wait else self.popen.poll()
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            return "(still running)"
        if code < 0:
            try:
                return f"(killed by signal {signal.Signals(-code).name})"
            except ValueError:
                return f"(killed by signal {-code})"
        return f"(exit status {code})"

    def stderr_tail(self) -> str:
        """What the process wrote to stderr, last bytes; all of it once the process has ended."""
        if self.popen.poll() is not None:
            # Ended: its stderr is read to the pipe's end, so the last words written before the end are in.
            self._stderr.join(1.0)
        return self.tail.text()

    def close(self, grace: float = 0.0) -> None:
        """End the process and everything it started (``grace``: seconds it may take to leave
        after its stdin closes). Safe to call more than once, and from another thread."""
        self._finalizer.detach()
        # A process in a PID namespace takes everything it started with it; any other is hunted by its marker.
        in_namespace = self.sandbox is not None and self.sandbox.ends_with_its_namespace
        _end(self.popen, grace, None if in_namespace else self.marker)
        self._stderr.join(1.0)

    def restart(self) -> LineProcess:
        """A fresh run of the same program (this one is closed first)."""
        self.close()
        return LineProcess(self.argv, **self._spec)


class ProcessHolder:
    """How the one :class:`LineProcess` a connection runs over stands (its id, whether it still runs,
    its exit code): the part both protocol connections (the wire host's, the plugin bridge's) tell
    alike. A subclass sets ``_process`` when it starts it."""

    _process: LineProcess

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def exit_code(self) -> int | None:
        return self._process.returncode

    def alive(self) -> bool:
        return self._process.alive()


__all__ = ["MAX_LINE", "LineProcess", "ProcessFault", "ProcessHolder", "Tail"]
