"""CAP-4 broken in the cell "multi-byte strings and nested values, byte for byte": the host's
forwarding layer for external tools sanitizes the text it forwards, putting every string of the
arguments (nested ones included) into Unicode NFC. ASCII arguments, and text already in NFC, reach
the owner unchanged; a decomposed accent reaches it composed: not as the model sent it."""

from __future__ import annotations

import unicodedata
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.session import CallOutcome, Session, _Gate
from tests.subjects.mutants._calls_support import session_mutant

RULE = "CAP-4"


def nfc(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {nfc(key): nfc(item) for key, item in value.items()}
    if isinstance(value, list):
        return [nfc(item) for item in value]
    return value


class SanitizingSession(Session):
    def _stage_validation(self, gate: _Gate) -> CallOutcome | None:
        refusal = super()._stage_validation(gate)
        if refusal is None and gate.reg.external:
            gate.params = nfc(gate.params)
        return refusal


def factory() -> ReferenceHostAdapter:
    return session_mutant(SanitizingSession)
