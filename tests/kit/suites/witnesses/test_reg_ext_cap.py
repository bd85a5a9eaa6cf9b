"""Witnesses for the broken hosts of REG, NAME-7, SCHEMA-1, EXT, CAP and REASON: each shows, through
the adapter contract alone (no check of the kit's suites involved), that the reference host does what
the rule's sentence says in one cell of the rule's dimension table and the broken host does not.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from tests.kit.suites.witnesses import Pair

Probe = Callable[[ReferenceHostAdapter], Any]
ECHO = [{"op": "echo"}]


def differ(hosts: Pair, mutant: str, probe: Probe, conforming: Any, broken: Any) -> None:
    """The reference host answers ``probe`` as the sentence says, the mutant as it does not."""
    reference, bad = hosts(mutant)
    assert probe(reference) == conforming
    assert probe(bad) == broken


def _install(
    host: ReferenceHostAdapter, *tools: dict[str, Any], name: str = "witness", manifest: dict[str, Any] | None = None
) -> dict[str, Any]:
    report = host.install_plugin(plugin(name, list(tools), manifest=manifest))
    assert "error" not in report, report
    return report


def _session(host: ReferenceHostAdapter, **spec: Any) -> str:
    answer = host.open_session({"identity": {"userId": "u-1"}, **spec})
    assert "session" in answer, answer
    return answer["session"]


def _advertised(host: ReferenceHostAdapter, session: str, name: str) -> dict[str, Any] | None:
    return next((entry for entry in host.compose(session)["tools"] if entry["name"] == name), None)


def _catalog(host: ReferenceHostAdapter, session: str, name: str) -> dict[str, Any] | None:
    return next((entry for entry in host.compose(session)["catalog"] if entry["name"] == name), None)


def _properties(entry: dict[str, Any] | None) -> set[str]:
    assert entry is not None
    return set(entry["parameters"].get("properties") or {})


def _load(host: ReferenceHostAdapter, session: str, name: str) -> None:
    answer = host.call(session, "ToolSearch", {"query": f"select:{name}"})
    assert name in answer["details"].get("loaded", []), answer


# -- CAP ---------------------------------------------------------------------------------------------


def test_cap_3_an_omitted_external_option_is_never_capped(hosts: Pair) -> None:
    """CAP-3: an internal tool registered without the external option keeps its long description."""
    long = "word " * 300

    def description_bytes(host: ReferenceHostAdapter) -> int:
        _install(host, tool("local_long", description=long))
        entry = _advertised(host, _session(host), "local_long")
        assert entry is not None
        return len(entry["description"].encode())

    differ(hosts, "cap_3_caps_unstated_origin", description_bytes, len(long.encode()), 1000)


def test_cap_3_a_strict_serialisation_keeps_every_property(hosts: Pair) -> None:
    """CAP-3: an internal tool is never cut down: its optional properties stay advertised."""

    def properties(host: ReferenceHostAdapter) -> set[str]:
        _install(host, tool("local", parameters=flat_schema({"a": "string"}, {"b": "string"})))
        return _properties(_advertised(host, _session(host), "local"))

    differ(hosts, "cap_3_strict_drops_optional_properties", properties, {"a", "b", "reason"}, {"a", "reason"})


def test_cap_2_counts_bytes_not_characters(hosts: Pair) -> None:
    """CAP-2: a definition over 8,000 UTF-8 bytes (3,000 three-byte characters) is replaced, though
    it has fewer than 8,000 characters."""

    def replaced(host: ReferenceHostAdapter) -> bool:
        parameters = {"type": "object", "properties": {"q": {"type": "string", "description": "漢" * 3000}}}
        _install(host, tool("mcp__srv__big", parameters=parameters, external=True))
        entry = _advertised(host, _session(host), "mcp__srv__big")
        return "q" not in _properties(entry)

    differ(hosts, "cap_2_counts_characters", replaced, True, False)


def test_cap_4_forwards_decomposed_text_as_sent(hosts: Pair) -> None:
    """CAP-4: an external call's multi-byte arguments reach the owner byte for byte, nested ones too."""
    sent = {"text": "Cafe\u0301", "nested": {"items": ["n\u0303"]}}

    def received(host: ReferenceHostAdapter) -> Any:
        _install(host, tool("mcp__srv__echo", handler=ECHO, external=True))
        answer = host.call(_session(host), "mcp__srv__echo", sent)
        return answer["observations"][0]["value"]

    composed = {"text": "Caf\u00e9", "nested": {"items": ["\u00f1"]}}
    assert unicodedata.normalize("NFC", sent["text"]) == composed["text"]
    differ(hosts, "cap_4_normalizes_external_strings", received, sent, composed)


