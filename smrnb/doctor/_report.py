# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Render: the doctor's :class:`Report` as HTML (notebook), text, JSON and markdown.

A report holds the facts (``{layer: facts}``), the findings (:class:`~smrnb.doctor._model.Finding`)
and ``meta`` (versions, timings, the layers shown). It is sanitized when built and every rendering
passes through :mod:`smrnb.doctor._redact` once more: values of variables named like
``*TOKEN*``/``*SECRET*``/``*KEY*``/``*PASSWORD*``, URL userinfo and token shapes (``ghp_``,
``hf_``, ``AKIA``, ``sk-``...) never appear in any rendering. :meth:`Report.to_markdown` additionally hides the home directory, the user name and
the host name, for pasting into a public bug report.
"""

from __future__ import annotations

import copy
import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.doctor._model import LAYERS, SEVERITIES, Finding, Fix
from smrnb.doctor._redact import _sanitize, process_secrets, redact_identity, redact_text

ICONS = {"error": "❌", "warning": "⚠️", "info": "ℹ️", "ok": "✅"}
COLORS = {"error": "#c62828", "warning": "#b26a00", "info": "#1565c0", "ok": "#2e7d32"}
LAYER_TITLES = {
    "driver": "NVIDIA driver and GPUs",
    "torch": "PyTorch build",
    "toolkit": "CUDA toolkit and compilers (for building extensions)",
    "loader": "Runtime loader (shared libraries)",
    "abi": "C++ ABI of compiled extensions",
    "kaolin": "kaolin",
    "jupyter": "Jupyter kernel and front end",
    "context": "Where this runs (Slurm, JupyterHub, container, env)",
}
STATUS_ICONS = {"ok": "✅", "absent": "➖", "broken": "❌", "unavailable": "❔"}


def environment_summary(facts: Mapping[str, Any]) -> dict[str, str]:
    """``{"torch": "2.13.0+cpu (CPU build)", "nvcc": "13.0 at /usr/local/cuda/bin/nvcc"}`` from the
    torch and toolkit facts (those layers not collected are left out)."""
    out: dict[str, str] = {}
    tf = facts.get("torch")
    if isinstance(tf, Mapping):
        if tf.get("status") == "unavailable":
            out["torch"] = f"unknown (could not look: {tf.get('reason')})"
        elif not tf.get("installed"):
            out["torch"] = "not installed"
        else:
            build = (f"CUDA {tf['cuda']}" if tf.get("cuda") else f"ROCm {tf['hip']}" if tf.get("hip") else "CPU")
            out["torch"] = f"{tf.get('version')} ({build} build)"
    tk = facts.get("toolkit")
    if isinstance(tk, Mapping):
        if tk.get("status") == "unavailable":
            out["nvcc"] = f"unknown (could not look: {tk.get('reason')})"
        elif tk.get("build_nvcc"):
            ver = tk.get("build_nvcc_version")
            out["nvcc"] = f"{ver or 'version unknown'} at {tk['build_nvcc']} (what a build would use)"
        else:
            home = tk.get("build_cuda_home")
            out["nvcc"] = (f"none (a build would use CUDA_HOME={home}, which has no bin/nvcc)" if home else
                           "none found (no CUDA_HOME, no nvcc on PATH, no /usr/local/cuda)")
    return out


def _empty_words(status: str, reason: str) -> str:
    """What a layer without findings says: only a layer that looked has 'nothing to report'."""
    if status == "unavailable":
        return f"could not look{': ' + reason if reason else ''}"
    if status == "absent":
        return f"not present{': ' + reason if reason else ''}"
    return "nothing to report"


def _finding_from_dict(d: Mapping[str, Any], rank: int = 50) -> Finding:
    fix = d.get("fix")
    fx = Fix(fix.get("why", ""), tuple(fix.get("commands", ())), tuple(fix.get("docs", ()))) if fix else None
    return Finding(d["code"], d["layer"], d["severity"], d["title"], tuple(d.get("evidence", ())), fx, rank=rank,
                   sources=tuple(d.get("sources") or ()))


def _sanitize_finding(f: Finding, secrets: list[str]) -> Finding:
    return _finding_from_dict(_sanitize(f.to_dict(), secrets), f.rank)


#: what an explain report that recognised nothing suggests, in this order
NEXT_STEPS = (
    "smr-doctor                 # the live check of this machine, layer by layer (in a notebook: %smr_doctor)",
    "smr-doctor --import-check  # also imports torch and kaolin (their own errors and GPU archs)",
    "smr-doctor explain --markdown < error.txt   # a redacted report to paste into a bug report "
    "(in a notebook: %smr_doctor --markdown --explain-last)",
)


class Report:
    """What the doctor found.

    Parameters
    ----------
    facts : dict
        ``{layer: facts dict}`` as returned by :func:`smrnb.doctor.probes.collect`.
    findings : iterable of Finding
        Sorted by layer then severity for display.
    meta : dict, optional
        ``layers`` (those shown), ``elapsed_s``, ``version``, ``command`` and anything else.

    Attributes
    ----------
    errors, warnings : list of Finding
    exit_code : int
        1 when any finding is an error, else 0 (the CLI's exit status).
    """

    def __init__(self, facts: Mapping[str, Any] | None, findings: Iterable[Finding],
                 meta: Mapping[str, Any] | None = None, *, secrets: list[str] | None = None):
        if secrets is None:
            secrets = process_secrets()
        self._secrets = list(secrets)
        self.facts: dict[str, Any] = _sanitize(dict(facts or {}), secrets)
        order = {ly: i for i, ly in enumerate(LAYERS)}
        sev = {s: i for i, s in enumerate(SEVERITIES)}
        findings = list(findings)
        for i, f in enumerate(findings):
            if not isinstance(f, Finding):
                raise SmrnbTypeError(f"findings[{i}] must be a smrnb.doctor Finding, got {type(f).__name__}")
        fs = [_sanitize_finding(f, secrets) for f in findings]
        self.meta: dict[str, Any] = _sanitize(dict(meta or {}), secrets)
        if not self.meta.get("ranked"):  # explain's findings keep their rank order (most likely first)
            fs.sort(key=lambda f: (order.get(f.layer, 99), sev.get(f.severity, 9)))
        self.findings: list[Finding] = fs
        self.meta.setdefault("layers", [ly for ly in LAYERS if ly in self.facts or any(f.layer == ly for f in fs)])
        self._format = "html"

    def _redact(self, text: str) -> str:
        """The last step of every rendering: secrets by value, by shape and by name (``_redact``), so
        findings added after construction (or produced by ``explain``) are covered too."""
        return redact_text(text, self._secrets)

    # ------------------------------------------------------------------ summary
    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def recognised(self) -> bool:
        """False for an explain report whose text showed no known cause (not an all-clear)."""
        return self.meta.get("recognised", True) is not False

    @property
    def exit_code(self) -> int:
        """The machine's check: 0 no errors, 1 errors found. An explained text: 1 a cause found (a finding of
        error or warning severity: the text failed because of it, ``kernel_wrong_python`` as much as
        ``driver_broken``), 0 only notes (``user_code_error``: not the environment), 3 not recognised."""
        if not self.recognised:
            return 3
        if "recognised" in self.meta:  # an explained text
            return 1 if self.errors or self.warnings else 0
        return 1 if self.errors else 0

    @property
    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def layers(self) -> list[str]:
        return [ly for ly in LAYERS if ly in self.meta.get("layers", LAYERS)]

    def summary(self) -> str:
        """``1 error(s), 0 warning(s), 2 note(s); 5 of 8 layers ok, 1 not present``: the findings by severity,
        then the layers by :meth:`layer_label` (a layer is ok when it was looked at and has no error or
        warning; a count of "ok" findings would read as nothing being fine on a machine without a GPU)."""
        if not self.recognised:
            return ("NOT RECOGNISED: no known cause in this text (this is not an all-clear; the next steps say "
                    "how to find out more)")
        n = {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}
        head = f"{n['error']} error(s), {n['warning']} warning(s), {n['info']} note(s)"
        if "recognised" in self.meta:  # an explained text: no "layers ok" of this machine's probes
            return head
        states = [self._layer_state(layer) for layer in self.layers()]
        looked = [s for s in states if s != ""]
        if not looked:
            return head
        words = {"absent": "not present", "unavailable": "not checked", "broken": "broken"}
        tail = [f"{looked.count(k)} {w}" for k, w in words.items() if looked.count(k)]
        return head + f"; {looked.count('ok')} of {len(looked)} layers ok" + "".join(", " + t for t in tail)

    def _layer_state(self, layer: str) -> str:
        """``error``, ``warning``, the probe's status (``ok``, ``absent``, ``unavailable``, ``broken``) or ""."""
        found = self._by_layer(layer)
        sev = {f.severity for f in found}
        if "error" in sev:
            return "error"
        if "warning" in sev:
            return "warning"
        if any(f.code == "rule_failed" for f in found):
            return "unavailable"  # (blind audit 36, C-M7) a layer whose rules did not all run is not checked, never ok
        return self._layer_status(layer)[0]

    def layer_label(self, layer: str) -> str:
        """What a layer's heading says: its findings' worst news first (``1 error``), then a probe status other
        than ok (``unavailable: nvcc timed out``); ``ok`` only when it was looked at and nothing is wrong."""
        fs = self._by_layer(layer)
        n_err = sum(1 for f in fs if f.severity == "error")
        n_warn = sum(1 for f in fs if f.severity == "warning")
        st, reason = self._layer_status(layer)
        parts = []
        if n_err:
            parts.append(f"{n_err} error" + ("s" if n_err > 1 else ""))
        if n_warn:
            parts.append(f"{n_warn} warning" + ("s" if n_warn > 1 else ""))
        if st not in ("ok", ""):
            mine = "this machine: " if "recognised" in self.meta else ""  # an explained text: the probe is this machine's
            parts.append(mine + st + (f": {reason}" if reason else ""))
        elif not parts and st == "ok":
            parts.append("ok")
        return "; ".join(parts)

    def _likely(self) -> list[Finding]:
        """An explain report's text findings in rank order (the first is the most likely cause)."""
        n = int(self.meta.get("matched") or 0)
        return self.findings[:n] if self.meta.get("ranked") else []

    def _head_lines(self) -> list[str]:
        """The lines under the summary of an explain report: the likely causes, or what was read and the
        next steps when nothing was recognised."""
        alone = [str(self.meta["read_alone"])] if self.meta.get("read_alone") else []
        if not self.recognised:
            read = [str(x) for x in self.meta.get("read") or []]
            notes = [f for f in self.findings if not f.guessed and f.severity == "info" and f.code != "rule_failed"]
            noted = (["notes of the rules (none names the cause of this failure):"] +
                     [f"  ℹ️ [{f.code}] {f.title}" for f in notes]) if notes else []
            guesses = [f for f in self.findings if f.guessed]
            like = []
            if guesses:
                like = ["no rule matched; similar known reports were fixed as follows (a guess to check, not a "
                        "finding):"]
                for f in guesses:
                    near = [e[len("like "):] for e in f.evidence if e.startswith("like ")][:2]
                    like.append(f"  ? [{f.code}] {f.title}")
                    like += [f"      like {n}" for n in near]
            return alone + (["what the text shows:"] + [f"  - {x}" for x in read] if read else
                            ["what the text shows: no versions, paths, libraries, symbols or error codes the doctor "
                             "reads"]) + noted + like + ["next steps:"] + [f"  $ {c}" for c in NEXT_STEPS]
        likely = self._likely()
        out = list(alone)
        for i, f in enumerate(likely[:3]):
            if f.guessed:  # a guess beside the rules' reading says so on its line
                near = next((e[len("like "):].split(" (")[0] for e in f.evidence if e.startswith("like ")), "")
                out.append(f"or, a guess from similar reports (not a finding): [{f.code}] {f.title}"
                           + (f"; like {near}" if near else ""))
                continue
            out.append(f"{'most likely' if i == 0 else 'or'}: [{f.code}] {f.title}")
        return out

    def as_format(self, fmt: str) -> Report:
        """A copy that a notebook displays as ``fmt`` ("html", "json", "markdown", "text")."""
        if fmt not in ("html", "json", "markdown", "text"):
            raise SmrnbValueError(f"fmt must be one of 'html', 'json', 'markdown', 'text', got {fmt!r}")
        other = copy.copy(self)
        other._format = fmt
        return other

    def _layer_status(self, layer: str) -> tuple[str, str]:
        f = self.facts.get(layer)
        if not isinstance(f, Mapping):
            return "", ""  # not collected (explain without live facts)
        st = str(f.get("status", "ok"))
        return st, str(f.get("reason", "")) if st != "ok" else ""

    def _by_layer(self, layer: str) -> list[Finding]:
        return [f for f in self.findings if f.layer == layer]

    # ------------------------------------------------------------------ renderings
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "summary": {"errors": len(self.errors), "warnings": len(self.warnings),
                        "exit_code": self.exit_code, "text": self.summary()},
            "meta": self.meta,
            "findings": [f.to_dict() for f in self.findings],
            "facts": self.facts,
        }
        if "recognised" in self.meta:  # an explain report: whether the text showed a known cause
            d["summary"]["recognised"] = self.recognised
            d["recognised"] = self.recognised
            d["next_steps"] = [] if self.recognised else list(NEXT_STEPS)
            d["read_alone"] = str(self.meta.get("read_alone") or "")
        return _sanitize(d, self._secrets)

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text: ``summary``, ``meta``, ``findings`` (list of dicts), ``facts``."""
        return self._redact(json.dumps(self.to_dict(), indent=indent, default=str, ensure_ascii=False))

    def environment(self) -> dict[str, str]:
        """torch's version and build and the nvcc in use (``meta["environment"]``, else from the facts)."""
        env = self.meta.get("environment")
        return dict(env) if isinstance(env, Mapping) else environment_summary(self.facts)

    def layer_title(self, layer: str) -> str:
        """The layer's heading; the kaolin layer's rows that are about another package (pip finding no wheel of
        triton) are headed by what they are about, not by kaolin."""
        fs = self._by_layer(layer)
        if layer == "kaolin" and fs and not any("kaolin" in f.title.lower() for f in fs):
            return "Package releases and wheels (pip)"
        return LAYER_TITLES.get(layer, layer)

    def to_text(self, verbose: bool = False) -> str:
        """Plain text, one ✅/❌/⚠️/ℹ️ line per finding (like ``conda doctor``), grouped by layer; the
        head names torch's version and build (CPU / CUDA x.y) and the nvcc in use."""
        lines = ["smrnb doctor: " + self.summary()]
        lines += self._head_lines()
        lines += [f"  {k}: {v}" for k, v in self.environment().items()]
        lines.append("")
        # an explain report's likely causes show their evidence and fix whatever their severity: "not your environment"
        # (an info finding) is the answer there, and what to do about it is part of the answer
        named = {id(f) for f in self._likely()[:2] if not f.guessed}
        for layer in self.layers():
            st, reason = self._layer_status(layer)
            head = f"[{layer}] {self.layer_title(layer)}"
            label = self.layer_label(layer)
            if label and label != "ok":
                head += f"  ({label})"
            lines.append(head)
            fs = self._by_layer(layer)
            if not fs:
                lines.append(f"  {STATUS_ICONS.get(st, '✅')} {_empty_words(st, reason)}")
            for f in fs:
                lines.append(f"  {ICONS[f.severity]} {f.title}  [{f.code}]")
                if verbose or f.severity in ("error", "warning") or id(f) in named:
                    for ev in f.evidence:
                        lines.append(f"      - {ev}")
                    if f.fix:
                        lines.append(f"      fix: {f.fix.why}")
                        for cmd in f.fix.commands:
                            for i, cl in enumerate(cmd.splitlines() or [""]):
                                lines.append(("      $ " if i == 0 else "        ") + cl)
                        for url in f.fix.docs:
                            lines.append(f"      see: {url}")
            lines.append("")
        return self._redact("\n".join(lines).rstrip() + "\n")

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self._redact(f"<smrnb doctor Report: {self.summary()}; codes={self.codes}>")

    def to_markdown(self, redact: bool = True) -> str:
        """Markdown for a bug report. ``redact`` hides home directory, user name and host name. (blind audit 36 A,
        L2) Every string of the text or the machine is redacted first, then escaped for Markdown (pasted ``</details>``,
        ``<script>``, ``|``, backticks, links: literal text), and commands and facts are fenced with more backticks
        than they hold."""
        m, p = "m", "p"  # the pieces: the report's own Markdown, and a string to escape
        out: list[tuple[str, str]] = [(m, "### smrnb doctor report\n\n**"), (p, self.summary()), (m, "**\n\n")]
        head = self._head_lines()
        for ln in head:
            out += [(m, "- "), (p, ln.strip().lstrip("-$ ").strip()), (m, "\n")] if ln.startswith("  ") else \
                [(p, ln), (m, "\n")]
        if head:
            out.append((m, "\n"))
        env = self.environment()
        for k, v in env.items():
            out += [(m, "- "), (p, str(k)), (m, ": "), ("span", str(v)), (m, "\n")]
        if env:
            out.append((m, "\n"))
        out.append((m, "| layer | status | findings |\n|---|---|---|\n"))
        for layer in self.layers():
            fs = ", ".join(f"{ICONS[f.severity]} `{f.code}`" for f in self._by_layer(layer)) or "-"
            out += [(m, f"| {layer} | "), (p, self.layer_label(layer) or "-"), (m, f" | {fs} |\n")]
        out.append((m, "\n"))
        for f in self.findings:
            if f.severity == "ok":
                continue
            out += [(m, f"#### {ICONS[f.severity]} "), (p, f.title), (m, f" (`{f.code}`, {f.layer})\n")]
            for ev in f.evidence:
                out += [(m, "- "), (p, ev), (m, "\n")]
            if f.fix:
                out += [(m, "\nFix: "), (p, f.fix.why), (m, "\n")]
                out += [("bash", cmd) for cmd in f.fix.commands]
                for url in f.fix.docs:
                    out += [(m, "- "), (p, url), (m, "\n")]
            out.append((m, "\n"))
        out += [(m, "<details><summary>facts</summary>\n\n"),
                ("json", json.dumps(self.facts, indent=1, default=str, ensure_ascii=False)), (m, "\n</details>\n")]
        return _markdown_pieces(out, lambda t: redact_identity(self._redact(t)) if redact else self._redact(t))

    def _repr_html_(self) -> str | None:
        if self._format != "html":
            return None
        return render_html(self)

    def _repr_markdown_(self) -> str | None:
        return self.to_markdown() if self._format == "markdown" else None

    def _repr_json_(self) -> Any:
        return self.to_dict() if self._format == "json" else None

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        if self._format == "json":
            p.text(self.to_json())
        elif self._format == "markdown":
            p.text(self.to_markdown())
        else:
            p.text(self.to_text())


