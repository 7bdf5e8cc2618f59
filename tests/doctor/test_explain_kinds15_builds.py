# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 15 (the kinds behind dev13's misses among builds and Python-level errors): any CUB header missing
from a toolkit before CUDA 11.0; onnxruntime's build script without cuDNN's or the toolkit's folder; torch's CUDA
upsampling kernel without a bfloat16 kernel in older releases; old torch's THC state refusing its own call; Isaac Sim's
modules imported before its app runs; rmbrualla's pycolmap shadowed by COLMAP's; and builds of a tool without its GPU
support (COLMAP's SiftGPU and dense stereo, Ceres without CUDA/cuDSS, decord's CPU wheels, FFmpeg without NVIDIA's
codecs, llama.cpp without GPU offload), which the corpus labels cpu_only_torch_with_gpu. Each text is written for the
test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a CUB header other than cub/cub.cuh, from a toolkit before 11.0 (or a project's CUB checkout not fetched)
    ("src/ops/scan.cuh:4:10: fatal error: cub/block/block_scan.cuh: No such file or directory\n"
     " #include <cub/block/block_scan.cuh>\ncompilation terminated.\n",
     ["toolkit_below_extension_minimum", "build_dependency_missing"]),
    ("kernels/topk.cu(12): catastrophic error: cannot open source file \"cub/device/device_segmented_radix_sort.cuh\"\n",
     ["toolkit_below_extension_minimum", "build_dependency_missing"]),
    # onnxruntime's build script: cuDNN's folder missing (the toolkit found), or the toolkit's
    ("2024-03-02 10:11:12,001 build [ERROR] - cuda_home and cudnn_home paths must be specified and valid.\n"
     "cuda_home='/usr/local/cuda-12.2' valid=True. cudnn_home='/opt/cudnn' valid=False\n", ["build_dependency_missing"]),
    ("build [ERROR] - cuda_home and cudnn_home paths must be specified and valid.\n"
     "cuda_home='None' valid=False. cudnn_home='/usr/lib/x86_64-linux-gnu' valid=True\n",
     ["cuda_home_missing", "build_dependency_missing"]),
    # torch's CUDA upsampling kernel of an older release, without bfloat16 (or half) kernels
    ("  File \"vae.py\", line 88, in forward\n    x = F.interpolate(x, scale_factor=2.0, mode=\"nearest\")\n"
     "RuntimeError: \"upsample_nearest3d_out_frame\" not implemented for 'BFloat16'\n", ["library_bug", "user_code_error"]),
    # old torch's own THC state refusing a call (both of its printed forms): the release first, the enum's own reading
    # second (test_explain_engine's contract), a GPU newer than the release's CUDA build third
    ("THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1544174967633/work/aten/src/THC/THCGeneral.cpp line=405 "
     "error=11 : invalid argument\n", ["library_bug", "user_code_error", "torch_wheel_lacks_gpu_arch"]),
    ("RuntimeError: cuda runtime error (11) : invalid argument at /pytorch/aten/src/THC/THCGeneral.cpp:663\n",
     ["library_bug", "user_code_error", "torch_wheel_lacks_gpu_arch"]),
    # Isaac Sim's extension modules imported before SimulationApp (else another release's names)
    ("Traceback (most recent call last):\n  File \"spawn.py\", line 2, in <module>\n"
     "    from omni.isaac.core.objects import DynamicCuboid\nModuleNotFoundError: No module named 'omni.isaac.core'\n",
     ["user_code_error", "package_api_version_mismatch"]),
    ("ModuleNotFoundError: No module named 'isaacsim.core.api'\n", ["user_code_error", "package_api_version_mismatch"]),
    # rmbrualla's pycolmap (SceneManager) shadowed by COLMAP's own bindings of the same name
    ("  File \"datasets/colmap.py\", line 10, in <module>\n    manager = pycolmap.SceneManager(colmap_dir)\n"
     "AttributeError: module 'pycolmap' has no attribute 'SceneManager'\n",
     ["package_api_version_mismatch", "library_bug"]),
    # builds of a tool without its GPU support
    ("Feature matching\n==========\nERROR: SiftGPU not fully supported\n",
     ["cpu_only_torch_with_gpu", "library_bug"]),
    ("Shader not supported by your hardware!\nERROR: SiftGPU not fully supported\n",
     ["cpu_only_torch_with_gpu", "library_bug"]),
    ("E0312 09:12:01.000 sift.cc:912] Cannot use Sift GPU without CUDA or OpenGL support; set SiftExtraction.use_gpu "
     "or SiftMatching.use_gpu to false.\n", ["cpu_only_torch_with_gpu"]),
    ("==== patch_match_stereo\nDense stereo reconstruction requires CUDA, which is not available on your system.\n",
     ["cpu_only_torch_with_gpu", "no_gpu"]),
    ("W0101 12:00:00.000 bundle_adjustment.cc:88] Requested to use GPU for bundle adjustment, but Ceres was compiled "
     "without CUDA support. Falling back to CPU-based sparse solvers.\n", ["cpu_only_torch_with_gpu"]),
    ("decord._ffi.base.DECORDError: [08:01:02] /io/decord/src/video/video_reader.cc:151: CUDA not enabled. Requested "
     "context GPU(1).\n", ["cpu_only_torch_with_gpu"]),
    ("[vost#0:0 @ 0x5581] Unknown encoder 'hevc_nvenc'\nError selecting an encoder\n", ["cpu_only_torch_with_gpu"]),
    ("[in#0 @ 0x5581] Unknown decoder 'h264_cuvid'\n", ["cpu_only_torch_with_gpu"]),
    ("warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored\n"
     "warning: see main README.md for information on enabling GPU BLAS support\n", ["cpu_only_torch_with_gpu"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # a header of another library than CUB, under a folder named like it
    ("fatal error: cubic/spline.h: No such file or directory\n", "toolkit_below_extension_minimum"),
    # onnxruntime's build with both folders valid (another failure), a bare mention of cudnn_home
    ("cuda_home='/usr/local/cuda' valid=True. cudnn_home='/usr/local/cuda' valid=True\n", "build_dependency_missing"),
    ("--cudnn_home is ignored on Windows builds\n", "build_dependency_missing"),
    # a CPU kernel without half (the code's device), a CUDA kernel named with cuda, an integer dtype
    ("RuntimeError: \"upsample_nearest2d_channels_last\" not implemented for 'Half'\n", "library_bug"),
    ("RuntimeError: \"upsample_nearest2d_out_frame\" not implemented for 'Long'\n", "library_bug"),
    # invalid argument elsewhere in THC (a copy the user's tensors reach) or in a project's kernel
    ("RuntimeError: cuda runtime error (11) : invalid argument at /pytorch/aten/src/THC/generic/THCTensorCopy.c:70\n",
     "torch_wheel_lacks_gpu_arch"),
    ("RuntimeError: CUDA error: invalid argument\n", "library_bug"),
    # Isaac Sim's own launcher module or the bare namespace (another Python than Isaac Sim's), another omni package
    ("ModuleNotFoundError: No module named 'omni.isaac.kit'\n", "user_code_error"),
    ("ModuleNotFoundError: No module named 'omni'\n", "user_code_error"),
    ("ModuleNotFoundError: No module named 'omnixai'\n", "user_code_error"),
    # a name PyPI's pycolmap has; another module without SceneManager
    ("AttributeError: module 'pycolmap' has no attribute 'Reconstruction'\n", "library_bug"),
    ("AttributeError: module 'scenes' has no attribute 'SceneManager'\n", "package_api_version_mismatch"),
    # a GPU build failing otherwise: NVENC refusing the device, a CUDA decoder that is known; a CPU SIFT message
    ("[h264_nvenc @ 0x55] OpenEncodeSessionEx failed: unsupported device (2)\n", "cpu_only_torch_with_gpu"),
    ("Unknown encoder 'libx265'\n", "cpu_only_torch_with_gpu"),
    ("Extracting SIFT features on the CPU (use_gpu=false)\n", "cpu_only_torch_with_gpu"),
    ("decord._ffi.base.DECORDError: Error reading frame 120\n", "cpu_only_torch_with_gpu"),
    ("llama_model_load: offloaded 33/33 layers to GPU\n", "cpu_only_torch_with_gpu"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
