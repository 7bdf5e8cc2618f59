# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one table of the doctor's finding codes, and CODES.md generated from it.

Every finding, whether its facts were probed on the live machine or read in a pasted error
(:mod:`smrnb.doctor._explain` turns a text into facts of the same shape), is decided by the rules of one
layer (``rules.<layer>``) and carries a code of :data:`CODES`. Each code has one entry: its layer, where it
is decided (``homes``: the rules module, and ``text`` when a pasted error can show its facts), its meaning,
the severity of a finding of it and, for a cause, the one wording of its fix (``fix``: the ``Fix.why``
every finding of that code starts with; :func:`why`), what tells it from its nearest neighbour
(``told_from``), a command whose output decides between the two (``check``) and the primary source of
the cause (``source``). The rules modules' ``CODES`` are views of this table (:func:`meanings`); CODES.md
and the docs' finding-codes page are generated from it (``smr-doctor codes --write``; the docs build reads
:func:`codes_markdown` itself), and a test fails when either drifts.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from smrnb.doctor._model import LAYERS, SEVERITIES


class Code(NamedTuple):
    """One finding code: ``layer``, ``homes`` (who decides it), ``meaning``, the fix wording, the severity
    of its findings, what tells it from its neighbour, a deciding command and its primary source."""

    layer: str
    homes: tuple[str, ...]
    meaning: str
    fix: str = ""
    severity: str = "error"
    told_from: str = ""
    check: str = ""
    source: str = ""
    machine_fix: str = ""  # (blind audit 36, C-L12) the fix's words where no text was given (a fix that names "the text")


def _c(layer: str, meaning: str, *, fix: str = "", severity: str | None = None, told_from: str = "", check: str = "",
       source: str = "", text: bool = True, home: str | None = None, machine_fix: str = "") -> Code:
    homes = (home or f"rules.{layer}",) + (("text",) if text else ())
    return Code(layer, homes, meaning, fix, severity or ("error" if fix else "info"), told_from, check, source,
                machine_fix)


