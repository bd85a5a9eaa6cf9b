"""PLANFILE-1 broken, in the cell "a session spec naming planFile where none is minted": the host takes a
``planFile`` the session spec names on any turn, so a host conversation's Plan turn or a Project's Build
turn opened with one carries it in ``currentAccess()`` instead of the spec being refused as a contradiction.
A spec without ``planFile`` gets what the reference host gives it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host import Host
from reference_host.access import TurnRestrictions
from reference_host.session import Session, SessionSpec

RULE = "PLANFILE-1"


class AnyTurnPlanFileHost(Host):
    def open_session(self, spec: Mapping[str, Any] | SessionSpec) -> Session:
        if isinstance(spec, SessionSpec) or not isinstance(spec, Mapping) or not isinstance(spec.get("planFile"), str):
            return super().open_session(spec)
        plan_file = spec["planFile"]
        # The reference host parses the rest of the spec; the plan file is taken whatever the turn.
        session = super().open_session({key: value for key, value in spec.items() if key != "planFile"})
        restrictions = session.restrictions
        session.restrictions = TurnRestrictions(
            plan_turn=restrictions.plan_turn,
            delegated_read_only=restrictions.delegated_read_only,
            inherited_plan_mode=restrictions.inherited_plan_mode,
            plan_file=plan_file,
        )
        return session


def factory() -> ReferenceHostAdapter:
    return ReferenceHostAdapter(host_factory=AnyTurnPlanFileHost)
