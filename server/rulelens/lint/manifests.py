"""The bound for the files a rule's commands name (``package.json``, ``Makefile``,
``composer.json``, ``turbo.json``, ...): they are configuration, not data.

:mod:`rulelens.lint.commands.project` reads each through :mod:`rulelens.agents.safeio`
(regular files only, never blocking, refused from its ``fstat`` above this bound: a 1 GiB
sparse ``package.json`` costs no read) and scans JSON nesting before parsing
(:mod:`rulelens.agents.bounded`); a skipped file is named in one line.
"""

from __future__ import annotations

from rulelens.agents import safeio

#: The most of a manifest read.
LIMIT = safeio.CONFIG_LIMIT
