"""What confines a plugin's process (``pytest_toolconformance.confinement``): the policy and the
namespace sandbox, on real processes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_toolconformance import confinement
from pytest_toolconformance.confinement import ConfinementPolicy, Sandbox
from pytest_toolconformance.supervisor import LineProcess
from tests.kit.line_processes import python, soon

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups and poll")


def test_a_sandbox_writes_only_its_workspace_and_gets_a_scrubbed_environment(
    started: list[LineProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    monkeypatch.setenv("TC_SECRET", "hunter2")
    monkeypatch.setenv("TC_WANTED", "yes")
    monkeypatch.setenv(confinement.PASS_ENV_ENV, "TC_WANTED")
    code = (
        "import os, json\n"
        "def attempt(path):\n"
        "    try:\n        open(path, 'w').write('x'); return 'wrote'\n"
        "    except OSError as e:\n        return e.strerror\n"
        f"print(json.dumps([attempt({str(workspace / 'in.txt')!r}), attempt({str(outside / 'out.txt')!r}),"
        " os.environ.get('TC_SECRET'), os.environ.get('TC_WANTED'), os.environ['HOME']]), flush=True)\n"
    )
    sandbox = Sandbox([str(workspace)], home=str(workspace), tmp=str(workspace))
    process = python(started, code, sandbox=sandbox)
    line = process.read_line(soon()).decode()
    wrote, outside_write, secret, wanted, home = json.loads(line)
    # Outside its workspace the folder is out of sight (a masked /tmp) or read-only: either way, not written.
    assert (wrote, secret, wanted, home) == ("wrote", None, "yes", str(workspace))
    assert outside_write in ("No such file or directory", "Read-only file system")
    assert not (outside / "out.txt").exists()


def test_in_a_masked_folder_a_sandbox_sees_only_what_it_is_shown(started: list[LineProcess], tmp_path: Path) -> None:
    if not confinement.current().isolated:
        pytest.skip(f"no namespaces here ({confinement.current().reason})")
    workspace, shown, hidden = tmp_path / "ws", tmp_path / "plugin", tmp_path / "repository"
    for folder in (workspace, shown, hidden):
        folder.mkdir()
    (shown / "module.txt").write_text("shown")
    (hidden / "notes.txt").write_text("hidden")
    code = (
        "import os, json\n"
        "def read(path):\n"
        "    try:\n        return open(path).read()\n"
        "    except OSError as e:\n        return e.strerror\n"
        f"print(json.dumps([read({str(shown / 'module.txt')!r}), read({str(hidden / 'notes.txt')!r}),"
        f" sorted(os.listdir({str(tmp_path)!r})), os.listdir('/run'), os.path.exists(os.path.expanduser('~root'))]),"
        " flush=True)\n"
    )
    sandbox = Sandbox([str(workspace)], home=str(workspace), tmp=str(workspace), visible=[str(shown)])
    process = python(started, code, sandbox=sandbox)
    module, notes, listing, run, _ = json.loads(process.read_line(soon()).decode())
    assert module == "shown" and notes == "No such file or directory"
    assert listing == ["plugin", "ws"]  # the folder holds only what was shown and the workspace
    assert run == []  # /run (sockets of session buses, container runtimes) is an empty folder


def test_the_masked_places_are_the_outermost_existing_folders(tmp_path: Path) -> None:
    inner = tmp_path / "repo" / "sub"
    inner.mkdir(parents=True)
    places = confinement.masked_places([str(tmp_path / "repo"), str(inner), str(tmp_path / "missing")])
    assert os.path.realpath("/tmp") in places and os.path.realpath("/run") in places
    # Folders inside another masked one are covered with it; a missing one is left out.
    assert str(tmp_path / "repo") not in places and str(tmp_path / "missing") not in places
    assert all(not (a != b and a.startswith(b.rstrip("/") + "/")) for a in places for b in places)


def test_forcing_namespaces_off_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    summary = confinement.summary()
    assert summary["network"] == confinement.NETWORK_GUARD_ONLY
    assert summary["filesystem"].startswith("not confined")
    assert f"{confinement.NO_NAMESPACES_ENV} is set" in summary["reason"]
    assert any("network: in-process guard only" in line for line in confinement.header())


def test_named_variables_pass_through_and_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TC_FROM_ENV", "1")
    monkeypatch.setenv("TC_FROM_OPTION", "2")
    monkeypatch.setenv("TC_OTHER", "3")
    monkeypatch.setenv(confinement.PASS_ENV_ENV, "TC_FROM_ENV")
    confinement.set_pass_env(["TC_FROM_OPTION,TC_MISSING"])
    try:
        env = confinement.scrubbed_env("/h", "/t")
    finally:
        confinement.set_pass_env([])
    assert env["TC_FROM_ENV"] == "1" and env["TC_FROM_OPTION"] == "2"
    assert "TC_OTHER" not in env and "TC_MISSING" not in env
    assert {env["HOME"], env["TMPDIR"], env["LC_ALL"]} == {"/h", "/t", "C.UTF-8"}


def test_the_policy_keeps_its_state_in_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two policies do not share what they were told or found: the run's is :data:`confinement.POLICY`."""
    monkeypatch.delenv(confinement.PASS_ENV_ENV, raising=False)
    monkeypatch.setenv(confinement.NO_NAMESPACES_ENV, "1")
    mine = ConfinementPolicy()
    mine.set_pass_env(["TC_A, TC_B", "TC_A"])
    assert mine.passed_env_names() == ["TC_A", "TC_B"]
    assert "TC_A" not in confinement.passed_env_names()
    found = mine.current()
    assert not found.isolated and found.reason == f"{confinement.NO_NAMESPACES_ENV} is set"
    assert mine.current() is found  # probed once per value of the opt-out variable
