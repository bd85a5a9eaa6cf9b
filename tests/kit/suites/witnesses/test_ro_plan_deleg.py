"""Witnesses for the RO, PLAN, PLANFILE, DELEG and GRANT broken hosts written cell by cell: each shows,
through the adapter contract alone (no check of the kit's suites involved), that the reference host does
what the rule's sentence says in one cell of the rule's dimension table and the broken host does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import Pair
from tests.kit.suites.witnesses import session_of as _session

USER = {"identity": {"userId": "u-1"}}
PLAN_FILE = "/workspace/.plans/case/plan.md"


def _child(host: ReferenceHostAdapter, parent: str, **request: Any) -> str:
    answer = host.delegate(parent, {"readOnly": True, **request})
    assert "session" in answer, answer
    return answer["session"]


def _install(
    host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness", manifest: dict[str, Any] | None = None
) -> None:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report


def _names(host: ReferenceHostAdapter, session: str) -> set[str]:
    return {entry["name"] for entry in host.compose(session)["tools"]}


def _catalog(host: ReferenceHostAdapter, session: str) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in host.compose(session)["catalog"]}


def _ran(host: ReferenceHostAdapter, session: str, name: str, arguments: dict[str, Any] | None = None) -> bool:
    return host.call(session, name, arguments or {})["handlerRan"]


def _project_plan(host: ReferenceHostAdapter, root: str | None = None, conversation: str = "managed") -> str:
    spec: dict[str, Any] = {
        **USER,
        "conversation": conversation,
        "projectId": "p1",
        "mode": "plan",
        "planFile": PLAN_FILE,
    }
    if root is not None:
        spec["sandboxRoot"] = root
    return _session(host, spec)


# -- RO ------------------------------------------------------------------------------------------------


def test_ro_2_the_wildcard_with_its_entry_is_accepted_without_external_tools(hosts: Pair) -> None:
    """RO-2: the wildcard needs the matching provides.tools entry, nothing more: with it, a plugin that has
    registered no external tool yet is installed."""

    def installed(host: ReferenceHostAdapter) -> bool:
        manifest = {"provides": {"tools": ["mcp__*", "waiting_status"], "readOnlyTools": ["mcp__*"]}}
        report = host.install_plugin(plugin("waiting", [tool("waiting_status")], manifest=manifest))
        return "error" not in report and report["accepted"] == ["waiting_status"]

    reference, mutant = hosts("ro_2_empty_wildcard_refused")
    assert installed(reference) is True
    assert installed(mutant) is False


def test_ro_3_a_claim_on_a_core_tool_classifies_nothing(hosts: Pair) -> None:
    """RO-3: a plugin cannot classify a tool it does not own, a core tool (Write) included."""

    def write_read_only(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("thief_own"),
            name="thief",
            manifest={"provides": {"tools": ["thief_own", "Write"], "readOnlyTools": ["Write"]}},
        )
        parent = _session(host, USER)
        return _catalog(host, parent)["Write"]["readOnly"], "Write" in _names(host, _child(host, parent))

    reference, mutant = hosts("ro_3_core_tool_claim_classifies")
    assert write_read_only(reference) == (False, False)
    assert write_read_only(mutant) == (True, True)


def test_ro_3_a_foreign_claim_admits_nothing_on_a_plan_turn(hosts: Pair) -> None:
    """RO-3: another plugin's exact read-only claim does not make a tool runnable on a Plan turn."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("alpha_write"), name="alpha")
        _install(
            host,
            tool("thief_own"),
            name="thief",
            manifest={"provides": {"tools": ["thief_own", "alpha_write"], "readOnlyTools": ["alpha_write"]}},
        )
        session = _session(host, {**USER, "mode": "plan"})
        assert _catalog(host, session)["alpha_write"]["readOnly"] is False
        return _ran(host, session, "alpha_write")

    reference, mutant = hosts("ro_3_plan_admits_foreign_claims")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_ro_3_an_exact_name_classifies_the_plugins_own_external_tool(hosts: Pair) -> None:
    """RO-3: an exact read-only name the plugin owns classifies that tool, an external one too; a read-only
    child receives it."""

    def classified(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("mcp__own__look", external=True),
            name="own",
            manifest={"provides": {"tools": ["mcp__own__look"], "readOnlyTools": ["mcp__own__look"]}},
        )
        parent = _session(host, USER)
        return _catalog(host, parent)["mcp__own__look"]["readOnly"], "mcp__own__look" in _names(
            host, _child(host, parent)
        )

    reference, mutant = hosts("ro_3_exact_names_skip_external_tools")
    assert classified(reference) == (True, True)
    assert classified(mutant) == (False, False)


