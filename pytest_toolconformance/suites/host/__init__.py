"""The host suites: one module a rule family (``suite_<family>.py``), what several of them share
(composing.py, generated.py, turns.py, preconditions.py) and the scenario files' runner (scenarios.py)."""
