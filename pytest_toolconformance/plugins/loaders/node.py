"""Load a JS or TypeScript plugin into a Python host through one long-lived Node.js process.

``NodePlugin(entry)`` has ``register(ctx)`` like a Python plugin. On register it starts ``node``
on ``js/bridge.mjs``, which imports the plugin, runs its ``register`` (or PI's
``export default function (pi)``) and reports each ``registerTool``; each tool lands on the
Python ``ctx`` with an execute proxy that sends the call to the same process.

Line protocol (the full version is at the top of ``js/bridge.mjs``): one JSON object per line.

* Python -> node on stdin, one request at a time, each with an ``id``:
  ``{id, op:"load", entry, kind:"esm"|"ts", replay, workspace, mirror}``,
  ``{id, op:"call", tool, handle, callId, params, cwd, access, identity, accountUserId}``,
  ``{id, op:"mirror", access, identity, accountUserId}``, ``{id, op:"ping"}``.
* node -> Python on stdout, each line prefixed with a per-process random marker: answers
  ``{id, ok:true, ..., network}`` / ``{id, ok:false, error:{name, message, stack, transport, ...}, network}``
  and one-way notes ``{op:"log"|"read"|"tool"|"phase", id, ...}`` (``phase``: a load entered
  ``import``, ``register`` or pi's ``startup``, each bounded apart). Unmarked stdout bytes are plugin noise
  (kept in the stderr tail); ``console.*`` and ``process.stdout.write`` already go to stderr.
* During a first load on POSIX, a ``registerTool``/``current*()`` call made by the plugin's
  ``register`` is a synchronous ``{op:"ctx", method, args}`` note; the reply goes back on a
  dedicated pipe (``TOOLCONF_CTX_FD``) that the bridge reads with a blocking read, so the Python
  ctx is called at that very moment and a host refusal is thrown back into the plugin.

The process is the kit's one line supervisor (``_proc.LineProcess``) in a sandbox: on Linux its own
network, mount and PID namespaces (no network, read-only but its workspace, nothing outlives it),
a scrubbed environment everywhere; docs/access-model.md § 13 says what is confined where.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import queue
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolconformance import _proc
from pytest_toolconformance.plugins.bounds import kit_setup_bound
from reference_host import define_tool, mark_transport_failure
from reference_host.errors import PluginLoadError, RegistrationError

BRIDGE = Path(__file__).resolve().parent / "js" / "bridge.mjs"
TS_SUFFIXES = frozenset({".ts", ".mts", ".cts"})
JS_SUFFIXES = frozenset({".mjs", ".js", ".cjs"})
STDERR_TAIL_BYTES = 4096
_POSIX = os.name == "posix"
_EOF = object()
_ABSENT = object()

# JS registerTool option names -> the Python ctx.register_tool keywords.
_OPTION_NAMES = {
    "external": "external",
    "ownerUserId": "owner_user_id",
    "projectId": "project_id",
    "platform": "platform",
}
# JS ctx reads -> the Python ctx methods.
_READ_METHODS = {
    "currentIdentity": "current_identity",
    "currentAccess": "current_access",
    "currentAccountUserId": "current_account_user_id",
}


# What a load was doing in each of its phases, for a time-out's message.
_LOAD_STEPS = {
    "kit": "the kit's set-up for the plugin",
    "import": "importing its entry",
    "register": "register()",
    "startup": "pi's startup events",
}


class PluginToolError(Exception):
    """A JS tool handler threw (or its result could not be sent back)."""

    def __init__(
        self,
        tool: str,
        name: str,
        message: str,
        *,
        stack: str | None = None,
        code: str | None = None,
        network: list[str] | None = None,
    ) -> None:
        self.tool = tool
        self.js_name = name
        self.js_message = message
        self.js_stack = stack
        self.code = code
        self.network = list(network or [])
        # Same text a JS host gets from String(error).
        super().__init__(f"{name}: {message}")


class PluginTimeoutError(PluginLoadError):
    """A step of a JS plugin did not answer in time; the node process was killed.

    ``phase`` is the step (``kit``: the kit's own set-up, never the plugin's; ``import``, ``register``,
    ``startup``, ``call``), ``bound`` the seconds it was given.
    """

    def __init__(self, message: str, *, phase: str, bound: float, subject: str | None = None) -> None:
        self.phase = phase
        self.bound = bound
        super().__init__(message, subject=subject)

    @property
    def kit_side(self) -> bool:
        """The time ran out in the kit's own set-up (Node's start, pi's runtime), not in plugin code."""
        return self.phase == "kit"


