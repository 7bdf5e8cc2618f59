# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 31a) Checks of a printed fix command from the user's side: what a shell, pip and conda accept.

Written from the tools' rules, not from the doctor's builders: ``bash -n`` for POSIX lines (PowerShell and cmd lines
are recognised and checked as such), pip requirements by ``packaging.requirements.Requirement``, conda match specs,
index addresses (for download.pytorch.org a variant that exists for the torch release named, from
``smrnb/doctor/tables/torch_cuda.csv``), environment assignments, unfilled placeholders, the text's platform and
deletions. :func:`check` returns the names of the checks a command fails (empty: runnable as printed)."""

from __future__ import annotations

import csv
import functools
import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement

ROOT = Path(__file__).resolve().parents[2]

#: first words of a shell command (a line starting so is never read as Python)
_SHELL_WORDS = frozenset("""pip pip3 python python3 py conda mamba micromamba uv export unset set setx source . apt apt-get
yum dnf brew sudo ls ll echo which where where.exe nvidia-smi nvcc gcc g++ cmake make ldd ldconfig ln rm mkdir cd cp mv
cat grep find file df du env printenv jupyter ipython docker podman srun sbatch salloc module git curl wget chmod chown
sed awk readelf nm objdump strings lsof ps kill pkill ulimit free nproc lscpu uname cut sort head tail test true false
hash type command apt-file dpkg rpm pacman sysctl ninja patchelf otool install_name_tool xcode-select bash sh zsh
Set-Item Get-Item Remove-Item Get-ChildItem Get-Command $env: powershell pwsh cmd dir del rmdir mklink modprobe lsmod
dmesg journalctl systemctl nvidia-container-cli nvidia-ctk update-alternatives singularity apptainer torchrun
accelerate deepspeed ds_report huggingface-cli wsl mount umount swapon fallocate dd""".split())

_PS_RE = re.compile(r"^\s*(?:\$env:|\$Env:|\[Environment\]::|(?:Set|Get|Remove|New|Test)-[A-Z][A-Za-z]+\b)")
_CMD_RE = re.compile(r"^\s*(?:set\s+[A-Za-z_][\w()]*=|setx\s|where(?:\.exe)?\s|rd\s|del\s|dir\s)|%[A-Za-z_]\w*%")


def kind(line: str) -> str:
    """``powershell``, ``cmd``, ``magic`` (an IPython ``%pip``/``!cmd``), ``python`` or ``posix``."""
    s = line.strip()
    if _PS_RE.match(s) or re.search(r"\$env:[A-Za-z_]", s):
        return "powershell"
    if _CMD_RE.search(s) or re.search(r"(?:^|\s&\s*)rem(?:\s|$)", s, re.IGNORECASE) or s.lower().startswith("set \""):
        return "cmd"
    if re.match(r"^[%!]", s):
        return "magic"
    first = s.split()[0] if s.split() else ""
    if first.startswith("#") or first in _SHELL_WORDS or re.match(r"^[A-Za-z_]\w*=", first) or "/" in first:
        return "posix"
    try:
        compile(s, "<fix>", "exec")
        return "python"
    except SyntaxError:
        return "posix"


def bash_n(script: str) -> str:
    """``bash -n``'s complaint ('' when it parses)."""
    p = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, timeout=10)
    return "" if p.returncode == 0 else (p.stderr.strip() or f"rc {p.returncode}")


def _quotes_balanced_ps(s: str) -> bool:
    body = re.sub(r"#.*$", "", s) if not re.search(r"[\"'][^\"']*#", s) else s
    return body.count('"') % 2 == 0 and body.count("'") % 2 == 0


