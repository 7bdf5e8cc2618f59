# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side, round 23b: the printed pass reads what the text reader recorded (no second reading of
the text for undefined symbols, missing headers and -l libraries), the audits' last placeholders (a script, a package
named in prose, ``pip show <the library>``), and no secret of the text in any fill, in any output form. Texts in other
wordings than the audits' (audit19, audit20)."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import _printed, explain
from smrnb.doctor._explain import explain_result, read
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._redact import text_secrets
from smrnb.doctor._report import render_html


def _result(text: str):
    return explain_result(text, similar=False)


def _printed_lines(text: str) -> list[str]:
    """Every command a text's findings print, and every command that decides between readings."""
    out = []
    for f in _result(text).findings:
        out += list(f.fix.commands) if f.fix else []
        out += [e.split("what decides: `", 1)[1].rstrip("`") for e in f.evidence if "what decides: `" in e]
    return out


def _forms(text: str) -> dict[str, str]:
    rep = explain(text, live=False)
    return {"text": rep.to_text(verbose=True), "json": rep.to_json(), "markdown": rep.to_markdown(redact=True),
            "html": render_html(rep)}


BUILD = ("  /tmp/tmpq1w2/csrc/warp.cu(41): error: identifier \"__hmax\" is undefined\n"
         "  error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n")


# ------------------------------------------------------------------ item 1: the reader's events, not a second reading
def test_the_printed_pass_keeps_no_patterns_of_its_own_for_what_the_reader_records():
    for name in ("_UNDEF_LIB_RE", "_MISSING_HEADER_RE", "_MISSING_LINK_RE"):
        assert not hasattr(_printed, name), name


@pytest.mark.parametrize("text, shown", [
    ("csrc/ops/sort.cu:12:10: fatal error: cub/device/device_scan.cuh: No such file or directory\n"
     "compilation terminated.\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n",
     "apt-file search device_scan.cuh"),  # a CUDA header (.cuh): the reader's pattern, wider than the old one
    ("/opt/x/include/guard.h:38:10: fatal error: 'cusparse.h' file not found\n#include <cusparse.h>\n",
     "apt-file search cusparse.h"),  # clang's wording
    ("/usr/bin/ld: cannot find -lcufile\ncollect2: error: ld returned 1 exit status\n"
     "error: command '/usr/bin/g++' failed with exit code 1\n", "apt-file search libcufile.so"),
])
def test_a_missing_header_or_library_the_reader_records_fills_the_search(text, shown):
    printed = _printed_lines(text)
    assert shown in printed, printed
    assert not any("<the missing header or library>" in c for c in printed), printed


def test_the_library_that_needs_a_symbol_is_a_path_a_command_takes():
    text = ("Cannot load plugin /srv/app/plugins/libio_x.so: (/lib/x86_64-linux-gnu/libgnutls.so.30: undefined symbol: "
            "nettle_rsa_oaep_sha384_encrypt, version NETTLE_8)\n")
    ldd = [c for c in _printed_lines(text) if c.startswith("for l in $(ldd ")]
    assert ldd and all(c.startswith("for l in $(ldd /lib/x86_64-linux-gnu/libgnutls.so.30 |") for c in ldd), ldd


@pytest.mark.parametrize("shown", ["/.../envs/a/lib/python3.11/site-packages/fastops/_kernels.so",
                                   "`*/fastops/_kernels.so"])
def test_a_library_path_cut_short_is_named_by_its_file_in_a_comment(shown):
    printed = _printed_lines(f"ImportError: {shown}: undefined symbol: cblas_sgemm_batch\n")
    nm = [c for c in printed if "cblas_sgemm_batch" in c]
    assert nm and not any("ldd /..." in c or "ldd `" in c or "ldd *" in c for c in nm), nm
    assert any(c.startswith("# ") and "_kernels.so" in c for c in nm), nm


# ------------------------------------------------------------------ item 2: the last placeholders
@pytest.mark.parametrize("text, script", [
    ("(venv) $ python tools/run_demo.py --cfg configs/a.yaml\nTraceback (most recent call last):\n"
     "  File \"tools/run_demo.py\", line 40, in <module>\n    main()\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered\n", "tools/run_demo.py"),
    ("Traceback (most recent call last):\n  File \"/srv/proj/eval_scene.py\", line 12, in <module>\n    run()\n"
     "  File \"/srv/proj/eval_scene.py\", line 9, in run\n    x = y.cuda()\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered\n", "/srv/proj/eval_scene.py"),
])
def test_the_script_the_text_runs_fills_the_rerun(text, script):
    printed = [c for c in _printed_lines(text) if "CUDA_LAUNCH_BLOCKING=1" in c]
    assert printed and all(f"python {script}" in c and "<your script>" not in c for c in printed), printed


