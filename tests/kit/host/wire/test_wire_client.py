"""The wire client and the reference wire host, one behaviour at a time."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import sys
import textwrap
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_toolconformance.host.connect import HostSpecError, load_host
from pytest_toolconformance.host.contract import CAPABILITIES
from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.wire import protocol, reference_server
from pytest_toolconformance.host.wire.client import WireHostAdapter, WireHostUnusable, WireHostWarning
from pytest_toolconformance.host.wire.connection import ProcessFault, WireConnection
from pytest_toolconformance.host.wire.errors import WireProtocolError
from pytest_toolconformance.options import DEFAULT_TIMEOUT
from reference_host import facade
from tests.paths import WIRE_HOSTS

HOSTS = WIRE_HOSTS
REFERENCE = [sys.executable, "-m", "pytest_toolconformance.host.wire.reference_server"]

ECHO_PLUGIN: dict[str, Any] = {
    "name": "demo",
    "manifest": {"name": "demo", "provides": {"tools": ["Echo"], "readOnlyTools": ["Echo"]}},
    "tools": [
        {
            "name": "Echo",
            "label": "Echo",
            "description": "Echoes.",
            "parameters": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
            "handler": [{"op": "access"}, {"op": "echo"}],
        }
    ],
}


@pytest.fixture
def reference() -> Iterator[WireHostAdapter]:
    adapter = WireHostAdapter(REFERENCE, timeout=10)
    adapter.transcript = []
    yield adapter
    adapter.close()


def script_host(tmp_path: Path, hello: dict[str, Any], handlers: str = "") -> list[str]:
    """A small host written for one test: answers hello with ``hello``, reset and stop with ``{}``,
    and other methods through ``handlers`` (Python statements that set ``out`` from ``req``)."""
    head = [
        "import json, sys, uuid",
        "sessions = {}",
        "for line in sys.stdin:",
        "    req = json.loads(line)",
        '    seq, method, params = req["seq"], req["method"], req["params"]',
        '    out = {"seq": seq, "result": {}}',
        '    if method == "hello":',
        f"        out['result'] = {hello!r}",
        '    elif method not in ("reset", "stop"):',
        '        out = {"seq": seq, "error": {"kind": "bad-request", "message": method}}',
    ]
    tail = [
        '    sys.stdout.write(json.dumps(out) + "\\n")',
        "    sys.stdout.flush()",
        '    if method == "stop":',
        "        break",
    ]
    body = textwrap.indent(textwrap.dedent(handlers).strip("\n"), " " * 4).splitlines()
    path = tmp_path / "host.py"
    path.write_text("\n".join(head + body + tail) + "\n", "utf-8")
    return [sys.executable, str(path)]


def connection_of(adapter: WireHostAdapter) -> WireConnection:
    connection = adapter._connection
    assert isinstance(connection, WireConnection), connection
    return connection


def kill(adapter: WireHostAdapter) -> None:
    """Kill the host process behind the kit's back, and wait until it is gone."""
    connection = connection_of(adapter)
    os.kill(connection.pid, signal.SIGKILL)
    connection.wait(10)


# -- the vocabulary ------------------------------------------------------------------------------------
def test_reference_host_declares_every_kit_capability() -> None:
    assert set(facade.CAPABILITIES) == set(CAPABILITIES)


def test_every_method_has_a_valid_schema_and_a_capability_rule() -> None:
    files = {p.stem for p in protocol.SCHEMAS_DIR.glob("*.json")}
    assert files == {*protocol.REQUESTS, "common"}
    for name in files:
        jsonschema.Draft202012Validator.check_schema(protocol.schema(name))
    for method in protocol.CONTRACT_METHODS:
        assert method == "reset" or method in protocol.METHOD_CAPABILITIES, method
    for needs in protocol.METHOD_CAPABILITIES.values():
        assert needs <= set(CAPABILITIES)


