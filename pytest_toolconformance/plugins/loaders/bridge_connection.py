"""The connection to one bridge process: start it confined, send a request, read its answer.

Like Bowtie's ``Connection`` under its client: :class:`BridgeConnection` knows the line protocol
(``js/bridge.mjs`` documents it; ``py/bridge.py`` speaks it for Python plugins) and the process,
nothing of plugins. Its one request method bounds
each step of a request apart (a load's ``kit``, ``import``, ``register`` and ``startup`` phases, a
``call``) and hands one-way notes to the caller; the plugin API (:mod:`.node`) words what went
wrong. The process is the kit's one line supervisor (``supervisor.LineProcess``) in a sandbox: on
Linux its own network, mount and PID namespaces, a scrubbed environment everywhere.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolconformance.confinement import Sandbox
from pytest_toolconformance.supervisor import LineProcess, ProcessFault, ProcessHolder

BRIDGE = Path(__file__).resolve().parent / "js" / "bridge.mjs"
STDERR_TAIL_BYTES = 4096
#: What :meth:`BridgeConnection.clear_state` keeps in the plugin's TMPDIR: the kit's own transpile cache
#: (``js/bridge.mjs`` has jiti write it there), never the plugin's state.
KIT_CACHES = frozenset({"toolconformance-jiti"})

#: A request's notes (``log``, ``read``, ``tool``, ``ctx``) go to one of these, in order.
NoteHandler = Callable[[dict[str, Any]], None]


class StepTimedOut(Exception):
    """A step of a request did not answer within its bound; the connection has been stopped."""

    def __init__(self, step: str, bound: float) -> None:
        self.step = step
        self.bound = bound
        super().__init__(f"step {step!r} did not answer within {bound:g} s")


class BridgeClosed(Exception):
    """The bridge closed its stdout (it exited or was killed) before it answered."""

    def __init__(self, exit_code: int | None) -> None:
        self.exit_code = exit_code
        super().__init__(f"the plugin bridge ended with code {exit_code}")


class EncodeError(TypeError):
    """A request could not be encoded as JSON (nothing was sent)."""


def jsonable(value: Any) -> Any:
    """The JSON form of the host values a request carries (``json.dumps``'s ``default``)."""
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        # Host value objects (identity, access descriptors) know their JS-facing shape.
        return as_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def _listing(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _release(ctx_w: int | None, workspace: str) -> None:
    if ctx_w is not None:
        try:
            os.close(ctx_w)
        except OSError:
            pass
    shutil.rmtree(workspace, ignore_errors=True)


class BridgeConnection(ProcessHolder):
    """One running bridge (``argv``: its program and arguments), confined to a workspace of its own,
    and its line protocol.

    ``host_call_pipe`` opens the pipe on which a plugin's synchronous host calls during register
    are answered (:meth:`reply`); ``writable`` are folders it may write besides its workspace;
    ``visible`` what it must see in the folders a plugin's mount namespace covers, ``hidden`` more
    credential places to cover (``confinement.Sandbox``); ``env`` is added to its scrubbed environment; ``name``
    names the process in messages.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | None,
        host_call_pipe: bool,
        writable: list[str],
        *,
        env: Mapping[str, str] | None = None,
        name: str = "node",
        visible: Sequence[str] = (),
        hidden: Sequence[str] = (),
    ) -> None:
        self._mark = f"\x1etcb:{secrets.token_hex(8)}@".encode("ascii")
        self._ids = 0
        # HOME and TMPDIR of the plugin: the one place (with ``writable``) it may write.
        self.workspace = tempfile.mkdtemp(prefix=f"toolconformance-{name}-")
        home, tmp = os.path.join(self.workspace, "home"), os.path.join(self.workspace, "tmp")
        os.mkdir(home)
        os.mkdir(tmp)
        env = {**(env or {}), "TOOLCONF_BRIDGE_MARK": self._mark.decode("ascii")}
        ctx_r: int | None = None
        self._ctx_w: int | None = None
        pass_fds: tuple[int, ...] = ()
        if host_call_pipe:
            ctx_r, self._ctx_w = os.pipe()
            env["TOOLCONF_CTX_FD"] = str(ctx_r)
            pass_fds = (ctx_r,)
        sandbox = Sandbox([self.workspace, *writable], home=home, tmp=tmp, env=env, visible=visible, hidden=hidden)
        try:
            self._process = LineProcess(
                list(argv),
                cwd=cwd,
                pass_fds=pass_fds,
                sandbox=sandbox,
                stderr_limit=STDERR_TAIL_BYTES,
                name=name,
            )
        except OSError:
            if self._ctx_w is not None:
                os.close(self._ctx_w)
            shutil.rmtree(self.workspace, ignore_errors=True)
            raise
        finally:
            if ctx_r is not None:
                os.close(ctx_r)
        self._closed = False
        self._finalizer = weakref.finalize(self, _release, self._ctx_w, self.workspace)
        self.home, self.tmp = home, tmp

    def clear_state(self) -> None:
        """Empty the plugin's HOME and TMPDIR, as a new process would find them: what earlier calls kept
        there (a store under ``~/.myext``, a cache) is gone. The kit's own caches stay."""
        for folder in (self.home, self.tmp):
            for entry in _listing(folder):
                if folder == self.tmp and entry.name in KIT_CACHES:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    def stderr_tail(self) -> str:
        """What the bridge wrote to stderr, and stray (unmarked) stdout, last ~4 KB."""
        return self._process.stderr_tail()

    def wait_ready(self, bound: float) -> None:
        """Wait for the bridge's ``ready`` note (the kit's own start, before any plugin code)."""
        deadline = time.monotonic() + bound
        while True:
            item = self._next(deadline)
            if item is None:
                self.stop(grace=0)
                raise StepTimedOut("kit", bound)
            if item.get("op") == "ready":
                return

    def request(
        self, message: dict[str, Any], *, bound_of: Callable[[str], float], on_note: NoteHandler | None = None
    ) -> dict[str, Any]:
        """Send ``message`` and return its answer; ``on_note`` gets the notes on the way.

        Each step has its own bound, ``bound_of(step)``: a load starts in the kit's own set-up
        (``kit``: its module hooks and pi's runtime, never the plugin's time) and moves on with the
        bridge's ``phase`` notes; any other request is one step named by its ``op``. A step out of
        time stops the connection (:class:`StepTimedOut`), as does anything that interrupts the wait
        (the bridge may be blocked on a host-call reply, so only a fresh process is safe after it).
        """
        self._ids += 1
        message["id"] = request_id = self._ids
        try:
            data = (json.dumps(message, default=jsonable, allow_nan=False, separators=(",", ":")) + "\n").encode()
        except (TypeError, ValueError) as exc:
            raise EncodeError(str(exc)) from None
        try:
            self._process.send(data, time.monotonic() + 5.0)
        except ProcessFault:
            pass  # the process is gone or stuck; its EOF or the deadline ends the wait below
        try:
            return self._answer(message, request_id, bound_of, on_note)
        except (StepTimedOut, BridgeClosed):
            raise
        except BaseException:
            self.stop(grace=0)
            raise

    def _answer(
        self, message: dict[str, Any], request_id: int, bound_of: Callable[[str], float], on_note: NoteHandler | None
    ) -> dict[str, Any]:
        step = "kit" if message["op"] == "load" else str(message["op"])
        bound = bound_of(step)
        deadline = time.monotonic() + bound
        while True:
            item = self._next(deadline)
            if item is None:
                self.stop(grace=0)
                raise StepTimedOut(step, bound)
            if "op" in item:
                if item["op"] == "phase" and message["op"] == "load":
                    step = str(item.get("phase"))
                    bound = bound_of(step)
                    deadline = time.monotonic() + bound
                elif item["op"] == "ctx" and on_note is None:
                    self.reply({"ok": False, "error": {"name": "Error", "message": "no host call expected now"}})
                elif on_note is not None:
                    on_note(item)
                continue
            if item.get("id") == request_id:
                return item
            # An answer to an abandoned request: nothing waits for it any more.

    def _next(self, deadline: float) -> dict[str, Any] | None:
        """The next protocol message by ``deadline`` (None when it passes); unmarked lines are
        plugin noise, kept in the stderr tail. Raises :class:`BridgeClosed` when stdout closes."""
        tail = self._process.tail
        while True:
            if self._closed:
                raise self._ended()
            try:
                raw = self._process.read_line(deadline)
            except ProcessFault as fault:
                if fault.kind == "timeout":
                    return None
                if fault.line:
                    tail.add(b"[stdout] " + fault.line[:400] + b"\n")
                self._closed = True
                continue
            at = raw.find(self._mark)
            if at < 0:
                tail.add(b"[stdout] " + raw)
                continue
            if at > 0:
                # A raw write without a newline glued itself in front of a protocol line.
                tail.add(b"[stdout] " + raw[:at] + b"\n")
            try:
                return json.loads(raw[at + len(self._mark) :])
            except ValueError:
                tail.add(b"[bridge] unreadable protocol line: " + raw[:200] + b"\n")

    def _ended(self) -> BridgeClosed:
        try:
            self._process.popen.wait(2)
        except subprocess.TimeoutExpired:
            pass
        code = self._process.returncode
        self.stop(grace=0)
        return BridgeClosed(code)

    def reply(self, payload: Mapping[str, Any]) -> None:
        """Answer a synchronous host call of the plugin's register on the host-call pipe."""
        if self._ctx_w is None:
            return
        data = (json.dumps(payload, default=jsonable, separators=(",", ":")) + "\n").encode()
        try:
            while data:
                written = os.write(self._ctx_w, data)
                data = data[written:]
        except OSError:
            pass  # node is gone; its EOF reaches the waiting request

    def stop(self, grace: float) -> None:
        """End the bridge and everything the plugin started, then drop its workspace (idempotent)."""
        ctx_w, self._ctx_w = self._ctx_w, None
        if ctx_w is not None:
            try:
                os.close(ctx_w)
            except OSError:
                pass
        self._process.close(grace)
        self._finalizer.detach()
        shutil.rmtree(self.workspace, ignore_errors=True)

    def kill(self) -> None:
        """End the whole process tree now, from any thread (the request waiting on it sees EOF)."""
        self._process.close(0)


__all__ = ["BRIDGE", "BridgeClosed", "BridgeConnection", "EncodeError", "StepTimedOut", "jsonable"]
