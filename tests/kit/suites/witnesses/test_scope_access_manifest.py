"""Witnesses of the SCOPE, ACCESS, MANIFEST, DIAG, COST and ERR broken hosts: each shows, through the
adapter contract alone, that the reference host does what the rule's sentence says in one cell of the
rule's dimension table and the broken host does not.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from tests.kit.suites.witnesses import install as _install
from tests.kit.suites.witnesses import session_of as _session
from tests.kit.suites.witnesses import text_of as _text
from tests.kit.suites.witnesses import tool_names as _tool_names

USER = {"identity": {"userId": "u-1"}}


def _catalog(host: ReferenceHostAdapter, session: str) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in host.compose(session)["catalog"]}


def _ran(host: ReferenceHostAdapter, session: str, name: str, arguments: dict[str, Any] | None = None) -> bool:
    return host.call(session, name, arguments or {})["handlerRan"]


# -- SCOPE-1: ownerUserId, projectId and platform scope a contribution; without them it is instance-wide ---


@pytest.mark.parametrize(
    ("mutant", "options", "spec", "belongs"),
    [
        # the account (ownerUserId): another account's session does not get it
        ("scope_1_owner_scope_ignored", {"ownerUserId": "acct-1"}, {"identity": {"userId": "acct-2"}}, False),
        # projectId: a session outside every Project does not get a Project's tool
        ("scope_1_projectless_sessions_see_project_tools", {"projectId": "p1"}, USER, False),
        # combined scopes: both must match; the account alone is not enough
        (
            "scope_1_combined_scope_any_match",
            {"ownerUserId": "acct-1", "projectId": "p1"},
            {"identity": {"userId": "acct-1"}, "projectId": "p2"},
            False,
        ),
        # no scope: instance-wide, every kind of conversation gets it
        (
            "scope_1_unscoped_tools_left_out_of_local_conversations",
            {},
            {**USER, "conversation": "local", "projectId": "p1"},
            True,
        ),
    ],
)
def test_scope_1_each_scope_form(
    hosts: Any, mutant: str, options: dict[str, Any], spec: dict[str, Any], belongs: bool
) -> None:
    """SCOPE-1: a scoped contribution belongs to its account, Project or platform (all it names); an
    unscoped one to every session."""

    def offered(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(host, tool("Scoped", **options))
        session = _session(host, spec)
        return "Scoped" in _tool_names(host, session), _ran(host, session, "Scoped")

    reference, broken = hosts(mutant)
    assert offered(reference) == (belongs, belongs)
    assert offered(broken) == (not belongs, not belongs)


# -- SCOPE-2: out of scope is absent (tool list and catalog), not merely refused ---------------------------


def test_scope_2_out_of_scope_tool_is_not_in_the_catalog(hosts: Any) -> None:
    """SCOPE-2: a Project's tool is omitted from another Project's model tool list *and* catalog."""

    def listed(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(host, tool("ProjectTool", projectId="p1"))
        session = _session(host, {**USER, "projectId": "p2"})
        return "ProjectTool" in _tool_names(host, session), "ProjectTool" in _catalog(host, session)

    reference, mutant = hosts("scope_2_catalog_keeps_out_of_scope")
    assert listed(reference) == (False, False)
    assert listed(mutant) == (False, True)


def test_scope_2_tool_search_cannot_load_an_out_of_scope_tool(hosts: Any) -> None:
    """SCOPE-2: a deferred tool scoped elsewhere is an unknown tool there, ToolSearch or not."""

    def runs_after_search(host: ReferenceHostAdapter) -> bool:
        report = host.install_plugin(
            plugin("lazy", [tool("LazyProjectTool", projectId="p1")], manifest={"deferLoading": True})
        )
        assert "error" not in report, report
        session = _session(host, {**USER, "projectId": "p2"})
        host.call(session, "ToolSearch", {"query": "select:LazyProjectTool"})
        return _ran(host, session, "LazyProjectTool")

    reference, mutant = hosts("scope_2_tool_search_loads_out_of_scope")
    assert runs_after_search(reference) is False
    assert runs_after_search(mutant) is True


# -- ACCESS-2, 3, 4, 5, 6, 7, 8 ----------------------------------------------------------------------------


def test_access_2_demotion_through_the_account_reaches_an_acting_user(hosts: Any) -> None:
    """ACCESS-2: the account's demotion applies to a running session of a user acting for it."""

    def after_demotion(host: ReferenceHostAdapter) -> tuple[bool, list[str]]:
        host.set_policy("acct-1", {"admin": True, "projectIds": ["p1", "p2"]})
        session = _session(host, {"identity": {"userId": "u-1"}, "account": "acct-1"})
        assert host.current_access(session)["admin"] is True
        host.set_policy("acct-1", {"admin": False, "projectIds": ["p2"]})
        answer = host.current_access(session)
        return answer["admin"], answer["projectIds"]

    reference, mutant = hosts("access_2_acting_user_policy_frozen")
    assert after_demotion(reference) == (False, ["p2"])
    assert after_demotion(mutant) == (True, ["p1", "p2"])


