# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11, the GPU at run time: whose code a failure is in (a dtype mismatch, a kernel fault in a
project's own .cu file, a failure the text says began with an update), the forward-compatibility package behind
803, NCCL's socket creation, an X client without a display, torch's CPU build asked for a CUDA kernel, a DataLoader
worker's death in a container, nvidia-docker 1's CUDA check, the open kernel module refusing an old GPU, and a
notebook that shows the release it had before a pip install. Each text is written from the tool's own source (see
the table rows' ``source``), never copied from a corpus text; near-misses must not fire."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a dtype mismatch: the user's cast first, a library's own half-precision path second
    ("RuntimeError: expected scalar type Half but found Float\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: mat1 and mat2 must have the same dtype, but got BFloat16 and Float\n",
     ["user_code_error", "library_bug"]),
    # a kernel fault reported from a project's own CUDA source
    ("CUDA error: an illegal memory access was encountered\n  current device: 0, in function mul_mat at "
     "/src/myproj/kernels/gemm.cu:812\n", ["library_bug", "user_code_error"]),
    ("[preprocess.cu:88]: CUDA Runtime error cudaPeekAtLastError() # too many resources requested for launch, "
     "code = cudaErrorLaunchOutOfResources [ 701 ]\n", ["library_bug", "user_code_error"]),
    # a failure the text says began with an update of the software
    ("After the update (2.3.1 -> 2.4.0) the renderer only shows a black image. It works in previous versions.\n",
     ["library_bug"]),
    ("RuntimeError: libfoo handle not found: new in last 5 days, last working commit: 1a2b3c4\n", ["library_bug"]),
    # 803 with the forward-compatibility package named
    ("export LD_PRELOAD=/opt/cuda-compat-12.8/libcuda.so.1\n"
     "CUDA error: system has unsupported display driver / cuda driver combination\n",
     ["forward_compat_unsupported", "driver_broken"]),
    # 803 without the compat package named: the driver's own libraries and kernel module disagree first
    ("CUDA error: system has unsupported display driver / cuda driver combination\n",
     ["driver_broken", "forward_compat_unsupported"]),
    # NCCL's socket of a family the interface lacks
    ("misc/socket.cc:484 NCCL WARN Socket creation failed : Address family not supported by protocol\n",
     ["nccl_network_unreachable"]),
    # an X client with no display
    ("ERROR: In vtkXOpenGLRenderWindow.cxx, line 270\nvtkXOpenGLRenderWindow (0x55d0): bad X server connection. "
     "DISPLAY=:0. Aborting.\n", ["opengl_egl_unavailable"]),
    ("(viewer:4242): Gtk-WARNING **: 10:11:12.123: cannot open display: \n", ["opengl_egl_unavailable"]),
    # torch's dispatcher: its own operator without a CUDA kernel is a CPU build
    ("NotImplementedError: Could not run 'aten::addmm' with arguments from the 'CUDA' backend. This could be because "
     "the operator doesn't exist for this backend\n", ["cpu_only_torch_with_gpu"]),
    # a DataLoader worker dying in a container
    ("$ docker run --gpus all -it trainer\nRuntimeError: DataLoader worker (pid(s) 311, 312) exited unexpectedly\n",
     ["container_shm_too_small"]),
    # nvidia-docker 1's CUDA check
    ("nvidia-docker | 2017/01/02 10:00:00 Error: unsupported CUDA version: driver 8.0 < image 9.0\n",
     ["driver_too_old"]),
    # the open kernel module on a GPU without GSP
    ("NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1c82)\nNVRM: installed in this system is not supported by "
     "open\nNVRM: nvidia.ko because it does not include the required GPU\nNVRM: System Processor (GSP).\n",
     ["driver_broken"]),
    # the shell's signal words in a localized glibc: an instruction the CPU lacks is still SIGILL
    ("$ python demo.py\n非法指令 (核心已转储)\n", ["cpu_instruction_unsupported"]),
    ("$ python demo.py\nUngültiger Maschinenbefehl (Speicherabzug geschrieben)\n", ["cpu_instruction_unsupported"]),
    # DDP's check of parameters that took no part in the loss
    ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This "
     "error indicates that your module has parameters that were not used in producing loss.\n", ["user_code_error"]),
    # torch's own message names a CPU-only machine first
    ("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
     "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')\n", ["no_gpu"]),
    # a notebook showing the release it had before the install
    ("In [1]: !pip install numpy==1.26.4\nIn [2]: import numpy as np; np.__version__\nOut[2]: '1.24.1'\n",
     ["kernel_restart_needed"]),
]


@pytest.mark.parametrize("text,codes", READINGS, ids=[c[0][:60] for c in READINGS])
def test_reading(text, codes):
    got = rule_codes(text, n=len(codes))
    assert got == codes, (text, got)


@pytest.mark.parametrize("text,absent", [
    # torch's own kernels (ATen) faulting on the user's indices stay the user's
    ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion "
     "`index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed.\n"
     "RuntimeError: CUDA error: device-side assert triggered\n", "library_bug"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered\n", "library_bug"),
    # a kernel with no image for the GPU in a project's source is no kernel fault
    ("F0101 12:00:00.0 11 im2col.cu:61] Check failed: error == cudaSuccess (8 vs. 0)  invalid device function\n",
     "library_bug"),
    # an update of the driver is no library's regression; a plain 'worked before' neither
    ("Since upgrading the NVIDIA driver, nvidia-smi says: NVIDIA-SMI has failed because it couldn't communicate with "
     "the NVIDIA driver.\n", "library_bug"),
    # a worker dying outside any container: not /dev/shm
    ("RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly\n", "container_shm_too_small"),
    # torchvision's operator without a CUDA kernel is torchvision's build, not torch's
    ("NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.\n",
     "cpu_only_torch_with_gpu"),
    # mmap answering ENOMEM is the process's mapping limit, not /dev/shm's size
    ("RuntimeError: unable to mmap 4096 bytes from file </torch_4242_1234567_89>: Cannot allocate memory (12)\n",
     "container_shm_too_small"),
    # a notebook that shows the release it installed
    ("!pip install numpy==1.26.4\nimport numpy as np\nnp.__version__\n'1.26.4'\n", "kernel_restart_needed"),
    # pip's own report of the release it replaces is no stale kernel
    ("!pip install pandas==2.2.0\nFound existing installation: pandas 1.5.3\nUninstalling pandas-1.5.3:\n"
     "Successfully installed pandas-2.2.0\n", "kernel_restart_needed"),
])
def test_near_misses_do_not_fire(text, absent):
    assert absent not in rule_codes(text, n=3), text
