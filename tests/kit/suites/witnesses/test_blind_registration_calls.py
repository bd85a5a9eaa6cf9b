"""Witnesses of broken hosts written blind to the kit's checks, for the registration, composition and
call rules (CAP-1..3, SCHEMA-1, REG-4, REG-6, EXT-1, EXT-3, MANIFEST-2, MANIFEST-3, DIAG-1, NAME-7,
ERR-1): each shows, through the adapter contract alone, that the reference host does what the rule's
sentence says in one cell and the broken host does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from pytest_toolconformance.host.scripted import tool
from tests.kit.suites.witnesses import Pair, optional_reason
from tests.kit.suites.witnesses import entry_named as _entry
from tests.kit.suites.witnesses import installed as _install
from tests.kit.suites.witnesses import names_of as _names
from tests.kit.suites.witnesses import ran_and_refused_at as _ran
from tests.kit.suites.witnesses import session_of as _session
from tests.kit.suites.witnesses import text_of as _text

USER = {"identity": {"userId": "u1"}}
ECHO = [{"op": "echo"}]
QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


def _received(outcome: dict[str, Any]) -> Any:
    """The arguments an echoing handler received."""
    return next(o["value"] for o in outcome["observations"] if o["op"] == "params")


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _long_description(words: str) -> str:
    """A description well over 1,000 UTF-8 bytes (multi-byte characters at the cut), ``words`` at its end."""
    return "Fetches a wiki page ü€ and returns it. " * 40 + words


# -- CAP -----------------------------------------------------------------------------------------------------


def test_cap_1_a_loaded_deferred_external_tool_is_capped(hosts: Pair) -> None:
    """CAP-1: a deferred external tool, once loaded, is advertised with its description capped."""
    description = _long_description("Loaded from the wiki bridge.")
    assert _bytes(description) > 1500

    def descriptions(host: ReferenceHostAdapter) -> tuple[int, int, int, bool]:
        _install(
            host,
            tool("mcp__wiki__page", description=description, parameters=QUERY, external=True),
            tool("mcp__wiki__eager", description=description, parameters=QUERY, external=True),
            name="wiki",
            manifest={"provides": {"tools": ["mcp__*"]}, "deferLoading": ["mcp__wiki__page"]},
        )
        session = _session(host, USER)
        first = host.compose(session)
        assert _entry(first["catalog"], "mcp__wiki__page")["deferred"] is True
        eager = _entry(first["tools"], "mcp__wiki__eager")["description"]
        assert _bytes(eager) <= 1000 and description.startswith(eager)
        loaded = host.call(session, "ToolSearch", {"query": "select:mcp__wiki__page"})
        assert loaded["details"]["loaded"] == ["mcp__wiki__page"]
        composed = host.compose(session)
        entry = _entry(composed["catalog"], "mcp__wiki__page")
        assert (entry["deferred"], entry["origin"]) == (False, "external")
        listed = _entry(composed["tools"], "mcp__wiki__page")["description"]
        sent = _entry(composed["payload"]["tools"], "mcp__wiki__page")["description"]
        return _bytes(eager), _bytes(listed), _bytes(sent), description.startswith(listed)

    reference, mutant = hosts("cap_1_loaded_external_uncapped")
    eager, listed, sent, prefix = descriptions(reference)
    assert listed == sent == eager and 996 < listed <= 1000 and prefix
    assert descriptions(mutant) == (eager, _bytes(description), _bytes(description), True)


def test_cap_2_the_replacement_schema_admits_any_object(hosts: Pair) -> None:
    """CAP-2: an over-8,000-byte external definition is advertised with a schema that admits any object."""
    properties = {f"field_{i:03}": {"type": "string", "description": "A field of the record " * 4} for i in range(120)}
    big = {"type": "object", "properties": properties, "required": ["field_000", "field_001"]}
    assert len(json.dumps(big)) > 8000

    def advertised(host: ReferenceHostAdapter) -> tuple[dict[str, Any], dict[str, Any], list[bool]]:
        _install(host, tool("mcp__crm__update", parameters=big, handler=ECHO, external=True), name="crm")
        session = _session(host, USER)
        composed = host.compose(session)
        listed = _entry(composed["tools"], "mcp__crm__update")["parameters"]
        sent = _entry(composed["payload"]["tools"], "mcp__crm__update")["parameters"]
        admits = [
            jsonschema.Draft202012Validator(schema).is_valid(args)
            for schema in (listed, sent)
            for args in ({}, {"anything": 1})
        ]
        # The owner still gets any call as sent (CAP-4), whatever the advertised schema.
        assert _received(host.call(session, "mcp__crm__update", {})) == {}
        return listed, sent, admits

    reference, mutant = hosts("cap_2_permissive_schema_keeps_required")
    listed, sent, admits = advertised(reference)
    assert listed == sent and listed["properties"] == {} and "omitted" in listed["description"]
    assert admits == [True, True, True, True]
    broken, broken_sent, broken_admits = advertised(mutant)
    assert broken == broken_sent == {**listed, "required": ["field_000", "field_001"]}
    assert broken_admits == [False, False, False, False]


def test_cap_3_an_mcp_named_internal_tool_is_never_capped(hosts: Pair) -> None:
    """CAP-3: an internal tool named ``mcp__...`` keeps its whole description, as a plain-named one does."""
    description = _long_description("Local notes, not a bridge.")

    def descriptions(host: ReferenceHostAdapter) -> tuple[list[str], dict[str, int], dict[str, int]]:
        _install(
            host,
            tool("mcp__local__notes", description=description, parameters=QUERY, external=False),
            tool("local_notes", description=description, parameters=QUERY),
            name="notes",
        )
        composed = host.compose(_session(host, USER))
        names = ("mcp__local__notes", "local_notes")
        origins = [_entry(composed["catalog"], name)["origin"] for name in names]
        assert all(optional_reason(_entry(composed["tools"], name)["parameters"]) for name in names)
        listed = {name: _bytes(_entry(composed["tools"], name)["description"]) for name in names}
        sent = {name: _bytes(_entry(composed["payload"]["tools"], name)["description"]) for name in names}
        return origins, listed, sent

    reference, mutant = hosts("cap_3_mcp_named_internal_description_cut")
    whole = {"mcp__local__notes": _bytes(description), "local_notes": _bytes(description)}
    assert descriptions(reference) == (["internal", "internal"], whole, whole)
    origins, listed, sent = descriptions(mutant)
    assert origins == ["internal", "internal"] and listed == sent
    assert listed["local_notes"] == whole["local_notes"] and listed["mcp__local__notes"] <= 1000


# -- SCHEMA --------------------------------------------------------------------------------------------------


def test_schema_1_an_explicit_false_registration_is_checked_flat(hosts: Pair) -> None:
    """SCHEMA-1: a root-combinator schema registered with an explicit ``external: false`` is refused and absent."""
    union = {
        "anyOf": [
            {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
            {"type": "object", "properties": {"latest": {"type": "boolean"}}, "required": ["latest"]},
        ]
    }

    def registered(host: ReferenceHostAdapter) -> tuple[list[str], dict[str, str], set[str]]:
        report = _install(
            host,
            tool("ShareOmitted", parameters=union),
            tool("ShareExplicit", parameters=union, external=False),
            tool("mcp__share__pick", parameters=union, external=True),
            name="share",
        )
        composed = host.compose(_session(host, USER))
        offered = (_names(composed["tools"]) | _names(composed["catalog"])) & {"ShareOmitted", "ShareExplicit"}
        return sorted(report["accepted"]), {r["tool"]: r["rule"] for r in report["refused"]}, offered

    reference, mutant = hosts("schema_1_explicit_false_skips_flat_check")
    accepted, refused, offered = registered(reference)
    assert accepted == ["mcp__share__pick"] and offered == set()
    assert refused == {"ShareOmitted": "SCHEMA-1", "ShareExplicit": "SCHEMA-1"}
    assert registered(mutant) == (
        ["ShareExplicit", "mcp__share__pick"],
        {"ShareOmitted": "SCHEMA-1"},
        {"ShareExplicit"},
    )


# -- REG -----------------------------------------------------------------------------------------------------


def test_reg_4_an_external_tools_details_never_reach_the_model(hosts: Pair) -> None:
    """REG-4: what the model receives of an external tool's result carries nothing of its details."""
    handler = [{"op": "details", "details": {"hostOnly": "snapshot-7f3a"}}, {"op": "text", "text": "page text"}]

    def model_results(host: ReferenceHostAdapter) -> dict[str, tuple[bool, dict[str, Any], list[Any]]]:
        _install(
            host,
            tool("mcp__wiki__read", parameters=QUERY, handler=handler, external=True),
            tool("runner_read", parameters=QUERY, handler=handler, external=True),
            tool("LocalRead", parameters=QUERY, handler=handler),
            name="wiki",
        )
        session = _session(host, USER)
        answers = {}
        for name in ("mcp__wiki__read", "runner_read", "LocalRead"):
            outcome = host.call(session, name, {"query": "home"})
            assert outcome["details"] == {"hostOnly": "snapshot-7f3a"} and not outcome["isError"]
            model = {key: value for key, value in outcome["modelResult"].items() if key != "callId"}
            answers[name] = ("snapshot-7f3a" in json.dumps(model), model, model["content"])
        return answers

    reference, mutant = hosts("reg_4_external_details_as_structured_content")
    answers = model_results(reference)
    assert [leaked for leaked, _, _ in answers.values()] == [False, False, False]
    broken = model_results(mutant)
    assert [leaked for leaked, _, _ in broken.values()] == [True, True, False]
    assert broken["LocalRead"] == answers["LocalRead"]
    assert [content for _, _, content in broken.values()] == [content for _, _, content in answers.values()]


