# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 9: running out of GPU memory as other stacks say it (a CUDA allocation call quoted with its error
string, TensorFlow's allocator, text-generation-inference's warmup), errors of the calling code or its configuration
(tensors on two devices in torch's older wording and on MPS, a dtype a kernel lacks, a matrix product of two dtypes,
Lightning's GPU index, TensorRT-LLM's rank count, PyTorch3D's bins, an nvcc option given twice or empty), and releases
that are broken for this system (torch's TCPStore without libuv, Pillow 10's removed constants, a bitsandbytes release
without a binary for this CUDA, a Triton kernel tuned for more shared memory, a kernel module for an older kernel, the
WSL driver's library links). Each text is written from the tool's own message (the table rows' ``source``), never
copied from a corpus text; each risky pattern has a text of another kind that must not get the code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # --- out of GPU memory
    ("terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n"
     "  what():  [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory "
     "(/src/tensorrt_llm/cpp/tensorrt_llm/runtime/bufferManager.cpp:56)\n", ["cuda_oom"]),
    ("RuntimeError: cuMemAlloc failed: out of memory\n", ["cuda_oom"]),
    ("Error: CUDA failed with error out of memory\n", ["cuda_oom"]),
    ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
     "shape[32,512,64,64] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n",
     ["cuda_oom"]),
    ("ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[256,1024,64]\n",
     ["cuda_oom"]),
    ("RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`\n",
     ["cuda_oom"]),
    ("Error: Warmup(Generation(\"Not enough memory to handle 32000 total tokens with 4096 prefill tokens. You need to "
     "decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`\"))\n", ["cuda_oom"]),
    ("Error: NotEnoughMemory: Not enough memory to handle `max_total_tokens=8192`\n", ["cuda_oom"]),
    ("2024-05-02 10:00:01.1 [E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code returned "
     "while running Conv node. Name:'Conv_12' Status Message: CUDA failure 2: out of memory ; GPU=0 ; hostname=box ; "
     "expr=cudaMalloc((void**)&p, size);\n", ["cuda_oom"]),
    ("ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 8589934592\n"
     "llama_new_context_with_model: failed to allocate compute buffers\n", ["cuda_oom"]),
    ("ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is needed, "
     "which is larger than the available KV cache memory (1.25 GiB). Based on the available memory, the estimated "
     "maximum model length is 10240. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
     "initializing the engine.\n", ["cuda_oom"]),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED\n", ["cuda_oom"]),
    ("RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED\n", ["cuda_oom"]),
    ("RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling `cusolverDnCreate(handle)`\n",
     ["cuda_oom"]),
    # --- the code (or its configuration) is wrong
    ("RuntimeError: Tensor for argument #1 'self' is on CPU, but expected it to be on GPU (while checking arguments "
     "for mm)\n", ["user_code_error"]),
    ("RuntimeError: Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 "
     "'weight'; but device 1 does not equal 0 (while checking arguments for cudnn_convolution)\n", ["user_code_error"]),
    ("RuntimeError: Expected object of device type cuda but got device type cpu for argument #1 'self' in call to "
     "_thnn_conv2d_forward\n", ["user_code_error"]),
    ("  File \"/Users/me/proj/train.py\", line 40, in <module>\n    out = model(x)\n"
     "RuntimeError: Placeholder storage has not been allocated on MPS device!\n", ["user_code_error"]),
    ("RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'\n", ["user_code_error"]),
    ("RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'\n", ["user_code_error", "cpu_only_torch_with_gpu"]),
    ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'BFloat16'\n", ["user_code_error", "cpu_only_torch_with_gpu"]),
    ("RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Half\n", ["user_code_error"]),
    ("RuntimeError: expected m1 and m2 to have the same dtype, but got: float != c10::Half\n", ["user_code_error"]),
    ("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0, 1, 2, 3]\n"
     " But your machine only has: [0, 1]\n", ["user_code_error", "gpu_not_exposed_to_process"]),
    ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp "
     "(/src/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:90)\n", ["user_code_error"]),
    ("Bin size was too small in the coarse rasterization phase. This caused an overflow, meaning output may be "
     "incomplete. To solve, try increasing max_faces_per_bin / max_points_per_bin, decreasing bin_size, or setting "
     "bin_size to 0 to use the naive rasterization.\n", ["user_code_error"]),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous "
     "input.\n", ["user_code_error", "cuda_oom"]),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n",
     ["cuda_oom", "user_code_error"]),
    ("nvcc -c kernel.cu -std= -O3 -o kernel.o\nnvcc fatal   : Value '' is not defined for option 'std'\n",
     ["user_code_error"]),
    # --- a release that is broken for this system
    ("nvcc fatal   : redefinition of argument 'optimize'\nmake[2]: *** [CMakeFiles/net.dir/src/layer.cu.o] Error 1\n",
     ["library_bug", "user_code_error"]),
    ("  File \"C:\\env\\lib\\site-packages\\torch\\distributed\\rendezvous.py\", line 189, in _create_c10d_store\n"
     "    return TCPStore(\nRuntimeError: use_libuv was requested but PyTorch was built without libuv support, run "
     "with USE_LIBUV=0 to disable it.\n", ["library_bug"]),
    ("  File \"/env/lib/python3.10/site-packages/somepkg/transforms.py\", line 12, in resize\n"
     "    img = img.resize(size, Image.ANTIALIAS)\nAttributeError: module 'PIL.Image' has no attribute 'ANTIALIAS'\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("RuntimeError: Configured CUDA binary not found at "
     "/env/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cuda129.so\n",
     ["library_bug", "prebuilt_binary_wrong_cuda"]),
    ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376. "
     "Reducing block sizes or `num_stages` may help.\n", ["gpu_below_extension_minimum", "library_bug"]),
    ("  MODPOST /var/lib/dkms/mymod/1.0/build/Module.symvers\n"
     "ERROR: modpost: GPL-incompatible module mymod.ko uses GPL-only symbol 'rcu_read_unlock_strict'\n",
     ["library_bug"]),
    ("$ sudo ldconfig\nldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n", ["library_bug"]),
    ("docker: Error response from daemon: failed to create task for container: OCI runtime create failed: "
     "error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
     "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/0a1b2c/merged/usr/lib/"
     "x86_64-linux-gnu/libcuda.so.1: file exists: unknown.\n", ["library_bug", "gpu_not_exposed_to_process"]),
    # triton's driver lookup: the driver's libcuda.so.1 is there, triton asserts on the unversioned name
    ('  File "/env/lib/python3.10/site-packages/triton/common/build.py", line 30, in libcuda_dirs\n'
     "    assert any(os.path.exists(os.path.join(path, 'libcuda.so')) for path in dirs), msg\n"
     "AssertionError: libcuda.so cannot found!\nPossible files are located at ['/usr/lib64/libcuda.so.1']."
     "Please create a symlink of libcuda.so to any of the file.\n", ["library_bug", "gpu_not_exposed_to_process"]),
    # without the 'Possible files' line: the driver's directory not in the loader cache first (round 14: ldconfig on
    # it, or TRITON_LIBCUDA_PATH), the release's unversioned-name assertion next
    ("AssertionError: libcuda.so cannot found!\n", ["library_not_found", "library_bug"]),
    # a compiler's (or a package's) own internal error asking for a bug report
    ("src/ops.cpp:120:1: internal compiler error: in tsubst_copy, at cp/pt.c:16034\n"
     "Please submit a full bug report,\nwith preprocessed source if appropriate.\n", ["library_bug"]),
    ("PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.\n"
     "Stack dump:\n0.\tProgram arguments: clang++ -c kernel.cpp\n", ["library_bug"]),
    ("C:\\src\\ext\\kernel.cpp(88): fatal error C1001: Internal compiler error.\n", ["library_bug"]),
    ("*** Internal error in package accelerate ***\n*** Please submit a bug report at "
     "https://github.com/AccelerateHS/accelerate/issues\n", ["library_bug"]),
    ("/opt/libtorch/include/torch/csrc/api/include/torch/all.h:4:2: error: #error C++17 or later compatible compiler "
     "is required to use PyTorch.\n", ["host_compiler_unsupported", "library_bug"]),
    # XLA's out-of-memory line wrapped where the paste was cut to width
    ("E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2085] Execution of "
     "replica 0 failed: Resource exhausted: Out \nof memory while trying to allocate 8589934592 bytes.\n", ["cuda_oom"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[c[0][:60] for c in READINGS])
def test_reading(text, codes):
    got = rule_codes(text, n=len(codes))
    assert got == codes, (text, got)


# ------------------------------------------------------------------ texts of other kinds that must not get these codes
@pytest.mark.parametrize("text", [
    # the Linux kernel's OOM killer and a pinned host allocation are host memory
    "[12345.678] Out of memory: Killed process 4242 (python3) total-vm:81234567kB\n",
    "RuntimeError: cudaHostAlloc failed: out of memory\n",
    "RuntimeError: cudaMallocHost(&ptr, bytes) returned error: out of memory\n",
    # TensorFlow's allocator on the CPU
    "ResourceExhaustedError: OOM when allocating tensor with shape[100000,100000] and type float on "
    "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n",
    # ggml's buffer on the CPU backend is host memory
    "ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 8589934592\n",
    # a build killed for host memory under a CUDA toolkit path
    "/usr/local/cuda/bin/nvcc -c big.cu\nc++: fatal error: Killed signal terminated program cc1plus\n",
])
def test_host_memory_is_no_gpu_oom(text):
    assert "cuda_oom" not in rule_codes(text, n=3), text


def test_a_lightning_machine_without_any_gpu_is_no_wrong_index():
    # the list of GPUs the process has is empty: no GPU is visible at all, which is no configuration error of an index
    text = ("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0]\n"
            " But your machine only has: []\n")
    assert "user_code_error" not in rule_codes(text, n=2)


def test_a_missing_attribute_of_another_module_is_no_pillow_removal():
    text = "AttributeError: module 'PIL.Image' has no attribute 'Resampling'\n"  # Pillow < 9.1: an older Pillow
    assert "library_bug" not in rule_codes(text, n=3)


def test_an_nvcc_option_value_this_release_lacks_stays_the_toolkits():
    text = "nvcc fatal   : Value 'c++20' is not defined for option 'std'\n"
    codes = rule_codes(text, n=2)
    assert codes and codes[0] == "nvcc_option_unsupported" and "user_code_error" not in codes, codes


def test_nvcc_13s_redefinition_warning_is_no_failure():
    # nvcc 13 only warns when an option is given twice; the build goes on (no reading of its own)
    text = "nvcc warning : incompatible redefinition for option 'optimize', the last value of this option was used\n"
    codes = rule_codes(text, n=3)
    assert "library_bug" not in codes and "user_code_error" not in codes, codes


def test_the_wsl_ldconfig_warning_ranks_below_the_error_beside_it():
    # the warning is printed on every ldconfig run in WSL: a real error in the same text comes first
    text = ("ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n\n"
            "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    codes = rule_codes(text, n=3)
    assert codes and codes[0] != "library_bug", codes


def test_a_gpu_kernel_wanting_a_dtype_is_no_cpu_build():
    # a CUDA kernel's dispatch: the dtype is wrong, nothing says the process runs on the CPU
    text = "RuntimeError: \"cumsum_cuda\" not implemented for 'Bool'\n"
    codes = rule_codes(text, n=2)
    assert codes[:1] == ["user_code_error"] and "cpu_only_torch_with_gpu" not in codes, codes


@pytest.mark.parametrize("text", [
    "RuntimeError: use_libuv was requested but PyTorch was built without libuv support, run with USE_LIBUV=0 to "
    "disable it.\n",
    "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n",
    "ERROR: modpost: GPL-incompatible module mymod.ko uses GPL-only symbol 'cc_mkdec'\n",
    "nvcc fatal   : redefinition of argument 'optimize'\n",
])
def test_a_named_release_bug_gets_its_own_words_not_torchs_internal_assert(text):
    res = explain_result(text, similar=False)
    bug = next(f for f in res.findings if f.code == "library_bug")
    assert "internal check" not in bug.title and not any("pip install --upgrade torch" == c for c in bug.fix.commands)
    assert bug.fix.commands, bug


def test_a_compiler_killed_for_host_memory_is_no_compiler_bug():
    # GCC reports the OOM killer's SIGKILL of cc1plus as 'internal compiler error: Killed': the machine's memory
    text = ("x86_64-linux-gnu-g++: internal compiler error: Killed (program cc1plus)\n"
            "Please submit a full bug report,\nwith preprocessed source if appropriate.\n")
    assert "library_bug" not in rule_codes(text, n=3)


def test_a_container_without_the_driver_is_no_image_bug():
    # the toolkit finds no driver library on the host: the host's driver, not a file baked into the image
    text = ("nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
            "object file: no such file or directory: unknown.\n")
    codes = rule_codes(text, n=2)
    assert "library_bug" not in codes and "user_code_error" not in codes, codes