def test_cap_4_a_replaced_definition_is_still_not_validated(hosts: Pair) -> None:
    """CAP-4: an external tool advertised with the permissive schema gets its calls as sent, also
    when they break the schema its owner registered."""

    def ran(host: ReferenceHostAdapter) -> bool:
        padded = {"type": "string", "description": "x" * 9000}
        parameters = {"type": "object", "required": ["q"], "properties": {"q": padded}}
        _install(host, tool("mcp__srv__big", parameters=parameters, external=True))
        return host.call(_session(host), "mcp__srv__big", {"q": 1})["handlerRan"]

    differ(hosts, "cap_4_validates_replaced_definitions", ran, True, False)


# -- REASON ------------------------------------------------------------------------------------------


def test_reason_1_core_tools_gain_reason(hosts: Pair) -> None:
    """REASON-1: every internal tool gains reason, the host's core tools included."""

    def read_has_reason(host: ReferenceHostAdapter) -> bool:
        return "reason" in _properties(_advertised(host, _session(host), "Read"))

    differ(hosts, "reason_1_core_tools_without_reason", read_has_reason, True, False)


def test_reason_1_mcp_named_internal_tools_gain_reason(hosts: Pair) -> None:
    """REASON-1: an internal tool gains reason whatever its name, an mcp__ one included."""

    def has_reason(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("mcp__local__look", external=False))
        return "reason" in _properties(_advertised(host, _session(host), "mcp__local__look"))

    differ(hosts, "reason_1_mcp_names_excluded", has_reason, True, False)


def test_reason_1_a_loaded_deferred_tool_gains_reason(hosts: Pair) -> None:
    """REASON-1: a deferred internal tool, once loaded, is advertised with reason like any other."""

    def has_reason(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("lazy"), manifest={"deferLoading": ["lazy"]})
        session = _session(host)
        _load(host, session, "lazy")
        return "reason" in _properties(_advertised(host, session, "lazy"))

    differ(hosts, "reason_1_loaded_tools_without_reason", has_reason, True, False)


def test_reason_3_a_loaded_deferred_external_tool_gains_nothing(hosts: Pair) -> None:
    """REASON-3: a deferred external tool, once loaded, is advertised as registered (no reason)."""

    def has_reason(host: ReferenceHostAdapter) -> bool:
        _install(host, tool("mcp__srv__lazy", external=True), manifest={"deferLoading": ["mcp__srv__lazy"]})
        session = _session(host)
        _load(host, session, "mcp__srv__lazy")
        return "reason" in _properties(_advertised(host, session, "mcp__srv__lazy"))

    differ(hosts, "reason_3_loaded_external_gains_reason", has_reason, False, True)


# -- EXT ---------------------------------------------------------------------------------------------


def _accepted(host: ReferenceHostAdapter, *tools: dict[str, Any], manifest: dict[str, Any] | None = None) -> list[str]:
    return _install(host, *tools, manifest=manifest)["accepted"]


def test_ext_1_true_is_accepted_without_a_manifest_entry(hosts: Pair) -> None:
    """EXT-1: external: true is a boolean: accepted (and external), declared in provides.tools or not."""

    def registered(host: ReferenceHostAdapter) -> bool:
        return _accepted(host, tool("mcp__srv__fetch", external=True)) == ["mcp__srv__fetch"]

    differ(hosts, "ext_1_external_needs_declaration", registered, True, False)


