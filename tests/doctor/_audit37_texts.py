"""Blind audit 37 D's texts (the auditor's tNN.txt, copied in) that more than one test file of session 37 asserts
on: test_audit37e (readings), test_audit37f (package commands), test_review37 (a rerun's arguments)."""

# t12: CuPy with CUDA 11.7 on an H100, NVRTC refusing --gpu-architecture
T12 = r"""$ python -c "import cupy; cupy.show_config()" | head -8
OS                           : Linux-5.15.0-105-generic-x86_64-with-glibc2.35
Python Version               : 3.10.12
CuPy Version                 : 12.3.0
CuPy Platform                : NVIDIA CUDA
NumPy Version                : 1.26.4
CUDA Root                    : /usr/local/cuda-11.7
nvcc PATH                    : /usr/local/cuda-11.7/bin/nvcc
CUDA Build Version           : 11080
$ python -c "import cupy as cp; k = cp.RawKernel(r'extern \"C\" __global__ void f(float* x){x[threadIdx.x]*=2;}', 'f'); k((1,),(32,),(cp.ones(32, dtype=cp.float32),))"
Traceback (most recent call last):
  File "cupy/cuda/compiler.py", line 705, in compile
    nvrtc.compileProgram(self.ptr, options)
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 141, in cupy_backends.cuda.libs.nvrtc.compileProgram
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 153, in cupy_backends.cuda.libs.nvrtc.compileProgram
  File "cupy_backends/cuda/libs/nvrtc.pyx", line 69, in cupy_backends.cuda.libs.nvrtc.check_status
cupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_INVALID_OPTION (5)

During handling of the above exception, another exception occurred:

cupy.cuda.compiler.CompileException: nvrtc: error: invalid value for --gpu-architecture (-arch)
(GPU: NVIDIA H100 80GB HBM3, compute capability 9.0)
"""

# t27: pytorch3d built on a GPU-less login node
T27 = r"""$ python -c "import torch, pytorch3d; print(torch.__version__, torch.cuda.is_available(), pytorch3d.__version__)"
2.1.0+cu118 True 0.7.5
# pytorch3d was built with `pip install "git+https://github.com/facebookresearch/pytorch3d.git@stable"` on the login node (no GPU there)
$ python fit_mesh.py --device cuda
Traceback (most recent call last):
  File "fit_mesh.py", line 88, in <module>
    loss_chamfer, _ = chamfer_distance(sample_trg, sample_src)
  File "/home/yu/.venv/lib/python3.10/site-packages/pytorch3d/loss/chamfer.py", line 230, in chamfer_distance
    x_nn = knn_points(x, y, lengths1=x_lengths, lengths2=y_lengths, norm=norm, K=1)
  File "/home/yu/.venv/lib/python3.10/site-packages/pytorch3d/ops/knn.py", line 186, in knn_points
    p1_idx, p1_dists = _knn_points.apply(
  File "/home/yu/.venv/lib/python3.10/site-packages/pytorch3d/ops/knn.py", line 72, in forward
    idx, dists = _C.knn_points_idx(p1, p2, lengths1, lengths2, norm, K, version)
RuntimeError: Not compiled with GPU support
"""

# t34: nvdiffrast's JIT build stopped on a missing EGL header
T34 = r"""$ pip install --no-build-isolation git+https://github.com/NVlabs/nvdiffrast/
$ python -c "import nvdiffrast.torch as dr; glctx = dr.RasterizeGLContext()"
Using /home/gus/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...
Detected CUDA files, patching ldflags
Emitting ninja build file /home/gus/.cache/torch_extensions/py310_cu121/nvdiffrast_plugin_gl/build.ninja...
Building extension module nvdiffrast_plugin_gl...
[1/4] c++ -MMD -MF glutil.o.d -DTORCH_EXTENSION_NAME=nvdiffrast_plugin_gl -DTORCH_API_INCLUDE_EXTENSION_H ... -DNVDR_TORCH -c /home/gus/.venv/lib/python3.10/site-packages/nvdiffrast/common/glutil.cpp -o glutil.o
FAILED: glutil.o
In file included from /home/gus/.venv/lib/python3.10/site-packages/nvdiffrast/common/glutil.cpp:13:
/home/gus/.venv/lib/python3.10/site-packages/nvdiffrast/common/glutil.h:36:10: fatal error: EGL/egl.h: No such file or directory
   36 | #include <EGL/egl.h>
      |          ^~~~~~~~~~~
compilation terminated.
ninja: build stopped: subcommand failed.
RuntimeError: Error building extension 'nvdiffrast_plugin_gl'
"""

# t66: invalid device ordinal for --device cuda:1 with one GPU listed (the argument a rerun must keep)
T66 = r"""$ nvidia-smi -L
GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c1e...)
$ python train.py --device cuda:1
torch 2.0.1+cu118
Traceback (most recent call last):
  File "/home/xia/train.py", line 25, in <module>
    model = Net().to(args.device)
  File "/home/xia/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1145, in to
    return self._apply(convert)
  File "/home/xia/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 820, in _apply
    param_applied = fn(param)
RuntimeError: CUDA error: invalid device ordinal
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""
