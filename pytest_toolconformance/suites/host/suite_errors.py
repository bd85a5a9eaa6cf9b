"""ERR: failures and transport, what the scenario files (scenarios/err) say badly: long sequences of
throwing and working calls in one session (ERR-1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

from pytest_toolconformance.host.client import HostClient, check
from pytest_toolconformance.host.scripted import flat_schema, plugin, tool
from pytest_toolconformance.profile import name_strategy, run_property

# -- ERR-1: the session goes on -----------------------------------------------------------------------
FAULTY = plugin(
    "faulty",
    [
        tool("Boom", handler=[{"op": "throw", "message": "database exploded"}]),
        tool("Remote", handler=[{"op": "throw_transport", "message": "socket hang up"}]),
        tool(
            "Partial",
            handler=[
                {"op": "details", "details": {"k": 1}},
                {"op": "mutate", "set": {"x": 1}},
                {"op": "throw", "message": "half way"},
            ],
        ),
        tool("Steady", handler=[{"op": "text", "text": "Steady ran"}]),
        tool("Echo", parameters=flat_schema({"n": "integer"}), handler=[{"op": "echo"}]),
    ],
)
THROWERS = ("Boom", "Remote", "Partial")


@pytest.mark.toolconformance("ERR-1")
def test_err1_session_survives_any_sequence_of_throws(toolconformance_host: HostClient) -> None:
    """Any mix of throwing and working calls: every throw is is_error, every other call works, and
    the session's tool list is what it was."""
    toolconformance_host.require("registration", "composition", "calls")
    sequence = st.lists(st.sampled_from((*THROWERS, "Steady", "Echo")), min_size=2, max_size=16)

    def body(calls: list[str]) -> None:
        toolconformance_host.reset()
        toolconformance_host.install_ok(FAULTY)
        session = toolconformance_host.open()
        before = sorted(session.tool_names())
        scenario = {"plugins": [FAULTY], "calls": calls}
        for index, name in enumerate(calls):
            answer = session.call(name, {"n": index} if name == "Echo" else {})
            if name in THROWERS:
                check(
                    answer.get("isError") is True
                    and answer.get("handlerRan") is True
                    and (answer.get("modelResult") or {}).get("isError") is True,
                    f"call {index} ({name}, which throws) yields a tool result flagged is_error",
                    answer,
                    scenario,
                )
            else:
                check(
                    answer.get("isError") is False and answer.get("handlerRan") is True,
                    f"call {index} ({name}) works after the throws before it: the session goes on",
                    answer,
                    scenario,
                )
                if name == "Echo":
                    check(
                        json.loads(answer["content"][0]["text"]) == {"n": index},
                        f"call {index} (Echo) gets its own arguments",
                        answer.get("content"),
                        scenario,
                    )
        check(
            sorted(session.tool_names()) == before,
            "the tool list after the throws equals the one before",
            sorted(session.tool_names()),
            scenario,
        )
        fresh = toolconformance_host.open(identity={"userId": "user-2"})
        check(
            fresh.call("Steady").get("handlerRan") is True,
            "a new session works after another session's throws",
            None,
            scenario,
        )

    run_property(name_strategy(sequence, f"{__name__}.throw sequences"), body, cap=25, share_draws=True)