def test_access_3_a_session_opened_after_the_grant_captures_it(hosts: Any) -> None:
    """ACCESS-3: the ceiling is captured by each session when it opens; a grant made before a session
    opens is in that session's ceiling (and never in the earlier session's)."""

    def admin_of(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        host.set_policy("u-1", {"admin": False})
        earlier = _session(host, USER)
        host.set_policy("u-1", {"admin": True})
        later = _session(host, USER)
        return host.current_access(earlier)["admin"], host.current_access(later)["admin"]

    reference, mutant = hosts("access_3_ceiling_kept_per_account")
    assert admin_of(reference) == (False, True)
    assert admin_of(mutant) == (False, False)


def test_access_4_identity_after_a_revoked_owner_is_answered(hosts: Any) -> None:
    """ACCESS-4: once live authority takes owner away, currentIdentity() answers the identity without
    it (an answer, not an error); currentAccess() is the same on both hosts."""

    def after_revocation(host: ReferenceHostAdapter) -> tuple[Any, dict[str, Any]]:
        host.set_policy("owner-1", {"owner": True, "projectIds": ["p1"]})
        session = _session(host, {"identity": {"userId": "owner-1", "owner": True}})
        assert host.current_identity(session)["owner"] is True
        host.set_policy("owner-1", {"owner": False})
        return host.current_identity(session).get("owner"), host.current_access(session)

    reference, mutant = hosts("access_4_identity_refused_once_revoked")
    owner, access = after_revocation(reference)
    assert owner is False
    broken_owner, broken_access = after_revocation(mutant)
    assert broken_owner is None  # an {"error": ...} answer, no identity
    assert broken_access == access


def test_access_5_identity_is_read_again_within_one_call(hosts: Any) -> None:
    """ACCESS-5: currentIdentity() read again in the same call, after a revocation, has lost owner."""

    def owner_flags(host: ReferenceHostAdapter) -> list[bool]:
        handler = [
            {"op": "identity"},
            {"op": "policy", "account": "u-1", "changes": {"owner": False}},
            {"op": "identity"},
            {"op": "text", "text": "done"},
        ]
        _install(host, tool("ReadTwice", handler=handler))
        host.set_policy("u-1", {"owner": True})
        session = _session(host, {"identity": {"userId": "u-1", "owner": True}})
        observations = host.call(session, "ReadTwice", {})["observations"]
        return [o["value"]["owner"] for o in observations if o["op"] == "identity"]

    reference, mutant = hosts("access_5_identity_cached_per_call")
    assert owner_flags(reference) == [True, False]
    assert owner_flags(mutant) == [True, True]


def _tree(host: ReferenceHostAdapter, files: dict[str, str]) -> Path:
    root = Path(host.temp_dir())
    for relative, content in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)
    return root


def test_access_5_file_tools_reread_roots_between_calls(hosts: Any) -> None:
    """ACCESS-5: a core file tool reads the access again before each call: roots narrowed between two
    Reads confine the second one."""

    def second_read_shows(host: ReferenceHostAdapter) -> bool:
        root = _tree(host, {"a/in.txt": "IN\n", "b/out.txt": "SECRET\n"})
        session = _session(host, {**USER, "sandboxRoot": str(root)})
        assert "SECRET" in _text(host.call(session, "Read", {"file_path": "/workspace/b/out.txt"}))
        host.set_policy("u-1", {"roots": ["/workspace/a"]})
        return "SECRET" in _text(host.call(session, "Read", {"file_path": "/workspace/b/out.txt"}))

    reference, mutant = hosts("access_5_file_tools_keep_first_roots")
    assert second_read_shows(reference) is False
    assert second_read_shows(mutant) is True


