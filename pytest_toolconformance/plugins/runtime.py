"""Plugins under test: loaded once per run, installed into the reference host, and called.

Each ``--toolconformance-plugin`` is loaded and installed into its own in-process
:class:`reference_host.Host` the first time collection asks for it (the tests are parametrized by
the tools a plugin registers, so they must be known at collection). A plugin that cannot be loaded
keeps its error, which one test per plugin reports; the others go on.

Every tool's ``execute`` is wrapped at registration so that the kit sees the raw result or
exception of each call, whether it came through the host's pipeline or was handed its arguments
directly. Each call runs in a fresh temporary working directory seeded with a few files (Node:
the bridge's ``cwd``; Python: ``chdir`` under a process-wide lock), with the network blocked and
every attempt recorded.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import errno
import functools
import inspect
import ipaddress
import itertools
import json
import os
import re
import secrets
import shutil
import socket
import stat
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import options as settings_module
from pytest_toolconformance.findings import Finding, shorten
from pytest_toolconformance.plugins import workers
from pytest_toolconformance.plugins.loaders import (
    LoadedPlugin,
    PluginExitError,
    PluginTimeoutError,
    PluginToolError,
    load_plugin,
)
from pytest_toolconformance.plugins.static import schema_error
from pytest_toolconformance.tree import changes, snapshot
from reference_host import Host
from reference_host.asyncutil import CallTimeout, run_bounded
from reference_host.context import CallContext, active_call, current_call
from reference_host.errors import HostError
from reference_host.registry import Finding as HostFinding
from reference_host.registry import InstallReport, Refusal, Registration
from reference_host.tools import Tool
from reference_host.transport import is_transport_failure

MARKER = "toolconformance"
RUN_KEY = pytest.StashKey["PluginRun"]()
SEED_FILES = {"notes.txt": "hello\n", "README.md": "# readme\n", "src/main.py": "print('hi')\n"}
NETWORK_CODES = frozenset({"ECONNREFUSED", "ENOTFOUND", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "EHOSTUNREACH"})
# One process, one working directory: Python handlers that need a chdir take turns.
_CWD_LOCK = threading.RLock()


class ToolConformanceAdvisory(UserWarning):
    """An advisory finding of a plugin rule: shown, never a failure (SCHEMA-2 kinds, GRANT-2, NAME-6 extras)."""


class ToolBroken(Exception):
    """A tool hung, or took its process down; later checks of it are skipped."""


class HostCouldNotCall(Exception):
    """The reference host itself could not run a call (the tool's schema is unusable)."""


@dataclass
class BrokenTool:
    message: str
    nodeid: str
    rule: str


# -- the plugins ----------------------------------------------------------------------------------


@dataclass
class CallEntry:
    """What one wrapped ``execute`` saw: its raw result or exception."""

    result: Any = None
    error: BaseException | None = None
    finished: bool = False
    network: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)


class ToolUnderTest:
    """One tool a plugin registered (accepted), or tried to (refused)."""

    def __init__(self, plugin: PluginUnderTest, name: str, registration: Registration | None,
                 refusal: Refusal | None = None) -> None:
        self.plugin = plugin
        self.name = name
        self.registration = registration
        self.refusal = refusal

    @property
    def accepted(self) -> bool:
        return self.registration is not None

    @property
    def tool(self) -> Tool:
        assert self.registration is not None, f"tool {self.name} was refused"
        return self.registration.tool

    @property
    def schema(self) -> dict[str, Any]:
        return self.tool.parameters if self.registration is not None else {}

    @property
    def declared_schema(self) -> dict[str, Any]:
        """The parameters the plugin declared, accepted or not (name checks read a refused tool too)."""
        if self.registration is not None:
            return self.tool.parameters
        attempted = self.plugin.attempted.get(self.name)
        return attempted if isinstance(attempted, dict) else {}

    @property
    def external(self) -> bool:
        return bool(self.registration and self.registration.external)

    def __repr__(self) -> str:
        return f"<tool {self.plugin.name}/{self.name}>"


