"""What one plugin check is about: a plugin (and a tool), its sessions, calls, findings and advisories."""

from __future__ import annotations

import contextlib
import copy
import json
import secrets
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance import options
from pytest_toolconformance.bounds import RETRY_FACTOR
from pytest_toolconformance.findings import (
    CaseOutOfTime,
    Finding,
    NoFreshInstance,
    StepOutOfTime,
    ToolConformanceAdvisory,
    shorten,
)
from pytest_toolconformance.plugins.budget import ToolTime
from pytest_toolconformance.plugins.loaders import (
    PluginExitError,
    PluginTimeoutError,
)
from pytest_toolconformance.plugins.loaders.bridge_errors import TAIL_LABELS
from pytest_toolconformance.plugins.loaders.python_guard import guarded_call
from pytest_toolconformance.plugins.parametrize import CheckTarget
from pytest_toolconformance.plugins.readings import CallRecord, text_of
from pytest_toolconformance.plugins.static import schema_error
from pytest_toolconformance.plugins.under_test import (
    BrokenTool,
    CallEntry,
    HostCouldNotCall,
    PluginRun,
    ToolBroken,
    ToolUnderTest,
)
from pytest_toolconformance.plugins.workfolders import seed_folder, seeded_snapshot
from pytest_toolconformance.tree import changes, snapshot
from reference_host import CallContext, CallTimeout, current_call, run_bounded


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


def subject_of(request: pytest.FixtureRequest, target: CheckTarget, run: PluginRun) -> Subject:
    """What the parametrized check ``target`` is about: a :class:`ToolSubject` for a tool's check, else
    a :class:`Subject` (the plugin)."""
    return ToolSubject(request, target, run) if target.tool is not None else Subject(request, target, run)


class Subject:
    """What a plugin check is about: a plugin, its sessions, findings and advisories."""

    #: The tool of a tool's check (:class:`ToolSubject`); a plugin's check has none.
    tool: ToolUnderTest | None = None

    def __init__(self, request: pytest.FixtureRequest, target: CheckTarget, run: PluginRun) -> None:
        self.request = request
        self.target = target
        self.rule = target.rule
        self.run = run
        self.plugin = run.plugin(target.plugin)
        self.nodeid = request.node.nodeid
        self._default: HarnessSession | None = None
        self.calls_made = self.calls_recalled = 0
        request.node.user_properties.append(("plugin", self.plugin.name))

    @property
    def settings(self) -> options.Settings:
        return self.run.settings

    # -- reporting ----------------------------------------------------------------------------
    def finding(self, expected: str, did: str, record: CallRecord | None = None, *, fix: str | None = None,
                rule: str | None = None, happened_limit: int = 800) -> Finding:
        where = f"tool {self.tool.name} of plugin {self.plugin.name}" if self.tool else f"plugin {self.plugin.name}"
        return Finding(rule or self.rule, expected, did, subject="tool" if self.tool else "plugin", where=where,
                       reproduction=record.reproduce() if record is not None else None, fix=fix,
                       happened_limit=happened_limit)

    def advise(self, message: str, rule: str | None = None) -> None:
        rule = rule or self.rule
        where = f"{self.plugin.name}/{self.tool.name}" if self.tool else self.plugin.name
        text = f"[{rule}] {where}: {message}"
        self.request.node.user_properties.append(("advisory", text))
        # Told in the warnings summary at the plugin's own entry file, not at a line of the kit's.
        entry = self.plugin.loaded.entry if self.plugin.loaded is not None else self.plugin.path
        with warnings.catch_warnings():
            # Shown in the warnings summary, and never turned into a failure by -W error.
            warnings.simplefilter("always", ToolConformanceAdvisory)
            warnings.warn_explicit(ToolConformanceAdvisory(text), ToolConformanceAdvisory, str(entry), 1)

    # -- sessions and calls -------------------------------------------------------------------
    def open_session(self, *, owner: bool = False) -> HarnessSession:
        """A session in the tool's scope, deferral off, with an identity and Project unique to it."""
        plugin, tool = self.plugin, self.tool
        assert plugin.host is not None
        reg = tool.registration if tool is not None else None
        tag = f"{next(plugin.ids):03d}{secrets.token_hex(2)}"
        user, project = f"tc-user-{tag}", f"tc-proj-{tag}"
        account = (reg.owner_user_id if reg is not None and reg.owner_user_id else None) or f"tc-account-{tag}"
        projects = [project] + ([reg.project_id] if reg is not None and reg.project_id else [])
        plugin.host.set_policy(account, {"projectIds": projects, "pluginGrants": ["*"], "owner": owner, "admin": False})
        spec: dict[str, Any] = {"identity": {"userId": user, "owner": owner}, "account": account,
                                "deferral": {"enabled": False}}
        if reg is not None and reg.project_id:
            spec["projectId"] = reg.project_id
        if reg is not None and reg.platform:
            spec["platform"] = reg.platform
        session = plugin.host.open_session(spec)
        plugin.markers[user] = plugin.markers[project] = session.id
        return HarnessSession(session, user, project, account)

    @property
    def session(self) -> HarnessSession:
        if self._default is None:
            self._default = self.open_session()
        return self._default

    def foreign_markers(self, text: str, own: HarnessSession) -> list[str]:
        """Markers of other kit sessions found in ``text`` (a sign of values kept across turns)."""
        return [m for m in self.plugin.markers if m not in own.markers and m in text]


