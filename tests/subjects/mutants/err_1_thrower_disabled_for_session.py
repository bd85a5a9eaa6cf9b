"""ERR-1 broken: a tool whose handler threw is disabled for the rest of the session (a circuit
breaker): its later calls are refused without running, while other tools go on working.

The cell: a later call of the same tool in the same session, after its handler threw (a throw not
tagged as a transport failure). The throw itself yields an ``is_error`` result as in the reference
host; other tools, other sessions and a tool whose throw was a transport failure are untouched.

The sentence broken (RULES.md ERR-1; seed): "A handler that throws yields a tool result flagged
`is_error`; the session goes on and later calls work" / "the host turns a throw into a tool result
flagged is_error".
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import Registration
from reference_host.session import CallOutcome
from tests.subjects.mutants._calls_support import OutcomeRewritingSession
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "ERR-1"


class BreakerSession(OutcomeRewritingSession):
    def _broken(self) -> set[str]:
        return self.__dict__.setdefault("_broken_tools", set())

    def _gate(self, reg: Registration | None, tool: str, call_id: str, args: Any, journal: dict[str, Any]):  # noqa: ANN202
        if reg is not None and tool in self._broken():
            return self._refused(
                tool,
                call_id,
                journal,
                "breaker",
                "ERR-1",
                f"Tool {tool!r} failed earlier in this session and is disabled until the next session.",
            )
        return super()._gate(reg, tool, call_id, args, journal)

    def rewritten(
        self, outcome: CallOutcome, reg: Registration, params: dict[str, Any], journal: dict[str, Any]
    ) -> CallOutcome:
        # A throw trips the breaker: not a malformed result, which the host reports under REG-3,
        # nor a hung call the host abandoned, which threw nothing.
        texts = [item.get("text", "") for item in outcome.content]
        not_a_throw = any("[REG-3]" in text or "the call was abandoned" in text for text in texts)
        # A transport failure is transient and retried; any other throw disables the tool.
        if outcome.is_error and outcome.handler_ran and not not_a_throw and not outcome.transport:
            self._broken().add(reg.name)
        return outcome


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(BreakerSession)
