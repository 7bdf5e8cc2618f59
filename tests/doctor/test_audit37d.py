# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audits 36 A and B, their leftovers (session 37, worker d): explain's readings.

* B-F7: an old-ABI symbol of a ``+pt21`` PyG wheel beside torch 2.3.0 (``pip list``): the wheel built for another
  torch is the first reading, not the C++ ABI.
* B-F12: ``conda list`` shows conda's pytorch and pip's torch in one environment: named, which one Python imports,
  how to remove the other.
"""

from __future__ import annotations

import smrnb


def _report(text: str):
    return smrnb.explain(text, live=False)


def _codes(text: str) -> list[str]:
    return [f.code for f in _report(text).findings]


def _finding(text: str, code: str):
    return next(f for f in _report(text).findings if f.code == code)


B_T07 = """$ pip list | grep torch
torch                 2.3.0
torch-scatter         2.1.2+pt21cu121
$ python -c "import torch_scatter"
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/home/dan/.local/lib/python3.10/site-packages/torch_scatter/__init__.py", line 16, in <module>
    torch.ops.load_library(spec.origin)
  File "/home/dan/.local/lib/python3.10/site-packages/torch/_ops.py", line 1032, in load_library
    ctypes.CDLL(path)
  File "/usr/lib/python3.10/ctypes/__init__.py", line 374, in __init__
    self._handle = _dlopen(self._name, mode)
OSError: /home/dan/.local/lib/python3.10/site-packages/torch_scatter/_scatter_cuda.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb
"""


def test_f7_pyg_wheel_for_other_torch_is_the_first_reading():
    codes = _codes(B_T07)
    assert codes[0] == "abi_torch_version_mismatch", codes
    f = _finding(B_T07, "abi_torch_version_mismatch")
    assert any("torch 2.1" in e and "2.3.0" in e for e in f.evidence), f.evidence
    assert any("data.pyg.org/whl/torch-2.3.0+" in c for c in f.fix.commands), f.fix.commands
    assert not any(c.startswith("rm -rf build/") for c in f.fix.commands)


def test_f7_wheel_for_the_same_torch_keeps_the_abi_reading():
    text = B_T07.replace("2.3.0\n", "2.1.2\n", 1)
    assert _codes(text)[0] == "cxx11_abi_mismatch"


B_T16 = """$ conda list | grep -E "torch|cuda"
cudatoolkit               11.3.1               h2bc3f7f_2
pytorch                   1.11.0          py3.9_cuda11.3_cudnn8.2.0_0    pytorch
torch                     2.0.1                    pypi_0    pypi
$ python -c "import torch"
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/home/jo/anaconda3/envs/work/lib/python3.9/site-packages/torch/__init__.py", line 229, in <module>
    from torch._C import *  # noqa: F403
ImportError: /home/jo/anaconda3/envs/work/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: cudaGraphInstantiateWithFlags, version libcudart.so.11.0
"""


def test_f12_conda_and_pip_torch_in_one_environment_named_first():
    rep = _report(B_T16)
    f = rep.findings[0]
    assert "Two torch installs" in f.title, [x.title for x in rep.findings]
    assert any("conda's pytorch 1.11.0" in e and "pip's torch 2.0.1" in e for e in f.evidence), f.evidence
    assert "Python imports" in f.fix.why
    cmds = "\n".join(f.fix.commands)
    assert "conda remove --force -y pytorch" in cmds and "torch==2.0.1" in cmds and "torch.__file__" in cmds


def test_f12_pip_list_beside_conda_list_of_one_install_is_not_two():
    # `pip list` lists a conda install too: one torch 1.13.1 shown by both managers is one install
    text = B_T16.replace("torch                     2.0.1                    pypi_0    pypi",
                         "torch                     1.11.0")
    assert not any("Two torch installs" in f.title for f in _report(text).findings)


NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _gpus(text: str) -> list[str]:
    """The GPUs the findings' evidence says the text shows ("driver.gpus = H200 (CC 9.0)")."""
    said = [e.split("driver.gpus = ", 1)[1].split(" (line:")[0] for f in _report(text).findings for e in f.evidence
            if "driver.gpus = " in e]
    return sorted(set(said))


def test_gpu_named_in_prose_is_read_with_its_capability():
    # blind audit 36 B (t47): "H200 node" named no GPU in the facts
    assert _gpus("H200 node, torch 2.6.0+cu124\n" + NO_KERNEL) == ["H200 (CC 9.0)"]
    assert _gpus("I train on an H100 with torch 2.1\n" + NO_KERNEL) == ["H100 (CC 9.0)"]
    assert _gpus("A100 80GB node\n" + NO_KERNEL) == ["A100 80GB (CC 8.0)"]
    assert _gpus("Running this on a T4 instance\n" + NO_KERNEL) == ["T4 (CC 7.5)"]


def test_model_letters_without_a_gpu_word_are_not_a_gpu():
    assert _gpus("the L4 cache of this machine\n" + NO_KERNEL) == []


B_T36 = """$ python --version
Python 3.13.1
$ pip install torch-scatter -f https://data.pyg.org/whl/torch-2.5.0+cu124.html
Looking in links: https://data.pyg.org/whl/torch-2.5.0+cu124.html
Collecting torch-scatter
  Downloading torch_scatter-2.1.2.tar.gz (108 kB)
  Preparing metadata (setup.py) ... error
  error: subprocess-exited-with-error
  × python setup.py egg_info did not run successfully.
  ╰─> [6 lines of output]
      Traceback (most recent call last):
        File "<string>", line 2, in <module>
        File "<pip-setuptools-caller>", line 34, in <module>
        File "/tmp/pip-install-q1/torch-scatter_9/setup.py", line 8, in <module>
          import torch
      ModuleNotFoundError: No module named 'torch'
      [end of output]
"""
NO_MATCH_313 = """$ python --version
Python 3.13.1
$ pip install torch-scatter -f https://data.pyg.org/whl/torch-2.5.0+cu124.html
Looking in links: https://data.pyg.org/whl/torch-2.5.0+cu124.html
ERROR: Could not find a version that satisfies the requirement torch-scatter (from versions: none)
ERROR: No matching distribution found for torch-scatter
"""


