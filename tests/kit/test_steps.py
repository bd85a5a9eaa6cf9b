"""The step interpreter for Python hosts (pytest_toolconformance/steps.py): a plugin a Python
host builds with it behaves as the reference host's own interpreter of the same scripted plugin."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pytest_toolconformance import steps
from pytest_toolconformance.host import scripted
from reference_host import define_tool, is_transport_failure, mark_transport_failure
from reference_host.facade import JsonHost
from tests.kit.host.test_js_host_kit import _COMPARED, CASES

#: The seam's option names (as a scripted document spells them) -> the reference host's keywords.
OPTION_NAMES = {"external": "external", "ownerUserId": "owner_user_id", "projectId": "project_id",
                "platform": "platform"}
TRANSPORT = steps.Transport(mark=mark_transport_failure, is_tagged=is_transport_failure)


class StepsPlugin:
    """A plugin of a Python host (here the reference host's plugin API) built with the interpreter."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.__name__ = document["name"]

    async def register(self, ctx: Any) -> None:
        def register_tool(tool: Any, options: dict[str, Any] | None = None) -> Any:
            return ctx.register_tool(tool, **{OPTION_NAMES[k]: v for k, v in (options or {}).items()})

        await steps.register_scripted(self.document, register_tool=register_tool,
                                      define_tool=lambda definition: define_tool(**definition), ctx=ctx,
                                      transport=TRANSPORT)


@pytest.mark.parametrize(("spec", "arguments"), CASES, ids=[c[0]["name"] for c in CASES])
def test_a_plugin_built_with_the_interpreter_behaves_as_the_reference(spec: dict[str, Any],
                                                                      arguments: dict[str, Any]) -> None:
    doc = scripted.plugin("built", [spec], manifest={"provides": {"tools": [spec["name"]]}})
    native, built = JsonHost(), JsonHost()
    try:
        assert "error" not in native.install_plugin(doc)
        report = built.host.install_plugin(StepsPlugin(doc), manifest=doc["manifest"]).as_dict()
        assert report["accepted"] == [spec["name"]], report
        outcomes = []
        for host in (native, built):
            session = host.open_session({"identity": {"userId": "u1"}})["session"]
            outcome = host.call(session, spec["name"], json.loads(json.dumps(arguments)), "c1")
            outcomes.append({k: outcome.get(k) for k in _COMPARED})
        assert outcomes[1] == outcomes[0]
        record = steps.take_call_record("c1")
        assert record["ran"] is True
        if spec["handler"][0]["op"] == "echo":
            assert record["observations"] == [{"op": "params", "value": arguments}]
    finally:
        native.close()
        built.close()


def test_options_reach_register_tool_exactly_as_the_document_gives_them() -> None:
    seen: list[tuple[str, Any]] = []
    doc = scripted.plugin("opts", [scripted.tool("A", external="yes", ownerUserId="u"),
                                   scripted.tool("B")])

    def register_tool(tool: dict[str, Any], *options: Any) -> None:
        seen.append((tool["name"], options))

    asyncio.run(steps.register_scripted(doc, register_tool=register_tool))
    assert seen == [("A", ({"external": "yes", "ownerUserId": "u"},)), ("B", ())]


def test_reads_come_from_the_ctx_else_the_installed_operations_else_say_unavailable() -> None:
    class Ctx:
        def current_identity(self) -> dict[str, Any]:
            return {"userId": "from-ctx"}

    policy_calls: list[tuple[str, Any]] = []
    read = [{"op": "identity"}, {"op": "access"}, {"op": "account"}, {"op": "policy", "account": "a1",
                                                                         "changes": {"owner": True}}]
    try:
        steps.install_scripted_host(access=lambda env: {"projectIds": ["p"]},
                                    policy=lambda account, changes, env: policy_calls.append((account, changes)))
        asyncio.run(steps.run_steps(read, {}, {"call_id": "r1", "ctx": Ctx()}))
        observed = steps.take_call_record("r1")["observations"]
    finally:
        steps.install_scripted_host()
    assert observed == [
        {"op": "identity", "value": {"userId": "from-ctx"}},
        {"op": "access", "value": {"projectIds": ["p"]}},
        {"op": "account", "value": None, "unavailable": "the host's plugin context has no current_account_user_id()"},
    ]
    assert policy_calls == [("a1", {"owner": True})]
    asyncio.run(steps.run_steps([{"op": "policy", "account": "a1"}], {}, {"call_id": "r2"}))
    assert steps.take_call_record("r2")["observations"] == [
        {"op": "policy", "value": None, "unavailable": "the host adapter installed no policy operation"}]


def test_without_a_transport_tag_the_probe_says_so_and_the_throw_is_plain() -> None:
    assert set(steps.transport_probe(None).values()) == {False}
    with pytest.raises(steps.ScriptedError, match="socket hang up") as raised:
        asyncio.run(steps.run_steps([{"op": "throw_transport", "message": "socket hang up"}], {}, {}))
    assert not is_transport_failure(raised.value)


def test_an_unknown_step_is_an_error_that_names_it() -> None:
    with pytest.raises(steps.ScriptedError, match="scripted step 'dance' is unknown"):
        asyncio.run(steps.run_steps([{"op": "dance"}], {}, {}))
