# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Data model shared by every part of the doctor: commands, facts, findings.

Collect / decide / render are separate:

* **collect**: ``smrnb.doctor.probes.<layer>.probe(ctx) -> dict`` reads one layer of the machine
  and returns plain JSON-able facts. Probes never raise: :func:`smrnb.doctor.probes.collect`
  wraps each one and turns any exception into ``{"status": "unavailable", "reason": ...}``.
* **decide**: rules (``smrnb.doctor.rules``) turn the facts into :class:`Finding` objects.
* **render**: ``smrnb.doctor._report`` renders findings and facts as HTML / text / JSON / markdown.

Every external command goes through a :class:`Runner`: list-form argv, a timeout, never
``shell=True``, never an exception. Tests swap the runner or put fake executables on PATH.
"""

from __future__ import annotations

import dataclasses
import math
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError

#: The layers, in the order the report shows them.
LAYERS: tuple[str, ...] = (
    "driver",
    "torch",
    "toolkit",
    "loader",
    "abi",
    "kaolin",
    "jupyter",
    "context",
)

#: Severities, most severe first.
SEVERITIES: tuple[str, ...] = ("error", "warning", "info", "ok")
#: the source of a reading from the nearest known reports (explain's guess where no rule decides)
SIMILAR_REPORTS = "similar reports"

DEFAULT_TIMEOUT = 5.0


@dataclass(frozen=True)
class CmdResult:
    """What one external command did. ``ok`` is True only for exit status 0 within the timeout."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None  # "not found", "permission denied", "timeout after 5.0 s", ...
    seconds: float = 0.0
    flooded: bool = False  # stopped for printing more than the runner's output limit

    @property
    def no_answer(self) -> bool:
        """The tool exists but did not answer usefully: it hung (timeout) or flooded its output."""
        return self.timed_out or self.flooded

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.error is None


#: bytes of stdout (and of stderr) kept from one command; a tool printing more is stopped
DEFAULT_MAX_OUTPUT = 8 << 20

#: the largest per-command timeout the doctor accepts (seconds); ``inf``/``nan``/huge values are refused
MAX_TIMEOUT = 3600.0


