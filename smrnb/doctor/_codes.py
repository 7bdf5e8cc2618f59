# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one table of the doctor's finding codes, and CODES.md generated from it.

Every finding, whether a rule found it on the live machine or :mod:`smrnb.doctor._explain` read it in a
pasted error, carries a code of :data:`CODES`. Each code has one entry: its layer, where it is decided
(``homes``: ``rules.<layer>`` modules and/or ``explain``), its meaning and, for a cause, the one wording
of its fix (``fix``: the ``Fix.why`` every finding of that code starts with; :func:`why`). The rules
modules' and explain's ``CODES`` are views of this table (:func:`meanings`); CODES.md and the docs'
finding-codes page are generated from it (``smr-doctor codes --write``; the docs build
reads :func:`codes_markdown` itself), and a test fails when either drifts.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from smrnb.doctor._model import LAYERS


class Code(NamedTuple):
    """One finding code: ``layer``, ``homes`` (who decides it), ``meaning`` and the fix wording."""

    layer: str
    homes: tuple[str, ...]
    meaning: str
    fix: str = ""


#: code -> Code: the doctor's whole vocabulary (keep sorted)
CODES: dict[str, Code] = {
    "abi_torch_version_mismatch": Code("abi", ("rules.abi", "explain"),
                "An extension needs torch symbols the installed torch does not define in either "
                "string ABI: it was built against another torch version ('undefined symbol' at "
                "import).",
                fix="The extension was compiled against another torch release than the one installed:"
                    " rebuild it against this torch (clean build/, --no-build-isolation) or install "
                    "the wheel made for exactly this torch."),
    "build_dependency_missing": Code("toolkit", ("explain",),
                "A non-CUDA system header, library or tool the build needs is absent.",
                fix="A system header, library or tool the build needs (not CUDA's) is not installed: "
                    "install the development package that provides it."),
    "companion_built_for_other_torch": Code("torch", ("explain",),
                "torchvision/torchaudio (a companion with compiled operators) was built for another "
                "torch or CUDA than the installed torch.",
                fix="Install the torchvision/torchaudio version that matches the installed torch, "
                    "from the same index (the same CUDA variant)."),
    "context_conda": Code("context", ("rules.context",),
                "A conda environment is active: conda env config vars and conda packages (cuda-nvcc) "
                "are the fix channel."),
    "context_container": Code("context", ("rules.context",),
                "The kernel runs in a container: fixes belong in the image (Dockerfile ENV) or the "
                "run command."),
    "context_jupyterhub": Code("context", ("rules.context",),
                "The kernel was spawned by JupyterHub: the environment comes from "
                "c.Spawner.environment / env_keep."),
    "context_slurm": Code("context", ("rules.context",),
                "The kernel runs inside a Slurm job: environment fixes go into the sbatch script (or "
                "module load)."),
    "context_systemd": Code("context", ("rules.context",),
                "The server runs as a systemd service: it does not read ~/.bashrc; use Environment= "
                "in the unit."),
    "context_venv": Code("context", ("rules.context",),
                "A virtualenv is active: pip installs go into it; system toolkits are outside it."),
    "could_not_look": Code("loader", ("rules",),
                "Part of a layer could not be checked (a masked /proc, an unreadable file): the "
                "report says what, instead of 'nothing to report'."),
    "cpu_only_torch_with_gpu": Code("torch", ("rules.torch", "explain"),
                "A CPU-only torch build is installed on a machine with an NVIDIA GPU.",
                fix="This torch is a CPU-only build and cannot use the GPU: install a CUDA variant of"
                    " torch that the driver supports."),
    "cuda_home_incomplete": Code("toolkit", ("rules.toolkit", "explain"),
                "The CUDA_HOME torch would use has nvcc but no include/cuda_runtime.h (a wrapper or "
                "partial toolkit).",
                fix="The toolkit CUDA_HOME points at lacks CUDA's headers or libraries (a wrapper "
                    "nvcc or a runtime-only install): point CUDA_HOME at a full toolkit directory."),
    "cuda_home_malformed": Code("toolkit", ("rules.toolkit", "explain"),
                "CUDA_HOME/CUDA_PATH is not a toolkit directory (a PATH-style list, nvcc itself, "
                "bin/, a relative path, a path that does not exist, a file); torch uses it verbatim. "
                "Reported whatever torch is installed.",
                fix="CUDA_HOME must be one absolute toolkit directory (the one holding bin/nvcc and "
                    "include/), e.g. /usr/local/cuda-12.4, not a list, a relative path or nvcc "
                    "itself."),
    "cuda_home_missing": Code("toolkit", ("rules.toolkit", "explain"),
                "No CUDA toolkit (nvcc) where torch.utils.cpp_extension looks: CUDA extensions cannot"
                " build.",
                fix="Building CUDA extensions needs nvcc of torch's CUDA version where "
                    "torch.utils.cpp_extension looks (CUDA_HOME, else the nvcc on PATH); pip nvidia-*"
                    " wheels and conda cudatoolkit have no nvcc."),
    "cuda_oom": Code("torch", ("explain",),
                "The GPU ran out of memory: the setup is right, the workload is too large.",
                fix="The setup works; the workload (batch size, resolution, other processes holding "
                    "memory) does not fit the GPU's memory."),
    "cudart_not_found": Code("loader", ("rules.loader", "explain"),
                "A CUDA runtime library (libcudart.so.N, libcublas.so.N, ...) an extension needs is "
                "on none of the loader's search paths.",
                fix="The loader finds the CUDA library nowhere on its search path: put its directory "
                    "on LD_LIBRARY_PATH before the process starts (for Jupyter: in the kernelspec "
                    "env), import torch first so its own CUDA libraries are mapped, or install the "
                    "runtime the binary expects."),
    "cxx11_abi_mismatch": Code("abi", ("rules.abi", "explain"),
                "An extension and torch were built with different _GLIBCXX_USE_CXX11_ABI (old `Ss` "
                "std::string vs std::__cxx11): its torch symbols exist only in the other ABI.",
                fix="The extension and torch were built with different _GLIBCXX_USE_CXX11_ABI: "
                    "rebuild the extension with torch's own flag (never force the flag by hand), or "
                    "install a wheel built for this torch."),
    "driver_below_cuda_minor": Code("driver", ("rules.driver", "explain"),
                "The driver runs torch's CUDA only under minor-version compatibility (no PTX JIT of "
                "newer PTX).",
                fix="The driver runs this CUDA only under minor-version compatibility: PTX from a "
                    "newer toolkit cannot be JIT-compiled and newer features fail; update the driver "
                    "or build with the CUDA version the driver supports."),
    "driver_broken": Code("driver", ("rules.driver", "explain"),
                "An NVIDIA driver is installed but does not work: its kernel module is not loaded, or"
                " it is of another version than the driver libraries (NVML 'Driver/library version "
                "mismatch', nvidia-smi 'couldn't communicate with the NVIDIA driver'); never 'no "
                "GPU'.",
                fix="The NVIDIA driver is installed but does not work (its kernel module is not "
                    "loaded, or it is of another version than the driver libraries after an upgrade):"
                    " reboot, or reload the module with nothing using the GPU. CUDA reports no GPU "
                    "until then; this is not a CPU-only machine."),
    "driver_cuda_version_not_toolkit": Code("driver", ("rules.driver",),
                "nvidia-smi's 'CUDA Version' is the newest CUDA the driver supports, not the "
                "installed toolkit."),
    "driver_ok": Code("driver", ("rules.driver",),
                "The driver supports torch's CUDA."),
    "driver_too_old": Code("driver", ("rules.driver", "explain"),
                "The NVIDIA driver is older than the minimum for torch's CUDA major (13.x >= 580, "
                "12.x >= 525, 11.x >= 450).",
                fix="The NVIDIA driver is older than the minimum for the CUDA version torch (or the "
                    "binary) was built with: update the driver, or install a torch variant built for "
                    "a CUDA the driver supports."),
    "driver_too_old_for_toolkit": Code("driver", ("rules.driver",),
                "The driver is older than the minimum for a CUDA toolkit (nvcc) a build would use: "
                "what that nvcc builds will not run here (also with a CPU-only torch)."),
    "driver_unavailable": Code("driver", ("rules.driver",),
                "The driver did not answer (nvidia-smi hung or flooded its output): nothing is known "
                "about it."),
    "env_not_propagated_to_kernel": Code("loader", ("rules.loader", "explain"),
                "LD_LIBRARY_PATH (or CUDA_HOME / CUDA entries of PATH) changed after the process "
                "started: its loader still searches the start-time value.",
                fix="ld.so reads LD_LIBRARY_PATH once, when a process starts, and a kernel or job "
                    "started elsewhere never sees a shell's variables: set them where the process is "
                    "started (a kernelspec whose env carries them, the job script), then restart it."),
    "extension_not_compiled": Code("abi", ("explain",),
                "The package is installed but its compiled module (_C, _ext) was never built.",
                fix="The package is installed without its compiled module: reinstall it with its "
                    "extension built (the full/CUDA variant, or from source with "
                    "--no-build-isolation)."),
    "extension_ok": Code("abi", ("rules.abi",),
                "A compiled extension's libraries resolve, its torch symbols are all defined and it "
                "carries code for every GPU."),
    "extension_undefined_symbol": Code("loader", ("explain",),
                "A compiled extension needs a symbol (not torch's) that the loaded libraries lack.",
                fix="The extension was built against another version of a library that is not torch's"
                    " (the one that defines the symbol): rebuild it, or reinstall the package that "
                    "owns it, against the versions installed here."),
    "extension_unreadable": Code("loader", ("rules.loader",),
                "An extension path given to the doctor is missing or is not a shared library."),
    "gpu_below_extension_minimum": Code("torch", ("explain",),
                "The GPU is older than the minimum the extension's own code supports.",
                fix="The extension's own code does not support GPUs this old, so no build of it will "
                    "run here: use another implementation or a newer GPU."),
    "gpu_not_exposed_to_process": Code("driver", ("explain",),
                "The host has a GPU and driver but this process is not given it (container without "
                "--gpus, Slurm without --gres, CUDA_VISIBLE_DEVICES).",
                fix="The driver library (libcuda.so.1 / NVML) or the device is not visible to this "
                    "process: start the container with the NVIDIA runtime (--gpus all), ask the "
                    "scheduler for a GPU (--gres=gpu:1), check CUDA_VISIBLE_DEVICES; in a GPU-less "
                    "docker build, set TORCH_CUDA_ARCH_LIST and FORCE_CUDA=1."),
    "host_compiler_unsupported": Code("toolkit", ("rules.toolkit", "explain"),
                "The host gcc is newer than the build nvcc accepts (#error unsupported GNU version).",
                fix="nvcc refuses a host compiler newer than it supports ('unsupported GNU version'):"
                    " install an older gcc alongside and point the build at it (CC, CXX, "
                    "CUDAHOSTCXX)."),
    "kaolin_import_failed": Code("kaolin", ("rules.kaolin",),
                "Importing kaolin in a subprocess failed (the error says which layer)."),
    "kaolin_installed": Code("kaolin", ("rules.kaolin",),
                "kaolin is installed (import not checked)."),
    "kaolin_no_wheel_for_combo": Code("kaolin", ("rules.kaolin", "explain"),
                "No kaolin wheel exists for this torch / CUDA / Python: build from source or change "
                "torch.",
                fix="kaolin is not on PyPI (pip finds only a placeholder): its wheels exist per "
                    "torch/CUDA/Python combination on NVIDIA's wheel pages; choose a listed "
                    "combination, or build from source."),
    "kaolin_not_installed": Code("kaolin", ("rules.kaolin",),
                "kaolin is not installed; smrnb works without it (the install command is given)."),
    "kaolin_ok": Code("kaolin", ("rules.kaolin",),
                "kaolin is installed and imports."),
    "kaolin_version_gate": Code("kaolin", ("rules.kaolin", "explain"),
                "torch is outside the range kaolin's setup.py accepts (needs IGNORE_TORCH_VER=1 to "
                "build).",
                fix="kaolin's setup.py accepts only a range of torch versions: use a kaolin release "
                    "made for this torch, or build with IGNORE_TORCH_VER=1."),
    "kernel_server_python_differs": Code("jupyter", ("rules.jupyter",),
                "This kernel runs another Python environment than the Jupyter server that runs it "
                "(lab extensions come from the server's); other servers are not compared."),
    "kernel_wrong_python": Code("jupyter", ("explain",),
                "The Jupyter kernel runs another Python than the one the packages were installed "
                "into.",
                fix="The kernel runs another Python than the one the packages were installed into: "
                    "register a kernel of that environment (python -m ipykernel install) and select "
                    "it, or install into the kernel's own Python (%pip install)."),
    "kernelspec_env": Code("jupyter", ("rules.jupyter",),
                "The kernelspec in use sets environment variables (its 'env'): they apply only to "
                "kernels started from it."),
    "library_not_found": Code("loader", ("rules.loader", "explain"),
                "A library an extension needs is on none of the loader's search paths.",
                fix="The loader finds the library nowhere on its search path: make the directory holding it "
                    "visible when the process starts (LD_LIBRARY_PATH set before it starts, a kernelspec env), "
                    "or install the package that ships it."),
    "library_shadowed_older_copy": Code("loader", ("explain",),
                "A CUDA library (cuDNN, NCCL, nvJitLink, cuBLAS...) is found, but an older copy on "
                "the loader path is loaded before the one torch ships.",
                fix="An older copy of a CUDA library (a system toolkit's lib64, a conda cudatoolkit, "
                    "LD_LIBRARY_PATH) is loaded before the newer one torch's nvidia-* wheels ship: "
                    "remove that directory from LD_LIBRARY_PATH, or make both the same version."),
    "libstdcxx_too_old": Code("loader", ("rules.loader", "explain"),
                "The libstdc++.so.6 the process loads lacks a GLIBCXX_x version an extension needs.",
                fix="The extension was compiled by a newer GCC than the libstdc++.so.6 this process "
                    "loads (often a conda env's older copy shadowing the system one): use a libstdc++"
                    " that defines the version, or rebuild with the older compiler."),
    "multiple_cuda_toolkits": Code("toolkit", ("rules.toolkit", "explain"),
                "Several CUDA toolkits of different versions are reachable; the build may use another"
                " one than you think.",
                fix="Several CUDA toolkits are reachable and a build may pick another one than "
                    "intended: pin it with CUDA_HOME and PATH."),
    "ninja_missing": Code("toolkit", ("rules.toolkit", "explain"),
                "ninja is not on PATH: torch extension builds fall back to slow distutils, JIT loads "
                "fail.",
                fix="torch.utils.cpp_extension needs ninja for parallel builds and for JIT-loaded "
                    "extensions: install it (pip install ninja)."),
    "no_gpu": Code("driver", ("rules.driver", "explain"),
                "No NVIDIA GPU/driver on this machine: torch and smrnb run on the CPU (a plain fact).",
                fix="No NVIDIA GPU or driver is visible on this machine: torch and smrnb run on the "
                    "CPU."),
    "no_kernel_image_for_gpu": Code("abi", ("rules.abi", "explain"),
                "An extension's embedded GPU code has no cubin for the GPU's architecture and no PTX "
                "the driver can JIT: its kernels fail ('no kernel image is available'); kaolin then "
                "returns empty results without raising.",
                fix="A binary has no code for this GPU's architecture: rebuild it with the GPU's "
                    "capability in TORCH_CUDA_ARCH_LIST (as far as the nvcc in use can build it), or "
                    "install a build that includes it."),
    "nvcc_torch_cuda_mismatch": Code("toolkit", ("rules.toolkit", "explain"),
                "The nvcc a build would use differs from torch.version.cuda (major: error, minor: "
                "warning).",
                fix="The nvcc a build uses must have torch's CUDA major version (same minor is "
                    "safest): point CUDA_HOME and PATH at the toolkit of torch.version.cuda."),
    "prebuilt_binary_wrong_cuda": Code("loader", ("rules.loader", "explain"),
                "An extension needs the CUDA libraries of another CUDA major version than the "
                "installed torch (libcudart.so.11.0 with a cu13 torch): it was built for another "
                "CUDA.",
                fix="The binary was built for another CUDA major version than this environment has: "
                    "install the build made for this torch and CUDA (or rebuild it here); pointing "
                    "LD_LIBRARY_PATH at an old CUDA runtime mixes two runtimes in one process."),
    "rule_failed": Code("loader", ("rules",),
                "A rule of the doctor itself failed; the report says which."),
    "slurm_export_dropped_env": Code("context", ("rules.context",),
                "The Slurm job was submitted with --export=NONE (or a list without ALL): "
                "LD_LIBRARY_PATH, CUDA_HOME and the CUDA entries of PATH of the submitting shell did "
                "not reach the job."),
    "symbol_version_missing": Code("loader", ("rules.loader", "explain"),
                "A library the extension needs resolves, but lacks a symbol version it requires "
                "(GLIBC_2.38 from an older libc, ...).",
                fix="The binary was built on a newer system than this one (its glibc or another "
                    "system library is older): install a build made for this system, or rebuild it "
                    "here."),
    "threejs_extension_missing": Code("jupyter", ("rules.jupyter",),
                "pythreejs is installed but its jupyter-threejs lab extension is missing or of "
                "another version where the server looks."),
    "tool_did_not_answer": Code("toolkit", ("rules.toolkit",),
                "A build tool (nvcc, gcc, ninja, cmake) exists but hung or flooded its output: it did"
                " not answer, which is not the same as missing."),
    "toolkit_ok": Code("toolkit", ("rules.toolkit",),
                "The build toolkit matches torch's CUDA."),
    "torch_api_incompatible_source": Code("abi", ("explain",),
                "The source uses a torch API that the installed torch removed (torch._six, "
                "tensor.type() in dispatch macros).",
                fix="The source uses a torch API that later torch releases removed (THC, AT_CHECK, .data<T>(), "
                    "torch._six, .type() in dispatch macros): use a release of the extension written for this torch."),
    "torch_arch_list_unknown": Code("torch", ("rules.torch",),
                "torch's arch list was not read (torch not imported); run with --import-check."),
    "torch_cuda_runtime": Code("torch", ("rules.torch",),
                "Where torch's CUDA runtime libraries come from (pip nvidia-* wheels via RPATH, or "
                "the system)."),
    "torch_cuda_unavailable": Code("torch", ("rules.torch",),
                "A CUDA build of torch reports torch.cuda.is_available() == False on a GPU machine."),
    "torch_gpu_arch_ok": Code("torch", ("rules.torch",),
                "torch's arch list covers the GPU."),
    "torch_import_failed": Code("torch", ("rules.torch",),
                "torch is installed but `import torch` fails (the import check's last error line says"
                " which library or symbol)."),
    "torch_libs_not_loaded": Code("loader", ("rules.loader", "explain"),
                "libc10.so / libtorch*.so not found: an extension without RPATH was loaded before "
                "`import torch`.",
                fix="torch's own libraries (libc10, libtorch_*) are found only once torch is "
                    "imported: import torch before the extension, or build the extension with an "
                    "RPATH to torch/lib."),
    "torch_not_found_at_build": Code("toolkit", ("rules.toolkit", "explain"),
                "pip's build isolation hides the installed torch from setup.py: use "
                "--no-build-isolation.",
                fix="pip builds in an isolated environment without the installed torch, so a setup.py"
                    " that imports torch fails there: install the build requirements, then build with"
                    " --no-build-isolation."),
    "torch_not_installed": Code("torch", ("rules.torch",),
                "torch is not installed in the kernel's Python."),
    "torch_wheel_lacks_gpu_arch": Code("torch", ("rules.torch", "explain"),
                "torch was not compiled for this GPU's compute capability (no kernel image).",
                fix="The installed torch has no kernels for this GPU's compute capability: install a "
                    "torch CUDA variant built for it (newer GPUs need newer CUDA variants; old GPUs "
                    "need older torch releases)."),
    "unsupported_gpu_arch": Code("toolkit", ("rules.toolkit", "explain"),
                "The GPU (or an arch in TORCH_CUDA_ARCH_LIST) is newer/older than the build nvcc "
                "supports.",
                fix="The nvcc in use cannot build this GPU architecture (too new for the toolkit, or "
                    "dropped by it): limit TORCH_CUDA_ARCH_LIST to architectures this nvcc supports, "
                    "or use a toolkit (and torch) that supports the GPU."),
    "windows_msvc_toolchain": Code("toolkit", ("explain",),
                "A Windows build fails in the MSVC toolchain (cl.exe, Visual C++ build tools).",
                fix="The build needs a working MSVC toolchain that nvcc accepts: install the Visual "
                    "C++ Build Tools of a supported version and build from an x64 Native Tools "
                    "prompt."),
}