@functools.lru_cache(maxsize=1)
def torch_variants() -> dict[str, set[str]]:
    """torch major.minor -> CUDA variants with a wheel index on download.pytorch.org (``cpu`` always)."""
    out: dict[str, set[str]] = {}
    with open(ROOT / "smrnb/doctor/tables/torch_cuda.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            out[row["torch"]] = set(row["variants"].split()) | {"cpu"}
    return out


_PLACEHOLDER_RE = re.compile(r"(?<!<)<(?![<=&0-9])([^<>\n]{1,160})>(?!&)|\b[Xx]\.[Yy](?:\.[Zz])?\b|(?<!\.)\.\.\.(?!\.)|"
                             r"\bcu[Xx]{2,3}\b|\bcuXY\b|\bcu1XY\b|\bYOUR_[A-Z_]+\b|/path/to/|\bX\.Y\b")


def placeholders(cmd: str) -> list[str]:
    """Unfilled placeholders of ``cmd`` (outside its ``#`` comment): ``<...>``, ``X.Y``, ``...``, ``cuXYZ`` ..."""
    code = "\n".join(_cmd_code(ln) if kind(ln) == "cmd" else _code_part(ln) for ln in cmd.split("\n"))
    out = []
    for m in _PLACEHOLDER_RE.finditer(code):
        tok = m.group(0)
        if tok.startswith("<") and re.fullmatch(r"<\s*/?dev/null\s*>", tok):
            continue
        out.append(tok)
    return out


def described(tok: str, cmd: str, why: str) -> bool:
    """Whether the finding says in words what to put for ``tok``: the placeholder itself is words (``<the library
    named>``), or the command's comment (after ``#`` or cmd's ``rem``) or the fix's why names it (``X.Y: the GPU's
    capability``; for ``...``, a ``...:`` saying what it stands for)."""
    inner = tok.strip("<>")
    if tok.startswith("<") and len(inner.split()) >= 2:
        return True
    code = _code_part(cmd)
    m = re.search(r"(?:^|\s&\s*)rem\s", code, re.IGNORECASE)
    comment = (code[m.end():] if m else "") + " " + cmd[len(code):] + " " + why
    if tok == "...":
        return "...:" in comment
    return f"<{inner}>" in comment or bool(re.search(rf"(?<![\w<]){re.escape(inner)}(?![\w>])", comment))


def _code_part(cmd: str) -> str:
    """``cmd`` up to its first ``#`` comment outside quotes (a POSIX reading)."""
    q = None
    for i, c in enumerate(cmd):
        if q:
            if c == q:
                q = None
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or cmd[i - 1] in " \t;"):
            return cmd[:i]
    return cmd


def _segments(words: list[str]) -> list[list[str]]:
    out, cur = [], []
    for w in words:
        if w in ("&&", "||", ";", "|", "&"):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        out.append(cur)
    return out


def _substitutions_held(code: str) -> str:
    """(round 37a) ``code`` with each ``$( ... )`` (a value the command reads on the user's machine: the installed
    torch's release) as one held word: its inside is another command, not this one's arguments."""
    out, depth, i = [], 0, 0
    while i < len(code):
        if code.startswith("$(", i):
            if depth == 0:
                out.append("PH")
            depth, i = depth + 1, i + 2
            continue
        if not depth:
            out.append(code[i])
        elif code[i] in "'\"":  # a quoted part of the inner command: its parentheses are words
            j = code.find(code[i], i + 1)
            i = len(code) if j < 0 else j
        elif code[i] in "()":
            depth += 1 if code[i] == "(" else -1
        i += 1
    return "".join(out)


