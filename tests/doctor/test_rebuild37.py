# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Session 37: one decision of how a compiled extension is rebuilt or reinstalled (smrnb.doctor.rules._rebuild), made
where the rules build their fixes, in both modes.

Blind audit 36 (C M12, B F9): a bare ``rm -rf build/ && pip install ... .``, run where the user stands, deletes that
folder's build/ and force-installs whatever project is there. explain rewrote the rules' generic form afterwards from
the text, and the live check for the file it inspected only: the live GPU-code check, the loader's wrong-CUDA reading,
any caller of the rules with a text's facts, and the readings whose build variable holds ``$(...)`` (most of the
no-kernel-image and every ROCm reading of the corpus) still printed it. And kaolin's own fixes uninstalled kaolin
before an install that can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from smrnb.doctor import explain
from smrnb.doctor._corpus import load
from smrnb.doctor._explain import read
from smrnb.doctor.rules import evaluate

CORPUS = Path(__file__).resolve().parent / "corpus"
TREE = "/home/u/myext"
BUILT = f"{TREE}/build/lib.linux-x86_64-cpython-310/myext/_C.cpython-310-x86_64-linux-gnu.so"


def _bare_rm_build(cmd: str) -> bool:
    """A command line (not a comment) that deletes a build/ folder with no ``cd`` to a named tree before it."""
    body = cmd.split("   #", 1)[0]
    if body.lstrip().startswith(("#", "rem ")):
        return False
    i = min((j for j in (body.find("rm -rf build"), body.find("rmdir /s /q build")) if j >= 0), default=-1)
    return i >= 0 and not re.search(r"(?:^|&&?\s*)cd \S", body[:i])


def _cmds(findings, code: str) -> list[str]:
    return [c for f in findings if f.code == code and f.fix for c in f.fix.commands]


def _rebuilds(cmds: list[str]) -> list[str]:
    return [c for c in cmds if "pip install" in c and not c.startswith("#")]


# ------------------------------------------------------------------ the live check: fake probe facts

def _gpu_facts(path: str, kaolin: bool = False) -> dict:
    ext = {"path": path, "status": "ok", "has_gpu_code": True, "embedded_archs": ["sm_80"], "embedded_ptx": [],
           "gpu_images": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "ok": False}]}
    facts = {"abi": {"status": "ok", "extensions": [ext]},
             "torch": {"status": "ok", "installed": True, "version": "2.5.1+cu124", "version_base": "2.5.1",
                       "cuda": "12.4"},
             "toolkit": {"status": "ok", "build_nvcc_version": "12.4"}}
    if kaolin:
        facts["kaolin"] = {"status": "ok", "version": "0.17.0", "extension_paths": [path],
                           "install_command": "pip install kaolin==0.17.0 -f https://nvidia-kaolin.s3.us-east-2."
                                              "amazonaws.com/torch-2.5.1_cu124.html"}
    return facts


def test_live_gpu_code_of_a_built_tree_rebuilds_in_that_tree():
    """Before: ``... --force-reinstall <the package that owns _C...so>   # ...; from its source tree: rm -rf build/
    first`` (a placeholder pip fetches nothing for, and a bare rm -rf build/)."""
    cmds = _cmds(evaluate(_gpu_facts(BUILT), ["abi"]), "no_kernel_image_for_gpu")
    (build,) = _rebuilds(cmds)
    assert build.startswith(f'cd {TREE} && rm -rf build/ && TORCH_CUDA_ARCH_LIST="9.0" pip install '), build
    assert "--no-build-isolation" in build and build.split("   #")[0].endswith(" .")
    assert not any(_bare_rm_build(c) or "<the package that owns" in c for c in cmds), cmds


def test_live_gpu_code_of_a_file_outside_any_tree_names_the_tree_to_cd_to():
    cmds = _cmds(evaluate(_gpu_facts("/opt/x/_C.so"), ["abi"]), "no_kernel_image_for_gpu")
    (build,) = _rebuilds(cmds)
    assert build.startswith("cd <the source tree _C.so was built from> && rm -rf build/ && "), build
    assert not any(_bare_rm_build(c) for c in cmds)


