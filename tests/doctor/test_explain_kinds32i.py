# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32i (builds, loaders and Python environments): Open3D's ML version gate for TensorFlow (as for
PyTorch: extension_torch_version_gate); coremltools' native modules not loaded ('Unable to load CoreML.framework.
Cannot make predictions.', 'BlobWriter not loaded': extension_not_compiled); nvcc's 'identifier "CUDA_R_16BF" is
undefined' (a cudaDataType_t value, or a cuBLAS enum, newer than the toolkit's headers: toolkit_below_extension_minimum);
a line naming GLIBC_2.xx that says 'was compiled against' is the C library's, not a cuDNN/CUDA release mismatch
(symbol_version_missing alone); nvtop's 'No GPU to monitor.' (its NVML not loaded: library_not_found); the loader's
bare 'ImportError: libc10_cuda.so' as an issue title cuts it (a CPU-only torch under a CUDA extension); torch built
for one ROCm release beside the machine's other ROCm (hipcc) and a HIP error in an extension's frame
(nvcc_torch_cuda_mismatch, ROCm's pair); torch's own __init__.py calling a function its _C lacks (two builds
mixed: library_shadowed_older_copy); a ROCm/HIP build (hipcc, hip-config.cmake, ROCM_PATH) asking for a CUDA header:
a CUDA-only dependency in its ROCm port's place (build_dependency_missing); pip's 'Getting requirements to build
wheel ... error' for a source distribution that is no torch extension, in a text without torch: another build
dependency (build_dependency_missing) as the second reading after torch missing at build; a bare 'pip install' typed
in a Windows embeddable Python's folder (ComfyUI portable's python_embeded), another Python's pip
(kernel_wrong_python); an undefined symbol whose mangling tells the C++ string ABI (GCC's B5cxx11 tag, the old
ABI's Ss parameter, TensorFlow's untagged CheckOpMessageBuilder::NewString): cxx11_abi_mismatch; XLA's 'libdevice not
found at ./libdevice.10.bc' and its warning before it (cuda_home_missing, as XLA's other toolkit-part messages); THC
missing in a Lua Torch7 build (luarocks, cunn's THCUNN): cutorch's library, a rock to install first
(build_dependency_missing), not PyTorch's removed API; a notebook kernel failing where `jupyter console` (a kernel
started from the shell, with its environment) works: the terminal_works sign's readings.
Each kind has a wording not from the corpus and near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # Open3D's ML gate, TensorFlow's form (the corpus') and the older 'Tensorflow' spelling; the PyTorch form stays
    ("Exception: Version mismatch: Open3D needs TensorFlow version 2.4.*, but version 2.5.2 is installed!\n",
     "extension_torch_version_gate"),
    ("Traceback (most recent call last):\n  File \"run.py\", line 2, in <module>\n    import open3d.ml.tf as ml3d\n"
     "  File \"/opt/venv/lib/python3.7/site-packages/open3d/ml/tf/__init__.py\", line 36, in <module>\n"
     "    raise Exception('Version mismatch: Open3D needs Tensorflow version {}, but'\n"
     "Exception: Version mismatch: Open3D needs Tensorflow version 2.3.*, but version 2.4.1 is installed!\n",
     "extension_torch_version_gate"),
    ("Exception: Version mismatch: Open3D needs PyTorch version 1.8.*, but version 1.13.1+cu117 is installed!\n",
     "extension_torch_version_gate"),
    # coremltools' libcoremlpython / libmilstoragepython not loaded
    ("  File \"/Users/me/miniconda3/envs/cm/lib/python3.12/site-packages/coremltools/models/model.py\", line 680, "
     "in predict\n    raise Exception(\"Unable to load CoreML.framework. Cannot make predictions.\")\n"
     "Exception: Unable to load CoreML.framework. Cannot make predictions.\n", "extension_not_compiled"),
    ("WARNING:coremltools:Failed to load _MLModelProxy: No module named 'coremltools.libcoremlpython'\n"
     "Traceback (most recent call last):\n  File \"export.py\", line 9, in <module>\n    out = mlmodel.predict(x)\n",
     "extension_not_compiled"),
    ("Fail to import BlobWriter from libmilstoragepython. No module named 'coremltools.libmilstoragepython'\n"
     "  File \"C:\\py313\\Lib\\site-packages\\coremltools\\converters\\mil\\backend\\mil\\load.py\", line 499, in export\n"
     "    raise RuntimeError(\"BlobWriter not loaded\")\nRuntimeError: BlobWriter not loaded\n",
     "extension_not_compiled"),
    # a CUDA data type / cuBLAS enum the toolkit's headers lack (nvcc 10.2 building bfloat16 code)
    ("csrc/fused_dense_cuda.cu(88): error: identifier \"CUDA_R_16BF\" is undefined\n"
     "Cuda compilation tools, release 10.2, V10.2.89\n", "toolkit_below_extension_minimum"),
    ("gemm.cu(41): error: identifier \"CUBLAS_COMPUTE_32F_FAST_TF32\" is undefined\n"
     "1 error detected in the compilation of \"gemm.cu\".\n", "toolkit_below_extension_minimum"),
    # GLIBC_ said missing on a line that also says 'compiled against': the C library alone
    ("ImportError: the wheel was compiled against a newer glibc: /lib64/libc.so.6: version `GLIBC_2.28' not found "
     "(required by /opt/env/lib/python3.9/site-packages/onnxruntime/capi/onnxruntime_pybind11_state.so)\n",
     "symbol_version_missing"),
    # nvtop finding nothing to list (its NVML not loaded)
    ("$ nvtop\nNo GPU to monitor.\n$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1234)\n", "library_not_found"),
    ("$ ./build/src/nvtop\nNo GPU to monitor.\n", "library_not_found"),
    # the loader's bare soname (a title cut before ': cannot open shared object file')
    ("ImportError: libc10_cuda.so after pip install of the prebuilt wheel\n", "cpu_only_torch_with_gpu"),
    ("ImportError: libtorch_cuda.so\n", "cpu_only_torch_with_gpu"),
    # torch built for one ROCm, the machine's hipcc another, HIP failing in an extension built here
    ("$ hipcc --version\nHIP version: 6.2.41133-dd7f95766\nAMD clang version 18.0.0git\n$ pip list | grep torch\n"
     "torch                2.3.1+rocm5.7\n"
     "  File \"/opt/venv/lib/python3.10/site-packages/bitsandbytes/functional.py\", line 1402, in dequantize_4bit\n"
     "    lib.cdequantize_blockwise_bf16_nf4(*args)\nRuntimeError: HIP Function Failed "
     "(/tmp/pip-req-build-x1/csrc/ck_tile/host/kernel_launch_hip.hpp,51) shared object initialization failed\n",
     "nvcc_torch_cuda_mismatch"),
    ("ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\nls /opt/rocm-6.3.1/bin/hipcc\n"
     "  File \"/home/u/.local/lib/python3.11/site-packages/xformers/ops/fmha/ck.py\", line 300, in apply\n"
     "    out, lse = cls.OPERATOR(**kw)\nRuntimeError: HIP error: hipErrorSharedObjectInitFailed\n",
     "nvcc_torch_cuda_mismatch"),
    # torch's own __init__.py calling a function its compiled _C lacks (Python 3's and Python 2's forms)
    ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import torch\n"
     "  File \"/home/u/.local/lib/python3.8/site-packages/torch/__init__.py\", line 465, in <module>\n"
     "    _C._initExtension(manager_path())\nAttributeError: module 'torch._C' has no attribute '_initExtension'\n",
     "library_shadowed_older_copy"),
    ("Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
     "  File \"/usr/local/lib/python2.7/dist-packages/torch/__init__.py\", line 53, in <module>\n"
     "    _C._initExtension()\nAttributeError: 'module' object has no attribute '_initExtension'\n",
     "library_shadowed_older_copy"),
    # a ROCm build asking for a CUDA header (a CUDA-only dependency in its port's place)
    ("/opt/rocm-6.0.2/bin/hipcc -O3 -c src/reduce.hip -o build/reduce.o\n"
     "In file included from src/reduce.hip:4:\n/usr/include/cub/util_arch.cuh:39:10: fatal error: 'cuda_runtime_api.h' "
     "file not found\n#include <cuda_runtime_api.h>\n", "build_dependency_missing"),
    ("CMake Error at CMakeLists.txt:20 (find_package):\n  By not providing \"Findhip.cmake\" ... \"hip-config.cmake\"\n"
     "/usr/include/thrust/system/cuda/config.h:33:10: fatal error: cuda_runtime.h: No such file or directory\n",
     "build_dependency_missing"),
    # pip asking the build requirements of a source distribution that is no torch extension, no torch in the text
    ("Collecting pyworld\n  Downloading pyworld-0.3.4.tar.gz (251 kB)\n  Installing build dependencies ... done\n"
     "  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n", "build_dependency_missing"),
    ("Collecting madmom\n  Using cached madmom-0.16.1.tar.gz (20.0 MB)\n"
     "  × Getting requirements to build wheel did not run successfully.\n  │ exit code: 1\n", "build_dependency_missing"),
    # a bare pip typed in a Windows embeddable Python's folder (ComfyUI portable): another Python's pip
    ("C:\\AI\\ComfyUI_windows_portable\\python_embeded>pip install insightface-0.7.3-cp311-cp311-win_amd64.whl\n"
     "Requirement already satisfied: numpy in c:\\users\\me\\appdata\\roaming\\python\\python311\\site-packages\n"
     "ModuleNotFoundError: No module named 'insightface'\n", "kernel_wrong_python"),
    ("E:\\tools\\python_embedded>pip3 install onnxruntime-gpu\n", "kernel_wrong_python"),
    # the C++ string ABI told by the symbol: the untagged NewString of TensorFlow's CHECK macros, GCC's [abi:cxx11]
    # tag of a string-returning function, the old ABI's std::string parameter (Ss)
    ("    lib = tf.load_op_library('./build/roi_pooling.so')\ntensorflow.python.framework.errors_impl.NotFoundError: "
     "./build/roi_pooling.so: undefined symbol: _ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv\n",
     "cxx11_abi_mismatch"),
    ("NotFoundError: /home/u/ops/zero_out.so: undefined symbol: "
     "_ZNK10tensorflow8OpKernel11type_stringB5cxx11Ev\n", "cxx11_abi_mismatch"),
    ("ImportError: /opt/app/lib/_mesh_ext.so: undefined symbol: _ZN7meshlib6loader4openERKSs\n", "cxx11_abi_mismatch"),
    # XLA's own words for libdevice missing (TensorFlow's InternalError, XLA's warning before it)
    ("tensorflow.python.framework.errors_impl.InternalError: libdevice not found at ./libdevice.10.bc "
     "[Op:__inference_train_function_1234]\n", "cuda_home_missing"),
    ("W external/xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:522] libdevice is required by this HLO module "
     "but was not found at ./libdevice.10.bc\n", "cuda_home_missing"),
    # Lua Torch7's THC (cutorch's library) missing in a rock's build: that rock first
    ("$ luarocks install stnbhwd\n[ 50%] Building NVCC (Device) object CMakeFiles/custn.dir/cuda/stn_cuda.cu.o\n"
     "/tmp/luarocks_stnbhwd/stnbhwd/utils.h:4:17: fatal error: THC.h: No such file or directory\n #include \"THC.h\"\n",
     "build_dependency_missing"),
    ("~/torch/extra/cunn/lib/THCUNN/THCUNN.h:1:21: fatal error: THC/THC.h: No such file or directory\n"
     "Error: Build error: Failed building.\n", "build_dependency_missing"),
    # a notebook kernel that dies on an import that works in a kernel started from the shell (jupyter console)
    ("In the notebook `import pyopenvdb` -> Kernel Restarting: The kernel appears to have died. It will restart "
     "automatically.\nThe same in jupyter console works:\n$ jupyter console\nIn [1]: import pyopenvdb\nIn [2]:\n",
     "env_not_propagated_to_kernel"),
    ("jupyter lab: the kernel appears to have died after `import cv2`\n"
     "but in `jupyter console --kernel=py310` the import works fine.\n", "env_not_propagated_to_kernel"),
]


