"""OpenClaw plugins, found and loaded as OpenClaw 2026.9.6 finds and loads them.

A folder is an OpenClaw plugin when it holds ``openclaw.plugin.json`` (the manifest: ``id``,
``configSchema``, ``contracts.tools``, ``toolMetadata``) and its ``package.json`` names the entry in
``"openclaw": {"extensions": [...]}``. The entry runs in the kit's Node bridge like any JS plugin,
but with OpenClaw's ``api`` (``js/openclaw-api.mjs``): every entry shape OpenClaw resolves, tool
factories given the turn's trusted context, ``execute(toolCallId, params, signal, onUpdate)``.

What OpenClaw would refuse of a registration is judged here, with OpenClaw's own words
(:func:`contract_problems`): OpenClaw keeps no tool whose name its manifest's ``contracts.tools``
does not declare, and registers no tool at all from a plugin whose manifest declares none.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolconformance.plugins.loaders.bridged import plugin_folder
from pytest_toolconformance.plugins.loaders.node import NodePlugin
from reference_host import PluginLoadError

MANIFEST_NAME = "openclaw.plugin.json"
#: The OpenClaw release whose loader the kit follows (and whose words it quotes).
OPENCLAW_VERSION = "2026.9.6"
#: OpenClaw's words, and where they are in its package (openclaw@2026.9.6, dist/).
NO_CONTRACTS = "plugin must declare contracts.tools before registering agent tools"
NO_CONTRACTS_AT = "dist/loader-runtime-load-CMBCNIWa.mjs:4174"
UNDECLARED = "plugin must declare contracts.tools for: {names}"
UNDECLARED_AT = "dist/loader-runtime-load-CMBCNIWa.mjs:4201"
UNDECLARED_FACTORY = "plugin tool is undeclared ({plugin}): {names}"
UNDECLARED_FACTORY_AT = "dist/tools-CvXdkvXK.mjs:530"
#: The trusted execution context the kit's factory calls get (tools-CvXdkvXK.mjs:45 builds OpenClaw's).
FACTORY_CONTEXT = {
    "messageChannel": "toolconformance",
    "accountId": "toolconformance-account",
    "senderId": "toolconformance-sender",
    "senderIsOwner": False,
}


@dataclass(frozen=True)
class OpenClawManifest:
    """An ``openclaw.plugin.json``: what the kit reads of it, and the whole of it."""

    path: Path
    id: str
    #: ``contracts.tools``, trimmed and without duplicates; None when the manifest declares none.
    contract_tools: tuple[str, ...] | None
    optional_tools: frozenset[str]
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class OpenClawRegistration:
    """One concrete tool an ``api.registerTool`` produced, with the options it was registered with."""

    tool: str | None
    names: tuple[str, ...] = ()
    optional: bool = False
    factory: bool = False


@dataclass
class ContractProblem:
    """A registration OpenClaw would refuse: the tool, OpenClaw's words and where they are."""

    tool: str | None
    words: str
    where: str


def optional_mismatches(manifest: OpenClawManifest, registrations: Sequence[OpenClawRegistration]) -> list[str]:
    """Tools registered ``optional`` that ``toolMetadata.<tool>.optional`` does not mark, or the other way round:
    OpenClaw decides from the manifest alone which plugins to load for a turn
    (dist/tools-CvXdkvXK.mjs:257), so the two disagree on whether the tool is offered without an allow-list."""
    notes = []
    for registration in registrations:
        tool = registration.tool
        if tool is None or (tool in manifest.optional_tools) == registration.optional:
            continue
        said = "registers it with optional: true" if registration.optional else "registers it as required"
        marked = "does not mark it optional" if registration.optional else "marks it optional"
        notes.append(f"tool {tool!r}: the plugin {said}, but openclaw.plugin.json's toolMetadata {marked}; "
                     f"set \"toolMetadata\": {{\"{tool}\": {{\"optional\": {str(registration.optional).lower()}}}}} "
                     "to match (openclaw plugins build writes it)")
    return notes


