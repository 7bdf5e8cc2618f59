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

from smrnb.doctor._model import SECRET_MARKERS, is_secret_name

REDACTED = "<redacted>"
# values that are never secrets even in a variable named like one (would wreck every text)
_NOT_SECRET_VALUES = frozenset({"", "0", "1", "true", "false", "yes", "no", "on", "off", "none", "null"})
_MIN_SECRET_LEN = 3

#: token shapes of well-known services: literal prefix -> the whole token, matched at the prefix
_TOKEN_RX = {
    "ghp_": r"ghp_[A-Za-z0-9]{20,}", "gho_": r"gho_[A-Za-z0-9]{20,}", "ghu_": r"ghu_[A-Za-z0-9]{20,}",
    "ghs_": r"ghs_[A-Za-z0-9]{20,}", "ghr_": r"ghr_[A-Za-z0-9]{20,}", "github_pat_": r"github_pat_[A-Za-z0-9_]{20,}",
    "hf_": r"hf_[A-Za-z0-9]{20,}", "AKIA": r"AKIA[0-9A-Z]{16}(?![0-9A-Z])", "ASIA": r"ASIA[0-9A-Z]{16}(?![0-9A-Z])",
    "xox": r"xox[abposre]-[A-Za-z0-9-]{8,}", "sk-": r"sk-[A-Za-z0-9_-]{16,}",
}
_TOKEN_MATCH = {k: re.compile(v) for k, v in _TOKEN_RX.items()}
#: the same shapes as one pattern (for callers that want ``search``)
TOKEN_SHAPES = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(_TOKEN_RX.values()) + ")")
_BEARER = re.compile(r"(?i)\b(bearer)([ \t]+)([A-Za-z0-9._~+/=-]{12,})")
_VALUE = re.compile(r"\"[^\"\n]{0,1024}\"|'[^'\n]{0,1024}'|[^\s;,'\"&]{1,1024}")
_PAIR_TAIL = re.compile(r"\s{0,20}:\s{0,20}([\"'])([^\"'\n]{0,1024})\1")
_FLAG_TAIL = re.compile(r"[ \t]{1,20}([^\s\"'-][^\s\"']{0,1023})")
_USERINFO = re.compile(r"[^\s/?#@\"'<>]{1,512}@")
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_NON_WORD = re.compile(r"[^A-Za-z0-9_]")
_WORD_RUN = re.compile(r"[A-Za-z0-9_]*")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

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


def _replace_spans(s: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return s
    out, last = [], 0
    for a, b in sorted(spans):
        if a < last:  # overlapping: extend the previous cut
            a = last
        if b <= a:
            continue
        out.append(s[last:a])
        out.append(REDACTED)
        last = b
    out.append(s[last:])
    return "".join(out)


def _find_all(s: str, lit: str):
    j = s.find(lit)
    while j >= 0:
        yield j
        j = s.find(lit, j + 1)


def _shape_spans(s: str) -> list[tuple[int, int]]:
    spans = []
    for lit, rx in _TOKEN_MATCH.items():
        for j in _find_all(s, lit):
            if j and s[j - 1] in _WORD:
                continue
            m = rx.match(s, j)
            if m:
                spans.append((j, m.end()))
    return spans


def _userinfo_spans(s: str) -> list[tuple[int, int]]:
    spans = []
    for j in _find_all(s, "://"):
        if not j or s[j - 1] not in _SCHEME_CHARS:
            continue
        m = _USERINFO.match(s, j + 3)
        if m:
            info = s[j + 3:m.end() - 1]
            if ":" in info or TOKEN_SHAPES.search(info) or len(info) >= 20:
                spans.append((j + 3, m.end() - 1))
    return spans


def _word_bounds(s: str, j: int, k: int) -> tuple[int, int]:
    """The word (``[A-Za-z0-9_]``, at most 200 characters each side) around ``s[j:k]``, in C-speed steps."""
    back = s[max(0, j - 200):j][::-1]
    m = _NON_WORD.search(back)
    a = j - (m.start() if m else len(back))
    b = _WORD_RUN.match(s, k, min(len(s), k + 200)).end()
    return a, b


def _name_spans(s: str, up: str) -> list[tuple[int, int]]:
    """Values given to secret-like names: ``NAME=value``, ``"NAME": "value"``, ``--name value``. Found
    from the occurrences of the markers (TOKEN, KEY...), so the cost follows them, not the text."""
    spans = []
    n = len(s)
    for marker in SECRET_MARKERS:
        done = -1
        for j in _find_all(up, marker):
            if j < done:
                continue  # in the word just handled
            a, b = _word_bounds(s, j, j + len(marker))
            done = b
            if b < n and s[b] == "=":
                m = _VALUE.match(s, b + 1)
                if m:
                    spans.append((b + 1, m.end()))
            elif a > 0 and s[a - 1] in "\"'" and b < n and s[b] == s[a - 1]:
                m = _PAIR_TAIL.match(s, b + 1)
                if m:
                    spans.append((m.start(2), m.end(2)))
            elif a > 0 and s[a - 1] == "-":
                m = _FLAG_TAIL.match(s, b)
                if m:
                    spans.append((m.start(1), m.end(1)))
    return spans


def redact_text(s: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """``s`` with every secret replaced by ``<redacted>`` (by value, by shape and by name).

    Linear time: literal searches in C (the secret values, ``://``, the token prefixes, the marker
    words), then a bounded match at each hit."""
    if not isinstance(s, str) or not s:
        return s
    for v in secrets:
        if v in s:
            s = s.replace(v, REDACTED)
    s = _replace_spans(s, _userinfo_spans(s) + _shape_spans(s)) if ("://" in s or "_" in s or "-" in s
                                                                    or "AKIA" in s or "ASIA" in s) else s
    up = s.upper()
    if "BEARER" in up:
        s = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", s)
        up = s.upper()
    if any(m in up for m in SECRET_MARKERS):
        s = _replace_spans(s, _name_spans(s, up))
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
