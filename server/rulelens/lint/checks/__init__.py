"""Check families, one module each. Each exposes ``CODES`` and ``run(ctx)``."""
