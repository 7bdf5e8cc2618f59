# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32g: a library's own bug (library_bug) or the person's own code (user_code_error), read from the
tool's own message as its source prints it, never from a reporter's sentence.

- PyG's extensions (torch_scatter, torch_sparse, torch_cluster, torch_spline_conv) refusing a CUDA that differs from
  torch's only in the minor version, from CUDA 11 on ("PyTorch has CUDA version 11.0 and torch_scatter has CUDA version
  11.2"): older releases checked major and minor, current ones the major only (CUDA 11's minor-version compatibility),
  so the installed release's check is the fault (heldout8/pytorch_scatter-187). A CUDA 10 minor or a major difference
  keeps its reading (another build of the companion).
- MinkowskiEngine's "The coord map already exists for the given tensor stride" (coords_manager.cpp): a second sparse
  tensor on a shared coordinate manager without force_creation (dev12/minkowskiengine-154).
- XLA's "Could not find registered platform with name: \"rocm\". Available platform names are: ... CUDA": jax asked for
  ROCm ('rocm', or older jax's 'gpu' alias) on a CUDA jaxlib (heldout8/jax-12335); a jaxlib with no CUDA platform keeps
  the CPU-only reading.
- tiny-cuda-nn's CUDA_CHECK_THROW ("<tiny-cuda-nn header>:<line> cudaX(...) failed with error an illegal memory
  access"): its own kernels' out-of-bounds access at its own synchronisation point, tiny-cuda-nn#272
  (heldout8/nerfstudio-1534).
- Warp's "Failed to get driver entry point 'cuDeviceGetUuid' (CUDA error 1)" (warp.cu get_driver_entry_point): the
  number is the entry-point lookup's result, which library_messages.csv's warp_entry_point_invalid reads (a Warp
  release before its fix on R580 drivers), not an error of the code that runs (user_code_error no longer comes first;
  heldout11/leisaac-35, dev7/gauss_gym-16).
- NCCL's own CUDA check naming an invalid argument ("Cuda failure 'invalid argument'", "Cuda failure 1 'invalid
  argument'": checks.h CUDACHECK / CUCHECK under "Last error:"): a CUDA call NCCL builds itself from its communicator,
  so the NCCL release's bug is the second reading beside the runtime table's first (heldout6/vllm-3688: NCCL 2.18.1's
  bug with a custom all-reduce). A program's own "CUDA error: invalid argument" and nccl-tests' "Test CUDA failure" keep user_code_error.
- The linker asked for a library named after one of CMake's false constants ("cannot find -lfalse", lld's "unable to
  find library -lOFF"): a build variable's false value on the link line (the project's find logic of an outdated
  release, or a cache entry set by hand), never a library to install (heldout9/opencv-22274: CUDA_nppicom_LIBRARY
  false). A real library's name keeps build_dependency_missing.
