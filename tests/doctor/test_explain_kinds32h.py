# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32h: the GPU, the driver and running, read from the tool's own message as its source prints it.

- BackdoorBox's 'This machine has no cuda devices!' (core/attacks/base.py, core/defenses/*: the schedule's
  CUDA_VISIBLE_DEVICES is put into os.environ, then torch.cuda.device_count() > 0 is asserted): the index hides the
  GPUs (dev7/backdoorbox-58), gpu_not_exposed_to_process.
- OpenVINO's GPU plugin (clDNN ocl_toolkit/ocl_builder does_device_match_config): 'No OpenCL device found which would
  match provided configuration: <device>: invalid vendor type' lists OpenCL devices that are not Intel's; no Intel GPU
  is there (heldout11/openvino-97), no_gpu.
- ncnn's create_gpu_instance: 'vkEnumeratePhysicalDevices failed N' (src/gpu.cpp): the Vulkan driver(s) could not list
  the GPUs (heldout11/sourcebook-dataset-11), driver_broken (driver_too_old second).
- GNU ld (BFD): '<file>: file not recognized: file truncated' (bfd/bfd.c bfd_errmsgs), binary_corrupt; where the file
  is a CUDA library of a Jetson L4T image (/usr/lib/aarch64-linux-gnu/libcublas.so ...), the empty placeholder the
  NVIDIA runtime mounts over (heldout9/jetson-inference-1290), gpu_not_exposed_to_process with it.
