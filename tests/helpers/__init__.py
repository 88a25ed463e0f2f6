"""Test helpers shared across test folders (on ``sys.path`` via pytest's ``pythonpath``)."""