def test_a_packages_own_init_module_is_no_script():
    text = ("Traceback (most recent call last):\n  File \"/srv/proj/mylib/__init__.py\", line 2, in <module>\n"
            "    from .core import run\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert not any("__init__.py" in c for c in _printed_lines(text))


def test_a_jit_build_reruns_the_texts_script_or_says_what_to_rerun():
    named = _printed_lines("$ python train_field.py\nRuntimeError: Error building extension 'warpfield_cuda'\n"
                           "ninja: build stopped: subcommand failed.\n")
    assert any(c.startswith("MAX_JOBS=1 python train_field.py ") for c in named), named
    unnamed = _printed_lines("Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/site-packages/"
                             "torch/utils/cpp_extension.py\", line 1308, in load\n"
                             "RuntimeError: Error building extension 'warpfield_cuda'\n")
    assert not any("<your script>" in c for c in unnamed), unnamed
    assert any(c.startswith("# ") and "MAX_JOBS=1" in c for c in unnamed), unnamed


@pytest.mark.parametrize("title, shown", [
    ("fastsplat fails to build on my machine\n", "fastsplat"),
    ("I installed fastsplat via pip and the build stops:\n", "fastsplat"),
    ("tiny-cuda-nn won't install\n", "'git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch'"),
])
def test_a_package_named_only_in_prose_fills_the_build_command(title, shown):
    printed = [c for c in _printed_lines(title + BUILD) if "pip install" in c]
    assert printed and all("<package>" not in c for c in printed), printed
    assert any(f"-v {shown} " in c for c in printed), printed


def _decides(text: str, check: str) -> str:
    """The command that decides a reading whose check is ``check``, as the printed pass fills it from ``text``."""
    f = Finding("library_bug", "torch", "warning", "A bug in a library", (f"what decides: `{check}`",),
                Fix("why", (check,)))
    out = _printed.true_to_text([f], text, read(text))[0]
    return out.evidence[0].split("`")[1]


@pytest.mark.parametrize("text, shown", [
    ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    from geokit.ops import voxel\n"
     "ModuleNotFoundError: No module named 'geokit.ops'\n", "pip show geokit"),
    ("AttributeError: module 'PIL.Image' has no attribute 'ANTIALIAS'\n", "pip show pillow"),
])
def test_pip_show_names_the_package_a_part_of_which_is_missing(text, shown):
    assert _decides(text, "pip show <the library>   # its version, for the issue tracker").startswith(shown)
    assert _decides(text, "pip show <the package>   # its installed version").startswith(shown)


def test_pip_show_without_a_package_in_the_text_is_no_filler():
    text = "Segmentation fault (core dumped) after the third epoch\n"
    got = _decides(text, "pip show <the library>   # its version, for the issue tracker")
    assert "<" not in got and got.startswith("pip list   # "), got


# ------------------------------------------------------------------ item 3: no secret of the text in any fill
SECRET_TEXTS = [  # (text, what must never be printed)
    ("$ pip install --token s3cr3tT0kenValue99 fastsplat\n" + BUILD, ["s3cr3tT0kenValue99"]),
    ("$ pip install --password Hunter2Hunter2 fastsplat\n" + BUILD, ["Hunter2Hunter2"]),
    ("  Building wheel for hf_AbCdEfGhIjKlMnOpQrStUvWx (setup.py) ... error\n"
     "  ERROR: Failed building wheel for hf_AbCdEfGhIjKlMnOpQrStUvWx\n" + BUILD, ["abcdefghijklmnopqrstuvwx"]),
    ("$ AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY pip install wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY\n"
     + BUILD, ["wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"]),
    ("$ export WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567\nImportError: /opt/0123456789abcdef0123456789abcdef"
     "01234567/lib/python3.10/site-packages/fastops/_k.so: undefined symbol: cblas_sgemm_batch\n",
     ["0123456789abcdef0123456789abcdef01234567"]),
    ("$ HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWx pip install fastsplat\n" + BUILD, ["AbCdEfGhIjKlMnOpQrStUvWx"]),
    ("$ pip install git+https://alice:Pa55w0rdXyz@github.com/acme/splatkit.git\n" + BUILD, ["Pa55w0rdXyz"]),
    ("$ pip install 'git+https://oauth2:glpat-AAAAbbbbCCCCdddd1234@gitlab.com/acme/splatkit.git'\n" + BUILD,
     ["AAAAbbbbCCCCdddd1234"]),
    ("$ pip install torch-scatter -f https://bob:S3cretPw1x@wheels.example.com/simple\ntorch==2.1.0+cpu\n"
     "  Building wheel for torch-scatter (setup.py) ... error\n  error: command 'gcc' failed\n", ["S3cretPw1x"]),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n"
     "$ pip install b3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n" + BUILD, ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"]),
    ("$ python train.py --hf_token hf_AbCdEfGhIjKlMnOpQrStUvWx\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered\n", ["AbCdEfGhIjKlMnOpQrStUvWx"]),
]


