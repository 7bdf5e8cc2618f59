# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 28c: what blind audit 28 found in the commands (part 2): the container tool, OS and shell the text shows
(Podman's CDI, Apptainer's --nv, a Kubernetes limit, WSL2's bash and Windows driver, Fedora/RHEL compilers, MSVC
without a gcc reading, conda only where shown), values the text gives instead of placeholders, readings the text rules
out not ranked first, pip's success after a failed build as "before, not now", no readings from similar reports for
a training log's metrics or git's refused credentials, and smaller points (TensorFlow, OpenBLAS, synchronous errors,
titles, GPU names)."""

from __future__ import annotations

import pytest

from smrnb.doctor import _similar
from smrnb.doctor._explain import explain_result


def _found(text: str, similar: bool = False) -> list:
    return list(explain_result(text, similar=similar).findings)


def _codes(text: str) -> list[str]:
    return [f.code for f in _found(text) if not f.code.startswith("context_")]


def _commands_of(text: str, code: str) -> list[str]:
    return [c for f in _found(text) if f.code == code for c in (f.fix.commands if f.fix else ())]


def _all_commands(text: str) -> list[str]:
    return [c for f in _found(text) for c in (f.fix.commands if f.fix else ())]


# ---- 1. container and job tools ----

PODMAN = [
    "$ podman run --rm --device nvidia.com/gpu=all docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
    "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
    "rootless podman on RHEL 9 after installing nvidia-container-toolkit:\n"
    "[me@box ~]$ podman run --device nvidia.com/gpu=all --rm myimage python train.py\n"
    "Error: crun: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all: OCI runtime error\n",
]


@pytest.mark.parametrize("text", PODMAN)
def test_podman_gets_a_cdi_spec_and_device_not_docker(text):
    cmds = _commands_of(text, "gpu_not_exposed_to_process")
    assert any("nvidia-ctk cdi generate" in c for c in cmds), cmds
    assert any(c.startswith("podman run --device nvidia.com/gpu=all") for c in cmds), cmds
    assert not any("docker run" in c for c in cmds), cmds


APPTAINER = [
    ("[u@gpu03 ~]$ apptainer exec /scratch/img/pt.sif python -c 'import torch; print(torch.cuda.is_available())'\n"
     "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:118: UserWarning: CUDA initialization: Found no "
     "NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
     "http://www.nvidia.com/Download/index.aspx\nFalse\n[u@gpu03 ~]$ nvidia-smi -L\n"
     "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1f2e3d4c-aaaa-bbbb-cccc-0123456789ab)\n", "apptainer exec --nv"),
    ("singularity exec pytorch_24.sif python train.py\n"
     "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
     "driver from http://www.nvidia.com/Download/index.aspx\n", "singularity exec --nv"),
]


@pytest.mark.parametrize(("text", "want"), APPTAINER)
def test_apptainer_and_singularity_get_nv_and_are_no_docker(text, want):
    found = _found(text)
    f = next(f for f in found if f.code == "gpu_not_exposed_to_process")
    assert any(c.startswith(want) for c in f.fix.commands), f.fix.commands
    assert not any("docker run" in c for c in f.fix.commands), f.fix.commands
    assert not any("context.container = docker" in e for e in f.evidence), f.evidence


def test_apptainer_filled_from_the_texts_line_and_no_srun_where_the_job_has_the_gpu():
    cmds = _commands_of(APPTAINER[0][0], "gpu_not_exposed_to_process")
    assert any(c.startswith("apptainer exec --nv /scratch/img/pt.sif") for c in cmds), cmds


KUBERNETES = [
    "our pod on the GPU node pool sees no GPU (kubectl describe node says nvidia.com/gpu: 4 allocatable)\n"
    "$ kubectl logs trainer-5d8f-abcde\nTraceback (most recent call last):\n  File \"/app/main.py\", line 10, in "
    "<module>\n    x = torch.zeros(1).cuda()\nRuntimeError: No CUDA GPUs are available\n",
    "$ kubectl exec -it infer-0 -- python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n"
    "the deployment's resources only set cpu and memory; the node has nvidia.com/gpu allocatable\n"
    "RuntimeError: No CUDA GPUs are available\n",
]


@pytest.mark.parametrize("text", KUBERNETES)
def test_kubernetes_gets_the_pods_gpu_limit(text):
    cmds = _commands_of(text, "gpu_not_exposed_to_process")
    assert any("limits: nvidia.com/gpu" in c for c in cmds), cmds
    assert not any("docker run" in c for c in cmds), cmds


def test_near_miss_docker_still_gets_gpus_all():
    text = ("$ docker run --rm -it pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime python -c \"import torch; "
            "torch.zeros(1).cuda()\"\nRuntimeError: Found no NVIDIA driver on your system. Please check that you have "
            "an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")
    cmds = _commands_of(text, "gpu_not_exposed_to_process")
    assert any(c.startswith("docker run --gpus all") for c in cmds), cmds


WSL = [
    ("PS C:\\Users\\kai> wsl\nkai@LAPTOP-9:~$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the "
     "operating system\nkai@LAPTOP-9:~$ python3 -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n"
     "Windows 10, RTX 2060, Windows driver 452.06\n", "driver_broken"),
    ("me@DESKTOP-Q1:~/proj$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n"
     "this is WSL2 Ubuntu 22.04 under Windows 11, Windows driver 551.86\n", "gpu_not_exposed_to_process"),
]


@pytest.mark.parametrize(("text", "first"), WSL)
def test_wsl2_commands_in_bash_and_an_old_windows_driver_first(text, first):
    codes = _codes(text)
    assert codes[0] == first, codes
    cmds = _all_commands(text)
    assert not any("$env:" in c for c in cmds), cmds
    assert not any(c.startswith(("docker run", "srun")) for c in cmds), cmds


# ---- 2. OS and shell ----

GCC = ("/usr/local/cuda-12.1/bin/../targets/x86_64-linux/include/crt/host_config.h:143:2: error: #error -- unsupported "
       "GNU version! gcc versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can be "
       "used to override this version check; however, using an unsupported host compiler may cause compilation failure "
       "or incorrect run time execution. Use at your own risk.\n"
       "error: command '/usr/local/cuda-12.1/bin/nvcc' failed with exit code 1\n")


@pytest.mark.parametrize(("head", "want", "unwanted"), [
    ("[bo@fedora ext]$ pip install --no-build-isolation .\n", "x86_64-conda-linux-gnu-g++", "apt-get"),
    ("Fedora Linux 41, gcc (GCC) 14.2.1 (Red Hat 14.2.1-7)\n", "gxx_linux-64=12", "apt-get"),
    ("Rocky Linux 9.4, gcc 13 from AppStream\n", "sudo dnf install gcc-toolset-12", "apt-get"),
    ("CentOS Linux release 7.9.2009 (Core)\n", "sudo yum install devtoolset-12", "apt-get"),
    ("Ubuntu 24.04, gcc 13.2\n", "sudo apt-get install gcc-12 g++-12", "gcc-toolset"),
])
def test_an_older_gcc_the_distribution_way(head, want, unwanted):
    cmds = _commands_of(head + GCC, "host_compiler_unsupported")
    assert any(want in c for c in cmds), cmds
    assert not any(unwanted in c for c in cmds), cmds


def test_rhel_toolset_compilers_are_named_by_path():
    cmds = _commands_of("Rocky Linux 9.4\n" + GCC, "host_compiler_unsupported")
    assert any("CC=/opt/rh/gcc-toolset-12/root/usr/bin/gcc" in c for c in cmds), cmds


MSVC = [
    "C:\\src\\ext>pip install --no-build-isolation .\n"
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\include\\crt/host_config.h(153): fatal error C1189: "
    "#error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are "
    "supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check\n",
    "PS C:\\work> python setup.py build_ext\n"
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.7\\include\\crt/host_config.h(160): fatal error C1189: "
    "#error:  -- unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are "
    "supported!\nerror: command 'C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\v11.7\\\\bin\\\\nvcc.exe' "
    "failed with exit code 2\n",
]


@pytest.mark.parametrize("text", MSVC)
def test_msvc_refused_gets_no_gcc_reading(text):
    codes = _codes(text)
    assert codes[0] == "windows_msvc_toolchain", codes
    assert "host_compiler_unsupported" not in codes, codes
    assert not any("export CC=" in c for c in _all_commands(text))
    assert any("older MSVC" in c for c in _commands_of(text, "windows_msvc_toolchain"))


def test_near_miss_linux_host_config_keeps_the_gcc_reading():
    assert "host_compiler_unsupported" in _codes("Ubuntu 24.04\n" + GCC)


NVCC_OLD = ("torch 2.7.0+cu128, GPU RTX 5090\n"
            "[1/4] /usr/local/cuda/bin/nvcc --generate-dependencies-with-compile -gencode=arch=compute_120,code=sm_120 "
            "-c a.cu\nnvcc fatal   : Unsupported gpu architecture 'compute_120'\n"
            "$ nvcc --version\nCuda compilation tools, release 12.4, V12.4.131\nninja: build stopped: subcommand failed.\n")


def test_no_conda_nvcc_without_conda_in_the_text():
    cmds = _all_commands("$ pip install --no-build-isolation .\n" + NVCC_OLD)
    assert not any(c.startswith("conda install") for c in cmds), cmds
    assert not any("$CONDA_PREFIX" in c for c in cmds), cmds


def test_near_miss_conda_nvcc_where_the_text_shows_conda():
    cmds = _all_commands("(myenv) $ conda activate myenv && pip install --no-build-isolation .\n" + NVCC_OLD)
    assert any("cuda-nvcc=12.8" in c for c in cmds), cmds


# ---- 3. placeholders the text fills ----

@pytest.mark.parametrize("text", [
    "$ echo $CUDA_HOME\n/usr/local/cuda-12.1:/usr/local/cuda-11.8\n"
    "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda-12.1:/usr/local/cuda-11.8/bin/nvcc'\n"
    "torch 2.2.2+cu121\n",
    "  fatal error: cuda_runtime.h: No such file or directory\n  compilation terminated.\n"
    "torch 2.1.2+cu121 in the image nvidia/cuda:12.1.0-runtime-ubuntu22.04\n",
])
def test_cuda_home_of_torchs_cuda(text):
    cmds = [c for c in _all_commands(text) if "CUDA_HOME=" in c]
    assert cmds and all("<x.y>" not in c for c in cmds), cmds
    assert any("/usr/local/cuda-12.1" in c for c in cmds), cmds


def test_nvcc_option_the_message_names():
    text = ("  /usr/local/cuda-11.8/bin/nvcc -std=c++20 -c a.cu\n"
            "  nvcc fatal   : Value 'c++20' is not defined for option 'std'\n")
    cmds = _all_commands(text)
    assert any("grep -- '-std'" in c for c in cmds), cmds
    assert not any("<the option>" in c for c in cmds), cmds


def test_the_extension_module_and_the_package_imported():
    text = ("$ python -c \"import _gridencoder\"\nTraceback (most recent call last):\n  File \"<string>\", line 1, in "
            "<module>\nImportError: libc10.so: cannot open shared object file: No such file or directory\n")
    assert any('import torch; import _gridencoder' in c for c in _all_commands(text)), _all_commands(text)
    tls = ("pi@jetson:~$ python3 run.py\nTraceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
           "    from skimage import io\nImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in "
           "static TLS block\n")
    cmds = _all_commands(tls)
    assert any('import skimage"' in c for c in cmds), cmds
    assert not any("<package>" in c for c in cmds), cmds


def test_no_pin_of_a_release_the_text_does_not_name():
    text = ("On our HGX H100 after updating to driver 550.90.07, torch finds no GPU although nvidia-smi lists all "
            "eight H100 80GB HBM3:\n/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA "
            "initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized\n")
    assert not any("<the release the text says works>" in c for c in _all_commands(text))


# ---- 4. readings the text rules out, not first ----

@pytest.mark.parametrize("text", [
    "DGX A100, nvidia-smi lists all 8 GPUs fine\n>>> torch.cuda.is_available()\nUserWarning: CUDA initialization: "
    "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that "
    "might have already set an error? Error 802: system not yet initialized\nFalse\n"
    "$ systemctl status nvidia-fabricmanager\n     Active: failed (Result: exit-code)\n",
    "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
    "before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized\n"
    "nv-fabricmanager: fabricmanager.log says 'request to query NVSwitch device information from NVSwitch driver "
    "failed'; nvidia-fabricmanager service is inactive\n",
])
def test_error_802_with_the_fabric_manager_shown_is_the_fabric_first(text):
    assert _codes(text)[0] == "fabric_manager_not_running", _codes(text)


@pytest.mark.parametrize("text", [
    "$ nvidia-smi\nUnable to determine the device handle for GPU0000:41:00.0: Unknown Error\n$ dmesg | grep -i xid\n"
    "[ 9123.1] NVRM: Xid (PCI:0000:41:00): 79, pid=0, GPU has fallen off the bus.\n",
    "nvidia-smi: Unable to determine the device handle for GPU 0000:02:00.0: Unknown Error\n"
    "kernel log: NVRM: GPU 0000:02:00.0: GPU has fallen off the bus.\n",
])
def test_xid_79_is_a_hardware_fault_first(text):
    assert _codes(text)[0] == "gpu_hardware_fault", _codes(text)


def test_near_miss_unknown_error_alone_keeps_its_readings():
    text = "$ nvidia-smi\nUnable to determine the device handle for GPU0000:41:00.0: Unknown Error\n"
    assert _codes(text)[0] == "driver_broken", _codes(text)


@pytest.mark.parametrize("shown", [">>> print(torch.__version__)\n2.4.0+cu124\n",
                                   "In [3]: torch.__version__\nOut[3]: '2.5.1+cu124'\n"])
def test_a_cuda_11_library_with_torch_cu124_printed_is_the_wrong_cuda_binary(shown):
    text = (shown + ">>> from mmcv.ops import nms\nTraceback (most recent call last):\n"
            "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    assert _codes(text)[0] == "prebuilt_binary_wrong_cuda", _codes(text)


def test_no_cpu_only_reading_where_torch_is_a_cuda_build():
    text = ("      No CUDA runtime is found, using CUDA_HOME='None'\n"
            "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
            "torch 2.1.0+cu121, A10G\n")
    assert "cpu_only_torch_with_gpu" not in _codes(text), _codes(text)


def test_a_binary_that_loads_in_a_terminal_is_not_of_another_cuda():
    text = ("In [2]: import my_ext\nImportError: libcudart.so.12: cannot open shared object file: No such file or "
            "directory\n(in a terminal with the same export it imports fine)\n")
    codes = _codes(text)
    assert "prebuilt_binary_wrong_cuda" not in codes, codes
    assert not any(c.startswith("pip uninstall") for c in _all_commands(text))


def test_compat_directory_shown_gives_one_reading():
    text = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
            "compatibility was attempted on non supported HW\n$ echo $LD_LIBRARY_PATH\n/usr/local/cuda/compat/lib:"
            "/usr/local/nvidia/lib64\n")
    assert _codes(text)[:1] == ["forward_compat_unsupported"] and "driver_broken" not in _codes(text)[:2]


def test_cuda_visible_devices_empty_with_nvidia_smi_working():
    text = ("jax sees no GPU, nvidia-smi shows my RTX 4090 fine; my .bashrc has export CUDA_VISIBLE_DEVICES=\n"
            "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: "
            "no CUDA-capable device is detected\n")
    codes = _codes(text)
    assert codes[0] == "gpu_not_exposed_to_process", codes
    assert "no_gpu" not in codes and "driver_broken" not in codes, codes
    assert any(c.startswith("unset CUDA_VISIBLE_DEVICES") for c in _all_commands(text))


def test_a_kernel_update_names_the_dkms_step():
    text = ("after a kernel update (6.5.0-35 -> 6.5.0-41) nvidia-smi says:\nNVIDIA-SMI has failed because it "
            "couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and "
            "running.\n")
    f = next(f for f in _found(text) if f.code == "driver_broken")
    assert any("dkms autoinstall" in c for c in f.fix.commands), f.fix.commands
    assert any("kernel update" in e for e in f.evidence), f.evidence


# ---- 5. pip's success after a failed build of the same package ----

@pytest.mark.parametrize("tail", [
    "Successfully built simple_knn\nSuccessfully installed simple_knn-0.0.0\n",
    "Successfully installed simple-knn-0.0.0\n",
])
def test_pip_success_of_the_failed_package_is_before_not_now(tail):
    text = ("  nvcc fatal   : Unsupported gpu architecture 'compute_120'\n  ninja: build stopped: subcommand failed.\n"
            "ERROR: Failed building wheel for simple-knn\nFailed to build simple-knn\n"
            "then with TORCH_CUDA_ARCH_LIST=8.9:\n$ pip install --no-build-isolation ./simple-knn\n" + tail)
    found = _found(text)
    assert found and all(f.severity in ("info", "ok") for f in found), [(f.code, f.severity) for f in found]


def test_near_miss_another_packages_success_is_no_rerun():
    text = ("  nvcc fatal   : Unsupported gpu architecture 'compute_120'\n  ninja: build stopped: subcommand failed.\n"
            "ERROR: Failed building wheel for simple-knn\nFailed to build simple-knn\n$ pip install plyfile\n"
            "Successfully installed plyfile-1.0.3\n")
    assert any(f.severity == "error" for f in _found(text))


# ---- 6. no readings from similar reports where the docs exclude them ----

@pytest.mark.parametrize("text", [
    "epoch 4/30 | train loss 0.71 | val error rate 18.2% | top-1 error 17.5 | lr 3e-4\n"
    "epoch 5/30 | train loss 0.69 | val error rate 18.1% | top-1 error 17.4 | lr 3e-4\nwhy is the error rate stuck?\n",
    "step 1200 train_loss=0.112 val_error=0.081 mean abs error 0.044\nstep 1300 train_loss=0.109 val_error=0.080\n",
    "$ git clone https://github.com/acme/private-models.git\nremote: Support for password authentication was removed "
    "on August 13, 2021.\nfatal: Authentication failed for 'https://github.com/acme/private-models.git/'\n",
    "$ git pull\ngit@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
])
def test_no_similar_reports_for_metrics_or_git_credentials(text):
    assert not _similar.reads_as_a_failure_of_the_field(text)
    assert not [f for f in _found(text, similar=True) if "similar reports" in (f.sources or ())]


def test_near_miss_a_training_log_then_a_cuda_error_is_read():
    text = ("epoch 1/10 | val error rate 40.1%\nTraceback (most recent call last):\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    assert _similar.reads_as_a_failure_of_the_field(text)


# ---- 7. smaller points ----

def test_tensorflow_dlerror_gets_no_torch_advice():
    text = ("2024-05-01 10:00:00.1: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could "
            "not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
            "No such file or directory\n2024-05-01 10:00:00.2: I tensorflow/compiler/xla/stream_executor/cuda/"
            "cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.\n")
    cmds = _all_commands(text)
    assert not any("torch" in c.split("   #")[0] for c in cmds), cmds
    assert not any("<package" in c for c in cmds), cmds


@pytest.mark.parametrize(("cpu", "arm"), [("model name\t: Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", False),
                                          ("Architecture: aarch64 (Jetson Nano)", True)])
def test_openblas_coretype_only_on_arm(cpu, arm):
    text = f"$ python -c \"import numpy\"\nIllegal instruction (core dumped)\n{cpu}\n"
    assert any(c.startswith("OPENBLAS_CORETYPE=") for c in _all_commands(text)) == arm


def test_no_launch_blocking_for_a_shape_error():
    text = ("model = Net().cuda()  # RTX 4090, CUDA 12.4\n  File \"/home/a/net.py\", line 20, in forward\n"
            "    return self.head(x)\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (32x1024 and 512x10)\n")
    cmds = _all_commands(text)
    assert cmds and not any("CUDA_LAUNCH_BLOCKING" in c for c in cmds), cmds


@pytest.mark.parametrize("text", [
    "  nvcc fatal   : Cannot find compiler 'cl.exe' in PATH\nWindows 11, torch 2.3.1+cu121\n",
    "C:\\proj>python train.py\nTraceback (most recent call last):\n  File \"C:\\proj\\train.py\", line 1, in <module>\n"
    "    import torch\nModuleNotFoundError: No module named 'torch'\n",
])
def test_titles_are_whole_clauses(text):
    for f in _found(text):
        assert f.title.count("(") == f.title.count(")"), f.title
        assert not f.title.endswith("..."), f.title


def test_a_gpu_name_without_the_sentences_next_words():
    text = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation.\nIf you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the "
            "instructions at https://pytorch.org/get-started/locally/\ntorch 2.5.1+cu124\n")
    gpus = explain_result(text, similar=False).facts["driver"]["gpus"]
    assert [g["name"] for g in gpus] == ["GeForce RTX 5090"], gpus


def test_detectron2_gate_title_names_no_fixed_release():
    text = "      AssertionError: Requires PyTorch >= 1.4\ntorch 1.3.1\n"
    f = next(f for f in _found(text) if f.code == "extension_torch_version_gate")
    assert "1.8" not in f.title, f.title
