# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the torch layer: CUDA build vs GPU, the wheel's arch list vs the GPU's capability."""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._codes import meanings, why
from smrnb.doctor._install import arch_covers, nvcc_archs
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor._printed import (
    _ANY_VARIANT,
    PIP_DISTRIBUTION,
    TORCH_RELEASE_KEPT,
    XFORMERS_FOR_TORCH,
    _variant_filled,
)
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._context import HOST_MEMORY_ROWS, host_memory_codes, layer
from smrnb.doctor.rules._driver import driver_platform, indexes_for_driver_cuda, torch_variants_for_driver
from smrnb.doctor.rules._events import (
    GIT_SUBMODULE_OVER_HTTPS,
    NVIDIA_CTK_BROKEN,
    _peek,
    builds,
    cut_at_word,
    events,
    from_text,
    has_sign,
    resolve,
    value,
)

CODES = meanings("rules.torch")  # this module's codes, from the one table (codes.py)


def _shell_quote(text: str) -> str:
    return shlex.quote(text)


def _newest_torch_for_driver(driver: str, platform: str = "linux") -> tuple[str, str] | None:
    """(torch major.minor, CUDA variant): the newest torch release of tables/torch_cuda.csv with a CUDA build that
    ``driver`` runs, and that build's newest variant; None where none does."""
    best = None
    for r in tables.rows("torch_cuda"):
        ok = torch_variants_for_driver(r["torch"], driver, platform)
        v = tables.parse_version(r["torch"])
        if ok and v and (best is None or v > best[0]):
            best = (v, r["torch"], ok[-1])
    return (best[1], best[2]) if best else None


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
    # torch's CUDA release known to be none (the probe's torch.version.cuda, a text's '+cpu' build): a text that names
    # a GPU and a torch version but not torch's CUDA says nothing of a CPU-only build (round 18b: 0 of 17 right)
    if gpus and "cuda" in torch and not torch.get("cuda") and not torch.get("hip"):
        cmds = []
        ok = torch_variants_for_driver(torch.get("version_base") or "", drv.get("driver_version") or "",
                                       driver_platform(facts))
        if ok:
            cmds.append(f"pip install --force-reinstall torch=={torch.get('version_base')} "
                        f"--index-url https://download.pytorch.org/whl/{ok[-1]}")
        elif drv.get("driver_version"):
            # (blind audit 30, L02) no CUDA build of this torch runs on this driver: the newest torch release with
            # one that does (tables/torch_cuda.csv), or a newer driver
            older = _newest_torch_for_driver(drv["driver_version"], driver_platform(facts))
            known = tables.torch_cuda_variants(torch.get("version_base") or "") is not None
            cmds.append(f"# no CUDA build of torch {torch.get('version_base')} runs on driver {drv['driver_version']}: "
                        "update the NVIDIA driver (needs root), or install an older torch:" if known else
                        f"# torch {torch.get('version_base')}'s CUDA builds are not in the doctor's table: the variant "
                        f"on pytorch.org that driver {drv['driver_version']} runs (nvidia-smi's 'CUDA Version' is its "
                        "newest CUDA), or:")
            if older:
                cmds.append(f"pip install --force-reinstall \"torch=={older[0]}.*\" --index-url "
                            f"https://download.pytorch.org/whl/{older[1]}   # the newest torch with a build this driver "
                            "runs")
        else:
            cmds.append("pip install --force-reinstall torch  # choose the CUDA variant on pytorch.org")
        yield Finding("cpu_only_torch_with_gpu", "torch", "warning", f"CPU-only torch {version} on a GPU machine",
                      (f"torch {version}: torch.version.cuda is None", f"GPU: {gpus[0].get('name')}"),
                      Fix(why("cpu_only_torch_with_gpu", f"Variants this driver runs: {', '.join(ok)}." if ok else "",
                              machine=not from_text(facts, "torch")),  # (blind audit 36, C-L12) no text: no "the text"
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
        listed = None if arch_list else _wheel_archs(torch)
        if listed:
            yield from _gpus_against_wheel(torch, gpus, version, listed, facts)
        elif not arch_list:
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


def _wheel_archs(torch: Mapping[str, Any]) -> tuple[str, list[int], int | None] | None:
    """(round 33) The GPU architectures PyTorch's release notes list for the wheel torch's version names
    (``2.11.0+cu130``: tables/torch_wheel_archs.csv): ``(variant, archs, ptx)``, or None for a conda or source build
    (no ``+cu`` variant) or a release the table lacks."""
    variant = tables.torch_wheel_variant(str(torch.get("version") or ""))
    got = tables.torch_wheel_archs(str(torch.get("version_base") or ""), variant) if variant else None
    return (variant, *got) if got else None


def _gpus_against_wheel(torch: Mapping[str, Any], gpus: list[Mapping[str, Any]], version: str,
                        listed: tuple[str, list[int], int | None], facts: Facts | None = None) -> Iterable[Finding]:
    """(round 33) Each GPU against the architectures of torch's wheel, where torch was not imported to read its own
    list (found on an H100 lent as the GPU server: the report said only that the list was not read)."""
    from smrnb.doctor._install import cc_to_int

    variant, archs, ptx = listed
    said = (f"torch {version}'s {variant} wheels carry sm_{' sm_'.join(map(str, archs))}"
            + (f" and PTX of compute_{ptx}" if ptx else "") + " (tables/torch_wheel_archs.csv: PyTorch's release "
            "notes and wheel build scripts)")
    decide = "not read from this torch's files: `smr-doctor --import-check` reads torch.cuda.get_arch_list()"
    for g in gpus:
        cc = g.get("compute_capability")
        n = cc_to_int(str(cc)) if cc else None
        if not n:
            continue
        ev = (f"GPU {g.get('name')}: compute capability {cc}", said, decide)
        runs = tables.wheel_runs(archs, ptx, n)
        if runs:
            yield Finding("torch_gpu_arch_ok", "torch", "ok",
                          f"torch {version} runs on {g.get('name')} (its wheels carry compute capability {cc})", ev)
        else:
            yield Finding("torch_wheel_lacks_gpu_arch", "torch", "error",
                          f"torch {version} has no kernels for {g.get('name')} (CC {cc})", ev,
                          Fix(why("torch_wheel_lacks_gpu_arch", "CUDA ops fail with 'no kernel image is available for "
                                  "execution on the device'."),
                              (_variant_filled("pip install --force-reinstall torch --index-url "
                                               f"https://download.pytorch.org/whl/{_ANY_VARIANT}", "", str(cc),
                                               facts),)))  # (round 37g) pinned to this torch and driver


# ------------------------------------------------------------------ torch's messages, read in a text or probed
def _hyphenated_module(ev: dict[str, Any], code: str) -> dict[str, Any] | None:
    """A missing module named with hyphens (``No module named 'napari-plugin-engine'``): a pip name that no import can
    find, asked for by the code (round 19a reads whose code: ``library_bug`` or ``user_code_error``); the words name it."""
    name = str(ev.get("pip_name") or "")
    if not (ev.get("dashed") and name):
        return None
    mod = name.replace("-", "_")
    who = "your code" if code == "user_code_error" else "the library's code"
    return {"title": f"{'Not your environment: ' if code == 'user_code_error' else ''}No module named '{name}': "
                     f"{who} asks for a pip name with hyphens, which no import can find (its module is '{mod}')",
            "commands": [f"python -c \"import {mod}\"   # the import name of the distribution {name}",
                         f"pip show {name}   # whether the distribution is installed at all"]}


@builds("user_code_error")
def _user_code(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor.rules._abi import (
        attribute_typo,
        attribute_typo_finding,
        bare_folder_fix,
        circular_on_released,
        defining_attribute_missing,
        misspelt_common_import,
        misspelt_finding,
        misspelt_import,
        module_file_in_package_place,
        module_owner_finding,
        shadow_finding,
        shadowed_package_finding,
        submodule_finding,
        submodule_not_imported,
        unix_or_kit_finding,
    )

    if sub := submodule_not_imported(ev):
        return submodule_finding(*sub, "user_code_error")
    if told := unix_or_kit_finding(facts, ev, "user_code_error"):  # (round 35a)
        return told
    if meant := attribute_typo(facts, ev):  # (round 34c)
        return attribute_typo_finding(str(ev.get("module")), meant)
    if shadowed := defining_attribute_missing(ev):  # (round 34c)
        return shadowed_package_finding(*shadowed)
    if ev.get("kind") == "module_missing" and not module_file_in_package_place(ev) and \
            circular_on_released(facts, ev, str(ev.get("module") or "").split(".")) is not None:
        # (round 35a; where Python's line names the user's file, round 35b's words name it: module_owner_finding)
        return shadowed_package_finding(str(ev.get("module")).split(".")[0], str(ev.get("module")).split(".")[1],
                                        circular=True)
    if bare := bare_folder_fix(ev):  # (round 27d)
        return bare
    if owned := module_owner_finding(facts, ev, "user_code_error"):
        return owned
    if ev.get("sign") == "shadow_file_said":
        return shadow_finding(str(ev.get("phrase") or "<name>"))
    if ev.get("sign") == "relative_import_in_cell":  # (round 35a) relative_import_in_cell
        stmt = str(ev.get("phrase") or "from . import x")
        return {"title": f"Not your environment: a notebook cell runs the relative import '{stmt[:80]}', which only "
                         "a module inside a package can run",
                "fix": "A relative import (from . / from ..) resolves against the package of the module that runs it; "
                       "a notebook cell (or a script run directly) has none, so Python refuses it whatever is "
                       "installed. Import the names from the installed package by its full name (from "
                       "<package>.utils import X), with that package installed in the kernel's Python.",
                "commands": ["# in the cell: from <package>.<module> import <name>   (not from ..<module> import ...)",
                             "%pip show <the package named>   # the package installed in this kernel"]}
    if ev.get("sign") == "option_value_not_int":  # (round 35a) option_value_not_int
        opt, _, val = str(ev.get("phrase") or "").partition(" ")
        return {"title": f"Not your environment: {ev.get('meaning')}",  # rules._torch.option_value_not_int's words
                "fix": f"Python's int() refused '{val}': the program parses {opt} as an integer. Pass the number it "
                       f"asks for (a task or dataset id: 101 rather than its folder name; a count), as its --help "
                       "and documentation name it.",
                "commands": ["<the program> --help   # what each option takes",
                             f"# the command again with {opt} <number>"]}
    if known := misspelt_import(facts, ev):  # (round 26b)
        return misspelt_finding(str(ev.get("module")), known)
    if known := misspelt_common_import(facts, ev):  # (round 35)
        return misspelt_finding(str(ev.get("module")), known, shown=False)
    if hyph := _hyphenated_module(ev, "user_code_error"):
        return hyph
    if ev.get("key") == "jupyter_subcommand_not_found" and ev.get("meant"):  # (round 27a) _what_a_row_installs
        sub, meant = str(ev.get("subcommand") or ""), str(ev["meant"])
        return {"title": f"Not your environment: jupyter has no subcommand '{sub}' (jupyter {meant} was meant: "
                         f"jupyter runs jupyter-<its first argument>)",
                "fix": f"jupyter looks for an executable named jupyter-{sub} because its first argument was '{sub}': "
                       f"the command's spelling, not a missing package; run jupyter {meant}.",
                "commands": [f"jupyter {meant}", "jupyter --help   # the subcommands installed beside this jupyter"]}
    if ev.get("key") == "torch_distributed_barrier_device_ids_not_nccl":  # (round 27a)
        backend = str((ev.get("groups") or {}).get("backend") or "gloo")
        return {"title": f"Not your environment: dist.barrier(device_ids=...) on the {backend} backend (device_ids is "
                         "NCCL's only)",
                "fix": f"barrier's device_ids argument exists for NCCL only; the process group runs {backend} (on "
                       "Windows and macOS torch has no NCCL, so DDP code written for Linux falls back to gloo): call "
                       "barrier() without device_ids, or on Windows train on one GPU or with DataParallel instead of "
                       "torch.distributed; on Linux with a CUDA torch, init_process_group(backend='nccl').",
                "commands": ["grep -rn \"barrier(device_ids\" --include=*.py .   # the call to change: dist.barrier()",
                             "python -c \"import torch.distributed as d; print(d.is_nccl_available(), "
                             "d.is_gloo_available())\"   # NCCL in this torch build?"]}
    if ev.get("key") == "unpack_count_mismatch" and value(facts, "torch", "shape_unpacked"):  # (round 30a)
        return _shape_unpack_fix(facts)
    if ev.get("kind") == "exception_in_package" and ev.get("own_call"):  # (round 29b) _exception_in_package_codes
        pkg, exc, call = str(ev.get("package") or "the package"), str(ev.get("exception")), str(ev["own_call"])
        kind = "type" if exc == "TypeError" else "value"
        return {"title": f"Not your environment: {pkg} refuses a {kind} your code passes it ({exc} in its frame, "
                         f"called by {cut_at_word(call, 80)})",
                "check": f"print the arguments of {cut_at_word(call, 60)} against {pkg}'s documentation of the call: "
                         f"a {kind} it does not take -> change the call; all as documented -> {pkg}'s bug",
                "fix": f"Python's {exc} means an argument of an inappropriate {kind}: {pkg}'s code raised it on what "
                       f"your call passed (directly, or through a config or data file it reads). Print the values just "
                       f"before the call and compare them with what {pkg}'s documentation of that release asks for "
                       "(None, a tensor for an array, a list for a tuple, a string for a number, a shape).",
                "commands": [f"python -m pdb -c continue {ev.get('own_file') or '<your script>'}   # stops at the error: "
                             "`up` to your frame, print the arguments"]}
    if ev.get("kind") == "own_code_exception" or ev.get("own_def"):  # (round 28a)
        return own_code_fix(ev, windows=value(facts, "context", "os") == "windows")
    what = ev.get("message") if ev.get("kind") == "cuda_error" else ev.get("meaning")
    name = f"{ev.get('name')}: " if ev.get("kind") == "cuda_error" else ""
    title = f"Not your environment: {name}{str(what or 'an error of the calling code').rstrip('.')}"
    groups = ev.get("groups") or {}
    evidence = [f"the assertion: {groups['assertion']}"] if groups.get("assertion") else []
    if ev.get("key") == "value_not_defined":
        title = (f"Not your environment: the build passes nvcc the value '{groups.get('value', '')}' for option "
                 f"'{groups.get('option', '')}', which is malformed or empty (an unset variable, a flag mangled in the "
                 "build script)")
    if ev.get("key") == "backend_not_linked":
        device = groups.get("device") or "this"
        title = (f"Not your environment: the code asks for the {device} device, which this process never set up (the "
                 "extension that registers it, e.g. intel_extension_for_pytorch for xpu, not imported; or code written "
                 "for another machine's GPU: cuda on an NVIDIA machine)")
    if ev.get("kind") == "pip_no_match" and ev.get("meant"):  # a project name one letter off a known package's
        pkg, meant = str(ev.get("package") or ""), str(ev["meant"]).replace("_", "-")
        return {"title": f"Not your environment: no index has a project '{pkg}' (a typo of '{meant}'?)",
                "commands": [f"pip install {meant}   # the package's own name", f"pip index versions {meant}"]}
    if ev.get("kind") == "pip_no_match" and "+" in str(ev.get("requested") or ""):  # (round 23) _torch_no_match_codes
        pkg, req = str(ev.get("package") or "torch"), str(ev.get("requested") or "")
        local = req.split("+", 1)[1]
        return {"title": f"Not your environment: the command asks PyPI for {pkg}=={req}, a local version (+{local}) "
                         "that only PyTorch's own index holds, and names no such index",
                "commands": [f"pip install {pkg}=={req} -f https://download.pytorch.org/whl/torch_stable.html",
                             f"pip install {pkg}=={req.split('+', 1)[0]} --index-url "
                             f"https://download.pytorch.org/whl/{local}   # the same build from its own index"]}
    if ev.get("key") == "autograd_anomaly_nan":  # (round 37e) anomaly mode's NaN in a backward function's output
        fn = str(groups.get("fn") or "the backward function")
        op = fn[:-len("Backward0")] if fn.endswith("Backward0") else ""
        return {"title": f"Not your environment: {fn} returned NaN (autograd's anomaly check): the values the code "
                         "computes, not the setup",
                "fix": str(ev.get("meaning") or ""),
                "commands": [f"# the forward operation of {fn}{f' ({op.lower()})' if op else ''}: print the min/max of "
                             "its input at the failing step (a log of 0 or of a negative: clamp it, x.clamp_min(1e-8))",
                             "# loss nan after some steps: a smaller learning rate, gradient clipping "
                             "(torch.nn.utils.clip_grad_norm_), and under AMP the loss computed in float32"]}
    if (said := _LIBRARY_SAYS_BUG.get(str(ev.get("key") or ""), {}).get("user_code_error")) is not None:
        return dict(said)  # (round 31c) the second reading of a library's own bug message
    if ev.get("key") in _USER_ROW_COMMANDS:  # a tool's check of its configuration or build command, not a CUDA kernel
        # (round 32d) rows of a tool's words for what was passed, set or run: their meaning is the fix, not a kernel's
        own = {"fix": str(ev.get("meaning") or "")} if ev.get("key") in _ROUND32D_ROWS and ev.get("meaning") else {}
        return {"title": cut_at_word(title, 200), "evidence": evidence, "commands": _USER_ROW_COMMANDS[str(ev["key"])],
                **own}
    return {"title": cut_at_word(title, 200), "evidence": evidence,
            "commands": ["CUDA_LAUNCH_BLOCKING=1 python <your script>   # the traceback then names the failing call",
                         "# on CPU the same code raises a readable error: run one batch with device='cpu'"]}


def _calling_package_commands(facts: Facts) -> list[str]:
    """(round 30a) What to run for the bug of the code that called an operation: the installed package of the
    traceback's last frame where the text shows one (not torch's own wrappers), else the releases to look through."""
    by = str(value(facts, "torch", "last_frame_package") or "")
    if by and by.lower() not in ("torch", "torchvision", "torchaudio", "numpy"):
        return [f"pip show {by}   # the release whose frame raised it, for its issue tracker",
                f"pip install --upgrade {by}   # a release with the fix, where the values passed fit its documentation"]
    # (round 38a, audit 36 B's t20) no package's frame shown: no upgrade of a package nobody named, what to check
    return ["pip list   # the releases of the libraries the traceback's frames belong to",
            "# check the traceback's frames: where the call that raised is in an installed package's file "
            "(site-packages/NAME/), upgrade that package (pip show NAME for its release and issue tracker); where "
            "it is in your own files, the other reading holds: the calling code is yours"]


def _shape_unpack_fix(facts: Facts) -> dict[str, Any]:
    """(round 30a) A shape unpacked into more (or fewer) names than the value has dimensions: the value's shape is what
    to look at; kaolin's mesh functions document batched tensors (docs/modules/kaolin.ops.mesh.rst: vertices of shape
    (batch_size, num_vertices, 3))."""
    src = str(value(facts, "torch", "shape_unpacked"))
    by = str(value(facts, "torch", "last_frame_package") or "")
    fix = (f"The failing line ({src[:100]}) unpacks a tensor's (or array's) shape into a fixed number of names, and "
           "the value has another number of dimensions: a batch dimension missing (one sample passed where a batch is "
           "expected) or added, or another layout. Print value.shape just before the call and compare it with what the "
           "function's documentation asks for.")
    if by == "kaolin":
        fix += (" kaolin's mesh functions take batched tensors: vertices of shape (batch_size, num_vertices, 3), "
                "faces (num_faces, 3); a single mesh's vertices go in as vertices.unsqueeze(0) (verts[None]).")
    return {"title": "Not your environment: the value passed has another number of dimensions than the code unpacks "
                     f"from its shape{' (kaolin takes batched tensors)' if by == 'kaolin' else ''}",
            "fix": fix, "check": "print(x.shape) for each tensor passed to the call, against its documented shape",
            "commands": ["# print(verts.shape, faces.shape) just before the call: (batch, V, 3) and (F, 3) for kaolin's "
                         "mesh ops" if by == "kaolin" else "# print(x.shape) just before the call your frame makes"]}


def _library_checkout(path: str) -> bool:
    """(round 28a) A frame's file in a source checkout of a library the doctor's tables know, its repository's folder
    holding its package's folder of the same name (``/src/jupyterhub/jupyterhub/singleuser.py``, installed in develop
    mode): the library's code, not the person's own."""
    from smrnb.doctor.rules._abi import _table_packages

    m = re.search(r"/([A-Za-z_][A-Za-z0-9_-]{1,60})/\1/", path)
    return bool(m) and m.group(1).replace("-", "_").lower() in _table_packages()


def _own_value_slip(ev: dict[str, Any], where: str, call: str) -> dict[str, Any] | None:
    """(round 35) The words of :func:`own_code_fix` for a slip with a value in the person's own frame: the recursion
    limit, an operation on None, an object indexed that has no item access; None for other events."""
    if ev.get("recursion"):  # (round 35b) the recursion limit, hit in the person's own function
        return {"title": f"Not your environment: a function of your code ({where}) calls itself without end",
                "fix": "Python stops a chain of calls at sys.getrecursionlimit() (1000 by default): the function in "
                       "the repeated frame recurses on data deeper than that, or never reaches its base case (a "
                       "property or __getattr__ that reads itself, a cycle in the data). Make it iterative or fix the "
                       "base case; sys.setrecursionlimit only helps where the depth is real and bounded.",
                "commands": [f"python -X faulthandler {ev.get('file') or '<your script>'}   # the repeated frame is "
                             "the function to look at"]}
    if ev.get("none_value"):  # (round 35b) an operation on None in the person's own frame
        what = f"reads .{ev['attribute']} of" if ev.get("attribute") else "uses"
        return {"title": f"Not your environment: your code ({where}) {what} a value that is None",
                "fix": "A variable in the failing line of your code holds None: a function that returns nothing (no "
                       "return, or a method that works in place such as list.sort()), a lookup that found nothing "
                       "(dict.get, re.match, a reader given a wrong path), or an optional setting left empty. Print "
                       "the values in that line, find which is None, and where it was assigned.",
                "commands": [f"python -m pdb -c continue {ev.get('file') or '<your script>'}   # stops at the error: "
                             "print the line's values"]}
    if ev.get("not_subscriptable"):  # (round 35a)
        cls = str(ev["not_subscriptable"])
        return {"title": f"Not your environment: {where} indexes a {cls.rsplit('.', 1)[-1]} object, which does not "
                         "support [ ] (it is not an array or a list)",
                "fix": f"Python raised TypeError because an object of class {cls} has no item access: take the array "
                       "or list it holds first (Open3D: np.asarray(cloud.points); PIL: np.array(image)), convert it "
                       "(list(generator)), or call the method before indexing its result (f()[0], not f[0]).",
                "commands": [f"# print(type(x), dir(x)) for the object indexed on the failing line"
                             f"{': ' + call[:100] if call else ''}"]}
    return None


def own_code_fix(ev: dict[str, Any], windows: bool = False) -> dict[str, Any]:
    """(round 28a) The title and what to look at for one of Python's built-in exceptions raised on the person's own
    values in their own code (``torch.own_code_exception``)."""
    where = str(ev.get("file") or "")
    where = "a notebook cell" if where == "<cell>" else (where.rsplit("/", 1)[-1] or "your code")
    call = str(ev.get("call") or "")
    if ev.get("path"):
        path = str(ev["path"])
        return {"title": f"Not your environment: the file '{path}' does not exist where {where} looks for it",
                "fix": f"{where} opens '{path}'" + (", a path relative to the folder Python runs in (not the "
                       "script's folder)" if not path.startswith(("/", "~")) and ":" not in path[:3] else "") +
                       ": the data is elsewhere, not downloaded yet, or the name is spelt otherwise. Run from the "
                       "folder the path is relative to, or give the full path.",
                "commands": [f"dir \"{path}\"   # from the folder you run Python in" if windows else
                             f"ls -la '{path}'   # from the folder you run Python in (pwd; os.getcwd() in a notebook)",
                             "python -c \"import os; print(os.getcwd())\"   # the folder a relative path starts from"]}
    if ev.get("key"):
        key = str(ev["key"])
        if ev.get("environ"):
            return {"title": f"Not your environment's install: the environment variable {key} is not set in the "
                             "process",
                    "fix": f"{where} reads os.environ['{key}'], which the shell (or .env file, service, notebook "
                           "kernel) that started Python does not set: export it first, or read it with "
                           f"os.environ.get('{key}', <default>).",
                    "commands": [f"echo $env:{key}   # empty: not set in this PowerShell" if windows else
                                 f"echo ${key}   # empty: not set in this shell",
                                 f"$env:{key} = \"<value>\"   # then run again from the same PowerShell" if windows else
                                 f"export {key}=<value>   # then run again from the same shell"]}
        return {"title": f"Not your environment: the key '{key}' is not in the dict {where} reads (its config or "
                         "data)",
                "fix": f"The dict {where} indexes ({call[:100] or 'its config or data'}) has no key '{key}': "
                       "the config file or data lacks it, or it is spelt or nested otherwise. Print the dict's keys "
                       "where it is read, or use .get() with a default.",
                "commands": [f"grep -rn \"{key}\" --include=*.py --include=*.yaml --include=*.yml --include=*.json "
                             ".   # where the key is set and read", "# print(sorted(cfg.keys())) just before the "
                             "failing line: the keys it has"]}
    if ev.get("data_file"):  # (round 30a) a JSON or YAML file the text names, broken where the parser stopped
        f, at, kind = str(ev["data_file"]), str(ev.get("data_at") or ""), str(ev.get("data") or "JSON")
        tool = f"python -m json.tool {f}" if kind == "JSON" else \
            f"python -c \"import yaml,sys; yaml.safe_load(open(sys.argv[1]))\" {f}"
        return {"title": f"Not your environment: the {kind} file {f.rsplit('/', 1)[-1]} is malformed "
                         f"({ev.get('data_msg')} at {at})",
                "fix": f"The {kind} parser stopped at {at} of {f}, the file the text names: its text breaks {kind} "
                       "there (" + ("a missing comma or bracket, a trailing comma, single quotes" if kind == "JSON" else
                                    "an indentation that does not line up, a tab, a ':' or '#' in an unquoted value") +
                       ", a file cut short while it was written). Repair or regenerate the file (the tool or script "
                       "that wrote it); no package to install.",
                "check": f"{tool}   # prints where it breaks",
                "commands": [f"{tool}   # the line and column where it breaks"]}
    if ev.get("reader"):  # (round 30a) OpenCV's reader returned None and the code used it as an array
        name, call = str(ev["reader"]), str(ev.get("reader_call") or "cv2.imread")
        lit = re.search(r"""(?:imread|VideoCapture)\(\s{0,4}(?:r|f)?["']([^"'\n{}]{1,200})["']\s{0,4}[,)]""",
                        str(ev.get("call") or "") + " " + str(ev.get("opened") or ""))
        video = call != "cv2.imread"
        return {"title": f"Not your environment: {call} returned None, and the code uses '{name}' as an image",
                "fix": (f"{call} returns (False, None) once the video has no frame left, or when the capture never "
                        "opened (a wrong path or camera index, a codec OpenCV's build lacks): check the returned flag "
                        "(if not ok: break) and cap.isOpened()." if video else
                        "cv2.imread does not raise for a file it cannot read: it returns None (a wrong or relative "
                        "path, a file that is not an image, a path with non-ASCII characters on Windows). Check the "
                        "path it was given, and test the result (if img is None: raise FileNotFoundError(path)).") +
                       f" The error is raised where '{name}' is first used as an array, not at the read.",
                "check": f"print the path given to {call} and os.path.exists(path) before the call",
                "commands": [(f"dir \"{lit.group(1)}\"" if windows else f"ls -la '{lit.group(1)}'") +
                             "   # from the folder you run Python in (a relative path starts there)" if lit else "python -c \"import os,sys; print(os.path.abspath(sys.argv[1]), "
                             "os.path.exists(sys.argv[1]))\" <the path>   # from the folder you run Python in"]}
    if (slip := _own_value_slip(ev, where, call)) is not None:  # (round 35)
        return slip
    if ev.get("json"):
        return {"title": f"Not your environment: the file {where} parses is not valid JSON (empty, HTML or another "
                         "format)",
                "fix": "json.load / json.loads raised on the file's contents: 'Expecting value: line 1 column 1 "
                       "(char 0)' is an empty file (or one that is not JSON at all: an HTML error page, a YAML or CSV "
                       "file); other positions point at the character that breaks it.",
                "commands": ["head -c 300 <the file>   # what it holds", "python -m json.tool <the file>   # the "
                             "first place the JSON breaks"]}
    if ev.get("own_def"):  # a signature_mismatch whose callee the text shows defined in the person's code
        name, callee = str(ev.get("name") or "the function"), str(ev.get("callee") or ev.get("name") or "")
        return {"title": f"Not your environment: the call passes {callee}() an argument its definition in your "
                         "code does not take",
                "fix": f"{name} is your own function (the text shows its definition outside any installed package): "
                       "the call and the def disagree. Add the parameter to the def (or **kwargs), or drop it from "
                       "the call; where two files define it, the one imported is not the one edited.",
                "commands": [f"grep -rn \"def {name}(\" --include=*.py .   # every definition: which one is imported",
                             f"python -c \"import inspect, <its module> as m; print(inspect.signature(m.{name}))\"   # "
                             "the signature Python sees"]}
    if ev.get("meant"):
        mod, meant = str(ev.get("module") or ""), str(ev["meant"])
        fixed = mod.rsplit(".", 1)[0] + "." + meant if "." in mod else meant
        return {"title": f"Not your environment: no module '{mod}', and the text shows your file {meant}.py (a name "
                         "one letter off)",
                "fix": f"The import names '{mod}' and your project has {meant}.py: the import (or the file) is "
                       f"misspelt; import {fixed}, or rename the file. No package to install: pip's '{mod}' would be "
                       "someone else's.",
                "commands": [f"grep -rn \"{mod}\" --include=*.py .   # the imports to correct to {fixed}",
                             f"python -c \"import {fixed}\"   # from the project's folder (the one holding it)"]}
    if ev.get("index"):
        return {"title": f"Not your environment: an index past the end of a sequence in {where}",
                "fix": "The code indexes a list (or tuple, string) at a position it does not have: indices run "
                       "from 0 to len - 1 (x[len(x)] is one past the end), or the list is shorter (empty) than the code "
                       "assumes.",
                "commands": [f"# print(len(seq)) just before the failing line{': ' + call[:100] if call else ''}"]}
    if ev.get("self_attr"):
        obj, attr = str(ev.get("object") or "the object"), str(ev.get("attribute") or "the attribute")
        return {"title": f"Not your environment: your class {obj} reads self.{attr}, which is never set on it",
                "fix": f"A method of {obj} in {where} reads self.{attr} and the object has none: __init__ (or the "
                       "method that should set it) does not assign it, assigns it under another name, or runs after "
                       "this one.",
                "commands": [f"grep -n \"self.{attr}\" --include=*.py -r .   # where it is set (self.{attr} = ...) "
                             "and read"]}
    if ev.get("circular"):
        mod = str(ev.get("module") or "the module")
        return {"title": f"Not your environment: two of your modules import each other ({mod} is imported while "
                         "it is still loading)",
                "fix": "The traceback's frames show the cycle: a module imports a name from another that imports "
                       "the first back before it has defined that name. Move one of the two imports into the "
                       "function that uses it, import the module (import a.b) instead of the name, or move the shared "
                       "code into a third module.",
                "commands": [f"grep -rn \"from {mod} import\\|import {mod}\" --include=*.py .   # the imports of the "
                             "cycle"]}
    if ev.get("undefined") and ev.get("name_meant"):  # (round 34c) Python's suggestion, one typo away
        name, meant = str(ev["undefined"]), str(ev["name_meant"])
        return {"title": f"Not your environment: the code uses the name '{name}', a misspelling of '{meant}'",
                "fix": f"Python raised NameError for '{name}' and suggests '{meant}', a name bound in that scope one "
                       f"letter apart: correct the spelling in the code (or, where '{name}' is another module's name, "
                       "import it).",
                "commands": [f"grep -rn \"{name}\" --include=*.py --include=*.ipynb .   # the line to correct"]}
    if ev.get("undefined"):  # (round 29b) Python's NameError in the person's own frame
        name = str(ev["undefined"])
        return {"title": f"Not your environment: {where} uses the name '{name}', which it never defines or imports",
                "fix": f"Python raised NameError: '{name}' is bound nowhere in the scope of the failing line "
                       f"({call[:100] or where}). Import it from the module that defines it, or define it before that "
                       "line; in a notebook, a cell that did so was not run in this kernel (Restart & Run All), or the "
                       "name is spelt otherwise.",
                "check": f"grep -n \"{name}\" in the failing file: no import or definition of it above the line",
                "commands": [f"grep -rn \"{name}\" --include=*.py --include=*.ipynb .   # where it is meant to be "
                             "imported or defined"]}
    return {"title": "Not your environment: an error of your own code or data", "commands": []}


#: what shows driver files baked into a container image, and the fix
_IMAGE_DRIVER_FILES = ["docker run --rm --entrypoint sh <image> -c 'ls -l /usr/lib/x86_64-linux-gnu/ | grep -e libnvidia "
                       "-e libcuda'   # driver files the image itself holds",
                       "# rebuild the image without them (no driver packages in its Dockerfile); the toolkit mounts the "
                       "host's at start"]
#: triton's lookup of the driver library: what it sees, and the release that looks for libcuda.so.1
_TRITON_LIBCUDA = ["ldconfig -p | grep libcuda   # the driver's libcuda.so.1, and whether an unversioned libcuda.so exists",
                   "pip install --upgrade triton   # later releases look for libcuda.so.1 (or set TRITON_LIBCUDA_PATH)"]
#: message rows whose user_code_error is a tool's check of its own configuration or command line: what to look at
#: (round 31c) rows of a library's own message saying the failure is its bug (numba's "This should not have happened",
#: JAX's "This is a bug in JAX's shape-checking rules; please report it!", pybind11's GIL check, CPython's check of a
#: C function's result, TorchDynamo's internal error), and of a release's own defect its words show (a GLFW older than
#: Apple Silicon, a file at the CI runner's path, a limit macro without its header, a folder that is no package): each
#: reading's words, the library's release first, the calling code's second, each with what decides
_LIBRARY_SAYS_BUG: dict[str, dict[str, dict[str, Any]]] = {
    "numba_internal_error": {
        "library_bug": {
            "title": "Numba says the failure is its own: a bug of its compiler in the installed release",
            "check": "the same function on the newest Numba (pip install -U numba llvmlite): it compiles -> the old "
                     "release's bug; it fails the same -> report it with a minimal reproducer, or rewrite the part the "
                     "traceback's lowering names",
            "fix": "Numba's compiler failed in its own code (a LoweringError or InternalError it marks as one to "
                   "report): install its newest release (with the llvmlite it pins), and report the error with a "
                   "minimal reproducer if it stays; compiling the function without the construct the message names "
                   "(or running it without @jit) works around it.",
            "commands": ["python -c \"import numba, llvmlite; print(numba.__version__, llvmlite.__version__)\"",
                         "pip install --upgrade numba llvmlite   # the newest release, with the llvmlite it pins"]},
        "user_code_error": {
            "title": "Else a feature of the function Numba does not support in nopython mode, reaching its "
                     "compiler's internals",
            "check": "the function without @jit (or with the construct the traceback's lowering step names removed): "
                     "it runs -> a construct Numba does not compile; report it all the same",
            "fix": "Numba's supported-Python list (the language features and NumPy calls nopython mode compiles) "
                   "against the function's code: rewrite the construct it lacks.",
            "commands": ["NUMBA_DISABLE_JIT=1 python <your script>   # the same code without Numba's compiler"],
            "severity": "info"}},
    "jax_shape_check_bug": {
        "library_bug": {
            "title": "JAX says its shape checks let through a computation XLA refuses: a bug of the jax release",
            "check": "the shapes in the message's first line against what the call documents: valid -> JAX's bug "
                     "(try the newest jax and jaxlib, report it); not -> the calling code's values",
            "fix": "XLA refused a computation that JAX's own shape rules accepted: install the newest jax with its "
                   "jaxlib (a later release checks or compiles it), and report it with the shapes if it stays.",
            "commands": ["python -c \"import jax, jaxlib; print(jax.__version__, jaxlib.__version__)\"",
                         "pip install --upgrade jax jaxlib"]},
        "user_code_error": {
            "title": "Else the shapes the code passes: XLA's words before JAX's name them",
            "check": "print the shapes of the call's arguments (jax.eval_shape) against what the operation takes",
            "fix": "The message's first line is XLA's: the operands' shapes it refused. Where they are not what the "
                   "operation takes, the calling code's values are wrong and JAX's check merely missed them.",
            "commands": ["python -c \"import jax; print(jax.eval_shape(<your function>, <its arguments>))\""],
            "severity": "info"}},
    "pybind11_gil_not_held": {
        "library_bug": {
            "title": "A compiled extension touched a Python object without holding the GIL: a bug of its C++ code",
            "check": "the extension the traceback or core dump names (gdb -ex bt, or faulthandler): a package's -> its "
                     "release; your own pybind11 module -> its code",
            "fix": "pybind11 aborted because an extension's C++ code (a thread of its own, a callback, a destructor "
                   "run at exit) changed a reference count without the GIL: a later release of that extension is the "
                   "fix; in your own module, hold py::gil_scoped_acquire around the Python objects it touches.",
            "commands": ["python -X faulthandler <your script>   # the frames at the abort name the extension",
                         "pip install --upgrade <that extension>"]},
        "user_code_error": {
            "title": "Else your own pybind11 module's C++ code, where you wrote the extension",
            "check": "the module at the abort's frames is yours -> acquire the GIL where it touches Python objects",
            "fix": "Where the extension is your own, wrap the code that creates, copies or destroys py::object values "
                   "outside Python's threads in py::gil_scoped_acquire (and release it only around pure C++ work).",
            "commands": ["python -X faulthandler <your script>"], "severity": "info"}},
    "cpython_null_without_error": {
        "library_bug": {
            "title": "A C extension's function broke CPython's calling convention: a bug of that extension's release",
            "check": "the object the SystemError names (its module): pip show it; the same call on its latest release",
            "fix": "CPython's SystemError names a compiled function that returned NULL without an exception (or a "
                   "result with one set): the extension owning it is at fault. Install its later release (or the "
                   "pair of releases its project pins, where it calls another compiled library), and report it if it "
                   "stays.",
            "commands": ["pip show <the package of the function the SystemError names>",
                         "pip install --upgrade --force-reinstall <that package>"]}},
    "nccl_unhandled_cuda_error": {  # (round 31c) rules._events._message_decides: torch's own process group
        "library_bug": {
            "title": "A CUDA call failed inside the NCCL torch loads: a bug of that NCCL release (a newer "
                     "nvidia-nccl wheel)",
            "check": "NCCL_DEBUG=INFO names the CUDA call and its error; python -c \"import torch; "
                     "print(torch.cuda.nccl.version())\" the NCCL release: a newer one fixes it -> its bug; the call "
                     "reports an old driver -> the driver",
            "fix": "torch's process group runs the NCCL its wheel installs (nvidia-nccl-cu12 / -cu11 / -cu13), built for "
                   "torch's own CUDA: a CUDA call failing inside it is mostly a bug of that NCCL release, fixed in a "
                   "later one (its release notes name it). Upgrade the nvidia-nccl wheel of torch's CUDA line, or "
                   "install the torch release that pins the fixed NCCL.",
            "commands": ["NCCL_DEBUG=INFO torchrun <your usual arguments>   # the CUDA call that failed, and NCCL's "
                         "version",
                         "python -c \"import torch; print(torch.version.cuda, torch.cuda.nccl.version())\"",
                         "pip install --upgrade nvidia-nccl-cu12   # the wheel of torch's CUDA line (cu11 / cu13 for "
                         "those builds)"]}},
    "github_release_asset_missing": {
        "library_bug": {
            "title": "The project's GitHub release has no such file: its maintainers' release (or the code's URL)",
            "check": "the release page of that tag (https://github.com/<owner>/<repo>/releases/tag/<tag>): the file "
                     "listed under another name -> the code's URL is stale (the project's updated code); absent -> "
                     "the maintainers' upload",
            "fix": "The code downloads a file from the project's GitHub release assets and that asset does not exist "
                   "(renamed, replaced, never uploaded, or another tag): update the project's code (its new URL), or "
                   "fetch the file by hand from the release that has it and put it where the code looks (torch hub: "
                   "~/.cache/torch/hub/checkpoints/).",
            "commands": ["curl -sIL <the URL the text shows> | head -1   # 404: the asset is not there",
                         "git pull   # in the project's checkout: its updated URL, if the maintainers fixed it"]}},
    "glfw_cocoa_no_service_port": {
        "library_bug": {
            "title": "The GLFW the package bundles cannot name this Mac's display: a GLFW release older than Apple "
                     "Silicon",
            "check": "uname -m: arm64 (Apple Silicon) -> the bundled GLFW's release (a later package release); x86_64 "
                     "-> a session without a display (SSH, a headless Mac)",
            "fix": "GLFW's macOS backend names displays through IOKit's IODisplayConnect services, which Apple Silicon "
                   "does not have: a package bundling such a GLFW (Open3D 0.10 and other releases of 2020) fails "
                   "there. Install a later release of the package that opens the window (it bundles a newer GLFW).",
            "commands": ["uname -m   # arm64: an Apple Silicon Mac",
                         "pip install --upgrade <the package that opens the window: open3d, ...>"]}},
    "ci_build_path_file_missing": {
        "library_bug": {
            "title": "The program opens a file at a path of the machine that built its release: its packaging's bug",
            "check": "the path begins with a CI runner's workspace (D:\\a\\<repo>\\<repo>\\, /home/runner/work/"
                     "<repo>/<repo>/): no file to create on this machine; the next release (or nightly) decides",
            "fix": "The file (a generated shader, a data or model file) is looked up where the release was built, a "
                   "GitHub Actions runner's workspace: the release was packaged without it or with its build-time "
                   "path compiled in. Install the next release (or nightly) with the fix, or build the program from "
                   "source, which generates the file and finds it.",
            "commands": ["# the path names the build machine's workspace, not yours: nothing to create here",
                         "# install the program's next release (or nightly), or build it from source"]}},
    "std_limit_macro_undeclared": {
        "library_bug": {
            "title": "The source uses a limit macro (FLT_MAX, INT_MAX...) without including its header: the "
                     "project's source, which newer toolkit headers no longer cover",
            "check": "grep the file the compiler names for #include <cfloat> / <climits>: absent -> the source's bug",
            "fix": "The macro comes from <cfloat> (FLT_*, DBL_*) or <climits> (INT_*, LONG_*); the source compiled "
                   "only while another header included it on the way, which this toolkit's (or compiler's) headers "
                   "no longer do. Add the #include to the files that use it and rebuild, or pull the project's fixed "
                   "source.",
            "commands": ["grep -rn -e FLT_MAX -e DBL_MAX -e INT_MAX --include='*.cu' --include='*.cpp' "
                         "--include='*.h' .   # the files that use it",
                         "# add #include <cfloat> (or <climits>) at the top of each, then rebuild"]}},
    "pip_directory_not_a_project": {  # (round 31c) rules._events._message_decides: not a submodule folder
        "library_bug": {
            "title": "Else the project's instructions install a folder that is no Python package: its repository's bug",
            "check": "git submodule status (in the project's checkout): the folder listed -> an empty submodule (the "
                     "first reading); not listed, and the repository's own copy of the folder has no setup.py or "
                     "pyproject.toml either -> the instructions' step is wrong (skip it, or install what it means)",
            "fix": "Where the folder is the project's own (no submodule) and its repository has no packaging file "
                   "there, the install step that runs pip on it is the project's mistake: skip it (its code is used "
                   "from the checkout), install the packages that folder needs from the project's requirements, and "
                   "tell the maintainers.",
            "commands": ["git submodule status   # an empty submodule is listed here", "git ls-files <that folder> | "
                         "head   # what the repository holds there"]}},
    "dynamo_internal_error": {
        "library_bug": {
            "title": "torch.compile's graph capture (TorchDynamo) failed in its own code: a bug of the torch release",
            "check": "the model without torch.compile: it runs -> torch's compiler (another torch release, or "
                     "suppress_errors meanwhile); it fails the same -> the model's code",
            "fix": "TorchDynamo raised InternalTorchDynamoError, its wrapper for an exception in its own tracing code: "
                   "a bug of the installed torch's compiler, which a later release may fix. Run without "
                   "torch.compile meanwhile, or let it fall back to eager for the graphs that fail.",
            "commands": ["pip install --upgrade torch   # a release whose compiler has the fix (torchvision/torchaudio "
                         "of the same line)",
                         "# meanwhile: import torch._dynamo; torch._dynamo.config.suppress_errors = True"]},
        "user_code_error": {
            "title": "Else the model's own code raises the wrapped exception while TorchDynamo traces it",
            "check": "the same forward without torch.compile: the wrapped exception again -> the model's code",
            "fix": "Where the model fails the same without torch.compile, the exception Dynamo wrapped is the model's "
                   "own: its frame in the traceback is what to change.",
            "commands": ["python <your script> with the torch.compile call removed   # the model's own error, if it "
                         "is one"], "severity": "info"}},
}


#: (round 32d) library_messages.csv rows whose meaning is the finding's fix (a tool's words for what the person passed,
#: set or ran: no CUDA kernel to find with CUDA_LAUNCH_BLOCKING)
_ROUND32D_ROWS = frozenset({
    "pybind11_cast_failed", "triton_interpreter_function", "option_run_as_command", "ipython_builtin_outside_ipython",
    "openmmlab_dataset_key_missing", "ctypes_argument_type", "transformers_quantized_model_other_config",
    "websocket_endpoint_opened_as_page", "gaussian_splatting_distorted_camera", "unity_gaussian_splat_ply_layout",
    "skimage_marching_cubes_no_surface", "isat_sam_checkpoint_missing", "dockerfile_workdir_empty",
    "instant_ngp_scene_file_as_network_config", "transform_size_assert"})
_USER_ROW_COMMANDS: dict[str, list[str]] = {
    # (round 28c) torch checks shapes and devices on the host before any kernel is launched: the error is raised
    # synchronously at the call the traceback names (no CUDA_LAUNCH_BLOCKING needed)
    "mat_shapes": ["# raised at the call the traceback's last frame of your code names, before any kernel runs: print "
                   "x.shape there and compare it with the layer's in_features (nn.Linear(in_features, ...))"],
    "two_devices": ["# raised at the call the traceback's last frame of your code names, before any kernel runs: print "
                    "each tensor's .device there and move them to one (model.to(device), x.to(device))"],
    # (round 30a) shape and index checks on the calling code's values: the shapes the message prints are what to read
    "cat_sizes_mismatch": ["# print([t.shape for t in tensors]) just before the torch.cat your frame calls: all sizes "
                           "but the concatenated dimension must agree (an input size the network's strides divide: a "
                           "multiple of 32 for most U-Nets)"],
    "index_out_of_bounds_dim": ["# print(len(x) or x.shape, i) just before the failing line: indices run 0 .. size-1 "
                                "(a loop reading x[i + 1] stops at range(len(x) - 1))"],
    "numpy_broadcast_shapes": ["# print(a.shape, b.shape) just before the failing line: shapes are compared from the "
                               "last dimension, each pair equal or 1 (an (H, W) mask on an (H, W, 3) image: "
                               "mask[..., None])"],
    "detectron2_dataset_not_registered": [
        "grep -rn \"register_coco_instances\\|DatasetCatalog.register\" --include=*.py .   # the registration: it must "
        "run before the trainer is built, in the process (and each worker) that builds it",
        "python -c \"from detectron2.data import DatasetCatalog; print(DatasetCatalog.list())\"   # names registered "
        "on import alone"],
    # (round 27c) the tools' own words for the calling code's mistake
    "mmcv_imread_not_array_or_path": ["# print the value passed to inference_detector / imread: a path string or a "
                                      "numpy array, not None or a PIL image",
                                      "python -c \"import os,sys; print(os.path.exists(sys.argv[1]))\" <the image path>"],
    "sam2_repository_parent_directory": ["cd sam2 && python <your script>   # from inside the clone (or from your home "
                                         "folder), not from the folder that holds it",
                                         "python -c \"import sam2; print(sam2.__file__)\"   # must be .../sam2/sam2/"
                                         "__init__.py or site-packages, not the clone's top folder"],
    "python_mangled_dunder_typo": ["grep -n \"__init(\\|__call(\\|__new(\" <the file of the frame>   # the special method "
                                   "without its trailing __: write __init__(...)"],
    "slurm_invalid_node_count": ["#SBATCH --nodes=1   # a number or min-max, then --ntasks-per-node=<n> / "
                                 "--cpus-per-task=<n> for PBS's ppn",
                                 "grep -rn \"ppn\" <the job template>   # a PBS/Torque form passed to sbatch"],
    # (round 27d) a COLMAP model with distorted cameras given to a Gaussian Splatting loader
    "gs_colmap_camera_not_undistorted": ["head -n 4 <the dataset>/sparse/0/cameras.txt   # the camera model (or: "
                                         "colmap model_converter --input_path <sparse/0> --output_path <sparse/0> "
                                         "--output_type TXT first)",
                                         "colmap image_undistorter --image_path <the dataset>/images --input_path "
                                         "<the dataset>/sparse/0 --output_path <the dataset>/undistorted "
                                         "--output_type COLMAP   # then train on <the dataset>/undistorted"],
    "llama_cpp_del_after_failed_init": ["ls -l <the model_path>   # relative to the folder the program runs in",
                                        "pip show llama-cpp-python   # GGUF files need 0.1.79 or later; GGML files an "
                                        "older release"],
    # (round 25a) a command line, a notebook file, a viewer's folder of the person's own
    "argparse_unrecognized_arguments": ["<the program> --help   # the options the installed release defines (the "
                                        "program is the name before ': error:')",
                                        "pip show <the program's package>   # its release: a README's command may be "
                                        "written for another one"],
    # (round 34b) a local server answering 404: the client's URL or port first to check
    "local_api_route_not_found": ["# the client's settings: the port and path must be the server's own (the server's "
                                  "console prints the address it listens on)",
                                  "curl -i http://127.0.0.1:<port>/<the route>   # <port>: the server's port; the same "
                                  "404 outside the client?"],
    # (round 34b) a setup.py option the checkout's setup.py does not take
    "setup_py_option_not_recognized": ["python setup.py --help install   # the options setuptools takes; the project's "
                                       "own are read from sys.argv in setup.py (grep -n argv setup.py)",
                                       "# a misspelt option: the README's build command, letter for letter"],
    "cli_invalid_or_misplaced_choice": ["<the program> --help   # the subcommands registered: a plugin's method "
                                        "appears once its package is installed (pip install -e . in its folder)",
                                        "# an option applies to the subcommand just before it: put a dataparser's "
                                        "options after the dataparser's name"],
    "nbformat_not_json_html": ["head -c 200 <the notebook>.ipynb   # '<!DOCTYPE html' is a saved web page",
                               "curl -L -o <the notebook>.ipynb https://raw.githubusercontent.com/<owner>/<repo>/"
                               "<branch>/<path>.ipynb   # the raw file (or git clone the repository)"],
    "nbformat_not_json": ["python -m json.tool <the notebook>.ipynb > /dev/null   # where its JSON breaks",
                          "git checkout -- <the notebook>.ipynb   # or download the file again"],
    "yacs_nonexistent_config_key": ["grep -n \"<the key's last part>\" <the config file>.yaml   # the key the file "
                                    "sets", "# a key the installed code does not define: remove it from the file, or "
                                    "install the code (a fork) the file was written for"],
    "sibr_gaussian_viewer_no_cfg_args": ["ls <the folder -m names>   # a training output holds cfg_args, "
                                         "point_cloud/ and cameras.json",
                                         "SIBR_gaussianViewer_app -m output/<run>   # the folder train.py wrote "
                                         "(its -m / --model_path)"],
    "nccl_watchdog_collective_timeout": ["NCCL_DEBUG=INFO TORCH_NCCL_TRACE_BUFFER_SIZE=2000 <the job>   # which rank "
                                         "did not enter the collective", "# every rank must call the same collectives "
                                         "in the same order: keep rank-0-only validation/saving outside them, then "
                                         "dist.barrier(); or init_process_group(timeout=timedelta(hours=2))"],
    "jupyter_notebook_not_utf8": ["file -i <notebook>.ipynb   # the encoding the file is in",
                                  "iconv -f cp1252 -t utf-8 <notebook>.ipynb > fixed.ipynb   # (the encoding file -i "
                                  "names) then open fixed.ipynb"],
    "checked_convert_overflow": ["# take the fill value from the tensor's own dtype: t.masked_fill(mask, "
                                 "torch.finfo(t.dtype).min), not -1e9 or torch.finfo(torch.float32).min",
                                 "python -c \"import torch; print(torch.finfo(torch.float16))\"   # the range half "
                                 "precision holds (+-65504)"],
    "dynamo_windows_unsupported": ["# run without compiling: remove the torch.compile call (or the project's compile "
                                   "option), or run on Linux / WSL2",
                                   "python -c \"import torch; print(torch.__version__)\"   # the release that refuses "
                                   "Windows"],
    "lightning_gpu_index_missing": ["python -c \"import torch; print(torch.cuda.device_count())\"   # the indices "
                                    "are 0..count-1", "echo $CUDA_VISIBLE_DEVICES"],
    "trtllm_mpi_size_mismatch": ["mpirun -n <tp_size x pp_size> python3 run.py ...   # one rank per GPU the engine "
                                 "was built for"],
    "pytorch3d_bin_overflow": ["# RasterizationSettings(bin_size=0, ...) or a larger max_faces_per_bin"],
    "value_not_defined": ["# print the build's nvcc command (make VERBOSE=1, cmake --build . -v) and find the option "
                          "whose value is empty or malformed"],
    "argument_redefined": ["# print the build's nvcc command (make VERBOSE=1, cmake --build . -v) and give the option "
                           "once"],
    "container_driver_file_in_image": _IMAGE_DRIVER_FILES,
    "torch_env_rendezvous_unset": ["torchrun --nproc_per_node=<GPUs> <script> ...   # sets RANK, WORLD_SIZE, "
                                   "MASTER_ADDR, MASTER_PORT"],
    "torch_distributed_no_nccl": ["python -c \"import torch, torch.distributed as d; print(torch.version.cuda, "
                                  "d.is_nccl_available())\"", "# on Windows / macOS: init_process_group('gloo')"],
    # (round 26b) an import order of the person's script
    "isaacgym_torch_imported_first": ["grep -n -e \"^import\" -e \"^from\" <the script>   # isaacgym's import must "
                                      "come before torch's and before every module that imports torch",
                                      "python -c \"import isaacgym, torch\"   # the order that works"],
    "torch_launch_local_rank_underscore": ["torchrun --nproc_per_node=<GPUs> <script> ...   # LOCAL_RANK in the "
                                           "environment, no --local_rank argument"],
    "python_class_name_undefined": ["grep -n 'import' <your script>   # where the class was to come from (a "
                                    "wildcard or guarded import)", "pip show <that package>   # the release, against "
                                    "the one the code (its examples, its requirements) was written for"],
    "jupyterlab_classic_notebook_js": ["%matplotlib widget   # ipympl's backend, in place of %matplotlib notebook"],
    # (round 32d) the tools' own words for what the person passed, set or ran (tables/library_messages.csv)
    "pybind11_cast_failed": ["# print(type(v), getattr(v, 'shape', None)) for each argument of the failing call: one "
                             "float where a number is asked (float(x), not a numpy array or Series), a list of the "
                             "element type the binding takes"],
    "triton_interpreter_function": ["env | grep TRITON_INTERPRET   # 1 selects the interpreter",
                                    "unset TRITON_INTERPRET   # (or TRITON_INTERPRET=0) before compiling or tuning "
                                    "kernels"],
    "option_run_as_command": ["singularity exec --nv -B /data:/data image.sif python script.py   # options before the "
                              "image", "docker run --gpus all image:tag python script.py   # options before the image"],
    "ipython_builtin_outside_ipython": ["from IPython.display import display   # at the top of the script",
                                        "# or the library's non-notebook mode (meshplot.offline()), or run it in "
                                        "Jupyter"],
    "openmmlab_dataset_key_missing": ["python -c \"import mmengine,sys; d=mmengine.load(sys.argv[1]); "
                                      "print(type(d), list(d)[:10] if isinstance(d, dict) else len(d))\" <ann_file>   "
                                      "# the keys the info file has",
                                      "python tools/create_data.py <dataset> --root-path <data> --out-dir <data>   # "
                                      "info files of this release"],
    "ctypes_argument_type": ["# print(type(a), a) for each argument of the call the traceback names: ints where the C "
                             "side takes integers (// not /, int(x)), no None or numpy scalars"],
    "transformers_quantized_model_other_config": ["python -c \"from transformers import AutoConfig; "
                                                  "print(AutoConfig.from_pretrained('<model>').quantization_config)\"   "
                                                  "# already quantized: load the unquantized model to quantize it"],
    "websocket_endpoint_opened_as_page": ["# open the URL the program prints for its page (the viewer link with "
                                          "?websocket_port=...), not the websocket port itself",
                                          "ssh -L 7007:localhost:7007 <user>@<server>   # <user>@<server>: your login on the "
                                          "machine the program runs on; its port forwarded to this one"],
    "gaussian_splatting_distorted_camera": ["python convert.py -s <scene> --skip_matching   # colmap image_undistorter: "
                                            "PINHOLE cameras in <scene>/sparse/0"],
    "unity_gaussian_splat_ply_layout": ["# choose <model>/point_cloud/iteration_<N>/point_cloud.ply, not input.ply"],
    "skimage_marching_cubes_no_surface": ["python -c \"import numpy as np; v=np.load('<volume>.npy'); "
                                          "print(v.min(), v.max())\"   # the level must lie between the two"],
    "isat_sam_checkpoint_missing": ["# download sam_vit_h_4b8939.pth (or the model chosen) from "
                                    "https://github.com/facebookresearch/segment-anything#model-checkpoints into the "
                                    "tool's checkpoints folder (segment_any/)"],
    "dockerfile_workdir_empty": ["grep -n \"WORKDIR\\|ARG\\|ENV\" Dockerfile   # the variable WORKDIR uses must be "
                                 "set by an ARG or ENV above it"],
    "transform_size_assert": ["# print(img.shape, seg.shape) for the record that fails (dataset_dict['file_name'] and "
                              "its sem_seg_file_name): each annotation must have its image's height and width"],
    "instant_ngp_scene_file_as_network_config": ["./instant-ngp --scene data/nerf/fox --network configs/nerf/base.json"
                                                 "   # the scene to --scene, a config of configs/nerf/ to --network"],
}


def _passed_values_library_bug(ev: dict[str, Any]) -> dict[str, Any]:
    """(round 29b) The second reading of a TypeError/ValueError raised in a package's frame that the person's own frame
    calls (_exception_in_package_codes): the package mishandling values its documentation allows."""
    pkg, exc, call = str(ev["package"]), str(ev.get("exception") or "an exception"), str(ev["own_call"])
    return {"title": f"{exc} raised inside {pkg} on values your code passes it: {pkg}'s bug where the call "
                     "fits its documentation",
            "check": f"{pkg}'s documentation of the call ({call[:80]}): the arguments fit it -> its bug (report it "
                     "with a minimal example; a later release may fix it); they do not -> the call is to change",
            "fix": f"The traceback ends inside the installed {pkg}, called by your {call[:100]}. Where the "
                   f"arguments are what {pkg}'s documentation asks for, its release mishandles them: search its "
                   "issue tracker for the message, try its latest release, report it with a minimal example.",
            "commands": [f"pip show {pkg}   # the release, for its issue tracker",
                         f"pip install --upgrade {pkg}   # its latest release: the same error -> report it"]}


def _generic_library_bug(ev: dict[str, Any]) -> dict[str, Any]:
    """(round 24) A generic exception raised in an installed package's own code with no code of the project's own
    calling it: a bug of its release; (round 29b) called from the person's own frame: _passed_values_library_bug."""
    if ev.get("own_call"):
        return _passed_values_library_bug(ev)
    pkg, exc = str(ev["package"]), str(ev.get("exception") or "an exception")
    return {"title": f"{exc} raised inside {pkg}'s own code, not the calling code's: a bug of its installed "
                     "release",
            "fix": f"The traceback ends inside the installed {pkg} and no code of the project's own calls it in the "
                   f"text: {pkg}'s release met a state it does not handle (its own bug, or a file its package left "
                   "out). Search its issue tracker for the message; a later release (or the one before) is the fix.",
            "commands": [f"pip show {pkg}   # the release, for its issue tracker",
                         f"pip install --upgrade {pkg}   # or the release before the one that fails"]}


def _round31c_library_bug(facts: Facts, ev: dict[str, Any], key: str, bug: Any) -> dict[str, Any] | None:
    """(round 31c) The words of the library_bug readings round 31c adds: a release the text says is broken, torch's
    two CUDA answers disagreeing, a crash at one package's import, a library's own message that it has a bug
    (_LIBRARY_SAYS_BUG), nvcc's second input from a folder with a space, classic-Notebook JavaScript of a package;
    None for other events."""
    if ev.get("sign") == "release_bug_said":  # (round 31c) release_bug_told: the text's verdict on a named release
        pkg, ver = str(ev.get("package") or "the package"), str(ev.get("version") or "")
        return {"title": f"{pkg} {ver}, the release the text says is broken: its bug (the release before, or a later "
                         "fixed one)",
                "check": f"pip install '{pkg}!={ver}' (the release before) with the same code: it works -> {pkg} {ver}'s "
                         f"bug; it fails the same -> the code's own reading",
                "fix": f"The text says {pkg} {ver} itself is broken ('{str(ev.get('phrase') or '')[:60]}'): install the "
                       f"release before it, or a later one whose notes name the fix; {pkg}'s issue tracker for that "
                       "release says which.",
                "commands": [f"pip show {pkg}   # the installed release", f"pip install '{pkg}!={ver}'   # pip picks "
                             f"the newest release other than {ver}; or pin the one before: pip install '{pkg}<{ver}'"]}
    if bug == "available_without_devices":  # (round 31c) available_without_devices
        return {"title": "torch says CUDA is available and counts no device: its two checks disagree, a bug of the "
                         "torch release",
                "check": "python -c \"import torch; print(torch.__version__, torch.cuda.is_available(), "
                         "torch.cuda.device_count())\" in a fresh process, then with PYTORCH_NVML_BASED_CUDA_CHECK=1: the "
                         "same disagreement -> torch's release (the one before, or a later fix); agreeing -> the "
                         "devices changed within the process",
                "fix": "torch.cuda.is_available() is answered from the device count (or NVML's under "
                       "PYTORCH_NVML_BASED_CUDA_CHECK=1), so a True beside a count of 0 is torch's own checks "
                       "disagreeing: a bug of the installed release (its issue tracker names the release to use). "
                       "Install the torch release before it, or the one with the fix.",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.cuda.is_available(), "
                             "torch.cuda.device_count())\"", "echo $CUDA_VISIBLE_DEVICES   # set before the first "
                             "CUDA call of the process, or not at all",
                             "pip install 'torch==<the release before>'   # or a later one with the fix"]}
    if bug == "import_crash":  # (round 31c) rules._loader._crash_readings
        pkg = str(ev.get("package") or "the package")
        top = pkg.split(".")[0]
        return {"title": f"The process crashed while `import {pkg}` loaded its native code: a broken binary of that "
                         "release",
                "check": f"python -X faulthandler -c \"import {pkg}\" alone, in a fresh environment: it crashes -> "
                         f"{top}'s release (the one before, or a later one); it imports -> another library loaded with "
                         "it clashes",
                "fix": f"The crash comes before any code of yours runs, while {pkg} loads its compiled modules: a "
                       f"binary of that {top} release that is broken on this system (its issue tracker names the "
                       "release to use), or one built for other releases of the libraries it links (torch, CUDA). "
                       "Install the release before it, or a later fixed one.",
                "commands": [f"python -X faulthandler -c \"import {pkg}\"   # the native frame that crashes",
                             f"pip show {top}   # the release, for its issue tracker",
                             f"pip install '{top}==<the release before>'   # or a later one with the fix"]}
    if (said := _LIBRARY_SAYS_BUG.get(key, {}).get("library_bug")) is not None:
        return dict(said)  # (round 31c) a library's own message saying the failure is its bug
    if key == "single_input_file" and ev.get("space_path"):  # (round 31c) rules._toolkit._symptom
        where = next((str(e.get("phrase") or "") for e in events(facts, kind="sign") if e.get("sign") == "workdir_space"),
                     "the build's folder")
        return {"title": f"The build passes its folder's path unquoted, and '{cut_at_word(where, 80)}' holds a space: "
                         "nvcc reads the two halves as two inputs",
                "check": "the same build in a folder without spaces: it compiles -> the unquoted path (the project's "
                         "build files); it fails the same -> an option nvcc does not parse",
                "fix": "The project's build files (CMakeLists.txt, a setup.py's nvcc command) put a path on nvcc's "
                       "command line without quotes, so a folder name with a space splits into two arguments: their "
                       "bug (report it). Move (or clone) the project to a path without spaces and build again.",
                "commands": ["git clone --recursive <the project's URL> C:\\src\\<project>   # a path without spaces",
                             "cmake --build build --config RelWithDebInfo -v   # the nvcc command, its unquoted path"]}
    if key == "jupyterlab_classic_notebook_js":  # (round 31c) the package that writes the JavaScript
        return {"title": "Or a package writes this JavaScript (on its import or its display): its release supports "
                         "only the classic Notebook",
                "check": "the cell that prints it: only an import or a package's own display call -> the package's "
                         "JavaScript; your own %%javascript / display(Javascript(...)) or %matplotlib notebook -> "
                         "the code's",
                "fix": "Where the error appears when a package is imported or shows its output (no JavaScript of "
                       "your own, no %matplotlib notebook), the package writes JavaScript for the classic Notebook's "
                       "global objects: a later release of it that checks the front end, or the classic Notebook "
                       "(nbclassic), is the fix; its issue tracker says which.",
                "commands": ["pip show <the package imported in that cell>   # the release, for its issue tracker",
                             "pip install --upgrade <that package>   # or run it in the classic Notebook: "
                             "pip install nbclassic && jupyter nbclassic"], "severity": "info"}
    return None


def _gpu_code_release_bug(ev: dict[str, Any], key: str, bug: Any) -> dict[str, Any] | None:
    """library_bug's finding where GPU code of a release is at fault: triton's CUDA-to-PTX map one version ahead of its
    ptxas, NCCL's own CUDA call, a kernel that faulted; None for another event."""
    if bug == "triton_ptx_map":  # (round 32g) rules._toolkit.build_messages
        g = ev.get("groups") or {}
        return {"title": f"triton wrote PTX ISA {g.get('ver') or '8.x'} for a ptxas that knows {g.get('cur') or 'one less'}:"
                         " the installed triton release maps this CUDA to one PTX version too many",
                "fix": "triton derives the PTX .version it writes from the release of the ptxas it runs; its releases "
                       "before the fix map CUDA 12.x to PTX 8.x, while CUDA 12.6's ptxas knows PTX 8.5 (12.8's 8.7, "
                       "12.9's 8.8). Install the triton release with the fix (the one a newer torch pins), or point "
                       "TRITON_PTXAS_PATH at a ptxas of CUDA 12.5 or older.",
                "commands": ["pip show triton torch   # the triton release; torch pins its own",
                             "pip install --upgrade triton   # a release whose CUDA-to-PTX map knows this CUDA",
                             "export TRITON_PTXAS_PATH=/usr/local/cuda-12.4/bin/ptxas   # or a ptxas its map knows"]}
    if ev.get("kind") == "cuda_error" and ev.get("inside") == "nccl":  # (round 32g) rules._driver.driver_events
        return {"title": f"{ev.get('name') or 'A CUDA error'} of a CUDA call NCCL makes itself: a bug of the NCCL "
                         "release",
                "fix": "NCCL's own CUDA check (its 'Cuda failure' line under 'Last error:') failed with an invalid "
                       "argument in a call NCCL builds from its own communicator: that NCCL release's bug (or its "
                       "interplay with a feature such as a custom all-reduce). Install a newer NCCL (the "
                       "nvidia-nccl-cu* wheel torch uses, or the system libnccl2 the program loads), or turn off the "
                       "feature that triggers it; NCCL_DEBUG=INFO names the call.",
                "commands": ["python -c \"import torch; print(torch.cuda.nccl.version())\"   # the NCCL torch loads",
                             "pip install --upgrade nvidia-nccl-cu12   # a newer NCCL for torch's CUDA 12 wheels",
                             "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL <your command>   # the call that failed"]}
    if ev.get("kind") == "cuda_error" and not key:  # a kernel's fault (an enum whose readings include a release's bug)
        return {"title": f"{ev.get('name') or 'A CUDA error'}: a bug of the kernel that faulted (a release of torch or "
                         "of the extension that launched it)",
                "fix": "A GPU kernel faulted: where the inputs are valid, the kernel of the release that launched it "
                       "(torch's or an extension's) is at fault; compute-sanitizer names the kernel, and that package's "
                       "other release (its issue tracker) is the fix.",
                "commands": ["CUDA_LAUNCH_BLOCKING=1 compute-sanitizer --tool memcheck python <your script>   # the "
                             "kernel and the bad access",
                             "pip show torch <the extension>   # the releases, for their issue trackers; try another"],
                # behind the calling code's reading (an enum whose first reading is user_code_error) it is no failure
                # of the environment either: a note, as that first reading, so the exit status stays 0
                **({"severity": "info"} if list(ev.get("codes") or [])[:1] == ["user_code_error"] else {})}
    return None


@builds("library_bug")
def _library_bug(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor.rules._abi import (
        comfyui_core_fix,
        comfyui_core_missing,
        module_owner_finding,
        submodule_finding,
        submodule_not_imported,
        unix_or_kit_finding,
    )

    key, bug = str(ev.get("key") or ""), ev.get("bug")
    if told := unix_or_kit_finding(facts, ev, "library_bug"):  # (round 35a)
        return told
    if comfyui_core_missing(ev):  # (round 34b) the custom node importing what no ComfyUI has
        return comfyui_core_fix(str(ev.get("module") or ""), "library_bug")
    if sub := submodule_not_imported(ev):
        return submodule_finding(*sub, "library_bug")
    if key == "unpack_count_mismatch" and value(facts, "torch", "shape_unpacked"):  # (round 30a)
        by = str(value(facts, "torch", "last_frame_package") or "the library")
        return {"title": f"Else {by}'s own handling of a value of the documented shape (its release's bug)",
                "check": f"the shape of each tensor passed against {by}'s documentation of the call: as documented "
                         f"-> {by}'s bug (its issue tracker, another release); not -> the calling code's value",
                "fix": f"Only where the values passed have the shapes {by}'s documentation of that release asks for "
                       "does the unpacking in its frame point at its own code: report it with the shapes printed.",
                "commands": [f"pip show {by}   # the release, for its documentation and issue tracker"],
                "severity": "info"}  # behind the calling code's reading, no failure of the environment either
    if owned := module_owner_finding(facts, ev, "library_bug"):
        return owned
    if ev.get("kind") == "pip_no_match" and ev.get("meant") and ev.get("required_by"):  # (round 34a) _misspelt_released
        return _misspelt_dependency_fix(ev)
    if (hyph := _hyphenated_module(ev, "library_bug")) or (hyph := _round31c_library_bug(facts, ev, key, bug)):
        return hyph
    if key.startswith("mps_") or bug == "mps_crash":
        op = key in ("mps_op_not_implemented", "mps_dtype_unsupported", "mps_bfloat16_unsupported")
        return {"title": ("torch's MPS backend lacks this operation in the installed release" if op else
                          "The process crashed in torch's MPS (Apple GPU) backend: a bug of that backend"
                          if bug == "mps_crash" or not key.startswith("mps_") else
                          "A bug of torch's MPS (Apple GPU) backend in the installed release"),
                "commands": ["python -c \"import torch; print(torch.__version__)\"",
                             "pip install --upgrade torch   # MPS gains operators and fixes in every release; or the "
                             "nightly: pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cpu",
                             "PYTORCH_ENABLE_MPS_FALLBACK=1 python <your script>   # run the missing operators on the CPU"
                             if op else "python <your script> with device='cpu'   # the same code without MPS decides"]}
    if key.startswith("bnb_"):
        return {"title": "bitsandbytes cannot load a CUDA binary of its own (an older release without one for this "
                         "CUDA or OS, or the CUDA runtime not found)",
                "commands": ["python -m bitsandbytes   # which CUDA it detected and which binary it looked for",
                             "pip install --upgrade bitsandbytes   # newer releases ship binaries for more CUDA versions "
                             "and for Windows"]}
    if key == "thrust_sync_failed":
        algo = (ev.get("groups") or {}).get("algo") or "an algorithm"
        return {"title": f"A fault inside thrust/CUB's {algo}: a bug of the thrust/CUB release the extension was "
                         "built with, or the arguments it was given",
                "commands": ["compute-sanitizer --tool memcheck python <your script>   # the kernel and the bad access",
                             "nvcc --version   # the toolkit whose thrust/CUB the extension was compiled with",
                             "# rebuild the extension with another CUDA toolkit (a newer 11.x/12.x) and rerun"]}
    if ev.get("generic") and ev.get("package"):  # (round 24) a generic exception raised in an installed package
        return _generic_library_bug(ev)
    if ev.get("kind") == "sdist_file_missing":  # (round 26b) a source distribution without a file its setup.py reads
        pkg, file = str(ev.get("package") or "the package"), str(ev.get("file") or "a file")
        return {"title": f"{pkg}'s source distribution lacks {file}, which its own setup.py reads: the release was "
                         "packaged without it",
                "fix": f"pip downloaded {pkg}'s source distribution and ran its setup.py, which opens {file} from its "
                       "own folder; the archive does not hold it (its MANIFEST.in or build backend left it out). "
                       "Nothing on this machine provides it: install a release that ships a wheel or packages the "
                       "file (the one before, or a later fix), or install from the project's repository.",
                "commands": [f"pip download --no-deps --no-binary :all: {pkg}   # the source archive: its file list "
                             f"(tar tzf / unzip -l) has no {file}",
                             f"pip install '{pkg}!=<the failing release>'   # or: pip install "
                             f"git+https://github.com/<owner>/{pkg}"]}
    if ev.get("kind") == "signature_mismatch" and ev.get("caller_package"):  # (round 26b) rules._abi
        from smrnb.doctor.rules._abi import caller_package_fix

        return caller_package_fix(facts, ev, "library_bug")
    if ev.get("kind") == "class_attribute_missing" and ev.get("project_class"):
        from smrnb.doctor.rules._abi import project_class_fix

        return project_class_fix(facts, ev, "library_bug")
    if ev.get("sign") == "release_breaks_said":  # (round 24) the second reading of release_breaks_told
        pkg = str(ev.get("package") or "the package")
        return {"title": f"A bug of the {pkg} release the text names",
                "fix": f"Where the calling code uses {pkg}'s API as documented, the release the text names broke it: "
                       "its issue tracker, and its later release (or the one before), are the fix.",
                "commands": [f"pip show {pkg}   # the installed release", f"pip install --upgrade {pkg}   # a release "
                             "with the fix, or the one before"]}
    if bug == "regression" and not ev.get("package") and ev.get("sign") == "regression_said" and ev.get("vague"):
        return {"title": "A failure that began with an update (the text says the same setup worked before): the new "
                         "release's bug, or a package it changed",
                "fix": f"The text says it worked before ('{str(ev.get('phrase') or '')[:80]}'): what changed since "
                       "decides. An update (pip, conda, git pull of the project) brought a release with a bug (its "
                       "issue tracker names the fix), or one another package was not written for. Compare the "
                       "releases installed now with the ones that worked; going back to those is the quick fix.",
                "commands": ["pip list   # the releases installed now; conda list --revisions shows what changed",
                             "git log -3 --oneline   # in the project's folder, after a git pull: the commits it "
                             "brought",
                             "pip install '<the package>==<the release that worked>'   # or a later release with the "
                             "fix"]}
    if bug == "regression" and not ev.get("package") and ev.get("sign") == "regression_said":
        return {"title": "A failure that began with a release: that release's bug (the text names a release that works)",
                "fix": "The text says an earlier release (or another one) of the software works: the failing release "
                       "has a bug (a regression). Install the release that works, or a later one with the fix (its "
                       "issue tracker names it).",
                "commands": ["pip list   # the installed releases: find the package the error names (its module, "
                             "import or frame)",
                             "pip install '<the package>==<the release the text says works>'   # or a later release "
                             "with the fix"]}
    if bug == "regression":
        pkg = ev.get("package") or "<the package>"
        return {"title": f"A crash that began with a release of {pkg if ev.get('package') else 'a library'}",
                "commands": [f"pip show {pkg}   # the release that crashes",
                             f"pip install --upgrade {pkg}   # a release with the fix, or: pip install '{pkg}==<the "
                             "release before>'"]}
    if (gpu := _gpu_code_release_bug(ev, key, bug)) is not None:
        return gpu
    if bug == "wheel_lacks_dll":  # rules.loader: Windows' DLL load failed for a package's own compiled module
        mod = ev.get("module") or "the module"
        return {"title": f"The package's build of {mod} lacks a DLL it needs (its release's packaging)",
                "fix": f"The installed release of the package that ships {mod} does not bring a DLL its compiled module "
                       "needs (a Visual C++ runtime it neither bundles nor links statically, a library left out of the "
                       "wheel): a later release of the package that ships it is the fix; installing the missing "
                       "runtime (the Visual C++ Redistributable) works around it.",
                "commands": ["pip show <the package>   # the release, for its issue tracker",
                             "pip install --upgrade <the package>",
                             "# or install the latest Visual C++ Redistributable (x64) from Microsoft"]}
    if ev.get("kind") == "message" and list(ev.get("codes") or [])[:1] == ["user_code_error"] and \
            has_sign(facts, "code_unchanged_said"):
        meaning = str(ev.get("meaning") or "an error of the calling code").rstrip(".")
        return {"title": cut_at_word(f"The project's own code, unchanged as the text says, fails: {meaning}", 200),
                "fix": "The message lays the error on the calling code, and the person runs the project's code as "
                       "published: a bug of that code, or code written for other releases of its libraries (torch's "
                       "checks grow stricter); the project's issue tracker and the releases its requirements name "
                       "decide.",
                "commands": ["pip list   # the releases in use, against the project's requirements file",
                             "git log -1 && git status   # the project's revision, and that nothing is changed"]}
    if ev.get("kind") == "message" and list(ev.get("codes") or [])[:1] == ["user_code_error"] and \
            key not in _BUG_ROW_COMMANDS:
        # (round 22) a misuse the message lays on the calling code (tensors on two devices), read second as the bug of
        # the code that called: a project's or a library's the person runs, not their own; no failure of the
        # environment either, so a note like the first reading
        meaning = str(ev.get("meaning") or "an error of the calling code").rstrip(".")
        return {"title": cut_at_word("Not your environment either way: where the calling code is a project's or a "
                                     f"library's you run (the traceback's frames), its bug: {meaning}", 200),
                "fix": "The message lays the error on the code that called the operation; where that code is not "
                       "yours (the traceback's innermost frames are a project's or an installed library's files), it "
                       "is that code's bug: its issue tracker, or its fixed release, is the fix.",
                "commands": _calling_package_commands(facts), "severity": "info"}
    return _library_bug_by_row(facts, ev, key)


def _misspelt_dependency_fix(ev: dict[str, Any]) -> dict[str, Any]:
    """(round 34a) A release's requirements naming a dependency one letter off a released project's name."""
    pkg, meant, by = str(ev.get("package") or ""), str(ev["meant"]).replace("_", "-"), str(ev["required_by"])
    return {"title": f"{by}'s release names its dependency '{pkg}', which no index has: a misspelling of "
                     f"'{meant}' in its metadata",
            "fix": f"The {by} release requires '{pkg}', a project no index holds, one letter off '{meant}': a typo "
                   f"in its requirements (pyproject.toml / setup.py). Install the release of {by} that fixes it; "
                   f"meanwhile install {by} without its dependencies and '{meant}' by hand.",
            "commands": [f"pip index versions {by}   # a newer release may fix its requirements",
                         f"pip install --no-deps {by} && pip install {meant}"]}


def _library_bug_by_row(facts: Facts, ev: dict[str, Any], key: str) -> dict[str, Any]:
    """:func:`_library_bug`'s readings of a message row: a release's own setting or kernel (round 34a), the NVIDIA
    Container Toolkit release the text shows, a row's own commands, else a library's internal check."""
    if key in _BUG_ROW_TITLES:  # (round 34a) a release's own setting or kernel the row names
        title, commands = _BUG_ROW_TITLES[key]
        return {"title": title, "detail": str(ev.get("meaning") or ""), "commands": commands}
    if ev.get("table") == "container_messages" and (ctk := str(value(facts, "context", "nvidia_ctk_version") or "")) \
            in NVIDIA_CTK_BROKEN:  # (round 34a) rules._events.NVIDIA_CTK_BROKEN
        return {"title": f"NVIDIA Container Toolkit {ctk}: {NVIDIA_CTK_BROKEN[ctk]}",
                "fix": f"The NVIDIA Container Toolkit {ctk} installed on the host has a bug that stops GPU containers "
                       "from starting (its hook creating the container's symlinks). Install its fixed release (the "
                       "nvidia-container-toolkit and nvidia-container-toolkit-base packages), regenerate the CDI "
                       "specification, and start the container again.",
                "commands": ["nvidia-ctk --version; nvidia-cdi-hook --version   # the installed release",
                             "sudo apt-get install --only-upgrade nvidia-container-toolkit nvidia-container-toolkit-base"
                             "   # (dnf upgrade on RPM systems) 1.17.1 or later",
                             "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml   # the CDI spec of the "
                             "new release"]}
    if key in _BUG_ROW_COMMANDS:
        return {"title": _row_title(ev), "detail": str(ev.get("meaning") or ""), "commands": _BUG_ROW_COMMANDS[key]}
    where = (ev.get("groups") or {}).get("file")
    return {"title": "A library's internal check failed: a bug in the library" + (f" ({where})" if where else ""),
            "commands": ["pip show torch   # the release, for the issue tracker",
                         "pip install --upgrade torch   # or the release before the one that broke"]}


#: (round 34a) message rows whose library_bug reading is a release's own setting or kernel: its title and commands
_BUG_ROW_TITLES: dict[str, tuple[str, list[str]]] = {
    "cycles_illegal_address": (
        "A Cycles render kernel faulted: a bug of that Blender/Cycles release with this scene (or an unstable GPU)",
        ["blender --version   # the release, for Blender's bug tracker (search the kernel names in the message)",
         "# render the same scene with another Blender release, or with the GPU at its reference clocks (no "
         "overclock): it renders -> that release's bug / the overclock"]),
    "git_submodule_ssh_url": (
        "The project's .gitmodules names a submodule by an SSH URL (git@host:...): its setting, which only works with "
        "an SSH key", GIT_SUBMODULE_OVER_HTTPS),
    "nvidia_cdi_hook_unexpected_link_target": (
        "NVIDIA Container Toolkit 1.17.0's create-symlinks hook refuses a symlink the image already has: that "
        "release's bug (fixed in 1.17.1)",
        ["nvidia-ctk --version; nvidia-cdi-hook --version   # the installed release",
         "sudo apt-get install --only-upgrade nvidia-container-toolkit nvidia-container-toolkit-base   # 1.17.1 or "
         "later (dnf upgrade on RPM systems)",
         "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml   # the CDI spec of the new release"]),
    "bazel_external_package_missing": (
        "The project's BUILD files name a package its pinned external repository does not have: a bug of that "
        "release's build",
        ["git log -1 --oneline; git describe --tags   # the release being built, for its issue tracker",
         "bazel clean --expunge   # drop a partly fetched external repository, then build again",
         "# build the release after it (or the dependency revision its fix pins); no --override_repository to "
         "another checkout"]),
}
#: message rows whose library_bug is a release of one named library or tool (not torch's internal check): what to run
_BUG_ROW_COMMANDS: dict[str, list[str]] = {
    # (round 35c) setuptools' automatic discovery refusing a project root of several top-level folders (setuptools 61+)
    "setuptools_flat_layout_discovery": [
        "# the project's setup.py: packages=find_packages(include=['<its package>*']) (or [tool.setuptools.packages."
        "find] include = [...] in pyproject.toml); or its release that declares its packages",
        "pip install 'setuptools<61' && pip install --no-build-isolation <the project>   # the build as before 61"],
    # (round 35c) a requirement, a pyproject.toml field or a build backend of the project that the setuptools (or
    # backend) in its build does not accept: the project's pin or metadata where the tool is current
    "setuptools_invalid_requirement_specifier": [
        "pip install -U pip setuptools   # a marker an old setuptools cannot read; then install again",
        "pip install 'setuptools<66' && pip install --no-build-isolation <the package>   # a malformed requirement "
        "a newer setuptools refuses (or the package's release that fixed it)"],
    "setuptools_pyproject_config_invalid": [
        "pip install -U setuptools && pip install --no-build-isolation <the project>   # a field form of a newer "
        "setuptools (PEP 639 license strings: 77+)",
        "# else the project's pyproject.toml field is wrong: its release that fixed it"],
    "pip_backend_lacks_build_editable": [
        "pip install -U pip 'setuptools>=64'   # PEP 660 editable builds; where the project pins an older backend in "
        "build-system.requires, that pin is its bug",
        "pip install <the project folder>   # without -e: a regular install needs no build_editable hook"],
    # (round 35c) setuptools 77+ refusing License :: classifiers beside a PEP 639 license expression
    "setuptools_license_classifiers_superseded": [
        "# the project's pyproject.toml: remove the 'License ::' classifiers (license = \"...\" says it); or its "
        "release that did",
        "pip install 'setuptools<77' && pip install --no-build-isolation <the project>   # the build as before 77"],
    # (round 29, blind audit 29) torch.compile's backend failing in its own code (tables/torch_messages.csv)
    "inductor_internal_error": [
        "pip show torch   # the release, for pytorch/pytorch's issue tracker (search the assertion's line)",
        "pip install --upgrade torch   # a release whose compiler has the fix (torchvision/torchaudio with it, of the "
        "same line)",
        'TORCH_LOGS="+dynamo" TORCHDYNAMO_VERBOSE=1 python <your script>   # the full log for a bug report',
        "# meanwhile run the model without torch.compile, or before the compiled call: import torch._dynamo; "
        "torch._dynamo.config.suppress_errors = True   (eager for the graphs that fail, as torch's message says)"],
    # (round 29, blind audit 29) setuptools 70 no longer exposes pkg_resources' vendored packaging, which the code
    # (torch 2.1's cpp_extension, a package's setup.py) imports (tables/library_messages.csv's row and its source)
    "setuptools_pkg_resources_packaging_removed": [
        "pip show setuptools   # 70 or later no longer has pkg_resources.packaging",
        'pip install "setuptools<70"   # then run the build again with --no-build-isolation (an isolated build '
        "installs the newest setuptools for itself); or a release of the importing package that imports packaging "
        "directly (torch 2.2 and later for torch.utils.cpp_extension)"],
    # (round 34b) a package built on Warp launching a Warp kernel with another signature than the installed Warp's
    "warp_launch_argument_count": ["pip show warp-lang <the package whose frame called wp.launch>   # the two releases",
                                   "pip install 'warp-lang==<the release that package supports>'   # its requirements "
                                   "or README name it; else that package's release written for this Warp"],
    # (round 27c) a package's release using syntax of a newer Python than it declares support for
    "py_union_operator_before_310": ["python --version   # before 3.10: the release's X | None annotations fail",
                                     "pip install --upgrade <the package whose file holds the line>   # a release "
                                     "fixed for this Python (or run Python 3.10+)"],
    "py_dict_union_before_39": ["python --version   # before 3.9: dict | dict fails",
                                "pip install --upgrade <the package whose file holds the line>   # a release fixed "
                                "for this Python (or run Python 3.9+)"],
    "pybind11_default_arg_type_unregistered": ["pip list | grep -i -E 'spconv|cumm|pybind'   # the releases of the "
                                               "compiled modules that share types",
                                               "pip install --upgrade --force-reinstall <the package>   # a release "
                                               "whose wheels are built together (spconv with the cumm it pins)"],
    "autograd_custom_function_gradient_shape": ["# the Function named: its forward's input shapes against the shapes its "
                                                "backward returns (the 'got' and 'expected' above)",
                                                "pip install --upgrade --force-reinstall <the extension>   # or rebuild "
                                                "it from the same revision as the Python code calling it"],
    "python_signal_not_main_thread": ["# the frame above the ValueError: the library calling signal.signal from a "
                                      "worker thread",
                                      "pip install --upgrade <that library>   # or its option not to install "
                                      "handlers, or run it in the main thread"],
    "cuhash_failed_to_build": ["# spconv 1.x: SparseConv3d(..., use_hash=False) / SubMConv3d(..., use_hash=False)",
                               "pip install spconv-cu<xyz>   # spconv 2.x (xyz: torch's CUDA), which has its own hash"],
    "setuptools_invalid_environment_marker": ["pip download --no-deps --no-binary :all: <the package>   # its setup.py: "
                                              "the marker it writes (a malformed one is its bug)",
                                              "python -m pip install --upgrade pip setuptools"],
    "setuptools_pep621_unknown_project": ["grep -n -A3 'build-system' pyproject.toml   # a requires pin below "
                                          "setuptools 61 is the project's bug",
                                          "python -m pip install --upgrade pip setuptools"],
    # (round 25a)
    "nbformat_not_json": ["python -m json.tool <the notebook>.ipynb > /dev/null   # where its JSON breaks (conflict "
                          "markers <<<<<<<, a cut or empty file)",
                          "git lfs pull   # a Git LFS pointer in the file's place",
                          "git log -1 -- <the notebook>.ipynb   # the commit that broke it, for the project's issue "
                          "tracker"],
    "nbformat_not_json_html": ["git log -1 -- <the notebook>.ipynb   # a web page committed in the notebook's place: "
                               "the project's issue tracker"],
    "colab_utf8_locale_required": ["import locale; locale.getpreferredencoding = lambda *a: 'UTF-8'   # in a cell, "
                                   "before the ! commands",
                                   "# or Runtime > Restart session, and run the ! commands before importing the "
                                   "package that changed the locale"],
    "package_own_data_file_missing": ["pip show -f <the package> | grep -i <the file's name>   # whether the installed "
                                      "release ships it at all",
                                      "pip install --force-reinstall --no-cache-dir <the package>   # a partial "
                                      "install; else its later release or a source install"],
    "setuptools_built_file_missing": ["ls build/lib*/   # what the build step did produce (another name? nothing?)",
                                      "pip install -v . 2>&1 | less   # the build step's own output above the copy",
                                      "# a release of the project (or of the build tool it pins: cmake, npm) with "
                                      "the fix"],
    "cuda_headers_glibc_c23_noexcept": ["ldd --version   # glibc 2.41 or later declares sinpi/cospi noexcept",
                                        "nvcc --version   # a CUDA release whose crt/math_functions.h has the fix, "
                                        "else NVIDIA's patch to that header (or build in a container with an older "
                                        "glibc)"],
    "windows_fail_fast_exit": ["# the program's own log just before the exit names the failed check (ollama: "
                               "%LOCALAPPDATA%\\Ollama\\server.log)",
                               "# install the program's newer release (or the one before the one that fails)"],
    # (round 24) a project's CMake still linking the legacy NVTX library newer CUDA 12 toolkits no longer ship
    "nvtx_legacy_library_missing": ["nvcc --version   # the toolkit: NVTX 3 is header-only (include/nvtx3/nvToolsExt.h)",
                                    "# update the project (or PyTorch) to a release whose CMake uses the header-only "
                                    "NVTX 3 (CUDA::nvtx3), or build with a toolkit that still ships nvToolsExt"],
    "jax_metal_plugin_jax_mismatch": ["pip show jax jaxlib jax-metal   # the three releases",
                                      "pip install 'jax==0.5.0' 'jaxlib==0.5.0'   # the jax the jax-metal 0.1.1 plugin "
                                      "was built for (or JAX_PLATFORMS=cpu)"],
    # (round 23) CUDA runtime API a project's source uses and a newer toolkit removed: the toolkit that builds, and the
    # port of the project's code
    "cuda12_texture_references_removed": ["nvcc --version   # CUDA 12.0 removed texture references",
                                          "# build with a CUDA 11.x toolkit, or a release of the project ported to "
                                          "texture objects (cudaCreateTextureObject)"],
    "cuda13_device_prop_fields_removed": ["nvcc --version   # CUDA 13.0 removed these cudaDeviceProp fields",
                                          "# build with a CUDA 12.x toolkit, or a release of the project that reads "
                                          "them with cudaDeviceGetAttribute (cudaDevAttrClockRate, ...)"],
    "tcpstore_without_libuv": ["USE_LIBUV=0 python <your script>   # USE_LIBUV=0 in the environment before the script starts",
                               "pip install --upgrade torch   # later releases default to use_libuv=0 on Windows"],
    "wsl_libcuda_not_symlink": ["ls -l /usr/lib/wsl/lib/   # regular files where soname links belong",
                                "# harmless for CUDA; a later Windows driver, or links recreated in "
                                "C:\\Windows\\System32\\lxss\\lib (mklink), silences it"],
    "argument_redefined": ["# print the build's nvcc command (make VERBOSE=1, cmake --build . -v) and remove the "
                           "second copy of the option from the project's build files"],
    "compiler_internal_error": ["gcc --version; nvcc --version   # the compiler releases the build used",
                                "# build with another release of the compiler that crashed (or -O1); its bug tracker "
                                "wants the preprocessed source"],
    "haskell_accelerate_internal_error": ["# the package's issue tracker (the message names it): its fix is a newer "
                                          "release or the repository's head"],
    "aten_needs_cxx17": ["# build with C++17: CMake set(CMAKE_CXX_STANDARD 17) and set(CMAKE_CUDA_STANDARD 17); "
                         "nvcc/g++ -std=c++17"],
    "container_driver_file_in_image": _IMAGE_DRIVER_FILES,
    "triton_libcuda_symlink_missing": _TRITON_LIBCUDA, "triton_libcuda_not_found": _TRITON_LIBCUDA,
    "modpost_gpl_only_symbol": ["uname -r   # the kernel the module is built for",
                                "# install (or build from its main branch) the module release that supports this kernel"],
    "triton_out_of_shared_memory": ["nvidia-smi --query-gpu=name,compute_cap --format=csv",
                                    "# the kernel's block sizes / num_stages must fit this GPU's shared memory per block"],
    "host_flag_given_to_nvcc": ["# print the build's nvcc command (make VERBOSE=1, cmake --build . -v, pip install -v) "
                                "and find where the host flag is added",
                                "pip install '<package>==<the release before>'   # or its release whose build passes "
                                "host flags through -Xcompiler"],
    "warp_intrinsic_without_sync": ["nvcc --version   # CUDA 9+ has only the *_sync forms for sm_70 and later",
                                    "# a release of the library that calls __shfl_down_sync(mask, ...), or patch the "
                                    "calls (mask 0xffffffff)"],
    "single_input_file": ["# print the build's nvcc command (make VERBOSE=1, cmake --build . -v) and find the word nvcc "
                          "took for a second input (a flag split in two, an empty architecture list, a space in a path)",
                          "git log -- CMakeLists.txt   # a project's release or commit whose build files produce it"],
    "fd_sharing_ancdata": ["# right after import torch: torch.multiprocessing.set_sharing_strategy('file_system')",
                           "ulimit -n   # the open-file limit; raising it (ulimit -n 65536) is the other workaround"],
    # (round 33d) library_messages rows whose first reading is a release's or a build's own fault
    "pybind11_return_value_unconvertible": ["pip show <the package whose function returned it>   # the release, for "
                                            "its issue tracker and changelog",
                                            "pip install --upgrade <that package>   # a release whose bindings "
                                            "register the type after '->'; or install and import the module that "
                                            "registers it (pycolmap's ceres types: pyceres)"],
    "browser_js_served_text_plain": ["python -c \"import mimetypes; print(mimetypes.guess_type('a.js'))\"   # "
                                     "'text/plain' here: the Windows registry's .js Content Type",
                                     "pip install --upgrade notebook jupyterlab jupyter_server   # servers that "
                                     "register application/javascript for .js themselves (notebook >= 5.7.7)",
                                     "# or set HKEY_CLASSES_ROOT\\.js 'Content Type' back to application/javascript "
                                     "(regedit), then restart the server"],
    "pip_ci_runner_path_missing": ["# the requirement naming the build machine's path: the requirements file or "
                                   "bundle script that pip read (a line with D:\\a\\... or file:///home/runner/...)",
                                   "pip install <the package>==<its version>   # from the index, without the path"],
    "ggml_metal_library_compile_failed": ["CMAKE_ARGS=\"-DLLAMA_METAL_EMBED_LIBRARY=ON -DLLAMA_METAL=on\" pip install "
                                          "llama-cpp-python --no-cache-dir --force-reinstall   # the Metal library "
                                          "embedded (GGML_METAL_EMBED_LIBRARY=ON in later llama.cpp)",
                                          "pip install --upgrade llama-cpp-python   # later releases embed it by "
                                          "default"],
    "source_32bit_size_t_pointer": ["# at the line the compiler names: declare the variable passed as size_t (size_t "
                                    "pitch; not unsigned int), and give min()/max() arguments of one type",
                                    "git pull   # a later revision of the project's source may have the fix"],
    "amp_unscale_fp16_gradients": ["python -c \"import peft, transformers; print(peft.__version__, "
                                   "transformers.__version__)\"   # releases that cast trainable weights",
                                   "# keep trainable parameters float32 under GradScaler (no model.half() before "
                                   "training), or the library release its code was written for"],
}


def _row_title(ev: dict[str, Any]) -> str:
    """The first clause of a message row's meaning, as a finding's title."""
    meaning = str(ev.get("meaning") or "a bug in a library's release")
    return re.sub(r" \([^()]*\)", "", meaning.split(": ")[0]).rstrip(".")[:160]


@builds("python_package_missing")
def _package_missing(facts: Facts, ev: dict[str, Any]) -> dict[str, Any] | None:
    """(round 25) A plain package missing from the Python that runs the code: its install into that Python, by the
    name pip knows (the import name's distribution where they differ: cv2 -> opencv-python), and the check of which
    Python that is."""
    if row := _row_install_finding(ev):  # (round 27a)
        return row
    from smrnb.doctor.rules._abi import bare_folder_missing_fix

    if bare := bare_folder_missing_fix(ev):  # (round 27d) a bare folder in the package's place
        return bare
    from smrnb.doctor.rules._abi import defining_attribute_missing

    if shadowed := defining_attribute_missing(ev):  # (round 34c) the install's files gone, its folder left
        pkg = shadowed[0]
        dist = PIP_DISTRIBUTION.get(pkg.lower(), pkg)
        return {"title": f"The installed {pkg} may have lost its files: {pkg}.{shadowed[1]}, which every release "
                         f"defines, is missing (only a folder named {pkg} left by an uninstall or a failed upgrade)",
                "commands": [f"python -c \"import {pkg}; print(list(getattr({pkg}, '__path__', [])))\"   # the "
                             "folder imported",
                             f"python -m pip install --force-reinstall {dist}   # its files back"]}
    mod = str(ev.get("module") or "").split(".")[0]
    if not mod:
        return None
    if ev.get("said"):  # (round 33d) the program's own report of its guarded import's failure, then a NameError
        return {"title": f"The program's import of {mod} failed before the NameError ({ev['said']}): the undefined "
                         "name was to come from that import, whose own error names what is missing",
                "commands": ["# run the import the program guards without its try/except (or print the exception in "
                             "its except clause): its ImportError names the package or compiled module missing",
                             "python -m pip install -r requirements.txt   # where the project lists what it needs; "
                             "a compiled module of the project's own: its build step (setup.py / build script)"]}
    dist = PIP_DISTRIBUTION.get(mod.lower().replace("-", "_"), mod)
    other = dist.lower().replace("_", "-") != mod.lower().replace("_", "-")
    if ev.get("guarded_import") and ev.get("import_name"):  # (round 34b) a release's name, its import guarded
        return {"title": f"Else {mod} is not installed at all: the code imports from it inside try/except, so its "
                         f"absence is the same NameError",
                "commands": [f"python -c \"import {mod}; print({mod}.__version__)\"   # installed? which release?",
                             f"python -m pip install {dist}   # with the python that runs the code (the release the "
                             "project's requirements name)"]}
    if has_sign(facts, "colab"):  # (round 26) a Colab cell: the runtime's one Python, installed into from a cell
        return {"title": f"No module named '{mod}': the package is not installed in the Colab runtime"
                         + (f" (pip installs it as {dist})" if other else ""),
                "evidence": [f"Python imports the module {mod} from the distribution {dist}"] if other else [],
                "commands": [f"%pip install {dist}   # in a cell: into the runtime's Python"
                             + (f"; '{mod}' is the import name, {dist} the name pip knows" if other else ""),
                             "# a new runtime starts without it: keep the %pip line at the notebook's top"]}
    return {"title": f"No module named '{mod}': the package is not installed in the Python that runs the code"
                     + (f" (pip installs it as {dist})" if other else ""),
            "evidence": [f"Python imports the module {mod} from the distribution {dist}"] if other else [],
            "commands": [f"python -m pip install {dist}   # with the python that runs the code"
                         + (f"; '{mod}' is the import name, {dist} the name pip knows" if other else ""),
                         'python -c "import sys; print(sys.executable)"   # that Python (a venv or conda env must be '
                         "active: which python)",
                         "python -m pip install -r requirements.txt   # where the project lists what it needs"]}


def _oom_beyond_card(facts: Facts) -> dict[str, Any] | None:
    """(round 37e) One request more than twice the card's whole memory (``torch.oom_request``): no batch size, other
    process or allocator setting makes it fit; the operation (an N x N pairwise matrix: torch.cdist, an attention over
    all points) must be computed in chunks or replaced."""
    req = _peek(facts, "torch", "oom_request")  # noted below only where it decides
    if not isinstance(req, Mapping) or float(req.get("times") or 0) < 2:
        return None
    value(facts, "torch", "oom_request")
    said, times = (str(req.get("asked")), str(req.get("total"))), float(req["times"])
    return {"title": f"One allocation of {said[0]} is {times:.0f}x the GPU's whole memory ({said[1]}): the "
                     "code's operation is too large at once, not the setup",
            "fix": "Nothing in the setup makes one tensor larger than the card's whole memory fit (not freeing "
                   "memory, not the allocator's PYTORCH_CUDA_ALLOC_CONF): the operation the traceback names builds it "
                   "in one piece. Compute it in chunks (a loop over blocks of rows), or use an algorithm that does not "
                   "build the whole N x N result (a k-nearest-neighbour search instead of all pairwise distances).",
            "commands": ["# in the failing call: process the rows in chunks, e.g. for b in x.split(4096): "
                         "torch.cdist(b, y).min(dim=1) (keep only what is needed of each block)",
                         "# or a k-NN search (pytorch3d.ops.knn_points, faiss) instead of the whole distance matrix"]}


@builds("cuda_oom")
def _oom(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("key") == "tf_cudnn_handle_failed":  # (round 26c) TensorFlow maps nearly all GPU memory at start
        return {"title": "cuDNN could not start inside TensorFlow: most often no GPU memory was left for it",
                "detail": "TensorFlow maps nearly all of the GPU's memory when it starts; let it grow on demand. Where "
                          "that does not help, the cuDNN loaded is of another release than TensorFlow's build (the "
                          "'Loaded runtime CuDNN library' line decides).",
                "commands": ["nvidia-smi   # other processes holding memory",
                             "TF_FORCE_GPU_ALLOW_GROWTH=true python <your script>   # or "
                             "tf.config.experimental.set_memory_growth(gpu, True) before any op"]}
    if big := _oom_beyond_card(facts):
        return big
    return {"title": "The GPU ran out of memory",
            "commands": ["nvidia-smi   # other processes holding memory",
                         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python <your script>   # fragmentation",
                         "# or a smaller batch / resolution"]}


#: the CPU-only build of another GPU library (tables/library_messages.csv's ``library``): the package to name and
#: the install of its CUDA build
_OTHER_CPU_BUILDS: dict[str, tuple[str, str]] = {
    "jax": ("jaxlib", 'pip install -U "jax[cuda12]"   # jaxlib with its CUDA plugin (jax[cuda13] for a CUDA 13 driver)'),
    "faiss": ("faiss", "pip uninstall -y faiss-cpu faiss && pip install faiss-gpu   # or conda install -c pytorch "
                       "faiss-gpu: one faiss package, the GPU one"),
    "xgboost": ("xgboost", "pip uninstall -y xgboost xgboost-cpu && pip install xgboost   # the Linux/Windows wheels "
                           "carry CUDA; a source build needs -DUSE_CUDA=ON"),
    "onnxruntime": ("onnxruntime", "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu   "
                                   "# the CPU package shadows the GPU one"),
    "lightgbm": ("lightgbm", "pip install lightgbm --config-settings=cmake.define.USE_CUDA=ON   # or USE_GPU=ON "
                             "(OpenCL); the default package has no GPU tree learner"),
    "dgl": ("dgl", "pip install dgl -f https://data.dgl.ai/wheels/torch-<major.minor>/<cuXYZ>/repo.html   # DGL's CUDA "
                   "build for the installed torch"),
    "open3d": ("open3d", "# Open3D's CUDA build: the Linux x86-64 pip wheel, or a source build with "
                         "-DBUILD_CUDA_MODULE=ON (the Windows and macOS wheels have no CUDA)"),
    # (round 24a) OpenCV's CUDA modules come only with a build made WITH_CUDA=ON (getCudaEnabledDeviceCount() is 0
    # otherwise); pycolmap's PyPI wheels are built without CUDA (patch_match_stereo is missing from them)
    "opencv": ("OpenCV", "# a build of OpenCV with -DWITH_CUDA=ON (and opencv_contrib's cuda* modules): the opencv-python "
                         "wheels and OpenCvSharp's NuGet runtimes have none"),
    "pycolmap": ("pycolmap", "# build pycolmap from COLMAP's sources with CUDA found (its PyPI wheels are CPU-only)"),
    # (round 25b) pip builds llama.cpp from source: CPU-only unless CMAKE_ARGS asks for its CUDA backend
    "llama-cpp-python": ("llama-cpp-python", 'CMAKE_ARGS="-DGGML_CUDA=on" pip install llama-cpp-python --force-reinstall '
                                             "--no-cache-dir   # -DLLAMA_CUBLAS=on for releases before 0.2.80"),
    # (round 26c) each framework's documented GPU package: Paddle's GPU wheels come from its own index per CUDA
    # (paddlepaddle.org.cn install guide); TensorFlow's CUDA libraries with the and-cuda extra (Linux/WSL2 only);
    # MXNet's GPU builds are packages of their own per CUDA (mxnet-cu112); CTranslate2's Linux/Windows x86-64 wheels
    # carry CUDA (other platforms and source builds without -DWITH_CUDA=ON do not)
    "paddlepaddle": ("paddlepaddle", "pip uninstall -y paddlepaddle && python -m pip install paddlepaddle-gpu -i "
                                     "https://www.paddlepaddle.org.cn/packages/stable/cu126/   # Paddle's GPU package "
                                     "(cu118/cu126: a CUDA the driver supports)"),
    "tensorflow": ("tensorflow", 'pip install "tensorflow[and-cuda]"   # Linux or WSL2; native Windows has no GPU build '
                                 "after 2.10"),
    "mxnet": ("mxnet", "pip uninstall -y mxnet && pip install mxnet-cu112   # MXNet's GPU package for the CUDA "
                       "installed (mxnet-cuXYZ)"),
    "llama.cpp": ("llama.cpp", "cmake -B build -DGGML_CUDA=ON && cmake --build build --config Release   # llama.cpp's "
                               'CUDA backend (llama-cpp-python: CMAKE_ARGS="-DGGML_CUDA=on" pip install '
                               "llama-cpp-python --force-reinstall --no-cache-dir)"),
    "ctranslate2": ("ctranslate2", "pip install --force-reinstall ctranslate2   # the Linux/Windows x86-64 wheels carry "
                                   "CUDA 12 and cuDNN 9; a source build needs -DWITH_CUDA=ON -DWITH_CUDNN=ON"),
}


def _text_names_torch(facts: Facts) -> bool:
    """Whether a text shows torch anywhere the reader took a fact or an event from (an import, a path, a version,
    a message line)."""
    if "torch" in (value(facts, "loader", "modules_imported") or []) or value(facts, "torch", "version") or \
            "torch" in (value(facts, "torch", "packages_installed") or []):
        return True
    for d in facts.values():
        if not isinstance(d, dict):
            continue
        lines = [str(v) for v in (d.get("read_from") or {}).values()]
        lines += [str(e.get("line") or "") for e in d.get("events") or () if isinstance(e, dict)]
        if any("torch" in ln.lower() for ln in lines):
            return True
    return False


@builds("torch_import_failed")
def _torch_import(facts: Facts, ev: dict[str, Any]) -> dict[str, Any] | None:
    if ev.get("from") != "live" and not _text_names_torch(facts):
        return None  # a process that dies at start (a kernel restarting) is not torch's unless the text shows torch
    lib = str(ev.get("library") or "") if ev.get("kind") == "library_missing" else ""
    if lib:
        return {"title": f"torch's own import fails: {lib} is missing from the torch install (a broken or mixed "
                         "install)",
                "evidence": [f"torch's compiled core (torch._C, imported by torch/__init__.py) loads {lib} from "
                             "torch/lib through its RPATH: no extension and no import order is involved, and a "
                             "CPU-only torch never asks for a CUDA library"],
                "detail": "Reinstall torch whole (pip's cache can hold a broken wheel), and check that only one torch "
                          "is installed in this environment.",
                "commands": ["pip show -f torch | grep -E 'lib/lib(torch|c10)'   # the libraries the install holds",
                             "pip list 2>/dev/null | grep -iE '^torch '; python -m pip --version   # one torch, this "
                             "Python's pip",
                             "pip uninstall -y torch && pip install --no-cache-dir torch --index-url "
                             "https://download.pytorch.org/whl/<cuXYZ>   # the build you meant"]}
    return {"title": "`import torch` fails (or crashes the process that runs it)",
            "commands": ['python -c "import torch"   # in the environment that fails: its last error line says why']}


#: (round 30b, blind audit 29) torch's CUDA build where the text names no driver: how to pick its variant, none guessed
CUDA_TORCH_PICKED = (f"pip install --force-reinstall {TORCH_RELEASE_KEPT} --index-url https://download.pytorch.org/whl/<cuXYZ>"
                     "   # only if the line above prints None (torch.version.cuda); torch stays at its release (the line above, "
                     "or pip show torch, without its +cpu); <cuXYZ> is a CUDA variant not newer than the 'CUDA Version' "
                     "nvidia-smi prints (cu118 for 11.8, cu121 for 12.1, ...; pytorch.org/get-started/locally lists "
                     "this torch's)")


def _driver_variant(tv: str, drv: bool, runs: list[str], dcuda: str) -> str:
    """(round 37a) torch's build for the newest CUDA variant the driver's CUDA runs (``runs``, oldest first), at the
    installed torch's release: read from the text (its newest variant the driver runs), else as torch's metadata says;
    where the text's torch has no build the driver runs, the other release it takes is said."""
    mine = tables.torch_cuda_variants(tv) if tv else None
    have = [v for v in runs if mine is not None and v in mine.variants]
    other = bool(tv and (drv or (mine is not None and not have)))  # no build of tv this driver runs
    pin = "torch" if other else f"torch=={tv}" if tv else TORCH_RELEASE_KEPT
    variant = have[-1] if have and not other else runs[-1]
    return (f"pip install --force-reinstall {pin} --index-url https://download.pytorch.org/whl/{variant}   # only if the "
            f"line above prints None (torch.version.cuda): the newest CUDA variant the driver's CUDA {dcuda} runs" +
            (f"; torch {tv} has no build for it: this installs another torch release, rebuild its extensions after"
             if other else "; torch stays at its release"))


@builds("cpu_only_torch_with_gpu")
def _cpu_torch(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    from smrnb.doctor.rules._abi import row_field

    lib = row_field(ev, "library") if ev.get("table") == "library_messages" else ""
    device = str((ev.get("groups") or {}).get("device") or "").lower()
    if device and device != "cuda":
        return _no_backend(device)
    if ev.get("key") in ROCM_NO_DEVICE_ROWS:
        return {"title": "A build for AMD GPUs (ROCm/HIP) runs on a machine whose GPU is NVIDIA's",
                "detail": "The ROCm runtime finds no AMD GPU here; the build for NVIDIA GPUs is the one to install.",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.version.hip, torch.version.cuda)\"",
                             CUDA_TORCH_PICKED.split("   #")[0] + "   # torch: a CUDA build (<cuXYZ>: a CUDA not newer "
                             "than nvidia-smi's 'CUDA Version'); a HIP program: build it for HIP's NVIDIA platform "
                             "(HIP_PLATFORM=nvidia, where HIP supports it)"]}
    if ev.get("framework") == "tensorflow":
        return {"title": f"TensorFlow {ev.get('version')} has no GPU build for native Windows (the last is 2.10)",
                "detail": "TensorFlow's Windows wheels since 2.11 run on the CPU only: use WSL2 (pip install "
                          "tensorflow[and-cuda] there), or tensorflow<2.11 with CUDA 11.2 and cuDNN 8.1 on Windows.",
                "commands": ["python -c \"import tensorflow as tf; print(tf.__version__, "
                             "tf.config.list_physical_devices('GPU'))\"",
                             'pip install "tensorflow<2.11"   # the last native-Windows GPU release (or WSL2)']}
    # (round 31a, issue 25) the row's library by name (``OpenCV``, ``torch (ROCm builds)``); a row that names a program's
    # own words instead ("a program's own device choice": the program's torch picked the CPU) is torch's
    if lib and lib.lower() != "torch" and re.match(r"[A-Za-z0-9][\w.+-]*(?:\s*[(/]|$)", lib) \
            and not lib.lower().startswith("torch "):
        pkg, cmd = _OTHER_CPU_BUILDS.get(lib.lower(), (lib, ""))
        # pip's words only for a distribution's name: "pip show XLA (jax, TensorFlow)" is no command a shell runs
        name = pkg if re.fullmatch(r"[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?", pkg) else ""
        cmd = cmd or (f"pip show {name}   # then install its CUDA build" if name else "")
        return {"title": f"{pkg} is a CPU-only build" + (f": {lib} runs on the CPU" if pkg != lib else ""),
                "detail": f"Here it is {pkg}, not torch: reinstalling torch changes nothing.",
                "commands": [c for c in (f"pip show {name}" if name else "", cmd) if c]}
    tv = value(facts, "torch", "version_base")
    drv = value(facts, "driver", "driver_version") or ""
    plat = driver_platform(facts)
    ok = torch_variants_for_driver(tv or "", drv, plat) if tv and drv else []
    dcuda = str(value(facts, "driver", "cuda_driver_version") or "")
    runs = indexes_for_driver_cuda(dcuda, drv or None, plat) if dcuda and not ok else []
    # (round 30b, blind audit 29) the CUDA variant from the text's driver (its version, or nvidia-smi's 'CUDA
    # Version'), else how to pick it: never a guessed one, and only where torch says it has no CUDA
    cmd = (f"pip install --force-reinstall torch=={tv} --index-url https://download.pytorch.org/whl/{ok[-1]}   # only if "
           "the line above prints None (torch.version.cuda)" if ok else
           _driver_variant(tv, bool(drv), runs, dcuda) if runs else
           CUDA_TORCH_PICKED.replace(TORCH_RELEASE_KEPT, f"torch=={tv}" if tv else TORCH_RELEASE_KEPT))
    evidence = ([f"torch's own header {ev['included_from']} includes {ev.get('header')}, which this torch did not "
                 "install: a torch without its CUDA headers (a CPU-only build, or a broken install)"]
                if ev.get("included_from") else [])
    return {"title": "torch is a CPU-only build" + (f" ({value(facts, 'torch', 'version')})"
                                                    if value(facts, "torch", "cpu_build") else ""), "evidence": evidence,
            "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"", cmd]}


def _no_backend(device: str) -> dict[str, Any]:
    """A torch without the backend of a device type other than CUDA (torch's 'not linked with support for X
    devices'): Intel GPUs (xpu) have wheels of their own on PyTorch's index; another type needs its vendor's build."""
    cmds = ["python -c \"import torch; print(torch.__version__)\"   # the build installed"]
    if device == "xpu":
        cmds.append("pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/xpu   # torch "
                    "2.5+ for Intel GPUs (older releases: the XPU build of intel-extension-for-pytorch and its torch)")
    else:
        cmds.append(f"# install the torch build made for {device} devices (its vendor's wheels)")
    return {"title": f"The installed torch has no {device} backend (a build for another device)", "commands": cmds}


@builds("torch_wheel_lacks_gpu_arch")
def _torch_lacks(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    groups = ev.get("groups") or {}
    arch = groups.get("arch") or (f"sm_{groups['cc'].replace('.', '')}" if groups.get("cc") else None)
    ccs = [g for g in value(facts, "driver", "gpus") or [] if isinstance(g, dict) and g.get("compute_capability")]
    if not arch and ccs:
        arch = f"sm_{str(ccs[0]['compute_capability']).replace('.', '')}"
    tv = value(facts, "torch", "version_base")
    variant = _variant_for_arch(arch, tv)
    tc = value(facts, "torch", "cuda")
    if variant and tc and variant == f"cu{str(tc).replace('.', '')}" and ev.get("sign") != "nvrtc_arch":
        variant = None  # (round 29a) the very build the text shows failing: no reinstall of it
    title = ("The installed torch has no kernels for this GPU" if ev.get("sign") != "nvrtc_arch" else
             f"torch's CUDA{' ' + tc if tc else ''} is older than this GPU: its runtime compiler (NVRTC) cannot "
             "target it")
    n = int("".join(ch for ch in str(arch or "") if ch.isdigit()) or 0)
    # (round 37g, blind audit 37 F1) a GPU the text names: the reinstall is pinned where the commands are printed,
    # with the text's Python, driver and companions (_printed._variant_filled: pinned_torch_command); (round 29a) the
    # GPU older than every current wheel is one case of it. The same release's newest variant only where no GPU is named
    install = ("pip install --force-reinstall torch" + (f"=={tv} --index-url https://download.pytorch.org/whl/{variant}"
                                                        if tv and variant and not n else
                                                        f" --index-url https://download.pytorch.org/whl/{_ANY_VARIANT}"))
    return {"title": title + (f" ({arch})" if arch else ""),
            "commands": ["python -c \"import torch; print(torch.__version__, torch.cuda.get_arch_list())\"",
                         install]}


def _variant_for_arch(arch: str | None, torch_version: str | None) -> str | None:
    """The newest CUDA variant of this torch release (tables/torch_cuda.csv) whose CUDA compiles for the GPU's
    arch; None when the table cannot say or no variant of this release does."""
    if not torch_version:
        return None
    tv = tables.torch_cuda_variants(torch_version)
    if tv is None or not tv.variants:
        return None
    n = int("".join(ch for ch in str(arch or "") if ch.isdigit()) or 0)
    if not n:
        return tv.variants[-1]
    # a variant whose wheels carry kernels for the GPU where tables/torch_wheel_archs.csv has its row (round 29a),
    # else whose CUDA release compiles for it (tables/nvcc_archs.csv: sm_89 needs 11.8, sm_120 12.8; CUDA 13 dropped
    # Maxwell, Pascal and Volta)
    runs = {v: tables.torch_wheel_runs(torch_version, v, n) for v in tv.variants}
    ok = [v for v in tv.variants if runs[v] or (runs[v] is None and n in (nvcc_archs(f"{v[2:-1]}.{v[-1]}") or ()))]
    return ok[-1] if ok else None


#: (round 26c) library_messages rows of another framework's companion (its own title and documented install): jax's
#: CUDA plugin released in lockstep with jaxlib; DGL's libraries built per torch release (its wheel index per torch and
#: CUDA)
_OTHER_COMPANIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "jax_plugin_incompatible_jaxlib": (
        "jax's CUDA plugin is of another release than jaxlib, so jax ignores it and runs on the CPU",
        ("pip list 2>/dev/null | grep -iE '^jax'   # jax, jaxlib, jax-cuda12-plugin, jax-cuda12-pjrt: one release",
         'pip install -U "jax[cuda12]"   # all four of one release (jax[cuda13] for a CUDA 13 driver)')),
    "dgl_sparse_library_missing": (
        "DGL has no library built for the installed torch (its sparse/graphbolt libraries are built per torch release)",
        ("python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
         "pip install --force-reinstall dgl -f https://data.dgl.ai/wheels/torch-<major.minor>/<cuXYZ>/repo.html   "
         "# DGL's build for this torch and CUDA")),
}
_OTHER_COMPANIONS["dgl_graphbolt_library_missing"] = _OTHER_COMPANIONS["dgl_sparse_library_missing"]
#: (round 27a) xformers and TorchCodec: each release's wheels are built for one torch release (FACTS.md, round 27a)
_OTHER_COMPANIONS["xformers_no_operator_found"] = (
    "xformers found no attention kernel it can run: its compiled operators do not fit the installed torch (or the "
    "reasons listed under the message name another limit)",
    ("python -m xformers.info   # which operators are built and available, and the torch it was built for",
     "pip install -U xformers --index-url https://download.pytorch.org/whl/<cuXYZ of torch.version.cuda>   # the "
     "xformers release built for the installed torch (0.0.33: torch 2.9.0, 0.0.32: 2.8.0, 0.0.31: 2.7.1, "
     "0.0.29.post2: 2.6.0, 0.0.28.post3: 2.5.1)"))
def _xformers_pinned(cmd: str, tv: Any, idx: str) -> str:
    """(round 36g, audit 36 F2) xformers' reinstall for the installed torch: the torch's CUDA index filled in, and the
    xformers release built for that torch pinned where :data:`smrnb.doctor._printed.XFORMERS_FOR_TORCH` knows it (torch stays); other
    commands as they are."""
    if not cmd.startswith("pip install -U xformers --index-url"):
        return cmd
    if idx != "<cuXYZ>":
        cmd = cmd.replace("<cuXYZ of torch.version.cuda>", idx)
    rel = XFORMERS_FOR_TORCH.get(str(tv or ""))
    if not rel:
        return cmd
    return (f"pip install xformers=={rel} --index-url https://download.pytorch.org/whl/"
            f"{idx if idx != '<cuXYZ>' else '<cuXYZ of torch.version.cuda>'}   # xformers {rel}: the release built "
            f"for torch {tv} (xformers pins its torch exactly; torch stays)")


_OTHER_COMPANIONS["torchcodec_could_not_load"] = (
    "TorchCodec could not load its libraries: a TorchCodec release made for another torch, or no FFmpeg shared "
    "libraries of a supported major",
    ("pip show torch torchcodec | grep -E '^(Name|Version)'   # TorchCodec 0.7/0.6: torch 2.8; 0.5-0.3: 2.7; "
     "0.2: 2.6 (its README's table)",
     "ffmpeg -version   # FFmpeg's major (4-7 for these releases) and its shared libraries (conda install "
     "\"ffmpeg<8\" -c conda-forge)"))


#: (round 29v) torch's companions a line may name (pip's "X 1.2 requires torch==...", a module path), PyPI's spelling;
#: tables/torch_companions.csv pairs torchvision and torchaudio only: the others get no pin from those columns
_COMPANION_NAMES = re.compile(
    r"(?<![\w.-])(?:lib)?(torchvision|torchaudio|torchtext|torchdata|torchrec|torchao|torchcodec|torch[-_]tensorrt|"
    r"torch[-_](?:scatter|sparse|cluster|spline[-_]conv)|pyg[-_]lib|fbgemm[-_]gpu(?:[-_]cpu)?|mmcv(?:[-_]full)?)"
    r"(?![\w-])", re.IGNORECASE)
#: (round 29v) the wheel index of a companion not paired by torch_companions.csv: PyTorch's own index (torchtext,
#: torchdata, torchrec, torchao, torch-tensorrt, fbgemm-gpu publish per-CUDA wheels there), OpenMMLab's per torch and
#: CUDA for mmcv (its installation guide: download.openmmlab.com/mmcv/dist/<cuXYZ>/torch<major.minor>/index.html)
_PYTORCH_INDEX_COMPANIONS = frozenset({"torchtext", "torchdata", "torchrec", "torchao", "torch-tensorrt", "fbgemm-gpu"})


def _companion_named(facts: Facts, ev: Mapping[str, Any]) -> str:
    """(round 29v) The companion an event names (PyPI's spelling): its line, module or binary first, then its table
    row's ``library`` (mmcv's device registry message names no package), then the one companion the text shows
    installed; "" when none is named (never torchvision for another companion)."""
    for said in (ev.get("line"), ev.get("module"), ev.get("needed_by")):
        m = _COMPANION_NAMES.search(str(said or ""))
        if m:
            return m.group(1).lower().replace("_", "-")
    if ev.get("table") and ev.get("key"):
        row = next((r for r in tables.rows(str(ev["table"])) if r.get("key") == ev["key"]), None)
        m = _COMPANION_NAMES.fullmatch(str((row or {}).get("library") or "").strip())
        if m:
            return m.group(1).lower().replace("_", "-")
    shown = [str(p).lower().replace("_", "-") for p in value(facts, "torch", "packages_installed") or []]
    named = [p for p in shown if _COMPANION_NAMES.fullmatch(p)]
    return named[0] if len(set(named)) == 1 else ""


def _companion_unpaired(who: str, tv: Any, idx: str) -> dict[str, Any]:
    """(round 29v) The fix for a companion tables/torch_companions.csv does not pair with torch releases (torchtext,
    torchdata, mmcv, PyG's operator packages named by pip, ...) or for none named: its installed release and the one
    made for the installed torch, with no pin read from torchvision's or torchaudio's column."""
    from smrnb.doctor.rules._rebuild import _PER_TORCH_WHEELS

    name = who or "<the companion>"
    show = f"pip show torch {who or '<the companion the message names>'} | grep -E '^(Name|Version)'"
    made = f"<the {name} release made for torch {tv}>" if tv else f"<the {name} release made for the installed torch>"
    if who.replace("-", "_") in _PER_TORCH_WHEELS:  # PyG's wheel index per torch release and CUDA variant
        mm = ".".join(str(tv).split(".")[:2]) + ".0" if tv else "<torch major.minor>.0"
        var = idx if idx != "<cuXYZ>" else "<cuXYZ|cpu>"
        cmd = f"pip install --force-reinstall --no-cache-dir {who} -f https://data.pyg.org/whl/torch-{mm}+{var}.html"
    elif who.startswith("mmcv"):
        mm = ".".join(str(tv).split(".")[:2]) if tv else "<torch major.minor>"
        cmd = (f'pip install --force-reinstall --no-cache-dir "{who}" -f https://download.openmmlab.com/mmcv/dist/'
               f"{idx}/torch{mm}/index.html   # OpenMMLab's wheels for this torch and CUDA (or mim install {who})")
    elif who in _PYTORCH_INDEX_COMPANIONS:
        cmd = (f'pip install "{who}=={made}" --index-url https://download.pytorch.org/whl/{idx}   # its release notes '
               "name the torch each release pairs with; torch stays")
    else:
        cmd = (f"pip install --force-reinstall \"{name}=={made}\"   # the companion the message names, "
               "reinstalled for the installed torch; torch stays")
    return {"title": f"{name} does not match the installed torch" if who else
                     "A companion of torch was built for another torch than the installed one",
            "commands": [show, cmd]}


@builds("companion_built_for_other_torch")
def _companion(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    tv = value(facts, "torch", "version_base")
    tc = value(facts, "torch", "cuda")
    idx = f"cu{str(tc).replace('.', '')}" if tc else "<cuXYZ>"
    if idx not in tables.torch_cuda_indexes():  # a CUDA PyTorch publishes no wheel index for (a source build's)
        idx = "<cuXYZ>"
    line = str(ev.get("line") or "") + " " + str(ev.get("module") or "")
    if ev.get("kind") == "pip_conflict":  # (round 28a) rules._kaolin
        from smrnb.doctor.rules._abi import pip_conflict_fix

        return pip_conflict_fix(ev)
    if ev.get("key") == "jax_metal_plugin_jax_mismatch":  # (round 24) a JAX plugin, not a torch companion
        return {"title": "The jax-metal plugin was built for another jax release than the one installed",
                "commands": ["pip show jax jaxlib jax-metal   # the three releases",
                             "pip install 'jax==0.5.0' 'jaxlib==0.5.0'   # the jax the jax-metal 0.1.1 plugin was built "
                             "for (or JAX_PLATFORMS=cpu)"]}
    if ev.get("key") in _OTHER_COMPANIONS:  # (round 26c) another framework's plugin or per-torch library
        title, cmds = _OTHER_COMPANIONS[str(ev["key"])]
        return {"title": title, "commands": [_xformers_pinned(c, tv, idx) for c in cmds]}
    if "triton" in line.lower() or ev.get("triton"):
        pin = tables.triton_for_torch(tv) if tv else None
        have = value(facts, "torch", "triton_version")
        title = "triton does not match the installed torch" + (f": triton {have}" if have else "") + (
            f", torch {tv} is released with triton {pin}" if pin else "")
        return {"title": title,
                "commands": ["pip show torch triton   # the two releases",
                             f"pip install 'triton=={pin}.*'   # the triton this torch release pins" if pin else
                             "pip install --force-reinstall torch   # brings the triton it pins (Linux x86-64); on "
                             "Windows the triton-windows release made for this torch"]}
    if "xformers" in line.lower():  # xformers' own warning ("xFormers was built for: PyTorch A ... (you have B)"):
        # its wheels are built for one torch release each (FACTS.md, round 27a), and it is no torchvision
        info, reinstall = _OTHER_COMPANIONS["xformers_no_operator_found"][1]
        return {"title": "xformers was built for another torch than the installed one" + (f" ({tv})" if tv else ""),
                "commands": [info, _xformers_pinned(reinstall, tv, idx)]}
    from smrnb.doctor.rules._rebuild import per_torch_wheel

    pyg = per_torch_wheel(str(ev.get("needed_by") or ev.get("line") or ""))
    if pyg:
        # PyG's operator packages publish one wheel per torch release and CUDA variant at
        # https://data.pyg.org/whl/torch-<major.minor>.0+<cuXYZ|cpu>.html (its install guide's "-f" index)
        mm = ".".join(str(tv).split(".")[:2]) + ".0" if tv else "<torch major.minor>.0"
        var = idx if tc else ("cpu" if value(facts, "torch", "cpu_build") else "<cuXYZ|cpu>")
        return {"title": f"{pyg}'s wheel was made for another torch than the installed one"
                         + (f" ({tv})" if tv else ""),
                "detail": f"Here it is {pyg} (PyG's operator package), not torchvision: install its wheel for "
                          "exactly this torch release and CUDA variant.",
                "check": f"pip show torch {pyg} | grep -E '^(Name|Version)'   # the wheel's version names the torch "
                         "it was made for (+ptXY)",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"",
                             f"pip install --force-reinstall --no-cache-dir {pyg} -f "
                             f"https://data.pyg.org/whl/torch-{mm}+{var}.html"]}
    who = _companion_named(facts, ev)
    if who not in ("torchvision", "torchaudio"):  # (round 29v) no other companion's column of torch_companions.csv
        return _companion_unpaired(who, tv, idx)
    from smrnb.doctor.rules._abi import companion_for_torch

    rel = companion_for_torch(who, str(tv or ""))
    check = f"python -c \"import torch, {who}; print(torch.__version__, {who}.__version__)\""
    old = tables.torch_cuda_variants(str(tv or ""), find_links=True)
    if rel and old and old.find_links:  # (round 38c) before 1.11: the -f page of PyTorch's command of the release
        var = f"cu{str(tc).replace('.', '')}" if tc else "<cuXYZ>"
        var = var if var in old.variants else "<cuXYZ>"
        label = "" if who in old.unlabelled or var in old.unlabelled else f"+{var}"
        return {"title": f"{who} does not match the installed torch",
                "commands": [check, f'pip install "{who}=={rel}{label}" -f {old.find_links.replace("{variant}", var)}'
                                    f"   # the {who} of torch {tv}'s release line, as PyTorch's install command of the "
                                    "release pins it; torch stays"
                                    + ("; cuXYZ: torch.version.cuda without the dot (cu111 for 11.1)"
                                       if "<cuXYZ>" in label + old.find_links.replace("{variant}", var) else "")]}
    if rel:  # (round 27e) the companion of the installed torch's line, torch left as it is
        return {"title": f"{who} does not match the installed torch",
                "commands": [check, f'pip install "{who}=={rel}" --index-url https://download.pytorch.org/whl/{idx}'
                                    f"   # the {who} of torch {tv}'s release line; torch stays"
                                    + ("; cuXYZ: torch.version.cuda without the dot (cu121 for 12.1), cpu for a CPU build"
                                       if idx == "<cuXYZ>" else "")]}
    return {"title": f"{who} does not match the installed torch",
            "commands": [check, f"pip install --force-reinstall torch=={tv or '<ver>'} {who}==<the matching release> "
                                f"--index-url https://download.pytorch.org/whl/{idx}"]}


@builds("gpu_below_extension_minimum")
def _gpu_old(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    if ev.get("key") == "tf_gpu_below_core_count":  # (round 26c) TensorFlow's multiprocessor minimum, an env var
        have = (ev.get("groups") or {}).get("have") or "<the count printed>"
        return {"title": "TensorFlow ignores this GPU: it has fewer multiprocessors than TensorFlow's minimum",
                "commands": ["nvidia-smi --query-gpu=name,compute_cap --format=csv",
                             f"TF_MIN_GPU_MULTIPROCESSOR_COUNT={have} python <your script>   # TensorFlow's "
                             "documented switch for this minimum (default 8)"]}
    return {"title": "The GPU is older than the extension supports",
            "commands": ["nvidia-smi --query-gpu=name,compute_cap --format=csv"]}


@builds("arch_list_value_rejected")
def _arch_rejected(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    arch = (ev.get("groups") or {}).get("arch") or ""
    if re.fullmatch(r"\d{1,2}\.\d(?:\+PTX)?", arch):
        # (round 28b, blind audit 28) a well-formed arch this torch does not know: a GPU newer than the torch; an
        # older arch's list (8.6) builds code the GPU cannot run, so the fix is a torch that knows it first
        return {"title": f"torch's extension builder does not know the arch {arch!r}: the GPU is newer than this torch",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.cuda.get_arch_list())\"   # the "
                             "archs this torch knows",
                             f"# first a torch that knows {arch} (a release and CUDA variant whose wheels carry it), "
                             f'then TORCH_CUDA_ARCH_LIST="{arch}" again: a list without the GPU\'s own arch builds code '
                             "it cannot run"]}
    return {"title": f"torch's extension builder does not know the arch {arch!r}" if arch else
            "torch's extension builder does not know this architecture",
            "commands": ["python -c \"import torch; print(torch.__version__)\"   # new GPUs need a newer torch",
                         'export TORCH_CUDA_ARCH_LIST="8.6"   # major.minor values (not sm_86) that this torch knows']}


#: torch_messages rows that say torch.cuda.is_available() returned False (an assert of it; a launcher's own check of it)
UNAVAILABLE_ROWS = frozenset({"assert_cuda_available", "webui_torch_cuda_test"})


def unavailable_codes(facts: Facts) -> list[str]:
    """What ``torch.cuda.is_available() == False`` means from what else the facts show: a CPU build of torch;
    in a container or a job that must be given the GPU, a process not given it (the symptom second); else the
    symptom alone (the driver layer names a cause when the text shows one). A CUDA_VISIBLE_DEVICES the text sets
    (to an index this machine lacks, or empty) hides GPUs as a container or a job does."""
    if value(facts, "torch", "cpu_build"):
        return ["cpu_only_torch_with_gpu"]
    if has_sign(facts, "jetson") and not value(facts, "context", "container"):
        return ["cpu_only_torch_with_gpu", "torch_cuda_unavailable"]  # PyPI's aarch64 wheels: no CUDA (JetPack's have)
    if value(facts, "context", "os") == "macos":
        return ["no_gpu"]  # a Mac has no NVIDIA GPU: the code asks for CUDA where MPS or the CPU is what there is
    if value(facts, "context", "container") or value(facts, "context", "slurm") or value(
            facts, "context", "cuda_visible_devices") is not None:
        return ["gpu_not_exposed_to_process", "torch_cuda_unavailable"]
    if value(facts, "context", "os") == "windows" and not value(facts, "context", "wsl") and not value(
            facts, "driver", "other_gpus"):
        # (round 24a) native Windows, no other vendor's GPU named: torch's wheel from PyPI (what pip and a requirements
        # file install there) is the CPU build, the CUDA builds come from download.pytorch.org; with an NVIDIA GPU or
        # driver shown that is the reading, without one no NVIDIA GPU at all is the last
        if value(facts, "driver", "gpus") or value(facts, "driver", "driver_version"):
            return ["cpu_only_torch_with_gpu", "torch_cuda_unavailable"]
        return ["cpu_only_torch_with_gpu", "torch_cuda_unavailable", "no_gpu"]
    if not (value(facts, "driver", "gpus") or value(facts, "driver", "driver_version")):
        if value(facts, "toolkit", "cuda_named") and not value(facts, "torch", "cuda") and \
                value(facts, "context", "os") != "macos":
            # no GPU or driver shown, but the user has CUDA installed (a CUDA release named, no CUDA build of torch
            # shown): a GPU machine whose torch reports none, most often because the torch installed is the CPU
            # build (pip's default on Windows, a conda 'cpuonly'); torch.version.cuda decides
            return ["cpu_only_torch_with_gpu", "torch_cuda_unavailable"]
        # nothing in the text says the machine has an NVIDIA GPU: none at all is the other reading (nvidia-smi decides)
        return ["torch_cuda_unavailable", "no_gpu"]
    return ["torch_cuda_unavailable"]


#: library_messages rows printed beside a failure rather than as it: an exception a finaliser raised and Python ignored
#: (often at exit, when what it cleans up is gone), torchvision's warning that its image extension did not load (printed
#: at import; everything but torchvision.io's image decoding works), jax's fallback to the CPU (logged after the reason
#: a GPU backend failed, when there was one: 'Unable to load CUDA', an older cuDNN), ldconfig's warning about the WSL
#: driver libraries (printed on every ldconfig run, harmless), DeepSpeed's CPU optimizer and CuPy's core that a failed
#: build or load left unusable: readings of their own only below whatever error the text shows
AFTERMATH_ROWS = frozenset({"python_finaliser_exception_ignored", "torchvision_image_extension", "jax_no_gpu_fallback",
                            "deepspeed_cpu_op_not_built", "cupy_not_correctly_installed", "wsl_libcuda_not_symlink",
                            # (round 25b) pip's summary of a failed source build: the build's own error above it decides
                            "pip_failed_installable_wheels",
                            # (round 26c) TensorFlow's CUDA runtime stub logs its INFO line at every import (the
                            # failure that follows, if any, decides); CuPy's import failure wraps the original error
                            "tf_cudart_stub_no_cuda_runtime", "cupy_failed_to_import",
                            # (round 27a) pip's conflict note, printed after an install that went on: a failure the
                            # text also shows decides first
                            "pip_requirement_conflict"})
AFTERMATH_WEIGHT = 70
#: (round 32a) rows of a compiled module that did not import, read from the names missing after it: a library the
#: loader could not open, where the text shows one (libctranslate2.so not found), says why and decides first
LOADER_AFTERMATH_ROWS = frozenset({"ctranslate2_ext_not_built"})
#: library_messages rows that say a CUDA call inside the library failed without saying which error it returned (NCCL's
#: ncclUnhandledCudaError): their own reading is a guess for when the text shows no more; where the text names the CUDA
#: error (NCCL's "Last error: Cuda failure '<cudaGetErrorString>'", a "CUDA error: ..." line), that error is read
#: instead (tables/cuda_errors.csv) and the guess is left out
UNNAMED_CUDA_FAILURE_ROWS = frozenset({"nccl_unhandled_cuda_error"})
#: NCCL's ncclSystemError ("unhandled system error": a system call failed, socket, shared memory or malloc) names no
#: call; NCCL prints the one that failed as its "Last error:" (src/misc/socket.cc, src/transport/net_ib.cc). Where
#: that line is one of the network rows below, it is the cause and the generic row's shared-memory reading is left out
UNNAMED_SYSTEM_FAILURE_ROWS = frozenset({"nccl_system_error"})
NCCL_NETWORK_ROWS = frozenset({"nccl_connect_failed", "nccl_socket_call_failed", "nccl_connection_closed",
                               "nccl_no_socket_interface", "nccl_ib_completion_error", "nccl_remote_error"})


def _driver_not_older(facts: Facts) -> bool:
    """Whether the text shows the driver's CUDA (cuDriverGetVersion, nvidia-smi's header) at least the CUDA in use."""
    from smrnb.doctor import tables
    from smrnb.doctor.rules._events import cuda_in_use

    dmax, used = value(facts, "driver", "cuda_driver_version"), cuda_in_use(facts)
    a, b = tables.parse_version(str(dmax or "")), tables.parse_version(str(used or ""))
    return bool(a and b and a[:2] >= b[:2])


def _built_for_other_python(facts: Facts, ev: dict[str, Any]) -> list[str] | None:
    """A module that cannot be imported while the text shows its compiled file built for one CPython release
    ("ngp.cp310-win_amd64.pyd") and names another Python: CPython imports an extension module only when its tag is
    the interpreter's own, so the Python that runs is not the one the module was built (or installed) for."""
    mod = str(ev.get("module") or "")
    built = (value(facts, "loader", "module_python_tags") or {}).get(mod.lower()) if "." not in mod else None
    named = value(facts, "loader", "pythons_named") or []
    if built and any(v != built for v in named):
        return ["kernel_wrong_python"]
    if built and _PY2_NO_MODULE_RE.search(str(ev.get("line") or "")):
        # Python 2's wording (import.c: "No module named %.200s"); Python 3 quotes the name (importlib._bootstrap's
        # _ERR_MSG "No module named {!r}"): a Python 2 ran the code beside a module built for CPython 3.x
        return ["kernel_wrong_python"]
    return None


#: the import error of Python 2, whose message names the module without quotes
_PY2_NO_MODULE_RE = re.compile(r"ImportError: No module named [A-Za-z_]")


#: the most shared memory one block can use on any GPU (bytes: 227 KB, compute capability 9.0 and 10.x; CUDA C++
#: Programming Guide, "Technical Specifications per Compute Capability")
MAX_SHARED_PER_BLOCK = 232448


def _shared_memory_codes(ev: dict[str, Any]) -> list[str] | None:
    """triton's shared-memory limit where the GPU already has the most any GPU has: the kernel's configuration, not
    the GPU, is at fault (a bug of the library that chose it)."""
    limit = str((ev.get("groups") or {}).get("limit") or "")
    if ev.get("key") == "triton_out_of_shared_memory" and limit.isdigit() and int(limit) >= MAX_SHARED_PER_BLOCK:
        return ["library_bug", "gpu_below_extension_minimum"]
    return None


def _shm_likely(facts: Facts) -> bool:
    """Whether a DataLoader worker's death can be read as /dev/shm too small: the text runs in a container (64 MB
    /dev/shm by default) or names shared memory itself."""
    return bool(value(facts, "context", "container")) or any(
        e.get("sign") == "shm_named" for e in events(facts, "context", "sign"))


#: the extension module that registers a device type with torch (torch without it has no backend for that type)
_BACKEND_EXTENSIONS = {"xpu": "intel_extension_for_pytorch"}


def _other_backend_codes(facts: Facts, ev: dict[str, Any]) -> list[str] | None:
    """torch's 'not linked with support for <device> devices' for a device type other than CUDA: where the text
    loads the extension that registers it (intel_extension_for_pytorch for xpu), that extension's build lacks it
    (its CPU build); where it shows the code (torch imported, a traceback through torch) without it, the code asks
    for a device this process never set up (the extension not imported, or code written for another machine's GPU),
    and the build is the second reading; the message alone names the build first and the code second."""
    device = str((ev.get("groups") or {}).get("device") or "").lower()
    if ev.get("key") != "backend_not_linked" or not device or device == "cuda":
        return None
    ext = _BACKEND_EXTENSIONS.get(device)
    lines = " ".join(str(e.get("line") or "") for e in events(facts)) + " " + " ".join(
        str(m) for m in value(facts, "loader", "modules_imported") or [])
    if ext and (ext in lines or "ipex" in lines.lower()):
        return None
    shown = "torch" in (value(facts, "loader", "modules_imported") or []) or \
        "torch" in (value(facts, "torch", "packages_installed") or [])
    if not shown:
        return ["cpu_only_torch_with_gpu", "user_code_error"]  # the message alone: the build first, both named
    return ["user_code_error", "cpu_only_torch_with_gpu"]


#: library_messages rows of onnxruntime's CUDA execution provider failing to start or missing (round 24a)
ORT_CUDA_FAILURE_ROWS = frozenset({"ort_create_cuda_provider_failed", "ort_provider_unavailable", "ort_cuda_not_loaded",
                                   "ort_provider_bridge_failed"})
#: library_messages rows of the ROCm runtime finding no AMD GPU
ROCM_NO_DEVICE_ROWS = frozenset({"hip_no_device", "torch_rocm_no_hip_gpus"})


def _rocm_on_nvidia(facts: Facts, ev: dict[str, Any]) -> list[str] | None:
    """The codes of a ROCm runtime that finds no device where the text names an NVIDIA GPU and no AMD one: a build
    for AMD GPUs (torch's ROCm wheels, a HIP program built for the AMD platform) on an NVIDIA machine, which has no
    GPU that build can use; the build for NVIDIA GPUs (a CUDA torch, HIP's NVIDIA platform) is the fix. None: the
    row's own codes."""
    if ev.get("key") not in ROCM_NO_DEVICE_ROWS or not value(facts, "driver", "gpus"):
        return None
    if any(("amd" in str(g).lower() or "radeon" in str(g).lower()) for g in value(facts, "driver", "other_gpus") or []):
        return None
    return ["cpu_only_torch_with_gpu", "no_gpu"]


#: (round 27a) jupyter_core's subcommands (jupyter X runs jupyter-X) and the distribution whose console_scripts
#: install each: notebook (jupyter-notebook; Notebook <7 also jupyter-nbextension, -serverextension,
#: -bundlerextension), jupyterlab (jupyter-lab, -labextension, -labhub), nbclassic, nbconvert (jupyter-nbconvert,
#: -dejavu), jupyter_client (jupyter-kernelspec, -kernel, -run), jupyter_console, qtconsole, jupyter_server,
#: nbclient (jupyter-execute), nbformat (jupyter-trust), jupyter_core (jupyter-troubleshoot, -migrate), read in
#: their pyproject.toml/setup.py [project.scripts] / console_scripts
JUPYTER_SUBCOMMANDS: dict[str, str] = {
    "notebook": "notebook", "nbextension": "notebook<7", "serverextension": "notebook<7",
    "bundlerextension": "notebook<7", "lab": "jupyterlab", "labextension": "jupyterlab", "labhub": "jupyterlab",
    "nbclassic": "nbclassic", "nbconvert": "nbconvert", "dejavu": "nbconvert", "kernelspec": "jupyter_client",
    "kernel": "jupyter_client", "run": "jupyter_client", "console": "jupyter_console", "qtconsole": "qtconsole",
    "server": "jupyter_server", "execute": "nbclient", "trust": "nbformat", "troubleshoot": "jupyter_core",
    "migrate": "jupyter_core"}


def _jupyter_subcommand_meant(sub: str) -> str | None:
    """The known subcommand an unknown jupyter-<sub> is a misspelling of (notebooks -> notebook), else None."""
    if sub in JUPYTER_SUBCOMMANDS:
        return None
    close = difflib.get_close_matches(sub.lower(), JUPYTER_SUBCOMMANDS, n=1, cutoff=0.8)
    return close[0] if close else None


def _what_a_row_installs(facts: Facts, ev: dict[str, Any]) -> tuple[dict[str, Any], list[str] | None]:
    """(round 27a) The event and readings of library_messages rows that name what to install in their groups:
    jupyter_core's subcommand (a misspelt one is the command's spelling; a known one its package), a console script's
    own distribution (another Python's pip where the text shows pip installing it). None: the row's own codes."""
    key, groups = ev.get("key"), ev.get("groups") or {}
    if key == "jupyter_subcommand_not_found":
        sub = str(groups.get("sub") or "")
        if meant := _jupyter_subcommand_meant(sub):
            return {**ev, "meant": meant, "subcommand": sub}, ["user_code_error", "python_package_missing"]
        return {**ev, "subcommand": sub, "install": JUPYTER_SUBCOMMANDS.get(sub, "")}, None
    if key == "pyvista_notebook_backend_failed":
        return {**ev, "install": "pyvista[jupyter]"}, None
    if key == "console_script_distribution_missing":
        dist = str(groups.get("dist") or groups.get("edist") or "")
        said = has_sign(facts, "package_said_installed", "module_said_installed")
        return {**ev, "install": dist}, ["python_package_missing", "kernel_wrong_python"] if said else \
            ["python_package_missing"]
    if key == "python_console_script_not_found":  # (round 27e) a package's console script not on PATH
        script = str(groups.get("script") or groups.get("zscript") or "")
        ev = {**ev, "script": script, "install": _SCRIPT_DISTRIBUTIONS.get(script, script)}
        if (gone := _SCRIPTS_REMOVED.get(script)) is None:
            return ev, None
        # (round 36) a script a release of its distribution removed: that release is read first unless every release
        # the text shows is older than it (then only the install); a text showing only later releases, the removal alone
        shown = (value(facts, "loader", "package_releases") or {}).get(gone["library"]) or []
        ev = {**ev, "script_removed": gone}
        if shown and all(tables.release_tuple(v) < tables.release_tuple(gone["removed_in"]) for v in shown):
            return {**ev, "script_removed": None}, None
        if shown:
            return ev, ["package_api_version_mismatch"]
        return ev, ["package_api_version_mismatch", "python_package_missing"]
    return ev, None


#: (round 27e) console scripts and the distribution that installs them (each package's console_scripts entry point);
#: the module python -m runs in their place where there is one
_SCRIPT_DISTRIBUTIONS = {"tensorboard": "tensorboard", "torchrun": "torch", "accelerate": "accelerate",
                         "huggingface-cli": "huggingface_hub", "wandb": "wandb", "gdown": "gdown",
                         "streamlit": "streamlit", "gradio": "gradio", "deepspeed": "deepspeed", "nvitop": "nvitop",
                         "gpustat": "gpustat", "yolo": "ultralytics"}
#: (round 36) console scripts a release of their distribution removed: the release, the script in its place and the
#: source
_SCRIPTS_REMOVED: dict[str, dict[str, str]] = {
    "huggingface-cli": {"library": "huggingface_hub", "removed_in": "1.0.0", "added_in": "0.34.0", "instead": "hf",
                        "examples": "hf auth login; hf download <repo_id>; hf upload <repo_id> <path>",
                        "source": "https://github.com/huggingface/huggingface_hub/releases/tag/v1.0.0 ('One CLI to Rule: "
                                  "Goodbye huggingface-cli': the complete removal of the huggingface-cli command; the "
                                  "hf command, introduced in v0.34.0, takes its place); https://huggingface.co/blog/hf-cli"},
}
_SCRIPT_MODULES = {"tensorboard": "tensorboard.main", "torchrun": "torch.distributed.run", "streamlit": "streamlit",
                   "wandb": "wandb", "gdown": "gdown", "nvitop": "nvitop", "gpustat": "gpustat"}


#: (round 35e) tables/library_messages.csv rows whose message names what to install: the row's key -> the pip
#: distribution(s) (None: read from the message's ``lib`` group, the library requires_backends names)
_HF_ROW_INSTALLS: dict[str, str | None] = {
    "hf_requires_backend": None,
    "transformers_fast_tokenizer_needs_sentencepiece": "sentencepiece protobuf",
    "langchain_community_not_installed": "langchain-community",
    "transformers_needs_accelerate": "accelerate",
    "diffusers_needs_accelerate": "accelerate",
}

#: (round 35e) the names transformers' / diffusers' requires_backends messages give a library -> its pip distribution
#: (src/transformers/utils/import_utils.py *_IMPORT_ERROR: 'requires the SentencePiece library', 'the PyAv library',
#: 'the 🤗 Datasets library', 'the 🤗 Tokenizers library'); a name not here is installed by its own name, lowercased
_HF_BACKEND_DISTS = {"sentencepiece": "sentencepiece", "pyav": "av", "🤗 datasets": "datasets",
                     "🤗 tokenizers": "tokenizers", "protobuf": "protobuf", "timm": "timm", "scipy": "scipy",
                     "scikit-learn": "scikit-learn", "vision": "Pillow", "pil": "Pillow", "pillow": "Pillow",
                     "detectron2": "detectron2", "pytesseract": "pytesseract", "tensorflow": "tensorflow",
                     "flax": "flax", "jax": "jax", "librosa": "librosa", "torchaudio": "torchaudio",
                     "transformers": "transformers", "k-diffusion": "k-diffusion", "note_seq": "note-seq",
                     "invisible_watermark": "invisible-watermark", "onnxruntime": "onnxruntime",
                     "accelerate": "accelerate", "peft": "peft", "bitsandbytes": "bitsandbytes", "ftfy": "ftfy",
                     "opencv": "opencv-python", "einops": "einops", "decord": "decord"}


def _hf_row_install(ev: Mapping[str, Any]) -> dict[str, Any]:
    """(round 35e) python_package_missing's words for a row of :data:`_HF_ROW_INSTALLS`: what the message asks for,
    installed into the Python that runs the code."""
    key = str(ev.get("key"))
    dist = _HF_ROW_INSTALLS.get(key)
    if dist is None:
        lib = str((ev.get("groups") or {}).get("lib") or "").strip()
        dist = _HF_BACKEND_DISTS.get(lib.lower(), lib.lower().replace(" ", "-")) or "<the library it names>"
    groups = ev.get("groups") or {}
    need = str(groups.get("need") or groups.get("need2") or "")
    pip = f'"{dist}>={need}"' if need and " " not in dist else dist
    titles = {"hf_requires_backend": f"The library the message names is not installed in the Python that runs the "
                                     f"code: pip installs it as {dist}",
              "transformers_fast_tokenizer_needs_sentencepiece": "The tokenizer must be converted from its slow "
                                                                 "(sentencepiece) version, and sentencepiece is not "
                                                                 "installed in the Python that runs the code",
              "langchain_community_not_installed": "The code imports an integration from its old place in langchain, "
                                                   "which now forwards it to langchain-community: not installed",
              "diffusers_needs_accelerate": "diffusers needs accelerate to load with a device_map: not installed in "
                                            "the Python that runs the code",
              "transformers_needs_accelerate": "transformers needs accelerate here (device_map, low_cpu_mem_usage, "
                                               "the Trainer, a quantizer): not installed in the Python that runs the "
                                               "code" + (f", or older than {need}" if need else "")}
    return {"title": titles.get(key) or _row_title(ev),
            "commands": [f"python -m pip install -U {pip}   # with the Python that runs the code (a notebook: %pip "
                         "install, then restart the kernel)",
                         'python -c "import sys; print(sys.executable)"   # that Python']}


def _row_install_finding(ev: Mapping[str, Any]) -> dict[str, Any] | None:
    """(round 27a) python_package_missing's words for the rows of :func:`_what_a_row_installs` (a jupyter subcommand's
    package, a console script's distribution), else None."""
    key = ev.get("key")
    if key == "jupyter_subcommand_not_found":
        sub, pkg = str(ev.get("subcommand") or "<name>"), str(ev.get("install") or "")
        pip = f'"{pkg}"' if "<" in pkg else pkg
        return {"title": f"jupyter {sub}: no jupyter-{sub} beside the jupyter that ran: "
                         + (f"{pkg.split('<')[0]} is not installed in its Python" if pkg else
                            "the package that provides it is not installed in its Python"),
                "commands": ["head -1 \"$(command -v jupyter)\"   # the Python whose jupyter runs",
                             f"python -m pip install {pip or '<the package that provides jupyter-' + sub + '>'}   "
                             "# with that Python",
                             "jupyter --paths; which -a jupyter   # another jupyter earlier on PATH"]}
    if key == "jupyterhub_image_has_no_notebook":  # (round 32c) tables/library_messages.csv's row and its source
        return {"title": "The jupyterhub/jupyterhub image has no Jupyter Notebook for the single-user servers it spawns",
                "evidence": ["the image holds only the Hub (jupyterhub/jupyterhub README, Docker): "
                             "jupyterhub-singleuser needs notebook (or jupyterlab) in the same container"],
                "commands": ["docker exec -it <container> python3 -m pip install notebook   # <container>: the Hub's "
                             "container (docker ps); or jupyterlab; then log in again",
                             "# lasting: a derivative image: FROM jupyterhub/jupyterhub + RUN python3 -m pip install "
                             "notebook"]}
    if key == "python_console_script_not_found":  # (round 27e)
        script, dist = str(ev.get("script") or ""), str(ev.get("install") or "")
        mod = _SCRIPT_MODULES.get(script)
        gone = ev.get("script_removed")
        return {"title": f"{script}: command not found: {dist} is not installed in this environment, or its scripts "
                         "folder is not on PATH" + (f" (or {dist} is {gone['removed_in']} or later, which has no "
                                                    f"{script}: its commands are {gone['instead']}'s)" if gone else ""),
                "commands": [f"python -m pip show {dist}   # installed in the Python on PATH?",
                             f"python -m pip install {dist}   # with the python that should run it (a venv or conda "
                             "env: activate it first)",
                             "python -c \"import sysconfig; print(sysconfig.get_path('scripts'))\"   # where its "
                             f"{script} goes: that folder must be on PATH",
                             *([f"python -m {mod} ...   # the same program without PATH (the arguments you gave "
                                f"{script})"] if mod else [])]}
    if key == "flash_attn_not_installed":  # (round 34b)
        return {"title": "flash_attn is not installed in the Python that loads the model, which asks for "
                         "FlashAttention 2",
                "commands": ["python -c \"import torch; print(torch.__version__, torch.version.cuda)\"   # the pair "
                             "a flash-attn wheel must match",
                             "pip install flash-attn --no-build-isolation   # Linux; a prebuilt wheel from "
                             "https://github.com/Dao-AILab/flash-attention/releases avoids the long build",
                             "# or without it: from_pretrained(..., attn_implementation=\"sdpa\") (or \"eager\"; "
                             "a model's own config.json may name attn_implementation)"]}
    if key == "comfyui_node_types_missing":  # (round 35a) tables/library_messages.csv's row
        return {"title": "ComfyUI did not register the workflow's custom node types: the node pack is not installed, "
                         "or it failed to import at start-up (its requirements missing from ComfyUI's own Python)",
                "commands": ["# ComfyUI's start-up log: the line 'Cannot import ... module for custom nodes:' names "
                             "the pack and what its import lacked",
                             "<the python ComfyUI runs> -m pip install -r custom_nodes/<the node pack folder>/requirements.txt   # portable: "
                             "python_embeded\\python.exe -m pip ...; a venv: its own python",
                             "# then restart ComfyUI (and update ComfyUI itself where the pack needs a newer one)"]}
    if key == "pyvista_notebook_backend_failed":
        return {"title": "PyVista's notebook backend could not import its packages in the kernel's Python (it fell "
                         "back to a static image)",
                "commands": ["%pip install 'pyvista[jupyter]'   # in a notebook cell: trame, its widgets and ipywidgets "
                             "into the kernel's own Python",
                             "import sys; print(sys.executable)   # in a cell: the kernel's Python"]}
    if key in _HF_ROW_INSTALLS:  # (round 35e) the Hugging Face / langchain stack's own "install X" messages
        return _hf_row_install(ev)
    if key == "console_script_distribution_missing":
        dist = str(ev.get("install") or "<the distribution>")
        return {"title": f"The console script's own distribution {dist} is not installed in the Python that runs it",
                "commands": ["head -1 \"$(command -v <the script>)\"   # the Python on the script's first line",
                             f"<that python> -m pip install {dist}   # into that Python (or the project: pip install "
                             "-e . with it)",
                             "python -m pip --version   # the Python pip installs into: another one is the cause"]}
    return None


@rule("torch")
def torch_messages(facts: Facts) -> Iterable[Finding]:
    """torch's own messages (tables/torch_messages.csv), CUDA errors by number, name or message
    (cuda_errors and the other enumerations, decided here for every layer), modules that cannot be imported,
    and a CPU build read in a text."""
    for ev in events(facts, "torch", "message", table="torch_messages"):
        if ev.get("key") == "dataloader_worker_exited" and not _shm_likely(facts):
            continue  # a worker that died outside a container: the host's OOM killer, a crash in the worker, ...
        yield from resolve(facts, ev, unavailable_codes(facts) if ev.get("key") in UNAVAILABLE_ROWS else
                           _other_backend_codes(facts, ev))
    named_cuda_error = bool(events(facts, "driver", "cuda_error"))
    lib_events = events(facts, "torch", "message", table="library_messages")
    named_network_failure = any(e.get("key") in NCCL_NETWORK_ROWS for e in lib_events)
    nvenc_lib_missing = any(e.get("key") == "ffmpeg_nvenc_library_not_loaded" for e in lib_events)
    ort_cpu_package = any(e.get("key") == "onnxruntime_cpu_package_installed" for e in lib_events)
    for ev in lib_events:
        if ev.get("key") in UNNAMED_CUDA_FAILURE_ROWS and named_cuda_error:
            continue
        if ev.get("key") == "warp_entry_point_invalid" and _driver_not_older(facts):
            # (round 32g) Warp's entry-point failure where the text shows a driver whose CUDA is not older than the
            # one in use (Warp's banner 'CUDA Toolkit 12.8, Driver 13.0'): the row's second reading, a driver too
            # old, is ruled out (test_explain_kinds10); Warp's release is the one
            yield from resolve(facts, ev, ["library_bug"])
            continue
        if ev.get("key") == "setuptools_pkg_resources_packaging_removed" and not has_sign(
                facts, "pip_build", "build_context", "pip_source_build", "build_requirements_failed"):
            # (round 34b) outside a build (a program run, or the bare line): the environment's setuptools is newer
            # than the code was written for (pypa/setuptools#4376: 'roll back to 69.5.1'), the installed release's
            # API first; inside pip's build (its isolated environment installs the newest setuptools itself) the
            # row's own readings, the package's build code and its build requirements, stay first
            yield from resolve(facts, ev, ["package_api_version_mismatch", "library_bug", "build_dependency_missing"])
            continue
        if ev.get("key") == "flash_attn_not_installed" and value(facts, "context", "os") == "windows":
            # (round 34b) flash-attn publishes Linux wheels only: on native Windows its absence is the platform's
            yield from resolve(facts, ev, ["package_no_build_for_platform", "python_package_missing"])
            continue
        if ev.get("key") == "warp_launch_argument_count":
            # (round 34b) Warp's launch refusing the number of arguments: another installed package's frames (a
            # library built on Warp launching Warp's own kernels) make it that package's release against this Warp's;
            # the launch of the person's own code (no other package's frame) is their inputs list first
            others = [p for p in value(facts, "torch", "packages_installed") or [] if str(p).lower() != "warp"]
            yield from resolve(facts, ev, ["package_api_version_mismatch", "library_bug"] if others else
                               ["user_code_error", "package_api_version_mismatch"])
            continue
        if nvenc_lib_missing and ev.get("key") == "nvenc_driver_api_too_old" and \
                "minimum required" in str(ev.get("line") or "").lower():
            continue  # FFmpeg prints the minimum driver after any library it could not load: the library is the cause
        if ev.get("key") in UNNAMED_SYSTEM_FAILURE_ROWS and named_network_failure:
            continue
        if ev.get("key") in AFTERMATH_ROWS or (ev.get("key") in LOADER_AFTERMATH_ROWS and
                                               events(facts, "loader", "library_missing")):
            ev = {**ev, "weight": max(int(ev.get("weight", 30)), AFTERMATH_WEIGHT)}
        if ort_cpu_package and ev.get("key") in ORT_CUDA_FAILURE_ROWS:
            # (round 24a) onnxruntime's CUDA provider failing where the text installs the CPU package (onnxruntime,
            # not onnxruntime-gpu): the CPU build first, the row's own readings (the CUDA libraries it loads) after
            yield from resolve(facts, ev, ["cpu_only_torch_with_gpu", *(c for c in ev.get("codes") or ()
                                                                        if c != "cpu_only_torch_with_gpu")])
            continue
        if ev.get("key") in HOST_MEMORY_ROWS and host_memory_codes(facts, ev) == []:
            continue  # (round 25) a bare MemoryError or 'Killed' where the text reads the GPU's memory running out
        ev, own = _what_a_row_installs(facts, ev)
        yield from resolve(facts, ev, own or _rocm_on_nvidia(facts, ev) or _shared_memory_codes(ev))
    for ev in events(facts, "torch", "sign"):
        if ev.get("sign") == "cuda_unavailable":
            yield from resolve(facts, ev, unavailable_codes(facts))
            continue
        code = {"cpu_build": "cpu_only_torch_with_gpu", "gpu_dropped": "torch_wheel_lacks_gpu_arch",
                "oom": "cuda_oom", "oom_said": "cuda_oom", "companion": "companion_built_for_other_torch"}.get(str(ev.get("sign")))
        if code:
            yield from resolve(facts, ev, [code])
    from smrnb.doctor.rules._abi import class_attribute_codes, module_codes, signature_codes

    for ev in events(facts, "torch", "module_missing"):
        yield from resolve(facts, ev, _built_for_other_python(facts, ev) or module_codes(facts, ev))
    for ev in events(facts, "torch", "signature_mismatch"):
        yield from resolve(facts, ev, signature_codes(facts, ev))
    symptom = events(facts, "torch", "module_missing") or events(facts, "toolkit", "build_failed")
    for ev in [] if symptom else events(facts, "torch", "attribute_in_package"):
        # an installed package's own code reaching an attribute an object lacks: mostly another library's object of a
        # release the package was not written for (networkx 2 removed Graph.node that trimesh 2 used), else the bug
        # of the package's own release; after a module that failed to import or build (an op's compiled module), the
        # attribute is that failure's symptom, and a table row reading the same line knows it better
        if not any(e.get("line") == ev.get("line") for e in events(facts, kind="message")):
            yield from resolve(facts, ev, ["package_api_version_mismatch", "library_bug"])
    messages = events(facts, kind="message")
    for ev in events(facts, "torch", "sdist_file_missing")[:1]:  # (round 26b) the release's packaging
        yield from resolve(facts, ev, ["library_bug"])
    for ev in [] if symptom else events(facts, "torch", "exception_in_package"):
        if not any(_same_message(e, ev) for e in messages):
            yield from resolve(facts, ev, _exception_in_package_codes(facts, ev))
    if not symptom and not events(facts, "torch", "attribute_in_package"):
        for ev in events(facts, "torch", "class_attribute_missing")[:1]:
            # an object of a class without the attribute the code asks for, raised in the project's own code (or no
            # frame shown): the code written for another release of the class's package (a method renamed or
            # removed: DataFrame.append in pandas 2), else the code's own mistake (another object than it thinks,
            # trimesh's Scene for a mesh); the words alone do not tell, so both. Only where the text shows the class
            # is a package's (imported from it, or Python's "Did you mean" of a renamed member): a class defined in
            # Python prints its bare name, the project's own as a library's, and the project's own class is its bug
            # or the user's edit (no reading of the rules; what similar reports say instead)
            seen = events(facts, "torch", "class_attribute_missing")  # a title repeats the traceback's line
            codes = class_attribute_codes(facts, seen)
            if codes and not any(_same_message(e, ev) for e in messages):
                yield from resolve(facts, {**ev, "project_class": codes[0] == "library_bug",
                                               "own_frame": any(e.get("own_frame") for e in seen)}, codes)
    for ev in [] if events(facts, "toolkit", "build_failed") else events(facts, "torch", "own_code_exception")[:1]:
        # (round 28a) one of Python's built-in exceptions on the person's own values in the person's own code (a data
        # path, a config key, an index, a JSON file, an attribute of their own object, their modules' cycle): not the
        # environment; a table row reading the same line knows it better
        # (a module's line is also a kernel row's, which reads it only in a notebook)
        if _library_checkout(str(ev.get("file") or "")) or (ev.get("self_attr") and class_attribute_codes(
                facts, events(facts, "torch", "class_attribute_missing"))):
            continue  # (a project's checkout in two folders or GitHub's archive: its bug, round 26b's reading)
        if ev.get("circular") or ev.get("meant") or ev.get("name_meant") or (
                not symptom and not any(_same_message(e, ev) for e in messages)):
            yield from resolve(facts, ev, ["user_code_error"])
    if not symptom and not messages and not events(facts, "torch", "exception_in_package"):
        for ev in events(facts, "torch", "assert_in_own_code")[:1]:
            # the project's own check of its inputs failed (a dataset folder of another layout, a value out of range):
            # the inputs, or the code, are to change; a text any table row reads (a version check's words, torch's
            # own messages) is that row's
            yield from resolve(facts, ev, ["user_code_error"])
    t = layer(facts, "torch")
    if t.get("cpu_build") and from_text(facts, "torch", "cpu_build"):
        line = (t.get("read_from") or {}).get("version", "")
        yield from resolve(facts, {"kind": "state", "from": "text", "weight": 22, "line": line,
                                   "fact": f"torch {t.get('version')}"}, ["cpu_only_torch_with_gpu"])
    wanted, have = str(t.get("version_wanted") or ""), str(t.get("version") or "")
    if "+cu" in wanted and have and "+" not in have and not t.get("cpu_build") and from_text(facts, "torch", "version"):
        # the text expected a CUDA build (+cuXYZ) and shows a release without that tag: the CPU wheels of Windows and
        # macOS (and a source build without CUDA) carry no tag, so does PyPI's default CUDA build on Linux;
        # torch.version.cuda decides
        line = (t.get("read_from") or {}).get("version_wanted", "")
        yield from resolve(facts, {"kind": "state", "from": "text", "weight": 22, "line": line,
                                   "fact": f"torch {have} where {wanted} was expected"}, ["cpu_only_torch_with_gpu"])


def _same_message(message: dict[str, Any], ev: dict[str, Any]) -> bool:
    """Whether a table row's event reads the exception of ``ev``: the same line, or a line holding its message (a
    title that repeats the traceback's last line)."""
    line, said = str(ev.get("line") or ""), str(message.get("line") or "")
    words = line.split(": ", 1)[1].strip()[:60] if ": " in line else ""
    return said == line or (len(words) >= 12 and words in said)


def _exception_in_package_codes(facts: Facts, ev: dict[str, Any]) -> list[str]:
    """What an exception raised by an installed package's own code means (``torch.exception_in_package``). A
    SyntaxError there: the installed release's source does not parse under this Python (syntax of a newer Python
    than the release was published for: its bug, fixed in a later release; else another release of it fits this
    Python). An AssertionError (the package's check of what it was given) or TorchScript's missing attribute of a
    torch type in its scripted code: the calling code, or torch, is of another release than the package was written
    for (spconv 1.x code on spconv 2, a gsplat signature that changed, a torch_sparse for a newer torch); the second
    reading is the package's own bug where no code of the project's own calls it in the text, else the calling code's
    mistake (the text shows the project's frames: its inputs may be what the check refuses)."""
    if ev.get("generic") and ev.get("own_call"):
        # (round 29b) a TypeError/ValueError raised by the package's frame, called from the person's own frame (a
        # script, a cell): Python's documented meaning of the two (an argument of an inappropriate type / value) puts
        # the values the call passed first; the package mishandling values it documents as valid second
        return ["user_code_error", "library_bug"]
    if ev.get("generic") and ev.get("exception") == "AttributeError" and ev.get("of_none"):
        # (round 24) an attribute of None inside the package: a value it did not get (its own bug, or the caller's
        # value, round 16's near-miss), no other release's API
        return ["library_bug"]
    # (round 25a) another object's attribute missing inside the package's own code (ipydatawidgets asking traitlets'
    # class for _instance_inits): its own bug, or a library it uses of another release than it was written for
    # (the generic reading below)
    if ev.get("exception") == "SyntaxError" or ev.get("generic"):
        # (round 24) a generic exception (an attribute of None, a TypeError, a file of its own not found) raised by
        # the package's own code with no code of the project's calling it: the release's bug first, another release
        # of a library it uses second (the event's weight ranks it after every reading of the text's own words)
        return ["library_bug", "package_api_version_mismatch"]
    if ev.get("exception") == "AssertionError" and has_sign(facts, "fixed_in_said"):
        # (round 27e, blind audit 27) the package's own assertion and a release the text says fixed it: its bug
        return ["library_bug", "package_api_version_mismatch"]
    own = bool(value(facts, "torch", "source_files")) and ev.get("exception") == "AssertionError"
    return ["package_api_version_mismatch", "user_code_error" if own else "library_bug"]


@rule("torch")
def source_build_under_python2(facts: Facts) -> Iterable[Finding]:
    """(round 34b) pip under a Python 2.7 the text shows, failing in a package's setup.py while it reads the package's
    metadata (``toolkit.sign`` pip_egg_info_failed): pip found no wheel of the package for Python 2 and fell back to
    its source distribution, whose setup.py (of a release for Python 3 only) fails there; a Python 3 is the way.
    Weighed below every reading of the failure's own words (a file the sdist lacks, a build requirement)."""
    pythons = [str(v) for v in (value(facts, "loader", "package_releases") or {}).get("python") or []]
    pythons += [str(v) for v in value(facts, "loader", "pythons_named") or []]
    if not pythons or not all(v.startswith("2.") for v in pythons):
        return
    for ev in events(facts, "toolkit", "sign"):
        if ev.get("sign") == "pip_egg_info_failed":
            yield from resolve(facts, {**ev, "weight": 12, "python2": pythons[0]}, ["package_no_build_for_platform"])
            return


@rule("torch")
def no_wheel_for_32bit_python(facts: Facts) -> Iterable[Finding]:
    """pip finding no release of a package (the versions it saw are none, or a placeholder's) under a 32-bit Python the
    text shows: torch, TensorFlow, Paddle and the CUDA libraries publish wheels for 64-bit Pythons only, so no file of
    theirs fits this interpreter's platform tag (win32, linux_i686); a 64-bit Python is the way."""
    if value(facts, "context", "python_bits") != 32:
        return
    for ev in events(facts, "kaolin", "pip_no_match"):
        yield from resolve(facts, {**ev, "weight": 10}, ["wrong_architecture_binary"])
        return


@rule("torch")
def regression_told(facts: Facts) -> Iterable[Finding]:
    """A failure the text says began with a release or an update of the software ("after update (4.0.3 -> 4.1.0)",
    "works in previous versions", "new in last 8 days", "since upgrading to 2.1"): that release's bug, ranked after
    the readings of the failure's own words (a cause they name stays first). A crash is the loader's crash reading."""
    from smrnb.doctor.rules._loader import CRASH_ROWS

    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "regression_said"]
    crashed = any(e.get("key") in CRASH_ROWS for e in events(facts, "torch", "message", table="torch_messages")) or \
        any(e.get("sign") == "crash_said" for e in events(facts, "torch", "sign"))
    if said and not crashed:
        vague = all(e.get("vague") for e in said)  # (round 26b) no release named: after every other reading
        if not vague and not any(re.search(r"\d", str(e.get("phrase") or "")) for e in said) and _removed_named_in(facts):
            # (round 27e, blind audit 27) "after upgrading" beside a name a release removed (np.float): the removal
            # is what the update brought, no release the text says works
            vague = True
            said = [{**said[0], "vague": True}]
        weight = 60 if vague else 30
        yield from resolve(facts, {**said[0], "weight": weight, "bug": "regression", "package": None,
                                   "fact": f"the text says the failure began with an update ({said[0].get('phrase')})"},
                           ["library_bug"] + (["package_api_version_mismatch"] if _upgraded_library_failing(
                               facts, said[0]) else []))


@rule("torch")
def old_release_still_seen(facts: Facts) -> Iterable[Finding]:
    """(round 24) A package said to show an older release than the one just installed ("upgraded to 3.2.0 but still
    seeing 1.2.1"): Python imports another copy of it that comes first on its path (a user site-packages copy, one
    apt or another environment installed), so the new one is never imported; in a notebook, the kernel that imported
    the package before the upgrade first (a restart loads the new one). Ranked after the failure's own words."""
    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "old_release_still_seen"]
    if said:
        codes = ["kernel_restart_needed", "library_shadowed_older_copy"] if has_sign(facts, "in_notebook") else \
            ["library_shadowed_older_copy"]
        yield from resolve(facts, {**said[0], "weight": 28, "fact": f"the text says an older release is still seen "
                                                                    f"after the install ({said[0].get('phrase')})"},
                           codes)


@rule("torch")
def release_breaks_told(facts: Facts) -> Iterable[Finding]:
    """(round 24) A named release of a package said to break the code that uses it ("gsplat 1.0 breaks nerfstudio",
    "new diffusers version breaks an import", "errors out in torchvision 0.17"): the calling code was written for
    another release of that package (an API it moved, renamed or removed): the release the code was written for, or
    the code's port to the new API, is the fix; that release's own bug second. Ranked after the readings of the
    failure's own words."""
    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "release_breaks_said"]
    if said:
        pkg = str(said[0].get("package") or "")
        yield from resolve(facts, {**said[0], "weight": 30, "package": pkg or None,
                                   "fact": f"the text says a release of {pkg or 'a package'} breaks the code "
                                           f"({said[0].get('phrase')})"},
                           ["package_api_version_mismatch", "library_bug"])


@rule("torch")
def available_without_devices(facts: Facts) -> Iterable[Finding]:
    """(round 31c) torch.cuda.is_available() True and torch.cuda.device_count() 0 in the text: torch answers
    is_available() from the device count (or NVML's, under PYTORCH_NVML_BASED_CUDA_CHECK=1), so the two disagree only
    where torch's own checks disagree (its release's bug) or the visible devices changed between the calls
    (CUDA_VISIBLE_DEVICES set after CUDA was first asked): torch's release first, the process's devices second."""
    t = layer(facts, "torch")
    if t.get("cuda_available") is True and t.get("device_count") == 0 and from_text(facts, "torch", "cuda_available"):
        line = str((t.get("read_from") or {}).get("device_count") or "")
        yield from resolve(facts, {"kind": "state", "from": "text", "line": line, "weight": 12,
                                   "bug": "available_without_devices",
                                   "fact": "torch.cuda.is_available() True and torch.cuda.device_count() 0"},
                           ["library_bug", "gpu_not_exposed_to_process"])


@rule("torch")
def release_bug_told(facts: Facts) -> Iterable[Finding]:
    """(round 31c) A named release of a package the text says is buggy or broken itself ("nerfacc==0.3.4 has bug", "a
    bug inside nerfacc lib v 0.3.4", "regression in gsplat 1.0.1", "Mitsuba 3.7.0 is broken"): that release's bug
    (the one before it, or a later fixed one), the calling code written for another release second (what changed
    decides: the code, or the package's release); "is broken" without a bug said, the other way round. Ranked after
    the readings of the failure's own words."""
    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "release_bug_said"]
    if said:
        pkg = str(said[0].get("package") or "")
        yield from resolve(facts, {**said[0], "weight": 30, "fact": f"the text says {pkg} {said[0].get('version')} "
                                                                    f"is broken ({said[0].get('phrase')})"},
                           ["library_bug", "package_api_version_mismatch"] if said[0].get("bug") else
                           # "is broken" without a bug said: often code written for the release before (what
                           # changed decides), as release_breaks_told
                           ["package_api_version_mismatch", "library_bug"])