#: code -> Code: the doctor's whole vocabulary (keep sorted)
CODES: dict[str, Code] = {
    "abi_torch_version_mismatch": _c("abi",
        "An extension needs torch symbols the installed torch does not define in either string ABI: it "
        "was built against another torch version ('undefined symbol' at import).",
        fix='The extension was compiled against another torch release than the one installed: rebuild it '
            'against this torch (clean build/, --no-build-isolation) or install the wheel made for '
            'exactly this torch.',
        told_from='cxx11_abi_mismatch: the same torch symbol exists in the other std::string ABI (same '
                  'torch, other _GLIBCXX_USE_CXX11_ABI)',
        check='python -c "import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)"   # '
              'against the torch the extension was built for',
        source="the dynamic loader's 'undefined symbol' (glibc elf/dl-lookup.c) for a c10::/at::/torch:: "
               "name; the abi probe's symbol lookup in torch's libraries"),
    "arch_list_value_rejected": _c("torch",
        "torch.utils.cpp_extension does not accept a TORCH_CUDA_ARCH_LIST entry ('Unknown CUDA arch "
        "(12.0) or GPU not supported'): the torch is older than the GPU's architecture, or the value is "
        "malformed ('sm_86').",
        fix='torch\'s extension builder does not know this architecture: write TORCH_CUDA_ARCH_LIST as '
            'major.minor values this torch accepts (e.g. "8.6;9.0+PTX"), or upgrade torch to a release '
            'that knows the GPU.',
        told_from="unsupported_gpu_arch: nvcc cannot build the arch; torch_wheel_lacks_gpu_arch: torch's "
                  "own kernels lack it",
        check='python -c "import torch; print(torch.__version__)"; echo $TORCH_CUDA_ARCH_LIST',
        source="torch.utils.cpp_extension._get_cuda_arch_flags ('Unknown CUDA arch ({}) or GPU not "
               "supported')"),
    "binary_corrupt": _c("loader",
        "A library file is damaged or is not a library: empty, truncated, a Git LFS pointer, an HTML "
        "page saved as a file, an object file ('invalid ELF header', 'file too short').",
        fix='The library file is damaged or is not a library (truncated download, Git LFS pointer, '
            'object file): reinstall the package (pip install --force-reinstall --no-cache-dir), or '
            'fetch LFS files with git lfs pull.',
        told_from='wrong_architecture_binary: a valid library for another platform; library_not_found: '
                  'no file at all',
        check='file <the library named>; ls -l <it>',
        source="glibc elf/dl-load.c open_verify ('invalid ELF header', 'file too short'); "
               "tables/loader_errors.csv"),
    "build_dependency_missing": _c("toolkit",
        'A non-CUDA system header, library or tool the build needs is absent.',
        fix="A system header, library or tool the build needs (not CUDA's) is not installed: install the "
            "package that provides it (a system development package, or the pip package the text names).",
        told_from='cuda_home_incomplete: a CUDA header or library (cuda_runtime.h, -lcudart) missing '
                  'from the toolkit',
        check='apt-file search <the missing header or library>',
        source="the compiler's 'fatal error: X: No such file or directory' and the linker's 'cannot find "
               "-lX' (GCC, binutils ld)"),
    "companion_built_for_other_torch": _c("torch",
        'A companion package made for one torch release (torchvision/torchaudio with compiled operators, the '
        'triton torch.compile uses) was built for another torch or CUDA than the installed torch.',
        fix='Install the companion release that matches the installed torch (torchvision/torchaudio from the '
            'same index, the same CUDA variant; the triton release this torch pins).',
        told_from='abi_torch_version_mismatch: an extension you build yourself (rebuild it); here the '
                  'matching companion release is installed instead',
        check='python -c "import torch, torchvision; print(torch.__version__, torchvision.__version__)"',
        source="torchvision/torchaudio release compatibility tables; torchvision's _C load ('operator "
               "torchvision::nms does not exist', 'compiled with different CUDA major versions')"),
    "container_shm_too_small": _c("context",
        "The shared memory (/dev/shm) a container gives its processes is too small for what runs in it "
        "(Docker's default is 64 MB): NCCL's shared-memory transport fails ('unhandled system error', "
        "'Error while creating shared memory segment'), DataLoader workers die ('Bus error', 'out of shared "
        "memory').",
        fix="The container's /dev/shm is too small for NCCL's shared-memory transport or the DataLoader's "
            "workers: start it with --ipc=host or a larger --shm-size (Kubernetes: an emptyDir volume with "
            "medium: Memory on /dev/shm), or avoid shared memory (NCCL_SHM_DISABLE=1, num_workers=0).",
        told_from="cuda_oom: GPU memory runs out, not host shared memory; gpu_not_exposed_to_process: the "
                  "container does not see its GPUs at all",
        check="df -h /dev/shm   # inside the container: 64M is Docker's default",
        source="NCCL include/shm.h and misc/shmutils.cc ('Error while creating shared memory segment', "
               "'Call to posix_fallocate failed'), ncclGetErrorString (ncclSystemError 2: 'unhandled system "
               "error'); torch/csrc/DataLoader.cpp ('insufficient shared memory (shm)'); docker run --shm-size"),
    "context_conda": _c("context",
        'A conda environment is active: conda env config vars and conda packages (cuda-nvcc) are the fix '
        'channel.',
        text=False),
    "context_container": _c("context",
        'The kernel runs in a container: fixes belong in the image (Dockerfile ENV) or the run command.',
        text=False),
    "context_jupyterhub": _c("context",
        'The kernel was spawned by JupyterHub: the environment comes from c.Spawner.environment / env_keep.',
        text=False),
    "context_slurm": _c("context",
        'The kernel runs inside a Slurm job: environment fixes go into the sbatch script (or module load).',
        text=False),
    "context_systemd": _c("context",
        'The server runs as a systemd service: it does not read ~/.bashrc; use Environment= in the unit.',
        text=False),
    "context_venv": _c("context",
        'A virtualenv is active: pip installs go into it; system toolkits are outside it.',
        text=False),
    "could_not_look": _c("loader",
        "Part of a layer could not be checked (a masked /proc, an unreadable file): the report says "
        "what, instead of 'nothing to report'.",
        text=False, home="rules"),
    "cpu_instruction_unsupported": _c("loader",
        "A binary executes a CPU instruction this CPU lacks (AVX, AVX2, AVX-512, FMA, an ARM extension) "
        "because it was built for newer processors: the process dies with SIGILL ('Illegal instruction "
        "(core dumped)', 'illegal hardware instruction', exit code 132) or the library's own check refuses "
        "the CPU ('compiled to use AVX instructions, but these aren't available on your machine').",
        fix="A library was built for a newer CPU than this one (it uses AVX/AVX2/AVX-512 or an ARM extension "
            "this processor lacks): install a build made for this CPU (an older or a conda-forge build, a "
            "native arm64 Python on Apple silicon instead of an x86 one under Rosetta), build it here, or "
            "force its generic code path (torch: ATEN_CPU_CAPABILITY=default; OpenBLAS on Jetson/ARM: "
            "OPENBLAS_CORETYPE=ARMV8).",
        told_from="wrong_architecture_binary: another CPU architecture or word size altogether (the loader "
                  "refuses the file); native_library_conflict: a segmentation fault or abort that depends on "
                  "the import order, not SIGILL",
        check="grep -o -w -E 'avx|avx2|avx512f|fma|sse4_2' /proc/cpuinfo | sort -u   # what this CPU has; "
              "python -X faulthandler -c 'import <the package>'   # which library",
        source="POSIX SIGILL (strsignal: 'Illegal instruction'; bash 'Illegal instruction (core dumped)', "
               "zsh 'illegal hardware instruction', macOS 'Illegal instruction: 4', exit status 128+4); "
               "TensorFlow core/platform/cpu_feature_guard.cc; jaxlib's CPU feature check; numpy "
               "npy_cpu_features.c ('built with baseline optimizations')"),
    "cpu_only_torch_with_gpu": _c("torch",
        'A CPU-only torch build (or a CPU-only build of the other GPU library the text names: jaxlib, '
        'onnxruntime) is installed on a machine with an NVIDIA GPU.',
        fix='This torch (or the library the text names) is a CPU-only build and cannot use the GPU: install '
            'its CUDA variant that the driver supports.',
        machine_fix="This torch is a CPU-only build and cannot use the GPU: install its CUDA variant that the driver "
                    "supports.",
        told_from='no_gpu: the machine has no NVIDIA GPU at all',
        check='python -c "import torch; print(torch.__version__, torch.version.cuda)"   # None: a CPU build',
        source="torch/cuda/__init__.py _lazy_init ('Torch not compiled with CUDA enabled'); the '+cpu' "
               "local version of the CPU wheels"),
    "cuda_home_incomplete": _c("toolkit",
        'The CUDA_HOME torch would use has nvcc but no include/cuda_runtime.h (a wrapper or partial '
        'toolkit).',
        fix="The toolkit CUDA_HOME points at lacks CUDA's headers or libraries (a wrapper nvcc or a "
            "runtime-only install): point CUDA_HOME at a full toolkit directory.",
        told_from="build_dependency_missing: a header or library that is not CUDA's",
        check='ls $CUDA_HOME/include/cuda_runtime.h $CUDA_HOME/lib64/libcudart.so',
        source='torch.utils.cpp_extension._find_cuda_home (CUDA_HOME derived from the nvcc on PATH); '
               'tables/cuda_home_shapes.csv'),
    "cuda_home_malformed": _c("toolkit",
        'CUDA_HOME/CUDA_PATH is not a toolkit directory (a PATH-style list, nvcc itself, bin/, a '
        'relative path, a path that does not exist, a file); torch uses it verbatim. Reported whatever '
        'torch is installed.',
        fix='CUDA_HOME must be one absolute toolkit directory (the one holding bin/nvcc and include/), '
            'e.g. /usr/local/cuda-12.4, not a list, a relative path or nvcc itself.',
        told_from='cuda_home_missing: CUDA_HOME is one directory, but holds no nvcc',
        check='echo "$CUDA_HOME"; ls "$CUDA_HOME/bin/nvcc"',
        source='torch.utils.cpp_extension._find_cuda_home uses CUDA_HOME/CUDA_PATH verbatim; '
               'tables/cuda_home_shapes.csv'),
    "cuda_home_missing": _c("toolkit",
        'No CUDA toolkit (nvcc) where torch.utils.cpp_extension looks: CUDA extensions cannot build.',
        fix="Building CUDA extensions needs nvcc of torch's CUDA version where torch.utils.cpp_extension "
            "looks (CUDA_HOME, else the nvcc on PATH); pip nvidia-* wheels and conda cudatoolkit have no "
            "nvcc.",
        told_from='cuda_home_malformed: a CUDA_HOME value that is not one toolkit directory',
        check='which -a nvcc; ls -d /usr/local/cuda*',
        source="torch.utils.cpp_extension ('CUDA_HOME environment variable is not set', 'nvcc not found "
               "at'); tables/cpp_extension_checks.csv"),
    "cuda_mps_failure": _c("driver",
        'The CUDA MPS daemon/server refused or lost the client (connection failed, server not ready, '
        'client limit reached, client terminated).',
        fix='The CUDA MPS daemon refused this process: check that nvidia-cuda-mps-control runs for this '
            'user and GPU (or unset CUDA_MPS_PIPE_DIRECTORY to run without MPS), and that its client '
            'limits are not reached.',
        told_from='gpu_busy_exclusive: no MPS; compute mode refuses a second context',
        check='echo get_server_list | nvidia-cuda-mps-control',
        source='cudaErrorMpsConnectionFailed (805) ... cudaErrorMpsClientTerminated (810)'),
    "cuda_oom": _c("torch",
        'The GPU ran out of memory: the setup is right, the workload is too large.',
        fix="The setup works; the workload (batch size, resolution, other processes holding memory) does "
            "not fit the GPU's memory.",
        told_from='user_code_error: the code is wrong, not too large; driver_broken / '
                  'no_kernel_image_for_gpu: setup errors',
        check='nvidia-smi   # memory used by other processes',
        source="c10/cuda/CUDACachingAllocator.cpp ('CUDA out of memory. Tried to allocate'); "
               "cudaErrorMemoryAllocation (driver_types.h)"),
    "cuda_stub_driver_loaded": _c("loader",
        "The process loaded the toolkit's stub libcuda.so (lib64/stubs, meant only for linking), or another "
        "libcuda.so.1 that is not the driver's (an empty or foreign file earlier on LD_LIBRARY_PATH), instead "
        "of the driver's libcuda.so.1 ('CUDA driver is a stub library', 'Found no NVIDIA driver').",
        fix="A libcuda that is not the driver's (the toolkit's stub from lib64/stubs, or another file named "
            "libcuda.so.1) is loaded instead of the driver: remove its directory from LD_LIBRARY_PATH (the stub is "
            "only for linking).",
        told_from='gpu_not_exposed_to_process: no libcuda at all; library_shadowed_older_copy: an older '
                  'real copy of a CUDA library',
        check="echo $LD_LIBRARY_PATH | tr ':' '\\n' | grep stubs",
        source='cudaErrorStubLibrary (34, driver_types.h)'),
    "cudart_not_found": _c("loader",
        "A CUDA runtime library (libcudart.so.N, libcublas.so.N, ...) an extension needs is on none of "
        "the loader's search paths.",
        fix='The loader finds the CUDA library nowhere on its search path: make its directory visible to '
            'the loader when the process starts, import torch first so its own CUDA libraries are mapped, or '
            'install the runtime the binary expects.',
        told_from="prebuilt_binary_wrong_cuda: the library belongs to another CUDA major than this "
                  "environment's; gpu_not_exposed_to_process: libcuda.so.1 is the driver's",
        check='python -c "import torch; print(torch.version.cuda)"; ldconfig -p | grep <the library>',
        source="glibc elf/dl-load.c ('cannot open shared object file'); tables/loader_errors.csv"),
    "cxx11_abi_mismatch": _c("abi",
        'An extension and torch were built with different _GLIBCXX_USE_CXX11_ABI (old `Ss` std::string '
        'vs std::__cxx11): its torch symbols exist only in the other ABI.',
        fix="The extension and torch were built with different _GLIBCXX_USE_CXX11_ABI: rebuild the "
            "extension with torch's own flag (never force the flag by hand), or install a wheel built "
            "for this torch.",
        told_from='abi_torch_version_mismatch: the symbol is missing in both std::string ABIs (another '
                  'torch release)',
        check='python -c "import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)"',
        source="GCC's dual ABI (_GLIBCXX_USE_CXX11_ABI, libstdc++ manual 'Dual ABI'); torch pip wheels "
               "use the new ABI from 2.7"),
    "driver_below_cuda_minor": _c("driver",
        "The driver runs torch's CUDA only under minor-version compatibility (no PTX JIT of newer PTX).",
        fix='The driver runs this CUDA only under minor-version compatibility: PTX from a newer toolkit '
            'cannot be JIT-compiled and newer features fail; update the driver or build with the CUDA '
            'version the driver supports.',
        severity='warning',
        told_from="driver_too_old: the CUDA runtime refuses to start at all ('driver version is "
                  "insufficient')",
        check="nvidia-smi   # 'CUDA Version' is the newest CUDA the driver runs",
        source='NVIDIA CUDA Compatibility guide, minor-version compatibility; '
               'cudaErrorUnsupportedPtxVersion (222), cudaErrorCallRequiresNewerDriver (36)'),
    "driver_broken": _c("driver",
        "An NVIDIA driver is installed but does not work: its kernel module is not loaded, or it is of "
        "another version than the driver libraries (NVML 'Driver/library version mismatch', nvidia-smi "
        "'couldn't communicate with the NVIDIA driver'); never 'no GPU'.",
        fix='The NVIDIA driver is installed but does not work (its kernel module is not loaded, or it is '
            'of another version than the driver libraries after an upgrade): reboot, or reload the '
            'module with nothing using the GPU. CUDA reports no GPU until then; this is not a CPU-only '
            'machine.',
        told_from='driver_too_old: a working driver older than the CUDA runtime needs; '
                  'gpu_not_exposed_to_process: a working host driver this process is not given',
        check='nvidia-smi; cat /proc/driver/nvidia/version',
        source="nvml.h NVML_ERROR_DRIVER_NOT_LOADED / NVML_ERROR_LIB_RM_VERSION_MISMATCH; nvidia-smi's "
               "messages (tables/nvidia_smi_messages.csv)"),
    "driver_cuda_version_not_toolkit": _c("driver",
        "nvidia-smi's 'CUDA Version' is the newest CUDA the driver supports, not the installed toolkit.",
        fix="nvidia-smi's 'CUDA Version' is the newest CUDA the driver can run, not an installed toolkit: torch "
            "brings its own CUDA runtime, and builds use the nvcc of CUDA_HOME/PATH. Compare torch.version.cuda "
            "with `nvcc --version`, not with nvidia-smi.",
        severity="info",
        told_from="nvcc_torch_cuda_mismatch: the toolkit that builds, not the driver's limit",
        check='nvcc --version; python -c "import torch; print(torch.version.cuda)"',
        source="nvidia-smi's header ('CUDA Version' = cuDriverGetVersion); NVIDIA CUDA Compatibility guide"),
    "driver_ok": _c("driver",
        "The driver supports torch's CUDA.",
        text=False),
    "driver_too_old": _c("driver",
        "The NVIDIA driver is older than the minimum for torch's CUDA major (13.x >= 580, 12.x >= 525, "
        "11.x >= 450; a Windows driver: 12.x >= 528.33, 11.x >= 452.39).",
        fix='The NVIDIA driver is older than the minimum for the CUDA version torch (or the binary) was '
            'built with: update the driver, or install a torch variant built for a CUDA the driver '
            'supports.',
        told_from='driver_below_cuda_minor: the runtime starts, only newer PTX or newer API calls fail; '
                  'driver_broken: a driver that does not answer at all',
        check="nvidia-smi   # 'CUDA Version' is the newest CUDA the driver runs",
        source='cudaErrorInsufficientDriver (35, driver_types.h); NVIDIA CUDA Toolkit release notes, '
               'Table 3 (tables/cuda_driver.csv)'),
    "driver_too_old_for_toolkit": _c("driver",
        'The driver is older than the minimum for a CUDA toolkit (nvcc) a build would use: what that '
        'nvcc builds will not run here (a warning beside a CPU-only torch: nothing installed fails by it yet).',
        severity="error", text=False),
    "driver_unavailable": _c("driver",
        'The driver did not answer (nvidia-smi hung or flooded its output): nothing is known about it.',
        text=False),
    "env_not_propagated_to_kernel": _c("loader",
        'LD_LIBRARY_PATH (or CUDA_HOME / CUDA entries of PATH) changed after the process started: its '
        'loader still searches the start-time value.',
        fix="ld.so reads LD_LIBRARY_PATH once, when a process starts, and a kernel or job started "
            "elsewhere never sees a shell's variables: set them where the process is started (a "
            "kernelspec whose env carries them, the job script), then restart it.",
        severity='warning',
        told_from="kernel_wrong_python: the kernel runs another Python altogether; cudart_not_found: the "
                  "library is nowhere on the loader's path, set or not",
        check="cat /proc/$PID/environ | tr '\\0' '\\n' | grep -E 'LD_LIBRARY_PATH|CUDA_HOME'   # what "
              "the process started with",
        source='ld.so(8): LD_LIBRARY_PATH is read once at process start; sudo(8) env_reset; sbatch --export'),
    "extension_build_failed": _c("toolkit",
        "An extension build stopped ('Error building extension', 'ninja: build stopped', a compiler "
        "killed) and the text alone names no known cause; the compiler output above it does.",
        fix='The extension build failed; the cause is in the compiler output above this line. If a '
            'compiler was killed (signal 9), the machine ran out of memory: set MAX_JOBS=1 or 2.',
        severity='warning',
        told_from='every specific toolkit code: when the log holds their message, they win',
        check='MAX_JOBS=1 pip install --no-build-isolation -v <package> 2>&1 | grep -m1 -B5 -i error',
        source="torch.utils.cpp_extension ('Error building extension'), ninja ('build stopped: "
               "subcommand failed'), nvcc ('died due to signal')"),
    "extension_not_compiled": _c("abi",
        'The package is installed but its compiled module (_C, _ext) was never built.',
        fix='The package is installed without its compiled module: reinstall it with its extension built '
            '(the full/CUDA variant, or from source with --no-build-isolation).',
        told_from='abi_torch_version_mismatch: the compiled module exists but fails to load (an '
                  'undefined symbol)',
        check="pip show -f <package> | grep -E '\\.(so|pyd)$'",
        source='tables/extension_checks.csv (apex, detectron2, mmcv, pytorch3d, torch-scatter, '
               'nvdiffrast, gsplat messages)'),
    "extension_ok": _c("abi",
        "A compiled extension's libraries resolve, and what it has of these is in order: its torch symbols are all "
        "defined, its plain C symbols are defined by what it binds to (a Python module), it carries code for every "
        "GPU. The title names what was checked.",
        text=False),
    "extension_torch_version_gate": _c("toolkit",
        "An extension's setup refuses the installed torch version (detectron2 'Requires PyTorch >= 1.8', "
        "apex's torch floor).",
        fix="The extension's setup does not accept this torch version: install a release of the "
            "extension made for it, or a torch in the range it states.",
        told_from='kaolin_version_gate: the same for kaolin; abi_torch_version_mismatch: built, then '
                  'fails at import',
        check='python -c "import torch; print(torch.__version__)"',
        source='tables/extension_checks.csv (setup.py checks of apex, detectron2, mmcv)'),
    "extension_undefined_symbol": _c("loader",
        "A compiled extension needs a symbol (not torch's) that the loaded libraries lack.",
        fix="The extension was built against another version of a library that is not torch's (the one "
            "that defines the symbol): rebuild it, or reinstall the package that owns it, against the "
            "versions installed here.",
        told_from="abi_torch_version_mismatch: the symbol is torch's (c10::, at::, torch::)",
        check='nm -D --defined-only <the library that should define it> | grep <symbol>',
        source="glibc elf/dl-lookup.c 'undefined symbol' (tables/loader_errors.csv)"),
    "extension_unreadable": _c("loader",
        'An extension path given to the doctor (--extension, --package, kaolin\'s) is missing, unreadable or not a '
        'shared library the loader can map (a directory, a FIFO or device, an executable, an object file, not '
        'ELF): it cannot be checked, and an import of it fails.',
        severity="warning", text=False),
    "fabric_manager_not_running": _c("driver",
        "On NVSwitch systems (HGX/DGX) CUDA cannot start because the fabric is not ready: "
        "nvidia-fabricmanager is stopped or of another version than the driver ('system not yet "
        "initialized').",
        fix='On NVSwitch systems CUDA needs the NVIDIA Fabric Manager of the same version as the driver: '
            'start nvidia-fabricmanager (systemctl start nvidia-fabricmanager) or install the matching '
            'version.',
        told_from='driver_broken: the driver itself is broken; here the driver works and nvidia-smi '
                  'lists the GPUs',
        check='systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -i fabric -A2',
        source='cudaErrorSystemNotReady (802), CUDA_ERROR_FABRIC_NOT_READY (919)'),
    "forward_compat_unsupported": _c("driver",
        'A CUDA forward-compatibility package (cuda-compat, /usr/local/cuda/compat on LD_LIBRARY_PATH) '
        'is used on a GPU that does not support forward compatibility (GeForce/RTX consumer GPUs).',
        fix='Forward compatibility (the cuda-compat libraries) works only on data-center GPUs: remove '
            'the compat directory from LD_LIBRARY_PATH and update the driver instead, or use a CUDA '
            'version the driver supports.',
        told_from='driver_too_old: no compat package; the driver is simply old',
        check="echo $LD_LIBRARY_PATH | tr ':' '\\n' | grep compat",
        source="cudaErrorCompatNotSupportedOnDevice (804, 'forward compatibility was attempted on non "
               "supported HW'); CUDA Compatibility guide"),
    "gpu_below_extension_minimum": _c("torch",
        "The GPU is older than the minimum the extension's own code supports.",
        fix="The extension's own code does not support GPUs this old, so no build of it will run here: "
            "use another implementation or a newer GPU.",
        told_from="no_kernel_image_for_gpu: a rebuild with the GPU's arch fixes it; here no build of the "
                  "extension runs on this GPU",
        check='nvidia-smi --query-gpu=name,compute_cap --format=csv',
        source="tables/extension_checks.csv (FlashAttention 'Ampere GPUs or newer', tiny-cuda-nn "
               "FullyFusedMLP)"),
    "gpu_busy_exclusive": _c("driver",
        "The GPU is in an exclusive compute mode (or held by another process or thread), so a new "
        "context is refused ('CUDA-capable device(s) is/are busy or unavailable', NVML_ERROR_IN_USE).",
        fix='The GPU is in exclusive compute mode and another process holds it: pick another GPU '
            '(CUDA_VISIBLE_DEVICES), wait for the other job, or ask the administrator to set the compute '
            'mode to Default.',
        told_from='gpu_not_exposed_to_process: the process cannot see the device at all; cuda_oom: the '
                  'context exists, memory is full',
        check='nvidia-smi --query-gpu=compute_mode --format=csv; nvidia-smi',
        source='cudaErrorDevicesUnavailable (46), cudaErrorDeviceAlreadyInUse (216); NVML_ERROR_IN_USE'),
    "gpu_device_permission_denied": _c("driver",
        "This user may not open /dev/nvidiactl or /dev/nvidia* (device permissions, a missing "
        "video/render group, a cgroup device rule): NVML 'Insufficient Permissions'.",
        fix='This user may not open the GPU device files: check the permissions of /dev/nvidia* (the '
            'group that owns them) and add the user to it, or ask the administrator.',
        told_from="gpu_not_exposed_to_process: the device is absent from the process's view; "
                  "driver_broken: the driver does not work for anyone",
        check='ls -l /dev/nvidia*; id',
        source="NVML_ERROR_NO_PERMISSION (4, 'Insufficient Permissions')"),
    "gpu_hardware_fault": _c("driver",
        'The GPU reported a hardware-level fault: an uncorrectable ECC or NVLink error, error '
        'containment, a GPU fallen off the bus (Xid 79), a corrupted infoROM, a reset required, external '
        'power missing.',
        fix='The GPU reported a hardware fault: the process cannot continue. Reset the GPU (nvidia-smi '
            '-r) or reboot the node, and report the node to its administrator if it recurs (check dmesg '
            'for Xid errors).',
        told_from='driver_broken: software (module not loaded, library/module mismatch); '
                  'user_code_error: a kernel bug, the GPU is fine after the process exits',
        check='sudo dmesg | grep -i xid; nvidia-smi -q | grep -i -A3 ecc',
        source='cudaErrorECCUncorrectable (214), cudaErrorNvlinkUncorrectable (220), cudaErrorContained '
               '(226); NVML_ERROR_GPU_IS_LOST (nvml.h)'),
    "gpu_not_exposed_to_process": _c("driver",
        'The host has a GPU and driver but this process is not given it (container without --gpus, Slurm '
        'without --gres, CUDA_VISIBLE_DEVICES).',
        fix='The driver library (libcuda.so.1 / NVML) or the device is not visible to this process: '
            'start the container with the NVIDIA runtime (--gpus all), ask the scheduler for a GPU '
            '(--gres=gpu:1), check CUDA_VISIBLE_DEVICES; in a GPU-less docker build, set '
            'TORCH_CUDA_ARCH_LIST and FORCE_CUDA=1.',
        told_from="no_gpu: the machine has no NVIDIA GPU at all; driver_broken: the host's driver itself "
                  "does not work",
        check='nvidia-smi; echo $CUDA_VISIBLE_DEVICES; ls /dev/nvidia*',
        source='tables/container_messages.csv, tables/slurm_gpu.csv; cudaErrorNoDevice (100)'),
    "gpu_p2p_unsupported": _c("driver",
        'Peer-to-peer access is not supported between two GPUs (consumer GPUs, PCIe topology, IOMMU), so '
        'a multi-GPU code path that enables it fails.',
        fix="Peer-to-peer access is not supported between these GPUs: disable it (NCCL_P2P_DISABLE=1, or "
            "the library's option) so copies go through host memory.",
        severity='warning',
        told_from='user_code_error: an API misuse; here the hardware lacks the feature',
        check='nvidia-smi topo -m',
        source='cudaErrorPeerAccessUnsupported (217)'),
    "gpu_watchdog_timeout": _c("driver",
        "A kernel ran longer than the display watchdog allows on a GPU that also drives a display ('the "
        "launch timed out and was terminated').",
        fix='The GPU also drives a display and its watchdog killed a long kernel: run on a GPU without a '
            'display, stop the desktop session, or split the work into shorter kernels.',
        told_from='user_code_error: the kernel itself is wrong; here it is correct but too long for a '
                  'display GPU',
        check='nvidia-smi --query-gpu=display_active --format=csv',
        source='cudaErrorLaunchTimeout (702, driver_types.h)'),
    "host_compiler_unsupported": _c("toolkit",
        'The host gcc is newer than the build nvcc accepts (#error unsupported GNU version).',
        fix="nvcc refuses a host compiler newer than it supports ('unsupported GNU version'): install an "
            "older gcc alongside and point the build at it (CC, CXX, CUDAHOSTCXX).",
        told_from='windows_msvc_toolchain: cl.exe on Windows',
        check='gcc --version; nvcc --version',
        source="CUDA host_config.h '#error -- unsupported GNU version!' (tables/nvcc_gcc.csv); "
               "torch.utils.cpp_extension compiler checks"),
    "host_memory_exhausted": _c("context",
        "The machine's (CPU) memory ran out, not the GPU's: the kernel's out-of-memory killer ended a process "
        "('Killed', 'DataLoader worker (pid N) is killed by signal: Killed', 'Out of memory: Killed process', "
        "'oom-kill'), Python or numpy could not allocate ('MemoryError', 'Unable to allocate 12.0 GiB for an array "
        "with shape'), Windows' commit limit was reached ('[WinError 1455] The paging file is too small'), or a "
        "parallel build's compilers were killed ('Killed signal terminated program cc1plus', nvcc's 'died due to "
        "signal 9').",
        fix="The machine ran out of host (CPU) memory, so the process (or a compiler of a parallel build) was "
            "killed or refused memory: use less at once (fewer DataLoader workers, a smaller batch or dataset in "
            "memory, MAX_JOBS=1-4 for a build), give the job or container more memory (Slurm --mem, docker "
            "--memory), or add swap (on Windows a larger paging file).",
        told_from="cuda_oom: the GPU's memory runs out ('CUDA out of memory'), not the host's; "
                  "container_shm_too_small: /dev/shm, the shared memory the workers pass batches in, is full "
                  "('Bus error'), not the host's RAM",
        check="free -h; dmesg -T | grep -i -e 'out of memory' -e oom-kill   # the kernel names the process it "
              "killed (journalctl -k on systemd)",
        source="Linux mm/oom_kill.c ('Out of memory: Killed process %d (%s)', 'invoked oom-killer'), the shell's "
               "report of SIGKILL (strsignal: 'Killed'); torch/csrc/DataLoader.cpp ('DataLoader worker (pid {}) "
               "is killed by signal: {}'); Python's MemoryError (docs.python.org library/exceptions); numpy "
               "numpy/core/_exceptions.py _ArrayMemoryError ('Unable to allocate {} for an array with shape {} and "
               "data type {}'); Windows system error 1455 ERROR_COMMITMENT_LIMIT ('The paging file is too small "
               "for this operation to complete.'); gcc's driver ('%s signal terminated program %s'); "
               "torch.utils.cpp_extension's MAX_JOBS"),
    "kaolin_import_failed": _c("kaolin",
        'Importing kaolin in a subprocess failed (the error says which layer).',
        text=False),
    "kaolin_installed": _c("kaolin",
        'kaolin is installed (import not checked).',
        text=False),
    "kaolin_no_wheel_for_combo": _c("kaolin",
        'No kaolin wheel exists for this torch / CUDA / Python: build from source or change torch.',
        fix="kaolin is not on PyPI (pip finds only a placeholder): its wheels exist per "
            "torch/CUDA/Python combination on NVIDIA's wheel pages; choose a listed combination, or "
            "build from source.",
        severity='warning',
        told_from="kaolin_version_gate: a source build refused by kaolin's setup.py",
        check='python -c "import torch, sys; print(torch.__version__, torch.version.cuda, '
              'sys.version_info[:2])"',
        source="kaolin's wheel pages https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-{torch}_cu{cu"
               "da}.html (tables/kaolin.json)"),
    "kaolin_not_installed": _c("kaolin",
        'kaolin is not installed; smrnb works without it (the install command is given). Read in a text (round '
        '32c): a project whose optional kaolin import failed says so in its own words (TRELLIS: FlexiCubes '
        'undefined, \'Please install kaolin and diso to use the mesh extractor.\').',
        fix="kaolin is not installed in this environment: install the kaolin build made for this torch and CUDA "
            "from its wheel page (pip install kaolin -f https://nvidia-kaolin.s3.us-east-2.amazonaws.com/"
            "torch-<torch>_cu<cuda>.html), or build it from source; then run again.",
        severity='info',
        told_from="python_package_missing: another package than kaolin; kaolin_no_wheel_for_combo: kaolin has "
                  "no wheel for this torch/CUDA at all",
        source="microsoft/TRELLIS trellis/representations/mesh/cube2mesh.py (try: from .flexicubes.flexicubes "
               "import FlexiCubes / except: print('Please install kaolin and diso to use the mesh extractor.')); "
               "tables/library_messages.csv trellis_flexicubes_needs_kaolin"),
    "kaolin_ok": _c("kaolin",
        'kaolin is installed and imports.',
        text=False),
    "kaolin_version_gate": _c("kaolin",
        "torch is outside the range kaolin's setup.py accepts (needs IGNORE_TORCH_VER=1 to build).",
        fix="kaolin's setup.py accepts only a range of torch versions: use a kaolin release made for "
            "this torch, or build with IGNORE_TORCH_VER=1.",
        severity='warning',
        told_from="torch_not_found_at_build: kaolin's setup.py sees no torch at all",
        check='python -c "import torch; print(torch.__version__)"',
        source='kaolin setup.py (TORCH_MIN_VER / TORCH_MAX_VER, IGNORE_TORCH_VER); tables/kaolin.json'),
    "kernel_server_python_differs": _c("jupyter",
        "This kernel runs another Python environment than the Jupyter server that runs it (lab "
        "extensions come from the server's); other servers are not compared.",
        text=False),
    "kernel_wrong_python": _c("jupyter",
        'The Jupyter kernel runs another Python than the one the packages were installed into.',
        fix="The kernel runs another Python than the one the packages were installed into: register a "
            "kernel of that environment (python -m ipykernel install) and select it, or install into the "
            "kernel's own Python (%pip install).",
        severity='warning',
        told_from='env_not_propagated_to_kernel: the same Python, with variables lost; python_package_missing: '
                  'no notebook, the Python that runs the script lacks the package',
        check='import sys; print(sys.executable)   # in the notebook, against `which python` in the '
              'terminal',
        source='jupyter_client kernelspec argv (ipykernel writes sys.executable); tables/jupyter_kernel.csv'),
    "kernel_restart_needed": _c("jupyter",
        "The running Jupyter kernel started before a package was installed, upgraded or rebuilt in its own "
        "environment: a module it had imported stays the old one ('you may need to restart the kernel to use "
        "updated packages'), and what the terminal's Python imports the notebook does not.",
        fix="The kernel imported (or looked for) the package before it was installed, upgraded or rebuilt: restart "
            "the kernel (Kernel > Restart, or IPython.Application.instance().kernel.do_shutdown(True)) and run the "
            "cells again; a module is imported once per process.",
        severity="warning",
        told_from="kernel_wrong_python: the kernel runs another Python altogether (a restart does not help: install "
                  "into the kernel's Python); env_not_propagated_to_kernel: a variable, not a package, changed after "
                  "the kernel started",
        check='import sys, importlib.metadata as md, <package>; print(sys.executable, md.version("<package>"), '
              '<package>.__version__)   # in the notebook: the installed and the imported release',
        source="IPython core/magics/packaging.py (%pip/%conda print 'Note: you may need to restart the kernel to use "
               "updated packages.'); Python's import system (a module is executed once and cached in sys.modules; "
               "importlib.reload does not reload extension modules); Colab's pip wrapper ('You must restart the "
               "runtime in order to use newly installed versions'); tables/jupyter_kernel.csv"),
    "kernelspec_env": _c("jupyter",
        "The kernelspec in use sets environment variables (its 'env'): they apply only to kernels "
        "started from it.",
        text=False),
    "ld_library_path_relative": _c("loader",
        "LD_LIBRARY_PATH has an empty entry (a leading or trailing ':', or '::') or a relative one ('.', 'lib'): "
        "ld.so reads those against the current directory of the process, so what it loads depends on where the "
        "process was started (and a library put there is loaded first).",
        fix="Write LD_LIBRARY_PATH with absolute directories only: drop the empty entries (a stray ':' at either end "
            "or '::', as `export LD_LIBRARY_PATH=/new/lib:$LD_LIBRARY_PATH` leaves when it was unset) and the "
            "relative ones.",
        severity="warning",
        told_from="env_not_propagated_to_kernel: the variable changed after start; library_not_found: a library "
                  "found nowhere",
        check='echo "$LD_LIBRARY_PATH" | tr \':\' \'\\n\' | grep -vn "^/"   # the entries that are not absolute',
        source="ld.so(8), LD_LIBRARY_PATH; glibc elf/dl-load.c fillin_rpath (an empty entry is the current directory)",
        text=False),
    "library_bug": _c("torch",
        'A bug in a library or extension itself (an internal assertion of torch, a regression in one '
        'release): the environment is fine.',
        fix="A library's own consistency check failed: this is a bug in the library, not in your setup. "
            "Search its issue tracker for the message, and install the release that fixes it (or the "
            "previous one).",
        severity='warning',
        told_from="user_code_error: the user's code or data is changed; abi_torch_version_mismatch: a "
                  "library built for another torch",
        check='pip show <the library>   # its version, for the issue tracker',
        source="c10/util/Exception.cpp TORCH_INTERNAL_ASSERT ('INTERNAL ASSERT FAILED at ..., please "
               "report a bug to PyTorch')"),
    "library_not_found": _c("loader",
        "A library an extension needs is on none of the loader's search paths.",
        fix='The loader finds the library nowhere on its search path: make the directory holding it '
            'visible to the loader when the process starts, or install the package that ships it.',
        told_from='cudart_not_found: a CUDA library; build_dependency_missing: a header or library a '
                  'build needs',
        check='ldconfig -p | grep <the library>',
        source="glibc elf/dl-load.c ('cannot open shared object file'); tables/loader_errors.csv"),
    "library_shadowed_older_copy": _c("loader",
        'A CUDA library (cuDNN, NCCL, nvJitLink, cuBLAS...) is found, but an older copy on the loader '
        'path is loaded before the one torch ships.',
        fix="An older copy of a CUDA library (a system toolkit's lib64, a conda cudatoolkit, "
            "LD_LIBRARY_PATH) is loaded before the newer one torch's nvidia-* wheels ship: remove that "
            "directory from LD_LIBRARY_PATH, or make both the same version.",
        told_from='cudart_not_found: no copy found at all; prebuilt_binary_wrong_cuda: another CUDA '
                  'major required',
        check="echo $LD_LIBRARY_PATH; ldd <the library named> | grep -E 'cublas|cudnn|nccl|nvJitLink'",
        source="glibc elf/dl-lookup.c versioned-symbol errors ('undefined symbol: X, version "
               "libY.so.N'); tables/loader_errors.csv"),
    "libstdcxx_too_old": _c("loader",
        'The libstdc++.so.6 the process loads lacks a GLIBCXX_x version an extension needs.',
        fix="The extension was compiled by a newer GCC than the libstdc++.so.6 this process loads (often "
            "a conda env's older copy shadowing the system one): use a libstdc++ that defines the "
            "version, or rebuild with the older compiler.",
        told_from='symbol_version_missing: a GLIBC_ version of the C library',
        check='strings $(dirname $(which python))/../lib/libstdc++.so.6 | grep GLIBCXX_ | tail -3',
        source='glibc elf/dl-version.c ("version `GLIBCXX_x\' not found"); libstdc++ symbol versioning '
               '(GCC manual, ABI Policy)'),
    "loader_security_policy": _c("loader",
        "The loader or a security policy refuses a library's memory layout or file: an executable stack "
        "(refused by glibc 2.41+), text relocations under SELinux, a noexec mount, an unreadable file.",
        fix="The system's loader or security policy refuses this library (executable stack, text "
            "relocations, noexec mount, permissions): install a build that does not need it, clear the "
            "flag (execstack -c / patchelf --clear-execstack), or load it from a normal exec-allowed "
            "path.",
        told_from='binary_corrupt: the file itself is bad; library_not_found: no file',
        check='ls -l <the library>; findmnt -T <the library>',
        source="glibc elf/dl-load.c ('cannot enable executable stack as shared object requires'); "
               "SELinux execmod"),
    "multiple_cuda_toolkits": _c("toolkit",
        'Several CUDA toolkits of different versions are reachable; the build may use another one than '
        'you think.',
        fix='Several CUDA toolkits are reachable and a build may pick another one than intended: pin it '
            'with CUDA_HOME and PATH.',
        severity='warning',
        told_from='nvcc_torch_cuda_mismatch: the text says which two CUDA versions differ',
        check='which -a nvcc; ls -d /usr/local/cuda*',
        source='torch.utils.cpp_extension._find_cuda_home (CUDA_HOME, then nvcc on PATH, then '
               '/usr/local/cuda)'),
    "native_library_conflict": _c("loader",
        'Two natively compiled packages loaded into one process clash (each brings its own copy of '
        'libstdc++, OpenMP or another runtime), so the process crashes at import or first use depending '
        'on the import order.',
        fix='Two native libraries clash in one process: import them in the other order (often torch '
            'first), or install releases built with compatible toolchains (the same channel, conda-forge '
            'or pip, for both).',
        severity='warning',
        told_from="library_shadowed_older_copy: one CUDA library's older copy is loaded and a versioned "
                  "symbol is reported missing; here nothing is reported missing, the process crashes",
        check='python -X faulthandler -c "import torch; import <the other package>"   # and in the other '
              'order',
        source="glibc's single global symbol scope (ld.so(8)); libgomp/libiomp 'OMP: Error #15: "
               "Initializing libiomp5 ... already initialized'"),
    "nccl_network_unreachable": _c("context",
        "NCCL's network transport between processes on different nodes failed: a node's InfiniBand or Ethernet "
        "link is down or faulty, NCCL chose an interface the peers cannot reach, or a firewall drops the "
        "connection ('remote process exited or there was a network error', 'Connection reset by peer', "
        "'NET/IB : Got completion from peer ... with error', 'no socket interface found').",
        fix="NCCL's connection between the nodes failed: look first at the other ranks' logs (a rank that died "
            "makes its peers report the same error), then run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to "
            "see the interface and transport NCCL chose; set NCCL_SOCKET_IFNAME to the interface the nodes reach "
            "each other on, check the InfiniBand links (ibstat, ibv_devinfo) or test without them "
            "(NCCL_IB_DISABLE=1), and open the firewall between the nodes.",
        told_from="container_shm_too_small: ranks on one host talk through /dev/shm, not the network; "
                  "gpu_p2p_unsupported: the GPU peer path inside one host",
        check="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET <the job>; ip -br addr; ibstat   # on every node",
        source="NVIDIA NCCL: ncclGetErrorString (ncclRemoteError: 'remote process exited or there was a network "
               "error'), src/misc/socket.cc ('Call to recv from %s failed : %s', 'Connection closed by remote peer'), "
               "src/transport/net_ib.cc ('NET/IB : Got completion from peer %s with error'), bootstrap.cc "
               "('Bootstrap : no socket interface found'); NCCL User Guide, Environment Variables "
               "(NCCL_SOCKET_IFNAME: prefixes, '^' excludes, '=' exact) and Troubleshooting"),
    "ninja_missing": _c("toolkit",
        'ninja is not on PATH: torch extension builds fall back to slow distutils, JIT loads fail.',
        fix='torch.utils.cpp_extension needs ninja for parallel builds and for JIT-loaded extensions: '
            'install it (pip install ninja).',
        severity='warning',
        told_from='cuda_home_missing: nvcc (not ninja) is what the build cannot find',
        check='ninja --version',
        source="torch.utils.cpp_extension verify_ninja_availability ('Ninja is required to load C++ "
               "extensions')"),
    "no_gpu": _c("driver",
        'No NVIDIA GPU/driver on this machine: torch and smrnb run on the CPU (a plain fact).',
        fix='No NVIDIA GPU or driver is visible on this machine: torch and smrnb run on the CPU.',
        severity='warning',
        told_from='gpu_not_exposed_to_process: a GPU exists but this process is not given it',
        check='nvidia-smi; lspci | grep -i nvidia',
        source="c10/cuda/CUDAFunctions.cpp ('Found no NVIDIA driver on your system'); cudaErrorNoDevice "
               "(100)"),
    "no_kernel_image_for_gpu": _c("abi",
        "An extension's embedded GPU code has no cubin for the GPU's architecture and no PTX the driver "
        "can JIT: its kernels fail ('no kernel image is available'); kaolin then returns empty results "
        "without raising.",
        fix="A binary has no code for this GPU's architecture: rebuild it with the GPU's capability in "
            "TORCH_CUDA_ARCH_LIST (as far as the nvcc in use can build it), or install a build that "
            "includes it.",
        told_from="torch_wheel_lacks_gpu_arch: torch's own operations have no kernels for the GPU "
                  "(torch.cuda.get_arch_list())",
        check='python -c "import torch; print(torch.cuda.get_device_capability(), '
              'torch.cuda.get_arch_list())"',
        source='cudaErrorNoKernelImageForDevice (209) / CUDA_ERROR_NO_BINARY_FOR_GPU; CUDA Programming '
               'Guide, binary compatibility of cubins and PTX'),
    "nvcc_option_unsupported": _c("toolkit",
        'A build passes nvcc an option or option value the nvcc in use does not have (-std=c++20 before '
        '12.0, -arch=native before 11.5 Update 1, --threads before 11.2): the build was written for a '
        'newer toolkit.',
        fix='The build passes nvcc an option this CUDA release does not have: use the toolkit version '
            'the project expects (see its requirements), or remove the option.',
        told_from="unsupported_gpu_arch: an architecture nvcc cannot build; nvcc_torch_cuda_mismatch: "
                  "torch's check of the nvcc version",
        check='nvcc --version; nvcc --help | grep -- <the option>',
        source="nvcc 'Value ... is not defined for option', 'Unknown option' (tables/nvcc_errors.csv, "
               "tables/nvcc_options.csv)"),
    "nvcc_torch_cuda_mismatch": _c("toolkit",
        'The nvcc a build would use differs from torch.version.cuda (major: error, minor: warning).',
        fix="The nvcc a build uses must have torch's CUDA major version (same minor is safest): point "
            "CUDA_HOME and PATH at the toolkit of torch.version.cuda.",
        told_from='multiple_cuda_toolkits: the intended toolkit exists but another is picked',
        check='nvcc --version; python -c "import torch; print(torch.version.cuda)"',
        source="torch.utils.cpp_extension._check_cuda_version ('The detected CUDA version ... "
               "mismatches'); apex setup.py bare-metal check (tables/extension_checks.csv)"),
    "opengl_egl_unavailable": _c("driver",
        "An OpenGL/EGL renderer (nvdiffrast's RasterizeGLContext, a PyOpenGL EGL platform) gets no "
        "NVIDIA OpenGL/EGL context: a headless server or container without the NVIDIA GL/EGL libraries "
        "or the glvnd vendor file.",
        fix='No NVIDIA OpenGL/EGL context: provide the NVIDIA EGL libraries (libEGL_nvidia.so.0 and '
            '/usr/share/glvnd/egl_vendor.d/10_nvidia.json; in a container '
            'NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics), or use the CUDA rasterizer '
            '(nvdiffrast RasterizeCudaContext).',
        told_from='build_dependency_missing: the EGL/GL headers are missing at build time; '
                  'gpu_not_exposed_to_process: CUDA itself sees no GPU',
        check='ls /usr/share/glvnd/egl_vendor.d/; ldconfig -p | grep EGL_nvidia',
        source='nvdiffrast common/glutil.cpp and rasterize_gl.cpp (tables/extension_checks.csv); glvnd '
               'EGL vendor files'),
    "package_api_version_mismatch": _c("abi",
        "The code imports a module or name that the installed release of a Python package no longer (or "
        "not yet) has ('No module named kaolin.models' with a kaolin written for another release, "
        "'cannot import name X from Y'), or calls one of its functions or classes with a signature of "
        "another release ('got an unexpected keyword argument', 'missing 1 required positional argument').",
        fix="The code was written for another release of this package: install the release it was "
            "written for (its requirements file names it), or update the code to the installed release's "
            "API.",
        severity='warning',
        told_from="torch_api_incompatible_source: a compiled extension's source uses a removed torch "
                  "API; python_package_missing (kernel_wrong_python in a notebook): the package is missing from "
                  "this Python altogether",
        check='pip show <the package>   # its installed version',
        source="Python's import system ('No module named X.Y', 'cannot import name X from Y'); CPython's "
               "TypeError of a call that does not fit its callee's signature (Python/ceval.c)"),
    "package_no_build_for_platform": _c("kaolin",
        "pip, uv or conda finds no release or file of a package (not kaolin) that this interpreter, OS, "
        "CPU or CUDA can use ('No matching distribution found for torch-scatter', open3d on a Python newer "
        "than its wheels, onnxruntime-gpu on aarch64, a conda package with no build for this platform's "
        "subdir): the package publishes no build for this combination, or its builds live on an index "
        "of their own the command did not name.",
        fix="The package publishes no build this interpreter can use (its Python version, OS, CPU or "
            "CUDA): install it from the package's own index or wheel page when it has one, use a Python "
            "and platform it publishes builds for, or build it from source.",
        told_from="kaolin_no_wheel_for_combo: the same for kaolin itself (its own wheel pages); "
                  "user_code_error: a misspelt package name (no project of that name at all); "
                  "build_dependency_missing: a dependency absent from the only index or page given",
        check='python -c "import sys, platform; print(sys.version, platform.machine())"; '
              'python -m pip index versions <the package>',
        source="pip's resolver (src/pip/_internal/resolution/resolvelib/factory.py: 'Could not find a "
               "version that satisfies the requirement {req} (from versions: {versions})', 'No matching "
               "distribution found for {req}'); PEP 425 wheel tags; conda/exceptions.py "
               "PackagesNotFoundError; uv's 'doesn't have a source distribution or wheel for the current "
               "platform'"),
    "package_no_compiled_module": _c("loader",
        "A distribution named with --package (packages=) installs no compiled module (its RECORD lists no .so/.pyd): "
        "it is pure Python, so the loader and ABI checks have nothing of it to check. The doctor looked; a name that "
        "is not installed is a usage error instead.",
        text=False, home="rules"),
    "port_in_use": _c("context",
        "A network port another process already holds: a server socket could not bind it (EADDRINUSE, 'Address "
        "already in use', torch.distributed's TCPStore 'The server socket has failed to listen on any local "
        "network address', TensorBoard's 'could not bind to port 6006, it was already in use'), or a server moved "
        "to another port than the one asked for (Jupyter's 'The port 8888 is already in use', Dask's 'Port 8787 "
        "is already in use').",
        fix="Another process (another job, a run that crashed and left its processes alive, a server started "
            "earlier) holds the port: find and stop it, or give this one another free port (torchrun "
            "--master_port / MASTER_PORT, jupyter --port, tensorboard --port, 0 where the tool picks a free one).",
        told_from="nccl_network_unreachable: a connection to a peer fails, no port is held here; user_code_error: "
                  "the launch command itself is wrong (a variable unset, an argument the script rejects)",
        check="ss -ltnp | grep :<port>   # the process holding it (lsof -i :<port>; netstat -ano on Windows)",
        source="POSIX bind() EADDRINUSE (errno 98 on Linux, 48 on macOS: 'Address already in use'); Winsock "
               "WSAEADDRINUSE 10048; torch/csrc/distributed/c10d/socket.cpp ('The server socket has failed to "
               "listen on any local network address'); tensorboard/program.py TensorBoardPortInUseError ('TensorBoard "
               "could not bind to port %d, it was already in use'); jupyter_server serverapp.py / notebook "
               "notebookapp.py ('The port %i is already in use, trying another port.'); distributed/node.py "
               "('Port {} is already in use. Perhaps you already have a cluster running?')"),
    "prebuilt_binary_wrong_cuda": _c("loader",
        'An extension needs the CUDA libraries of another CUDA major version than the installed torch '
        '(libcudart.so.11.0 with a cu13 torch): it was built for another CUDA.',
        fix='The binary was built for another CUDA major version than this environment has: install the '
            'build made for this torch and CUDA (or rebuild it here); pointing LD_LIBRARY_PATH at an old '
            'CUDA runtime mixes two runtimes in one process.',
        told_from="cudart_not_found: the library's CUDA major is the environment's own, only not on the "
                  "loader's path",
        check='python -c "import torch; print(torch.version.cuda)"   # another major than the library '
              'the binary asks for',
        source="sonames of the CUDA libraries carry the CUDA major (libcudart.so.11.0, libcublas.so.12); "
               "glibc 'cannot open shared object file'"),
    "python_package_missing": _c("torch",
        "A Python package (not torch or a companion, not a compiled extension that failed to build) is not installed "
        "in the Python that runs the code: 'ModuleNotFoundError: No module named 'plyfile'' from a script; the "
        "import name may differ from the name pip installs (cv2: opencv-python, PIL: Pillow, yaml: PyYAML, "
        "sklearn: scikit-learn).",
        fix="The package is not installed in the Python that runs this code: install it with that Python's own pip "
            "(python -m pip install <its distribution>, the distribution being the name pip knows, which can differ "
            "from the import name) or from the project's requirements file.",
        severity="warning",
        told_from="kernel_wrong_python: installed, but in another Python than the notebook kernel's; "
                  "package_api_version_mismatch: the package is installed and lacks a submodule or name the code "
                  "imports; extension_not_compiled: a compiled module of a package that was never built; "
                  "torch_not_installed: torch itself or a companion",
        check='python -c "import sys; print(sys.executable)"; python -m pip show <package>   # the Python that '
              'runs the code, and whether it has the package',
        source="CPython Lib/importlib/_bootstrap.py ('No module named {!r}': ModuleNotFoundError, "
               "docs.python.org library/exceptions); pip's user guide ('python -m pip install' runs the pip of "
               "that interpreter); the distribution names of each project's own install page (PyPI: "
               "opencv-python, Pillow, PyYAML, scikit-learn, scikit-image)"),
    "rule_failed": _c("loader",
        'A rule of the doctor itself failed; the report says which.',
        text=False, home="rules"),
    "script_code_in_kernel": _c("jupyter",
        "Code written for a plain script process runs in a Jupyter (IPython) kernel, whose process differs: "
        "sys.stdout and sys.stderr are ipykernel's OutStream (no fileno(), no .buffer: 'io.UnsupportedOperation: "
        "fileno'), the kernel's asyncio loop is already running ('asyncio.run() cannot be called from a running "
        "event loop', 'This event loop is already running'), worker processes started with spawn cannot import the "
        "notebook's __main__ (\"Can't get attribute 'f' on <module '__main__' (built-in)>\"), and sys.argv holds the "
        "kernel launcher's arguments (argparse: 'ipykernel_launcher.py: error: unrecognized arguments: -f').",
        fix="The code assumes a script's process and runs in a notebook kernel: run it as a script (python "
            "file.py), or adapt it to the kernel: await the coroutine instead of asyncio.run (nest_asyncio for a "
            "library that runs its own loop), move functions and classes that worker processes use into a .py "
            "module and import them, parse_args([]) for argparse, and no fileno()/.buffer on sys.stdout.",
        severity="warning",
        told_from="user_code_error: the code is wrong in any process; library_bug: a library's release does not "
                  "support running in a kernel (its fix is that release); kernel_wrong_python: the kernel's Python, "
                  "not its process",
        check='python <the code saved as a .py file>   # the same code as a script: it runs there',
        source="ipykernel ipykernel/iostream.py OutStream (fileno() raises io.UnsupportedOperation('fileno'), no "
               "'buffer'); CPython Lib/asyncio/runners.py ('asyncio.run() cannot be called from a running event "
               "loop') and base_events.py _check_running ('This event loop is already running'); CPython "
               "Lib/pickle.py find_class (\"Can't get attribute {!r} on {!r}\") with multiprocessing's spawn start "
               "method; ipykernel's launcher argv ('-f <connection file>') read by argparse"),
    "slurm_export_dropped_env": _c("context",
        'The Slurm job was submitted with --export=NONE (or a list without ALL): LD_LIBRARY_PATH, '
        'CUDA_HOME and the CUDA entries of PATH of the submitting shell did not reach the job.',
        fix="The job started without the submitting shell's environment: export it (#SBATCH --export=ALL), or set "
            "the CUDA environment inside the script (after the #SBATCH lines), where every node runs it.",
        severity='warning',
        told_from='env_not_propagated_to_kernel: a variable lost another way (sudo, a kernelspec)',
        check='scontrol show job $SLURM_JOB_ID | grep -i export',
        source="sbatch(1) --export (NONE: only SLURM_* variables reach the job); SLURM_EXPORT_ENV"),
    "slurm_memory_request_rejected": _c("context",
        "Slurm refused the job at submission because no node of the partition can give the memory it asks for "
        "('Memory specification can not be satisfied', then 'Requested node configuration is not available'; "
        "'Memory required by task is not available' for --mem-per-cpu past the partition's limit): the request, "
        "not the program, is refused; nothing ran.",
        fix="Slurm refused the job's memory request at submission: no node of the partition offers that much memory "
            "to jobs (its RealMemory, less what the site reserves, or MaxMemPerNode/MaxMemPerCPU): ask for less "
            "(--mem, --mem-per-cpu, or leave --mem out where the site gives a default), or choose a partition whose "
            "nodes have it.",
        told_from="host_memory_exhausted: the job ran and was killed for memory ('Detected 1 oom_kill event', "
                  "'Exceeded job memory limit'); slurm_gpu_request_rejected: the GPU part of the request was refused",
        check="sinfo -o '%P %m %c %D'   # memory (MB) per node of each partition; scontrol show partition <p>",
        source="SchedMD/slurm src/slurmctld/node_scheduler.c _set_err_msg ('Memory specification can not be "
               "satisfied', at 284c3b95f0) before ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE; src/common/slurm_errno.c "
               "ESLURM_INVALID_TASK_MEMORY ('Memory required by task is not available'); tables/slurm_gpu.csv"),
    "slurm_gpu_request_rejected": _c("context",
        "Slurm refused the job's GPU request at submission ('Requested node configuration is not "
        "available', 'Invalid generic resource (gres) specification', QOS limits).",
        fix="Slurm refused the GPU request: check the partition's GPUs and GRES names (sinfo -o '%P "
            "%G'), and request them as the site documents (--gres=gpu:<type>:N or --gpus=N).",
        told_from='gpu_not_exposed_to_process: the job ran, but without a GPU',
        check="sinfo -o '%P %G %D'",
        source='SchedMD slurm src/common/slurm_errno.c (tables/slurm_gpu.csv)'),
    "source_needs_newer_torch": _c("abi",
        "A compiled extension's source uses a torch C++ API that the installed torch does not have yet (a later "
        "release added it: TORCH_LIBRARY_FRAGMENT in 1.8, c10::Float8_e4m3fn in 2.1): the compiler says the name is "
        "undeclared or not a member. The mirror of torch_api_incompatible_source.",
        fix="The extension's source was written for a newer torch than the one installed: it uses a torch C++ API a "
            "later torch release added. Install a torch at least that release (with its matching torchvision/"
            "torchaudio) and rebuild, or use a release of the extension written for the installed torch.",
        told_from="torch_api_incompatible_source: the source uses an API a later torch REMOVED (the installed torch "
                  "is too new); abi_torch_version_mismatch: a built binary, not its source",
        check='python -c "import torch; print(torch.__version__)"   # against the release that added the name '
              '(tables/added_apis.csv)',
        source="tables/added_apis.csv rows of form cpp (torch's release notes and pull requests: pytorch/pytorch "
               "#47320 TORCH_LIBRARY_FRAGMENT, #37049 TORCH_LIBRARY in torch/library.h); the compilers' own words "
               "for an unknown name (gcc 'was not declared in this scope' / 'is not a member of', clang 'no member "
               "named', nvcc/EDG 'identifier \"X\" is undefined')"),
    "static_tls_exhausted": _c("loader",
        "A library using initial-exec TLS (libgomp, libGLdispatch, OpenBLAS on aarch64) was loaded after "
        "the static TLS reserve ran out ('cannot allocate memory in static TLS block').",
        fix='A library needing static TLS was loaded too late: import it first (before torch/cv2), or '
            'preload it (LD_PRELOAD=/path/to/libgomp.so.1); '
            'GLIBC_TUNABLES=glibc.rtld.optional_static_tls can enlarge the reserve.',
        told_from='library_not_found: the library is missing; here it exists but cannot be loaded this late',
        check='LD_PRELOAD=<the library named> python -c "import <package>"',
        source="glibc elf/dl-tls.c _dl_allocate_static_tls ('cannot allocate memory in static TLS block')"),
    "symbol_version_missing": _c("loader",
        'A library the extension needs resolves, but lacks a symbol version it requires (GLIBC_2.38 from '
        'an older libc, ...).',
        fix='The binary was built on a newer system than this one (its glibc or another system library '
            'is older): install a build made for this system, or rebuild it here.',
        told_from='libstdcxx_too_old: a GLIBCXX_/CXXABI_ version of libstdc++',
        check='ldd --version',
        source='glibc elf/dl-version.c ("version `GLIBC_x\' not found")'),
    "threejs_extension_missing": _c("jupyter",
        'pythreejs is installed but its jupyter-threejs lab extension is missing or of another version '
        'where the server looks; a pasted text shows it as any widget front-end the page lacks (ipywidgets\' '
        'manager, pythreejs\', bqplot\'s): "Error displaying widget: model not found", "Failed to display '
        'Jupyter Widget".',
        fix="The page has no front-end (JavaScript) for the widget: install the widget packages in the environment "
            "the Jupyter server runs from (JupyterLab 3+ and Notebook 7: pip install ipywidgets jupyterlab_widgets "
            "and the widget's package, whose prebuilt extensions come with them; JupyterLab 1-2: jupyter labextension "
            "install @jupyter-widgets/jupyterlab-manager and the widget's extension; the classic notebook: jupyter "
            "nbextension enable --py widgetsnbextension), of versions matching the kernel's packages, then reload "
            "the page.",
        severity="warning",
        told_from="kernel_server_python_differs: the front-end is installed, in another environment than the "
                  "server's; the kernel's own error (an exception in the cell) is the kernel's, not the page's",
        check="jupyter labextension list   # in the server's environment: @jupyter-widgets/jupyterlab-manager and "
              "the widget's extension enabled and OK",
        source="ipywidgets documentation, Installation (JupyterLab 3+: the prebuilt jupyterlab_widgets; JupyterLab "
               "1-2: @jupyter-widgets/jupyterlab-manager; the classic notebook: widgetsnbextension); "
               "@jupyter-widgets/jupyterlab-manager ('Error displaying widget: model not found'); ipywidgets 7 "
               "widget_output fallback ('Failed to display Jupyter Widget of type ...')"),
    "tool_did_not_answer": _c("toolkit",
        'A build tool (nvcc, gcc, ninja, cmake) exists but hung or flooded its output: it did not '
        'answer, which is not the same as missing.',
        text=False),
    "toolkit_below_extension_minimum": _c("toolkit",
        "The CUDA toolkit (nvcc) that builds the extension is older than the extension's own minimum "
        "('FlashAttention is only supported on CUDA 11.7 and above'), whatever torch was built with.",
        fix='The extension needs a newer CUDA toolkit than the nvcc found: install the toolkit version '
            'it requires (and a torch built for the same CUDA major), or an older release or a prebuilt '
            'wheel of the extension.',
        told_from='nvcc_torch_cuda_mismatch: nvcc and torch.version.cuda differ; '
                  'gpu_below_extension_minimum: the GPU, not the toolkit, is too old',
        check='nvcc --version',
        source='tables/extension_checks.csv (flash-attn setup.py, xformers)'),
    "toolkit_ok": _c("toolkit",
        "The build toolkit matches torch's CUDA.",
        text=False),
    "torch_api_incompatible_source": _c("abi",
        'The source uses a torch API that the installed torch removed (torch._six, tensor.type() in '
        'dispatch macros).',
        fix='The source uses a torch API that later torch releases removed (THC, AT_CHECK, .data<T>(), '
            'torch._six, .type() in dispatch macros): use a release of the extension written for this '
            'torch.',
        told_from='abi_torch_version_mismatch: a compiled binary, not its source',
        check='python -c "import torch; print(torch.__version__)"',
        source='torch release notes: THC removed in 1.11, torch._six in 2.0, AT_CHECK in 1.5, '
               'Tensor.data<T>() deprecated for data_ptr<T>()'),
    "torch_arch_list_unknown": _c("torch",
        "torch's arch list was not read (torch not imported); run with --import-check.",
        text=False),
    "torch_cuda_runtime": _c("torch",
        "Where torch's CUDA runtime libraries come from (pip nvidia-* wheels via RPATH, or the system).",
        text=False),
    "torch_cuda_unavailable": _c("torch",
        'A CUDA build of torch reports torch.cuda.is_available() == False on a GPU machine.',
        fix="torch sees no GPU: a driver too old for torch's CUDA, a GPU not given to this process "
            "(CUDA_VISIBLE_DEVICES, a container without --gpus, a job without a GPU), or a CPU build of torch "
            "after all; torch.version.cuda and nvidia-smi tell which.",
        severity='error',
        told_from='driver_too_old / gpu_not_exposed_to_process: the reason behind it',
        source="torch.cuda.is_available() (torch/cuda/__init__.py: cudaGetDeviceCount through torch._C._cuda_getDeviceCount)",
        check='python -c "import torch; print(torch.cuda.is_available())"'),
    "torch_gpu_arch_ok": _c("torch",
        "torch's arch list covers the GPU.",
        text=False),
    "torch_import_failed": _c("torch",
        "torch is installed but `import torch` fails (the import check's last error line says which library or "
        "symbol).",
        fix="torch is installed but does not import: the last line of its import error names the library or "
            "symbol that fails; the doctor explains that line (smr-doctor explain) and `smr-doctor --import-check` "
            "shows it for this machine.",
        told_from="kernel_wrong_python: a kernel that runs another Python, where torch is missing altogether",
        check='python -c "import torch"',
        source="import torch in a subprocess (the torch probe's import check); jupyter_client's KernelRestarter"),
    "torch_library_shadowed": _c("loader",
        "A directory of LD_LIBRARY_PATH holds a file named as one of the libraries `import torch` loads (libc10.so, "
        "libtorch_cpu.so...): the loader takes it before torch's own (a damaged file, or another build's), and "
        "`import torch` fails ('file too short', 'invalid ELF header', undefined symbols).",
        fix="A file on LD_LIBRARY_PATH shadows torch's own library of that name: take its directory off "
            "LD_LIBRARY_PATH (or remove the file). Reinstalling torch changes nothing: torch's own file is not the "
            "one loaded.",
        told_from="binary_corrupt: the damaged file is the package's own; library_shadowed_older_copy: an older copy "
                  "of a CUDA library",
        check='echo "$LD_LIBRARY_PATH"; ls -l <each directory of it>/libc10.so',
        source="ld.so(8): LD_LIBRARY_PATH is searched before DT_RUNPATH, which torch's libraries carry ($ORIGIN)",
        text=False),
    "torch_libs_not_loaded": _c("loader",
        'libc10.so / libtorch*.so not found: an extension without RPATH was loaded before `import torch`.',
        fix="torch's own libraries (libc10, libtorch_*) are found only once torch is imported: import "
            "torch before the extension, or build the extension with an RPATH to torch/lib.",
        told_from="library_not_found: a library that is not torch's; abi_torch_version_mismatch: a "
                  "library of another torch release",
        check='python -c "import torch; import <extension>"',
        source="torch's extensions have no RPATH to torch/lib: libc10.so resolves only once torch is "
               "imported (glibc 'cannot open shared object file')"),
    "torch_not_found_at_build": _c("toolkit",
        "pip's build isolation hides the installed torch from setup.py: use --no-build-isolation.",
        fix='pip builds in an isolated environment without the installed torch, so a setup.py that '
            'imports torch fails there: install the build requirements, then build with '
            '--no-build-isolation.',
        told_from='kernel_wrong_python: a torch missing at run time is another environment',
        check='pip install --no-build-isolation <package>',
        source="PEP 517/518 build isolation (pip); setup.py 'import torch' in the isolated environment"),
    "torch_not_installed": _c("torch",
        "torch is not installed in the Python that runs the code (the script's interpreter, the notebook's kernel); "
        "read in a text, also one of its companions that install apart from it (torchvision, torchaudio, "
        "torch_geometric), the finding naming the missing one.",
        fix="torch is not installed in the Python that runs this code: install the torch build that matches this "
            "machine into that Python (`python -m pip install torch` with the kernel's python, %pip install in a "
            "notebook; the CUDA variant the driver supports, pytorch.org/get-started).",
        severity="warning",
        told_from="kernel_wrong_python: torch is installed, in another Python than the kernel's",
        check='python -c "import torch"',
        source="importlib.metadata / the torch package directory on sys.path (the torch probe)"),
    "torch_wheel_lacks_gpu_arch": _c("torch",
        "torch was not compiled for this GPU's compute capability (no kernel image).",
        fix="The installed torch has no kernels for this GPU's compute capability: install a torch CUDA "
            "variant built for it (newer GPUs need newer CUDA variants; old GPUs need older torch "
            "releases).",
        told_from='no_kernel_image_for_gpu: torch has the arch, an extension lacks it',
        check='python -c "import torch; print(torch.cuda.get_device_capability(), '
              'torch.cuda.get_arch_list())"',
        source="torch/cuda/__init__.py _check_capability / _check_cubins ('is not compatible with the "
               "current PyTorch installation'); tables/torch_cuda.csv"),
    "unsupported_gpu_arch": _c("toolkit",
        'The GPU (or an arch in TORCH_CUDA_ARCH_LIST) is newer/older than the build nvcc supports.',
        fix='The nvcc in use cannot build this GPU architecture (too new for the toolkit, or dropped by '
            'it): limit TORCH_CUDA_ARCH_LIST to architectures this nvcc supports, or use a toolkit (and '
            'torch) that supports the GPU.',
        told_from="no_kernel_image_for_gpu: a built binary without the arch; arch_list_value_rejected: "
                  "torch's arch-list parser, not nvcc",
        check='nvcc --version; nvcc --list-gpu-arch',
        source="nvcc 'Unsupported gpu architecture' (tables/nvcc_errors.csv, tables/nvcc_archs.csv)"),
    "user_code_error": _c("torch",
        'The error is a bug in the code that launched the GPU work or in its data, not in the setup: an '
        'illegal memory access, a device-side assert (an index or label out of range), a misaligned '
        'address, tensors on two devices, shapes or dtypes that do not fit, an invalid argument, a '
        'checkpoint of another model.',
        fix='This is not your environment: the failing call (or its inputs) is wrong. Re-run with '
            'CUDA_LAUNCH_BLOCKING=1 (and TORCH_USE_CUDA_DSA builds) to find the kernel that failed, then '
            'check the indices, labels, shapes, dtypes and devices passed to it.',
        severity='info',
        told_from='cuda_oom: the workload is too large, not wrong; no_kernel_image_for_gpu: the binary '
                  'lacks code for the GPU; library_bug: the fix is a library release',
        check='CUDA_LAUNCH_BLOCKING=1 python <script>   # the traceback then names the failing call',
        source="cudaError_t codes of errors in the calling code (driver_types.h: cudaErrorIllegalAddress "
               "700, cudaErrorAssert 710, cudaErrorInvalidValue 1, ...); torch's argument checks "
               "(tables/torch_messages.csv)"),
    "vgpu_not_licensed": _c("driver",
        "A vGPU / cloud GPU has no valid NVIDIA license, so CUDA refuses work ('device doesn't have "
        "valid Grid license').",
        fix='This virtual GPU has no valid NVIDIA license: configure the license client (gridd) of the '
            'VM, or ask the administrator of the vGPU host.',
        told_from='driver_broken: the driver does not work at all; here it works but is unlicensed',
        check='nvidia-smi -q | grep -i license -A2',
        source='cudaErrorDeviceNotLicensed (102)'),
    "windows_msvc_toolchain": _c("toolkit",
        'A Windows build fails in the MSVC toolchain (cl.exe, Visual C++ build tools).',
        fix='The build needs a working MSVC toolchain that nvcc accepts: install the Visual C++ Build '
            'Tools of a supported version and build from an x64 Native Tools prompt.',
        told_from='host_compiler_unsupported: gcc on Linux',
        check='where cl',
        source="CUDA host_config.h '-- unsupported Microsoft Visual Studio version!'; nvcc 'Cannot find "
               "compiler cl.exe in PATH' (tables/nvcc_errors.csv)"),
    "wrong_architecture_binary": _c("loader",
        "A library or executable of another word size or CPU architecture is loaded: 'wrong ELF class: "
        "ELFCLASS32/64', an ELF for another machine, or a binary of another OS; 'Exec format error'.",
        fix='The binary was built for another platform (32/64-bit, CPU architecture or OS): install the '
            'build for this machine (check the wheel\'s platform tag against `python -c "import '
            'platform; print(platform.machine())"`), or build it here.',
        told_from='binary_corrupt: the file is damaged or not a library; symbol_version_missing: same '
                  'architecture, older C library',
        check='file <the library named>; uname -m',
        source="glibc elf/dl-load.c open_verify ('wrong ELF class', 'ELF file OS ABI invalid'); "
               "execve(2) ENOEXEC (tables/loader_errors.csv)"),
}