class PluginUnderTest:
    """One ``--toolconformance-plugin``: loaded, installed, or the reason it could not be."""

    def __init__(self, index: int, spec: str, path: Path) -> None:
        self.index = index
        self.spec = spec
        self.path = path
        self.name = path.stem if path.suffix else path.name
        self.kind: str | None = None
        self.loaded: LoadedPlugin | None = None
        self.host: Host | None = None
        self.report: InstallReport | None = None
        self.register_findings: list[HostFinding] = []
        self.error: str | None = None
        self.error_rule = "REG-1"
        self.tools: list[ToolUnderTest] = []
        self.broken: dict[str, BrokenTool] = {}
        self.calls: dict[str, CallEntry] = {}
        self.answers: dict[str, CallRecord] = {}  # see Subject.call
        self.attempted: dict[str, Any] = {}  # tool name -> the parameters it was registered with
        self.markers: dict[str, str] = {}
        self.ids = itertools.count(1)
        self.workdir = Path(tempfile.mkdtemp(prefix=f"toolconformance-{_slug(self.name)}-", dir=_scratch_root()))

    @property
    def ok(self) -> bool:
        return self.error is None and self.host is not None

    def describe(self) -> str:
        if self.error is not None:
            return f"NOT LOADED: {self.error}"
        assert self.report is not None
        refused = f", {len(self.report.refused)} refused" if self.report.refused else ""
        return f"{self.kind} plugin, {len(self.report.accepted)} tool(s) installed{refused}"

    def close(self) -> None:
        plugin = self.loaded.plugin if self.loaded is not None else None
        closer = getattr(plugin, "close", None)
        if callable(closer) and self.kind == "node":
            with contextlib.suppress(Exception):
                closer()
        if self.host is not None:
            with contextlib.suppress(Exception):
                self.host.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _scratch_root() -> str | None:
    """Where the plugin's workspace goes: a memory file system when the machine has one.

    Every call gets a fresh seeded folder that is removed after it; on a journaling disk that
    removal alone cost 3 ms a call (a third of a plugin run). ``/dev/shm`` (Linux' shared-memory
    tmpfs, world-writable with the sticky bit like ``/tmp``) makes it 0.3 ms; elsewhere the system
    temp folder. The folder is private to the kit either way (``mkdtemp`` makes it mode 0700).
    """
    shm = "/dev/shm"
    try:
        mode = os.stat(shm).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode) and mode & stat.S_ISVTX and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:40] or "plugin"


class _Recorder:
    """The ``execute`` the host sees: runs the plugin's own and keeps what it did per call id."""

    def __init__(self, plugin: PluginUnderTest, execute: Callable[..., Any]) -> None:
        self.plugin = plugin
        self.execute = execute
        self.node = plugin.kind == "node"

    def __call__(self, call_id: str, params: dict[str, Any]) -> Any:
        entry = self.plugin.calls.setdefault(call_id, CallEntry())
        if self.node:
            call = active_call()
            node = self.plugin.loaded.plugin if self.plugin.loaded is not None else None
            try:
                value = self.execute(call_id, params, cwd=call.cwd if call is not None else None)
            except BaseException as exc:
                entry.error, entry.finished = exc, True
                entry.network = list(getattr(exc, "network", None) or getattr(node, "last_network_attempts", []))
                entry.reads = list(getattr(node, "last_ctx_reads", []))
                raise
            entry.result, entry.finished = value, True
            entry.network = list(getattr(node, "last_network_attempts", []))
            entry.reads = list(getattr(node, "last_ctx_reads", []))
            return value
        try:
            value = self.execute(call_id, params)
        except BaseException as exc:
            entry.error, entry.finished = exc, True
            raise
        if inspect.isawaitable(value):
            return self._finish(entry, value)
        entry.result, entry.finished = value, True
        return value

    async def _finish(self, entry: CallEntry, awaitable: Any) -> Any:
        try:
            value = await awaitable
        except BaseException as exc:
            entry.error, entry.finished = exc, True
            raise
        entry.result, entry.finished = value, True
        return value


class _RecordingContext:
    """The ``ctx`` the plugin's ``register`` gets: the host's own, with each tool's execute wrapped."""

    def __init__(self, ctx: Any, plugin: PluginUnderTest) -> None:
        self._ctx = ctx
        self._plugin = plugin

    def register_tool(self, tool: Any, *args: Any, **options: Any) -> Any:
        name = getattr(tool, "name", None)
        if isinstance(name, str):
            self._plugin.attempted.setdefault(name, getattr(tool, "parameters", None))
        if isinstance(tool, Tool) and callable(tool.execute):
            tool = dataclasses.replace(tool, execute=_Recorder(self._plugin, tool.execute))
        return self._ctx.register_tool(tool, *args, **options)

    registerTool = register_tool  # noqa: N815 - the JS name, as the host's ctx has it

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)


class _RecordingPlugin:
    def __init__(self, plugin: Any, under_test: PluginUnderTest, name: str) -> None:
        self._plugin = plugin
        self._under_test = under_test
        self.__name__ = name

    def register(self, ctx: Any) -> Any:
        return self._plugin.register(_RecordingContext(ctx, self._under_test))


