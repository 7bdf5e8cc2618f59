# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 8: the forms of known messages that pasted reports carry (a localized Windows, a title that cuts the
loader's message short, ptxas' per-file form, a lower-case nvcc line) and messages of other GPU stacks, each written
from the tool's own source (see the table rows' ``source``), never copied from a corpus text."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

TORCH_C = ('  File "C:\\Python310\\lib\\site-packages\\torch\\__init__.py", line 133, in <module>\n'
           "    from torch._C import *\n")

READINGS = [
    # Windows ERROR_MOD_NOT_FOUND through CPython's dynload_win.c, English and localized
    (TORCH_C + "ImportError: DLL load failed: The specified module could not be found.\n", ["library_not_found"]),
    (TORCH_C + "ImportError: DLL load failed while importing _C: 找不到指定的模块。\n", ["library_not_found"]),
    (TORCH_C + "ImportError: DLL load failed while importing _C: 指定されたモジュールが見つかりません。\n",
     ["library_not_found"]),
    ("ImportError: DLL load failed while importing my_ops_cuda: The specified module could not be found.\n",
     ["library_not_found", "torch_libs_not_loaded"]),
    ("    lib = ctypes.CDLL(lib_path[0], ctypes.RTLD_GLOBAL)\nWindows error 126\n", ["library_not_found"]),
    ('OSError: Error loading "C:\\env\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n',
     ["library_not_found"]),
    ("Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
     "                 It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\n",
     ["library_not_found"]),
    # the loader's version message, cut short by a title
    ("ImportError: /env/lib/libstdc++.so.6: version `GLIBCXX_3.4.30'\n", ["libstdcxx_too_old"]),
    ("`GLIBCXX_3.4.32' not found for importing _ext\n", ["libstdcxx_too_old"]),
    # nvcc and ptxas
    ("nvcc fatal unsupported gpu architecture 'compute_90'\n", ["unsupported_gpu_arch"]),
    ("nvcc fatal   : A single input file is required for a non-link phase when an outputfile is specified\n",
     ["nvcc_option_unsupported"]),
    ("ptxas /tmp/tmpab12.ptx, line 5; fatal   : Unsupported .version 8.6; current version is '8.5'\n"
     "ptxas fatal   : Ptx assembly aborted due to errors\n", ["multiple_cuda_toolkits", "toolkit_below_extension_minimum"]),
    ('kernels.cu(42): error: no instance of overloaded function "atomicAdd" matches the argument list\n'
     "            argument types are: (double *, double)\n", ["library_bug", "gpu_below_extension_minimum"]),
    # other GPU stacks
    ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 "
     "bytes.\nBufferAssignment OOM Debugging.\n", ["cuda_oom"]),
    ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid usage (run with "
     "NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage: This usually reflects invalid usage of NCCL "
     "library.\nLast error:\nDuplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000\n", ["user_code_error"]),
    ('  File "/env/lib/python3.10/site-packages/pyrender/viewer.py", line 997, in _init_and_start_app\n'
     "    raise ValueError('Unable to initialize an OpenGL 3+ context')\n"
     "ValueError: Unable to initialize an OpenGL 3+ context\n", ["opengl_egl_unavailable"]),
    ("    cuda.init()\npycuda._driver.Error: cuInit failed: unknown error\n", ["driver_broken", "no_gpu"]),
    ('  File "/env/lib/python3.10/site-packages/soundfile.py", line 142, in <module>\n'
     "    raise OSError('sndfile library not found')\nOSError: sndfile library not found\n", ["library_not_found"]),
    ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: Unsupported Arch (/src/TensorRT-LLM/cpp/tensorrt_llm/"
     "kernels/cutlass_kernels/cutlass_preprocessors.cpp:147)\n", ["gpu_below_extension_minimum"]),
    ("CUDA extension not installed\n", ["extension_not_compiled"]),
    ("mxnet.base.MXNetError: [16:53:11] src/storage/storage.cc:43: Please compile with CUDA enabled\n",
     ["cpu_only_torch_with_gpu"]),
    ("RuntimeError: FlashAttention backward for head dim > 64 requires A100 or H100 GPUs as the implementation needs "
     "a large amount of shared memory.\n", ["gpu_below_extension_minimum"]),
    ("rocBLAS error: TensileLibrary.dat not found\n", ["torch_wheel_lacks_gpu_arch"]),
    ("/src/optix_wrapper.cpp:175 Optix Error: 'Unsupported ABI version'\n", ["driver_too_old"]),
    ("./build/testbed --scene data/nerf/fox\nUncaught exception: Optix call 'optixInit()' failed.\n",
     ["driver_too_old", "library_not_found"]),
    # an NVML tool's own log line, in a text about NVML
    ("$ nvml-fan --gpu 0\nLOG: initialised nvml, Driver Version: 570.124.06\nLogging error: Insufficient Permissions\n",
     ["gpu_device_permission_denied"]),
    # a mangled name whose underscores Markdown turned into emphasis
    ("ImportError: /env/lib/python3.10/site-packages/my_ext_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
     "*ZNK3c1017SymbolicShapeMeta18init*is_contiguousEv\n", ["abi_torch_version_mismatch"]),
    # PyG's operator wheels are made per torch release: both readings
    ("OSError: /env/lib/python3.8/site-packages/torch_sparse/_version_cuda.so: undefined symbol: "
     "_ZN3c106Device8validateEv\n", ["companion_built_for_other_torch", "abi_torch_version_mismatch"]),
    # setup.py importing a build requirement pip's isolated environment lacks
    ("  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n"
     '        File "/tmp/pip-install-x/flash-attn_1/setup.py", line 9, in <module>\n'
     "          from packaging.version import parse, Version\n      ModuleNotFoundError: No module named 'packaging'\n",
     ["build_dependency_missing", "torch_not_found_at_build"]),
    # python started inside kaolin's checkout: the source tree (no compiled modules) shadows the installed kaolin
    ('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
     '  File "/home/u/src/kaolin/kaolin/__init__.py", line 17, in <module>\n    from kaolin import ops\n'
     '  File "/home/u/src/kaolin/kaolin/ops/mesh.py", line 22, in <module>\n    from kaolin import _C\n'
     "ModuleNotFoundError: No module named 'kaolin.nnsearch'\n", ["extension_not_compiled"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[c[0][:60] for c in READINGS])
def test_reading(text, codes):
    got = rule_codes(text, n=len(codes))
    assert got == codes, (text, got)


def test_a_paging_file_too_small_is_not_a_missing_dll():
    # ERROR_COMMITMENT_LIMIT (1455): the DLL is there, Windows could not commit memory for it (the paging file)
    text = ('OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading '
            '"C:\\env\\lib\\site-packages\\torch\\lib\\shm.dll" or one of its dependencies.\n')
    assert "library_not_found" not in rule_codes(text, n=5)


def test_the_driver_jit_form_of_ptxas_stays_the_drivers():
    # the driver's own PTX JIT (cuLinkAddData) prints 'ptxas application ptx input': a driver older than the PTX
    text = "ptxas application ptx input, line 9; fatal   : Unsupported .version 8.3; current version is '8.2'\n"
    codes = rule_codes(text, n=2)
    assert codes and codes[0] in ("driver_below_cuda_minor", "driver_too_old"), codes


def test_a_glibcxx_message_with_its_requirer_is_read_once():
    text = ("ImportError: /env/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by "
            "/env/lib/python3.10/site-packages/pkg/_C.so)\n")
    res = explain_result(text, similar=False)
    assert [f.code for f in res.findings].count("libstdcxx_too_old") == 1


def test_a_project_folder_is_no_source_checkout_of_a_package():
    # a folder of the project's own laid out like a checkout (repo/repo/) is no released package: no compiled-module reading
    text = ('Traceback (most recent call last):\n  File "/home/u/myproj/myproj/train.py", line 3, in <module>\n'
            "    from myproj.data import loader\nModuleNotFoundError: No module named 'myproj.data'\n")
    assert "extension_not_compiled" not in rule_codes(text, n=3)


def test_a_missing_module_outside_a_build_is_not_a_build_requirement():
    text = ('Traceback (most recent call last):\n  File "train.py", line 1, in <module>\n    import packaging\n'
            "ModuleNotFoundError: No module named 'packaging'\n")
    assert "build_dependency_missing" not in rule_codes(text, n=3)


@pytest.mark.parametrize("loaded,compiled,first", [
    ("7301 (compatibility version 7300)", "7003 (compatibility version 7000)", "prebuilt_binary_wrong_cuda"),
    ("8.0.5", "8.1.0", "library_shadowed_older_copy"),
])
def test_tensorflows_cudnn_check_reads_which_side_is_newer(loaded, compiled, first):
    # stream_executor/cuda/cuda_dnn.cc: an older cuDNN loaded is another copy found first; a newer one the binary does
    # not accept is a binary built for another cuDNN; both readings either way
    sep = ":" if "." in loaded else ""  # TensorFlow 2 prints "compiled with: 8.1.0", TensorFlow 1 "compiled with 7003"
    text = f"E cuda_dnn.cc:328] Loaded runtime CuDNN library: {loaded} but source was compiled with{sep} {compiled}.\n"
    codes = rule_codes(text, n=2)
    assert codes[0] == first and set(codes) == {"prebuilt_binary_wrong_cuda", "library_shadowed_older_copy"}, codes


def test_an_installed_package_importing_a_name_another_lacks_is_a_release_mismatch():
    text = ('  File "/env/lib/python3.9/site-packages/pyrender/platforms/osmesa.py", line 19, in init_context\n'
            "    from OpenGL.osmesa import (\n"
            "ImportError: cannot import name 'OSMesaCreateContextAttribs' from 'OpenGL.osmesa'\n")
    assert rule_codes(text, n=1) == ["package_api_version_mismatch"]


def test_a_private_function_missing_from_a_module_is_no_compiled_module():
    text = "ImportError: cannot import name '_get_batch_samples' from 'somepkg.loss_utils'\n"
    assert "extension_not_compiled" not in rule_codes(text, n=3)
