"""Shared test settings: hypothesis profiles that are deterministic in CI."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


import gc  # noqa: E402

import pytest  # noqa: E402


def pytest_collection_finish(session):
    """What the tests will import (torch, Textual, the app, the catalogue: hundreds of
    thousands of objects that never become garbage) is imported now and moved out of the
    cyclic collector's sight: every full collection walked all of it again. torch is
    imported here because the app loads it in a thread after collection, and unfrozen it
    made each full collection cost a quarter of a second, a second of every app test."""
    import torch  # noqa: F401

    import engine.masks  # noqa: F401
    import tui.app  # noqa: F401

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 50)


@pytest.fixture(autouse=True)
def private_progress_home(tmp_path, monkeypatch):
    """Every test gets its own empty progress directory, never the learner's."""
    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OBJECTIVES_TUTOR_LANG", raising=False)


@pytest.fixture(scope="session")
def postgres_url():
    """tests/pg_server.py's PostgreSQL (CI's, or one throwaway cluster for the whole run),
    shared by the class-store, class-command and class-server tests. A missing server
    fails them under CI or when $OBJECTIVES_TUTOR_TEST_PG names one; elsewhere they skip."""
    from tests import pg_server

    url, cluster, why = pg_server.server_url()
    if url is None and (os.environ.get("CI") or os.environ.get(pg_server.ENV)):
        pytest.fail(f"the class database must be tested on PostgreSQL (.ci/run sets ${pg_server.ENV}): {why}")
    if url is None:
        pytest.skip(f"no PostgreSQL: {why}")
    yield url
    if cluster is not None:
        cluster.stop()
