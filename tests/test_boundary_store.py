"""A store URL's password stays off command lines: ``cron``'s line keeps the store, ``--store`` leaves ``ps``.

A small fake PostgreSQL server (a real TCP socket speaking the start of the wire protocol) stands in for
the team's store: it asks the client for its password in clear text and records the user, database and
password libpq sends. A command then provably uses the same store as the URL it was given, while the
test reads what ``ps`` shows of it (``/proc/PID/cmdline``).
"""

import os
import shlex
import socket
import stat
import struct
import subprocess
import sys
import threading

import pytest
from conftest import REPO
from fake_backend import subprocess_env, use_fake_backend

from smartvec_cli.store.postgres.secrets import split_password

SECRET = "s3cr:t\\pw"
SSL_REQUEST, GSS_REQUEST, PROTOCOL_3 = 80877103, 80877104, 196608


class FakePostgres:
    """Accepts connections, asks each for a clear-text password, records what it is told, then refuses
    it (an authentication failure) once ``release`` is set."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.logins: list[dict] = []
        self.got_password = threading.Event()
        self.release = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _read(self, conn, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError
            data += chunk
        return data

    def _talk(self, conn) -> None:
        with conn:
            try:
                while True:
                    length, code = struct.unpack("!ii", self._read(conn, 8))
                    body = self._read(conn, length - 8)
                    if code in (SSL_REQUEST, GSS_REQUEST):
                        conn.sendall(b"N")
                        continue
                    assert code == PROTOCOL_3, code
                    words = body.split(b"\0")
                    login = {k.decode(): v.decode() for k, v in zip(words[::2], words[1::2], strict=False) if k}
                    conn.sendall(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
                    kind, length = struct.unpack("!ci", self._read(conn, 5))
                    assert kind == b"p", kind
                    login["password"] = self._read(conn, length - 4).rstrip(b"\0").decode()
                    self.logins.append(login)
                    self.got_password.set()
                    self.release.wait(30)
                    error = b"SFATAL\0C28P01\0Mpassword authentication failed (fake server)\0\0"
                    conn.sendall(b"E" + struct.pack("!i", len(error) + 4) + error)
                    return
            except (ConnectionError, OSError):
                return

    def url(self, password: str | None = SECRET, user: str = "ana") -> str:
        from urllib.parse import quote

        secret = f":{quote(password, safe='')}" if password is not None else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/team"

    def close(self) -> None:
        self.release.set()
        self.server.close()


@pytest.fixture
def fake_pg():
    server = FakePostgres()
    yield server
    server.close()


def cron_parts(line: str) -> tuple[dict, list[str], str]:
    """A crontab line as the shell would run it: (its environment assignments, its command words, the log)."""
    fields = line.split(" ", 5)
    assert fields[:5] != [] and len(fields) == 6, line
    words = shlex.split(fields[5].replace("\\%", "%"))
    assert words[-3] == ">>" and words[-1] == "2>&1", words
    environment = {}
    while "=" in words[0] and not words[0].startswith("/"):
        name, _, value = words.pop(0).partition("=")
        environment[name] = value
    return environment, words[:-3], words[-2]


def assert_private_pgpass(path: str, user: str, password: str) -> None:
    mode = stat.S_IMODE(os.stat(path).st_mode)
    assert mode == 0o600, oct(mode)
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    assert f"*:*:*:{user}:{escaped}\n" in open(path, encoding="utf-8").read()


@pytest.mark.parametrize("given", ["--store", "SMARTVEC_STORE"])
def test_cron_keeps_a_store_with_a_password_in_a_private_file_the_line_names(
    vault, cli, tmp_path, monkeypatch, fake_pg, given
):
    url = fake_pg.url()
    args = ("--store", url, "cron") if given == "--store" else ("cron",)
    if given == "SMARTVEC_STORE":
        monkeypatch.setenv("SMARTVEC_STORE", url)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    line = result.stdout.strip()
    assert "s3cr" not in line and "%3A" not in line  # neither the password nor its URL-encoded form
    environment, words, log = cron_parts(line)
    index_dir = tmp_path / "index"
    assert environment == {"PGPASSFILE": str(index_dir / "pgpass")}
    assert (
        words[words.index("--store") + 1] == split_password(url)[0] == f"postgresql://ana@127.0.0.1:{fake_pg.port}/team"
    )
    assert_private_pgpass(environment["PGPASSFILE"], "ana", SECRET)

    # What cron would run, run by a shell: it reaches the same store, with the same password.
    use_fake_backend(index_dir)
    monkeypatch.delenv("SMARTVEC_STORE", raising=False)
    command = line.split(" ", 5)[5].replace("\\%", "%")
    env = {
        k: v
        for k, v in subprocess_env().items()
        if k not in ("SMARTVEC_STORE", "SMARTVEC_VAULT", "SMARTVEC_INDEX", "PGPASSFILE")
    }
    fake_pg.release.set()
    done = subprocess.run(["/bin/sh", "-c", command], env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1  # the fake server refuses the password it was sent: the one-line error is in the log
    assert fake_pg.logins, open(log).read()
    assert {k: fake_pg.logins[0][k] for k in ("user", "database", "password")} == {
        "user": "ana",
        "database": "team",
        "password": SECRET,
    }
    logged = open(log, encoding="utf-8").read()
    assert "password authentication failed" in logged and "s3cr" not in logged


@pytest.mark.parametrize("given", ["--store", "SMARTVEC_STORE"])
def test_cron_puts_a_store_without_a_password_on_the_line(vault, cli, tmp_path, monkeypatch, given):
    url = "postgresql://ana@db.example:5432/team?sslmode=require"
    if given == "SMARTVEC_STORE":
        monkeypatch.setenv("SMARTVEC_STORE", url)
    result = cli(*(("--store", url) if given == "--store" else ()), "cron")
    assert result.exit_code == 0, result.stderr
    environment, words, _ = cron_parts(result.stdout.strip())
    assert environment == {}
    assert words[words.index("--store") + 1] == url
    assert not (tmp_path / "index" / "pgpass").exists()


def test_cron_leaves_a_store_from_config_toml_to_the_nightly_run(vault, cli, tmp_path, monkeypatch):
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "config.toml").write_text('store = "postgresql://ana@db.example/team"\n', encoding="utf-8")
    _, words, _ = cron_parts(cli("cron").stdout.strip())
    assert "--store" not in words


def cmdline(pid: int) -> list[str]:
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return handle.read().decode().rstrip("\0").split("\0")


@pytest.mark.parametrize("form", ["--store URL", "--store=URL"])
def test_watch_started_with_a_store_password_does_not_show_it_in_ps(vault, tmp_path, fake_pg, form):
    """The process re-executes itself with the URL in SMARTVEC_STORE: while it talks to the store, its
    command line holds no password, and the store it reaches is the one it was given."""
    index_dir = tmp_path / "index"
    use_fake_backend(index_dir)
    url = fake_pg.url()
    store = ["--store", url] if form == "--store URL" else [f"--store={url}"]
    env = {k: v for k, v in subprocess_env().items() if k != "SMARTVEC_STORE"}
    process = subprocess.Popen(
        [sys.executable, "-m", "smartvec_cli", "--vault", str(vault), *store, "--index-dir", str(index_dir), "watch"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake_pg.got_password.wait(60), process.stderr.read() if process.poll() is not None else "no login"
        shown = cmdline(process.pid)
        assert process.poll() is None  # the very process started, still running, talking to the store
        assert not any("s3cr" in word or "%3A" in word for word in shown), shown
        assert shown[-1] == "watch" and "--vault" in shown and "--store" not in " ".join(shown)
        assert {k: fake_pg.logins[0][k] for k in ("user", "database", "password")} == {
            "user": "ana",
            "database": "team",
            "password": SECRET,
        }
    finally:
        fake_pg.release.set()
        try:
            _, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
    assert "s3cr" not in stderr and "Traceback" not in stderr, stderr


def test_a_store_url_without_a_password_is_left_on_the_command_line():
    """Nothing to hide: no re-exec (the arguments are kept as given)."""
    from smartvec_cli.cli.main import store_with_password

    assert store_with_password(["--store", "postgresql://ana@db/team", "watch"]) is None
    assert (
        store_with_password(["--vault", "v", "query", "--store", "postgresql://a:b@db/t"]) is None
    )  # a question's words
    assert store_with_password(["--vault", "v", "--store=postgresql://a:b@db/t", "watch"]) == (
        "postgresql://a:b@db/t",
        ["--vault", "v", "watch"],
    )
    assert store_with_password(["--store", "postgresql://db/t?password=b", "index"]) == (
        "postgresql://db/t?password=b",
        ["index"],
    )


def test_split_password_finds_it_in_the_user_part_and_the_parameters():
    assert split_password("postgresql://ana:s%3Acret@db:5433/team?sslmode=require") == (
        "postgresql://ana@db:5433/team?sslmode=require",
        "s:cret",
    )
    assert split_password("postgresql://db/team?user=bo&password=x&sslmode=disable") == (
        "postgresql://db/team?user=bo&sslmode=disable",
        "x",
    )
    assert split_password("postgresql://ana@db/team") == ("postgresql://ana@db/team", None)
    assert split_password("postgresql://ana:pw@/team?host=/tmp/sock") == (
        "postgresql://ana@/team?host=/tmp/sock",
        "pw",
    )  # kept as written
