"""CAP-4, broken: the host fills the advertised schema's ``default`` values into external calls.

This host does not validate external arguments, but it "helps" external owners that forget their
own defaults: before forwarding an external call it adds, for every top-level property of the
advertised schema that has a ``default`` and that the model left out, that default (as Ajv's
``useDefaults`` would). The owner therefore receives arguments the model never sent, and cannot
tell an omitted argument from one given explicitly (an MCP server that treats an absent ``limit`` as
"everything" gets the advertised example value instead). Sent arguments are never changed, nothing
is validated, and internal tools are handled exactly as the reference handles them.

Cell of the sentence: "forwards an external call's arguments to it as sent, whatever the advertised
schema", for an advertised schema that declares defaults and a call that omits those arguments.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.composition import advertised_definition
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._composition_support import sessions_mutant

RULE = "CAP-4"


class ExternalDefaultsSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        if refusal is None and gate.reg.external:
            properties = advertised_definition(gate.reg)["parameters"].get("properties") or {}
            for name, prop in properties.items():
                if isinstance(prop, Mapping) and "default" in prop and name not in gate.params:
                    gate.params[name] = copy.deepcopy(prop["default"])
        return refusal


def factory() -> ReferenceHostAdapter:
    return sessions_mutant(ExternalDefaultsSession)
