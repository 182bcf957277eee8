"""Helpers for Pilot tests of the app (one copy, for every tests/test_app*.py to import)."""

import asyncio


async def engine_ready(app, seconds: float = 30.0) -> None:
    """Wait until the app's background worker has loaded torch and the engine."""
    for _ in range(int(seconds / 0.05)):
        if app.engine_loaded:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the engine did not load in {seconds:g} s")
