"""Tests of ``pytest_toolconformance.host``: the adapter contract and the JS host kit."""
