# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Explain: a pasted error (one line, a traceback or a whole build log) read as a machine.

Three steps, no decision of its own:

1. **read**: the text is normalised (:func:`smrnb.doctor._paste.normalise`: Unicode spaces, zero-width
   characters, terminal colours, CRLF, ``> `` quotes), capped (head, tail and the middle's error lines) and
   turned into facts of the shape the live probes produce, plus events (:func:`smrnb.doctor._textfacts.read_text`);
2. **merge**: when the doctor runs on the machine, its probed facts fill what the text does not say; each
   fact keeps where it came from (``provenance``: ``text`` / ``live``) and where the two disagree both are
   kept (``disagree``), the text's value deciding (it describes the run that failed);
3. **decide**: the same per-layer rules the live doctor runs (:func:`smrnb.doctor.rules.evaluate_traced`).

The findings that rest on the text are kept, ranked (the cause's priority, how specific the wording was,
the order of several readings), each once, each listing the facts it used and where they came from. A
text with no finding of a cause is *not recognised* (:attr:`Explained.recognised`): its report says so and
lists what was read, never an all-clear. :func:`explain_text` is pure (no probes); :func:`smrnb.doctor.explain`
adds live facts.
"""

from __future__ import annotations

import math
import os
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from smrnb.doctor._codes import CODES as _TABLE
from smrnb.doctor._codes import is_cause, meanings
from smrnb.doctor._evidence import cap_text
from smrnb.doctor._install import build_arch_list, nvcc_archs  # noqa: F401 (re-exported)
from smrnb.doctor._model import LAYERS, SIMILAR_REPORTS, Finding, Fix
from smrnb.doctor._paste import decode, normalise
from smrnb.doctor._redact import quote
from smrnb.doctor._symbols import demangle, is_torch_symbol, string_abi  # noqa: F401 (re-exported)
from smrnb.doctor._textfacts import NOT_TURNED, read_text, summary
from smrnb.doctor.rules import evaluate_traced
from smrnb.doctor.rules._events import PRIORITY, ruled_out_by_facts

#: every code an explain finding may carry -> its meaning (a view of the one table: codes a text can show)
CODES: dict[str, str] = meanings("text")
#: keys of a layer's facts that are bookkeeping, not facts of the machine
_META = frozenset({"status", "source", "read_from", "provenance", "disagree", "events", "elapsed_s", "reason",
                   "not_checked", "installed"})


def explain_codes() -> dict[str, str]:
    """Every code an explain finding may carry -> a one-line meaning."""
    return dict(CODES)


@dataclass
class Explained:
    """What explain made of a text: ``findings`` (ranked, one per cause), ``recognised`` (a finding of a
    cause), ``facts`` (merged, with provenance), ``read`` (what the text showed, one line per kind) and
    ``read_alone`` (where this machine's facts were given but the text shows another machine: the one line that says
    so, the text having been read alone; ``""`` otherwise)."""

    findings: list[Finding]
    recognised: bool
    facts: dict[str, Any] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)
    read_alone: str = ""


# ------------------------------------------------------------------ is the text of this machine?
def _nums(v: Any) -> list[str]:
    return re.findall(r"[0-9]+", str(v or "").split("+")[0])


def _version_differs(text_v: Any, live_v: Any, parts: int = 3) -> bool:
    """Whether a version the text shows differs from this machine's, on the components the text gives (``1.12``
    against ``1.12.1`` agrees; ``1.12`` against ``2.13.0`` does not) and on a local tag both give (``+cu121``)."""
    t, lv = _nums(text_v)[:parts], _nums(live_v)[:parts]
    if not t or not lv:
        return False
    if t != lv[:len(t)]:
        return True
    tt, lt = str(text_v).partition("+")[2].lower(), str(live_v).partition("+")[2].lower()
    return bool(tt and lt and tt != lt)


def _live_os(live: Mapping[str, Any]) -> str:
    ctx = live.get("context") if isinstance(live.get("context"), Mapping) else {}
    if ctx.get("os"):
        return str(ctx["os"])
    system = platform.system().lower()
    return "windows" if system == "windows" else "macos" if system == "darwin" else system or "linux"


def _live_python(live: Mapping[str, Any]) -> str:
    for layer, key in (("context", "python_version"), ("kaolin", "python_version")):
        d = live.get(layer)
        if isinstance(d, Mapping) and d.get(key):
            return str(d[key])
    return platform.python_version()


def _gpu_names(gpus: Any) -> list[str]:
    return [re.sub(r"^nvidia\s+|\s+", " ", str(g.get("name") or "").lower()).strip() for g in gpus or ()
            if isinstance(g, Mapping) and g.get("name")]


#: a site-packages (or dist-packages) folder in a Linux/macOS path the text shows
_SITE_RE = re.compile(r"(/[^\s:'\"()<>,;]+?/(?:site|dist)-packages)(?=/|\b)")


#: a home folder in a path the text shows (/home/NAME, /Users/NAME)
_HOME_RE = re.compile(r"(?<![\w.~-])(/(?:home|Users)/[^/\s'\"()<>,;:]+)/")


def _strings(v: Any, depth: int = 0):
    if depth > 4:
        return
    if isinstance(v, str):
        yield v
    elif isinstance(v, Mapping):
        for x in v.values():
            yield from _strings(x, depth + 1)
    elif isinstance(v, (list, tuple)):
        for x in v[:50]:
            yield from _strings(x, depth + 1)


def machine_contradictions(text_facts: Mapping[str, Any], live: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    """The facts the text shows that contradict the same facts probed on this machine: ``(what, the text's value,
    this machine's value)`` each; an empty list where nothing contradicts (the text may come from this machine).

    Only facts read reliably on both sides decide: the OS (a Windows or macOS text on Linux), torch's version and
    its CUDA, the nvcc release a text prints, the driver's version, an NVIDIA GPU named or which one, a container or
    a Slurm job the text shows where this machine is in none, the Python the text names, and a site-packages folder
    of the text that does not exist here."""
    if not live:
        return []

    def get(src: Mapping[str, Any] | None, layer: str) -> Mapping[str, Any]:
        d = src.get(layer) if src else None
        return d if isinstance(d, Mapping) and d.get("status") != "unavailable" else {}

    out: list[tuple[str, str, str]] = []
    tc, lc = get(text_facts, "context"), get(live, "context")
    if tc.get("os") and tc["os"] != _live_os(live):
        out.append(("OS", str(tc["os"]).replace("windows", "Windows").replace("macos", "macOS"),
                    _live_os(live).capitalize()))
    tt, lt = get(text_facts, "torch"), get(live, "torch")
    if lt.get("installed") and lt.get("version"):
        if tt.get("version") and _version_differs(tt["version"], lt["version"]):
            out.append(("torch", f"torch {tt['version']}", f"torch {lt['version']}"))
        elif tt.get("cuda") and (not lt.get("cuda") and not lt.get("hip") or lt.get("cuda") and
                                 _version_differs(tt["cuda"], lt["cuda"], 2)):
            out.append(("torch's CUDA", f"torch for CUDA {tt['cuda']}",
                        f"torch {lt['version']}" + (f" for CUDA {lt['cuda']}" if lt.get("cuda") else " without CUDA")))
    tk, lk = get(text_facts, "toolkit"), get(live, "toolkit")
    text_nvcc = tk.get("build_nvcc_version") or next((n.get("version") for n in tk.get("nvccs") or ()
                                                      if isinstance(n, Mapping) and n.get("version")), None)
    if text_nvcc and lk:
        live_nvccs = {str(n.get("version")) for n in lk.get("nvccs") or () if isinstance(n, Mapping) and n.get("version")}
        if lk.get("build_nvcc_version"):
            live_nvccs.add(str(lk["build_nvcc_version"]))
        if not any(not _version_differs(text_nvcc, v, 2) for v in live_nvccs):
            out.append(("nvcc", f"nvcc {text_nvcc}", ("nvcc " + ", ".join(sorted(live_nvccs))) if live_nvccs
                        else "no nvcc"))
    td, ld = get(text_facts, "driver"), live.get("driver") if isinstance(live.get("driver"), Mapping) else {}
    live_gpus = _gpu_names(ld.get("gpus"))
    text_gpus = _gpu_names(td.get("gpus"))
    if ld.get("status") == "absent" and not live_gpus:
        if text_gpus:
            out.append(("GPU", f"an NVIDIA GPU ({td['gpus'][0].get('name')})", "no NVIDIA driver or GPU"))
        elif td.get("driver_version"):
            out.append(("driver", f"NVIDIA driver {td['driver_version']}", "no NVIDIA driver"))
    elif ld.get("status") == "ok":
        if td.get("driver_version") and ld.get("driver_version") and _version_differs(td["driver_version"],
                                                                                        ld["driver_version"]):
            out.append(("driver", f"NVIDIA driver {td['driver_version']}", f"driver {ld['driver_version']}"))
        elif text_gpus and live_gpus and not any(t in g or g in t for t in text_gpus for g in live_gpus):
            out.append(("GPU", f"an NVIDIA GPU ({td['gpus'][0].get('name')})", f"a {(ld['gpus'][0] or {}).get('name')}"))
    if lc:
        if tc.get("container") and not lc.get("container"):
            out.append(("container", "a container", "no container"))
        elif tc.get("slurm") and not lc.get("slurm"):
            out.append(("job", "a Slurm job", "no Slurm job"))
    tl = get(text_facts, "loader")
    tags = [str(v) for v in (tl.get("module_python_tags") or {}).values() if v]  # a compiled module's cpython-39
    pythons = tags or [str(v) for v in (tl.get("pythons_named") or ())]
    if pythons and all(_version_differs(v, _live_python(live), 2) for v in pythons):
        out.append(("Python", "Python " + pythons[0], "Python " + ".".join(_nums(_live_python(live))[:2])))
    if not any(w == "OS" for w, _, _ in out):
        for s in _strings(text_facts):
            m = _SITE_RE.search(s) or _HOME_RE.search(s)
            if m and not os.path.isdir(m.group(1)):
                out.append(("path", m.group(1), "no such folder"))
                break
    return out


def read_alone_line(found: list[tuple[str, str, str]]) -> str:
    """The one line an output prints where the text was read alone: what the text shows and this machine has."""
    shown = "; ".join(t for _, t, _ in found[:3])
    here = "; ".join(v for _, _, v in found[:3])
    return (f"read as text alone: the text shows {shown}; this machine has {here} -- run smr-doctor on the machine "
            "where it failed")


def _prepared(text: str | bytes) -> str:
    """A pasted error decoded, capped and normalised, as the readers and the similar reports read it; ``""`` for an
    empty text (or one that is no text). The last one is remembered (by identity): explain prepares its text first to
    read its secrets, then to read it."""
    global _last_prepared
    if isinstance(text, str) and text is _last_prepared[0]:
        return _last_prepared[1]
    raw = text
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text))[0]
    if not isinstance(text, str) or not text.strip():
        return ""
    out = normalise(cap_text(text))
    if isinstance(raw, str):
        _last_prepared = (raw, out)
    return out


#: the last text :func:`_prepared` prepared, and its prepared form (dropped when explain returns: forget_prepared)
_last_prepared: tuple[str, str] = ("", "")


def forget_prepared() -> None:
    """Drop :func:`_prepared`'s memo."""
    global _last_prepared
    _last_prepared = ("", "")


def read(text: str | bytes) -> dict[str, dict[str, Any]]:
    """The facts a pasted error shows (normalised and capped first); ``{}`` for an empty text."""
    prepared = _prepared(text)
    return read_text(prepared) if prepared else {}


def merge(text_facts: Mapping[str, Any], live: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """``text_facts`` over ``live`` (probed) facts, layer by layer: the text's values decide, the machine's fill
    the gaps; ``provenance`` says where each key came from and ``disagree`` keeps both values where they differ."""
    out: dict[str, dict[str, Any]] = {}
    for layer in LAYERS:
        t = text_facts.get(layer) if isinstance(text_facts.get(layer), Mapping) else None
        lv = live.get(layer) if live and isinstance(live.get(layer), Mapping) else None
        if lv is None and t is None:
            continue
        if lv is None or lv.get("status") == "unavailable" and t is not None:
            d = dict(t)
            d["provenance"] = {k: "text" for k in t if k not in _META}
            out[layer] = d
            continue
        d = dict(lv)
        prov = {k: "live" for k in lv if k not in _META}
        disagree: dict[str, Any] = {}
        for k, v in (t or {}).items():
            if k in ("status", "source", "elapsed_s"):
                if k == "status" and v == "broken":
                    d[k] = v
                continue
            if k == "events":
                d["events"] = list(lv.get("events") or []) + list(v)
                continue
            if k == "read_from":
                d["read_from"] = dict(v)
                continue
            if k in lv and lv[k] not in (None, [], {}) and lv[k] != v:
                disagree[k] = {"text": v, "live": lv[k]}
            d[k] = v
            prov[k] = "text"
        d["provenance"] = prov
        if disagree:
            d["disagree"] = disagree
        out[layer] = d
    return out


def _show(v: Any) -> str:
    if isinstance(v, list):
        v = ", ".join((f"{g.get('name') or 'GPU'} (CC {g.get('compute_capability')})" if isinstance(g, Mapping) and
                       "compute_capability" in g else str(g.get("version") or g) if isinstance(g, Mapping) else str(g))
                      for g in v[:4])
    elif isinstance(v, Mapping):
        v = v.get("version") or ", ".join(f"{k}={x}" for k, x in list(v.items())[:3])
    return str(v)[:120]


def _provenance_lines(facts: Mapping[str, Any], used: frozenset) -> tuple[list[str], set[str]]:
    """Evidence lines for the facts a rule read: which came from the text (with its line), which from this
    machine, and both values where they disagree; and the set of sources ("text", "machine")."""
    lines, sources = [], set()
    for layer, key in sorted(used, key=lambda p: (LAYERS.index(p[0]) if p[0] in LAYERS else 99, str(p[1]))):
        d = facts.get(layer)
        if not isinstance(d, Mapping) or key in _META or not isinstance(key, str) or d.get(key) in (
                None, [], {}, "", False):
            continue
        prov = (d.get("provenance") or {}).get(key) or ("text" if d.get("source") == "the error text" else "live")
        dis = (d.get("disagree") or {}).get(key)
        if dis:
            lines.append(f"{layer}.{key}: the text says {_show(dis['text'])}, this machine has {_show(dis['live'])}")
            sources.update(("text", "machine"))
        elif prov == "text":
            where = (d.get("read_from") or {}).get(key)
            lines.append(f"from the text: {layer}.{key} = {_show(d[key])}" + (f" (line: {quote(where, 120)})" if where else ""))
            sources.add("text")
        else:
            lines.append(f"from this machine: {layer}.{key} = {_show(d[key])}")
            sources.add("machine")
    return lines[:6], sources


def decide_facts(facts: Mapping[str, Any], text_codes: set[str] | None = None,
                 event_codes: set[str] | None = None) -> list[Finding]:
    """The findings of merged ``facts`` that rest on the text, ranked, one per code (best rank kept).

    A finding rests on the text when its rule read an event of the text, or (``text_codes`` given: the codes
    the text's facts alone give) when the text alone shows its cause, or when its rule read a fact of the text
    and the text shows an event of the finding's layer (a build that failed, and this machine's nvcc against
    the text's torch): the machine never adds a cause of its own to a text that is about something else."""
    best: dict[str, tuple[int, int, Finding]] = {}
    about = {ly for ly in LAYERS if isinstance(facts.get(ly), Mapping) and any(
        isinstance(e, Mapping) and e.get("from") == "text" for e in facts[ly].get("events") or ())}
    for i, (f, used) in enumerate(evaluate_traced(dict(facts))):
        if f.severity == "ok" or not is_cause(f.code):
            continue
        prov, sources = _provenance_lines(facts, used)
        from_event = "text" in f.sources
        sources |= set(f.sources)
        if "text" not in sources or (text_codes is not None and not from_event and f.code not in text_codes
                                     and f.layer not in about):
            continue  # a finding of the machine alone (or about a layer the text shows nothing of): the live report's
        if from_event and event_codes is not None:
            event_codes.add(f.code)  # its rule read an event of the text (the text's own error line)
        rank = f.rank if f.rank != 50 else PRIORITY.get(f.code, 25) + 4
        ev = list(f.evidence)
        if not any(e.startswith("evidence: ") for e in ev):
            ev.insert(0, "evidence: " + "; ".join(p for p in prov if p.startswith(("from the text", f.code))) or
                      "evidence: facts read in the text")
        if not any(e.startswith("told from its neighbour: ") for e in ev) and _TABLE[f.code].told_from:
            ev.append(f"told from its neighbour: {_TABLE[f.code].told_from}")
        ev += [p for p in prov if p not in ev]
        g = replace(f, evidence=tuple(dict.fromkeys(ev)), rank=rank, sources=tuple(sorted(sources)))
        if f.code not in best or rank < best[f.code][0]:
            best[f.code] = (rank, i, g)
    return [g for _, _, g in sorted(best.values(), key=lambda t: (t[0], t[1]))]


#: (round 30b, blind audit 29) a sign of the field's failures: Python (a traceback, a module, pip, conda, a notebook),
#: CUDA or a GPU, torch and its kin, a C/C++/CUDA compiler or build, the loader, a container or a scheduler
_FIELD_WORDS = (
    r'Traceback \(most recent call last\)|File "[^"\n]{1,300}", line \d|\.pyx?\b|\bpython[\d.]*\b|\bpip3?\b|'
    r'\bconda\b|\bimport\b|\bipython|\.ipynb\b|jupyter|ipykernel|site-packages|module named|'
    r'cuda|cudnn|cublas|nccl|nvrtc|nvml|nvidia|\bgpus?\b|\bnvcc\b|ptxas|\bsm_\d|compute capability|\bdriver\b|torch|'
    r'tensorflow|\bjax|triton|xformers|kaolin|\bmps\b|rocm|\bhip\b|'
    r'\bgcc\b|g\+\+|\bclang|\bcl\.exe|msvc|visual studio|cmake|ninja|\bmake(?:file)?\b|'
    r'\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp)[:"(\s]|collect2|\bld\b|setup\.py|cpp_extension|\bwheel|'
    r'\.so\b|\.so\.\d|\.dll\b|\.dylib\b|\.pyd\b|dlopen|undefined symbol|shared object|shared librar|libstdc|glibc|'
    r'docker|container|singularity|apptainer|slurm|srun|sbatch|kubernetes|\bwsl|segmentation fault|core dumped|'
    r'out of memory|/dev/shm')
#: (round 37e) Python's exception names, which other languages share (JavaScript's TypeError, RangeError's kin)
_PYTHON_EXCEPTIONS = (r'\b(?:ModuleNotFound|Import|Attribute|Type|Value|Key|Index|Name|Runtime|OS|Assertion|'
                      r'FileNotFound|NotImplemented|Memory|Unpickling|JSONDecode)Error\b')
_FIELD_SIGN_RE = re.compile(_FIELD_WORDS + "|" + _PYTHON_EXCEPTIONS, re.IGNORECASE)
#: ... a word of the field other than an exception's name
_FIELD_WORD_RE = re.compile(_FIELD_WORDS, re.IGNORECASE)
#: ... another language's toolchain: rustc/cargo (error[E0382], src/main.rs:5), npm/yarn, the JVM's "Exception in
#: thread" and its frames, git's "fatal:", Go's panic
_OTHER_TOOLCHAIN_RE = re.compile(
    r'\berror\[E\d{4}\]|\bcargo\b|\brustc\b|\.rs:\d+|\bnpm ERR!|\bnode_modules\b|\byarn\b|Exception in thread "|'
    r'\.java:\d+\)|^\s+at [\w.$]+\([\w.]+\.(?:java|kt|scala):\d+\)|^fatal: |^\$ git |\bgoroutine \d+|^panic: |'
    r'^\s+at [^\n]{0,200}\.(?:js|jsx|mjs|cjs|ts|tsx):\d+:\d+\)?\s*$|\bUncaught (?:\w*Error|exception)\b',
    re.MULTILINE)
#: ... a person's words of a problem, in a text with no failure's word or exception ("I am getting unknow runtime",
#: "neither ... worked for me"), a hang among them ("Infinite cuda extention build", "stuck at", "hangs forever")
_PROBLEM_SAID_RE = re.compile(r"\bi(?: a|')m getting\b|\bi (?:get|got)\b|\bworked\b|\bproblem|\bissue|\bhelp\b|\?|"
                              r"\bwrong\b|\bbug\b|\bunknown?\b|\bbroken?\b|\bbreaks?\b|\bnot\b|n't\b|\bno\b|"
                              r"\binfinit|\bforever\b|\bhang(?:s|ing)?\b|\bhung\b|\bstuck\b|\bfreez|\bfroze",
                              re.IGNORECASE)


def _may_be_guessed(text: str, found: list[Finding]) -> bool:
    """(round 30b, blind audit 29) Whether a text may get readings of similar reports, which are the field's failures
    only (docs/troubleshooting.md): not one of another language's toolchain that shows no sign of the field (a Rust
    borrow error, npm's ERESOLVE, a Java NullPointerException, git's refusal), nor, where no rule read it, a text that
    shows no failure at all and says of no problem (a healthy training log). Read in the text's head (what the reports
    read, :data:`smrnb.doctor._similar.MAX_CHARS`) and, for the failure, its last 2,000 characters (a long log's
    last error). Studied leave-one-part-out on the twelve newest released parts: no text's score changes; the
    readings' own gate (:func:`smrnb.doctor._similar.reads_as_a_failure_of_the_field`) and constants are unchanged."""
    from smrnb.doctor import _similar

    head = text[:_similar.MAX_CHARS]
    if _OTHER_TOOLCHAIN_RE.search(head) and not _FIELD_WORD_RE.search(head):
        return False  # (round 37e) an exception's name alone is no word of the field beside another toolchain's frames
    # (blind audit 36 A) beside a rule's finding too: a text with no failure line and no problem said (a script, a
    # setup that a rule reads as a risk) gets no guess of what failed
    parts = (head, text[-2000:]) if len(text) > _similar.MAX_CHARS else (head,)
    return any(r.search(p) for r in (_similar._EXCEPTION, _PROBLEM_SAID_RE, _similar._FAILURE) for p in parts)


def _similar_findings(text: str, found: list[Finding], index: Any, live: bool = False,
                      facts: Mapping[str, Any] | None = None) -> list[Finding]:
    """Readings of the nearest known reports (:mod:`smrnb.doctor._similar`) for a text (:func:`_prepared`) no
    rule recognised (up to two) or that one rule read one way without this machine's facts (one more, of another
    cause that is an error or a warning, not a note, when it has at least ``MIN_SHARE_BESIDE_A_RULE`` of the readers'
    mixed vote and the rule's code does not name it as the neighbour it is told from); each an ``info`` finding whose
    sources say ``similar reports``, ranked after every rule's finding. Where the machine's facts decided, or the
    rule's one finding is a note, no guess is added."""
    from smrnb.doctor import _similar

    index = _similar.shipped() if index is None else index
    if index is None or len(found) > 1 or (found and live) or any(f.severity == "info" for f in found):
        return []  # two readings of the rules, the machine's facts, or a note ("not your environment"): no guess
    if not _may_be_guessed(text, found):
        return []  # (round 30b) another language's toolchain, or no failure at all: outside the field's reports
    told = _TABLE[found[0].code].told_from if found else ""  # the neighbours its rule tells it from
    if not text:
        return []
    have = {f.code for f in found}
    out = []
    # a text the field's gate holds back gets a reading of a clear vote only where no rule read it
    for r in index.readings(text, n=3, **({"held_share": math.inf} if found else {})):
        if r.code in have or not is_cause(r.code) or (
                found and (r.share < _similar.MIN_SHARE_BESIDE_A_RULE or r.code in told
                           or _TABLE[r.code].severity == "info")) or (
                facts and ruled_out_by_facts(r.code, facts)):
            continue  # beside a rule's cause only another cause (an error or a warning), never "the environment is fine"
        entry = _TABLE[r.code]
        near = [f"{rep.url} (similarity {s:.2f}; fixed by: {rep.fix[:160]})" for rep, s in r.reports[:3]]
        ev = ("evidence: similar known reports; no rule matched this reading: it is the cause of the most similar "
              "real error texts (labelled with what fixed them), a guess to check, not a fact of this text",
              f"similar reports: {r.neighbours} of the {_similar.K} nearest, {r.share:.0%} of the vote of the "
              f"nearest reports, naive Bayes and a linear model over every report, nearest similarity {r.similarity:.2f}",
              *(f"like {n}" for n in near),
              *((f"told from its neighbour: {entry.told_from}",) if entry.told_from else ()))
        what = re.split(r"(?<=[\w)'])[.;] ", entry.meaning, maxsplit=1)[0]
        if len(what) > 140:  # cut at a word boundary (and before an opened quote or bracket), never mid-word
            what = re.sub(r"\s+\S*$", "", what[:138]).rstrip(" ,;:(") + "..."
            if what.count("(") > what.count(")"):
                what = what[:what.rfind("(")].rstrip(" ,;:") + "..."
        title = "like known reports of: " + what
        out.append(Finding(r.code, entry.layer, "info", title, ev,
                           Fix(entry.fix, (entry.check,) if entry.check else (), tuple(rep.url for rep, _ in r.reports[:3])),
                           rank=900 + len(out), sources=(SIMILAR_REPORTS,)))
        if len(out) >= (2 if not found else 1):
            break
    return out


#: a line that says the run went well ("rerun OK ... all good", "epoch 1 finished", "your run did not fail")
#: (near a line's end: a long line of prose that says something went well goes on about what did not)
_WENT_WELL_RE = re.compile(r"\b(?:all good|all tests? passed|(?:completed|finished) successfully|rerun ok|"
                           r"retry (?:ok|succeeded)|works now|epoch [0-9]+(?:/[0-9]+)? (?:finished|done))\b(?=[^\n]{0,60}$)|"
                           # (blind audit 36 M5) "but after upgrading to torch 2.1 it works": the change ended it
                           r"\b(?:after|since) (?:i |we )?(?:upgrad|updat|downgrad|install|reinstall|switch|rebuil|"
                           r"reboot|restart|export|sett|add|pinn)\w* " + NOT_TURNED + r"{0,80}?\b(?:it|everything|this|that) "
                           r"(?:now )?(?:works|is working|worked|runs fine|ran fine)(?: now| again| fine)?\b"
                           r"(?=[^\n]{0,60}$)|"
                           r"\b(?:your|the|this) (?:run|job|build|training|program|script) (?:did not|didn't) fail"
                           r"\W{0,3}$",
                           re.IGNORECASE)
#: pytest's last line when no test failed ("===== 41 passed, 1 xfailed in 12.31s =====")
_PYTEST_PASSED_RE = re.compile(r"^=+ (?:[0-9]+ (?:passed|xfailed|xpassed|skipped|deselected|warnings?)(?:, )?)+"
                               r" in [0-9.]+s\b[^=]*=+$")
#: the end of a sentence within a line (what comes before a success phrase in its own sentence is read)
_SENTENCE_END_RE = re.compile(r"[.!?;](?:\s|$)")
#: the end of a clause within a line (a sentence's, a comma's, a colon's, a dash's, a log prefix's)
_CLAUSE_END_RE = re.compile(r"[.!?;:,](?:\s|$)|\s[-\u2013\u2014]{1,2}\s|[\]|>]\s")
#: a negation just before the success phrase, in its clause ("not all good", "isn't quite all good")
_NEGATED_RE = re.compile(r"(?:\b(?:not|never|no longer|nowhere near|far from|hardly|barely)|n[\u2019']t)"
                         r"(?:\s+[\w\u2019']+){0,2}\s*$", re.IGNORECASE)
#: a sentence that plans, asks or makes a condition of the success phrase rather than says it happened ("TODO: make
#: sure all good before release", "is it all good now?", "once it works now ...")
_NOT_SAID_RE = re.compile(r"\b(?:todo|fixme|xxx|make sure|ensure|check (?:that|if|whether)|verify|should|must|"
                          r"need(?:s|ed)? to|want|wait(?:ing)? (?:for|until)|hop(?:e|es|ing)|until|once|if|whether|"
                          r"to be|will|would|plan(?:s|ned)?|expect(?:s|ed)? to|so that)\b|"
                          r"^\W*(?:is|are|was|were|do|does|did|can|could|has|have|why|how)\b", re.IGNORECASE)
#: what, after the success phrase in its line, takes it back ("all good: still failing", "all good except ...")
_TAKEN_BACK_RE = re.compile(r"\?|\b(?:but|except|still|not|fail(?:s|ing|ure)?|broken|before)\b", re.IGNORECASE)
#: (blind audit 36 M4) a later line that takes the success back ("nope, still broken", "never mind, it fails
#: again", "spoke too soon"): the failure is of now
_TAKES_BACK_LINE_RE = re.compile(r"\b(?:nope|never ?mind|scratch that|spoke too soon|broken|fails|failing|"
                                 r"crash(?:es|ing)|still (?:broken|fail\w*|crash\w*|(?:the )?same|not\b|happen\w*|"
                                 r"getting|seeing|occur\w*)|(?:does|did|is|was)n[\u2019']?t work\w*|"
                                 r"(?:does|did|is|was) not work\w*|not working|not fixed)\b", re.IGNORECASE)
#: (blind audit 36 M4) a quoted string of a code line, opened after a call's bracket, an assignment or a print
#: command ("print('all good')", "msg = \"finished successfully\"", "echo 'all good'"): words the code prints
_CODE_QUOTE_BEFORE_RE = re.compile(r"(?:[(=,\[{+%]|\b(?:echo|printf|print|puts|say|log|info|warn(?:ing)?|debug))"
                                   r"\s*[fFrRbBuU]{0,2}$")
#: a line of a failure (what a line after the one that says the run went well must not be)
_FAILED_LINE_RE = re.compile(r"error|exception|traceback|fatal|failed|abort|killed|segmentation|core dumped",
                             re.IGNORECASE)
#: TensorFlow's note after its dso_loader warning (cudart_stub.cc): the missing runtime matters only with a GPU
_TF_IGNORE = "ignore above cudart dlerror if you do not have a gpu"
_TAIL_LINES = 3


def _says_it_went_well(ln: str, said: re.Match[str]) -> bool:
    """Whether the success phrase ``said`` in the line ``ln`` says that the run now succeeds: a line of its own, or
    a sentence that states it; not negated in its clause, not asked, planned or made a condition of in its sentence,
    not taken back after it ("not all good: still failing", "TODO: make sure all good before release" are not)."""
    before = ln[:said.start()]
    if _quoted_in_code(before):
        return False  # print('all good'): a line of code, no statement
    sentence = _SENTENCE_END_RE.split(before)[-1]
    clause = _CLAUSE_END_RE.split(before)[-1]
    end = _SENTENCE_END_RE.search(ln, said.end())
    after = ln[said.end():end.end() if end else len(ln)]  # to its sentence's end mark, a question's "?" with it
    return not (_NEGATED_RE.search(clause) or _NOT_SAID_RE.search(sentence) or "?" in said.group(0)
                or _TAKEN_BACK_RE.search(after) or _NOT_SAID_RE.search(said.group(0)))


def _quoted_in_code(before: str) -> bool:
    """(blind audit 36 M4) Whether the text ``before`` a success phrase leaves it inside a quoted string that a code
    line opens (after a call's bracket, ``=``, ``,`` or a print command): the words a program prints, not said."""
    for q in "'\"`":
        i = before.rfind(q)
        if i >= 0 and before.count(q) % 2 == 1 and _CODE_QUOTE_BEFORE_RE.search(before[:i].rstrip()):
            return True
    return False


#: (round 28c) pip's own last lines after a build or install that worked ("Successfully built X Y", "Successfully
#: installed X-1.0 Y-2.0": pip's wheel and install commands), and the names of a build pip says failed ("Failed to
#: build X", "ERROR: Failed building wheel for X", "Building wheel for X (setup.py) ... error", "Running setup.py
#: install for X ... error")
_PIP_SUCCESS_RE = re.compile(r"^Successfully (built|installed) ((?:[A-Za-z0-9][\w.+-]*\s*){1,40})$")
_PIP_FAILED_RE = re.compile(r"(?im)^\s*(?:ERROR: )?(?:Failed to build|Failed building wheel for) ([A-Za-z0-9][\w.-]*(?:[ ,]+"
                            r"[A-Za-z0-9][\w.-]*)*)\s*$|^\s*(?:Building wheel|Running setup\.py install) for ([A-Za-z0-9]"
                            r"[\w.-]*)\b.*\berror\b")


def _norm_dist(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name.lower())


def _pip_rebuilt(text: str, ln: str) -> bool:
    """(round 28c) ``ln`` is pip's success line for the package whose build the text shows failing: every package pip
    said failed is among those it now built or installed; where the failure names none, one of them is a package the
    text named before (its pip command's argument). A success of another package is no rerun of the failed build."""
    m = _PIP_SUCCESS_RE.match(ln)
    if not m:
        return False
    done = {_norm_dist(re.sub(r"-\d[\w.+!]*$", "", n) if m.group(1) == "installed" else n) for n in m.group(2).split()}
    failed = {_norm_dist(n) for g in _PIP_FAILED_RE.findall(text) for x in g if x for n in re.split(r"[ ,]+", x) if n}
    if failed:
        return failed <= done
    before = _norm_dist(text[:text.rfind(ln)])
    return any(len(d) > 3 and d in before for d in done)


def _went_well(text: str) -> str:
    """The line among the last few of ``text`` that says the run went well, after which no line tells of a
    failure (``""`` when none): an error earlier in such a text happened before, and was got past."""
    tail = [ln.strip() for ln in text.rstrip().split("\n")[-_TAIL_LINES:] if ln.strip()]
    for i, ln in enumerate(tail):
        said = _WENT_WELL_RE.search(ln)
        if not said and _pip_rebuilt(text, ln):
            if not any(_FAILED_LINE_RE.search(x) for x in tail[i + 1:]):
                return ln
            continue
        if not (said or _PYTEST_PASSED_RE.match(ln)) or (said and not _says_it_went_well(ln, said)):
            continue
        rest = [ln[said.end():] if said else "", *tail[i + 1:]]
        if not any(_FAILED_LINE_RE.search(x) for x in rest) and not any(
                _TAKES_BACK_LINE_RE.search(x) for x in tail[i + 1:]) and not (
                said and not said.group(0).lower().endswith("fail") and _FAILED_LINE_RE.search(ln[:said.start()])):
            return ln
    return ""


def _weighed(text: str, found: list[Finding]) -> list[Finding]:
    """``found`` weighed by what the text says of its own outcome: where its last lines say the run went well, each
    cause becomes a note (an error of before, to act on should it come back); where TensorFlow's own line says its
    missing CUDA runtime matters only with a GPU and nothing else failed, an error becomes a warning with that hint."""
    if not found or not text:
        return found
    well = _went_well(text)
    if well:
        note = (f"the text's last lines say the run went well ('{well[:120]}'): this error is read as one of "
                "before, not a failure of this run; the fix is for when it comes back")
        return [replace(f, severity="info", title="before, not now: " + f.title, evidence=(note, *f.evidence))
                if f.severity in ("error", "warning") else f for f in found]
    low = text.lower()
    if _TF_IGNORE in low and "traceback" not in low and not re.search(r"^\w*(?:error|exception)\b", low, re.M):
        note = ("TensorFlow's own next line says to ignore this where no GPU is set up: harmless on a CPU-only "
                "machine; on a machine with a GPU it is why TensorFlow runs on the CPU")
        return [replace(f, severity="warning", evidence=(note, *f.evidence)) if f.severity == "error" else f
                for f in found]
    return found


#: (blind audit 36 M6) a line of a job or shell script: a comment (#SBATCH, a shebang), an assignment, a command
#: word a job script runs, a continued option, a brace or a continuation
_SCRIPT_LINE_RE = re.compile(r"^\s*(?:#.*|[A-Za-z_]\w*=\S*.*|(?:export|module|ml|source|\.|conda|mamba|micromamba|"
                             r"srun|sbatch|salloc|python[0-9.]*|torchrun|accelerate|deepspeed|cd|echo|printf|set|unset|"
                             r"nvidia-smi|nvcc|pip[0-9.]*|bash|sh|mkdir|cp|mv|rm|ln|if|then|else|elif|fi|for|do|done|"
                             r"while|wait|exit|date|hostname|which|ls|cat|spack|singularity|apptainer|docker|mpirun|"
                             r"mpiexec|time|ulimit|trap|\./\S+|\S+\.sh)(?:\s.*)?|-{1,2}\w.*|[{}()]|\\)$")
#: (blind audit 36 M6) a line of a conda environment file (environment.yml: "name: x", "channels:", "  - pytorch")
_ENV_FILE_LINE_RE = re.compile(r"^\s*(?:#.*|-\s+\S.*|[\w.-]+:(?:\s.*)?)$")
#: a CUDA pin of a conda environment file: pytorch-cuda's, cudatoolkit's (cuda-toolkit, cuda-version)
_CONDA_CUDA_PIN_RE = re.compile(r"(?m)^\s*-\s+((?:pytorch-cuda|cudatoolkit|cuda-toolkit|cuda-version)\s*=?=\s*"
                                r"([0-9]{1,2}\.[0-9]{1,2}))")


#: the longest text read as a pasted job script or environment file (:func:`_a_file_not_a_run`)
_FILE_MAX_CHARS = 200_000


def _a_file_not_a_run(text: str) -> str:
    """(blind audit 36 M6) ``"script"`` or ``"environment"`` where the whole text is a job or shell script (a shebang or
    #SBATCH first, every line a script's) or a conda environment file (dependencies:, every line YAML) that shows no
    failure and says of no problem; ``""`` otherwise. Such a file is no run: what it sets is not what happened."""
    from smrnb.doctor import _similar

    head = text.lstrip()[:8]
    if len(text) > _FILE_MAX_CHARS or not (head.startswith(("#!", "#SBATCH")) or "dependencies:" in text):
        return ""  # (the cheap tests first: a 10 MB log is no pasted file, and is not scanned again here)
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    if not lines or any(r.search(text) for r in (_similar._EXCEPTION, _PROBLEM_SAID_RE, _similar._FAILURE)):
        return ""
    if lines[0].lstrip().startswith(("#!", "#SBATCH")) and all(_SCRIPT_LINE_RE.match(ln) for ln in lines):
        return "script"
    if re.search(r"(?m)^dependencies:\s*$", text) and all(_ENV_FILE_LINE_RE.match(ln) for ln in lines):
        return "environment"
    return ""


def _file_notes(text: str) -> list[Finding]:
    """(blind audit 36 M6) What a conda environment file itself holds that conflicts: two CUDA pins of different
    versions (pytorch-cuda=12.1 beside cudatoolkit=11.8), as a note (the file shows no failure)."""
    pins = {m.group(1).replace(" ", ""): m.group(2) for m in _CONDA_CUDA_PIN_RE.finditer(text)}
    if len(set(pins.values())) < 2:
        return []
    torch_pin = next((p for p in pins if p.startswith("pytorch-cuda")), "")
    others = [p for p in pins if p != torch_pin]
    keep = (f"keep {torch_pin} (the CUDA of the torch build) and drop {', '.join(others)}" if torch_pin
            else "keep the one of the torch build and drop the others")
    return [Finding("multiple_cuda_toolkits", "toolkit", "info",
                    "a file, not a failure: it pins two CUDA versions (" + ", ".join(pins) + ")",
                    ("the text is a conda environment file that shows no failure; the pins it holds conflict: "
                     + ", ".join(pins),),
                    Fix(f"One environment gets one CUDA: {keep}, then create or update the environment from the file."))]


def _only_notes_of_a_failure(text: str, found: list[Finding]) -> bool:
    """Whether the rules' findings are notes only (no error, no warning, none that says the error is not the
    environment's or one of before) while the text reads as a failure: such a text is *not recognised*, never an
    all-clear (a failed wheel build answered with "Build kaolin with --no-build-isolation" as a note)."""
    if not found or any(f.severity in ("error", "warning") or  # a note that is an answer of its own: the user's code
                        f.title.startswith(("Not your environment", "before, not now")) for f in found):
        return False
    return bool(_FAILED_LINE_RE.search(text)) and not _went_well(text)


def _decided_by(f: Finding) -> tuple[str, ...]:
    return tuple(e for e in f.evidence if e.startswith("decided by: "))


def _text_first(found: list[Finding], alone: Mapping[str, tuple[str, ...]], events: set[str]) -> list[Finding]:
    """``found`` (of the text merged with this machine's facts) with a finding that rests on no event of the text
    and that the text alone does not give (a fact of the text joined to this machine's) after every other: it never
    ranks above one the text's own error line shows; and on those the text alone gives, no line of this machine's
    facts (they did not decide it). A note of this machine's facts alone (round 33: "Build kaolin with
    --no-build-isolation" under a failed build of another extension on the lent H100, shown as "or:" the build's
    failure) is the live report's, not a reading of the text: left out. ``alone``: the codes the text alone gives,
    each with its "decided by" lines there; (blind audit 37, F13) a finding whose decision this machine's facts
    changed keeps its lines of them (the text output says which facts came from the machine)."""
    out = [replace(f, evidence=tuple(e for e in f.evidence if not e.startswith("from this machine: ")))
           if f.code in alone and _decided_by(f) == alone[f.code] else f for f in found]
    return [f for f in out if f.code in alone or f.code in events] + \
        [f for f in out if f.code not in alone and f.code not in events and f.severity != "info"]


def explain_result(text: str | bytes, facts: Mapping[str, Any] | None = None, similar: Any = True,
                   same_machine: bool = False) -> Explained:
    """Everything explain makes of ``text`` (with this machine's ``facts`` from ``collect`` when given);
    never raises. ``similar``: add readings of the nearest known reports where the rules give fewer than two
    (True: the shipped index; an :class:`smrnb.doctor._similar.Index`: that one; False: none). ``same_machine``
    (with ``facts``): first decide whether the text comes from this machine (:func:`machine_contradictions`); where
    a fact it shows contradicts this machine's, the text is read alone and :attr:`Explained.read_alone` says why."""
    alone_line = ""
    try:
        prepared = _prepared(text)  # once: the readers and the similar reports read the same text
        text_facts = read_text(prepared) if prepared else {}
        if facts and same_machine and text_facts:
            differ = machine_contradictions(text_facts, facts)
            if differ:
                alone_line, facts = read_alone_line(differ), None
        merged = merge(text_facts, facts)
        if text_facts:  # where the text's extension is rebuilt: the rules decide it (rules._rebuild) from these facts
            from smrnb.doctor._printed import rebuild_source
            from smrnb.doctor.rules._rebuild import SOURCE_KEY

            merged[SOURCE_KEY] = rebuild_source(prepared)
        if not text_facts:
            found = []
        elif facts:
            alone = {f.code: _decided_by(f) for f in decide_facts(merge(text_facts, None))}
            events: set[str] = set()
            found = _text_first(decide_facts(merged, alone, events), alone, events)
        else:
            found = decide_facts(merged)
        found = _weighed(prepared, found)
        if _a_file_not_a_run(prepared):  # (blind audit 36 M6) a script or an environment file: no finding of its text
            text_codes = alone if facts and text_facts else {f.code for f in found}
            found = [f for f in found if f.code not in text_codes] + _file_notes(prepared)
    except Exception as exc:  # never raises: the failure is a finding of its own, the text not recognised
        return Explained([Finding("rule_failed", "loader", "info", "explain failed", (f"{type(exc).__name__}: {exc}",))],
                         False)
    recognised = any(is_cause(f.code) for f in found)
    notes_only = recognised and _only_notes_of_a_failure(prepared, found)
    if notes_only:
        recognised = False
    if similar is not False:
        try:
            have = {f.code for f in found}
            found = found + [g for g in _similar_findings(prepared, [] if notes_only else found,
                                                          None if similar is True else similar, bool(facts), merged)
                             if g.code not in have]
        except Exception:  # a broken index never costs the rules' findings
            pass
    try:
        from smrnb.doctor._printed import true_to_text

        found = true_to_text(found, prepared, merged)
    except Exception:  # the commands as the rules wrote them
        pass
    return Explained(found, recognised, merged, summary(text_facts), alone_line)


def explain_text(text: str | bytes, facts: Mapping[str, Any] | None = None, max_findings: int = 20,
                 similar: Any = True) -> list[Finding]:
    """Findings for the causes the facts in ``text`` point at, best first; never raises.

    Parameters
    ----------
    text : str or bytes
        A pasted error: one line, a traceback or a build log (bytes: by their byte-order mark, else UTF-8, else
        UTF-16 or Windows-1252; :func:`smrnb.doctor._paste.decode`).
    facts : dict, optional
        ``{layer: facts}`` of the machine (from ``collect``): they fill what the text does not say.
    similar : bool or Index
        Add readings of the nearest known reports where the rules give fewer than two (a guess each, ranked
        last; :func:`explain_result`).

    Returns
    -------
    list of Finding
        One per cause, ranked; empty when nothing is recognised.
    """
    return explain_result(text, facts, similar).findings[:max_findings]