def test_reg_6_a_queued_write_meets_the_applicable_hooks(hosts: Pair, tmp_path: Path) -> None:
    """REG-6: a hook that denies Write refuses a queued host Write before it runs, as it refuses a direct one."""

    def queued(host: ReferenceHostAdapter, root: Path) -> tuple[tuple[bool, str | None], tuple[bool, str | None], bool]:
        root.mkdir()
        hooks = [{"tool": "Write", "decision": "deny", "message": "Writes are reviewed first."}]
        session = _session(host, {**USER, "sandboxRoot": str(root), "hooks": hooks})
        direct = host.call(session, "Write", {"file_path": "/workspace/direct.txt", "content": "x"})
        ticket = host.queue_call(session, "Write", {"file_path": "/workspace/queued.txt", "content": "y"})
        assert "ticket" in ticket, ticket
        (outcome,) = host.run_queued(session)["outcomes"]
        assert not (root / "direct.txt").exists()
        return _ran(direct), _ran(outcome), (root / "queued.txt").exists()

    reference, mutant = hosts("reg_6_queued_writes_skip_hooks")
    assert queued(reference, tmp_path / "reference") == ((False, "hook"), (False, "hook"), False)
    assert queued(mutant, tmp_path / "mutant") == ((False, "hook"), (True, None), True)


