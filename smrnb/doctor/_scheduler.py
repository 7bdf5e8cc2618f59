# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``smr-doctor cluster --scheduler ADDRESS``: the address read, and what listens there asked before
``distributed`` is given it.

``distributed`` trusts what answers: after the TCP connect its handshake read has no deadline (a server
that accepts and says nothing keeps it waiting for ever), and the first 8 bytes it reads are taken as the
length of a message to allocate (an HTTP reply, ``b"HTTP/1.1"``, reads as 3 EiB; a smaller garbage length
would really be allocated). A scheduler speaks first: its comm writes its handshake as soon as it accepts a
connection (``distributed/comm/core.py``, ``Listener.on_connection``), framed as
``distributed/comm/tcp.py`` frames every message: an 8-byte length ``L`` of what follows, then an 8-byte
frame count ``n``, ``n`` 8-byte frame sizes and the frames, ``8 * (1 + n) + sum(sizes) == L`` (native byte
order, as ``struct.pack("Q", ...)`` writes it). :func:`probe_scheduler` reads that greeting with a plain
socket, within the timeout, and says what listens instead when it is not one.
"""

from __future__ import annotations

import re
import socket
import ssl
import struct
import threading
import time
from dataclasses import dataclass

from smrnb._errors import SmrnbValueError, format_bytes

#: the schemes the command connects to (``distributed`` reads an address without one as tcp)
SCHEMES = ("tcp", "tls")
#: the largest greeting read: a scheduler's is ~70 bytes (its compression, Python version, pickle protocol)
MAX_GREETING = 1 << 16
#: most frames a greeting may have (it has one)
MAX_FRAMES = 64
#: what a port is for, when it is not the scheduler's: Dask's defaults
DASHBOARD_PORT, SCHEDULER_PORT = 8787, 8786
#: what is sent, after a silence, to learn whether an HTTP server (a dashboard) listens there
HTTP_QUESTION = b"HEAD / HTTP/1.0\r\n\r\n"
#: the longest wait for the answer to :data:`HTTP_QUESTION`, after the timeout (seconds)
HTTP_WAIT = 1.0

EXPECTED = ("tcp://HOST:PORT (the scheduler's port, 8786 by default; not the dashboard's 8787), or "
            "tls://HOST:PORT with Dask's TLS settings")
_HOST = re.compile(r"[A-Za-z0-9._-]+")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[A-Za-z0-9._-]+)?")


@dataclass(frozen=True)
class SchedulerAddress:
    """A ``--scheduler`` value read: ``scheme``, ``host`` (without IPv6 brackets) and ``port``."""

    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def _bad(text: str, why: str) -> SmrnbValueError:
    return SmrnbValueError(f"--scheduler must be {EXPECTED}; got {text!r}: {why}")


def parse_scheduler_address(text: object) -> SchedulerAddress:
    """``--scheduler``'s value read as :class:`SchedulerAddress`; anything else raises
    :class:`SmrnbValueError` naming ``--scheduler``, what it must be and what came."""
    if not isinstance(text, str):
        raise SmrnbValueError(f"--scheduler must be {EXPECTED}; got {type(text).__name__} {text!r}")
    value = text.strip()
    if not value:
        raise _bad(text, "an empty address")
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest = "tcp", value
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise _bad(text, f"the scheme {scheme!r} is not one this command connects to (tcp or tls)")
    rest = rest[:-1] if rest.endswith("/") else rest
    if "@" in rest:
        raise _bad(text, "a Dask address has no user name or password")
    if rest.startswith("["):
        host, close, tail = rest[1:].partition("]")
        if not close or not tail.startswith(":"):
            raise _bad(text, "an IPv6 host in brackets must be followed by :PORT ([::1]:8786)")
        port_text = tail[1:]
        if not _IPV6.fullmatch(host):
            raise _bad(text, f"{host!r} is not an IPv6 address")
    else:
        host, colon, port_text = rest.rpartition(":")
        if not colon:
            raise _bad(text, "no port (the scheduler's is 8786 by default)")
        if ":" in host:
            raise _bad(text, "an IPv6 host needs brackets: tcp://[::1]:8786")
        if not _HOST.fullmatch(host or ""):
            raise _bad(text, f"{host!r} is not a host name or address" if host else "no host")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise _bad(text, f"the port {port_text!r} is not a number from 1 to 65535")
    return SchedulerAddress(scheme, host, int(port_text))


@dataclass(frozen=True)
class Probe:
    """What :func:`probe_scheduler` found: ``ok`` (a Dask scheduler greeted), ``listens`` (something accepted
    the connection) and ``reason`` (why it is not a scheduler, in words; empty when ``ok``)."""

    ok: bool
    listens: bool
    reason: str = ""


def _recv(sock: socket.socket, want: int, deadline: float, have: bytes = b"") -> tuple[bytes, str]:
    """Up to ``want`` bytes in all, before ``deadline``: the bytes and how the reading ended
    (``""`` all came, ``"closed"``, ``"silent"`` the deadline passed, or the error)."""
    data = have
    while len(data) < want:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, "silent"
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(want - len(data), 1 << 16))
        except TimeoutError:
            return data, "silent"
        except OSError as exc:  # a reset, or a TLS error after the handshake
            return data, f"{type(exc).__name__}: {exc}"
        if not chunk:
            return data, "closed"
        data += chunk
    return data, ""


def _sample(data: bytes) -> str:
    return repr(data[:24]) + ("..." if len(data) > 24 else "")


def _http(addr: SchedulerAddress) -> str:
    hint = "the dashboard's port? " if addr.port != SCHEDULER_PORT else ""
    return (f"an HTTP server: {hint}the scheduler's port is {SCHEDULER_PORT} by default, its dashboard's "
            f"{DASHBOARD_PORT}; `dask scheduler` prints both")


def _greeting(sock: socket.socket, addr: SchedulerAddress, deadline: float, timeout: float) -> Probe:
    """Read the scheduler's greeting from ``sock`` (connected) before ``deadline``."""
    head, end = _recv(sock, 8, deadline)
    if head.startswith(b"HTTP/"):
        return Probe(False, True, _http(addr))
    if end == "silent" and not head:
        try:  # a Dask scheduler greets at once; a web server waits for a request: ask it for one
            sock.sendall(HTTP_QUESTION)
            reply, _ = _recv(sock, 5, time.monotonic() + min(HTTP_WAIT, timeout))
        except OSError:
            reply = b""
        if reply.startswith(b"HTTP/"):
            return Probe(False, True, _http(addr))
        tls = ("; a tls:// scheduler waits for the TLS handshake: if it is one, give tls://HOST:PORT"
               if addr.scheme == "tcp" else "")
        return Probe(False, True, f"it sent nothing within {timeout:g} s, and a Dask scheduler greets at once{tls}; "
                                  f"a scheduler too busy to answer would need a larger --timeout")
    if end:
        how = {"closed": "closed the connection", "silent": f"sent no more within {timeout:g} s"}.get(
            end, f"failed ({end})")
        return Probe(False, True, f"it {how} after {len(head)} byte(s) {_sample(head)}")
    (length,) = struct.unpack("=Q", head)
    if not 16 < length <= MAX_GREETING:
        return Probe(False, True, f"its first bytes {_sample(head)} announce a message of {format_bytes(length)}, "
                                  f"and a Dask scheduler's greeting is under 1 KiB")
    body, end = _recv(sock, length, deadline)
    if end:
        return Probe(False, True, f"its greeting of {length} bytes stopped after {len(body)} ({end})")
    (n,) = struct.unpack_from("=Q", body)
    sizes = struct.unpack_from(f"={n}Q", body, 8) if 0 < n <= MAX_FRAMES and 8 * (1 + n) <= length else None
    if sizes is None or 8 * (1 + n) + sum(sizes) != length:
        return Probe(False, True, f"its first bytes {_sample(head + body)} are not framed as a Dask message")
    return Probe(True, True)


