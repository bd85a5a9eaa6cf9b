"""Checks that read a tool's definition only: parameter names (NAME-1..5) and schema kinds (SCHEMA-2).

Parameter roles are found from the name and the start of the description: ``filePath`` and a
``path`` described as "The file to read." are single-file targets; ``directory`` and "Folder to
search." are search scopes; "Working directory" is an execution directory. Only string
parameters whose name looks like a path take a role from their description, so that ``content``
described as "File contents to write." stays what it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from pytest_toolconformance.plugins.arguments import is_pathish

FILE_PATH = "file_path"
#: Pure aliases of file_path: beside it they are NAME-5, instead of it NAME-1.
FILE_ALIASES = frozenset({
    "filepath", "file", "filename", "targetfile", "fname", "fpath", "pathtofile", "filetarget", "thefile",
})
DIR_ALIASES = frozenset({
    "dir", "directory", "folder", "dirpath", "directorypath", "folderpath", "searchpath", "searchdir",
    "searchdirectory", "root", "rootdir", "rootpath", "basedir", "basepath", "scope", "searchscope", "searchroot",
    "dirname", "foldername",
})
CWD_ALIASES = frozenset({
    "workdir", "workingdir", "workingdirectory", "cwdpath", "currentdir", "currentdirectory", "executiondir",
    "rundir", "workingpath", "workdirectory", "wd",
})
OUTPUT_ALIASES = frozenset({
    "output", "outputfile", "outfile", "out", "outputfilepath", "destfile", "destination", "dest", "destpath",
    "destinationpath", "destinationfile", "outpath", "savepath", "savefile", "outputfilename",
})
#: Names that may be a file target when their description says so.
TARGETISH = frozenset({
    "target", "source", "src", "input", "document", "doc", "image", "img", "script", "notebook", "note",
    "definition", "attachment", "location",
})

_ARTICLES = re.compile(r"^(optional|required)?[:\s]*(the|a|an)\s+")
_CWD_HEAD = re.compile(
    r"^((working|current|execution)\s+(dir|directory|folder)|cwd\b|(directory|folder)\s+(to\s+run|in\s+which|where\s+the\s+(command|script|program)))"
)
_ROUTE_HEAD = re.compile(r"^((api|http|url|request)\s+(route|path)|(api\s+)?route\b|(api\s+)?endpoint\b)")
_SCOPE_HEAD = re.compile(
    r"^((\w+\s+)?(directory|folder|dir)\b|(search\s+)?scope\b|(file|path)\s+or\s+(directory|folder)\b"
    r"|(directory|folder)\s+or\s+file\b|(path|root)\s+(of|to)\s+(the\s+|a\s+)?(directory|folder)\b"
    r"|where\s+to\s+(search|look)\b|(path|root|place)\s+to\s+search\b)"
)
_OUTPUT_HEAD = re.compile(
    r"^((\w+\s+)?(output|destination)\b|(where|path)\s+to\s+(save|write|store)\b|(path|file)\s+(to|for)\s+(the\s+)?(output|result)\b)"
)
_FILE_HEAD = re.compile(
    r"^((\w+\s+)?(file|filename|file\s+name|file\s+path)\b"
    r"|(absolute\s+|relative\s+|full\s+)?path\s+(to|of)\s+(the\s+|a\s+|an\s+)?([\w'.-]+\s+){0,3}"
    r"(file|image|script|notebook|document|pdf|note)\b"
    r"|(\w+\s+)?(image|script|notebook|document|pdf)\s+(file\s+)?(to|that|which|being)\b)"
)
_CONTENT_HEAD = re.compile(
    r"^(\w+\s+)?file\s+(contents?|text|data|body|size|type|mode|encoding|extension|pattern|glob)\b"
)
_ROLE_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*_path")
#: A tool described as acting on one file ("Read a specific memory file or line range."), not on files.
_SINGLE_FILE_TOOL = re.compile(
    r"^(reads?|writes?|edits?|opens?|views?|shows?|gets?|fetch(es)?|loads?|displays?|returns?|overwrites?"
    r"|appends?\s+to|creates?|saves?|deletes?|removes?|patch(es)?|modif(y|ies)|updates?)\s+"
    r"(the\s+|a\s+|an\s+|one\s+)(specific\s+|single\s+|given\s+)?(\w+\s+)?file\b(?!s)"
)
#: A parameter whose own example value is a file name with an extension ("e.g. memory/2026-01-01.md").
_FILE_EXAMPLE = re.compile(
    r"\b(e\.g\.?|for\s+example|such\s+as|like)[,:]?\s*[`'\"]?[\w\-]+(/[\w\-.]+)*\.[a-z0-9]{1,5}\b"
)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _stringish(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "string" or (isinstance(kind, list) and "string" in kind):
        return True
    return any(_stringish(s) for s in schema.get("anyOf") or [] if isinstance(s, Mapping))


def _head(schema: Mapping[str, Any]) -> str:
    text = schema.get("description") or schema.get("title") or ""
    if not isinstance(text, str):
        return ""
    # A sentence ends at a full stop before a space, not at the dot of a file name ("cookies.txt").
    head = re.split(r"[,;(\n]|\.(?!\S)", text.strip().lower(), maxsplit=1)[0].strip()
    return _ARTICLES.sub("", head)


def _closed_set(schema: Mapping[str, Any]) -> bool:
    """The parameter takes one of a few fixed words (an enum, a literal, a union of literals): no path."""
    if "const" in schema or isinstance(schema.get("enum"), list):
        return True
    members = schema.get("anyOf") or schema.get("oneOf")
    return bool(members) and all(isinstance(m, Mapping) and _closed_set(m) for m in members)


def parameter_role(name: str, schema: Any) -> str:
    """One of ``file``, ``output``, ``scope``, ``cwd``, ``route``, ``path`` (undescribed), ``other``.

    Reading: a parameter whose values are a fixed set of words (``scope``: ``user``/``project``/``local``)
    names no file or directory, whatever it is called: the NAME rules are about paths.
    """
    if not _stringish(schema) or _closed_set(schema):
        return "other"
    norm = _norm(name)
    head = _head(schema)
    pathy = is_pathish(name) or norm in TARGETISH or norm.endswith(("path", "dir", "file", "folder", "directory"))
    if name == "cwd" or norm in CWD_ALIASES or (pathy and _CWD_HEAD.match(head)):
        return "cwd"
    if pathy and _ROUTE_HEAD.match(head):
        return "route"
    if norm in DIR_ALIASES or (pathy and _SCOPE_HEAD.match(head)):
        return "scope"
    if norm in OUTPUT_ALIASES or (
        pathy and name != FILE_PATH and (norm.startswith(("output", "dest", "save")) or _OUTPUT_HEAD.match(head))
    ):
        return "output"
    if (
        name == FILE_PATH
        or norm in FILE_ALIASES
        or (pathy and _FILE_HEAD.match(head) and not _CONTENT_HEAD.match(head))
    ):
        return "file"
    if name == "path":
        return "path"
    return "other"


@dataclass(frozen=True)
class NameFinding:
    rule: str
    parameter: str
    message: str
    #: Advice where the seed's sentence does not decide (the kit advises it, never fails it).
    advisory: bool = False


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower().replace("-", "_")


def _role_name_for(name: str, role: str) -> str:
    if role == "output":
        return "output_path"
    stem = re.sub(r"(_?(file_?name|file_?path|file|path|name))+$", "", _snake(name)).strip("_")
    return f"{stem}_path" if stem and stem != "file" else "second_file_path"


def _lone_file_target(
    roles: dict[str, str], props: Mapping[str, Any], needed: list[Any], description: str
) -> str | None:
    """The one required path-like parameter that the tool's own words make its single-file target.

    Reading: a parameter's role comes first from its own name and description; where those leave it open
    (``relPath``, "Relative path from a search result"), the tool that "reads a specific memory file" or an
    example value naming a file ("e.g. memory/2026-01-01.md") says the path is a file's. Only when exactly one
    required path-like parameter is left open, so two paths are never guessed apart.
    """
    if any(r in ("file", "output", "scope", "cwd", "route") for r in roles.values()):
        return None
    open_paths = [
        n for n, r in roles.items()
        if r in ("path", "other") and n in needed and _stringish(props[n]) and not _closed_set(props[n])
        and (is_pathish(n) or _norm(n).endswith("path"))
    ]
    if len(open_paths) != 1:
        return None
    name = open_paths[0]
    own = props[name].get("description") if isinstance(props[name], Mapping) else None
    tool_head = _ARTICLES.sub("", re.split(r"[.;(\n]", description.strip().lower(), maxsplit=1)[0].strip())
    if _SINGLE_FILE_TOOL.match(tool_head) or (isinstance(own, str) and _FILE_EXAMPLE.search(own.lower())):
        return name
    return None


def name_findings(tool: str, parameters: Any, description: str = "") -> list[NameFinding]:
    """Every NAME-1..5 finding of one tool, each saying exactly what to rename; ``description`` is the
    tool's own, read only where a path parameter's own words leave its role open."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    roles = {name: parameter_role(name, schema) for name, schema in props.items()}
    needed = parameters.get("required") if isinstance(parameters.get("required"), list) else []
    if (lone := _lone_file_target(roles, props, needed, description)) is not None:
        roles[lone] = "file"
    out: list[NameFinding] = []
    file_like = [n for n, r in roles.items() if r in ("file", "output")]
    # Reading: an optional output file is what a tool may also write (pi-subagents' `output`), not its primary
    # single-file target, unless the tool has nothing else to write to: advised, not failed.
    side_outputs = [n for n in file_like if roles[n] == "output" and n not in needed]
    if file_like and not any(roles[n] == "file" for n in file_like) and set(side_outputs) == set(file_like):
        out.extend(
            NameFinding(
                "NAME-3",
                name,
                f"parameter `{name}` of tool {tool} names an optional output file; the seed's name for that role is "
                "`output_path` (NAME-3), while file_path is for a tool's primary single-file target",
                advisory=True,
            )
            for name in side_outputs
            if name != "output_path"
        )
        file_like = []
    has_target = bool(file_like)
    if file_like:
        if FILE_PATH in file_like:
            primary = FILE_PATH
        else:
            primary = next((n for n in file_like if roles[n] == "file"), file_like[0])
            out.append(
                NameFinding(
                    "NAME-1",
                    primary,
                    f"rename parameter `{primary}` of tool {tool} to `{FILE_PATH}` (NAME-1): a tool's primary "
                    "single-file target is named file_path, whether it is read, written, shared or executed",
                )
            )
        for name in file_like:
            if name == primary:
                continue
            if _norm(name) in FILE_ALIASES:
                out.append(
                    NameFinding(
                        "NAME-5",
                        name,
                        f"remove parameter `{name}` of tool {tool} (NAME-5): it is an alias of `{primary}`; one role "
                        f"has one name, so keep only `{FILE_PATH}` and refuse the old name",
                    )
                )
            elif not _ROLE_NAME.fullmatch(name) or name == FILE_PATH:
                target = _role_name_for(name, roles[name])
                out.append(
                    NameFinding(
                        "NAME-3",
                        name,
                        f"rename parameter `{name}` of tool {tool} to `{target}` (NAME-3): a second file with its own "
                        f"role gets its own role name (EditImage: `file_path` in, `output_path` out)",
                    )
                )
    scopes = [n for n, r in roles.items() if r == "scope"]
    has_path = "path" in roles and roles["path"] in ("scope", "path")
    for name in scopes:
        if name == "path":
            continue
        if has_path:
            out.append(
                NameFinding(
                    "NAME-5",
                    name,
                    f"remove parameter `{name}` of tool {tool} (NAME-5): it is an alias of `path`; one role has "
                    f"one name",
                )
            )
        elif has_target:
            # Reading: beside the tool's single-file target a directory has a role of its own (a base for its
            # assets, say), as a second file does (NAME-3); the seed's `path` is for a tool whose scope it is.
            out.append(
                NameFinding(
                    "NAME-2",
                    name,
                    f"parameter `{name}` of tool {tool} names a directory beside the tool's file target; where it is "
                    "the tool's search scope, the seed's name for it is `path` (NAME-2)",
                    advisory=True,
                )
            )
        else:
            out.append(
                NameFinding(
                    "NAME-2",
                    name,
                    f"rename parameter `{name}` of tool {tool} to `path` (NAME-2): a directory or search scope, "
                    "including one that may select a file or a directory, is named path",
                )
            )
    cwds = [n for n, r in roles.items() if r == "cwd"]
    for name in cwds:
        if name == "cwd":
            continue
        if "cwd" in roles:
            out.append(
                NameFinding(
                    "NAME-5",
                    name,
                    f"remove parameter `{name}` of tool {tool} (NAME-5): it is an alias of `cwd`; "
                    "one role has one name",
                )
            )
        else:
            out.append(
                NameFinding(
                    "NAME-4",
                    name,
                    f"rename parameter `{name}` of tool {tool} to `cwd` (NAME-4): an execution working directory is "
                    "named cwd, and it is not a single-file target",
                )
            )
    return out


