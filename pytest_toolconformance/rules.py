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
