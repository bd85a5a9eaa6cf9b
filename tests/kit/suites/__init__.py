"""Tests of ``pytest_toolconformance.suites``: every rule proven by a subject that breaks it."""
