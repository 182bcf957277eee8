"""A PostgreSQL for the class-store tests and the class-server benchmark.

$OBJECTIVES_TUTOR_TEST_PG (a postgresql:// URL; .ci/run sets it after installing
and starting Debian's server) is used when set: then an unreachable server FAILS
the tests, it never skips them. When it is unset, a throwaway cluster is started
from Debian's binaries (initdb/pg_ctl; as the postgres user when running as root,
since the server refuses root) on a Unix socket in a temporary folder, and removed
at the end. Only when neither is possible do the PostgreSQL tests skip, saying why,
and never under CI=true: there a missing PostgreSQL fails them.

Each test gets a schema of its own (``fresh_url``), dropped afterwards."""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

ENV = "OBJECTIVES_TUTOR_TEST_PG"


class LocalCluster:
    """A throwaway cluster: start() returns its URL, or raises RuntimeError saying why not."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.bindir: Path | None = None
        self.prefix: list[str] = []

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self.prefix, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(
                f"{Path(command[0]).name} failed: {(done.stderr or done.stdout).strip()[:300]}"
            )

    def start(self) -> str:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        initdb = found[-1] if found else shutil.which("initdb")
        if not initdb:
            raise RuntimeError(
                f"no PostgreSQL server binaries (apt-get install postgresql), and ${ENV} is unset"
            )
        self.bindir = Path(initdb).parent
        self.folder = Path(tempfile.mkdtemp(prefix="tutor-pg-"))
        if os.geteuid() == 0:  # the server will not run as root
            if not shutil.which("runuser"):
                raise RuntimeError("running as root without runuser: cannot start PostgreSQL as another user")
            shutil.chown(self.folder, "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        data = self.folder / "data"
        self._run(
            str(self.bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "tutor", "-N", "-E", "UTF8"
        )
        options = f"-k {self.folder} -c listen_addresses='' -p {self.port} -F -c max_connections=200"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        return f"postgresql://tutor@/postgres?host={quote(str(self.folder))}&port={self.port}"

    def stop(self) -> None:
        if self.folder is None:
            return
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None


def server_url() -> tuple[str | None, LocalCluster | None, str]:
    """(url, the cluster to stop afterwards or None, why there is none)."""
    url = os.environ.get(ENV)
    if url:
        return url, None, ""
    cluster = LocalCluster()
    try:
        return cluster.start(), cluster, ""
    except (RuntimeError, OSError, subprocess.SubprocessError, LookupError) as error:
        cluster.stop()
        return None, None, str(error)


def with_schema(url: str, schema: str) -> str:
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


@contextlib.contextmanager
def fresh_url(url: str):
    """A URL whose tables live in a new schema of their own, dropped afterwards."""
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
