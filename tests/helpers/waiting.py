"""Waiting in tests: for an event the server reports, or — named, so it is searchable —
for the absence of one.

A test that needs "nothing more arrives" cannot await an event, so it waits a bounded
quiet period; :func:`quiet_period` is the one place such a wait lives.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

#: How long "nothing arrives" is watched for, unless a test says otherwise.
QUIET_S = 0.5


async def quiet_period(seconds: float = QUIET_S, why: str = "") -> None:
    """Give something that must NOT happen the chance to happen (``why`` says what)."""
    await asyncio.sleep(seconds)


def quiet_period_sync(seconds: float = QUIET_S, why: str = "") -> None:
    """:func:`quiet_period` for synchronous tests."""
    time.sleep(seconds)


async def until(check: Callable[[], Awaitable[Any]], what: str, timeout: float = 20.0,
                step: float = 0.05) -> Any:
    """Await ``check()`` until it returns something truthy; fail naming ``what``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(step)