@pytest.mark.parametrize("text, secrets", SECRET_TEXTS)
def test_no_output_form_prints_a_secret_of_the_text(text, secrets):
    for form, out in _forms(text).items():
        for s in secrets:
            assert s.lower() not in out.lower(), (form, s)


def test_what_the_fills_copy_is_read_with_the_secrets_redacted():
    text = "$ pip install --token s3cr3tT0kenValue99 fastsplat\n" + BUILD
    printed = _printed_lines(text)  # (round 26: no pip target is left that the text names safely: the variable)
    assert printed and not any("s3cr3tT0kenValue99" in c or "<redacted>" in c or "<package>" in c
                               for c in printed), printed


@pytest.mark.parametrize("text, user", [
    ("RuntimeError: Error building extension 'blurk_cuda'\n  File \"/home/jdoe/.cache/torch_extensions/py310_cu118/"
     "blurk_cuda/build.ninja\"\nninja: build stopped: subcommand failed.\n", "jdoe"),
    ("Traceback (most recent call last):\n  File \"/home/jdoe/proj/train.py\", line 3, in <module>\n    x.cuda()\n"
     "RuntimeError: CUDA error: an illegal memory access was encountered\n", "jdoe"),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\Jane Roe\\proj\\train.py\", line 3, in <module>\n"
     "    x.cuda()\nRuntimeError: CUDA error: an illegal memory access was encountered\n", "Roe"),
    ("ImportError: /Users/jdoe/env/lib/python3.10/site-packages/fastops/_kernels.so: undefined symbol: "
     "cblas_sgemm_batch\n", "jdoe"),
])
def test_a_home_folder_a_command_copies_names_no_user(text, user):
    printed = _printed_lines(text)
    assert printed and not any(user in c for c in printed), printed
    assert any("$HOME/" in c or "%USERPROFILE%" in c for c in printed), printed
    forms = _forms(text)
    assert user not in forms["markdown"]  # text, JSON and HTML quote the pasted lines as they are (documented)
    for form in ("text", "json", "html"):
        lines = [ln for ln in forms[form].splitlines() if ln.lstrip().startswith(("$ ", "\"", "<code"))]
        assert not any(user in ln and "line:" not in ln and "evidence" not in ln for ln in lines), form


def test_a_windows_user_name_with_spaces_is_redacted_whole_in_markdown():
    text = ("OSError: [WinError 126] The specified module could not be found. Error loading "
            "\"C:\\Users\\Jane Roe\\miniconda3\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n")
    md = _forms(text)["markdown"]
    assert "Jane" not in md and "Roe" not in md


def test_the_texts_secrets_are_found_by_name_shape_url_and_key():
    got = text_secrets("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG\npip install --token abc123def456 x\n"
                       "https://u:pw12345@h.example/x\nhf_AbCdEfGhIjKlMnOpQrStUvWx\n")
    for s in ("wJalrXUtnFEMIK7MDENG", "abc123def456", "pw12345", "hf_AbCdEfGhIjKlMnOpQrStUvWx"):
        assert s in got, (s, got)
    assert not re.search(r"\bpip\b|install", " ".join(got))


@pytest.mark.parametrize("quoted", ["({}: undefined symbol: ffi_type_pointer, version LIBFFI_BASE_7.0)",
                                    "`{}: undefined symbol: _ZN3c104cuda9SetDeviceEi`",
                                    "ImportError: {}: undefined symbol: _ZN3c104cuda9SetDeviceEi"])
def test_the_reader_records_the_library_that_needs_a_symbol_without_its_quoting(quoted):
    """The text reader's ``needed_by`` is the library's path, not the bracket or backtick quoting it."""
    from smrnb.doctor._textfacts import events_of, read_text

    lib = "/opt/envs/a/lib/python3.11/site-packages/iou3d_cuda.cpython-311-x86_64-linux-gnu.so"
    evs = [e for e in events_of(read_text(quoted.format(lib))) if e.get("kind") == "undefined_symbol"]
    assert evs and {e.get("needed_by") for e in evs} == {lib}