def test_access_6_a_link_planted_after_queueing_is_rechecked(hosts: Any) -> None:
    """ACCESS-6: a queued Write rechecks its anchored path in the queue: a link planted on its parent
    after queueing does not carry the write elsewhere."""

    def landed_elsewhere(host: ReferenceHostAdapter) -> bool:
        root = _tree(host, {"elsewhere/keep.txt": "k\n"})
        session = _session(host, {**USER, "sandboxRoot": str(root)})
        host.queue_call(session, "Write", {"file_path": "/workspace/late/new.md", "content": "queued"})
        os.symlink("elsewhere", root / "late")
        host.run_queued(session)
        return (root / "elsewhere" / "new.md").exists()

    reference, mutant = hosts("access_6_queued_write_follows_links")
    assert landed_elsewhere(reference) is False
    assert landed_elsewhere(mutant) is True


def test_access_7_own_write_counts_as_read(hosts: Any) -> None:
    """ACCESS-7: the guard refuses writes over content changed since it was read; the session's own
    write is content it has seen, so an Edit of what it wrote goes through."""

    def content_after_edit(host: ReferenceHostAdapter) -> str:
        root = _tree(host, {})
        session = _session(host, {**USER, "sandboxRoot": str(root)})
        host.call(session, "Write", {"file_path": "/workspace/new.md", "content": "one two\n"})
        host.call(session, "Edit", {"file_path": "/workspace/new.md", "old_string": "two", "new_string": "three"})
        return (root / "new.md").read_text()

    reference, mutant = hosts("access_7_own_write_not_recorded")
    assert content_after_edit(reference) == "one three\n"
    assert content_after_edit(mutant) == "one two\n"


def test_access_8_empty_roots_confine_to_nothing(hosts: Any) -> None:
    """ACCESS-8: with currentAccess().roots empty, the file tools read nothing."""

    def shows(host: ReferenceHostAdapter) -> bool:
        root = _tree(host, {"a.md": "A-CONTENT\n"})
        session = _session(host, {**USER, "sandboxRoot": str(root)})
        host.set_policy("u-1", {"roots": []})
        assert host.current_access(session)["roots"] == []
        return "A-CONTENT" in _text(host.call(session, "Read", {"file_path": "/workspace/a.md"}))

    reference, mutant = hosts("access_8_empty_roots_mean_everywhere")
    assert shows(reference) is False
    assert shows(mutant) is True


def test_access_8_sandbox_executor_keeps_the_live_roots(hosts: Any) -> None:
    """ACCESS-8: a sandbox operation outside currentAccess().roots is refused."""

    def admitted(host: ReferenceHostAdapter) -> bool:
        root = _tree(host, {"src/k.txt": "k\n"})
        session = _session(host, {**USER, "sandboxRoot": str(root)})
        host.set_policy("u-1", {"roots": ["/workspace/src"]})
        return host.sandbox(session, {"kind": "write", "path": "/workspace/docs/x.md", "content": "x"})["admitted"]

    reference, mutant = hosts("access_8_sandbox_ignores_roots")
    assert admitted(reference) is False
    assert admitted(mutant) is True


# -- MANIFEST-1, 2, 3 -----------------------------------------------------------------------------------


def test_manifest_1_external_output_hidden_without_show_output(hosts: Any) -> None:
    """MANIFEST-1: an external tool's successful output is hidden unless showOutput matches it."""

    def shown(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("mcp__srv__look", external=True))
        session = _session(host, USER)
        answer = host.call(session, "mcp__srv__look", {})
        assert answer["handlerRan"] and not answer["isError"], answer
        return answer["shown"]

    reference, mutant = hosts("manifest_1_external_output_always_shown")
    assert shown(reference) is False
    assert shown(mutant) is True


def _deferring(host: ReferenceHostAdapter, *tools: dict[str, Any], names: list[str], name: str = "lazy") -> None:
    report = host.install_plugin(plugin(name, list(tools), manifest={"deferLoading": names}))
    assert "error" not in report, report


