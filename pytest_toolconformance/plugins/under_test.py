"""Plugins under test: loaded once per run, installed into the reference host, and recorded.

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
import dataclasses
import inspect
import itertools
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import bounds, confinement, options
from pytest_toolconformance.bounds import RETRY_FACTOR, kit_setup_bound
from pytest_toolconformance.findings import NoFreshInstance, exception_in
from pytest_toolconformance.plugins import workers
from pytest_toolconformance.plugins.budget import RunBudget, ToolTime
from pytest_toolconformance.plugins.loaders import (
    LoadedPlugin,
    PluginTimeoutError,
    load_plugin,
)
from pytest_toolconformance.plugins.readings import CallRecord
from pytest_toolconformance.plugins.workfolders import reseed_folder, scratch_root, seed_folder, slug
from reference_host import (
    CallTimeout,
    Host,
    HostError,
    InstallFinding,
    InstallReport,
    PluginLoadError,
    Refusal,
    Registration,
    Tool,
    active_call,
    run_bounded,
)

RUN_KEY = pytest.StashKey["PluginRun"]()


class ToolBroken(Exception):
    """A call of the tool hung, or took its process down: the check that met it ends there."""


class HostCouldNotCall(Exception):
    """The reference host itself could not run a call (the tool's schema is unusable)."""


@dataclass
class BrokenTool:
    """A tool no later check can use: it crashed its process."""

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
    def host_tool(self) -> Tool:
        """The host's record of the tool (its definition and wrapped execute); only for an accepted one."""
        assert self.registration is not None, f"tool {self.name} was refused"
        return self.registration.tool

    @property
    def schema(self) -> dict[str, Any]:
        return self.host_tool.parameters if self.registration is not None else {}

    @property
    def declared_schema(self) -> dict[str, Any]:
        """The parameters the plugin declared, accepted or not (name checks read a refused tool too)."""
        if self.registration is not None:
            return self.host_tool.parameters
        attempted = self.plugin.attempted.get(self.name)
        return attempted if isinstance(attempted, dict) else {}

    @property
    def description(self) -> str:
        """The tool's own description as registered ("" for a refused one)."""
        text = self.host_tool.description if self.registration is not None else ""
        return text if isinstance(text, str) else ""

    @property
    def external(self) -> bool:
        return bool(self.registration and self.registration.external)

    def __repr__(self) -> str:
        return f"<tool {self.plugin.name}/{self.name}>"


#: ``PluginUnderTest.state_of`` after a fresh instance failed to load: no check's instance is running.
_NO_INSTANCE = "(no instance)"


class PluginUnderTest:
    """One ``--toolconformance-plugin``: loaded, installed, or the reason it could not be."""

    def __init__(self, index: int, spec: str, path: Path) -> None:
        self.index = index
        self.spec = spec
        self.path = path
        self.name = path.stem if path.suffix else path.name
        self.runtime: str | None = None  # "python" or "node": what runs its code
        self.loaded: LoadedPlugin | None = None
        self.host: Host | None = None
        self.report: InstallReport | None = None
        self.register_findings: list[InstallFinding] = []
        self.error: str | None = None
        self.error_rule = "REG-1"
        # The phase a load ran out of time in (twice, after load_and_install's retry): errored, not failed.
        self.out_of_time: str | None = None
        self.bound = 0.0  # seconds per plugin step this plugin was loaded with
        self.tools: list[ToolUnderTest] = []
        self.broken: dict[str, BrokenTool] = {}
        # Calls that ran out of time (twice: at the bound and when retried), by tool and answer key.
        self.hung: dict[str, dict[str, str]] = {}
        # A tool that needed its retry's longer bound once keeps it (it is slow here, not hung).
        self.bound_scale: dict[str, float] = {}
        # How long each tool's slow calls took; a tool too slow to judge is called no more.
        self.times: dict[str, ToolTime] = {}
        self.calls: dict[str, CallEntry] = {}
        self.answers: dict[str, CallRecord] = {}  # see Subject.call
        self.attempted: dict[str, Any] = {}  # tool name -> the parameters it was registered with
        self.markers: dict[str, str] = {}
        #: The check whose calls the plugin's running instance has seen (None: none since it was loaded).
        self.state_of: str | None = None
        self.ids = itertools.count(1)
        self.workdir = Path(tempfile.mkdtemp(prefix=f"toolconformance-{slug(self.name)}-", dir=scratch_root()))

    @property
    def ok(self) -> bool:
        return self.error is None and self.host is not None

    def instance_for(self, nodeid: str) -> None:
        """Before a call of the check ``nodeid``: a plugin instance that no other check has called, so
        what earlier checks' calls left in its module state (a store, a counter, a quota) decides
        nothing here; the calls within one check share it (a check may be about a sequence). A plugin
        whose process ended (a call out of time stops it) is loaded again here, before the call, so its
        load is bounded as a load and never counted in the call's time. A plugin run in the kit's own
        process has no other instance to give: its checks share one (the header says it runs there).
        Raises :class:`NoFreshInstance` when the instance does not load."""
        renew = self.state_of is not None and self.state_of != nodeid
        if self.state_of != nodeid:
            self.answers.clear()  # observations of the instance the previous check called
        if renew:
            # Its folder as seeded: what earlier checks' calls left there (a store, pi's agent folder) is gone.
            reseed_folder(self.workdir)
        bridged = self.loaded.plugin if self.loaded is not None and not self.loaded.in_process else None
        load = getattr(bridged, "fresh_instance" if renew else "load_again_if_gone", None)
        if callable(load):
            try:
                try:
                    load()
                except PluginTimeoutError:
                    # As every plugin step: once more with a longer bound before it is reported.
                    saved = (bridged.timeout, bridged.import_timeout)
                    bridged.timeout, bridged.import_timeout = (bound * RETRY_FACTOR for bound in saved)
                    try:
                        load()
                    finally:
                        bridged.timeout, bridged.import_timeout = saved
            except PluginLoadError as exc:
                self.state_of = _NO_INSTANCE  # the next check tries again, never calls what is left
                what = ("could not load a fresh instance of it for this check, so no call was made (each check "
                        "calls an instance no other check has called)") if renew else (
                        "could not load it again after its process ended, so no call was made")
                raise NoFreshInstance(f"plugin {self.name}: the kit {what}: {exc}") from None
        self.state_of = nodeid

    def describe(self) -> str:
        if self.error is not None:
            return f"NOT LOADED: {self.error}"
        assert self.report is not None
        refused = f", {len(self.report.refused)} refused" if self.report.refused else ""
        # Which host's plugin API it was loaded with, where that is not the seam's own register(ctx).
        loaded_as = (f" loaded as {self.loaded.loaded_as}" if self.loaded is not None
                     and self.loaded.ecosystem != "seam" else "")
        return (f"{self.runtime} plugin{loaded_as}, {len(self.report.accepted)} tool(s) installed{refused}; "
                f"sandbox: {self.sandbox}")

    @property
    def sandbox(self) -> str:
        """In a word or two, what confined this plugin (the header and report say it in full)."""
        if self.loaded is not None and self.loaded.in_process:
            return "none (in the kit's own process)"
        return "namespaces" if confinement.current().isolated else "no namespaces (scrubbed environment only)"

    @property
    def confined(self) -> bool:
        return self.loaded is not None and not self.loaded.in_process and confinement.current().isolated

    def close(self) -> None:
        plugin = self.loaded.plugin if self.loaded is not None else None
        closer = getattr(plugin, "close", None)
        if callable(closer) and self.loaded is not None and not self.loaded.in_process:
            with contextlib.suppress(Exception):
                closer()
        if self.host is not None:
            with contextlib.suppress(Exception):
                self.host.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class _Recorder:
    """The ``execute`` the host sees: runs the plugin's own and keeps what it did per call id."""

    def __init__(self, plugin: PluginUnderTest, execute: Callable[..., Any]) -> None:
        self.plugin = plugin
        self.execute = execute
        # A bridged plugin's execute runs in its process: the call's folder is sent along.
        self.bridged = plugin.loaded is not None and not plugin.loaded.in_process

    def __call__(self, call_id: str, params: dict[str, Any]) -> Any:
        entry = self.plugin.calls.setdefault(call_id, CallEntry())
        if self.bridged:
            call = active_call()
            bridged_plugin = self.plugin.loaded.plugin if self.plugin.loaded is not None else None
            try:
                value = self.execute(call_id, params, cwd=call.cwd if call is not None else None)
            except BaseException as exc:
                entry.error, entry.finished = exc, True
                entry.network = list(getattr(exc, "network", None)
                                     or getattr(bridged_plugin, "last_network_attempts", []))
                entry.reads = list(getattr(bridged_plugin, "last_ctx_reads", []))
                raise
            entry.result, entry.finished = value, True
            entry.network = list(getattr(bridged_plugin, "last_network_attempts", []))
            entry.reads = list(getattr(bridged_plugin, "last_ctx_reads", []))
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

    def register_tool(self, tool: Any, *args: Any, **registration: Any) -> Any:
        name = getattr(tool, "name", None)
        if isinstance(name, str):
            self._plugin.attempted.setdefault(name, getattr(tool, "parameters", None))
        if isinstance(tool, Tool) and callable(tool.execute):
            tool = dataclasses.replace(tool, execute=_Recorder(self._plugin, tool.execute))
        return self._ctx.register_tool(tool, *args, **registration)

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
    except KeyboardInterrupt:
        # Ctrl-C lands in the wait (a frame of threading): say what it stopped.
        raise KeyboardInterrupt(f"stopped during {what}") from None


def load_and_install(index: int, spec: str, path: Path, timeout: float) -> PluginUnderTest:
    """Load one plugin and install it into a fresh reference host; errors are kept, not raised.

    A load that runs out of time is tried once more with :data:`~pytest_toolconformance.bounds.RETRY_FACTOR` times the
    bound (a busy machine, not a hung plugin); if it runs out again, the plugin is *errored* with the
    phase it was in, never failed under a rule.
    """
    plugin = _load_once(index, spec, path, timeout)
    if plugin.out_of_time is None:
        return plugin
    plugin.close()
    retried = _load_once(index, spec, path, timeout * RETRY_FACTOR)
    if retried.out_of_time is not None:
        retried.error = (f"{str(retried.error).rstrip('. ')}. That was its second try, with {RETRY_FACTOR:g} times the "
                         "bounds of the first, which ran out of time too, so the kit could not check it: this is an "
                         "error of the run, not a rule's failure")
    return retried


def _load_once(index: int, spec: str, path: Path, timeout: float) -> PluginUnderTest:
    plugin = PluginUnderTest(index, spec, path)
    # Seeded before the plugin's process starts: a plugin that keeps process.cwd() from its load finds
    # the same files a call's folder holds.
    seed_folder(plugin.workdir)
    try:
        # An import that never returns (a Python module looping at top level) must not hang collection.
        loaded: LoadedPlugin = _bounded(lambda: load_plugin(path, timeout=timeout, workspace=plugin.workdir),
                                        timeout + 5, f"loading {spec}")
    except TimeoutError as exc:
        plugin.error, plugin.out_of_time = f"could not load plugin {spec}: {exc}", "import"
        return plugin
    except HostError as exc:
        plugin.error, plugin.error_rule = f"could not load plugin {spec}: {exc.detail}", exc.rule or "REG-1"
        return plugin
    except Exception as exc:  # noqa: BLE001 - whatever a plugin does wrong is reported as its failure
        plugin.error = f"could not load plugin {spec}: {type(exc).__name__}: {exc}"
        return plugin
    plugin.loaded, plugin.name, plugin.runtime = loaded, loaded.name, loaded.runtime
    bridged = not loaded.in_process
    if bridged:
        # Each call runs in a folder under the plugin's workdir: the only place it may write.
        loaded.plugin.writable.append(str(plugin.workdir))
    # The bridge has its own per-request timeout with a better message; the host's is a backstop.
    slack = 2.0 if bridged else 0.0
    # A bridged load is the kit's set-up + import + register (+ pi's startup), each bounded by the bridge.
    register_bound = timeout + slack
    if bridged:
        register_bound += kit_setup_bound(timeout) + getattr(loaded.plugin, "import_timeout", 0.0) + timeout
    host = Host(call_timeout=timeout + slack, register_timeout=register_bound)
    plugin.bound = timeout
    try:
        report = host.install_plugin(_RecordingPlugin(loaded.plugin, plugin, loaded.name), manifest=loaded.manifest,
                                     name=loaded.name)
    except HostError as exc:
        # Node's own bound names its phase; the host's bound on a Python register() is its CallTimeout.
        timed_out = exception_in(exc, (PluginTimeoutError, CallTimeout))
        if timed_out is not None:
            plugin.out_of_time = getattr(timed_out, "phase", "register")
        plugin.error, plugin.error_rule = (
            f"plugin {plugin.name} ({spec}) could not be installed: {exc.detail}",
            exc.rule or "REG-1",
        )
        _close_quietly(loaded)
        return plugin
    except Exception as exc:  # noqa: BLE001
        plugin.error = f"plugin {plugin.name} ({spec}) could not be installed: {type(exc).__name__}: {exc}"
        _close_quietly(loaded)
        return plugin
    plugin.host, plugin.report = host, report
    # Snapshot now: later reads happen inside calls and are never register-time findings.
    plugin.register_findings = [f for f in report.findings if f.rule == "SCOPE-4"]
    for name in report.accepted:
        reg = host.registry.get(name)
        if reg is not None:
            plugin.tools.append(ToolUnderTest(plugin, name, reg))
    for refusal in report.refused:
        plugin.tools.append(ToolUnderTest(plugin, refusal.tool, None, refusal))
    return plugin


def _close_quietly(loaded: LoadedPlugin) -> None:
    closer = getattr(loaded.plugin, "close", None)
    if not loaded.in_process and callable(closer):
        with contextlib.suppress(Exception):
            closer()


class PluginRun:
    """Every plugin of this run, loaded on first use and closed when the run ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings = options.of(config)
        # One plugin step's bound on this machine now (--toolconformance-timeout, stretched by the load).
        self.bound = bounds.of(config).bound(self.settings.timeout)
        # Counted from here: the plugins load at collection, and their loads are part of the run.
        self.budget = RunBudget(self.settings.plugin_budget, bounds.of(config).factor)
        self._loaded: dict[int, PluginUnderTest] = {}
        self._listing: list[Any] | None = None
        self._shared = workers.shared_folder(config)

    def _load(self, index: int) -> PluginUnderTest:
        if index not in self._loaded:
            spec = self.settings.plugins[index]
            path = options.resolve_path(self.config, "toolconformance_plugin", spec)
            self._loaded[index] = load_and_install(index, spec, path, self.bound)
        return self._loaded[index]

    @property
    def plugins(self) -> list[PluginUnderTest]:
        """Every plugin, loaded and installed (in this process)."""
        return [self._load(index) for index in range(len(self.settings.plugins))]

    @property
    def loaded(self) -> list[PluginUnderTest]:
        """The plugins loaded so far, without loading any (every one, in a single process; none on an
        xdist controller): what the terminal summary lists."""
        return [self._loaded[i] for i in sorted(self._loaded)]

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
            plugin = PluginUnderTest(index, listed.spec, Path(listed.spec))
            plugin.name, plugin.error, plugin.error_rule = listed.name, listed.error, listed.error_rule
            plugin.out_of_time = listed.out_of_time
            self._loaded[index] = plugin
        plugin = self._load(index)
        if isinstance(listed, workers.ListedPlugin):
            problem = workers.mismatch(listed, plugin)
            if problem is not None:
                pytest.fail(problem, pytrace=False)
        return plugin

    def close(self) -> None:
        for plugin in self._loaded.values():
            plugin.close()


def plugin_run(config: pytest.Config) -> PluginRun:
    run = config.stash.get(RUN_KEY, None)
    if run is None:
        run = config.stash[RUN_KEY] = PluginRun(config)
        config.add_cleanup(run.close)
    return run
