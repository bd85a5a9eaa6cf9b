"""Tests of ``pytest_toolconformance.report``: the report by rule, deviations, Markdown and HTML."""