- cupoch's cudaSafeCall location of a failed interop call in its visualizer's shader files ('Error: OS call failed or
  operation not supported on this OS\tphong_shader.cu:330'): the CUDA-GL interop mechanism the named cudaGraphicsGL*
  calls already read (heldout8/cupoch-118), opengl_egl_unavailable first.
- Incus/LXD resources whose NVIDIA information has empty 'CUDA Version:' and 'NVRM Version:' (filled only from
  nvidia-container-cli, internal/server/resources/gpu.go): the host lacks the NVIDIA container toolkit, so the NVIDIA
  devices and libraries are not passed in (dev9/incus-1322), gpu_not_exposed_to_process.
Near-misses share words but not the mechanism and keep their own codes."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

POSITIVE = {
    "gpu_not_exposed_to_process": [
        # dev7/backdoorbox-58 (the corpus' wording)
        "AssertionError: This machine has no cuda devices! (Have been solved)\n\nIf you encounter the following "
        "error: AssertionError: This machine has no cuda devices!",
        # BackdoorBox's assert in a traceback, not from the corpus
        "Traceback (most recent call last):\n  File \"test_BadNets.py\", line 112, in <module>\n    badnets.train(schedule)\n"
        "  File \"/home/u/BackdoorBox/core/attacks/base.py\", line 187, in train\n"
        "    assert torch.cuda.device_count() > 0, 'This machine has no cuda devices!'\n"
        "AssertionError: This machine has no cuda devices!",
        # the empty CUDA libraries of a Jetson L4T r32 image built without the NVIDIA runtime (heldout9's wording)
        "libcudart.so, libcublas.so do not exist in container dustynv/jetson-inference:r32.4.3\n"
        "/usr/lib/aarch64-linux-gnu/libcublas.so  file not recognized: File truncated\n"
        "root@2705d68d0852:/# file /usr/lib/aarch64-linux-gnu/libcublas.so.10.2.2.89\n"
        "/usr/lib/aarch64-linux-gnu/libcublas.so.10.2.2.89: empty",
        # the same during a docker build of an l4t-base image linking cuDNN, not from the corpus
        "Step 7/12 : RUN cmake .. && make -j4\n[ 96%] Linking CXX executable trt_demo\n"
        "/usr/bin/ld: /usr/lib/aarch64-linux-gnu/libcudnn.so.8: file not recognized: file truncated\n"
        "collect2: error: ld returned 1 exit status",
        # Incus' resources without nvidia-container-cli on the host (dev9/incus-1322's wording)
        "Nvidia GPU not showing up is /dev after passing through\nGPU:\n  NUMA node: 0\n  Vendor: NVIDIA Corporation "
        "(10de)\n  Driver: nvidia (560.35.03)\n  NVIDIA information:\n    Architecture:\n    Brand: NVIDIA\n"
        "    Model: NVIDIA GeForce RTX 3060 Ti\n    CUDA Version:\n    NVRM Version:\n    UUID:\n",
        # LXD's 'lxc info --resources' of an older driver (Brand is the model's first word), not from the corpus
        "$ lxc config device add ml gpu0 gpu && lxc exec ml -- nvidia-smi\nError: Command not found\n"
        "$ lxc info --resources\nCard 0:\n  Vendor: NVIDIA Corporation (10de)\n  Product: TU104GL [Tesla T4] (1eb8)\n"
        "  Driver: nvidia (470.82.01)\n  NVIDIA information:\n    Architecture:\n    Brand: Tesla\n    Model: Tesla T4\n"
        "    CUDA Version:\n    NVRM Version:\n    UUID:\n",
    ],
    "no_gpu": [
        # heldout11/openvino-97
        "GPU plugin problem\n\n failed to create engine: No OpenCL device found which would match provided "
        "configuration:\n    GeForce GTX 970: invalid vendor type\n\nWhat should I do to fix this problem?",
        # clDNN listing two non-Intel devices, one of them failing both checks, not from the corpus
        "[ ERROR ] Failed to create plugin GPU for device GPU\nRuntimeError: No OpenCL device found which would match "
        "provided configuration:\n    Ellesmere: invalid vendor type\n    pthread-AMD Ryzen 7 3700X 8-Core Processor: "
        "invalid device type\n    pthread-AMD Ryzen 7 3700X 8-Core Processor: invalid vendor type",
    ],
    "driver_broken": [
        # heldout11/sourcebook-dataset-11
        "invalid gpu device\n\nvkEnumeratePhysicalDevices failed 5\n[Model]models/RealESRGAN-SourceBook-latest-fp16.bin\n"
        "invalid gpu device",
        # ncnn's message with an error VkResult, in a waifu2x-ncnn-vulkan run, not from the corpus
        "PS C:\\tools\\waifu2x-ncnn-vulkan> .\\waifu2x-ncnn-vulkan.exe -i in.png -o out.png -n 2 -s 2\n"
        "vkEnumeratePhysicalDevices failed -3\ninvalid gpu device",
    ],
    "binary_corrupt": [
        # BFD's older capitalisation (heldout9/jetson-inference-1290's line)
        "/usr/lib/aarch64-linux-gnu/libcublas.so  file not recognized: File truncated",
        # a static library cut short by a full disk, not from the corpus
        "[100%] Linking CXX shared library libdet.so\n/usr/bin/ld: /home/u/deps/lib/libprotobuf.a: file not "
        "recognized: file truncated\ncollect2: error: ld returned 1 exit status\nmake[2]: *** [libdet.so] Error 1",
    ],
    "opengl_egl_unavailable": [
        # heldout8/cupoch-118
        "collision::CollisionResult with 120 collisions.\nError: OS call failed or operation not supported on this "
        "OS\tphong_shader.cu:330",
        # another of cupoch's shaders, not from the corpus
        "pcd = cph.io.read_point_cloud('bunny.pcd')\ncph.visualization.draw_geometries([pcd])\n"
        "Error: OS call failed or operation not supported on this OS\tsimple_shader.cu:212",
    ],
}

NEAR_MISS = {
    # BackdoorBox's own success line names its cuda devices: no failure
    "gpu_not_exposed_to_process": "This machine has 2 cuda devices, and use 1 of them to train.\n"
                                  "Epoch:1/200, iteration:100/391, lr: 0.1, loss: 1.93",
    # Incus' resources with nvidia-container-cli present: the NVIDIA fields are filled
    "gpu_not_exposed_to_process_filled": "  NVIDIA information:\n    Architecture: 8.6\n    Brand: GeForce\n    Model: "
                                         "NVIDIA GeForce RTX 3060 Ti\n    CUDA Version: 12.6\n    NVRM Version: 560.35.03\n"
                                         "    UUID: GPU-2b3c5d7e-1f2a-4b6c-9d8e-0a1b2c3d4e5f\n",
    # a web application's 'Invalid vendor type' is not an OpenCL device check
    "no_gpu": "AppError: Invalid vendor type. Must be PRIME, MY_SHOP or QUICK_SHOP\n    at updateStore "
              "(/app/controllers/store.js:88:19)",
    # a count the program prints after a successful enumeration: no failure
    "driver_broken": "vkEnumeratePhysicalDevices returned count 2\n[0 NVIDIA GeForce RTX 3060]  queueC=2[8]  "
                     "queueG=0[16]  queueT=1[2]",
    # a file of another format is not a truncated one
    "binary_corrupt": "/usr/bin/ld: /home/u/build/model.o: file not recognized: file format not recognized\n"
                      "collect2: error: ld returned 1 exit status",
    # cudaErrorOperatingSystem at a compute kernel's file, no graphics interop
    "opengl_egl_unavailable": "Error: OS call failed or operation not supported on this OS\tvoxel_kernels.cu:88",
}


@pytest.mark.parametrize("code,text", [(c, t) for c, ts in POSITIVE.items() for t in ts])
def test_the_tools_message_gives_its_code_among_the_first_two(code: str, text: str) -> None:
    assert code in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("code,text", list(NEAR_MISS.items()), ids=list(NEAR_MISS))
def test_near_misses_do_not_give_the_code(code: str, text: str) -> None:
    code = code.removesuffix("_filled")
    assert code not in rule_codes(text), rule_codes(text, n=5)


def test_l4t_placeholder_is_not_read_off_jetson_paths() -> None:
    """A truncated library outside a Jetson image's CUDA libraries is only a damaged file."""
    text = "/usr/bin/ld: /usr/lib/x86_64-linux-gnu/libcublas.so.11: file not recognized: file truncated"
    assert "gpu_not_exposed_to_process" not in rule_codes(text), rule_codes(text, n=5)
    assert "binary_corrupt" in rule_codes(text)


def test_cupoch_interop_failure_reads_graphics_first() -> None:
    text = POSITIVE["opengl_egl_unavailable"][0]
    assert rule_codes(text)[:1] == ["opengl_egl_unavailable"], rule_codes(text, n=5)


@pytest.mark.parametrize("table,key", [
    ("library_messages", "backdoorbox_no_cuda_devices"), ("library_messages", "cldnn_invalid_vendor_type"),
    ("library_messages", "ncnn_enumerate_physical_devices_failed"), ("library_messages", "l4t_cuda_library_placeholder"),
    ("library_messages", "cuda_gl_interop_unsupported"), ("library_messages", "lxd_incus_no_nvidia_container_cli"),
    ("library_messages", "cudajl_no_suitable_cuda"), ("library_messages", "xmrig_cuda_no_devices"),
    ("library_messages", "k8s_mig_memory_info_no_permission"), ("container_messages", "ngc_driver_release_too_old"),
    ("loader_errors", "bfd_file_truncated")])
def test_rows_match_their_examples(table: str, key: str) -> None:
    assert_row_matches_its_example_and_stays_linear(table, key)


INSUFFICIENT_DESPITE_DRIVER = [
    # dev10/nvidia-docker-191: the image's CUDA 7.5 and the host's driver 367.48 (CUDA <= 8.0), CUDA used in a build step
    "error #35 - installed CUDA driver version older than runtime even though 361.42 driver is installed?\n"
    "THCudaCheck FAIL file=/torch/extra/cutorch/lib/THC/THCGeneral.c line=20 error=35 : CUDA driver version is "
    "insufficient for CUDA runtime version\n* Host\n  * Os: `Ubuntu 16.04`\n  * Driver: `367.48`\n* Image\n"
    "  * Base: `nvidia/cuda:7.5-cudnn5-devel-ubuntu14.04`",
    # torch's CUDA 11.8 build and nvidia-smi's driver 535 (CUDA 12.2): a stub libcuda found first, not from the corpus
    "$ nvidia-smi\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "$ python -c 'import torch; print(torch.__version__); torch.zeros(1).cuda()'\n2.1.0+cu118\n"
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
]


@pytest.mark.parametrize("text", INSUFFICIENT_DESPITE_DRIVER)
def test_insufficient_driver_with_a_sufficient_driver_is_the_process_not_given_it(text: str) -> None:
    assert rule_codes(text) == ["gpu_not_exposed_to_process", "driver_too_old"], rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # the driver (CUDA <= 11.4) older than torch's CUDA 12.1: the driver is too old
    "| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |\ntorch 2.3.1+cu121\n"
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
    # a CUDA the reporter names in prose is not the binary's (funakoshi-miner's shape)
    "| NVIDIA-SMI 384.90                 Driver Version: 384.90\nDriver 384.90, using cuda 9.0.\n"
    "CUDA error: CUDA driver version is insufficient for CUDA runtime version",
])
def test_insufficient_driver_near_misses_keep_driver_too_old_first(text: str) -> None:
    assert rule_codes(text)[:1] != ["gpu_not_exposed_to_process"], rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # heldout9/obs-studio-7724: OBS's dialog copied by text recognition (a space for the name's last underscore)
    "NVENC Error: init_encoder_h264: nv.nvEncinitialize Encodersen >session, &enc->params) failed: 8 "
    "(NV_ENC_ERR_INVALID PARAM),\nIf you use software encoding, you can record without problems.",
    # OBS's own wording (jim-nvenc.c nv_failed: '%s: %s failed: %d (%s)'), not from the corpus
    "14:02:11.402: [jim-nvenc: 'simple_video_recording'] init_encoder_hevc: nv.nvEncInitializeEncoder("
    "enc->session, &enc->params) failed: 8 (NV_ENC_ERR_INVALID_PARAM)",
])
def test_nvenc_invalid_param_reads_the_gpus_encoder(text: str) -> None:
    assert "gpu_below_extension_minimum" in rule_codes(text), rule_codes(text, n=5)