@rule("torch")
def shadowing_file_told(facts: Facts) -> Iterable[Finding]:
    """(round 22) A file of the user's own named like a module, told in prose beside the folder the program starts in
    ("a file called `decorator.py` in the same folder you run `jupyter notebook`"), where the text's import failure
    names that module: Python puts the script's (or the working) folder first on sys.path, so the file is imported in
    the installed module's place (the language reference, 'The import system'; sys.path's first entry): renaming
    the file is the fix, not the environment."""
    said = [e for e in events(facts, "torch", "sign") if e.get("sign") == "shadow_file_said"]
    if not said:
        return
    from smrnb.doctor.rules._abi import shadow_named

    name = str(said[0].get("phrase") or "")
    if name.lower() not in [str(n).lower() for n in value(facts, "torch", "imports_failed") or []] or \
            any(shadow_named(facts, ev) for ev in events(facts, "torch", "module_missing")):
        return  # (a module event naming it reads it: module_codes)
    yield from resolve(facts, {**said[0], "weight": 20, "key": "", "meaning": f"a file of yours named {name}.py "
                               f"shadows the module {name} (Python imports the file from the folder it starts in)"},
                       ["user_code_error"])


@rule("torch")
def option_value_not_int(facts: Facts) -> Iterable[Finding]:
    """(round 35a) int() refused the very string the text's command gives an option (_textfacts._option_value_not_int:
    "-t Task101_BrainSeg" and "invalid literal for int() with base 10: 'Task101_BrainSeg'"): the program reads that
    option as a number (an id, a count, an index), so the command passes a name, a path or a label where a number
    belongs: the command's mistake (the program's --help names what the option takes), not the environment."""
    for ev in [e for e in events(facts, "torch", "sign") if e.get("sign") == "option_value_not_int"][:1]:
        opt, _, val = str(ev.get("phrase") or "").partition(" ")
        yield from resolve(facts, {**ev, "weight": 22, "key": "", "meaning": f"the command gives {opt} the value "
                                   f"'{val}', which the program converts with int(): that option takes a number (an "
                                   "id, a count, an index), not a name"}, ["user_code_error"])


