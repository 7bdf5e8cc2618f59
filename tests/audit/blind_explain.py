# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit, kind ``explain``: the same error text, copied the ways people copy text.

The error texts are written here from well-known messages (the CUDA runtime loader, torch's
``cpp_extension`` checks, nvcc, pip, the CUDA driver API). For each variant, ``smrnb.explain``
(offline) must give the same finding codes as for the clean text; another diagnosis, or none, is
misleading.
"""

from __future__ import annotations

import textwrap
import unicodedata

from tests.audit._blind import cli, no_traceback
from tests.audit._cases import AuditMisleading, blind_case

KIND = "explain"

BASE = {
    "cudart": "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    "no_image": ("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                 "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
                 "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1."),
    "undef": ("Traceback (most recent call last):\n  File \"demo.py\", line 1, in <module>\n    import kaolin\n"
              "ImportError: /opt/conda/lib/python3.10/site-packages/kaolin/_C.cpython-310-x86_64-linux-gnu.so: "
              "undefined symbol: _ZN3c1017RegisterOperatorsD1Ev"),
    "mismatch": ("RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile\n"
                 "PyTorch (11.8). Please make sure to use the same CUDA versions."),
    "arch": "nvcc fatal   : Unsupported gpu architecture 'compute_90'",
    "cuda_home": "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
    "gcc": ("/usr/local/cuda/include/crt/host_config.h:139:2: error: #error -- unsupported GNU version! gcc versions "
            "later than 11 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override "
            "this version check."),
    "no_wheel": ("ERROR: Could not find a version that satisfies the requirement kaolin==0.15.0 (from versions: 0.1)\n"
                 "ERROR: No matching distribution found for kaolin==0.15.0"),
    "driver": ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
               "GPU driver by downloading and installing a new version from the URL: "
               "http://www.nvidia.com/Download/index.aspx"),
    "libcuda": "OSError: libcuda.so.1: cannot open shared object file: No such file or directory",
}


def _codes(text: str) -> list[str]:
    """The report's codes, and whether the text was recognised (a guess from similar reports on a copy the
    original's rules read is not the same answer)."""
    import smrnb

    rep = smrnb.explain(text, live=False)
    return sorted(set(rep.codes)) + ([] if rep.recognised else ["(not recognised)"])


def _variant_case(name: str, base: str, transform) -> None:
    @blind_case(name, "explain", kind=KIND)
    def _():
        clean = BASE[base]
        want = _codes(clean)
        if not want:
            raise AssertionError(f"the clean {base} text gives no finding: the case is wrong")
        text = transform(clean)
        got = _codes(text)
        if got != want:
            raise AuditMisleading(f"{name}: clean text -> {want}, copied text -> {got or 'nothing'}; "
                                  f"copied text {text[:300]!r}")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c) for c in text)


def _hard_wrap(text: str, width: int) -> str:
    return "\n".join(line[i:i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))


def _ansi_words(text: str) -> str:
    out = []
    for i, w in enumerate(text.split(" ")):
        out.append(f"\x1b[{31 + i % 6};1m{w}\x1b[0m" if i % 2 == 0 else w)
    return " ".join(out)


def _ipython_colour_traceback(text: str) -> str:
    head = ("\x1b[0;31m---------------------------------------------------------------------------\x1b[0m\n"
            "\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)\n"
            "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m x \x1b[38;5;241m=\x1b[39m "
            "torch\x1b[38;5;241m.\x1b[39mones(\x1b[38;5;241m3\x1b[39m, device\x1b[38;5;241m=\x1b[39m"
            "\x1b[38;5;124m'\x1b[39m\x1b[38;5;124mcuda\x1b[39m\x1b[38;5;124m'\x1b[39m)\n\n")
    first, _, rest = text.partition(": ")
    return head + f"\x1b[0;31m{first}\x1b[0m: {rest}"


