"""Shared test settings: hypothesis profiles that are deterministic in CI."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def private_progress_home(tmp_path, monkeypatch):
    """Every test gets its own empty progress directory, never the learner's."""
    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OBJECTIVES_TUTOR_LANG", raising=False)