def test_reg_6_a_refused_call_has_no_effect(hosts: Pair) -> None:
    """REG-6: a call refused by the boundary, the deny-list, a hook or validation leaves no trace of its handler."""
    demote = [{"op": "policy", "account": "witness-1", "changes": {"admin": False}}, {"op": "text", "text": "done"}]
    value = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}

    def effects(host: ReferenceHostAdapter) -> list[tuple[bool, str | None, bool]]:
        _install(host, tool("Deploy", parameters=value, handler=demote), name="effects")
        host.set_policy("witness-1", {"admin": True})  # before the witness opens: its ceiling is captured then
        witness = _session(host, {"identity": {"userId": "witness-1"}})
        host.set_policy("listed", {"deny": ["Deploy"]})
        sessions = [
            (_session(host, {**USER, "permissions": {"deny": ["Deploy"]}}), {"value": "x"}),
            (_session(host, {"identity": {"userId": "listed"}}), {"value": "x"}),
            (_session(host, {**USER, "hooks": [{"tool": "*", "decision": "deny"}]}), {"value": "x"}),
            (_session(host, USER), {}),
        ]
        seen = []
        for session, arguments in sessions:
            host.set_policy("witness-1", {"admin": True})
            outcome = host.call(session, "Deploy", arguments)
            seen.append((*_ran(outcome), host.current_access(witness)["admin"]))
        return seen

    reference, mutant = hosts("reg_6_refused_handler_runs_first")
    stages = ["boundary", "grant", "hook", "validation"]
    assert effects(reference) == [(False, stage, True) for stage in stages]
    assert effects(mutant) == [(False, stage, False) for stage in stages]