# ---------------------------------------------------------------------- Markdown
#: (blind audit 36 A, L2) a line of its own between the pieces while they are redacted together (one text: the names
#: a home path shows are redacted in every piece); a private-use character no redaction pattern reads
_PIECE_SEP = "\n\ue000\n"
#: the ASCII punctuation that Markdown (CommonMark, GFM) reads in running text: each written with a backslash
_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>|~&#!])")
_TICKS_RE = re.compile(r"`+")


def _md_escape(text: str) -> str:
    """``text`` as literal Markdown text on one line: its special punctuation backslash-escaped (a pasted
    ``</details>``, ``<script>``, ``[x](javascript:...)``, a table's ``|`` stay text), its line breaks spaces."""
    return _MD_SPECIAL_RE.sub(r"\\\1", " ".join(str(text).splitlines()))


def _longest_ticks(text: str) -> int:
    """The length of the longest run of backticks in ``text`` (0: none)."""
    return max((len(r) for r in _TICKS_RE.findall(text)), default=0)


def _fence(text: str, lang: str = "") -> str:
    """``text`` in a fenced code block whose fence is longer than any backtick run it holds."""
    ticks = "`" * max(3, 1 + _longest_ticks(text))
    return f"{ticks}{lang}\n{text}\n{ticks}\n"