@pytest.mark.parametrize(("text", "code"), READINGS)
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


def test_glibc_line_is_not_a_cudnn_mismatch():
    text = ("`import tokenizers` fails on CentOS 7: the conda package was compiled against a newer version "
            "(the error says `version 'GLIBC_2.18' not found`)\n")
    assert rule_codes(text, n=1) == ["symbol_version_missing"], rule_codes(text, n=4)


NEAR_MISSES = [
    # Open3D's other messages: not the version gate
    ("Exception: Open3D was not compiled with TensorFlow support\n", "extension_torch_version_gate"),
    # coremltools' own conversion errors (a model it cannot convert): not its native module missing
    ("ValueError: Unable to determine the type of the model, i.e. the source framework. Please provide the value of "
     "argument \"source\"\n", "extension_not_compiled"),
    ("RuntimeError: PyTorch convert function for op 'unflatten' not implemented.\n", "extension_not_compiled"),
    # a project's own macro undefined (detectron2's CUDA_1D_KERNEL_LOOP, caffe's CUDA_KERNEL_LOOP): not CUDA's API
    ("csrc/nms_rotated_cuda.cu(35): error: identifier \"CUDA_1D_KERNEL_LOOP\" is undefined\n",
     "toolkit_below_extension_minimum"),
    ("src/roi_align_kernel.cu(20): error: identifier \"CUDA_KERNEL_LOOP\" is undefined\n",
     "toolkit_below_extension_minimum"),
    # a real cuDNN mismatch line stays one (no GLIBC_ on it)
    # (asserted positively below), and a GLIBCXX line is libstdc++'s, not a cuDNN release
    ("OSError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (the package was "
     "compiled against a newer libstdc++)\n", "prebuilt_binary_wrong_cuda"),
    # a script's own comment or message that there is no GPU to watch: not nvtop's
    ("if not torch.cuda.is_available():\n    return True  # No GPU to monitor\n", "library_not_found"),
    # the loader's full message for torch's CPU library (libc10.so): not a CUDA torch missing
    ("ImportError: libc10.so: cannot open shared object file: No such file or directory\n", "cpu_only_torch_with_gpu"),
    # an undefined symbol in libc10_cuda.so named by its path: not the library missing
    # torch's ROCm and the machine's the same release; and a HIP error in torch's own frame (no extension built here)
    ("HIP version: 6.0.32830-d62f6a171\ntorch                2.3.1+rocm6.0\n"
     "  File \"/opt/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 90, in fwd\n"
     "    out = flash_attn_gpu.fwd(q, k, v)\nRuntimeError: HIP error: hipErrorSharedObjectInitFailed\n",
     "nvcc_torch_cuda_mismatch"),
    ("HIP version: 6.2.41133-dd7f95766\ntorch                2.3.1+rocm5.7\n"
     "  File \"/opt/venv/lib/python3.10/site-packages/torch/nn/modules/linear.py\", line 116, in forward\n"
     "    return F.linear(input, self.weight, self.bias)\nRuntimeError: HIP error: hipErrorSharedObjectInitFailed\n",
     "nvcc_torch_cuda_mismatch"),
    # a Debian version that is not ROCm's scheme (the fourth field not major*10000+minor*100+patch)
    ("Version: 6.4.0.12345-1\ntorch                2.3.1+rocm6.0\n"
     "  File \"/opt/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 90, in fwd\n"
     "    out = flash_attn_gpu.fwd(q, k, v)\nRuntimeError: HIP error: hipErrorSharedObjectInitFailed\n",
     "nvcc_torch_cuda_mismatch"),
    # torch._C lacking a CUDA function in torch/cuda/__init__.py (a CPU-only build), or the person's own call of a
    # private _C name: not torch's own __init__ against its _C
    ("  File \"/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 350, in set_device\n"
     "    torch._C._cuda_setDevice(device)\nAttributeError: module 'torch._C' has no attribute '_cuda_setDevice'\n",
     "library_shadowed_older_copy"),
    ("  File \"/home/u/proj/model.py\", line 12, in <module>\n    torch._C._jit_set_profiling_mode(False)\n"
     "AttributeError: module 'torch._C' has no attribute '_jit_set_profiling_mode'\n", "library_shadowed_older_copy"),
    # the same for a torch extension's sdist (flash-attn), or with torch in the text: torch missing at build alone
    ("Collecting flash-attn\n  Downloading flash_attn-2.5.8.tar.gz (2.5 MB)\n"
     "  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n", "build_dependency_missing"),
    ("torch==2.3.0 is installed\nCollecting pyworld\n  Downloading pyworld-0.3.4.tar.gz (251 kB)\n"
     "  Getting requirements to build wheel ... error\n", "build_dependency_missing"),
    # the embedded Python's own pip run through its python.exe: the right Python
    ("D:\\ComfyUI_windows_portable\\python_embeded>python.exe -s -m pip install triton-3.1.0-cp311-cp311-win_amd64.whl\n",
     "kernel_wrong_python"),
    ("D:\\ComfyUI_windows_portable>python_embeded\\python.exe -m pip install onnxruntime-gpu\n", "kernel_wrong_python"),
    # a symbol with no std::string in it (a destructor, a class's own method): another release, not the ABI flag
    ("NotFoundError: ./custom.so: undefined symbol: _ZN10tensorflow8OpKernelD2Ev\n", "cxx11_abi_mismatch"),
    ("ImportError: /opt/app/lib/_mesh_ext.so: undefined symbol: _ZN7meshlib6loader4openEPKci\n", "cxx11_abi_mismatch"),
    # a test's own skip message about libdevice (no .bc file named, no XLA): not XLA's error
    ("        self.skipTest(f\"libdevice not found at {expected}\")\n", "cuda_home_missing"),
    # a PyTorch extension's source using THC (removed in torch 1.11): torch's API, not a Lua rock to install
    ("/home/u/proj/lib/roi_align/src/roi_align_cuda.cpp:2:10: fatal error: THC/THC.h: No such file or directory\n"
     "error: command '/usr/bin/gcc' failed with exit code 1\ntorch 1.13.1\n", "build_dependency_missing"),
    # jupyter-console as a package pip installs: no terminal where the code works
    ("In the notebook the kernel appears to have died when I import pyopenvdb.\n"
     "Successfully installed jupyter-console-6.6.3 ipykernel-6.29.0\n", "env_not_propagated_to_kernel"),
    ("ImportError: /opt/venv/lib/python3.10/site-packages/torch/lib/libc10_cuda.so: undefined symbol: "
     "_ZN3c104cuda20CUDACachingAllocator9allocatorE\n", "cpu_only_torch_with_gpu"),
]