def test_live_kaolin_without_gpu_code_is_rebuilt_in_place_never_uninstalled_first():
    """Before: ``pip uninstall -y kaolin`` and then a source build that may fail: no kaolin left at all."""
    path = "/env/lib/python3.11/site-packages/kaolin/_C.so"
    cmds = _cmds(evaluate(_gpu_facts(path, kaolin=True), ["abi"]), "no_kernel_image_for_gpu")
    assert not any("uninstall" in c for c in cmds), cmds
    (build,) = _rebuilds(cmds)
    assert "--force-reinstall" in build and "cd kaolin-src && rm -rf build/" in build


def test_live_kaolin_abi_reinstall_is_one_force_reinstall():
    path = "/env/lib/python3.11/site-packages/kaolin/_C.so"
    facts = _gpu_facts(path, kaolin=True)
    facts["abi"]["extensions"][0].update(has_gpu_code=False, gpu_images=[], unresolved_count=1, unresolved=[
        {"mangled": "_ZN3c104cuda9SetDeviceEi", "demangled": "c10::cuda::SetDevice(int)", "diagnosis": "version"}])
    cmds = _cmds(evaluate(facts, ["abi"]), "abi_torch_version_mismatch")
    assert not any("uninstall" in c for c in cmds), cmds
    assert "pip install --force-reinstall kaolin==0.17.0 -f https://nvidia-kaolin" in "\n".join(cmds)


def test_live_wrong_cuda_of_a_built_tree_rebuilds_that_tree():
    """The loader's reading (rules._loader): before, ``pip install --force-reinstall <package>`` for a module no
    registry's package installed."""
    ext = {"path": BUILT, "status": "ok", "missing": ["libcudart.so.11.0"], "resolved": {}}
    facts = {"loader": {"status": "ok", "extensions": [ext]},
             "torch": {"status": "ok", "installed": True, "version": "2.3.0+cu121", "version_base": "2.3.0",
                       "cuda": "12.1"}}
    cmds = _cmds(evaluate(facts, ["loader"]), "prebuilt_binary_wrong_cuda")
    assert any(c.startswith(f"cd {TREE} && rm -rf build/ && pip install --no-build-isolation") for c in cmds), cmds
    assert not any("<package>" in c or _bare_rm_build(c) for c in cmds), cmds


# ------------------------------------------------------------------ the rules on a text's facts, outside explain

READINGS = {
    "cxx11_abi_mismatch": f"ImportError: {BUILT}: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs\n",
    "abi_torch_version_mismatch": "ImportError: /tmp/x/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
    "no_kernel_image_for_gpu": "RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
}


@pytest.mark.parametrize("code", sorted(READINGS))
def test_the_rules_on_a_texts_facts_print_no_bare_rm_build(code):
    """Before: ``rm -rf build/ && pip install ... .``: only explain's rewrite put a ``cd`` before it."""
    cmds = _cmds(evaluate(read(READINGS[code])), code)
    assert _rebuilds(cmds) and not any(_bare_rm_build(c) for c in cmds), cmds
    tree = TREE if code == "cxx11_abi_mismatch" else "<the source tree _C.so was built from>" \
        if code == "abi_torch_version_mismatch" else "<the extension's source tree>"
    assert any(c.startswith(f"cd {tree} && rm -rf build/ && ") for c in cmds), cmds


# ------------------------------------------------------------------ explain: each reading, from the text's facts

def _explained(text: str, code: str) -> list[str]:
    return _cmds(explain(text, live=False).findings, code)


