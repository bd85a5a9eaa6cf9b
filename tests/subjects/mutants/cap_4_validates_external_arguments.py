"""CAP-4 broken: the host validates an external call against the advertised schema and refuses it."""

from __future__ import annotations

from typing import Any

import jsonschema

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import advertised_definition
from reference_host.session import Session
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "CAP-4"


class ValidatingSession(Session):
    def _gate(self, reg: Any, tool: str, call_id: str, args: Any, journal: dict[str, Any]) -> Any:
        gated = super()._gate(reg, tool, call_id, args, journal)
        if isinstance(gated, tuple) and reg is not None and reg.external:
            validator = jsonschema.Draft202012Validator(advertised_definition(reg)["parameters"])
            if not validator.is_valid(dict(args)):
                return self._refused(tool, call_id, journal, "validation", "REG-6", f"Invalid arguments for {tool!r}.")
        return gated


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ValidatingSession)
