# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32b (loading and running) read by its mechanism, keyed on the tool's own message: NCCL 2.18's
"internal error" (its proxy's result for a network transport's failure); glibc's ld.so assertion in
_dl_check_map_versions (two builds of native libraries that do not belong together in one process); onnxruntime's
compiled module that did not load (its "Cannot load onnxruntime.capi" warning, the "cannot import name
'get_all_providers'" that follows, its Windows "CUDA Toolkit X not installed on the machine"); torch.ops finding no
operator of a package's namespace (its compiled library not loaded).
Each positive list holds a wording written for the test (the tool's message as its source prints it, in a plausible
log); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # NCCL 2.18: a network transport's failure answered as ncclInternalError by the proxy
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
     "internal error - please report this issue to the NCCL developers, NCCL version 2.18.1\n",
     "nccl_network_unreachable"),
    ("gpu-a07:31877:31877 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n...\nnccl-tests/src/common.cu:891 "
     "gpu-a07 pid 31877: Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL "
     "developers / '\n", "nccl_network_unreachable"),
    ("RuntimeError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, internal "
     "error - please report this issue to the NCCL developers, NCCL version 2.18.6\nncclInternalError: Internal check "
     "failed.\n", "nccl_network_unreachable"),
    # glibc's loader: a Verneed entry naming a library not among the ones loaded for it
    ("$ python render.py --scene lego\nInconsistency detected by ld.so: dl-version.c: 205: _dl_check_map_versions: "
     "Assertion `needed != NULL' failed!\n", "native_library_conflict"),
    ("running the exported binary on the cluster node prints only\nInconsistency detected by ld.so: dl-version.c: "
     "224:\n_dl_check_map_versions: Assertion `needed != NULL' failed!\n", "native_library_conflict"),
    # onnxruntime's compiled module not loaded (releases up to 1.8 only warned, then the names were missing)
    ("C:\\venv\\lib\\site-packages\\onnxruntime\\capi\\_pybind_state.py:14: UserWarning: Cannot load "
     "onnxruntime.capi. Error: 'DLL load failed: The specified module could not be found.'.\n  warnings.warn(\"Cannot "
     "load onnxruntime.capi. Error: '{0}'.\".format(str(e)))\n", "cudart_not_found"),
    ("  File \"C:\\venv\\lib\\site-packages\\onnxruntime\\__init__.py\", line 13, in <module>\n    from "
     "onnxruntime.capi._pybind_state import get_all_providers, get_available_providers, get_device, set_seed, \\\n"
     "ImportError: cannot import name 'get_all_providers' from 'onnxruntime.capi._pybind_state'\n",
     "cudart_not_found"),
    ("  File \"D:\\env\\lib\\site-packages\\onnxruntime\\capi\\_pybind_state.py\", line 22, in <module>\n    raise "
     "ImportError(f\"CUDA Toolkit {CUDA_VERSION} not installed on the machine.\")\nImportError: CUDA Toolkit 11.0 not "
     "installed on the machine.\n", "cudart_not_found"),
    ("ImportError: cuDNN 8 not installed on the machine.\n", "cudart_not_found"),
    # a torch extension typed first at the prompt, torch never imported: its at::/c10:: symbols came from torch's
    # libraries loaded RTLD_GLOBAL by import torch (the extension's own build against another torch stays first)
    ("`>>> import chamfer`\n`Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nImportError: "
     "/home/me/envs/r/lib/python3.7/site-packages/chamfer-0.0.0-py3.7-linux-x86_64.egg/chamfer.cpython-37m-x86_64-"
     "linux-gnu.so: undefined symbol: _ZN2at19UndefinedTensorImpl10_singletonE`\n", "torch_libs_not_loaded"),
    (">>> import pointnet2_cuda\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n"
     "ImportError: /home/u/.local/lib/python3.8/site-packages/pointnet2_cuda.cpython-38-x86_64-linux-gnu.so: undefined "
     "symbol: _ZN3c1019UndefinedTensorImpl10_singletonE\n", "torch_libs_not_loaded"),
    ("In [1]: import emd_cuda\n---------------------------------------------------------------------------\n"
     "ImportError: /opt/conda/lib/python3.6/site-packages/emd_cuda.cpython-36m-x86_64-linux-gnu.so: undefined "
     "symbol: _ZN3c104cuda20getCurrentCUDAStreamEa\n",
     "torch_libs_not_loaded"),
    # TensorFlow's session with no GPU device registered ('Device mapping: no known devices.') where the GPU works
    ("2017-02-19 21:03:11 I tensorflow/core/common_runtime/direct_session.cc:257] Device mapping:\n\nDevice mapping: "
     "no known devices.\nMatMul: (MatMul): /job:localhost/replica:0/task:0/cpu:0\n", "cpu_only_torch_with_gpu"),
    ("GPU: no known devices, although ./deviceQuery prints Result = PASS\n", "cpu_only_torch_with_gpu"),
    # Windows: a torch CUDA extension's compiled module (imported by its package after torch) misses a DLL, and the
    # text names a CUDA release: the CUDA runtime DLL of the release the prebuilt binary was built with
    ("  File \"C:\\envs\\det\\lib\\site-packages\\mmcv\\utils\\ext_loader.py\", line 13, in load_ext\n    ext = "
     "importlib.import_module('mmcv.' + name)\nImportError: DLL load failed while importing _ext: The specified module "
     "could not be found.\nCUDA 11.3, Windows 10\n", "prebuilt_binary_wrong_cuda"),
    ("ImportError: DLL load failed while importing selective_scan_cuda: 找不到指定的模块。\n（cuda12.1）\n",
     "prebuilt_binary_wrong_cuda"),
    # the text's own container command gives the container no GPU: CUDA's runtime finds no driver library inside it
    ("$ docker run --rm -it -v $PWD:/ws -w /ws nvcr.io/nvidia/pytorch:24.01-py3 python train.py\nRuntimeError: CUDA "
     "error: CUDA driver version is insufficient for CUDA runtime version\n", "gpu_not_exposed_to_process"),
    ("podman run -it \\\n  -v /data:/data \\\n  caffe-gpu:latest ./run.sh\nF0311 common.cpp:152] Check failed: error == "
     "cudaSuccess (35 vs. 0)  CUDA driver version is insufficient for CUDA runtime version\n",
     "gpu_not_exposed_to_process"),
    # EGL_BAD_ACCESS from eglMakeCurrent: the context held by another thread or another GL user of the process
    ("import open3d as o3d\nimport pyrender\nr = pyrender.OffscreenRenderer(640, 480)\nOpenGL.error.GLError: GLError(\n"
     "\terr = 12290,\n\tbaseOperation = eglMakeCurrent,\n\tcArguments = (\n", "native_library_conflict"),
    ("RuntimeError: eglMakeCurrent failed with EGL_BAD_ACCESS (0x3002) while a second viewer was open\n",
     "native_library_conflict"),
    # MXNet's convolution asking more scratch memory than its workspace allows
    ("[09:12:40] src/operator/nn/./deconvolution-inl.h:228: Check failed: param_.workspace >= required_size (10485760 vs."
     " 41943040) :\nMinimum workspace size: 167772160 Bytes\nGiven: 41943040 Bytes\n", "cuda_oom"),
    ("mxnet.base.MXNetError: [10:01:02] src/operator/./convolution-inl.h:251: Check failed: (param_.workspace) >= "
     "(scol.Size() + sdst.Size())\nMinimum workspace size: 402653184\nGiven: 134217728\n", "cuda_oom"),
    # two torch releases shown installed in the environment that crashes (conda's pytorch beside pip's torch)
    ("$ python -c 'import torch_scatter'\nSegmentation fault (core dumped)\n$ conda list | grep torch\npytorch    2.0.1    "
     "py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n$ pip list | grep torch\ntorch    1.13.1\n", "abi_torch_version_mismatch"),
    ("Fatal Python error: Segmentation fault when importing dgl\n* PyTorch version: 2.1.0\n* torch in pip freeze: "
     "torch==1.12.0\n", "abi_torch_version_mismatch"),
    # torch.ops: no operator of a package's namespace registered (its compiled library not loaded)
    ("  File \"/venv/lib/python3.10/site-packages/xformers/ops/fmha/cutlass.py\", line 191, in apply\n    out, lse, "
     "rng_seed, rng_offset = cls.OPERATOR(\n  File \"/venv/lib/python3.10/site-packages/torch/_ops.py\", line 502, in "
     "__call__\nRuntimeError: No such operator xformers::efficient_attention_forward_cutlass\n",
     "abi_torch_version_mismatch"),
    ("  File \"/venv/lib/python3.11/site-packages/torch/_ops.py\", line 921, in __getattr__\n    raise "
     "AttributeError(\nAttributeError: '_OpNamespace' 'pointops' object has no attribute 'furthestsampling'\n",
     "abi_torch_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # NCCL's internal error of another release than 2.18: its own check failed (library_bug stays the reading)
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, internal error - please "
     "report this issue to the NCCL developers, NCCL version 2.19.3\n", "nccl_network_unreachable"),
    ("NCCL INFO NCCL version 2.14.3+cuda11.7\nRuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled cuda "
     "error, NCCL version 2.14.3\n", "nccl_network_unreachable"),
    # another ld.so inconsistency (not the version check's), and the version check's own missing-version error
    ("Inconsistency detected by ld.so: dl-close.c: 811: _dl_close: Assertion `map->l_init_called' failed!\n",
     "native_library_conflict"),
    ("ImportError: /lib/x86_64-linux-gnu/libm.so.6: version `GLIBC_2.29' not found (required by ./ext.so)\n",
     "native_library_conflict"),
    # the extension imported by a package's own source line (torch imported by that package), or after torch
    ("    import flash_attn_2_cuda as flash_attn_cuda\nImportError: /venv/lib/python3.10/site-packages/flash_attn_2_cuda"
     ".cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n", "torch_libs_not_loaded"),
    (">>> import torch\n>>> import chamfer\nImportError: /venv/lib/python3.8/site-packages/chamfer.cpython-38-x86_64-"
     "linux-gnu.so: undefined symbol: _ZN2at19UndefinedTensorImpl10_singletonE\n", "torch_libs_not_loaded"),
    # TensorFlow's device mapping that lists a GPU; another program's 'no known devices'
    ("I tensorflow/core/common_runtime/direct_session.cc:300] Device mapping:\n/job:localhost/replica:0/task:0/"
     "device:GPU:0 -> device: 0, name: GeForce GTX 1080, pci bus id: 0000:01:00.0, compute capability: 6.1\n",
     "cpu_only_torch_with_gpu"),
    ("[SERVICE] No known devices found, retrying discovery after delay\n", "cpu_only_torch_with_gpu"),
    # the same DLL failure with no CUDA release named, or of the module typed at the prompt (imported before torch)
    ("ImportError: DLL load failed while importing _ext: The specified module could not be found.\n",
     "prebuilt_binary_wrong_cuda"),
    (">>> import knn_cuda\nImportError: DLL load failed while importing knn_cuda: The specified module could not be "
     "found.\nCUDA 11.8\n", "prebuilt_binary_wrong_cuda"),
    # the GPU given on a continued line or by the NVIDIA runtime; no container command at all
    ("docker run -it \\\n    --gpus all \\\n    nvcr.io/nvidia/pytorch:23.10-py3 bash\nRuntimeError: CUDA error: CUDA "
     "driver version is insufficient for CUDA runtime version\n", "gpu_not_exposed_to_process"),
    ("docker run --runtime=nvidia --rm -it rapidsai/rapidsai:latest\nGDFError: CUDA ERROR. cudaErrorInsufficientDriver: "
     "CUDA driver version is insufficient for CUDA runtime version\n", "gpu_not_exposed_to_process"),
    ("cudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for CUDA runtime version\n"
     "Result = FAIL\n", "gpu_not_exposed_to_process"),
    # another EGL error of eglMakeCurrent, and EGL_BAD_ACCESS's number in another call
    ("OpenGL.error.GLError: GLError(\n\terr = 12296,\n\tbaseOperation = eglMakeCurrent,\n", "native_library_conflict"),
    ("OpenGL.error.GLError: GLError(\n\terr = 12290,\n\tbaseOperation = eglCreatePbufferSurface,\n",
     "native_library_conflict"),
    # another program's workspace line without MXNet's 'Given:' after it
    ("[solver.cpp:88] Minimum workspace size: 1048576 bytes requested for the factorization; using the default\n",
     "cuda_oom"),
    # two torch releases tried in turn, or no crash with them
    ("It worked with torch 1.13.1, but after upgrading to torch 2.0.1 I get\nSegmentation fault (core dumped)\n",
     "abi_torch_version_mismatch"),
    ("PyTorch version: 2.1.0\npip freeze: torch==1.12.0\nModuleNotFoundError: No module named 'einops'\n",
     "abi_torch_version_mismatch"),
    # another package's missing name, and onnxruntime's provider list without CUDA (the CPU package)
    ("ImportError: cannot import name 'get_all_models' from 'timm.models'\n", "cudart_not_found"),
    ("ImportError: cannot import name 'get_device' from 'accelerate.utils'\n", "cudart_not_found"),
    # torch's own operators, and torchvision's (a companion built for another torch: its own reading)
    ("RuntimeError: No such operator aten::_foreach_add_\n", "abi_torch_version_mismatch"),
    ("RuntimeError: No such operator torchvision::nms\n", "abi_torch_version_mismatch"),
    ("error: No such operator '+' for the given operand types\n", "abi_torch_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2), (text, rule_codes(text, n=4))


def test_guards_kept():
    # NCCL's internal error without a release named stays the release's bug; under 2.18 the bug is second
    assert rule_codes("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, internal error - please report this "
                      "issue to the NCCL developers\n", n=1) == ["library_bug"]
    assert rule_codes("NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the "
                      "NCCL developers, NCCL version 2.18.3\n") == ["nccl_network_unreachable", "library_bug"]
    # torchvision's missing operator stays the companion's reading
    assert rule_codes("RuntimeError: No such operator torchvision::nms\n", n=1) == ["companion_built_for_other_torch"]


@pytest.mark.parametrize(("table", "key"), [
    ("loader_errors", "dl_version_needed_assert"), ("library_messages", "ort_capi_not_loaded"),
    ("library_messages", "ort_cuda_release_not_installed"), ("library_messages", "nccl_internal_error"),
    ("torch_messages", "extension_op_not_registered"), ("library_messages", "tf_device_mapping_no_devices"),
    ("library_messages", "egl_make_current_bad_access"), ("library_messages", "mxnet_conv_workspace_too_small")])
def test_rows_match_their_examples_and_stay_linear(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)