@pytest.mark.parametrize("code", ["cxx11_abi_mismatch", "abi_torch_version_mismatch"])
def test_explain_rebuilds_the_source_tree_the_text_shows(code):
    sym = "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs" if code == "cxx11_abi_mismatch" else "_ZN3c104cuda9SetDeviceEi"
    text = f"$ python setup.py build_ext --inplace\n>>> import myext\nImportError: {BUILT}: undefined symbol: {sym}\n"
    cmds = _explained(text, code)
    assert any(re.match(r"cd (?:/home/u|\$HOME|~)/myext && rm -rf build/ && pip install --no-build-isolation", c)
               for c in cmds), cmds
    assert not any(_bare_rm_build(c) for c in cmds)


@pytest.mark.parametrize("code,text", [
    ("cxx11_abi_mismatch", "$ pip install myext\n>>> import myext\nImportError: /tmp/y/_C.so: undefined symbol: "
                           "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs\n"),
    ("no_kernel_image_for_gpu", "$ pip install gridencoder\nRuntimeError: CUDA error: no kernel image is available "
                                "for execution on the device\n"),
])
def test_explain_reinstalls_by_name_what_the_text_installed_from_a_registry(code, text):
    """The no-kernel-image reading's ``TORCH_CUDA_ARCH_LIST="$(nvidia-smi ...)"`` kept explain's old rewrite from
    seeing it: before, a bare ``rm -rf build/ && ... .``."""
    name = re.search(r"pip install (\S+)", text).group(1)
    cmds = _explained(text, code)
    assert any(re.search(rf"pip install --no-build-isolation --no-cache-dir --force-reinstall (?:--no-deps )?{name}"
                         rf"   # {name} as the text installed it, by name", c) for c in cmds), cmds
    assert not any(_bare_rm_build(c) or "rm -rf build" in c for c in cmds), cmds


@pytest.mark.parametrize("code,text", [
    ("no_kernel_image_for_gpu", "$ python setup.py install\nRuntimeError: CUDA error: no kernel image is available "
                                "for execution on the device\n"),
    ("no_kernel_image_for_gpu", "$ python setup.py develop\nhipErrorNoBinaryForGpu: Unable to find code object for "
                                "all current devices!\n"),
])
def test_explain_names_the_tree_where_the_text_shows_a_build_but_no_path(code, text):
    """Before: ``rm -rf build/ && TORCH_CUDA_ARCH_LIST="$(...)" ...`` / ``rm -rf build/ && PYTORCH_ROCM_ARCH=...``."""
    cmds = _explained(text, code)
    assert any(c.startswith("cd \"<the extension's source tree>\" && rm -rf build/ && ") for c in cmds), cmds
    assert not any(_bare_rm_build(c) for c in cmds), cmds
    if "hip" in text:
        assert any("PYTORCH_ROCM_ARCH=" in c for c in cmds)


def test_explain_on_windows_drops_a_rebuild_cmd_cannot_run_not_leaves_its_cd():
    text = ("C:\\Users\\me\\proj> python setup.py install\nhipErrorNoBinaryForGpu: Unable to find code object for all "
            "current devices!\n")
    cmds = _explained(text, "no_kernel_image_for_gpu")
    assert not any(re.match(r"cd <[^>]*>\s*(?:&|   #|$)", c) and "pip" not in c for c in cmds), cmds


# ------------------------------------------------------------------ the released corpus

def _corpus_texts():
    for p in sorted(CORPUS.glob("*.jsonl")):
        for i, r in enumerate(load(p)):
            yield f"{p.stem}/{r.get('id', i)}", r["text"]


@pytest.mark.slow
def test_no_printed_command_of_the_corpus_deletes_a_build_folder_without_cd_to_a_tree():
    """Before: 67 corpus texts printed a bare ``rm -rf build/ && ... .`` (the no-kernel-image readings with
    ``$(nvidia-smi ...)``, the ROCm readings), one a bare ``rm -rf build && cmake . -B build``."""
    bad = []
    for name, text in _corpus_texts():
        for f in explain(text, live=False).findings:
            bad += [f"{name}: {c}" for c in (f.fix.commands if f.fix else ()) if _bare_rm_build(c)]
    assert not bad, "\n".join(bad[:20])
