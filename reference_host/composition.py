"""Session composition: catalog, model tool list, provider payload and cache diagnostics.

Work is linear in the catalog (COST-1): one pass over the registry with constant work per tool,
and nothing rescans the catalog per tool. What a registration advertises (its caps, its ``reason``,
its payload and diagnostics entries) depends only on the registration, which never changes, so it
is built once, serializing an external definition once, and every later composition only appends
the shared entries: a turn's composition costs a few pointer copies per tool.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .access import READ_ONLY_CHILD_HOST_TOOLS
from .registry import CORE_PLUGIN, Registration
from .schemas import REASON_EXCLUDED, capped_external_definition, with_reason

REDACTED_TOOL = "<external-tool>"
REDACTED_NAMESPACE = "<external-namespace>"
PLAN_DIRECTIVE = (
    "Plan mode: investigate and write the plan. Only read-only tools run; the plan file is the one "
    "file you may write."
)


@dataclass(frozen=True)
class SessionView:
    """What composition needs to know about a session."""

    account: str
    project_id: str | None
    platform: str | None
    deferral_enabled: bool
    admin_overrides: frozenset[str]
    loaded: frozenset[str]
    read_only_child: bool
    mode_directive: str | None


@dataclass
class Composition:
    catalog: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    payload: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)
    mode_directive: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "catalog": self.catalog,
            "tools": self.tools,
            "payload": self.payload,
            "diagnostics": self.diagnostics,
            "modeDirective": self.mode_directive,
        }


def in_scope(reg: Registration, view: SessionView) -> bool:
    """SCOPE-1/2: whether a scoped contribution belongs to this session at all."""
    return (
        (reg.owner_user_id is None or reg.owner_user_id == view.account)
        and (reg.project_id is None or reg.project_id == view.project_id)
        and (reg.platform is None or reg.platform == view.platform)
    )


def is_deferred(reg: Registration, view: SessionView) -> bool:
    """MANIFEST-2: deferLoading defers unless switched off, overridden, or already loaded."""
    return (
        reg.deferred
        and view.deferral_enabled
        and reg.name not in view.admin_overrides
        and reg.name not in view.loaded
    )


class _Shared(dict):  # type: ignore[type-arg]
    """A dict that several compositions hand out: reading it is free, changing it is a bug.

    A registration's advertised entries are built once and shared by every later composition, so
    a caller that edited one in place would edit every other session's answer too; it gets a
    TypeError instead. ``dict(entry)`` and ``copy.deepcopy(entry)`` give a plain, editable copy.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a composition entry is shared between sessions: copy it (dict(entry)) before changing it")

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    update = pop = popitem = clear = setdefault = _refuse  # type: ignore[assignment]

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class _Advertised:
    """Everything composition reads or hands out for one registration, built once.

    The scope and deferral facts are copied in beside the entries so that a composition touches
    one small object per tool. Entries every session needs are built up front; the rarer ones
    (a deferred catalog entry, each diagnostics variant) the first time a session needs them.
    """

    __slots__ = (
        "reg", "name", "external", "owner_user_id", "project_id", "platform", "read_only", "deferred",
        "namespace", "definition", "payload", "catalog_loaded", "_catalog_deferred", "_diagnostics",
    )

    def __init__(self, reg: Registration) -> None:
        tool = reg.tool
        self.reg = reg
        self.name = tool.name
        self.external = reg.external
        self.owner_user_id = reg.owner_user_id
        self.project_id = reg.project_id
        self.platform = reg.platform
        self.read_only = reg.read_only
        self.deferred = reg.deferred
        self.namespace = CORE_PLUGIN if reg.plugin == CORE_PLUGIN else f"plugin:{reg.plugin}"
        self._catalog_deferred: dict[str, Any] | None = None
        self._diagnostics: list[dict[str, Any] | None] = [None, None, None, None]

    def advertise(self) -> None:
        """Work out what the tool advertises: caps (external) or ``reason`` (internal)."""
        tool = self.reg.tool
        if self.external:
            # CAP-1/2 for external tools only, on a copy: the registry keeps the original (CAP-3).
            description, parameters, _ = capped_external_definition(tool.name, tool.description, tool.parameters)
        else:
            description = tool.description
            parameters = tool.parameters if tool.name in REASON_EXCLUDED else with_reason(tool.parameters)
        self.definition = _Shared(name=tool.name, description=description, parameters=parameters)

    def build_payload(self) -> None:
        # DIAG-3: the payload carries the definition and nothing of the registration's metadata.
        d = self.definition
        self.payload = _Shared(type="function", name=d["name"], description=d["description"],
                               parameters=d["parameters"])

    def _catalog_entry(self, deferred: bool) -> dict[str, Any]:
        # The normalized metadata (PluginToolMetadata) the adapter contract reports beside each name:
        # origin, read-only classification and owner, as the registry holds them after merges.
        return _Shared(
            name=self.name,
            deferred=deferred,
            origin="external" if self.external else "internal",
            readOnly=self.read_only,
            owner=self.reg.plugin,
        )

    def build_catalog(self) -> None:
        self.catalog_loaded = self._catalog_entry(False)

    def catalog_deferred(self) -> dict[str, Any]:
        entry = self._catalog_deferred
        if entry is None:
            entry = self._catalog_deferred = self._catalog_entry(True)
        return entry

    def diagnostics(self, redacted: bool, loaded: bool) -> dict[str, Any]:
        index = 2 * redacted + loaded
        entry = self._diagnostics[index]
        if entry is None:
            entry = _Shared(
                name=REDACTED_TOOL if self.external else self.name,
                namespace=REDACTED_NAMESPACE if redacted else self.namespace,
                loaded=loaded,
            )
            self._diagnostics[index] = entry
        return entry