def test_manifest_2_deferral_switched_off(hosts: Any) -> None:
    """MANIFEST-2: with deferral switched off for the session, a deferLoading tool is loaded and runs."""

    def runs(host: ReferenceHostAdapter) -> bool:
        _deferring(host, tool("LazyTool"), names=["LazyTool"])
        session = _session(host, {**USER, "deferral": {"enabled": False}})
        return _ran(host, session, "LazyTool")

    reference, mutant = hosts("manifest_2_deferral_switch_ignored")
    assert runs(reference) is True
    assert runs(mutant) is False


def test_manifest_2_defers_an_external_tool(hosts: Any) -> None:
    """MANIFEST-2: deferLoading defers a matching external tool too."""

    def deferred(host: ReferenceHostAdapter) -> bool:
        _deferring(host, tool("mcp__srv__lazy", external=True), names=["mcp__srv__lazy"])
        return _catalog(host, _session(host, USER))["mcp__srv__lazy"]["deferred"]

    reference, mutant = hosts("manifest_2_external_never_deferred")
    assert deferred(reference) is True
    assert deferred(mutant) is False


def test_manifest_2_defers_only_the_plugins_own_tools(hosts: Any) -> None:
    """MANIFEST-2: a plugin's deferLoading naming another plugin's tool does not defer that tool."""

    def deferred(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("alpha_tool"), name="alpha")
        _deferring(host, tool("beta_tool"), names=["beta_tool", "alpha_tool"], name="beta")
        catalog = _catalog(host, _session(host, USER))
        assert catalog["beta_tool"]["deferred"] is True
        return catalog["alpha_tool"]["deferred"]

    reference, mutant = hosts("manifest_2_defer_names_cross_plugins")
    assert deferred(reference) is False
    assert deferred(mutant) is True


