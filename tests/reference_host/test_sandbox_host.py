"""The reference host around its sandbox: which directory a session gets, and access read at each
operation: ACCESS-5, ACCESS-6, ACCESS-8, PLANFILE-1, PLANFILE-2, REG-2, CAP-1."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reference_host import Host, define_tool, text_result

ACCOUNT = "acct-1"


def _plan_session(host: Host, root: Path | None = None) -> Any:
    spec = {"identity": {"userId": "u1", "accountUserId": ACCOUNT}, "projectId": "p1", "conversation": "managed",
            "mode": "plan"}
    if root is not None:
        spec["sandboxRoot"] = str(root)
    return host.open_session(spec)


@pytest.fixture
def host() -> Iterator[Host]:
    h = Host()
    h.set_policy(ACCOUNT, {"projectIds": ["p1"]})
    yield h
    h.close()


# ----------------------------------------------------------- one sandbox per directory, not per string


def test_access8_a_retargeted_ancestor_link_gets_the_new_directory(tmp_path: Path, host: Host) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "root").mkdir(parents=True)
    (second / "root").mkdir(parents=True)
    via = tmp_path / "via"
    os.symlink(first, via)
    root = via / "root"
    old = host.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(root)})
    assert old.sandbox_op({"kind": "write", "path": "/workspace/a.txt", "content": "old"}).admitted
    os.unlink(via)
    os.symlink(second, via)
    new = host.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(root)})
    assert new.sandbox_op({"kind": "write", "path": "/workspace/a.txt", "content": "new"}).admitted
    assert (first / "root" / "a.txt").read_text() == "old"
    assert (second / "root" / "a.txt").read_text() == "new", "the new session kept the old directory"
    assert new.sandbox() is not old.sandbox()
    # The session opened before the retargeting goes on in the directory it opened.
    assert old.sandbox_op({"kind": "write", "path": "/workspace/b.txt", "content": "still old"}).admitted
    assert (first / "root" / "b.txt").read_text() == "still old"


def test_access6_two_spellings_of_one_directory_share_one_queue(tmp_path: Path, host: Host) -> None:
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "root", tmp_path / "alias")
    a = host.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(tmp_path / "root")})
    b = host.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(tmp_path / "alias")})
    assert a.sandbox() is b.sandbox()
    assert a.file_tools().queue is b.file_tools().queue


# ------------------------------------------------------------------- a revoked Project's plan file


def test_planfile1_revoking_the_project_withdraws_the_plan_file(host: Host) -> None:
    session = _plan_session(host)
    plan = session.current_access().as_dict()["planFile"]
    assert session.sandbox_op({"kind": "write", "path": plan, "content": "before"}).admitted
    host.set_policy(ACCOUNT, {"projectIds": []})
    assert "planFile" not in session.current_access().as_dict()
    result = session.sandbox_op({"kind": "write", "path": plan, "content": "after"})
    assert not result.admitted and result.rule == "PLANFILE-2", result.reason
    assert (session.sandbox_root() / plan.removeprefix("/workspace/")).read_text() == "before"


def test_access6_a_queued_plan_write_does_not_run_after_the_project_is_revoked(host: Host) -> None:
    session = _plan_session(host)
    plan = session.current_access().as_dict()["planFile"]
    session.queue_call("Write", {"file_path": plan, "content": "queued"})
    host.set_policy(ACCOUNT, {"projectIds": []})
    [outcome] = session.run_queued()
    assert outcome.refusal is not None and outcome.refusal["rule"] == "PLANFILE-2", outcome.as_dict()
    assert not (session.sandbox_root() / plan.removeprefix("/workspace/")).exists()


def test_access6_revocation_between_queued_entries(host: Host) -> None:
    """The first entry runs under the access it finds; a revocation queued between the two entries
    refuses the second, and only the first one's bytes are in the plan file."""
    session = _plan_session(host)
    plan = session.current_access().as_dict()["planFile"]
    session.queue_call("Write", {"file_path": plan, "content": "first"})

    def revoke() -> dict:
        host.set_policy(ACCOUNT, {"projectIds": []})
        return {"ok": True, "text": "revoked"}

    session.file_tools().queue.enqueue(revoke, label="revoke")
    session.queue_call("Write", {"file_path": plan, "content": "second"})
    first, second = session.run_queued()
    assert first.refusal is None, first.as_dict()
    assert second.refusal is not None and second.refusal["rule"] == "PLANFILE-2", second.as_dict()
    assert (session.sandbox_root() / plan.removeprefix("/workspace/")).read_text() == "first"


def test_planfile1_a_regrant_after_revocation_does_not_widen_past_the_ceiling(host: Host) -> None:
    session = _plan_session(host)
    host.set_policy(ACCOUNT, {"projectIds": []})
    assert "planFile" not in session.current_access().as_dict()
    host.set_policy(ACCOUNT, {"projectIds": ["p1"]})  # back within the captured ceiling
    assert "planFile" in session.current_access().as_dict()


def test_planfile1_a_project_never_in_scope_keeps_its_minted_plan_file() -> None:
    """Nothing was revoked when the account never had the Project in its policy."""
    h = Host()
    try:
        assert "planFile" in _plan_session(h).current_access().as_dict()
    finally:
        h.close()


# ------------------------------------------------------------------ external tools and descriptions


def _echo(call_id: str, params: dict) -> dict:
    return text_result("ok")


def test_cap1_an_external_tool_with_an_empty_description_is_accepted_and_capped(host: Host) -> None:
    external = define_tool(name="mcp__srv__t", label="t", description="", parameters={"type": "object"},
                           execute=_echo)

    class Plugin:
        @staticmethod
        def register(ctx: object) -> None:
            ctx.register_tool(external, external=True)

    report = host.install_plugin(Plugin, name="ext")
    assert report.refused == [] and "mcp__srv__t" in report.accepted


def test_reg2_an_internal_tool_with_an_empty_description_is_refused_at_registration(host: Host) -> None:
    internal = define_tool(name="local", label="local", description="",
                           parameters={"type": "object", "properties": {}}, execute=_echo)

    class Plugin:
        @staticmethod
        def register(ctx: object) -> None:
            ctx.register_tool(internal)

    report = host.install_plugin(Plugin, name="loc")
    assert [r.rule for r in report.refused] == ["REG-2"]
    assert "description" in report.refused[0].message


# ----------------------------------------------------------- the temporary roots the host made


def test_closing_the_host_removes_the_temporary_roots_it_made_and_no_named_one(tmp_path: Path) -> None:
    # Every session without a sandboxRoot gets a temporary root; a run opens thousands of them, so one
    # left behind per session filled the machine's temporary folder (261,406 empty folders in a day).
    host = Host()
    named = tmp_path / "named"
    named.mkdir()
    made = []
    for _ in range(3):
        session = host.open_session({"identity": {"userId": "u1"}})
        assert session.sandbox_op({"kind": "write", "path": "/workspace/a.txt", "content": "x"}).admitted
        made.append(session.sandbox().root)
    kept = host.open_session({"identity": {"userId": "u1"}, "sandboxRoot": str(named)})
    assert kept.sandbox_op({"kind": "write", "path": "/workspace/b.txt", "content": "y"}).admitted
    assert all(root.is_dir() for root in made)
    host.close()
    assert [root for root in made if root.exists()] == []
    assert (named / "b.txt").read_text() == "y", "a root the spec named is the caller's, never removed"