def test_exec_spec_gives_a_wire_adapter() -> None:
    adapter = load_host(f"exec:{shlex.join(REFERENCE)}", timeout=3)
    try:
        assert isinstance(adapter, WireHostAdapter)
        assert adapter.timeout == 3
        assert adapter.info()["name"] == "reference-host"
    finally:
        adapter.close()


def test_a_command_that_is_not_there_is_a_usage_error(pytester: pytest.Pytester) -> None:
    with pytest.raises(HostSpecError, match="no executable 'no-such-host-binary'"):
        WireHostAdapter("no-such-host-binary --flag")
    result = pytester.runpytest(
        "--toolconformance", "--toolconformance-host=exec:no-such-host-binary", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no executable 'no-such-host-binary'*"])


# -- the conversation ----------------------------------------------------------------------------------
def exercise(adapter: Any, root: Path) -> dict[str, Any]:
    """Every contract method once, the answers by name (session ids left out)."""
    adapter.reset()
    out: dict[str, Any] = {"install": adapter.install_plugin(ECHO_PLUGIN)}
    out["policy"] = adapter.set_policy("u1", {"pluginGrants": ["*"], "projectIds": ["p1"]})
    session = adapter.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(root)})["session"]
    out["bad-open"] = adapter.open_session({"identity": {"userId": "u1"}, "mode": "sideways"})
    out["compose"] = adapter.compose(session)
    out["call"] = adapter.call(session, "Echo", {"value": "hi"}, "c1")
    out["access"] = adapter.current_access(session)
    out["identity"] = adapter.current_identity(session)
    out["queue"] = sorted(adapter.queue_call(session, "Write", {"file_path": "/workspace/a.txt", "content": "x"}))
    out["run"] = [o["isError"] for o in adapter.run_queued(session)["outcomes"]]
    child = adapter.delegate(session, {"readOnly": True, "requested": {}})["session"]
    out["child-access"] = adapter.current_access(child)
    out["sandbox"] = adapter.sandbox(session, {"kind": "write", "path": "/workspace/b.txt", "content": "y"})
    out["unknown-session"] = adapter.compose("no-such-session")
    return out


def test_every_message_matches_its_schema(reference: WireHostAdapter, tmp_path: Path) -> None:
    exercise(reference, tmp_path)
    reference.close()
    assert reference.transcript
    sent = {}
    for side, line in reference.transcript:
        message = json.loads(line)
        if side == "kit":
            method = message["method"]
            sent[message["seq"]] = method
            jsonschema.validate(
                message,
                {"$ref": f"{protocol._BASE}{method}.json#/$defs/request"},
                cls=jsonschema.Draft202012Validator,
                registry=protocol.registry(),
            )
        else:
            method = sent[message["seq"]]
            problem = protocol.first_problem(method, "response", message)
            assert problem is None, (method, problem, message)
    assert set(sent.values()) == set(protocol.REQUESTS)


def test_answers_over_the_wire_equal_the_in_process_answers(reference: WireHostAdapter, tmp_path: Path) -> None:
    (tmp_path / "wire").mkdir()
    (tmp_path / "local").mkdir()
    wire = exercise(reference, tmp_path / "wire")
    local_adapter = ReferenceHostAdapter()
    try:
        local = exercise(local_adapter, tmp_path / "local")
    finally:
        local_adapter.close()
    # Session ids and the sandbox root differ between the two runs; everything else may not.
    for key in ("install", "policy", "bad-open", "compose", "call", "identity", "queue", "run", "sandbox"):
        assert wire[key] == local[key] or key in ("call", "bad-open", "unknown-session"), key
    assert wire["call"]["content"] == local["call"]["content"]
    assert wire["bad-open"]["error"]["kind"] == local["bad-open"]["error"]["kind"] == "spec"
    assert wire["unknown-session"]["error"]["kind"] == local["unknown-session"]["error"]["kind"]
    assert {k: v for k, v in wire["access"].items() if k != "principal"} == {
        k: v for k, v in local["access"].items() if k != "principal"
    }