def test_ext_1_false_is_accepted(hosts: Pair) -> None:
    """EXT-1: external: false is a boolean: accepted, internal."""

    def registered(host: ReferenceHostAdapter) -> bool:
        return _accepted(host, tool("local", external=False)) == ["local"]

    differ(hosts, "ext_1_explicit_false_refused", registered, True, False)


def _origin(host: ReferenceHostAdapter, session: str, name: str) -> str | None:
    entry = _catalog(host, session, name)
    return None if entry is None else entry["origin"]


def test_ext_2_a_plain_name_can_be_external(hosts: Pair) -> None:
    """EXT-2: origin comes from the option alone: a plainly named tool with external: true is external."""

    def origin(host: ReferenceHostAdapter) -> str | None:
        _install(host, tool("fetch_page", external=True))
        return _origin(host, _session(host), "fetch_page")

    differ(hosts, "ext_2_external_needs_mcp_name", origin, "external", "internal")


def _collide(
    host: ReferenceHostAdapter,
    winner: dict[str, Any],
    loser: dict[str, Any],
    loser_manifest: dict[str, Any] | None = None,
) -> None:
    _install(host, winner, name="first")
    report = _install(host, loser, name="second", manifest=loser_manifest)
    assert [refusal["rule"] for refusal in report["refused"]] == ["EXT-3"], report


def _metadata(host: ReferenceHostAdapter, name: str) -> tuple[str, bool]:
    entry = _catalog(host, _session(host), name)
    assert entry is not None
    return entry["origin"], entry["readOnly"]


WILDCARD = {"provides": {"tools": ["mcp__*"], "readOnlyTools": ["mcp__*"]}}


def test_ext_3_a_losing_wildcard_classifies_nothing(hosts: Pair) -> None:
    """EXT-3: a registration rejected by a collision contributes no read-only classification, also
    when its plugin declares readOnlyTools ['mcp__*']."""

    def metadata(host: ReferenceHostAdapter) -> tuple[str, bool]:
        _collide(host, tool("mcp__srv__x", external=True), tool("mcp__srv__x", external=True), WILDCARD)
        return _metadata(host, "mcp__srv__x")

    differ(hosts, "ext_3_loser_wildcard_classifies_winner", metadata, ("external", False), ("external", True))


def test_ext_3_the_winner_keeps_its_origin(hosts: Pair) -> None:
    """EXT-3: metadata follows the accepted owner: an external winner stays external when an internal
    registration of its name is rejected."""

    def metadata(host: ReferenceHostAdapter) -> tuple[str, bool]:
        _collide(host, tool("mcp__srv__x", external=True), tool("mcp__srv__x"))
        return _metadata(host, "mcp__srv__x")

    differ(hosts, "ext_3_loser_metadata_overwrites_winner", metadata, ("external", False), ("internal", False))


def test_ext_3_a_core_name_keeps_the_core_origin(hosts: Pair) -> None:
    """EXT-3: a plugin's rejected external registration of a core tool's name contributes no origin."""

    def metadata(host: ReferenceHostAdapter) -> tuple[str, bool]:
        report = _install(host, tool("Read", external=True), name="shadow")
        assert report["accepted"] == []
        return _metadata(host, "Read")

    differ(hosts, "ext_3_core_name_takes_plugin_origin", metadata, ("internal", True), ("external", True))


def test_ext_3_metadata_survives_later_merges(hosts: Pair) -> None:
    """EXT-3: a loser's exact read-only declaration classifies nothing, after later installs too."""

    def read_only_before_and_after(host: ReferenceHostAdapter) -> tuple[bool, bool]:
        manifest = {"provides": {"tools": ["shared"], "readOnlyTools": ["shared"]}}
        _collide(host, tool("shared"), tool("shared"), manifest)
        before = _metadata(host, "shared")[1]
        _install(host, tool("mcp__other__y", external=True), name="unrelated")
        return before, _metadata(host, "shared")[1]

    differ(hosts, "ext_3_later_merge_rederives_read_only", read_only_before_and_after, (False, False), (False, True))