def _bounded(fn: Callable[[], Any], timeout: float, what: str) -> Any:
    try:
        return run_bounded(fn, timeout)
    except CallTimeout:
        raise TimeoutError(f"{what} did not finish within {timeout:g} s") from None


def load_and_install(index: int, spec: str, path: Path, timeout: float) -> PluginUnderTest:
    """Load one plugin and install it into a fresh reference host; errors are kept, not raised."""
    put = PluginUnderTest(index, spec, path)
    try:
        # An import that never returns (a Python module looping at top level) must not hang collection.
        loaded: LoadedPlugin = _bounded(lambda: load_plugin(path, timeout=timeout, workspace=put.workdir), timeout + 5,
                                        f"loading {spec}")
    except HostError as exc:
        put.error, put.error_rule = f"could not load plugin {spec}: {exc.detail}", exc.rule or "REG-1"
        return put
    except Exception as exc:  # noqa: BLE001 - whatever a plugin does wrong is reported as its failure
        put.error = f"could not load plugin {spec}: {type(exc).__name__}: {exc}"
        return put
    put.loaded, put.name, put.kind = loaded, loaded.name, loaded.kind
    if loaded.kind == "node":
        # Each call runs in a folder under the plugin's workdir: the only place it may write.
        loaded.plugin.writable.append(str(put.workdir))
    # The node side has its own per-request timeout with a better message; the host's is a backstop.
    slack = 2.0 if loaded.kind == "node" else 0.0
    # A JS load is import + register + pi's startup, each bounded by the node loader.
    register_bound = timeout + slack
    if loaded.kind == "node":
        register_bound += getattr(loaded.plugin, "import_timeout", 0.0) + timeout
    host = Host(call_timeout=timeout + slack, register_timeout=register_bound)
    try:
        report = host.install_plugin(_RecordingPlugin(loaded.plugin, put, loaded.name), manifest=loaded.manifest,
                                     name=loaded.name)
    except HostError as exc:
        put.error, put.error_rule = f"plugin {put.name} ({spec}) could not be installed: {exc.detail}", exc.rule or "REG-1"
        _close_quietly(loaded)
        return put
    except Exception as exc:  # noqa: BLE001
        put.error = f"plugin {put.name} ({spec}) could not be installed: {type(exc).__name__}: {exc}"
        _close_quietly(loaded)
        return put
    put.host, put.report = host, report
    # Snapshot now: later reads happen inside calls and are never register-time findings.
    put.register_findings = [f for f in report.findings if f.rule == "SCOPE-4"]
    for name in report.accepted:
        reg = host.registry.get(name)
        if reg is not None:
            put.tools.append(ToolUnderTest(put, name, reg))
    for refusal in report.refused:
        put.tools.append(ToolUnderTest(put, refusal.tool, None, refusal))
    return put


def _close_quietly(loaded: LoadedPlugin) -> None:
    closer = getattr(loaded.plugin, "close", None)
    if loaded.kind == "node" and callable(closer):
        with contextlib.suppress(Exception):
            closer()


class PluginRun:
    """Every plugin of this run, loaded on first use and closed when the run ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings = settings_module.of(config)
        self._loaded: dict[int, PluginUnderTest] = {}
        self._listing: list[Any] | None = None
        self._shared = workers.shared_folder(config)

    def _load(self, index: int) -> PluginUnderTest:
        if index not in self._loaded:
            spec = self.settings.plugins[index]
            path = settings_module.resolve_path(self.config, "toolconformance_plugin", spec)
            self._loaded[index] = load_and_install(index, spec, path, self.settings.timeout)
        return self._loaded[index]

    @property
    def plugins(self) -> list[PluginUnderTest]:
        """Every plugin, loaded and installed (in this process)."""
        return [self._load(index) for index in range(len(self.settings.plugins))]

    @property
    def _plugins(self) -> list[PluginUnderTest] | None:
        # The plugins loaded so far, for the terminal summary (every one, in a single process).
        return [self._loaded[i] for i in sorted(self._loaded)] or None

    def listing(self) -> Sequence[Any]:
        """What collection reads of each plugin: the plugins themselves, or on an xdist worker the
        run's shared listing (see :mod:`.workers`), so that no worker loads every plugin."""
        if self._shared is None:
            return self.plugins
        if self._listing is None:
            worker = str(getattr(self.config, "workerinput", {}).get("workerid", ""))
            self._listing = workers.shared_listing(self._shared, len(self.settings.plugins), self._load, worker)
        return self._listing

    def plugin(self, index: int) -> PluginUnderTest:
        """The plugin a check is about, loaded in this process; a check collected from another
        load's listing fails if this load registered other tools."""
        listed = self._listing[index] if self._listing is not None else None
        if isinstance(listed, workers.ListedPlugin) and not listed.ok and index not in self._loaded:
            # Its load failed where it was listed: the failure is the finding, not worth a second timeout.
            put = PluginUnderTest(index, listed.spec, Path(listed.spec))
            put.name, put.error, put.error_rule = listed.name, listed.error, listed.error_rule
            self._loaded[index] = put
        put = self._load(index)
        if isinstance(listed, workers.ListedPlugin):
            problem = workers.mismatch(listed, put)
            if problem is not None:
                pytest.fail(problem, pytrace=False)
        return put

    def close(self) -> None:
        for put in self._loaded.values():
            put.close()


