"""Witnesses: each broken host below really behaves differently from the reference host on its rule's
sentence, shown through the adapter contract alone (no check of the kit's suites involved).

Every witness runs one small scenario against the reference host and against the mutant and asserts
that the reference host does what the rule's sentence says and the mutant does not. So a mutant the
suites miss is a gap in the suites, not a mutant that changes nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import install as _install
from tests.kit.suites.witnesses import session_of as _session
from tests.kit.suites.witnesses import text_of as _text
from tests.kit.suites.witnesses import tool_names as _tool_names

# -- class 2: identities ----------------------------------------------------------------------------


def test_scope_1_owner_user_id_names_the_account_not_the_user(hosts: Any) -> None:
    """SCOPE-1: ownerUserId scopes to one account; a user acting for that account sees the tool."""

    def listed(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(host, tool("AccountTool", ownerUserId="acct-1"), tool("UserTool", ownerUserId="u-1"))
        session = _session(host, {"identity": {"userId": "u-1"}, "account": "acct-1"})
        names = _tool_names(host, session)
        return "AccountTool" in names, "UserTool" in names

    reference, mutant = hosts("scope_1_owner_matched_to_user")
    assert listed(reference) == (True, False)
    assert listed(mutant) == (False, True)


def _plan_call_as(host: ReferenceHostAdapter, flag: str) -> bool:
    host.set_policy("boss", {flag: True})
    _install(host, tool("Mutator"))
    session = _session(host, {"identity": {"userId": "boss", flag: True}, "mode": "plan"})
    return host.call(session, "Mutator", {})["handlerRan"]


@pytest.mark.parametrize(
    ("mutant", "flag"), [("plan_2_admins_skip_plan_mode", "admin"), ("plan_2_owner_skips_plan_mode", "owner")]
)
def test_plan_2_binds_admins_and_owners(hosts: Any, mutant: str, flag: str) -> None:
    """PLAN-2: on a Plan turn a tool outside the read-only set is refused, whoever calls it."""
    reference, broken = hosts(mutant)
    assert _plan_call_as(reference, flag) is False
    assert _plan_call_as(broken, flag) is True


def test_grant_1_binds_admins(hosts: Any) -> None:
    """GRANT-1: the account's grant decides; an administrator without the grant is refused."""

    def ran(host: ReferenceHostAdapter) -> bool:
        host.set_policy("admin-1", {"admin": True, "pluginGrants": []})
        _install(host, tool("Granted"))
        session = _session(host, {"identity": {"userId": "admin-1", "admin": True}})
        return host.call(session, "Granted", {})["handlerRan"]

    reference, mutant = hosts("grant_1_admin_bypasses_grant")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_grant_1_reads_the_account_grant_not_the_user(hosts: Any) -> None:
    """GRANT-1: the *account's* plugin grant decides, also for a user acting for the account."""

    def ran(host: ReferenceHostAdapter) -> bool:
        host.set_policy("acct-1", {"pluginGrants": []})
        _install(host, tool("Granted"))
        session = _session(host, {"identity": {"userId": "u-1"}, "account": "acct-1"})
        return host.call(session, "Granted", {})["handlerRan"]

    reference, mutant = hosts("grant_1_grant_of_user")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_access_4_drops_a_revoked_admin(hosts: Any) -> None:
    """ACCESS-4: currentIdentity() drops captured admin privilege once live authority is revoked."""

    def admin_after_revocation(host: ReferenceHostAdapter) -> bool:
        host.set_policy("admin-1", {"admin": True})
        session = _session(host, {"identity": {"userId": "admin-1", "admin": True}})
        assert host.current_identity(session)["admin"] is True
        host.set_policy("admin-1", {"admin": False})
        return host.current_identity(session)["admin"]

    reference, mutant = hosts("access_4_identity_keeps_revoked_admin")
    assert admin_after_revocation(reference) is False
    assert admin_after_revocation(mutant) is True


