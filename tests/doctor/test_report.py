# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Report renderings (HTML / text / JSON / markdown), exit codes, and CODES.md completeness."""

from __future__ import annotations

import ast
import json
import os
import socket
from pathlib import Path

import pytest

from smrnb.doctor import Report
from smrnb.doctor._codes import CODES_PATH, REQUIRED_CODES, codes_markdown
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._redact import redact_identity
from smrnb.doctor.rules import all_codes
from tests._threads import run_in_own_thread

FACTS = {
    "driver": {"status": "absent", "reason": "no NVIDIA driver"},
    "torch": {"status": "ok", "version": "2.11.0+cu130", "cuda": "13.0"},
    "toolkit": {"status": "unavailable", "reason": "nvcc timed out after 1 s"},
}
FINDINGS = [
    Finding("driver_too_old", "driver", "error", "The driver supports CUDA 11.4 only",
            ("driver 470.86", "torch needs CUDA 12.4 <script>alert(1)</script>"),
            Fix("Update the driver.", ("nvidia-smi", "sudo apt-get install nvidia-driver-550"), ("https://example.org/x",))),
    Finding("ninja_missing", "toolkit", "warning", "ninja is not on PATH", ("PATH=/usr/bin",),
            Fix("Install ninja.", ("pip install ninja",))),
    Finding("no_gpu", "driver", "info", "CPU only"),
    Finding("torch_ok", "torch", "ok", "torch imports"),
]


@pytest.fixture()
def report():
    return Report(FACTS, FINDINGS, {"elapsed_s": 0.12})


def test_summary_errors_warnings_exit_code(report):
    assert [f.code for f in report.errors] == ["driver_too_old"]
    assert [f.code for f in report.warnings] == ["ninja_missing"]
    assert report.exit_code == 1
    assert Report(FACTS, FINDINGS[1:]).exit_code == 0
    # layers, not "ok" findings, say what is fine: driver has an error, torch is ok, toolkit has a warning and
    # could not be looked at fully
    assert report.summary() == "1 error(s), 1 warning(s), 1 note(s); 1 of 3 layers ok"
    assert Report({**FACTS, "toolkit": {"status": "unavailable"}}, FINDINGS[:1]).summary().endswith(
        "; 1 of 3 layers ok, 1 not checked")
    assert [report.layer_label(ly) for ly in report.layers()] == [
        "1 error; absent: no NVIDIA driver", "ok", "1 warning; unavailable: nvcc timed out after 1 s"]
    # a layer whose probe ran fine but whose finding is an error is not "ok"
    loader = Report({"loader": {"status": "ok"}}, [Finding("cudart_not_found", "loader", "error", "libcudart missing")])
    assert loader.layer_label("loader") == "1 error" and "[loader: ok]" not in loader._repr_html_()
    assert "[loader: 1 error]" in loader._repr_html_() and loader.summary().endswith("; 0 of 1 layers ok")
    assert Report({"torch": {"status": "ok"}}, []).summary() == "0 error(s), 0 warning(s), 0 note(s); 1 of 1 layers ok"
    # sorted by layer then severity
    assert report.codes == ["driver_too_old", "no_gpu", "torch_ok", "ninja_missing"]


def test_text_has_conda_doctor_lines(report):
    text = report.to_text()
    assert "❌ The driver supports CUDA 11.4 only  [driver_too_old]" in text
    assert "⚠️ ninja is not on PATH  [ninja_missing]" in text
    assert "ℹ️ CPU only  [no_gpu]" in text
    assert "✅ torch imports  [torch_ok]" in text
    assert "$ sudo apt-get install nvidia-driver-550" in text
    assert "(1 warning; unavailable: nvcc timed out after 1 s)" in text
    assert text.index("[driver]") < text.index("[torch]") < text.index("[toolkit]")


def test_json_round_trips(report):
    d = json.loads(report.to_json())
    assert d["summary"] == {"errors": 1, "warnings": 1, "exit_code": 1, "text": report.summary()}
    assert d["findings"][0]["fix"]["commands"] == ["nvidia-smi", "sudo apt-get install nvidia-driver-550"]
    assert d["facts"]["torch"]["version"] == "2.11.0+cu130"
    assert d["meta"]["layers"] == ["driver", "torch", "toolkit"]


