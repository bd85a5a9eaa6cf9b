"""Witnesses for the cells of a rule's dimension table that no check covered before: each broken host
below really behaves differently from the reference host in that cell, shown through the adapter
contract alone (no check of the kit's suites involved).

Every witness runs one small scenario against the reference host and against the mutant and asserts
that the reference host does what the rule's sentence says and the mutant does not.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import plugin, tool
from tests.kit.suites.witnesses import session_of as _session

#: A valid 1x1 PNG, the image a scripted tool returns.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _install(
    host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness", manifest: dict[str, Any] | None = None
) -> dict[str, Any]:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report
    return report


# -- SCOPE-3: a Project- or platform-scoped tool still passes grants, deny-list and policy ----------------


@pytest.mark.parametrize(
    ("option", "spec"),
    [({"projectId": "p1"}, {"projectId": "p1"}), ({"platform": "discord"}, {"platform": "discord"})],
    ids=["project", "platform"],
)
@pytest.mark.parametrize(
    ("policy", "mode", "stage"),
    [({"pluginGrants": []}, "build", "grant"), ({"deny": ["Scoped"]}, "build", "grant"), ({}, "plan", "plan")],
    ids=["grant", "deny-list", "plan-policy"],
)
def test_scope_3_project_and_platform_scopes_are_no_authorization(
    hosts: Any, option: dict[str, str], spec: dict[str, str], policy: dict[str, Any], mode: str, stage: str
) -> None:
    """SCOPE-3: a visible scoped tool, scoped to a Project or a platform, still passes the grant, the
    deny-list and the plan policy."""

    def ran(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("Scoped", **option))
        if policy:
            host.set_policy("u-1", policy)
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": mode, **spec})
        assert "Scoped" in {entry["name"] for entry in host.compose(session)["tools"]}
        answer = host.call(session, "Scoped", {})
        assert answer["handlerRan"] or (answer["refusal"] or {}).get("stage") == stage, answer
        return answer["handlerRan"]

    reference, mutant = hosts("scope_3_project_and_platform_scopes_authorize")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_scope_3_mutant_keeps_account_scoped_tools_authorized(hosts: Any) -> None:
    """The Project/platform mutant breaks only its cells: an account-scoped tool is still refused."""
    reference, mutant = hosts("scope_3_project_and_platform_scopes_authorize")
    for host in (reference, mutant):
        _install(host, tool("Mine", ownerUserId="u-1"))
        host.set_policy("u-1", {"pluginGrants": []})
        session = _session(host, {"identity": {"userId": "u-1"}})
        assert host.call(session, "Mine", {})["handlerRan"] is False


# -- RO-4: a read-only declaration changes no automatic image preview --------------------------------------


@pytest.mark.parametrize("form", ["exact", "wildcard"])
def test_ro_4_declaration_keeps_image_previews(hosts: Any, form: str) -> None:
    """RO-4: the image a read-only declared tool returns reaches the result as its undeclared twin's does."""
    image = [{"op": "image", "data": PNG, "mimeType": "image/png"}]
    external = form == "wildcard"
    declared_name = "mcp__srv__shot" if external else "ShotRo"

    def contents(host: ReferenceHostAdapter) -> tuple[Any, Any]:
        read_only = ["mcp__*"] if external else [declared_name]
        provides = {"tools": ["Shot", "mcp__*" if external else declared_name], "readOnlyTools": read_only}
        _install(
            host,
            tool("Shot", handler=image),
            tool(declared_name, handler=image, external=external) if external else tool(declared_name, handler=image),
            manifest={"name": "witness", "provides": provides},
        )
        session = _session(host, {"identity": {"userId": "u-1"}})
        twin, declared = host.call(session, "Shot", {}), host.call(session, declared_name, {})
        return twin["content"], declared["content"]

    reference, mutant = hosts("ro_4_read_only_tools_lose_image_previews")
    twin, declared = contents(reference)
    assert declared == twin and twin[0]["type"] == "image"
    twin, declared = contents(mutant)
    assert twin[0]["type"] == "image" and declared != twin