def test_access_1_reads_the_account_policy_not_the_user(hosts: Any) -> None:
    """ACCESS-1: currentAccess() is the live policy (of the session's account) within the ceiling."""

    def access(host: ReferenceHostAdapter) -> tuple[bool, list[str]]:
        host.set_policy("acct-1", {"admin": True, "projectIds": ["p1"]})
        session = _session(host, {"identity": {"userId": "u-1"}, "account": "acct-1"})
        answer = host.current_access(session)
        return answer["admin"], answer["projectIds"]

    reference, mutant = hosts("access_1_policy_of_user")
    assert access(reference) == (True, ["p1"])
    assert access(mutant) == (False, [])


# -- class 3: tools, executors and turn kinds -------------------------------------------------------


def _narrowed(host: ReferenceHostAdapter) -> str:
    """A session whose live roots are /workspace/a only; /workspace/b/secret.txt lies outside them."""
    root = Path(host.temp_dir())
    for folder in ("a", "b"):
        (root / folder).mkdir()
        (root / folder / ("inside.txt" if folder == "a" else "secret.txt")).write_text("needle\n")
    host.set_policy("u-1", {"roots": ["/workspace/a"]})
    return _session(host, {"identity": {"userId": "u-1"}, "sandboxRoot": str(root)})


@pytest.mark.parametrize(
    ("mutant", "tool_name", "arguments"),
    [
        ("access_8_pathless_search_unconfined", "Grep", {"pattern": "needle"}),
        ("access_8_pathless_search_unconfined", "Glob", {"pattern": "**/*.txt"}),
        ("access_8_pathless_search_unconfined", "Search", {"query": "needle"}),
        ("access_8_search_unconfined", "Search", {"query": "needle", "path": "/workspace/b"}),
        ("access_8_file_info_unconfined", "FileInfo", {"path": "/workspace/b/secret.txt"}),
        ("access_8_list_dir_unconfined", "ListDir", {"path": "/workspace/b"}),
    ],
)
def test_access_8_every_file_tool_keeps_the_live_roots(
    hosts: Any, mutant: str, tool_name: str, arguments: dict[str, Any]
) -> None:
    """ACCESS-8: file and directory tools consume the same policy as currentAccess(): nothing outside
    its roots is shown, by any tool, with or without a path."""

    def shows_secret(host: ReferenceHostAdapter) -> bool:
        session = _narrowed(host)
        assert host.current_access(session)["roots"] == ["/workspace/a"]
        answer = host.call(session, tool_name, arguments)
        return answer["details"].get("ok") is True and "secret.txt" in _text(answer)

    reference, broken = hosts(mutant)
    assert shows_secret(reference) is False
    assert shows_secret(broken) is True


def test_access_8_write_keeps_the_live_roots(hosts: Any) -> None:
    """ACCESS-8: Write outside currentAccess().roots changes nothing."""

    def wrote(host: ReferenceHostAdapter) -> bool:
        session = _narrowed(host)
        host.call(session, "Write", {"file_path": "/workspace/b/new.txt", "content": "x"})
        root = Path(host.host.session(session).sandbox_root())
        return (root / "b" / "new.txt").exists()

    reference, mutant = hosts("access_8_write_unconfined")
    assert wrote(reference) is False
    assert wrote(mutant) is True


def _paired_plan_write(host: ReferenceHostAdapter, plan_file: str | None, variant: Callable[[str], str]) -> bool:
    """Whether the paired executor admits a write to ``variant(plan path)`` on a Plan turn."""
    spec: dict[str, Any] = {"identity": {"userId": "u-1"}, "conversation": "managed", "projectId": "p1", "mode": "plan"}
    if plan_file is not None:
        spec["planFile"] = plan_file
    session = _session(host, spec)
    plan = host.current_access(session)["planFile"]
    # The plan file's parent exists (the sandbox executor creates it with the plan itself).
    assert host.sandbox(session, {"kind": "write", "path": plan, "content": "plan"})["admitted"] is True
    other = variant(plan)
    assert other != plan
    return host.sandbox(session, {"kind": "write", "path": other, "content": "x", "executor": "paired"})["admitted"]


