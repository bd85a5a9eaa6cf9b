"""The kit's one child-process supervisor (``pytest_toolconformance.supervisor``), on real processes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_toolconformance import confinement, supervisor
from pytest_toolconformance.confinement import Sandbox
from pytest_toolconformance.supervisor import LineProcess, ProcessFault, Tail
from tests.kit.line_processes import python, soon

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups and poll")

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line); sys.stdout.flush()\n"


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_a_line_goes_out_and_comes_back(started: list[LineProcess]) -> None:
    process = python(started, ECHO)
    for text in (b'{"a": 1}\n', b"x" * 200_000 + b"\n"):
        process.send(text, soon())
        assert process.read_line(soon()) == text


def test_no_line_by_the_deadline_is_a_timeout(started: list[LineProcess]) -> None:
    process = python(started, "import time; time.sleep(60)")
    with pytest.raises(ProcessFault) as info:
        process.read_line(time.monotonic() + 0.2)
    assert info.value.kind == "timeout"
    assert process.alive()


def test_an_exit_is_noticed_with_the_partial_line_and_the_status(started: list[LineProcess]) -> None:
    process = python(started, "import sys; sys.stdout.write('half'); sys.stdout.flush(); sys.exit(3)")
    with pytest.raises(ProcessFault) as info:
        process.read_line(soon())
    assert info.value.kind == "exited" and info.value.line == b"half"
    assert "(exit status 3)" in info.value.detail
    with pytest.raises(ProcessFault) as sent:
        process.send(b"more\n", soon())
    assert sent.value.kind == "exited"


def test_a_line_without_end_is_too_long(started: list[LineProcess], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervisor, "MAX_LINE", 1000)
    process = python(started, "import sys, time; sys.stdout.write('y' * 5000); sys.stdout.flush(); time.sleep(60)")
    with pytest.raises(ProcessFault) as info:
        process.read_line(soon())
    assert info.value.kind == "too-long"


def test_the_stderr_tail_keeps_the_last_bytes(started: list[LineProcess]) -> None:
    process = python(
        started, "import sys\nfor i in range(2000): sys.stderr.write(f'line {i}\\n')\nprint('done')", stderr_limit=100
    )
    assert process.read_line(soon()) == b"done\n"
    process.close(grace=2)
    tail = process.stderr_tail()
    assert tail.endswith("line 1999\n") and "line 0\n" not in tail
    assert len(tail.encode()) <= 100 and process.tail.truncated


def test_restart_gives_a_fresh_process(started: list[LineProcess]) -> None:
    process = python(started, ECHO)
    fresh = process.restart()
    started.append(fresh)
    assert not process.alive() and fresh.alive() and fresh.pid != process.pid
    fresh.send(b"again\n", soon())
    assert fresh.read_line(soon()) == b"again\n"


DETACH = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True, "
    "stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(child.pid, flush=True)\n"
    "sys.stdin.read()\n"
)


def test_close_ends_a_child_that_left_the_process_group(started: list[LineProcess]) -> None:
    process = python(started, DETACH)
    child = int(process.read_line(soon()))
    assert pid_alive(child)
    process.close()
    deadline = soon()
    while pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not pid_alive(child)


def test_close_in_a_sandbox_ends_everything_in_its_namespace(started: list[LineProcess], tmp_path: Path) -> None:
    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    marker = f"sleeper-{os.getpid()}-{time.monotonic_ns()}"
    code = (
        "import subprocess, sys\n"
        f"subprocess.Popen(['sh', '-c', 'exec -a {marker} sleep 300'], start_new_session=True)\n"
        "print('ok', flush=True)\nsys.stdin.read()\n"
    )
    process = python(started, code, sandbox=Sandbox([str(tmp_path)], str(tmp_path), str(tmp_path)))
    assert process.read_line(soon()) == b"ok\n"

    def running() -> bool:
        return any(
            marker.encode() in Path(f"/proc/{e}/cmdline").read_bytes()
            for e in os.listdir("/proc")
            if e.isdigit() and pid_alive(int(e)) and os.path.exists(f"/proc/{e}/cmdline")
        )

    deadline = soon()
    while not running() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running()
    process.close()
    assert not running()


KIT = """
import sys, tempfile
import time
from pytest_toolconformance.confinement import Sandbox
from pytest_toolconformance.supervisor import LineProcess
sandbox = None
if sys.argv[1] == "sandbox":
    work = tempfile.mkdtemp()
    sandbox = Sandbox([work], work, work)
