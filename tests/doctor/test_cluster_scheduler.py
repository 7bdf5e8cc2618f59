# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``smr-doctor cluster --scheduler ADDRESS`` where no Dask scheduler is (round 36 audit, H2 and M8): real
sockets on 127.0.0.1 that are not a scheduler are named within the timeout, never waited on, and their bytes
are never taken as a length to allocate; bad addresses are usage errors naming --scheduler."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from smrnb.doctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOREIGN = "something listens there but does not speak Dask's protocol"


def _needs_distributed():
    pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")


def _doctor(*args: str, limit: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    """The command as a user runs it, cut off after ``limit`` s (a hang fails the test, it never blocks it)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.monotonic()
    try:
        r = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", *args], capture_output=True, text=True,
                           timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"smr-doctor {' '.join(args)} was still running after {limit} s")
    return r, time.monotonic() - t0


class _Server:
    """A TCP server on 127.0.0.1 that does ``greet(conn)`` with each connection, then holds it open."""

    def __init__(self, greet):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.got: list[bytes] = []
        self.greet = greet
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            self.greet(conn)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def server(request):
    srv = _Server(request.param)
    yield srv
    srv.close()


@pytest.fixture
def web_server():
    """``python -m http.server``: waits for a request, answers it."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    httpd.RequestHandlerClass.log_message = lambda *a, **k: None
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_a_web_server_that_waits_for_a_request_is_named_within_the_timeout(web_server):
    _needs_distributed()
    r, took = _doctor("--timeout", "1", "cluster", "--scheduler", f"tcp://127.0.0.1:{web_server}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert (f"no Dask scheduler at tcp://127.0.0.1:{web_server}: {FOREIGN} (an HTTP server: the dashboard's port?"
            in r.stderr), r.stderr
    assert "Traceback" not in r.stderr and took < 20


@pytest.mark.parametrize("server", [lambda c: c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")],
                         indirect=True)
def test_a_server_that_answers_http_at_once_is_named_not_read_as_a_frame_length(server):
    _needs_distributed()
    r, took = _doctor("--timeout", "1", "cluster", "--scheduler", f"tcp://127.0.0.1:{server.port}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"{FOREIGN} (an HTTP server: the dashboard's port?" in r.stderr, r.stderr
    assert "MemoryError" not in r.stderr and "allocate" not in r.stderr and took < 20


@pytest.mark.parametrize("server", [lambda c: None], indirect=True)
@pytest.mark.parametrize("timeout", ["1", "2"])
def test_a_server_that_accepts_and_says_nothing_is_not_waited_on(server, timeout):
    _needs_distributed()
    r, took = _doctor("--timeout", timeout, "cluster", "--scheduler", f"127.0.0.1:{server.port}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"{FOREIGN} (it sent nothing within {timeout} s, and a Dask scheduler greets at once" in r.stderr, r.stderr
    assert took < 20


@pytest.mark.parametrize("server", [lambda c: c.sendall(struct.pack("=Q", 2**30))], indirect=True)
def test_a_huge_length_from_a_foreign_server_is_never_allocated(server):
    _needs_distributed()
    r, took = _doctor("--timeout", "1", "cluster", "--scheduler", f"tcp://127.0.0.1:{server.port}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"{FOREIGN} (its first bytes " in r.stderr and "announce a message of 1.0 GiB" in r.stderr, r.stderr
    assert took < 20


@pytest.mark.parametrize("server", [lambda c: c.sendall(struct.pack("=QQQ", 40, 1, 20) + b"x" * 4)], indirect=True)
def test_a_length_that_the_frames_do_not_add_up_to_is_not_a_greeting(server):
    _needs_distributed()
    r, _ = _doctor("--timeout", "1", "cluster", "--scheduler", f"tcp://127.0.0.1:{server.port}")
    assert r.returncode == 2 and FOREIGN in r.stderr, r.stderr
    assert "its greeting of 40 bytes stopped after 20" in r.stderr, r.stderr


def test_nothing_listening_is_said_with_the_reason():
    _needs_distributed()
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]  # a port that was just free, now closed again
    r, took = _doctor("--timeout", "1", "cluster", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert r.returncode == 2
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port} (connection refused" in r.stderr, r.stderr
    assert took < 20


@pytest.mark.parametrize(("value", "why"), [
    ("", "an empty address"),
    ("nonsense", "no port (the scheduler's is 8786 by default)"),
    ("tcp://127.0.0.1", "no port"),
    ("tcp://127.0.0.1:http", "the port 'http' is not a number from 1 to 65535"),
    ("tcp://127.0.0.1:70000", "the port '70000' is not a number"),
    ("ws://127.0.0.1:8786", "the scheme 'ws' is not one this command connects to (tcp or tls)"),
    ("tcp://::1:8786", "an IPv6 host needs brackets: tcp://[::1]:8786"),
    ("tcp://:8786", "no host"),
])
def test_a_bad_scheduler_value_is_a_usage_error_naming_it(value, why, capsys):
    with pytest.raises(SystemExit) as ex:
        cli.main(["cluster", "--scheduler", value])
    err = capsys.readouterr().err
    assert ex.value.code == 2, err
    assert "--scheduler must be tcp://HOST:PORT (the scheduler's port, 8786 by default" in err and "tls://" in err
    assert f"got {value!r}: {why}" in err


def test_a_password_in_the_address_stays_redacted(capsys):
    with pytest.raises(SystemExit) as ex:
        cli.main(["cluster", "--scheduler", "tcp://alice:hunter2secret@127.0.0.1:8786"])
    err = capsys.readouterr().err
    assert ex.value.code == 2 and "hunter2secret" not in err and "<redacted>" in err, err
    assert "a Dask address has no user name or password" in err


def test_a_tls_address_without_tls_settings_is_a_usage_error(monkeypatch, capsys):
    _needs_distributed()
    import dask

    with dask.config.set({"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None}):
        with pytest.raises(SystemExit) as ex:
            cli.main(["cluster", "--scheduler", "tls://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert ex.value.code == 2, err
    assert "--scheduler tls://127.0.0.1:1 needs Dask's TLS settings" in err and "distributed.comm.tls.ca-file" in err
    assert "TypeError" not in err


@pytest.mark.slow
def test_a_real_scheduler_passes_the_probe_and_the_command_runs():
    """The probe must not turn a real scheduler away: a scheduler with no workers gives a report of none."""
    _needs_distributed()
    from distributed import LocalCluster

    from smrnb.doctor._scheduler import parse_scheduler_address, probe_scheduler

    with LocalCluster(n_workers=0, dashboard_address=None, processes=False, protocol="tcp") as cluster:
        addr = parse_scheduler_address(cluster.scheduler_address)
        probe = probe_scheduler(addr, 5.0)
        assert probe.ok and probe.listens and not probe.reason
        r, _ = _doctor("--timeout", "5", "cluster", "--scheduler", cluster.scheduler_address, "--layer", "loader",
                       limit=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "smr-doctor cluster: 0 worker(s) answered" in r.stdout


@pytest.fixture
def tls_settings(tmp_path):
    """A self-signed certificate (its own CA) and Dask's TLS settings naming it, as the environment gives them."""
    _needs_distributed()
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate for a tls:// scheduler")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-subj", "/CN=localhost", "-days", "2", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], check=True, capture_output=True,
                   timeout=60)
    return str(cert), str(key), {"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(cert),
                                 "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(cert),
                                 "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(key)}


@pytest.mark.slow
def test_a_tls_scheduler_is_greeted_through_tls_and_its_tcp_address_is_told_apart(tls_settings, monkeypatch):
    from distributed import LocalCluster
    from distributed.security import Security

    cert, key, env = tls_settings
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    sec = Security(tls_ca_file=cert, tls_scheduler_cert=cert, tls_scheduler_key=key, tls_client_cert=cert,
                   tls_client_key=key, require_encryption=True)
    with LocalCluster(n_workers=0, dashboard_address=None, processes=False, protocol="tls", security=sec) as cluster:
        address = cluster.scheduler_address
        r, _ = _doctor("--timeout", "5", "cluster", "--scheduler", address, "--layer", "loader", limit=120)
        plain, took = _doctor("--timeout", "1", "cluster", "--scheduler", address.replace("tls://", "tcp://"))
    assert r.returncode == 0 and "0 worker(s) answered" in r.stdout, r.stderr[-2000:]
    assert plain.returncode == 2 and FOREIGN in plain.stderr and "give tls://HOST:PORT" in plain.stderr, plain.stderr
    assert took < 20


def test_a_tls_address_where_a_web_server_listens_fails_its_handshake_within_the_timeout(tls_settings, web_server,
                                                                                         monkeypatch):
    for k, v in tls_settings[2].items():
        monkeypatch.setenv(k, v)
    r, took = _doctor("--timeout", "1", "cluster", "--scheduler", f"tls://127.0.0.1:{web_server}")
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"no Dask scheduler at tls://127.0.0.1:{web_server}: {FOREIGN} (the TLS handshake failed" in r.stderr, \
        r.stderr
    assert took < 20


def test_a_resolver_that_does_not_answer_is_not_waited_on(monkeypatch):
    """getaddrinfo has no timeout: a head node's broken DNS must not hang the probe."""
    from smrnb.doctor import _scheduler

    release = threading.Event()
    monkeypatch.setattr(_scheduler.socket, "getaddrinfo", lambda *a, **k: release.wait(30) or [])
    t0 = time.monotonic()
    probe = _scheduler.probe_scheduler(_scheduler.parse_scheduler_address("tcp://head.example:8786"), 0.5)
    release.set()
    assert time.monotonic() - t0 < 5
    assert not probe.ok and not probe.listens
    assert probe.reason == "the host name 'head.example' did not resolve within 0.5 s"