@rule("torch")
def template_call_on_plain_member(facts: Facts) -> Iterable[Finding]:
    """(round 35a) nvcc's bound-function and type-name errors at one line of a torch extension's source
    (_textfacts._template_call_on_plain_member): the source calls a torch member as a template that the installed
    torch declares as a plain function (data_ptr<T>() against a torch with only void* data_ptr()): the source was
    written for a newer torch; the failed build second."""
    for ev in [e for e in events(facts, "toolkit", "sign") if e.get("sign") == "template_call_on_plain_member"][:1]:
        yield from resolve(facts, {**ev, "weight": 24, "key": ""}, ["source_needs_newer_torch", "extension_build_failed"])


@rule("torch")
def relative_import_in_cell(facts: Facts) -> Iterable[Finding]:
    """(round 35a) A notebook cell running a relative import (_textfacts._relative_import_in_cell): a cell is no module
    of a package, so the import cannot resolve (Python's "attempted relative import with no known parent package"):
    code copied from a package's source into the notebook; importing from the installed package is the fix."""
    for ev in [e for e in events(facts, "torch", "sign") if e.get("sign") == "relative_import_in_cell"][:1]:
        yield from resolve(facts, {**ev, "weight": 22, "key": ""}, ["user_code_error"])


#: a package pinned in pip's form on a line ("after upgrading to `ipywidgets==7.0.0`")
_PINNED_RE = re.compile(r"\b([A-Za-z][A-Za-z0-9_.-]{1,40})==[0-9]")