def plugin_run(config: pytest.Config) -> PluginRun:
    run = config.stash.get(RUN_KEY, None)
    if run is None:
        run = config.stash[RUN_KEY] = PluginRun(config)
        config.add_cleanup(run.close)
    return run


# -- parametrization ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    rule: str
    plugin: int
    tool: int | None = None


RuleSpec = Sequence[str] | Callable[[Any], Sequence[str]]


def _rules(spec: RuleSpec, subject: Any) -> Sequence[str]:
    return spec(subject) if callable(spec) else spec


def for_each_plugin(rules: RuleSpec, *, loaded: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Parametrize a test by plugin (only the plugins that installed, unless ``loaded=False``)."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._toolconformance_for = ("plugin", rules, loaded)  # type: ignore[attr-defined]
        return fn

    return mark


def for_each_tool(
    rules: RuleSpec, *, select: Callable[[ToolUnderTest], bool] = lambda t: t.accepted, applies_to: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Parametrize a test by plugin and tool, one case per rule: ids like ``NAME-1-myplugin-MyTool``.

    ``applies_to`` says which tools ``select`` keeps, for the skip when there are none.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._toolconformance_for = ("tool", rules, select)  # type: ignore[attr-defined]
        fn._toolconformance_applies_to = applies_to  # type: ignore[attr-defined]
        return fn

    return mark


def generate_tests(metafunc: pytest.Metafunc) -> None:
    """``pytest_generate_tests`` of the plugin suite modules."""
    spec = getattr(metafunc.function, "_toolconformance_for", None)
    if spec is None or "case" not in metafunc.fixturenames:
        return
    level, rules, option = spec
    run = plugin_run(metafunc.config)
    listing = run.listing()
    params = []
    for put in listing:
        if level == "plugin":
            if option and not put.ok:
                continue
            for rule in _rules(rules, put):
                params.append(pytest.param(Case(rule, put.index), id=f"{rule}-{put.name}",
                                           marks=[getattr(pytest.mark, MARKER)(rule)]))
            continue
        for index, tut in enumerate(put.tools):
            if not option(tut):
                continue
            # A refused duplicate of an accepted name gets its own id, not pytest's "Echo0"/"Echo1".
            suffix = "-refused" if tut.refusal is not None and sum(t.name == tut.name for t in put.tools) > 1 else ""
            for rule in _rules(rules, tut):
                params.append(pytest.param(Case(rule, put.index, index), id=f"{rule}-{put.name}-{tut.name}{suffix}",
                                           marks=[getattr(pytest.mark, MARKER)(rule)]))
    if not params:
        loaded = [p for p in listing if p.ok]
        applies_to = getattr(metafunc.function, "_toolconformance_applies_to", "")
        why = (
            "no plugin could be loaded (see test_plugin_loads)" if not loaded
            else "not applicable: no tool of the plugins under test is one this check applies to"
            + (f" ({applies_to})" if applies_to else "")
        )
        # Marked with its rules (where they do not depend on the subject), so that the report
        # counts the rule as not applicable, not as never run.
        marks = [getattr(pytest.mark, MARKER)(rule) for rule in ([] if callable(rules) else rules)]
        params = [pytest.param(None, id="nothing-to-check", marks=[pytest.mark.skip(reason=why), *marks])]
    metafunc.parametrize("case", params)


# -- calls ----------------------------------------------------------------------------------------


def _seed(workdir: Path) -> None:
    for rel, text in SEED_FILES.items():
        target = workdir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")


@functools.cache
def _seeded_snapshot() -> dict[str, tuple[Any, ...]]:
    """What every freshly seeded call folder holds (the same files each time): taken once, not
    before each call."""
    with tempfile.TemporaryDirectory(prefix="toolconformance-seed-", dir=_scratch_root()) as folder:
        _seed(Path(folder))
        return snapshot(Path(folder))


@contextlib.contextmanager
def blocked_network(attempts: list[str]) -> Iterator[None]:
    """No network for Python plugin code: DNS fails like ENOTFOUND, connects like ECONNREFUSED.

    What the code reached for is appended to ``attempts``. The errors are the plain ``OSError``s a
    real outage raises (untagged), so that ERR-4 can tell a rethrown fault from a new error.
    """
    original = {
        "getaddrinfo": socket.getaddrinfo,
        "gethostbyname": socket.gethostbyname,
        "gethostbyname_ex": socket.gethostbyname_ex,
        "create_connection": socket.create_connection,
        "connect": socket.socket.connect,
        "connect_ex": socket.socket.connect_ex,
    }

    def literal(host: Any) -> bool:
        try:
            ipaddress.ip_address(str(host).strip("[]"))
            return True
        except ValueError:
            return host in (None, "", "localhost")

    def dns(host: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(f"dns:{host}")
        if literal(host):
            return original["getaddrinfo"](host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, f"Name or service not known: {host} (no network under pytest-toolconformance)")

    def refused(where: Any) -> OSError:
        return ConnectionRefusedError(errno.ECONNREFUSED, f"Connection refused: {where} (no network under pytest-toolconformance)")

    def gethostbyname(host: Any) -> Any:
        dns(host)
        return host

    def gethostbyname_ex(host: Any) -> Any:
        dns(host)
        return (host, [], [host])

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        host = address[0] if isinstance(address, (tuple, list)) and address else address
        if not literal(host):
            dns(host)
        attempts.append(f"connect:{address}")
        raise refused(address)

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(f"connect:{address}")
            raise refused(address)
        return original["connect"](self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(f"connect:{address}")
            return errno.ECONNREFUSED
        return original["connect_ex"](self, address)

    socket.getaddrinfo = dns  # type: ignore[assignment]
    socket.gethostbyname = gethostbyname  # type: ignore[assignment]
    socket.gethostbyname_ex = gethostbyname_ex  # type: ignore[assignment]
    socket.create_connection = create_connection  # type: ignore[assignment]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.getaddrinfo = original["getaddrinfo"]  # type: ignore[assignment]
        socket.gethostbyname = original["gethostbyname"]  # type: ignore[assignment]
        socket.gethostbyname_ex = original["gethostbyname_ex"]  # type: ignore[assignment]
        socket.create_connection = original["create_connection"]  # type: ignore[assignment]
        socket.socket.connect = original["connect"]  # type: ignore[method-assign]
        socket.socket.connect_ex = original["connect_ex"]  # type: ignore[method-assign]


# What a refusal says, in the words real handlers use ("Error: UI not available", "no parameters are
# accepted", "name must be a string", "Unknown parameter", "file not found").
REFUSAL = re.compile(
    r"\b(error|errors|invalid|must|required|requires|missing|unknown|unexpected|unrecognized|unsupported"
    r"|not (allowed|available|supported|accepted|permitted|found|a valid|valid|recognized|expected)"
    r"|no \w+ (is|are) (accepted|allowed|supported|expected)|cannot|can't|unable|refuse[sd]?|expected"
    r"|no such|does not exist|doesn't exist|failed|denied|forbidden)\b",
    re.IGNORECASE,
)
# What a handler shows when it used a value that was not there or not what it assumed.
USED_BAD_VALUE = re.compile(r"\b(undefined|NaN)\b|\[object Object\]")


def js_renderings(value: Any) -> list[str]:
    """How a JS handler would print ``value`` (String(value) and JSON), for spotting an echo."""
    out = {json.dumps(value, ensure_ascii=False, separators=(",", ":"))}
    if isinstance(value, bool):
        out.add("true" if value else "false")
    elif value is None:
        out.add("null")
    elif isinstance(value, (int, float)):
        out.add(str(int(value)) if float(value).is_integer() else repr(value))
    elif isinstance(value, str):
        out.add(value)
    elif isinstance(value, list):
        out.add(",".join("" if v is None else str(v) for v in value))
    elif isinstance(value, dict):
        out.add("[object Object]")
    # Short renderings ("0", "", "a") appear in any text by chance: no evidence.
    return sorted(r for r in out if len(r) >= 3)


def success_evidence(record: CallRecord, bad_values: Sequence[Any], reference: CallRecord | None = None) -> str | None:
    """Evidence that a call the handler should have refused was taken as valid, or None.

    Reading: a handler that does not refuse breaking arguments is failed only on what a reader of
    the seed would accept as evidence: it changed the workspace, echoed the bad value, showed that
    it used a value that was not there (``undefined``, ``NaN``, ``[object Object]``), or answered
    exactly as it answers the same call without the offending parameters.
    """
    if record.changed:
        return f"it changed the working directory ({', '.join(record.changed[:3])})"
    text = record.text
    for value in bad_values:
        for rendering in js_renderings(value):
            if rendering in text:
                return f"it echoed the bad value {rendering!r}"
    used = USED_BAD_VALUE.search(text)
    if used:
        return f"its answer shows it used a value that was not given ({used.group(0)!r})"
    if reference is not None and reference.answered and reference.comparable_text == record.comparable_text:
        return f"it answered exactly as it answers {shorten(reference.arguments, 120)}"
    return None


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")


def _text_of(result: Any) -> str:
    """The text of a result, read leniently (a malformed result is REG-3's business, not this one's)."""
    if isinstance(result, Mapping):
        content = result.get("content")
        if isinstance(content, list):
            return "\n".join(str(item.get("text")) for item in content if isinstance(item, Mapping) and "text" in item)
        if isinstance(content, str):
            return content
    return "" if result is None else str(result)


@dataclass
class CallRecord:
    """One call and everything the kit saw of it."""

    tool: str
    plugin: str
    arguments: Any
    via: str  # "host" or "handler"
    refusal: dict[str, Any] | None = None
    handler_ran: bool = False
    result: Any = None
    error: BaseException | None = None
    network: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    host_text: str = ""
    details: Any = None
    workdir: str = ""

    @property
    def host_refused(self) -> bool:
        return self.refusal is not None

    @property
    def thrown(self) -> bool:
        return self.error is not None

    @property
    def transport_tagged(self) -> bool:
        return is_transport_failure(self.error)

    @property
    def raw_network_fault(self) -> bool:
        """The fault as the network stack raised it (not caught and re-raised as a new error)."""
        error = self.error
        if isinstance(error, PluginToolError):
            return (error.code or "") in NETWORK_CODES or (
                error.js_name == "TypeError" and error.js_message.startswith("fetch failed")
            )
        return isinstance(error, OSError)

    @property
    def text(self) -> str:
        if self.refusal is not None:
            return self.host_text
        if self.error is not None:
            # A JS error already reads "RangeError: message"; a Python one gets its class name.
            return str(self.error) if isinstance(self.error, PluginToolError) else f"{type(self.error).__name__}: {self.error}"
        return _text_of(self.result)

    @property
    def blob(self) -> str:
        """Text and details together, for finding echoed identity or access."""
        return self.text + "\n" + shorten(self.details if self.details is not None else
                                        (self.result.get("details") if isinstance(self.result, Mapping) else None), 100000)

    @property
    def comparable_text(self) -> str:
        """The text with this call's own working directory taken out, to compare two calls' answers."""
        return self.text.replace(self.workdir, "<cwd>") if self.workdir else self.text

    def names(self, name: str) -> bool:
        return bool(_word(name).search(self.text))

    @property
    def flagged_error(self) -> bool:
        """The handler returned pi's error result (``isError: true``): an answer, and not a normal one."""
        return isinstance(self.result, Mapping) and self.result.get("isError") is True

    @property
    def reads_as_refusal(self) -> bool:
        """The answer is a refusal by what it says (an error, something invalid, missing or unavailable)."""
        return self.flagged_error or bool(REFUSAL.search(self.text))

    def refused(self, names: Sequence[str] = ()) -> bool:
        """A refusal: the host refused, or the handler answered text that is one.

        Reading: a refusal is recognised by what it is (a text that says no: an error, something
        invalid, missing, unknown or unavailable), not only by naming the parameter; naming it is
        advised (:meth:`names_any`), since the model acts on it best.
        """
        if self.host_refused:
            return True
        if self.thrown:
            return False
        return self.reads_as_refusal or any(self.names(n) for n in names)

    def names_any(self, names: Sequence[str]) -> bool:
        return self.host_refused or any(self.names(n) for n in names)

    @property
    def answered(self) -> bool:
        return not self.host_refused and not self.thrown

    def reproduce(self) -> str:
        how = "through the host" if self.via == "host" else "handing them to its execute directly"
        return f"call {self.tool} with {shorten(self.arguments, 600)} ({how})"


@dataclass
class HarnessSession:
    session: Any
    user: str
    project: str
    account: str

    @property
    def markers(self) -> tuple[str, str]:
        return (self.user, self.project)


def _answer_key(tool: str, via: str, arguments: Any) -> str | None:
    try:
        return f"{tool}\0{via}\0{json.dumps(arguments, allow_nan=False)}"  # in key order: a plugin may read it
    except (TypeError, ValueError):
        return None


class Subject:
    """What one test checks: a plugin (and a tool), with calls, findings and advisories."""

    def __init__(self, request: pytest.FixtureRequest, case: Case, run: PluginRun) -> None:
        self.request = request
        self.case = case
        self.rule = case.rule
        self.run = run
        self.plugin = run.plugin(case.plugin)
        self.tool = self.plugin.tools[case.tool] if case.tool is not None else None
        self.nodeid = request.node.nodeid
        self._default: HarnessSession | None = None
        self.calls_made = self.calls_recalled = 0
        request.node.user_properties.append(("plugin", self.plugin.name))
        if self.tool is not None:
            request.node.user_properties.append(("tool", self.tool.name))

    @property
    def settings(self) -> settings_module.Settings:
        return self.run.settings

    # -- reporting ----------------------------------------------------------------------------
    def finding(self, expected: str, did: str, record: CallRecord | None = None, *, fix: str | None = None,
                rule: str | None = None) -> Finding:
        where = f"tool {self.tool.name} of plugin {self.plugin.name}" if self.tool else f"plugin {self.plugin.name}"
        return Finding(rule or self.rule, expected, did, subject="tool" if self.tool else "plugin", where=where,
                       reproduction=record.reproduce() if record is not None else None, fix=fix)

    def advise(self, message: str, rule: str | None = None) -> None:
        rule = rule or self.rule
        where = f"{self.plugin.name}/{self.tool.name}" if self.tool else self.plugin.name
        text = f"[{rule}] {where}: {message}"
        self.request.node.user_properties.append(("advisory", text))
        with warnings.catch_warnings():
            # Shown in the warnings summary, and never turned into a failure by -W error.
            warnings.simplefilter("always", ToolConformanceAdvisory)
            warnings.warn(ToolConformanceAdvisory(text), stacklevel=2)

    @contextlib.contextmanager
    def reporting(self) -> Iterator[None]:
        """Turn a hung or crashed tool into one failure (the first test to meet it) and skips after."""
        try:
            yield
        except ToolBroken:
            self._broken()
        except BaseExceptionGroup as group:
            leaves = group.exceptions
            if leaves and all(isinstance(e, ToolBroken) for e in leaves):
                self._broken()
            raise
        except HostCouldNotCall as exc:
            pytest.skip(str(exc))

    def _broken(self) -> None:
        assert self.tool is not None
        info = self.plugin.broken[self.tool.name]
        if info.nodeid == self.nodeid:
            pytest.fail(f"[{self.rule}] {info.message}", pytrace=False)
        pytest.skip(f"tool {self.tool.name} is unusable: it hung or crashed in {info.nodeid} (reported there)")

    # -- sessions and calls -------------------------------------------------------------------
    def open_session(self, *, owner: bool = False) -> HarnessSession:
        """A session in the tool's scope, deferral off, with an identity and Project unique to it."""
        put, tut = self.plugin, self.tool
        assert put.host is not None
        reg = tut.registration if tut is not None else None
        tag = f"{next(put.ids):03d}{secrets.token_hex(2)}"
        user, project = f"tc-user-{tag}", f"tc-proj-{tag}"
        account = (reg.owner_user_id if reg is not None and reg.owner_user_id else None) or f"tc-account-{tag}"
        projects = [project] + ([reg.project_id] if reg is not None and reg.project_id else [])
        put.host.set_policy(account, {"projectIds": projects, "pluginGrants": ["*"], "owner": owner, "admin": False})
        spec: dict[str, Any] = {"identity": {"userId": user, "owner": owner}, "account": account,
                                "deferral": {"enabled": False}}
        if reg is not None and reg.project_id:
            spec["projectId"] = reg.project_id
        if reg is not None and reg.platform:
            spec["platform"] = reg.platform
        session = put.host.open_session(spec)
        put.markers[user] = put.markers[project] = session.id
        return HarnessSession(session, user, project, account)

    @property
    def session(self) -> HarnessSession:
        if self._default is None:
            self._default = self.open_session()
        return self._default

    def foreign_markers(self, text: str, own: HarnessSession) -> list[str]:
        """Markers of other kit sessions found in ``text`` (a sign of values kept across turns)."""
        return [m for m in self.plugin.markers if m not in own.markers and m in text]

    def require_callable(self) -> None:
        assert self.tool is not None
        problem = schema_error(self.tool.schema)
        if problem is not None:
            pytest.skip(f"tool {self.tool.name}'s schema is not a valid JSON Schema ({problem}); SCHEMA-2 reports it")
        if self.tool.name in self.plugin.broken:
            self._broken()

    def _check_broken(self) -> None:
        # One raise site for every ToolBroken, so hypothesis sees a single, stable failure.
        assert self.tool is not None
        if self.tool.name in self.plugin.broken:
            raise ToolBroken(self.plugin.broken[self.tool.name].message)

    def call(self, arguments: Any, *, via: str = "host", session: HarnessSession | None = None) -> CallRecord:
        """Call the tool once in a fresh working directory; never raises for what the tool does.

        In the default session, arguments the tool was already called with (by another rule, or
        again while Hypothesis shrinks) get that call's record: one observation of the plugin,
        judged by every rule that asks, and the same answer on every replay.
        """
        put, tut = self.plugin, self.tool
        assert put.host is not None and tut is not None and tut.registration is not None
        self._check_broken()
        key = _answer_key(tut.name, via, arguments) if session is None else None
        if key is not None and key in put.answers:
            self.calls_recalled += 1
            return put.answers[key]
        self.calls_made += 1
        session = session or self.session
        call_id = f"tc-{put.index}-{next(put.ids)}"
        workdir = Path(tempfile.mkdtemp(prefix="call-", dir=put.workdir))
        _seed(workdir)
        before = _seeded_snapshot()
        record = CallRecord(tut.name, put.name, copy.deepcopy(arguments), via, workdir=str(workdir))
        attempts: list[str] = []
        timed_out = False
        try:
            with self._environment(workdir, attempts):
                if via == "host":
                    try:
                        outcome = session.session.call(tut.name, copy.deepcopy(arguments), call_id, cwd=str(workdir))
                    except Exception as exc:  # noqa: BLE001 - the oracle's own failure, not the plugin's
                        raise HostCouldNotCall(
                            f"the reference host could not run {tut.name}: {type(exc).__name__}: {exc}"
                        ) from exc
                    record.refusal = outcome.refusal
                    record.handler_ran = outcome.handler_ran
                    record.host_text = _text_of({"content": outcome.content})
                    record.details = outcome.details if outcome.handler_ran else None
                    timed_out = outcome.handler_ran and outcome.is_error and not put.calls.get(call_id, CallEntry()).finished
                else:
                    record.handler_ran = True
                    token = current_call.set(CallContext(session.session, call_id, tut.name, str(workdir)))
                    try:
                        run_bounded(lambda: tut.tool.execute(call_id, copy.deepcopy(arguments)), put.host.call_timeout)
                    except CallTimeout:
                        timed_out = True
                    except BaseException:  # noqa: BLE001 - recorded by the wrapper
                        pass
                    finally:
                        current_call.reset(token)
            entry = put.calls.pop(call_id, None) or CallEntry()
            record.result, record.error = entry.result, entry.error
            record.network = entry.network or attempts
            record.reads = entry.reads
            record.changed = changes(before, snapshot(workdir))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if isinstance(record.error, (PluginTimeoutError, PluginExitError)) or timed_out:
            self._mark_broken(record, timed_out)
        elif key is not None:
            put.answers[key] = record
        return record

    def _mark_broken(self, record: CallRecord, timed_out: bool) -> None:
        assert self.tool is not None
        if isinstance(record.error, (PluginTimeoutError, PluginExitError)):
            message = str(record.error)
        else:
            message = (
                f"tool {record.tool} of plugin {record.plugin} did not answer within {self.settings.timeout:g} s "
                f"when called with {shorten(record.arguments)}; the kit abandoned the call. Look for a blocking call "
                "or an endless loop in its execute"
            )
        self.plugin.broken[self.tool.name] = BrokenTool(message, self.nodeid, self.rule)
        self._check_broken()

    @contextlib.contextmanager
    def _environment(self, workdir: Path, attempts: list[str]) -> Iterator[None]:
        if self.plugin.kind != "python":
            yield
            return
        with _CWD_LOCK:
            previous = os.getcwd()
            os.chdir(workdir)
            try:
                with blocked_network(attempts):
                    yield
            finally:
                os.chdir(previous)