def test_f13_no_pyg_wheel_for_python_313_is_said_first():
    # blind audit 36 B-F13: torch-scatter's build matrix gave torch 2.5.0's page Python 3.8-3.12 (Python 3.13 from
    # torch 2.6.0 on: rusty1s/pytorch_scatter dd346a9); pip fell back to the sdist
    for text in (B_T36, NO_MATCH_313):
        f = _report(text).findings[0]
        assert f.code == "package_no_build_for_platform", [x.code for x in _report(text).findings]
        assert "Python 3.13" in f.title and "torch 2.5" in f.title, f.title
        cmds = "\n".join(f.fix.commands)
        assert "3.8-3.12" in cmds and "https://data.pyg.org/whl/torch-2.6.0+cu124.html" in cmds, cmds


def test_f13_a_python_the_page_has_is_no_such_finding():
    text = B_T36.replace("Python 3.13.1", "Python 3.12.4")
    assert not any("has no torch-scatter wheel" in f.title for f in _report(text).findings)


PASTED_MARKUP = """/home/zelda/k.cu </details> <script>alert(1)</script> | a | b | [c](javascript:x) ![i](http://e/i.png) ``` <b>b</b>: \
ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory
"""


def test_l2_markdown_keeps_pasted_markup_as_text():
    # blind audit 36 A-L2: pasted </details>, <script>, '|', links and fences went into --markdown verbatim
    markdown_it = __import__("pytest").importorskip("markdown_it")
    md = _report(PASTED_MARKUP).to_markdown(redact=True)
    html = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    assert "<script" not in html and "<b>" not in html and "<img" not in html and "javascript:" not in \
        "".join(__import__("re").findall(r'href="[^"]*"', html))
    assert html.count("<details>") == 1 and html.count("</details>") == 1
    assert "&lt;/details&gt; &lt;script&gt;alert(1)&lt;/script&gt; | a | b |" in html  # the pasted text, shown as text
    assert "/home/&lt;user&gt;/k.cu" in html and "zelda" not in md  # the redaction's own placeholder as text
    assert html.count("<tr>") == 2  # the layer table: its header and the loader's row, no row of the pasted '|'


def test_l2_a_command_holding_backticks_stays_one_code_block():
    from smrnb.doctor._model import Finding, Fix
    from smrnb.doctor._report import Report

    rep = Report({}, [Finding("cuda_oom", "torch", "error", "t", ("e",), Fix("w", ("echo ```; echo </details>",)))])
    md = rep.to_markdown(redact=False)
    assert "````bash\necho ```; echo </details>\n````" in md


def test_l2_the_redacted_home_keeps_the_separator_after_it():
    # blind audit 36 A-L2: "/home/zelda; this machine ..." became "/home/<user> this machine ..." in --markdown
    from smrnb.doctor._redact import redact_identity

    assert redact_identity("the text shows /home/zelda; this machine, /home/bob, C:\\Users\\Jo;", {}) == \
        "the text shows /home/<user>; this machine, /home/<user>, C:\\Users\\<user>;"


def test_l3_an_empty_text_is_bad_input_in_the_api_as_in_the_cli():
    # blind audit 36 A-L3: `smr-doctor explain < /dev/null` is a usage error (exit 2), smrnb.explain("") was NOT
    # RECOGNISED: both now say the argument is empty
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    from smrnb._errors import SmrnbValueError

    for text in ("", "  \n\t\n"):
        with pytest.raises(SmrnbValueError, match="needs an error text"):
            smrnb.explain(text, live=False)
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline"], input="", text=True,
                       capture_output=True, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})
    assert p.returncode == 2 and "needs an error text" in p.stderr


VERSIONS_ONLY = """nvcc --version
Cuda compilation tools, release 11.8, V11.8.89
python -c 'import torch; print(torch.__version__)'
2.1.0+cu121
"""


def test_no_guess_from_similar_reports_beside_a_rule_where_no_failure_is_shown():
    # blind audit 36 A (M6's last point): a text with no failure line got "a guess from similar reports" beside the
    # rule's reading (here cpu_only_torch_with_gpu beside nvcc_torch_cuda_mismatch)
    rep = _report(VERSIONS_ONLY)
    assert [f.code for f in rep.findings] == ["nvcc_torch_cuda_mismatch"]
    assert not any("similar reports" in (f.sources or ()) for f in rep.findings)



def test_t41_a_container_of_this_machine_is_said_as_this_machines():
    # blind audit 36 B (t41): "decided by: the process runs in a container or a job" where the text shows neither
    # (this machine's fact decided, live): the reading now says whose fact it was
    from smrnb.doctor._explain import explain_result

    text = open_b("t41")
    res = explain_result(text, {"context": {"status": "ok", "container": "docker"}}, similar=False)
    how = [e for f in res.findings for e in f.evidence if e.startswith("decided by: the process runs in a container")]
    assert how and all("this machine runs in one; the text shows none" in e for e in how), how


def open_b(name: str) -> str:
    return {"t41": """$ nvidia-smi
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.
$ uname -r
6.8.0-49-generic
$ dpkg -l | grep nvidia-driver
ii  nvidia-driver-550   550.120-0ubuntu0.24.04.1   amd64   NVIDIA driver metapackage
"""}[name]
