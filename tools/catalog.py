"""The rule catalog, docs/rules.md, generated from the one source of truth (a developer tool of the kit's
repository, not part of the installed package).

``python tools/catalog.py`` rewrites docs/rules.md; ``--check`` only compares and
exits 1 when it is out of date. Rules come from ``rules.all_rules()`` (the same ``data/RULES.md`` the
suites use); what checks a rule is found by scanning, never by importing: scenario cases
(``scenarios/*/*.json``), suite tests (``suites/suite_*.py`` and ``plugin_suites/``) marked
``toolconformance("RULE", ...)``; and what breaks a rule: mutant hosts (``tests/subjects/mutants/*.py`` with
``RULE = "..."``) and broken plugins (``tests/subjects/plugins/**/broken_<family>_<n>*``, named after their rule).
A host rule's dimension table comes from ``pytest_toolconformance/data/dimensions.json``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolconformance.rules import UNCHECKED_PLUGIN_SIDE, Rule, all_rules, anchor, fix_advice

REPO_ROOT = Path(__file__).resolve().parent.parent
CATALOG_PATH = Path("docs/rules.md")
REGENERATE = "python tools/catalog.py"
MARKER = "toolconformance"

def fix_line(rule: Rule) -> str:
    """The rule's "how to fix a failure" line: its family's advice for whom the rule binds, and the rerun."""
    if rule.binds == "plugin":
        rerun = f"pytest --toolconformance-plugin=PATH -k {rule.id} -vv"
    else:
        rerun = f"pytest --toolconformance -k {rule.id} -vv"
    return f"{fix_advice(rule)} Rerun: `{rerun}`."


@dataclass(frozen=True)
class Check:
    kind: str  # scenario, suite, plugin-suite
    name: str  # case id, or file::test
    where: str  # repository-relative file


@dataclass
class Coverage:
    checks: dict[str, list[Check]] = field(default_factory=dict)
    mutants: dict[str, list[str]] = field(default_factory=dict)
    #: Broken example plugins by the rule they break (repository-relative paths).
    broken_plugins: dict[str, list[str]] = field(default_factory=dict)
    #: (file, rule) for every rule ID a check or mutant names that the catalog does not know.
    named: list[tuple[str, str]] = field(default_factory=list)

    def add_check(self, rule: str, check: Check) -> None:
        self.checks.setdefault(rule, []).append(check)
        self.named.append((check.where, rule))


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def scan_scenarios(directory: Path, root: Path, coverage: Coverage, kind: str = "scenario") -> None:
    for path in sorted(directory.glob("*/*.json")):
        try:
            doc = json.loads(path.read_text("utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # a broken scenario file is the scenario tests' business, not the catalog's
        cases = doc.get("cases", []) if isinstance(doc, dict) else []
        for case in cases:
            if not isinstance(case, dict):
                continue
            for rule in case.get("rules", []) or []:
                coverage.add_check(str(rule), Check(kind, str(case.get("id", "?")), _rel(path, root)))


def _marker_rules(node: ast.AST) -> list[str]:
    """Rule IDs of every ``*.toolconformance("RULE", ...)`` call under ``node`` (string literals only)."""
    rules: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == MARKER:
            rules += [a.value for a in sub.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return rules


def _module_marks(tree: ast.Module) -> list[str]:
    rules: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            rules += _marker_rules(stmt.value)
    return rules


_RULE_ID = re.compile(r"[A-Z]+-[0-9]+")


def _ids_in(node: ast.AST, defs: Mapping[str, ast.AST], seen: frozenset[str] = frozenset()) -> list[str]:
    """Rule-ID-shaped string literals under ``node``, following names to module-level constants and
    helper functions (``@for_each_tool(NAME_RULES)``, ``@for_each_plugin(_load_rule)``)."""
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and _RULE_ID.fullmatch(sub.value):
            out.append(sub.value)
        elif isinstance(sub, ast.Name) and sub.id in defs and sub.id not in seen:
            out += _ids_in(defs[sub.id], defs, seen | {sub.id})
    return out


def _decorator_rules(decorator: ast.expr, defs: Mapping[str, ast.AST], known: Mapping[str, Rule]) -> list[str]:
    marked = _marker_rules(decorator)
    if marked:
        return marked
    # Parametrizing decorators that take the rules as data (the plugin suites'): only IDs of real rules
    # count, since any "ABC-1"-shaped string could be an argument of another kind.
    return [r for r in _ids_in(decorator, defs) if r in known] if isinstance(decorator, ast.Call) else []


def _tests_in(body: Sequence[ast.stmt], prefix: str, inherited: list[str], defs: Mapping[str, ast.AST],
              known: Mapping[str, Rule]) -> Iterable[tuple[str, list[str]]]:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("test"):
            rules = inherited + [r for d in stmt.decorator_list for r in _decorator_rules(d, defs, known)]
            yield f"{prefix}{stmt.name}", rules
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            marks = [r for d in stmt.decorator_list for r in _marker_rules(d)]
            marks += [r for s in stmt.body if isinstance(s, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)
                      for r in _marker_rules(s.value)]
            yield from _tests_in(stmt.body, f"{prefix}{stmt.name}::", inherited + marks, defs, known)


def _module_defs(tree: ast.Module) -> dict[str, ast.AST]:
    defs: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    defs[target.id] = stmt.value
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.name.startswith("test"):
            defs[stmt.name] = stmt
    return defs


def scan_python_tests(files: Iterable[Path], root: Path, coverage: Coverage, kind: str,
                      known: Mapping[str, Rule] | None = None) -> None:
    known = known if known is not None else all_rules()
    for path in sorted(files):
        try:
            tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        except (OSError, SyntaxError):
            continue
        where = _rel(path, root)
        tested: set[str] = set()
        for name, rules in _tests_in(tree.body, f"{path.name}::", _module_marks(tree), _module_defs(tree), known):
            for rule in dict.fromkeys(rules):
                coverage.add_check(rule, Check(kind, name, where))
                tested.add(rule)
        # A marker outside a test (a helper building pytest.param marks) still names a rule.
        coverage.named += [(where, rule) for rule in _marker_rules(tree) if rule not in tested]


def scan_mutants(directory: Path, root: Path, coverage: Coverage) -> None:
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_") or path.name == "base.py":
            continue
        try:
            tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        except (OSError, SyntaxError):
            continue
        for stmt in tree.body:
            if (isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "RULE" for t in stmt.targets)
                    and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                rule = stmt.value.value
                coverage.mutants.setdefault(rule, []).append(_rel(path, root))
                coverage.named.append((_rel(path, root), rule))


_BROKEN_PLUGIN = re.compile(r"^broken_(?P<family>[a-z]+)_(?P<number>[0-9]+)(?:_[a-z0-9_]+)?(?:\.py)?$")


def scan_broken_plugins(directory: Path, root: Path, coverage: Coverage) -> None:
    """``tests/subjects/plugins/<kind>/broken_err_4`` (a folder or a ``.py``) breaks ERR-4: the name says the rule."""
    if not directory.is_dir():
        return
    for path in sorted(directory.rglob("broken_*")):
        match = _BROKEN_PLUGIN.match(path.name)
        if match is None or "node_modules" in path.parts or (path.is_file() and path.suffix != ".py"):
            continue
        rule = f"{match['family'].upper()}-{match['number']}"
        coverage.broken_plugins.setdefault(rule, []).append(_rel(path, root))
        coverage.named.append((_rel(path, root), rule))


def plugin_suites_dir(root: Path = REPO_ROOT) -> Path:
    return root / "pytest_toolconformance" / "suites" / "plugin"


def scan(root: Path = REPO_ROOT) -> Coverage:
    """Everything in the repository at ``root`` that checks or breaks a rule."""
    coverage = Coverage()
    scan_scenarios(root / "scenarios", root, coverage)
    package = root / "pytest_toolconformance"
    scan_python_tests((package / "suites" / "host").glob("suite_*.py"), root, coverage, "suite")
    plugin_suites = plugin_suites_dir(root)
    if plugin_suites.is_dir():
        scan_python_tests((p for p in plugin_suites.rglob("*.py") if p.name != "__init__.py"), root, coverage,
                          "plugin-suite")
        scan_scenarios(plugin_suites, root, coverage, "plugin-suite")
    scan_mutants(root / "tests" / "subjects" / "mutants", root, coverage)
    scan_broken_plugins(root / "tests" / "subjects" / "plugins", root, coverage)
    return coverage


def unknown_rule_names(coverage: Coverage, rules: Mapping[str, Rule] | None = None) -> list[tuple[str, str]]:
    known = rules if rules is not None else all_rules()
    return sorted({(where, rule) for where, rule in coverage.named if rule not in known})


def _check_line(check: Check) -> str:
    if check.kind == "scenario":
        return f"- scenario `{check.name}` ([{check.where}](../{check.where}))"
    label = "suite test" if check.kind == "suite" else "plugin suite test"
    return f"- {label} `{check.name}` ([{check.where}](../{check.where}))"


DIMENSIONS_PATH = Path("pytest_toolconformance/data/dimensions.json")


def load_dimensions(root: Path = REPO_ROOT) -> dict[str, list[dict[str, Any]]]:
    """Per host rule, the cells of its dimension table: the things its sentence names (who calls, which
    tools, executors, turn kinds, registration forms), each with the checks (scenario case ids, or
    ``suite_*.py::test_name``) and the mutant hosts that cover it."""
    path = root / DIMENSIONS_PATH
    return json.loads(path.read_text("utf-8")) if path.is_file() else {}


def _dimension_table(cells: Sequence[Mapping[str, Any]]) -> list[str]:
    out = ["", "**Dimensions** (what the sentence names, and what covers each):", "",
           "| dimension | case | checked by | broken host |", "|---|---|---|---|"]
    for cell in cells:
        checks = ", ".join(f"`{c}`" for c in cell["checks"]) or "nothing yet"
        mutants = ", ".join(f"`{m}`" for m in cell["mutants"]) or "none yet"
        out.append(f"| {cell['dimension']} | {cell['cell']} | {checks} | {mutants} |")
    return out


def render(coverage: Coverage, rules: Mapping[str, Rule] | None = None,
           dimensions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> str:
    """docs/rules.md: deterministic, so that the test can compare it with the committed file."""
    rules = rules if rules is not None else all_rules()
    families: dict[str, list[Rule]] = {}
    for rule in rules.values():
        families.setdefault(rule.family, []).append(rule)
    out = [
        f"<!-- GENERATED by `{REGENERATE}` from pytest_toolconformance/data/RULES.md, scenarios/, "
        "the suites, tests/subjects/mutants/ and tests/subjects/plugins/. "
        "Do not edit by hand: edit those and regenerate. -->",
        "",
        "# Rule catalog",
        "",
        "Every rule the kit checks, by its stable ID. The IDs are the same in test names (`-k CAP-1` selects a",
        "rule's tests), in junit XML properties (`rule`), in the JSON/HTML report and in deviation files. Each",
        "rule lists what checks it (scenario cases, run by `suite_scenarios.py`, and suite tests), the mutant",
        "hosts and broken plugins that break it (the proof that the checks can go red), and where to look",
        "when it fails.",
        "",
        "Run one rule: `pytest --toolconformance -k CAP-1 -vv`. Binds: **host** rules are checked against the",
        "host behind the adapter, **plugin** rules against a plugin loaded into the reference host, **both**",
        "against both. A **Reading** is how the kit decides where the seed leaves a choice open; a host that",
        "reads the seed otherwise declares a known deviation (see [ci.md](ci.md)).",
        "",
        "| family | rules |",
        "|---|---|",
    ]
    for family, members in families.items():
        links = ", ".join(f"[{r.id}](#{anchor(r.id)})" for r in members)
        out.append(f"| {family}: {members[0].family_title} | {links} |")
    for family, members in families.items():
        first = members[0]
        out += ["", f"## {family}: {first.family_title}", "", f"Seed: {first.refs}."]
        for rule in members:
            checks = sorted(coverage.checks.get(rule.id, []), key=lambda c: (c.kind, c.where, c.name))
            mutants = sorted(coverage.mutants.get(rule.id, []))
            broken = sorted(coverage.broken_plugins.get(rule.id, []))
            out += ["", f"### {rule.id}", "", f"**Binds:** {rule.binds}.", ""]
            # A rule that is a reading as a whole (REASON-4) starts with "Reading:"; show it as one.
            statement = rule.statement
            if statement.startswith("Reading: "):
                statement = "**Reading:** " + statement.removeprefix("Reading: ")
            out.append(statement)
            if rule.reading:
                out += ["", f"**Reading:** {rule.reading}"]
            out += ["", "**Checked by:**" if checks else "**Checked by:** nothing yet."]
            out += [_check_line(c) for c in checks]
            if dimensions and rule.id in dimensions:
                out += _dimension_table(dimensions[rule.id])
            if rule.id in UNCHECKED_PLUGIN_SIDE:
                out += ["", f"**Plugin side:** not checked; {UNCHECKED_PLUGIN_SIDE[rule.id]}. A plugin-only run "
                        "lists it out of scope with this reason."]
            breakers = [f"mutant host [`{Path(m).stem}`](../{m})" for m in mutants]
            breakers += [f"broken plugin [`{Path(b).parent.name}/{Path(b).stem}`](../{b})" for b in broken]
            out += ["", "**Broken by:** " + (", ".join(breakers) if breakers else "nothing yet.")]
            out += ["", f"**How to fix a failure:** {fix_line(rule)}"]
    return "\n".join(out) + "\n"


def generate(root: Path = REPO_ROOT) -> str:
    return render(scan(root), dimensions=load_dimensions(root))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REGENERATE, description="Generate docs/rules.md, the rule catalog.")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the repository (default: this checkout)")
    parser.add_argument("--output", type=Path, default=None, help="where to write (default: ROOT/docs/rules.md)")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 when the file is out of date")
    args = parser.parse_args(argv)
    output = args.output or args.root / CATALOG_PATH
    text = generate(args.root)
    current = output.read_text("utf-8") if output.is_file() else None
    if args.check:
        if current != text:
            print(f"{output} is out of date; regenerate it with `{REGENERATE}`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, "utf-8")
        print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