def test_ext_4_a_loaded_mcp_named_internal_tool_stays_internal(hosts: Pair) -> None:
    """EXT-4: loading does not decide origin: a deferred internal mcp__ tool is internal once loaded."""

    def origin(host: ReferenceHostAdapter) -> str | None:
        _install(host, tool("mcp__local__lazy", external=False), manifest={"deferLoading": ["mcp__local__lazy"]})
        session = _session(host)
        _load(host, session, "mcp__local__lazy")
        return _origin(host, session, "mcp__local__lazy")

    differ(hosts, "ext_4_loaded_mcp_name_becomes_external", origin, "internal", "external")


def test_ext_4_an_admin_override_keeps_the_origin(hosts: Pair) -> None:
    """EXT-4: a deferred external tool an administrator's override keeps loaded is still external."""

    def origin(host: ReferenceHostAdapter) -> str | None:
        _install(host, tool("mcp__srv__pinned", external=True), manifest={"deferLoading": ["mcp__srv__pinned"]})
        session = _session(host, deferral={"adminOverrides": ["mcp__srv__pinned"]})
        return _origin(host, session, "mcp__srv__pinned")

    differ(hosts, "ext_4_overridden_external_becomes_internal", origin, "external", "internal")


# -- REG ---------------------------------------------------------------------------------------------


def test_reg_4_details_never_replace_the_model_result(hosts: Pair) -> None:
    """REG-4: details is host-only, also when its keys are named like the result's own fields."""

    def model_content(host: ReferenceHostAdapter) -> Any:
        handler = [
            {"op": "details", "details": {"content": [{"type": "text", "text": "SECRET"}], "isError": True}},
            {"op": "text", "text": "public"},
        ]
        _install(host, tool("Shadow", handler=handler))
        result = host.call(_session(host), "Shadow", {})["modelResult"]
        return result["content"], result["isError"]

    differ(
        hosts,
        "reg_4_details_merged_into_result",
        model_content,
        ([{"type": "text", "text": "public"}], False),
        ([{"type": "text", "text": "SECRET"}], True),
    )


def _names(host: ReferenceHostAdapter, session: str) -> tuple[set[str], set[str]]:
    composed = host.compose(session)
    return {e["name"] for e in composed["catalog"]}, {e["name"] for e in composed["tools"]}


def test_reg_5_a_read_only_name_registers_nothing_in_children(hosts: Pair) -> None:
    """REG-5: an exact readOnlyTools name no plugin registered is absent from a read-only child's lists."""

    def child_names(host: ReferenceHostAdapter) -> tuple[set[str], set[str]]:
        manifest = {"provides": {"tools": ["Real", "Ghost"], "readOnlyTools": ["Real", "Ghost"]}}
        _install(host, tool("Real"), manifest=manifest)
        child = host.delegate(_session(host), {"readOnly": True})["session"]
        catalog, tools = _names(host, child)
        return catalog & {"Real", "Ghost"}, tools & {"Real", "Ghost"}

    differ(
        hosts,
        "reg_5_read_only_names_offered_to_children",
        child_names,
        ({"Real"}, {"Real"}),
        ({"Real", "Ghost"}, {"Real", "Ghost"}),
    )


def test_reg_5_a_defer_loading_name_registers_nothing(hosts: Pair) -> None:
    """REG-5: a name listed only in deferLoading is not even a deferred catalog entry."""

    def catalog(host: ReferenceHostAdapter) -> set[str]:
        _install(host, tool("Real"), manifest={"provides": {"tools": ["Real"]}, "deferLoading": ["Real", "Ghost"]})
        return _names(host, _session(host))[0] & {"Real", "Ghost"}

    differ(hosts, "reg_5_deferred_names_in_catalog", catalog, {"Real"}, {"Real", "Ghost"})