def test_planfile_4_paired_executor_is_case_exact(hosts: Any) -> None:
    """PLANFILE-4: the paired executor admits only a write to that *exact* path."""
    reference, mutant = hosts("planfile_4_paired_case_insensitive")

    def upper(plan: str) -> str:
        return plan.replace("plan.md", "PLAN.md")

    assert _paired_plan_write(reference, None, upper) is False
    assert _paired_plan_write(mutant, None, upper) is True


@pytest.mark.parametrize(
    ("plan_file", "form"),
    [("/workspace/plans/caf\u00e9.md", "NFD"), ("/workspace/plans/file.md", "ligature")],
)
def test_planfile_4_paired_executor_is_code_point_exact(hosts: Any, plan_file: str, form: str) -> None:
    """PLANFILE-4: another Unicode spelling of the plan path is not the plan path, on the paired executor."""
    reference, mutant = hosts("planfile_4_paired_unicode_normalized")

    def respell(plan: str) -> str:
        return unicodedata.normalize("NFD", plan) if form == "NFD" else plan.replace("fi", "\ufb01")

    assert _paired_plan_write(reference, plan_file, respell) is False
    assert _paired_plan_write(mutant, plan_file, respell) is True


def test_plan_2_binds_core_tools(hosts: Any) -> None:
    """PLAN-2: a core tool outside the read-only set and the host plan defaults is refused on a Plan turn."""

    def ran(host: ReferenceHostAdapter) -> bool:
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        return host.call(session, "WorkflowStart", {"file_path": "/workspace/flow.json"})["handlerRan"]

    reference, mutant = hosts("plan_2_core_tools_exempt")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_planfile_2_edit_writes_only_the_plan_file(hosts: Any) -> None:
    """PLANFILE-2: on a Plan turn the sandbox admits a write to exactly the plan path, Edit's included."""

    def content_after_edit(host: ReferenceHostAdapter) -> str:
        root = Path(host.temp_dir())
        (root / "notes.txt").write_text("hello\n")
        session = _session(
            host,
            {
                "identity": {"userId": "u-1"},
                "conversation": "managed",
                "projectId": "p1",
                "mode": "plan",
                "sandboxRoot": str(root),
            },
        )
        assert host.call(session, "Read", {"file_path": "/workspace/notes.txt"})["content"]
        host.call(session, "Edit", {"file_path": "/workspace/notes.txt", "old_string": "hello", "new_string": "bye"})
        return (root / "notes.txt").read_text()

    reference, mutant = hosts("planfile_2_edit_not_confined")
    assert content_after_edit(reference) == "hello\n"
    assert content_after_edit(mutant) == "bye\n"


def test_planfile_1_local_plan_turn_has_a_plan_file(hosts: Any) -> None:
    """PLANFILE-1: a *local* Project conversation's own Plan turn carries planFile too."""

    def has_plan_file(host: ReferenceHostAdapter) -> bool:
        session = _session(
            host, {"identity": {"userId": "u-1"}, "conversation": "local", "projectId": "p1", "mode": "plan"}
        )
        return "planFile" in host.current_access(session)

    reference, mutant = hosts("planfile_1_no_plan_file_in_local_conversations")
    assert has_plan_file(reference) is True
    assert has_plan_file(mutant) is False


def test_planfile_6_children_keep_the_non_destructive_boundary(hosts: Any) -> None:
    """PLANFILE-6: command execution in a read-only child follows the non-destructive boundary."""

    def removed(host: ReferenceHostAdapter) -> bool:
        root = Path(host.temp_dir())
        (root / "victim.txt").write_text("keep me\n")
        parent = _session(host, {"identity": {"userId": "u-1"}, "sandboxRoot": str(root)})
        child = host.delegate(parent, {"readOnly": True})["session"]
        host.call(child, "Bash", {"command": "rm victim.txt"})
        return not (root / "victim.txt").exists()

    reference, mutant = hosts("planfile_6_bash_unbounded_in_children")
    assert removed(reference) is False
    assert removed(mutant) is True


