"""Generated catalogs: scripted plugins mixing internal, external, scoped, deferred and read-only
declared tools, with what each registers (:class:`Catalog`, :class:`CatalogTool`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from pytest_toolconformance.strategies.caps import DESCRIPTIONS_AT_THE_CAP, LONG_DESCRIPTIONS
from pytest_toolconformance.strategies.sessions import ACCOUNTS, PLATFORMS, PROJECTS

JSON = dict[str, Any]
_BOOLEANS = st.booleans()  # built once, not inside a draw (see schemas.py)


@dataclass(frozen=True)
class CatalogTool:
    """One tool of a generated catalog, with the metadata a host must keep out of its payloads."""

    name: str
    plugin: str
    external: bool
    description: str
    parameters: JSON
    owner_user_id: str | None = None
    project_id: str | None = None
    platform: str | None = None
    deferred: bool = False
    #: Its own plugin lists it by exact name in provides.readOnlyTools.
    declared_read_only: bool = False
    #: Its own plugin declares readOnlyTools ['mcp__*'].
    plugin_wildcard: bool = False

    @property
    def scoped(self) -> bool:
        return any(v is not None for v in (self.owner_user_id, self.project_id, self.platform))

    @property
    def read_only(self) -> bool:
        """RO-1/RO-3: classified read-only by its own plugin's exact name, or by its own plugin's
        ``mcp__*`` when it is external. Another plugin's declaration never counts."""
        return self.declared_read_only or (self.external and self.plugin_wildcard)

    @property
    def plan_runs(self) -> bool:
        """PLAN-2/PLAN-3: a Plan turn executes it (an exact read-only name, never an external tool)."""
        return self.declared_read_only and not self.external

    def visible_to(self, account: str, project_id: str | None, platform: str | None) -> bool:
        """SCOPE-1/2: whether a session of ``account`` in ``project_id`` on ``platform`` has this tool."""
        return (
            (self.owner_user_id is None or self.owner_user_id == account)
            and (self.project_id is None or self.project_id == project_id)
            and (self.platform is None or self.platform == platform)
        )


@dataclass(frozen=True)
class Catalog:
    """Scripted plugins to install in order, and what they register."""

    plugins: tuple[JSON, ...]
    tools: tuple[CatalogTool, ...]
    #: (plugin, tool name) pairs a plugin declared read-only although another plugin owns the tool (RO-3).
    foreign_declarations: tuple[tuple[str, str], ...] = ()

    def visible(self, account: str, project_id: str | None = None, platform: str | None = None) -> list[CatalogTool]:
        return [t for t in self.tools if t.visible_to(account, project_id, platform)]

    def visible_to(self, spec: Mapping[str, Any]) -> list[CatalogTool]:
        """The tools a session opened with ``spec`` (a :func:`session_specs` value) has."""
        account = spec.get("account") or spec["identity"].get("accountUserId") or spec["identity"]["userId"]
        return self.visible(account, spec.get("projectId"), spec.get("platform"))

    @property
    def external_plugins(self) -> set[str]:
        """Plugins (hosted namespaces) that register at least one external tool."""
        return {t.plugin for t in self.tools if t.external}

    def by_name(self) -> dict[str, CatalogTool]:
        return {t.name: t for t in self.tools}


# Every scope a catalog tool may have, unscoped first (so examples shrink to instance-wide tools).
_SCOPES: tuple[JSON, ...] = (
    {},
    *({"ownerUserId": a} for a in ACCOUNTS),
    *({"projectId": p} for p in PROJECTS),
    *({"platform": p} for p in PLATFORMS),
    *({"ownerUserId": a, "platform": p} for a in ACCOUNTS for p in PLATFORMS),
)
# Short descriptions with characters of every width; the index is drawn, not each character.
_SHORT_DESCRIPTIONS: tuple[str, ...] = (
    "",
    "Reads a thing.",
    "Écrit un fichier.",
    "搜索文档。",
    "Sends 😀 to a channel.",
    'Line one\nline two\t"quoted"',
    "Separator\u2028inside",
    "e\u0301 combining",
    "a/b:c-d_e 019",
)
_OPTION_KEYS = {"ownerUserId": "owner_user_id", "projectId": "project_id", "platform": "platform"}