class PluginExitError(PluginLoadError):
    """The node process exited while a request was in flight."""

    def __init__(self, message: str, *, exit_code: int | None, stderr_tail: str, subject: str | None = None) -> None:
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        super().__init__(message, subject=subject)


class _Messages:
    """The bridge's protocol messages, read from its stdout by a deadline (``get`` as on a queue).

    Unmarked lines are plugin noise and go to the stderr tail; ``_EOF`` means stdout closed.
    """

    def __init__(self, line_process: _proc.LineProcess, mark: bytes) -> None:
        self._process = line_process
        self._mark = mark
        self._closed = False

    def get(self, timeout: float) -> Any:
        if self._closed:
            return _EOF
        deadline = time.monotonic() + timeout
        tail = self._process.tail
        while True:
            try:
                raw = self._process.read_line(deadline)
            except _proc.ProcessFault as fault:
                if fault.kind == "timeout":
                    raise queue.Empty from None
                if fault.line:
                    tail.add(b"[stdout] " + fault.line[:400] + b"\n")
                self._closed = True
                return _EOF
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


class _NodeProcess:
    """One running bridge: the kit's line supervisor, confined to a workspace of its own."""

    def __init__(self, node: str, cwd: str | None, host_call_pipe: bool, writable: list[str]) -> None:
        nonce = secrets.token_hex(8)
        mark = f"\x1etcb:{nonce}@"
        self.mark = mark.encode("ascii")
        # HOME and TMPDIR of the plugin: the one place (with ``writable``) it may write.
        self.workspace = tempfile.mkdtemp(prefix="toolconformance-node-")
        home, tmp = os.path.join(self.workspace, "home"), os.path.join(self.workspace, "tmp")
        os.mkdir(home)
        os.mkdir(tmp)
        env = {"TOOLCONF_BRIDGE_MARK": mark}
        ctx_r: int | None = None
        self.ctx_w: int | None = None
        pass_fds: tuple[int, ...] = ()
        if host_call_pipe:
            ctx_r, self.ctx_w = os.pipe()
            env["TOOLCONF_CTX_FD"] = str(ctx_r)
            pass_fds = (ctx_r,)
        sandbox = _proc.Sandbox([self.workspace, *writable], home=home, tmp=tmp, env=env)
        try:
            self.process = _proc.LineProcess(
                [node, str(BRIDGE)], cwd=cwd, pass_fds=pass_fds, sandbox=sandbox,
                stderr_limit=STDERR_TAIL_BYTES, name="node",
            )
        except OSError:
            if self.ctx_w is not None:
                os.close(self.ctx_w)
            shutil.rmtree(self.workspace, ignore_errors=True)
            raise
        finally:
            if ctx_r is not None:
                os.close(ctx_r)
        self.popen = self.process.popen
        self.tail = self.process.tail
        self.messages = _Messages(self.process, self.mark)
        self._finalizer = weakref.finalize(self, _release, self.ctx_w, self.workspace)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.alive()

    def send(self, data: bytes) -> None:
        self.process.send(data, time.monotonic() + 5.0)

    def reply(self, payload: Mapping[str, Any]) -> None:
        if self.ctx_w is None:
            return
        data = (json.dumps(payload, default=_jsonable, separators=(",", ":")) + "\n").encode()
        try:
            while data:
                written = os.write(self.ctx_w, data)
                data = data[written:]
        except OSError:
            pass  # node is gone; its EOF reaches the waiting request

    def stop(self, grace: float) -> None:
        """End the bridge and everything the plugin started, then drop its workspace."""
        ctx_w, self.ctx_w = self.ctx_w, None
        if ctx_w is not None:
            try:
                os.close(ctx_w)
            except OSError:
                pass
        self.process.close(grace)
        self._finalizer.detach()
        shutil.rmtree(self.workspace, ignore_errors=True)

    def kill(self) -> None:
        """End the whole process tree now, from any thread (the request waiting on it sees EOF)."""
        self.process.close(0)

    def drain(self) -> None:
        """The stderr tail is complete once the process is gone; nothing to wait for here."""


def _release(ctx_w: int | None, workspace: str) -> None:
    if ctx_w is not None:
        try:
            os.close(ctx_w)
        except OSError:
            pass
    shutil.rmtree(workspace, ignore_errors=True)