def test_deleg_1_host_plan_turn_is_read_only(hosts: Any) -> None:
    """DELEG-1: currentAccess().readOnly is true for an admitted Plan restriction, with or without a Project."""

    def read_only(host: ReferenceHostAdapter) -> bool:
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        return host.current_access(session)["readOnly"]

    reference, mutant = hosts("deleg_1_host_plan_turn_not_read_only")
    assert read_only(reference) is True
    assert read_only(mutant) is False


def test_grant_1_binds_external_tools(hosts: Any) -> None:
    """GRANT-1: the account's plugin grant decides who may call a plugin tool, external ones included."""

    def ran(host: ReferenceHostAdapter) -> bool:
        host.set_policy("u-1", {"pluginGrants": []})
        _install(host, tool("mcp__srv__fetch", external=True))
        session = _session(host, {"identity": {"userId": "u-1"}})
        return host.call(session, "mcp__srv__fetch", {})["handlerRan"]

    reference, mutant = hosts("grant_1_external_tools_skip_grant")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_access_6_a_queued_edit_is_rechecked_inside_the_queue(hosts: Any) -> None:
    """ACCESS-6: a queued host Edit (not only a Write) rechecks its anchored path inside the mutation queue."""

    def edited(host: ReferenceHostAdapter) -> bool:
        root = Path(host.temp_dir())
        (root / "a").mkdir()
        (root / "a" / "doc.txt").write_text("old\n")
        session = _session(host, {"identity": {"userId": "u-1"}, "sandboxRoot": str(root)})
        host.call(session, "Read", {"file_path": "/workspace/a/doc.txt"})
        edit = {"file_path": "/workspace/a/doc.txt", "old_string": "old", "new_string": "new"}
        host.queue_call(session, "Edit", edit)
        host.set_policy("u-1", {"roots": ["/workspace/b"]})
        host.run_queued(session)
        return (root / "a" / "doc.txt").read_text() == "new\n"

    reference, mutant = hosts("access_6_queued_edit_not_rechecked")
    assert edited(reference) is False
    assert edited(mutant) is True


def test_plan_3_binds_admins(hosts: Any) -> None:
    """PLAN-3: plan mode never executes an external tool, whichever form declared it read-only, whoever calls."""

    def ran(host: ReferenceHostAdapter) -> bool:
        host.set_policy("admin-1", {"admin": True})
        manifest = {"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}}
        report = host.install_plugin(plugin("bridge", [tool("mcp__srv__look", external=True)], manifest=manifest))
        assert "error" not in report, report
        session = _session(host, {"identity": {"userId": "admin-1", "admin": True}, "mode": "plan"})
        return host.call(session, "mcp__srv__look", {})["handlerRan"]

    reference, mutant = hosts("plan_3_admins_run_external")
    assert ran(reference) is False
    assert ran(mutant) is True


@pytest.mark.parametrize(
    ("tool_name", "arguments"), [("Glob", {"pattern": "*"}), ("Grep", {"pattern": "x"}), ("Search", {"query": "x"})]
)
def test_plan_2_runs_the_core_read_only_tools(hosts: Any, tool_name: str, arguments: dict[str, Any]) -> None:
    """PLAN-2: plan mode executes the core read-only tools; the search tools are among them."""

    def refused_by_plan(host: ReferenceHostAdapter) -> bool:
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        return (host.call(session, tool_name, arguments).get("refusal") or {}).get("stage") == "plan"

    reference, mutant = hosts("plan_2_search_tools_refused")
    assert refused_by_plan(reference) is False
    assert refused_by_plan(mutant) is True