# -- EXT -----------------------------------------------------------------------------------------------------


def test_ext_1_a_numeric_external_option_is_refused(hosts: Pair) -> None:
    """EXT-1: ``external: 1`` and ``external: 0`` are not booleans: each registration is refused."""
    doc = {
        "name": "numbers",
        "tools": [
            {"name": "mcp__n__one", "parameters": QUERY, "options": {"external": 1}},
            {"name": "mcp__n__zero", "parameters": QUERY, "options": {"external": 0}},
            {"name": "mcp__n__yes", "parameters": QUERY, "options": {"external": "yes"}},
            {"name": "mcp__n__true", "parameters": QUERY, "options": {"external": True}},
        ],
    }

    def registered(host: ReferenceHostAdapter) -> tuple[list[str], dict[str, str], dict[str, str]]:
        report = host.install_plugin(doc)
        assert "error" not in report, report
        catalog = host.compose(_session(host, USER))["catalog"]
        origins = {entry["name"]: entry["origin"] for entry in catalog if entry["owner"] == "numbers"}
        return sorted(report["accepted"]), {r["tool"]: r["rule"] for r in report["refused"]}, origins

    reference, mutant = hosts("ext_1_numeric_flags_accepted")
    assert registered(reference) == (
        ["mcp__n__true"],
        dict.fromkeys(("mcp__n__one", "mcp__n__zero", "mcp__n__yes"), "EXT-1"),
        {"mcp__n__true": "external"},
    )
    assert registered(mutant) == (
        ["mcp__n__one", "mcp__n__true", "mcp__n__zero"],
        {"mcp__n__yes": "EXT-1"},
        {"mcp__n__one": "external", "mcp__n__zero": "internal", "mcp__n__true": "external"},
    )


def test_ext_3_a_deferred_winner_keeps_its_own_origin(hosts: Pair) -> None:
    """EXT-3: a registration rejected by a collision gives its origin to no tool, a deferred one included."""

    def after_collision(host: ReferenceHostAdapter) -> tuple[dict[str, tuple[str, str, bool]], list[str]]:
        _install(
            host,
            tool("wiki_search", parameters=QUERY, handler=ECHO),
            tool("wiki_open", parameters=QUERY, handler=ECHO),
            name="wiki",
            manifest={"provides": {"tools": ["wiki_search", "wiki_open"]}, "deferLoading": ["wiki_search"]},
        )
        lost = _install(
            host,
            tool("wiki_search", parameters=QUERY, external=True),
            tool("wiki_open", parameters=QUERY, external=True),
            name="bridge",
        )
        assert lost["accepted"] == []
        session = _session(host, USER)
        assert host.call(session, "ToolSearch", {"query": "select:wiki_search"})["details"]["loaded"] == ["wiki_search"]
        composed = host.compose(session)
        entries = {}
        for name in ("wiki_search", "wiki_open"):
            entry = _entry(composed["catalog"], name)
            entries[name] = (entry["owner"], entry["origin"], entry["readOnly"])
        return entries, sorted(r["tool"] for r in lost["refused"])

    reference, mutant = hosts("ext_3_deferred_winner_takes_loser_origin")
    both = ["wiki_open", "wiki_search"]
    own = {"wiki_search": ("wiki", "internal", False), "wiki_open": ("wiki", "internal", False)}
    assert after_collision(reference) == (own, both)
    assert after_collision(mutant) == ({**own, "wiki_search": ("wiki", "external", False)}, both)


