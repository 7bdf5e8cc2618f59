# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit 37, part D (``smr-doctor explain``'s readings): the auditor's own texts, held here.

* F3: a torch upgrade shown in the text (``pip install -U torch``, pip's "Successfully uninstalled torch-X") is no
  two torch releases installed at once; an old-ABI symbol against a pre-2.7 pip wheel (+cuXYZ) is another torch
  release first, not the C++ ABI flag.
* F4: "Kaolin requires PyTorch >= ..." is kaolin's gate, not detectron2's ("Requires PyTorch >= 1.8").
* F5: nvdiffrast's RasterizeGLContext named on the command line of a build that stopped on a missing EGL header: the
  header, not a runtime EGL context.
* F7: one nvcc shown (or none: `which nvcc` printing nothing) is no "several toolkits".
* F8: no guess the text's facts rule out (a CPU-only
  torch beside 2.1.0+cu118 True); no "Not your environment" beside cuInit or NVRTC's refused --gpu-architecture.
* F10: "sudo" running apt in a comment is no program run under sudo.
* F17: an NGC container tag (nvcr.io/nvidia/pytorch:23.10-py3) is no torch release.
* F18 (left: the reading is kept, torch's own limits such as "BFloat16 is not supported on MPS" raise from a script's top level too).
* F19: autograd's anomaly check ("Function 'LogBackward0' returned nan values") is the code's values.
* F20: no similar reports' guess for a text with no word of the field (a browser's JavaScript error).
* F21: one allocation many times the card's whole memory is the code's operation, not fragmentation or the batch.
* F22: ``invalid device ordinal`` for cuda:1 where the text lists one GPU: the code's index first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from smrnb.doctor._explain import explain_result
from smrnb.doctor._similar import Reading
from tests.doctor._audit37_texts import T12, T27, T34, T66

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline"]