def _jsonable(value: Any) -> Any:
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


def _short_tail(text: str, limit: int = 1500) -> str:
    lines = [line for line in text[-limit:].splitlines() if line.strip()]
    return "\n    ".join(lines)


class _ExecuteProxy:
    """The ``execute`` of a JS tool on the Python side: sends the call to the node process.

    A host that wants the handler to run in a directory passes ``cwd=...`` or sets the
    ``cwd`` attribute; the bridge ``chdir``s there for the call and back afterwards.
    """

    def __init__(self, plugin: NodePlugin, ctx: Any, tool: str, handle: int) -> None:
        self.plugin = plugin
        self.ctx = ctx
        self.tool = tool
        self.handle = handle
        self.cwd: str | os.PathLike[str] | None = None

    def __call__(self, call_id: str, params: dict[str, Any], *, cwd: str | os.PathLike[str] | None = None) -> Any:
        return self.plugin._call_tool(self, call_id, params, cwd if cwd is not None else self.cwd)

    def __repr__(self) -> str:
        return f"<JS execute {self.tool!r} of {self.plugin.name!r}>"


class NodePlugin:
    """A JS/TS plugin entry run in one Node.js process, installable like a Python plugin."""

    def __init__(
        self,
        entry: str | os.PathLike[str],
        *,
        name: str | None = None,
        timeout: float = 5.0,
        node: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        sync_host_calls: bool = True,
        import_timeout: float | None = None,
        writable: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        """``entry``: the plugin's JS/TS entry file. ``timeout``: seconds per request (register, call).

        ``import_timeout``: seconds for importing the entry and what it imports, bounded apart from
        ``register`` (default ``max(30, 6 * timeout)``: a real extension's import of pi and its
        dependencies is slow on a busy machine, and none of it is the plugin's register).

        ``node``: the node binary (default ``$TOOLCONFORMANCE_NODE`` or ``node`` on PATH).
        ``cwd``: where node starts and where calls without a cwd run (default: ours).
        ``sync_host_calls=False`` (always the case off POSIX) answers ``current*()`` during register
        from the mirror and hands registrations to the ctx after the fact instead of at once.
        ``writable``: folders the plugin may write besides its own temporary HOME/TMPDIR and ``cwd``
        (where namespaces work the rest of the file system is read-only to it; see docs/access-model.md).
        """
        self.entry = Path(entry).resolve()
        self.name = name or entry_name(self.entry)
        self.__name__ = self.name  # what a host names a plugin object by, as for a module
        self.timeout = float(timeout)
        self.import_timeout = float(import_timeout) if import_timeout is not None else max(30.0, 6 * self.timeout)
        self.node = node
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.writable: list[str] = [os.fspath(p) for p in writable] + ([self.cwd] if self.cwd else [])
        self.kind = "ts" if self.entry.suffix in TS_SUFFIXES else "esm"
        self.sync_host_calls = sync_host_calls and _POSIX
        self.last_network_attempts: list[str] = []
        self.last_ctx_reads: list[str] = []
        self.form: str | None = None
        self.tools: list[tuple[int, str | None]] = []
        self._lock = threading.RLock()
        self._proc: _NodeProcess | None = None
        self._last_proc: _NodeProcess | None = None  # kept for stderr_tail() after a stop
        self._loaded = False  # the running process has the plugin loaded
        self._ever_loaded = False  # a load succeeded once, so a restart replays it
        self._mirror: dict[str, Any] = {"access": None, "identity": None, "accountUserId": None}
        self._ids = itertools.count(1)
        self._stash: dict[str, BaseException] = {}
        self._registering = False

    def __repr__(self) -> str:
        return f"NodePlugin({str(self.entry)!r}, name={self.name!r})"

    # ------------------------------------------------------------------------------------ API

    @property
    def pid(self) -> int | None:
        """The pid of the running node process, or None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.alive() else None

    def register(self, ctx: Any) -> None:
        """Load the plugin in a fresh node process and register its tools on ``ctx``."""
        with self._lock:
            self._stop(grace=0.5)
            self._spawn()
            handler = _FirstLoad(self, ctx)
            self._registering = True
            try:
                answer = self._request(
                    {
                        "op": "load",
                        "entry": str(self.entry),
                        "kind": self.kind,
                        "replay": False,
                        "workspace": self.cwd,
                        "mirror": self._mirror,
                    },
                    what="loading the plugin",
                    on_message=handler.on_message,
                )
            finally:
                self._registering = False
                stash, self._stash = self._stash, {}
            if not answer.get("ok"):
                proc = self._proc
                self._stop(grace=0)
                tail = proc.tail.text() if proc is not None else None
                raise self._load_failure(answer.get("error") or {}, tail, stash)
            self._loaded = self._ever_loaded = True
            self.form = answer.get("form")
            self.tools = [(t["handle"], t["name"]) for t in answer.get("tools", [])]
            self.last_network_attempts = list(answer.get("network", []))
            if handler.deferred_error is not None:
                raise handler.deferred_error

    def call_raw(
        self,
        tool: str,
        params: Mapping[str, Any] | None = None,
        *,
        call_id: str = "raw-call",
        cwd: str | os.PathLike[str] | None = None,
        access: Any = None,
        identity: Any = None,
        account_user_id: str | None = None,
    ) -> dict[str, Any]:
        """Call a tool without a ctx and return the bridge's answer as a dict.

        Keys: ``ok``, ``result`` or ``error``, ``network`` (what the call reached for),
        ``reads`` (ctx methods it read) and ``logs``. Loads the plugin headless if needed.
        """
        with self._lock:
            self._ensure_loaded(tool)
            handle = next((h for h, n in self.tools if n == tool), None)
            notes = _CallNotes(None)
            answer = self._request(
                {
                    "op": "call",
                    "tool": tool,
                    "handle": handle,
                    "callId": call_id,
                    "params": dict(params or {}),
                    "cwd": os.fspath(cwd) if cwd is not None else None,
                    "access": access,
                    "identity": identity,
                    "accountUserId": account_user_id,
                },
                what=f"tool {tool!r}",
                on_message=notes.on_message,
            )
            self.last_network_attempts = list(answer.get("network", []))
            self.last_ctx_reads = list(notes.reads)
        out = {k: v for k, v in answer.items() if k != "id"}
        out["reads"] = notes.reads
        out["logs"] = notes.logs
        return out

    def push_access(self, access: Any, identity: Any, account: str | None) -> None:
        """Update what the plugin's ``ctx.current*()`` answer between calls."""
        with self._lock:
            self._mirror = {"access": access, "identity": identity, "accountUserId": account}
            if self._proc is not None and self._proc.alive() and self._loaded:
                self._request({"op": "mirror", **self._mirror}, what="push_access()")

    def ping(self) -> dict[str, Any]:
        """Start the process if needed and return ``{pid, node}`` from the bridge."""
        with self._lock:
            if self._proc is None or not self._proc.alive():
                self._spawn()
            answer = self._request({"op": "ping"}, what="ping")
        return {"pid": answer.get("pid"), "node": answer.get("node")}

    def stderr_tail(self) -> str:
        """The last ~4 KB the current (or last stopped) node process wrote to stderr, plus stray stdout."""
        proc = self._proc or self._last_proc
        return proc.tail.text() if proc is not None else ""

    def close(self) -> None:
        """End the node process and everything it started (a later call starts it again)."""
        # First without the lock: a call in flight on another thread (a run stopped by Ctrl-C while
        # the host's worker waits on node) holds it; killing the tree ends that wait at once.
        proc = self._proc
        if proc is not None:
            proc.kill()
        with self._lock:
            self._stop(grace=1.0)

    def __enter__(self) -> NodePlugin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ internals

    def _node_binary(self) -> str:
        found = self.node or os.environ.get("TOOLCONFORMANCE_NODE") or shutil.which("node")
        if not found:
            raise PluginLoadError(
                f"JS plugin {self.entry} needs Node.js 20.6 or newer, but no 'node' is on PATH; "
                "install Node.js or set TOOLCONFORMANCE_NODE to the node binary",
                subject=str(self.entry),
            )
        return found

    def _spawn(self) -> None:
        node = self._node_binary()
        try:
            proc = _NodeProcess(node, self.cwd, self.sync_host_calls, self.writable)
        except OSError as exc:
            raise PluginLoadError(
                f"JS plugin {self.entry}: could not start {node!r} ({exc}); check the Node.js install",
                subject=str(self.entry),
            ) from exc
        self._proc = proc
        self._loaded = False
        start_bound = kit_setup_bound(self.timeout)
        deadline = time.monotonic() + start_bound
        while True:
            try:
                item = proc.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._stop(grace=0)
                raise PluginTimeoutError(
                    f"JS plugin {self.entry}: the kit's node bridge did not start within "
                    f"{start_bound:g} s (before any plugin code ran). Node stderr: {_short_tail(proc.tail.text())}",
                    phase="kit",
                    bound=start_bound,
                    subject=str(self.entry),
                ) from None
            if item is _EOF:
                proc.popen.wait()
                proc.drain()
                self._proc = None
                self._last_proc = proc
                raise PluginExitError(
                    f"JS plugin {self.entry}: the node bridge exited at start-up with code "
                    f"{proc.popen.returncode}; check that {node!r} is Node.js 20.6 or newer. "
                    f"Node stderr: {_short_tail(proc.tail.text())}",
                    exit_code=proc.popen.returncode,
                    stderr_tail=proc.tail.text(),
                    subject=str(self.entry),
                )
            if item.get("op") == "ready":
                return

    def _stop(self, grace: float) -> None:
        proc, self._proc = self._proc, None
        self._loaded = False
        if proc is not None:
            self._last_proc = proc
            proc.stop(grace)

    def _ensure_loaded(self, tool: str) -> None:
        """Make sure a live process has the plugin loaded, replaying the load after a restart."""
        if self._proc is not None and self._proc.alive() and self._loaded:
            return
        if self._registering:
            # The only thread that can get here holds the lock inside register(): node is blocked
            # waiting for that very register to finish, so a call now could only deadlock.
            raise PluginToolError(tool, "Error", f"tool {tool!r} was called while its plugin was still registering")
        if self._proc is None or not self._proc.alive():
            self._stop(grace=0)
            self._spawn()
        answer = self._request(
            {"op": "load", "entry": str(self.entry), "kind": self.kind, "replay": True, "workspace": self.cwd,
             "mirror": self._mirror},
            what=f"reloading the plugin for tool {tool!r}",
            on_message=None,
        )
        if not answer.get("ok"):
            proc = self._proc
            self._stop(grace=0)
            tail = proc.tail.text() if proc is not None else None
            raise self._load_failure(answer.get("error") or {}, tail)
        self._loaded = self._ever_loaded = True
        self.form = answer.get("form")
        self.tools = [(t["handle"], t["name"]) for t in answer.get("tools", [])]

    def _call_tool(
        self, proxy: _ExecuteProxy, call_id: str, params: dict[str, Any], cwd: str | os.PathLike[str] | None
    ) -> Any:
        with self._lock:
            self._ensure_loaded(proxy.tool)
            ctx = proxy.ctx
            # Read right before sending: the JS ctx.current*() are synchronous, so they answer
            # from this snapshot, which is as fresh as the host can make it.
            access = ctx.current_access()
            identity = ctx.current_identity()
            account = ctx.current_account_user_id()
            self._mirror = {"access": access, "identity": identity, "accountUserId": account}
            notes = _CallNotes(ctx)
            try:
                answer = self._request(
                    {
                        "op": "call",
                        "tool": proxy.tool,
                        "handle": proxy.handle,
                        "callId": call_id,
                        "params": params,
                        "cwd": os.fspath(cwd) if cwd is not None else None,
                        "access": access,
                        "identity": identity,
                        "accountUserId": account,
                    },
                    what=f"tool {proxy.tool!r}",
                    on_message=notes.on_message,
                )
            except _EncodeError as exc:
                raise PluginToolError(proxy.tool, "TypeError", str(exc)) from None
            network = list(answer.get("network", []))
            self.last_network_attempts = network
            self.last_ctx_reads = list(notes.reads)
        if answer.get("ok"):
            return answer.get("result")
        error = answer.get("error") or {}
        exc = PluginToolError(
            proxy.tool,
            str(error.get("name") or "Error"),
            str(error.get("message") or ""),
            stack=error.get("stack"),
            code=error.get("code"),
            network=network,
        )
        if error.get("transport"):
            mark_transport_failure(exc)
        raise exc

    def _request(
        self,
        message: dict[str, Any],
        *,
        what: str,
        on_message: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Send one request and wait for its answer, handling notes; caller holds the lock."""
        proc = self._proc
        assert proc is not None, "spawn first"
        request_id = next(self._ids)
        message["id"] = request_id
        try:
            data = (json.dumps(message, default=_jsonable, allow_nan=False, separators=(",", ":")) + "\n").encode()
        except (TypeError, ValueError) as exc:
            raise _EncodeError(f"{what}: cannot send to node: {exc}") from None
        try:
            proc.send(data)
        except _proc.ProcessFault:
            pass  # the process is gone or stuck; its EOF or the deadline ends the wait below
        try:
            return self._await_answer(proc, message, request_id, what, on_message)
        except (PluginTimeoutError, PluginExitError):
            raise
        except BaseException:
            # A handler failed mid-request (or Ctrl-C): node may still be working on it or
            # blocked on a host-call reply, so the only safe state is a fresh process.
            if self._proc is proc:
                self._stop(grace=0)
            raise

    def _await_answer(
        self,
        proc: _NodeProcess,
        message: dict[str, Any],
        request_id: int,
        what: str,
        on_message: Callable[[dict[str, Any]], None] | None,
    ) -> dict[str, Any]:
        # A load starts in the kit's own set-up (the module hooks, pi's runtime): never the plugin's time.
        step = "kit" if message["op"] == "load" else message["op"]
        bound, during = self._phase_bound(step)
        deadline = time.monotonic() + bound
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._stop(grace=0)
                done = f"{_LOAD_STEPS[step]} ({what})" if message["op"] == "load" and step in _LOAD_STEPS else what
                raise PluginTimeoutError(
                    f"JS plugin {self.name!r} ({self.entry}): {done} did not finish within {bound:g} s{during}, "
                    "so the kit killed its node process (the next step starts a new one)."
                    + (" Look for a promise that never settles or a busy loop" if step != "kit" else
                       " No plugin code was running: the machine is too busy, or Node.js is stuck; "
                       "raise --toolconformance-timeout")
                    + self._tail_note(proc),
                    phase=step,
                    bound=bound,
                    subject=str(self.entry),
                )
            try:
                item = proc.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if item is _EOF:
                raise self._exited(proc, what)
            if "op" in item:
                if item["op"] == "phase" and message["op"] == "load":
                    # Each phase of a load has its own bound, so a timeout names the phase that hung.
                    step = str(item.get("phase"))
                    bound, during = self._phase_bound(step)
                    deadline = time.monotonic() + bound
                    continue
                if item["op"] == "ctx" and on_message is None:
                    proc.reply({"ok": False, "error": {"name": "Error", "message": "no host call expected now"}})
                elif on_message is not None:
                    on_message(item)
                continue
            if item.get("id") == request_id:
                return item
            # An answer to an abandoned request: nothing waits for it any more.

    def _phase_bound(self, phase: str) -> tuple[float, str]:
        if phase == "kit":
            return kit_setup_bound(self.timeout), " in the kit's own set-up (its module hooks and pi's runtime)"
        if phase == "import":
            return self.import_timeout, " while importing the module (and what it imports)"
        if phase == "startup":
            return self.timeout, " in pi's startup events (session_start, resources_discover)"
        if phase == "register":
            return self.timeout, " in its register function"
        return self.timeout, ""

    def _exited(self, proc: _NodeProcess, what: str) -> PluginExitError:
        try:
            proc.popen.wait(2)
        except subprocess.TimeoutExpired:
            pass
        proc.drain()
        if self._proc is proc:
            self._stop(grace=0)
        code = proc.popen.returncode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        tail = proc.tail.text()
        then = "the plugin could not be loaded" if what == "loading the plugin" else "the next call restarts it"
        return PluginExitError(
            f"JS plugin {self.name!r} ({self.entry}): node {how} during {what} "
            f"(did the plugin call process.exit() or crash?); {then}" + self._tail_note(proc),
            exit_code=code,
            stderr_tail=tail,
            subject=str(self.entry),
        )

    @staticmethod
    def _tail_note(proc: _NodeProcess | None) -> str:
        if proc is None:
            return ""
        tail = _short_tail(proc.tail.text())
        return f". Node stderr:\n    {tail}" if tail else ""

    def _load_failure(
        self, error: Mapping[str, Any], tail: str | None, stash: Mapping[str, BaseException] | None = None
    ) -> BaseException:
        token = error.get("token")
        if token and stash and token in stash:
            # The plugin let a host refusal escape register(): surface the host's own exception.
            return stash[token]
        phase = error.get("phase")
        name = error.get("name") or "Error"
        # Node's "Require stack:" list is for humans debugging node, not a line of the finding.
        message = (error.get("message") or "").split("\nRequire stack:", 1)[0]
        code = error.get("code")
        js = f"{name}: {message}"
        where = f"JS plugin {self.entry}"
        stack = error.get("stack") or ""
        if phase == "jiti-missing":
            text = (
                f'TypeScript plugin {self.entry} needs jiti: run "npm install --save-dev jiti" in {self.entry.parent}'
            )
        elif phase == "node-version":
            text = f"{where} cannot be loaded: {message}"
        elif phase == "not-a-plugin":
            text = (
                f"{where} is not a plugin: it exports neither register(ctx), nor a default object with "
                f"register, nor a default PI extension function ({message}). Add "
                "'export function register(ctx) { ... }' to the entry file"
            )
        elif phase == "startup":
            text = (
                f"pi's startup of {where} (session_start, resources_discover) failed with {js}. Fix the "
                f"extension's startup handlers{_stack_note(stack)}"
            )
        elif phase == "register":
            text = (
                f"register(ctx) of {where} threw {js}. Fix the plugin so that register completes; "
                f"none of its tools were installed{_stack_note(stack)}"
            )
        elif code in ("ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND") or "Cannot find module" in message:
            text = (
                f"Could not load {where}: it imports a module that cannot be found ({js}). Install the "
                "missing package where the plugin can resolve it (npm install in the plugin folder) "
                "or fix the import specifier"
            )
        elif name == "SyntaxError":
            location = self._syntax_location()
            text = (
                f"Could not load {where}: {js}{f' at {location}' if location else ''}. Fix the syntax "
                "error in the entry file or in a module it imports"
            )
        else:
            text = (
                f"Could not load {where}: importing it threw {js}. Fix the module's top-level code{_stack_note(stack)}"
            )
        # Before the plugin's code ran (a Node too old, no jiti) its stderr holds nothing of its own.
        if tail and phase not in ("node-version", "jiti-missing"):
            text += f". Node stderr:\n    {_short_tail(tail)}"
        return PluginLoadError(text, subject=str(self.entry))

    def _syntax_location(self) -> str:
        """Where a syntax error in the entry is, as ``node --check`` reports it ('' if elsewhere)."""
        # ESM import errors carry no file or line; --check on the entry recovers them cheaply.
        if self.kind == "ts":
            return ""
        try:
            done = subprocess.run(
                [self._node_binary(), "--check", str(self.entry)],
                capture_output=True,
                text=True,
                timeout=max(self.timeout, 5.0),
            )
        except (OSError, subprocess.TimeoutExpired, PluginLoadError):
            return ""
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        if done.returncode == 0 or len(lines) < 3 or not lines[0].startswith(str(self.entry)):
            return ""
        # "<file>:<line>", the offending source line and the caret under it.
        return f"{lines[0]}: {lines[1].strip()!r}"

    def _tool_from_note(self, ctx: Any, note: Mapping[str, Any]) -> Any:
        """Turn one reported registerTool(tool, options) into ctx.register_tool(...); returns its result."""
        name = note.get("name")
        if note.get("toolType") != "object":
            raise RegistrationError(
                f"registerTool() takes a tool object (use defineTool({{...}})), got {note.get('toolType')}",
                rule="REG-2",
                subject=str(name),
            )
        handle = int(note["handle"])
        execute = _ExecuteProxy(self, ctx, name, handle) if note.get("hasExecute") else None
        tool = define_tool(
            name=name,  # type: ignore[arg-type]  # define_tool reports a non-string itself
            label=note.get("label"),  # type: ignore[arg-type]
            description=note.get("description"),  # type: ignore[arg-type]
            parameters=note.get("parameters"),  # type: ignore[arg-type]
            execute=execute,  # type: ignore[arg-type]
        )
        kwargs: dict[str, Any] = {}
        options = note.get("options", _ABSENT)
        if options is not _ABSENT:
            if not isinstance(options, Mapping):
                raise RegistrationError(
                    f"tool {name!r}: registerTool options must be an object such as {{external: true}}, "
                    f"got {options!r}",
                    subject=str(name),
                )
            for key, value in options.items():
                if key in _OPTION_NAMES:
                    kwargs[_OPTION_NAMES[key]] = value
                else:
                    _log(ctx, "warning", f"tool {name!r}: unknown registerTool option {key!r} ignored")
        # Only the options the plugin gave are passed: the host tells "omitted" from an explicit null.
        return ctx.register_tool(tool, **kwargs)


_BUILD_FOLDERS = frozenset({"src", "lib", "dist", "build", "out"})


def entry_name(entry: Path) -> str:
    """A plugin's name from its entry: the stem, or the folder of an ``index.*``; the package (or
    folder) above a ``src/index.ts``-style build folder, since "src" says nothing about the plugin."""
    if entry.stem != "index":
        return entry.stem
    folder = entry.parent
    if folder.name not in _BUILD_FOLDERS:
        return folder.name
    package = folder.parent / "package.json"
    try:
        data = json.loads(package.read_text("utf-8")) if package.is_file() else {}
    except (OSError, ValueError):
        data = {}
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name:
        return name.rsplit("/", 1)[-1]
    return folder.parent.name or folder.name


def _stack_note(stack: str, frames: int = 3) -> str:
    # The plugin's own frames are the useful ones; the bridge and node internals are noise.
    kit = (str(BRIDGE.parent), BRIDGE.parent.as_uri())
    lines = [
        line.strip()
        for line in stack.splitlines()
        if line.strip().startswith("at ") and not any(k in line for k in kit) and "node:internal" not in line
    ][:frames]
    return f" ({'; '.join(lines)})" if lines else ""


def _log(ctx: Any, level: str, message: str) -> None:
    logger = getattr(ctx, "logger", None)
    method = getattr(logger, level, None) or getattr(logger, "info", None)
    if method is not None:
        method(message)


class _EncodeError(TypeError):
    """A request could not be encoded as JSON."""


class _FirstLoad:
    """Handles the notes of a first (non-replayed) load against the host ctx."""

    def __init__(self, plugin: NodePlugin, ctx: Any) -> None:
        self.plugin = plugin
        self.ctx = ctx
        self.deferred_error: BaseException | None = None

    def on_message(self, item: dict[str, Any]) -> None:
        op = item.get("op")
        if op == "log":
            _log(self.ctx, str(item.get("level")), str(item.get("message")))
        elif op == "ctx":
            self._host_call(item)
        elif op == "read":
            # Mirror mode (no host-call pipe): the plugin read from the mirror, so make the
            # same read on the host now, while register() is still running.
            method = _READ_METHODS.get(str(item.get("method")))
            if method is not None:
                try:
                    getattr(self.ctx, method)()
                except Exception as exc:  # surfaced after the load
                    self.deferred_error = self.deferred_error or exc
        elif op == "tool":
            try:
                self.plugin._tool_from_note(self.ctx, item)
            except Exception as exc:  # surfaced after the load
                self.deferred_error = self.deferred_error or exc

    def _host_call(self, item: dict[str, Any]) -> None:
        proc = self.plugin._proc
        assert proc is not None
        method = str(item.get("method"))
        try:
            if method == "registerTool":
                value = self.plugin._tool_from_note(self.ctx, item.get("args") or {})
                if not isinstance(value, (bool, int, float, str, type(None))):
                    value = None
            elif method in _READ_METHODS:
                value = getattr(self.ctx, _READ_METHODS[method])()
                json.dumps(value, default=_jsonable)  # fail here, not in the reply writer
            else:
                raise PluginLoadError(f"unknown host call {method!r}")
        except Exception as exc:  # thrown back into the plugin's register()
            token = secrets.token_hex(8)
            self.plugin._stash[token] = exc
            proc.reply(
                {
                    "ok": False,
                    "error": {
                        "name": type(exc).__name__,
                        "message": str(exc),
                        "rule": getattr(exc, "rule", None),
                        "token": token,
                    },
                }
            )
            return
        proc.reply({"ok": True, "value": value})


class _CallNotes:
    """Collects the notes of one call: log lines go to the ctx logger, reads are recorded."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.reads: list[str] = []
        self.logs: list[dict[str, str]] = []

    def on_message(self, item: dict[str, Any]) -> None:
        op = item.get("op")
        if op == "log":
            entry = {"level": str(item.get("level")), "message": str(item.get("message"))}
            self.logs.append(entry)
            if self.ctx is not None:
                _log(self.ctx, entry["level"], entry["message"])
        elif op == "read":
            self.reads.append(str(item.get("method")))


def node_available(node: str | None = None) -> bool:
    """True when a ``node`` binary can be found (for skip conditions)."""
    return bool(node or os.environ.get("TOOLCONFORMANCE_NODE") or shutil.which("node"))


__all__ = [
    "BRIDGE",
    "JS_SUFFIXES",
    "TS_SUFFIXES",
    "NodePlugin",
    "entry_name",
    "PluginExitError",
    "PluginTimeoutError",
    "PluginToolError",
    "node_available",
]
