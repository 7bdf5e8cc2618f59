# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 9 (loader and abi layers): messages of tools that could not load a library, load code for the GPU,
or find a name a release of a package lacks, each written from the tool's own source (the table rows' ``source``),
never copied from a corpus text; and texts of other kinds that must not get those readings."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

SITE = "/home/u/env/lib/python3.10/site-packages"

READINGS = [
    # cpm_kernels finds the CUDA runtime by name (CUDA_PATH/lib64, /usr/local/cuda/lib64, find_library)
    (f'  File "{SITE}/cpm_kernels/library/base.py", line 72, in wrapper\n'
     "RuntimeError: Library cudart is not initialized\n", ["cudart_not_found"]),
    ("RuntimeError: Library cuda is not initialized\n", ["gpu_not_exposed_to_process", "no_gpu"]),
    # text-generation-inference's flash models without the kernels its Makefile builds
    ("WARN text_generation_launcher: Could not import Flash Attention enabled models: No module named "
     "'dropout_layer_norm'\n", ["extension_not_compiled"]),
    # DeepSpeed's CPU optimizer whose op never loaded (its JIT build failed before)
    ("AttributeError: 'DeepSpeedCPULion' object has no attribute 'ds_opt_lion'\n", ["extension_not_compiled"]),
    # a torch JIT extension whose module the build never wrote
    ("ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: cannot open shared object "
     "file: No such file or directory\n", ["extension_not_compiled"]),
    # CuPy's core not importable; its original error, when shown, decides first
    ("ImportError: CuPy is not correctly installed.\n\noriginal error: cannot import name 'core'\n",
     ["extension_not_compiled", "prebuilt_binary_wrong_cuda"]),
    # PyOpenGL: no GLUT library, no GL library for the platform chosen
    ("    glutInit(sys.argv)\nOpenGL.error.NullFunctionError: Attempt to call an undefined function glutInit, check for "
     "bool(glutInit) before calling\n", ["library_not_found"]),
    (f'  File "{SITE}/OpenGL/raw/GL/_errors.py", line 4, in <module>\n'
     "    _error_checker = _ErrorChecker( _p, _p.GL.glGetError )\n"
     "AttributeError: 'NoneType' object has no attribute 'glGetError'\n", ["opengl_egl_unavailable", "library_not_found"]),
    # macOS's loader
    ("dyld[8812]: Library not loaded: @rpath/libomp.dylib\n  Referenced from: <3F2A> /Users/u/bin/solver\n",
     ["library_not_found"]),
    # Mesa's driver loader: a file the library reading does not name (no lib prefix)
    ("libGL error: MESA-LOADER: failed to open iris: /usr/lib/dri/iris_dri.so: cannot open shared object file: No such "
     "file or directory (search paths /usr/lib/x86_64-linux-gnu/dri, suffix _dri)\n",
     ["library_not_found", "opengl_egl_unavailable"]),
    # code for another GPU architecture
    ("Kokkos::Cuda::initialize ERROR: running kernels compiled for compute capability 8.0 on device with compute "
     "capability 7.5 is not supported by CUDA!\n", ["no_kernel_image_for_gpu"]),
    ("Kokkos::Cuda::initialize ERROR: likely mismatch of architecture\n", ["no_kernel_image_for_gpu"]),
    ("[TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 8.9 got compute 8.6, "
     "please rebuild.\n", ["no_kernel_image_for_gpu"]),
    ("thread 'main' panicked at src/main.rs:12:40:\ncalled `Result::unwrap()` on an `Err` value: Cuda(NoBinaryForGpu)\n",
     ["no_kernel_image_for_gpu"]),
    ("RuntimeError: This cuDF installation is missing the necessary PTX files that are <=52.\n",
     ["gpu_below_extension_minimum", "no_kernel_image_for_gpu"]),
    ('CUDA error at src/solver.cu:88 code=13(cudaErrorInvalidSymbol) "cudaMemcpyToSymbol(c_coeffs, h_coeffs, 256)"\n',
     ["no_kernel_image_for_gpu", "user_code_error"]),
    # Windows: a torch CUDA extension's module misses a DLL once torch's own are loaded (the CUDA runtime of its build)
    ('  File "C:\\env\\lib\\site-packages\\pytorch3d\\renderer\\mesh\\rasterize_meshes.py", line 10, in <module>\n'
     "    from pytorch3d import _C\nImportError: DLL load failed while importing _C: The specified module could not be "
     "found.\n", ["prebuilt_binary_wrong_cuda", "library_not_found"]),
    # TensorFlow's GPU libraries; a library it names first decides
    ("W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU libraries. Please make sure the "
     "missing libraries mentioned above are installed properly if you would like to use GPU.\n",
     ["cudart_not_found", "prebuilt_binary_wrong_cuda"]),
    # releases of packages
    ("KeyError: 'ResNetV1c is not in the mmengine::model registry. Please check whether the value of `ResNetV1c` is "
     "correct or it was registered as expected.'\n", ["package_api_version_mismatch", "user_code_error"]),
    ("KeyError: \"CascadeRCNN: 'SwinTransformer is not in the models registry'\"\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("usage: train.py [-h] [--local_rank LOCAL_RANK]\ntrain.py: error: unrecognized arguments: --local-rank=1\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("    img = img.resize((w, h), Image.ANTIALIAS)\nAttributeError: module 'PIL.Image' has no attribute 'ANTIALIAS'\n",
     ["package_api_version_mismatch", "library_bug"]),  # the project's code not updated for Pillow 10 is its bug too
    ("RuntimeError: TrimeshSceneViewer cannot be initialized. This issue happens when the X window system is not "
     "running.\n", ["package_api_version_mismatch", "opengl_egl_unavailable"]),
    ("ImportError: 'trimesh.viewer.windowed' requires 'pip install \"pyglet<2\"'\n", ["package_api_version_mismatch"]),
    ("RuntimeError: Configured CUDA binary not found at /env/lib/python3.12/site-packages/bitsandbytes/"
     "libbitsandbytes_cuda129.so\n", ["library_bug", "prebuilt_binary_wrong_cuda"]),
    ("ValueError: jaxlib is version 0.1.60, but this version of jax requires version 0.1.65.\n",
     ["package_api_version_mismatch"]),
    ("AttributeError: module 'open3d' has no attribute 'registration'\nI use open3d 0.13.0 from pip\n",
     ["package_api_version_mismatch"]),
    ("Name: spconv-cu120\nVersion: 2.3.6\n>>> from spconv import SparseConvTensor\n"
     "ImportError: cannot import name 'SparseConvTensor' from 'spconv'\n", ["package_api_version_mismatch",
                                                                         "user_code_error"]),  # (round 29b) typed
    ("AttributeError: module 'torchaudio' has no attribute\n", ["package_api_version_mismatch"]),
    # the C and C++ runtimes' versions: glibc's relocation message and the tag said missing in words
    ("./app: relocation error: /opt/app/lib/libopencv_core.so.4.5: symbol _ZNSt15__exception_ptr13exception_ptrD1Ev "
     "version CXXABI_1.3.13 not defined in file libstdc++.so.6 with link time reference\n", ["libstdcxx_too_old"]),
    ("./tool: relocation error: ./tool: symbol getrandom, version GLIBC_2.25 not defined in file libc.so.6 with link "
     "time reference\n", ["symbol_version_missing"]),
    ("CXXABI_1.3.9 cannot be resolved when starting the client\n", ["libstdcxx_too_old"]),
    ("Glibc version 2.34 not found on CentOS 7\n", ["symbol_version_missing"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[f"r{i}" for i in range(len(READINGS))])
def test_reading(text, codes):
    assert rule_codes(text) == codes


def test_a_library_tensorflow_names_decides_before_its_summary():
    text = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
            "'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
            "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries.\n")
    assert rule_codes(text, n=1) == ["cudart_not_found"]


def test_deepspeeds_missing_op_in_its_finaliser_is_an_unbuilt_op():
    text = ("Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7f3c2a1b0>\nTraceback (most recent call "
            f'last):\n  File "{SITE}/deepspeed/ops/adam/cpu_adam.py", line 99, in __del__\n'
            "    self.ds_opt_adam.destroy_adam(self.opt_id)\n"
            "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n")
    assert "extension_not_compiled" in rule_codes(text)


def test_a_failed_build_before_deepspeeds_missing_op_comes_first():
    text = ("RuntimeError: The detected CUDA version (11.2) mismatches the version that was used to compile\n"
            "PyTorch (11.7). Please make sure to use the same CUDA versions.\n"
            "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n")
    assert rule_codes(text) == ["nvcc_torch_cuda_mismatch", "extension_not_compiled"]


def test_cupys_original_loader_error_comes_first():
    text = ("ImportError: CuPy is not correctly installed.\n\noriginal error: libcudart.so.11.0: cannot open shared "
            "object file: No such file or directory\n")
    assert rule_codes(text, n=1) == ["cudart_not_found"]


NOT_THESE = [
    # another PyOpenGL null function: a GL entry point without a context, not a missing GLUT
    ("OpenGL.error.NullFunctionError: Attempt to call an undefined function glGenVertexArrays, check for "
     "bool(glGenVertexArrays) before calling\n", "library_not_found"),
    # Kokkos' warning for an older build on a newer GPU runs fine
    ("Kokkos::Cuda::initialize WARNING: running kernels compiled for compute capability 7.0 on device with compute "
     "capability 8.0 , this will likely reduce potential performance.\n", "no_kernel_image_for_gpu"),
    # a TensorRT release mismatch is not another GPU
    ("[TRT] [E] 6: The engine plan file is not compatible with this version of TensorRT, expecting library version "
     "8.6.1.6 got 8.5.3.1, please rebuild.\n", "no_kernel_image_for_gpu"),
    # an argument the script does not know is the script's, not torch's launcher
    ("train.py: error: unrecognized arguments: --lr=0.1\n", "package_api_version_mismatch"),
    # a module of the project's own (no release named, no installed files): no release to pin
    ("AttributeError: module 'utils' has no attribute 'load_config'\n", "package_api_version_mismatch"),
    # glibc named beside another library's missing file: that library, not a glibc version
    ("Ubuntu 20.04 with glibc 2.31; libGL.so.1 not found when importing cv2\n", "symbol_version_missing"),
    # a library's own versioned symbol is not the C runtime's
    ("ImportError: /env/lib/libcublas.so.11: symbol cublasLtGetStatusString version libcublasLt.so.11 not defined in "
     "file libcublasLt.so.11 with link time reference\n", "libstdcxx_too_old"),
]


@pytest.mark.parametrize("text,code", NOT_THESE, ids=[f"n{i}" for i in range(len(NOT_THESE))])
def test_not_this_reading(text, code):
    assert code not in rule_codes(text, n=3)


def test_hip_no_binary_keeps_its_reading():
    assert rule_codes('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n') == [
        "torch_wheel_lacks_gpu_arch", "no_kernel_image_for_gpu"]


def test_an_attribute_torch_removed_keeps_its_reading():
    assert rule_codes("AttributeError: module 'torch' has no attribute '_six'\n", n=1) == [
        "torch_api_incompatible_source"]
