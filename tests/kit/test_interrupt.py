"""Ctrl-C in the middle of a Node plugin call stops the run and ends the plugin's whole tree.

A real pytest run of the kit checks ``tests/subjects/plugins/attacks/interrupt``, whose tool call hangs
(node blocked on a child process, or a promise that never settles after a detached child). Once
that child is running (the call is in flight), the test sends SIGINT to the run's process group,
as a terminal does on Ctrl-C, and then reads the process table and the run's output.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_toolconformance import confinement
from pytest_toolconformance.plugins.loaders.node import node_available
from pytest_toolconformance.suites.plugin import PLUGIN_SUITES_DIR
from tests.paths import PLUGINS

PLUGIN = PLUGINS / "attacks" / "interrupt"
#: Far above anything a stopped run takes: the run ends by the interrupt, never by this deadline.
CALL_TIMEOUT = 120

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="needs Node.js"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def _carrying(token: str) -> list[str]:
    """Live processes whose argv or environment carries ``token`` (the bridge gets it through
    TOOLCONFORMANCE_PASS_ENV, everything the plugin starts through its argv)."""
    found = []
    needle = token.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if stat[stat.rfind(")") + 2] == "Z":
                continue  # a zombie has ended; it only waits to be reaped
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in cmdline or needle in environ:
            found.append(f"{entry}: {cmdline[:120]!r}")
    return found


def _in_call(token: str) -> bool:
    """The hanging call's child runs (its argv names the token; the bridge's only its environment)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if token.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False


@pytest.mark.parametrize("namespaces", ["isolated", "forced off"])
@pytest.mark.parametrize("tool", ["Blocked", "Pending"])
def test_ctrl_c_during_a_plugin_call_stops_the_run(tool: str, namespaces: str, tmp_path: Path) -> None:
    if namespaces == "isolated" and not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    token = f"tc-interrupt-{secrets.token_hex(6)}"
    passed = {confinement.PASS_ENV_ENV: "ATTACK_TOKEN,ATTACK_ONLY"}
    env = {**os.environ, "ATTACK_TOKEN": token, "ATTACK_ONLY": tool, **passed}
    if namespaces == "forced off":
        env[confinement.NO_NAMESPACES_ENV] = "1"
    report = tmp_path / "report.json"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--toolconformance",
            f"--toolconformance-plugin={PLUGIN}",
            f"--toolconformance-timeout={CALL_TIMEOUT}",
            f"--toolconformance-report={report}",
            "-x",
            str(PLUGIN_SUITES_DIR),
            *(["--toolconformance-allow-unconfined"] if namespaces == "forced off" else []),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own foreground group, as in a terminal
    )
    try:
        deadline = time.monotonic() + 120
        while not _in_call(token):
            assert run.poll() is None, f"the run ended before the call: {run.communicate()[0][-3000:]}"
            assert time.monotonic() < deadline, "the hanging call never started"
            time.sleep(0.05)
        interrupted = time.monotonic()
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C
        try:
            output, _ = run.communicate(timeout=CALL_TIMEOUT / 2)
        except subprocess.TimeoutExpired:
            # pytest's faulthandler prints every thread's stack on SIGABRT: where the run hangs.
            run.send_signal(signal.SIGABRT)
            pytest.fail("the run did not stop after Ctrl-C:\n" + run.communicate(timeout=30)[0][-12000:])
        stopped_after = time.monotonic() - interrupted
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    print(f"{tool}/{namespaces}: the run stopped {stopped_after:.2f} s after Ctrl-C")
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    assert "KeyboardInterrupt" in output
    # It ends on what it stopped, not on a frame of Python's threading module.
    assert f"KeyboardInterrupt: stopped during a call of tool {tool} of plugin interrupt" in output, output[-3000:]
    assert "threading.py" not in output, output[-3000:]
    assert "FlakyFailure" not in output and "Flaky" not in output, output[-3000:]
    assert "FAILED" not in output, "an interrupted call became a finding:\n" + output[-3000:]
    left = _carrying(token)
    for line in left:  # a failing test still leaves nothing behind
        try:
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
        except OSError:
            pass
    assert left == [], "processes of the plugin outlived the run"