def _code_span(text: str) -> str:
    """``text`` as inline code, its delimiters longer than any backtick run it holds."""
    ticks = "`" * (1 + _longest_ticks(text))
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{' '.join(text.splitlines())}{pad}{ticks}"


def _markdown_pieces(pieces: list[tuple[str, str]], redact: Any) -> str:
    """The Markdown of ``pieces`` (``m``: the report's own Markdown; ``p``: text to escape; ``span``: inline code;
    any other kind: a fenced block of that language), every piece redacted together first (``redact``), then each
    escaped or fenced; where the redaction joined two pieces (a secret across them), the redacted whole, fenced."""
    texts = redact(_PIECE_SEP.join(t for _, t in pieces)).split(_PIECE_SEP)
    if len(texts) != len(pieces):  # never seen: the redacted text as it is, as code (nothing of it read as Markdown)
        return _fence("".join(texts).replace(_PIECE_SEP, "\n"))
    out = []
    for (kind, _), t in zip(pieces, texts):
        out.append(t if kind == "m" else _md_escape(t) if kind == "p" else _code_span(t) if kind == "span" else
                   _fence(t, kind))
    return "".join(out)


# ---------------------------------------------------------------------- HTML
_COPY_JS = (
    "(function(b){var t=b.parentNode.querySelector('pre').innerText;"
    "function ok(){b.innerText='copied';setTimeout(function(){b.innerText='copy'},1500);}"
    "function fb(){var a=document.createElement('textarea');a.value=t;a.style.position='fixed';"
    "a.style.opacity='0';document.body.appendChild(a);a.focus();a.select();"
    "try{document.execCommand('copy');ok();}catch(e){b.innerText='select and copy';}"
    "document.body.removeChild(a);}"
    "if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(ok,fb);}"
    "else{fb();}})(this)"
)