def test_ro_1_the_wildcard_classifies_a_plain_named_external_tool(hosts: Pair) -> None:
    """RO-1: ``mcp__*`` expands to the plugin's own registered external tools: origin decides, not the name."""

    def classified(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("zqxLookup", external=True),
            tool("mcp__br__get", external=True),
            name="bridge",
            manifest={"provides": {"tools": ["mcp__*", "zqxLookup"], "readOnlyTools": ["mcp__*"]}},
        )
        catalog = _catalog(host, _session(host, USER))
        assert catalog["mcp__br__get"]["readOnly"] is True
        child = _child(host, _session(host, USER))
        return catalog["zqxLookup"]["readOnly"], _ran(host, child, "zqxLookup")

    reference, mutant = hosts("ro_1_wildcard_needs_mcp_prefix")
    assert classified(reference) == (True, True)
    assert classified(mutant) == (False, False)


def test_ro_4_the_declaration_leaves_the_deny_list_grammar_alone(hosts: Pair) -> None:
    """RO-4: a deny entry ``mcp__*`` treats a wildcard-classified tool exactly as its undeclared twin."""

    def runs(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("mcp__srv__search", external=True),
            name="bridge",
            manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}},
        )
        _install(host, tool("mcp__plain__search", external=True), name="plainbridge")
        host.set_policy("u-1", {"deny": ["mcp__*"]})
        session = _session(host, USER)
        return _ran(host, session, "mcp__plain__search"), _ran(host, session, "mcp__srv__search")

    reference, mutant = hosts("ro_4_deny_wildcard_matches_classified_tools")
    plain, declared = runs(reference)
    assert plain == declared
    plain, declared = runs(mutant)
    assert plain != declared