def _words(line: str) -> list[str] | None:
    try:
        line = _substitutions_held(line)
        code = re.sub(r"(?:^|(?<=\s))[0-9]*(?:>>?|<)(?:&[0-9]|\s*[^\s;&|]+)", " ", _code_part(line))  # redirections
        lex = shlex.shlex(code, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        lex.commenters = ""
        return list(lex)
    except ValueError:
        return None


_PIP_OPT_WITH_VALUE = {"-r", "--requirement", "-c", "--constraint", "-f", "--find-links", "-i", "--index-url",
                       "--extra-index-url", "-t", "--target", "--prefix", "--root", "--platform", "--python-version",
                       "--implementation", "--abi", "--src", "--upgrade-strategy", "--progress-bar", "--config-settings",
                       "-C", "--global-option", "--cache-dir", "--log", "--trusted-host", "--no-binary", "--only-binary",
                       "--timeout", "--retries", "--python", "--report", "--group"}
_URL_OPTS = {"-f", "--find-links", "-i", "--index-url", "--extra-index-url"}


def _pinned_torch(args: list[str]) -> str | None:
    for a in args:
        m = re.fullmatch(r"torch\s*(?:==|~=|===)\s*([0-9]+)\.([0-9]+)[.\w*+]*", a)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def _url_problems(url: str, torch_mm: str | None, pip: bool = True) -> list[str]:
    out = []
    u = urlsplit(url)
    if u.scheme not in ("http", "https", "file") or (u.scheme != "file" and not u.netloc) or any(c in url for c in " <>\"'{}"):
        return ["url"]
    if u.netloc == "download.pytorch.org":
        m = re.fullmatch(r"/whl/(?:(?:nightly|test)/)?([a-z0-9.]+)/?", u.path)
        if m:
            var = m.group(1)
            if not re.fullmatch(r"cpu|cu[0-9]{2,3}|rocm[0-9.]+|xpu", var):
                out.append("pytorch_variant")
            elif torch_mm and torch_mm in torch_variants() and var not in torch_variants()[torch_mm] \
                    and not var.startswith(("rocm", "xpu")):
                out.append("pytorch_variant")
        elif u.path not in ("/whl/torch_stable.html", "/whl/torch/", "/whl/", "/whl/cu102/torch_stable.html") \
                and not re.fullmatch(r"/whl/[a-z0-9.]+/torch_stable\.html", u.path):
            out.append("pytorch_variant")
    return out


def _conda_spec_ok(spec: str) -> bool:
    return bool(re.fullmatch(r"(?:[\w.-]+(?:/[\w.-]+)?::)?[A-Za-z0-9_][\w.-]*"
                             r"(?:(?:==|=|>=|<=|>|<|!=|~=)[0-9][\w.*+!]*(?:,(?:==|>=|<=|>|<|!=)?[0-9][\w.*+!]*)*"
                             r"(?:=[\w.*]+)?|\[[^\]]+\])?", spec))


def _held(a: str) -> bool:
    return "PH" in a or a == "..." or bool(_PLACEHOLDER_RE.search(a))


def _segment_problems(seg: list[str], text: str | None) -> list[str]:
    out: list[str] = []
    # a word holding a placeholder is the placeholder check's (``torch==<ver>``, ``whl/<cuXYZ>``), not pip's
    w = list(seg)
    while w and re.fullmatch(r"[A-Za-z_]\w*=.*", w[0]):
        w.pop(0)  # VAR=value prefix
    if w and w[0] == "sudo":
        w.pop(0)
    if not w:
        return out
    if w[0] in ("export", "unset"):
        for a in w[1:]:
            if a.startswith("-"):
                continue
            name = a.split("=", 1)[0]
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                out.append("env_assignment")
        return out
    # pip
    pip_at = None
    if w[0] in ("pip", "pip3"):
        pip_at = 1
    elif len(w) > 2 and re.fullmatch(r"python[0-9.]*|py", w[0]) and w[1] == "-m" and w[2] == "pip":
        pip_at = 3
    elif len(w) > 1 and w[0] == "uv" and w[1] == "pip":
        pip_at = 2
    if pip_at is not None and len(w) > pip_at:
        sub, args = w[pip_at], w[pip_at + 1:]
        if sub in ("install", "download", "wheel"):
            torch_mm = _pinned_torch(args)
            i = 0
            while i < len(args):
                a = args[i]
                if a in _PIP_OPT_WITH_VALUE or (a.startswith("-") and "=" not in a and a in _URL_OPTS):
                    if i + 1 >= len(args):
                        out.append("pip_option")
                    elif a in _URL_OPTS and not _held(args[i + 1]):
                        val = args[i + 1]
                        if not (val.startswith(("/", ".", "~")) and a in ("-f", "--find-links")):
                            out += _url_problems(val, torch_mm)
                    i += 2
                    continue
                if _held(a):
                    i += 1
                    continue
                if a.startswith("-"):
                    if "=" in a and a.split("=", 1)[0] in _URL_OPTS:
                        out += _url_problems(a.split("=", 1)[1], torch_mm)
                    i += 1
                    continue
                if a in (".", "..") or "/" in a or a.startswith(("~", "git+", "file:")) \
                        or a.endswith((".whl", ".tar.gz", ".zip")):
                    i += 1
                    continue
                try:
                    Requirement(a)
                except InvalidRequirement:
                    out.append("pip_requirement")
                i += 1
        elif sub == "uninstall":
            names = [a for a in args if not a.startswith("-")]
            for n in names:
                if _held(n):
                    continue
                if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", n):
                    out.append("pip_requirement")
                elif text is not None and not _named(n, text):
                    out.append("uninstall_unnamed")
        return out
    if w[0] in ("conda", "mamba", "micromamba") and len(w) > 1 and w[1] in ("install", "create", "remove", "uninstall"):
        i = 2
        while i < len(w):
            a = w[i]
            if a in ("-c", "--channel", "-n", "--name", "-p", "--prefix", "--override-channels"):
                i += 1 if a == "--override-channels" else 2
                continue
            if a.startswith("-"):
                i += 1
                continue
            if _held(a):
                pass
            elif not _conda_spec_ok(a):
                out.append("conda_spec")
            elif w[1] in ("remove", "uninstall") and text is not None and not _named(a, text):
                out.append("uninstall_unnamed")
            i += 1
        return out
    if w[0] == "rm":
        targets = [a for a in w[1:] if not a.startswith("-")]
        for t in targets:
            t0 = t.rstrip("/")
            if t0 in ("", "~", "$HOME", "/", "*", ".", "..") or re.fullmatch(r"/(?:usr|etc|opt|lib|bin|home)(?:/[^/]+)?", t0) \
                    or "site-packages" in t0 or "dist-packages" in t0:
                out.append("deletes")
    return out


_IMPORT_NAME = {"opencv-python": "cv2", "opencv-python-headless": "cv2", "pillow": "pil", "scikit-learn": "sklearn",
                "scikit-image": "skimage", "pyyaml": "yaml", "faiss-gpu": "faiss"}


def _named(pkg: str, text: str) -> bool:
    """Whether ``text`` names the distribution ``pkg`` (its name, its import name, or as the prefix of a module of
    its own: exllamav2_ext)."""
    pkg = re.sub(r"[-_](?:cpu|gpu|cu[0-9]+)$", "", pkg.lower())  # faiss-cpu, onnxruntime-gpu, mxnet-cu112: the named one
    if pkg in _IMPORT_NAME and re.search(rf"(?<![\w-]){_IMPORT_NAME[pkg]}(?![A-Za-z0-9])", text.lower()):
        return True
    n = re.sub(r"[-_.]+", "[-_.]", re.escape(pkg.lower()).replace("\\-", "-").replace("\\.", "."))
    return bool(re.search(rf"(?<![\w-]){n}(?![A-Za-z0-9])", text.lower()))


_POSIX_ONLY_RE = re.compile(r"(?:^|[;&|]\s*|\bsudo\s+)(?:export|unset|apt|apt-get|ldd|ldconfig|source)\b|\bLD_LIBRARY_PATH\b"
                            r"|(?:^|\s)/usr/|(?:^|\s)/proc/|\$\{?[A-Z_]+\}?/")
_APT_RE = re.compile(r"(?:^|[;&|]\s*|\bsudo\s+)(?:apt|apt-get|apt-file|yum|dnf|ldconfig)\b|/proc/")


def _filled(line: str) -> str:
    """``line`` with each ``<...>`` placeholder put as one plain word (the placeholder check reads them apart)."""
    return _PLACEHOLDER_RE.sub(lambda m: "PH" if m.group(0).startswith("<") else m.group(0), line)


def _cmd_code(line: str) -> str:
    """A cmd line up to its ``rem`` comment."""
    m = re.search(r"(?:^|\s&\s*)rem(?:\s|$)", line, re.IGNORECASE)
    return line[:m.start()] if m else line


_CMD_POSIX_RE = re.compile(r"\$\(|\$\{?[A-Za-z_]\w*\}?|/dev/null|\b(?:grep|ldd|ls|export|unset|which|ldconfig|sudo|apt|apt-get|"
                           r"lsmod|uname|file|otool|findmnt|df|head|tail|sed|awk)\b(?=\s|$)")


def _cmd_problems(line: str, os_name: str | None, text: str | None) -> list[str]:
    out: list[str] = []
    code = _cmd_code(line)
    if code.count('"') % 2:
        out.append("quotes")
    if os_name in ("linux", "macos"):
        out.append("platform")
    if _CMD_POSIX_RE.search(code):
        out.append("platform")  # a POSIX tool or expansion cmd does not have
    m = re.match(r'^\s*set\s+"?([^="]*)=', code)
    if m and (m.group(1) != m.group(1).strip() or not re.fullmatch(r"[A-Za-z_][\w()]*", m.group(1))):
        out.append("env_assignment")
    code = re.sub(r"(?:^|(?<=\s))[0-9]*(?:>>?|<)(?:&[0-9]|\s*[^\s&|]+)", " ", code)  # redirections
    for part in re.split(r"\s*(?:&&|\|\||&|\|)\s*", code):
        words = re.findall(r'"[^"]*"|\S+', part)
        if any(w.startswith("'") or w.endswith("'") for w in words if re.match(r"^(?:pip|python|conda|py)\b", part.strip())):
            out.append("quotes")  # cmd passes single quotes on as part of the word
        out += _segment_problems([w.strip('"') for w in words], text)
    return out


def check(cmd: str, os_name: str | None = None, text: str | None = None, why: str = "") -> list[str]:
    """The checks ``cmd`` fails, printed for a text of ``os_name`` (``windows``/``macos``/``linux``/None) whose words
    are ``text`` (None: a live report, no text) in a fix whose why is ``why``."""
    fails: list[str] = []
    lines = [ln for ln in cmd.split("\n") if ln.strip()]
    posix_lines = []
    for raw in lines:
        ln = _filled(raw)
        k = kind(ln)
        if k == "powershell":
            if not _quotes_balanced_ps(ln):
                fails.append("quotes")
            for m in re.finditer(r"\$env:([^\s=]*)\s*=", ln, re.IGNORECASE):
                if not re.fullmatch(r"[A-Za-z_]\w*", m.group(1)):
                    fails.append("env_assignment")
            if os_name in ("linux", "macos"):
                fails.append("platform")
        elif k == "cmd":
            fails += _cmd_problems(ln, os_name, text)
        elif k == "python":
            pass
        else:
            posix_lines.append(ln[1:] if k == "magic" else ln)
    if posix_lines:
        script = "\n".join(posix_lines)
        err = bash_n(script)
        if err:
            fails.append("quotes" if ("unexpected EOF" in err or "matching" in err) else "syntax")
        for ln in posix_lines:
            words = _words(ln)
            if words is None:
                fails.append("quotes")
                continue
            for seg in _segments(words):
                fails += _segment_problems(seg, text)
            code = _code_part(ln)
            if os_name == "windows" and _POSIX_ONLY_RE.search(code):
                fails.append("platform")
            if os_name == "macos" and _APT_RE.search(code):
                fails.append("platform")
    for tok in placeholders(cmd):
        if not described(tok, cmd, why):
            fails.append("placeholder")
    return sorted(set(fails))


CHECKS = ("syntax", "quotes", "pip_requirement", "pip_option", "conda_spec", "url", "pytorch_variant",
          "env_assignment", "placeholder", "platform", "deletes", "uninstall_unnamed")