def test_html_has_layers_colors_evidence_and_copyable_commands(report):
    h = report._repr_html_()
    for layer in ("driver", "torch", "toolkit"):
        assert f'data-layer="{layer}"' in h
    assert "#c62828" in h and "#b26a00" in h  # error red, warning amber
    assert "<details open><summary>evidence (2)</summary>" in h  # errors open, others collapsed
    assert "<details><summary>evidence (1)</summary>" in h
    assert "<pre>sudo apt-get install nvidia-driver-550</pre>" in h
    assert h.count('class="smrnb-copy"') == 3
    assert "navigator.clipboard" in h and "execCommand(&#x27;copy&#x27;)" in h  # clipboard API + fallback
    assert "<script>" not in h and "&lt;script&gt;alert(1)&lt;/script&gt;" in h  # evidence is escaped


def test_as_format_switches_the_notebook_rendering(report):
    j = report.as_format("json")
    assert j._repr_html_() is None and j._repr_json_()["summary"]["errors"] == 1
    m = report.as_format("markdown")
    assert m._repr_html_() is None and m._repr_markdown_().startswith("### smrnb doctor report")
    assert report._repr_json_() is None  # the original is unchanged
    from smrnb import SmrnbValueError

    with pytest.raises(SmrnbValueError, match="fmt must be one of"):
        report.as_format("pdf")


def test_markdown_redacts_home_user_and_host():
    home = os.path.expanduser("~")
    host = socket.gethostname()
    facts = {"kaolin": {"status": "ok", "location": f"{home}/venv/lib/kaolin", "host": host}}
    f = Finding("kaolin_missing", "kaolin", "warning", "kaolin at " + home + "/x", (f"on {host}",))
    rep = Report(facts, [f])
    md = rep.to_markdown(redact=True)
    assert home not in md and "~/venv/lib/kaolin" in md
    if len(host) >= 3:
        assert host not in md and "<host>" in md
    assert home in rep.to_markdown(redact=False)


def test_redact_identity_whole_words_only():
    reps = {"/home/alice": "~", "alice": "<user>", "gpu01": "<host>"}
    text = "/home/alice/x alice@gpu01 malice gpu012 /data/alicex"
    assert redact_identity(text, reps) == "~/x <user>@<host> malice gpu012 /data/alicex"


def test_codes_doc_is_generated_and_complete():
    codes = all_codes()
    missing = [c for c in REQUIRED_CODES if c not in codes]
    assert not missing, f"required codes not documented by any rules module or explain: {missing}"
    text = CODES_PATH.read_text(encoding="utf-8")
    undocumented = [c for c in codes if f"`{c}`" not in text]
    assert not undocumented, ("CODES.md is stale; run `smr-doctor codes --write` "
                              f"(missing {undocumented})")
    assert codes_markdown().count("\n| `") == len(codes)
    assert text == codes_markdown(), "CODES.md drifted from the table; run `smr-doctor codes --write`"