# Catalog tools draw their schemas from this fixed set, which covers every kind flat_schemas() makes
# (a catalog property is about composition, not schemas; drawing one schema per tool would make a
# catalog several times slower to generate).
_CATALOG_SCHEMAS: tuple[JSON, ...] = (
    {"type": "object", "properties": {}},
    {"type": "object", "required": ["file_path"], "properties": {"file_path": {"type": "string"}}},
    {
        "type": "object",
        "required": ["query"],
        "properties": {"query": {"type": "string", "description": "Text to find."}, "limit": {"type": "integer"}},
    },
    {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "ratio": {"type": "number"},
            "dry_run": {"type": "boolean"},
        },
    },
    {
        "type": "object",
        "required": ["mode"],
        "properties": {
            "mode": {"anyOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "full"}]},
            "level": {"type": "number", "const": 3},
        },
        "additionalProperties": False,
    },
    {
        "type": "object",
        "required": ["latest"],
        "properties": {
            "latest": {"type": "boolean", "const": True},
            "note": {"type": "string", "description": "Ünïcödé 漢字 😀"},
        },
    },
    {
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "integer"}},
            "kind": {"type": "string", "const": "x"},
        },
        "additionalProperties": False,
    },
)


def _external_variants(flat: JSON) -> st.SearchStrategy[JSON]:
    return st.sampled_from(
        [
            flat,
            {**flat, "additionalProperties": {"type": "string"}, "title": "Remote"},
            {
                "type": "object",
                "anyOf": [{"required": [next(iter(flat["properties"]))]}, {"required": []}],
                "properties": flat["properties"],
            },
            {"properties": flat["properties"]},
        ]
    )


_FLAT_EXTERNAL_SCHEMAS = st.sampled_from(_CATALOG_SCHEMAS[1:])
_EXTERNAL_VARIANTS = {id(flat): _external_variants(flat) for flat in _CATALOG_SCHEMAS[1:]}


@st.composite
def _external_parameters(draw: st.DrawFn) -> JSON:
    # External schemas are the external owner's: not necessarily flat, never to be rebuilt (REASON-3).
    return draw(_EXTERNAL_VARIANTS[id(draw(_FLAT_EXTERNAL_SCHEMAS))])


_EXTERNAL_PARAMETERS = _external_parameters()
_INTERNAL_PARAMETERS = st.sampled_from(_CATALOG_SCHEMAS)
_TOOL_BITS = st.integers(min_value=0, max_value=255)
_SCOPE_DRAWS = st.integers(min_value=0, max_value=2 * len(_SCOPES) - 2)
_LONG_EXTERNAL_DESCRIPTIONS = st.one_of(DESCRIPTIONS_AT_THE_CAP, LONG_DESCRIPTIONS)
_SHORT_DESCRIPTION_DRAWS = st.sampled_from(_SHORT_DESCRIPTIONS)


@functools.cache
def _counts(high: int) -> st.SearchStrategy[int]:
    return st.integers(min_value=1, max_value=high)