def test_reg_5_a_wildcard_in_provides_registers_nothing(hosts: Pair) -> None:
    """REG-5: provides.tools ['mcp__*'] with no external registration adds no catalog entry."""

    def catalog(host: ReferenceHostAdapter) -> set[str]:
        _install(host, tool("Real"), manifest={"provides": {"tools": ["Real", "mcp__*"]}})
        return {name for name in _names(host, _session(host))[0] if name.startswith("mcp__")}

    differ(hosts, "reg_5_wildcard_family_placeholder", catalog, set(), {"mcp__*"})


def test_reg_5_a_plugin_that_registers_nothing_adds_nothing(hosts: Pair) -> None:
    """REG-5: a plugin whose register() registers nothing adds nothing, whatever its manifest lists."""

    def catalog(host: ReferenceHostAdapter) -> set[str]:
        _install(host, manifest={"provides": {"tools": ["Ghost"]}})
        return _names(host, _session(host))[0] & {"Ghost"}

    differ(hosts, "reg_5_empty_plugin_falls_back_to_manifest", catalog, set(), {"Ghost"})


def _refusal_stage(
    host: ReferenceHostAdapter, spec: dict[str, Any], policy: dict[str, Any] | None = None, arguments: Any = None
) -> tuple[str | None, bool]:
    _install(host, tool("Mutator", parameters=flat_schema({"value": "string"})))
    if policy is not None:
        host.set_policy("u-1", policy)
    answer = host.call(_session(host, **spec), "Mutator", {"value": "x"} if arguments is None else arguments)
    return (answer.get("refusal") or {}).get("stage"), answer["handlerRan"]


def test_reg_6_the_boundary_refuses_before_plan_mode(hosts: Pair) -> None:
    """REG-6: a call both the permission boundary and plan mode refuse is refused by the boundary."""

    def stage(host: ReferenceHostAdapter) -> tuple[str | None, bool]:
        return _refusal_stage(host, {"mode": "plan", "permissions": {"deny": ["Mutator"]}})

    differ(hosts, "reg_6_plan_before_boundary", stage, ("boundary", False), ("plan", False))


def test_reg_6_plan_mode_refuses_before_the_grant(hosts: Pair) -> None:
    """REG-6: a call both plan mode and the plugin grant refuse is refused by plan mode."""

    def stage(host: ReferenceHostAdapter) -> tuple[str | None, bool]:
        return _refusal_stage(host, {"mode": "plan"}, {"pluginGrants": []})

    differ(hosts, "reg_6_grant_before_plan", stage, ("plan", False), ("grant", False))


def test_reg_6_a_wildcard_hook_applies_to_every_tool(hosts: Pair) -> None:
    """REG-6: a hook for '*' is an applicable hook for every call: its deny refuses."""

    def stage(host: ReferenceHostAdapter) -> tuple[str | None, bool]:
        return _refusal_stage(host, {"hooks": [{"tool": "*", "decision": "deny"}]})

    differ(hosts, "reg_6_wildcard_hooks_ignored", stage, ("hook", False), (None, True))


def test_reg_6_hooks_run_before_validation(hosts: Pair) -> None:
    """REG-6 (Reading): validation comes after the hooks: a call a hook denies and validation would
    refuse is refused by the hook."""

    def stage(host: ReferenceHostAdapter) -> tuple[str | None, bool]:
        return _refusal_stage(host, {"hooks": [{"tool": "Mutator", "decision": "deny"}]}, arguments={"value": 1})

    differ(hosts, "reg_6_validation_before_hooks", stage, ("hook", False), ("validation", False))


def test_reg_6_a_call_no_stage_refuses_runs(hosts: Pair) -> None:
    """REG-6: a call that passes every stage runs its handler, beside a denied tool whose name is a prefix of it."""

    def stage(host: ReferenceHostAdapter) -> tuple[str | None, bool]:
        return _refusal_stage(host, {"permissions": {"deny": ["Mutat"]}})

    differ(hosts, "reg_6_boundary_denies_by_prefix", stage, (None, True), ("boundary", False))


# -- NAME-7 ------------------------------------------------------------------------------------------


def _journaled(host: ReferenceHostAdapter, spec: dict[str, Any], arguments: Any) -> Any:
    _install(host, spec)
    return host.call(_session(host), spec["name"], arguments)["journal"]["arguments"]


