"""Plugin checks under pytest-xdist (pytest_toolconformance/plugins/workers.py): with ``-n 2`` each
plugin is loaded once for collection, not once per worker, and the report is the one a single
process writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_toolconformance import confinement
from tests.paths import PLUGINS

#: A Python plugin that logs each of its loads, and whether a test was running (pytest sets
#: PYTEST_CURRENT_TEST for a test's setup, call and teardown, not during collection; the test lets it
#: through to the plugin's process, and lets it write its log outside its workspace), with its process:
#: a check's fresh instance registers again in the same process, which is no new load. Each copy has
#: its own tool name.
COUNTING = """
import os
from reference_host import define_tool, text_result
from reference_host.typebox import Type
from tests.paths import PLUGINS

async def _execute(_call_id, params):
    return text_result(str(params.get("value")))

def register(ctx):
    with open({log!r}, "a") as log:
        log.write("{name} " + ("run" if os.environ.get("PYTEST_CURRENT_TEST") else "collect") + f" {{os.getpid()}}\\n")
    ctx.register_tool(define_tool(name="Echo{name}", label="Echo", description="Returns the supplied text.",
                                  parameters=Type.Object({{"value": Type.String(description="Text to return.")}}),
                                  execute=_execute))
"""


def _plugins(folder: Path, log: Path, count: int) -> list[str]:
    names = []
    for index in range(count):
        name = f"p{index}"
        (folder / f"{name}.py").write_text(COUNTING.format(log=str(log), name=name))
        names.append(f"{name}.py")
    return names


def _loads(log: Path) -> list[tuple[str, str]]:
    """(plugin, phase) of each process that loaded a plugin: its first register, not a fresh instance's."""
    first: dict[tuple[str, str], str] = {}
    for name, phase, pid in (line.split() for line in log.read_text().splitlines()):
        first.setdefault((name, pid), phase)
    return [(name, phase) for (name, _pid), phase in first.items()]


def _report(result_path: Path) -> dict[str, object]:
    data = json.loads(result_path.read_text())
    # What a verdict is: the plugins, each rule's outcome, the summary; not the run's own metadata.
    return {key: data[key] for key in ("plugins", "rules", "summary", "ok", "why")}


def test_two_workers_load_each_plugin_once_for_collection_and_report_as_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # this test's own, which the inner runs would inherit
    # The log is the plugin's write outside its workspace: what is counted here is loads, not confinement.
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    monkeypatch.setenv(confinement.PASS_ENV_ENV, "PYTEST_CURRENT_TEST")
    log = pytester.path / "loads.log"
    names = _plugins(pytester.path, log, 4)
    broken = PLUGINS / "python" / "broken_err_3.py"
    args = [
        *(f"--toolconformance-plugin={n}" for n in names),
        f"--toolconformance-plugin={broken}",
        "--toolconformance-max-examples=3",
        "-p",
        "no:cacheprovider",
        "--toolconformance-allow-unconfined",
    ]

    serial = pytester.runpytest_subprocess(*args, f"--toolconformance-report={pytester.path / 'serial.json'}")
    assert serial.ret == 1, serial.stdout.str()  # broken_err_3 has its finding
    serial_loads = [f"{name} {phase}" for name, phase in _loads(log)]
    log.unlink()

    parallel = pytester.runpytest_subprocess(*args, "-n", "2", f"--toolconformance-report={pytester.path / 'n2.json'}")
    assert parallel.ret == 1, parallel.stdout.str()
    lines = _loads(log)

    assert _report(pytester.path / "n2.json") == _report(pytester.path / "serial.json")
    assert sorted(serial_loads) == sorted(f"p{i} collect" for i in range(4)), serial_loads
    # Collection lists each plugin once across both workers; a worker that runs the checks of a
    # plugin the other one listed loads it again, when its checks begin.
    assert sorted(name for name, phase in lines if phase == "collect") == sorted(f"p{i}" for i in range(4)), lines
    assert all(phase in ("collect", "run") for _, phase in lines), lines
