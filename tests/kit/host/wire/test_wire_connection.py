"""The connection to one wire host process (``host/wire/connection.py``), on real processes."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator

import pytest

from pytest_toolconformance.host.wire import protocol
from pytest_toolconformance.host.wire.connection import STDERR_TAIL_BYTES, ProcessFault, WireConnection

REFERENCE = [sys.executable, "-m", "pytest_toolconformance.host.wire.reference_server"]


def soon(seconds: float = 30.0) -> float:
    return time.monotonic() + seconds


@pytest.fixture
def opened() -> Iterator[list[WireConnection]]:
    made: list[WireConnection] = []
    yield made
    for connection in made:
        connection.stop()


def start(opened: list[WireConnection], argv: list[str]) -> WireConnection:
    opened.append(WireConnection(argv))
    return opened[-1]


def test_requests_are_numbered_and_answered_line_for_line(opened: list[WireConnection]) -> None:
    connection = start(opened, REFERENCE)
    hello = {"protocol": protocol.PROTOCOL_VERSION, "kit": "test", "timeout": 10}
    answers = []
    for method, params in (("hello", hello), ("reset", {}), ("stop", {})):
        seq = connection.take_seq()
        line = protocol.encode({"seq": seq, "method": method, "params": params})
        answers.append(json.loads(connection.request(line, soon())))
    assert [a["seq"] for a in answers] == [0, 1, 2]
    assert answers[0]["result"]["name"] == "reference-host" and answers[1] == {"seq": 1, "result": {}}
    connection.stop(grace=10)
    assert connection.exit_code == 0  # it left by itself once asked to stop, nothing killed it


def test_no_answer_by_the_deadline_is_a_timeout_and_stop_ends_the_host(opened: list[WireConnection]) -> None:
    connection = start(opened, [sys.executable, "-c", "import time; time.sleep(300)"])
    with pytest.raises(ProcessFault) as caught:
        connection.request(b'{"seq":0,"method":"hello","params":{}}\n', time.monotonic() + 0.3)
    assert caught.value.kind == "timeout" and connection.alive()
    assert connection.status_text() == "(still running)"
    connection.stop()
    assert not connection.alive() and connection.status_text() == "(killed by signal SIGKILL)"


def test_a_host_that_exits_is_said_with_its_status_and_the_tail_of_its_stderr(opened: list[WireConnection]) -> None:
    code = "import sys\nfor i in range(2000): sys.stderr.write(f'host line {i}\\n')\nsys.stderr.flush(); sys.exit(3)\n"
    connection = start(opened, [sys.executable, "-c", code])
    with pytest.raises(ProcessFault) as caught:
        connection.request(b'{"seq":0,"method":"hello","params":{}}\n', soon())
    assert caught.value.kind == "exited" and "(exit status 3)" in caught.value.detail
    assert connection.wait(10) == 3
    connection.stop()
    tail = connection.stderr_tail()
    # The last bytes only, marked as a tail, cut at a line's start.
    assert tail.startswith("...host line ") and tail.endswith("host line 1999\n")
    assert len(tail.encode()) <= STDERR_TAIL_BYTES + 3 and "host line 0\n" not in tail
