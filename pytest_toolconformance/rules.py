"""The rule catalog: one source of truth for rule IDs, parsed from the bundled RULES.md.

``data/RULES.md`` is a copy of the project's spec digest (``shared/spec/RULES.md``); the kit's own
tests check that the copy is current where the spec is present.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

_RULE = re.compile(r"^- \*\*(?P<id>[A-Z]+-\d+)\*\* (?P<binds>host|plugin|both)\. (?P<text>.*)$")
_FAMILY = re.compile(r"^## (?P<family>[A-Z]+): (?P<title>.*?) \((?P<refs>[^)]*)\)\s*$")

#: The marker that binds a check to its rule IDs (`@pytest.mark.toolconformance("CAP-1")`).
MARKER = "toolconformance"


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    family_title: str
    binds: str  # "host", "plugin" or "both"
    statement: str
    reading: str | None
    refs: str

    @property
    def host_rule(self) -> bool:
        return self.binds in ("host", "both")

    @property
    def plugin_rule(self) -> bool:
        return self.binds in ("plugin", "both")


def parse_rules(text: str) -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    family, title, refs = "", "", ""
    for line in text.splitlines():
        heading = _FAMILY.match(line)
        if heading:
            family, title, refs = heading["family"], heading["title"], heading["refs"]
            continue
        match = _RULE.match(line)
        if not match:
            continue
        statement, _, reading = match["text"].partition(" Reading: ")
        rules[match["id"]] = Rule(
            id=match["id"], family=family, family_title=title, binds=match["binds"],
            statement=statement.strip(), reading=reading.strip() or None, refs=refs,
        )
    return rules


def rules_text() -> str:
    return resources.files(__package__).joinpath("data/RULES.md").read_text("utf-8")


@cache
def all_rules() -> dict[str, Rule]:
    """Every rule by ID, in catalog order."""
    return parse_rules(rules_text())


def families() -> dict[str, list[Rule]]:
    out: dict[str, list[Rule]] = {}
    for rule in all_rules().values():
        out.setdefault(rule.family, []).append(rule)
    return out


def host_rules() -> list[str]:
    return [r.id for r in all_rules().values() if r.host_rule]


def plugin_rules() -> list[str]:
    return [r.id for r in all_rules().values() if r.plugin_rule]


#: Rules binding plugins that no plugin check can observe, and why: a plugin-only run lists them out
#: of scope with this reason instead of as "not-run" (tests/kit/test_rule_scope.py holds this list to
#: the rules the plugin suites declare).
UNCHECKED_PLUGIN_SIDE = {
    "DELEG-3": "no plugin check can observe it: a plugin never builds a child's access through the plugin "
               "API the kit drives (delegation is the host's, and the host suites check it)",
}


def anchor(rule_id: str) -> str:
    """The anchor of a rule in docs/rules.md and in the HTML report (GitHub's slug of ``### CAP-1``)."""
    return rule_id.lower()


#: Where to look first when a rule fails, by family: (for a host, for a plugin). Short on purpose.
FIX_BY_FAMILY: dict[str, tuple[str, str | None]] = {
    "REG": ("Run the call pipeline in order (boundary, plan, grant, hooks, validation, handler), stop at the first "
            "refusal, and hand the model only `content`, never `details`.",
            "Export `register(ctx)` (await anything async inside it) and return `{content: [...], details: {}}` "
            "from every tool built with `defineTool`."),
    "SCHEMA": ("Refuse a local schema whose root is not a plain object at registration, naming the tool and "
               "SCHEMA-1, and do not advertise it.",
               "Make the root of `parameters` a plain `Type.Object`; move either-or choices into the handler and "
               "refuse arguments that break the schema with a text result."),
    "NAME": ("Record the journal arguments as the model sent them, before any handler can mutate them.",
             "Rename the parameter to its role name (`file_path`, `path`, `output_path`, `cwd`) in the schema and "
             "every caller together, with no alias, and refuse unknown parameters."),
    "ERR": ("Turn a handler's throw into a result flagged `is_error` and keep the session usable; keep the "
            "transport tag on the error object across rethrows.",
            "Return bad arguments, missing resources and refusals as text; throw transport and host faults (where "
            "the host offers a transport tag, as the seam's host does, tag them with `markTransportFailure` and "
            "rethrow `isTransportFailure` errors in catch-alls; a pi extension or OpenClaw plugin just throws)."),
    "EXT": ("Take origin from the `external` registration option only (boolean, default false) and carry it with "
            "the accepted owner; a rejected collision contributes nothing.", None),
    "CAP": ("Cap external tools only, at composition only: descriptions at 1,000 UTF-8 bytes on a character "
            "boundary, definitions over 8,000 compact-JSON bytes get the permissive schema and notice.", None),
    "REASON": ("Add the optional `reason` string to internal tools except Bash and ToolSearch, never to external "
               "tools, and strip it before the handler runs.", None),
    "RO": ("Expand `mcp__*` only to the plugin's own registered external tools, require the matching "
           "`provides.tools` entry, and check ownership of exact read-only names.", None),
    "PLAN": ("In plan mode advertise the Build tool list unchanged, execute only the read-only set (never an "
             "external tool), and load deferred tools through the loader.", None),
    "SCOPE": ("Leave scoped contributions out of other sessions' tool list and catalog, and still run grants and "
              "policy on the visible ones.",
              "Call `currentIdentity()` / `currentAccess()` inside `execute`, never in `register` or a cache."),
    "ACCESS": ("Re-read live policy, intersected with the captured ceiling, right before each operation, inside "
               "the mutation queue and after awaits; never widen a scoped session.", None),
    "PLANFILE": ("Mint `planFile` only on a Project conversation's own Plan turn, admit exactly that write and its "
                 "create-only parents, and never forward it to a child.", None),
    "DELEG": ("Keep `readOnly` and `planMode` on delegated children whatever the requested access says.",
              "Build child access from `currentAccess()` without clearing `readOnly` or `planMode`."),
    "GRANT": ("Decide entitlement from the account's plugin grant and the tool deny-list before the handler runs.",
              "Drop `identity.owner` checks used for entitlement; keep them for operator-only plugin state."),
    "MANIFEST": ("Honour `showOutput` (errors always shown) and `deferLoading` from the manifest; report "
                 "`provides.tools` drift as a finding.",
                 "Keep `provides.tools` in step with what `register` actually registers."),
    "DIAG": ("Redact external names and namespaces holding external tools in the cache-diagnostics projection only, "
             "and keep registration metadata out of provider payloads.", None),
    "COST": ("Keep composition linear in the catalog plus the external schemas inspected.",
             "Shrink the tool's schema and description until its advertised bytes fit the budget."),
}

DEFAULT_FIX = "Read the rule's statement and reading and compare them with the reproduction in the failure message."


def fix_advice(rule: Rule, subject: str | None = None) -> str:
    """Where to look first when ``rule`` fails: its family's advice for ``subject`` ("host" or "plugin"),
    or for whom the rule binds when no subject is given."""
    host, plugin = FIX_BY_FAMILY.get(rule.family, (DEFAULT_FIX, None))
    if subject == "plugin" or (subject is None and rule.binds == "plugin"):
        return plugin or host
    if subject == "host" or rule.binds == "host" or plugin is None:
        return host
    return f"Host: {host} Plugin: {plugin}"