def _removed_named_in(facts: Facts) -> bool:
    """(round 27e) Whether the text's "not there" errors name something tables/removed_apis.csv says a release
    removed."""
    from smrnb.doctor.rules._abi import removed_api

    return any(removed_api(facts, ev) is not None for layer in ("abi", "torch", "loader")
               for ev in events(facts, layer, "module_missing"))


def _upgraded_library_failing(facts: Facts, ev: Mapping[str, Any]) -> bool:
    """Whether the update the text names is of a package (``X==V``) whose own installed files the traceback runs in
    (round 18): code calling it that was written for its earlier release is the other reading of the regression
    (an API the release changed), beside the release's own bug."""
    line = str(ev.get("line") or "")
    if not re.search(r"\b(?:upgrad|updat)", line.lower()):
        return False
    shown = {str(p).lower() for p in value(facts, "torch", "packages_installed") or []}
    return any(m.group(1).lower().replace("-", "_") in shown for m in _PINNED_RE.finditer(line))


@rule("torch")
def cuda_torch_on_macos(facts: Facts) -> Iterable[Finding]:
    """pip finding no CUDA build of torch (a ``+cuXYZ`` local version) on a Mac: PyTorch publishes no CUDA wheels for
    macOS (its install selector: "MacOS Binaries dont support CUDA"), and no NVIDIA driver exists for current macOS
    (Apple silicon has no NVIDIA GPU at all): the machine has no GPU torch's CUDA build could use."""
    if value(facts, "context", "os") != "macos":
        return
    for ev in events(facts, "kaolin", "pip_no_match"):
        line = str(ev.get("line") or "")
        if ev.get("package") == "torch" and "+cu" in line.split("(from versions", 1)[0]:
            yield from resolve(facts, ev, ["no_gpu"])


