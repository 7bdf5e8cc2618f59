# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A pasted error read as a machine: the facts a text shows, in the shape the live probes produce.

:func:`read_text` turns a pasted error (one line, a traceback, a build log) into ``{layer: facts}``:
the same keys the probes of FACTS.md fill (``torch.version``/``cuda``, ``toolkit.nvccs`` and
``build_nvcc_version``, ``driver.driver_version``/``cuda_driver_version``/``gpus``, ``toolkit.cuda_home_env``,
``context.container``, ...), only those the text shows, plus ``events``: what happened (a library that
failed to load, an undefined symbol, a CUDA/NVML/NVRTC error by number, name or message, a row of one of the
message tables: an nvcc fatal error, a cpp_extension check, an extension's setup check, a container, Slurm
or Jupyter sign). Every fact carries where it was read (``read_from``: key -> the line) and every event its
line, ``from: "text"`` and a ``weight`` (how specific the wording is: a table row's exact message is more
decisive than a loose phrase). Nothing here decides a cause: the rules of each layer do, on these facts as on
the probed ones (:mod:`smrnb.doctor.rules`).

The text is expected capped (:func:`smrnb.doctor._evidence.cap_text`) and normalised
(:func:`smrnb.doctor._paste.normalise`). Every pass is linear: line extractors are gated by literal
substrings and use bounded quantifiers; a message-table row's expression runs only around the places where
its required literal occurs (:func:`required_literals`); a time budget stops reading further lines.
"""

from __future__ import annotations

import functools
import re
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any

from smrnb.doctor._evidence import cuda_home_problem, lib_family, symbol_owner
from smrnb.doctor._model import LAYERS
from smrnb.doctor._redact import quote
from smrnb.doctor._redact import window as quote_window

try:  # the expression parser: one module name since 3.11, another before
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: CPU seconds (this thread's) the line scan may take before it stops reading further lines: a safety net. The
#: capped text holds at most 6,000 lines (``_evidence.HEAD_LINES`` / ``TAIL_LINES`` / ``MIDDLE_LINES``), which the
#: per-line readers take 0.2-0.32 s for on realistic 10 MB logs here (pip, traceback and nvcc lines, idle), so what is
#: read does not depend on the machine's load (round 29: with 0.5 s of wall-clock time, a busy machine stopped early
#: on a 10 MB text and its findings differed from an idle one's); lines dense with signs (every reader firing on
#: every line) still stop here
TIME_BUDGET_S = 0.75
#: events kept per text (a log that repeats one failure a million times gives it once)
MAX_EVENTS = 400

#: the layer whose rules read a message table's rows
TABLE_LAYER: dict[str, str] = {
    "loader_errors": "loader", "nvcc_errors": "toolkit", "cpp_extension_checks": "toolkit",
    "extension_checks": "toolkit", "nvidia_smi_messages": "driver", "container_messages": "context",
    "slurm_gpu": "context", "jupyter_kernel": "jupyter", "torch_messages": "torch", "library_messages": "torch",
}

#: how decisive each kind of reading is (lower: more); a rule adds its own offset
WEIGHT = {"row": 10, "enum_name": 10, "enum_message": 11, "enum_number": 16, "library": 14, "symbol": 12,
          "symbol_version": 12, "header": 16, "link": 16, "module": 24, "sign": 20, "weak_sign": 34, "state": 22}


# ------------------------------------------------------------------ table gates
def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Literal strings one of which every match of ``pattern`` contains (lower-cased), or None when the
    expression has no such literal of 3+ characters: ``"undefined symbol: (?P<sym>\\S+)"`` ->
    ``("undefined symbol: ",)``; ``"a(?:bcd|efg)"`` -> ``("bcd", "efg")`` when no longer run exists."""
    try:
        parsed = _sre_parse.parse(pattern)
    except Exception:  # an expression the parser of this Python cannot read: no gate
        return None
    best = _best(_options(list(parsed)))
    return tuple(s.lower() for s in best) if best else None


def _options(seq: list[Any]) -> list[tuple[str, ...]]:
    """Every any-of set of literals that a match of the parsed sequence ``seq`` must contain."""
    lit, sub, rep, branch = _sre_parse.LITERAL, _sre_parse.SUBPATTERN, _sre_parse.MAX_REPEAT, _sre_parse.BRANCH
    options: list[tuple[str, ...]] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 3:
            options.append(("".join(run),))
        run.clear()

    for op, av in seq:
        if op is lit:
            run.append(chr(av))
            continue
        if op is sub and all(o is lit for o, _ in av[-1]):
            run.extend(chr(a) for _, a in av[-1])
            continue
        flush()
        if op is sub:
            options += _options(list(av[-1]))
        elif op in (rep, _sre_parse.MIN_REPEAT) and av[0] >= 1:
            options += _options(list(av[2]))
        elif op is branch:
            alts = [_best(_options(list(b))) for b in av[1]]
            if alts and all(alts):
                options.append(tuple(x for a in alts for x in a))
    flush()
    return options


def _best(options: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    return max(options, key=lambda o: min(len(x) for x in o)) if options else None


@functools.cache
def _table_rows() -> tuple[tuple[str, Any, tuple[str, ...] | None], ...]:
    """(table, row, gate) of every message-table row with an expression."""
    from smrnb.doctor import tables

    out = []
    for table in tables.MESSAGE_TABLES:
        for row in tables.message_rows(table):
            if row.pattern is not None and (row.codes != ("none",) or table in ("torch_messages", "library_messages")):
                out.append((table, row, required_literals(row.pattern.pattern)))
    return tuple(out)


# ------------------------------------------------------------------ the reader
class _Reader:
    """Accumulates facts and events; the first value of a fact wins, each event is kept once."""

    def __init__(self) -> None:
        self.facts: dict[str, dict[str, Any]] = {ly: {} for ly in LAYERS}
        self.events: dict[str, list[dict[str, Any]]] = {ly: [] for ly in LAYERS}
        self._seen: set[tuple[Any, ...]] = set()
        self.n_events = 0
        self.frame = ""  # the file of the last traceback frame read (the calling code of an error read next)
        self.call_line = ""  # the source line Python printed under that frame (the call that failed)
        self.prev_frame = ""  # (round 35b) the frame before it, and its source line (a wrapper's caller)
        self.prev_call = ""
        self.frame_pending = False
        self.asked_torch_cuda = False  # the line before asked an interactive Python for torch.version.cuda
        #: the last "from m import a, b" line read: (m, its names, whether the names go on past the line)
        self.from_import: tuple[str, list[str], bool] | None = None
        #: a bare "cannot import name 'x'" read before any from-import line (a title over the traceback, the
        #: traceback's last line cut off): (name, line), named by the first from-import line that imports it
        self.bare_import: tuple[str, str] | None = None
        #: TorchScript's "Tried to access nonexistent attribute or method 'x' of type 'T'" read, its frame (printed
        #: after the message) not yet: (line, type)
        self.script_attr: tuple[str, str] | None = None
        #: a notebook cell's frame read (IPython's "<ipython-input-N-...>" / "Cell In[N]"): the calling code's own
        self.cell_frame = False
        #: (round 28a) the traceback's innermost frame read so far: "own" (a file of the person's: outside site-/
        #: dist-packages and the Python installation; a notebook's cell; typed code), "stdlib" (Python's own library)
        #: or an installed package's top-level name; the last own frame's file and the source line under it
        self.inner_kind = ""
        self.own_frame = ""
        self.own_call = ""
        self.ipy_frame = ""  # (round 34a) IPython's frame of an installed file, until its "---->" line
        #: (round 32b) the whole text the lines are read from (a command continued on the lines after one)
        self.text = ""
        #: (round 35d) a release row read pickle's "Can't get attribute" line (_removed_unpickled)
        self.unpickled_by_row = False

    def fact(self, layer: str, key: str, value: Any, line: str, *, replace: bool = False) -> None:
        d = self.facts[layer]
        if value is None or (key in d and not replace):
            return
        d[key] = value
        d.setdefault("read_from", {})[key] = quote(line.strip(), 240)

    def event(self, layer: str, kind: str, line: str, weight: int, **fields: Any) -> None:
        key = (layer, kind, *sorted((k, str(v)) for k, v in fields.items() if k not in ("groups", "phrase", "meaning")))
        if key in self._seen or self.n_events >= MAX_EVENTS:
            return
        self._seen.add(key)
        self.n_events += 1
        self.events[layer].append({"kind": kind, "from": "text", "weight": weight, "line": quote(line.strip(), 300),
                                   **fields})

    def result(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for ly in LAYERS:
            d = dict(self.facts[ly])
            if self.events[ly]:
                d["events"] = self.events[ly]
            if d:
                d["status"] = d.get("status", "ok")
                d["source"] = d.get("source", "the error text")
                out[ly] = d
        return out


# ------------------------------------------------------------------ line expressions (bounded)
_LIB_RE = re.compile(r"(lib[A-Za-z0-9_+\-]{1,60}(?:\.[0-9][0-9A-Za-z_]{0,8}){0,3}\.so(?:\.[0-9]{1,6}){0,3})")
#: what continues a file name past a library's name ('data/libcudart.so.12_notes.txt'): the name is part of another
#: file's, not a library the loader looked for
_INSIDE_NAME_RE = re.compile(r"[A-Za-z0-9_+\-]|\.[A-Za-z0-9]")
_DLL_RE = re.compile(r"([A-Za-z][A-Za-z0-9_\-]{1,60}\.dll)(?![A-Za-z0-9_])", re.IGNORECASE)  # not \\b: a DLL name runs on into Chinese text
_MISSING_WORDS = ("cannot open shared object", "could not load", "couldn't open", "could not open", "not found",
                  "no such file", "failed to load", "unable to load", "could not find module", "cannot load library",
                  "error loading", "dlopen", "not finding", "can't find", "cannot find", "unable to find",
                  "failed to open", "could not be found", "could not locate", "or one of its dependencies",
                  # a user's own finding, in words ("turns out I lacked libX.so", "libX.so was missing")
                  " lacked ", " lacking ", " was missing", " is missing", " were missing", " are missing",
                  # cuDNN's own loader ("Please make sure libcudnn_cnn_infer.so.8 is in your library path!")
                  "is in your library path",
                  # in Chinese: "cannot be recognised/found", "not included", "missing"
                  "识别不到", "找不到", "未包含", "没有包含", "缺少", "缺失")
#: what a library's own initialisation failing reads like, and what a file that is not there reads like
_INIT_FAILED_WORDS = ("init failure", "init failed", "initialization failed", "initialization error",
                      "failed to initialize", "error initializing", "initialisation failed")
#: Windows' ERROR_DLL_INIT_FAILED (1114): the DLL was found and loaded, and its own initialisation routine failed
_DLL_INIT_FAILED_WORDS = ("winerror 1114", "initialization routine failed", "初始化例程失败", "初始化常式失敗",
                          # ERROR_COMMITMENT_LIMIT (1455): the DLL is there; committing its memory failed (paging file)
                          "winerror 1455", "paging file is too small")
_NOT_THERE_WORDS = ("cannot open shared object", "no such file", "not found", "could not be found")
#: a driver release as its libraries' file names and nvidia-smi print it (``575.57.08``, ``470.141.03``)
_DRIVER_VER_RE = re.compile(r"[0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?")
_UNDEF_RE = re.compile(r"undefined symbol ?:? ?[\"'`]?([A-Za-z_][A-Za-z0-9_@.$]{0,600})")
#: a traceback's frame line: File "PATH", line N
_TB_FILE_RE = re.compile(r'File "([^"\n]{1,400})", line \d'
                         # (round 25a) IPython 8's frame header: "File /path/pkg/core.py:233, in Job.__init__(...)"
                         r'|File ((?:[A-Za-z]:)?[/\\~][^\s"\n]{0,400}\.py):\d{1,6}, in ')
#: a mangled C++ name whose underscores a Markdown renderer turned into emphasis marks (``*ZN3c10...``, ``\\*ZN...``)
_MD_SYMBOL_RE = re.compile(r"undefined symbol: \\?\*(Z[A-Za-z0-9_*\\]{2,600})", re.IGNORECASE)
#: a mangled name after "undefined symbol: " once Markdown's escaped underscores are put back
_MD_ESCAPED_SYMBOL_RE = re.compile(r"(?<=undefined symbol: )_Z[A-Za-z0-9_*\\]{2,600}")
#: dyld's undefined symbol (Mach-O names carry a leading underscore: "_GOMP_parallel" is C's GOMP_parallel, "__ZN3c10..."
#: C++'s _ZN3c10...)
_DYLD_SYMBOL_RE = re.compile(r"Symbol not found: _([A-Za-z_][A-Za-z0-9_]{0,600})")
_UNDEF_REF_RE = re.compile(r"undefined reference to [`'‘\"]?([A-Za-z_][A-Za-z0-9_]{2,200})")
#: GNU ld's undefined reference to a C++ standard library symbol that is not a string of the cxx11 ABI
#: ("undefined reference to `std::runtime_error::runtime_error(char const*)'")
_UNDEF_STD_REF_RE = re.compile(r"undefined reference to [`'‘](std::(?!__cxx11::)[^'’`\n]{1,300})['’]")
#: GNU ld's demangled name of an undefined torch symbol at link time ("undefined reference to
#: `c10::Error::Error(std::__cxx11::basic_string<...> const&, ...)'"): an application linked against libtorch
_UNDEF_TORCH_REF_RE = re.compile(r"undefined reference to [`'‘]((?:c10|at|torch|caffe2)::[^'’`\n]{1,600})['’]")
#: a CUDA math/communication library's API function as its headers name it (cusparseSpMM, cublasLtMatmul, ncclCommInitRank)
_CUDA_API_RE = re.compile(r"\b((?:cusparse|cublasLt|cublas|cufft|curand|cusolver[A-Z]{0,2}|cudnn|nccl|nvjpeg|npp)"
                          r"[A-Z][A-Za-z0-9_]{2,80})")
_CUDA_LIB_OWNERS = frozenset({"cusparse", "cublas", "cufft", "curand", "cusolver", "cudnn", "nccl", "nvjitlink"})
_SYM_NOT_DEFINED_RE = re.compile(r"symbol ([A-Za-z_][A-Za-z0-9_]{0,300}),? version (lib[A-Za-z0-9_+.]{1,60}) not defined")
_VERLIB_RE = re.compile(r"version (lib[A-Za-z0-9_]{1,40}\.so(?:\.[0-9]{1,4}){0,2})")
#: (an opening bracket or backtick quoting the path is not part of it: "(/lib/x.so: undefined symbol ...)")
_NEEDED_BY_RE = re.compile(r"([^\s:'\"(`‘][^\s:'\"]{0,299}\.so[^\s:'\"]{0,40}) ?: ?undefined symbol")
_SYMVER_RE = re.compile(r"(?:(\S{1,300}): )?version [`'‘]?((?:GLIBCXX|CXXABI|GLIBC|CUDA|libcublas|[A-Za-z]{2,12})_[0-9.A-Za-z_]{1,40})['’]? "
                        r"(?:not found(?: \(required by ([^)\s]{1,300})\))?|\(required by ([^)\s]{1,300})\))")
_SM_RE = re.compile(r"\b(?:sm|compute)_([0-9]{2,3}[a-z]?)\b")
#: glibc's dl-lookup.c when the file found defines the symbol under no version the binary was linked against: "symbol
#: %s version %s not defined in file %s with link time reference" (older releases "symbol %s, version %s ..."); a
#: GLIBC_/GLIBCXX_/CXXABI_ version there is the C or C++ runtime's own, older than the binary's build
_SYM_TAG_NOT_DEFINED_RE = re.compile(r"symbol [A-Za-z_][A-Za-z0-9_]{0,300},? version ((?:GLIBCXX|CXXABI|GLIBC)_[0-9.]{1,20}) "
                                     r"not defined in file ([^\s,]{1,300})")
#: a C or C++ runtime's version tag said missing in words rather than in the loader's form (a title, a build tool):
#: "CXXABI 1.3.8 not found", "Glibc version 2.28 not found", "CXXABI_1.3.8 cannot be resolved"
_TAG_SAID_MISSING_RE = re.compile(r"\b(GLIBCXX|CXXABI|(?i:glibc))[ _](?:version )?([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)\b"
                                  r"[ '`\u2019]{0,3}(?:is )?(?:not found|cannot be resolved|could not be resolved|not defined)")
_CAP_RE = re.compile(r"capability (?:\(CC\) )?(?:sm_)?([0-9]{1,2})\.?([0-9])\b")
_SM_CAP_RE = re.compile(r"(?:CUDA|cuda) capability sm_([0-9]{2,3})")
_GCC_MAX_RE = re.compile(r"gcc versions? later than ([0-9]{1,2})")
#: (torch's collect_env prints "GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0"; an environment list "gcc: 9.4.0")
_GCC_VER_RE = re.compile(r"(?:\bgcc(?: \([^)\n]{1,60}\))? |\bgcc version |\bgcc:\s{1,4}|\bGCC version: (?:\([^)\n]{1,60}\) )?|installed version of [gc]\+{0,2}\w{0,3} \()([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,2})?)")
_NVCC_REL_RE = re.compile(r"release ([0-9]{1,2}\.[0-9]{1,2}), V([0-9.]{3,12})")
_TORCH_VER_RE = re.compile(r"\b(?:py)?torch(?:\.__version__|[ _]version|-version)?\s{0,3}(?:==?|:|-|\s)\s{0,3}['\"]?v?"
                           r"([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?(?:\.?(?:dev|post|a|b|rc)[0-9]{0,10})?)"
                           r"(?:\+(cpu|cu[0-9]{2,3}|rocm[0-9.]{1,8}))?", re.IGNORECASE)
_TORCH_SATISFIED_RE = re.compile(r"Requirement already satisfied: torch\b[^\n(]{0,200}\(([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)"
                                 r"(?:\+(cpu|cu[0-9]{2,3}))?\)")
_TORCH_CUDA_RES = (re.compile(r"CUDA used to build PyTorch: ?([0-9]{1,2}\.[0-9]{1,2})"),
                   re.compile(r"[Pp]ytorch binaries were compiled with [Cc]uda ([0-9]{1,2}\.[0-9]{1,2})"),
                   re.compile(r"PyTorch \(([0-9]{1,2}\.[0-9]{1,2})\)"),
                   re.compile(r"torch\.version\.cuda\W{1,6}([0-9]{1,2}\.[0-9]{1,2})"))
_DETECTED_CUDA_RE = re.compile(r"detected CUDA version \(([0-9]{1,2}\.[0-9]{1,2})")
_CUDA_WANTED_RE = re.compile(r"(?:cudatoolkit|pytorch-cuda|cuda-toolkit|cuda-runtime)[= ]{1,2}([0-9]{1,2}\.[0-9]{1,2})")
#: (round 32b) the NCCL release a log names: NCCL's own banner ("NCCL INFO NCCL version 2.18.5+cuda12.2", init.cc
#: showVersion) and torch's c10d error suffix (", NCCL version 2.18.1", ProcessGroupNCCL's getNcclVersion())
_NCCL_VER_RE = re.compile(r"\bNCCL version:?\s{0,3}v?(\d+\.\d+\.\d+)")
_DRIVER_HDR_RE = re.compile(r"Driver Version: ?([0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)")
_SMI_HDR_RE = re.compile(r"NVIDIA-SMI ([0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)")
_CUDA_VER_RE = re.compile(r"CUDA (?:Version|version)[ :=]{0,3}([0-9]{1,2}\.[0-9]{1,2})")
_DRIVER_FOUND_RE = re.compile(r"found version ([0-9]{4,6})\)")
#: a driver release named in prose ("my driver version is 470.141.03", "NVIDIA driver 535.104.05")
#: (round 32h) or an issue template's markdown value ("* Driver: `367.48`", NVIDIA/nvidia-docker's template)
_PROSE_DRIVER_RE = re.compile(r"\bdriver(?: version)?(?: is| =| of|:)? ?`?v?([0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)\b",
                              re.IGNORECASE)
#: a CUDA version named in prose or a path ("CUDA 11.7", "cuda11.4", "CUDA Toolkit 12.1", "cuda-11.8"); not
#: torch's ("torch.version.cuda", "pytorch-cuda=") and not a CUDA error number
_CUDA_NAMED_RE = re.compile(r"(?<![\w.-])cuda(?:[ _-]?toolkit)?(?: version(?: is)?)?[ _:=v-]{0,3}([0-9]{1,2}\.[0-9])(?![0-9])",
                            re.IGNORECASE)
#: a package pip builds, by its build lines
_BUILT_RE = re.compile(r"(?:[Ff]ailed building wheel for|[Bb]uilding wheel for|[Rr]unning setup\.py (?:install|develop) for|"
                       r"[Cc]ould not build wheels for|[Ff]ailed to build|[Bb]uilding editable for) ([A-Za-z0-9][A-Za-z0-9_.\-]{0,60})")
#: pip's own words for a package whose build failed
_FAILED_BUILD_RE = re.compile(r"(?:[Ff]ailed building wheel for|[Cc]ould not build wheels for|[Ff]ailed to build|"
                              r"[Ff]ailed building editable for) ([A-Za-z0-9][A-Za-z0-9_.\-]{0,60})")
#: pip's legacy install (setup.py install, no wheel built) of a package, its spinner ending in 'error' (pip 21-22:
#: src/pip/_internal/operations/install/legacy.py, "Running setup.py install for %s", then 'error: legacy-install-failure')
_LEGACY_INSTALL_FAILED_RE = re.compile(r"[Rr]unning setup\.py (?:install|develop) for ([A-Za-z0-9][A-Za-z0-9_.\-]{0,60}) "
                                       r"\.\.\. error")
_PIP_INSTALL_RE = re.compile(r"\bpip3? install ([^\n#]{1,400})")
#: pip install options that take a value (the value is not a package)
_PIP_VALUE_OPTIONS = frozenset({"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
                                "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix", "--root",
                                "--config-settings", "-C", "--global-option", "--install-option", "--platform",
                                "--python-version", "--implementation", "--abi", "--cache-dir", "--src", "--log",
                                "--trusted-host", "--progress-bar", "--upgrade-strategy"})
_PKG_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,60}")
#: (round 31a, issue 25) a name pip reads as a requirement (PEP 508: a letter or digit at each end; extras, a version)
PIP_TARGET_RE = re.compile(r"[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?(?:\[[\w,.-]+\])?(?:[=<>!~]=?[\w.*+!-]+(?:,[=<>!~]=?[\w.*+!-]+)*)?|"
                            r"\.{1,2}")
#: words that follow "pip install" in a sentence, not in a command ("I did pip install from PyPI", "pip install
#: successfully", "pip install it again")
PROSE_AFTER_PIP = {"from", "the", "it", "this", "that", "them", "with", "successfully", "succeeded", "failed", "fails",
                   "works", "worked", "via", "using", "and", "or", "of", "in", "on", "to", "a", "an", "is", "was",
                   "but", "command", "again", "all", "everything", "manually", "first", "now", "then", "still", "also",
                   "didn't", "does", "did", "doesn't", "will", "would", "should", "can", "could", "as", "for",
                   # (round 32f) "pip install fails with the following error"
                   "following", "without", "into", "my", "your", "some", "not", "error", "errors", "gives", "throws",
                   "returns", "says"}
#: an import statement of Python code (a script, a REPL's ``>>>``, an IPython ``In [1]:``; round 32b: a prompt may
#: open a Markdown code span, "`>>> import chamfer`")
_IMPORT_RE = re.compile(r"\s{0,12}(?:`?>>> ?|In \[[0-9]{1,5}\]: ?)?(?:import ([A-Za-z_][\w.]{0,80})|from ([A-Za-z_][\w.]{0,80}) "
                        r"import )")
_STATEMENT_SPLIT_RE = re.compile(r";|-c [\"']")
#: CPython's TypeError of a call that does not fit the callee's signature (Python/ceval.c and Objects/call.c:
#: "got an unexpected keyword argument", "missing N required positional argument(s)", "takes N positional arguments
#: but M were given", "got multiple values for argument"); Python 3.10+ prints the callee's qualified name
#: (``LoraConfig.__init__``), earlier releases its bare name. Groups: the callee, how the call did not fit
_SIGNATURE_RE = re.compile(r"TypeError: ([A-Za-z_][\w]{0,80}(?:\.[A-Za-z_][\w]{0,80}){0,4})\(\) (got an unexpected keyword "
                           r"argument|missing [0-9]{1,2} required (?:positional|keyword-only) arguments?|takes (?:from "
                           r"[0-9]{1,2} to )?[0-9]{1,2} positional arguments? but [0-9]{1,2} (?:positional arguments? \(and [0-9]{1,2} keyword-only "
                           r"arguments?\) )?(?:were|was) given|got "
                           r"multiple values for (?:keyword )?argument)")
#: a name the text shows as an attribute of a package it calls (``torchmetrics.functional.accuracy(``,
#: ``face_alignment.FaceAlignment(``): groups the first name, the called name
_QUALIFIED_CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w{0,40})(?:\.[A-Za-z_]\w{0,60}){0,4}\.([A-Za-z_]\w{0,80})\(")
#: (round 28p) the end every match of _QUALIFIED_CALL_RE has (``.name(``): one search for a literal first, the
#: expression only on a line that holds it
_CALL_TAIL_RE = re.compile(r"\.[A-Za-z_]\w{0,80}\(")
#: the first call of a traceback's source line (``settings = GaussianRasterizationSettings(``)
_FIRST_CALL_RE = re.compile(r"([A-Za-z_]\w{0,80}(?:\.[A-Za-z_]\w{0,80}){0,5})\(")
#: the names of a ``from package import a, b as c`` statement
_FROM_IMPORT_RE = re.compile(r"(?:^|[\s;>:])from ([A-Za-z_][\w.]{0,80}) import \(?([\w ,]{1,400})")
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
#: how a crash of the process reads (shell, IDE, faulthandler)
#: (round 31c) and glibc's heap checks aborting the process (malloc/malloc.c malloc_printerr: "free(): invalid pointer",
#: "double free or corruption (out)", "munmap_chunk(): invalid pointer", "corrupted size vs. prev_size")
_CRASH_WORDS = ("segmentation fault", "sigsegv", "sigabrt", "aborted (core dumped)", "fatal python error",
                "free(): invalid pointer", "double free or corruption", "munmap_chunk(): invalid pointer",
                "corrupted size vs. prev_size")
#: a notebook's cell as users name it ("run cell 1", "in the first cell", "cell [3]", "the cell output")
_CELL_RE = re.compile(r"\b(?:(?:run|running|ran|execute|executing|executed|the|this|that|first|next|same|second|"
                      r"last|a|in|my|each|every) (?:code )?cells?|cells? ?\[?[0-9]{1,3}\]?|cell outputs?)\b")
#: (round 32f) a notebook the person runs, named ("when I start the notebook", "in a fresh jupyter notebook", "open a
#: notebook", "my notebook's kernel"); not the Jupyter Notebook package ("No module named notebook", "pip install
#: notebook", "the notebook package")
_NOTEBOOK_SAID_RE = re.compile(r"\b(?:in|from|inside|the|a|my|this|that|our|fresh|new|same|ipython|juptyer|jupyter) notebooks?\b"
                               r"(?!(?:'s)? (?:package|module|server extension|version|release)s?\b)")
#: torch said to be installed ("I installed torch already", "torch is already installed", "have pytorch installed")
_TORCH_SAID_INSTALLED_RE = re.compile(
    r"\b(?:installed|have|has|had) (?:the |a )?(?:py)?torch\b(?! ?(?:==|>|<|version))|"
    r"\b(?:py)?torch (?:is |was |has been |are |were )?(?:already |definitely |properly |correctly |successfully )?"
    r"installed\b")
#: the C library's version as ldd, torch's collect_env and platform strings print it ("ldd (GNU libc) 2.17",
#: "Libc version: glibc-2.35", "...-x86_64-with-glibc2.31", "glibc 2.28")
_GLIBC_VER_RE = re.compile(r"(?:\(gnu libc\)|\bglibc[- ]?(?:version)?:? ?|\blibc version: glibc-|"
                           r"\(ubuntu glibc [0-9.\-a-z]{1,30}\)|\(debian glibc [0-9.\-a-z+]{1,30}\)) ?([0-9]\.[0-9]{1,2})\b")
#: the CPU architecture a text names ("x86_64", "aarch64", "arm64", "amd64")
_MACHINE_RE = re.compile(r"(?<![a-z0-9])(x86_64|amd64|aarch64|arm64|armv7l|ppc64le|i686)(?![a-z0-9])")
#: a 32-bit Python (Windows' default install folder "Python37-32", sys.version's "[MSC v.1916 32 bit (Intel)]", the
#: installer's "Python 3.8 (32-bit)", words): no GPU framework publishes wheels for it
_PY32_RE = re.compile(r"\bpython3[0-9]{0,2}-32\b|\bmsc v\.[0-9]{4} 32 bit\b|\bpython[ 0-9.]{0,8}\(32-bit\)|"
                      r"\b32[- ]bit (?:version of )?python\b|\bpython[ 0-9.]{0,8} (?:is )?32[- ]bit\b")
#: a triton release named ("triton==3.5.0", "Triton 3.5.0.post21", "triton-3.4.0")
_TRITON_VER_RE = re.compile(r"\btriton\b(?![._/])[^0-9\n'\"]{0,24}?v?([0-9]\.[0-9]{1,2}(?:\.[0-9]{1,3})?)")
#: torch's collect_env lines that say what this torch is ("CUDA used to build PyTorch: None", "Is CUDA available: No",
#: "CUDA runtime version: 12.1.105": the toolkit's nvcc that collect_env ran)
_COLLECT_ENV_RE = re.compile(r"^\s{0,4}(CUDA used to build PyTorch|Is CUDA available|CUDA runtime version): ?(.{0,40})$")
#: the MPS (Apple GPU) backend named as a word ("device='mps'", "when using mps", "MPS backend")
_MPS_RE = re.compile(r"(?<![a-z0-9_])mps(?![a-z0-9_])")
#: a project's files told missing from its repository or release (what a reader checks after "No module named"):
#: "there is no `data` folder", "I can't find the centerpoint_fusion.py", "some files ... are missing", "you didn't
#: upload your data folder", "not included in the repo"
_FILES_MISSING_RE = re.compile(
    r"\bthere (?:is|are|'s) no (?!such\b)[`'\"]?[\w./-]{1,80}[`'\"]? (?:sub)?(?:folder|directory|dir|file)s?\b|"
    r"\b(?:can'?t|cannot|could ?n'?t|could not|unable to|failed to) (?:find|locate) (?:the |any |a |file )?[`'\"]?"
    r"[\w/.-]{1,100}\.py\b|"
    r"\bfiles?\b.{0,120}?\b(?:are|is|were|was) missing\b|\bmissing (?:files|folders|modules|source files)\b|"
    r"\b(?:didn'?t|did not|forgot to|forget to|forgotten to) (?:upload|commit|push|include|add)\b"
    r"(?=.{0,60}\b(?:folder|directory|file|module|package|code|\.py)\b)|"
    r"\bnot (?:been )?(?:uploaded|committed|pushed)\b|"
    r"\b(?:is|are|was|were)(?:n'?t| not) (?:in|included in|part of) (?:the|your|this) (?:repo|repository|release)\b")
#: a file of the user's own named like a module told in prose, beside the script or in the folder the program starts
#: in ("a file called `decorator.py` in the same folder", "my own file named numpy.py"): Python puts that folder first
#: on sys.path, so the file shadows the installed module of that name
_SHADOW_FILE_SAID_RE = re.compile(
    r"\b(?:a |my |your |own |local )?(?:file|script|module) (?:called|named) [`'\"]?([A-Za-z_][A-Za-z0-9_]{0,60})\.py\b"
    r"[`'\"]?(?=.{0,80}\b(?:same (?:folder|directory|dir)|working directory|current (?:folder|directory)|cwd|"
    r"where (?:you|i) (?:run|start|launch)|shadow))", re.IGNORECASE)
#: a regression told in prose: the failure began with a release of the library ("before the 0.2 release", "worked
#: with 1.12", "since upgrading to 2.1", "didn't face this issue before")
_REGRESSION_RE = re.compile(
    r"\b(?:before|since|after|until) (?:the )?(?:(?:v|version |release )[0-9]{1,2}\.[0-9]{1,3}(?:\.[0-9]{1,3})?|"
    r"[0-9]{1,2}\.[0-9]{1,3}(?:\.[0-9]{1,3})? (?:release|version|update|upgrade))\b|"
    r"\b(?:worked|works|working|was fine|fine) (?:fine |well |ok )?(?:with|in|on|under) (?:version |release |v)?"
    r"[0-9]{1,2}\.[0-9]{1,3}\b|"
    r"\b(?:since|after) (?:upgrading|updating|the upgrade|the update)\b(?! (?:the |my )?(?:nvidia |gpu )?"
    r"(?:driver|kernel|cuda|os|ubuntu|system))|"
    r"\b(?:didn't|did not|never|haven't|have not) (?:face|faced|have|had|see|seen|get|got|hit) (?:this|the|that|any) "
    r"(?:issue|problem|error|crash|bug)s? (?:before|with|in|on)\b|\bregression\b|\bbroke in\b|"
    r"\b(?:works?|worked|working|was fine|ran fine) (?:fine |well )?(?:in|with|on) (?:the |all )?(?:previous|older|earlier|"
    r"last) (?:versions?|releases?|builds?|commits?)\b|"
    r"\bafter (?:the |an? )?(?:update|upgrade) \(?v?[0-9]{1,2}\.[0-9]{1,3}(?:\.[0-9]{1,3})? ?(?:->|=>|→|to) ?v?[0-9]|"
    r"\b(?:last )?working commit\b|\bnew in (?:the )?last [0-9]{1,3} (?:days|weeks)\b|"
    # (round 24) an earlier release named as the one that works: going back to it fixes the failure ("downgrading
    # pytorch to 1.12.1 will solve the problem", "I reinstalled version 2.14 and it works again"), it is said fine
    # ("3.14 is fine"), the failure is said absent from it ("doesn't occur on torch 2.11"), or the failure began with
    # a named release ("ever since around ollama-cuda version 0.12.4", "==1.22.0 is working but ==1.23.0 is failing")
    r"\b(?:downgrad(?:e|ed|ing)|roll(?:ed|ing)? back|revert(?:ed|ing)?|go(?:ing)? back|went back)(?: it| them)? "
    r"(?!(?:the |my |to )?(?:nvidia |gpu |display )?(?:drivers?|kernel|cuda|os|ubuntu|system|python|gcc|g\+\+|nvcc)\b)"
    r"(?:[a-z][\w.+-]{0,30} )?(?:back )?to (?:the )?(?:[a-z][\w.+-]{0,30} )?(?:version |release |v)?[0-9]{1,2}\.[0-9]|"
    r"\breinstall(?:ed|ing)? (?:the )?(?:previous |older |old )?(?:version|release|v) ?[0-9]{1,2}\.[0-9]|"
    r"\b(?:doesn't|does not|didn't|did not) (?:occur|happen|appear) (?:on|with|in|for) (?:[a-z][\w.+-]{0,30} )?"
    r"v?[0-9]{1,2}\.[0-9]|"
    r"\b(?:ever )?since (?:around |about )?(?:[a-z][\w.+-]{0,30} )?(?:version |release |v)[0-9]{1,2}\.[0-9]|"
    r"\bprevious (?:version|release)s? (?:i can|works|worked|is fine|was fine)\b|"
    r"\b(?:since|after) (?:i |we )?(?:made|did|ran|applied) (?:the |an? )?"
    r"(?!(?:nvidia |gpu )?(?:drivers?|kernel|cuda|os|ubuntu|system|python)\b)(?:[a-z][\w.+-]{0,30} )?(?:v|version )?"
    r"[0-9]{1,2}\.[0-9]{1,3}(?:\.[0-9]{1,3})? (?:upgrade|update)\b|"
    r"==[0-9][\w.]{0,20} (?:is|was) working,? but [\w.-]{0,40}==[0-9][\w.]{0,20} (?:is|was) fail")
#: (round 29) a word each branch of _REGRESSION_RE, _RELEASE_FINE_RE and _REGRESSION_VAGUE_RE cannot match without:
#: a line with none of them is not searched (the regression's expression costs some 140 us on a 100-character line)
_REGRESSION_WORDS = ("before", "since", "after", "until", "work", "fine", "didn't", "did not", "never", "haven't",
                     "have not", "regression", "broke in", "new in", "downgrad", "roll", "revert", "go back",
                     "going back", "went back", "reinstall", "doesn't", "does not", "previous")
#: (round 26b) an update to the latest release told with its subject ("after I today updated ComfyUI to latest
#: version", "since we upgraded diffusers to the newest"), and the same setup said to work until now ("it was working
#: before", "was working well by today morning"): something changed, no release named (the regression's reading
#: ranks after every reading of the error's own words: a runtime or driver that changed with it reads first)
_REGRESSION_VAGUE_RE = re.compile(
    r"\b(?:since|after) (?:i |we )?(?:today |just |recently |yesterday )?(?:updated|upgraded|updating|upgrading) "
    r"(?!(?:the |my )?(?:nvidia |gpu )?(?:drivers?|kernel|cuda|os|ubuntu|system|python|windows|macos)\b)"
    r"(?:[a-z][\w.+-]{0,30} )?to (?:the )?(?:latest|newest|new|last)\b|"
    r"\b(?:was|were) working (?:fine |well |perfectly |great )?(?:before|yesterday|until|by today|earlier)\b|"
    # (round 31c) "it worked in previous versions", "works with an older release": a release before this one worked
    r"\b(?:worked|works|was working|used to work)(?: fine| well| ok)? (?:in|with|on) (?:the |an? )?"
    r"(?:previous|older|earlier|prior|last) (?:versions?|releases?)\b(?! of (?:the )?(?:ubuntu|debian|centos|linux|"
    r"windows|macos|os|python|cuda|nvidia|drivers?|kernel|gcc)\b)")
#: (round 24) a release said fine, read in the words just before " is fine" / " was fine" ("3.14 is fine"; not a
#: version bound ">= 2.1.0 is fine", nor an OS, Python, CUDA or driver release)
_RELEASE_FINE_RE = re.compile(r"(?<![<>=] )(?<![<>=\d.])(?<!ubuntu )(?<!debian )(?<!centos )(?<!python )(?<!cuda )"
                              r"(?<!driver )\bv?[0-9]{1,2}\.[0-9]{1,3}(?:\.[0-9]{1,3})? (?:is|was) (?:working )?fine$")
#: (round 24) the system's parts, whose release breaking something is no Python package's API
_SYSTEM_PARTS = frozenset({"glibc", "libc", "driver", "drivers", "nvidia", "cuda", "kernel", "ubuntu", "debian",
                           "windows", "macos", "python", "gcc", "clang", "nvcc", "cmake"})
#: (round 31c) a Windows command prompt (cmd's "<folder>>", conda's "(env) " before it, quoted in a sentence) whose
#: folder holds a space, running a build or Python command in it
_PROMPT_PATH_SPACE_RE = re.compile(r"^[^\n]{0,80}?(?:\(\S{1,40}\)\s)?\"?([A-Z]:\\[^<>|\n\"]{0,200}? [^<>|\n\"]{0,200}?)>\s{0,2}"
                                   r"(?:cmake|python|py|pip|nvcc|make|ninja|msbuild|git|setup|conda|\.\\)\b", re.I)
#: (round 31c) a named release of a package said to be buggy or broken itself ("nerfacc==0.3.4 has bug", "a bug inside
#: nerfacc lib v 0.3.4", "regression in gsplat 1.0.1", "Mitsuba 3.7.0 is broken"): the text's own verdict on that
#: release; the system's parts (_SYSTEM_PARTS) are not read so
#: words before a release number that name no package ("version 1.2 has a bug", "the latest 0.3 is broken")
_NOT_A_PACKAGE = frozenset({"version", "release", "v", "the", "it", "this", "that", "which", "latest", "new", "newest",
                            "old", "older", "previous", "current", "last", "my", "our", "build", "commit", "branch",
                            "tag", "update", "upgrade", "think", "guess", "believe", "feel", "seems", "seem", "found",
                            "see", "saw", "because", "since", "but", "and", "so", "as", "where", "when", "if", "that's",
                            "maybe", "probably", "also", "now", "still", "then", "in", "on", "with", "of", "for", "a",
                            "an", "is", "was", "using", "use", "used", "installed", "install"})
_RELEASE_V = r"v?(\d{1,4}\.\d{1,4}(?:\.\d{1,4}){0,2}(?:\.?(?:post|rc|a|b|dev)\d{0,4})?)"
_RELEASE_P = r"([a-z][a-z0-9_.-]{1,40}?)"
_RELEASE_BUG_RE = re.compile(
    rf"\b{_RELEASE_P}(?:\s?==\s?|\s(?:v(?:ersion)?\s?|release\s)?|-){_RELEASE_V}\s(?:(?P<bug>(?:has|have|had|contains?|"
    rf"introduced)\s(?:a\s|an?\s\w{{1,20}}\s|some\s)?bugs?\b)|(?:is|was)\s(?:broken|buggy)\b)|"
    rf"\b(?P<bug2>bugs?)\s(?:in|inside|of|with)\s(?:the\s)?{_RELEASE_P}(?:\s(?:lib(?:rary)?|package))?\s"
    rf"(?:v(?:ersion)?\s?|release\s|==)?{_RELEASE_V}\b|"
    rf"\b(?P<bug3>regression)\s(?:in|of)\s{_RELEASE_P}\s(?:v(?:ersion)?\s?|release\s|==)?{_RELEASE_V}\b", re.I)
#: (round 24) a named release of a package said to break the code that uses it ("gsplat 1.0 breaks nerfstudio", "new
#: diffusers version breaks an import", "functional_tensor errors out in torchvision 0.17"): an API that release
#: changed, which the calling code was not written for; the system's parts (the C library, the driver, CUDA, the OS,
#: Python, the compiler) are not read so. The first form is read in the words just before its verb.
_RELEASE_BEFORE_VERB_RE = re.compile(r"\b([a-z][\w-]{1,30}) (?:version |release |v)?[0-9]{1,2}(?:\.[0-9x]{1,3}){1,2}$")
_RELEASE_BREAKS_RE = re.compile(
    r"\bnew(?:er|est)? (?!(?:glibc|libc|driver|nvidia|cuda|kernel|ubuntu|windows|python|gcc|nvcc)\b)([a-z][\w-]{1,30}) "
    r"(?:version|release) (?:breaks|broke)\b|"
    r"\b(?:errors? out|fails?|breaks?) (?:in|with) (?!(?:glibc|libc|driver|nvidia|cuda|kernel|ubuntu|windows|python|"
    r"gcc|nvcc)\b)([a-z][\w-]{1,30}) (?:version |v)?[0-9]{1,2}\.[0-9]|"
    # (round 26b) "it no longer works with the new version of torchvision"
    r"\bno longer works? (?:with|in|on|under) (?:the )?new(?:er|est)? (?:version|release) of "
    r"(?!(?:glibc|libc|driver|nvidia|cuda|kernel|ubuntu|windows|python|gcc|nvcc)\b)([a-z][\w-]{1,30})")
#: (round 24) a package said to show (or import) an older release than the one just installed ("upgraded to 3.2.0 but
#: still seeing 1.2.1", "reinstalled it but somehow it's still finding a wrong version"): another copy of it comes
#: first on the import path (a user site-packages, an apt-installed copy), or a notebook's kernel imported it before
_STILL_OLD_RELEASE_RE = re.compile(
    r"\b(?:upgraded|updated|installed|reinstalled|reinstall(?: it)?|upgrade(?: it)?)\b[^\n]{0,60}?\bbut (?:somehow )?"
    r"(?:(?:it|python|pip|jupyter|the kernel)(?:'s| is| was)? |i'm |i am |i )?still (?:see|seeing|showing|shows|"
    r"finding|finds|importing|imports|loading|loads|reports?|reporting) (?:a |the )?"
    r"(?:wrong|old|older|previous|v?[0-9]{1,2}\.[0-9])")
#: an import order told in prose ("importing open3d before torch", "import torch first then cv2")
_ORDER_MODULES_RE = re.compile(r"\bimport(?:ing|ed|s)? `?([A-Za-z_][A-Za-z0-9_]{1,40})`? (?:module |package )?"
                               r"(?:before|after|then|prior to) (?:import(?:ing)? )?`?([A-Za-z_][A-Za-z0-9_]{1,40})`?")
#: torch.cuda.device_count() and the number it gave ("device_count(): 0", "device_count() returns 0")
_DEVICE_COUNT_RE = re.compile(r"device_count\(\)`?\W{0,4}(?:returns?|returned|is|gives|=+|->|:)?\W{0,4}([0-9]{1,3})\b")
_REPL_VALUE_RE = re.compile(r"\s{0,8}(?:out\[[0-9]{1,5}\]:\s{0,4})?(false|true|[0-9]{1,3})\s{0,4}$")
#: words before a version that make it the one the user wanted, not the one installed ("instead of 2.1.0+cu118")
_WISHED_RE = re.compile(r"(?:instead of|rather than|expected|expecting|should be|supposed to be|want(?:ed)?|"
                        r"hoping for|[0-9] requires) [^,;\n]{0,30}$")
#: a torch release written with its local version tag without the word torch before it ("tried 1.11.0+cu113")
_TAGGED_VER_RE = re.compile(r"(?<![0-9A-Za-z_.+])([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)\+(cu[0-9]{2,3}|cpu)\b")
_COMPANIONS = ("vision", "audio", "text", "data", "geometric", "scatter", "sparse", "cluster", "xformers", "mmcv")
#: Warp's initialisation banner (warp/_src/context.py: "CUDA Toolkit {toolkit_version}, Driver {driver_version}", the
#: driver's from cuDriverGetVersion: the newest CUDA it supports)
_WARP_BANNER_RE = re.compile(r"CUDA Toolkit ([0-9]{1,2}\.[0-9]{1,2}), Driver ([0-9]{1,2}\.[0-9]{1,2})\b")
_DEVICEQUERY_RE = re.compile(r"CUDA Driver Version / Runtime Version\s{0,20}([0-9]{1,2}\.[0-9]) / ([0-9]{1,2}\.[0-9])")
_CUDA_HOME_RE = re.compile(r"\b(CUDA_HOME|CUDA_PATH|CUDA_ROOT|CUDA_TOOLKIT_ROOT_DIR) ?[=:] ?['\"]?([^\s'\",;]{0,300})")
#: a variable's value a user reports in prose or from its echo ("echo $CUDA_HOME, it is :/usr/local/cuda-9.0")
_SAID_VALUE_RE = re.compile(r"\$\{?([A-Z_]{4,30})\}?[`'\"]?\W{0,3}(?:it is|it's|is|gives|shows|returns|prints|outputs?|"
                            r"=|->|:)\s{0,3}[`'\"]?(\S{1,300})")
_ECHO_RE = re.compile(r"echo \"?\$\{?([A-Z_]{4,30})\}?\"?\s*$")
_HOME_VARS = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR")
#: a Windows path still open where a line's text ends (a drive and no space-free end since: 'C:\\Program Files\\NVIDIA GPU')
_WIN_PATH_OPEN_RE = re.compile(r"[A-Za-z]:\\[^'\"\n]*$")
#: (round 29) a path starts after a space, a quote, "=" or ":" (or the line's start), not inside a word: tried at every
#: character, its run of up to 200 backtracked on each build line of a log (23 us a line, 8 with the lookbehind)
_NVCC_PATH_RE = re.compile(r"(?<![^\s'\"=:])((?:[A-Za-z]:)?[^\s'\"=:]{0,200}[/\\]bin[/\\]nvcc(?:\.exe)?)\b")
_INCLUDE_RE = re.compile(r"-I ?([^\s'\"]{0,200}cuda[^\s'\"]{0,80}[/\\]include)\b", re.IGNORECASE)
_CUDA_DIR_VER_RE = re.compile(r"cuda-?([0-9]{1,2}\.[0-9]{1,2})\b", re.IGNORECASE)
#: the Windows installer's toolkit folder (``C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4``)
_WIN_CUDA_DIR_VER_RE = re.compile(r"[\\/]CUDA[\\/]v([0-9]{1,2}\.[0-9]{1,2})$", re.IGNORECASE)
_LLP_RE = re.compile(r"\b(LD_LIBRARY_PATH|PATH) ?[=:] ?['\"]?([^\s'\";]{1,2000})")
#: a value of CUDA_VISIBLE_DEVICES as a shell, a job or a library prints it ("=1", ": 0,1", "os.environ[...]: ")
_CVD_RE = re.compile(r"CUDA_VISIBLE_DEVICES['\"\]]{0,3} ?(?:==?|:) ?['\"]?([0-9A-Za-z,\-]{0,60})")
_ARCH_LIST_RE = re.compile(r"TORCH_CUDA_ARCH_LIST ?= ?['\"]?([0-9A-Za-z.;+ _]{1,80})")
#: an extension's build architectures as its build is told them (round 26d): nvcc's ``-gencode=arch=compute_80,code=sm_80``,
#: torch's ``TORCH_CUDA_ARCH_LIST=8.0;8.6+PTX``, CMake's / tiny-cuda-nn's ``(TCNN_|CMAKE_)CUDA_ARCHITECTURES=75``
_GENCODE_RE = re.compile(r"-gencode[= ]{1,2}arch=compute_(\d{2,3})[a-z]?,\s?code=\[?(?:sm|compute)_(\d{2,3})")
_CMAKE_ARCHS_RE = re.compile(r"\b(?:TCNN_|CMAKE_)CUDA_ARCHITECTURES ?= ?['\"]?(\d{2,3}(?:[;, ]\d{2,3}){0,12})\b")
#: (round 29a) nvcc's own short option for one architecture (``-arch=sm_80``, ``-arch sm_61``,
#: ``--gpu-architecture=compute_80``: nvcc --help), as a user's nvcc command or a Makefile passes it
_NVCC_ARCH_RE = re.compile(r"(?<![\w-])(?:-arch|--gpu-architecture)[= ]\s?(?:sm|compute)_(\d{2,3})[a-z]?\b")
#: (round 29a) a user's own nvcc command that compiles a CUDA source file (``nvcc -O2 -arch=sm_80 -o saxpy saxpy.cu``)
_NVCC_CU_CMD_RE = re.compile(r"(?:^|[$#>]\s{0,4})((?:[\w./-]*/)?nvcc(?:\.exe)?\s[^\n|;&`]{0,300}?[\w./\\-]+\.cu\b[^\n|;&`]{0,200})")


def _extension_archs(line: str) -> list[str]:
    """The architectures (``80``, ``86``) an extension's build is told in ``line``, in order, each once."""
    out: list[str] = []
    for v in _ARCH_LIST_RE.findall(line):
        out += [f"{m.group(1)}{m.group(2)}" for m in re.finditer(r"(?<![\d.])(\d{1,2})\.(\d)(?![\d.])", v)]
    out += [m.group(2) for m in _GENCODE_RE.finditer(line)]
    out += [m.group(1) for m in _NVCC_ARCH_RE.finditer(line)] if "arch" in line else []
    for m in _CMAKE_ARCHS_RE.finditer(line):
        out += re.split(r"[;, ]", m.group(1))
    return list(dict.fromkeys(a for a in out if a))


#: a hyphen in the name is a distribution's name typed for the module's ('pointnet2-ops'): read as its import name
_NO_MODULE_RE = re.compile(r"(?:No|no) module named [`'\"‘“]?([A-Za-z0-9_.]{1,100}(?:(?:-[A-Za-z0-9_]{1,40}){1,4}"
                           r"(?=[`'\"’”\s.,]|$))?)")
#: Python's words, and a report's retyping of them (round 22: "Cannot import name", the names in double quotes,
#: backticks, mismatched quotes or none): the message decides, not how its quotes were typed
_IMPORT_NAME_RE = re.compile(r"[Cc]annot import name [`'\"]?([A-Za-z0-9_]{1,80})[`'\"]? from "
                            r"(?!partially initialized\b)[`'\"]?([A-Za-z0-9_.-]{1,100})(?:[`'\"]|(?=\s{0,4}\(|\s{0,20}$))")
#: a top-level Python package the text shows installed: its files under site-/dist-packages (or an egg), or
#: pip naming it installed ("Requirement already satisfied: x", "Successfully installed x-1.0", pip show's "Name: x")
_INSTALLED_PKG_RE = re.compile(
    r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][A-Za-z0-9_]{0,80})(?=[/\\.-])"
    r"|[/\\]([A-Za-z_][A-Za-z0-9_]{0,80})-[0-9][^/\\\s]{0,40}\.egg\b"
    r"|(?:Requirement already satisfied|Successfully installed|^Name):? ([A-Za-z_][A-Za-z0-9_.-]{0,80})", re.MULTILINE)
#: Python 3.8+'s form when the module is still initialising (import.c: "... from partially initialized module %R
#: (most likely due to a circular import) (%S)"): a compiled submodule that is missing reads the same way
_IMPORT_PARTIAL_RE = re.compile(r"cannot import name '([A-Za-z0-9_]{1,80})' from partially initialized module "
                                r"'([A-Za-z0-9_.]{1,100})'")
#: Python before 3.7 (and a title) names only the name ("ImportError: cannot import name 'x'", Python 2 unquoted): the
#: module is the one the traceback's last from-import line names ("from distributed.utils import a, x"; IPython's
#: "---> 10 from m import (" whose names follow on the next lines)
_IMPORT_BARE_RE = re.compile(r"[Cc]annot import name [`'\"]?([A-Za-z0-9_]{1,80})[`'\"]?\s{0,20}$")
#: (round 32f) a REPL's prompt (">>> from m import x", "... from m import y": the paste normaliser keeps it)
_FROM_IMPORT_LINE_RE = re.compile(r"^\s{0,40}(?:-{0,4}>\s{0,4}(?:[0-9]{1,6}\s{1,8})?|[0-9]{1,6}\s{1,8}|(?:>>>|\.\.\.) ?)?"
                                  r"from ([A-Za-z_][A-Za-z0-9_.]{0,100}) "
                                  r"import ([A-Za-z0-9_, (*]{1,400})")
#: an object's attribute missing ("AttributeError: 'EnforcedForest' object has no attribute 'node'"); None's left out
_OBJ_ATTR_RE = re.compile(r"AttributeError: '(?!NoneType')([A-Za-z_][A-Za-z0-9_.]{0,100})' object has no attribute "
                          r"'([A-Za-z0-9_]{1,80})'")
#: a class's attribute missing where the class is shown by its dotted qualified name ("type object
#: 'MinkowskiEngineBackend._C.RegionType' has no attribute 'HYPERCUBE'"): CPython prints tp_name, the qualified name
#: of an extension module's type (pybind11, C types), the bare name of a class defined in Python
_TYPE_ATTR_RE = re.compile(r"type object '([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z0-9_]{1,60}){2,6})' has no attribute "
                           r"'([A-Za-z0-9_]{1,80})'")
#: (round 35b) Python 3.13+ names the file of a module still being initialised ("partially initialized module '%U'
#: from '%U' has no attribute '%U' (most likely due to a circular import)", CPython Objects/moduleobject.c
#: _Py_module_getattro_impl): the file is read by rules._abi.module_file_in_package_place
_NO_ATTR_RE = re.compile(r"module ['\"]([A-Za-z0-9_.]{1,100})['\"](?: from '[^'\n]{1,400}')? has no attribute(?: ['\"]([A-Za-z0-9_]{1,80})['\"]|"
                         r" ([A-Za-z_][A-Za-z0-9_]{0,80})(?=`|\s*$)|\s*$)")
def _scan_module_attr(r: _Reader, line: str, low: str) -> None:
    """A module's attribute missing (``torch.module_missing`` with ``attribute``): Python 3's "module 'x' has no
    attribute 'y'" (the attribute's name cut off: the module alone; round 18: a name written without quotes, a
    report's paraphrase or placeholder), (round 31c) Python 2's "'module' object has no attribute 'y'"."""
    for mod, quoted, bare in _NO_ATTR_RE.findall(line):
        attr = quoted or bare
        r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=f"{mod}.{attr}" if attr else mod,
                attribute=True)
    if "'module' object has no attribute" in low:
        _scan_py2_module_attr(r, line)


def _scan_py2_module_attr(r: _Reader, line: str) -> None:
    """(round 31c) Python 2 names no module ("'module' object has no attribute 'hann_window'"): the source line printed
    under the last frame names it ("window=torch.hann_window"): ``torch.module_missing`` as Python 3's form."""
    m = _PY2_NO_ATTR_RE.search(line)
    if not m or not r.call_line:
        return
    attr = m.group(1)
    if own := re.search(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){0,4})\." +
                        re.escape(attr) + r"\b", r.call_line):
        r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=f"{own.group(1)}.{attr}", attribute=True)


def _callable_attr_in_text(r: _Reader, text: str) -> None:
    """(round 34b) Python's "'function' object has no attribute 'var'" names no module: the source line Python printed
    under the last frame does ("self.mask = ti.Vector.var(3, ti.f32, res)"; a title that repeats the error comes before
    it, so the whole text is read). Where that dotted name, its first part read as the package its usual import alias
    stands for (ti: taichi), is a name tables/removed_apis.csv says a release removed (taichi's ti.Vector.var, whose
    ti.Vector later releases made a function): ``torch.module_missing`` of it, as Python's own form for a module's
    attribute."""
    from smrnb.doctor import tables

    rows = _removed_rows_by_name()
    head_text = text[:200000]
    for m in list(_FUNCTION_NO_ATTR_RE.finditer(head_text))[:2]:
        attr = m.group(1)
        for own in re.finditer(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){1,4})\." +
                               re.escape(attr) + r"\(", head_text):
            head, _, rest = own.group(1).partition(".")
            full = f"{tables.IMPORT_ALIASES.get(head, head)}.{rest}.{attr}"
            if full in rows and not any(e.get("module") == full for e in r.events["torch"]):
                end = text.find("\n", m.start())
                line = text[m.start():end if end >= 0 else len(text)]
                r.events["torch"].append({"kind": "module_missing", "from": "text", "weight": WEIGHT["module"] + 2,
                                          "line": line.strip()[:400], "module": full, "attribute": True})
                return


#: (round 34b) Python's AttributeError of a function object (Objects/object.c: "'%.100s' object has no attribute
#: '%U'", the type's name 'function')
_FUNCTION_NO_ATTR_RE = re.compile(r"AttributeError: 'function' object has no attribute '([A-Za-z_][A-Za-z0-9_]{0,80})'")
#: (round 31c) Python 2's AttributeError of a module, which names no module (Objects/moduleobject.c of 2.7: "'module'
#: object has no attribute '%.400s'")
_PY2_NO_ATTR_RE = re.compile(r"AttributeError: 'module' object has no attribute '([A-Za-z_][A-Za-z0-9_]{0,80})'")
#: a name with a release number right after it ("open3d v0.12.0", "Pillow 10.0.0", "jax==0.4.20", "peft=0.10.0"):
#: a distribution the text says is installed, or was, in that release
_NAMED_RELEASE_RE = re.compile(r"\b([A-Za-z][A-Za-z0-9_\-]{1,40})(?:\s{0,2}={1,2}\s{0,2}|\s{1,2}version:?\s{1,2}|\s{1,2})v?"
                               r"([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,4})?)\b")
_HEADER_BARE_RE = re.compile(r"(?:^|[\s'\"`])([A-Za-z0-9_][A-Za-z0-9_./+\-]{0,120}\.(?:h|hpp|cuh|hxx))['\"`]?: No such file or directory")
#: a header said missing in words, named as an #include names it ("No such file <cblas.h>", "cannot find <omp.h>")
_HEADER_SAID_RE = re.compile(r"(?i:no such file|not found|missing|cannot find|can't find|could not find|cannot open)"
                             r"[^<\n]{0,16}<([A-Za-z0-9_][A-Za-z0-9_./+\-]{0,120}\.(?:h|hpp|cuh|hxx))>")
#: the EDG front end's form (nvcc's cudafe++, NVRTC): 'x.cu(3): catastrophic error: cannot open source file "y.h"'
_EDG_HEADER_RE = re.compile(r"(?:catastrophic )?error: cannot open source file [\"']([A-Za-z0-9_./+\-]{1,120}\.(?:h|hpp|cuh|hxx))[\"']")
#: MSVC's C1083 names the header in its UI language's words and quotes ("Cannot open include file: 'io.h'",
#: "无法打开包括文件: “io.h”"); the strerror after it is the C runtime's, read by _english_enoent in other locales
_C1083 = r"(?:C1083: [^:'\"“\n]{1,60}: )?"
_HEADER_RE = re.compile(r"fatal error:? " + _C1083 + r"['\"“]?([A-Za-z0-9_./+\-]{1,120}\.(?:h|hpp|cuh|hxx))['\"”]?: No such file")
#: clang's form ("fatal error: 'omp.h' file not found")
_CLANG_HEADER_RE = re.compile(r"fatal error: '([A-Za-z0-9_./+\-]{1,120}\.(?:h|hpp|cuh|hxx))' file not found")
#: a header without an extension (the C++ library style: <google/dense_hash_map>, <Eigen/Dense>, <cuda/std/atomic>), named
#: with its directory by GCC's and MSVC's message (a bare name there is as often a source file the command names)
_HEADER_DIR_RE = re.compile(r"fatal error:? " + _C1083 + r"['\"“]?([A-Za-z0-9_+\-]{1,60}/[A-Za-z0-9_/+\-]{1,120})['\"”]?: "
                            r"No such file")
#: the file whose #include failed (gcc/nvcc: "path:line:col: fatal error: ...")
_INCLUDER_RE = re.compile(r"([^\s:'\"]{1,300}\.(?:h|hpp|hxx|cuh|cu|cpp|cc|cxx|c)):[0-9]{1,6}(?::[0-9]{1,5})?: fatal error")
#: GNU ld's, Apple ld's; GNU ld's in Chinese locales (binutils ld/po/zh_CN.po: "cannot find %s" -> "找不到 %s")
_LINK_RE = re.compile(r"(?:cannot find|library not found for|找不到) -l([A-Za-z0-9_+\-]{1,60})")
_LNK_RE = re.compile(r"cannot open input file '([A-Za-z0-9_\-]{1,60})\.lib'")
_LINKS_RE = re.compile(r"Looking in (?:links|indexes): (\S{1,300})")
#: pip's "Could not find a version that satisfies the requirement X[spec] [(from Y)] (from versions: ...)": Y is the
#: package that requires X (pip/_internal/req/req_install.py, InstallRequirement.__str__ adds " (from {comes_from})";
#: a requirements file's "-r file (line n)" is no package and is not read as one)
_FROM_VERSIONS_RE = re.compile(r"requirement ([A-Za-z0-9_.\-]{1,60})(?:[=<>!~]{1,2}([0-9][0-9A-Za-z.+]{0,24}))?"
                               r"(?: \(from ([A-Za-z0-9_][A-Za-z0-9_.\-]{0,59})[^()\n]{0,80}\))? \(from versions: "
                               r"([^)\n]{0,200})(\)?)")
#: pip's two lines without the versions it saw (cut from a pasted log, or an older pip's): "Could not find a version
#: that satisfies the requirement X (from Y)" and "No matching distribution found for X" (src/pip/_internal/
#: resolution/legacy/resolver.py and index/package_finder.py: the first with " (from versions: ...)" appended)
_NO_VERSION_RE = re.compile(r"(?:satisfies the requirement|No matching distribution found for) ([A-Za-z0-9_.\-]{1,60})"
                            r"(?:[=<>!~]{1,2}([0-9][0-9A-Za-z.+]{0,24}))?(?: \(from ([A-Za-z0-9_][A-Za-z0-9_.\-]{0,59})"
                            r"[^()\n]{0,80}\))?")
#: a CUDA / NVML / NVRTC error given by number: the forms runtimes and frameworks print it in
_CUDA_ERRNUM_RES = (
    re.compile(r"(?:cuda runtime error|CUDA error|CUDA Error|Cuda error|cudaError|CUDA_ERROR|CUresult|nvmlReturn|NVML error|nvrtc error)"
               # a program's own "CUDA error: error code 34" (Rigel's, other miners') names the number after "error code"
               r"[ :=]{0,3}\(?(?:error code[ :=]{1,3})?([0-9]{1,5})(?![0-9.])"),
    re.compile(r"\berror=([0-9]{1,5})(?![0-9.])"),  # THCudaCheck FAIL file=... line=... error=48 : ...
    re.compile(r"\bError ([0-9]{1,5}):"),  # cudaGetDeviceCount(): ... Error 804: forward compatibility ...
    re.compile(r"\b(?:cu[A-Z][A-Za-z]{2,40}|cuda[A-Z][A-Za-z]{2,40}|nvml[A-Z][A-Za-z]{2,40})\(?[^)\n]{0,40}\)?"
               r"(?: failed| returned| returns| error| Error)[^0-9\n]{0,30}?([0-9]{1,5})(?![0-9]|\.[0-9])"),
    # cuInit(0) failed with error 999; "cuInit(0) returns 999." (a sentence's period, not a version's)
    re.compile(r"\b(?:cu[A-Z][A-Za-z]{2,40}|cuda[A-Z][A-Za-z]{2,40}|nvml[A-Z][A-Za-z]{2,40})\b[^0-9(\n]{1,50}"
               r"\(([0-9]{1,5})\)"),  # failed call to cuInit: UNKNOWN ERROR (303)
    re.compile(r"driver library init failure: ?([0-9]{1,5})(?![0-9.])"),  # ollama: cuInit's CUresult
    re.compile(r"== ?cudaSuccess \(([0-9]{1,5}) vs\. 0\)"),  # glog CHECK_EQ (Caffe): error == cudaSuccess (38 vs. 0)
    # CU_SAFE_CALL of the CUDA SDK's cutil and LAMMPS' geryon: "Cuda driver error 804 in call at file 'f' in line 3."
    re.compile(r"\b[Cc][Uu][Dd][Aa] driver error ([0-9]{1,5})(?![0-9.])"),
    # TensorRT's builder and runtime: "[ERROR] CUDA initialization failure with error: 35" (the cudaError_t)
    re.compile(r"CUDA initialization failure with error:? ?([0-9]{1,5})(?![0-9]|\.[0-9])"),
    # a program's own words for a failed CUDA initialisation with the cudaError_t after them (miners, renderers:
    # "failed to initialise cuda, error code 35", "CUDA init failed (error code 100)")
    re.compile(r"(?i:(?:initiali[sz]e|init) (?:the )?cuda\b|\bcuda (?:init|initiali[sz]ation)\b)[^0-9\n]{0,30}?"
               r"(?i:error code|error|code)[ :=(]{0,3}([0-9]{1,5})(?![0-9]|\.[0-9])"),
)
#: the message after "CUDA error: " (torch's C10_CUDA_CHECK), read whole: short messages too ("unknown error")
_CUDA_ERROR_MSG_RE = re.compile(r"CUDA [Ee]rror: ([A-Za-z][A-Za-z ()/'-]{2,80}?)\.?(?:$|\n| when calling|\s{2}|[\"`])")
#: a program's own CUDA check printing cudaGetErrorString in quotes: "CUDA error 'unknown error' in func 'getinfo'
#: line 61" (nheqminer's cuda_djezo/cuda_tromp checkCudaErrors, the miners built on them)
_CUDA_ERROR_QUOTED_RE = re.compile(r"CUDA [Ee]rror '([A-Za-z][A-Za-z ()/-]{2,80}?)\.?' in (?:func|function|file)\b")
#: NCCL's CUDA checks (src/include/checks.h CUDACHECK: "Cuda failure '%s'" with cudaGetErrorString; cudawrap.h CUCHECK:
#: "Cuda failure %d '%s'" with the CUresult and cuGetErrorString; nccl-tests: "Test CUDA failure file:line '%s'"), printed under "Last error:" of a torch
#: DistBackendError: the CUDA error that NCCL's "unhandled cuda error" stands for
_CUDA_FAILURE_RE = re.compile(r"Cuda failure (?:[^\s']{1,120}:[0-9]{1,6} )?(?:(-?[0-9]{1,5}) )?'([A-Za-z][^'\n]{1,80}?)\.?'", re.IGNORECASE)
#: TensorFlow's gpu_device.cc: "CUDA runtime implicit initialization on GPU:0 failed. Status: <cudaGetErrorString>"
_TF_STATUS_RE = re.compile(r"initialization on GPU:[0-9]{1,3} failed\. Status: ([A-Za-z][A-Za-z ()/'-]{2,80}?)\.?(?:$|\n|\s{2}|[\"`])")
#: a driver API call named with its failure, pycuda's form ("cuInit failed: initialization error", "cuMemAlloc failed:
#: out of memory": pycuda's call guard, the function's name and cuGetErrorString; recalled, its source not opened in
#: round 17): a CUDA word for a short message
_DRIVER_CALL_FAILED_RE = re.compile(r"\bcu[A-Z][A-Za-z0-9_]{2,40} failed: ")
_GO_NVML_RE = re.compile(r"(?<![A-Za-z0-9_])(ERROR_[A-Z_]{3,40})\b")
_ENUM_NAME_RE = re.compile(r"\b((?:cudaError|CUDA_ERROR_|NVML_ERROR_|NVRTC_ERROR_)[A-Za-z0-9_]{1,60})")

#: phrases whose presence is the fact (no table has them): sign -> (layer, phrases, weak)
SIGNS: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("cpu_build", "torch", ("cpu版本", "cpu version of pytorch", "cpu-only pytorch", "cpu only pytorch",
                            "is_available() 就是false", "cuda.is_available()只会返回false",
                            # an installer that chose the CPU build, told in prose (conda's, pip's, uv's default)
                            "installs cpu version", "installs the cpu version", "installed the cpu version",
                            "installs a cpu version", "installs the cpu-only", "cpu version instead of",
                            "cpu version is installed", "cpu version was installed", "defaults to the [cpu] version",
                            "defaults to the cpu version", "cpu version of torch", "cpu build of pytorch",
                            "cpu build of torch", "pytorch总是cpu版", "torch-cpu rather than"), False),
    ("gpu_dropped", "torch", ("no longer supports this gpu", "too old to be supported by the pytorch",
                              "which is older than the minimum", "pytorch no longer supports"), False),
    ("no_cuda_gpus", "driver", ("no cuda gpus are available", "no gpu found", "no gpus found"), False),
    # Windows' display-driver watchdog (TDR) resetting the GPU: its event-log text and what the user sees
    ("display_reset", "driver", ("display driver nvlddmkm stopped responding", "display driver stopped responding",
                                 "screen goes black", "screen went black", "screen turns black", "screen turned black",
                                 "screen goes blank", "screen went blank"), False),
    ("oom", "torch", ("outofmemoryerror", "cudamalloc failed: out of memory", "cuda error: out of memory",
                      "cuda out of memory", "gpu out of memory", "cuda_error_out_of_memory"), False),
    # the GPU's memory running out, said in words (Chinese 显存 is the GPU's memory: "显存不足", "爆显存")
    ("oom_said", "torch", ("显存溢出", "显存不足", "显存不够", "爆显存", "显存爆", "显存炸", "vram不足", "out of vram",
                           "ran out of vram", "vram out of memory", "out of gpu memory", "gpu ran out of memory"), True),
    ("nvrtc_arch", "toolkit", ("invalid value for --gpu-architecture", "value 'sm_"), False),
    ("gcc_unsupported", "toolkit", ("host_config.h", "parameter packs not expanded",
                                    "unsupported gnu version", "unsupported clang version"), False),
    ("msvc", "toolkit", ("cl.exe", "microsoft visual c++", "error checking compiler version for cl", "vcvars",
                         "msvc", "visual studio", "['where', 'cl']", "'where', 'cl'", "'cl' is not recognized",
                         "cl : command line"), False),
    ("nvcc_missing", "toolkit", ("nvcc: not found", "nvcc: command not found", "nvcc binary could not be",
                                 "/bin/nvcc': no such file", "/bin/nvcc: no such file", "/bin/nvcc' failed: no such file",
                                 "error launching cuda compiler", "nvcc was not found", "could not find nvcc",
                                 "'nvcc' is not recognized", "nvcc not found", "no cuda toolkit found",
                                 "cuda_home environment variable is not set", "there is no nvcc", "there's no nvcc",
                                 "without nvcc", "nvcc is missing", "nvcc is not installed", "don't have nvcc",
                                 "doesn't have nvcc", "does not have nvcc", "no nvcc in"), False),
    ("companion", "torch", ("torchvision::", "torchaudio::", "compiled with different cuda", "reinstall the torchvision",
                            "operator does not exist", "torchvision._c", "torchaudio._torchaudio",
                            "couldn't load custom c++ ops"), False),
    ("torch_api_removed", "abi", ("thc/thc.h", "<thc/", "at_check", "torch/_six", "torch._six", "has no attribute '_six'",
                                  "deprecatedtypeproperties", ".type().is_cuda()", "data<t>()", "thcstate",
                                  "is deprecated: tensor.data<t>", "thc.h", "c10::scalartype::", "at::type"), False),
    ("pip_build", "toolkit", ("pip-build-env", "getting requirements to build wheel", "build_meta",
                              "installing build dependencies", "--no-build-isolation", "build-system.requires",
                              "build backend returned an error", "failed to build", "setup.py", "building wheel",
                              "preparing metadata", "building editable", "pyproject.toml", "pip install",
                              "requirement already satisfied", "collecting ",
                              # (round 35c) uv's build frontend (astral-sh/uv crates/uv-build-frontend/src/lib.rs;
                              # uv 0.4-0.5: 'Build backend failed to determine metadata through ...'), uv's 'Failed
                              # to download and build `X`'
                              "build backend failed to", "failed to download and build"), True),
    # pip building a source tree it was given (a folder, a git URL: a project's own extension, a submodule of it)
    ("pip_source_build", "toolkit", ("pip-req-build-", "pip install ./", "pip install -e ./", "pip install -e .",
                                     "pip install .", "pip install git+", "pip3 install ./", "pip3 install git+",
                                     "pip install submodules/", "pip install third_party/"), True),
    # (round 34b) pip's own line for a package's setup.py failing while pip read its metadata (pip 9-20's
    # 'Command "python setup.py egg_info" failed with error code 1 in /tmp/pip-build-...', pip 21's form): pip found
    # no wheel that fits and builds the source distribution (pypa/pip src/pip/_internal/utils/subprocess.py,
    # operations/build/metadata_legacy.py)
    ("pip_egg_info_failed", "toolkit", ('python setup.py egg_info" failed', "python setup.py egg_info did not run "
                                        "successfully"), False),
    ("build_requirements_failed", "toolkit", ("getting requirements to build wheel ... error",
                                              "getting requirements to build wheel did not run successfully",
                                              "get_requires_for_build_wheel", "getting requirements to build editable",
                                              # (round 35c) uv 0.5's 'Build backend failed to determine requirements
                                              # with `build_wheel()`' (astral-sh/uv crates/uv-build-frontend/src/
                                              # lib.rs at 0.5.0; later 'Call to `X.get_requires_for_build_wheel`')
                                              "failed to determine requirements with `build_"),
     False),
    ("no_kernel_image", "driver", ("no kernel image", "invalid device function"), False),
    ("nvrm", "driver", ("nvrm: no nvidia graphics adapter probed", "probe routine was not called",
                        "nvrm: api mismatch", "nvrm: this pci i/o region", "nvrm: failed to allocate",
                        "nvidia kernel module is not loaded", "nvidia: module verification failed",
                        "nvidia-smi has failed"), False),
    ("torch_absent_at_build", "toolkit", ("couldn't find the module installed", "depends on `torch`, but doesn't declare",
                                          "please install it before proceeding", "torch actually installed",
                                          "torch is installed", "already have torch installed"), False),
    ("ninja_absent", "toolkit", ("'ninja'", "ninja: not found", "ninja: command not found", "no ninja",
                                  "ninja is required"), False),
    ("gpu_too_old_for_extension", "toolkit", ("requires a gpu with compute capability", "turing or newer",
                                              "ampere gpus or newer", "sm80 or newer", "sm8x", "only supports ampere",
                                              "requires ampere", "gpu architecture is not supported"), False),
    # a Windows conda environment's path (its DLLs in Library\\bin reach PATH only by activating the environment)
    ("conda_env_windows", "context", ("\\envs\\", "\\anaconda3\\", "\\miniconda3\\", "\\miniforge3\\",
                                      "\\mambaforge\\"), True),
    # (round 32f) a notebook shown by a kernel's or IPython's own output (its frames "<ipython-input-", "Cell In[",
    # ipykernel's modules, a notebook file, Jupyter's server log "[I 16:34:25.527 NotebookApp]", Colab, a cell's
    # magics) or by the person naming the notebook they run (:data:`_NOTEBOOK_SAID_RE`); not by the bare word
    # "notebook", which names the Jupyter Notebook package too ("No module named notebook.notebookapp")
    ("in_notebook", "jupyter", ("jupyter", "ipykernel", "ipython-input", "jupyterhub", "cell in[", ".ipynb",
                                "notebookapp]", "serverapp]", "labapp]", "colab", "!conda ", "%conda ", "%pip "), True),
    ("kernel_not_restarted", "jupyter", ("without restarting the kernel", "before restarting the kernel",
                                         "didn't restart the kernel", "did not restart the kernel",
                                         "haven't restarted the kernel", "have not restarted the kernel",
                                         "while the kernel was running", "while the notebook was running",
                                         "while the notebook was open", "after the kernel started",
                                         "after starting the kernel", "previously imported in this runtime"), False),
    ("same_python", "jupyter", ("same environment", "same env ", "same conda env", "same virtualenv", "same venv",
                                "same python", "same interpreter", "same sys.executable"), True),
    # (round 25b) "X is installed and works" (elsewhere: another program, another environment runs it)
    ("package_said_installed", "torch", ("all requested packages already installed", "requirement already satisfied",
                                         "is installed and works", "is installed and working"), False),
    # (round 22) the code that fails is the project's as published, told by the person who runs it: an error its
    # message lays on the calling code is that project's code's, not the person's
    ("code_unchanged_said", "torch", ("code related to models is unchanged", "code is unchanged", "code was unchanged",
                                      "didn't change anything in the code", "did not change anything in the code",
                                      "haven't changed anything in the code", "have not changed anything in the code",
                                      "didn't modify the code", "did not modify the code", "haven't modified the code",
                                      "have not modified the code", "without modifying the code",
                                      "without any modification to the code", "unmodified code", "the original code "
                                      "without"), False),
    # the user says the module was built or installed (pip's listing, their words): a compiled module missing all the
    # same is not only one never built
    ("module_said_installed", "abi", ("pip show", "successfully compiled", "compiled and installed",
                                      "i have installed", "i've installed", "i installed", "it does exist",
                                      "is already installed", "successfully installed "), False),
    ("terminal_works", "jupyter", ("in terminal", "in my terminal", "from terminal", "works in the terminal",
                                   "in the terminal", "from the terminal", "终端", "command line works",
                                   "from the command line", "from command line", "in a terminal",
                                   # (round 32i) Jupyter's terminal front end: a kernel started from the shell, with
                                   # its environment (jupyter_console starts it through the same kernelspec)
                                   "jupyter console"), False),
    ("sys_executable", "jupyter", ("sys.executable", "which python", "kernelspec", "!pip"), False),
    # Google Colab: one Python, whose kernel '!pip' installs into (no second environment on the machine)
    # (round 26: Colab's own note under every ImportError of a cell, google.colab's import hook)
    ("colab", "jupyter", ("colab", "/content/", "manually install dependencies using either !pip or !apt"), True),
    ("env_var_set", "loader", ("ld_library_path", ".bashrc", ".profile", "bash_profile", "pythonpath",
                               "module load", "printenv", "export "), True),
    ("kaolin", "kaolin", ("kaolin",), True),
    # pip's last line of an install that worked (src/pip/_internal/commands/install.py: "Successfully installed %s"),
    # setuptools' after a build ("Finished processing dependencies for X")
    ("triton_ptxas", "toolkit", ("triton_ptxas_path", "internal triton ptx codegen error"), False),
    ("install_succeeded", "toolkit", ("successfully installed ", "finished processing dependencies for "), False),
    # torch's own __init__ importing its compiled core (torch/__init__.py: "from torch._C import *"): a library that
    # fails to load there is one torch's own _C needs, found through its RPATH ($ORIGIN/lib), not an extension's
    ("torch_own_import", "torch", ("from torch._c import", "import torch._c", "torch/_c.cpython", "torch\\_c.cp"),
     False),
    # (round 25b) torch's __init__ on Windows loading the DLLs of its own lib folder (_load_dll_libraries: 'Error
    # loading "<dll>" or one of its dependencies.'): a DLL of torch's own failed, not an extension's
    ("torch_own_dll_error", "torch", ('" or one of its dependencies',), False),
    ("cudnn_mismatch", "loader", ("cudnn version mismatch", "cudnn version incompatibility", "was compiled against",
                                  "loaded runtime cudnn", "is compiled with cudnn", "but cudnn version in your",
                                  "but cuda runtime version in your", "with header v"), False),
    ("env_dropped", "context", ("sudo ", "sudo: ", "srun ", "sbatch ", "systemd", "crontab", "env_reset",
                                "slurm_script", "slurmstepd", "spawner", "jupyterhub", "spawn"), True),
    ("cannot_import_c", "abi", ("cannot import name '_c'", "_ext' ", "scatter_cuda", "scatter_cpu",
                                "cannot import name '_ext'", "not built with cuda", "not compiled with gpu support",
                                "not compiled with cuda support"), False),
    ("multiple_nvcc", "toolkit", ("/usr/bin/nvcc", "cudatoolkit=", "multiple cuda", "two cuda", "several cuda",
                                  "different cuda versions"), True),
    # (round 37e) where an nvcc is: several toolkits only where the text shows two (rules._toolkit._toolkits_shown)
    ("nvcc_located", "toolkit", ("which nvcc", "nvcc -v` returns", "which -a nvcc"), True),
    ("import_order", "loader", ("import torch first", "importing torch first", "torch first", "before import",
                                "after import", "import order", "order of import", "importing torch before",
                                "importing torch after", "if i import", "imported first", "swap the import",
                                "after torch", "before torch", "import it first"), False),
    ("build_context", "toolkit", ("error: command", "building '", "running build_ext", "ninja: build stopped",
                                  "error building extension", "subprocess-exited-with-error", "cmake error",
                                  "c++ -pthread", "x86_64-linux-gnu-gcc"), True),
    ("container", "context", ("docker", "nvidia-container-cli", "nvidia-container-toolkit", "--gpus", "kubectl", "apptainer", "singularity", "podman",
                              "runtimeclassname", "in a container", "inside a container", "in the container",
                              "inside the container", "container image"), True),
    ("slurm", "context", ("srun", "sbatch", "slurm", "#sbatch", "salloc", "--gres"), True),
    # (round 25b) python.exe and a backslashed site-packages: a Windows Python on any drive letter (a portable
    # build on X:\\)
    ("windows", "context", ("c:\\", "d:\\", "e:\\", "f:\\", "win_amd64", ".dll", "windows", "winerror", "powershell",
                            "win10", "win11", "win 10", "win 11", "python.exe", "\\site-packages\\"), True),
    ("macos", "context", ("macbook", "macos", "mac os", "apple silicon", "apple m1", "apple m2", "apple m3",
                          " m1 ", "m1 max", "m1 pro", "darwin", "macosx_", "mps backend", "\"/users/"), True),
    ("wsl", "context", ("wsl", "microsoft-standard"), True),
    # an NVIDIA Jetson board (its JetPack / Linux for Tegra): PyPI's aarch64 torch wheels there are CPU-only
    ("jetson", "context", ("jetson", "jetpack", "l4t", "nvidia tegra", "tegra194", "tegra234", "tegra210"), True),
    # AMD's GPU platform (ROCm/HIP) named: the machine's GPU is AMD's, which CUDA builds (an extension's CUDA kernels)
    # cannot use (round 18)
    ("rocm_platform", "driver", ("rocm", "hip-clang", "amdgpu"), True),
    # code asking for the CUDA device by name (torch's / CTranslate2's / faster-whisper's device argument)
    ("cuda_device_asked", "context", ('device="cuda"', "device='cuda'", "device=cuda", "--device cuda",
                                      '("cuda"', "('cuda'", '"cuda", compute_type', "'cuda', compute_type"), True),
    ("nvidia_smi_missing", "driver", ("nvidia-smi: command not found", "nvidia-smi: not found",
                                      "'nvidia-smi' is not recognized", "nvidia-smi: no such file"), False),
    ("egl", "driver", ("eglinitialize", "eglgetdisplay", "egl_not_initialized", "pyopengl_platform=egl",
                       "could not create egl", "egl_bad", "failed to create opengl context", "glfw error",
                       "rasterizeglcontext"), False),
    ("stub_libcuda", "loader", ("lib64/stubs", "/stubs/libcuda"), True),
    # the CUDA forward-compatibility package named (its libcuda runs a newer CUDA on an older data-center driver)
    ("compat_package", "driver", ("cuda-compat", "/compat/libcuda", "cuda/compat", "forward compatibility package",
                                  "forward-compatibility package"), True),
    # a crash told in prose (the shell's own words are rows of torch_messages.csv)
    ("crash_said", "torch", ("core dump", "segfault", "segmentation fault", "kernel died", "kernel dies",
                             "kernel appears to have died", "kernel crashes", "kernel crashed", "kernel keeps dying", "kernel restarting",
                             "python crashes", "python crashed", "process crashed", "crashes when", "crashed when",
                             "crashes on import", "crashes at import"), False),
    # the GPU worked on this machine before, and nothing the user did changed it (a driver's state, not a setup)
    ("worked_before", "driver", ("haven't changed", "have not changed", "nothing changed", "didn't change anything",
                                 "did not change anything", "was working", "used to work", "worked fine",
                                 "was working fine", "worked yesterday", "worked before", "stopped working",
                                 "suddenly", "all of a sudden", "after reboot", "after a reboot", "after rebooting",
                                 "after restart", "after suspend", "after resume", "after waking", "after sleep",
                                 "kernel update", "updated the kernel", "kernel upgrade", "upgraded the kernel",
                                 "after apt upgrade", "after system update", "after updating ubuntu",
                                 "unattended-upgrade"), False),
    ("dataloader", "torch", ("dataloader", "num_workers", "data loader worker"), True),
    # (round 28c) NVIDIA's fabric manager named (its service, its log): an NVSwitch system's fabric in question
    ("fabric_manager", "driver", ("fabricmanager", "fabric manager", "fabric-manager"), True),
    # a process forked from one that may have initialised CUDA (CUDA's state does not survive fork: the child's cuInit
    # or first call fails)
    ("forked_child", "driver", ("multiprocessing", "os.fork", "forked", "fork()", "set_start_method",
                                "spawns a child", "in the child process"), True),
    # a suspend/resume (or hibernation) of the machine told with the failure: the driver's state after it
    ("suspend_said", "driver", ("after suspend", "after a suspend", "suspend my", "suspend the", "i suspend",
                                "system suspends", "suspend/resume", "suspend and resume", "suspend-resume",
                                "from suspend", "suspend corrupts", "suspend breaks", "hibernat", "from sleep",
                                "after sleep", "enters standby", "from standby"), False),
    # torch (or the user) says no GPU is usable, in words other than is_available()'s False
    ("cuda_unavailable", "torch", ("cuda is not available", "cuda not available", "cuda is unavailable",
                                   "cuda isn't available", "no cuda device", "gpu not detected", "gpu is not detected",
                                   "no gpu detected", "doesn't detect my gpu", "does not detect my gpu",
                                   "doesn't detect the gpu", "does not detect the gpu", "not detecting my gpu",
                                   "not detecting the gpu", "can't find my gpu", "cannot find my gpu",
                                   "doesn't recognize my gpu", "does not recognize my gpu", "not using the gpu",
                                   "not using my gpu"), False),
    ("shm_named", "context", ("/dev/shm", "shm-size", "shm_size", "--ipc", "shared memory"), True),
    # (round 34a) the GPU code that runs is compiled by XLA (JAX, jaxlib, torch_xla): XLA's runtime errors and stack
    # frames (jaxlib.xla_extension.XlaRuntimeError, jax.errors.JaxRuntimeError, xla/stream_executor/cuda/...), the
    # package names; the JAX program itself writes no kernel
    ("xla_compiled", "torch", ("xlaruntimeerror", "jaxruntimeerror", "xla_extension", "jaxlib", "import jax",
                               "jax-", "jax.", "jax_", "jax==", "jax ", "xla/stream_executor", "xla/service/gpu",
                               "xla.gpu.", "torch_xla"), False),
    # (round 34a) a kernel the JAX program writes or brings itself (Pallas, jax-triton, an FFI / custom-call target):
    # its faults are that code's, not XLA's
    ("jax_own_kernel", "torch", ("pallas", "jax_triton", "triton_call", "jax.ffi", "ffi_call", "custom_call_target",
                                 "register_custom_call_target"), False),
    # the user says the machine has no (NVIDIA) GPU at all: a GPU not given to the process is not the reading then
    ("no_gpu_said", "driver", ("i don't have a gpu", "i don't have gpu", "i dont have a gpu", "i dont have gpu",
                               "i don't have an nvidia", "i don't have nvidia", "don't have any nvidia",
                               "i do not have a gpu", "i do not have an nvidia", "i have no gpu", "i have no nvidia",
                               "don't have any gpu", "don't have a dedicated gpu", "without a dedicated gpu",
                               "without any gpu", "w/o any gpu", "w/o gpu", "without an nvidia gpu",
                               "machine has no gpu", "machine without gpu", "laptop without gpu", "has no nvidia gpu",
                               "no nvidia gpu on", "cpu only nodes", "cpu-only nodes", "没有gpu", "没有显卡", "没有独显",
                               "没有nvidia"), False),
)


def _scan_libraries(r: _Reader, line: str, low: str) -> None:
    if ".dylib" in low:
        _scan_dylibs(r, line, low)
    if ".so" not in low and ".dll" not in low:
        return
    if "stubs/libcuda.so" in low and _stub_answered(line, low):
        _stub_driver_loaded(r, line)
    missing = any(map(low.__contains__, _MISSING_WORDS)) and "undefined symbol" not in low and "version `" not in low \
        and "version '" not in low and "procedure could not be found" not in low
    if ".so" in low:
        # the loader names the file it could not open right before its message ("X: cannot open shared object
        # file"); another library on that line is the one that needed it ("Could not load library A. Error: X: ...")
        named_missing = {m.group(1) for m in _LIB_RE.finditer(line)
                         if line[m.end():m.end() + 34].lower().startswith(": cannot open shared object")} \
            if "cannot open shared object" in low else set()
        for m in _LIB_RE.finditer(line):
            name = m.group(1)
            if _INSIDE_NAME_RE.match(line, m.end()):  # 'libcudart.so.12_notes.txt': a longer file's name, no library
                continue
            fam, ver = lib_family(name)
            if fam == "driver" and _DRIVER_VER_RE.fullmatch(ver):  # the driver's files carry its version
                r.fact("driver", "driver_version", ver, line)
            if missing and (not named_missing or name in named_missing) and not _loaded_but_failed(line[m.end():].lower()):
                r.event("loader", "library_missing", line, WEIGHT["library"], library=name, family=fam, version=ver)
            r.fact("loader", "libraries_named", [], line)
            named = r.facts["loader"]["libraries_named"]
            if name not in named and len(named) < 40:
                named.append(name)
    if ".dll" in low and missing and not any(map(low.__contains__, _DLL_INIT_FAILED_WORDS)):
        for name in _DLL_RE.findall(line):
            fam, ver = _dll_family(name)
            r.event("loader", "library_missing", line, WEIGHT["library"] + 4, library=name, family=fam, version=ver)


#: a macOS library by its install name ('@rpath/libcudart.8.0.dylib', 'libcublas.dylib'): the version sits before
#: .dylib, where Linux puts it after .so
_DYLIB_RE = re.compile(r"(?<![A-Za-z0-9_+\-])lib([A-Za-z0-9_+\-]{1,60}?)((?:\.[0-9][0-9A-Za-z_]{0,8}){0,3})\.dylib(?![A-Za-z0-9_])")


def _scan_dylibs(r: _Reader, line: str, low: str) -> None:
    """macOS's libraries (dyld's 'Library not loaded: @rpath/libcudart.8.0.dylib', a listing of /usr/local/cuda/lib):
    named as the Linux file of the same library and release (libcudart.so.8.0) for its family, missing where dyld's
    or dlopen's words say so."""
    missing = "library not loaded" in low or "image not found" in low or "(no such file)" in low
    for m in _DYLIB_RE.finditer(line):
        name = m.group(0)
        fam, ver = lib_family(f"lib{m.group(1)}.so{m.group(2)}")
        if missing and fam:
            r.event("loader", "library_missing", line, WEIGHT["library"], library=name, family=fam, version=ver)
        r.fact("loader", "libraries_named", [], line)
        named = r.facts["loader"]["libraries_named"]
        if name not in named and len(named) < 40:
            named.append(name)


#: what follows the toolkit's stub libcuda when it is the object that answered (the loader's or dlsym's "PATH: message"),
#: not a build's link line (-L.../stubs, CMake's CUDA_CUDA_LIBRARY=...): the process runs with the stub, not the driver's
_STUB_ANSWER_RE = re.compile(r"(?:\.1)?: (?:undefined symbol|cannot|version)")


def _stub_answered(line: str, low: str) -> bool:
    i, n = low.find("stubs/libcuda.so"), 0
    while i != -1 and n < 20:
        start = max(low.rfind(c, max(0, i - 400), i) for c in " =\t'\"")
        if _STUB_ANSWER_RE.match(line, i + 16) and line[start:start + 1] != "=" and low[start + 1:start + 3] != "-l":
            return True
        i, n = low.find("stubs/libcuda.so", i + 16), n + 1
    return False


def _stub_driver_loaded(r: _Reader, line: str) -> None:
    from smrnb.doctor import tables

    row = next((x for x in tables.enum_rows("cu_results") if x.name == "CUDA_ERROR_STUB_LIBRARY"), None)
    if row is not None:
        _enum_event(r, row, "name", line)


def _loaded_but_failed(after: str) -> bool:
    """Whether the words after a library's name say it was found and loaded and then failed (its initialisation
    returned an error: ``libcuda.so.575.57.08: cuda driver library init failure: 3``), not that it is missing."""
    return any(w in after for w in _INIT_FAILED_WORDS) and not any(w in after for w in _NOT_THERE_WORDS)


def _dll_family(name: str) -> tuple[str, str]:
    """``("cudart", "11.0")`` for ``cudart64_110.dll``; ``("torch", "")`` for ``c10.dll``."""
    low = name.lower()
    m = re.match(r"(cudart|cublas|cublaslt|cudnn|cufft|curand|cusparse|cusolver|nvrtc|nvjitlink)(?:-builtins)?64_(\d{2,3})",
                 low)  # nvrtc-builtins64_131.dll: NVRTC's companion DLL, of the same CUDA release
    sub = re.match(r"cudnn_[a-z_]{2,30}?64_(\d{1,2})\.dll", low)  # cuDNN 8/9's sub-libraries: cudnn_ops_infer64_8.dll
    if sub:
        return "cudnn", sub.group(1)
    if m:
        digits = m.group(2)
        return ("cublas" if m.group(1) == "cublaslt" else m.group(1)), (f"{digits[:-1]}.{digits[-1]}" if len(digits) == 3
                                                                          else digits)
    if low.startswith(("c10", "torch", "caffe2", "shm.dll")):
        return "torch", ""
    if low.startswith("nvcuda"):
        return "driver", ""
    return "other", ""


def _scan_symbols(r: _Reader, line: str, low: str) -> None:
    if "symbol not found: _" in low:
        # macOS' dyld ("dlopen(x.so, 2): Symbol not found: _GOMP_parallel"): a C name with Mach-O's leading underscore
        for sym in _DYLD_SYMBOL_RE.findall(line)[:2]:
            r.event("loader", "undefined_symbol", line, WEIGHT["symbol"], symbol=sym, owner=symbol_owner(sym),
                    needed_by=None, version_lib=None)
    if "undefined symbol" in low:
        if "\\_" in line or ("*" in line and "symbol: _Z" in line):
            # a Markdown editor escaped every underscore ("pytorch3d/\_C.cpython-310-x86\_64-linux-gnu.so: undefined
            # symbol: \_ZN3c10..."): unescape them; a "\*" left inside such a name is an escaped asterisk, which no
            # mangled name has (round 33p: nor a "*" the paste normaliser unescaped, where the whole text was escaped)
            line = _MD_ESCAPED_SYMBOL_RE.sub(lambda m: m.group(0).replace("\\*", "").replace("*", ""),
                                             line.replace("\\_", "_"))
            low = line.lower()
        if "undefined symbol: *z" in low or "undefined symbol: \\*z" in low:
            # a Markdown renderer read the mangled name's underscores as emphasis ("*ZNK3c1017Foo4init*barEv"): put
            # them back, so the symbol is read as what it is (a C++ name starts "_Z")
            line = _MD_SYMBOL_RE.sub(lambda m: "undefined symbol: _" + m.group(1).replace("\\*", "_").replace("*", "_"),
                                     line)
        for sym in _UNDEF_RE.findall(line):
            sym = sym.rstrip(".,")
            owner = symbol_owner(sym)
            vm = _VERLIB_RE.search(line)
            version_lib = vm.group(1) if vm else None
            if version_lib:
                owner = lib_family(version_lib)[0]
            nb = _NEEDED_BY_RE.search(line)
            r.event("loader", "undefined_symbol", line, WEIGHT["symbol"], symbol=sym, owner=owner,
                    needed_by=nb.group(1) if nb else None, version_lib=version_lib)
    if "undefined" in low and ("reference" in low or "symbol" not in low):
        # the linker's "undefined reference to `cusparseX'", or a CUDA library's API named as undefined in prose: a
        # function an older copy of that library lacks (another toolkit's library linked or loaded)
        refs = _UNDEF_REF_RE.findall(line) or [m for m in _CUDA_API_RE.findall(line)]
        for sym in refs[:4]:
            owner = symbol_owner(sym)
            if owner in _CUDA_LIB_OWNERS:
                r.event("loader", "undefined_symbol", line, WEIGHT["symbol"] + 2, symbol=sym, owner=owner, needed_by=None,
                        version_lib=None, at="link" if "reference" in low or "link" in low else "load")
    if "undefined reference to" in low and "::" in line:
        for sym in _UNDEF_TORCH_REF_RE.findall(line)[:2]:
            r.event("loader", "undefined_symbol", line, WEIGHT["symbol"], symbol=sym, owner="torch", needed_by=None,
                    version_lib=None, at="link")
    if "undefined reference to" in low and "std::" in line:
        for sym in _UNDEF_STD_REF_RE.findall(line)[:1]:
            r.event("toolkit", "stdlib_undefined_at_link", line, WEIGHT["symbol"], symbol=sym)
    if "not defined" in low and "symbol " in low:
        for sym, lib in _SYM_NOT_DEFINED_RE.findall(line):
            r.event("loader", "undefined_symbol", line, WEIGHT["symbol"], symbol=sym, owner=lib_family(lib)[0],
                    needed_by=None, version_lib=lib)
    read = False
    if ("not found" in low or "(required by" in low) and "version" in low:
        for lib, ver, by, by_cut in _SYMVER_RE.findall(line):
            by = by or by_cut  # the loader's line with "not found" cut off still names who required it
            if ver.startswith(("GLIBC", "CXXABI")) or "lib" in lib or by:
                r.event("loader", "symbol_version_not_found", line, WEIGHT["symbol_version"], version=ver,
                        library=lib or None, required_by=by or None)
                read = True
    if "not defined in file" in low:
        for ver, lib in _SYM_TAG_NOT_DEFINED_RE.findall(line):
            r.event("loader", "symbol_version_not_found", line, WEIGHT["symbol_version"], version=ver, library=lib,
                    required_by=None)
            read = True
    if not read and ("glibc" in low or "cxxabi" in low):
        for tag, ver in _TAG_SAID_MISSING_RE.findall(line)[:2]:
            r.event("loader", "symbol_version_not_found", line, WEIGHT["symbol_version"] + 6,
                    version=f"{tag.upper()}_{ver}", library=None, required_by=None)


#: a release of torch's CPU-only wheels without the package's name ("2.1.1+cpu")
_BARE_CPU_VER_RE = re.compile(r"(?<![\w.+-])([12]\.[0-9]{1,2}\.[0-9]{1,2})\+cpu\b")


def _in_url(line: str, at: int) -> bool:
    """(round 28b) Whether position ``at`` of ``line`` lies in a URL: a wheel page named for a torch release
    (PyG's https://data.pyg.org/whl/torch-2.0.0+cu118.html) says which torch a wheel was made for, not which is installed."""
    start = max(line.rfind(ch, 0, at) for ch in " \t(<'\"`")
    return "://" in line[start + 1: at]


#: (blind audit 36, F7/F12) a torch row of `pip list` or `conda list`: the name, the column padding (wider than
#: _TORCH_VER_RE's), the version, and conda's build string and channel ("pytorch  1.11.0  py3.9_cuda11.3_cudnn8.2.0_0
#: pytorch", "torch  2.0.1  pypi_0  pypi"); and a torch dist-info / conda-meta record of site-packages or conda-meta
_LISTED_TORCH_RE = re.compile(r"^\s{0,4}(py)?torch\s{2,60}v?([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)(?:\+(cpu|cu[0-9]{2,3}))?"
                              r"(?:\s{1,60}(\S{1,80})(?:\s{1,60}(\S{1,40}))?)?\s*$")
_TORCH_RECORD_RE = re.compile(r"(?<![\w.+-])(py)?torch-([0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?)(?:\+(?:cpu|cu[0-9]{2,3}))?"
                              r"(\.dist-info|\.egg-info|-[\w.]{1,80}\.json)\b")
#: a PyG operator wheel's local version names the torch it was made for ("torch-scatter  2.1.2+pt21cu121")
_PT_TAG_RE = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]{0,60}?)(?:\s{1,60}|==|-)v?[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,4})?"
                        r"\+pt([0-9])([0-9]{1,2})(?:cu[0-9]{2,3}|cpu)\b")


def _listed_torch(r: _Reader, line: str, low: str) -> None:
    """(blind audit 36, F7/F12) torch as a package manager lists it (``torch.installs_listed``: each install's
    version and manager), and the torch a PyG wheel was made for (``loader.built_for_torch``)."""
    m = _LISTED_TORCH_RE.match(line)
    installs = list(r.facts["torch"].get("installs_listed") or [])
    if m:
        py, ver, tag, build, channel = m.groups()
        _torch_version(r, ver, (tag or "").lower(), line)
        pypi = "pypi" in (build or "").lower() or (channel or "").lower() == "pypi"
        # conda list's row names its build (and a channel but for conda-forge's default); pip's own `pip list` row
        # has none and lists a conda install too: its manager is unknown ("listed")
        by = "pip" if pypi else "conda" if (build or py) else "listed"
        installs.append({"name": "pytorch" if py else "torch", "version": ver, "by": by, "channel": channel})
    for py, ver, kind in _TORCH_RECORD_RE.findall(line[:2000]):
        by = "conda" if kind.endswith(".json") else "pip"
        if not any(i["version"] == ver and i["by"] == by for i in installs):
            installs.append({"name": "pytorch" if py else "torch", "version": ver, "by": by, "channel": None,
                             "record": True})
    if installs and len(installs) <= 8 and installs != r.facts["torch"].get("installs_listed"):
        r.fact("torch", "installs_listed", installs, line, replace=True)
    if "+pt" in low:
        built = dict(r.facts["loader"].get("built_for_torch") or {})
        for name, major, minor in _PT_TAG_RE.findall(line[:2000])[:4]:
            built[name.lower().replace("-", "_")] = f"{major}.{minor}"
        if built:
            r.fact("loader", "built_for_torch", built, line, replace=True)


def _scan_versions(r: _Reader, line: str, low: str) -> None:
    if "torch" in low:
        _listed_torch(r, line, low)
        for m in _TORCH_VER_RE.finditer(line):
            ver, tag = m.group(1), (m.group(2) or "").lower()
            if _in_url(line, m.start()):
                continue  # (round 28b) a wheel page's name (data.pyg.org/whl/torch-2.0.0+cu118.html), not the torch installed
            if _WISHED_RE.search(low[max(0, m.start() - 40): m.start()]):
                r.fact("torch", "version_wanted", ver + (f"+{tag}" if tag else ""), line)
                continue  # the release the user expected, not the one installed
            _torch_version(r, ver, tag, line)
        if "requirement already satisfied" in low:
            for ver, tag in _TORCH_SATISFIED_RE.findall(line):
                _torch_version(r, ver, tag.lower(), line)
    if "cuda" in low or "pytorch" in low:
        for rx in _TORCH_CUDA_RES:
            for v in rx.findall(line):
                r.fact("torch", "cuda", v, line)
                r.fact("torch", "installed", True, line)
        for v in _CUDA_WANTED_RE.findall(low):
            r.fact("torch", "cuda_wanted", v, line)
    if "release" in low:
        for v, full in _NVCC_REL_RE.findall(line):
            _nvcc(r, line, version=v, version_full=full)
    if "detected cuda version" in low:
        for v in _DETECTED_CUDA_RE.findall(line):
            _nvcc(r, line, version=v)
    if "nccl version" in low:
        for v in _NCCL_VER_RE.findall(line):
            r.fact("torch", "nccl_version", v, line)
    if "driver version" in low or "nvidia-smi" in low:
        for v in _DRIVER_HDR_RE.findall(line) + _SMI_HDR_RE.findall(line):
            r.fact("driver", "driver_version", v, line)
    if "cuda version" in low and ("driver version" in low or "nvidia-smi" in low or "nvcc" not in low
                                  and ("|" in line or low.lstrip().startswith("cuda version"))):
        for v in _CUDA_VER_RE.findall(line):
            r.fact("driver", "cuda_driver_version", v, line)
    if "found version" in low:
        for v in _DRIVER_FOUND_RE.findall(line):
            n = int(v)
            r.fact("driver", "cuda_driver_version", f"{n // 1000}.{(n % 1000) // 10}", line)
    if "toolkit" in low and "driver" in low:
        for _tk, dv in _WARP_BANNER_RE.findall(line):
            r.fact("driver", "cuda_driver_version", dv, line)
    if "runtime version" in low:
        for dv, _rv in _DEVICEQUERY_RE.findall(line):
            r.fact("driver", "cuda_driver_version", dv, line)
    if "driver" in low and "driver_version" not in r.facts["driver"]:
        for v in _PROSE_DRIVER_RE.findall(line):
            r.fact("driver", "driver_version", v, line)
    if "cuda" in low:
        _cuda_named(r, line, low)
    if "torch" in low and "+" in line:
        for m in _TAGGED_VER_RE.finditer(line):
            if _in_url(line, m.start()):
                continue
            if _WISHED_RE.search(low[max(0, m.start() - 40): m.start()]):
                r.fact("torch", "version_wanted", f"{m.group(1)}+{m.group(2).lower()}", line)
            elif not any(c in low[max(0, m.start() - 60): m.start()].rstrip(" \t=:v")[-16:] for c in _COMPANIONS) \
                    and not _other_package(low[max(0, m.start() - 40): m.start()]):
                # (round 28b) a companion's name before its version, also across `pip list`'s column padding
                _torch_version(r, m.group(1), m.group(2).lower(), line)
    if "libtorch-" in low and "shared-with-deps" in low:
        # the LibTorch archive's name tells its string ABI: libtorch-cxx11-abi-shared-with-deps-X (new, std::__cxx11)
        # or libtorch-shared-with-deps-X (the pre-cxx11 one; pytorch.org's "Pre-cxx11 ABI" download)
        r.fact("torch", "cxx11_abi", "cxx11-abi-shared" in low, line)
    if "+cpu" in low and "torch" not in low:  # a bare '2.1.1+cpu' (a version table, `pip list` columns): only
        for v in _BARE_CPU_VER_RE.findall(line)[:1]:  # torch's own wheels (and its companions') carry that tag
            _torch_version(r, v, "cpu", line)
    if "gcc" in low or "g++" in low or "c++ (" in low:
        for v in _GCC_VER_RE.findall(line):
            r.fact("toolkit", "gcc", {"version": v, "major": int(v.split(".")[0])}, line)
    if "later than" in low:
        for g in _GCC_MAX_RE.findall(low):
            r.fact("toolkit", "max_gcc_for_build_nvcc", int(g), line)


#: the word right before a tagged version and what joins them ("exllamav2 0.0.15+cu121", "xformers==0.0.23+cu121")
_BEFORE_VER_RE = re.compile(r"([a-z_][a-z0-9_.\-]{1,60}?)(\s*(?:===?|==|=)\s*v?|\s*:?\s+v?)$")


def _other_package(before: str) -> bool:
    """Whether the word right before a tagged version names another package than torch: pinned with ``==``/``=``,
    or a name of the packages' shape (a digit, ``_`` or ``-`` in it: exllamav2, flash_attn, auto-gptq); prose
    ("tried 1.11.0+cu113", "is 2.0.1+cu117") and torch's own name are not."""
    m = _BEFORE_VER_RE.search(before)
    if not m:
        return False
    word = m.group(1).rstrip(".-")
    if word in ("torch", "pytorch", "torch.__version__", "__version__", "version"):
        return False
    return "=" in m.group(2) or any(ch.isdigit() or ch in "_-" for ch in word)


def _cuda_named(r: _Reader, line: str, low: str) -> None:
    """CUDA versions a text names without saying which component (``toolkit.cuda_named``: what a user says they
    have is most often the toolkit they installed). On a line about nvidia-smi it is the driver's CUDA (nvidia-smi
    prints no other); nvidia-smi's header, nvcc's release line and torch's own CUDA are read elsewhere."""
    header = "cuda version" in low and ("driver version" in low or "|" in line)  # nvidia-smi's header: read above
    if header or "nvidia-smi" in low or "release " in low or "runtime version" in low:
        if "nvidia-smi" in low and not header:
            for v in _CUDA_NAMED_RE.findall(line):
                r.fact("driver", "cuda_driver_version", v, line)
        return
    if "torch" in low and ("compiled with" in low or "used to build" in low or "version.cuda" in low):
        return
    named = r.facts["toolkit"].get("cuda_named") or []
    for m in _CUDA_NAMED_RE.finditer(line):
        before = low[max(0, m.start() - 8): m.start()]
        if "pytorch-" in before or "version." in before or m.group(1) in named or len(named) >= 8:
            continue
        named.append(m.group(1))
    if named:
        r.fact("toolkit", "cuda_named", named, line)


#: (round 28c) torch's version printed on the line after the code that prints it (``print(torch.__version__)`` in a
#: REPL, a notebook's Out[n], a script's output)
#: (round 37e) and by up to four more values the same print gave (a companion's version: "2.1.0+cu118 True 0.7.5")
#: (round 36g) also followed on that line by what the same print gave next: torch.version.cuda
#: (``print(torch.__version__, torch.version.cuda)`` -> "2.5.1+cu124 12.4", "2.1.0+cpu None"), a bool, another release
_PRINTED_TORCH_VERSION_RE = re.compile(r"torch\.__version__\b[^\n]{0,80}\n(?:Out\[\d+\]:\s*)?['\"]?(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)"
                                       r"(?:\+(cu\d{2,3}|cpu|rocm[\d.]+))?['\"]?"
                                       r"(?:[ \t]{1,4}(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?|None|True|False)\b)?"
                                       r"(?:[ \t]{1,4}[\w.+-]{1,30}){0,4}[ \t]*(?:\n|$)")
#: the code printed torch.__version__ and then torch.version.cuda, in one print
_PRINTS_VERSION_THEN_CUDA_RE = re.compile(r"torch\.__version__\s{0,3},\s{0,3}torch\.version\.cuda\b")


def _printed_torch_version(r: _Reader, text: str) -> None:
    if "__version__" not in text:
        return
    for m in _PRINTED_TORCH_VERSION_RE.finditer(text):
        lines = m.group(0).split("\n")
        line = lines[-2] if m.group(0).endswith("\n") else lines[-1]
        _torch_version(r, m.group(1), m.group(2) or "", line)
        cuda = m.group(3) or ""
        if not m.group(2) and re.fullmatch(r"\d{1,2}\.\d", cuda) and _PRINTS_VERSION_THEN_CUDA_RE.search(lines[0]) \
                and r.facts["torch"].get("version") == m.group(1):
            # an untagged build (conda's, a source build) printed with its torch.version.cuda
            r.fact("torch", "cuda", cuda, line)


def _torch_version(r: _Reader, ver: str, tag: str, line: str) -> None:
    if int(ver.split(".")[0]) >= 10:
        return  # (round 37e) no torch release: a container's year.month tag (nvcr.io/nvidia/pytorch:23.10-py3)
    d = r.facts["torch"]
    seen = d.get("versions_shown") or []
    if ver not in seen and len(seen) < 8 and "e.g." not in line.lower():
        # (round 32b) every torch release the text shows installed, in order (not an issue template's example:
        # "Backend Library & Version (e.g., PyTorch 0.4.1, ...)")
        r.fact("torch", "versions_shown", [*seen, ver], line, replace=True)
    if d.get("version") and "+" in str(d["version"]) and not tag:
        return
    if d.get("version") and not tag:
        return
    full = ver + (f"+{tag}" if tag else "")
    r.fact("torch", "version", full, line, replace=True)
    r.fact("torch", "version_base", ver, line, replace=True)
    r.fact("torch", "installed", True, line)
    if tag == "cpu":  # a known CPU build: cuda None (not unknown), as the probe gives it
        d["cuda"] = None
        d["cpu_build"] = True
        d.setdefault("read_from", {}).update(cuda=line.strip()[:240], cpu_build=line.strip()[:240])
    elif tag.startswith("cu") and len(tag) >= 4:
        r.fact("torch", "cuda", f"{tag[2:-1]}.{tag[-1]}", line, replace=True)
    elif (m := re.match(r"rocm([0-9]{1,2}\.[0-9]{1,2})", tag.lower())):  # (round 32i) torch's ROCm build ("+rocm6.0")
        r.fact("torch", "hip", m.group(1), line, replace=True)


def _nvcc(r: _Reader, line: str, version: str | None = None, path: str | None = None,
          version_full: str | None = None) -> None:
    tk = r.facts["toolkit"]
    nvccs = tk.setdefault("nvccs", [])
    tk.setdefault("read_from", {}).setdefault("nvccs", line.strip()[:240])
    for n in nvccs:
        if (version and n.get("version") == version) or (path and n.get("path") == path):
            if version:
                n.setdefault("version", version)
            if path and not n.get("path"):
                n["path"] = path
            return
    if len(nvccs) < 8:
        nvccs.append({k: v for k, v in (("version", version), ("version_full", version_full), ("path", path)) if v})
    if version:
        r.fact("toolkit", "build_nvcc_version", version, line)


def _scan_paths(r: _Reader, line: str, low: str) -> None:
    if "cuda_home" in low or "cuda_path" in low or "cuda_root" in low or "cuda_toolkit_root" in low:
        for var, v in _CUDA_HOME_RE.findall(line) + _SAID_VALUE_RE.findall(line):
            v = v.strip().rstrip(".,;`'\"")
            if not v or v.startswith(("$", "%", "{")) or v.lower() in ("none", "''") or var not in _HOME_VARS:
                continue
            _home(r, v, var if var in ("CUDA_HOME", "CUDA_PATH") else "CUDA_HOME", line, cuda_home_problem)
    if "nvcc" in low and ("/bin/nvcc" in low or "\\bin\\nvcc" in low):
        quoted = []
        for q in ("'", '"'):  # a quoted path a build tried (spaces and colons included; Windows' ninja quotes with ")
            if q not in line:
                continue
            for i, piece in enumerate(line.split(q)):
                if i % 2 == 0:  # outside quotes (a quote cut off at the start): the last word only
                    piece = piece.split()[-1] if piece.split() else ""
                if piece.endswith(("/bin/nvcc", "\\bin\\nvcc", "/bin/nvcc.exe", "\\bin\\nvcc.exe")) \
                        and len(piece) <= 2000:
                    quoted.append(piece)
                    _nvcc_path(r, piece, line, cuda_home_problem)
        for m in _NVCC_PATH_RE.finditer(line):
            p = m.group(1)
            if any(q.endswith(p) for q in quoted) or (
                    m.start() > 0 and line[m.start() - 1] == " " and _WIN_PATH_OPEN_RE.search(line, 0, m.start())):
                continue  # a part of a quoted path, or the tail of a Windows path with spaces ('C:\\Program Files\\...')
            _nvcc_path(r, p, line, cuda_home_problem)
    if "-i" in low and "cuda" in low:
        for inc in _INCLUDE_RE.findall(line):
            home = inc[: -len("/include")]
            r.fact("toolkit", "cuda_include_dir", inc, line)
            m = _CUDA_DIR_VER_RE.search(home)
            if m:
                r.fact("toolkit", "include_cuda_version", m.group(1), line)
            if cuda_home_problem(home):
                _home(r, home, "CUDA_HOME", line, cuda_home_problem, implied=True)
    if "ld_library_path" in low or "path=" in low or "path:" in low:
        for var, v in _LLP_RE.findall(line):
            if var == "LD_LIBRARY_PATH":
                r.fact("loader", "current_ld_library_path", v.rstrip(".,"), line)
            else:  # the CUDA entries of a PATH shown (the live loader probe keeps the same ones)
                entries = [e for e in v.split(":") if "cuda" in e.lower() or "nvidia" in e.lower()]
                if entries:
                    r.fact("toolkit", "path_cuda_entries", entries[:8], line)
    if "cuda_visible_devices" in low:
        for v in _CVD_RE.findall(line):
            if v.lower() not in ("none", "null", "unset"):
                r.fact("context", "cuda_visible_devices", v, line)
    if "torch_cuda_arch_list" in low:
        for v in _ARCH_LIST_RE.findall(line):
            r.fact("toolkit", "torch_cuda_arch_list_env", v.strip(), line)
    if "torch_cuda_arch_list" in low or "gencode" in low or "arch=compute_" in low or "cuda_architectures" in low or \
            "-arch" in low or "--gpu-architecture" in low:
        archs = _extension_archs(line)
        if archs:
            r.fact("toolkit", "extension_archs", archs, line)
    if "nvcc" in low and ".cu" in low:
        m = _NVCC_CU_CMD_RE.search(line.strip())
        if m and not re.search(r"\s-c\s|torch|TORCH|python|site-packages|pip-", m.group(1)):
            # (round 29a) the user's own nvcc build of a .cu file into a program (not a compile-only step of an
            # extension's build: cpp_extension's nvcc lines carry -c and -DTORCH_EXTENSION_NAME)
            r.fact("toolkit", "nvcc_command", m.group(1).strip(), line)


#: quoting and Markdown marks around a value read from text (a backtick of inline code, quotes, emphasis)
_VALUE_MARKS = "`'\"*_"


def _unquoted(value: str) -> str:
    """A value read from text without the quoting and Markdown marks around it ("`/usr/local/cuda" ->
    "/usr/local/cuda"), before its shape is judged (round 21)."""
    return value.strip().strip(_VALUE_MARKS).strip()


def _home(r: _Reader, value: str, var: str, line: str, problem: Any, implied: bool = False) -> None:
    value = _unquoted(value) or value
    key = "cuda_home_env" if var == "CUDA_HOME" else "cuda_path_env"
    if not implied:
        r.fact("toolkit", key, value, line)
    why = problem(value)
    if why and not r.facts["toolkit"].get("cuda_home_malformed"):
        r.fact("toolkit", "cuda_home_malformed", True, line, replace=True)
        r.fact("toolkit", "cuda_home_malformed_why", why, line, replace=True)
        r.fact("toolkit", "cuda_home_malformed_var", var, line, replace=True)
        r.fact("toolkit", "cuda_home_malformed_value", value, line, replace=True)


def _nvcc_path(r: _Reader, path: str, line: str, problem: Any) -> None:
    path = _unquoted(path) or path
    home = re.sub(r"[/\\]bin[/\\]nvcc(?:\.exe)?$", "", path)
    if home == path:
        return
    r.fact("toolkit", "build_nvcc", path, line)
    r.fact("toolkit", "build_cuda_home", home, line)
    m = _CUDA_DIR_VER_RE.search(home) or _WIN_CUDA_DIR_VER_RE.search(home)
    _nvcc(r, line, version=m.group(1) if m else None, path=path)
    if home and problem(home):
        _home(r, home, "CUDA_HOME", line, problem, implied=True)


#: a compute capability as messages print it ("6.1"; not "3.10", not "12.1.0")
_CC_NUM = r"([0-9]{1,2}\.[0-9])(?![0-9.])"
#: the minimum a message states: after its word ("Minimum required: 6.1", "requires compute capability 7.0", ">= 7.5",
#: "lower than the minimum required 7.0"), before its word ("7.0 or higher"), or a comparison ("3.0 < 3.5")
_CC_NEED_BEFORE_RE = re.compile(r"(?:minimum|required|requires?|at least|>=|≥)[^0-9\n]{0,30}?" + _CC_NUM)
_CC_NEED_AFTER_RE = re.compile(_CC_NUM + r" ?(?:or (?:higher|newer|later|above|greater)|\+)")
_CC_LESS_RE = re.compile(_CC_NUM + r" ?< ?" + _CC_NUM)
_CC_HAVE_RE = re.compile(r"capability[^0-9\n]{0,12}?" + _CC_NUM)
#: words of a message that refuses the GPU with no capability of its own named ("only supports GPUs with ... >= 7.5")
_CC_REFUSED = ("only support", "not supported", "too old", "is not compatible", "unsupported")


#: a GPU said too old, or no longer supported, by the software ("CUDA GPU is too old", "Your GPU (sm_35) is too old",
#: "The GeForce GT 730 GPU is not supported anymore"); not a driver's ("the NVIDIA driver on your system is too old")
_GPU_TOO_OLD_RE = re.compile(r"(?:\b(?:gpu|graphics card|video card)\b(?: \([^)\n]{1,40}\))? (?:is|was) (?:too old|no longer "
                             r"supported|not supported anymore)|\b(?:fermi|kepler|maxwell|pascal|volta)(?: gpus?| cards?| "
                             r"architecture)?(?: and (?:older|earlier)| or (?:older|earlier))? (?:gpus? )?(?:is|are) "
                             r"(?:not|no longer) supported)(?! ?\?)")  # not a question ("is my gpu too old?")


def _capability_below_minimum(r: _Reader, line: str, low: str) -> None:
    """A line that states a minimum compute capability and the GPU's, the GPU's below it (or that refuses the GPU
    against a minimum without naming its own), in any tool's words: the GPU is older than the software supports."""
    less = _CC_LESS_RE.search(low)
    need_m = None if less else (_CC_NEED_BEFORE_RE.search(low) or _CC_NEED_AFTER_RE.search(low))
    if not (less or need_m):
        return
    need = less.group(2) if less else need_m.group(1)
    haves = [less.group(1)] if less else [h for h in _CC_HAVE_RE.findall(low) if h != need]
    if (haves and float(haves[0]) < float(need)) or (not haves and any(map(low.__contains__, _CC_REFUSED))):
        r.event("toolkit", "sign", line, WEIGHT["sign"], sign="gpu_too_old_for_extension",
                phrase=f"compute capability {haves[0] if haves else '?'} below {need}")


def _scan_gpus(r: _Reader, line: str, low: str) -> None:
    gpus = r.facts["driver"].get("gpus_named") or []
    if "capabilit" in low and len(line) < 2000:
        _capability_below_minimum(r, line, low)
    if ("too old" in low or "supported" in low) and "driver" not in low and len(line) < 2000:
        m = _GPU_TOO_OLD_RE.search(low)
        if m:
            r.event("toolkit", "sign", line, WEIGHT["sign"], sign="gpu_too_old_for_extension", phrase=m.group(0))
    if "capability" in low:
        cc = None
        m = _SM_CAP_RE.search(line)
        if m:
            d = m.group(1)
            cc = f"{d[:-1]}.{d[-1]}"
        else:
            m2 = _CAP_RE.search(line)
            if m2:
                cc = f"{m2.group(1)}.{m2.group(2)}"
        if cc:
            name = _gpu_name(line) or ""
            if not any(g.get("compute_capability") == cc for g in gpus):
                gpus.append({"name": name or None, "compute_capability": cc})
                r.facts["driver"]["gpus_named"] = gpus
                r.facts["driver"].setdefault("read_from", {}).setdefault("gpus_named", line.strip()[:240])
    if ("gpu" in low or "nvidia" in low or "rtx" in low or "gtx" in low or "tesla" in low or "quadro" in low
            or "geforce" in low or "titan" in low or (len(line) < 400 and any(map(low.__contains__, _GPU_PROSE_WORDS)))):
        # (blind audit 36 B) prose names a GPU without the word GPU: "H200 node", "on an H100", "A100 80GB node"
        name = _gpu_name(line)
        if name and not _GPU_WORDS_RE.search(low) and not _gpu_in_prose(line, low, name):
            name = None  # a model's letters and digits with no word that makes it a GPU ("the L4 cache")
        if name and any(name.lower() in str(g.get("name") or "").lower() for g in gpus):
            name = None  # the model again, shorter ("5070 ti" after "GeForce RTX 5070 Ti")
        if name and not any(g.get("name") == name for g in gpus) and len(gpus) < 8:
            from smrnb.doctor import tables  # (here, not per line: round 28p)

            gpus.append({"name": name, "compute_capability": tables.compute_capability_for_gpu(name)})
            r.facts["driver"]["gpus_named"] = gpus
            r.facts["driver"].setdefault("read_from", {}).setdefault("gpus_named", line.strip()[:240])
        if name and ", " in line and "driver_version" not in r.facts["driver"]:
            # (round 37f, blind audit 37 F14) nvidia-smi --query-gpu=name,...,driver_version --format=csv: a field of
            # the GPU's line that is a driver release (510.47.03)
            ver = next((f.strip() for f in line.split(",")[1:] if _DRIVER_VER_RE.fullmatch(f.strip())), None)
            if ver:
                r.fact("driver", "driver_version", ver, line)
    if "sm_" in low or "compute_" in low:
        archs = r.facts["toolkit"].get("archs_named") or []
        for a in _SM_RE.findall(low):
            if a not in archs and len(archs) < 16:
                archs.append(a)
        if archs:
            r.facts["toolkit"]["archs_named"] = archs


#: (blind audit 36 B) the words beside a GPU's model in prose that names no "GPU" ("H200 node", "on an H100",
#: "A100 80GB node", "RTX 4090 box"): the line is then searched for a model of tables/gpu_cc.csv
_GPU_PROSE_WORDS = (" node", " box", "machine", "server", "instance", "workstation", " rig", "gb ", "gb,", "on an ",
                    "on a ", "on my ", "with an ", "with a ", "using an ", "using a ")


_GPU_WORDS_RE = re.compile(r"gpu|nvidia|rtx|gtx|tesla|quadro|geforce|titan")
_GPU_BEFORE_RE = re.compile(r"\b(?:on|with|using|an?|my|our|one|single|\d{1,2} ?x)\s{1,2}$")
_GPU_AFTER_RE = re.compile(r"\s{1,2}(?:\d{2,3} ?gb\b|(?:node|box|machine|server|instance|workstation|rig|host)s?\b)")


def _gpu_in_prose(line: str, low: str, name: str) -> bool:
    """Whether the model ``name`` stands in ``line`` as a machine's GPU: after "on an" / "with a" / "my", or before
    "node" / "box" / "80GB"."""
    i = line.find(name)
    return i >= 0 and bool(_GPU_BEFORE_RE.search(low[max(0, i - 16):i])
                           or _GPU_AFTER_RE.match(low, i + len(name)))


@functools.cache
def _gpu_name_re() -> re.Pattern[str]:
    from smrnb.doctor import tables

    pats = "|".join(f"(?:{p.pattern.pattern})" for p in tables._gpu_patterns())
    # (round 28c) a model's suffix words ("Ti", "SUPER", "80GB"), not the sentence's next words ("with CUDA", "GPU with",
    # "after updating")
    # (round 29) every name starts with a capital or a digit (the vendor words, each row's alternatives: a test of
    # tests/doctor/test_speed29.py holds the table to it): the lookahead rejects the other positions at once (a
    # 190-character line took 350 us, 70 us with it)
    return re.compile(r"(?=[A-Z0-9])(?:NVIDIA |Tesla |GeForce |Quadro )?(?:" + pats + r")(?: (?!(?i:with|gpu|gpus|is|are|and|or|on|"
                      r"for|the|cuda|in|at|has|was|not|after|before|from|to|of|but|but|card|node|nodes|box|machine|server|instance|"
                      r"workstation|rig|host|here|torch|pytorch)\b)[A-Za-z0-9]{1,8}){0,2}")


def _gpu_name(line: str) -> str | None:
    from smrnb.doctor import tables

    m = _gpu_name_re().search(tables.split_gpu_vendor(line[:1000]))
    return m.group(0).strip() if m else None


def _installed_package_imports_its_own(r: _Reader, mod: str) -> bool:
    """Whether the traceback's last frame is an installed package's own file (under site-/dist-packages/<package>/)
    importing ``mod``, a module of that same package, relatively ("from .pmeshlab import *" in pymeshlab/__init__.py):
    the install lacks a module its own code imports."""
    parent, _, last = mod.rpartition(".")
    if not parent or not r.call_line.startswith(("from .", "import .")) or last not in r.call_line:
        return False
    path = r.frame.replace("\\", "/").lower()
    return any(f"{k}/{parent.replace('.', '/').lower()}/" in path for k in ("site-packages", "dist-packages"))


#: a call of an extension's compiled module by its Python wrapper (``_C.rasterize_gaussians(``, ``_backend.morton3D(``),
#: torch's own ``torch._C`` left out (round 18)
_EXT_OP_CALL_RE = re.compile(r"(?<![\w.])(?:_C|_backend|_ext|_cuda|_ops)\.[A-Za-z_]\w{0,80}\(")


#: (round 32c) CPython 2's ImportError for a module not found: the name unquoted (Python/import.c "No module named
#: %.200s"); Python 3 prints it quoted ("No module named %R", ModuleNotFoundError from 3.6)
_PY2_NO_MODULE_RE = re.compile(r"(?:^|[\s\"'`(])ImportError: No module named [A-Za-z_][\w.]{0,100}(?=\s*$|[\"'`)]|\s)")


def _scan_no_module(r: _Reader, line: str) -> None:
    """Python's "No module named X" (``torch.module_missing``); a name with a dash in Python's own line keeps the
    frame that asked for it (``dashed``: no import statement can name it, importlib was given a distribution's name)."""
    _note_failed_import(r, line)
    bad = _MODULE_NAME_WITH_DASH_RE.search(line)
    path = r.frame.replace("\\", "/")
    installed = "-packages/" in path or ".egg" in path
    dashed = {"dashed": "own" if path and not installed else ("installed" if installed else "none")} if bad else {}
    for m in _NO_MODULE_RE.findall(line):
        hyphen = {"pip_name": m.rstrip(".")} if "-" in m else {}  # a name no import finds: the code names a pip name
        m = said = m.rstrip(".").replace("-", "_")
        if "." not in m and r.from_import and r.from_import[0].endswith("." + m):
            m = r.from_import[0]  # Python 2 names the last part only ("from open3d.linux import *": 'linux')
        own: dict[str, Any] = {"own_import": True} if _installed_package_imports_its_own(r, m) else {}
        if not own and _project_package_import(r, m):
            own = {"project_import": r.from_import[0]}
        elif "." not in m and r.from_import and r.from_import[0].startswith(m + "."):
            own = {"imported_as": r.from_import[0]}  # (round 25) the import that asked for it: its parts below m
        py2 = {"python2": True} if _PY2_NO_MODULE_RE.search(line) else {}
        if py2 and "." in said and not own:
            # (round 32c) Python 2 names the whole dotted name only when its first part is not found (import.c's
            # load_next reports the rest of the name from the part that failed: "import os.foo" -> "No module named
            # foo", "import foo.bar" with no foo -> "No module named foo.bar"): the top-level package is missing
            m = m.split(".")[0]
        r.event("torch", "module_missing", line, WEIGHT["module"], module=m, **own, **dashed, **hyphen, **py2)


#: (round 30c) Python's "No module named X" retyped in a title without its "named" ("No module custom_rasterizer",
#: "No module name chamfer"): read only for a module that only its project's source tree builds
#: (tables/source_built_modules.csv), so a prose "no module is loaded" is not a module
_NO_MODULE_RETYPED_RE = re.compile(r"\b[Nn]o module(?: name)? [`'\"‘“]?([A-Za-z_][A-Za-z0-9_]{1,60})[`'\"’”]?(?=[\s.,:;!?]|$)")


def _scan_no_module_any(r: _Reader, line: str, low: str) -> None:
    """Python's "No module named X", or (round 30c) its retyping without "named" for a source-built module."""
    if "no module named" in low:
        _scan_no_module(r, line)
    else:
        _scan_no_module_retyped(r, line)


#: Python's NameError for a name the code never bound ("NameError: name 'corr_sampler' is not defined"; Python 2's
#: "global name ... is not defined"), CPython Python/ceval.c NAME_ERROR_MSG
_NAME_UNDEFINED_RE = re.compile(r"NameError: (?:global )?name '([A-Za-z_]\w{0,80})' is not defined")


def _scan_guarded_import_undefined(r: _Reader, line: str) -> None:
    """(round 32a) A NameError for a CUDA extension only its project's source tree builds (tables/
    source_built_modules.csv): the project imports it inside try/except (RAFT-Stereo's core/corr.py: ``try: import
    corr_sampler except: pass``), so the module never built is a NameError at its first use, read as that module
    missing (``torch.module_missing``, ``guarded_import``)."""
    from smrnb.doctor import tables

    m = _NAME_UNDEFINED_RE.search(line)
    if m and tables.source_built_row(m.group(1)) is not None:
        r.event("torch", "module_missing", line, WEIGHT["module"], module=m.group(1), guarded_import=True)
    elif m and (full := _release_named_api(m.group(1))):
        # (round 34b) a distinctive name a release of its library added or removed (tables/added_apis.csv,
        # removed_apis.csv: flash-attn 2's flash_attn_varlen_func): the code imports it inside try/except (flash-attn
        # being optional), so the installed release without it is a NameError at its first use
        r.event("torch", "module_missing", line, WEIGHT["module"], module=full, import_name=True, guarded_import=True)


@functools.cache
def _release_named_apis() -> dict[str, str]:
    """(round 34b) The names tables/added_apis.csv and removed_apis.csv give for a release of one library, of their
    import form (code binds them bare with ``from module import name``; a name of the attribute form is used as
    ``module.name``, so it is never a NameError of its own), distinctive enough to stand alone in Python's "name 'X' is
    not defined": 16 characters or more with two inner underscores (not gaussian_filter, kaiming_init: names code
    also forgets to import), named by rows of one library only -> the dotted name of its row."""
    from smrnb.doctor import tables

    by: dict[str, set[str]] = {}
    full: dict[str, str] = {}
    for table in ("added_apis", "removed_apis"):
        for row in tables.rows(table):
            name = row.get("name") or ""
            if row.get("form") == "import" and len(name) >= 16 and name.strip("_").count("_") >= 2:
                by.setdefault(name, set()).add(row["library"].lower())
                full.setdefault(name, f"{row['module']}.{name}")
    return {n: full[n] for n, libs in by.items() if len(libs) == 1}


def _release_named_api(name: str) -> str:
    """(round 34b) The dotted name :func:`_release_named_apis` gives ``name``, else ""."""
    return _release_named_apis().get(name, "")


def _scan_no_module_retyped(r: _Reader, line: str) -> None:
    """(round 30c) "No module X" / "No module name X" for a source-built module X (``torch.module_missing``); (round
    31b) by the one lookup the rules use (``tables.source_built_row``: a row marked ``prefix`` names its forks'
    renamed copies too, diff_gaussian_rasterization_w_pose)."""
    from smrnb.doctor import tables

    for m in _NO_MODULE_RETYPED_RE.findall(line):
        if tables.source_built_row(m) is not None:
            r.event("torch", "module_missing", line, WEIGHT["module"], module=m)


#: the package file Python names after "partially initialized module 'x' (most likely due to a circular import)"
_PARTIAL_FILE_RE = re.compile(r"circular import\)\s{0,4}\(([^()\n]{1,400}?[/\\]__init__\.py)\)")


def _submodule_absent(r: _Reader, line: str, name: str, mod: str) -> dict[str, Any]:
    """``{"submodule_absent": file}`` where 'cannot import name X from partially initialized module P' is a package's
    own ``__init__.py`` importing its submodule X (``from . import X``, or X a lower-case module name and P's file an
    ``__init__.py``): for a submodule, ``from P import X`` imports ``P.X`` first and, when no such module exists,
    swallows that ModuleNotFoundError and reports the missing attribute (importlib's ``_handle_fromlist``), which a
    package still being initialised words as a circular import: the package's folder lacks the module."""
    if f"partially initialized module '{mod}'" not in line or not re.fullmatch(r"[a-z][a-z0-9_]{0,80}", name):
        return {}
    m = _PARTIAL_FILE_RE.search(line)
    path = m.group(1).replace("\\", "/") if m else ""
    relative = r.call_line.startswith("from . import") and name in r.call_line.replace(",", " ").split()
    if path.lower().endswith("/" + mod.replace(".", "/").lower() + "/__init__.py") or relative:
        return {"submodule_absent": path or r.frame or mod}
    return {}


#: a module a traceback's frame in an installed package imports ("import trame", "from triangle import x"): the
#: package's own import of another distribution
_IMPORT_STMT_RE = re.compile(r"^(?:from ([A-Za-z_][A-Za-z0-9_]{0,80})(?:\.[A-Za-z0-9_.]{0,100})? import |"
                             r"import ([A-Za-z_][A-Za-z0-9_]{0,80}))")


#: the names of Python's import failures, in any form ("cannot import name 'x'" bare, inside another message)
_FAILED_IMPORT_RE = re.compile(r"(?:cannot import name|no module named) '?([A-Za-z_][A-Za-z0-9_.]{0,100})'?",
                               re.IGNORECASE)


def _note_failed_import(r: _Reader, line: str) -> None:
    """Every module or name an import failure of the text names (``torch.imports_failed``, their dotted parts)."""
    seen = list(r.facts["torch"].get("imports_failed") or [])
    for name in _FAILED_IMPORT_RE.findall(line)[:4]:
        for part in name.rstrip(".").split("."):
            if part and part not in seen and len(seen) < 24:
                seen.append(part)
                r.fact("torch", "imports_failed", seen, line, replace=True)


def _package_of_frame(path: str) -> str:
    """The installed package (top-level import name, lower-case) whose file ``path`` is, or ""."""
    path = path.replace("\\", "/")
    m = _INSTALLED_PKG_RE.search(path) if ("-packages/" in path or ".egg" in path) else None
    return ((m.group(1) or m.group(2)) if m else "").lower()


def _note_package_import(r: _Reader, line: str, frame: str | None = None, call: str | None = None) -> None:
    """An installed package's frame whose source line imports another top-level module
    (``torch.package_imports``: module -> the importing package); ``frame`` and ``call`` where they are not the plain
    traceback's (``r.frame``, ``r.call_line``: IPython's frames)."""
    call = r.call_line if call is None else call
    if "import " not in call:
        return
    top = _package_of_frame(r.frame if frame is None else frame)
    m = _IMPORT_STMT_RE.match(call)
    mod = (m.group(1) or m.group(2)) if m and top else ""
    if mod and mod.lower() != top:
        seen = dict(r.facts["torch"].get("package_imports") or {})
        if mod not in seen and len(seen) < 16:
            seen[mod] = top
            r.fact("torch", "package_imports", seen, line, replace=True)


def _project_package_import(r: _Reader, mod: str) -> bool:
    """Whether the top-level module ``mod`` that cannot be imported is named by a deep import (``from
    games.flat_splatting.scene.model import X``: three parts or more) in the traceback's innermost file, a file of
    the project's own in one of its folders (``scripts/save.py``, not under site-/dist-packages): the project's own
    package, looked for where Python puts the script's folder on sys.path, not the project's root."""
    path = r.frame.replace("\\", "/")
    if "." in mod or not r.from_import or not r.from_import[0].startswith(mod + ".") or \
            r.from_import[0].count(".") < 2 or "/" not in path.strip("/") or path.startswith("<"):
        return False
    return not any(k in path.lower() for k in ("site-packages/", "dist-packages/", ".egg")) and \
        f"/{mod.lower()}/" not in path.lower()


#: (round 28a) a frame's file of Python's own library: ``.../lib/python3.X/`` (not its site-packages), Windows'
#: ``...\\Python310\\Lib\\`` and a conda root's or environment's ``Lib``, the frozen import machinery
_STDLIB_FRAME_RE = re.compile(r"(?:^|/)lib/python[23][0-9.]{0,5}/(?!(?:site|dist)-packages/)"
                              r"|/python[0-9]{0,3}/lib/(?!(?:site|dist)-packages/)"
                              r"|/(?:ana|mini)conda[23]?/(?:envs/[^/]{1,80}/)?lib/(?!(?:site|dist)-packages/)"
                              r"|^<frozen |^<decorator-gen", re.IGNORECASE)
#: (round 34a) IPython 8's frame of a file ("File ~/env/lib/python3.9/site-packages/pkg/__init__.py:2" at a module's
#: top level, "File /path/x.py:233, in f(a, b)" in a function: IPython's ultratb)
_IPY8_FRAME_RE = re.compile(r"^\s{0,4}File ((?:[A-Za-z]:)?[/\\~][^\s\"]{0,400}\.py):[0-9]{1,6}(, in |\s*$)")
#: (round 28a) IPython 7's frame of a library file ("/usr/lib/python3/dist-packages/x.py in f(a, b)"); (round 34a) a
#: module's top level prints no arguments ("...\\site-packages\\pkg\\mod.py in <module>": IPython's ultratb)
_IPY7_FRAME_RE = re.compile(r"^\s{0,4}((?:[A-Za-z]:)?[/\\~][^\s]{0,400}\.py) in (?:<module>\s*$|[\w<>]{1,80}\()")


def _note_frame_kind(r: _Reader, path: str, line: str = "") -> None:
    """(round 28a) Whose file the traceback's frame ``path`` is (``r.inner_kind``): an installed package's, Python's own
    library, a program's entry script under a bin folder, or the person's own (``r.own_frame``: a script, a module of
    their project, typed code); (round 22) ``torch.last_frame_package``, the installed package of the last frame read
    ("" for a file of the project's own)."""
    p = path.replace("\\", "/")
    low = p.lower()
    if line:
        r.fact("torch", "last_frame_package", _package_of_frame(p), line, replace=True)
    if "-packages/" in low or ".egg" in low:
        r.inner_kind = _package_of_frame(p) or "package"
    elif re.search(r"/pip-(?:build|install|req-build)-", low):  # pip's build of a downloaded package (its setup.py)
        r.inner_kind = "package"
    elif _STDLIB_FRAME_RE.search(p) or (p.startswith("<") and not p.startswith(("<stdin>", "<string>", "<ipython-"))):
        r.inner_kind = "stdlib"
    elif "/bin/" in low or "/scripts/" in low and low.endswith("-script.py"):
        r.inner_kind = "bin"
    else:
        r.inner_kind, r.own_frame, r.own_call = "own", p, ""


def _note_cell_frame(r: _Reader, line: str, low: str) -> None:
    """(round 28a) A notebook cell's frame (IPython 8's "Cell In[3], line 1", 7's "<ipython-input-3-...> in <module>")
    and the line it ran ("----> 1 labels[len(labels)]"); IPython 7's frame of a library file after it."""
    if not ("cell in[" in low or "<ipython-input-" in low or "input in [" in low or ".py in " in low or
            ((r.own_frame == "<cell>" or r.ipy_frame) and line.lstrip().startswith("---->")) or
            (".py:" in low and low.lstrip().startswith("file "))):
        return
    s = line.strip()
    m = _IPY7_FRAME_RE.match(line)
    m8 = None if m else _IPY8_FRAME_RE.match(line)
    if m:
        _note_frame_kind(r, m.group(1))
        r.ipy_frame = m.group(1) if "-packages" in m.group(1).lower() else ""
    elif m8:  # (round 34a) IPython 8's frame of a file: the "---->" line below it is the one that ran
        if not m8.group(2):  # a module's top level ("File .../x.py:2"): no ", in", no plain traceback's reader
            _note_frame_kind(r, m8.group(1))
        r.ipy_frame = m8.group(1) if "-packages" in m8.group(1).lower() else ""
    elif s.startswith("---->") and r.ipy_frame:
        # (round 34a) the line IPython marks in an installed package's frame: an import there is the package's own
        # (torch.package_imports, as a plain traceback's 'File ".../site-packages/pkg/x.py"' and its source line)
        before = dict(r.facts["torch"].get("package_imports") or {})
        _note_package_import(r, line, frame=r.ipy_frame, call=re.sub(r"^---->\s*[0-9]*\s?", "", s)[:400])
        if r.facts["torch"].get("package_imports") != before:  # the running kernel imported that package
            r.fact("jupyter", "kernel_package_import", True, line)
        r.ipy_frame = ""
    elif s.startswith("---->") and r.inner_kind == "own":
        r.own_call = re.sub(r"^---->\s*[0-9]*\s?", "", s)[:400]
    elif s.lower().startswith(("cell in[", "cell in [", "input in [", "<ipython-input-")):
        r.inner_kind, r.own_frame, r.own_call = "own", "<cell>", ""


#: (round 28a) a built-in exception of Python's raised on the person's own values, as a traceback ends
_OWN_EXC_RE = re.compile(r"^[*`>\s]{0,4}(?:json\.decoder\.|json\.|simplejson\.errors\.)?(FileNotFoundError|IOError|"
                         r"KeyError|IndexError|JSONDecodeError|TypeError|AttributeError|ImportError|NameError|"
                         r"RecursionError): (.{1,400})")
#: Python's errno 2 message and the path it names (FileNotFoundError; IOError before Python 3). (Round 29, blind audit
#: 29) errno 2 is ENOENT in any locale: strerror's words are the C library's of the user's language ("Datei oder
#: Verzeichnis nicht gefunden", "没有那个文件或目录"), so any words without a colon stand for them
_ENOENT_PATH_RE = re.compile(r"\[Errno 2\] [^:\n]{1,80}: ['\"]([^'\"\n]{1,300})['\"]")
#: a path that is a library's, a toolkit's, a model cache's or a program's, not a data file of the person's
_LIBRARY_PATH_RE = re.compile(r"(?:site|dist)-packages|\.(?:so|dll|dylib|pyd|h|hpp|cuh?|cpp|whl)(?:\.[0-9]+)*$|"
                              r"cuda|nvcc|nvidia|/usr/|/opt/|/proc/|/sys/|/dev/|\.cache|huggingface|hub/|"
                              r"torch_extensions|/bin/|^[A-Za-z0-9_-]{1,40}$", re.IGNORECASE)
#: packages that open a path the calling code gives them (pandas.read_csv, np.load, Image.open, torch.load)
_PATH_OPENING_PACKAGES = frozenset({"pandas", "numpy", "PIL", "cv2", "imageio", "yaml", "torch", "h5py", "scipy",
                                    "matplotlib", "soundfile", "librosa", "pickle"})
#: the self attribute the person's method reads (``self.accel`` in ``self.vel += self.accel * dt``)
_SELF_ATTR_RE = r"\bself\.{}\b"


def _scan_own_code(r: _Reader, line: str, low: str) -> None:
    """(round 28a) The lines of a traceback that tell the person's own code (:func:`_note_cell_frame`, the source line
    under their frame) and the exception raised on it (:func:`_scan_own_code_exception`)."""
    if r.inner_kind == "own" and r.call_line and not r.frame_pending and line.strip()[:400] == r.call_line:
        r.own_call = r.call_line
    _note_cell_frame(r, line, low)
    if r.own_frame and ("error" in low or "exception" in low):
        _scan_own_code_exception(r, line)
    elif not r.frame and "did you mean" in low and "nameerror" in low:
        _scan_name_typo(r, line)


#: (round 34c) Python's NameError with its own suggestion of a near name in scope (Python 3.10+:
#: traceback.TracebackException._compute_suggestion_error, "NameError: name 'trian_loader' is not defined. Did you
#: mean: 'train_loader'?")
_NAME_TYPO_RE = re.compile(r"NameError: name '([A-Za-z_]\w{0,80})' is not defined\.? Did you mean: "
                           r"'([A-Za-z_]\w{0,80})'\?")


def _scan_name_typo(r: _Reader, line: str) -> None:
    """(round 34c) ``torch.own_code_exception`` of a NameError whose suggestion is one typo from the name (two
    neighbouring letters swapped, one changed, one left out inside it: :func:`_one_typo`), where the text shows no
    traceback frame (a frame of the person's own is read by :func:`_scan_own_code_exception`, a package's is that
    package's): Python suggests names bound in the failing line's scope, so the code misspelt one of its own."""
    m = _NAME_TYPO_RE.search(line)
    if m and _one_typo(m.group(1), m.group(2)):
        r.event("torch", "own_code_exception", line, WEIGHT["module"], exception="NameError", where="own",
                file="", call="", undefined=m.group(1), name_meant=m.group(2))


#: (round 29b) the endings of a compiled module's name (an extension's optional import: ``_C``, ``awq_ext``), whose
#: NameError is that import's failure (tables/library_messages.csv's rows), not a name the code never defined
_COMPILED_NAME_ENDS = ("_c", "_ext", "_cuda", "_cpp", "_ops", "_op", "_backend", "_kernels", "_lib")


def _source_built(name: str) -> bool:
    """(round 32a) Whether ``name`` is a CUDA extension only its project's source tree builds (a NameError of it is
    its guarded import's failure: :func:`_scan_guarded_import_undefined`)."""
    from smrnb.doctor import tables

    return tables.source_built_row(name) is not None


def _defined_in_text(text: str, name: str) -> bool:
    """(round 29b) Whether the text shows ``name`` bound by code (imported, ``as name``, defined, assigned): then the
    NameError is a binding that did not run (an import inside try/except that failed, a branch not taken), not a
    name the code never binds."""
    text = text[:200000]
    n = re.escape(name)
    return re.search(rf"\bimport (?:[\w.]+ as )?{n}\b|\bimport [\w., ]*\b{n}\b|\bas {n}\b|\bdef {n}\(|"
                     rf"\bclass {n}\b|^\s*{n}\s*=[^=]|\bfor {n} in\b|\bglobal {n}\b", text, re.MULTILINE) is not None


#: (round 35b) CPython's words for an operation on None (type(None).__name__ is 'NoneType'): Objects/abstract.c
#: PyObject_GetItem ("'%.200s' object is not subscriptable"), PyObject_GetIter ("'%.200s' object is not iterable"),
#: PyObject_SetItem ("'%.200s' object does not support item assignment"), Objects/call.c _PyObject_MakeTpCall
#: ("'%.200s' object is not callable"), Objects/object.c PyObject_GenericGetAttr ("'%.100s' object has no attribute
#: '%U'") and Python/ceval.c's unpacking ("cannot unpack non-iterable %.200s object")
_NONE_USED_RE = re.compile(r"(?:'NoneType' object (?:is not subscriptable|is not iterable|is not callable|does not "
                           r"support item assignment|has no attribute '([A-Za-z_][A-Za-z0-9_]{0,80})')|cannot unpack "
                           r"non-iterable NoneType object)")


def _scan_own_code_exception(r: _Reader, line: str) -> None:
    """(round 28a) ``torch.own_code_exception``: one of Python's built-in exceptions raised on the person's own values
    in the person's own code (the traceback's last frame outside site-/dist-packages and the Python installation: a
    script, a module of their project, a notebook's cell), not by a library's: a data path of theirs not found
    (``path``), a key missing from a dict or the environment of theirs, an index past a list's end, their data file
    that is not JSON, a method of their own class reading an attribute the object was never given, two modules of
    theirs importing each other. ``where`` says whose frame raised it ("own", "stdlib" or the package opening the
    path)."""
    m = _OWN_EXC_RE.match(line.strip())
    if not m or r.inner_kind not in ("own", "stdlib", *_PATH_OPENING_PACKAGES):
        return
    exc, msg = m.group(1), m.group(2)
    fields: dict[str, Any] = {}
    if exc in ("FileNotFoundError", "IOError"):
        p = _ENOENT_PATH_RE.search(msg)
        if not p or _LIBRARY_PATH_RE.search(p.group(1).replace("\\", "/")):
            return
        fields = {"path": p.group(1)}
    elif r.inner_kind in _PATH_OPENING_PACKAGES:
        return  # a package's own check of its arguments: its own readings
    elif exc == "KeyError":
        k = re.match(r"""^(['"])([^'"\n]{1,120})\1\s*$""", msg.strip())
        if not k or (r.inner_kind == "stdlib" and "environ" not in r.own_call):
            return  # a key of a package's table (a model type, a registry) raised through the standard library
        fields = {"key": k.group(2), **({"environ": True} if "environ" in r.own_call else {})}
    elif exc in ("TypeError", "AttributeError") and (n := _NONE_USED_RE.match(msg)):
        if r.inner_kind != "own" or re.search(r"(?<![\w.])_(?:C|ext|cuda|backend|lib)\b", r.own_call):
            # None met inside a library's (or the standard library's) own code, or a compiled module's name bound to
            # None by its guarded import (nerfacc's `getattr(_C, name)`): their readings
            return
        fields = {"none_value": True, **({"attribute": n.group(1)} if n.group(1) else {})}
    elif exc == "RecursionError":
        # (round 35b) CPython's recursion limit (Python/ceval.c _Py_CheckRecursiveCall: "maximum recursion depth
        # exceeded%s", " while calling a Python object", " in comparison", ...) hit in the person's own function
        if r.inner_kind != "own" or not msg.startswith("maximum recursion depth exceeded"):
            return
        fields = {"recursion": True}
    elif exc == "IndexError":
        if r.inner_kind != "own" or "out of range" not in msg:
            return
        fields = {"index": True}
    elif exc == "JSONDecodeError":
        if not re.search(r"\bjson\.loads?\(|\.json\(", r.own_call):
            return  # a library's JSON (pip's, an HTTP response read by a package)
        fields = {"json": True}
    elif exc == "AttributeError":
        a = re.match(r"""^'([A-Z][A-Za-z0-9_]{0,80})' object has no attribute '([A-Za-z_][A-Za-z0-9_]{0,80})'""", msg)
        if not a or r.inner_kind != "own" or not re.search(_SELF_ATTR_RE.format(re.escape(a.group(2))), r.own_call):
            return
        fields = {"object": a.group(1), "attribute": a.group(2), "self_attr": True}
    elif exc == "ImportError":
        c = re.match(r"cannot import name '(\w{1,80})' from partially initialized module '([\w.]{1,120})' \(most likely "
                     r"due to a circular import\) \(([^)\n]{1,300})\)", msg)
        path = c.group(3).replace("\\", "/") if c else ""
        files = [f.replace("\\", "/") for f in r.facts["torch"].get("source_files") or []]
        if not c or r.inner_kind != "own" or path not in files or path == r.own_frame:
            return  # a cycle the frames do not show (a submodule missing from a package's own __init__ reads so too)
        fields = {"module": c.group(2), "name": c.group(1), "circular": True}
    elif exc == "TypeError":
        # (round 35a) CPython Objects/abstract.c PyObject_GetItem: "'%.200s' object is not subscriptable", raised on a
        # line of the person's own that indexes it (x[...]): an object of a class without item access (a library's
        # PointCloud, Image, a generator, a method not called). 'type' (list[int] before Python 3.9) and None (a
        # reader's failure, read elsewhere) are left out
        t = re.match(r"'([A-Za-z_][\w.]{0,200})' object is not subscriptable", msg)
        if not t or r.inner_kind != "own" or t.group(1) in ("type", "NoneType") or t.group(1).endswith("Meta") or \
                not re.search(r"[\w)\]]\[", r.own_call):
            return
        fields = {"not_subscriptable": t.group(1)}
    elif exc == "NameError":
        n = re.match(r"(?:global )?name '([A-Za-z_]\w{0,80})' is not defined", msg)
        if not n or r.inner_kind != "own" or n.group(1).startswith("_") or \
                n.group(1).lower().endswith(_COMPILED_NAME_ENDS) or _source_built(n.group(1)):
            return  # a library's frame, a compiled module's guarded import (a name the text binds: _own_definitions)
        fields = {"undefined": n.group(1)}
        sug = _NAME_TYPO_RE.search(line)
        if sug and _one_typo(sug.group(1), sug.group(2)):
            fields["name_meant"] = sug.group(2)  # (round 34c) Python's suggestion, one typo away
    else:
        return
    r.event("torch", "own_code_exception", line, WEIGHT["module"], exception=exc, where=r.inner_kind,
            file=r.own_frame[-200:], call=r.own_call[:200], **fields)


def _scan_pip_builds(r: _Reader, line: str, low: str) -> None:
    """What pip fetched and built in a line of its log: the first source distribution fetched, the packages being
    built (from pip's own messages or a pip install command's requirements) and the builds that failed."""
    if ".tar.gz" in low and ("downloading" in low or "using cached" in low) and (m := _SDIST_RE.search(line)):
        r.fact("toolkit", "sdist", m.group(1), line)  # (round 32i) the first source distribution pip fetched
    if "wheel" in low or "setup.py" in low or "pip install" in low or "pip3 install" in low or "failed to build" in low:
        for name in _packages_built(line):
            built = r.facts["toolkit"].get("building") or []
            if name not in built and len(built) < 8:
                built.append(name)
                r.fact("toolkit", "building", built, line, replace=True)
    if "failed" in low or "could not build" in low:
        for name in _FAILED_BUILD_RE.findall(line)[:4]:
            r.event("toolkit", "build_failed", line, WEIGHT["sign"] + 6, package=name.lower())
    if "... error" in low and "running setup.py" in low:
        for name in _LEGACY_INSTALL_FAILED_RE.findall(line)[:2]:
            r.event("toolkit", "build_failed", line, WEIGHT["sign"] + 6, package=name.lower())
    if "errored out with exit status" in low and "pip-req-build-" in low and "setup.py" in low:
        # pip before 21.2 running setup.py of a checkout it made (a git URL, a folder): the build failed, its reason in
        # the lines above (src/pip/_internal/utils/subprocess.py: "Command errored out with exit status {}: {}")
        r.event("toolkit", "build_failed", line, WEIGHT["sign"] + 6, package="a pip-req-build checkout")


def _scan_python(r: _Reader, line: str, low: str) -> None:
    if r.frame_pending:
        r.call_line, r.frame_pending = line.strip()[:400], False
        _note_package_import(r, line)
    _scan_own_code(r, line, low)
    if "incompatible function arguments" in low and _EXT_OP_CALL_RE.search(r.call_line):
        # pybind11 refusing the arguments an extension's own wrapper passes its compiled module: the two come from
        # different builds or sources (a stale _C beside newer Python files, or the reverse)
        r.event("abi", "sign", line, WEIGHT["sign"], sign="extension_op_call", phrase=r.call_line[:80])
    if "-packages" in low or ".egg" in low or "installed" in low or "satisfied" in low or low.startswith("name:"):
        shown = r.facts["torch"].get("packages_installed") or []
        tops = [m.group(1) or m.group(2) or m.group(3) for m in _INSTALLED_PKG_RE.finditer(line[:4000])]
        if "successfully installed" in low:
            tops += line[low.index("successfully installed") + 22:].split()[:64]
        for top in tops:
            top = re.split(r"-[0-9]", top)[0].replace("-", "_").lower()
            if top and top not in shown and len(shown) < 64:
                shown.append(top)
                r.fact("torch", "packages_installed", shown, line, replace=True)
    if low.lstrip().startswith(('file "', "file /", "file ~", "file c:", "file d:")):  # a traceback's file outside
        m = _TB_FILE_RE.match(line.strip())  # every installed tree: a source checkout's
        path = (m.group(1) or m.group(2)).replace("\\", "/") if m else ""
        if path:
            r.prev_frame, r.prev_call = r.frame, r.call_line
        r.frame, r.call_line, r.frame_pending = path, "", bool(path)
        if path:  # (round 22) the installed package of the last frame read ("" for a file of the project's own)
            _note_frame_kind(r, path, line)
        if r.script_attr and path:
            _scan_exception_in_package(r, r.script_attr[0], "TorchScript", script_type=r.script_attr[1])
            r.script_attr = None
        if path and not any(k in path.lower() for k in ("site-packages/", "dist-packages/", ".egg/", "<")):
            files = r.facts["torch"].get("source_files") or []
            if path not in files and len(files) < 40:
                r.fact("torch", "source_files", [*files, path], line, replace=True)
    if ".cu" in low:
        _device_sources(r, line)
    if ("cp3" in low or "cpython-3" in low) and (".pyd" in low or ".so" in low):
        for name, minor in _EXT_PY_TAG_RE.findall(line)[:4]:
            tags = dict(r.facts["loader"].get("module_python_tags") or {})
            tags.setdefault(name.lower(), f"3.{minor}")
            r.fact("loader", "module_python_tags", tags, line, replace=True)
    if "python" in low:
        for v in _PY_VERSION_SAID_RE.findall(low)[:4]:
            said = r.facts["loader"].get("pythons_named") or []
            if v not in said and len(said) < 6:
                r.fact("loader", "pythons_named", [*said, v], line, replace=True)
    if "sm_" in low and ("get_arch_list" in low or line.lstrip().startswith(("['sm_", '["sm_'))):
        archs = _ARCH_ITEM_RE.findall(line)
        if archs:  # torch.cuda.get_arch_list() printed: the architectures this torch carries code for
            r.fact("torch", "arch_list", archs[:24], line)
    if "no module" in low:
        _scan_no_module_any(r, line, low)
    if "is not defined" in low:
        _scan_guarded_import_undefined(r, line)
    if "from " in low and " import " in low:
        m = _FROM_IMPORT_LINE_RE.match(line)
        if m:
            names = m.group(2).replace("(", " ").replace(",", " ").split()
            r.from_import = (m.group(1), names, m.group(2).rstrip().endswith("("))
            if r.bare_import and r.bare_import[0] in names:
                r.event("torch", "module_missing", r.bare_import[1], WEIGHT["module"],
                        module=f"{m.group(1)}.{r.bare_import[0]}", import_name=True)
                r.bare_import = None
    if "cannot import name" in low:
        _note_failed_import(r, line)
        found = _IMPORT_NAME_RE.findall(line) + _IMPORT_PARTIAL_RE.findall(line)
        for name, mod in found:
            r.event("torch", "module_missing", line, WEIGHT["module"], module=f"{mod}.{name}", import_name=True,
                    **_submodule_absent(r, line, name, mod))
        bare = None if found else _IMPORT_BARE_RE.search(line)
        if bare and not r.from_import:
            if r.bare_import is None:  # named by the first from-import line read later that imports it
                r.bare_import = (bare.group(1), line)
        elif bare and (bare.group(1) in r.from_import[1] or r.from_import[2]):
            r.event("torch", "module_missing", line, WEIGHT["module"], module=f"{r.from_import[0]}.{bare.group(1)}",
                    import_name=True)
    if "typeerror" in low and "()" in low:
        _scan_signature(r, line)
    if len(line) < 600 and (("(" in line and "." in line) or "import " in line):
        _scan_called_names(r, line)
    if "assertionerror" in low or "syntaxerror" in low:
        m = _EXC_LINE_RE.match(line.strip())
        if m:
            _scan_exception_in_package(r, line, m.group(1))
    _scan_generic_exception_in_package(r, line, low)
    if "errno 2" in low and "setup.py" in r.frame:
        _scan_sdist_missing_file(r, line)
    if "nonexistent attribute or method" in low:
        m = _SCRIPT_ATTR_RE.search(line)
        r.script_attr = (line, m.group(1)) if m else None
    if "object has no attribute" in low and "attributeerror" in low:
        _scan_attribute_in_package(r, line)
        _scan_optional_import(r, line)
    if "object has no attribute" in low and "' object" in low:
        _scan_class_attribute(r, line)
    if "has no attribute" in low and "type object '" in low:
        _scan_type_object(r, line)
    if "has no attribute" in low and ("module '" in low or 'module "' in low or "'module' object" in low):
        _scan_module_attr(r, line, low)  # (round 25a) or retyped in "; (round 31c) Python 2's form
    if "." in line and any(map(str.isdigit, line[:400])) and _RELEASE_DIGITS_RE.search(line, 0, 2000):
        _named_releases(r, line)
    if ("fatal error" in low or "cannot open source file" in low) and "program_source:" not in low:
        # (round 33d) "program_source:3:10: fatal error: 'ggml-common.h' file not found" is Metal's run-time
        # compiler (MTLDevice newLibraryWithSource names its source program_source, its failure in
        # MTLLibraryErrorDomain) on a program's shader source, no build's header: library_messages
        # ggml_metal_library_compile_failed reads it
        line = _english_enoent(line)
        by = _INCLUDER_RE.search(line)
        for h in (_HEADER_RE.findall(line) + _EDG_HEADER_RE.findall(line) + _HEADER_DIR_RE.findall(line)
                  + _CLANG_HEADER_RE.findall(line)):
            r.event("toolkit", "header_missing", line, WEIGHT["header"], header=h,
                    included_from=by.group(1) if by else None)
    elif "no such file or directory" in low and ".h" in low:  # the compiler's line with its prefix cut off
        for h in _HEADER_BARE_RE.findall(line)[:2]:
            r.event("toolkit", "header_missing", line, WEIGHT["header"] + 4, header=h, included_from=None)
    elif ".h>" in low:  # a header told missing in words, in its #include form ("No such file <cblas.h>")
        for h in _HEADER_SAID_RE.findall(line)[:2]:
            r.event("toolkit", "header_missing", line, WEIGHT["header"] + 6, header=h, included_from=None)
    if "cannot find -l" in low or "library not found for -l" in low or "找不到 -l" in low:
        for lib in _LINK_RE.findall(line):
            if lib.upper() in _CMAKE_FALSE_NAMES:
                continue  # (round 32g) a build variable's false value, not a library: library_messages' cmake_false_library
            r.event("toolkit", "link_lib_missing", line, WEIGHT["link"], lib=lib)
    if "cannot open input file" in low:
        for lib in _LNK_RE.findall(line):
            r.event("toolkit", "link_lib_missing", line, WEIGHT["link"], lib=lib)
    if "ld_library_path" in low and ("os.environ" in low or "%env" in low or "putenv" in low or "%set_env" in low):
        r.event("loader", "env_set_in_process", line, WEIGHT["sign"], variable="LD_LIBRARY_PATH")
    _scan_pip_builds(r, line, low)
    _scan_pip_index(r, line, low)
    if "from versions" in low:
        for pkg, req, parent, versions, closed in _FROM_VERSIONS_RE.findall(line):
            # the list cut at the line's end (it goes on in the next line): versions were seen, which ones not read
            r.event("kaolin", "pip_no_match", line, WEIGHT["row"] + 4, package=pkg.lower(), requested=req or None,
                    versions=versions.strip() if closed else (versions.strip() or "..."),
                    **({"required_by": parent.lower()} if parent else {}))
    elif "satisfies the requirement" in low or "no matching distribution found for" in low:
        m = _NO_VERSION_RE.search(line)
        if m and not any(e.get("kind") == "pip_no_match" for e in r.events["kaolin"]):  # one reading of one failure
            r.event("kaolin", "pip_no_match", line, WEIGHT["row"] + 4, package=m.group(1).lower().rstrip("."),
                    requested=m.group(2) or None, versions="not shown",
                    **({"required_by": m.group(3).lower()} if m.group(3) else {}))


def _scan_pip_index(r: _Reader, line: str, low: str) -> None:
    """The index pip looked in (``kaolin.links_page``), and an index it could not reach at all
    (``kaolin.index_unreachable``, round 23: DNS, proxy, TLS, a timeout; its "from versions: none" that follows then
    says nothing of the builds the package publishes)."""
    if "looking in" in low:
        for v in _LINKS_RE.findall(line):
            r.fact("kaolin", "links_page", v, line)
    if any(map(low.__contains__, _INDEX_UNREACHABLE_WORDS)):
        r.fact("kaolin", "index_unreachable", line.strip()[:160], line)


#: pip's words (and urllib3's, requests') for an index it could not reach at all
_INDEX_UNREACHABLE_WORDS = ("could not fetch url", "failed to establish a new connection",
                            "temporary failure in name resolution", "certificate_verify_failed", "proxyerror",
                            "readtimeouterror", "connecttimeouterror", "network is unreachable",
                            "name or service not known", "getaddrinfo failed",
                            # (round 35b) pip's and urllib3's words for a Python without its ssl module: no HTTPS at all
                            "however the ssl module in python is not available",
                            "because the ssl module is not available")


def _scan_attribute_in_package(r: _Reader, line: str) -> None:
    """An object's attribute missing where the traceback's innermost frame is an installed package's own file
    (``torch.attribute_in_package``: ``package``, ``object``, ``attribute``): that package's code uses an API of an
    object (mostly another library's) that the installed release of it no longer or not yet has."""
    path = r.frame.replace("\\", "/")
    m = _INSTALLED_PKG_RE.search(path) if ("-packages/" in path or ".egg" in path) else None
    top = (m.group(1) or m.group(2)) if m else ""
    for obj, attr in _OBJ_ATTR_RE.findall(line)[:1]:
        if top:
            r.event("torch", "attribute_in_package", line, WEIGHT["module"] + 10, package=top.lower(), object=obj,
                    attribute=attr)


#: a Python exception's own line, as a traceback ends (Markdown's bold marks around it kept out): the exceptions read
#: by where they were raised
_EXC_LINE_RE = re.compile(r"^[*`>\s]{0,4}(AssertionError|SyntaxError)\b")
#: TorchScript's compiler on a scripted function's attribute (torch/csrc/jit/frontend/sugared_value.cpp; the torch
#: docs' jit_language_reference: "Tried to access nonexistent attribute or method 'name' of type '__torch__.MyClass'")
_SCRIPT_ATTR_RE = re.compile(r"Tried to access nonexistent attribute or method '[A-Za-z_]\w{0,80}' of type "
                             r"'([A-Za-z_][\w.]{0,120})")
#: packages whose own assertions check the calling code's use of their API (torch's argument checks): not read as
#: an installed package's code of another release
_API_CHECKING_PACKAGES = frozenset({"torch"})


#: (round 24) a Python exception of the kinds a package's own code raises on a state it did not expect (an object it
#: got as None, a key or index it assumed, a file of its own it opens), as a traceback ends
_GENERIC_EXC_LINE_RE = re.compile(r"^[*`>\s]{0,4}(TypeError|KeyError|FileNotFoundError|IndexError|ValueError|"
                                  r"UnboundLocalError|AttributeError(?=: (?!module ['\"])[^\n]{0,200}has no attribute))\b: ")
#: packages whose own checks of their arguments raise these exceptions for the calling code's values (an argument of
#: the wrong type, shape or range): not read as the package's own fault
_ARGUMENT_CHECKING_PACKAGES = frozenset({"torch", "numpy", "pandas", "scipy", "sklearn", "tensorflow", "keras", "jax",
                                         "jaxlib", "PIL", "cv2", "matplotlib", "json", "yaml", "pydantic", "click",
                                         "argparse", "typer", "omegaconf", "hydra"})


#: (round 29b) torch's companions, left to the torch tables as torch itself is (_ARGUMENT_CHECKING_PACKAGES)
_TORCH_COMPANIONS = frozenset({"torchvision", "torchaudio", "torchtext"})
#: (round 29b) a source line that imports (passes the package no value of the caller's)
_IMPORT_LINE_RE = re.compile(r"^\s*(?:(?:>>>|\.\.\.) ?)?(?:from\s+[\w.]+\s+)?import\s")  # a REPL's prompt too


def _scan_generic_exception_in_package(r: _Reader, line: str, low: str) -> None:
    """(round 24) A generic Python exception (TypeError, KeyError, IndexError, ValueError, FileNotFoundError, an
    attribute of None) raised by the traceback's innermost frame where that file is an installed package's own
    (``torch.exception_in_package`` with ``generic``): the package's code met a state it did not expect. Read only
    where the traceback shows no file of the project's own (a script, a notebook's cell) calling it, so that no value
    of the calling code's can be what the package refused; a package that checks its arguments this way (numpy,
    pandas, torch) is left out."""
    if "ipython-input" in low or "cell in[" in low:
        r.cell_frame = True
    m = _GENERIC_EXC_LINE_RE.match(line.strip()) if "error: " in low and "-packages" in r.frame else None
    if not m:
        return
    exc = m.group(1)
    path = r.frame.replace("\\", "/")
    m = _INSTALLED_PKG_RE.search(path)
    top = (m.group(1) or m.group(2) or "") if m else ""
    if not top or top in _ARGUMENT_CHECKING_PACKAGES or top.lower() in _ARGUMENT_CHECKING_PACKAGES:
        return
    if exc == "FileNotFoundError" and "-packages" not in line.split("rror: ", 1)[-1]:
        return  # a program or a file of the calling code's not found, not one of the package's own files
    own = [f for f in r.facts["torch"].get("source_files") or [] if "/bin/" not in f and "\\bin\\" not in f]
    if own or r.cell_frame:
        if exc in ("TypeError", "ValueError") and r.own_call and top.lower() not in _TORCH_COMPANIONS and \
                not _IMPORT_LINE_RE.match(r.own_call) and not _SIGNATURE_RE.search(line):
            # (round 29b) the person's own frame (a script, a cell) calls into the package, whose frame raised last:
            # the values the call passed (``own_call``), or the package's handling of them. Not an import (it
            # passes no value: the package's own code at import), not a call's signature refused (signature_codes),
            # not torch's companions (their accepted types changed with releases: torchvision's transforms took
            # tensors from 0.8; torch's own tables read them)
            r.event("torch", "exception_in_package", line, WEIGHT["weak_sign"] + 30, package=top.lower(),
                    exception=exc, generic=True, own_call=r.own_call[:200], own_file=r.own_frame[-200:])
        return
    r.event("torch", "exception_in_package", line, WEIGHT["weak_sign"] + 30, package=top.lower(), exception=exc,
            generic=True, **({"of_none": True} if "'NoneType'" in line else {}))


#: (round 26b) a package's setup.py run by pip from the source distribution it downloaded, unpacked in pip's temporary
#: build folder (pip < 20: /tmp/pip-build-XXXX/<name>/setup.py; later: /tmp/pip-install-XXXX/<name>_<hash>/setup.py)
_PIP_SDIST_SETUP_RE = re.compile(r"(?:^|/)pip-(?:build|install)-[A-Za-z0-9_]{1,40}/[^/]{1,120}/setup\.py$")
#: Python's error for a file that open() does not find, named relative to the working folder (setup.py's own tree)
_RELATIVE_ENOENT_RE = re.compile(r"^[*`>\s]{0,4}(?:IOError|FileNotFoundError|OSError): \[Errno 2\] No such file or "
                                 r"directory: '((?![/\\~])(?![A-Za-z]:)[^'\n]{1,200})'")


def _scan_sdist_missing_file(r: _Reader, line: str) -> None:
    """(round 26b) ``torch.sdist_file_missing``: setup.py, run by pip from a source distribution it downloaded, opens a
    file of its own tree (requirements.txt, README.md, a version file) that the distribution does not hold: the
    release was packaged without it (its MANIFEST.in or build backend left it out), whatever this machine has."""
    m = _RELATIVE_ENOENT_RE.match(line.strip())
    if m and _PIP_SDIST_SETUP_RE.search(r.frame.replace("\\", "/")):
        r.event("torch", "sdist_file_missing", line, WEIGHT["module"], file=m.group(1),
                package=re.sub(r"_[0-9a-f]{16,}$", "", r.frame.replace("\\", "/").rsplit("/", 2)[-2]))


def _scan_exception_in_package(r: _Reader, line: str, exc: str, script_type: str = "") -> None:
    """An exception raised by the traceback's innermost frame (``r.frame``): where that file is an installed package's
    own (under site-/dist-packages), ``torch.exception_in_package`` (``package``, ``exception``: AssertionError,
    SyntaxError, TorchScript for a scripted function's attribute of a torch type); where it is the project's own file
    (a source checkout's, not installed), an AssertionError is ``torch.assert_in_own_code``: the project checks its
    inputs (data, paths, configuration) there."""
    path = r.frame.replace("\\", "/")
    if not path or path.startswith("<"):
        return
    m = _INSTALLED_PKG_RE.search(path) if ("-packages/" in path or ".egg" in path) else None
    top = ((m.group(1) or m.group(2)) if m else "").lower()
    if exc == "TorchScript" and not (script_type == "Tensor" or script_type.startswith("torch.")):
        return  # a scripted class of the code's own ('__torch__.MyClass'), a container type: not a torch release's
    if top and top not in _API_CHECKING_PACKAGES:
        r.event("torch", "exception_in_package", line, WEIGHT["module"] + 10, package=top, exception=exc)
    elif not m and exc == "AssertionError" and path.endswith(".py"):
        r.event("torch", "assert_in_own_code", line, WEIGHT["weak_sign"] + 6, file=path[-200:])


#: an object of a named class without an attribute, with or without the exception's name (a title quotes the message
#: alone): "'SLURMCluster' object has no attribute 'scheduler_info'"; dotted names (a compiled module's type) and
#: None are read apart
_CLASS_ATTR_RE = re.compile(r"(?<![\w.])'((?!NoneType')[A-Z][A-Za-z0-9_]{0,80})' object has no attribute '([A-Za-z_]\w{0,80})'")


def _scan_class_attribute(r: _Reader, line: str) -> None:
    """An object of a class (a CamelCase name) without the attribute the code asks for, raised outside an installed
    package's own file (``torch.class_attribute_missing``: ``object``, ``attribute``): the calling code uses an API of
    the object's class that its installed release does not have (the class is mostly a library's), or the code asks
    for the wrong attribute or got another object than it thinks (its own mistake); raised inside an installed
    package, it is ``attribute_in_package``'s."""
    path = r.frame.replace("\\", "/")
    if "-packages/" in path or ".egg" in path:
        return
    m = _CLASS_ATTR_RE.search(line)
    if m:
        # where the class comes from: a package the text imports it from, or Python's suggestion of a near name
        # ("Did you mean: '_add_gaussian_splats'?": the name is the class's, renamed), against a frame of the project's
        # own that may define the class itself
        shown = m.group(1) in (r.facts["torch"].get("called_names") or {}) or "did you mean" in line.lower()
        # (round 26b) typed code of the person's own (a notebook's cell, a REPL's or exec's <stdin>/<string>) told
        # apart from a project's files (a checkout's modules and entry scripts) and from no frame shown
        typed = r.cell_frame or path.startswith("<")
        # (round 27e, blind audit 27) Python's suggestion a typo away from the name asked for (two letters swapped or
        # one changed: 'train_laoder' / 'train_loader'), on a class the text imports from no package: the code's typo
        sug = _DID_YOU_MEAN_RE.search(line)
        typo = bool(sug) and m.group(1) not in (r.facts["torch"].get("called_names") or {}) and \
            _one_typo(m.group(2), sug.group(1))
        r.event("torch", "class_attribute_missing", line, WEIGHT["weak_sign"] + 4, object=m.group(1),
                attribute=m.group(2), own_frame=bool(path), library_class=shown, **({"typed": True} if typed else {}),
                **({"typo": True} if typo else {}))


#: Python's own suggestion of a near name (Python 3.10+: "... Did you mean: 'train_loader'?")
_DID_YOU_MEAN_RE = re.compile(r"Did you mean: '([A-Za-z_]\w{0,80})'\?")


def _one_typo(asked: str, meant: str) -> bool:
    """(round 27e) Two names that differ by two neighbouring letters swapped, one letter changed, or one letter left out
    inside the name (a typo), not by a prefix, an underscore or a suffix (a member renamed)."""
    if asked == meant or min(len(asked), len(meant)) < 4:
        return False
    if abs(len(asked) - len(meant)) == 1:  # one letter left out or doubled inside the name (not an end, not '_')
        short, long_ = sorted((asked, meant), key=len)
        return any(long_[:i] + long_[i + 1:] == short and long_[i] != "_" for i in range(1, len(long_) - 1))
    if len(asked) != len(meant):
        return False
    diff = [i for i, (a, b) in enumerate(zip(asked, meant)) if a != b]
    if len(diff) == 1:
        return asked[diff[0]] != "_" and meant[diff[0]] != "_"
    return len(diff) == 2 and diff[1] == diff[0] + 1 and asked[diff[0]] == meant[diff[1]] and \
        asked[diff[1]] == meant[diff[0]]


def _class_attribute_told(r: _Reader, text: str) -> None:
    """(round 26b) ``told`` on each ``torch.class_attribute_missing`` where the text says more than the message (what
    ran: "when starting JupyterLab", "happens when calling self.strategy.step() in get_outputs()"): a report about a
    program, not the bare line alone, which shows nothing of whose class it is."""
    seen = [e for e in r.events["torch"] if e["kind"] == "class_attribute_missing"]
    if not seen:
        return
    rest = _CLASS_ATTR_RE.sub(" ", text[:20000]).replace("AttributeError", " ")
    if len(re.findall(r"[^\W\d_]{3,}", rest)) >= 2:
        for e in seen:
            e["told"] = True


#: Python's import error for a name with a dash ("ModuleNotFoundError: No module named 'imjoy-jupyterlab-extension'"):
#: no import statement can name it, so the code passed a distribution's name to importlib.import_module / __import__
#: (or the user wrote the package's name for its module's in the message)
_MODULE_NAME_WITH_DASH_RE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z0-9_.]{1,80}-[A-Za-z0-9_.-]{1,80})'")


#: PyG's compiled companions, which PyG and the projects on it import optionally ("try: import torch_cluster / except
#: ImportError: torch_cluster = None": torch_geometric/nn/pool/__init__.py, utils/dropout.py)
_OPTIONAL_COMPANIONS = frozenset({"torch_cluster", "torch_scatter", "torch_sparse"})
_NONE_ATTR_RE = re.compile(r"AttributeError: 'NoneType' object has no attribute '([A-Za-z_]\w{0,80})'")


def _scan_optional_import(r: _Reader, line: str) -> None:
    """'NoneType' has no attribute X where the text called ``companion.X(`` (``torch.called_names``): the module is
    None because its optional import failed (not installed, or its compiled library did not load), read as that
    module missing (``torch.module_missing``, ``none_import``)."""
    m = _NONE_ATTR_RE.search(line)
    top = (r.facts["torch"].get("called_names") or {}).get(m.group(1)) if m else None
    if top in _OPTIONAL_COMPANIONS:
        r.event("torch", "module_missing", line, WEIGHT["module"], module=top, none_import=True)


#: (round 35b) a wrapper's line that passes its arguments on unchanged (functools.wraps decorators); the paste's
#: normaliser may have read '**' as Markdown's bold and dropped it
_PASS_THROUGH_RE = re.compile(r"^(?:return\s+)?(?:await\s+)?[A-Za-z_][\w.]{0,60}\(\*[A-Za-z_]\w{0,30},\s*(?:\*\*)?"
                              r"[A-Za-z_]\w{0,30}\)$")


def _scan_signature(r: _Reader, line: str) -> None:
    """A call that does not fit its callee's signature (``torch.signature_mismatch``): the callee, how, and the
    traceback's innermost file before it (the calling code's; empty when the text shows none)."""
    for callee, how in _SIGNATURE_RE.findall(line)[:2]:
        parts = [p for p in callee.split(".") if p not in ("__init__", "__new__", "__call__")]
        if not parts and r.call_line:  # Python before 3.10 prints a bare __init__(): the class is the call's
            m = _FIRST_CALL_RE.search(r.call_line)
            parts = m.group(1).split(".")[-1:] if m else []
        name = parts[-1] if parts else ""
        # (round 26b) the innermost frame's own source line makes the call (not a callback a library calls with
        # its own arguments, torch's ``forward_call(*args)``), and the installed package that frame is of
        here = bool(name) and re.search(rf"(?<![\w]){re.escape(name)}\(", r.call_line) is not None
        caller = _package_of_frame(r.frame) if here else ""
        if name and not here and _PASS_THROUGH_RE.match(r.call_line.strip()) and _package_of_frame(r.frame) and \
                re.search(rf"(?<![\w]){re.escape(name)}\(", r.prev_call):
            # (round 35b) the innermost frame is a package's pass-through wrapper (a decorator's `return fn(*args,
            # **kwargs)`, huggingface_hub's validate_hf_hub_args): CPython raises the signature's TypeError at the call
            # (Python/ceval.c, before the callee's frame exists), so the arguments are the frame before's, whose line
            # calls the callee by name
            caller = _package_of_frame(r.prev_frame)
        r.event("torch", "signature_mismatch", line, WEIGHT["module"] + 4, callee=callee,
                name=name, how=how.split(" ")[0], frame=r.frame, **({"caller_package": caller} if caller else {}))


def _scan_called_names(r: _Reader, line: str) -> None:
    """Names the text shows coming from a package (``torch.called_names``: name -> the package's top-level name):
    imported by ``from package import name`` or called as ``package.module.name(``; the standard library and
    ``self``/``cls`` left out."""
    pairs: list[tuple[str, str]] = []
    if "import" in line:
        for mod, names in _FROM_IMPORT_RE.findall(line)[:2]:
            top = mod.split(".")[0]
            pairs += [(n.split(" as ")[-1].strip(), top) for n in names.split(",")[:16]]
    if _CALL_TAIL_RE.search(line):
        pairs += [(name, top) for top, name in _QUALIFIED_CALL_RE.findall(line)[:6]]
    called = r.facts["torch"].get("called_names") or {}
    new = {n: t for n, t in pairs if n and n.isidentifier() and t not in _STDLIB and t not in ("self", "cls")
           and n not in called}
    if new and len(called) < 96:
        r.fact("torch", "called_names", {**called, **dict(list(new.items())[:96 - len(called)])}, line, replace=True)


#: a CUDA source file at a line, as a fault or check prints it ("ggml-cuda.cu:1606", "[yolo.cu:339]", "src/x.cu(90)")
#: (round 29: it starts where a path can start, not inside one: tried at every character of "torch.cuda...", its two
#: runs backtracked some 190 us per line)
_DEVICE_SOURCE_RE = re.compile(r"(?<![\w.:/\\-])([\w.:/\\-]{0,300}?[\w-]{1,80}\.cuh?)(?::|\()[0-9]{1,6}\b")
#: directories of torch's own CUDA kernels (ATen, THC/THCUNN, c10) and of the toolkit's headers: not a project's kernel
#: what every match of _DEVICE_SOURCE_RE holds, searched first (a literal's search, some 1 us a line)
_DEVICE_SOURCE_AT_RE = re.compile(r"\.cuh?[:(][0-9]")
#: (round 34a) the error check most CUDA projects copy (talonmies' gpuErrchk / gpuAssert on Stack Overflow, "What is
#: the canonical way to check for errors using the CUDA runtime API?": fprintf(stderr, "GPUassert: %s %s %d\\n",
#: cudaGetErrorString(code), file, line)): the file and its line after the runtime's message, apart by a space
_GPUASSERT_RE = re.compile(r"GPUassert: [^\n]{3,160}? ([\w.:/\\-]{0,300}?[\w-]{1,80}\.cuh?) [0-9]{1,6}\b")
_TORCH_OR_TOOLKIT_SOURCE = ("/aten/", "/thc/", "/thcunn/", "thc/generic", "/c10/", "/caffe2/", "/torch/", "/pytorch/",
                            "/include/", "\\include\\", "toolkit/cuda")


def _device_sources(r: _Reader, line: str) -> None:
    """``torch.device_sources``: CUDA source files of a project (not torch's kernels, not the toolkit's headers) that a
    message names at a line, as a kernel's check or fault prints its place."""
    ga = _GPUASSERT_RE.search(line, 0, 2000) if "GPUassert" in line else None
    if not ga and not _DEVICE_SOURCE_AT_RE.search(line, 0, 2000):
        return
    for m in [ga] if ga else _DEVICE_SOURCE_RE.finditer(line[:2000]):
        path = m.group(1).replace("\\", "/")
        if any(k in "/" + path.lower() for k in _TORCH_OR_TOOLKIT_SOURCE) or path.lower().startswith("thc"):
            continue
        files = r.facts["torch"].get("device_sources") or []
        if path not in files and len(files) < 16:
            r.fact("torch", "device_sources", [*files, path], line, replace=True)


def _scan_type_object(r: _Reader, line: str) -> None:
    """Python's "type object 'C' has no attribute 'A'" (``torch.module_missing``): C qualified (a compiled module's
    class), or (round 23e) C named alone where tables/removed_apis.csv says a release removed A from it."""
    for qual, attr in _TYPE_ATTR_RE.findall(line)[:1]:
        r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=f"{qual}.{attr}", attribute=True,
                type_object=True)
    for cls, attr in _TYPE_BARE_ATTR_RE.findall(line)[:1]:
        full = _removed_class_attrs().get((cls, attr))
        if full:
            r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=full, attribute=True)


#: "type object 'Image' has no attribute 'ANTIALIAS'": a class Python names without its module
_TYPE_BARE_ATTR_RE = re.compile(r"type object '([A-Z][A-Za-z0-9_]{0,60})' has no attribute '([A-Za-z0-9_]{1,80})'")


@functools.cache
def _removed_class_attrs() -> dict[tuple[str, str], str]:
    """(class, member) -> the dotted name, for the rows of tables/removed_apis.csv whose module's last part is named
    like a class (Pillow's ``PIL.Image``, whose constants Python also reports on the ``Image`` class)."""
    from smrnb.doctor import tables

    out: dict[tuple[str, str], str] = {}
    for row in tables.rows("removed_apis"):
        last = row["module"].rsplit(".", 1)[-1]
        if row.get("name") and "." in row["module"] and last[:1].isupper() and row.get("form") != "keyword":
            out.setdefault((last, row["name"]), f"{row['module']}.{row['name']}")
    return out


#: (round 28p) what every expression of :func:`_named_releases` needs in the line's first 2,000 characters (a
#: release ``1.2``): a line without it is not read by them (one search, not four)
_RELEASE_DIGITS_RE = re.compile(r"[0-9]\.[0-9]")


def _named_releases(r: _Reader, line: str) -> None:
    """Names the text gives a release number (``loader.packages_released``, lower-case, ``-`` as ``_``)."""
    for name, ver in _VERSION_ATTR_RE.findall(line[:2000])[:4]:  # (round 25a) "k3d.__version__ -> '2.0.12'"
        _note_release(r, name.lower(), ver, line)
    named = r.facts["loader"].get("packages_released") or []
    for m in list(_NAMED_RELEASE_RE.finditer(line, 0, 2000))[:16]:
        name, ver = m.groups()
        n = name.replace("-", "_").lower()
        if n not in named and len(named) < 64:
            named = [*named, n]
            r.fact("loader", "packages_released", named, line, replace=True)
        if not _CHANGED_IN_RE.search(line, max(0, m.start() - 40), m.start()):
            _note_release(r, n, ver, line)
    for ver, name in _VERSION_OF_RE.findall(line[:2000])[:2] if "ersion " in line else ():  # (round 26b) "In
        # version 4.4.9 of trimesh"
        _note_release(r, name.replace("-", "_").lower(), ver, line)
    m = _LISTED_RELEASE_RE.search(line[:400])
    if m:
        name, ver = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        _note_release(r, name.replace("-", "_").lower(), ver, line)
    _pip_file_releases(r, line)


#: (round 36) pip's own forms of a release: "Successfully installed a-1.0 b-c-2.1.3" (pip/_internal/commands/install.py:
#: "Successfully installed %s", each item ``name-version``), and a wheel's or an sdist's file name (PEP 427
#: ``{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl``, its name's "-" written "_"; PEP 625 ``{name}-{version}
#: .tar.gz``) as pip prints it ("Downloading torch-2.1.0+cu121-cp310-cp310-linux_x86_64.whl", "Using cached ...")
_PIP_ITEM_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]{0,60}(?:[.-][A-Za-z0-9][A-Za-z0-9_]{0,40}){0,5}?)-v?([0-9]{1,4}\.[0-9]"
                          r"{1,4}(?:\.[0-9]{1,4})?)"
                          r"(?:[.+_a-z][A-Za-z0-9.+_]{0,40})?")
_DIST_FILE_RE = re.compile(r"(?<![\w.+-])([A-Za-z][A-Za-z0-9_]{0,60}(?:\.[A-Za-z][A-Za-z0-9_]{0,40}){0,3})-([0-9]{1,4}\.[0-9]"
                           r"{1,4}(?:\.[0-9]{1,4})?)[^-\s/]{0,40}(?:-[^-\s/]{1,60}){2,4}\.whl\b|(?<![\w.+-])([A-Za-z]"
                           r"[A-Za-z0-9_]{0,60}(?:[.-][A-Za-z][A-Za-z0-9_]{0,40}){0,4})-([0-9]{1,4}\.[0-9]{1,4}(?:\.[0-9]"
                           r"{1,4})?)[^-\s/]{0,20}\.(?:tar\.gz|zip)\b")


def _pip_file_releases(r: _Reader, line: str) -> None:
    """(round 36) The releases pip names as :data:`_PIP_ITEM_RE` and :data:`_DIST_FILE_RE` read them
    (``loader.package_releases``)."""
    head = line[:2000]
    at = head.find("Successfully installed ")
    if at >= 0:
        for item in head[at + 23:].split()[:40]:
            if m := _PIP_ITEM_RE.fullmatch(item):
                _note_release(r, m.group(1).replace("-", "_").lower(), m.group(2), line)
    if ".whl" in head or ".tar.gz" in head or ".zip" in head:
        for m in list(_DIST_FILE_RE.finditer(head))[:4]:
            name, ver = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            _note_release(r, name.replace("-", "_").lower(), ver, line)


#: (round 29, blind audit 29) a release named as the one that deprecated, removed or added a name ("The aliases was
#: originally deprecated in NumPy 1.20", "removed in SciPy 1.14"): a library's history, not the release installed
_CHANGED_IN_RE = re.compile(r"\b(?:deprecated|removed|added|introduced|renamed|expired|dropped|new)\s+(?:in|since|as of|"
                            r"with|from)\s+(?:the\s+)?(?:release\s+|version\s+)?$", re.IGNORECASE)
#: (round 26b) a release named before its package ("In version 4.4.9 of trimesh", "version 0.10 of gsplat")
_VERSION_OF_RE = re.compile(r"\b[Vv]ersion v?([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,4})?) of (?:the )?([A-Za-z][A-Za-z0-9_\-]{1,40})\b")
#: (round 25a) a module's __version__ printed with its value on the same line ("k3d.__version__ '2.0.12'",
#: "print(monai.__version__) -> 1.3.0")
_VERSION_ATTR_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{0,60})\.__version__\b[^\n0-9]{0,40}?([0-9]{1,3}\.[0-9]{1,3}"
                              r"(?:\.[0-9]{1,4})?)")
#: a release as pip's and conda's own listings print it: ``pip list`` / ``conda list`` columns ("numpy   1.21.6"),
#: pip's "Requirement already satisfied: numpy in /usr/lib/python3/dist-packages (1.21.5)"
_LISTED_RELEASE_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.\-]{0,60})\s{2,}v?([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,4})?)"
                                r"(?:\+[A-Za-z0-9.]{1,20})?(?:\s|$)|Requirement already satisfied: ([A-Za-z][A-Za-z0-9_.\-]{0,60})[^\n(]{0,300}"
                                r"\(([0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,4})?)")


def _note_release(r: _Reader, name: str, ver: str, line: str) -> None:
    """(round 23e) Each release named with a package (``loader.package_releases``), for tables/removed_apis.csv."""
    releases = dict(r.facts["loader"].get("package_releases") or {})
    if name and ver and ver not in releases.get(name, []) and len(releases) < 64 and len(releases.get(name, [])) < 8:
        releases[name] = [*releases.get(name, []), ver]
        r.fact("loader", "package_releases", releases, line, replace=True)


#: an item of a printed torch.cuda.get_arch_list() ("['sm_50', 'sm_60', 'compute_90']")
_ARCH_ITEM_RE = re.compile(r"""['"]((?:sm|compute)_[0-9]{2,3}[a-z]?)['"]""")
#: a compiled Python module's file with its CPython tag ("pyngp.cp310-win_amd64.pyd", "_C.cpython-38-x86_64-linux-gnu.so")
_EXT_PY_TAG_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{0,60})\.(?:cp|cpython-)3([0-9]{1,2})[a-z]?(?:-[\w-]{1,40})?\.(?:pyd|so)\b")
#: a Python release named ("python 3.8", "Python v3.10.4", "python3.11", "lib/python3.9/site-packages")
_PY_VERSION_SAID_RE = re.compile(r"\bpython\s?v?(?:ersion\s)?(3\.[0-9]{1,2})(?![0-9])")


#: words pip's build-line pattern takes for a package that are not one ("Building wheels for collected packages",
#: "Failed to build installable wheels", "Running setup.py install for the ...")
NOT_BUILT_WORDS = ("installable", "wheels", "the", "some", "one")


def pip_arguments(args: str, limit: int, value_options: frozenset[str] = _PIP_VALUE_OPTIONS,
                  clean=lambda tok: tok):
    """The words of a ``pip install`` command's arguments (``args``, its first ``limit`` words read, each through
    ``clean`` first) that are neither an option nor the value of one of ``value_options`` (``-r reqs.txt``,
    ``--index-url URL``; ``--opt=value`` is one word)."""
    skip = False
    for tok in args.split()[:limit]:
        tok = clean(tok)
        if skip:
            skip = False
            continue
        if tok.startswith("-"):
            skip = "=" not in tok and tok in value_options
            continue
        yield tok


def _packages_built(line: str) -> list[str]:
    """The packages pip builds or installs on this line: its build lines ("Failed building wheel for X",
    "Running setup.py install for X") and the requirements of a ``pip install`` command (options and their values,
    paths, URLs and requirement files left out; version specifiers cut). (round 32f) A command's requirements end at
    the first word that is none (PEP 508's name form, :data:`PIP_TARGET_RE`) or a sentence's (:data:`PROSE_AFTER_PIP`):
    "pip install fails with the following error" names no package, "I ran pip install spconv and it failed" one."""
    out = [m for m in _BUILT_RE.findall(line) if m.lower() not in NOT_BUILT_WORDS and m.lower() not in PROSE_AFTER_PIP]
    m = _PIP_INSTALL_RE.search(line)
    if m:
        args = m.group(1)
        if line.count("`", 0, m.start()) % 2:  # a command in a Markdown code span ends with it
            args = args.split("`", 1)[0]
        for tok in pip_arguments(args, 24):
            if any(c in tok for c in "/\\:") or tok.startswith(".") or tok.endswith((".txt", ".whl")) or tok in ("&&", "|"):
                continue
            tok = tok.rstrip(".,;").strip("'\"`").rstrip(".,;")  # a Markdown `pip install x` too, a sentence's end
            if tok.lower() in PROSE_AFTER_PIP or not PIP_TARGET_RE.fullmatch(tok):
                break
            name = re.split(r"[<>=!~\[;@]", tok, maxsplit=1)[0]
            if _PKG_NAME_RE.fullmatch(name):
                out.append(name)
    return out[:4]


#: lines that hold a sign's phrase without meaning it: torch's warning that the Visual C++ *Redistributable* (a run-time
#: library) is missing is about loading DLLs, not about the MSVC build toolchain; an out-of-memory error where no GPU
#: ran out: Java's heap (host memory), a test expected to fail (pytest's XFAIL), an error a program retried
_SIGN_NOT = {"msvc": ("redistributable",),
             "oom": ("java.lang.outofmemoryerror", " xfail", "xfailed", "retrying"),
             # (round 32c) "crashes after importing this" names one thing loaded (an extension, a node), not an order
             # of two packages' imports; the order readings need two
             "import_order": ("after importing this", "after importing it ", "after importing it.",
                              "after importing it,", "after import this", "after importing the extension",
                              "after importing the node"),
             # (round 32i) a line naming a symbol version of the C library or libstdc++ ("the Conda package was
             # compiled against a newer version (the error says `version 'GLIBC_2.18' not found`)"): the system's
             # glibc/libstdc++ older than the binary's build machine (the loader's own message, read by
             # symbol_version_not_found), not a CUDA or cuDNN release loaded against another
             "cudnn_mismatch": ("glibc_2.", "glibcxx_3.4", "cxxabi_1.3"),
             # (round 33) ninja ran and the build it ran failed: Python's subprocess.CalledProcessError "Command
             # '['ninja', '-v']' returned non-zero exit status 1" (torch.utils.cpp_extension's _run_ninja_build); a
             # ninja that is not there is "No such file or directory: 'ninja'" or "Ninja is required". Found building a
             # real extension on the lent H100, whose ninja is on PATH: explain said "ninja is not on PATH" first
             "ninja_absent": ("returned non-zero exit status",)}
#: whole lines that hold a sign's phrase as an environment listing's field, not as a failure: "Visual Studio 2022
#: 17.8.3" (the IDE a report lists beside its .NET or Python versions) names no build step
_SIGN_NOT_LINE = {# (round 28c) a compiler's command line names the extension's sources (scatter_cuda.cu), not an import
                  "cannot_import_c": re.compile(r".*(?:\bnvcc\b|\bc\+\+ |\bgcc |\bcl(?:\.exe)? ).* -c \S+\.(?:cu|cpp|cc|c)\b.*"),
                  "msvc": re.compile(r"\s{0,8}(?:[-*•]\s{0,4})?(?:ide\s{0,2}[:=]\s{0,4})?visual studio(?: community| "
                                     r"professional| enterprise)? 20[0-9]{2}(?: \(?v?[0-9]{2}(?:\.[0-9]{1,5}){1,3}\)?)?"
                                     r"\s{0,8}$"),
                  # the terminal where Jupyter is launched, or where the error shows or a reproduction is typed, with
                  # no word that code works there (round 18b: "an error in the notebook, works in the terminal" stays)
                  "terminal_works": re.compile(
                      r"(?:.{0,300}?(?:notebook (?:run|started|launched|opened) from|\blaunch(?:ing|ed)?\b)|"
                      r"(?!.{0,300}?(?:\bworks?\b|\bworked\b|\bfine\b|success|\bloads?\b|no errors?|"
                      r"without (?:any )?errors?)).{0,300}?(?:\berrors?\b|\breproduce\b)).*"),
                  # (round 37e) sudo running a system command (a package manager, a file or service command, a
                  # kernel module, an installer): an administration step, not the failing program run under sudo
                  "env_dropped": re.compile(
                      r"(?!.*(?:srun |sbatch |systemd|crontab|env_reset|slurm|spawn|jupyterhub))"
                      r"(?!.*\bsudo\s+(?!(?:apt|apt-get|aptitude|dpkg|yum|dnf|zypper|pacman|snap|rm|mv|cp|ln|mkdir|"
                      r"chmod|chown|tee|systemctl|service|modprobe|rmmod|reboot|shutdown|update-alternatives|ldconfig|"
                      r"ubuntu-drivers|dkms|usermod|groupadd|add-apt-repository|apt-key|mount|umount)\b))"
                      r".*\bsudo\s+.*"),
                  # (round 30c) WSL named as where the same thing works, or as not used ("the same command runs fine on
                  # the same machine with Windows 11 & WSL2", "Windows 11 (not using WSL)"): not the failing machine,
                  # whose libraries and GPU path WSL's reading would change; a line that also says it fails is WSL's
                  "wsl": re.compile(
                      r"(?!.*\b(?:but|however|fails?|failed|failing|errors?|crash\w*|broken|doesn'?t|does not|don'?t|"
                      r"not work\w*|can'?t|cannot)\b).*(?:\b(?:works?|worked|working|runs?|ran|running)\b.{0,40}?"
                      r"\b(?:fine|well|ok|okay|perfectly|correctly|flawlessly)\b|\bnot (?:using|on|in|under|via)\b|"
                      r"\bwithout\b).{0,80}?(?:wsl|microsoft-standard).*")}
#: a configuration line's trailing comment ("batch_size: 64   # was 128 -> CUDA out of memory"): a note, not an error
_CONFIG_COMMENT_RE = re.compile(r"^\s*[A-Za-z_][\w.\-]{0,60}\s*[:=][^#\n]*\s#\s")


def _sign_at(low: str, key: str, unless: tuple[str, ...], tries: int = 8, not_line: re.Pattern | None = None) -> int:
    """The first offset of ``key`` in ``low`` on a line holding none of ``unless`` and not matching ``not_line``
    whole (-1 when none)."""
    i = low.find(key)
    while i != -1 and tries > 0:
        a, b = low.rfind("\n", 0, i) + 1, low.find("\n", i)
        seg = low[a:b if b != -1 else len(low)]
        c = _CONFIG_COMMENT_RE.match(seg)
        if not any(u in seg for u in unless) and not (c and i - a >= c.end() - 2) and not (
                not_line is not None and not_line.fullmatch(seg)):
            return i
        i, tries = low.find(key, i + len(key)), tries - 1
    return i if tries > 0 else -1


#: the Windows signs that are a word of prose only (not a path, a DLL, a wheel tag, an error code or a shell)
_WINDOWS_PROSE = frozenset({"windows", "win10", "win11", "win 10", "win 11"})
#: a Linux release named (round 21: "fails on Fedora Linux 39 ... works on Windows 11 & WSL2" is a Linux text)
_LINUX_RELEASE_RE = re.compile(r"\b(?:fedora|ubuntu|debian|centos|rhel|red hat|rocky linux|almalinux|opensuse|"
                               r"arch linux|linux mint|amazon linux|oracle linux)\b")

_WINDOWS_SAID_RE = re.compile(r"\w*error\b|exception|not (?:yet )?supported|unsupported")


def _windows_only_named(low: str, keys: set[str]) -> bool:
    """Windows is only named in prose (no Windows path, DLL, wheel tag, WinError or PowerShell) while the text names
    a Linux release: Windows is where it is compared with (or works), not the machine that fails."""
    if not keys <= _WINDOWS_PROSE or not _LINUX_RELEASE_RE.search(low):
        return False
    # a message that says Windows ("RuntimeError: Windows not yet supported for torch.compile") is the machine's
    return not any(_WINDOWS_SAID_RE.search(ln) for ln in low.splitlines() if any(k in ln for k in keys))


def _scan_signs(r: _Reader, text: str, low: str, holds: _Holds | None = None) -> None:
    """Every sign whose phrase occurs (each once, at its first occurrence): one search per phrase (none for a phrase
    that ``holds`` says the text cannot hold)."""
    for sign, layer, keys, weak in SIGNS:
        hits = [(i, k) for k in keys if holds is None or holds(k)
                for i in (_sign_at(low, k, _SIGN_NOT.get(sign, ()), not_line=_SIGN_NOT_LINE.get(sign)),) if i != -1]
        if hits and sign == "windows" and _windows_only_named(low, {k for _, k in hits}):
            continue
        if hits:
            i, k = min(hits)
            a, line = _line_at(text, i, after=0)
            said = _built_vs_loaded(line.lower()) if sign == "cudnn_mismatch" else None  # its releases, where said
            r.event(layer, "sign", line, WEIGHT["weak_sign" if weak else "sign"], sign=sign, phrase=k,
                    **({"groups": said[0]} if said else {}))


#: a count of GPUs a tool or library prints ("Number of GPUs: 0", "GPU count: 0", "Found 0 GPUs", "num_gpus=0")
_GPU_COUNT_RE = re.compile(r"\b(?:(?:number of|num|n)[ _](?:gpus?|cuda[ _](?:gpus?|devices))|(?:cuda )?gpu[ _]count|"
                           r"(?:visible|available|detected) (?:gpus|cuda devices))\W{0,4}(?:is|=|:|->)?\W{0,3}"
                           r"([0-9]{1,3})\b|\b(?:found|detected|using) ([0-9]{1,3}) (?:gpus?|cuda devices?)\b")
#: 'no GPU available' in words, as users and tools write it ("there are no CUDA GPUs available", "no GPU found")
_NO_GPUS_SAID_RE = re.compile(r"\bno (?:cuda[- ]?|nvidia )?(?:gpus?|cuda devices?|cuda-capable devices?)"
                              r"(?: (?:are|is|were|was))? (?:available|found|detected)\b")
#: a GPU of another vendor named (the machine's graphics is not NVIDIA's: CUDA has nothing to run on)
_OTHER_GPU_RE = re.compile(r"\b(?:intel(?:\(r\)|®)? ?(?:iris|uhd|hd|arc|xe)\b[^,;\n)]{0,24}|iris xe|uhd graphics \d{3}|"
                           r"(?:amd )?radeon\b[^,;\n)]{0,20}|amd (?:rx|gpu)\b[^,;\n)]{0,12}|apple m[1-4]\b[^,;\n)]{0,10}|"
                           r"integrated (?:intel |amd )?(?:gpu|graphics))")


def _scan_gpu_counts(r: _Reader, line: str, low: str) -> None:
    """A count of GPUs printed by a tool or library (0: this process sees none), 'no GPUs available' said in words,
    and a GPU of another vendor named (``driver.other_gpus``)."""
    if "gpu" in low or "device" in low:
        for a, b in _GPU_COUNT_RE.findall(low):
            n = int(a or b)
            r.fact("torch", "device_count", n, line)
            if n == 0:
                r.event("driver", "sign", line, WEIGHT["sign"], sign="no_devices_seen", phrase="a GPU count of 0")
        m = _NO_GPUS_SAID_RE.search(low)
        if m:
            r.event("driver", "sign", line, WEIGHT["sign"], sign="no_cuda_gpus", phrase=m.group(0))
    if "intel" in low or "iris" in low or "radeon" in low or "amd" in low or "apple m" in low or "integrated" in low:
        for m in _OTHER_GPU_RE.finditer(low):
            other = r.facts["driver"].get("other_gpus") or []
            if m.group(0).strip() not in other and len(other) < 4:
                other.append(m.group(0).strip())
                r.fact("driver", "other_gpus", other, line, replace=True)


#: (round 31c) torch.cuda.is_available() said or printed True, its words right after the call
_AVAILABLE_TRUE_RE = re.compile(r"(?<![\w.])torch\.cuda\.is_available\(\)[`'\"]?\s{0,3}(?:is|returns?|->|gives|==|=|:|"
                                r"prints?)\s{0,3}[`'\"]?true\b")


def _scan_cuda_available(r: _Reader, line: str, low: str) -> None:
    if "is_available()" in low and ("false" in low or "返回false" in low):  # torch.cuda.is_available() -> False
        r.event("torch", "sign", line, WEIGHT["sign"] + 6, sign="cuda_unavailable", phrase="is_available() false")
        r.fact("torch", "cuda_available", False, line)
    if "is_available()" in low and "true" in low and _AVAILABLE_TRUE_RE.search(low):
        # (round 31c) torch.cuda.is_available() said True ("`torch.cuda.is_available()` is `True`")
        r.fact("torch", "cuda_available", True, line)
    if "device_count()" in low:
        for n in _DEVICE_COUNT_RE.findall(low):
            r.fact("torch", "device_count", int(n), line)
            if int(n) == 0:  # torch sees no device: the driver layer says why (not given, none, broken)
                r.event("driver", "sign", line, WEIGHT["sign"], sign="no_devices_seen", phrase="device_count() 0")


def _scan_claims(r: _Reader, line: str, low: str) -> None:
    """What the user says of where the code ran and what is installed: a notebook's cell ("when I run cell 1",
    "in the first cell"), torch said to be installed ("even though I installed torch", "torch is already
    installed": then a 'No module named torch' comes from another environment than the user's)."""
    if "cell" in low:
        m = _CELL_RE.search(low)
        if m:
            r.event("jupyter", "sign", line, WEIGHT["weak_sign"], sign="in_notebook", phrase=m.group(0))
    if "notebook" in low:  # (round 32f) the notebook the person runs, named ("when I start the notebook")
        m = _NOTEBOOK_SAID_RE.search(low)
        if m:
            r.event("jupyter", "sign", line, WEIGHT["weak_sign"], sign="in_notebook", phrase=m.group(0))
    if "torch" in low and "install" in low:
        m = _TORCH_SAID_INSTALLED_RE.search(low)
        if m:
            r.event("torch", "sign", line, WEIGHT["sign"], sign="torch_said_installed", phrase=m.group(0))


def _scan_platform(r: _Reader, line: str, low: str) -> None:
    """The machine a text describes: its Linux release and C library, its CPU architecture, a cloud GPU machine type
    (``driver.gpus``), triton's release, and torch's collect_env lines about this torch."""
    if "libc" in low or any(map(low.__contains__, _OS_WORDS)):
        from smrnb.doctor import tables  # (here, not per line: round 28p)

        m = _GLIBC_VER_RE.search(low)
        if m:
            r.fact("context", "glibc", m.group(1), line)
        named = tables.glibc_for_os(low) if any(map(low.__contains__, _OS_WORDS)) else None
        if named:
            r.fact("context", "os_release", named[0], line)
            r.fact("context", "glibc", named[1], line)
    if "x86_64" in low or "amd64" in low or "aarch64" in low or "arm64" in low or "armv7l" in low or "ppc64le" in low:
        m = _MACHINE_RE.search(low)
        if m and not any(w in low for w in ("manylinux", "win_amd64", "macosx_", ".whl", "musllinux", "linux_")):
            r.fact("context", "machine", {"amd64": "x86_64", "arm64": "aarch64"}.get(m.group(1), m.group(1)), line)
    if "32" in low and _PY32_RE.search(low):
        r.fact("context", "python_bits", 32, line)
    if "large" in low or "gpu-" in low or "standard-" in low or "standard_nc" in low:
        from smrnb.doctor import tables

        got = tables.cloud_gpu(low)
        if got:
            gpus = r.facts["driver"].get("gpus_named") or []
            if not any(g.get("name") == got[0] for g in gpus) and len(gpus) < 8:
                gpus.append({"name": got[0], "compute_capability": got[1]})
                r.facts["driver"]["gpus_named"] = gpus
                r.facts["driver"].setdefault("read_from", {}).setdefault("gpus_named", line.strip()[:240])
    if "triton" in low:
        m = _TRITON_VER_RE.search(low)
        if m:
            r.fact("torch", "triton_version", m.group(1), line)
    if "pytorch:" in low or "available:" in low or "runtime version:" in low:
        m = _COLLECT_ENV_RE.match(line)
        if m:
            key, val = m.group(1), m.group(2).strip().lower()
            if key == "CUDA used to build PyTorch" and val in ("none", "no cuda"):
                r.fact("torch", "cpu_build", True, line)
                r.fact("torch", "cuda", None, line)
                r.facts["torch"]["cuda"] = None
            elif key == "Is CUDA available" and val in ("false", "no"):
                r.fact("torch", "cuda_available", False, line)
                r.event("torch", "sign", line, WEIGHT["sign"] + 6, sign="cuda_unavailable", phrase="is cuda available: no")
            elif key == "CUDA runtime version":
                v = re.match(r"([0-9]{1,2}\.[0-9]{1,2})\.[0-9]", val)
                if v:
                    _nvcc(r, line, version=v.group(1))


#: words that name a Linux release (the gate of the os -> glibc table)
_OS_WORDS = ("centos", "rhel", "red hat", "rocky", "almalinux", "oracle linux", "scientific linux", "ubuntu", "debian",
             "amazon linux")


def _scan_container_command(r: _Reader, line: str, low: str) -> None:
    """A ``docker run`` / ``podman run`` command and whether it gives the container a GPU (``--gpus``, the NVIDIA
    runtime, a CDI or device-plugin device, ROCm's /dev/kfd): ``context.container_gpu_flag``."""
    m = re.search(r"\b(?:nvidia-docker|docker|podman)(?: container)? (?:run|create)\b", low)
    if not m:
        return
    cmd = low[m.start():]
    if cmd.rstrip().endswith(("\\", "`", "^")) and r.text:
        # (round 32b) a command continued on the next lines (a shell's "\", PowerShell's "`", cmd's "^"): its
        # options there count too ("docker run -it \\n    --gpus all \\n    image")
        at = r.text.find(line)
        rest = r.text[at + len(line):at + len(line) + 2000].lower().split("\n") if at >= 0 else []
        for more in rest[1:40]:
            cmd += " " + more
            if not more.rstrip().endswith(("\\", "`", "^")):
                break
    given = low[m.start():].startswith("nvidia-docker") or any(f in cmd for f in _GPU_FLAGS)
    r.fact("context", "container", "podman" if "podman" in m.group(0) else "docker", line)
    r.fact("context", "container_gpu_flag", given, line)


#: (round 34a) a shell prompt that shows its working directory running a script with Python: Windows' cmd (and conda's
#: "(env) D:\\proj>python main.py"), bash's default PS1 ("user@host:~/proj$ python main.py")
_PROMPT_SCRIPT_RE = re.compile(
    r"^\s{0,4}(?:\([\w.-]{1,60}\) ?)?(?:([A-Za-z]:\\[^<>:\"|?*\n]{0,200}?)>|[\w.-]{1,40}@[\w.-]{1,60}:([~/][^\s$#]{0,200})"
    r"[$#]) {0,3}python[0-9.]{0,4}(?:\.exe)? ([\w.\\/-]{1,200}\.py)(?![\w.])")


def _scan_prompt_script(r: _Reader, line: str) -> None:
    """(round 34a) ``torch.entry_script``: the script a shell prompt runs, joined to the prompt's directory (a relative
    script name), as the path its traceback's frames would give it."""
    m = _PROMPT_SCRIPT_RE.match(line)
    if not m:
        return
    cwd, script = (m.group(1) or m.group(2)).replace("\\", "/").rstrip("/"), m.group(3).replace("\\", "/")
    path = script if script.startswith(("/", "~")) or re.match(r"[A-Za-z]:/", script) else f"{cwd}/{script}"
    r.fact("torch", "entry_script", path, line)


#: (round 34a) the NVIDIA Container Toolkit's release, as its tools print it (nvidia-ctk --version: "NVIDIA Container
#: Toolkit CLI version 1.17.0", nvidia-cdi-hook --version: "NVIDIA CDI Hook version 1.17.0", "NVIDIA Container Runtime
#: [Hook] version 1.17.0"; NVIDIA/nvidia-container-toolkit cmd/*/main.go) or as a package listing names it
#: (nvidia-container-toolkit[-base] 1.17.0-1, libnvidia-container1/... 1.17.0-1): ``context.nvidia_ctk_version``
_NVIDIA_CTK_VERSION_RE = re.compile(
    r"\bNVIDIA (?:Container Toolkit CLI|CDI Hook|Container Runtime(?: Hook)?) version v?([0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3})\b"
    r"|\b(?:nvidia-container-toolkit(?:-base)?|libnvidia-container(?:1|-tools))(?:/[\w,-]{1,40})?[ \t=:_-]{1,30}v?"
    r"([0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3})(?![0-9.])", re.IGNORECASE)

#: what gives a container the GPU on its command line
_GPU_FLAGS = ("--gpus", "--runtime=nvidia", "--runtime nvidia", "nvidia.com/gpu", "--device nvidia", "--device=nvidia",
              "/dev/kfd", "/dev/nvidia", "--device=/dev/dri", "--device /dev/dri")
#: words that say a tool is absent, after its name on one line ("both nvcc and nvidia-smi not found")
_ABSENT_WORDS = ("not found", "no such file", "not recognized", "is missing", "are missing", "not installed",
                 "doesn't exist", "does not exist", "not available", "command not found", "cannot be found",
                 "can't be found", "could not be found")


def _said_absent(after: str) -> bool:
    """Whether the words right after a tool's name say it is absent, and not that it works ("nvidia-smi works but
    libcuda.so is not found" is about another thing)."""
    hit = min((i for i in (after.find(w) for w in _ABSENT_WORDS) if i != -1), default=-1)
    return hit != -1 and not any(w in after[:hit] for w in ("work", "fine", "show", "output", " ok", "print", "but"))


def _scan_release_breaks(r: _Reader, line: str, low: str) -> None:
    """(round 24) ``release_breaks_said``: a named release of a package said to break the code that uses it."""
    pkg, phrase = "", ""
    for verb in (" breaks", " broke", " removed", " moved"):
        i = low.find(verb)
        m = _RELEASE_BEFORE_VERB_RE.search(low[max(0, i - 60):i]) if i > 0 else None
        if m and m.group(1) not in _SYSTEM_PARTS:
            pkg, phrase = m.group(1), m.group(0) + verb
            break
    if not pkg:
        m = _RELEASE_BREAKS_RE.search(low)
        if not m:
            return
        pkg, phrase = m.group(1) or m.group(2) or m.group(3) or "", m.group(0)
    r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="release_breaks_said", phrase=phrase, package=pkg or None)


#: (blind audit 36 M5) what, after "after upgrading ..." in its sentence, says the change ended the failure ("... it
#: works", "... that fixed it", "... the error is gone")
#: a character of a sentence that has not turned yet (no "but", "before", failure or negation starts there): what may
#: stand between a change and the words that say it works (here and in _explain's _WENT_WELL_RE)
NOT_TURNED = r"(?:(?!but\b|before\b|fail|error|crash|broke|not\b|\w*n't\b)(?:[^\n.;!?]|\.(?=\w)))"
_CHANGE_ENDED_IT_RE = re.compile(r"^" + NOT_TURNED + r"{0,100}?\b(?:(?:it|everything|this|that|all) (?:now )?"
                                 r"(?:works|is working|worked|runs fine|ran fine|is fine)|fixed (?:it|the)|"
                                 r"(?:is|was|got) (?:fixed|solved|resolved|gone))\b")


def _change_ended_it(low: str, m: re.Match[str]) -> bool:
    """(blind audit 36 M5) Whether the regression's words ``m`` ("after upgrading", "since updating to the latest")
    say of a change that ended the failure rather than began it: the rest of their sentence says it works now."""
    return m.group(0).startswith(("after ", "since ")) and bool(_CHANGE_ENDED_IT_RE.search(low[m.end():]))


def _scan_prose(r: _Reader, line: str, low: str) -> None:
    """What a user says in prose: the MPS backend, a regression that began with a release, an import order
    between two named packages (``loader.modules_imported`` gets both, in the order said)."""
    if "nvidia-smi" in low and _said_absent(low[low.find("nvidia-smi") + 10:][:50]):
        r.event("driver", "sign", line, WEIGHT["sign"], sign="nvidia_smi_missing", phrase="nvidia-smi ... not found")
    if " run" in low and ("docker" in low or "podman" in low):
        _scan_container_command(r, line, low)
    if "python" in low and (">" in line or "$" in line) and ".py" in low:
        _scan_prompt_script(r, line)
    if "nvidia" in low and "container" in low or "cdi hook" in low:
        m = _NVIDIA_CTK_VERSION_RE.search(line)
        if m:
            r.fact("context", "nvidia_ctk_version", m.group(1) or m.group(2), line)
    if "sm_" in low and "torch" in low:
        m = _TORCH_LACKS_ARCH_RE.search(low)
        if m:
            r.event("torch", "sign", line, WEIGHT["sign"], sign="gpu_dropped", phrase=m.group(0))
    if "mps" in low and _MPS_RE.search(low):
        r.event("torch", "sign", line, WEIGHT["sign"], sign="mps_backend", phrase="mps")
    if any(map(low.__contains__, _REGRESSION_WORDS)):
        m = _REGRESSION_RE.search(low)
        j = low.find(" fine") if not m else -1
        if j > 0:  # "3.14 is fine": the words just before it
            m = _RELEASE_FINE_RE.search(low[max(0, j - 40):j + 5])
        if m and _change_ended_it(low, m):
            pass  # "but after upgrading to torch 2.1 it works": the upgrade ended the failure, no regression
        elif m:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="regression_said", phrase=m.group(0))
        elif "working" in low or "updat" in low or "upgrad" in low or "work" in low:
            m = _REGRESSION_VAGUE_RE.search(low)
            if m and not _change_ended_it(low, m):
                r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="regression_said", phrase=m.group(0),
                        vague=True)
    if ("bug" in low or "broken" in low or "regression" in low) and (m := _RELEASE_BUG_RE.search(line[:2000])):
        # (round 31c) a named release said to be buggy itself: that release's bug (release_bug_told)
        g = m.groups()
        pkg, ver = next((g[i], g[i + 1]) for i in (0, 4, 7) if g[i])
        if pkg.lower().rstrip(".-") not in _SYSTEM_PARTS | _NOT_A_PACKAGE:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="release_bug_said", phrase=m.group(0)[:80],
                    package=pkg.lower().rstrip(".-"), version=ver, bug=bool(m.group("bug") or m.group("bug2") or
                                                                           m.group("bug3")))
    if ":\\" in line and " " in line and ">" in line and (m := _PROMPT_PATH_SPACE_RE.match(line)) and \
            "program files" not in m.group(1).lower():
        # (round 31c) a Windows prompt whose folder has a space in it ("E:\software for programming\...\instant-ngp>
        # cmake --build build"): the folder a build runs in
        r.event("context", "sign", line, WEIGHT["weak_sign"], sign="workdir_space", phrase=m.group(1)[:120])
    if "fixed in" in low:  # (round 27e) "fixed in 2.2.1": the text names the release that fixed the failure
        m = _FIXED_IN_RELEASE_RE.search(low)
        if m:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="fixed_in_said", phrase=m.group(0))
    if "still " in low and " but " in low:
        m = _STILL_OLD_RELEASE_RE.search(low)
        if m:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="old_release_still_seen", phrase=m.group(0))
    if "break" in low or "broke" in low or "removed" in low or "moved" in low or "error" in low or "fail" in low or \
            "no longer" in low:
        _scan_release_breaks(r, line, low)
    if (".py" in low or "folder" in low or "file" in low or "director" in low or "upload" in low or "repo" in low
            or "module" in low or "commit" in low):
        m = _FILES_MISSING_RE.search(low)
        if m:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="files_missing_said", phrase=m.group(0)[:80])
        m = _SHADOW_FILE_SAID_RE.search(line)
        if m:
            r.event("torch", "sign", line, WEIGHT["weak_sign"], sign="shadow_file_said", phrase=m.group(1))
    if "import" in low:
        for a, b in _ORDER_MODULES_RE.findall(low)[:2]:
            for top in (a, b):
                mods = r.facts["loader"].get("modules_imported") or []
                if top not in mods and top not in _STDLIB and top not in _NOT_MODULES and len(mods) < 12:
                    mods.append(top)
                    r.fact("loader", "modules_imported", mods, line, replace=True)


#: torch said to lack a GPU architecture, torch (its build, wheel or install) the subject: "torch (cu128) has no sm_60
#: kernels", "the installed pytorch does not support sm_120"
_TORCH_LACKS_ARCH_RE = re.compile(r"\b(?:py)?torch(?: [0-9][\w.+]{0,20})?(?: \([^)\n]{1,20}\))?(?: build| wheel| binaries| "
                                  r"install(?:ation)?)? (?:(?:has|have|ships|contains|includes) no|(?:doesn't|does not|"
                                  r"don't|do not|no longer) supports?) sm_[0-9]{2,3}\b")
#: words the import-order phrase catches that are not packages ("importing it before", "import order then")
_NOT_MODULES = frozenset({"it", "them", "this", "that", "the", "a", "an", "order", "statement", "statements", "first",
                          "module", "modules", "package", "packages", "library", "libraries", "everything", "all"})


def _scan_imports(r: _Reader, line: str) -> None:
    """Top-level packages a Python import statement of the text imports (``loader.modules_imported``), in order,
    the standard library left out: which native packages share the process when it crashes."""
    for top in _imported(line):
        mods = r.facts["loader"].get("modules_imported") or []
        if top not in mods and len(mods) < 12:
            mods.append(top)
            r.fact("loader", "modules_imported", mods, line, replace=True)
    if _TYPED_RE.match(line):  # (round 32b) typed by the person (not a traceback's indented source line)
        for top in _imported(line):
            typed = r.facts["loader"].get("typed_imports") or []
            if top not in typed and len(typed) < 12:
                r.fact("loader", "typed_imports", [*typed, top], line, replace=True)


#: (round 32b) an import statement the person typed: at Python's or IPython's prompt (round 32f: the paste normaliser
#: keeps a REPL session's ">>> "; a prompt stripped as a mail's quote arrives bare), also inside a Markdown code span,
#: or a script's top-level line; a traceback's source lines are indented four spaces
_TYPED_RE = re.compile(r"[ \t]{0,2}`?(?:>>> ?|In \[[0-9]{1,5}\]: ?)?(?:import|from) ")


def _imported(line: str) -> list[str]:
    """The non-standard top-level packages the statements of one line import (``import a; import b``, a
    ``python -c "import a"`` command)."""
    out = []
    for piece in _STATEMENT_SPLIT_RE.split(line)[:8]:
        m = _IMPORT_RE.match(piece)
        top = (m.group(1) or m.group(2)).split(".")[0] if m else None
        if top and top not in _STDLIB and not top.startswith("_"):
            out.append(top)
    return out


def _last_import(r: _Reader, line: str) -> str | None:
    mods = _imported(line)
    return mods[-1] if mods else None


def _repl_result(prev: str, line: str) -> str | None:
    """A value printed on its own line for the expression of the line before (an IPython ``Out[2]: False``
    after ``In [2]: torch.cuda.is_available()``, a REPL's ``False`` after ``>>> ...``), or the expression on the
    line after the prose that says what it returned ("the following returns false:"): both as one line."""
    if "is_available" in line and "false" not in line and "false" in prev and len(prev) < 300:
        return f"{line.strip()} -> {prev.strip()}"  # prose before the expression: "the following returns false:"
    if ("is_available" not in prev and "device_count" not in prev) or len(line) > 40:
        return None
    m = _REPL_VALUE_RE.match(line)
    return f"{prev.strip()} -> {m.group(1)}" if m else None


def _scan_lines(r: _Reader, text: str, budget_s: float) -> None:
    t0 = time.thread_time()
    prev, prev_raw, prev_import, prev_version = "", "", None, ""
    seen: dict[str, str | None] = {}
    for i, line in enumerate(text.split("\n")):
        if i % 64 == 0 and time.thread_time() - t0 > budget_s:
            r.fact("context", "text_truncated", f"stopped reading after {budget_s:g} s of CPU time", "")
            break
        if not line.strip():
            continue
        low = line.lower()
        joined = _repl_result(prev, low) if prev else None
        echoed = _ECHO_RE.search(prev_raw) if "echo" in prev else None
        prev, prev_raw = low, line
        if joined:
            _scan_cuda_available(r, joined, joined)
        if "__version__" in prev_version and len(line) < 40:  # (round 25a) a REPL's value of X.__version__
            for name, ver in _VERSION_ATTR_RE.findall(f"{prev_version.strip()} -> {line.strip()}")[:1]:
                _note_release(r, name.lower(), ver, line)
                tagged = _TAGGED_VER_RE.fullmatch(line.strip()) if name.lower() == "torch" else None
                if tagged:  # (round 28b) torch's own answer, "2.4.0+cu124", names its CUDA build
                    _torch_version(r, tagged.group(1), tagged.group(2).lower(), line)
        prev_version = line
        if echoed and not line.lstrip().startswith(("$", "#", ">")) and " " not in line.strip():
            _scan_paths(r, f"${echoed.group(1)} = {line.strip()}", f"${echoed.group(1)} = {line.strip()}".lower())
        if line in seen:  # a line read before gives nothing new (facts: the first value wins; events: each once)
            if r.from_import and ("no module named" in low or "cannot import name" in low):
                _scan_python(r, line, low)  # but a from-import line read since may name the module it names in part
            if prev_import and "import" not in low and any(map(low.__contains__, _CRASH_WORDS)):
                r.fact("loader", "crashed_at_import", prev_import, line)
            if "error: " in low and "-packages" in r.frame:
                # (round 27c) a title that repeats the traceback's last line: read first with no frame above it,
                # the same line under an installed package's frame is where the exception was raised
                _scan_generic_exception_in_package(r, line, low)
            elif r.own_frame and r.inner_kind == "own" and ("error" in low or "exception" in low):
                # (round 35a) the same title repeated under a frame of the person's own: the exception raised there
                _scan_own_code_exception(r, line)
            prev_import = seen[line]
            continue
        _scan_line(r, line, low)
        if "import" not in low and prev_import and any(map(low.__contains__, _CRASH_WORDS)):
            r.fact("loader", "crashed_at_import", prev_import, line)
        prev_import = _last_import(r, line) if "import" in low else None
        if len(seen) < _SEEN_LINES:
            seen[line] = prev_import


#: distinct lines remembered by the line scan (a log repeating a line reads it once)
_SEEN_LINES = 20_000


#: a release as printed, read ahead of the bounded pattern that decides the match ("8.9.2.26", "7301"): the group of
#: ``(?=...)`` takes all of it without changing what matches
_FULL_RELEASE = r"(?=([0-9]+(?:\.[0-9]+)*))"

#: a binary's CUDA or cuDNN release said against another found on the machine ("compiled with CUDA 12.1, but your system
#: has CUDA 11.8", "built for CUDA 12 but CUDA 11.4 runtime found", PaddlePaddle's "The installed Paddle is compiled with
#: CUDNN 8.2, but CUDNN version in your machine is 8.1" of paddle/phi/backends/gpu/gpu_resources.cc and its CUDA runtime
#: twin), in any tool's words; a driver's is another matter. Groups: the library, the release built with, the one found
_BUILT_VS_FOUND_RE = re.compile(r"(?:compiled|built) (?:with|for|against) (cudnn|cuda) ?v?" + _FULL_RELEASE +
                                r"[0-9]{1,2}(?:\.[0-9]{1,2}){0,2}\b[^\n]{0,60}?\bbut\b[^\n]{0,60}?\b(?:cudnn|cuda)\b"
                                r"[^\n0-9]{0,40}?" + _FULL_RELEASE + r"[0-9]{1,2}(?:\.[0-9]{1,2}){0,2}")

#: the same with the release loaded first (TensorFlow's cuDNN check, stream_executor/cuda/cuda_dnn.cc: "Loaded runtime
#: CuDNN library: 7.3.1 but source was compiled with: 7.5.0", older "7301 (compatibility version 7300) but source was
#: compiled with 7003"; "Loaded cuDNN version 8600 but source was compiled with 8902", "The cuDNN library loaded is 8.1
#: but Paddle requires 8.2"). Groups: the release loaded, the one built with
_LOADED_VS_BUILT_RE = re.compile(r"(?:\b(?:loaded|found|installed|runtime)\b[^\n0-9]{0,20}?\bcudnn\b|\bcudnn\b[^\n0-9]{0,12}?"
                                 r"\b(?:loaded|found|installed)\b)[^\n0-9]{0,30}?" + _FULL_RELEASE +
                                 r"[0-9]{1,5}(?:\.[0-9]{1,2}){0,2}[^\n]{0,30}?\bbut\b[^\n]{0,40}?(?:compiled (?:with|against)|"
                                 r"built (?:with|against|for)|requires?|expects?)[^\n0-9]{0,30}?" + _FULL_RELEASE +
                                 r"[0-9]{1,5}(?:\.[0-9]{1,2}){0,2}")

#: older PaddlePaddle's dynload check ("libcudnn v5 with header v7 unmatched"): the release loaded, then the one built with
_LOADED_HEADER_RE = re.compile(r"libcudnn v?(\d+(?:\.\d+)*) with header v?(\d+(?:\.\d+)*) unmatched")


def _built_vs_loaded(low: str) -> tuple[dict[str, str], str] | None:
    """``({"library", "loaded", "built"}, phrase)`` of a lower-cased line that says the CUDA or cuDNN release a binary
    was built with against the one loaded or found (rules.loader's ``cudnn_mismatch`` reads them); None if it does
    not say both."""
    m = _BUILT_VS_FOUND_RE.search(low)
    if m:
        return {"library": "cuDNN" if m.group(1) == "cudnn" else "CUDA", "loaded": m.group(3), "built": m.group(2)}, m.group(0)
    m = _LOADED_VS_BUILT_RE.search(low) or _LOADED_HEADER_RE.search(low)
    if m:
        return {"library": "cuDNN", "loaded": m.group(1), "built": m.group(2)}, m.group(0)
    return None


def _scan_cudnn_mismatch(r: _Reader, line: str, low: str) -> None:
    """A binary's CUDA or cuDNN release said against another loaded or found (sign ``cudnn_mismatch``, its releases in
    ``groups``: kept out of the event's identity, so that a text gives one such sign however many lines say it)."""
    # not torch's CUDA against a toolkit's nvcc (torch brings its own runtime: that pair matters to a build, and is
    # nvcc_torch_cuda_mismatch's), nor a driver's CUDA (the driver layer's)
    if " but " in low and not any(w in low for w in ("driver", "torch", "nvcc")) and len(line) < 2000:
        said = _built_vs_loaded(low)
        if said:
            r.event("loader", "sign", line, WEIGHT["sign"], sign="cudnn_mismatch", phrase=said[1][:80], groups=said[0])


#: the text telling that another package's presence decides a failure (round 18): uninstalling it cures it, or it
#: happens when that package is installed and the package of the text is then imported
_COINSTALL_RE = re.compile(r"\buninstall(?:ing|ed)? [`'\"]?([A-Za-z][\w.-]{1,40})[`'\"]? (?:remedies|fixes|solves|resolves|"
                           r"avoids)|\bwhen (?:i have |i've |you have )?[`'\"]?([A-Za-z][\w.-]{1,40})[`'\"]? (?:is )?installed"
                           r"(?: (?:via|with|through) (?:pip|conda))?,? [`'\"]?import ", re.IGNORECASE)


def _scan_coinstall(r: _Reader, line: str) -> None:
    """Another package whose presence the text says decides the failure (``loader`` sign ``coinstall_decides``)."""
    m = _COINSTALL_RE.search(line)
    if m:
        r.event("loader", "sign", line, WEIGHT["sign"], sign="coinstall_decides", phrase=m.group(0)[:80],
                package=m.group(1) or m.group(2))


#: torch's CUDA extensions that compile a module named _C (round 18): named in the text's prose, a '_C' that fails to
#: load is theirs unless the traceback shows torch's own import
_TORCH_EXTENSION_NAME_RE = re.compile(r"\b(pytorch3d|detectron2|diff[_-]gaussian[_-]rasterization|simple[_-]knn|"
                                      r"tinycudann|nvdiffrast|gsplat|nerfacc|torchsparse|mmcv|kaolin|spconv|"
                                      r"torch[_-](?:scatter|sparse|cluster|spline[_-]conv))\b", re.IGNORECASE)


#: (round 28p) a word each name of _TORCH_EXTENSION_NAME_RE holds, lower-cased: a line whose lower-cased form holds
#: none of them names none, unless it holds one of the four letters that the expression's case-insensitive match takes
#: for an ASCII letter and that lower-casing does not turn into it (U+0130, U+0131, U+017F, U+212A: every such letter
#: of Unicode, checked over all code points)
_EXTENSION_NAME_WORDS = ("torch", "detectron2", "diff", "simple", "tinycudann", "nvdiffrast", "gsplat", "nerfacc",
                         "mmcv", "kaolin", "spconv")
_FOLDED_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def _scan_extension_named(r: _Reader, line: str, low: str) -> None:
    if not any(map(low.__contains__, _EXTENSION_NAME_WORDS)) and not any(map(line.__contains__, _FOLDED_TO_ASCII)):
        return
    for m in _TORCH_EXTENSION_NAME_RE.finditer(line[:2000]):
        named = r.facts["loader"].get("extensions_named") or []
        name = m.group(1).lower().replace("-", "_")
        if name not in named and len(named) < 8:
            r.fact("loader", "extensions_named", [*named, name], line, replace=True)


#: an interactive Python asked for torch's CUDA release (">>> print(torch.version.cuda)", "In [3]: torch.version.cuda",
#: the prompt stripped as explain prepares a text) and its answer on the next line ("10.2", "Out[3]: '11.8'"): a release there is torch's CUDA build
_ASK_TORCH_CUDA_RE = re.compile(r"^\s{0,8}(?:>>>|In \[[0-9]{1,4}\]:)?\s{0,4}(?:print\()?torch\.version\.cuda\)?\s{0,4}$")
_ANSWER_CUDA_RE = re.compile(r"^\s{0,8}(?:Out\[[0-9]{1,4}\]:\s{0,4})?'?([0-9]{1,2}\.[0-9]{1,2})'?\s{0,4}$")


def _scan_repl_answer(r: _Reader, line: str, low: str) -> None:
    """torch.version.cuda asked on the line before and answered on this one (an interactive session pasted)."""
    if r.asked_torch_cuda and len(line) < 40:
        m = _ANSWER_CUDA_RE.match(line)
        if m:
            r.fact("torch", "cuda", m.group(1), line)
            r.fact("torch", "installed", True, line)
    r.asked_torch_cuda = "torch.version.cuda" in low and len(line) < 80 and bool(_ASK_TORCH_CUDA_RE.match(line))


#: (round 25) the port a server asked to bind, as code and tools print it: socket.bind(("0.0.0.0", 5000)), a server's
#: (host, port) tuple (HTTPServer(('', 8000), Handler)), a keyword port=8000 (uvicorn.run, launch(server_port=...)),
#: an address host:port (c10d's "[::]:12355", "0.0.0.0:7860", "localhost:8888")
_BIND_PORT_RE = re.compile(
    r"""\.bind\(\(\s{0,3}['"][^'"\n]{0,100}['"]\s{0,3},\s{0,3}(\d{2,5})\s{0,3}\)"""
    r"""|\w*Server\(\(\s{0,3}['"][^'"\n]{0,100}['"]\s{0,3},\s{0,3}(\d{2,5})\s{0,3}\)"""
    r"""|\b(?:server_)?port\s{0,2}=\s{0,2}(\d{2,5})\b"""
    r"""|\[::\]:(\d{2,5})\b|\b(?:0\.0\.0\.0|127\.0\.0\.1|localhost):(\d{2,5})\b"""
    # (round 27b) werkzeug's own refusal (werkzeug/serving.py run_simple: "Port {port} is in use by another program.
    # Either identify and stop that program, or start the server with a different port."; Flask's and Dash's server),
    # a command line's --port N / --port=N, and -p N of a server's command line (jupyter, tensorboard, flask run,
    # streamlit run, docker run's host port of -p 5000:5000)
    r"""|\bPort (\d{2,5}) is in use by another program\b|(?:^|\s)--(?:server[._-])?port[= ](\d{2,5})\b"""
    r"""|\b(?:jupyter(?:-lab|-notebook)?|tensorboard|flask run|streamlit run|docker run)\b[^\n]{0,300}?\s-p ?(\d{2,5})\b""")


def _scan_bind_port(r: _Reader, line: str) -> None:
    """(round 25) The port a server asked for (:data:`_BIND_PORT_RE`), for port_in_use's commands: the first one."""
    m = _BIND_PORT_RE.search(line[:2000])
    if m:
        r.fact("context", "bind_port", next(g for g in m.groups() if g), line)


#: (round 32i) the ROCm release installed on the machine as its own tools print it: a ROCm package's Debian version
#: (``apt show rocm-libs``: "Version: 6.4.0.60400-47~22.04", ROCm's packaging scheme <major>.<minor>.<patch>.<major*10000
#: + minor*100 + patch>, ROCm/ROCm's docs on package versions), a versioned install folder (/opt/rocm-6.4.0), hipcc's
#: "HIP version: 6.4.43482-0f2d60242" (hipcc --version of the ROCm toolkit that builds extensions)
_ROCM_PKG_VER_RE = re.compile(r"\bVersion: ([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{5,6})-")
_ROCM_DIR_RE = re.compile(r"/opt/rocm-([0-9]{1,2}\.[0-9]{1,2})(?:\.[0-9]{1,2})?\b")
_HIPCC_VER_RE = re.compile(r"^\s{0,4}HIP version: ([0-9]{1,2}\.[0-9]{1,2})\.[0-9]{3,6}")
#: torch's ROCm release as listings print it: ``pip list``'s padded column ("torch    2.4.1+rocm6.0"), torch's
#: collect_env ("ROCM used to build PyTorch: 6.0.32830-d62f6a171", torch/utils/collect_env.py: hip_compiled_version)
_TORCH_ROCM_RE = re.compile(r"^\s*torch\s{2,}[0-9]{1,2}\.[0-9]{1,2}(?:\.[0-9]{1,3})?(?:\.dev[0-9]{0,10})?\+rocm([0-9]{1,2}\.[0-9]{1,2})"
                            r"|ROCM used to build PyTorch: ([0-9]{1,2}\.[0-9]{1,2})\.")
#: (round 32i) a build for ROCm/HIP: CMake's HIP package config (hip-config.cmake, find_package(hip)), hipcc, hipify,
#: ROCm's install root or its variables (ROCM_PATH, ROCM_HOME, HIP_PATH)
_HIP_BUILD_RE = re.compile(r"\bhip-config\.cmake\b|\bhipcc\b|\bhipify(?:-perl|-clang)?\b|/opt/rocm(?:-[0-9.]{1,10})?/|"
                           r"\b(?:ROCM_PATH|ROCM_HOME|HIP_PATH)\b")
#: a HIP runtime error as HIP and the projects built on it print it ("HIP Function Failed (...) shared object
#: initialization failed", "HIP error: invalid device function", "hipErrorSharedObjectInitFailed")
_HIP_ERROR_RE = re.compile(r"\bHIP (?:Function Failed|error\b|runtime error)|\bhipError[A-Z]\w{3,60}")


def _scan_rocm(r: _Reader, line: str) -> None:
    """(round 32i) The machine's ROCm release (``toolkit.rocm_release``) and a HIP runtime error (``toolkit.hip_error``)."""
    m = _ROCM_PKG_VER_RE.search(line)
    if m and int(m.group(4)) == int(m.group(1)) * 10000 + int(m.group(2)) * 100 + int(m.group(3)):
        r.fact("toolkit", "rocm_release", f"{m.group(1)}.{m.group(2)}", line)
    for rx in (_ROCM_DIR_RE, _HIPCC_VER_RE):
        if (m := rx.search(line)):
            r.fact("toolkit", "rocm_release", m.group(1), line)
    if _HIP_ERROR_RE.search(line):
        r.fact("toolkit", "hip_error", True, line)
    if _HIP_BUILD_RE.search(line):
        r.fact("toolkit", "hip_build", True, line)
    if (m := _TORCH_ROCM_RE.search(line)) and not r.facts["torch"].get("hip"):
        r.fact("torch", "hip", m.group(1) or m.group(2), line)


#: (round 32i) torch's own __init__.py calling a function of its compiled core that the core lacks: the frame of
#: torch/__init__.py(c), its source line calling _C.<name> (CPython's or IPython's listing of it), then Python 3's
#: "module 'torch._C' has no attribute '<name>'" or Python 2's "'module' object has no attribute '<name>'"
#: (Objects/moduleobject.c). torch/__init__.py and torch/_C*.so ship in one wheel, built together: a _C without a
#: function its own __init__.py calls is another build's (two torch installs mixed in one site-packages, a source
#: tree's stale _C, a torch/ folder of another release earlier on sys.path)
_TORCH_INIT_C_ATTR_RE = re.compile(
    r"torch[/\\]__init__\.pyc?\b[^\n]{0,200}\n(?:[^\n]{0,300}\n){0,6}?[^\n]{0,40}\b_C\.([A-Za-z_][A-Za-z0-9_]{0,60})\b"
    r"[^\n]{0,300}\n(?:[^\n]{0,300}\n){0,8}?[^\n]{0,40}AttributeError: (?:module ['\"]torch\._C['\"]|'module' object) "
    r"has no attribute '\1'")


#: (round 32i) Lua Torch7 (torch/distro): its package manager and packages (luarocks, rockspecs, cutorch, cunn's THCUNN,
#: LuaJIT). There THC is cutorch's library (torch/cutorch lib/THC), a separate rock that cunn's rockspec depends on
#: ('cutorch >= 1.0'), not a PyTorch API that a release removed
_LUA_TORCH_RE = re.compile(r"\b(?:luarocks|cutorch|THCUNN|torch7|torch-cunn|rockspec|luajit)\b", re.IGNORECASE)


def _torch_init_c_attr(r: _Reader, text: str) -> None:
    """(round 32i) :data:`_TORCH_INIT_C_ATTR_RE`: ``torch.init_c_attr``, the name torch's own __init__ found missing in
    its _C; Python 2's form (no module named) read as the module_missing event Python 3's gives."""
    m = _TORCH_INIT_C_ATTR_RE.search(text[:200_000])
    if not m:
        return
    line = text[m.start(0):m.end(0)].splitlines()[-1]
    r.fact("torch", "init_c_attr", m.group(1), line)
    mod = f"torch._C.{m.group(1)}"
    if not any(e.get("kind") == "module_missing" and e.get("module") == mod for e in r.events["torch"]):
        r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=mod, attribute=True)


#: (round 32i) pip fetching a package's source distribution ("Downloading pyopenjtalk-0.3.0.tar.gz (1.5 MB)", "Using
#: cached flash_attn-2.8.3.tar.gz"): the package whose build steps follow
_SDIST_RE = re.compile(r"\b(?:Downloading|Using cached) (?:\S{0,200}/)?([A-Za-z][A-Za-z0-9_.]{0,60}?(?:-[A-Za-z][A-Za-z0-9_]{0,30})*)"
                       r"-[0-9][A-Za-z0-9_.+]{0,30}\.tar\.gz\b")


def _scan_line(r: _Reader, line: str, low: str) -> None:
    """Every per-line reader on one line of the text."""
    if "version: " in low or "/opt/rocm-" in low or "hip" in low or "rocm" in low:
        _scan_rocm(r, line)
    if "_" in low or "3d" in low or "mmcv" in low or "kaolin" in low or "nerfacc" in low or "gsplat" in low or \
            "nvdiffrast" in low or "tinycudann" in low or "spconv" in low or "detectron2" in low:
        _scan_extension_named(r, line, low)
    if "install" in low and len(line) < 2000:
        _scan_coinstall(r, line)
    if "bind((" in low or "server((" in low or "port" in low and ("=" in low or "--" in low or " in use " in low) or "]:" in low or "0.0.0.0:" in low or \
            "127.0.0.1:" in low or "localhost:" in low or " -p" in low:  # a literal each of _BIND_PORT_RE's forms needs
        _scan_bind_port(r, line)
    _scan_repl_answer(r, line, low)
    _scan_cudnn_mismatch(r, line, low)
    _scan_libraries(r, line, low)
    _scan_symbols(r, line, low)
    _scan_versions(r, line, low)
    _scan_paths(r, line, low)
    _scan_gpus(r, line, low)
    _scan_python(r, line, low)
    if "is_available" in low or "device_count" in low:
        _scan_cuda_available(r, line, low)
    if len(line) < 2000 and ("gpu" in low or "device" in low or "intel" in low or "iris" in low or "radeon" in low
                             or "amd" in low or "apple m" in low or "integrated" in low):
        _scan_gpu_counts(r, line, low)
    if "cell" in low or "notebook" in low or ("torch" in low and "install" in low):
        _scan_claims(r, line, low)
    if len(line) < 2000:
        _scan_prose(r, line, low)
        _scan_platform(r, line, low)
    if "import" in low:
        _scan_imports(r, line)


# ------------------------------------------------------------------ the tables, over the whole text
def _whole_lines(text: str, start: int, end: int) -> str:
    """The line(s) of ``text`` holding ``text[start:end]``, from the start of the first to the end of the last."""
    stop = text.find("\n", end)
    return text[text.rfind("\n", 0, start) + 1:stop if stop >= 0 else len(text)]


def _line_at(text: str, i: int, after: int = 400) -> tuple[int, str]:
    a = text.rfind("\n", 0, i) + 1
    b = text.find("\n", i)
    b = len(text) if b == -1 else b
    return a, text[a: min(len(text), max(b, i) + after)]


#: (round 32j) how far before a row's literal a wrapped message may start: lines, characters
_BACK_LINES, _BACK_CHARS = 3, 600
#: (round 32j) how far after a row's literal a row whose expression allows lines between its parts may reach (the
#: table's longest such allowance is 12 lines: library_messages face_alignment_landmarks_type_renamed)
_FWD_LINES, _FWD_CHARS = 13, 4000


@functools.cache
def _spans_lines(pattern: str) -> bool:
    """Whether a row's expression can match across a line break (``\\s``, ``\\n``, ``\\W``, a dot-all flag, a
    negated class that does not leave out ``\\n``: ``\\((?P<cc>[^)]+)\\)``)."""
    return bool(re.search(r"\\[snW]|\(\?[a-zA-Z]*s|\[\^(?![^\]]*\\n)", pattern))


def _lines_back(text: str, a: int) -> int:
    """The start of the line up to :data:`_BACK_LINES` lines before position ``a`` (a line's start), at most
    :data:`_BACK_CHARS` characters back (always a line's start: an anchored row's ``^`` stays a line's start)."""
    lo = max(0, a - _BACK_CHARS)
    b = a
    for _ in range(_BACK_LINES):
        j = text.rfind("\n", lo, b - 1)
        if j == -1:
            return 0 if lo == 0 else b
        b = j + 1
    return b


def _lines_forward(text: str, i: int) -> int:
    """The end of the line up to :data:`_FWD_LINES` lines after the line holding position ``i``, at most
    :data:`_FWD_CHARS` characters after ``i``."""
    hi = min(len(text), i + _FWD_CHARS)
    b = i
    for _ in range(_FWD_LINES + 1):
        j = text.find("\n", b, hi)
        if j == -1:
            return hi
        b = j + 1
    return b - 1


def _scan_tables(r: _Reader, text: str, low: str, holds: _Holds | None = None) -> None:
    """Every message-table row whose expression matches, run only around its required literal (one that ``holds``
    says the text cannot hold is absent)."""
    for table, row, gate in _table_rows():
        m = None
        if gate is None:
            if len(text) <= 200_000:
                m = row.pattern.search(text)
        else:
            for lit in gate:
                if holds is not None and not holds(lit):
                    continue
                i = low.find(lit)
                tries = 0
                while i != -1 and tries < 20:
                    a, window = _line_at(text, i)
                    m = row.pattern.search(window)
                    if not m and _spans_lines(row.pattern.pattern):
                        # (round 32j) a message wrapped so that its literal sits on a later line than the match's
                        # start ("nvcc fatal\n  : Unsupported host compiler", "... with CUDA capability sm_120\nis
                        # not compatible"), or a row whose expression allows lines between its parts (a traceback's
                        # frames between "assert torch.cuda.is_available()" and "AssertionError") past the 400
                        # characters: the few lines before the literal's and the lines after it, a match kept only
                        # where it reaches the literal's line and starts where the first window would have let it
                        # (one wholly before or after is found at its own literal)
                        b0, end = _lines_back(text, a), a + len(window)
                        wide = text[b0: max(end, _lines_forward(text, i))]
                        m = row.pattern.search(wide)
                        if m and (m.end() <= a - b0 or m.start() >= end - b0):
                            m = None
                    if m and any(("{" in v or v in ("%s", "%d")) for v in m.groupdict().values() if v):
                        m = None  # the source line of a traceback ("...({})".format(x)), not the message
                    if m:
                        break
                    tries += 1
                    i = low.find(lit, i + len(lit))
                if m:
                    break
        if not m:
            continue
        if row.key == _PICKLE_GENERIC_ROW and r.unpickled_by_row:
            continue  # a release row read the same pickle line (_removed_unpickled)
        layer = TABLE_LAYER[table]
        project = row.fields.get("project") if table == "extension_checks" else None
        if project and row.fields.get("kind") == "condition" and not _names_project(low, project):
            continue  # (round 26d) a build variable's condition is that project's only where the text names it
        if project == "kaolin":
            layer = "kaolin"
        groups = {k: v for k, v in m.groupdict().items() if v is not None}
        line = quote_window(m.string, m.start() - 120, m.end() + 60).split("\n")
        shown = next((ln for ln in line if m.group(0)[:20] in ln), m.group(0))
        r.event(layer, "message", shown, _row_weight(gate), table=table, key=row.key, codes=list(row.codes),
                meaning=row.meaning, groups=groups, project=project)


def _names_project(low: str, project: str) -> bool:
    """Whether the (lower-cased) text names ``project`` (``tiny-cuda-nn`` also as ``tiny_cuda_nn``/``tinycudann``)."""
    p = project.lower()
    return any(v in low for v in {p, p.replace("-", "_"), p.replace("-", "")})


def _row_weight(gate: tuple[str, ...] | None) -> int:
    n = min((len(x) for x in gate), default=0) if gate else 0
    return WEIGHT["row"] if n >= 20 else WEIGHT["row"] + 4 if n >= 10 else WEIGHT["row"] + 10


@functools.cache
def _message_gates() -> dict[str, tuple[tuple[str, Any], ...]]:
    """gate word -> ((message lower-cased, row), ...): each enumerator's message, found by its longest word."""
    from smrnb.doctor import tables

    _, index = tables._enums._message_index()
    gates: dict[str, list[tuple[str, Any]]] = {}
    for msg, row in index.items():
        words = [w for w in re.split(r"[^a-z0-9_]+", msg.lower()) if len(w) >= 4]
        if words:
            gates.setdefault(max(words, key=len), []).append((msg.lower().rstrip("."), row))
    return {g: tuple(v) for g, v in gates.items()}


def _lines_with(text: str, low: str, needle: str, limit: int = 200, around: int = 0) -> Iterable[str]:
    """The lines of ``text`` that hold ``needle`` (searched in ``low``), each once, at most ``limit``; with ``around``,
    each cut to that many characters either side of the needle (a 10 MB line is not copied whole)."""
    i, n = low.find(needle), 0
    while i != -1 and n < limit:
        a = text.rfind("\n", 0, i) + 1
        b = text.find("\n", i)
        b = len(text) if b == -1 else b
        yield text[max(a, i - around):min(b, i + around)] if around else text[a:b]
        n += 1
        i = low.find(needle, b)


def _scan_enums(r: _Reader, text: str, low: str) -> None:
    """CUDA runtime/driver, NVML and NVRTC errors named (``cudaErrorX``, ``CUDA_ERROR_X``), quoted by their
    message (case-insensitive, ``an illegal memory access was encountered``) or given by number."""
    from smrnb.doctor import tables

    _, names = tables._enums._name_index()
    for prefix in ("cudaerror", "cuda_error_", "nvml_error_", "nvrtc_error_"):
        for line in _lines_with(text, low, prefix):
            for m in _ENUM_NAME_RE.finditer(line):
                row = names.get(m.group(1))
                if row is not None:
                    _enum_event(r, row, "name", line)
    for line in _lines_with(text, low, "nvml", limit=50):
        # Go's NVML binding (go-nvml's Return.Error(): "nvml init failed: ERROR_LIBRARY_NOT_FOUND", as the Kubernetes
        # device plugin and the container toolkit log it) names NVML's results without their NVML_ prefix
        for m in _GO_NVML_RE.finditer(line):
            row = names.get("NVML_" + m.group(1))
            if row is not None:
                _enum_event(r, row, "name", line)
    hip_text = None  # (round 32k) whether the text is HIP's: searched once, where a message's line asks
    for gate, msgs in _message_gates().items():
        for line in _lines_with(text, low, gate, limit=50):
            ll = line.lower()
            if hip_text is None:
                hip_text = _is_hip_text(text)
            if hip_text and _hip_line(line):
                continue  # (round 32k) HIP's string, read by hip_errors.csv (_scan_hip)
            for msg, row in msgs:  # a short message counts only beside a CUDA word (not a tool's own words)
                # a long message quoted without its closing plural "s" ("... between these two device") counts too
                if (msg in ll or (len(msg) >= 30 and msg.endswith("s") and msg[:-1] in ll)) and \
                        (len(msg) >= 30 or "cuda" in ll or ("nvrtc" in ll and row.table == "nvrtc_results")
                         or _DRIVER_CALL_FAILED_RE.search(line)):
                    _enum_event(r, row, "message", line)
    for line in _lines_with(text, low, "cuda error: "):
        for msg in _CUDA_ERROR_MSG_RE.findall(line + "\n"):
            row = tables.cuda_error(msg.strip()) or _reworded(msg)
            if row is not None and row.codes != ("none",):
                _enum_event(r, row, "message", line)
    for line in _lines_with(text, low, "cuda error '"):
        for msg in _CUDA_ERROR_QUOTED_RE.findall(line):
            row = tables.cuda_error(msg.strip()) or _reworded(msg)
            if row is not None and row.codes != ("none",):
                _enum_event(r, row, "message", line)
    for line in _lines_with(text, low, "cuda failure "):  # NCCL: the runtime's message, or the CUresult and its message
        for num, msg in _CUDA_FAILURE_RE.findall(line):
            row = ((tables.cu_result(int(num)) if num else None) or tables.cuda_error(msg.strip())
                   or _reworded(msg))
            if row is not None and row.codes != ("none",):
                _enum_event(r, row, "message", line)
    for line in _lines_with(text, low, "cudaapierror: ["):  # (round 27c) numba's CUresult, by its number
        for num in _NUMBA_CUDA_API_RE.findall(line):
            row = tables.cu_result(int(num))
            if row is not None and row.codes != ("none",):
                _enum_event(r, row, "number", line)
    for line in _lines_with(text, low, " failed. status: "):  # TensorFlow: cudaGetErrorString after "Status: "
        for msg in _TF_STATUS_RE.findall(line + "\n"):
            row = tables.cuda_error(msg.strip()) or _reworded(msg)
            if row is not None and row.codes != ("none",):
                _enum_event(r, row, "message", line)
    for line in _lines_with(text, low, "nvml", limit=50):  # NVML's strings (nvmlErrorString) beside an NVML word
        ll = line.lower()
        for row in tables.enum_rows("nvml_errors"):
            if row.numbering == "current" and row.codes != ("none",) and len(row.message) >= 12 and \
                    row.message.lower().rstrip(".") in ll:
                _enum_event(r, row, "message", line)
    if "nvml" in low:  # a tool of NVML's logs its string on its own line ("Logging error: Insufficient Permissions")
        for row in tables.enum_rows("nvml_errors"):
            msg = row.message.lower().rstrip(".")
            if row.numbering == "current" and row.codes != ("none",) and len(msg) >= 20:
                for line in _lines_with(text, low, msg, limit=3):
                    if "nvml" not in line.lower():  # those were read above
                        _enum_event(r, row, "message", line)
    _scan_error_numbers(r, text, low)
    if hip_text:
        _scan_hip(r, text, low)


#: (round 32k) a text that is HIP's (ROCm's): torch's ROCm build words its errors "HIP error: <hipGetErrorString>"
#: (c10/hip, hipified from c10/cuda's "CUDA error: "), hipError_t names, HIP's own debugging variables
#: (AMD_SERIALIZE_KERNEL, TORCH_USE_HIP_DSA), a "+rocm" build of torch, ROCm's install root, an AMD gfx target
_HIP_TEXT_RE = re.compile(r"\bHIP (?:error|Function Failed|runtime error)\b|\bhipError[A-Z]\w{2,60}|\+rocm[0-9]|"
                          r"/opt/rocm\b|\bgfx(?:9|10|11|12)[0-9a-f]{1,2}\b|\bAMD_SERIALIZE_KERNEL\b|\bTORCH_USE_HIP_DSA\b|"
                          r"\bROCm\b|\bROCR_VISIBLE_DEVICES\b|\bHIP_VISIBLE_DEVICES\b")
#: a line that names HIP (its word, a hip* call or hipError name) or, in a HIP text, does not name CUDA
_HIP_LINE_RE = re.compile(r"\bHIP\b|\bhip[A-Z]\w{2,60}")


#: the literal each form of :data:`_HIP_TEXT_RE` begins with: a text without any of them is not HIP's, and one with
#: them is tried where they stand (a bounded number of places each), not by a search of the whole text per form
_HIP_TEXT_LITERALS = ("HIP ", "hipError", "+rocm", "/opt/rocm", "gfx", "AMD_SERIALIZE_KERNEL", "TORCH_USE_HIP_DSA",
                      "ROCm", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")


def _is_hip_text(text: str, tries: int = 1000) -> bool:
    """Whether ``text`` is HIP's (:data:`_HIP_TEXT_RE` somewhere in it), found from the forms' literals: each literal's
    first ``tries`` places are matched against the expression (a 10 MB text of one literal repeated stays linear)."""
    for lit in _HIP_TEXT_LITERALS:
        i, n = text.find(lit), 0
        while i != -1 and n < tries:
            if _HIP_TEXT_RE.match(text, i):
                return True
            i, n = text.find(lit, i + 1), n + 1
    return False


def _hip_line(line: str) -> bool:
    """Whether a line of a HIP text is HIP's: it names HIP, or it names no CUDA (a string quoted alone)."""
    return bool(_HIP_LINE_RE.search(line)) or "cuda" not in line.lower()


def _scan_hip(r: _Reader, text: str, low: str) -> None:
    """(round 32k) HIP runtime errors (tables/hip_errors.csv) in a text that is HIP's: named (``hipErrorInvalidImage``,
    hipGetErrorName) or quoted by their hipGetErrorString string ("HIP error: shared object initialization failed").
    A string shorter than 18 characters ("invalid argument", "out of memory") counts only on a line that names HIP."""
    from smrnb.doctor import tables

    for line in _lines_with(text, low, "hiperror"):
        if "error from hipgetdevicecount" in line.lower():
            continue  # torch's own warning (library_messages.csv hip_device_count) reads it with its readings
        for m in re.finditer(r"\b(hipError[A-Z]\w{2,60})\b", line):
            row = tables.hip_error(m.group(1))
            if row is not None and row.codes != ("none",) and row.name not in _HIP_READ_ELSEWHERE:
                _enum_event(r, row, "name", line)
    seen: set[str] = set()
    for row in sorted(tables.hip_error_rows(), key=lambda x: -len(x.message)):
        msg = row.message.lower().rstrip(".")
        if row.codes == ("none",) or len(msg) < 12 or msg in seen:
            continue
        seen.add(msg)  # two names share one string ("device kernel image is invalid"): the first in the header reads it
        if row.name in _HIP_READ_ELSEWHERE:
            continue
        for line in _lines_with(text, low, msg, limit=5):
            if "error from hipgetdevicecount" in line.lower():
                continue
            ll = line.lower()
            if _HIP_LINE_RE.search(line) or (len(msg) >= 18 and "cuda" not in ll and re.search(
                    r"(?:^|[:'\"]\s{0,3})" + re.escape(msg) + r"\s{0,3}[.!'\"]?\s*$", ll)):
                # a line that names no HIP: the string quoted whole at its end (hipGetErrorString's text alone)
                _enum_event(r, row, "message", line)


#: (round 32k) hipError_t rows that library_messages.csv's HIP rows read with their own narrowing (hip_no_device and
#: _torch.py's ROCM_NO_DEVICE_ROWS for a ROCm build on an NVIDIA machine, hip_insufficient_driver, hip_no_binary,
#: hip_oom, hip_invalid_device_function): hip_errors.csv documents them, the scan leaves them to those rows
_HIP_READ_ELSEWHERE = frozenset({"hipErrorNoDevice", "hipErrorInsufficientDriver", "hipErrorNoBinaryForGpu",
                                 "hipErrorOutOfMemory", "hipErrorInvalidDeviceFunction"})


def _words(msg: str) -> frozenset[str]:
    """The content words of a CUDA message, singular and without the runtime's "(s)" / "is/are" forms."""
    out = set()
    for w in re.split(r"[^a-z0-9-]+", msg.lower().replace("(s)", "").replace("is/are", "")):
        if len(w) >= 4 and w not in ("this", "that", "with", "were", "have", "been"):
            out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") else w)
    return frozenset(out)


@functools.cache
def _message_words() -> tuple[tuple[frozenset[str], Any], ...]:
    from smrnb.doctor import tables

    out = []
    for row in tables.enum_rows("cuda_errors"):
        words = _words(row.message)
        if row.numbering == "current" and row.codes != ("none",) and len(words) >= 3:
            out.append((words, row))
    return tuple(out)


def _reworded(msg: str) -> Any:
    """The runtime error whose message ``msg`` words differently (another CUDA release's wording: "all CUDA-capable
    devices are busy or unavailable" for "CUDA-capable device(s) is/are busy or unavailable"): every content word of
    the row's message is in ``msg`` and ``msg`` adds at most two; None when no row or several fit."""
    have = _words(msg)
    fits = [row for words, row in _message_words() if words <= have and len(have - words) <= 2]
    return fits[0] if len(fits) == 1 else None


def _scan_error_numbers(r: _Reader, text: str, low: str) -> None:
    from smrnb.doctor import tables

    for key in ("cuda", "cuinit", "nvml", "nvrtc", "thcudacheck"):
        i = low.find(key)
        n = 0
        while i != -1 and n < 200:
            a, line = _line_at(text, i, after=0)
            llow = line.lower()
            # (round 32g) Warp's "Failed to get driver entry point '%s' (CUDA error %u)" (NVIDIA/warp
            # warp/native/warp.cu get_driver_entry_point) gives the result of the entry-point lookup
            # (cuGetProcAddress / cudaGetDriverEntryPoint), not an operation's error: library_messages.csv's
            # warp_entry_point_invalid reads it, the number is no error of the code that runs
            if re.search(r"failed to get driver entry point '\w{2,60}' \(cuda error 1\)", llow):
                n += 1
                j = text.find("\n", i)
                i = -1 if j == -1 else low.find(key, j)
                continue
            for rx in _CUDA_ERRNUM_RES:
                for num in rx.findall(line):
                    table = ("nvml_errors" if "nvml" in llow else "nvrtc_results" if "nvrtc" in llow else
                             "cu_results" if ("cuinit" in llow or "cu_result" in llow or "cuda_error" in llow
                                              or "driver library" in llow or "cuda driver error" in llow
                                              or re.search(r"\bcu[A-Z][a-z]", line))
                             else "cuda_errors")
                    row = _number_row(tables, table, int(num), llow)
                    if row is not None and row.codes != ("none",) and int(num) != 0:
                        _enum_event(r, row, "number", line)
            n += 1
            j = text.find("\n", i)
            i = -1 if j == -1 else low.find(key, j)


def _number_row(tables: Any, table: str, num: int, llow: str) -> Any:
    rows = [row for row in tables.enum_rows(table) if row.number == num]
    if not rows:
        return None
    for row in rows:  # the numbering whose message the line quotes (pre-10.1 numbers differ)
        if row.message and row.message.lower().rstrip(".") in llow:
            return row
    return next((row for row in rows if row.numbering == "current"), None)


#: (round 32g) CMake's false constants (cmake-commands(7) if(): 0, OFF, NO, FALSE, N, IGNORE, NOTFOUND): a "library"
#: of that name on a link line is a variable's value (a find result or a cache entry set to false), never a file
_CMAKE_FALSE_NAMES = frozenset({"FALSE", "OFF", "NO", "NOTFOUND", "IGNORE"})

#: (round 27c) numba's driver error (numba/cuda/cudadrv/driver.py: CudaAPIError(retcode, msg), whose __str__ is
#: '[%s] %s' % (code, msg)): the CUresult's number in brackets, its message often cut off in a report
_NUMBA_CUDA_API_RE = re.compile(r"CudaAPIError: \[(\d{1,4})\]")


def _enum_event(r: _Reader, row: Any, how: str, line: str) -> None:
    layer = "driver"
    r.event(layer, "cuda_error", line, WEIGHT[f"enum_{how}"], table=row.table, name=row.name, number=row.number,
            message=row.message, codes=list(row.codes), how=how, numbering=row.numbering)


# ------------------------------------------------------------------ derived facts
#: (round 32l) what shows a Windows machine's driver (NVIDIA's Windows x86_64 column of the release notes' Table 3):
#: a drive-letter path, nvidia-smi.exe, a DLL, Windows 10/11, nvidia-smi's Windows table (its "TCC/WDDM" driver-model
#: column, a row's WDDM or TCC), a Windows wheel tag, a WinError; and WSL 2, whose nvidia-smi prints the Windows host
#: driver's number (the "wsl" sign)
_WINDOWS_DRIVER_RE = re.compile(r"(?<![\w/])[a-z]:\\|\bnvidia-smi\.exe\b|\.dll\b|\bwin(?:dows)? ?1[01]\b|\bwddm\b|"
                                r"\btcc\s*\||\bwin_amd64\b|\bwinerror\b|\bpython\.exe\b")


def _driver_platform(r: _Reader) -> tuple[str, str]:
    """The driver column (tables.driver_platform) of the machine the text shows: "windows" where it shows Windows
    (``_WINDOWS_DRIVER_RE``) or WSL, else "linux"; and the line that shows it."""
    from smrnb.doctor import tables

    text = r.text[:200_000]
    m = _WINDOWS_DRIVER_RE.search(text.lower())
    wsl = [e for e in r.events["context"] if e["kind"] == "sign" and e.get("sign") == "wsl"]
    line = (_whole_lines(text, m.start(), m.end()).strip()[:300] if m
            else str(wsl[0].get("line") or "")[:300] if wsl else "")
    return tables.driver_platform("windows" if m else None, bool(wsl)), line


def _derive(r: _Reader) -> None:
    from smrnb.doctor import tables

    f = r.facts
    tk, drv, tor = f["toolkit"], f["driver"], f["torch"]
    named = drv.pop("gpus_named", None)
    if named:
        drv["gpus"] = [{"index": i, **g} for i, g in enumerate(named)]
        drv.setdefault("read_from", {})["gpus"] = drv.get("read_from", {}).pop("gpus_named", "")
    plat = _driver_platform(r) if drv.get("driver_version") else ("linux", "")
    if plat[0] == "windows":
        drv["platform"] = "windows"  # (round 32l) its number is read against the Windows column
        drv.setdefault("read_from", {})["platform"] = plat[1]
    if drv.get("cuda_driver_version") is None and drv.get("driver_version"):
        v = tables.newest_cuda_for_driver(drv["driver_version"], drv.get("platform") or "linux")
        if v:
            drv["cuda_driver_version"] = v
            drv["cuda_driver_version_from"] = "table"
    if tk.get("nvccs") and not tk.get("build_nvcc_version"):
        vers = [n["version"] for n in tk["nvccs"] if n.get("version")]
        if vers:
            tk["build_nvcc_version"] = vers[0]
    if tk.get("nvccs"):
        tk["nvccs"] = [n for n in tk["nvccs"] if n]
        if tk.get("build_nvcc_version") and tk.get("build_nvcc"):
            for n in tk["nvccs"]:
                if n.get("path") == tk["build_nvcc"]:
                    n.setdefault("version", tk["build_nvcc_version"])
    if tor.get("cuda") is None and "cuda" not in tor and tor.get("cuda_wanted"):
        tor["cuda"] = tor["cuda_wanted"]
        tor.setdefault("read_from", {})["cuda"] = tor.get("read_from", {}).get("cuda_wanted", "")
    if tk.get("gcc") and tk.get("build_nvcc_version") and "max_gcc_for_build_nvcc" not in tk:
        mx = tables.max_gcc_for_nvcc(tk["build_nvcc_version"])
        if mx:
            tk["max_gcc_for_build_nvcc"] = mx
            tk["max_gcc_for_build_nvcc_from"] = "table"
    if not tk.get("archs_named"):
        tk.pop("archs_named", None)
    for e in r.events["torch"]:
        if e.get("key") == "supports_capabilities" and "arch_list" not in tor:
            tor["arch_list"] = [a for a in str((e.get("groups") or {}).get("archs", "")).replace(".", " ").split()
                                if a.startswith(("sm_", "compute_"))]
            tor.setdefault("read_from", {})["arch_list"] = e["line"]


#: rows of the driver's messages that say the installed driver does not work (the probe's "broken" status)
_BROKEN_ROWS = {"version_mismatch": "version_mismatch", "rm_version_mismatch_pynvml": "version_mismatch",
                "nvrm_api_mismatch": "version_mismatch", "nvrm_probe_not_called": "not_loaded",
                "nvml_version_mismatch": "version_mismatch", "couldnt_communicate": "not_loaded",
                "driver_not_loaded_pynvml": "not_loaded", "nvml_driver_not_loaded": "not_loaded"}
_BROKEN_ENUMS = {"NVML_ERROR_LIB_RM_VERSION_MISMATCH": "version_mismatch", "NVML_ERROR_DRIVER_NOT_LOADED": "not_loaded",
                 "cudaErrorSystemDriverMismatch": "version_mismatch", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "version_mismatch"}


def _broken_driver(r: _Reader) -> None:
    """A text that shows the driver installed but not working gives the driver facts the probe gives for
    it (``status: "broken"``, ``broken_kind``, ``message``), so the live rule decides it."""
    for ly in ("driver", "context"):
        for e in r.events[ly]:
            kind = _BROKEN_ROWS.get(str(e.get("key"))) if e["kind"] == "message" else _BROKEN_ENUMS.get(str(e.get("name")))
            if kind == "not_loaded" and r.facts["context"].get("container"):
                continue  # in a container the same words mean a GPU not given to it (rules decide)
            # (round 27b) a mismatch the text shows decides over a driver that does not answer ("couldn't
            # communicate" is what nvidia-smi says when the module refuses a library of another release)
            if kind and (r.facts["driver"].get("status") != "broken" or kind == "version_mismatch" and
                         r.facts["driver"].get("broken_kind") == "not_loaded"):
                d = r.facts["driver"]
                d.update(status="broken", broken_kind=kind, message=e["line"])
                d.setdefault("read_from", {})["status"] = e["line"]


#: rows of the Slurm table whose message any shell or script prints too (CUDA_VISIBLE_DEVICES set or empty, a
#: module command the shell lacks)
_NOT_ONLY_SLURM = frozenset({"cvd_empty", "cvd_local_indices", "module_function_missing"})


#: (round 28c) the container tool a text's words name (the ``container`` sign's phrase, a container message's row):
#: Apptainer/Singularity start a GPU with ``--nv``, Kubernetes with a pod's ``nvidia.com/gpu`` limit, Podman with a
#: CDI device; Docker where none of them is named
_CONTAINER_KINDS = (("apptainer", "apptainer"), ("singularity", "singularity"), ("kubectl", "kubernetes"),
                    ("podman", "podman"))
_CONTAINER_ROW_KINDS = {"k8s_no_limit": "kubernetes"}


def _container_kind(r: _Reader) -> str:
    said = {str(e.get("phrase") or "") for ly in LAYERS for e in r.events[ly]
            if e["kind"] == "sign" and e.get("sign") == "container"}
    for word, kind in _CONTAINER_KINDS:
        if word in said:
            return kind
    for e in r.events["context"]:
        kind = _CONTAINER_ROW_KINDS.get(str(e.get("key")))
        if e.get("table") == "container_messages" and kind:
            return kind
    return "docker"


def _context_from_signs(r: _Reader) -> None:
    signs = {e.get("sign") for ly in LAYERS for e in r.events[ly] if e["kind"] == "sign"}
    ctx = r.facts["context"]
    if "container" in signs or any(e.get("table") == "container_messages" and e.get("key") != "torch_no_driver"
                                   for e in r.events["context"]):
        ctx.setdefault("container", _container_kind(r))
    if "slurm" in signs or any(e.get("table") == "slurm_gpu" and e.get("key") not in _NOT_ONLY_SLURM
                               for e in r.events["context"]):
        ctx.setdefault("slurm", {"job_id": None})
    if "windows" in signs:
        ctx.setdefault("os", "windows")
    if "macos" in signs:
        ctx.setdefault("os", "macos")
    if "wsl" in signs:
        ctx.setdefault("wsl", True)
    if "in_notebook" in signs:
        r.facts["jupyter"].setdefault("in_kernel", True)


#: texts longer than this (characters) have their set of characters and of words read once (:func:`read_text`)
_CHARS_FROM = 100_000
#: a word of a lower-cased text as :class:`_Holds` reads it, and what separates two
_WORD_RE = re.compile(r"[a-z0-9_]+")
_NOT_WORD_RE = re.compile(r"[^a-z0-9_]+")


@functools.lru_cache(maxsize=4096)
def _word_parts(lit: str) -> tuple[tuple[str, ...], str, str]:
    """What the words of ``lit`` (lower-case) say of every text that holds it: ``(whole, end, start)``. ``whole``: the
    words with a non-word character on both sides within it (each is then a whole word of the text); ``end``: the last
    4 characters of its first word where that word ends at a non-word character but ``lit`` starts with it (a word of
    the text then ends with them); ``start``: the first 4 of its last word where that word follows a non-word
    character and ends ``lit`` (a word of the text starts with them); ``""`` where there is no such word or it is
    shorter. ``"cannot open shared object"`` -> ``(("open", "shared"), "nnot", "obje")``."""
    parts = _NOT_WORD_RE.split(lit)
    if len(parts) < 2:  # one word, or none: it may stand anywhere within a word of the text
        return (), "", ""
    first, last = parts[0], parts[-1]
    return (tuple(w for w in parts[1:-1] if w), first[-4:] if len(first) >= 4 else "",
            last[:4] if len(last) >= 4 else "")


class _Holds:
    """(round 28p) Which literals a long lower-cased text may hold, told without a scan of it: a literal holding a
    character the text lacks, a whole word that is none of the text's words, or a first (last) word that no word of
    the text ends (starts) with (:func:`_word_parts`), is absent. Exact: it never says absent of a literal the text
    holds (10 MB of random text capped is some 4,000 lines in which no table row's or sign's phrase of two words or
    more occurs: a few passes here, not 1,800 scans of the whole text)."""

    __slots__ = ("chars", "words", "ends", "starts")

    def __init__(self, low: str) -> None:
        self.chars = frozenset(low)
        self.words = frozenset(_WORD_RE.findall(low))
        long = [w for w in self.words if len(w) >= 4]
        self.ends = frozenset(w[-4:] for w in long)
        self.starts = frozenset(w[:4] for w in long)

    def __call__(self, lit: str) -> bool:
        if not self.chars.issuperset(lit):
            return False
        whole, end, start = _word_parts(lit)
        return self.words.issuperset(whole) and (not end or end in self.ends) and (not start or start in self.starts)


#: (round 27e) "fixed in 2.2.1", "fixed in transformers 4.38.1": a release the text says fixed the failure
_FIXED_IN_RELEASE_RE = re.compile(r"\bfixed in (?:[a-z][\w-]{1,40}[ =]=?)?v?\d+\.\d+(?:\.\d+)?\b")


def read_text(text: str, budget_s: float = TIME_BUDGET_S) -> dict[str, dict[str, Any]]:
    """``{layer: facts}`` read from ``text`` (capped and normalised): the keys of FACTS.md the text shows,
    ``read_from`` (key -> line), and ``events``; layers the text says nothing about are left out."""
    r = _Reader()
    if not isinstance(text, str) or not text.strip():
        return {}
    text = english_loader_lines(_rejoin_wrapped_sonames(text))
    r.text = text
    _scan_lines(r, text, budget_s)
    _printed_torch_version(r, text)
    if text.find("\nVersion: ", 0, _PIP_SHOW_CHARS) >= 0:  # (the line _PIP_SHOW_RE needs, as pip prints it)
        _pip_show_releases(r, text)
    low = text.lower()
    # a long text's characters and words, once: a phrase or a row's literal holding a character or a whole word the
    # text lacks is absent without a scan (a capped 10 MB log is some 700 kB, each scan of it half a millisecond,
    # some 2,000 of them)
    holds = _Holds(low) if len(low) > _CHARS_FROM else None
    _class_attribute_told(r, text)
    _own_definitions(r, text)
    if "'function' object has no attribute" in text:
        _callable_attr_in_text(r, text)  # (round 34b)
    _user_values(r, text, low)
    if "conflict is caused by" in low:
        _pip_conflict(r, text)
    _unplaced_bare_import(r, low)
    _sibling_import_missing(r, text)
    _prose_import_pulls(r, text)
    _removed_api_forms(r, text, low)
    _newer_torch_api(r, text, low)
    _scan_signs(r, text, low, holds)
    if "has no attribute" in low and "__init__.py" in low and "_c." in low:
        _torch_init_c_attr(r, text)
    if "thc" in low and (m := _LUA_TORCH_RE.search(text[:200_000])):
        r.fact("toolkit", "lua_torch", True, text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end())][:300])
    _scan_stale_release(r, text, low)
    if "torch" in low:
        _torch_replaced(r, text)
    _scan_tf_release(r, text)
    if "tried to allocate" in low:
        _oom_request(r, text)
    if "cuda:" in low or "set_device(" in low or "--gpu" in low or "--device" in low:
        _device_index_asked(r, text)
    _scan_tables(r, text, low, holds)
    _scan_enums(r, text, low)
    _own_package_import(r, text)
    if "invalid literal for int()" in low:
        _option_value_not_int(r, text)
    if "importerror" in low and "from ." in text:
        _relative_import_in_cell(r, text)
    if "pointer to a bound function" in low and "type name is not allowed" in low:
        _template_call_on_plain_member(r, text, low)
    _derive(r)
    _context_from_signs(r)
    _broken_driver(r)
    _gpu_said(r, low)
    return r.result()


#: (round 36) pip show's two first lines (pip/_internal/commands/show.py print_results: "Name: %s", "Version: %s"),
#: read in the text's first characters
_PIP_SHOW_RE = re.compile(r"^Name: ([A-Za-z0-9][A-Za-z0-9._-]{0,80})[ \t]*\nVersion: v?([0-9]{1,3}\.[0-9]{1,3}"
                          r"(?:\.[0-9]{1,4})?)", re.MULTILINE)
_PIP_SHOW_CHARS = 200_000


def _pip_show_releases(r: _Reader, text: str) -> None:
    """(round 36) The release ``pip show`` prints for a distribution (``loader.package_releases``, as the other forms
    of a release named with a package: lower case, ``-`` as ``_``)."""
    for m in list(_PIP_SHOW_RE.finditer(text, 0, _PIP_SHOW_CHARS))[:16]:
        name = m.group(1).replace("-", "_").lower()
        _note_release(r, name, m.group(2), m.group(0).replace("\n", " "))


#: (round 35a) Python's int() refusing a string (CPython Objects/longobject.c PyLong_FromString: "invalid literal for
#: int() with base %d: %R")
_INT_LITERAL_RE = re.compile(r"invalid literal for int\(\) with base 10: '([^'\n]{2,120})'")


def _option_value_not_int(r: _Reader, text: str) -> None:
    """(round 35a) The torch sign ``option_value_not_int``: the string int() refused is the value the text's own
    command gives an option ("nnUNet_plan_and_preprocess -t Task101_BrainSeg" beside "invalid literal for int() with
    base 10: 'Task101_BrainSeg'"): the program parses that option as a number and was given a name or a path."""
    m = _INT_LITERAL_RE.search(text)
    if not m or re.fullmatch(r"[\s0-9.+-]*", m.group(1)):
        return
    opt = re.search(r"(?:^|\s)(-{1,2}[A-Za-z][\w-]{0,40})[ =]['\"]?" + re.escape(m.group(1)) + r"(?![\w.-])", text)
    if opt:
        line = _whole_lines(text, m.start(), m.end())[:300]
        r.event("torch", "sign", line or m.group(0), WEIGHT["sign"], sign="option_value_not_int",
                phrase=f"{opt.group(1)} {m.group(1)}")


#: (round 35a) the EDG front end's (nvcc's) error at a file and line: "a pointer to a bound function may only be used to
#: call the function"
_BOUND_FUNCTION_RE = re.compile(r"([\w./\\-]{1,300}\.(?:cu|cuh|cpp|cc|h|hpp))\(([0-9]{1,6})\): error: a pointer to a bound "
                                r"function may only be used to call the function")


def _template_call_on_plain_member(r: _Reader, text: str, low: str) -> None:
    """(round 35a) The toolkit sign ``template_call_on_plain_member``: nvcc's "a pointer to a bound function may only
    be used to call the function" and "type name is not allowed" at the same file and line of a torch extension's
    source: the source calls a member as a template (tensor.data_ptr<scalar_t>()) that the installed torch's headers
    declare as a plain function only (void* data_ptr()), so EDG parses "x.data_ptr < scalar_t > ()": the comparison
    of a bound function, a type where an expression belongs, an empty expression. Read where the text is a torch
    extension's build (torch/pytorch, setup.py, a csrc folder, ATen, TORCH_EXTENSION named)."""
    if not re.search(r"torch|setup\.py|[/\\]csrc[/\\]|\baten\b|torch_extension", low):
        return
    for m in _BOUND_FUNCTION_RE.finditer(text[:500_000]):
        if f"{m.group(1)}({m.group(2)}): error: type name is not allowed" in text:
            line = _whole_lines(text, m.start(), m.end())[:300]
            r.event("toolkit", "sign", line or m.group(0), WEIGHT["sign"], sign="template_call_on_plain_member",
                    phrase=f"{m.group(1)}({m.group(2)})")
            return


#: (round 35a) IPython's frame of a notebook cell (8: "Cell In[3], line 5"; 7: "<ipython-input-3-...> in <module>";
#: Colab's "<cell line: 33>") and, below it (no other frame or marked line between), the line it ran marked "---->"
#: being a relative import
_CELL_RELATIVE_IMPORT_RE = re.compile(r"(?:<cell line: ?[0-9]{1,5}>|Cell In ?\[[0-9]{1,5}\]|<ipython-input-[\w-]{1,80}>)"
                                      r"[^\n]{0,200}\n(?:(?!\s{0,8}-{1,4}>|\s{0,8}File )[^\n]{0,300}\n){0,12}?\s{0,8}-{1,4}>\s{0,4}[0-9]{0,5}\s{1,8}"
                                      r"(from \.{1,4}[\w.]{0,100} import [^\n]{1,200})")


def _relative_import_in_cell(r: _Reader, text: str) -> None:
    """(round 35a) The torch sign ``relative_import_in_cell``: an ImportError whose notebook cell ran a relative import
    (IPython's "---->" line under the cell's frame): a cell belongs to no package, so Python cannot resolve it
    ("attempted relative import with no known parent package", importlib._bootstrap._sanity_check), whatever is
    installed; code copied from a package's source."""
    m = _CELL_RELATIVE_IMPORT_RE.search(text[:200_000])
    if m:
        r.event("torch", "sign", m.group(1).strip()[:300], WEIGHT["sign"], sign="relative_import_in_cell",
                phrase=m.group(1).strip()[:200])


#: (round 34a) Python's chained exception (traceback.py's _context_message) and the ImportError a program raises in its
#: handler, its message (one line)
_GUARDED_IMPORT_REPORT_RE = re.compile(r"During handling of the above exception, another exception occurred:\s*\n"
                                       r"(?:[^\n]{0,300}\n){0,12}?\s{0,8}ImportError: ([^\n]{1,200})")


def _own_package_import(r: _Reader, text: str) -> None:
    """(round 32g) "No module named 'X.Y'" raised by importing X itself, the statement just before the error being
    `import X` (a prompt, a line of its own, a code span) with no traceback between. Importing a package runs its
    __init__.py, which imports its own submodule Y that this copy of X lacks (CPython importlib._bootstrap: 'No module
    named {!r}' with the full dotted name): ``package_self_import`` on the module event ("statement"). A traceback
    whose frame is X's own __init__.py keeps the earlier rounds' reading (another release of X first:
    test_explain_readings, test_explain_kinds16_dev14)."""
    for ev in r.events["torch"]:
        mod = str(ev.get("module") or "")
        if ev.get("kind") != "module_missing" or mod.count(".") < 1 or ev.get("package_self_import") or \
                ev.get("attribute") or "no module named '" not in str(ev.get("line") or "").lower():
            continue
        top = mod.split(".")[0]
        if not re.fullmatch(r"[A-Za-z_]\w{0,40}", top):
            continue
        said, at, n = str(ev.get("line") or "")[:80], -1, 0
        while said and n < 10 and (at := text.find(said, at + 1)) != -1:  # each place the error is printed
            n += 1
            if re.search(r"(?:^|\n|>>> |`)import " + re.escape(top) + r"(?![\w.])[^\n]{0,40}\n(?:[^\n]{0,200}\n){0,2}$",
                         text[max(0, at - 500):at]) and 'File "' not in text[max(0, at - 500):at]:
                ev["package_self_import"] = "statement"
                break
            after = text[at:at + 1500]
            m = _GUARDED_IMPORT_REPORT_RE.search(after)
            if m and re.search(r"(?<![\w.])" + re.escape(top) + r"(?![\w.])", m.group(1), re.IGNORECASE) and \
                    mod.lower() not in m.group(1).lower() and 'File "' not in text[max(0, at - 500):at]:
                # (round 34a) the program's guarded `import X` reports its failure as its own ImportError naming X
                # alone (kohya's sd-scripts: except ImportError: raise ImportError("No bitsandbytes / ..."), Python
                # chaining it after the first): importing X itself failed on X's own submodule
                ev["package_self_import"] = "guarded"
                break



#: (round 30b, blind audit 29) a word that shows a GPU or CUDA in use: a GPU or its vendor named, a CUDA device, call,
#: library, wheel tag or release (``context.gpu_said``); a CPU-only torch "on a machine with an NVIDIA GPU"
#: (cpu_only_torch_with_gpu) needs one. ASCII-letter bounds, not \b: "cuda是10.1" names CUDA
_GPU_SAID_RE = re.compile(r"(?<![a-z])(?:gpus?|nvidia|geforce|rtx|gtx|tesla|quadro|titan|cudnn|nvcc|cuda|cu1\d\d)(?![a-z])|"
                          r"[a-z0-9]_cuda(?![a-z])|cuda:\d|\.cuda\(")
#: the words of torch's own build helpers that name CUDA only to find its toolkit (cpp_extension's CUDAExtension,
#: library_paths(cuda=True), _join_cuda_home and its "CUDA_HOME environment variable is not set. Please set it to your
#: CUDA install root."): a CUDA build asked for, not a GPU on the machine; a line's other words still count (cpp_extension's
#: "No CUDA runtime is found, using CUDA_HOME='...\\CUDA\\v11.6'" names a toolkit installed and torch finding no GPU)
_GPU_SAID_NOT_RE = re.compile(r"cuda_home|cudaextension|cpp_extension|cuda install root|library_paths\(cuda=true\)")


def _gpu_said(r: _Reader, low: str) -> None:
    """(round 30b) ``context.gpu_said``: the first line that shows a GPU or CUDA in use (:data:`_GPU_SAID_RE`) outside
    the words of torch's build helpers that only look for the toolkit (:data:`_GPU_SAID_NOT_RE`)."""
    for n, m in enumerate(_GPU_SAID_RE.finditer(low)):
        if n >= 200:  # a long build log of the helpers' lines only: bounded
            return
        start = max(low.rfind("\n", 0, m.start()) + 1, m.start() - 200)  # the match's line, 200 characters around
        end = low.find("\n", m.end(), m.end() + 200)
        near = low[start:end if end >= 0 else m.end() + 200]
        if _GPU_SAID_RE.search(_GPU_SAID_NOT_RE.sub(" ", near)):
            r.fact("context", "gpu_said", True, near)
            return


#: (round 28a) pip's resolver explaining a ResolutionImpossible (src/pip/_internal/resolution/resolvelib/factory.py,
#: _report_single_requirement_conflict / get_installation_error: "The conflict is caused by:", then "The user
#: requested X==1", "A 2.0 depends on X>=2"; pip < 23: "A 2.0 has requirement X>=2")
_PIP_USER_REQUESTED_RE = re.compile(r"^\s{0,12}The user requested \(?(?:constraint )?([A-Za-z0-9][A-Za-z0-9._-]{0,80})"
                                    r"(?:\[[^\]\n]{0,80}\])?\s?([<>=!~][^;\n]{0,120})?")
_PIP_DEPENDS_ON_RE = re.compile(r"^\s{0,12}([A-Za-z0-9][A-Za-z0-9._-]{0,80}) ([0-9][A-Za-z0-9.+!_-]{0,40}) (?:depends on|has "
                                r"requirement) ([A-Za-z0-9][A-Za-z0-9._-]{0,80})(?:\[[^\]\n]{0,80}\])?\s?"
                                r"([<>=!~][^;\n]{0,120})?")


def _pip_conflict(r: _Reader, text: str) -> None:
    """(round 28a) ``kaolin.pip_conflict``: pip's resolver giving up on requirements that conflict (ResolutionImpossible
    after "The conflict is caused by:"): the pins the user asked for (``requested``: name -> specifier) and what each
    release pip tried requires (``depends``: [package, release, requirement, specifier])."""
    block = text.split("conflict is caused by", 1)[1][:6000]
    requested: dict[str, str] = {}
    depends: list[list[str]] = []
    for raw in block.split("\n")[1:40]:
        if "To fix this" in raw or "ResolutionImpossible" in raw:
            break
        if m := _PIP_USER_REQUESTED_RE.match(raw):
            requested.setdefault(m.group(1).lower().replace("_", "-"), (m.group(2) or "").strip())
        elif m := _PIP_DEPENDS_ON_RE.match(raw):
            depends.append([m.group(1).lower().replace("_", "-"), m.group(2), m.group(3).lower().replace("_", "-"),
                            (m.group(4) or "").strip()])
    if depends:
        line = next((x for x in text.split("\n") if "conflict is caused by" in x.lower()), "The conflict is caused by:")
        r.event("kaolin", "pip_conflict", line, WEIGHT["row"] + 8, requested=requested, depends=depends[:12])


def _one_edit(a: str, b: str) -> bool:
    """(round 28a) Two names of 4+ letters one letter apart (one changed, added or left out, at any place)."""
    if a == b or min(len(a), len(b)) < 4 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


#: (round 28a) a module file the text names outside any installed tree ("util.py", "helpers/util.py")
_PY_FILE_NAMED_RE = re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_]{2,60})\.py\b")
_NO_MODULE_NAMED_RE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]{0,120})'")


#: (round 29b) a class constructed in the text's code (``vec = Vector3(1, 2, 3)``, ``ME.SparseTensor(``): its name
_CONSTRUCTED_RE = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w{0,40}\.){0,3}([A-Z][A-Za-z0-9]{1,60})\(([^()\n]{0,400})")


def _constructed_class(r: _Reader, ev: dict[str, Any], text: str) -> None:
    """(round 29b) Python before 3.10 words a constructor's refusal as a bare ``__init__() got an unexpected keyword
    argument 'k'`` (3.10 adds the class: ``Vector3.__init__()``); with no traceback frame whose source line makes the
    call, the class is the one the text's code constructs from a package (``torch.called_names``): the one call of a
    class imported from a package, the one passing ``k=`` where the keyword is named. ``name`` on the event."""
    called = r.facts["torch"].get("called_names") or {}
    kw = re.search(r"unexpected keyword argument '(\w{1,80})'", str(ev.get("line") or ""))
    found = {m.group(1) for m in _CONSTRUCTED_RE.finditer(text[:50000])
             if m.group(1) in called and (not kw or re.search(rf"\b{kw.group(1)}\s*=", m.group(2)))}
    if str(ev.get("callee") or "") in ("__init__", "__new__") and len(found) == 1:
        ev["name"] = found.pop()


#: (round 30a) a tensor's or array's shape unpacked into names on the source line just above Python's unpacking error
#: (``batch_size, num_vertices = vertices.shape[:2]``): the value passed has another number of dimensions
_SHAPE_UNPACK_RE = re.compile(r"^[ \t>|]{0,40}(?P<src>[A-Za-z_][\w ,()*]{0,120}=\s{0,4}(?P<obj>[A-Za-z_][\w.\[\]'\"]{0,80})"
                              r"\.(?:shape|size\(\s{0,2}\))(?:\[[^\]\n]{0,20}\])?)\s*\n(?:[^\n]{0,300}\n){0,2}?[^\n]{0,40}"
                              r"ValueError: (?:not enough|too many) values to unpack", re.MULTILINE)
#: (round 30a) an image or frame read by OpenCV into a name (cv2.imread returns None for a path it cannot read, a
#: VideoCapture's read() (False, None) past the last frame or for a stream it cannot open: OpenCV's documentation)
_CV2_READ_RE = re.compile(r"^[ \t>]{0,40}(?:[A-Za-z_]\w{0,40}\s{0,2},\s{0,2})?(?P<name>[A-Za-z_]\w{0,60})\s{0,2}=\s{0,2}"
                          r"(?P<call>cv2\.imread\(|[A-Za-z_][\w.]{0,60}\.read\(\s{0,2}\))", re.MULTILINE)
#: (round 30a) Python's error on a value that is None used as an array
_NONE_AS_ARRAY_RE = re.compile(r"(?:AttributeError|TypeError): 'NoneType' object (?:has no attribute "
                               r"'(?P<attr>shape|copy|astype|ndim|dtype|size|reshape|transpose|mean|flatten)'|"
                               r"is not subscriptable)")
#: (round 30a) json's decoding error with the position Python's json module reports (Lib/json/decoder.py
#: JSONDecodeError: '%s: line %d column %d (char %d)')
_JSON_DECODE_RE = re.compile(r"JSONDecodeError: (?P<msg>[^\n:]{1,80}): line (?P<line>\d{1,9}) column (?P<col>\d{1,9}) "
                             r"\(char \d{1,12}\)")
#: (round 30a) a JSON file named by the text (a source line's literal, a command's argument)
_JSON_FILE_RE = re.compile(r"""["'/\s(]((?:[\w.~-]{1,80}/){0,12}[\w.-]{1,120}\.json)\b(?!\.)""")


#: (round 30a) PyYAML's syntax errors (lib/yaml/scanner.py, parser.py) with the mark of where the document breaks
#: (lib/yaml/error.py Mark.__str__: '  in "%s", line %d, column %d'), in a .yaml/.yml file
_YAML_ERROR_RE = re.compile(r"(?P<exc>ScannerError|ParserError): (?P<msg>[^\n]{1,120})\n(?:[^\n]{0,300}\n){0,8}?"
                            r"[ \t]{0,8}in \"(?P<file>[^\"\n]{1,300}\.ya?ml)\", line (?P<line>\d{1,9}), "
                            r"column (?P<col>\d{1,9})")


def _user_values(r: _Reader, text: str, low: str) -> None:
    """(round 30a) What the text shows of a value or file of the person's that an error was raised on: a shape
    unpacked into more names than the value has dimensions (``torch.shape_unpacked``: the source line); an image or
    frame OpenCV returned as None and then used as an array (``torch.own_code_exception`` with ``reader``); a JSON file
    the text names that does not parse past its first character, a YAML file PyYAML's scanner or parser marks
    (``torch.own_code_exception`` with ``data_file``)."""
    if "values to unpack" in low:
        m = _SHAPE_UNPACK_RE.search(text[:200000])
        if m:
            r.fact("torch", "shape_unpacked", m.group("src").strip()[:200], m.group("src").strip())
    if "'nonetype' object" in low and ("cv2" in low or ".read(" in low):
        n = _NONE_AS_ARRAY_RE.search(text)
        reads = [c for c in _CV2_READ_RE.finditer(text[:200000]) if n and  # the code pasted above or below the error
                 ("cv2.imread" in c.group("call") or re.search(r"cv2\.VideoCapture\(", text[:c.start()]))]
        name = reads[-1].group("name") if reads else ""
        if n and name and re.search(rf"\b{re.escape(name)}(?:\.(?:{n.group('attr') or 'shape'})\b|\[)",
                                    text[reads[-1].end():reads[-1].end() + 2000]):
            end = text.find("\n", reads[-1].start())
            cap = re.search(r"cv2\.VideoCapture\([^\n]{0,200}", text[:reads[-1].start()])
            r.event("torch", "own_code_exception", n.group(0), WEIGHT["module"], exception="AttributeError",
                    where="own", file=r.own_frame[-200:], reader=name,
                    call=text[reads[-1].start():end if end != -1 else len(text)].strip()[:200],
                    opened=cap.group(0)[:200] if cap and "imread" not in reads[-1].group("call") else "",
                    reader_call="cv2.imread" if "imread" in reads[-1].group("call") else "VideoCapture.read")
    if "jsondecodeerror" in low and not any(e["kind"] == "own_code_exception" for e in r.events["torch"]):
        j = _JSON_DECODE_RE.search(text)
        files = [f for f in _JSON_FILE_RE.findall(text[:j.start()]) if not _LIBRARY_PATH_RE.search(f)] if j else []
        if j and files and (j.group("line"), j.group("col")) != ("1", "1"):
            r.event("torch", "own_code_exception", j.group(0), WEIGHT["module"], exception="JSONDecodeError",
                    where="own", file=r.own_frame[-200:], call="", json=True, data_file=files[-1][-200:],
                    data_at=f"line {j.group('line')} column {j.group('col')}", data_msg=j.group("msg"), data="JSON")
    y = _YAML_ERROR_RE.search(text) if ("scannererror" in low or "parsererror" in low) else None
    if y and not _LIBRARY_PATH_RE.search(y.group("file")) and \
            not any(e["kind"] == "own_code_exception" for e in r.events["torch"]):
        r.event("torch", "own_code_exception", y.group(0).strip()[:300], WEIGHT["module"], exception=y.group("exc"),
                where="own", file=r.own_frame[-200:], call="", data_file=y.group("file")[-200:],
                data_at=f"line {y.group('line')} column {y.group('col')}", data_msg=y.group("msg").strip()[:80],
                data="YAML")


#: (round 33d) a program's own report, on a line of its own, that an import inside its try/except failed, printed by
#: the except clause before the NameError at the name's first use (dev22/pymaf-34's core/trainer.py: ``try: from
#: utils.renderer import ..., IUV_Renderer except: print('fail to import Renderer.')``; "Failed to import X", "Could
#: not import X", "WARNING: unable to import X"); Python's own "cannot import name 'x'" is not one
_GUARDED_IMPORT_SAID_RE = re.compile(
    r"^[^\S\n]{0,8}(?:\[\w{1,12}\][^\S\n]{0,3}|[A-Za-z]{1,12}:[^\S\n]{0,3})?(?:[Ff]ail(?:ed)? to import|[Cc]ould not "
    r"import|[Uu]nable to import)[^\S\n]+(?!name\b)['\"`]?([A-Za-z_][\w.]{0,80}?)['\"`]?[.!:]?[^\S\n]*$", re.MULTILINE)


def _import_failure_said(r: _Reader, text: str) -> None:
    """(round 33d) A NameError of the person's code (``torch.own_code_exception`` ``undefined``) after the program's
    own report that a guarded import failed (:data:`_GUARDED_IMPORT_SAID_RE`): the name was to come from that import,
    whose failure (a package or a compiled module missing) is the cause, read as that module missing
    (``torch.module_missing`` with ``guarded_import``) in place of a name the code never binds."""
    keep = []
    for e in r.events["torch"]:
        at = text.find(f"name '{e.get('undefined')}' is not defined") if e["kind"] == "own_code_exception" and \
            e.get("undefined") else -1
        said = _GUARDED_IMPORT_SAID_RE.search(text, 0, at) if at > 0 else None
        if said is None:
            keep.append(e)
            continue
        keep.append({"kind": "module_missing", "from": "text", "weight": WEIGHT["module"], "line": e["line"],
                     "module": said.group(1).rstrip("."), "guarded_import": True,
                     "said": quote(said.group(0).strip(), 200)})
    r.events["torch"] = keep


def _own_definitions(r: _Reader, text: str) -> None:
    """(round 28a) What the text shows of the person's own code beside a Python error: a function refusing a keyword
    whose definition the text shows in their code (``def build_model(``, or said "build_model is defined in
    /home/a/proj/models.py"): ``own_def`` on its ``torch.signature_mismatch``; a module that cannot be imported one
    letter off a module file of theirs the text names (``helpers.utilz`` beside ``helpers/util.py``):
    ``torch.own_code_exception`` with ``meant``."""
    r.events["torch"] = [e for e in r.events["torch"] if not (  # (round 29b) a NameError's name the text binds
        e["kind"] == "own_code_exception" and e.get("undefined") and _defined_in_text(text, str(e["undefined"])))]
    if "import" in text:
        _import_failure_said(r, text)
    for ev in r.events["torch"]:
        if ev["kind"] == "module_missing" and (ev.get("attribute") or ev.get("import_name")):
            last = re.escape(str(ev.get("module") or "").rsplit(".", 1)[-1])
            # (round 29b) the person's code using the name, pasted beside Python's error line (rules._abi._who_asks)
            if last and re.search(rf"^(?!.*(?:Error|error|Exception)\b).*(?:\.{last}\b|\bimport\b.*\b{last}\b)",
                                  text[:50000], re.MULTILINE):
                ev["code_shown"] = True
        if ev["kind"] == "signature_mismatch" and not ev.get("name") and not ev.get("frame"):
            _constructed_class(r, ev, text)
        name = str(ev.get("name") or "") if ev["kind"] == "signature_mismatch" else ""
        if not name or ev.get("caller_package") or "-packages" in str(ev.get("frame") or ""):
            continue
        said = re.search(rf"\b{re.escape(name)}\b(?:\(\))?`? is defined in ['\"`]?([^\s'\"`,;)]{{1,300}})", text)
        if re.search(rf"^\s{{0,40}}def {re.escape(name)}\(", text, re.MULTILINE) or \
                (said and not re.search(r"(?:site|dist)-packages|\.egg", said.group(1))):
            ev["own_def"] = True
    m = _NO_MODULE_NAMED_RE.search(text) if "No module named" in text else None
    if not m:
        return
    last = m.group(1).rsplit(".", 1)[-1]
    # (round 35b) nor a module of Python's own standard library (lib/python3.X/lzma.py importing its compiled _lzma)
    files = {f.group(1) for f in _PY_FILE_NAMED_RE.finditer(text[:20000])
             if "-packages" not in (before := text[max(0, f.start() - 200):f.start()].rsplit("\n", 1)[-1])
             and not re.search(r"[/\\]lib(?:64)?[/\\]python[23](?:\.\d{1,2})?[/\\]$", before)}
    meant = next((f for f in sorted(files) if _one_edit(last, f)), None)
    if meant:
        r.event("torch", "own_code_exception", m.group(0), WEIGHT["module"], exception="ModuleNotFoundError",
                module=m.group(1), meant=meant, file=r.own_frame[-200:], call=r.own_call[:200], where=r.inner_kind)


#: (round 26a) an object of a class without the member the code asks for, in Python's words, with either quote
#: ("AttributeError: 'Trimesh' object has no attribute 'remove_duplicate_faces'", a title without the exception);
#: (round 27c) the class also under its module's dotted name, as pybind11 types print ('tensorrt.tensorrt.ICudaEngine');
#: (round 35d) up to five parts before it: Open3D's 'open3d.cpu.pybind.geometry.PointCloud'
_INSTANCE_ATTR_RE = re.compile(r"""['"](?:[A-Za-z_][A-Za-z0-9_]{0,40}\.){0,5}([A-Za-z_][A-Za-z0-9_]{1,60})['"] object has no """
                               r"""attribute ['"]([A-Za-z0-9_]{1,80})['"]""")
#: (round 26a) an import statement quoted in a report ("from torchvision.models.utils import load_state_dict_from_url",
#: "import mmcv.runner"): its module and the names it imports
_QUOTED_FROM_IMPORT_RE = re.compile(r"(?<![\w.])from ([A-Za-z_][A-Za-z0-9_.]{0,100}) import ([A-Za-z0-9_, ()]{1,300})")
#: (round 33d) a from-import quoted without its "from" ('there is an import "diffusers.utils import randn_tensor"',
#: dev22/trl-849): a dotted module right after the quote mark
_QUOTED_BARE_FROM_IMPORT_RE = re.compile(r"(?<=[\"'`“‘])([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z0-9_]{1,60}){1,6}) import "
                                         r"([A-Za-z0-9_, ()]{1,300})")
_QUOTED_IMPORT_RE = re.compile(r"(?<![\w.])import ([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){1,4})\b")
#: (round 26a) a report's own words that the quoted import fails ("throws an error", "no longer works", "was removed")
_FAILS_SAID_RE = re.compile(r"\b(?:errors?|fails?|failed|failing|throws?|thrown|raises?|no longer|does ?n[o']t work|"
                            r"not work(?:ing)?|broken|removed?|remove[ds]?|deprecated|gone)\b")
#: (round 26a) a Python exception line other than the import's own: the text fails elsewhere, not at the quoted import
_OTHER_EXCEPTION_RE = re.compile(r"\b(?!ImportError|ModuleNotFoundError|AttributeError)[A-Z][A-Za-z]{2,40}(?:Error|Exception):")
#: (round 26a) a package's usual alias in code, taken as its name in the text ("pd.DataFrame", "np.")
_PACKAGE_ALIASES = {"pandas": ("pd.",), "numpy": ("np.",), "matplotlib": ("plt.",), "tensorflow": ("tf.",)}
#: (round 26a) Python's refusal of a keyword argument ("TypeError: Trainer.__init__() got an unexpected keyword
#: argument 'gpus'"; before Python 3.10 a bare "__init__()"): the callee's dotted name and the keyword
_UNEXPECTED_KEYWORD_RE = re.compile(r"((?:[A-Za-z_][A-Za-z0-9_]{0,60}\.){0,4}[A-Za-z_][A-Za-z0-9_]{0,60})\(\) got an "
                                    r"unexpected keyword argument ['\"]([A-Za-z_][A-Za-z0-9_]{0,60})['\"]")


def _package_named(low: str, row: Mapping[str, str]) -> bool:
    """(round 26a) The text names the row's package: its import name or distribution as a word, an alias of it
    (``pd.``), or a class named after it (``Trimesh``)."""
    top = row["module"].split(".")[0].lower()
    names = {top, row["library"].lower()}
    if any(n in low and re.search(rf"(?<![a-z0-9_]){re.escape(n)}(?![a-z0-9_])", low) for n in names):
        return True
    return any(a in low for a in _PACKAGE_ALIASES.get(top, ()))


@functools.cache
def _removed_rows_by_name() -> dict[str, dict[str, str]]:
    """(round 26a) tables/removed_apis.csv by its dotted name (``module`` + ``.name``)."""
    from smrnb.doctor import tables

    return {r["module"] + (f".{r['name']}" if r.get("name") else ""): r for r in tables.rows("removed_apis")}


#: (round 26a) the quoted-import form is read in a report's size (a pasted issue), not in a long log
_QUOTED_IMPORT_TEXT_MAX = 100_000


#: (round 31b) a C/C++/CUDA compiler's words for a name it does not know (gcc: 'was not declared in this scope', 'is not
#: a member of', 'does not name a type', 'has no member named', the constructor line of an unknown macro used at file
#: scope; clang: 'use of undeclared identifier', 'no member named', 'unknown type name', 'unexpected namespace name';
#: nvcc's EDG front end: 'identifier "X" is undefined', 'namespace "c10" has no member "X"'; MSVC C2065 / C3861 / C2039)
_UNKNOWN_NAME_RE = re.compile(
    r"was not declared in this scope|has not been declared|is not a member of|does not name a type|has no member|"
    r"no member named|use of undeclared identifier|unknown type name|unexpected namespace name|is undefined\b|"
    r"undeclared identifier|identifier not found|expected constructor, destructor, or type conversion|"
    r"\bC(?:2065|3861|2039)\b")
#: a compiler's error line: 'file.cpp:5:24: error:', 'file.cu(31): error:', 'file.cpp(5): error C2065:'
_COMPILER_ERROR_RE = re.compile(r"\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp)(?::\d+(?::\d+)?:|\(\d+\)\s?:?) ?(?:fatal )?error\b",
                                re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _cpp_added_rows() -> tuple[tuple[dict[str, str], re.Pattern[str]], ...]:
    """(round 31b) tables/added_apis.csv's rows of form cpp (a torch C++ name a release added), each with the
    expression of its name as a whole identifier (an at::k-prefixed dtype constant too: kFloat8_e4m3fn)."""
    from smrnb.doctor import tables

    return tuple((row, re.compile(rf"(?<![A-Za-z0-9_])k?{re.escape(row['name'])}(?![A-Za-z0-9_])"))
                 for row in tables.rows("added_apis") if row.get("form") == "cpp" and row.get("name"))


def _newer_torch_api(r: _Reader, text: str, low: str) -> None:
    """(round 31b) ``abi.newer_api``: a compiler's error that a name is unknown, where the name (on the error line, or
    on the source line it quotes next) is a torch C++ API tables/added_apis.csv says a later torch added
    (TORCH_LIBRARY_FRAGMENT in 1.8): the source was written for a newer torch than the one it is built against.
    Notes ('note: in expansion of macro') and include chains are not the line the compiler quotes."""
    if "error" not in low or not any(row["name"].lower() in low for row, _ in _cpp_added_rows()):
        return
    lines = text.splitlines()
    for i, line in enumerate(lines[:20000]):
        if len(line) > 2000 or not _COMPILER_ERROR_RE.search(line) or not _UNKNOWN_NAME_RE.search(line):
            continue
        quoted = [x for x in lines[i + 1:i + 3] if "note:" not in x and "error" not in x.lower()
                  and "in file included" not in x.lower() and "in function" not in x.lower()]
        for row, name_re in _cpp_added_rows():
            if name_re.search(line) or any(name_re.search(x) for x in quoted[:1]):
                r.event("abi", "newer_api", line, WEIGHT["row"] + 2, key=row["key"], name=row["name"],
                        added_in=row["added_in"], library=row["library"])
                return


def _removed_api_forms(r: _Reader, text: str, low: str) -> None:
    """(round 26a) The forms a name tables/removed_apis.csv says a release removed takes in a pasted text beyond
    Python's module-level lines: an object of the package's class without the removed method (``'Trimesh' object has
    no attribute 'remove_duplicate_faces'``, where the text names the package or the class is named after it, and the
    text does not define the class itself), a removed keyword argument (``_removed_keyword``), and, in a text with no
    Python error of its own, the import statement it quotes and says fails (``from torchvision.models.utils import
    load_state_dict_from_url`` "throws an error"): ``torch.module_missing`` of the row's dotted name."""
    rows = _removed_rows_by_name()
    if "can't get attribute " in low and _removed_unpickled(r, text, low, rows):
        return
    if "nameerror: name " in low and " import *" in low and _removed_star_import(r, text, rows):
        return
    for line in _lines_with(text, low, " object has no attribute ", 4, around=300):
        for cls, attr in _INSTANCE_ATTR_RE.findall(line)[:2]:
            full = _removed_class_attrs().get((cls, attr))
            row = rows.get(full or "")
            if row is None or f"class {cls.lower()}(" in low or f"class {cls.lower()}:" in low:
                continue
            if cls.lower().startswith(row["module"].split(".")[0].lower()) or _package_named(low, row):
                # (round 28a) the person's own line that calls it (``df = df.append(...)``): its call, to grep for
                m = re.search(rf"([A-Za-z_][\w.]{{0,60}}\.{re.escape(attr)}\()", r.own_call)
                r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=full, attribute=True,
                        instance=cls, framed='file "' in low, **({"call": m.group(1)} if m else {}))
                return
    if "unexpected keyword argument" in low and _removed_keyword(r, text, low, rows):
        return
    if len(text) > _QUOTED_IMPORT_TEXT_MAX or "import " not in low or any(
            e.get("kind") == "module_missing" for e in r.events["torch"]):
        return
    if _OTHER_EXCEPTION_RE.search(text) or not _FAILS_SAID_RE.search(low):
        return
    for line in text.splitlines()[:400]:
        if "import " not in line:
            continue
        found = None
        for mod, names in (_QUOTED_FROM_IMPORT_RE.findall(line) + _QUOTED_BARE_FROM_IMPORT_RE.findall(line))[:2]:
            for name in names.replace("(", " ").replace(")", " ").replace(",", " ").split()[:12]:
                found = found or (f"{mod}.{name}" if f"{mod}.{name}" in rows else None)
            found = found or _removed_module_of(rows, mod)
        for mod in _QUOTED_IMPORT_RE.findall(line)[:2]:
            found = found or _removed_module_of(rows, mod)
        if found and _shown_before_removal(r, rows[found]):
            # (round 35e) the text shows the library's release and every one shown predates the removal: the quoted
            # import works there (langchain 0.0.136 still has langchain.llms), so it is not what fails
            continue
        if found:
            r.event("torch", "module_missing", line, WEIGHT["module"], module=found, import_name=True,
                    import_quoted=True)
            return


def _shown_before_removal(r: _Reader, row: Mapping[str, str]) -> bool:
    """(round 35e) Whether the text shows releases of a tables/removed_apis.csv row's library (``loader.
    package_releases``) and all of them are older than the release that removed the row's name (Python's own rows: no)."""
    from smrnb.doctor import tables

    lib = str(row.get("library") or "").lower()
    return bool(lib) and lib != "python" and tables.shown_before_removal(row, r.facts["loader"].get("package_releases") or {})


#: library_messages.csv's row of pickle's words for any class another release of a module lacks (round 35b)
_PICKLE_GENERIC_ROW = "pickle_module_attribute_missing"
#: (round 35d) pickle's words for a class its stream names that the module no longer has (CPython Lib/pickle.py
#: _getattribute / Modules/_pickle.c: "Can't get attribute %R on %R", the module's repr "<module 'M' from '...'>"):
#: the name and the module
_UNPICKLE_ATTR_RE = re.compile(r"Can't get attribute '([A-Za-z_][A-Za-z0-9_.]{0,100})' on <module '([A-Za-z_][A-Za-z0-9_.]"
                               r"{0,100})'")


def _removed_unpickled(r: _Reader, text: str, low: str, rows: Mapping[str, Mapping[str, str]]) -> bool:
    """(round 35d) An object pickled by an older release of a library (a saved graph, a checkpoint holding the
    library's class) that the installed release cannot load: pickle finds no class ``name`` in ``module``, and
    tables/removed_apis.csv says a release removed or renamed ``module.name`` (dgl 1.0's dgl.heterograph.DGLHeteroGraph):
    ``torch.module_missing`` of the row's dotted name. A name of ``__main__`` or of the person's own module is no row."""
    for line in _lines_with(text, low, "can't get attribute ", 2, around=300):
        for name, mod in _UNPICKLE_ATTR_RE.findall(line)[:1]:
            full = f"{mod}.{name}"
            if (full in rows and rows[full].get("form") in ("import", "attribute")) or full in _added_names():
                # (a class tables/added_apis.csv says a later release added: the object was pickled by a newer
                # release than the one installed, a YOLOv5 v6.2 checkpoint's models.yolo.DetectionModel)
                r.event("torch", "module_missing", line, WEIGHT["module"] + 2, module=full, attribute=True,
                        unpickled=True)
                # the release row says more than round 35b's generic row of the same words (any pickle of another
                # release's class): that row's event is dropped, and not read after (the merge of rounds 35b and 35d)
                r.unpickled_by_row = True
                r.events["torch"] = [e for e in r.events["torch"] if e.get("key") != _PICKLE_GENERIC_ROW]
                return True
    return False


#: (round 35d) Python's NameError of a name, and a star import the text quotes (the module, as Python writes it)
_NAME_ERROR_RE = re.compile(r"NameError: name '([A-Za-z_][A-Za-z0-9_]{0,80})' is not defined")
_STAR_IMPORT_RE = re.compile(r"(?<![\w.])from ([A-Za-z_][A-Za-z0-9_]{0,60}(?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){0,5}) import \*")


def _removed_star_import(r: _Reader, text: str, rows: Mapping[str, Mapping[str, str]]) -> bool:
    """(round 35d) A name the code took from a star import (``from pyglet.gl import *``) that a later release of that
    module no longer exports: Python's NameError of it, where tables/removed_apis.csv says a release removed or moved
    ``module.name`` (pyglet 2.0's legacy OpenGL functions, now in pyglet.gl.gl_compat): ``torch.module_missing`` of
    the row's dotted name. Only a module the text star-imports, only a row of a name (not a keyword)."""
    for line in _lines_with(text, text.lower(), "nameerror: name ", 2, around=200):
        for name in _NAME_ERROR_RE.findall(line)[:1]:
            for mod in dict.fromkeys(_STAR_IMPORT_RE.findall(text[:200_000])[:8]):
                row = rows.get(f"{mod}.{name}")
                if row is not None and row.get("form") in ("import", "attribute"):
                    r.event("torch", "module_missing", line, WEIGHT["module"], module=f"{mod}.{name}", attribute=True,
                            star_import=True)
                    return True
    return False


@functools.cache
def _added_names() -> frozenset[str]:
    """(round 35d) The dotted names of tables/added_apis.csv's Python rows with a name (not a module, not C++)."""
    from smrnb.doctor import tables

    return frozenset(f"{r['module']}.{r['name']}" for r in tables.rows("added_apis")
                     if r.get("name") and r.get("form") in ("import", "attribute"))


def _removed_keyword(r: _Reader, text: str, low: str, rows: Mapping[str, Mapping[str, str]]) -> bool:
    """(round 26a) A keyword argument a release removed from a package's callable (rows of form ``keyword``: the
    callable's dotted name, the keyword), refused in Python's words: the callee Python names (its last part), or for a
    bare ``__init__()`` a call of the row's class the text shows (``OneHotEncoder(``); where the text names the
    package. ``torch.module_missing`` of the row's dotted name (``keyword``)."""
    for line in _lines_with(text, low, "unexpected keyword argument", 2, around=300):
        for callee, kw in _UNEXPECTED_KEYWORD_RE.findall(line)[:1]:
            parts = [p for p in callee.split(".") if p not in ("__init__", "__new__", "__call__")]
            for full, row in rows.items():
                if row.get("form") != "keyword" or row.get("name") != kw:
                    continue
                last = row["module"].rsplit(".", 1)[-1]
                if not (parts and parts[-1] == last) and not (not parts and f"{last.lower()}(" in low):
                    continue
                if _package_named(low, row):
                    r.event("torch", "module_missing", line, WEIGHT["module"], module=full, attribute=True,
                            keyword=kw, framed='file "' in low)
                    return True
    return False


def _removed_module_of(rows: Mapping[str, Mapping[str, str]], mod: str) -> str | None:
    """(round 26a) The dotted name of a removed module (a row of form ``module``) that is ``mod`` or holds it."""
    parts = mod.split(".")
    for i in range(len(parts), 1, -1):
        key = ".".join(parts[:i])
        if key in rows and rows[key].get("form") == "module":
            return key
    return None


def _unplaced_bare_import(r: _Reader, low: str) -> None:
    """(round 25a) Python's bare "cannot import name 'X'" (Python before 3.7, a title over the report) with no
    from-import line naming X's module anywhere in the text: ``torch.module_missing`` of X alone (``bare_name``):
    a from-import found its module and the module lacks X. A text that tells of a circular import is left out
    (Python 3.6 words a circular import the same way)."""
    if r.bare_import is None or "circular" in low:
        return
    name, line = r.bare_import
    if name.startswith("_"):
        return  # a compiled module's name (detectron2's _C) or a private one: read by the extension rows
    r.event("torch", "module_missing", line, WEIGHT["module"], module=name, import_name=True, bare_name=True)
    r.bare_import = None


#: (round 31c) the one package the person imports, in a REPL (">>> import dgl", "In [1]: import dgl"), python -c, or
#: prose ("when I import dgl")
_PERSON_IMPORT_RE = re.compile(r"^\s{0,8}(?:>>>|In \[\d{1,4}\]:)\s{0,4}import ([A-Za-z_]\w{0,60})\s*$|"
                               r"python3? -c ['\"]import ([A-Za-z_]\w{0,60})['\";]|"
                               r"\b[Ww]hen (?:I |i )?(?:try to )?import(?:ing)? `?([A-Za-z_]\w{0,60})`?\b", re.M)


def _prose_import_pulls(r: _Reader, text: str) -> None:
    """(round 31c) ``torch.package_imports`` for "No module named 'Y'" (Y a top-level module) right after the person
    imports another package X and nothing else (a REPL's or python -c's import, "when I import X"), where no traceback
    frame said who imports Y: X's own import of Y, as a frame of X importing it (round 22's reading: Y missing from
    this Python first, X's release not declaring it second)."""
    if "no module named" not in text.lower() or r.facts["torch"].get("package_imports"):
        return
    people = [a or b or c for a, b, c in _PERSON_IMPORT_RE.findall(text[:200_000])]
    if len(set(people)) != 1 or people[0].lower() in ("torch", "numpy"):
        return
    by = people[0]
    missing = [str(e.get("module") or "") for e in r.events["torch"] if e.get("kind") == "module_missing"]
    tops = {m for m in missing if m and "." not in m}
    if len(tops) == 1 and (mod := next(iter(tops))).lower() != by.lower() and not any(
            e.get("import_name") or e.get("attribute") for e in r.events["torch"] if e.get("kind") == "module_missing"):
        r.fact("torch", "package_imports", {mod: by.lower()}, f"import {by}", replace=True)


#: (round 31c) a package's own relative import of a sibling module, as a traceback or the person quotes it: "from
#: .pvt_dia import pvt_small_dia" (IPython's "---> 11 " and a frame's indent before it), "from . import voxel_field"
_RELATIVE_IMPORT_RE = re.compile(r"^[ \t>|-]{0,12}(?:\d{1,5}[ \t]+)?from \.(?:([A-Za-z_]\w{0,80})[ \t]+import[ \t]|"
                                 r"[ \t]+import[ \t]+\(?([A-Za-z_][\w, \t]{0,300}))", re.M)


#: modules a package's build writes into its source tree (setup.py's version.py, setuptools-scm's _version.py): missing
#: from a source tree that was never built (Python started inside it: torch's "No module named 'torch.version'"), not
#: from a release
_GENERATED_MODULES = frozenset({"version", "_version", "git_version", "__version__", "_C", "_ext"})


def _sibling_import_missing(r: _Reader, text: str) -> None:
    """(round 31c) "No module named 'P.X'" where the text shows a relative import of X (``from .X import ...`` or
    ``from . import X``): the package's (or the project's) own module imports a sibling file its folder lacks, so
    Python words the missing sibling with the importing package's dotted name (importlib's _find_and_load of
    ``P.X`` from P's ``__path__``). ``submodule_absent`` as for round 22's partially initialised module; the rules
    leave a compiled module's name (``_C``, ``*_cuda``) to the extension readings, and an installed package's frame
    importing its own module (``own_import``: its compiled part not built first) to round 16's reading."""
    if "from ." not in text:
        return
    names: set[str] = set()
    for m in _RELATIVE_IMPORT_RE.finditer(text[:200_000]):
        if m.group(1):
            names.add(m.group(1))
        else:
            names.update(n for n in re.split(r"[\s,()]+", m.group(2) or "") if n and n != "as")
        if len(names) > 40:
            break
    for ev in r.events["torch"]:
        mod = str(ev.get("module") or "")
        parent, _, last = mod.rpartition(".")
        if ev.get("kind") == "module_missing" and parent and last in names and not ev.get("submodule_absent") and \
                not ev.get("import_name") and not ev.get("own_import") and \
                "no module named" in str(ev.get("line") or "").lower() and \
                mod.split(".")[0] not in ("torch", "torchvision", "torchaudio") and last not in _GENERATED_MODULES:
            folder = parent.replace(".", "/")
            m = re.search(r"[^\s'\"()]{0,300}(?:site-packages|dist-packages|\.egg)[/\\][^\s'\"()]{0,200}?" +
                          re.escape(folder) + r"(?=[/\\])", text.replace("\\", "/")[:200_000])
            ev["submodule_absent"] = f"{m.group(0) if m else folder}/{last}.py"


#: (round 37e) torch replaced by another release in the text: pip's report of the torch it removed
#: ("Successfully uninstalled torch-1.13.1"), or a pip install of torch asking to replace the installed one (-U,
#: --upgrade, --force-reinstall) on one command line
_TORCH_REPLACED_RE = re.compile(r"Successfully uninstalled torch-\d|\bpip3?\s+install\b(?=[^\n`]{0,300}?\s(?:-U|--upgrade|"
                                r"--force-reinstall)(?![\w-]))(?=[^\n`]{0,300}?\s(?:py)?torch(?:[\s=<>~!`'\"]|$))",
                                re.MULTILINE)


def _torch_replaced(r: _Reader, text: str) -> None:
    """(round 37e) ``torch.replaced``: the text shows torch replaced by another release (an upgrade or a
    downgrade), so two torch releases it shows are one before and one after, not two installed at once."""
    m = _TORCH_REPLACED_RE.search(text[:200_000])
    if m:
        r.fact("torch", "replaced", True, _whole_lines(text, m.start(), m.end())[:300])


#: (round 37e) a GPU index the code or its command asks for: torch's "cuda:1", torch.cuda.set_device(1), a command's
#: --gpu 1 / --gpu_id=1 / --device 1
_DEVICE_INDEX_RE = re.compile(r"\bcuda:(\d{1,2})\b|\bset_device\(\s*(\d{1,2})\s*\)|\s--(?:gpus?|gpu[_-]ids?|device)[= ]"
                              r"['\"]?(\d{1,2})(?![\w.,:])")


#: (round 37e) nvidia-smi -L's line of each GPU ("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c1e...)")
_LISTED_GPU_RE = re.compile(r"^GPU (\d{1,2}): [^\n]{1,120}\(UUID: ", re.MULTILINE)


def _device_index_asked(r: _Reader, text: str) -> None:
    """(round 37e) ``context.device_index_asked``: the highest GPU index the text's code or commands ask for; and
    where it asks for one, ``driver.gpu_indices_listed``: the indices of the GPUs nvidia-smi -L lists."""
    best = None
    for m in list(_DEVICE_INDEX_RE.finditer(text[:200_000]))[:64]:
        n = int(m.group(1) or m.group(2) or m.group(3))
        if best is None or n > best[0]:
            best = (n, _whole_lines(text, m.start(), m.end())[:300])
    if best:
        r.fact("context", "device_index_asked", best[0], best[1])
        listed = sorted({int(m.group(1)) for m in _LISTED_GPU_RE.finditer(text[:200_000])})
        if listed:
            r.fact("driver", "gpu_indices_listed", listed, f"GPU {listed[-1]}: ...")


#: (round 37e) torch's caching allocator's numbers: the request ("Tried to allocate 976.56 GiB") and the card's whole
#: memory ("GPU 0 has a total capacity of 23.65 GiB"; before torch 2.1 "(GPU 0; 23.65 GiB total capacity; ...")
_OOM_REQUEST_RE = re.compile(r"Tried to allocate ([0-9]{1,7}(?:\.[0-9]{1,3})?) ([KMGT]iB)[^\n]{0,80}?(?:total capacity of "
                             r"([0-9]{1,7}(?:\.[0-9]{1,3})?) ([KMGT]iB)|([0-9]{1,7}(?:\.[0-9]{1,3})?) ([KMGT]iB) total "
                             r"capacity)")
_BYTES = {"KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "TiB": 2 ** 40}


def _oom_request(r: _Reader, text: str) -> None:
    """(round 37e) ``torch.oom_request``: the allocation torch's out-of-memory message names and the GPU's total
    memory it gives (the first such message)."""
    m = _OOM_REQUEST_RE.search(text[:200_000])
    if not m:
        return
    total, unit = (m.group(3), m.group(4)) if m.group(3) else (m.group(5), m.group(6))
    whole = float(total) * _BYTES[unit]
    if whole:
        r.fact("torch", "oom_request", {"asked": f"{m.group(1)} {m.group(2)}", "total": f"{total} {unit}", "times": round(
            float(m.group(1)) * _BYTES[m.group(2)] / whole, 1)}, _whole_lines(text, m.start(), m.end()))


#: pip replacing a release ("Successfully uninstalled pandas-0.22.0", src/pip/_internal/req/req_uninstall.py)
_UNINSTALLED_RE = re.compile(r"Successfully uninstalled ([A-Za-z0-9_.-]{1,60}?)-(\d+(?:\.\d+){1,3}\w{0,8})")


def _scan_stale_release(r: _Reader, text: str, low: str) -> None:
    """The process shows a release of a package that pip replaced (sign ``old_release_imported``: the ``package``, the
    ``version`` still loaded): it imported the package before the install and keeps the old module until it restarts
    (a notebook's kernel, a Colab runtime, a REPL). Either form: pip's report of the release it removed, then that
    release printed; or a notebook cell installing one release (``!pip install X==V``), then another release shown
    (the text is then a notebook's: ``jupyter.in_kernel``)."""
    for said in (_uninstalled_then_shown(text), _pinned_then_other(text) if "pip" in low and "==" in low else None):
        if said is not None:
            line, package, old, phrase, cell = said
            r.event("jupyter", "sign", line, WEIGHT["sign"], sign="old_release_imported", package=package,
                    version=old, phrase=phrase)
            if cell:
                r.fact("jupyter", "in_kernel", True, cell)


def _uninstalled_then_shown(text: str) -> tuple[str, str, str, str, str] | None:
    """(line, package, release, phrase, "") where pip replaced a release ("Successfully uninstalled X-V") and the text
    then prints the replaced one (a version on a line of its own, or after the package's name or ``__version__``)."""
    for m in _UNINSTALLED_RE.finditer(text):
        name, old = m.group(1), re.escape(m.group(2))
        after = text[m.end():m.end() + 4000]
        if "Successfully installed" not in after:
            continue
        after = after[after.index("Successfully installed"):]
        shown = re.search(rf"^[\s>'\"]*{old}['\"]?\s*$|(?:__version__|\b{re.escape(name)}\b)[^\n]{{0,40}}?[\s'\"=:(]"
                          rf"{old}(?![\w.])", after, re.M | re.I)
        if shown:
            return shown.group(0), name, m.group(2), f"uninstalled {name}-{m.group(2)}, {m.group(2)} loaded", ""
    return None


#: a TensorFlow release named ("tensorflow==2.16.1", "tensorflow-gpu 2.12", "TensorFlow version: 2.15",
#: "tf.__version__ ... 2.13.0", "tensorflow[and-cuda]==2.17.0")
_TF_RELEASE_RE = re.compile(r"\b(?:tensorflow(?:[-_]gpu|[-_]intel)?(?:\[[\w,-]{1,30}\])?|tf)(?:\s{0,2}(?:==?|:)\s{0,2}|\s{1,2}version(?:\s(?:is|=|\(use command below\)))?:?\s{0,2}|"
                            r"\s{1,2}v?|\.__version__\W{0,12}\n?[>\s'\"]{0,8})v?(\d\.\d{1,2})(?:\.\d{1,3})?\b", re.I)
#: code asking TensorFlow for its GPUs
_TF_GPU_QUERY_RE = re.compile(r"list_physical_devices\(\s*(?:device_type\s*=\s*)?(?:['\"]GPU|None\s*\)|\))|is_gpu_available|"
                              r"gpu_device_name\(|num gpus available|list_local_devices\(", re.I)


def _scan_tf_release(r: _Reader, text: str) -> None:
    """The TensorFlow release a text names (``torch.tensorflow_version``) and whether it asks TensorFlow for its GPUs
    (sign ``tf_gpu_query``)."""
    if "tensorflow" not in text.lower() and "tf." not in text:
        return
    m = _TF_RELEASE_RE.search(text[:100_000])
    if m:
        r.fact("torch", "tensorflow_version", m.group(1), m.group(0))
    q = _TF_GPU_QUERY_RE.search(text[:100_000])
    if q:
        r.event("torch", "sign", q.group(0), WEIGHT["sign"], sign="tf_gpu_query", phrase=q.group(0))
        e = _TF_NO_GPU_RE.search(text[q.start():q.start() + 3000])
        if e:
            r.event("torch", "sign", e.group(0), WEIGHT["sign"], sign="tf_gpu_none", phrase=e.group(0))


#: TensorFlow's answer of no GPU after the query: an empty device list ("[]", "an empty list", "returns nothing"),
#: a count of 0 ("Num GPUs Available: 0", "len(...) == 0"), False from is_gpu_available, an empty device name
_TF_NO_GPU_RE = re.compile(r"(?:^|[\s>:=])\[\s*\](?!\S)|\bempty\s+(?:device\s+)?list\b|\b(?:returns?|returned|returning|"
                           r"gives?|gave|got|get|shows?|showed|prints?|printed)\s+(?:an?\s+)?(?:empty|nothing|none\b|"
                           r"\[\s*\])|num\s+gpus?\s+available\W{0,4}0\b|is_gpu_available\(\)[^\n]{0,40}\n?\s*(?:>>>\s*)?False\b|"
                           r"skipping registering gpu devices|"
                           # (round 26c) all physical devices listed, the CPU alone (tf.config's PhysicalDevice repr)
                           r"^\s{0,4}(?:Out\[\d{1,4}\]:\s{0,2})?\[\s{0,4}PhysicalDevice\(name='/physical_device:CPU:0',\s{0,2}"
                           r"device_type='CPU'\)\s{0,4}\]\s*$", re.I | re.M)


#: a notebook cell's pip install of one release ("!pip install pandas==0.23.4", "%pip install -U pbr==3.1.1")
_NOTEBOOK_PIN_RE = re.compile(r"(?:^|[\s`'\"(>])[!%]pip3? install\b[^\n]{0,200}?\b([A-Za-z][\w.-]{0,60})==([0-9][\w.]{0,20})", re.M)
#: a pip line (its own report of what it installs), not the version the running kernel shows
_PIP_REPORT_RE = re.compile(r"\W{0,6}(?:requirement already|collecting|downloading|installing|successfully|uninstall|"
                            r"found existing|attempting uninstall|[!%]?pip3? )")


def _pinned_then_other(text: str) -> tuple[str, str, str, str, str] | None:
    """(line, package, release, phrase, the cell's install) where a notebook installed one release of a package
    (``!pip install X==V``) and then shows another release of it (``X.__version__`` printing the old one,
    ``(X 5.1.1 (/usr/...)`` in a version conflict)."""
    for m in list(_NOTEBOOK_PIN_RE.finditer(text))[:4]:
        pkg, want = m.group(1), m.group(2).rstrip(".")
        lines = text[m.end():].split("\n")[1:400]
        ver = re.compile(rf"(?i)\b{re.escape(pkg)}\b[ =:(v-]{{1,3}}([0-9]+\.[0-9]+(?:\.[0-9]+)*)")
        for i, line in enumerate(lines):
            low = line.lower()
            if _PIP_REPORT_RE.match(low):
                continue
            got = ver.search(line)
            shown = got.group(1) if got else None
            if shown is None and "__version__" in line:
                q = re.search(r"['\"]([0-9]+\.[0-9]+(?:\.[0-9]+)*)['\"]", "\n".join(lines[i + 1:i + 7]))
                shown = q.group(1) if q else None
            if shown and shown != want:
                return line, pkg, shown, f"installed {pkg}=={want}, {shown} loaded", m.group(0)
    return None


#: a library's file name wrapped inside a word by a terminal or an editor ("ImportError: libcud" / "art.so.11.0: cannot
#: open shared object file"): the first part a token that begins with "lib" (or a path's last part), the second the rest
#: of the name up to the loader's colon, not a name of its own
_WRAPPED_SONAME_RE = re.compile(r"((?:^|[\s/'\"(])lib[A-Za-z0-9_+-]{1,60}(?:\.so|\.s|\.)?)[ \t]*\n(?!lib)"
                                r"([A-Za-z0-9_+.-]{1,70}:)", re.M)
_SONAME_RE = re.compile(r"lib[A-Za-z0-9_+-]{1,60}\.so(?:\.[0-9]{1,6}){0,4}:")
#: (round 28p) the part of every match of _WRAPPED_SONAME_RE from its "lib" to the line break: an expression that starts
#: with a literal, searched first at C speed (the whole expression starts with a line's start or one of five characters)
_WRAPPED_SONAME_END_RE = re.compile(r"lib[A-Za-z0-9_+-]{1,60}(?:\.so|\.s|\.)?[ \t]*\n(?!lib)[A-Za-z0-9_+.-]{1,70}:")


def _rejoin_wrapped_sonames(text: str) -> str:
    """``text`` with a shared object's name that a line break cut in two put back together (only where the two parts
    make one such name)."""
    if "lib" not in text or "\n" not in text or not _WRAPPED_SONAME_END_RE.search(text):
        return text

    def join(m: re.Match) -> str:
        name = m.group(1).lstrip(" \t/'\"(") + m.group(2)
        return m.group(1) + m.group(2) if _SONAME_RE.fullmatch(name) else m.group(0)

    return _WRAPPED_SONAME_RE.sub(join, text)


def _english_enoent(line: str) -> str:
    """``line`` with glibc's ENOENT text of another locale ("没有那个文件或目录", "Datei oder Verzeichnis nicht
    gefunden") put back in English: gcc prints ``fatal error: x.h: <strerror>`` in the user's locale."""
    from smrnb.doctor import tables

    if "no such file" in line.lower():
        return line
    for translated, english in tables.loader_translations():
        if english == "No such file or directory" and translated in line:
            return line.replace(translated, english)
    return line


def english_loader_lines(text: str) -> str:
    """``text`` with the dynamic loader's messages of another locale (glibc's catalogs: "无法打开共享对象文件",
    "Kann die Shared-Object-Datei nicht öffnen") and the ``strerror`` texts after them put back in glibc's English, on
    the lines that name a shared object; other lines are untouched. Linear: a bounded number of lines, each searched
    for each translation."""
    from smrnb.doctor import tables

    if ".so" not in text:
        return text
    changed: dict[str, str] = {}
    pairs = tables.loader_translations()
    ascii_pairs = tuple(p for p in pairs if p[0].isascii())
    for line in _lines_with(text, text, ".so", limit=200):
        if line in changed or len(line) > 2000:
            continue
        new = line
        for translated, english in (ascii_pairs if line.isascii() else pairs):
            if translated in new:
                new = new.replace(translated, english)
        if new != line:
            changed[line] = new
    for old, new in changed.items():
        text = text.replace(old, new)
    return text


def events_of(facts: dict[str, Any], layers: Iterable[str] = LAYERS) -> list[dict[str, Any]]:
    """Every event of ``facts`` (of ``layers``), each with its ``layer``."""
    out = []
    for ly in layers:
        d = facts.get(ly)
        if isinstance(d, dict):
            out += [{**e, "layer": ly} for e in d.get("events") or [] if isinstance(e, dict)]
    return out


def summary(facts: dict[str, Any]) -> list[str]:
    """What a text showed, one line per kind (versions, paths, libraries, symbols, error codes, where it ran):
    what an unrecognised text's report lists."""
    out: list[str] = []
    t, tk, drv, ld, ctx = (facts.get(k) or {} for k in ("torch", "toolkit", "driver", "loader", "context"))
    if t.get("version") or t.get("cuda"):
        out.append(f"torch: {t.get('version') or '?'}" + (f" (CUDA {t['cuda']})" if t.get("cuda") else
                                                           " (CPU build)" if t.get("cpu_build") else ""))
    if tk.get("nvccs"):
        out.append("nvcc: " + ", ".join(f"{n.get('version') or '?'}" + (f" at {n['path']}" if n.get("path") else "")
                                        for n in tk["nvccs"]))
    for key, what in (("cuda_home_env", "CUDA_HOME"), ("cuda_path_env", "CUDA_PATH"), ("cuda_include_dir", "include dir"),
                      ("torch_cuda_arch_list_env", "TORCH_CUDA_ARCH_LIST"), ("path_cuda_entries", "CUDA entries of PATH")):
        if tk.get(key):
            out.append(f"{what}: {tk[key]}")
    if ld.get("current_ld_library_path"):
        out.append(f"LD_LIBRARY_PATH: {ld['current_ld_library_path']}")
    if tk.get("gcc"):
        out.append(f"gcc: {tk['gcc'].get('version')}")
    if tk.get("cuda_named"):
        out.append("CUDA named: " + ", ".join(tk["cuda_named"]))
    if drv.get("driver_version") or drv.get("cuda_driver_version"):
        out.append(f"driver: {drv.get('driver_version') or '?'}"
                   + (f" (CUDA up to {drv['cuda_driver_version']})" if drv.get("cuda_driver_version") else ""))
    if drv.get("gpus"):
        out.append("GPU: " + ", ".join(f"{g.get('name') or '?'} (CC {g.get('compute_capability') or '?'})"
                                       for g in drv["gpus"]))
    if ld.get("libraries_named"):
        out.append("libraries: " + ", ".join(ld["libraries_named"][:12]))
    evs = events_of(facts)
    syms = [e["symbol"] for e in evs if e["kind"] == "undefined_symbol"]
    if syms:
        out.append("undefined symbols: " + ", ".join(s[:80] for s in syms[:6]))
    codes = [f"{e['name']} ({e['number']})" for e in evs if e["kind"] == "cuda_error"]
    if codes:
        out.append("error codes: " + ", ".join(dict.fromkeys(codes)))
    mods = [e["module"] for e in evs if e["kind"] == "module_missing"]
    if mods:
        out.append("modules not found: " + ", ".join(dict.fromkeys(mods)))
    crashes = [e["key"] for e in evs if e["kind"] == "message" and e.get("key") in ("segfault", "illegal_instruction",
                                                                                     "abort")]
    if crashes:
        out.append("the process crashed: " + ", ".join(crashes))
    where = [w for w, on in (("container", ctx.get("container")), ("Slurm", ctx.get("slurm")),
                             ("Jupyter", (facts.get("jupyter") or {}).get("in_kernel")), ("Windows", ctx.get("os") == "windows"))
             if on]
    if where:
        out.append("where: " + ", ".join(where))
    return out