# -- MANIFEST ------------------------------------------------------------------------------------------------


def test_manifest_2_an_override_of_one_tool_leaves_the_others_deferred(hosts: Pair) -> None:
    """MANIFEST-2: an administrator override loads the tool it names; other deferLoading tools stay deferred."""

    def deferred(host: ReferenceHostAdapter) -> tuple[dict[str, bool], dict[str, bool], tuple[bool, str | None]]:
        _install(
            host,
            tool("Lazy"),
            tool("Heavy"),
            name="family",
            manifest={"provides": {"tools": ["Lazy", "Heavy"]}, "deferLoading": ["Lazy", "Heavy"]},
        )
        plain = host.compose(_session(host, USER))["catalog"]
        overridden = _session(host, {**USER, "deferral": {"adminOverrides": ["Heavy"]}})
        catalog = host.compose(overridden)["catalog"]
        flags = [{name: _entry(c, name)["deferred"] for name in ("Lazy", "Heavy")} for c in (plain, catalog)]
        assert host.call(overridden, "Heavy", {})["handlerRan"]
        return flags[0], flags[1], _ran(host.call(overridden, "Lazy", {}))

    reference, mutant = hosts("manifest_2_one_override_undefers_all")
    both = {"Lazy": True, "Heavy": True}
    assert deferred(reference) == (both, {"Lazy": True, "Heavy": False}, (False, "deferral"))
    assert deferred(mutant) == (both, {"Lazy": False, "Heavy": False}, (True, None))


def test_manifest_3_a_wildcard_family_does_not_list_plain_tools(hosts: Pair) -> None:
    """MANIFEST-3: beside ``mcp__*`` in provides.tools, a registered plain-named tool not listed is reported."""

    def findings(host: ReferenceHostAdapter) -> tuple[list[str], list[str], list[str]]:
        audited = _install(
            host, tool("Listed"), tool("Stray"), name="plain", manifest={"provides": {"tools": ["Listed", "Gone"]}}
        )
        bridge = _install(
            host,
            tool("mcp__srv__query", parameters=QUERY, external=True),
            tool("Status"),
            tool("Unlisted"),
            name="bridge",
            manifest={"provides": {"tools": ["mcp__*", "Status"]}},
        )
        # Registration is the live source either way: every registered tool is accepted.
        assert sorted(bridge["accepted"]) == ["Status", "Unlisted", "mcp__srv__query"]
        audit = sorted(f["tool"] for f in audited["findings"] if f["rule"] == "MANIFEST-3")
        return audit, sorted(f["tool"] for f in bridge["findings"] if f["rule"] == "MANIFEST-3"), bridge["accepted"]

    reference, mutant = hosts("manifest_3_wildcard_silences_unlisted")
    audit, found, accepted = findings(reference)
    assert (audit, found) == (["Gone", "Stray"], ["Unlisted"])
    assert findings(mutant) == (audit, [], accepted)


# -- DIAG ----------------------------------------------------------------------------------------------------


