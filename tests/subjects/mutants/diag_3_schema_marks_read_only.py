"""DIAG-3 broken, cell "an internal tool's advertised schema: its own plus reason, nothing inserted": the
host writes its read-only classification into each internal tool's advertised schema, as the JSON Schema
annotation ``readOnly: true`` on the schema object of a tool classified read-only. An internal tool's
advertised schema is its own plus ``reason``: registration metadata is never inserted. Tools not
classified read-only, and external tools, are advertised as on the reference host."""

from __future__ import annotations

from reference_host.registry import Registration
from tests.subjects.mutants._composition_support import Entry, RewriteTools

RULE = "DIAG-3"


class Adapter(RewriteTools):
    def rewrite(self, reg: Registration, entry: Entry) -> Entry:
        if reg.external or not reg.read_only or "parameters" not in entry:
            return entry
        return {**entry, "parameters": {**entry["parameters"], "readOnly": True}}


def factory() -> Adapter:
    return Adapter()
