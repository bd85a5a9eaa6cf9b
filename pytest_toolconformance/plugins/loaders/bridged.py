"""A plugin run in a bridge process of its own, installable like an in-process Python plugin.

:class:`BridgedPlugin` has ``register(ctx)`` like a Python plugin module. On register it starts
its bridge (a JS/TS plugin's ``node`` on ``js/bridge.mjs``, a Python plugin's ``python`` on
``py/bridge.py``), which imports the plugin, runs its ``register`` and reports each
``registerTool``; each tool lands on the host's ``ctx`` with an execute proxy that sends the call
to the same process.

Line protocol (the full version is at the top of ``js/bridge.mjs``): one JSON object per line.

* kit -> bridge on stdin, one request at a time, each with an ``id``:
  ``{id, op:"load", entry, kind:"esm"|"ts"|"python", replay, fresh, workspace, mirror}``,
  ``{id, op:"call", tool, handle, callId, params, cwd, access, identity, accountUserId}``,
  ``{id, op:"mirror", access, identity, accountUserId}``, ``{id, op:"ping"}``.
* bridge -> kit on stdout, each line prefixed with a per-process random marker: answers
  ``{id, ok:true, ..., network}`` / ``{id, ok:false, error:{name, message, stack, transport, ...}, network}``
  and one-way notes ``{op:"log"|"read"|"tool"|"phase", id, ...}`` (``phase``: a load entered
  ``import``, ``register`` or pi's ``startup``, each bounded apart). Unmarked stdout bytes are plugin noise
  (kept in the stderr tail).
* During a first load on POSIX, a ``registerTool``/``current*()`` call made by the plugin's
  ``register`` is a synchronous ``{op:"ctx", method, args}`` note; the reply goes back on a
  dedicated pipe (``TOOLCONF_CTX_FD``) that the bridge reads with a blocking read, so the host's
  ctx is called at that very moment and a host refusal is thrown back into the plugin.

The process and its line protocol are :mod:`.bridge_connection` (confined: on Linux its own
network, mount and PID namespaces, a scrubbed environment everywhere; docs/access-model.md says
what is confined where); what goes wrong, and the words for it, are :mod:`.bridge_errors`; what a
request's notes do on the host's side is :mod:`.bridge_notes`. The language's own parts (which
program, how a failed load is worded) are :mod:`.node` and :mod:`.python_process`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import reference_host
from pytest_toolconformance.bounds import kit_setup_bound
from pytest_toolconformance.plugins.loaders.bridge_connection import (
    BridgeClosed,
    BridgeConnection,
    EncodeError,
    NoteHandler,
    StepTimedOut,
)
from pytest_toolconformance.plugins.loaders.bridge_errors import (
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
    exit_text,
    tail_note,
    timeout_text,
    with_scrubbed_env_note,
)
from pytest_toolconformance.plugins.loaders.bridge_notes import CallNotes, FirstLoadNotes, log_to
from pytest_toolconformance.plugins.loaders.repository import repository_of, repository_secrets
from reference_host import PluginLoadError, RegistrationError, define_tool, mark_transport_failure

_POSIX = os.name == "posix"
_ABSENT = object()
#: The kit's own code a bridge runs (the bridges themselves, in this package, and the reference host a Python
#: plugin imports). The package's folder is found from here: importing the package face would be an arrow back up.
KIT_PACKAGES = (str(Path(__file__).resolve().parents[2]), str(Path(reference_host.__file__).resolve().parent))


def plugin_folder(entry: Path) -> Path:
    """The plugin's own folder: its npm package's (the nearest folder above the entry with a
    ``package.json``, within its repository), else the entry's."""
    stop = repository_of(entry)
    for folder in entry.parents:
        if (folder / "package.json").is_file():
            return folder
        if folder == stop:
            break
    return entry.parent


# JS registerTool option names -> the Python ctx.register_tool keywords.
_OPTION_NAMES = {
    "external": "external",
    "ownerUserId": "owner_user_id",
    "projectId": "project_id",
    "platform": "platform",
}


