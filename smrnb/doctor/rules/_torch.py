# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the torch layer: CUDA build vs GPU, the wheel's arch list vs the GPU's capability."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._install import arch_covers
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import layer
from smrnb.doctor.rules._driver import torch_variants_for_driver
from smrnb.doctor.rules._events import builds, events, from_text, resolve, value

CODES = meanings("rules.torch")  # this module's codes, from the one table (codes.py)


def _shell_quote(text: str) -> str:
    return shlex.quote(text)


@rule("torch")
def torch_findings(facts: Facts) -> Iterable[Finding]:
    torch = facts.get("torch") or {}
    drv = layer(facts, "driver")
    if not torch or torch.get("status") == "unavailable":
        return
    if not torch.get("installed"):
        yield Finding("torch_not_installed", "torch", "warning", "torch is not installed in this Python",
                      (f"searched the kernel's sys.path; nvidia wheels: {sorted(torch.get('nvidia_wheels') or {})}",),
                      Fix(why("torch_not_installed"), ("pip install torch",)))
        return
    gpus = drv.get("gpus") or []
    version = torch.get("version")
    err = torch.get("import_error")
    if err and not (torch.get("cuda") and gpus):  # with a CUDA torch on a GPU, torch_cuda_unavailable says it
        yield Finding("torch_import_failed", "torch", "error",
                      f"torch{' ' + version if version else ''} is installed but cannot be imported",
                      (f"import torch in a subprocess: {err}", f"torch found at {torch.get('location')}"),
                      Fix(why("torch_import_failed", "A missing CUDA library is usually a loader path or a torch "
                              "build for another CUDA; an undefined symbol a mixed install."),
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
                      Fix(why("torch_cuda_unavailable", "Here the driver layer says which."),
                          ("echo $CUDA_VISIBLE_DEVICES", "nvidia-smi")))
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


# ------------------------------------------------------------------ torch's messages, read in a text or probed
@builds("user_code_error")
def _user_code(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    what = ev.get("message") if ev.get("kind") == "cuda_error" else ev.get("meaning")
    name = f"{ev.get('name')}: " if ev.get("kind") == "cuda_error" else ""
    title = f"Not your environment: {name}{str(what or 'an error of the calling code').rstrip('.')}"
    groups = ev.get("groups") or {}
    evidence = [f"the assertion: {groups['assertion']}"] if groups.get("assertion") else []
    return {"title": title[:200], "evidence": evidence,
            "commands": ["CUDA_LAUNCH_BLOCKING=1 python <your script>   # the traceback then names the failing call",
                         "# on CPU the same code raises a readable error: run one batch with device='cpu'"]}


@builds("library_bug")
def _library_bug(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    where = (ev.get("groups") or {}).get("file")
    return {"title": "A library's internal check failed: a bug in the library" + (f" ({where})" if where else ""),
            "commands": ["pip show torch   # the release, for the issue tracker",
                         "pip install --upgrade torch   # or the release before the one that broke"]}


@builds("cuda_oom")
def _oom(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    return {"title": "The GPU ran out of memory",
            "commands": ["nvidia-smi   # other processes holding memory",
                         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python <your script>   # fragmentation",
                         "# or a smaller batch / resolution"]}


@builds("cpu_only_torch_with_gpu")
def _cpu_torch(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    tv = value(facts, "torch", "version_base")
    drv = value(facts, "driver", "driver_version") or ""
    ok = torch_variants_for_driver(tv or "", drv) if tv and drv else []
    cmd = (f"pip install --force-reinstall torch=={tv} --index-url https://download.pytorch.org/whl/{ok[-1]}" if ok else
           "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu126   # a CUDA variant "
           "the driver supports (nvidia-smi 'CUDA Version' is its newest)")
    return {"title": "torch is a CPU-only build" + (f" ({value(facts, 'torch', 'version')})"
                                                    if value(facts, "torch", "cpu_build") else ""),
            "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"", cmd]}


@builds("torch_wheel_lacks_gpu_arch")
def _torch_lacks(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    groups = ev.get("groups") or {}
    arch = groups.get("arch") or (f"sm_{groups['cc'].replace('.', '')}" if groups.get("cc") else None)
    ccs = [g for g in value(facts, "driver", "gpus") or [] if isinstance(g, dict) and g.get("compute_capability")]
    if not arch and ccs:
        arch = f"sm_{str(ccs[0]['compute_capability']).replace('.', '')}"
    tv = value(facts, "torch", "version_base")
    variant = _variant_for_arch(arch, tv)
    return {"title": "The installed torch has no kernels for this GPU" + (f" ({arch})" if arch else ""),
            "commands": ["python -c \"import torch; print(torch.__version__, torch.cuda.get_arch_list())\"",
                         f"pip install --force-reinstall torch{('==' + tv) if tv and variant else ''} --index-url "
                         f"https://download.pytorch.org/whl/{variant or '<a CUDA variant built for the GPU>'}"]}


def _variant_for_arch(arch: str | None, torch_version: str | None) -> str | None:
    """The newest CUDA variant of this torch release (tables/torch_cuda.csv) for a new GPU (sm_100+ needs
    CUDA 12.8+); None when the table cannot say."""
    if not torch_version:
        return None
    tv = tables.torch_cuda_variants(torch_version)
    if tv is None or not tv.variants:
        return None
    n = int("".join(ch for ch in str(arch or "") if ch.isdigit()) or 0)
    if n >= 100:
        ok = [v for v in tv.variants if tables.version_key(f"{v[2:-1]}.{v[-1]}") >= tables.version_key("12.8")]
        return ok[-1] if ok else None
    if 0 < n < 75:  # CUDA 13 dropped Maxwell/Pascal/Volta
        ok = [v for v in tv.variants if v[2:-1] != "13"]
        return ok[0] if ok else None
    return tv.variants[-1]


@builds("companion_built_for_other_torch")
def _companion(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    tv = value(facts, "torch", "version_base")
    tc = value(facts, "torch", "cuda")
    idx = f"cu{str(tc).replace('.', '')}" if tc else "<cuXYZ>"
    who = "torchaudio" if "torchaudio" in str(ev.get("line") or "") else "torchvision"
    return {"title": f"{who} does not match the installed torch",
            "commands": ["python -c \"import torch, torchvision; print(torch.__version__, torchvision.__version__)\"",
                         f"pip install --force-reinstall torch=={tv or '<ver>'} {who}==<the matching release> "
                         f"--index-url https://download.pytorch.org/whl/{idx}"]}


@builds("gpu_below_extension_minimum")
def _gpu_old(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    return {"title": "The GPU is older than the extension supports",
            "commands": ["nvidia-smi --query-gpu=name,compute_cap --format=csv"]}


@builds("arch_list_value_rejected")
def _arch_rejected(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    arch = (ev.get("groups") or {}).get("arch") or ""
    return {"title": f"torch's extension builder does not know the arch {arch!r}" if arch else
            "torch's extension builder does not know this architecture",
            "commands": ["python -c \"import torch; print(torch.__version__)\"   # new GPUs need a newer torch",
                         'export TORCH_CUDA_ARCH_LIST="8.6"   # major.minor values (not sm_86) that this torch knows']}


@rule("torch")
def torch_messages(facts: Facts) -> Iterable[Finding]:
    """torch's own messages (tables/torch_messages.csv), CUDA errors by number, name or message
    (cuda_errors and the other enumerations, decided here for every layer), modules that cannot be imported,
    and a CPU build read in a text."""
    for ev in events(facts, "torch", "message", table="torch_messages"):
        yield from resolve(facts, ev)
    for ev in events(facts, "torch", "sign"):
        code = {"cpu_build": "cpu_only_torch_with_gpu", "gpu_dropped": "torch_wheel_lacks_gpu_arch",
                "oom": "cuda_oom", "companion": "companion_built_for_other_torch",
                "cuda_unavailable": "torch_cuda_unavailable"}.get(str(ev.get("sign")))
        if code:
            yield from resolve(facts, ev, [code])
    from smrnb.doctor.rules._abi import module_codes

    for ev in events(facts, "torch", "module_missing"):
        yield from resolve(facts, ev, module_codes(facts, ev))
    t = layer(facts, "torch")
    if t.get("cpu_build") and from_text(facts, "torch", "cpu_build"):
        line = (t.get("read_from") or {}).get("version", "")
        yield from resolve(facts, {"kind": "state", "from": "text", "weight": 22, "line": line,
                                   "fact": f"torch {t.get('version')}"}, ["cpu_only_torch_with_gpu"])
