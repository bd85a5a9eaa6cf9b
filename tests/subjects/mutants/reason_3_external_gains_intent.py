"""REASON-3 broken, and no cap: every external schema gains a required field of the host's own
(``intent``) while keeping all it was registered with. RULES.md reads "never reconstructed" as
"advertised byte-identical"; CAP-2 must not read the addition as a cap."""

from __future__ import annotations

from typing import Any

from reference_host.registry import Registration
from tests.subjects.hosts.injects_intent import with_intent
from tests.subjects.mutants._composition_support import RewriteTools

RULE = "REASON-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: dict[str, Any]) -> dict[str, Any]:
        if not reg.external or entry.get("parameters", {}).get("additionalProperties") is True:
            return entry  # an internal tool, or a schema CAP-2 replaced
        return with_intent(entry)


def factory() -> Adapter:
    return Adapter()
