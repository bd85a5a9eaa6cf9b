"""Freeze a rule set: ``python tools/freeze_ruleset.py 2026.12`` writes pytest_toolconformance/rulesets/2026.12.toml.

The set lists every rule ID of the catalog and every check id of the kit's suites as they are now
(pytest_toolconformance/ruleset.py says what a run pinned to it does). A set, once released, is never
written again: a new one gets a new name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_toolconformance import __version__, ruleset
from pytest_toolconformance.rules import all_rules


def render(name: str) -> str:
    """The text of the set ``name``: the catalog's rules and the suites' checks, one a line."""
    rules = "".join(f"  {json.dumps(rule)},\n" for rule in all_rules())
    checks = "".join(f"  {json.dumps(check)},\n" for check in sorted(ruleset.current_checks()))
    return (f"# Rule set {name}: the rules and checks a run pinned with --toolconformance-ruleset={name} gates on.\n"
            f"# Frozen from pytest-toolconformance {__version__} by tools/freeze_ruleset.py; never edited since.\n"
            f"name = {json.dumps(name)}\nkit = {json.dumps(__version__)}\n"
            f"rules = [\n{rules}]\nchecks = [\n{checks}]\n")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    path = ruleset.RULESETS_DIR / f"{argv[0]}.toml"
    if path.exists():
        print(f"{path} exists: a released set is never written again; name a new one", file=sys.stderr)
        return 1
    path.write_text(render(argv[0]), "utf-8")
    print(f"wrote {Path(path).relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