def meanings(home: str) -> dict[str, str]:
    """code -> meaning of every code decided in ``home`` (``"rules.driver"``, ``"explain"``...)."""
    return {c: e.meaning for c, e in CODES.items() if home in e.homes}


def why(code: str, detail: str = "") -> str:
    """The fix wording of ``code`` (the table's ``fix``), followed by ``detail`` when given."""
    base = CODES[code].fix
    return f"{base} {detail}".strip() if base else detail


#: causes the doctor must know: each is a code of the table (tests/doctor/test_report.py checks it)
REQUIRED_CODES: tuple[str, ...] = (
    "abi_torch_version_mismatch", "cxx11_abi_mismatch", "unsupported_gpu_arch", "multiple_cuda_toolkits",
    "torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu", "nvcc_torch_cuda_mismatch", "cuda_home_missing",
    "cuda_home_malformed", "host_compiler_unsupported", "driver_too_old", "cudart_not_found",
    "prebuilt_binary_wrong_cuda", "env_not_propagated_to_kernel", "libstdcxx_too_old",
    "torch_not_found_at_build", "ninja_missing", "kaolin_no_wheel_for_combo", "kaolin_version_gate",
    "torch_api_incompatible_source",
)

CODES_PATH = Path(__file__).with_name("CODES.md")


def codes_markdown() -> str:
    """The text of CODES.md (and of the docs' finding-codes page), from :data:`CODES`."""
    lines = [
        "# Doctor finding codes",
        "",
        "Generated by `smr-doctor codes --write` from the one table of codes",
        "(`smrnb/doctor/_codes.py`); do not edit by hand.",
        "A finding carries a stable `code`, a `layer` (" + ", ".join(f"`{ly}`" for ly in LAYERS) + "),",
        "a severity (error / warning / info / ok), a title, evidence and a fix. A cause found both on the",
        "live machine (`rules.<layer>`) and in a pasted error (`explain`) has one code and one fix wording.",
        "",
        "| code | layer | meaning | fix | decided in |",
        "|---|---|---|---|---|",
    ]

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|") or "-"

    for code in sorted(CODES):
        e = CODES[code]
        lines.append(f"| `{code}` | {e.layer} | {cell(e.meaning)} | {cell(e.fix)} | {', '.join(e.homes)} |")
    return "\n".join(lines) + "\n"