@st.composite
def catalogs(
    draw: st.DrawFn,
    *,
    max_plugins: int = 3,
    max_tools: int = 4,
    external: bool | None = None,
    long_descriptions: bool = True,
    read_only: bool = False,
) -> Catalog:
    """Scripted plugins ``plg-NN-ns`` registering tools: internal ones (``pNN_tMM``, some with an
    ``mcp__`` name and an explicit ``external: false``), external ones (``mcp__pNN__tMM``, some with
    a plain ``pNN_tMM`` name), some scoped to an account, Project or platform from :data:`ACCOUNTS` / :data:`PROJECTS` /
    :data:`PLATFORMS`, some deferred by the manifest's ``deferLoading``. Some plugins are named like
    an MCP bridge (``mcp-NN-ns``), whatever they register: a plugin's name never implies origin (EXT-2).
    Names are fixed width, so no name or plugin name is a substring of another, and neither appears in a
    description. ``external=False`` draws no external tool, ``True`` only external ones. Every handler
    echoes its params.

    With ``read_only=True`` manifests also declare ``provides.tools`` and ``readOnlyTools``: exact
    names of some of the plugin's own tools, sometimes ``mcp__*`` (in both lists, or in ``provides.tools``
    alone: a plugin declaring the MCP family without classifying it, whose tools keep the origin their
    option gives), and sometimes a tool of the previous plugin (a foreign declaration, which must
    classify nothing: RO-3).
    """
    n_plugins = draw(_counts(max_plugins))
    plugins: list[JSON] = []
    tools: list[CatalogTool] = []
    foreign: list[tuple[str, str]] = []
    previous: list[CatalogTool] = []
    for i in range(n_plugins):
        plugin = f"plg-{i:02d}-ns"
        first_bits = 0
        docs: list[JSON] = []
        mine: list[CatalogTool] = []
        wildcard = read_only and draw(_BOOLEANS)
        for j in range(draw(_counts(max_tools))):
            # One draw for the tool's yes/no facts keeps a catalog cheap to generate; every bit
            # shrinks towards the plain case (internal, unscoped, loaded, undeclared).
            bits = draw(_TOOL_BITS)
            first_bits = bits if j == 0 else first_bits
            is_external = bool(bits & 1) if external is None else external
            if is_external:
                # EXT-2, PLAN-3: a name never implies origin, so some external tools have plain names.
                plain_named = bits & 6 == 6
                name = f"p{i:02d}_t{j:02d}" if plain_named else f"mcp__p{i:02d}__t{j:02d}"
                parameters = draw(_EXTERNAL_PARAMETERS)
                options: JSON = {"external": True}
            else:
                mcp_named = bits & 6 == 6
                name = f"mcp__p{i:02d}__t{j:02d}" if mcp_named else f"p{i:02d}_t{j:02d}"
                parameters = draw(_INTERNAL_PARAMETERS)
                # EXT-1/2: omitted and explicit false are both internal, whatever the name says.
                options = {"external": False} if mcp_named or bits & 8 else {}
            # About half the tools are instance-wide, the rest spread over every scope.
            scope = _SCOPES[max(0, draw(_SCOPE_DRAWS) - len(_SCOPES) + 1)]
            options.update(scope)
            if is_external and long_descriptions and bits & 48 == 48:
                description = draw(_LONG_EXTERNAL_DESCRIPTIONS)
            else:
                description = f"Tool number {j}: " + draw(_SHORT_DESCRIPTION_DRAWS)
            doc: JSON = {
                "name": name,
                "label": name,
                "description": description,
                "parameters": parameters,
                "handler": [{"op": "echo"}],
            }
            if options:
                doc["options"] = options
            docs.append(doc)
            mine.append(
                CatalogTool(
                    name=name,
                    plugin=plugin,
                    external=is_external,
                    description=description,
                    parameters=parameters,
                    deferred=bits & 192 == 192,
                    declared_read_only=read_only and bool(bits & 16),
                    plugin_wildcard=wildcard,
                    **{_OPTION_KEYS[k]: v for k, v in scope.items()},
                )
            )
        # EXT-2: the plugin's name and its manifest never imply origin. Read from the first tool's bits
        # (no draw of its own, so every catalog keeps its tools): some plugins are named like a bridge,
        # and some plugins without the wildcard still list the mcp__* family in provides.tools.
        if first_bits & 32:
            plugin = f"mcp-{i:02d}-ns"
            mine = [replace(t, plugin=plugin) for t in mine]
        family_listed = wildcard or (read_only and bool(first_bits & 64))
        manifest: JSON = {"name": plugin}
        if read_only:
            declared = [t.name for t in mine if t.declared_read_only]
            if previous and draw(_BOOLEANS):
                stolen = draw(st.sampled_from(previous)).name
                declared.append(stolen)
                foreign.append((plugin, stolen))
            listed = [t.name for t in mine] + [n for n in declared if n not in {t.name for t in mine}]
            manifest["provides"] = {
                "tools": listed + (["mcp__*"] if family_listed else []),
                "readOnlyTools": declared + (["mcp__*"] if wildcard else []),
            }
        deferred_names = [t.name for t in mine if t.deferred]
        if deferred_names:
            manifest["deferLoading"] = deferred_names
        plugins.append({"name": plugin, "manifest": manifest, "tools": docs})
        tools.extend(mine)
        previous = mine
    return Catalog(plugins=tuple(plugins), tools=tuple(tools), foreign_declarations=tuple(foreign))


def catalog_of(plugins: Sequence[JSON]) -> Catalog:
    """The :class:`Catalog` of fixed scripted plugin documents (an explicit example a property meets
    first, whatever its example budget): what each registers, read from its tools' options and its
    manifest, as :func:`catalogs` records what it draws. Tools and manifests are the documents' own."""
    tools: list[CatalogTool] = []
    foreign: list[tuple[str, str]] = []
    for doc in plugins:
        manifest = doc.get("manifest") or {}
        provides = manifest.get("provides") or {}
        read_only = set(provides.get("readOnlyTools") or [])
        deferred = set(manifest.get("deferLoading") or [])
        own = {t["name"] for t in doc["tools"]}
        for entry in doc["tools"]:
            options = entry.get("options") or {}
            tools.append(
                CatalogTool(
                    name=entry["name"],
                    plugin=doc["name"],
                    external=options.get("external") is True,
                    description=entry.get("description", ""),
                    parameters=entry["parameters"],
                    deferred=entry["name"] in deferred,
                    declared_read_only=entry["name"] in read_only,
                    plugin_wildcard="mcp__*" in read_only,
                    **{_OPTION_KEYS[k]: v for k, v in options.items() if k in _OPTION_KEYS},
                )
            )
        foreign += [(doc["name"], name) for name in sorted(read_only - own - {"mcp__*"})]
    return Catalog(plugins=tuple(plugins), tools=tuple(tools), foreign_declarations=tuple(foreign))
