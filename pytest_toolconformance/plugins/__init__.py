"""Checking a plugin: the loaders, each plugin in a confined bridge process (loaders/), the plugins under
test and what one check is about, the checks' parametrization, how a call is read, the generated
arguments, the work folders, the workers and the run's budget, and the static checks."""