_CSS = """
<style>
.smrnb-doctor{font-family:var(--jp-ui-font-family,sans-serif);font-size:13px;line-height:1.4}
.smrnb-doctor h4{margin:.6em 0 .2em 0}
.smrnb-doctor .smrnb-layer{border-left:3px solid #bbb;padding:2px 8px;margin:6px 0}
.smrnb-doctor .smrnb-finding{margin:4px 0 4px 4px}
.smrnb-doctor .smrnb-sev{font-weight:bold;padding:0 4px;border-radius:3px;color:#fff}
.smrnb-doctor code{font-size:12px}
.smrnb-doctor .smrnb-cmd{position:relative;margin:4px 0}
.smrnb-doctor .smrnb-cmd pre{background:var(--jp-layout-color2,#f4f4f4);padding:6px 60px 6px 8px;
  margin:0;white-space:pre-wrap;border-radius:3px}
.smrnb-doctor .smrnb-copy{position:absolute;top:3px;right:3px;font-size:11px;cursor:pointer}
.smrnb-doctor .smrnb-muted{color:#777}
</style>
"""


#: the secrets of the report being rendered (:func:`render_html` sets them): every string is redacted before it is
#: escaped (a redaction of the escaped page would read ``&lt;redacted&gt;`` as a value and cut it)
_html_secrets: tuple[str, ...] = ()