@rule("torch")
def gpu_outside_cuda_release(facts: Facts) -> Iterable[Finding]:
    """A GPU the text names whose compute capability is outside every architecture of the CUDA release the software
    is built with (tables/nvcc_archs.csv): torch's CUDA when the text shows it, else the one CUDA release the text
    names (a framework built for it, the toolkit it is built with). No build of that CUDA release carries code for
    the GPU (an Ampere GPU under CUDA 10.x, a Kepler one under CUDA 12): its kernels fail or wait on a PTX JIT that
    cannot target the GPU. A reading of the facts, ranked after what the text's messages say."""
    from smrnb.doctor._install import cc_to_int

    if not from_text(facts, "driver", "gpus"):
        return
    tc = value(facts, "torch", "cuda") if from_text(facts, "torch", "cuda") else None
    named = sorted({str(v) for v in value(facts, "toolkit", "cuda_named") or []})
    cuda = tc or (named[0] if len(named) == 1 else None)
    archs = nvcc_archs(str(cuda)) if cuda else None
    if not archs:
        return
    for g in value(facts, "driver", "gpus") or []:
        n = cc_to_int(str(g.get("compute_capability") or "")) if isinstance(g, dict) else None
        if n is None or min(archs) <= n <= max(archs):
            continue
        side = "newer" if n > max(archs) else "older"
        line = str(((layer(facts, "driver").get("read_from") or {}).get("gpus")) or "")
        ev = {"kind": "state", "from": "text", "weight": 22, "line": line,
              "fact": f"GPU {g.get('name') or ''} (compute capability {g['compute_capability']}) is {side} than every "
                      f"architecture CUDA {cuda} compiles for ({min(archs) / 10:.1f}-{max(archs) / 10:.1f})"}
        codes = (["torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"] if tc else
                 ["no_kernel_image_for_gpu", "torch_wheel_lacks_gpu_arch"])
        yield from resolve(facts, ev, codes)
        return