- triton's ptxas refusing PTX exactly one ISA minor above its own from 8.6 on ("Unsupported .version 8.6; current
  version is '8.5'"): triton writes the .version its CUDA-to-PTX map gives for the very ptxas it runs, and releases
  before the fix mapped CUDA 12.x to 8.x (compiler.py ptx_get_version: 12.6's ptxas knows 8.5), heldout5/triton-4576.
  An older ptxas picked by hand (8.4 against 7.8) and nvcc's own ptxas keep their readings.
- "No module named 'X.Y'" raised by importing X itself, `import X` just before the error with no traceback between
  (Python runs X's __init__.py, which imports a submodule this copy of X lacks): the release (or the install) first
  (heldout11/iopath-5: iopath's release imported iopath.tabular it did not ship). A traceback whose frame is X's own
  __init__.py keeps the earlier rounds' reading (another release of X first); a compiled submodule (X._C, X._ext)
  keeps extension_not_compiled; `from X.Y import ...` by the calling code keeps its reading.
Near-misses share words but not the mechanism and keep their own codes."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

POSITIVE = {
    "library_bug": [
        # heldout8/pytorch_scatter-187 (the corpus' wording)
        "Hi, I followed the instructions in the README to install torch-scatter with CUDA v11.0 (cu110)\n"
        "RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. PyTorch has "
        "CUDA version 11.0 and torch_scatter has CUDA version 11.2. Please reinstall the torch_scatter that matches "
        "your PyTorch install.\n(Pytorch 1.7.1+cu110)",
        # torch_sparse's same check in a traceback, not from the corpus
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import torch_sparse\n"
        "  File \"/opt/conda/lib/python3.9/site-packages/torch_sparse/__init__.py\", line 40, in <module>\n"
        "    raise RuntimeError(\nRuntimeError: Detected that PyTorch and torch_sparse were compiled with different "
        "CUDA versions. PyTorch has CUDA version 11.3 and torch_sparse has CUDA version 11.6. Please reinstall the "
        "torch_sparse that matches your PyTorch install.",
        # heldout8/nerfstudio-1534 (the corpus' wording)
        "ns-train error\nterminate called after throwing an instance of 'std::runtime_error'\n  what():  /home/w/nerf/"
        "ngp_pl/tiny-cuda-nn/include/tiny-cuda-nn/multi_stream.h:83 cudaEventRecord(m_event, m_stream) failed with "
        "error an illegal memory access was encountered\nAborted (core dumped)",
        # tiny-cuda-nn's check at another synchronisation point, not from the corpus
        "Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"
        "RuntimeError: /tmp/pip-req-build-0x1f/include/tiny-cuda-nn/gpu_memory.h:590 cudaStreamSynchronize(stream) "
        "failed with error an illegal memory access was encountered",
        # heldout11/leisaac-35 (the corpus' wording)
        "install isaaclab 2.2.1 with isaacsim 5.0 in windows OS\nWarp CUDA error: Failed to get driver entry point "
        "'cuDeviceGetUuid' (CUDA error 1)\nWarp CUDA error: Function cuDeviceGetUuid_f: a suitable driver entry point "
        "was not found\nWarp CUDA error 36: API call is not supported in the installed CUDA driver (in function "
        "cuda_init, C:\\g\\163821891\\warp\\native\\warp.cu:277)",
        # another entry point in a Linux log, not from the corpus
        "Module warp.sim loaded\nWarp CUDA error: Failed to get driver entry point 'cuCtxCreate' (CUDA error 1)\n"
        "Warp CUDA error: Function cuCtxCreate_f: a suitable driver entry point was not found\nWarp 1.7.1 initialized:"
        "\n   CUDA Toolkit 12.8, Driver 13.0",
        # heldout6/vllm-3688 (the corpus' wording, cut)
        "(RayWorkerVllm pid=4028887) ERROR 03-28 21:38:23 ray_utils.py:44] torch.distributed.DistBackendError: NCCL "
        "error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled cuda error (run with "
        "NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n(RayWorkerVllm pid=4028887) ERROR 03-28 21:38:23 "
        "ray_utils.py:44] ncclUnhandledCudaError: Call to CUDA function failed.\n(RayWorkerVllm pid=4028887) ERROR "
        "03-28 21:38:23 ray_utils.py:44] Last error:\n(RayWorkerVllm pid=4028887) ERROR 03-28 21:38:23 "
        "ray_utils.py:44] Cuda failure 'invalid argument'",
        # NCCL_DEBUG=INFO's WARN line of the runtime check, and CUCHECK's form with the CUresult, not from the corpus
        "node1:1234:1290 [0] enqueue.cc:1116 NCCL WARN Cuda failure 'invalid argument'\nnode1:1234:1290 [0] NCCL "
        "INFO group.cc:64 -> 1 [Async thread]\nRuntimeError: NCCL error: unhandled cuda error, NCCL version 2.18.1",
        "NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error "
        "(run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\nncclUnhandledCudaError: Call to CUDA function "
        "failed.\nLast error:\nCuda failure 1 'invalid argument'",
        # heldout9/opencv-22274 (the corpus' wording, cut)
        "/usr/bin/ld: cannot find -lfalse: No such file or directory Ubuntu 20.04\nI have made NO changes to the base "
        "opencv code.\n[CMakeCache.txt]",
        # lld's wording on a CMake link line, not from the corpus
        "[100%] Linking CXX executable app\nld.lld: error: unable to find library -lOFF\nclang: error: linker command "
        "failed with exit code 1 (use -v to see invocation)",
        # heldout5/triton-4576 (the corpus' wording, cut)
        "While using Triton with CUDA 12.6, I receive the following error.\n\nE                   RuntimeError: Internal "
        "Triton PTX codegen error:\nE                   ptxas /tmp/tmpqgu1f9dk.ptx, line 5; fatal   : Unsupported "
        ".version 8.6; current version is '8.5'\nE                   ptxas fatal   : Ptx assembly aborted due to errors",
        # CUDA 12.8's ptxas under a triton release before the fix, not from the corpus
        "  File \"/opt/venv/lib/python3.11/site-packages/triton/backends/nvidia/compiler.py\", line 297, in make_cubin\n"
        "    raise RuntimeError(f'{error}\\n'\nRuntimeError: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas "
        "fatal   : Unsupported .version 8.8; current version is '8.7'",
        # heldout11/iopath-5 (the corpus' wording, cut)
        "ModuleNotFoundError: No module named 'iopath.tabular'\n!pip install detectron2 -f https://dl.fbaipublicfiles"
        ".com/detectron2/wheels/cu102/torch1.7/index.html\n...\nEven without using detectron2 simply calling:\n"
        "`import iopath` results in \nModuleNotFoundError: No module named 'iopath.tabular'",
        # a prompt's import of another package, not from the corpus
        ">>> import torch_geometric\nTraceback (most recent call last):\nModuleNotFoundError: No module named "
        "'torch_geometric.typing'",
    ],
    "user_code_error": [
        # dev12/minkowskiengine-154 (the corpus' wording)
        "RuntimeError: src/coords_manager.cpp:312, assertion (false) faild. The coord map already exists for the given "
        "tensor stride  tensor_stride:  [1, 1, 1] For more information, please refer to the SparseTensor creation "
        "documentation available at:https://stanfordvl.github.io/MinkowskiEngine/sparse_tensor.html",
        # the assertion's other wording (coords_manager.cpp of 0.4.x), not from the corpus
        "  File \"/usr/local/lib/python3.8/dist-packages/MinkowskiEngine/SparseTensor.py\", line 276, in __init__\n"
        "    self.initialize_coords(coords, coords_key, force_creation)\nRuntimeError: /tmp/MinkowskiEngine/src/"
        "coords_manager.cpp:216, assertion (false) failed. The coord map already exists for the given tensor stride "
        "tensor_stride: [2, 2, 2]. To enforce creation, set true for force_creation.",
        # heldout8/jax-12335 (the corpus' wording)
        "import jax\njax.config.update('jax_platforms', 'gpu')\njax.default_backend()\nreturns\nRuntimeError: Unable "
        "to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available "
        "platform names are: Interpreter CUDA Host",
        # JAX_PLATFORMS=rocm on a CUDA jaxlib, not from the corpus
        "$ JAX_PLATFORMS=rocm python -c 'import jax; print(jax.devices())'\nRuntimeError: Unable to initialize backend "
        "'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available platform names are: Host "
        "CUDA (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)",
    ],
}

#: texts that share words with a reading but not its mechanism: (text, the code that must not be among the first two)
NEAR_MISS = {
    # CUDA 10's minor versions differ: another build of the companion, not the check's fault
    "pyg_cuda10_minor": ("RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA "
                         "versions. PyTorch has CUDA version 10.1 and torch_scatter has CUDA version 10.2. Please "
                         "reinstall the torch_scatter that matches your PyTorch install.", "library_bug"),
    # the major differs: a wheel of another CUDA
    "pyg_major": ("RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA versions. "
                  "PyTorch has CUDA version 12.1 and torch_sparse has CUDA version 11.8. Please reinstall the "
                  "torch_sparse that matches your PyTorch install.", "library_bug"),
    # another MinkowskiEngine assertion (the coordinates' size, not a second map)
    "minkowski_other": ("RuntimeError: src/coords_manager.cpp:179, assertion (coords.size(1) == D + 1) failed. The "
                        "coordinate dimension (coords.size(1)) must match the size of tensor stride.",
                        "user_code_error"),
    # a CPU-only jaxlib asked for CUDA: no CUDA platform at all
    "xla_cpu_only": ("INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': NOT_FOUND: Could not find "
                     "registered platform with name: \"cuda\". Available platform names are: Interpreter Host",
                     "user_code_error"),
    # tiny-cuda-nn's check reporting out of memory, not an illegal access
    # nccl-tests' own CUDA call (the test program's check), and a program's own CUDA error: the calling code
    "nccl_tests_own_call": ("Test CUDA failure common.cu:892 'invalid argument'\n .. node1 pid 1234: Test failure "
                            "common.cu:401", "library_bug"),
    "program_invalid_argument": ("RuntimeError: CUDA error: invalid argument\nCUDA kernel errors might be "
                                 "asynchronously reported at some other API call", "library_bug"),
    # a real library missing from the link, and a name that only begins like the constant
    "ld_real_library": ("/usr/bin/ld: cannot find -lcudart\ncollect2: error: ld returned 1 exit status", "library_bug"),
    "ld_falsecolor": ("/usr/bin/ld: cannot find -lfalsecolor\ncollect2: error: ld returned 1 exit status",
                      "library_bug"),
    # nvcc's own ptxas one step behind (no triton), and triton's PTX for a much older ptxas picked by hand
    "nvcc_ptxas": ("nvcc -arch=sm_90 -c kernel.cu\nptxas /tmp/tmpxft_0000_kernel.ptx, line 5; fatal   : Unsupported "
                   ".version 8.6; current version is '8.5'\nptxas fatal   : Ptx assembly aborted due to errors",
                   "library_bug"),
    "triton_old_ptxas": ("RuntimeError: Internal Triton PTX codegen error:\nptxas /tmp/tmpa.ptx, line 5; fatal   : "
                         "Unsupported .version 8.4; current version is '7.8'", "library_bug"),
    # the calling code's own import of a submodule, and a compiled submodule never built
    "from_submodule": ("from iopath.common import file_io\nModuleNotFoundError: No module named 'iopath.common'",
                       "library_bug"),
    "compiled_submodule": (">>> import mmcv\nModuleNotFoundError: No module named 'mmcv._ext'", "library_bug"),
    "tcnn_oom": ("RuntimeError: /tmp/pip-req-build-0x1f/include/tiny-cuda-nn/gpu_memory.h:558 cudaMalloc(&rawptr, "
                 "n_bytes+DEBUG_GUARD_SIZE*2) failed with error out of memory", "library_bug"),
}


def test_warp_entry_point_number_is_no_error_of_the_code() -> None:
    """The lookup's result number is not read as an operation's CUDA_ERROR_INVALID_VALUE (user_code_error)."""
    text = "Warp CUDA error: Failed to get driver entry point 'cuDeviceGetUuid' (CUDA error 1)"
    assert rule_codes(text)[:1] == ["library_bug"], rule_codes(text, n=5)
    # an operation's own CUDA_ERROR_INVALID_VALUE keeps its reading
    for other in ("Warp CUDA error: cuMemcpyAsync failed (CUDA error 1)",
                  "CUDA error 1 at /build/llama.cpp/ggml-cuda.cu:5065: invalid argument"):
        assert rule_codes(other)[:1] == ["user_code_error"], rule_codes(other, n=5)


@pytest.mark.parametrize("code,text", [(c, t) for c, ts in POSITIVE.items() for t in ts],
                         ids=[f"{c}-{i}" for c, ts in POSITIVE.items() for i in range(len(ts))])
def test_read_from_the_tools_message(code: str, text: str) -> None:
    assert code in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text,code", list(NEAR_MISS.values()), ids=list(NEAR_MISS))
def test_near_misses_keep_their_reading(text: str, code: str) -> None:
    assert code not in rule_codes(text), rule_codes(text, n=5)


def test_cpu_only_jaxlib_keeps_its_reading() -> None:
    assert "cpu_only_torch_with_gpu" in rule_codes(NEAR_MISS["xla_cpu_only"][0]), rule_codes(NEAR_MISS["xla_cpu_only"][0])


@pytest.mark.parametrize("key", ["pyg_ext_cuda_minor_check", "minkowski_coords_key_exists",
                                 "xla_rocm_asked_on_cuda_build", "tcnn_check_illegal_access",
                                 "cmake_false_library"])
def test_rows_match_their_examples(key: str) -> None:
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


OS_CALL_REFUSED_IN_CONTAINER = [
    # dev10/llama-cpp-python-645 (the corpus' wording): unknown, nothing recognised
    "cuda error 304 when using Docker cuda-simple\n...\ndocker run --gpus=all -ti -p 8080:8080 \\\n  -v "
    "$PWD/model.bin:/content/saved-model/model.bin --cap-add SYS_RESOURCE -e USE_MLOCK=0 -e "
    "MODEL=/content/saved-model/model.bin llama-cpp-python bash\n\npython3 -m llama_cpp.server\nCUDA error 304 at "
    "/tmp/pip-install-jyfgheyj/llama-cpp-python_1b0933bab9d24ed297e7d077c7ec53f5/vendor/llama.cpp/ggml-cuda.cu:5065: "
    "OS call failed or operation not supported on this OS",
    # the runtime's name in a container given the GPU by the NVIDIA runtime, not from the corpus
    "$ docker run --runtime=nvidia --gpus all -it myimage python train.py\nRuntimeError: CUDA error: OS call failed "
    "or operation not supported on this OS (cudaErrorOperatingSystem)",
]


@pytest.mark.parametrize("text", OS_CALL_REFUSED_IN_CONTAINER)
def test_os_call_refused_in_a_gpu_container_is_not_read_as_driver_or_code(text: str) -> None:
    """cudaErrorOperatingSystem (304) inside a container given the GPU: the container's limits (seccomp profile,
    capabilities, memlock), which no code names: neither driver_broken nor user_code_error."""
    assert not {"driver_broken", "user_code_error"} & set(rule_codes(text, n=5)), rule_codes(text, n=5)


def test_os_call_refused_outside_a_container_keeps_its_readings() -> None:
    text = "CUDA error 304 at ggml-cuda.cu:5065: OS call failed or operation not supported on this OS"
    assert rule_codes(text) == ["driver_broken", "user_code_error"], rule_codes(text, n=5)
    # graphics interop in a container keeps the platform's reading
    gl = ("docker run --gpus all -it viewer\nRuntimeError: cudaGraphicsGLRegisterImage failed: OS call failed or "
          "operation not supported on this OS")
    assert rule_codes(gl)[:1] == ["opengl_egl_unavailable"], rule_codes(gl, n=5)