# -- PLANFILE-5: a child's access is read at execution time, not constructed when it was made ---------------


def test_planfile_5_child_access_follows_a_later_policy_change(hosts: Any) -> None:
    """PLANFILE-5: a child reads currentAccess() at execution time: a Project revoked and roots narrowed
    after the child was made apply to it as to its parent, and it never holds a planFile."""

    def child_access(host: ReferenceHostAdapter) -> dict[str, Any]:
        host.set_policy("u-1", {"projectIds": ["p1"]})
        parent = _session(
            host, {"identity": {"userId": "u-1"}, "conversation": "managed", "projectId": "p1", "mode": "plan"}
        )
        child = host.delegate(parent, {"readOnly": True})["session"]
        assert "planFile" not in host.current_access(child)
        host.set_policy("u-1", {"projectIds": [], "roots": ["/workspace/a"]})
        parent_now = host.current_access(parent)
        assert parent_now["projectIds"] == [] and "planFile" not in parent_now
        return host.current_access(child)

    reference, mutant = hosts("planfile_5_child_access_constructed_at_delegation")
    after = child_access(reference)
    assert (after["projectIds"], after["roots"], "planFile" in after) == ([], ["/workspace/a"], False)
    after = child_access(mutant)
    assert (after["projectIds"], after["roots"]) == (["p1"], ["/workspace"])


# -- RO-2: the refusal is a clear error naming the missing entry ---------------------------------------------


def test_ro_2_refusal_names_the_missing_entry(hosts: Any) -> None:
    """RO-2: without the matching provides.tools entry the manifest is refused with a clear error: it
    names the wildcard and provides.tools."""

    def error(host: ReferenceHostAdapter) -> dict[str, Any]:
        manifest = {"name": "bridge", "provides": {"tools": ["mcp__srv__search"], "readOnlyTools": ["mcp__*"]}}
        report = host.install_plugin(plugin("bridge", [tool("mcp__srv__search", external=True)], manifest=manifest))
        assert report.get("error", {}).get("kind") == "manifest", report
        return report["error"]

    reference, mutant = hosts("ro_2_wildcard_refusal_names_nothing")
    message = error(reference)["message"]
    assert "mcp__*" in message and "provides.tools" in message
    message = error(mutant)["message"]
    assert "mcp__*" not in message and "provides" not in message


# -- COST-1: composition linear in the external schemas' size ------------------------------------------------


def _compose_seconds(host: ReferenceHostAdapter, properties: int) -> float:
    """Seconds to compose a session holding one external tool with ``properties`` properties."""
    host.reset()
    parameters = {
        "type": "object",
        "properties": {
            f"field_{i:05d}": {"type": "string", "description": f"Field number {i}."} for i in range(properties)
        },
    }
    _install(host, tool("mcp__srv__wide", parameters=parameters, external=True))
    session = _session(host, {"identity": {"userId": "u-1"}})
    start = time.perf_counter()
    host.compose(session)
    return time.perf_counter() - start


def test_cost_1_work_grows_with_the_external_schema_size(hosts: Any) -> None:
    """COST-1: composing one external tool whose schema is 8 times larger takes about 8 times as long
    on the reference host, and far more on the mutant (the square of the size)."""
    reference, mutant = hosts("cost_1_measures_schema_property_by_property")
    small, large = 250, 2000
    reference_ratio = min(_compose_seconds(reference, large) for _ in range(3)) / max(
        min(_compose_seconds(reference, small) for _ in range(3)), 1e-4
    )
    mutant_ratio = min(_compose_seconds(mutant, large) for _ in range(2)) / min(
        _compose_seconds(mutant, small) for _ in range(2)
    )
    assert mutant_ratio > 30, mutant_ratio
    assert mutant_ratio > 3 * reference_ratio, (mutant_ratio, reference_ratio)


# -- DELEG-3: what plugin code reads in a child keeps readOnly and planMode ----------------------------------


