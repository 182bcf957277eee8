"""Helpers for Pilot tests of the app (one copy, for every tests/test_app*.py to import)."""

import asyncio


async def engine_ready(app, seconds: float = 120.0) -> None:
    """Wait until the app's background worker has loaded torch and the engine. ``seconds``
    only stops a broken build from hanging the suite: torch's import takes 2 s on a quiet
    machine and can take 20 on a loaded one, so this is no speed budget."""
    for _ in range(int(seconds / 0.05)):
        if app.engine_loaded:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the engine did not load in {seconds:g} s")


async def open_figure(app, pilot, objective: str):
    """Open ``objective``'s lesson on its live figure (F6) once the engine is there; the figure."""
    await engine_ready(app)
    app.open_lesson(objective)
    await pilot.pause()
    await pilot.press("f6")
    await pilot.pause()
    await pilot.pause()
    return app.screen.query_one("Figure")
