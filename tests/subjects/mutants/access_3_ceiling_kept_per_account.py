"""ACCESS-3 broken, cell "a session opened after the grant captures it": the host captures an account's
ceiling once, when its first session opens, and hands every later session of the account that same
ceiling. A later grant still never widens a running session, but a session opened after the grant does
not capture it either: the ceiling is the session's, captured when *it* opens."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.access import Ceiling
from reference_host.session import Session, SessionSpec

RULE = "ACCESS-3"
ALSO = {
    "ACCESS-1": (
        "currentAccess() is intersected with the ceiling the session captured, and this "
        "host hands a later session an older one"
    ),
}


class CeilingPerAccountHost(Host):
    def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
        session = super().open_session(spec)
        ceilings: dict[str, Ceiling] = self.__dict__.setdefault("_ceilings", {})
        session.ceiling = ceilings.setdefault(session.account, session.ceiling)
        return session


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=CeilingPerAccountHost)