def test_ro_4_show_output_decides_not_the_declaration(hosts: Pair) -> None:
    """RO-4: a read-only tool's output is shown exactly as its undeclared twin's (showOutput decides)."""

    def shown(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(
            host,
            tool("twin_plain"),
            tool("twin_ro"),
            name="twins",
            manifest={"provides": {"tools": ["twin_plain", "twin_ro"], "readOnlyTools": ["twin_ro"]}},
        )
        session = _session(host, USER)
        return host.call(session, "twin_plain", {})["shown"], host.call(session, "twin_ro", {})["shown"]

    reference, mutant = hosts("ro_4_read_only_output_shown")
    assert shown(reference) == (False, False)
    assert shown(mutant) == (False, True)


def test_ro_4_the_declaration_keeps_deferral(hosts: Pair) -> None:
    """RO-4: a read-only declaration does not undo deferLoading."""

    def deferred(host: ReferenceHostAdapter) -> bool:
        _install(
            host,
            tool("notes_peek"),
            name="notes",
            manifest={
                "provides": {"tools": ["notes_peek"], "readOnlyTools": ["notes_peek"]},
                "deferLoading": ["notes_peek"],
            },
        )
        return _catalog(host, _session(host, USER))["notes_peek"]["deferred"]

    reference, mutant = hosts("ro_4_read_only_tools_never_deferred")
    assert deferred(reference) is True
    assert deferred(mutant) is False


def _spy(host: ReferenceHostAdapter) -> None:
    _install(
        host,
        tool("spy_read"),
        tool("spy_write"),
        name="spy",
        manifest={"provides": {"tools": ["spy_read", "spy_write"], "readOnlyTools": ["spy_read"]}},
    )


def test_ro_5_a_grandchild_keeps_the_read_only_set(hosts: Pair) -> None:
    """RO-5: below a read-only child, a child delegated with readOnly false receives the same read-only set."""

    def offered(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _spy(host)
        child = _child(host, _session(host, USER))
        grandchild = _child(host, child, readOnly=False)
        assert host.current_access(grandchild)["readOnly"] is True
        return "spy_write" in _names(host, grandchild), _ran(host, grandchild, "spy_write")

    reference, mutant = hosts("ro_5_grandchild_receives_every_tool")
    assert offered(reference) == (False, False)
    assert offered(mutant) == (True, True)


def test_ro_5_a_child_cannot_call_an_undeclared_tool(hosts: Pair) -> None:
    """RO-5: what a read-only child receives is what it may run: an undeclared tool named anyway is refused."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _spy(host)
        child = _child(host, _session(host, USER))
        assert "spy_write" not in _names(host, child)
        return _ran(host, child, "spy_write")

    reference, mutant = hosts("ro_5_child_calls_unlisted_tools")
    assert ran(reference) is False
    assert ran(mutant) is True


# -- PLAN ----------------------------------------------------------------------------------------------


def test_plan_1_a_project_plan_turn_advertises_the_build_list(hosts: Pair) -> None:
    """PLAN-1: a managed Project conversation's Plan turn advertises the same tools as its Build turn."""

    def same(host: ReferenceHostAdapter) -> bool:
        _spy(host)
        project = {**USER, "conversation": "managed", "projectId": "p1"}
        build = _session(host, project)
        plan = _session(host, {**project, "mode": "plan"})
        return host.compose(build)["tools"] == host.compose(plan)["tools"]

    reference, mutant = hosts("plan_1_project_plan_turn_hides_refused_tools")
    assert same(reference) is True
    assert same(mutant) is False


def test_plan_1_a_plan_turn_lists_the_sessions_scoped_tools(hosts: Pair) -> None:
    """PLAN-1: a Plan turn's tool list equals the Build list, tools scoped to the session included."""

    def same(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("Mine", ownerUserId="u-1"), tool("Everyone"))
        build, plan = _session(host, USER), _session(host, {**USER, "mode": "plan"})
        assert "Mine" in _names(host, build)
        return host.compose(build)["tools"] == host.compose(plan)["tools"]

    reference, mutant = hosts("plan_1_plan_turn_drops_scoped_tools")
    assert same(reference) is True
    assert same(mutant) is False


def test_plan_2_exact_names_run_beside_the_wildcard(hosts: Pair) -> None:
    """PLAN-2: a plugin's exact read-only names run on a Plan turn, also when its manifest holds ``mcp__*``."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(
            host,
            tool("mixed_read"),
            tool("mcp__mixed__remote", external=True),
            name="mixed",
            manifest={"provides": {"tools": ["mixed_read", "mcp__*"], "readOnlyTools": ["mixed_read", "mcp__*"]}},
        )
        return _ran(host, _session(host, {**USER, "mode": "plan"}), "mixed_read")

    reference, mutant = hosts("plan_2_wildcard_plugins_lose_exact_names")
    assert ran(reference) is True
    assert ran(mutant) is False


def test_plan_2_a_declaring_plugins_undeclared_tool_is_refused(hosts: Pair) -> None:
    """PLAN-2: plan admission is per tool: a plugin's tool outside its readOnlyTools is refused on a Plan turn."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _spy(host)
        return _ran(host, _session(host, {**USER, "mode": "plan"}), "spy_write")

    reference, mutant = hosts("plan_2_declaring_plugin_admitted_whole")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_plan_2_a_build_turn_runs_everything(hosts: Pair) -> None:
    """PLAN-2: the refusal is the Plan turn's policy: a Project conversation's Build turn runs an undeclared tool."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _spy(host)
        return _ran(host, _session(host, {**USER, "conversation": "managed", "projectId": "p1"}), "spy_write")

    reference, mutant = hosts("plan_2_project_build_turn_plan_policy")
    assert ran(reference) is True
    assert ran(mutant) is False


def test_plan_3_an_exactly_declared_external_tool_never_runs(hosts: Pair) -> None:
    """PLAN-3: an external tool declared read-only by its exact name is refused on a Plan turn."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(
            host,
            tool("mcp__exact__lookup", external=True),
            name="exact",
            manifest={"provides": {"tools": ["mcp__exact__lookup"], "readOnlyTools": ["mcp__exact__lookup"]}},
        )
        return _ran(host, _session(host, {**USER, "mode": "plan"}), "mcp__exact__lookup")

    reference, mutant = hosts("plan_3_exact_external_admitted")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_plan_3_a_loaded_external_tool_never_runs(hosts: Pair) -> None:
    """PLAN-3: a deferred external read-only tool, loaded through ToolSearch on a Plan turn, is still refused."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(
            host,
            tool("mcp__lazy__get", external=True),
            name="lazy",
            manifest={"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}, "deferLoading": True},
        )
        session = _session(host, {**USER, "mode": "plan"})
        assert _ran(host, session, "ToolSearch", {"query": "select:mcp__lazy__get"})
        return _ran(host, session, "mcp__lazy__get")

    reference, mutant = hosts("plan_3_loaded_external_admitted")
    assert ran(reference) is False
    assert ran(mutant) is True


# -- PLANFILE ------------------------------------------------------------------------------------------


def test_planfile_1_delegated_children_have_no_plan_file(hosts: Pair) -> None:
    """PLANFILE-1: planFile is absent on every delegated read-only origin of a Project's Plan turn."""

    def child_has_one(host: ReferenceHostAdapter) -> bool:
        parent = _project_plan(host)
        assert host.current_access(parent)["planFile"] == PLAN_FILE
        return "planFile" in host.current_access(_child(host, parent))

    reference, mutant = hosts("planfile_1_children_report_plan_file")
    assert child_has_one(reference) is False
    assert child_has_one(mutant) is True


@pytest.mark.parametrize(
    "spec",
    [{"conversation": "host", "mode": "plan"}, {"conversation": "managed", "projectId": "p1", "mode": "build"}],
    ids=["host-plan-turn", "project-build-turn"],
)
def test_planfile_1_no_plan_file_where_none_is_minted(hosts: Pair, spec: dict[str, Any]) -> None:
    """PLANFILE-1: a turn that is not a Project's own Plan turn carries no planFile, whatever the spec says
    (the reference host refuses such a spec)."""

    def carries(host: ReferenceHostAdapter) -> bool:
        answer = host.open_session({**USER, **spec, "planFile": PLAN_FILE})
        return "session" in answer and host.current_access(answer["session"]).get("planFile") == PLAN_FILE

    reference, mutant = hosts("planfile_1_spec_plan_file_honoured_anywhere")
    assert carries(reference) is False
    assert carries(mutant) is True


def test_planfile_2_the_plan_path_can_be_uploaded(hosts: Pair) -> None:
    """PLANFILE-2: the sandbox admits a write *or upload* to exactly the plan path."""

    def uploaded(host: ReferenceHostAdapter) -> bool:
        root = host.temp_dir()
        session = _project_plan(host, root)
        return host.sandbox(session, {"kind": "upload", "path": PLAN_FILE, "content": "up\n"})["admitted"]

    reference, mutant = hosts("planfile_2_upload_refused")
    assert uploaded(reference) is True
    assert uploaded(mutant) is False


def test_planfile_2_parents_are_created_only_where_missing(hosts: Pair) -> None:
    """PLANFILE-2: create-only creation of the plan file's missing parents: an existing one is not made again."""

    def made_twice(host: ReferenceHostAdapter) -> bool:
        session = _project_plan(host, host.temp_dir())
        assert host.sandbox(session, {"kind": "mkdir", "path": "/workspace/.plans/case"})["admitted"] is True
        return host.sandbox(session, {"kind": "mkdir", "path": "/workspace/.plans/case"})["admitted"]

    reference, mutant = hosts("planfile_2_parent_mkdir_not_create_only")
    assert made_twice(reference) is False
    assert made_twice(mutant) is True


@pytest.mark.parametrize(
    ("mutant", "kind"),
    [("planfile_3_rename_onto_plan_admitted", "rename"), ("planfile_3_copy_onto_plan_admitted", "copy")],
)
def test_planfile_3_nothing_is_renamed_or_copied_onto_the_plan_path(hosts: Pair, mutant: str, kind: str) -> None:
    """PLANFILE-3: the allowance grants no rename and no copy, onto the plan path included."""

    def plan_written(host: ReferenceHostAdapter) -> bool:
        root = Path(host.temp_dir())
        (root / ".plans" / "case").mkdir(parents=True)
        (root / ".plans" / "case" / "draft.md").write_text("draft\n")
        session = _project_plan(host, str(root))
        op = {"kind": kind, "path": "/workspace/.plans/case/draft.md", "dest": PLAN_FILE}
        host.sandbox(session, op)
        return (root / ".plans" / "case" / "plan.md").exists()

    reference, broken = hosts(mutant)
    assert plan_written(reference) is False
    assert plan_written(broken) is True


@pytest.mark.parametrize(
    ("mutant", "op"),
    [
        ("planfile_3_lifecycle_of_plan_file_admitted", {"kind": "lifecycle", "path": PLAN_FILE}),
        ("planfile_3_desktop_admitted_on_plan_turns", {"kind": "desktop"}),
    ],
    ids=["lifecycle", "desktop"],
)
def test_planfile_3_no_lifecycle_or_desktop_permission(hosts: Pair, mutant: str, op: dict[str, Any]) -> None:
    """PLANFILE-3: the allowance grants no lifecycle or Desktop permission, bare or naming the plan file."""

    def admitted(host: ReferenceHostAdapter) -> bool:
        return host.sandbox(_project_plan(host, host.temp_dir()), op)["admitted"]

    reference, broken = hosts(mutant)
    assert admitted(reference) is False
    assert admitted(broken) is True


def test_planfile_5_no_plan_file_is_constructed_for_a_build_turns_child(hosts: Pair) -> None:
    """PLANFILE-5: a child of a Build turn asking for a planFile gets none and cannot write the path."""

    def child_writes(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        root = host.temp_dir()
        parent = _session(host, {**USER, "conversation": "managed", "projectId": "p1", "sandboxRoot": root})
        child = _child(host, parent, requested={"planFile": PLAN_FILE})
        has = "planFile" in host.current_access(child)
        return has, host.sandbox(child, {"kind": "write", "path": PLAN_FILE, "content": "x"})["admitted"]

    reference, mutant = hosts("planfile_5_build_child_gets_requested_plan_file")
    assert child_writes(reference) == (False, False)
    assert child_writes(mutant) == (True, True)


def test_planfile_5_the_delegating_plan_turn_keeps_its_allowance(hosts: Pair) -> None:
    """PLANFILE-5: the allowance is not forwarded to a child, and not taken from the Plan turn either."""

    def parent_writes(host: ReferenceHostAdapter) -> bool:
        parent = _project_plan(host, host.temp_dir())
        _child(host, parent, requested={"planFile": PLAN_FILE})
        return host.sandbox(parent, {"kind": "write", "path": PLAN_FILE, "content": "parent\n"})["admitted"]

    reference, mutant = hosts("planfile_5_delegating_clears_parent_plan_file")
    assert parent_writes(reference) is True
    assert parent_writes(mutant) is False


def test_planfile_6_non_destructive_commands_run_on_a_read_only_turn(hosts: Pair) -> None:
    """PLANFILE-6: command execution needs no writable environment: ``ls`` runs on a host Plan turn."""

    def listed(host: ReferenceHostAdapter) -> bool:
        root = Path(host.temp_dir())
        (root / "keep.txt").write_text("keep\n")
        session = _session(host, {**USER, "mode": "plan", "sandboxRoot": str(root)})
        answer = host.call(session, "Bash", {"command": "ls"})
        return any("keep.txt" in item.get("text", "") for item in answer["content"])

    reference, mutant = hosts("planfile_6_bash_needs_writable_access")
    assert listed(reference) is True
    assert listed(mutant) is False


# -- DELEG ---------------------------------------------------------------------------------------------


def test_deleg_1_a_local_projects_plan_turn_is_read_only(hosts: Pair) -> None:
    """DELEG-1: readOnly is true for an admitted Plan restriction, in a local Project conversation too."""

    def read_only(host: ReferenceHostAdapter) -> bool:
        return host.current_access(_project_plan(host, conversation="local"))["readOnly"]

    reference, mutant = hosts("deleg_1_local_plan_turn_not_read_only")
    assert read_only(reference) is True
    assert read_only(mutant) is False


def test_deleg_1_a_managed_projects_build_turn_is_not_read_only(hosts: Pair) -> None:
    """DELEG-1: readOnly carries the Plan restriction and the delegated origin, nothing else: a managed
    Project's Build turn is not read-only."""

    def read_only(host: ReferenceHostAdapter) -> bool:
        return host.current_access(_session(host, {**USER, "conversation": "managed", "projectId": "p1"}))["readOnly"]

    reference, mutant = hosts("deleg_1_managed_build_turn_read_only")
    assert read_only(reference) is False
    assert read_only(mutant) is True


# -- GRANT ---------------------------------------------------------------------------------------------


def test_grant_1_a_delegated_child_needs_the_grant(hosts: Pair) -> None:
    """GRANT-1: a child runs under the same account: a revoked grant refuses its calls too."""

    def child_ran(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("Act"), name="tools", manifest={"provides": {"tools": ["Act"], "readOnlyTools": ["Act"]}})
        child = _child(host, _session(host, USER))
        host.set_policy("u-1", {"pluginGrants": []})
        return _ran(host, child, "Act")

    reference, mutant = hosts("grant_1_children_skip_grant")
    assert child_ran(reference) is False
    assert child_ran(mutant) is True


def test_grant_1_a_tool_scoped_to_the_account_needs_the_grant(hosts: Pair) -> None:
    """GRANT-1, SCOPE-3: the grant decides for a tool scoped to the calling account as for any plugin tool
    (scoping is no authorization)."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("Mine", ownerUserId="u-1"))
        host.set_policy("u-1", {"pluginGrants": []})
        return _ran(host, _session(host, USER), "Mine")

    reference, mutant = hosts("scope_3_account_scoped_tools_skip_grant")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_grant_1_the_deny_list_is_read_at_each_call(hosts: Pair) -> None:
    """GRANT-1: a deny-list entry added mid-session refuses the very next call."""

    def ran_after_deny(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("Act"))
        session = _session(host, USER)
        assert _ran(host, session, "Act")
        host.set_policy("u-1", {"deny": ["Act"]})
        return _ran(host, session, "Act")

    reference, mutant = hosts("grant_1_deny_list_captured_at_open")
    assert ran_after_deny(reference) is False
    assert ran_after_deny(mutant) is True