def refusal_sentence(problems: Sequence[ContractProblem]) -> str:
    """The problems in as few sentences as OpenClaw has words for them: the tools refused for the same
    words named together (a manifest without contracts.tools refuses every tool alike)."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for problem in problems:
        grouped.setdefault((problem.words, problem.where), []).append(problem.tool or "(unnamed)")
    sentences = []
    for (words, where), tools in grouped.items():
        named = ", ".join(repr(t) for t in tools)
        several = len(tools) > 1
        sentences.append(f"OpenClaw {OPENCLAW_VERSION} refuses tool{'s' if several else ''} {named} of this plugin: "
                         f"\"{words}\" (openclaw {where}); {'they never reach' if several else 'it never reaches'} "
                         "the model")
    return "; ".join(sentences)


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise PluginLoadError(f"cannot read {what} {path}: {exc}", subject=str(path)) from exc
    except json.JSONDecodeError as exc:
        raise PluginLoadError(f"{what} {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                              subject=str(path)) from exc


def is_openclaw_plugin(folder: Path) -> bool:
    """The folder holds an OpenClaw manifest (``openclaw.plugin.json``)."""
    return (folder / MANIFEST_NAME).is_file()


def read_manifest(folder: Path) -> OpenClawManifest:
    """The folder's ``openclaw.plugin.json``; a :class:`PluginLoadError` names what is wrong with it."""
    path = folder / MANIFEST_NAME
    data = _read_json(path, "OpenClaw manifest")
    if not isinstance(data, dict):
        raise PluginLoadError(f"OpenClaw manifest {path} must be a JSON object with \"id\" and \"configSchema\"",
                              subject=str(path))
    plugin_id = data.get("id")
    if not isinstance(plugin_id, str) or not plugin_id.strip():
        raise PluginLoadError(f"OpenClaw manifest {path} has no \"id\"; OpenClaw loads no plugin without one. "
                              'Add "id": "<your-plugin>" (see OpenClaw\'s docs/plugins/manifest.md)', subject=str(path))
    contracts = data.get("contracts")
    declared = contracts.get("tools") if isinstance(contracts, dict) else None
    tools: tuple[str, ...] | None = None
    if isinstance(declared, list):
        seen: dict[str, None] = {}
        for name in declared:
            if isinstance(name, str) and name.strip():
                seen.setdefault(name.strip(), None)
        tools = tuple(seen) or None
    metadata = data.get("toolMetadata")
    optional = frozenset(
        name for name, meta in (metadata.items() if isinstance(metadata, dict) else [])
        if isinstance(meta, dict) and meta.get("optional") is True
    )
    return OpenClawManifest(path=path, id=plugin_id.strip(), contract_tools=tools, optional_tools=optional, raw=data)


def extension_entries(folder: Path) -> list[Path]:
    """The entries ``package.json``'s ``"openclaw": {"extensions": [...]}`` names, each that exists, in order;
    where ``runtimeExtensions`` names a built entry beside one that exists, that one, as OpenClaw runs an
    installed package (dist/package-entry-resolution-D32N9wpN.mjs:275, resolvePackageRuntimeEntrySource)."""
    package = folder / "package.json"
    if not package.is_file():
        return []
    data = _read_json(package, "package.json")
    block = data.get("openclaw") if isinstance(data, dict) else None
    declared = block.get("extensions") if isinstance(block, dict) else None
    runtime = block.get("runtimeExtensions") if isinstance(block, dict) else None
    runtime = runtime if isinstance(runtime, list) else []
    entries: list[Path] = []
    for index, item in enumerate(declared if isinstance(declared, list) else []):
        built = runtime[index] if index < len(runtime) else None
        for candidate in (built, item):
            if isinstance(candidate, str) and candidate and (folder / candidate).is_file():
                entries.append((folder / candidate).resolve())
                break
    return entries


