"""A real PostgreSQL server for the tests: the Debian package's binaries, a temporary data
directory, a free loopback port, stopped at the end (also when tests fail).

`initdb` refuses to run as root: as root the server runs as the `postgres` system user on a
directory it owns (STACK-NOTES, "PostgreSQL on this machine"). Trust authentication on
127.0.0.1 only; the superuser is `birdie`.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

INSTALL_HINT = ("PostgreSQL server binaries not found: apt-get install postgresql (Debian) "
                "or put the folder holding initdb and pg_ctl in pg_config --bindir")
SUPERUSER = "birdie"


def find_bindir() -> Path | None:
    """The folder with initdb and pg_ctl: `pg_config --bindir`, else the Debian layout."""
    candidates: list[str] = []
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 timeout=30, check=True).stdout.strip()
            candidates.append(out)
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgServer:
    """One throwaway server. `start()` then `url(dbname)`; `stop()` is idempotent."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        # Tests skip fsync (throwaway data); a benchmark against sqlite, which syncs, must not.
        self.durable = durable
        self.root = Path(tempfile.mkdtemp(prefix="birdie-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self._as_postgres = os.geteuid() == 0
        self._running = False

    def _run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
        cmd = list(argv)
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)

    def start(self) -> None:
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        init = self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust",
                         "-U", SUPERUSER, "-E", "UTF8", "--no-sync")
        if init.returncode:
            raise RuntimeError(f"initdb failed: {init.stderr.strip()[-500:]}")
        atexit.register(self.stop)
        for _attempt in range(5):  # another process may grab the free port first
            self.port = free_port()
            fast = "" if self.durable else \
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                    f"{fast}-c max_connections=200")
            started = self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", opts,
                                "-l", str(self.root / "log"), "-w", "-t", "60", "start")
            if started.returncode == 0:
                self._running = True
                return
        log = (self.root / "log").read_text(errors="replace")[-800:] \
            if (self.root / "log").exists() else ""
        raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()} {log}")

    def stop(self) -> None:
        if self._running:
            self._running = False
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                      "-w", "stop", timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, dbname: str = "postgres", user: str = SUPERUSER) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self) -> str:
        """A fresh, empty database (from template0); returns its name."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return name

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
