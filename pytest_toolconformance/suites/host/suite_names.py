"""NAME: what the scenario files (scenarios/name) say badly: generated nested arguments that a handler
mutates in place, and the journal that must keep what the model sent (NAME-7)."""

from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.contract import JSON
from pytest_toolconformance.host.errors import HostProtocolError
from pytest_toolconformance.host.scripted import plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property
from pytest_toolconformance.suites.host.generated import JSON_VALUES

# -- NAME-7: generated nested arguments, mutated in place --------------------------------------------
_args = st.fixed_dictionaries(
    {
        "outer": st.dictionaries(st.sampled_from(["inner", "gone", "keep"]), JSON_VALUES, min_size=0, max_size=3),
        "items": st.lists(
            st.dictionaries(st.sampled_from(["id", "file_path"]), JSON_VALUES, max_size=2), min_size=1, max_size=3
        ),
        "top": JSON_VALUES,
    },
    optional={"drop": JSON_VALUES, "reason": st.text(min_size=1, max_size=8)},
)
MUTATOR = tool(
    "Mutator",
    parameters={
        "type": "object",
        "properties": {"outer": {"type": "object"}, "items": {"type": "array"}, "top": {}, "drop": {}},
    },
    handler=[
        {
            "op": "mutate",
            "set": {
                "top": "CHANGED",
                "added": True,
                "/outer/inner": "CHANGED",
                "/outer/new": {"n": 1},
                "/items/0/file_path": "/etc/passwd",
                "/items/-": {"appended": True},
            },
            "delete": ["drop", "/outer/gone"],
        },
        {"op": "echo"},
    ],
)
MUTATOR_EXT = {**MUTATOR, "name": "mcp__srv__mutator", "options": {"external": True}}


@pytest.mark.toolconformance("NAME-7")
def test_name7_nested_mutations_never_reach_journal(toolconformance_host: HostClient) -> None:
    """Whatever nested arguments the model sends, a handler mutating them in place (top level,
    nested objects, array elements, appends, deletes) leaves the journal equal to what was sent."""
    toolconformance_host.require("registration", "calls")
    doc = plugin("muts", [MUTATOR, MUTATOR_EXT])
    toolconformance_host.install_ok(doc)
    session = toolconformance_host.open()
    probe = session.call("Mutator", {"outer": {"inner": "x"}, "items": [{}], "top": 0})
    seen = json.loads(((probe.get("content") or [{}])[0]).get("text") or "{}")
    if (seen.get("outer") or {}).get("inner") != "CHANGED":
        pytest.skip(
            "the host's scripted 'mutate' step does not take JSON Pointer keys ('/outer/inner'), so nested "
            f"in-place mutation cannot be driven (echo after mutate: {seen}); see the scripted plugin format"
        )

    def body(sent: JSON) -> None:
        pristine = json.loads(json.dumps(sent))
        for name in ("Mutator", "mcp__srv__mutator"):
            answer = session.call(name, sent)
            scenario = {"plugins": [doc], "call": {"tool": name, "arguments": pristine}}
            check(
                answer.get("handlerRan") is True, f"{name} runs (its schema admits these arguments)", answer, scenario
            )
            journaled = (answer.get("journal") or {}).get("arguments")
            check(
                journaled == pristine,
                "the journal records exactly the arguments the model sent, though the handler mutated them in place",
                journaled,
                scenario,
            )
            seen = json.loads(answer["content"][0]["text"])
            if seen.get("top") != "CHANGED" or seen.get("added") is not True:
                # Not NAME-7's failure: the host ran the scripted plugin other than the contract says.
                raise HostProtocolError(
                    f"the host's scripted 'mutate' step did not change the handler's params (echo: {seen}); "
                    "this check needs a host that runs scripted plugins as docs/adapter-contract.md says"
                )

    run_property(name_strategy(_args, f"{__name__}._args"), body, cap=30, share_draws=True)