def check_timeout(value: object, name: str = "timeout") -> float:
    """``value`` as a float of seconds in ``(0, MAX_TIMEOUT]``; ``SmrnbTypeError``/``SmrnbValueError`` otherwise
    (``inf``, ``nan``, ``1e308`` and negatives are refused: they would overflow the deadlines)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SmrnbTypeError(f"{name} must be a number of seconds, got {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or not 0 < v <= MAX_TIMEOUT:
        raise SmrnbValueError(f"{name} must be > 0 and <= {MAX_TIMEOUT:g} seconds, got {value!r}")
    return v


def _text(chunks: list[bytes]) -> str:
    s = b"".join(chunks).decode(errors="replace")
    return s.replace("\r\n", "\n").replace("\r", "\n") if "\r" in s else s


class Runner:
    """Runs a list-form command with a timeout and never raises.

    Output is read as it comes, at most ``max_output`` bytes per stream: a tool that floods its
    output (an ``nvidia-smi`` printing gigabytes) is stopped and reported (``error`` says so),
    never buffered whole.

    Parameters
    ----------
    env : mapping, optional
        Environment for the child (default: ``os.environ`` at call time).
    default_timeout : float
        Seconds before the child is killed.
    max_output : int
        Bytes kept of stdout and of stderr each.
    """

    def __init__(self, env: Mapping[str, str] | None = None, default_timeout: float = DEFAULT_TIMEOUT,
                 max_output: int = DEFAULT_MAX_OUTPUT):
        self.env = dict(env) if env is not None else None
        self.default_timeout = float(default_timeout)
        self.max_output = int(max_output)

    def __call__(self, argv: list[str] | tuple[str, ...], timeout: float | None = None,
                 env: Mapping[str, str] | None = None, input: str | None = None,
                 max_output: int | None = None) -> CmdResult:
        argv = tuple(str(a) for a in argv)
        timeout = self.default_timeout if timeout is None else float(timeout)
        if not timeout > 0 or timeout > 1e6:  # nan, inf, negative: a bounded wait instead of an overflow
            timeout = self.default_timeout if 0 < self.default_timeout <= 1e6 else DEFAULT_TIMEOUT
        limit = self.max_output if max_output is None else int(max_output)
        child_env = dict(env) if env is not None else (self.env if self.env is not None else None)
        t0 = time.perf_counter()
        try:
            # own process group, so a timeout ends the tool *and* whatever it started
            proc = subprocess.Popen(  # list form, no shell
                list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=child_env, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                start_new_session=True,
            )
        except FileNotFoundError:
            return CmdResult(argv, None, error="not found", seconds=time.perf_counter() - t0)
        except PermissionError:
            return CmdResult(argv, None, error="permission denied", seconds=time.perf_counter() - t0)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            return CmdResult(argv, None, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - t0)
        out: list[bytes] = []
        err: list[bytes] = []
        flooded, timed_out, error = self._pump(proc, out, err, limit, t0 + timeout, input)
        if flooded:
            _kill_group(proc)
            error = f"output over {limit} bytes; the tool was stopped"
        elif timed_out:
            _kill_group(proc)
            error = f"timeout after {timeout:g} s"
        else:
            try:
                proc.wait(timeout=max(0.0, t0 + timeout - time.perf_counter()))
            except subprocess.TimeoutExpired:  # closed its output but kept running
                _kill_group(proc)
                timed_out, error = True, f"timeout after {timeout:g} s"
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        try:
            proc.wait(timeout=1.0)
        except (subprocess.TimeoutExpired, OSError):
            pass
        rc = None if (timed_out or flooded) else proc.returncode
        return CmdResult(argv, rc, _text(out), _text(err), timed_out=timed_out, error=error,
                         seconds=time.perf_counter() - t0, flooded=flooded)

    @staticmethod
    def _pump(proc: subprocess.Popen, out: list[bytes], err: list[bytes], limit: int, deadline: float,
              input: str | None) -> tuple[bool, bool, str | None]:
        """Read both pipes until EOF, the byte limit or the deadline: ``(flooded, timed_out, error)``."""
        if input is not None and proc.stdin is not None:
            data = input.encode()

            def feed() -> None:
                try:
                    proc.stdin.write(data)
                    proc.stdin.close()
                except (OSError, ValueError):
                    pass

            if len(data) <= 16384:
                feed()  # fits in the pipe buffer: no thread needed
            else:
                threading.Thread(target=feed, daemon=True).start()
        kept = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        sizes = dict.fromkeys(kept, 0)
        try:
            with selectors.DefaultSelector() as sel:
                for fd in kept:
                    sel.register(fd, selectors.EVENT_READ)
                while sel.get_map():
                    left = deadline - time.perf_counter()
                    if left <= 0:
                        return False, True, None
                    for key, _ in sel.select(left):
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            sel.unregister(key.fd)
                            continue
                        if sizes[key.fd] < limit:
                            kept[key.fd].append(chunk[: limit - sizes[key.fd]])
                        sizes[key.fd] += len(chunk)
                        if sizes[key.fd] > limit:
                            return True, False, None
        except (OSError, ValueError) as exc:
            return False, False, f"{type(exc).__name__}: {exc}"
        return False, False, None


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group (it was started in a new session); never raises."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        try:
            proc.kill()
        except OSError:
            pass


@dataclass(frozen=True)
class Fix:
    """How to repair a finding: why, and commands/snippets to copy (shown as code blocks)."""

    why: str
    commands: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()  # URLs

    def to_dict(self) -> dict[str, Any]:
        return {"why": self.why, "commands": list(self.commands), "docs": list(self.docs)}


@dataclass(frozen=True)
class Finding:
    """One conclusion of the doctor.

    ``code`` is stable (documented in ``smrnb/doctor/CODES.md``); ``layer`` is one of
    :data:`LAYERS`; ``severity`` one of :data:`SEVERITIES`; ``evidence`` lists the facts that led
    to it, each a short human-readable line.
    """

    code: str
    layer: str
    severity: str
    title: str
    evidence: tuple[str, ...] = ()
    fix: Fix | None = None
    #: how decisive the facts behind it are (lower first): explain orders a text's findings by it
    rank: int = field(default=50, compare=False)
    #: where its facts came from: ``"text"`` (a pasted error), ``"machine"`` (probed live), or both; explain's
    #: guesses from the nearest known reports: ``"similar reports"`` (:data:`SIMILAR_REPORTS`)
    sources: tuple[str, ...] = field(default=(), compare=False)

    @property
    def guessed(self) -> bool:
        """A reading of the nearest known reports: a guess to check, no rule's finding."""
        return SIMILAR_REPORTS in self.sources

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"layer must be one of {LAYERS}, got {self.layer!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {self.severity!r}")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["evidence"] = list(self.evidence)
        d["fix"] = self.fix.to_dict() if self.fix else None
        d.pop("rank", None)
        d["sources"] = list(self.sources)
        return d