def test_nvenc_other_errors_are_not_invalid_param() -> None:
    text = "init_encoder_h264: nv.nvEncEncodePicture(enc->session, &params) failed: 6 (NV_ENC_ERR_INVALID_PTR)"
    assert "gpu_below_extension_minimum" not in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # heldout9/diffeqflux-jl-453
    "ERROR: LoadError: InitError: Could not find a suitable CUDA installation",
    # CUDA.jl's initialisation in a REPL, with its driver warning before it, not from the corpus
    "julia> using CUDA\n┌ Warning: This version of CUDA.jl only supports NVIDIA drivers for CUDA 10.1 or higher (yours is "
    "for CUDA 10.0.0)\n└ @ CUDA ~/.julia/packages/CUDA/YeS8q/src/initialization.jl:105\n"
    "ERROR: InitError: Could not find a suitable CUDA installation\nStacktrace:\n [1] error(s::String)",
])
def test_cudajl_no_suitable_cuda_reads_driver_then_toolkit(text: str) -> None:
    assert rule_codes(text) == ["driver_too_old", "toolkit_below_extension_minimum"], rule_codes(text, n=5)


def test_cudajl_stub_library_is_not_read_so() -> None:
    text = ("ERROR: LoadError: InitError: Cannot use the CUDA stub libraries. You either don't have the NVIDIA driver "
            "installed, or it is not properly discoverable.")
    assert "toolkit_below_extension_minimum" not in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # dev11/xmrig-cuda-79
    "CUDA disabled (no device)\nI am using the \"xmrig-6.6.2\" with \"xmrig-cuda-6.5.0-cuda11_1-win64.zip\", and my GPU "
    "is Nvidia GeForce RTX 2060, 6GB\nBut the CUDA plugin doesn't work, returning \"CUDA disabled (no device)\"",
    # XMRig's own start-up summary (CudaBackend.cpp printDisabled), not from the corpus
    " * ABOUT        XMRig/6.21.0 gcc/9.4.0\n * CPU          Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz (1) 64-bit AES\n"
    " * OPENCL       disabled\n * CUDA         disabled (no devices)\n * DONATE       1%",
])
def test_xmrig_cuda_no_devices_reads_the_driver_first(text: str) -> None:
    assert rule_codes(text)[:1] == ["driver_too_old"], rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # CUDA left disabled in the config: no reason printed
    " * OPENCL       disabled\n * CUDA         disabled\n * DONATE       1%",
    # OpenCL's platform without devices is not the CUDA plugin's
    " * OPENCL       disabled (no devices)\n * CUDA         disabled",
])
def test_xmrig_other_disabled_lines_are_not_read_so(text: str) -> None:
    assert "driver_too_old" not in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # heldout8/k8s-device-plugin-399 (its copy misspells NVML's 'Permissions')
    "On the node with mig enabled, nvidia-device-plugin reports an error when it starts\nerror starting plugins: unable "
    "to add default resources to config: error visiting devices: error visiting device: error visiting device: error "
    "getting device memory info: Insufficient Pemmissions",
    # the plugin's log as go-nvlib prints NVML's string, not from the corpus
    "I0412 08:13:22.512811       1 main.go:256] Retreiving plugins.\nE0412 08:13:22.530114       1 main.go:123] error "
    "starting plugins: error getting plugins: unable to create plugins: error visiting devices: error getting device "
    "memory info: Insufficient Permissions",
])
def test_mig_memory_info_refused_is_a_permission(text: str) -> None:
    assert "gpu_device_permission_denied" in rule_codes(text), rule_codes(text, n=5)


