"""The kit's side of the wire protocol: a host adapter that drives a host process over JSON lines.

``--toolconformance-host="exec:COMMAND"`` gives a :class:`WireHostAdapter`. It starts COMMAND,
handshakes (``hello``), then turns every adapter contract call into one request and its answer.
Every answer is checked against the message schemas; anything the protocol does not allow raises
:class:`WireProtocolError`, which the kit reports as *errored*, never as a broken rule.

It is always bounded: each request has a deadline (``timeout``); a host that hangs is killed at it,
a host that exits is noticed at once, and either is restarted (its state since the last ``reset``
replayed). The budget is ``max_restarts`` checks in a row that meet a fault: past it every request
fails fast with the last fault and the host's stderr tail; a check that meets none restores it.

The host's process and its line transport are a :class:`~.connection.WireConnection` (one per run
of the host), as a plugin's bridge process is a ``BridgeConnection`` under the plugin API; anything
shaped like :class:`~.connection.Connection` can stand in for it (``connect``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from pytest_toolconformance.host.contract import BY_NAME, CAPABILITIES, JSON, WIRE_METHODS, Method, fill_in
from pytest_toolconformance.host.errors import HostSpecError
from pytest_toolconformance.host.wire import protocol
from pytest_toolconformance.host.wire.connection import Connection, ProcessFault, WireConnection
from pytest_toolconformance.host.wire.errors import WireHostUnusable, WireProtocolError
from pytest_toolconformance.version import __version__

if sys.platform == "win32":  # pragma: no cover - hosts run in POSIX process groups, read with select on pipes
    raise ImportError("the wire client needs a POSIX system")


class WireHostWarning(UserWarning):
    """Something the kit recovered from (a host that exited between requests and was restarted)."""


#: Starts one run of a host: ``connect(argv, cwd=..., env=...)``.
Connect = Callable[..., Connection]


@dataclass(frozen=True)
class _Logged:
    """A state-building request since the last reset, as the kit sent it (kit session ids)."""

    method: str
    params: bytes
    ok: bool
    session: str | None  # the kit's id of a session this request created


#: Tools one ``timeout`` is given for: a request is allowed ``timeout`` for every this many tools the
#: host holds (and a plugin install for the tools it brings), on top of its own. Composing a catalog is
#: linear work in it (COST-1), so a 3,000-tool composition gets 31 timeouts, a small one just one.
TOOLS_PER_TIMEOUT = 100


class WireHostAdapter:
    """A host adapter over the wire protocol. ``command`` is run as given (no shell); ``timeout`` is
    the deadline of one request in seconds, stretched by the catalog the host holds
    (:data:`TOOLS_PER_TIMEOUT`); the handshake allows for start-up instead (``startup_timeout``, by
    default at least 5 s; the kit passes --toolconformance-host-startup-timeout). ``connect`` starts
    one run of the host (default :class:`~.connection.WireConnection`, a process)."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 10.0,
        max_restarts: int = 3,
        startup_timeout: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        connect: Connect = WireConnection,
    ) -> None:
        if isinstance(command, str):
            try:
                argv = shlex.split(command)
            except ValueError as exc:
                raise HostSpecError(
                    f"--toolconformance-host=exec:{command}: cannot split the command ({exc})"
                ) from None
            self.command = command
        else:
            argv = list(command)
            self.command = shlex.join(argv)
        if not argv:
            raise HostSpecError(
                "--toolconformance-host=exec: needs a command, e.g. exec:python -m "
                "pytest_toolconformance.host.wire.reference_server"
            )
        if shutil.which(argv[0], path=os.environ.get("PATH") if env is None else env.get("PATH")) is None and not (
            os.sep in argv[0] and os.path.exists(argv[0])
        ):
            raise HostSpecError(f"--toolconformance-host=exec:{self.command}: no executable {argv[0]!r} (not on PATH)")
        self.argv = argv
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout) if startup_timeout is not None else max(self.timeout, 5.0)
        self.max_restarts = max_restarts
        self.cwd = cwd
        self.env = env
        self._connect = connect
        #: Set to a list to record every line both ways as ``("kit" | "host", line)`` (docs, tests).
        self.transcript: list[tuple[str, bytes]] | None = None
        self.starts = 0
        #: Checks in a row (from one reset to the next) that met a protocol fault (a hang, a death, a
        #: bad answer...): past max_restarts the kit gives up on the host, so a host that is broken
        #: for good costs a few timeouts at most, while one that faults now and then (a hang on one
        #: request) is restarted each time and every check that did not meet a fault keeps its verdict.
        self.faults = 0
        self._check_faulted = False
        self._connection: Connection | None = None
        self._hello: JSON | None = None
        self._capabilities: frozenset[str] = frozenset()
        #: Tools the host holds now (accepted by installs since the last reset): requests scale with it.
        self._tools_held = 0
        self._last_fault: str | None = None
        self._last_stderr = ""
        self._log: list[_Logged] = []
        #: The kit's session id -> the id the current process knows it by (the same, unless a restart
        #: replayed the session under a new id).
        self._to_proc: dict[str, str] = {}
        self._poisoned: WireProtocolError | None = None

    # -- the adapter contract: info, reset and close here; the other methods are one request each,
    # -- made from the declaration (see the end of this module) --------------------------------------
    def info(self) -> JSON:
        # A host the kit gave up on still has the hello it answered: its checks of undeclared
        # capabilities skip as in any run, and only the others error.
        if self._hello is None or self.faults <= self.max_restarts:
            self._ensure()
        assert self._hello is not None
        return {
            "name": self._hello["name"],
            "version": self._hello["version"],
            "capabilities": sorted(self._capabilities),
            "protocol": self._hello["protocol"],
            "ignoredCapabilities": sorted(set(self._hello["capabilities"]) - set(CAPABILITIES)),
            **({"collisions": self._hello["collisions"]} if "collisions" in self._hello else {}),
        }

    def reset(self) -> None:
        __tracebackhide__ = True  # the fault is in the message; the kit's frames are noise
        # The log is emptied first: a host restarted by this reset starts fresh, nothing to replay.
        self._poisoned = None
        self._next_check()
        self._log.clear()
        self._to_proc.clear()
        self._tools_held = 0
        kind, value = self._request("reset", {})
        if kind == "error":
            self._raise_soft(
                "internal",
                f"it refused reset ({value.get('kind')}: {value.get('message')}); reset cannot be refused",
                "reset",
            )

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        grace = 0.0  # how long a host that answered stop may take to leave by itself
        try:
            if connection.alive():
                deadline = time.monotonic() + min(self.timeout, 2.0)
                line = protocol.encode({"seq": connection.take_seq(), "method": "stop", "params": {}})
                answer = connection.request(line, deadline)
                if self.transcript is not None:
                    self.transcript += [("kit", line), ("host", answer)]
                grace = max(0.0, deadline - time.monotonic())
        except (ProcessFault, OSError):
            pass  # a host that will not stop politely is killed below; close never fails a run
        finally:
            connection.stop(grace)

    # -- requests ---------------------------------------------------------------------------------------
    def _contract(self, method: str, params: JSON) -> JSON:
        __tracebackhide__ = True
        if self._poisoned is not None:
            raise WireHostUnusable(self._poisoned)
        connection = self._ensure(unusable=True)
        declared = BY_NAME[method]
        if not declared.allowed(self._capabilities):
            # Never sent: the host did not declare a capability that covers it.
            return declared.unsupported(self._hello["name"] if self._hello else self.command)
        kind, value = self._request(method, params, connection)
        if method in protocol.SESSION_RESULT_METHODS and kind == "result":
            value = dict(value)
            value["session"] = self._adopt_session(value["session"])
        if method == "install_plugin" and kind == "result" and isinstance(value.get("accepted"), list):
            self._tools_held += len(value["accepted"])
        if method in protocol.STATE_METHODS:
            self._log.append(
                _Logged(
                    method,
                    protocol.encode(params),
                    kind == "result",
                    value["session"] if method in protocol.SESSION_RESULT_METHODS and kind == "result" else None,
                )
            )
        return {"error": value} if kind == "error" else value

    def allowance(self, method: str, params: Any) -> float:
        """Seconds request ``method`` may take: the timeout, and one more per :data:`TOOLS_PER_TIMEOUT`
        tools the host holds (an install: plus the tools it brings), since that work is the catalog's."""
        tools = self._tools_held
        if method == "install_plugin" and isinstance(params, Mapping):
            brought = (params.get("plugin") or {}).get("tools") if isinstance(params.get("plugin"), Mapping) else None
            tools += len(brought) if isinstance(brought, list) else 0
        return self.timeout * (1 + tools / TOOLS_PER_TIMEOUT)

    def _allowance_text(self, method: str, allowed: float) -> str:
        if method == "hello":
            return "--toolconformance-host-startup-timeout: its start and the hello"
        if allowed > self.timeout:
            return f"--toolconformance-timeout {self.timeout:g} s, stretched for the {self._tools_held} tools it holds"
        return "--toolconformance-timeout"

    def _adopt_session(self, proc_id: str) -> str:
        """The kit's id for a session the current process just created (the same id, unless a
        restart made it clash with one the kit already handed out)."""
        kit_id = proc_id
        n = 1
        while kit_id in self._to_proc and self._to_proc[kit_id] != proc_id:
            n += 1
            kit_id = f"{proc_id}~{n}"
        self._to_proc[kit_id] = proc_id
        return kit_id

    def _request(self, method: str, params: JSON, connection: Connection | None = None) -> tuple[str, Any]:
        __tracebackhide__ = True
        connection = connection or self._ensure(unusable=True)
        session = params.get("session")
        if session is not None:
            proc_id = self._to_proc.get(session, session)
            if proc_id != session:
                params = {**params, "session": proc_id}
        return self._exchange(connection, method, params)

    def _exchange(
        self, connection: Connection, method: str, params: Any, *, deadline: float | None = None
    ) -> tuple[str, Any]:
        """Send one request and read its answer; returns ("result" | "error", value)."""
        __tracebackhide__ = True
        seq = connection.take_seq()
        line = protocol.encode({"seq": seq, "method": method, "params": params})
        allowed = self.startup_timeout if method == "hello" else self.allowance(method, params)
        if deadline is None:
            deadline = time.monotonic() + allowed
        if self.transcript is not None:
            self.transcript.append(("kit", line))
        try:
            raw = connection.request(line, deadline)
        except ProcessFault as exc:
            if exc.kind == "timeout":
                exc.detail = (
                    f"no answer within {allowed:g} s ({self._allowance_text(method, allowed)}); the kit "
                    f"killed it (pid {connection.pid})"
                )
            self._fatal(connection, exc.kind, exc.detail, method, seq, exc.line)
        if self.transcript is not None:
            self.transcript.append(("host", raw))
        try:
            answer = json.loads(raw)
        except ValueError as exc:
            hint = ""
            if raw.strip() and raw.lstrip()[:1] not in b"{[":
                hint = "; stdout carries protocol lines only, write logs to stderr"
                if method == "hello":
                    hint += " (this line came before the handshake: the first line must answer the hello)"
            self._fatal(connection, "not-json", f"{exc}{hint}", method, seq, raw)
        if (
            not isinstance(answer, dict)
            or type(answer.get("seq")) is not int
            or (("result" in answer) == ("error" in answer))
        ):
            self._fatal(
                connection,
                "not-a-response",
                'an answer is an object with an integer "seq" and exactly one of "result" and "error"',
                method,
                seq,
                raw,
            )
        if answer["seq"] != seq:
            self._fatal(
                connection,
                "wrong-seq",
                f"the answer carries seq {answer['seq']}, the request was seq {seq}",
                method,
                seq,
                raw,
            )
        if "error" in answer:
            problem = protocol.first_problem("common", "error", answer["error"])
            if problem:
                self._raise_soft(
                    "schema",
                    f"the error of the answer to {method} breaks schemas/common.json#/$defs/error {problem}",
                    method,
                    seq,
                    raw,
                    connection,
                )
            err = answer["error"]
            if err["kind"] in protocol.WIRE_ERROR_KINDS:
                self._raise_soft(err["kind"], f"{err['kind']}: {err['message']}", method, seq, raw, connection)
            return "error", err
        problem = protocol.first_problem(method, "result", answer["result"])
        if problem:
            self._raise_soft(
                "schema",
                f"the result of {method} breaks schemas/{method}.json#/$defs/result {problem}",
                method,
                seq,
                raw,
                connection,
            )
        return "result", answer["result"]

    def _fatal(
        self, connection: Connection, fault: str, detail: str, method: str, seq: int, line: bytes | None = None
    ) -> Any:
        """The process is dead or out of step: kill it (the next request restarts it) and raise."""
        __tracebackhide__ = True
        connection.stop()
        stderr = connection.stderr_tail()
        if self._connection is connection:
            self._connection = None
        self._last_stderr = stderr
        self._throw(WireProtocolError(self.command, fault, detail, method=method, seq=seq, line=line, stderr=stderr))

    def _raise_soft(
        self,
        fault: str,
        detail: str,
        method: str,
        seq: int | None = None,
        line: bytes | None = None,
        connection: Connection | None = None,
    ) -> Any:
        """A bad answer on a stream still in step: the process stays, the request errors."""
        __tracebackhide__ = True
        stderr = connection.stderr_tail() if connection is not None else ""
        self._throw(WireProtocolError(self.command, fault, detail, method=method, seq=seq, line=line, stderr=stderr))

    def _next_check(self) -> None:
        """A reset starts a check: the fault budget counts checks in a row that met a fault, so a
        check that met none gives the budget back (unless the kit has given up already)."""
        if not self._check_faulted and self.faults <= self.max_restarts:
            self.faults = 0
        self._check_faulted = False

    def _count_fault(self) -> None:
        if not self._check_faulted:
            self.faults += 1
            self._check_faulted = True

    def _throw(self, error: WireProtocolError, *, count: bool = True) -> NoReturn:
        """Raise a fault, and refuse the requests that follow until the next reset
        (:class:`WireHostUnusable`): the host's state is unknown now, and a check that went on
        would check nothing."""
        __tracebackhide__ = True
        self._last_fault = error.summary
        self._poisoned = error
        if count:
            self._count_fault()
        raise error from None

    # -- starting, restarting, replaying ----------------------------------------------------------------
    def _ensure(self, *, unusable: bool = False) -> Connection:
        """The connection to the running host process, started (and its state replayed) if need be. ``unusable``: a
        kit that gave up says so with :class:`WireHostUnusable`, which ends a check at once."""
        __tracebackhide__ = True
        if self.faults > self.max_restarts:
            self._give_up(unusable)
        connection = self._connection
        if connection is not None:
            if connection.alive():
                return connection
            status = connection.status_text()
            self._last_stderr = connection.stderr_tail()
            self._last_fault = f"exited between requests {status}"
            self._count_fault()
            connection.stop()
            self._connection = None
            if self.faults > self.max_restarts:
                self._give_up(unusable)
            warnings.warn(
                WireHostWarning(
                    f"wire host {self.command!r} {self._last_fault}; restarting it and "
                    f"replaying {len(self._log)} requests"
                ),
                stacklevel=3,
            )
        self.starts += 1
        try:
            connection = self._connect(self.argv, cwd=self.cwd, env=self.env)
        except OSError as exc:
            self._throw(WireProtocolError(self.command, "start", f"{type(exc).__name__}: {exc}"))
        try:
            self._handshake(connection)
        except BaseException:
            connection.stop()
            raise
        self._connection = connection
        if self._log:
            self._replay(connection)
        return connection

    def _give_up(self, unusable: bool) -> NoReturn:
        __tracebackhide__ = True
        error = WireProtocolError(
            self.command,
            "gave-up",
            f"it met protocol faults in {self.faults} checks in a row (the kit restarts a host at most "
            f"{self.max_restarts} times in a row); every further request errors at once. "
            f"Last fault: {self._last_fault or 'none recorded'}",
            stderr=self._last_stderr,
        )
        if unusable:
            raise WireHostUnusable(error, "nothing was sent") from None
        raise error

    def _handshake(self, connection: Connection) -> None:
        __tracebackhide__ = True
        params = {"protocol": protocol.PROTOCOL_VERSION, "kit": __version__, "timeout": self.timeout}
        kind, value = self._exchange(connection, "hello", params, deadline=time.monotonic() + self.startup_timeout)
        if kind == "error":
            self._fatal(
                connection,
                "handshake",
                f"it refused the hello ({value.get('kind')}: {value.get('message')})",
                "hello",
                0,
            )
        if value["protocol"] != protocol.PROTOCOL_VERSION:
            self._fatal(
                connection,
                "version",
                f"it answered protocol {value['protocol']}; this kit speaks protocol "
                f"{protocol.PROTOCOL_VERSION} only (see docs/wire-protocol.md, versioning)",
                "hello",
                0,
            )
        declared = frozenset(c for c in value["capabilities"] if c in CAPABILITIES)
        if self._hello is not None and (self._hello["name"], self._capabilities) != (value["name"], declared):
            self._fatal(
                connection,
                "handshake",
                f"after a restart it described itself differently: {value['name']!r} "
                f"{sorted(declared)}, before {self._hello['name']!r} "
                f"{sorted(self._capabilities)}",
                "hello",
                0,
            )
        self._hello = dict(value)
        self._capabilities = declared

    def _replay(self, connection: Connection) -> None:
        """Bring a restarted host back to the state the kit built since the last reset."""
        __tracebackhide__ = True
        to_proc: dict[str, str] = {}
        for index, entry in enumerate(self._log, start=1):
            params = json.loads(entry.params)
            session = params.get("session")
            if session is not None:
                params["session"] = to_proc.get(session, session)
            try:
                kind, value = self._exchange(connection, entry.method, params)
            except WireProtocolError as exc:
                self._throw(
                    WireProtocolError(
                        self.command,
                        "replay",
                        f"replaying request {index} of {len(self._log)} failed: {exc.summary}",
                        method=entry.method,
                        stderr=exc.stderr,
                    ),
                    count=False,
                )
            if (kind == "result") != entry.ok:
                self._raise_soft(
                    "replay",
                    f"replaying request {index} of {len(self._log)} ({entry.method}) gave "
                    f"{'a result' if kind == 'result' else 'an error'} this time, "
                    f"not {'a result' if entry.ok else 'an error'}: {json.dumps(value)[:300]}",
                    entry.method,
                    connection=connection,
                )
            if entry.session is not None:
                to_proc[entry.session] = value["session"]
        self._to_proc = to_proc


def _request_for(method: Method) -> Any:
    def request(self: WireHostAdapter, *args: Any, **kwargs: Any) -> JSON:
        __tracebackhide__ = True
        return self._contract(method.name, method.wire_params(args, kwargs))

    return request


fill_in(WireHostAdapter, _request_for, WIRE_METHODS)


__all__ = ["WireHostAdapter", "WireHostUnusable", "WireHostWarning", "WireProtocolError"]