def _e(s: Any) -> str:
    return html.escape(redact_text(str(s), _html_secrets), quote=True)


def _cmd_block(cmd: str) -> str:
    return (f'<div class="smrnb-cmd"><pre>{_e(cmd)}</pre>'
            f'<button class="smrnb-copy" title="copy to clipboard" onclick="{_e(_COPY_JS)}">copy</button></div>')


def _finding_html(f: Finding) -> str:
    color = COLORS[f.severity]
    parts = [f'<div class="smrnb-finding" data-code="{_e(f.code)}" data-severity="{_e(f.severity)}">',
             f'<span class="smrnb-sev" style="background:{color}">{ICONS[f.severity]} {_e(f.severity)}</span> ',
             f"<b>{_e(f.title)}</b> <code class='smrnb-muted'>{_e(f.code)}</code>"]
    if f.evidence:
        opened = " open" if f.severity == "error" else ""
        parts.append(f"<details{opened}><summary>evidence ({len(f.evidence)})</summary><ul>")
        parts += [f"<li>{_e(ev)}</li>" for ev in f.evidence]
        parts.append("</ul></details>")
    if f.fix:
        parts.append(f"<div><b>Fix:</b> {_e(f.fix.why)}</div>")
        parts += [_cmd_block(c) for c in f.fix.commands]
        parts += [f'<div><a href="{_e(u)}" target="_blank" rel="noopener">{_e(u)}</a></div>' for u in f.fix.docs]
    parts.append("</div>")
    return "".join(parts)