process = LineProcess([sys.executable, "-c", "import sys, time; print('up', flush=True); time.sleep(300)"],
                      sandbox=sandbox)
process.read_line(time.monotonic() + 30)
print(process.pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("confined", ["sandbox", "plain"])
def test_a_kit_killed_outright_leaves_no_child_behind(confined: str) -> None:
    """SIGKILL (a CI runner's timeout) runs no finalizer; the kernel's parent-death signal ends the child."""
    if confined == "sandbox" and not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    import subprocess

    kit = subprocess.Popen([sys.executable, "-c", KIT, confined], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert kit.stdout is not None
        child = int(kit.stdout.readline())
        assert pid_alive(child)
        kit.kill()
        kit.wait(timeout=30)
        deadline = soon()
        while pid_alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not pid_alive(child), f"child {child} outlived the killed kit"
    finally:
        kit.kill()


#: How Ctrl-C's SIGINT reaches the kit: to the process (the kernel picks a thread), or for certain to
#: another thread than the one reading, which the read must notice all the same.
_DELIVERIES = {
    "to the process": lambda: os.kill(os.getpid(), signal.SIGINT),
    "to another thread": lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT),
}


@pytest.mark.parametrize("delivery", list(_DELIVERIES))
def test_the_supervisor_lets_keyboard_interrupt_through(started: list[LineProcess], delivery: str) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    process = python(started, "import time; time.sleep(60)")
    timer = threading.Timer(0.3, _DELIVERIES[delivery])  # the timer's own thread sends it
    timer.start()
    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            process.read_line(soon(50))
    finally:
        timer.cancel()
    assert time.monotonic() - began < 30, "the read went on to its deadline"


def test_a_tail_leaves_out_unshares_words_about_the_kits_kill_however_they_were_read() -> None:
    # Seen in a user's finding: "Node stderr: unshare: sigprocmask unblock failed: Invalid argument",
    # which is util-linux's unshare on the kit's kill, nothing the plugin wrote.
    tail = Tail(4096)
    for chunk in (
        b"Error: Cannot find module 'x'\nunshare: sigprocmask unbl",
        b"ock failed: Invalid argument\n",
        b"the plugin's last line\nunshare: sigprocmask unblock failed: Invalid argument",
    ):
        tail.add(chunk)
    assert tail.text() == "Error: Cannot find module 'x'\nthe plugin's last line\n"


def test_the_process_layer_and_its_clients_import_only_downward() -> None:
    """The supervisor knows a sandbox by its type alone, confinement nothing of the kit, and neither
    protocol client nor its connection reaches back up to the package face (``import pytest_toolconformance``)."""
    from tests.kit.test_import_cycles import PACKAGES, REPO, import_graph, modules_under

    graph = import_graph(modules_under(REPO, PACKAGES))
    assert graph["pytest_toolconformance.supervisor"] <= {"pytest_toolconformance.confinement"}
    assert not {t for t in graph["pytest_toolconformance.confinement"] if t.startswith("pytest_toolconformance")}
    for side in (
        "pytest_toolconformance.host.wire.client",
        "pytest_toolconformance.host.wire.connection",
        "pytest_toolconformance.plugins.loaders.bridged",
        "pytest_toolconformance.plugins.loaders.bridge_connection",
        "pytest_toolconformance.plugins.loaders.bridge_notes",
    ):
        assert "pytest_toolconformance" not in graph[side], side
    # Each client's process is the supervisor's, through its connection.
    for connection in ("host.wire.connection", "plugins.loaders.bridge_connection"):
        assert "pytest_toolconformance.supervisor" in graph[f"pytest_toolconformance.{connection}"], connection