def test_info_lists_only_declared_capabilities_and_unsupported_methods_are_never_sent(tmp_path: Path) -> None:
    hello = {"name": "tiny", "version": "1", "protocol": 1, "capabilities": ["registration", "teleport"]}
    adapter = WireHostAdapter(
        script_host(
            tmp_path,
            hello,
            """
        if method == "install_plugin":
            out = {"seq": seq, "result": {"plugin": "p", "accepted": [], "refused": [], "findings": []}}
    """,
        ),
        timeout=5,
    )
    adapter.transcript = []
    try:
        info = adapter.info()
        assert info["capabilities"] == ["registration"]
        assert info["ignoredCapabilities"] == ["teleport"]
        adapter.reset()
        assert adapter.install_plugin({"name": "p"})["accepted"] == []
        for answer in (
            adapter.open_session({"identity": {"userId": "u"}}),
            adapter.compose("s1"),
            adapter.call("s1", "Echo", {}),
            adapter.sandbox("s1", {"kind": "read", "path": "/x"}),
        ):
            assert answer["error"]["kind"] == "unsupported"
            assert "does not declare" in answer["error"]["message"]
        methods = [json.loads(line)["method"] for side, line in adapter.transcript if side == "kit"]
        assert methods == ["hello", "reset", "install_plugin"]
    finally:
        adapter.close()


def test_close_stops_the_host_politely(reference: WireHostAdapter) -> None:
    reference.reset()
    connection = connection_of(reference)
    reference.close()
    assert connection.wait(5) == 0
    assert json.loads(reference.transcript[-2][1])["method"] == "stop"  # type: ignore[index]


# -- robustness ------------------------------------------------------------------------------------------
def test_a_host_that_dies_between_requests_is_restarted_with_its_state(
    reference: WireHostAdapter, tmp_path: Path
) -> None:
    reference.reset()
    assert reference.install_plugin(ECHO_PLUGIN)["accepted"] == ["Echo"]
    reference.set_policy("u1", {"projectIds": ["p1", "p2"]})
    session = reference.open_session({"identity": {"userId": "u1"}})["session"]
    child = reference.delegate(session, {"readOnly": True, "requested": {}})["session"]
    before = (reference.compose(session), reference.current_access(child))
    kill(reference)
    with pytest.warns(WireHostWarning, match="exited between requests .*replaying 4 requests"):
        after = (reference.compose(session), reference.current_access(child))
    assert after == before
    assert reference.starts == 2
    assert reference.call(session, "Echo", {"value": "again"})["handlerRan"] is True


def test_session_ids_are_mapped_when_a_restarted_host_numbers_them_differently(tmp_path: Path) -> None:
    hello = {"name": "random-ids", "version": "1", "protocol": 1, "capabilities": ["composition"]}
    command = script_host(
        tmp_path,
        hello,
        """
        if method == "open_session":
            sid = uuid.uuid4().hex
            sessions[sid] = params["spec"]["identity"]["userId"]
            out = {"seq": seq, "result": {"session": sid}}
        elif method == "compose":
            out = {"seq": seq, "error": {"kind": "unknown-session", "message": params["session"]}}
            if params["session"] in sessions:
                payload = {"user": sessions[params["session"]]}
                out = {"seq": seq, "result": {"catalog": [], "tools": [], "payload": payload}}
    """,
    )
    adapter = WireHostAdapter(command, timeout=5)
    try:
        adapter.reset()
        first = adapter.open_session({"identity": {"userId": "ann"}})["session"]
        second = adapter.open_session({"identity": {"userId": "bob"}})["session"]
        kill(adapter)
        with pytest.warns(WireHostWarning):
            assert adapter.compose(first)["payload"] == {"user": "ann"}
        assert adapter.compose(second)["payload"] == {"user": "bob"}
        third = adapter.open_session({"identity": {"userId": "cy"}})["session"]
        assert len({first, second, third}) == 3
        assert adapter.compose(third)["payload"] == {"user": "cy"}
    finally:
        adapter.close()