def meanings(home: str) -> dict[str, str]:
    """code -> meaning of every code of ``home`` (``"rules.driver"``; ``"text"``: codes a pasted error can show)."""
    return {c: e.meaning for c, e in CODES.items() if home in e.homes}


def why(code: str, detail: str = "", *, machine: bool = False) -> str:
    """The fix wording of ``code`` (the table's ``fix``), followed by ``detail`` when given. ``machine``: a finding of
    this machine's facts, no text given: the table's ``machine_fix`` where the ``fix`` speaks of a text."""
    base = (CODES[code].machine_fix if machine else "") or CODES[code].fix
    return f"{base} {detail}".strip() if base else detail


def layer_of(code: str) -> str:
    """The layer a finding of ``code`` belongs to."""
    return CODES[code].layer


def is_cause(code: str) -> bool:
    """True for a code that names what is wrong (it has a fix wording): a text with a finding of such a
    code is recognised; context notes and all-clear codes are not causes."""
    e = CODES.get(code)
    return bool(e and e.fix)


#: codes the issue requires the doctor to know (rules and explain share them)
REQUIRED_CODES: tuple[str, ...] = (
    "abi_torch_version_mismatch", "cxx11_abi_mismatch", "unsupported_gpu_arch", "multiple_cuda_toolkits",
    "torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu", "nvcc_torch_cuda_mismatch", "cuda_home_missing",
    "cuda_home_malformed", "host_compiler_unsupported", "driver_too_old", "cudart_not_found",
    "prebuilt_binary_wrong_cuda", "env_not_propagated_to_kernel", "libstdcxx_too_old",
    "torch_not_found_at_build", "ninja_missing", "kaolin_no_wheel_for_combo", "kaolin_version_gate",
    "torch_api_incompatible_source", "user_code_error",
)