def test_name_7_nulls_and_empty_strings_are_journaled(hosts: Pair) -> None:
    """NAME-7: the journal records null and empty values as the model sent them."""
    sent = {"a": None, "b": "", "c": "é"}

    def journaled(host: ReferenceHostAdapter) -> Any:
        return _journaled(host, tool("Loose", parameters={"type": "object", "properties": {}}), sent)

    differ(hosts, "name_7_journal_drops_nulls", journaled, sent, {"c": "é"})


def test_name_7_a_refused_call_is_journaled_as_sent(hosts: Pair) -> None:
    """NAME-7: a call the host's validation refuses is journaled with the arguments the model sent."""
    sent = {"value": "x", "stale_name": "y"}

    def journaled(host: ReferenceHostAdapter) -> Any:
        strict = {**flat_schema({"value": "string"}), "additionalProperties": False}
        return _journaled(host, tool("Strict", parameters=strict), sent)

    differ(hosts, "name_7_refused_call_journaled_cleaned", journaled, sent, {"value": "x"})


def test_name_7_a_throwing_handler_leaves_the_journal_as_sent(hosts: Pair) -> None:
    """NAME-7: a handler that mutates its params and then throws does not change the journal."""
    sent = {"value": "x"}

    def journaled(host: ReferenceHostAdapter) -> Any:
        handler = [{"op": "mutate", "set": {"value": "changed"}}, {"op": "throw"}]
        return _journaled(host, tool("Thrower", parameters=flat_schema({"value": "string"}), handler=handler), sent)

    differ(hosts, "name_7_throw_journals_handler_params", journaled, sent, {"value": "changed"})


def test_name_7_an_external_owner_cannot_change_the_journal(hosts: Pair) -> None:
    """NAME-7: an external tool's call is journaled as sent, though its owner mutates its params."""
    sent = {"value": "x"}

    def journaled(host: ReferenceHostAdapter) -> Any:
        handler = [{"op": "mutate", "set": {"value": "changed"}}, {"op": "text", "text": "ok"}]
        return _journaled(host, tool("mcp__srv__mut", handler=handler, external=True), sent)

    differ(hosts, "name_7_external_args_aliased", journaled, sent, {"value": "changed"})


# -- SCHEMA-1 ----------------------------------------------------------------------------------------


EITHER = {
    "anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["b"]},
    ]
}


def test_schema_1_an_external_root_combinator_is_the_owners(hosts: Pair) -> None:
    """SCHEMA-1: only a local schema is refused for a root combinator; an external one registers."""

    def accepted(host: ReferenceHostAdapter) -> list[str]:
        return _accepted(host, tool("mcp__srv__either", parameters=EITHER, external=True))

    differ(hosts, "schema_1_external_combinators_refused", accepted, ["mcp__srv__either"], [])


def test_schema_1_nested_unions_are_accepted(hosts: Pair) -> None:
    """SCHEMA-1: unions inside properties are fine; only the root must be flat."""

    def accepted(host: ReferenceHostAdapter) -> list[str]:
        nested = {"type": "object", "properties": {"mode": {"anyOf": [{"const": "fast"}, {"const": "slow"}]}}}
        return _accepted(host, tool("Nested", parameters=nested))

    differ(hosts, "schema_1_nested_combinators_refused", accepted, ["Nested"], [])


def test_reg_4_details_of_a_failed_call_stay_host_only(hosts: Pair) -> None:
    """REG-4: a handler that fills details and then throws: the is_error result the model gets carries none."""

    def leaked(host: ReferenceHostAdapter) -> bool:
        handler = [{"op": "details", "details": {"token": "SECRET"}}, {"op": "throw", "message": "disk full"}]
        _install(host, tool("Fragile", handler=handler))
        result = host.call(_session(host), "Fragile", {})["modelResult"]
        assert result["isError"] is True
        return "SECRET" in str(result)

    differ(hosts, "reg_4_partial_details_in_error", leaked, False, True)