VARIANTS = [
    ("explain_nbsp", "cudart", lambda t: t.replace(" ", "\u00a0")),
    ("explain_narrow_nbsp_and_thin_space", "arch", lambda t: t.replace(" ", "\u202f", 3).replace(" ", "\u2009")),
    ("explain_ansi_colours", "no_image", _ansi_words),
    ("explain_ipython_colour_traceback", "no_image", _ipython_colour_traceback),
    ("explain_crlf", "mismatch", lambda t: t.replace("\n", "\r\n") + "\r\n"),
    ("explain_tabs", "arch", lambda t: t.replace("   ", "\t").replace(" ", "\t")),
    ("explain_zero_width_spaces", "undef", lambda t: t.replace(" ", " \u200b").replace(":", ":\u200b")),
    ("explain_zero_width_joiner_in_words", "cuda_home", lambda t: t.replace("CUDA_HOME", "CUDA\u200d_HOME")
     .replace("environment", "envi\u2060ronment")),
    ("explain_smart_quotes", "arch", lambda t: t.replace("'compute_90'", "\u2018compute_90\u2019")),
    ("explain_smart_quotes_gcc", "gcc", lambda t: t.replace("'-allow", "\u2018-allow").replace("compiler'",
                                                                                                "compiler\u2019")),
    ("explain_fullwidth_nfkc", "cudart", _fullwidth),
    ("explain_fullwidth_digits_in_versions", "mismatch", lambda t: t.replace("(12.1)", "（１２．１）")
     .replace("(11.8)", "（１１．８）")),
    ("explain_quote_prefix", "mismatch", lambda t: "\n".join("> " + line for line in t.split("\n"))),
    ("explain_nested_quote_prefix", "undef", lambda t: "\n".join(">> " + line for line in t.split("\n"))),
    ("explain_soft_wrapped_60", "undef", lambda t: "\n".join(textwrap.wrap(t, 60, break_long_words=False))),
    ("explain_hard_wrapped_40", "cudart", lambda t: _hard_wrap(t, 40)),
    ("explain_hard_wrapped_symbol", "undef", lambda t: _hard_wrap(t, 70)),
    ("explain_markdown_fence_indent", "cuda_home", lambda t: "```\n    " + t.replace("\n", "\n    ") + "\n```"),
    ("explain_pytest_e_prefix", "cudart", lambda t: "E   " + t),
    ("explain_log_timestamps", "no_image",
     lambda t: "\n".join(f"2024-05-01T12:00:0{i}.123Z {line}" for i, line in enumerate(t.split("\n")))),
    ("explain_soft_hyphen", "cuda_home", lambda t: t.replace("environment", "environ\u00adment")
     .replace("variable", "vari\u00adable")),
    ("explain_bom_and_trailing_spaces", "driver", lambda t: "\ufeff" + t.replace("\n", "   \n") + "   "),
    ("explain_json_escaped_newlines", "mismatch", lambda t: '"' + t.replace("\n", "\\n") + '"'),
    ("explain_pip_progress_carriage_returns", "no_wheel",
     lambda t: "Collecting kaolin==0.15.0\r  Downloading index (1.2 kB)\r\x1b[2K" + t.replace("\n", "\r\n")),
    ("explain_shell_prompt_before", "libcuda",
     lambda t: unicodedata.normalize("NFD", "(base) rené@gpu01:~$ python -c 'import torch; torch.zeros(1).cuda()'\n")
     + t),
    ("explain_all_at_once", "no_wheel",
     lambda t: "\n".join("> " + _ansi_words(line.replace(" ", "\u00a0")) for line in t.split("\n")).replace("\n",
                                                                                                             "\r\n")),
]

for _name, _base, _fn in VARIANTS:
    _variant_case(_name, _base, _fn)


@blind_case("explain_cli_crlf_and_colour_stdin", "cli", kind=KIND)
def _():
    clean = BASE["mismatch"]
    copied = _ansi_words(clean).replace("\n", "\r\n")
    outs = []
    for text in (clean, copied):
        ran = cli("smr-doctor", "explain", "--offline", "--json", input=text.encode("utf-8"), timeout=60)
        no_traceback(ran, "smr-doctor explain --json")
        import json

        try:
            doc = json.loads(ran.out)
        except ValueError:
            raise AuditMisleading(f"smr-doctor explain --json printed no JSON (exit {ran.rc}): {ran.both[-500:]}") from None
        outs.append(sorted({f["code"] for f in doc.get("findings", [])}))
    if outs[0] != outs[1] or not outs[0]:
        raise AuditMisleading(f"smr-doctor explain: clean text -> {outs[0]}, copied text -> {outs[1]}")


@blind_case("explain_cli_windows_1252_bytes", "cli", kind=KIND)
def _():
    # a log saved by a Windows editor: cp1252 smart quotes around the architecture
    clean = BASE["arch"]
    data = clean.replace("'compute_90'", "\u2018compute_90\u2019").encode("cp1252")
    want = _codes(clean)
    ran = cli("smr-doctor", "explain", "--offline", "--json", input=data, timeout=60)
    no_traceback(ran, "smr-doctor explain (cp1252 input)")
    import json

    try:
        got = sorted({f["code"] for f in json.loads(ran.out).get("findings", [])})
    except ValueError:
        raise AuditMisleading(f"smr-doctor explain --json printed no JSON for cp1252 input: {ran.both[-500:]}") from None
    if got != want:
        raise AuditMisleading(f"smr-doctor explain on cp1252 bytes: {got or 'nothing'} instead of {want}")