def test_docs_finding_vocabulary_is_the_tables():
    """The docs page of codes is generated from the table; every code the hand-written pages name
    (``code `x```, the handbook's "finding code" column) is in the table, with the table's layer."""
    import re

    from smrnb.doctor._codes import CODES

    docs = Path(__file__).resolve().parents[2] / "docs"
    pytest.importorskip("mkdocs")
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_gen", docs / "_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.codes_md() == codes_markdown()
    checked = 0
    for page in sorted(docs.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        named = re.findall(r"\bcodes? `([a-z0-9_]+)`", text)
        header: list[str] = []
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
            if "finding code" in cells:
                header = cells
                continue
            if not cells:
                header = []
            if header and len(cells) == len(header) and not set(line) <= set("|-: "):
                col = cells[header.index("finding code")]
                codes_here = re.findall(r"`([a-z0-9_]+)`", col)
                named += codes_here
                if "layer" in header:
                    for c in codes_here:
                        assert CODES[c].layer == cells[header.index("layer")], (page.name, c)
        unknown = [c for c in named if c not in CODES]
        assert not unknown, f"{page.name} names codes the table does not have: {unknown}"
        checked += len(named)
    assert checked >= 10  # the handbook's table and notes were read


def test_every_code_a_rules_module_emits_is_declared():
    """Static scan: Finding("code", ...) literals in rules modules must be in all_codes()."""
    codes = all_codes()
    rules_dir = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "rules"
    emitted = {}
    for py in rules_dir.glob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Finding"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                emitted.setdefault(node.args[0].value, py.name)
    undeclared = {c: m for c, m in emitted.items() if c not in codes}
    assert not undeclared, f"codes emitted but not declared in CODES: {undeclared}"
    from smrnb.doctor._codes import CODES

    home = {"__init__.py": "rules"}  # rules/_<layer>.py decides the codes whose homes name "rules.<layer>"
    elsewhere = {c: m for c, m in emitted.items() if home.get(m, f"rules.{m[1:-3]}") not in CODES[c].homes}
    assert not elsewhere, f"codes emitted by a rules module the table does not name as their home: {elsewhere}"


def test_live_rules_word_shared_causes_as_the_table():
    """Static scan: a rules-module Finding of a code a text can show too words its fix with the table's
    wording (``why(code, ...)``), so the live report and explain say the same thing (the findings the rules
    build from events go through ``rules._events.finding``, which always does)."""
    from smrnb.doctor._codes import CODES

    rules_dir = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "rules"
    seen, unworded = set(), []
    for py in rules_dir.glob("*.py"):
        tree = ast.parse(py.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                continue
            code = node.args[0].value
            if "text" not in CODES[code].homes or len(node.args) < 6 or not CODES[code].fix:  # a plain fact
                continue
            seen.add(code)
            worded = any(isinstance(n, ast.Call) and getattr(n.func, "id", None) in ("why", "fix_wording")
                         and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == code
                         for n in ast.walk(node.args[5]))
            if not worded:
                unworded.append(f"{py.name}:{node.lineno} {code}")
    assert not unworded, unworded
    assert len(seen) >= 12


@pytest.mark.browser
def test_copy_button_copies_in_chromium(tmp_path):
    """The copy button puts the command on the clipboard (Clipboard API), and falls back to execCommand."""
    sync_api = pytest.importorskip("playwright.sync_api")
    rep = Report(FACTS, FINDINGS)
    page_html = tmp_path / "r.html"
    page_html.write_text("<html><body>" + rep._repr_html_() + "</body></html>", encoding="utf-8")
    def drive():
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            try:
                ctx = browser.new_context()
                ctx.grant_permissions(["clipboard-read", "clipboard-write"])
                page = ctx.new_page()
                page.goto(page_html.as_uri())
                buttons = page.locator("button.smrnb-copy")
                buttons.nth(1).click()
                page.wait_for_function("document.querySelectorAll('button.smrnb-copy')[1].innerText == 'copied'",
                                       timeout=5000)
                assert page.evaluate("navigator.clipboard.readText()") == "sudo apt-get install nvidia-driver-550"
                # no Clipboard API (e.g. plain http): the execCommand fallback
                page2 = ctx.new_page()
                page2.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined});")
                page2.goto(page_html.as_uri())
                page2.locator("button.smrnb-copy").nth(2).click()
                page2.wait_for_function("document.querySelectorAll('button.smrnb-copy')[2].innerText == 'copied'",
                                        timeout=5000)
            finally:
                browser.close()

    # the browser tests' session Playwright may be alive in this thread: drive this browser from a thread of its own
    run_in_own_thread(drive, 120, "the Chromium copy-button check")


def test_masked_proc_says_what_could_not_be_checked(tmp_path):
    """A /proc the doctor cannot read (masked in a container): the layers say so, never 'nothing to report'."""
    from smrnb.doctor import diagnose
    from smrnb.doctor._model import ProbeContext

    masked = tmp_path / "proc-self"
    masked.mkdir()  # exists, but holds no environ, maps or cgroup
    ctx = ProbeContext(proc_self=str(masked), timeout=2.0)
    assert ctx.start_environ is None
    rep = diagnose(layers=["loader", "context"], ctx=ctx, timeout=2.0)
    looks = {f.layer: f for f in rep.findings if f.code == "could_not_look"}
    assert set(looks) == {"loader", "context"}
    assert any("environ could not be read" in e for e in looks["loader"].evidence)
    assert any("maps could not be read" in e for e in looks["loader"].evidence)
    assert any("cgroup could not be read" in e for e in looks["context"].evidence)
    text = rep.to_text(verbose=True)
    assert "environ could not be read" in text
    for layer in ("loader", "context"):
        block = text.split(f"[{layer}]", 1)[1].split("\n\n", 1)[0]
        assert "nothing to report" not in block, block