def test_manifest_2_loaded_tool_runs(hosts: Any) -> None:
    """MANIFEST-2: a deferred tool loaded with ToolSearch is advertised and runs."""

    def runs(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _deferring(host, tool("LazyTool"), names=["LazyTool"])
        session = _session(host, USER)
        host.call(session, "ToolSearch", {"query": "select:LazyTool"})
        return "LazyTool" in _tool_names(host, session), _ran(host, session, "LazyTool")

    reference, mutant = hosts("manifest_2_loaded_tool_refused")
    assert runs(reference) == (True, True)
    assert runs(mutant) == (True, False)


def _listed_unregistered(report: dict[str, Any]) -> set[str]:
    return {f["tool"] for f in report["findings"] if f["rule"] == "MANIFEST-3" and f["tool"] not in report["accepted"]}


def test_manifest_3_listed_but_refused_is_reported(hosts: Any) -> None:
    """MANIFEST-3: registration is the live source: a listed tool whose registration was refused is a
    listed-but-unregistered finding."""

    def findings(host: ReferenceHostAdapter) -> set[str]:
        # An internal tool needs a description: the host refuses this registration (REG-2).
        report = host.install_plugin(
            plugin(
                "auditee",
                [tool("Good"), tool("Undescribed", description="")],
                manifest={"provides": {"tools": ["Good", "Undescribed"]}},
            )
        )
        assert "Undescribed" in {r["tool"] for r in report["refused"]}, report
        return _listed_unregistered(report)

    reference, mutant = hosts("manifest_3_refused_counts_as_registered")
    assert findings(reference) == {"Undescribed"}
    assert findings(mutant) == set()


def test_manifest_3_listed_but_lost_to_a_collision_is_reported(hosts: Any) -> None:
    """MANIFEST-3: a listed tool that lost a name collision registered nothing and is reported."""

    def findings(host: ReferenceHostAdapter) -> set[str]:
        _install(host, tool("Shared"), name="first")
        report = host.install_plugin(
            plugin("second", [tool("Shared"), tool("Own")], manifest={"provides": {"tools": ["Shared", "Own"]}})
        )
        assert "Shared" not in report["accepted"], report
        return _listed_unregistered(report)

    reference, mutant = hosts("manifest_3_collision_loser_counts_as_registered")
    assert findings(reference) == {"Shared"}
    assert findings(mutant) == set()


# -- DIAG-1, 2, 3 ---------------------------------------------------------------------------------------


def _diagnostics_name(host: ReferenceHostAdapter, session: str, name: str) -> bool:
    return name in repr(host.compose(session)["diagnostics"])


def test_diag_1_deferred_external_tool_is_redacted(hosts: Any) -> None:
    """DIAG-1: a deferred external tool is redacted in the diagnostics before it is loaded."""

    def named(host: ReferenceHostAdapter) -> bool:
        _deferring(host, tool("mcp__lazy__fetch", external=True), names=["mcp__lazy__fetch"], name="lazyhub")
        return _diagnostics_name(host, _session(host, USER), "mcp__lazy__fetch")

    reference, mutant = hosts("diag_1_deferred_external_unredacted")
    assert named(reference) is False
    assert named(mutant) is True


def test_diag_1_plan_turn_is_redacted(hosts: Any) -> None:
    """DIAG-1: a Plan turn's diagnostics redact external tools and their namespaces as a Build turn's."""

    def named(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("mcp__hub__search", external=True), tool("hub_status"), name="bridgehub")
        session = _session(host, {**USER, "mode": "plan"})
        return _diagnostics_name(host, session, "mcp__hub__search") or _diagnostics_name(host, session, "bridgehub")

    reference, mutant = hosts("diag_1_plan_turn_unredacted")
    assert named(reference) is False
    assert named(mutant) is True


def test_diag_1_payload_keeps_the_real_name(hosts: Any) -> None:
    """DIAG-1: the redaction is a separate projection; the provider payload names the external tool."""

    def in_payload(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("mcp__hub__search", external=True))
        payload = host.compose(_session(host, USER))["payload"]
        return "mcp__hub__search" in {entry["name"] for entry in payload["tools"]}

    reference, mutant = hosts("diag_1_payload_redacted")
    assert in_payload(reference) is True
    assert in_payload(mutant) is False


def test_diag_2_local_schema_keeps_its_annotations(hosts: Any) -> None:
    """DIAG-2: without external registrations a local schema is advertised as registered (plus reason),
    its properties' descriptions included."""

    def description(host: ReferenceHostAdapter) -> str | None:
        parameters = flat_schema({"value": "string"})
        parameters["properties"]["value"]["description"] = "The note to add."
        _install(host, tool("notes_add", parameters=parameters))
        payload = host.compose(_session(host, USER))["payload"]
        entry = next(e for e in payload["tools"] if e["name"] == "notes_add")
        return entry["parameters"]["properties"]["value"].get("description")

    reference, mutant = hosts("diag_2_strips_local_schema_annotations")
    assert description(reference) == "The note to add."
    assert description(mutant) is None


@pytest.mark.parametrize(
    ("mutant", "where"), [("diag_3_payload_read_only_hint", "entry"), ("diag_3_schema_marks_read_only", "schema")]
)
def test_diag_3_read_only_classification_stays_out_of_the_payload(hosts: Any, mutant: str, where: str) -> None:
    """DIAG-3: the read-only classification is never inserted into the provider payload: not beside the
    tool, not into its schema (its own plus reason)."""

    def inserted(host: ReferenceHostAdapter) -> set[str]:
        report = host.install_plugin(
            plugin("looker", [tool("look")], manifest={"provides": {"tools": ["look"], "readOnlyTools": ["look"]}})
        )
        assert "error" not in report, report
        payload = host.compose(_session(host, USER))["payload"]
        entry = next(e for e in payload["tools"] if e["name"] == "look")
        keys = set(entry) - {"type", "name", "description", "parameters"}
        schema_keys = set(entry["parameters"]) - {"type", "properties", "required"}
        return keys if where == "entry" else schema_keys

    reference, broken = hosts(mutant)
    assert inserted(reference) == set()
    assert inserted(broken) != set()


# -- ERR-1, ERR-5 ---------------------------------------------------------------------------------------

BOOM = tool("Boom", handler=[{"op": "throw", "message": "database exploded"}])
STEADY = tool("Steady")


def test_err_1_other_sessions_keep_working(hosts: Any) -> None:
    """ERR-1: after a throw in one session, another session that used the plugin before still runs it."""

    def other_runs(host: ReferenceHostAdapter) -> bool:
        _install(host, BOOM, STEADY, name="faulty")
        first, other = _session(host, USER), _session(host, {"identity": {"userId": "u-2"}})
        assert _ran(host, other, "Steady")
        assert host.call(first, "Boom", {})["isError"] is True
        return _ran(host, other, "Steady")

    reference, mutant = hosts("err_1_throw_restarts_plugin_for_others")
    assert other_runs(reference) is True
    assert other_runs(mutant) is False


@pytest.mark.parametrize(
    ("mutant", "thrower", "spec", "manifest"),
    [
        (
            "err_1_external_throw_is_answer",
            tool("mcp__srv__boom", external=True, handler=[{"op": "throw", "message": "remote failed"}]),
            USER,
            None,
        ),
        (
            "err_1_transport_throw_is_retry_notice",
            tool("Boom", handler=[{"op": "throw_transport", "message": "getaddrinfo ENOTFOUND"}]),
            USER,
            None,
        ),
        (
            "err_1_plan_turn_throw_is_observation",
            BOOM,
            {**USER, "mode": "plan"},
            {"provides": {"tools": ["Boom"], "readOnlyTools": ["Boom"]}},
        ),
    ],
)
def test_err_1_every_throw_is_an_error_result(
    hosts: Any, mutant: str, thrower: dict[str, Any], spec: dict[str, Any], manifest: dict[str, Any] | None
) -> None:
    """ERR-1: a handler that throws yields a result flagged is_error: an external tool's, a transport
    failure's, a read-only tool's on a Plan turn."""

    def flagged(host: ReferenceHostAdapter) -> bool:
        report = host.install_plugin(plugin("faulty", [thrower], manifest=manifest))
        assert "error" not in report, report
        answer = host.call(_session(host, spec), thrower["name"], {})
        assert answer["handlerRan"] is True, answer
        return answer["isError"] and answer["modelResult"]["isError"]

    reference, broken = hosts(mutant)
    assert flagged(reference) is True
    assert flagged(broken) is False


def test_err_5_mark_returns_the_error_it_tags(hosts: Any) -> None:
    """ERR-5: markTransportFailure(error) tags the error it is given and returns it; the tag survives a
    rethrow."""

    def probe(host: ReferenceHostAdapter) -> list[bool]:
        _install(host, tool("Probe", handler=[{"op": "transport_probe"}]))
        observations = host.call(_session(host, USER), "Probe", {})["observations"]
        facts = next(o["value"] for o in observations if o["op"] == "transport_probe")
        return [facts["returnsSameError"], facts["taggedIsTransport"], facts["survivesRethrow"]]

    reference, mutant = hosts("err_5_mark_returns_a_wrapper")
    assert probe(reference) == [True, True, True]
    assert probe(mutant) == [False, False, False]


def test_err_5_thrown_tagged_error_is_transport(hosts: Any) -> None:
    """ERR-5: a tagged error thrown by a handler is a transport failure (and still an error result)."""

    def transport(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        _install(host, tool("Remote", handler=[{"op": "throw_transport", "message": "socket hang up"}]))
        answer = host.call(_session(host, USER), "Remote", {})
        return answer["isError"], answer["transport"]

    reference, mutant = hosts("err_5_tag_read_from_host_wrapper")
    assert transport(reference) == (True, True)
    assert transport(mutant) == (True, False)


# -- COST-1: a session's first composition is linear too ---------------------------------------------------

SMALL, FACTOR = 300, 10


def _first_composition_per_tool(host: ReferenceHostAdapter, tools: int) -> float:
    """The best of five sessions' first composition over ``tools`` plugin tools, per tool, in seconds
    (a session composed once before builds what every session shares)."""
    host.reset()
    for start in range(0, tools, 50):
        batch = [tool(f"t{i}", external=i % 5 == 0) for i in range(start, min(start + 50, tools))]
        _install(host, *batch, name=f"p{start}")
    host.compose(_session(host, USER))
    best = float("inf")
    for _ in range(5):
        session = _session(host, USER)
        began = time.perf_counter()
        host.compose(session)
        best = min(best, time.perf_counter() - began)
    return best / tools


def test_cost_1_first_composition_is_linear(hosts: Any) -> None:
    """COST-1: a session's first composition takes about as long per tool with ten times the catalog on
    the reference host; on the mutant, which rescans the catalog per external tool then, about ten times."""

    def growth(host: ReferenceHostAdapter) -> float:
        return _first_composition_per_tool(host, SMALL * FACTOR) / _first_composition_per_tool(host, SMALL)

    reference, mutant = hosts("cost_1_first_composition_rescans")
    assert growth(reference) < 3
    assert growth(mutant) > 4
