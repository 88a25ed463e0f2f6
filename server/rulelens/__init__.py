"""RuleLens: which agent instruction files govern a file, are they healthy, and what the
agent remembers."""

__version__ = "0.1.0"