CODES_PATH = Path(__file__).with_name("CODES.md")


def code_sources() -> dict[str, list[str]]:
    """code -> where it is decided (``rules.<layer>``) and ``text`` when a pasted error can show it."""
    return {c: list(e.homes) for c, e in CODES.items()}


def codes_markdown() -> str:
    """The text of CODES.md (and of the docs' finding-codes page), from :data:`CODES`."""
    lines = [
        "# Doctor finding codes",
        "",
        "Generated by `smr-doctor codes --write` from the one table of codes",
        "(`smrnb/doctor/_codes.py`); do not edit by hand.",
        "A finding carries a stable `code`, a `layer` (" + ", ".join(f"`{ly}`" for ly in LAYERS) + "),",
        "a severity (" + " / ".join(SEVERITIES) + "), a title, evidence and a fix. Every code is decided by the",
        "rules of its layer (`rules.<layer>`), on facts probed on the machine or read in a pasted error",
        "(`text`: `smr-doctor explain` reads them); one cause has one code and one fix wording.",
        "`user_code_error` (info) says that an error is not the environment's; a text with no finding of a",
        "code that has a fix is reported as not recognised (exit status 3), never as an all-clear.",
        "The severity column is a finding's severity where its cause makes something fail (a pasted error, a",
        "build with a CUDA torch). The live report gives a warning or a note where nothing installed fails by it",
        "yet: a toolkit, CUDA_HOME or driver-for-toolkit cause beside a CPU-only torch or a toolkit no build",
        "uses, and a CPU-only torch beside a GPU (it runs, on the CPU). An error of before that the text says",
        "was followed by a good run is a note.",
        "",
        "| code | layer | severity | meaning | fix | told from | decided in | source |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|") or "-"

    for code in sorted(CODES):
        e = CODES[code]
        fix = e.fix + (f" (A live report, with no text: {e.machine_fix})" if e.machine_fix else "")
        lines.append(f"| `{code}` | {e.layer} | {e.severity} | {cell(e.meaning)} | {cell(fix)} | {cell(e.told_from)} "
                     f"| {', '.join(e.homes)} | {cell(e.source)} |")
    return "\n".join(lines) + "\n"