def _resolve(addr: SchedulerAddress, found: list) -> None:
    try:
        found.append(socket.getaddrinfo(addr.host, addr.port, type=socket.SOCK_STREAM))
    except OSError as exc:
        found.append(exc)


def probe_scheduler(addr: SchedulerAddress, timeout: float, ssl_context: ssl.SSLContext | None = None,
                    server_hostname: str | None = None) -> Probe:
    """Connect to ``addr`` with a plain socket (through ``ssl_context`` for tls://) and read a Dask
    scheduler's greeting, all within ``timeout`` seconds (plus at most :data:`HTTP_WAIT` to ask a silent
    server whether it speaks HTTP). Reads at most :data:`MAX_GREETING` bytes whatever the server announces.
    Never raises for what the network does."""
    deadline = time.monotonic() + timeout
    found: list = []
    resolver = threading.Thread(target=_resolve, args=(addr, found), daemon=True, name="smrnb-scheduler-resolve")
    resolver.start()  # getaddrinfo has no timeout of its own: a resolver that does not answer is not waited on
    resolver.join(timeout)
    if not found:
        return Probe(False, False, f"the host name {addr.host!r} did not resolve within {timeout:g} s")
    if isinstance(found[0], OSError):
        return Probe(False, False, f"the host {addr.host!r} is not known: {found[0].strerror or found[0]}")
    try:
        sock = socket.create_connection(found[0][0][4][:2], timeout=max(deadline - time.monotonic(), 0.001))
    except ConnectionRefusedError:
        return Probe(False, False, f"connection refused: nothing listens on port {addr.port} of {addr.host}")
    except TimeoutError:
        return Probe(False, False, f"the connection was not accepted within {timeout:g} s")
    except OSError as exc:
        return Probe(False, False, f"{type(exc).__name__}: {exc.strerror or exc}")
    try:
        if ssl_context is not None:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                sock = ssl_context.wrap_socket(sock, server_hostname=server_hostname)
            except (ssl.SSLError, ssl.CertificateError) as exc:
                return Probe(False, True, f"the TLS handshake failed ({exc}); is it a tls:// scheduler, are Dask's "
                                          f"TLS settings the cluster's?")
            except TimeoutError:
                return Probe(False, True, f"the TLS handshake did not finish within {timeout:g} s")
            except OSError as exc:
                return Probe(False, True, f"the TLS handshake failed ({type(exc).__name__}: {exc})")
        return _greeting(sock, addr, deadline, timeout)
    finally:
        sock.close()


__all__ = ["EXPECTED", "MAX_GREETING", "Probe", "SchedulerAddress", "parse_scheduler_address", "probe_scheduler"]
