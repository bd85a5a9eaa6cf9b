"""The host suites: one module a rule family (``suite_<family>.py``), what several of them share
(composing.py, generated.py, turns.py, preconditions.py; COST-1's stopwatch.py) and the scenario
files' runner (scenarios.py).

Generated checks: the scenario files pin the named cases, a module's Hypothesis properties look for the
case nobody named. Every example starts from a fresh host (``client.reset()``), and a failure reports the
shrunk example as its smallest scenario.
"""