#: the oldest compute capability a CUDA stack of the last years runs on: CUDA 9.0 (2017) dropped Fermi (2.x) and every
#: GPU before it, and cuDNN never ran below 3.0 (cuDNN API reference, CUDNN_STATUS_ARCH_MISMATCH)
OLDEST_CURRENT_CC = 30


@rule("torch")
def gpu_older_than_any_current_stack(facts: Facts) -> Iterable[Finding]:
    """A GPU the text names (or whose compute capability it prints) below 3.0 (Fermi, the Tesla architecture: GTX 4xx/5xx,
    9800 GT, NVS 5400M): no CUDA library of the last years (cuDNN, any framework, a CUDA 9+ build) carries code for it,
    whatever the stack's message says; the GPU is below the software's minimum."""
    from smrnb.doctor._install import cc_to_int

    if not from_text(facts, "driver", "gpus"):
        return
    for g in value(facts, "driver", "gpus") or []:
        n = cc_to_int(str(g.get("compute_capability") or "")) if isinstance(g, dict) else None
        if n is None or n >= OLDEST_CURRENT_CC:
            continue
        line = str(((layer(facts, "driver").get("read_from") or {}).get("gpus")) or "")
        ev = {"kind": "state", "from": "text", "weight": 40, "line": line,
              "fact": f"GPU {g.get('name') or ''} (compute capability {g['compute_capability']}) is older than any "
                      "current CUDA library supports (3.0 and newer; CUDA 9.0 dropped Fermi)"}
        yield from resolve(facts, ev, ["gpu_below_extension_minimum"])
        return