def test_diag_1_a_plain_named_external_tool_is_redacted(hosts: Pair) -> None:
    """DIAG-1: a plain-named external tool's name, and the namespace holding it, are redacted in diagnostics."""

    def diagnosed(host: ReferenceHostAdapter) -> tuple[set[str], set[str], dict[str, int]]:
        _install(host, tool("runner_lookup", parameters=QUERY, external=True), tool("runner_status"), name="runner")
        _install(host, tool("mcp__srv__query", parameters=QUERY, external=True), name="bridge")
        composed = host.compose(_session(host, USER))
        assert _entry(composed["catalog"], "runner_lookup")["origin"] == "external"
        assert {"runner_lookup", "mcp__srv__query"} <= _names(composed["payload"]["tools"])
        diagnostics = composed["diagnostics"]
        namespaces = {entry["namespace"] for entry in diagnostics["tools"]}
        return _names(diagnostics["tools"]), namespaces, diagnostics["redacted"]

    reference, mutant = hosts("diag_1_plain_named_external_unredacted")
    names, namespaces, redacted = diagnosed(reference)
    assert "runner_lookup" not in names and "mcp__srv__query" not in names and "runner_status" in names
    assert "plugin:runner" not in namespaces and "plugin:bridge" not in namespaces
    assert redacted == {"tools": 2, "namespaces": 2}
    names, namespaces, redacted = diagnosed(mutant)
    assert "runner_lookup" in names and "mcp__srv__query" not in names
    assert "plugin:runner" in namespaces and "plugin:bridge" not in namespaces
    assert redacted == {"tools": 1, "namespaces": 1}


# -- NAME ----------------------------------------------------------------------------------------------------


def test_name_7_the_journal_keeps_the_reason_the_model_sent(hosts: Pair) -> None:
    """NAME-7: the journal records the call's ``reason`` as sent, although the host consumes it."""
    note = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    sent = {"value": "remember milk", "reason": "noting the user's request"}

    def journaled(host: ReferenceHostAdapter) -> tuple[Any, Any, Any]:
        _install(host, tool("Note", parameters=note, handler=ECHO), name="notes")
        session = _session(host, USER)
        outcome = host.call(session, "Note", json.loads(json.dumps(sent)))
        plain = host.call(session, "Note", {"value": "no reason"})
        assert plain["journal"]["arguments"] == {"value": "no reason"}
        return outcome["journal"]["arguments"], _received(outcome), _text(outcome)

    reference, mutant = hosts("name_7_journal_records_consumed_reason")
    arguments, received, text = journaled(reference)
    assert arguments == sent and received == {"value": "remember milk"}
    assert journaled(mutant) == ({"value": "remember milk"}, received, text)


# -- ERR -----------------------------------------------------------------------------------------------------


def test_err_1_a_tool_that_threw_runs_again_later(hosts: Pair) -> None:
    """ERR-1: after its handler threw, a later call of the same tool runs (and is_error again if it throws)."""

    def calls(host: ReferenceHostAdapter) -> list[tuple[bool, bool, str | None]]:
        _install(
            host,
            tool("Flaky", handler=[{"op": "throw", "message": "upstream said no"}]),
            tool("Steady"),
            tool("Down", handler=[{"op": "throw_transport", "message": "connect ECONNREFUSED"}]),
            name="flaky",
        )
        session = _session(host, USER)
        down = [host.call(session, "Down", {}) for _ in range(2)]
        assert [(o["isError"], o["handlerRan"], o["transport"]) for o in down] == [(True, True, True)] * 2
        outcomes = [host.call(session, name, {}) for name in ("Flaky", "Steady", "Flaky")]
        return [(o["isError"], o["handlerRan"], (o["refusal"] or {}).get("stage")) for o in outcomes]

    reference, mutant = hosts("err_1_thrower_disabled_for_session")
    assert calls(reference) == [(True, True, None), (False, True, None), (True, True, None)]
    assert calls(mutant) == [(True, True, None), (False, True, None), (False, False, "breaker")]