def test_a_hanging_host_is_killed_at_the_timeout() -> None:
    # The kit's default bound: a smaller one would also bound the healthy reset before, which a busy
    # machine can take longer than half a second over.
    adapter = WireHostAdapter([sys.executable, str(HOSTS / "hang_host.py")], timeout=DEFAULT_TIMEOUT)
    try:
        adapter.reset()
        connection = connection_of(adapter)
        started = time.monotonic()
        with pytest.raises(WireProtocolError) as caught:
            adapter.open_session({"identity": {"userId": "u"}})
        assert time.monotonic() - started < DEFAULT_TIMEOUT + 15
        assert caught.value.fault == "timeout"
        assert f"no answer within {DEFAULT_TIMEOUT:g} s" in str(caught.value)
        assert "hang_host: hanging on open_session" in str(caught.value)
        assert connection.exit_code is not None
        adapter.reset()  # restarted
        assert adapter.starts == 2
    finally:
        adapter.close()


def test_a_crash_mid_request_is_reported_with_the_exit_status_and_stderr() -> None:
    adapter = WireHostAdapter([sys.executable, str(HOSTS / "crash_host.py")], timeout=5)
    try:
        for _ in range(30):
            adapter.reset()
        with pytest.raises(WireProtocolError) as caught:
            adapter.reset()
        text = str(caught.value)
        assert caught.value.fault == "exited"
        assert "exit status 3" in text and "crash_host: simulated crash on request 31 (reset)" in text
    finally:
        adapter.close()


def test_after_too_many_restarts_every_request_fails_fast_with_the_last_fault() -> None:
    adapter = WireHostAdapter([sys.executable, str(HOSTS / "noisy_host.py")], timeout=2, max_restarts=2)
    try:
        for attempt in range(3):
            with pytest.raises(WireProtocolError) as caught:
                adapter.reset()
            assert caught.value.fault == "not-json", attempt
            assert "'noisy_host 1.0 starting up, reading requests on stdin'" in str(caught.value)
            assert "before the handshake" in str(caught.value)
        started = time.monotonic()
        for _ in range(20):
            with pytest.raises(WireProtocolError) as caught:
                adapter.info()
        assert time.monotonic() - started < 0.5
        assert caught.value.fault == "gave-up"
        assert "at most 2 times" in str(caught.value) and "noisy_host 1.0" in str(caught.value)
        assert adapter.starts == 3
    finally:
        adapter.close()


def test_a_bad_answer_on_a_stream_in_step_keeps_the_process() -> None:
    adapter = WireHostAdapter([sys.executable, str(HOSTS / "schema_host.py")], timeout=5)
    try:
        adapter.reset()
        with pytest.raises(WireProtocolError) as caught:
            adapter.open_session({"identity": {"userId": "u"}})
        assert caught.value.fault == "schema"
        assert "at /session: 42 is not of type 'string'" in str(caught.value)
        assert """offending line: '{"seq":2,"result":{"session":42}}'""" in str(caught.value)
        # Until the next reset the kit sends nothing more: the host's state is unknown.
        with pytest.raises(WireHostUnusable, match="an earlier request of this check met this fault"):
            adapter.compose("s1")
        adapter.reset()
        assert adapter.starts == 1 and adapter.faults == 1
    finally:
        adapter.close()


@pytest.mark.parametrize(
    ("answer", "fault", "says"),
    [
        ({"name": "future", "version": "9", "protocol": 2, "capabilities": []}, "version", "answered protocol 2"),
        ({"name": "vague", "version": "1", "protocol": 1}, "schema", "'capabilities' is a required property"),
    ],
)
def test_a_bad_hello_is_reported(tmp_path: Path, answer: dict[str, Any], fault: str, says: str) -> None:
    adapter = WireHostAdapter(script_host(tmp_path, answer), timeout=5, max_restarts=0)
    try:
        with pytest.raises(WireProtocolError) as caught:
            adapter.reset()
        assert caught.value.fault == fault and says in str(caught.value)
        assert caught.value.method == "hello"
    finally:
        adapter.close()