def test_mig_memory_info_other_nvml_errors_are_not_a_permission() -> None:
    text = "error starting plugins: error visiting devices: error getting device memory info: Unknown Error"
    assert "gpu_device_permission_denied" not in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # the entrypoint's two lines and its bracketed status, not from the corpus (a Triton 21.10 image, driver 455)
    "=============================\n== Triton Inference Server ==\n=============================\n\nNVIDIA Release 21.10 "
    "(build 28453983)\n\nERROR: This container was built for NVIDIA Driver Release 470.57 or later, but\n"
    "       version 455.45.01 was detected and compatibility mode is UNAVAILABLE.\n\n"
    "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]",
    # a TensorRT 20.03 image on driver 418, not from the corpus
    "NVIDIA TensorRT 7.0.0 (c) 2016-2020, NVIDIA CORPORATION.  All rights reserved.\n\nERROR: This container was built "
    "for NVIDIA Driver Release 440.33 or later, but\n       version 418.67 was detected and compatibility mode is "
    "UNAVAILABLE.",
])
def test_ngc_entrypoint_driver_release_is_driver_too_old(text: str) -> None:
    assert rule_codes(text)[:1] == ["driver_too_old"], rule_codes(text, n=5)


@pytest.mark.parametrize("text", [
    # no version read at all (WSL 2 has no /proc/driver/nvidia/version): not a comparison of versions
    "ERROR: This container was built for NVIDIA Driver Release 515.48 or later, but\n       version  was detected and "
    "compatibility mode is UNAVAILABLE.\n\n       [[]]",
    # the compatibility package made up for the old driver
    "NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.",
])
def test_ngc_entrypoint_near_misses_are_not_driver_too_old(text: str) -> None:
    assert "driver_too_old" not in rule_codes(text)[:1], rule_codes(text, n=5)