def read_proc_environ(path: str = "/proc/self/environ") -> dict[str, str] | None:
    """The environment the process *started* with (what ld.so saw), or None if unreadable."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    env: dict[str, str] = {}
    for item in raw.split(b"\0"):
        if not item or b"=" not in item:
            continue
        k, _, v = item.partition(b"=")
        env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


@dataclass
class ProbeContext:
    """Everything a probe may look at; tests build one describing a fabricated machine.

    Attributes
    ----------
    run : Runner-like callable
        ``run(argv, timeout=None, env=None) -> CmdResult``.
    environ : dict
        The current environment (``os.environ``).
    start_environ : dict or None
        The environment at process start (``/proc/self/environ``); None if unreadable.
    proc_self : str
        Directory standing for ``/proc/self`` (``maps``, ``environ``).
    extension_paths : list of str
        Extra compiled extensions the user asked to inspect.
    import_check : bool
        Whether torch and kaolin may be imported in subprocesses (slow).
    imports_deferred : bool
        Set by :func:`smrnb.doctor.probes.collect`: the probes skip their import checks, which run
        afterwards as a phase of their own (own budget), so they never cost the static layers.
    timeout : float
        Default seconds per command.
    python : str
        The Python interpreter of this kernel (``sys.executable``).
    """

    run: Callable[..., CmdResult] = field(default_factory=Runner)
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    start_environ: dict[str, str] | None = None
    proc_self: str = "/proc/self"
    extension_paths: list[str] = field(default_factory=list)
    import_check: bool = False
    imports_deferred: bool = False
    timeout: float = DEFAULT_TIMEOUT
    python: str = ""
    # facts of layers collected earlier in the same run, by layer name (probes may read them)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.start_environ is None:
            self.start_environ = read_proc_environ(os.path.join(self.proc_self, "environ"))
        if not self.python:
            self.python = sys.executable

    def which(self, name: str, path: str | None = None) -> str | None:
        """``shutil.which`` against *this context's* PATH (not the real process's)."""
        return shutil.which(name, path=self.environ.get("PATH", "") if path is None else path)


def unavailable(reason: str, **extra: Any) -> dict[str, Any]:
    """The one form of a probe that could not read its layer."""
    return {"status": "unavailable", "reason": reason, **extra}


def value(facts: Mapping[str, Any], layer: str, key: str) -> Any:
    """``facts[layer][key]`` when the layer was read (not :func:`unavailable`), else None. The rules' one reader of a
    fact (``rules._events`` hands it on); here, below every rule module, so that ``rules._rebuild``, which
    ``rules._events`` imports, reads facts with it too, without a copy."""
    d = facts.get(layer)
    if not isinstance(d, Mapping) or d.get("status") == "unavailable":
        return None
    return d.get(key)


SECRET_MARKERS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE")


def is_secret_name(name: str) -> bool:
    """True for environment variable names that may hold a secret (never printed)."""
    up = name.upper()
    return any(m in up for m in SECRET_MARKERS)