def test_internal_errors_are_protocol_faults_and_contract_errors_are_answers(tmp_path: Path) -> None:
    hello = {"name": "grumpy", "version": "1", "protocol": 1, "capabilities": ["composition"]}
    adapter = WireHostAdapter(
        script_host(
            tmp_path,
            hello,
            """
        if method == "open_session":
            out = {"seq": seq, "error": {"kind": "spec", "message": "no", "rule": "PLANFILE-1"}}
        elif method == "compose":
            out = {"seq": seq, "error": {"kind": "internal", "message": "KeyError: 'tools'"}}
    """,
        ),
        timeout=5,
    )
    try:
        adapter.reset()
        assert adapter.open_session({})["error"] == {"kind": "spec", "message": "no", "rule": "PLANFILE-1"}
        with pytest.raises(
            WireProtocolError, match=r"failed internally \(request compose, seq 3\): internal: KeyError"
        ):
            adapter.compose("s1")
    finally:
        adapter.close()


# -- errored, not failed -----------------------------------------------------------------------------------
def test_protocol_faults_are_errors_and_broken_rules_are_failures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_outcomes="""
        import pytest
        from pytest_toolconformance.findings import Finding
        from pytest_toolconformance.host.wire.errors import WireProtocolError

        def test_protocol_fault():
            raise WireProtocolError("my-host", "wrong-seq", "the answer carries seq 4", method="compose", seq=3,
                                    line=b'{"seq":4}')

        def test_protocol_fault_in_a_group():
            raise ExceptionGroup("two", [ValueError("x"), WireProtocolError("my-host", "timeout", "slow")])

        def test_broken_rule():
            raise Finding("CAP-1", "a cut description", "an uncut one")
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rfE", "--junitxml=junit.xml")
    result.assert_outcomes(failed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at call of test_protocol_fault*",
            "FAILED test_outcomes.py::test_broken_rule - *",
            "ERROR test_outcomes.py::test_protocol_fault - *",
        ]
    )
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="toolconformance_errored" value="wire host' in junit


def test_line_separators_in_a_tools_text_survive_the_trip(reference: WireHostAdapter) -> None:
    """The kit writes U+2028 and U+2029 escaped (JSON allows it), so a reader that
    splits lines at them (Bun's readline) still gets one request a line; the text arrives intact."""
    text = "first\u2028second\u2029third"
    reference.reset()
    assert reference.install_plugin(ECHO_PLUGIN)["accepted"] == ["Echo"]
    session = reference.open_session({"identity": {"userId": "u1"}})["session"]
    answer = reference.call(session, "Echo", {"value": text}, "c1")
    assert answer["handlerRan"] is True and text in json.dumps(answer["content"], ensure_ascii=False)
    sent = [line for who, line in reference.transcript or [] if who == "kit" and b'"method":"call"' in line]
    assert sent and b"\\u2028" in sent[-1] and "\u2028".encode() not in sent[-1]


def test_a_request_is_given_time_for_the_catalog_the_host_holds(reference: WireHostAdapter) -> None:
    """One deadline served a one-tool call and a 3,000-tool composition alike
    (COST-1 errored at 20 s, passed at 60 s). A request now gets one timeout per 100 tools held."""
    from pytest_toolconformance.host.wire.client import TOOLS_PER_TIMEOUT

    reference.reset()
    assert reference.allowance("compose", {"session": "s"}) == reference.timeout
    tools = [
        {
            "name": f"t{i}",
            "label": "t",
            "description": "d",
            "parameters": {"type": "object", "properties": {}},
            "handler": [],
        }
        for i in range(250)
    ]
    assert reference.allowance("install_plugin", {"plugin": {"name": "big", "tools": tools}}) == pytest.approx(
        reference.timeout * (1 + 250 / TOOLS_PER_TIMEOUT)
    )
    assert reference.install_plugin({"name": "big", "tools": tools}).get("accepted")
    assert reference.allowance("compose", {"session": "s"}) == pytest.approx(reference.timeout * 3.5)
    reference.reset()
    assert reference.allowance("compose", {"session": "s"}) == reference.timeout


# -- the connection under the client -------------------------------------------------------------------
class InProcessReferenceServer:
    """A connection to the reference wire server run in this process: the same lines both ways, no process.

    Shaped like :class:`WireConnection` (``connection.Connection``), so the adapter cannot tell."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self._out = io.BytesIO()
        self.server = reference_server.Server(self._out)
        self._seq = 0
        self.stopped = False
        #: Set to ("method", fault kind) to answer that request with a fault, as a broken process would.
        self.fail_on: tuple[str, str] | None = None

    @property
    def pid(self) -> int:
        return 0

    def alive(self) -> bool:
        return not self.stopped

    def status_text(self) -> str:
        return "(stopped)" if self.stopped else "(still running)"

    def stderr_tail(self) -> str:
        return "in-process server: no stderr"

    def take_seq(self) -> int:
        seq, self._seq = self._seq, self._seq + 1
        return seq

    def request(self, line: bytes, deadline: float) -> bytes:
        if self.stopped:
            raise ProcessFault("exited", "it has stopped")
        if self.fail_on is not None and json.loads(line)["method"] == self.fail_on[0]:
            raise ProcessFault(self.fail_on[1], "")
        start = self._out.tell()
        if not self.server.handle(line):
            self.stopped = True
        return self._out.getvalue()[start:]

    def stop(self, grace: float = 0.0) -> None:
        self.server.close()
        self.stopped = True


def test_an_in_process_connection_stands_in_for_the_host_process(reference: WireHostAdapter, tmp_path: Path) -> None:
    (tmp_path / "process").mkdir()
    (tmp_path / "in-process").mkdir()
    made: list[InProcessReferenceServer] = []

    def connect(argv: Sequence[str], **where: Any) -> InProcessReferenceServer:
        made.append(InProcessReferenceServer(argv, **where))
        return made[-1]

    fake = WireHostAdapter(REFERENCE, timeout=10, connect=connect)
    fake.transcript = []
    try:
        served = exercise(fake, tmp_path / "in-process")
    finally:
        fake.close()
    over_a_process = exercise(reference, tmp_path / "process")
    assert len(made) == 1 and made[0].stopped and made[0].argv == REFERENCE
    for key in ("install", "policy", "compose", "identity", "queue", "run", "child-access"):
        assert served[key] == over_a_process[key], key
    assert served["call"]["content"] == over_a_process["call"]["content"]
    assert served["unknown-session"]["error"]["kind"] == over_a_process["unknown-session"]["error"]["kind"]

    def methods(transcript: list[tuple[str, bytes]] | None) -> list[str]:
        return [json.loads(line)["method"] for side, line in transcript or [] if side == "kit"]

    assert methods(fake.transcript) == [*methods(reference.transcript), "stop"]


def test_a_fault_of_the_connection_errors_the_request_and_the_next_check_gets_a_new_one() -> None:
    made: list[InProcessReferenceServer] = []

    def connect(argv: Sequence[str], **where: Any) -> InProcessReferenceServer:
        made.append(InProcessReferenceServer(argv, **where))
        if len(made) == 1:
            made[-1].fail_on = ("open_session", "timeout")
        return made[-1]

    adapter = WireHostAdapter(REFERENCE, timeout=1.5, connect=connect)
    try:
        adapter.reset()
        with pytest.raises(WireProtocolError) as caught:
            adapter.open_session({"identity": {"userId": "u"}})
        assert caught.value.fault == "timeout"
        assert "no answer within 1.5 s (--toolconformance-timeout); the kit killed it (pid 0)" in str(caught.value)
        assert "in-process server: no stderr" in str(caught.value)
        assert made[0].stopped and len(made) == 1
        with pytest.raises(WireHostUnusable):
            adapter.compose("s1")  # nothing more is sent in this check
        adapter.reset()
        assert len(made) == 2 and adapter.starts == 2 and adapter.faults == 1
        assert "session" in adapter.open_session({"identity": {"userId": "u"}})
    finally:
        adapter.close()
