"""Deliberately broken hosts: each wraps the reference host and breaks one host rule.

A mutant module defines ``RULE`` (the rule it breaks), optionally ``ALSO`` (rules whose tests
it cannot help breaking as well, with the reason in a comment), and ``factory()`` returning an
adapter. tests/kit/suites/test_mutants.py runs the suites against every mutant and requires them to go red
on ``RULE``.
"""
