"""CAP-4 broken in the cell "advertised with the CAP-2 permissive schema": when an external
definition is over 8,000 bytes and advertised with the permissive schema, the host still knows the
owner's real schema and validates the call against it, refusing a call that breaks it (the model
"cannot see" the schema, so the host checks for it). External tools advertised with their own schema
are forwarded as sent, as they should be."""

from __future__ import annotations

import jsonschema

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.schemas import capped_external_definition
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "CAP-4"


class CheckingSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        tool = gate.reg.tool
        if refusal is not None or not gate.reg.external:
            return refusal
        if not capped_external_definition(tool.name, tool.description, tool.parameters)[2]:
            return None
        errors = list(jsonschema.Draft202012Validator(tool.parameters).iter_errors(gate.params))
        if errors:
            return self._refused(
                gate.tool,
                gate.call_id,
                gate.journal,
                "validation",
                "REG-6",
                f"Invalid arguments for {gate.tool!r}: {errors[0].message}.",
                gate.hooks_ran,
            )
        return None


def factory() -> ReferenceHostAdapter:
    return session_mutant(CheckingSession)
