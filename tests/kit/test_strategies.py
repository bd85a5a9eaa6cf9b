"""The public hypothesis strategies produce what they promise (pytest_toolconformance.strategies)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolconformance import measures
from pytest_toolconformance import strategies as tcs
from pytest_toolconformance.host.scripted import validate_plugin
from reference_host import Host, ScriptedPlugin
from reference_host.manifest import parse_manifest
from reference_host.schemas import flat_object_problem
from tests.kit.json_draws import SETTINGS


def _draw_schema_and(strategy_for: Any) -> st.SearchStrategy[tuple[dict[str, Any], Any]]:
    return tcs.flat_schemas().flatmap(lambda s: strategy_for(s).map(lambda a: (s, a)))


# -- descriptions and definitions at the caps ----------------------------------------------------------


@pytest.mark.parametrize("limit", [8, 100, 1000])
def test_descriptions_near_straddle_the_limit(limit: int) -> None:
    seen: set[int] = set()

    @SETTINGS
    @given(tcs.descriptions_near(limit))
    def check(text: str) -> None:
        size = measures.utf8_len(text)
        seen.add(size - limit)
        assert size in (limit - 1, limit, limit + 1)
        last = text[-1]
        assert measures.utf8_len(last) >= 2, "ends in a multi-byte character"
        if size == limit + 1:
            start = size - measures.utf8_len(last)
            assert start < limit < size, "the last character crosses the cut"
            assert measures.utf8_prefix(text, limit) == text[:-1]
        else:
            assert measures.utf8_prefix(text, limit) == text
        text.encode("utf-8")  # valid: no lone surrogates

    check()
    assert seen == {-1, 0, 1}


def test_descriptions_near_mix_character_widths() -> None:
    widths: set[int] = set()

    @SETTINGS
    @given(tcs.descriptions_near(1000))
    def check(text: str) -> None:
        widths.update(measures.utf8_len(c) for c in text)

    check()
    assert widths == {1, 2, 3, 4}


def test_external_definitions_near_are_exactly_sized() -> None:
    sizes: set[int] = set()
    cut: list[bool] = []

    @SETTINGS
    @given(tcs.external_definitions_near(8000))
    def check(definition: dict[str, Any]) -> None:
        name, description, parameters = definition["name"], definition["description"], definition["parameters"]
        size = measures.definition_bytes(name, description, parameters)
        assert size in (7999, 8000, 8001)
        sizes.add(size)
        cut.append(measures.utf8_len(description) > 1000)
        # What Python's default json.dumps or a character count would say is a different number.
        assert (
            len(
                measures.js_stringify(
                    {"name": name, "description": measures.utf8_prefix(description, 1000), "parameters": parameters}
                )
            )
            < size
        )
        jsonschema.Draft202012Validator.check_schema(parameters)

    check()
    assert sizes == {7999, 8000, 8001}
    assert any(cut) and not all(cut), "some descriptions are over the CAP-1 limit, some not"


# -- schemas and arguments ---------------------------------------------------------------------------


@SETTINGS
@given(tcs.flat_schemas())
def test_flat_schemas_are_flat_valid_schemas(schema: dict[str, Any]) -> None:
    assert flat_object_problem(schema) is None
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "reason" not in schema["properties"]
    assert list(schema)[:1] == ["type"] and (list(schema)[1] == "required") == ("required" in schema)
    assert set(schema.get("required") or []) <= set(schema["properties"])


def test_flat_schemas_cover_every_kind() -> None:
    kinds: set[str] = set()

    # A claim about what the draws cover, so the draws are the same on every run (it failed 1 run in
    # 15 unseeded); 200 derandomized draws cover every kind with a wide margin.
    @settings(SETTINGS, derandomize=True, max_examples=200)
    @given(tcs.flat_schemas())
    def check(schema: dict[str, Any]) -> None:
        for prop in schema["properties"].values():
            if "anyOf" in prop:
                kinds.add("union")
            elif "const" in prop:
                kinds.add("literal")
            elif prop["type"] == "array":
                kinds.add("array")
            else:
                kinds.add(prop["type"])
        kinds.add("required" if schema.get("required") else "optional-only")

    check()
    assert kinds >= {"string", "number", "integer", "boolean", "array", "literal", "union", "required"}


@SETTINGS
@given(_draw_schema_and(tcs.arguments_for))
def test_arguments_for_are_accepted(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    schema, arguments = case
    assert jsonschema.Draft202012Validator(schema).is_valid(arguments), arguments
    assert "reason" not in arguments
    json.dumps(arguments)  # JSON data


@SETTINGS
@given(_draw_schema_and(tcs.breaking_arguments_for))
def test_breaking_arguments_for_are_rejected(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    schema, arguments = case
    assert not jsonschema.Draft202012Validator(schema).is_valid(arguments), arguments


def test_breaking_arguments_for_refuses_an_unbreakable_schema() -> None:
    with pytest.raises(ValueError, match="every object satisfies"):
        tcs.breaking_arguments_for({"type": "object", "properties": {}})


# -- identities, accesses, catalogs --------------------------------------------------------------------


@SETTINGS
@given(tcs.identities(), tcs.accesses())
def test_identities_and_accesses_have_the_contract_shapes(identity: dict[str, Any], access: dict[str, Any]) -> None:
    assert isinstance(identity["userId"], str) and identity["userId"]
    assert isinstance(identity["owner"], bool) and isinstance(identity["admin"], bool)
    assert set(access) <= {"admin", "projectIds", "readOnly", "planMode", "roots", "principal", "planFile"}
    assert not access["planMode"] or access["readOnly"]
    assert "planFile" not in access or access["planMode"]
    assert "/workspace" in access["roots"]


@SETTINGS
@given(tcs.catalogs(read_only=True), tcs.session_specs())
def test_catalogs_install_as_described(catalog: tcs.Catalog, spec: dict[str, Any]) -> None:
    names = [t.name for t in catalog.tools]
    assert len(set(names)) == len(names)
    plugins = [p["name"] for p in catalog.plugins]
    for needle in names + plugins:
        for other in names + plugins:
            assert needle == other or needle not in other, f"{needle!r} is inside {other!r}"
        assert not any(needle in t.description for t in catalog.tools)
    host = Host()
    try:
        for doc in catalog.plugins:
            validate_plugin(doc)
            parse_manifest(doc.get("manifest"))
            scripted = ScriptedPlugin(doc)
            report = host.install_plugin(scripted, manifest=scripted.manifest)
            assert sorted(report.accepted) == sorted(t["name"] for t in doc["tools"]), report.as_dict()
        for tool in catalog.tools:
            reg = host.registry.get(tool.name)
            assert reg is not None
            assert (reg.external, reg.deferred, reg.read_only, reg.plan_admitted) == (
                tool.external,
                tool.deferred,
                tool.read_only,
                tool.plan_runs,
            ), tool
            assert (reg.owner_user_id, reg.project_id, reg.platform) == (
                tool.owner_user_id,
                tool.project_id,
                tool.platform,
            )
        session = host.open_session(spec)
        listed = {e["name"] for e in session.compose().catalog}
        assert listed & set(names) == {t.name for t in catalog.visible_to(spec)}
    finally:
        host.close()


def test_catalogs_mix_every_kind_of_tool() -> None:
    seen: set[str] = set()

    @SETTINGS
    @given(tcs.catalogs(read_only=True))
    def check(catalog: tcs.Catalog) -> None:
        for tool in catalog.tools:
            seen.add("external" if tool.external else "internal")
            seen.update(
                k
                for k, v in (
                    ("deferred", tool.deferred),
                    ("scoped", tool.scoped),
                    ("read-only", tool.read_only),
                    ("mcp-named internal", not tool.external and tool.name.startswith("mcp__")),
                    ("unscoped", not tool.scoped),
                )
                if v
            )
        if catalog.foreign_declarations:
            seen.add("foreign declaration")
        if len(catalog.plugins) > 1:
            seen.add("several plugins")
        for doc in catalog.plugins:
            provides = doc["manifest"].get("provides") or {}
            if doc["name"].startswith("mcp-"):
                seen.add("bridge-named plugin")
            if "mcp__*" in provides.get("tools", []) and "mcp__*" not in provides.get("readOnlyTools", []):
                seen.add("mcp__* family listed without the wildcard")

    check()
    assert seen >= {
        "external",
        "internal",
        "deferred",
        "scoped",
        "unscoped",
        "read-only",
        "mcp-named internal",
        "foreign declaration",
        "several plugins",
        "bridge-named plugin",
        "mcp__* family listed without the wildcard",
    }


@pytest.mark.parametrize("external", [True, False])
def test_catalogs_can_be_all_external_or_all_internal(external: bool) -> None:
    @SETTINGS
    @given(tcs.catalogs(external=external))
    def check(catalog: tcs.Catalog) -> None:
        assert all(t.external is external for t in catalog.tools)
        assert bool(catalog.external_plugins) is external

    check()
