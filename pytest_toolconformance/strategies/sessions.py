"""Who a session is and what it may reach: identities, access descriptors as ``currentAccess()``
returns them, and session specs over the scope values a generated catalog draws from (SCOPE-1)."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from pytest_toolconformance.strategies.schemas import names

JSON = dict[str, Any]


#: The scope values :func:`catalogs` and :func:`session_specs` draw from (SCOPE-1).
ACCOUNTS = ("acct-amber", "acct-birch")
PROJECTS = ("proj-cedar", "proj-delta")
PLATFORMS = ("web", "discord")


_IDS = names(string.ascii_lowercase, string.ascii_lowercase + string.digits, 2, 8)

# Built once, here, not inside a draw (see schemas.py).
_BOOLEANS = st.booleans()
_PROJECT_ID_LISTS = st.lists(_IDS.map(lambda s: f"proj-{s}"), max_size=3, unique=True)
_EXTRA_ROOT_LISTS = st.lists(_IDS.map(lambda s: f"/workspace/{s}"), max_size=2, unique=True)
_PRINCIPALS = _IDS.map(lambda s: f"user-{s}")


def identities(accounts: Sequence[str] | None = None) -> st.SearchStrategy[JSON]:
    """Session identities ``{"userId", "owner", "admin"}``; ``userId`` from ``accounts`` when given."""
    user_ids = st.sampled_from(list(accounts)) if accounts else _IDS.map(lambda s: f"user-{s}")
    return st.fixed_dictionaries({"userId": user_ids, "owner": st.booleans(), "admin": st.booleans()})


@st.composite
def accesses(draw: st.DrawFn) -> JSON:
    """Access descriptors as ``currentAccess()`` returns them. The invariants hold: ``readOnly``
    whenever ``planMode`` (DELEG-1), and ``planFile`` only on a Plan turn (PLANFILE-1)."""
    plan_mode = draw(_BOOLEANS)
    access: JSON = {
        "admin": draw(_BOOLEANS),
        "projectIds": draw(_PROJECT_ID_LISTS),
        "readOnly": plan_mode or draw(_BOOLEANS),
        "planMode": plan_mode,
        "roots": ["/workspace"] + draw(_EXTRA_ROOT_LISTS),
        "principal": draw(_PRINCIPALS),
    }
    if plan_mode and draw(_BOOLEANS):
        access["planFile"] = f"/workspace/.plans/{draw(_IDS)}/plan.md"
    return access


def session_specs(*, extra_account: str = "acct-cobalt") -> st.SearchStrategy[JSON]:
    """Session specs (for ``HostClient.open(**spec)``) of an account from :data:`ACCOUNTS` or
    ``extra_account`` (which no tool is scoped to), in a Project from :data:`PROJECTS` or none, on a
    platform from :data:`PLATFORMS` or none."""

    def spec(account: str, project: str | None, platform: str | None) -> JSON:
        out: JSON = {"identity": {"userId": account}}
        if project is not None:
            out["projectId"] = project
        if platform is not None:
            out["platform"] = platform
        return out

    return st.builds(
        spec,
        st.sampled_from([*ACCOUNTS, extra_account]),
        st.sampled_from([*PROJECTS, None]),
        st.sampled_from([*PLATFORMS, None]),
    )
