"""Running a subject as an unprivileged user: tests run as root, and chmod does not stop
root, so an unreadable file or directory is only unreadable to another uid."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Prefix a command with this when ``os.geteuid() == 0`` (uid/gid 65534, no groups).
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@contextmanager
def world_readable_tmp(prefix: str) -> Iterator[Path]:
    """A fresh 0755 temp dir outside pytest's 0700 ``tmp_path`` (which the unprivileged
    user cannot enter), removed afterwards."""
    base = tempfile.mkdtemp(prefix=prefix)
    os.chmod(base, 0o755)
    try:
        yield Path(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
