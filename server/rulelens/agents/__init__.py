"""What each agent loads, as data: the ground floor of RuleLens.

This package imports nothing from the rest of ``rulelens``; ``rules``, ``lint``,
``memory`` and the shells import from it.
"""