def test_deleg_3_plugin_code_in_a_child_reads_the_restrictions(hosts: Any) -> None:
    """DELEG-3: a plugin tool running in a read-only child of a Plan turn reads currentAccess() with
    readOnly and planMode true, the descriptor it would build a further child's access from."""

    def read_in_child(host: ReferenceHostAdapter) -> dict[str, Any]:
        _install(
            host,
            tool("Peek", handler=[{"op": "access"}, {"op": "text", "text": "ok"}]),
            manifest={"name": "witness", "provides": {"tools": ["Peek"], "readOnlyTools": ["Peek"]}},
        )
        parent = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        child = host.delegate(parent, {"readOnly": True})["session"]
        assert host.current_access(child)["readOnly"] is True
        answer = host.call(child, "Peek", {})
        assert answer["handlerRan"], answer
        return answer["observations"][0]["value"]

    reference, mutant = hosts("deleg_3_plugin_reads_child_turn_as_build")
    seen = read_in_child(reference)
    assert (seen["readOnly"], seen["planMode"]) == (True, True)
    seen = read_in_child(mutant)
    assert (seen["readOnly"], seen["planMode"]) == (False, False)


# -- PLAN-3: a plain-named external tool declared by the wildcard never runs on a Plan turn -----------------


@pytest.mark.parametrize(
    ("name", "declared"), [("lookup", ["mcp__*"]), ("mcp__srv__lookup", ["mcp__*"]), ("lookup", ["lookup"])]
)
def test_plan_3_plain_named_external_by_wildcard(hosts: Any, name: str, declared: list[str]) -> None:
    """PLAN-3: plan mode never executes an external tool, whichever form declared it, whatever its name;
    the mutant errs only for a plain name declared by the wildcard."""

    def ran(host: ReferenceHostAdapter) -> bool:
        tools = ["mcp__*"] if declared == ["mcp__*"] else declared
        _install(
            host,
            tool(name, external=True),
            name="bridge",
            manifest={"name": "bridge", "provides": {"tools": tools, "readOnlyTools": declared}},
        )
        catalog = {e["name"]: e for e in host.compose(_session(host, {"identity": {"userId": "u-1"}}))["catalog"]}
        assert catalog[name]["readOnly"] is True and catalog[name]["origin"] == "external"
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        return host.call(session, name, {})["handlerRan"]

    reference, mutant = hosts("plan_3_wildcard_plain_named_external_runs")
    assert ran(reference) is False
    assert ran(mutant) is (name == "lookup" and declared == ["mcp__*"])


def test_planfile_5_mutant_forwards_nothing(hosts: Any) -> None:
    """The constructed-access mutant forwards no planFile: its only fault is when access is read."""
    _, mutant = hosts("planfile_5_child_access_constructed_at_delegation")
    root = Path(mutant.temp_dir())
    parent = _session(
        mutant,
        {
            "identity": {"userId": "u-1"},
            "conversation": "managed",
            "projectId": "p1",
            "mode": "plan",
            "sandboxRoot": str(root),
        },
    )
    plan = mutant.current_access(parent)["planFile"]
    child = mutant.delegate(parent, {"readOnly": True, "requested": {"planFile": plan}})["session"]
    assert "planFile" not in mutant.current_access(child)
    assert mutant.sandbox(child, {"kind": "write", "path": plan, "content": "x"})["admitted"] is False


# -- ACCESS-8: GitStatus is a directory tool and keeps the live roots ---------------------------------------


