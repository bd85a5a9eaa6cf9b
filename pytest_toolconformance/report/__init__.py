"""The report of a run, read from what pytest recorded: each check's outcome by rule, known deviations,
the terminal summary, and the JSON, Markdown and HTML reports."""
