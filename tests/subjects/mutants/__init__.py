"""Deliberately broken hosts: each wraps the reference host and breaks one host rule.

A mutant module defines ``RULE`` (the rule it breaks), optionally ``ALSO`` (rules whose tests
it cannot help breaking as well, with the reason in a comment), and ``factory()`` returning an
adapter. tests/kit/suites/test_mutants.py runs the suites against every mutant and requires them to go red
on ``RULE``.

A mutant's change is what its classes override of the reference host and its adapter: a mutant runs
only the checks that reach those methods (tests/kit/suites/mutant_reach.py). So break a rule by
overriding a method, not by patching a module or replacing a class constant (that works, but runs every
check); and mark an override that only re-classes what the host builds with ``base.plumbing``.
"""