def locate(folder: Path) -> tuple[Path, OpenClawManifest]:
    """The entry and manifest of the OpenClaw plugin in ``folder``; a :class:`PluginLoadError` says what
    OpenClaw would need instead."""
    manifest = read_manifest(folder)
    entries = extension_entries(folder)
    if not entries:
        raise PluginLoadError(
            f"OpenClaw plugin {folder} has {MANIFEST_NAME} but its package.json names no entry that exists in "
            '"openclaw": {"extensions": ["./dist/index.js"]}; OpenClaw loads a plugin from there only. Add it '
            "(and build the entry if it is compiled)",
            subject=str(folder / "package.json"),
        )
    return entries[0], manifest


def contract_problems(
    manifest: OpenClawManifest, registrations: Sequence[OpenClawRegistration]
) -> list[ContractProblem]:
    """What OpenClaw would refuse of these registrations, as its registerTool
    (loader-runtime-load-CMBCNIWa.mjs:4170) and its tool assembly (tools-CvXdkvXK.mjs:525) decide."""
    declared = set(manifest.contract_tools or ())
    problems: list[ContractProblem] = []
    for registration in registrations:
        if manifest.contract_tools is None:
            problems.append(ContractProblem(registration.tool, NO_CONTRACTS, NO_CONTRACTS_AT))
            continue
        # At registration: the option names, and a plain tool's own name.
        named = [*registration.names] + ([registration.tool] if not registration.factory and registration.tool else [])
        undeclared = [n for n in dict.fromkeys(n.strip() for n in named if n.strip()) if n not in declared]
        if undeclared:
            problems.append(ContractProblem(registration.tool, UNDECLARED.format(names=", ".join(undeclared)),
                                            UNDECLARED_AT))
        elif registration.tool is not None and registration.tool not in declared:
            # A factory's tool: its name is checked when a turn assembles it.
            problems.append(ContractProblem(
                registration.tool, UNDECLARED_FACTORY.format(plugin=manifest.id, names=registration.tool),
                UNDECLARED_FACTORY_AT))
    return problems


def _installed_openclaw(entry: Path) -> str:
    """``openclaw@VERSION`` as the plugin resolves it (the nearest node_modules/openclaw above its entry)."""
    for folder in entry.parents:
        package = folder / "node_modules" / "openclaw" / "package.json"
        if package.is_file():
            try:
                return f"openclaw@{json.loads(package.read_text('utf-8')).get('version')}"
            except (OSError, ValueError):
                break
    return "openclaw"


def openclaw_header(plugins: Sequence[tuple[str, Path]]) -> list[str]:
    """The header's line for each plugin the kit loads as an OpenClaw plugin (a folder with its manifest),
    given each plugin's spec as the user wrote it and the path it resolves to."""
    lines = []
    for spec, folder in plugins:
        if folder.is_dir() and is_openclaw_plugin(folder) and not (folder / "plugin.json").is_file():
            lines.append(f"toolconformance: plugin {spec}: loaded as an OpenClaw plugin ({MANIFEST_NAME} and "
                         f"package.json's openclaw.extensions, as OpenClaw {OPENCLAW_VERSION} loads it)")
    return lines


