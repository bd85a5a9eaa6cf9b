"""The conformance suites, collected only under ``--toolconformance`` (modules ``suite_*.py``): host/
checks a host behind its adapter, plugin/ checks plugins loaded into the reference host."""