def test_access_8_git_status_keeps_the_live_roots(hosts: Any) -> None:
    """ACCESS-8: GitStatus (its path a directory scope, as the seed says) shows nothing outside the roots."""

    def shows_outside(host: ReferenceHostAdapter) -> bool:
        root = Path(host.temp_dir())
        for folder in (".git/objects", ".git/refs/heads", "a", "b"):
            (root / folder).mkdir(parents=True)
        (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (root / "b" / "secret.txt").write_text("x\n")
        session = _session(host, {"identity": {"userId": "u-1"}, "sandboxRoot": str(root)})
        before = host.call(session, "GitStatus", {"path": "/workspace/b"})
        assert "secret.txt" in before["content"][0]["text"], before
        host.set_policy("u-1", {"roots": ["/workspace/a"]})
        after = host.call(session, "GitStatus", {"path": "/workspace/b"})
        return "secret.txt" in after["content"][0]["text"]

    reference, mutant = hosts("access_8_git_status_unconfined")
    assert shows_outside(reference) is False
    assert shows_outside(mutant) is True


# -- broken hosts a case blocked by a passing rule used to miss ---------------------------------------------


def test_ro_3_a_claim_on_a_core_tool_reaches_no_read_only_child(hosts: Any) -> None:
    """RO-3: a plugin cannot classify a tool it does not own: its read-only claim on Write gives a
    read-only child no Write."""

    def child_has_write(host: ReferenceHostAdapter) -> bool:
        manifest = {"name": "claimer", "provides": {"tools": ["Helper", "Write"], "readOnlyTools": ["Write"]}}
        _install(host, tool("Helper"), name="claimer", manifest=manifest)
        parent = _session(host, {"identity": {"userId": "u-1"}})
        child = host.delegate(parent, {"readOnly": True})["session"]
        return "Write" in {entry["name"] for entry in host.compose(child)["tools"]}

    reference, mutant = hosts("ro_3_claimed_core_tool_in_read_only_child")
    assert child_has_write(reference) is False
    assert child_has_write(mutant) is True


def test_plan_3_a_plain_named_external_tool_never_runs_on_a_plan_turn(hosts: Any) -> None:
    """PLAN-3: an external tool with a plain name, declared read-only by its exact name, never runs in plan mode."""

    def ran(host: ReferenceHostAdapter) -> bool:
        manifest = {"name": "bridge", "provides": {"tools": ["zqxLookup"], "readOnlyTools": ["zqxLookup"]}}
        _install(host, tool("zqxLookup", external=True), name="bridge", manifest=manifest)
        session = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        return host.call(session, "zqxLookup", {})["handlerRan"]

    reference, mutant = hosts("plan_3_plain_named_external_on_plan_turn")
    assert ran(reference) is False
    assert ran(mutant) is True


def test_cap_1_an_external_description_is_cut_to_1000_bytes(hosts: Any) -> None:
    """CAP-1: an external description over 1,000 UTF-8 bytes is advertised cut to at most 1,000."""

    def advertised_bytes(host: ReferenceHostAdapter) -> int:
        _install(host, tool("mcp__srv__long", description="x" * 1500, external=True))
        tools = host.compose(_session(host, {"identity": {"userId": "u-1"}}))["tools"]
        return len(next(e for e in tools if e["name"] == "mcp__srv__long")["description"].encode("utf-8"))

    reference, mutant = hosts("cap_1_uncapped_description")
    assert advertised_bytes(reference) <= 1000
    assert advertised_bytes(mutant) == 1500


def test_deleg_1_a_delegated_read_only_origin_is_read_only(hosts: Any) -> None:
    """DELEG-1: currentAccess().readOnly is true for a delegated read-only origin (a child of a Build turn)."""

    def child_read_only(host: ReferenceHostAdapter) -> bool:
        parent = _session(host, {"identity": {"userId": "u-1"}})
        assert host.current_access(parent)["readOnly"] is False
        child = host.delegate(parent, {"readOnly": True})["session"]
        return host.current_access(child)["readOnly"]

    reference, mutant = hosts("deleg_1_delegated_origin_not_read_only")
    assert child_read_only(reference) is True
    assert child_read_only(mutant) is False


def test_deleg_2_a_plan_turn_child_keeps_plan_mode(hosts: Any) -> None:
    """DELEG-2: an imposed delegated origin keeps planMode true for further delegation, though the child
    starts in Build."""

    def child_plan_mode(host: ReferenceHostAdapter) -> bool:
        parent = _session(host, {"identity": {"userId": "u-1"}, "mode": "plan"})
        child = host.delegate(parent, {"readOnly": True})["session"]
        return host.current_access(child)["planMode"]

    reference, mutant = hosts("deleg_2_child_plan_mode_dropped")
    assert child_plan_mode(reference) is True
    assert child_plan_mode(mutant) is False
