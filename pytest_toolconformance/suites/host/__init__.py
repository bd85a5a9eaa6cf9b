"""The conformance suites. Collected only under ``--toolconformance``; modules are ``suite_*.py``."""