@pytest.mark.parametrize(("text", "code"), NEAR_MISSES)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2), (text, rule_codes(text, n=4))


def test_cuda_build_missing_cuda_header_stays_the_toolkits():
    # a CUDA build (nvcc, no HIP) missing the same header: the CUDA toolkit's first, not a dependency's port
    text = ("/usr/local/cuda-11.8/bin/nvcc -c src/reduce.cu -o build/reduce.o\n"
            "/usr/include/thrust/system/cuda/config.h:33:10: fatal error: cuda_runtime.h: No such file or directory\n")
    assert rule_codes(text, n=1) == ["cuda_home_incomplete"], rule_codes(text, n=4)


def test_cudnn_mismatch_line_still_read():
    text = "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.\n"
    assert "library_shadowed_older_copy" in rule_codes(text, n=2), rule_codes(text, n=4)


@pytest.mark.parametrize(("table", "key"), [("library_messages", "open3d_ml_torch_version"),
                                            ("library_messages", "coremltools_framework_not_loaded"),
                                            ("library_messages", "coremltools_blobwriter_not_loaded"),
                                            ("library_messages", "nvtop_no_gpu_to_monitor"),
                                            ("library_messages", "embedded_python_bare_pip"),
                                            ("library_messages", "xla_no_cuda_toolkit_parts"),
                                            ("nvcc_errors", "cuda_api_identifier_undefined"),
                                            ("loader_errors", "cannot_open_torch_cuda_lib")])
def test_rows_match_their_examples(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)