def test_an_unavailable_layer_could_not_look():
    from smrnb.doctor import Report

    rep = Report({"driver": {"status": "unavailable", "reason": "nvidia-smi did not answer within 5 s"}}, [])
    text = rep.to_text()
    assert "could not look: nvidia-smi did not answer within 5 s" in text and "nothing to report" not in text
    assert "could not look" in rep._repr_html_()


def test_text_report_names_torch_build_and_nvcc():
    from smrnb.doctor import Report

    facts = {"torch": {"status": "ok", "installed": True, "version": "2.11.0+cu130", "cuda": "13.0"},
             "toolkit": {"status": "ok", "build_nvcc": "/usr/local/cuda/bin/nvcc", "build_nvcc_version": "13.0"}}
    rep = Report(facts, [])
    text = rep.to_text()
    assert "torch: 2.11.0+cu130 (CUDA 13.0 build)" in text
    assert "nvcc: 13.0 at /usr/local/cuda/bin/nvcc" in text
    assert "2.11.0+cu130 (CUDA 13.0 build)" in rep.to_markdown() and "CUDA 13.0 build" in rep._repr_html_()
    cpu = Report({"torch": {"status": "ok", "installed": True, "version": "2.13.0+cpu", "cuda": None},
                  "toolkit": {"status": "ok", "build_nvcc": None, "build_cuda_home": None}}, [])
    assert "torch: 2.13.0+cpu (CPU build)" in cpu.to_text() and "nvcc: none found" in cpu.to_text()


def test_diagnose_text_names_this_machines_torch_and_nvcc():
    from smrnb.doctor import diagnose

    env = diagnose(layers=["driver"], timeout=2.0).environment()
    assert set(env) == {"torch", "nvcc"}  # collected for the driver's rules, named even for one layer
    assert "build)" in env["torch"] or env["torch"] == "not installed"


@pytest.mark.parametrize("prompt", [
    "(base) bob@lab-gpu-server-3:~/proj$ python train.py",
    "pi@raspberrypi:~ $ pip install torch",
    "[alice@node12 work]$ nvcc -V",
    "carol@mbp ~ % python x.py",
    "root@4f2a9c:/workspace# nvidia-smi",
])
def test_markdown_redacts_the_user_and_host_of_a_pasted_shell_prompt(prompt):
    from smrnb.doctor._redact import redact_identity

    out = redact_identity(prompt + "\nImportError: libcudart.so.12: cannot open shared object file", {})
    assert "<user>@<host>" in out
    for name in ("bob", "lab-gpu-server-3", "pi@", "raspberrypi", "alice", "node12", "carol", "mbp", "4f2a9c"):
        assert name not in out, (name, out)
    assert redact_identity("write to bob@example.com", {}) == "write to bob@example.com"  # an address is no prompt


def test_an_explain_reports_likely_causes_show_their_fix_whatever_their_severity():
    """'Not your environment' is an info finding, and explain's answer: its evidence and fix are printed in the text
    form as an error's are; a note that is not one of the two likely causes keeps its one line."""
    from smrnb.doctor import explain

    r = explain("RuntimeError: value cannot be converted to type at::Half without overflow", live=False)
    first = r._likely()[0]
    assert first.severity == "info" and first.fix and first.fix.commands
    text = r.to_text()
    assert f"fix: {first.fix.why}" in text
    assert all(f"$ {c.splitlines()[0]}" in text for c in first.fix.commands)
    # the live doctor's notes (no ranked causes) stay one line each
    note = Finding("context_conda", "context", "info", "A conda environment is active",
                   fix=Fix("conda env config vars are the fix channel", ["conda env config vars list"]))
    plain = Report(FACTS, [*FINDINGS, note]).to_text()
    assert "ℹ️ A conda environment is active  [context_conda]" in plain
    assert "conda env config vars list" not in plain and "fix: conda env config vars" not in plain
    assert "conda env config vars list" in Report(FACTS, [*FINDINGS, note]).to_text(verbose=True)
