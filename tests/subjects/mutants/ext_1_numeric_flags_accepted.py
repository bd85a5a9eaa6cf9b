"""EXT-1 broken: the option is checked with ``external in (True, False)``, so the numbers 1 and 0
(and 1.0, 0.0), equal to the booleans, pass and are read as true and false.

The cell: a present, numeric ``external`` value. Strings, ``null``, lists and objects are still refused
as in the reference host, and booleans and an omitted option behave as there.

The sentence broken (RULES.md EXT-1; seed): "`external` in the registration options must be a boolean
when present: any other value refuses the registration" / "The host validates this boolean".
"""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.subjects.mutants._calls_support import context_mutant

RULE = "EXT-1"


class EqualityContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        value = options.get("external")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (True, False):
            options["external"] = value == 1
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(EqualityContext)
