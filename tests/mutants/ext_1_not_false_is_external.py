"""EXT-1 broken: anything but an explicit external: false counts as external, so an omitted option
makes the tool external instead of internal (and null is coerced to true instead of refused)."""

from __future__ import annotations

from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.registry import RegistrationContext
from tests.mutants._calls_support import context_mutant

RULE = "EXT-1"
# Not yet precise: these checks register internal tools without asking the host for their origin first.
ALSO = {
    "REG-6": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "CAP-3": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "REASON-1": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "REASON-4": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "RO-1": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "PLAN-2": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "DIAG-2": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "ERR-1": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "EXT-3": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "EXT-2": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "MANIFEST-3": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "NAME-7": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "PLAN-4": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "RO-3": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
    "SCHEMA-1": "every tool registered without the option becomes external, so this rule's checks of internal tools meet external ones",
}


class NotFalseContext(RegistrationContext):
    def register_tool(self, tool: Any, **options: Any) -> bool:
        if options.get("external") is None:
            options["external"] = True
        return super().register_tool(tool, **options)


def factory() -> ReferenceHostAdapter:
    return context_mutant(NotFalseContext)