# -- SCHEMA-2: the TypeBox kinds -----------------------------------------------------------------

_ALLOWED_TYPES = frozenset({"object", "string", "number", "integer", "boolean", "array"})


def schema_error(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema (under 2020-12 and draft-07, as TypeBox writes both)."""
    errors = []
    for cls in (jsonschema.Draft202012Validator, jsonschema.Draft7Validator):
        try:
            cls.check_schema(schema)
            return None
        except jsonschema.SchemaError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            errors.append(f"at {where}: {exc.message}")
    return errors[0]


def _kind_notes(schema: Any, where: str) -> Iterator[str]:
    if not isinstance(schema, Mapping):
        yield f"`{where}` is not a schema object"
        return
    kind = schema.get("type")
    if "anyOf" in schema:
        for i, member in enumerate(schema.get("anyOf") or []):
            yield from _kind_notes(member, f"{where}|{i}")
        return
    for key, label in (("oneOf", "oneOf"), ("allOf", "an intersection (allOf)"), ("not", "`not`"), ("$ref", "a $ref")):
        if key in schema:
            yield f"`{where}` uses {label}"
            return
    if "const" in schema or "enum" in schema:
        return  # Literal (and a union of literals)
    if kind is None:
        yield f"`{where}` has no type (Type.Any or Type.Unknown): the model gets no contract for it"
        return
    kinds = kind if isinstance(kind, list) else [kind]
    for k in kinds:
        if k not in _ALLOWED_TYPES:
            yield f"`{where}` is of type {k!r} (Type.Null or a non-JSON kind)"
    if "object" in kinds:
        if "patternProperties" in schema or isinstance(schema.get("additionalProperties"), Mapping):
            yield f"`{where}` is a Record (patternProperties/additionalProperties schema)"
        for name, sub in (schema.get("properties") or {}).items():
            yield from _kind_notes(sub, f"{where}.{name}")
    if "array" in kinds:
        items = schema.get("items")
        if isinstance(items, list) or "prefixItems" in schema:
            yield f"`{where}` is a Tuple"
        elif isinstance(items, Mapping):
            yield from _kind_notes(items, f"{where}[]")


def kind_notes(parameters: Any) -> list[str]:
    """SCHEMA-2 advisories: places of ``parameters`` built from other than the listed TypeBox kinds."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    notes: list[str] = []
    for name, sub in props.items():
        notes.extend(_kind_notes(sub, name))
    return notes