class _ExecuteProxy:
    """The ``execute`` of a bridged plugin's tool on the host's side: sends the call to its process.

    A host that wants the handler to run in a directory passes ``cwd=...`` or sets the
    ``cwd`` attribute; the bridge ``chdir``s there for the call and back afterwards.
    """

    def __init__(self, plugin: BridgedPlugin, ctx: Any, tool: str, handle: int) -> None:
        self.plugin = plugin
        self.ctx = ctx
        self.tool = tool
        self.handle = handle
        self.cwd: str | os.PathLike[str] | None = None

    def __call__(self, call_id: str, params: dict[str, Any], *, cwd: str | os.PathLike[str] | None = None) -> Any:
        return self.plugin._call_tool(self, call_id, params, cwd if cwd is not None else self.cwd)

    def __repr__(self) -> str:
        return f"<{self.plugin.language} execute {self.tool!r} of {self.plugin.name!r}>"


class BridgedPlugin:
    """A plugin entry run in a bridge process of its own; a language's subclass says which program
    runs it (:meth:`_argv`) and how a failed load is worded (:meth:`_load_error`)."""

    #: The bridge process's name in messages and its workspace's ("node", "python").
    process = "node"
    #: The plugin's language in messages ("JS plugin ...").
    language = "JS"
    #: How the bridge imports the entry (the load request's ``kind``).
    module_format = "esm"

    def __init__(
        self,
        entry: str | os.PathLike[str],
        *,
        name: str | None = None,
        timeout: float = 5.0,
        cwd: str | os.PathLike[str] | None = None,
        sync_host_calls: bool = True,
        import_timeout: float | None = None,
        writable: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        """``entry``: the plugin's entry file. ``timeout``: seconds per request (register, call).

        ``import_timeout``: seconds for importing the entry and what it imports, bounded apart from
        ``register`` (default ``max(30, 6 * timeout)``: a real extension's import of its dependencies
        is slow on a busy machine, and none of it is the plugin's register).

        ``cwd``: where the process starts and where calls without a cwd run (default: ours).
        ``sync_host_calls=False`` (always the case off POSIX) answers ``current*()`` during register
        from the mirror and hands registrations to the ctx after the fact instead of at once.
        ``writable``: folders the plugin may write besides its own temporary HOME/TMPDIR and ``cwd``
        (where namespaces work the rest of the file system is read-only to it; see docs/access-model.md).
        """
        self.entry = Path(entry).resolve()
        self.name = name or self.entry.stem
        self.__name__ = self.name  # what a host names a plugin object by, as for a module
        self.timeout = float(timeout)
        self.import_timeout = float(import_timeout) if import_timeout is not None else max(30.0, 6 * self.timeout)
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.writable: list[str] = [os.fspath(p) for p in writable] + ([self.cwd] if self.cwd else [])
        self.sync_host_calls = sync_host_calls and _POSIX
        self.last_network_attempts: list[str] = []
        self.last_ctx_reads: list[str] = []
        self.form: str | None = None
        self.tools: list[tuple[int, str | None]] = []
        self._lock = threading.RLock()
        # The current connection, kept after it stops so stderr_tail() still has its last words.
        self._connection: BridgeConnection | None = None
        self._loaded = False  # the running process has the plugin loaded
        self._mirror: dict[str, Any] = {"access": None, "identity": None, "accountUserId": None}
        self._registering = False
        #: Whether a fresh instance can be had in the running process (see fresh_instance).
        self._fresh_in_process = True

    # -------------------------------------------------------------------- what a language says
    def _argv(self) -> list[str]:
        """The bridge's program and arguments (raises :class:`PluginLoadError` when it is missing)."""
        raise NotImplementedError

    def _visible(self) -> list[str]:
        """What the plugin's process must see where its mount namespace covers folders (a home, /tmp):
        the kit's bridge, the plugin's own folder and its repository (:mod:`.repository`); a language
        adds its dependencies and interpreter."""
        return [*KIT_PACKAGES, str(self.entry.parent), *(str(p) for p in (repository_of(self.entry),) if p)]

    def _bridge_env(self) -> dict[str, str]:
        """What the bridge's scrubbed environment needs besides the kit's plumbing."""
        return {}

    def _load_error(self, error: Mapping[str, Any], tail: str | None) -> PluginLoadError:
        """The bridge's report of a failed load as a finding the plugin's author acts on."""
        raise NotImplementedError

    def _tool_options(self, ctx: Any, name: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        """The ``register_tool`` keywords for the options a plugin passed (JS names by default)."""
        kwargs: dict[str, Any] = {}
        for key, value in options.items():
            if key in _OPTION_NAMES:
                kwargs[_OPTION_NAMES[key]] = value
            else:
                log_to(ctx, "warning", f"tool {name!r}: unknown registerTool option {key!r} ignored")
        return kwargs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.entry)!r}, name={self.name!r})"

    @property
    def pid(self) -> int | None:
        """The pid of the running node process, or None."""
        connection = self._connection
        return connection.pid if connection is not None and connection.alive() else None

    def register(self, ctx: Any) -> None:
        """Load the plugin in a fresh bridge process and register its tools on ``ctx``."""
        with self._lock:
            self._stop(grace=0.5)
            self._start()
            connection = self._connection
            assert connection is not None  # started just now
            handler = FirstLoadNotes(ctx, register_tool=self._tool_from_note, reply=connection.reply)
            self._registering = True
            try:
                answer = self._request(
                    self._load_message(replay=False), what="loading the plugin", on_note=handler.on_message
                )
            finally:
                self._registering = False
            self._take_load(answer, handler.stash)
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
            notes = CallNotes(None)
            answer = self._call(
                tool,
                handle,
                call_id,
                dict(params or {}),
                cwd,
                {"access": access, "identity": identity, "accountUserId": account_user_id},
                notes,
            )
        out = {k: v for k, v in answer.items() if k != "id"}
        out["reads"] = notes.reads
        out["logs"] = notes.logs
        return out

    def fresh_instance(self) -> None:
        """Give the tools a fresh instance of the plugin, so a call sees nothing earlier calls left in
        its module state, its HOME or its TMPDIR: imported and registered again (pi's startup events run
        again too) in the running process, as pi's own reload does, its HOME and TMPDIR emptied first. A
        plugin whose second instance is not like its first (it fails to load, or registers other tools: a
        guard on ``globalThis``, say) gets a new process instead, now and from then on. Raises like a load
        (out of time, ended, failed)."""
        with self._lock:
            before = list(self.tools)
            if self._fresh_in_process and self._running() and self._loaded:
                self._connection.clear_state()  # type: ignore[union-attr]  # running, so connected
                try:
                    self._take_load(
                        self._request(
                            {**self._load_message(replay=True), "fresh": True},
                            what="loading a fresh instance of the plugin",
                        )
                    )
                    if self.tools == before:
                        return
                except PluginLoadError:
                    pass
                self._fresh_in_process = False
            self._stop(grace=0)
            self._start()
            self._take_load(
                self._request(
                    self._load_message(replay=True), what="loading the plugin in a new process for a fresh instance"
                )
            )

    def load_again_if_gone(self) -> bool:
        """Load the plugin again, in a new process, when its process ended (a step out of time stops it,
        a crash ends it): before a call, so that the kit's set-up and the plugin's import are bounded
        as a load, never counted against the call. Returns whether it had to. Raises like a load."""
        with self._lock:
            if self._running() and self._loaded:
                return False
            self._load_again("loading the plugin again after its process ended")
            return True

    def push_access(self, access: Any, identity: Any, account: str | None) -> None:
        """Update what the plugin's ``ctx.current*()`` answer between calls."""
        with self._lock:
            self._mirror = {"access": access, "identity": identity, "accountUserId": account}
            if self._running() and self._loaded:
                self._request({"op": "mirror", **self._mirror}, what="push_access()")

    def ping(self) -> dict[str, Any]:
        """Start the process if needed and return ``{pid, node}`` from the bridge (``node``: its
        runtime's version)."""
        with self._lock:
            if not self._running():
                self._start()
            answer = self._request({"op": "ping"}, what="ping")
        return {"pid": answer.get("pid"), "node": answer.get("node")}

    def stderr_tail(self) -> str:
        """The last ~4 KB the current (or last stopped) bridge process wrote to stderr, plus stray stdout."""
        connection = self._connection
        return connection.stderr_tail() if connection is not None else ""

    def close(self) -> None:
        """End the bridge process and everything it started (a later call starts it again)."""
        # First without the lock: a call in flight on another thread (a run stopped by Ctrl-C while
        # the host's worker waits on the bridge) holds it; killing the tree ends that wait at once.
        connection = self._connection
        if connection is not None:
            connection.kill()
        with self._lock:
            self._stop(grace=1.0)

    def __enter__(self) -> BridgedPlugin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ internals

    def _running(self) -> bool:
        return self._connection is not None and self._connection.alive()

    def _start(self) -> None:
        argv = self._argv()
        try:
            connection = BridgeConnection(
                argv,
                self.cwd,
                self.sync_host_calls,
                self.writable,
                env=self._bridge_env(),
                name=self.process,
                visible=self._visible(),
                hidden=repository_secrets(self.entry),
            )
        except OSError as exc:
            raise PluginLoadError(
                f"{self.language} plugin {self.entry}: could not start {argv[0]!r} ({exc}); check its install",
                subject=str(self.entry),
            ) from exc
        self._connection = connection
        self._loaded = False
        try:
            connection.wait_ready(kit_setup_bound(self.timeout))
        except StepTimedOut as out:
            raise PluginTimeoutError(
                f"{self.language} plugin {self.entry}: the kit's {self.process} bridge did not start within "
                f"{out.bound:g} s (before any plugin code ran){tail_note(connection.stderr_tail(), self.process)}",
                phase="kit",
                bound=out.bound,
                subject=str(self.entry),
            ) from None
        except BridgeClosed as closed:
            raise PluginExitError(
                f"{self.language} plugin {self.entry}: the {self.process} bridge exited at start-up with code "
                f"{closed.exit_code}; check that {argv[0]!r} works{self._version_hint()}"
                f"{tail_note(connection.stderr_tail(), self.process)}",
                exit_code=closed.exit_code,
                stderr_tail=connection.stderr_tail(),
                subject=str(self.entry),
            ) from None

    def _version_hint(self) -> str:
        return ""

    def _stop(self, grace: float) -> None:
        self._loaded = False
        if self._connection is not None:
            self._connection.stop(grace)

    def _load_message(self, *, replay: bool) -> dict[str, Any]:
        return {
            "op": "load",
            "entry": str(self.entry),
            "kind": self.module_format,
            "replay": replay,
            "workspace": self.cwd,
            "mirror": self._mirror,
        }

    def _take_load(self, answer: Mapping[str, Any], stash: Mapping[str, BaseException] | None = None) -> None:
        """Keep what a load answered, or raise what made it fail."""
        if not answer.get("ok"):
            # Stopped first: the tail is read to the pipe's end, so what the plugin wrote to stderr just
            # before its load failed is in it (read while the process lives, it could come after the answer).
            self._stop(grace=0)
            tail = self.stderr_tail() or None
            error = answer.get("error") or {}
            token = error.get("token")
            if token and stash and token in stash:
                # The plugin let a host refusal escape register(): surface the host's own exception.
                raise stash[token]
            raise with_scrubbed_env_note(self._load_error(error, tail), error)
        self._loaded = True
        self.form = answer.get("form")
        self.tools = [(t["handle"], t["name"]) for t in answer.get("tools", [])]

    def _ensure_loaded(self, tool: str) -> None:
        """Make sure a live process has the plugin loaded, replaying the load after a restart."""
        if self._running() and self._loaded:
            return
        if self._registering:
            # The only thread that can get here holds the lock inside register(): the bridge is blocked
            # waiting for that very register to finish, so a call now could only deadlock.
            raise PluginToolError(tool, "Error", f"tool {tool!r} was called while its plugin was still registering")
        self._load_again(f"reloading the plugin for tool {tool!r}")

    def _load_again(self, what: str) -> None:
        """Replay the load, in a new process if the old one ended (the caller holds the lock)."""
        if not self._running():
            self._stop(grace=0)
            self._start()
        self._take_load(self._request(self._load_message(replay=True), what=what))

    def _call(
        self,
        tool: str,
        handle: int | None,
        call_id: str,
        params: Mapping[str, Any],
        cwd: str | os.PathLike[str] | None,
        mirror: dict[str, Any],
        notes: CallNotes,
    ) -> dict[str, Any]:
        """One call request (the caller holds the lock and has the plugin loaded)."""
        answer = self._request(
            {
                "op": "call",
                "tool": tool,
                "handle": handle,
                "callId": call_id,
                "params": params,
                "cwd": os.fspath(cwd) if cwd is not None else None,
                **mirror,
            },
            what=f"tool {tool!r}",
            on_note=notes.on_message,
        )
        self.last_network_attempts = list(answer.get("network", []))
        self.last_ctx_reads = list(notes.reads)
        return answer

    def _call_tool(
        self, proxy: _ExecuteProxy, call_id: str, params: dict[str, Any], cwd: str | os.PathLike[str] | None
    ) -> Any:
        with self._lock:
            self._ensure_loaded(proxy.tool)
            ctx = proxy.ctx
            # Read right before sending: the bridge's ctx.current*() are synchronous, so they answer
            # from this snapshot, which is as fresh as the host can make it.
            self._mirror = {
                "access": _current(ctx, "current_access"),
                "identity": _current(ctx, "current_identity"),
                "accountUserId": _current(ctx, "current_account_user_id"),
            }
            try:
                answer = self._call(proxy.tool, proxy.handle, call_id, params, cwd, self._mirror, CallNotes(ctx))
            except EncodeError as exc:
                message = f"tool {proxy.tool!r}: cannot send to {self.process}: {exc}"
                raise PluginToolError(proxy.tool, "TypeError", message) from None
        if answer.get("ok"):
            return answer.get("result")
        error = answer.get("error") or {}
        exc = PluginToolError(
            proxy.tool,
            str(error.get("name") or "Error"),
            str(error.get("message") or ""),
            js_stack=error.get("stack"),
            code=error.get("code"),
            network=self.last_network_attempts,
            os_error=error.get("osError") is True,
        )
        if error.get("transport"):
            mark_transport_failure(exc)
        raise exc

    def _request(self, message: dict[str, Any], *, what: str, on_note: NoteHandler | None = None) -> dict[str, Any]:
        """Send one request on the running connection; a step out of time or a process that ended
        is raised as the plugin's own error, worded for its author. The caller holds the lock."""
        connection = self._connection
        assert connection is not None, "start first"
        try:
            return connection.request(message, bound_of=self._bound_of, on_note=on_note)
        except StepTimedOut as out:
            self._loaded = False
            raise PluginTimeoutError(
                timeout_text(
                    self.name,
                    self.entry,
                    out.step,
                    out.bound,
                    what,
                    message["op"] == "load",
                    connection.stderr_tail(),
                    self.process,
                ),
                phase=out.step,
                bound=out.bound,
                subject=str(self.entry),
            ) from None
        except BridgeClosed as closed:
            self._loaded = False
            raise PluginExitError(
                exit_text(self.name, self.entry, closed.exit_code, what, connection.stderr_tail(), self.process),
                exit_code=closed.exit_code,
                stderr_tail=connection.stderr_tail(),
                subject=str(self.entry),
            ) from None

    def _bound_of(self, step: str) -> float:
        if step == "kit":
            return kit_setup_bound(self.timeout)
        return self.import_timeout if step == "import" else self.timeout

    def _define_tool(self, **fields: Any) -> Any:
        """The host's tool for one reported registration: ``define_tool``, which refuses a bad one at once."""
        return define_tool(**fields)

    def _tool_from_note(self, ctx: Any, note: Mapping[str, Any]) -> Any:
        """Turn one reported registerTool(tool, options) into ctx.register_tool(...); returns its result."""
        name = note.get("name")
        if note.get("toolType") not in ("object", "Tool"):
            raise RegistrationError(
                f"registerTool() takes a tool object (use defineTool({{...}})), got {note.get('toolType')}",
                rule="REG-2",
                subject=str(name),
            )
        handle = int(note["handle"])
        execute = _ExecuteProxy(self, ctx, name, handle) if note.get("hasExecute") else None
        tool = self._define_tool(
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
            kwargs = self._tool_options(ctx, name, options)
        # Only the options the plugin gave are passed: the host tells "omitted" from an explicit null.
        return ctx.register_tool(tool, **kwargs)


def _current(ctx: Any, method: str) -> Any:
    """What the host's ``ctx.<method>()`` answers now; None from a ctx that has no such reader."""
    reader = getattr(ctx, method, None)
    return reader() if callable(reader) else None


__all__ = ["BridgedPlugin", "PluginExitError", "PluginTimeoutError", "PluginToolError"]