_CACHE_KEY = "_advertised"
_REG = operator.attrgetter("reg")
# Per registry, its registrations' _Advertised in iteration order, so that a composition walks one
# list of small objects instead of chasing each registration, its tool and its cache. Kept on the
# registry itself: in a module-level WeakKeyDictionary the table (through each tool's handler and
# its registration context) held its own key, so no registry was ever freed.
_TABLE_KEY = "_advertised_table"
_BUILD_STEPS = (_Advertised.advertise, _Advertised.build_payload, _Advertised.build_catalog)


def _build(regs: list[Registration]) -> list[_Advertised]:
    """The _Advertised of ``regs``, building what is missing one kind of entry at a time.

    Building by kind lays each kind's entries out one after another in memory, so a composition
    of a large catalog walks them in order instead of jumping between caches (COST-1 holds per
    tool, not only in total).
    """
    table: list[_Advertised] = []
    fresh: list[_Advertised] = []
    for reg in regs:
        cached = reg.__dict__.get(_CACHE_KEY)
        if cached is None:
            cached = _Advertised(reg)
            fresh.append(cached)
        table.append(cached)
    for step in _BUILD_STEPS:
        for adv in fresh:
            step(adv)
    # Published only once complete, so a session composing on another thread never sees a half-built
    # one. A frozen dataclass still has an instance dict: the cache lives and dies with the registration.
    for adv in fresh:
        adv.reg.__dict__[_CACHE_KEY] = adv
    return table


def _advertised(reg: Registration) -> _Advertised:
    return _build([reg])[0]


def _table(registrations: Iterable[Registration]) -> list[_Advertised]:
    regs = list(registrations)
    holder = None if isinstance(registrations, list) else getattr(registrations, "__dict__", None)
    if holder is None:  # a plain list of registrations: nothing to keep the table on
        return _build(regs)
    table = holder.get(_TABLE_KEY)
    # The registry grows by installs, and a registration may be replaced: the table is current
    # only while it holds the very same registration objects in the same order (pointer compares).
    if table is None or len(table) != len(regs) or not all(map(operator.is_, map(_REG, table), regs)):
        table = _build(regs)
        holder[_TABLE_KEY] = table
    return table


def advertised_definition(reg: Registration) -> dict[str, Any]:
    """The tool as the model sees it: caps for external tools, ``reason`` for internal ones.

    Shared between sessions and read-only: copy it before changing it.
    """
    return _advertised(reg).definition


def compose_session(registrations: Iterable[Registration], view: SessionView) -> Composition:
    """Compose what a session offers the model (CAP, REASON, SCOPE, MANIFEST-2, DIAG)."""
    catalog: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    payload_tools: list[dict[str, Any]] = []
    # DIAG-1: a namespace hosting an external tool is redacted in every session, also where that
    # tool itself is scoped out of the session: the namespace still contains it.
    external_namespaces: set[str] = set()
    visible: list[_Advertised] = []
    loaded_flags: list[bool] = []
    account, project_id, platform = view.account, view.project_id, view.platform
    read_only_child = view.read_only_child
    deferral = view.deferral_enabled
    overrides, loaded = view.admin_overrides, view.loaded
    for adv in _table(registrations):
        if adv.external:
            external_namespaces.add(adv.namespace)
        # SCOPE-1/2, as in_scope(): out of scope is absent, not merely refused.
        if (
            (adv.owner_user_id is not None and adv.owner_user_id != account)
            or (adv.project_id is not None and adv.project_id != project_id)
            or (adv.platform is not None and adv.platform != platform)
        ):
            continue
        if read_only_child and not (
            adv.read_only or (adv.namespace == CORE_PLUGIN and adv.name in READ_ONLY_CHILD_HOST_TOOLS)
        ):
            continue  # RO-5; Bash stays for PLANFILE-6
        # MANIFEST-2, as is_deferred().
        deferred = adv.deferred and deferral and adv.name not in overrides and adv.name not in loaded
        if deferred:
            catalog.append(adv.catalog_deferred())
        else:
            catalog.append(adv.catalog_loaded)
            tools.append(adv.definition)
            payload_tools.append(adv.payload)
        visible.append(adv)
        loaded_flags.append(not deferred)
    payload: dict[str, Any] = {"tools": payload_tools}
    if view.mode_directive:
        payload["instructions"] = view.mode_directive
    return Composition(
        catalog=catalog,
        tools=tools,
        payload=payload,
        diagnostics=_diagnostics(visible, loaded_flags, external_namespaces),
        mode_directive=view.mode_directive,
    )


def _diagnostics(visible: list[_Advertised], loaded: list[bool], external_namespaces: set[str]) -> dict[str, Any]:
    """DIAG-1/2: the cache-diagnostics projection, with external names and namespaces redacted.

    It is built from the registrations, never from the payload, and nothing of it goes back into
    the payload (DIAG-3).
    """
    tools = []
    redacted_tools = 0
    redacted_namespaces: set[str] = set()
    for adv, is_loaded in zip(visible, loaded, strict=True):
        redacted = adv.namespace in external_namespaces
        if redacted:
            redacted_namespaces.add(adv.namespace)
        redacted_tools += adv.external
        tools.append(adv.diagnostics(redacted, is_loaded))
    return {
        "tools": tools,
        "redacted": {"tools": redacted_tools, "namespaces": len(redacted_namespaces)},
    }