class OpenClawPlugin(NodePlugin):
    """An OpenClaw plugin's entry in the kit's Node bridge, given OpenClaw's ``api``."""

    def __init__(self, entry: str | os.PathLike[str], manifest: OpenClawManifest, **kwargs: Any) -> None:
        super().__init__(entry, **kwargs)
        self.manifest = manifest
        #: Every concrete tool the plugin's registerTool calls produced at its first load, in order.
        self.registrations: list[OpenClawRegistration] = []

    def register(self, ctx: Any) -> None:
        self.registrations = []
        super().register(ctx)

    def _load_message(self, *, replay: bool) -> dict[str, Any]:
        folder = plugin_folder(self.entry)
        context = {**FACTORY_CONTEXT, "source": str(self.entry), "rootDir": str(folder),
                   "agentDir": os.path.join(self.cwd or str(folder), ".openclaw-agent"), "sessionId": "toolconformance"}
        return {**super()._load_message(replay=replay), "openclaw": {"manifest": dict(self.manifest.raw),
                                                                     "context": context}}

    def _tool_options(self, ctx: Any, name: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        # OpenClaw's options (name, names, optional) are OpenClaw's, not the seam's: the reference host
        # gets none of them, the contract check reads them.
        names = options.get("names") if isinstance(options.get("names"), list) else []
        self.registrations.append(OpenClawRegistration(
            tool=name if isinstance(name, str) else None,
            names=tuple(str(n) for n in [*names, *([options["name"]] if isinstance(options.get("name"), str) else [])]),
            optional=options.get("optional") is True,
            factory=options.get("factory") is True,
        ))
        return {}

    def _define_tool(self, **fields: Any) -> Any:
        label = fields.get("label")
        if isinstance(label, str) and label:
            return super()._define_tool(**fields)
        # OpenClaw registers a tool without a label (inspectPluginTool, dist/tools-CvXdkvXK.mjs:226, asks for a
        # name, execute and parameters only): the host takes it, and REG-2 fails for that tool, not the plugin's load.
        return dataclasses.replace(super()._define_tool(**{**fields, "label": "-"}), label=label)

    def _load_error(self, error: Mapping[str, Any], tail: str | None) -> PluginLoadError:
        message = str(error.get("message") or "")
        if error.get("code") == "ERR_PACKAGE_PATH_NOT_EXPORTED" and "openclaw" in message:
            subpath = re.search(r"subpath '([^']+)'", message)
            installed = _installed_openclaw(self.entry)
            return PluginLoadError(
                f"OpenClaw plugin {self.entry} imports openclaw{(subpath.group(1)[1:] if subpath else '')}, which "
                f"the openclaw it resolves ({installed}) does not export, so OpenClaw {installed.rsplit('@', 1)[-1]} "
                f"cannot load it either ({message.splitlines()[0]}). Import a subpath that version exports "
                "(its package.json \"exports\"), or declare and install the OpenClaw version the plugin is built for",
                subject=str(self.entry), rule="REG-1",
            )
        if error.get("phase") == "import" and ("'openclaw'" in message or "\"openclaw/" in message
                                               or "'openclaw/" in message):
            folder = plugin_folder(self.entry)
            return PluginLoadError(
                f"OpenClaw plugin {self.entry} imports openclaw (its plugin SDK), which {folder} does not have "
                f"installed ({message.splitlines()[0]}). OpenClaw plugins declare openclaw as a peer or dev "
                f"dependency; install the version you build against where the plugin resolves it: "
                f"npm install --save-dev openclaw@{OPENCLAW_VERSION} (in {folder})",
                subject=str(self.entry),
            )
        if error.get("name") == "OpenClawRegisterNotSynchronous":
            return PluginLoadError(
                f"register(api) of OpenClaw plugin {self.entry} returned a promise, and OpenClaw {OPENCLAW_VERSION} "
                f"refuses it: \"{message}\" (openclaw dist/setup-registry-Cbh_jUlx.mjs:438); none of its tools are "
                "loaded. Register the tools synchronously and start async work from a service or inside execute",
                subject=str(self.entry), rule="REG-1",
            )
        return super()._load_error(error, tail)


__all__ = [
    "ContractProblem",
    "MANIFEST_NAME",
    "OPENCLAW_VERSION",
    "OpenClawManifest",
    "OpenClawPlugin",
    "OpenClawRegistration",
    "contract_problems",
    "openclaw_header",
    "optional_mismatches",
    "extension_entries",
    "is_openclaw_plugin",
    "locate",
    "read_manifest",
    "refusal_sentence",
]