class ToolSubject(Subject):
    """A tool's check: the plugin's :attr:`tool` (never None), its calls and how a check of it ends."""

    tool: ToolUnderTest

    def __init__(self, request: pytest.FixtureRequest, target: CheckTarget, run: PluginRun) -> None:
        super().__init__(request, target, run)
        assert target.tool is not None, "a tool's check has a tool"
        self.tool = self.plugin.tools[target.tool]
        self._hung_here: str | None = None  # a call of this check ran out of time: it ends errored
        request.node.user_properties.append(("tool", self.tool.name))

    @property
    def schema(self) -> Any:
        """The tool's parameters schema, as registered."""
        return self.tool.schema

    @contextlib.contextmanager
    def reporting(self) -> Iterator[None]:
        """How a check ends when a call did not: a case out of time is left out and the check goes on
        (:class:`CaseOutOfTime`); a check that met one and broke no rule on the others is *errored*.
        A crashed tool is one failure, and the checks after it are skipped; a tool too slow to judge
        (:mod:`.budget`) is errored in the checks after it."""
        try:
            yield
        except CaseOutOfTime:
            pass
        except ToolBroken:
            self._broken()
        except BaseExceptionGroup as group:
            leaves = group.exceptions
            if leaves and all(isinstance(e, ToolBroken) for e in leaves):
                self._broken()
            raise
        except HostCouldNotCall as exc:
            pytest.skip(str(exc))
        if self._hung_here is not None:
            raise StepOutOfTime(f"[{self.rule}] {self._hung_here}")

    def _broken(self) -> None:
        if self._hung_here is not None:  # the check whose hang made the tool unusable is errored too
            raise StepOutOfTime(f"[{self.rule}] {self._hung_here}")
        info = self.plugin.broken[self.tool.name]
        if info.nodeid == self.nodeid:
            raise self.finding("the tool to answer every call, its process still running after it",
                               info.message, happened_limit=4000,
                               fix="find what ends the process (process.exit(), an uncaught error in a callback, "
                                   "a native crash) in the tool's handler and answer with a text result instead")
        pytest.skip(f"tool {self.tool.name} is unusable: it crashed (reported in {info.nodeid})")

    def require_callable(self) -> Any:
        """Skip a check that must call the tool where it cannot be called (an invalid schema, a tool that
        crashed), error one that would call a tool too slow to judge; the tool's parameters schema, to
        check it against."""
        problem = schema_error(self.tool.schema)
        if problem is not None:
            pytest.skip(f"tool {self.tool.name}'s schema is not a valid JSON Schema ({problem}); SCHEMA-2 reports it")
        if self.tool.name in self.plugin.broken:
            self._broken()
        times = self.plugin.times.get(self.tool.name)
        if times is not None and times.slow is not None:
            raise StepOutOfTime(times.errored(self.rule))
        return self.tool.schema

    def _time(self) -> ToolTime:
        return self.plugin.times.setdefault(self.tool.name, ToolTime())

    def _unjudged(self, what: str) -> str | None:
        """Why no call of the tool is made now (it is too slow to judge, the run's budget is spent), or None."""
        times = self.plugin.times.get(self.tool.name)
        if times is not None and times.slow is not None:
            return times.errored(self.rule)
        if self.run.budget.spent():
            self.run.budget.mark_unjudged(self.request.node)
            return self.run.budget.unjudged(self.rule, what)
        return None

    def _check_broken(self) -> None:
        # One raise site for every ToolBroken, so hypothesis sees a single, stable failure.
        if self.tool.name in self.plugin.broken:
            raise ToolBroken(self.plugin.broken[self.tool.name].message)

    def call(self, arguments: Any, *, via: str = "host", session: HarnessSession | None = None) -> CallRecord:
        """Call the tool once in a fresh working directory; never raises for what the tool does.

        In the default session, arguments the tool was already called with in this check (again while
        Hypothesis shrinks, say) get that call's record: one observation of the plugin's instance,
        the same answer on every replay. Another check's records are never reused: each check calls
        an instance of its own (:meth:`PluginUnderTest.instance_for`), and an answer of another
        instance (a random name it picked, a counter) is no observation of this one.

        A call that runs out of its bound is made once more with
        :data:`~pytest_toolconformance.bounds.RETRY_FACTOR` times the bound (and the tool keeps that
        bound: it is slow here, not hung). One that runs out again is left out (:class:`CaseOutOfTime`):
        the check goes on with its other cases and ends *errored* unless one of them breaks the rule,
        never failed for the hang; the tool's other checks go on, unless it is too slow to judge
        (:mod:`.budget`: a second, different call out of time, or calls past the bound for too long),
        or the run's budget is spent: then no call is made, and the case is left out at once.
        """
        plugin, tool = self.plugin, self.tool
        assert plugin.host is not None and tool.registration is not None
        self._check_broken()
        unjudged = self._unjudged("this check's next call")
        if unjudged is not None:
            self._hang(unjudged.removeprefix(f"[{self.rule}] "))
        call_key = _answer_key(tool.name, via, arguments)
        key = call_key if session is None else None
        if key is not None and plugin.state_of == self.nodeid and key in plugin.answers:
            self.calls_recalled += 1
            return plugin.answers[key]
        hung = plugin.hung.setdefault(tool.name, {})
        # A hang is the call's, whichever session makes it: met again, it is not waited for again.
        hang_key = call_key or f"unkeyed-{len(hung)}"
        if hang_key in hung:
            self._hang(hung[hang_key])
        session = session or self.session
        scale = plugin.bound_scale.get(tool.name, 1.0)
        record, out_of_time, seconds = self._attempt(arguments, via, session, scale)
        retried = False
        if out_of_time and scale < RETRY_FACTOR:
            plugin.bound_scale[tool.name] = scale = RETRY_FACTOR
            record, out_of_time, again = self._attempt(arguments, via, session, scale)
            seconds += again
            retried = True
        message = self._hang_message(record, scale, retried) if out_of_time else None
        if message is not None:
            hung[hang_key] = message
        # Against the idle machine's bound: a tool's own waits (a sleep, a backoff) do not stretch with the load.
        self._time().add(seconds, self.settings.timeout, tool.name, plugin.name, arguments,
                         hung=message is not None, hung_twice=message is not None and len(hung) >= 2)
        if message is not None:
            self._hang(message)
        if isinstance(record.error, PluginExitError):
            self.plugin.broken[tool.name] = BrokenTool(str(record.error), self.nodeid, self.rule)
            self._check_broken()
        if key is not None:
            plugin.answers[key] = record
        return record

    def _attempt(self, arguments: Any, via: str, session: HarnessSession,
                 scale: float) -> tuple[CallRecord, bool, float]:
        """One call at ``scale`` times the plugin's bound: its record, whether it ran out of time, and the
        seconds it took (the call alone: a fresh instance's load before it is the kit's)."""
        plugin, tool = self.plugin, self.tool
        assert plugin.host is not None
        try:
            plugin.instance_for(self.nodeid)
        except NoFreshInstance as exc:
            raise NoFreshInstance(f"[{self.rule}] {exc}") from None
        self.calls_made += 1
        call_id = f"tc-{plugin.index}-{next(plugin.ids)}"
        workdir = Path(tempfile.mkdtemp(prefix="call-", dir=plugin.workdir))
        seed_folder(workdir)
        before = seeded_snapshot()
        record = CallRecord(tool.name, plugin.name, copy.deepcopy(arguments), via, workdir=str(workdir))
        attempts: list[str] = []
        timed_out = False
        began = time.monotonic()
        try:
            with self._environment(workdir, attempts), self._bounds_scaled(scale):
                if via == "host":
                    try:
                        outcome = session.session.call(tool.name, copy.deepcopy(arguments), call_id, cwd=str(workdir))
                    except Exception as exc:  # noqa: BLE001 - the oracle's own failure, not the plugin's
                        raise HostCouldNotCall(
                            f"the reference host could not run {tool.name}: {type(exc).__name__}: {exc}"
                        ) from exc
                    record.refusal = outcome.refusal
                    record.handler_ran = outcome.handler_ran
                    record.host_text = text_of({"content": outcome.content})
                    record.details = outcome.details if outcome.handler_ran else None
                    finished = plugin.calls.get(call_id, CallEntry()).finished
                    timed_out = outcome.handler_ran and outcome.is_error and not finished
                else:
                    record.handler_ran = True
                    token = current_call.set(CallContext(session.session, call_id, tool.name, str(workdir)))
                    try:
                        run_bounded(lambda: tool.host_tool.execute(call_id, copy.deepcopy(arguments)),
                                    plugin.host.call_timeout)
                    except CallTimeout:
                        timed_out = True
                    except KeyboardInterrupt:
                        raise  # Ctrl-C while the kit waits on the handler: the run stops (below says where)
                    except BaseException:  # noqa: BLE001 - recorded by the wrapper
                        pass
                    finally:
                        current_call.reset(token)
            seconds = time.monotonic() - began
            entry = plugin.calls.pop(call_id, None) or CallEntry()
            record.result, record.error = entry.result, entry.error
            record.network = entry.network or attempts
            record.reads = entry.reads
            record.changed = changes(before, snapshot(workdir))
        except KeyboardInterrupt:
            # Ctrl-C lands in whatever waits on the plugin (a frame of threading): say what it stopped.
            raise KeyboardInterrupt(f"stopped during a call of tool {tool.name} of plugin {plugin.name}") from None
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return record, timed_out or isinstance(record.error, PluginTimeoutError), seconds

    @contextlib.contextmanager
    def _bounds_scaled(self, scale: float) -> Iterator[None]:
        """The plugin's bounds (the host's on a call, the bridge's on a request) times ``scale``."""
        plugin = self.plugin
        assert plugin.host is not None
        bridged_plugin = plugin.loaded.plugin if plugin.loaded is not None and not plugin.loaded.in_process else None
        saved = (plugin.host.call_timeout, getattr(bridged_plugin, "timeout", None))
        plugin.host.call_timeout = saved[0] * scale
        if bridged_plugin is not None:
            bridged_plugin.timeout = saved[1] * scale
        try:
            yield
        finally:
            plugin.host.call_timeout = saved[0]
            if bridged_plugin is not None:
                bridged_plugin.timeout = saved[1]

    def _hang_message(self, record: CallRecord, scale: float, retried: bool) -> str:
        bound = self.plugin.bound
        how = "through the host" if record.via == "host" else "handing them to its execute directly"
        called = f"when called with {shorten(record.arguments)} ({how})"
        within = (
            f"within {bound:g} s {called}, nor within {bound * scale:g} s when called again"
            if retried
            else f"within {bound * scale:g} s {called}"
        )
        tail = ""
        said = str(record.error) if isinstance(record.error, PluginTimeoutError) else ""
        label = next((label for label in TAIL_LABELS.values() if f"{label}:" in said), None)
        if label is not None:
            tail = f". {label}:" + said.split(f"{label}:", 1)[1]
        return (
            f"phase call: tool {record.tool} of plugin {record.plugin} did not answer {within}; the kit abandoned "
            "the call. This check is errored, not failed: "
            "no rule can be judged on a call that does not end. Look for a blocking call, a promise that never "
            f"settles or an endless loop in its execute{tail}"
        )

    def _hang(self, message: str) -> None:
        self._hung_here = message
        self._check_broken()
        raise CaseOutOfTime(f"[{self.rule}] {message}")

    @contextlib.contextmanager
    def _environment(self, workdir: Path, attempts: list[str]) -> Iterator[None]:
        if self.plugin.loaded is None or not self.plugin.loaded.in_process:
            yield
            return
        with guarded_call(workdir, attempts):
            yield