@rule("torch")
def arch_list_in_text(facts: Facts) -> Iterable[Finding]:
    """torch's architectures as the text prints them (torch.cuda.get_arch_list(), or its warning's "supports CUDA
    capabilities ...") against the GPU the text names: no cubin of the GPU's major at or below its minor and no PTX
    at or below its capability means torch's own kernels cannot run there (the live rule decides the same on the
    machine's facts)."""
    if not (from_text(facts, "torch", "arch_list") and from_text(facts, "driver", "gpus")):
        return
    arch_list = value(facts, "torch", "arch_list")
    if not isinstance(arch_list, list) or not arch_list:
        return
    for g in value(facts, "driver", "gpus") or []:
        cc = g.get("compute_capability") if isinstance(g, dict) else None
        if not cc or arch_covers(arch_list, str(cc))[0]:
            continue
        line = str((layer(facts, "torch").get("read_from") or {}).get("arch_list") or "")
        ev = {"kind": "state", "from": "text", "weight": 16, "line": line,
              "fact": f"torch's architectures {' '.join(arch_list)} lack GPU {g.get('name') or ''} (compute "
                      f"capability {cc})", "groups": {"cc": str(cc)}}
        yield from resolve(facts, ev, ["torch_wheel_lacks_gpu_arch"])
        return


