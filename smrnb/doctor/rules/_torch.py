# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the torch layer: CUDA build vs GPU, the wheel's arch list vs the GPU's capability."""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import layer
from smrnb.doctor.rules._driver import torch_variants_for_driver

CODES = meanings("rules.torch")  # this module's codes, from the one table (codes.py)


def arch_covers(arch_list: list[str], cc: str) -> tuple[bool, str]:
    """Whether a torch arch list (``["sm_80", "sm_90", "compute_90"]``) runs on capability ``cc``:
    a cubin of the same major and lower-or-equal minor runs (``sm_80`` on 8.6); PTX of a lower or
    equal capability is JIT-compiled by the driver. Returns (covered, how)."""
    v = tables.parse_version(cc)
    if not v or len(v) < 2:
        return True, "unknown capability"
    want = v[0] * 10 + v[1]
    sms, ptx = [], []
    for a in arch_list or []:
        kind, _, num = str(a).partition("_")
        try:
            n = int(num.rstrip("abf"))
        except ValueError:
            continue
        if num[-1:].isalpha():  # sm_90a: arch-specific, runs only on exactly that chip
            if n == want and kind == "sm":
                sms.append(n)
            continue
        (sms if kind == "sm" else ptx).append(n)
    if want in sms:
        return True, f"sm_{want} cubins"
    same_major = [s for s in sms if s // 10 == want // 10 and s <= want]
    if same_major:
        return True, f"sm_{max(same_major)} cubins (binary-compatible within major {want // 10})"
    lower_ptx = [p for p in ptx if p <= want]
    if lower_ptx:
        return True, f"compute_{max(lower_ptx)} PTX, JIT-compiled at first use"
    return False, "no cubin or PTX it can run"


def _shell_quote(text: str) -> str:
    return shlex.quote(text)


@rule("torch")
def torch_findings(facts: Facts) -> Iterable[Finding]:
    torch = facts.get("torch") or {}
    drv = layer(facts, "driver")
    if torch.get("status") == "unavailable":
        return
    if not torch.get("installed"):
        yield Finding("torch_not_installed", "torch", "warning", "torch is not installed in this Python",
                      (f"searched the kernel's sys.path; nvidia wheels: {sorted(torch.get('nvidia_wheels') or {})}",),
                      Fix("Install the torch build that matches this machine (pytorch.org/get-started).",
                          ("pip install torch",)))
        return
    gpus = drv.get("gpus") or []
    version = torch.get("version")
    err = torch.get("import_error")
    if err and not (torch.get("cuda") and gpus):  # with a CUDA torch on a GPU, torch_cuda_unavailable says it
        yield Finding("torch_import_failed", "torch", "error",
                      f"torch{' ' + version if version else ''} is installed but cannot be imported",
                      (f"import torch in a subprocess: {err}", f"torch found at {torch.get('location')}"),
                      Fix("Ask the doctor what the error means (a missing CUDA library is usually a loader path or "
                          "a torch build for another CUDA; an undefined symbol a mixed install).",
                          (f"smr-doctor explain {_shell_quote(err)}",)))
    if gpus and not torch.get("cuda") and not torch.get("hip"):
        cmds = []
        ok = torch_variants_for_driver(torch.get("version_base") or "", drv.get("driver_version") or "")
        if ok:
            cmds.append(f"pip install --force-reinstall torch=={torch.get('version_base')} "
                        f"--index-url https://download.pytorch.org/whl/{ok[-1]}")
        else:
            cmds.append("pip install --force-reinstall torch  # choose the CUDA variant on pytorch.org")
        yield Finding("cpu_only_torch_with_gpu", "torch", "warning", f"CPU-only torch {version} on a GPU machine",
                      (f"torch {version}: torch.version.cuda is None", f"GPU: {gpus[0].get('name')}"),
                      Fix(why("cpu_only_torch_with_gpu", f"Variants this driver runs: {', '.join(ok)}." if ok else ""),
                          tuple(cmds)))
    if torch.get("cuda") and gpus and torch.get("cuda_available") is False:
        yield Finding("torch_cuda_unavailable", "torch", "error",
                      f"torch {version} cannot see the GPU (torch.cuda.is_available() is False)",
                      (f"torch CUDA {torch['cuda']}, driver {drv.get('driver_version')}",
                       *( [f"import check: {torch['import_error']}"] if torch.get("import_error") else [])),
                      Fix("Usually the driver is too old for this torch (see the driver layer), or "
                          "CUDA_VISIBLE_DEVICES hides the GPUs.", ("echo $CUDA_VISIBLE_DEVICES", "nvidia-smi")))
    if torch.get("cuda") and gpus:
        arch_list = torch.get("arch_list")
        if not arch_list:
            yield Finding("torch_arch_list_unknown", "torch", "info",
                          "torch's compiled GPU architectures were not read",
                          ("torch is not imported in this process",),
                          Fix("Run the doctor with the import check to compare torch.cuda.get_arch_list() with the GPU.",
                              ("smr-doctor --import-check",)))
        else:
            for g in gpus:
                cc = g.get("compute_capability")
                if not cc:
                    continue
                covered, how = arch_covers(arch_list, cc)
                ev = (f"GPU {g.get('name')}: compute capability {cc}",
                      f"torch.cuda.get_arch_list(): {' '.join(arch_list)}")
                if covered:
                    yield Finding("torch_gpu_arch_ok", "torch", "ok",
                                  f"torch {version} runs on {g.get('name')} ({how})", ev)
                else:
                    yield Finding("torch_wheel_lacks_gpu_arch", "torch", "error",
                                  f"torch {version} has no kernels for {g.get('name')} (CC {cc})", ev,
                                  Fix(why("torch_wheel_lacks_gpu_arch", "CUDA ops fail with 'no kernel image is available for "
                                          "execution on the device' (e.g. compute 12.0 needs cu128+; GPUs below "
                                          "7.5 need cu126 or older)."),
                                      ("pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/<variant>",)))
    libs = torch.get("cuda_runtime_libs") or []
    if libs:
        origins = sorted({lib["origin"] for lib in libs})
        yield Finding("torch_cuda_runtime", "torch", "info",
                      f"torch's CUDA runtime comes from {' + '.join(origins)}",
                      tuple(f"{lib['name']}: {lib['path'] or 'resolved by the system loader'} ({lib['origin']})"
                            for lib in libs[:8]))
