"""``python -m rulelens`` is the ``rulelens`` console script (VS Code launches it this way)."""

from rulelens.startup import main

raise SystemExit(main())
