"""ACCESS-5 broken: inside one call of a delegated child, ``currentAccess()`` returns what that call
read first, so a policy change during the child's handler (across its asynchronous wait) is not seen.

Cell: a delegated child (at any depth); the same call in the session that delegated it reads access
fresh every time, and every new call of the child reads it fresh too (so a change between the
child's calls applies at once: ACCESS-2 and PLANFILE-5 hold). Sentence (seed ¶42; RULES.md
ACCESS-5): "Read access immediately before each operation, including after an asynchronous wait."
"""

from __future__ import annotations

from pytest_toolconformance.host.inprocess import ReferenceHostAdapter
from reference_host.access import AccessDescriptor
from reference_host.context import active_call
from reference_host.session import Session
from tests.subjects.mutants._access_support import mutant_host

RULE = "ACCESS-5"


class ChildCachingSession(Session):
    def current_access(self) -> AccessDescriptor:
        call = active_call()
        if self.parent is None or call is None or call.session is not self:
            return super().current_access()
        cache = self.__dict__.setdefault("_per_call", {})
        if call.call_id not in cache:
            cache[call.call_id] = super().current_access()
        return cache[call.call_id]


def factory() -> ReferenceHostAdapter:
    return mutant_host(session_class=ChildCachingSession)
