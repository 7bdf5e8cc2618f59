# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Redaction: the one place that decides what of a secret may reach any output of the doctor.

Applied to the facts when they are collected, and again by every renderer of
:class:`smrnb.doctor.Report` (text, JSON, markdown, HTML), by the kernelspec fix's description
and by the exception hook's echoed line. Secrets are recognised

* **by name**: values of variables named like ``*TOKEN*``, ``*SECRET*``, ``*KEY*``,
  ``*PASSWORD*``... (:func:`smrnb.doctor._model.is_secret_name`), as dict keys, ``NAME=value``,
  ``"NAME": "value"`` and ``--token value`` / ``Bearer value``;
* **by value**: every value such a variable has in this process's environment (now and at start),
  wherever it appears; URL userinfo (``scheme://user:pass@host``); token shapes (GitHub ``ghp_`` /
  ``gho_`` / ``github_pat_``, Hugging Face ``hf_``, AWS ``AKIA``/``ASIA``, Slack ``xox?-``,
  ``sk-`` API keys);
* **kernelspec env values**: names are shown, values only for path-like variables
  (:func:`display_env`).

Every pattern here runs in linear time (bounded repetitions, no nested quantifiers), so a
megabyte of text costs milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from smrnb.doctor._model import is_secret_name

REDACTED = "<redacted>"
# values that are never secrets even in a variable named like one (would wreck every text)
_NOT_SECRET_VALUES = frozenset({"", "0", "1", "true", "false", "yes", "no", "on", "off", "none", "null"})
_MIN_SECRET_LEN = 3

#: token shapes of well-known services (prefix + a long run of token characters)
TOKEN_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_])(?:"
    r"gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|hf_[A-Za-z0-9]{20,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"
    r"|xox[abposre]-[A-Za-z0-9-]{8,}"
    r"|sk-[A-Za-z0-9_-]{16,}"
    r")"
)
_BEARER = re.compile(r"(?i)\b(bearer)([ \t]+)([A-Za-z0-9._~+/=-]{12,})")
_FLAG = re.compile(r"(?i)(--?(?:[a-z]+[-_])?(?:token|password|passwd|secret|api[-_]?key)(?:=|[ \t]+))"
                   r"([^\s\"']{1,1024})")
_ASSIGN = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"\n]{0,1024}\"|'[^'\n]{0,1024}'|[^\s;,'\"&]+)")
_JSON_PAIR = re.compile(r"([\"'])([A-Za-z_][A-Za-z0-9_.-]{0,200})\1(\s*:\s*)([\"'])([^\"'\n]{0,1024})\4")
_URL_USERINFO = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31})://([^\s/?#@\"'<>]{1,512})@")

#: variables whose values are directories or lists of them: shown in kernelspec env displays
PATH_LIKE_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PYTHONPATH",
    "PYTHONHOME", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDNN_PATH", "CONDA_PREFIX", "VIRTUAL_ENV",
    "JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "LD_PRELOAD", "MANPATH",
    "PKG_CONFIG_PATH", "HOME", "TMPDIR", "NVCC_CCBIN", "CC", "CXX", "CUDAHOSTCXX",
})
_PATH_SUFFIXES = ("_PATH", "_HOME", "_DIR", "_DIRS", "_ROOT", "_PREFIX")


def secret_values(*environs: Mapping[str, str] | None) -> list[str]:
    """Values of secret-named variables in the given environments, longest first."""
    vals: set[str] = set()
    for env in environs:
        if not env:
            continue
        for k, v in env.items():
            if is_secret_name(str(k)) and isinstance(v, str):
                v = v.strip()
                if len(v) >= _MIN_SECRET_LEN and v.lower() not in _NOT_SECRET_VALUES:
                    vals.add(v)
    return sorted(vals, key=len, reverse=True)


def process_secrets() -> list[str]:
    """:func:`secret_values` of this process's environment, now and at start (``/proc/self/environ``)."""
    import os

    from smrnb.doctor._model import read_proc_environ

    return secret_values(os.environ, read_proc_environ())


def _userinfo_repl(m: re.Match[str]) -> str:
    info = m.group(2)
    if ":" in info or TOKEN_SHAPES.search(info) or len(info) >= 20:
        return f"{m.group(1)}://{REDACTED}@"
    return m.group(0)


def redact_text(s: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """``s`` with every secret replaced by ``<redacted>`` (by value, by shape and by name)."""
    if not isinstance(s, str) or not s:
        return s
    for v in secrets:
        if v in s:
            s = s.replace(v, REDACTED)
    if "://" in s:
        s = _URL_USERINFO.sub(_userinfo_repl, s)
    s = TOKEN_SHAPES.sub(REDACTED, s)
    if "earer" in s or "EARER" in s:
        s = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", s)
    if "-" in s:
        s = _FLAG.sub(lambda m: m.group(1) + REDACTED, s)
    if "=" in s:
        s = _ASSIGN.sub(lambda m: f"{m.group(1)}={REDACTED}" if is_secret_name(m.group(1)) else m.group(0), s)
    if ":" in s and ("\"" in s or "'" in s):
        s = _JSON_PAIR.sub(lambda m: (f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{m.group(4)}{REDACTED}"
                                      f"{m.group(4)}") if is_secret_name(m.group(2)) else m.group(0), s)
    return s


def sanitize(obj: Any, secrets: list[str] | tuple[str, ...] | None = None) -> Any:
    """A copy of ``obj`` (JSON-like) with secrets replaced by ``"<redacted>"``.

    Every string goes through :func:`redact_text`; the value of any dict key named like a secret
    is replaced whole. ``secrets`` defaults to :func:`process_secrets`.
    """
    return _sanitize(obj, process_secrets() if secrets is None else list(secrets))


def _sanitize(obj: Any, secrets: list[str]) -> Any:
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            key = redact_text(k, secrets) if isinstance(k, str) else k
            if isinstance(k, str) and is_secret_name(k) and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                out[key] = REDACTED
            else:
                out[key] = _sanitize(v, secrets)
        return out
    if isinstance(obj, (list, tuple)):
        seq = [_sanitize(v, secrets) for v in obj]
        return seq if isinstance(obj, list) else tuple(seq)
    return obj


def is_path_like_name(name: str) -> bool:
    """True for variables that hold directories / path lists (``PATH``, ``CUDA_HOME``, ``*_DIR``...)."""
    up = str(name).upper()
    if is_secret_name(up):
        return False
    return up in PATH_LIKE_NAMES or up.endswith(_PATH_SUFFIXES)


def is_path_like_value(value: Any) -> bool:
    """True when every ``:``-separated entry is empty or a path (``/``, ``~``, ``$``, ``.`` first)."""
    if not isinstance(value, str) or "://" in value or "@" in value:
        return False
    return all(not p or p[0] in "/~$." for p in value.split(":"))


def display_env(env: Mapping[str, Any], secrets: list[str] | tuple[str, ...] = ()) -> dict[str, str]:
    """A kernelspec ``env`` for display: every name, values only of path-like variables."""
    out: dict[str, str] = {}
    for k, v in env.items():
        k = str(k)
        out[k] = redact_text(str(v), secrets) if is_path_like_name(k) and is_path_like_value(v) else REDACTED
    return out