def render_html(report: Report) -> str:
    """The notebook rendering: a header, then one section per layer with its findings. Every string in it is
    redacted (by the report's secrets, by shape and by name), then escaped (:func:`_e`); here rather than in
    _repr_html_: the DoctorView widget calls render_html directly."""
    global _html_secrets
    _html_secrets = tuple(getattr(report, "_secrets", ()))
    try:
        return _render_html(report)
    finally:
        _html_secrets = ()


def _render_html(report: Report) -> str:
    n_err, n_warn = len(report.errors), len(report.warnings)
    head_color = COLORS["error"] if n_err else COLORS["warning"] if n_warn else COLORS["ok"]
    if not report.recognised:
        head_color = COLORS["warning"]
    parts = [_CSS, '<div class="smrnb-doctor">',
             f'<h4 style="color:{head_color}">smrnb doctor: {_e(report.summary())}</h4>']
    head = report._head_lines()
    if head:
        parts.append("<div class='smrnb-head'>" + "<br>".join(_e(ln) for ln in head) + "</div>")
    env = report.environment()
    if env:
        parts.append("<div class='smrnb-muted'>" + " · ".join(f"{_e(k)} {_e(v)}" for k, v in env.items()) + "</div>")
    for layer in report.layers():
        st, reason = report._layer_status(layer)
        fs = report._by_layer(layer)
        worst = fs[0].severity if fs else ("ok" if st == "ok" else "info")
        parts.append(f'<div class="smrnb-layer" data-layer="{_e(layer)}" style="border-color:{COLORS[worst]}">')
        label = report.layer_label(layer)
        parts.append(f"<b>{_e(report.layer_title(layer))}</b> <span class='smrnb-muted'>[{_e(layer)}"
                     f"{(': ' + _e(label)) if label else ''}]</span>")
        if not fs:
            parts.append(f"<div class='smrnb-muted'>{STATUS_ICONS.get(st, '')} {_e(_empty_words(st, reason))}</div>")
        parts += [_finding_html(f) for f in fs]
        facts = report.facts.get(layer)
        if isinstance(facts, Mapping):
            parts.append("<details><summary class='smrnb-muted'>facts</summary><pre>"
                         + _e(json.dumps(facts, indent=1, default=str, ensure_ascii=False)) + "</pre></details>")
        parts.append("</div>")
    el = report.meta.get("elapsed_s")
    if el is not None:
        parts.append(f"<div class='smrnb-muted'>collected in {float(el):.2f} s</div>")
    parts.append("</div>")
    return "".join(parts)