@rule("torch")
def tensorflow_gpu_on_native_windows(facts: Facts) -> Iterable[Finding]:
    """TensorFlow 2.11 and later on native Windows asked for its GPUs: its Windows wheels have no CUDA since 2.11
    (tensorflow.org/install/pip: "TensorFlow 2.10 was the last TensorFlow release that supported GPU on
    native-Windows"), so it finds none, whatever the driver and the toolkit."""
    yield from _tensorflow_gpu_reading(facts, True, "tf_gpu_query", 22, "cpu_only_torch_with_gpu", since_minor=11)


@rule("torch")
def tensorflow_finds_no_gpu_on_linux(facts: Facts) -> Iterable[Finding]:
    """TensorFlow 2.x on Linux (or WSL) asked for its GPUs and answered none (an empty list, a count of 0, False): it
    loads the CUDA runtime, cuBLAS, cuDNN ... with dlopen at start and, when one of the releases it was built for is
    not found, only warns ("Cannot dlopen some GPU libraries ... Skipping registering GPU devices") and goes on with
    the CPU (tensorflow/core/common_runtime/gpu/gpu_device.cc); the pip wheels since 2.14 take them from the
    nvidia-* wheels ("tensorflow[and-cuda]", tensorflow.org/install/pip), which the loader must find. Native Windows
    (no GPU since 2.11) is the rule above's; before 2.11 its GPU build loads the CUDA DLLs of its release the same way
    (self_check.py's cudart64_NNN.dll), so it is read here too (round 26c)."""
    yield from _tensorflow_gpu_reading(facts, False, "tf_gpu_none", 12, "cudart_not_found", windows_below_minor=11)


def _tensorflow_gpu_reading(facts: Facts, native_windows: bool, sign: str, weight: int, code: str,
                            since_minor: int = 0, windows_below_minor: int = 0) -> Iterable[Finding]:
    """``code`` read (at ``weight``) from the text's first TensorFlow ``sign``, where the text names a TensorFlow 2.x
    (2.``since_minor`` or later) and runs on native Windows or not, as ``native_windows`` says (native Windows also
    below 2.``windows_below_minor``)."""
    ver = str(value(facts, "torch", "tensorflow_version") or "")
    windows = value(facts, "context", "os") == "windows" and not value(facts, "context", "wsl")
    if not ver.startswith("2."):
        return
    minor = int(ver.split(".")[1])
    if (windows != native_windows and not (windows and minor < windows_below_minor)) or \
            (since_minor and minor < since_minor):
        return
    for ev in events(facts, "torch", "sign"):
        if ev.get("sign") == sign:
            yield from resolve(facts, {**ev, "weight": weight, "framework": "tensorflow", "version": ver}, [code])
            return