def _json(text: str) -> dict:
    p = subprocess.run([*CLI, "--json"], input=text, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode in (0, 1, 2, 3), p.stderr
    return json.loads(p.stdout)


def _codes(d: dict) -> list[str]:
    return [f["code"] for f in d["findings"]]


def _commands(d: dict) -> list[str]:
    return [c for f in d["findings"] for c in (f.get("fix") or {}).get("commands") or []]


T25 = r"""# detectron2 was built last month against torch 1.13.1; today `pip install -U torch torchvision` gave 2.0.1
$ python -c "import torch; print(torch.__version__)"
2.0.1+cu117
$ python demo/demo.py --config-file configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml --input in.jpg
Traceback (most recent call last):
  File "/home/dev/detectron2/demo/demo.py", line 14, in <module>
    from detectron2.data.detection_utils import read_image
  ...
  File "/home/dev/detectron2/detectron2/layers/deform_conv.py", line 11, in <module>
    from detectron2 import _C
ImportError: /home/dev/detectron2/detectron2/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c106detail23torchInternalAssertFailEPKcS2_jS2_RKSs
"""

T36 = r"""$ git clone --recursive https://github.com/NVIDIAGameWorks/kaolin && cd kaolin && git checkout v0.15.0
$ python -c "import torch; print(torch.__version__)"
2.2.1+cu121
$ python setup.py develop
Traceback (most recent call last):
  File "/home/hal/kaolin/setup.py", line 58, in <module>
    raise ImportError(
ImportError: Kaolin requires PyTorch >= 1.6.0, <= 2.1.1, but found version 2.2.1+cu121 instead.If you wish to install with this specific version set IGNORE_TORCH_VER=1.
"""


T16 = r"""$ python -c "import torch; print(torch.__version__, torch.version.cuda)"
2.0.1+cu118 11.8
$ which nvcc; nvcc --version | grep release
/usr/local/cuda/bin/nvcc
Cuda compilation tools, release 12.4, V12.4.99
$ pip install --no-build-isolation .
Processing /home/zoe/GroundingDINO
  ...
  File "/home/zoe/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 499, in build_extensions
    _check_cuda_version(compiler_name, compiler_version)
  File "/home/zoe/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 387, in _check_cuda_version
    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))
RuntimeError:
The detected CUDA version (12.4) mismatches the version that was used to compile
PyTorch (11.8). Please make sure to use the same CUDA versions.
"""

T18 = r"""$ python -c "import torch; print(torch.__version__)"
2.2.0+cu121
$ echo $CUDA_HOME

$ which nvcc
$ pip install --no-build-isolation git+https://github.com/NVlabs/nvdiffrast.git@v0.3.1 git+https://github.com/ashawkey/diff-gaussian-rasterization
  ...
      File "/tmp/pip-req-build-9q/setup.py", line 13, in <module>
        setup(
      File "/home/tom/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1076, in CUDAExtension
        library_dirs += library_paths(cuda=True)
      File "/home/tom/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1203, in library_paths
        if (not os.path.exists(_join_cuda_home(lib_dir)) and
      File "/home/tom/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 2416, in _join_cuda_home
        raise OSError('CUDA_HOME environment variable is not set. '
    OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.
"""

T24 = r"""$ python -c "import torch; print(torch.__version__, torch.version.cuda)"
2.1.0+cu121 12.1
$ nvcc -V | grep release
Cuda compilation tools, release 11.5, V11.5.119
$ which nvcc
/usr/bin/nvcc
$ git clone https://github.com/NVIDIA/apex && cd apex
$ pip install -v --disable-pip-version-check --no-cache-dir --no-build-isolation --config-settings "--build-option=--cpp_ext" --config-settings "--build-option=--cuda_ext" ./
  torch.__version__  = 2.1.0+cu121

  Compiling cuda extensions with
  nvcc: NVIDIA (R) Cuda compiler driver
  Cuda compilation tools, release 11.5, V11.5.119
  from /usr/bin

  Traceback (most recent call last):
    File "/home/jo/apex/setup.py", line 178, in <module>
      check_cuda_torch_binary_vs_bare_metal(CUDA_HOME)
    File "/home/jo/apex/setup.py", line 40, in check_cuda_torch_binary_vs_bare_metal
      raise RuntimeError(
  RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 12.1.
  In some cases, a minor-version mismatch will not cause later errors:  https://github.com/NVIDIA/apex/pull/323#discussion_r287021798.  You can try commenting out this check (at your own risk).
"""

T33 = r"""$ python -c "import torch, gsplat; print(torch.__version__, gsplat.__version__)"
2.4.0+cu121 1.4.0
$ echo $CUDA_HOME; which nvcc

$ python simple_trainer.py default --data_dir data/360_v2/garden
gsplat: No CUDA toolkit found. gsplat will be disabled.
Traceback (most recent call last):
  File "/home/fay/gsplat/examples/simple_trainer.py", line 1050, in <module>
    main(cfg)
  ...
  File "/home/fay/.venv/lib/python3.10/site-packages/gsplat/cuda/_wrapper.py", line 321, in forward
    radii, means2d, depths, conics, compensations = _make_lazy_cuda_func(
  File "/home/fay/.venv/lib/python3.10/site-packages/gsplat/cuda/_wrapper.py", line 15, in call_cuda
    return getattr(_C, name)(*args, **kwargs)
AttributeError: 'NoneType' object has no attribute 'fully_fused_projection_fwd'
"""

T22 = r"""# removed CUDA 11.3 last week (sudo apt purge cuda-11-3), installed 12.1; ~/.bashrc still has the old lines
$ grep CUDA ~/.bashrc
export CUDA_HOME=/usr/local/cuda-11.3
export PATH=/usr/local/cuda-11.3/bin:$PATH
$ ls /usr/local/ | grep cuda
cuda
cuda-12.1
$ python -c "import torch; print(torch.__version__)"
2.1.0+cu121
$ python setup.py install
running install
running build_ext
error: [Errno 2] No such file or directory: '/usr/local/cuda-11.3/bin/nvcc'
"""

T44 = r"""$ docker run --gpus all -it -v $PWD:/ws nvcr.io/nvidia/pytorch:23.10-py3
root@3f2c:/ws# torchrun --nproc_per_node=4 train_ddp.py
...
3f2c:212:230 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct
3f2c:212:230 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device
3f2c:212:230 [1] include/shm.h:48 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-xRq2Ui (size 9637888)
Traceback (most recent call last):
  File "/ws/train_ddp.py", line 61, in <module>
    model = DDP(model, device_ids=[local_rank])
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 795, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
Last error:
Error while creating shared memory segment /dev/shm/nccl-xRq2Ui (size 9637888)
root@3f2c:/ws# df -h /dev/shm
Filesystem      Size  Used Avail Use% Mounted on
shm              64M     0   64M   0% /dev/shm
"""

T50 = r"""$ python infer.py --ckpt runs/exp3/best.pt
Traceback (most recent call last):
  File "/home/dd/proj/infer.py", line 58, in <module>
    pts = pts @ pose[:3, :3].T + pose[:3, 3]
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
"""

T51 = r"""$ python train.py --lr 0.1 --amp
[2024-04-02 14:03:11] epoch 1 step  100 loss 0.8312 psnr 18.22
[2024-04-02 14:03:40] epoch 1 step  200 loss 0.6120 psnr 20.05
[2024-04-02 14:04:09] epoch 1 step  300 loss nan psnr nan
[2024-04-02 14:04:38] epoch 1 step  400 loss nan psnr nan
Traceback (most recent call last):
  File "/home/ee/nerf/train.py", line 201, in <module>
    loss.backward()
  File "/home/ee/.venv/lib/python3.10/site-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
  File "/home/ee/.venv/lib/python3.10/site-packages/torch/autograd/__init__.py", line 266, in backward
    _engine_run_backward(
RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.
"""

T61 = r"""Uncaught TypeError: Cannot read properties of undefined (reading 'map')
    at OrderList (OrderList.jsx:23:18)
    at renderWithHooks (react-dom.development.js:16305:18)
    at mountIndeterminateComponent (react-dom.development.js:20074:13)
    at beginWork (react-dom.development.js:21587:16)
"""

T65 = r"""$ python fuse.py --points scans/office.ply
torch 2.2.1+cu121, GPU: NVIDIA GeForce RTX 4090 (24 GB)
loaded 512000 points
Traceback (most recent call last):
  File "/home/wes/fuse.py", line 40, in <module>
    d = torch.cdist(pts, pts)           # all pairwise distances
  File "/home/wes/.venv/lib/python3.10/site-packages/torch/functional.py", line 1330, in cdist
    return _VF.cdist(x1, x2, p, None)  # type: ignore[attr-defined]
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 976.56 GiB. GPU 0 has a total capacity of 23.65 GiB of which 21.90 GiB is free. Of the allocated memory 5.86 MiB is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated.
"""


T64 = r"""$ python -c "import numba, sys; print(numba.__version__, sys.version.split()[0])"
0.58.1 3.10.12
$ uname -r
5.15.133.1-microsoft-standard-WSL2
$ python -c "from numba import cuda; cuda.detect()"
Found 0 CUDA devices
$ python sim.py
Traceback (most recent call last):
  File "/home/vic/sim.py", line 9, in <module>
    d_x = cuda.to_device(x)
  ...
  File "/home/vic/.venv/lib/python3.10/site-packages/numba/cuda/cudadrv/driver.py", line 302, in _initialize
    raise CudaSupportError(f"Error at driver init: {description}")
numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NOT_INITIALIZED (3)
$ ls /usr/lib/wsl/lib/ | head -3
libcuda.so
libcuda.so.1
libcuda.so.1.1
$ echo $LD_LIBRARY_PATH
/usr/local/cuda-12.2/lib64/stubs:/usr/local/cuda-12.2/lib64
"""



T20 = r"""$ echo $CUDA_HOME
/usr/local/cuda-11.8/bin/nvcc
$ python -c "import torch; print(torch.__version__)"
2.0.1+cu118
$ pip install --no-build-isolation ./submodules/diff-gaussian-rasterization
  ...
    File "/home/pat/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 387, in _check_cuda_version
      cuda_version_str = subprocess.check_output([nvcc, '--version']).strip().decode(*SUBPROCESS_DECODE_ARGS)
    File "/usr/lib/python3.10/subprocess.py", line 1847, in _execute_child
      raise child_exception_type(errno_num, err_msg, err_filename)
  NotADirectoryError: [Errno 20] Not a directory: '/usr/local/cuda-11.8/bin/nvcc/bin/nvcc'
  error: subprocess-exited-with-error
"""


# ---------------------------------------------------------------- F3
def test_f3_an_upgrade_is_no_two_installs_and_a_pre27_wheel_reads_another_torch_first():
    d = _json(T25)
    assert _codes(d)[0] == "abi_torch_version_mismatch", _codes(d)
    assert not any("uninstall -y torch" in c or "conda remove" in c for c in _commands(d)), _commands(d)
    assert not any("two torch releases" in e or "installed in one environment" in e
                   for f in d["findings"] for e in f.get("evidence") or []), d["findings"]


def test_f3_pip_s_own_report_of_the_upgrade_is_one_torch_after_another():
    text = T25.replace(T25.splitlines()[0], "$ pip install torch==2.0.1 torchvision==0.15.2\n"
                       "  Attempting uninstall: torch\n    Found existing installation: torch 1.13.1\n"
                       "    Uninstalling torch-1.13.1:\n      Successfully uninstalled torch-1.13.1\n"
                       "Successfully installed torch-2.0.1 torchvision-0.15.2")
    d = _json(text)
    assert not any("conda remove" in c for c in _commands(d)), _commands(d)
    assert _codes(d)[0] == "abi_torch_version_mismatch", _codes(d)


# ---------------------------------------------------------------- F4
def test_f4_kaolin_s_setup_refusal_is_kaolin_s_not_detectron2_s():
    d = _json(T36)
    assert _codes(d)[0] == "kaolin_version_gate", _codes(d)
    assert "extension_torch_version_gate" not in _codes(d)
    own = _json("Traceback (most recent call last):\n  File \"setup.py\", line 15, in <module>\n"
                "    assert torch_ver >= [1, 8], \"Requires PyTorch >= 1.8\"\nAssertionError: Requires PyTorch >= 1.8\n")
    assert "extension_torch_version_gate" in _codes(own)  # detectron2's own words keep their reading


# ---------------------------------------------------------------- F5
def test_f5_a_build_stopped_on_a_missing_egl_header_is_no_runtime_context_failure():
    d = _json(T34)
    assert _codes(d)[0] == "build_dependency_missing", _codes(d)
    assert "opengl_egl_unavailable" not in _codes(d)


# ---------------------------------------------------------------- F7
def test_f7_one_nvcc_shown_or_none_is_no_second_toolkit():
    for text in (T16, T18, T33):
        assert "multiple_cuda_toolkits" not in _codes(_json(text)), text[:80]
    # /usr/bin/nvcc is the distribution's toolkit, most often picked before the one meant: the reading stays there,
    # named once per release ("(11.5, 11.5)" was one toolkit counted twice)
    d = _json(T24)
    assert _codes(d)[0] == "nvcc_torch_cuda_mismatch", _codes(d)
    assert not any("(11.5, 11.5)" in f["title"] for f in d["findings"]), [f["title"] for f in d["findings"]]


def test_f7_two_nvccs_shown_keep_the_reading():
    text = ("$ which -a nvcc\n/usr/bin/nvcc\n/usr/local/cuda-12.1/bin/nvcc\n$ nvcc --version | grep release\n"
            "Cuda compilation tools, release 11.5, V11.5.119\n" + T16.split("$ pip install", 1)[1].join(("$ pip install", "")))
    assert "multiple_cuda_toolkits" in _codes(_json(text))


# ---------------------------------------------------------------- F8
def test_f8_no_guess_the_text_rules_out_and_no_user_code_reading_beside_cuinit_or_the_arch():
    assert "cpu_only_torch_with_gpu" not in _codes(_json(T27))  # 2.1.0+cu118 True: a CUDA torch that sees the GPU
    assert "user_code_error" not in _codes(_json(T64))  # cuInit itself failed (a stub libcuda)
    assert "user_code_error" not in _codes(_json(T12))  # NVRTC refused --gpu-architecture


class _Guesses:
    """An index of similar reports that reads the given causes (a library's bug first) for any text."""

    def __init__(self, *codes: str) -> None:
        self.codes = codes

    def readings(self, text: str, n: int = 2, **_: object) -> list[Reading]:
        return [Reading(c, 0.9, 0.5, (), 10) for c in self.codes][:n]


# (F8's library_bug guess beside a rule's cause of the setup is kept: dropping it cost 8 released texts whose label is
# that library's bug, bench_explain with the similar reports, the merge review of session 37)


# ---------------------------------------------------------------- F10
def test_f10_sudo_running_apt_is_no_program_run_under_sudo():
    assert "env_not_propagated_to_kernel" not in _codes(_json(T22))
    run = T22.replace("$ python setup.py install", "$ sudo python setup.py install")
    assert "$ sudo python setup.py install" in run
    assert "env_not_propagated_to_kernel" in _codes(_json(run))


# ---------------------------------------------------------------- F17
def test_f17_a_container_tag_is_no_torch_release():
    got = explain_result(T44, similar=False)
    assert (got.facts.get("torch") or {}).get("version") != "23.10", got.facts.get("torch")


# ---------------------------------------------------------------- F19
def test_f19_autograd_s_nan_check_is_the_code_s_values():
    d = _json(T51)
    assert d["recognised"] is True
    assert _codes(d)[0] == "user_code_error", _codes(d)
    assert "LogBackward0" in d["findings"][0]["title"]
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in _commands(d)), _commands(d)


# ---------------------------------------------------------------- F20
def test_f20_no_guess_for_a_text_with_no_word_of_the_field():
    assert _json(T61)["findings"] == []
    got = explain_result("Uncaught TypeError: Cannot read properties of undefined (reading 'map')\n",
                         similar=_Guesses("user_code_error"))
    assert got.findings == []


# ---------------------------------------------------------------- F21
def test_f21_one_allocation_beyond_the_whole_card_is_the_code_s_operation():
    d = _json(T65)
    f = d["findings"][0]
    assert f["code"] == "cuda_oom" and "whole memory" in f["title"], f["title"]
    assert not any("expandable_segments" in c or "smaller batch" in c for c in _commands(d)), _commands(d)
    small = _json(T65.replace("976.56 GiB", "2.00 GiB"))  # a request that fits the card: the workload's reading
    assert any("expandable_segments" in c for c in _commands(small)), _commands(small)


# ---------------------------------------------------------------- F22
def test_f22_a_device_index_past_the_gpus_listed_is_the_code_s():
    d = _json(T66)
    assert _codes(d)[0] == "user_code_error", _codes(d)
    assert any("GPU index 1" in e for e in d["findings"][0].get("evidence") or []), d["findings"][0]
    listed = T66.replace("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c1e...)",
                         "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5c1e...)\nGPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-77aa...)")
    assert _codes(_json(listed))[0] != "user_code_error"  # GPU 1 listed: the index is no longer the code's fault
