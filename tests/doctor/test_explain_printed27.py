# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 27b: the blind audit's leftovers, printed fixes a person can run as printed.

A GPU named only in a Slurm request (``--gres=gpu:v100:1``) gives the capability (smrnb's GPU table); a torchrun
with a literal ``...`` takes the text's own command line; a port the text names (werkzeug's message, ``--port``,
``-p``) is in the commands; a pin no release meets on the text's Python is said so; tiny-cuda-nn's rebuild sets
TCNN_CUDA_ARCHITECTURES; a notebook's CUDA_LAUNCH_BLOCKING is set in the kernel; a Windows note's ``which python``
is its shell's; mmcv 1.x's full build is mmcv-full; NVML's version mismatch names driver_broken's kind."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor._explain import explain_result

NKI = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _findings(text: str):
    return explain_result(text, similar=False).findings


def _commands(text: str, code: str | None = None) -> list[str]:
    return [c for f in _findings(text) if code is None or f.code == code for c in (f.fix.commands if f.fix else ())]


# ---------------------------------------------------------------- 1. the GPU a Slurm request names
@pytest.mark.parametrize("request_line, cc", [
    ("#SBATCH --gres=gpu:v100:1\n", "7.0"),
    ("$ srun --gres=gpu:a100:2 python eval.py\n", "8.0"),
    ("#SBATCH --gpus=h100:1\n", "9.0"),
    ("#SBATCH --gpus-per-node=a100_80gb:4\n", "8.0"),
])
def test_a_slurm_requests_gpu_gives_the_arch(request_line, cc):
    text = (request_line + 'Traceback (most recent call last):\n  File "/home/ana/pcd/eval.py", line 3, in <module>\n'
            "    idx = pointnet2_utils.furthest_point_sample(xyz, 1024)\n" + NKI +
            '(built on the login node with TORCH_CUDA_ARCH_LIST="6.1")\n')
    cmds = _commands(text, "no_kernel_image_for_gpu")
    assert any(re.search(rf'TORCH_CUDA_ARCH_LIST="(?:[\d.]+;)*{re.escape(cc)}[;"]', c) for c in cmds), cmds
    assert not any("$(nvidia-smi" in c for c in cmds), cmds


def test_the_slurm_v100s_torch_variant_is_filled():
    cmds = _commands("#SBATCH --gres=gpu:v100:1\n" + NKI, "torch_wheel_lacks_gpu_arch")
    assert cmds and not any("<a CUDA variant" in c for c in cmds), cmds
    assert any("sm_70" in c for c in cmds), cmds


def test_near_miss_a_request_without_a_type_or_of_two_types_keeps_the_query():
    for req in ("#SBATCH --gres=gpu:1\n", "#SBATCH --gres=gpu:v100:1\n#SBATCH --gres=gpu:a100:1\n"):
        cmds = _commands(req + NKI, "no_kernel_image_for_gpu")
        assert any("$(nvidia-smi --query-gpu=compute_cap" in c for c in cmds), cmds


# ---------------------------------------------------------------- 2. torchrun's ... from the text's command line
DDP_ERR = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
           "The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n")


def test_srun_command_line_fills_the_rerun():
    cmds = _commands("$ srun python train_ddp.py --cfg x.yaml\n" + DDP_ERR, "port_in_use")
    assert any(c.startswith("MASTER_PORT=29501 srun python train_ddp.py --cfg x.yaml   # ") for c in cmds), cmds
    assert not any(" ..." in c.split("#")[0] for c in cmds), cmds


def test_torchrun_command_line_gets_another_port():
    cmds = _commands("(env) ana@box:~$ torchrun --nproc_per_node 2 --master_port 29500 train.py --epochs 3\n" + DDP_ERR,
                     "port_in_use")
    assert any(c.startswith("torchrun --master_port 29501 --nproc_per_node 2 train.py --epochs 3") for c in cmds), cmds


def test_a_traceback_under_srun_names_the_script():
    text = ('Traceback (most recent call last):\n  File "/home/ana/ddp/train_ddp.py", line 51, in <module>\n'
            '    dist.init_process_group("nccl")\n' + DDP_ERR + "srun: error: node07: task 0: Exited with exit code 1\n")
    cmds = _commands(text, "port_in_use")
    assert any(c.startswith("MASTER_PORT=29501 srun python $HOME/ddp/train_ddp.py") for c in cmds), cmds


def test_near_miss_a_command_line_with_a_secret_is_not_copied():
    cmds = _commands("$ HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456 srun python train.py --token "
                     "hf_abcdefghijklmnopqrstuvwxyz123456\n" + DDP_ERR, "port_in_use")
    assert not any("hf_abc" in c for c in cmds), cmds


def test_near_miss_no_command_line_keeps_torchrun():
    cmds = _commands(DDP_ERR, "port_in_use")
    assert any(c.startswith("torchrun --master_port 29501 ...") for c in cmds), cmds


# ---------------------------------------------------------------- 3. the port the text names
@pytest.mark.parametrize("text, port", [
    ("root@c0ffee12ab34:/srv# python server.py\n * Serving Flask app 'server'\nAddress already in use\nPort 5000 is in "
     "use by another program. Either identify and stop that program, or start the server with a different port.\n",
     "5000"),
    ("$ jupyter lab -p 8890 --no-browser\nOSError: [Errno 98] Address already in use\n", "8890"),
    ("$ python app.py --port 7000\nOSError: [Errno 98] Address already in use\n", "7000"),
    ("$ docker run -p 8050:8050 dash-app\nAddress already in use\nPort 8050 is in use by another program. Either "
     "identify and stop that program, or start the server with a different port.\n", "8050"),
])
def test_the_port_the_text_names_is_in_the_commands(text, port):
    f = next(f for f in _findings(text) if f.code == "port_in_use")
    assert port in f.title, f.title
    assert f"':{port}'" in f.fix.commands[0], f.fix.commands


def test_werkzeugs_message_gives_its_own_way_to_another_port():
    cmds = _commands("Address already in use\nPort 5000 is in use by another program. Either identify and stop that "
                     "program, or start the server with a different port.\n", "port_in_use")
    assert any(c.startswith("flask run --port 5001") for c in cmds), cmds


def test_near_miss_a_port_of_another_line_is_not_taken_for_a_mkdir():
    cmds = _commands("$ mkdir -p 8080\nOSError: [Errno 98] Address already in use\n", "port_in_use")
    assert not any("8080" in c for c in cmds), cmds


# ---------------------------------------------------------------- 4. a pin no release meets on the text's Python
def test_scipy_below_1_2_on_python_3_11_is_said_so():
    text = ("PS C:\\Users\\ana\\seg> python prep.py\nTraceback (most recent call last):\n  File \"C:\\Users\\ana\\seg\\"
            "prep.py\", line 2, in <module>\n    from scipy.misc import imread\nImportError: cannot import name 'imread' "
            "from 'scipy.misc' (C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\scipy\\"
            "misc\\__init__.py)\n")
    cmds = _commands(text, "package_api_version_mismatch")
    assert not any(c.startswith('pip install "scipy<1.2"') for c in cmds), cmds
    assert any('python=3.7 "scipy<1.2"' in c and "3.11" in c for c in cmds), cmds


def test_numpy_below_1_24_on_python_3_12_is_said_so():
    text = ('Traceback (most recent call last):\n  File "/home/ana/vox/voxelize.py", line 8, in <module>\n'
            "    a = np.zeros(3, dtype=np.int)\n  File \"/home/ana/.venv/lib/python3.12/site-packages/numpy/__init__.py\", "
            "line 324, in __getattr__\nAttributeError: module 'numpy' has no attribute 'int'.\n`np.int` was a "
            "deprecated alias for the builtin `int`.\n")
    cmds = _commands(text, "package_api_version_mismatch")
    assert any('python=3.11 "numpy<1.24"' in c for c in cmds), cmds


def test_near_miss_a_python_the_release_supports_keeps_the_pin():
    text = ('Traceback (most recent call last):\n  File "/home/ana/vox/voxelize.py", line 8, in <module>\n'
            "    a = np.zeros(3, dtype=np.int)\n  File \"/home/ana/.venv/lib/python3.10/site-packages/numpy/__init__.py\", "
            "line 324, in __getattr__\nAttributeError: module 'numpy' has no attribute 'int'.\n")
    cmds = _commands(text, "package_api_version_mismatch")
    assert any(c.startswith('pip install "numpy<1.24"') for c in cmds), cmds


# ---------------------------------------------------------------- 5. tiny-cuda-nn's own variable
def test_tinycudann_rebuild_sets_tcnn_cuda_architectures():
    text = ("(mesh) PS C:\\Users\\ana\\neus> python exp_runner.py --mode train\nTraceback (most recent call last):\n"
            "  File \"C:\\Users\\ana\\neus\\exp_runner.py\", line 212, in <module>\n    rgb = tcnn_encoding(pts)\n" + NKI +
            "GPU: NVIDIA RTX A6000; tinycudann built with TCNN_CUDA_ARCHITECTURES=75\n")
    cmds = _commands(text, "no_kernel_image_for_gpu")
    assert any('$env:TCNN_CUDA_ARCHITECTURES = "86"' in c and "tiny-cuda-nn" in c for c in cmds), cmds
    assert not any("TORCH_CUDA_ARCH_LIST" in c.split("#")[0] for c in cmds), cmds


def test_tinycudann_on_linux_reads_the_gpu_without_the_dot():
    text = ('ana@box:~/ngp$ python train.py\n  File "/home/ana/ngp/train.py", line 9, in <module>\n'
            "    import tinycudann as tcnn\n" + NKI)
    cmds = _commands(text, "no_kernel_image_for_gpu")
    assert any(c.startswith('TCNN_CUDA_ARCHITECTURES="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | '
                            "head -1 | tr -d .)\"") for c in cmds), cmds


def test_spconv_rebuild_sets_cumm_cuda_arch_list():
    cmds = _commands("GPU 0: NVIDIA GeForce RTX 3090\n  File \"/home/a/x.py\", line 2, in <module>\n"
                     "    import spconv.pytorch as spconv\n" + NKI, "no_kernel_image_for_gpu")
    assert any('CUMM_CUDA_ARCH_LIST="8.6"' in c for c in cmds), cmds


def test_near_miss_another_extension_keeps_torch_cuda_arch_list():
    cmds = _commands("GPU 0: NVIDIA GeForce RTX 3090\n  File \"/home/a/x.py\", line 2, in <module>\n"
                     "    from pointnet2_ops import pointnet2_utils\n" + NKI, "no_kernel_image_for_gpu")
    assert any('TORCH_CUDA_ARCH_LIST="8.6"' in c for c in cmds), cmds
    assert not any("TCNN_" in c or "CUMM_" in c for c in cmds), cmds


# ---------------------------------------------------------------- 6. a notebook's CUDA_LAUNCH_BLOCKING
@pytest.mark.parametrize("frame", ["Cell In[21], line 3\n----> 3 y = model(x.cuda())\n",
                                   "<ipython-input-7-0c4a1e1b2f3d> in <module>\n----> 1 y = model(x.cuda())\n",
                                   'File /tmp/ipykernel_4411/2303450162.py:3\n'])
def test_a_notebook_sets_the_variable_in_the_kernel(frame):
    text = ("---------------------------------------------------------------------------\nRuntimeError"
            "                              Traceback (most recent call last)\n" + frame +
            "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    cmds = _commands(text)
    assert not any("<your script>" in c or "<script>" in c for c in cmds), cmds
    assert any('os.environ["CUDA_LAUNCH_BLOCKING"] = "1"' in c and "before import torch" in c for c in cmds), cmds


def test_near_miss_a_script_keeps_the_shell_rerun():
    cmds = _commands("$ python train.py\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert any(c.startswith("CUDA_LAUNCH_BLOCKING=1 python train.py") for c in cmds), cmds


# ---------------------------------------------------------------- 7. which python on Windows
@pytest.mark.parametrize("prompt, want", [("C:\\Users\\ana\\proj>", "where python"),
                                          ("PS C:\\Users\\ana\\proj>", "Get-Command python")])
def test_a_windows_notes_which_is_its_shells(prompt, want):
    text = (prompt + " python seg.py\nTraceback (most recent call last):\n  File \"C:\\Users\\ana\\proj\\seg.py\", "
            "line 1, in <module>\n    from PIL import Image\nModuleNotFoundError: No module named 'PIL'\n")
    cmds = _commands(text)
    assert any(want in c for c in cmds), cmds
    assert not any("which python" in c for c in cmds), cmds


def test_near_miss_a_linux_note_keeps_which():
    text = ("ana@box:~/proj$ python seg.py\nTraceback (most recent call last):\n  File \"/home/ana/proj/seg.py\", "
            "line 1, in <module>\n    from PIL import Image\nModuleNotFoundError: No module named 'PIL'\n")
    assert any("which python" in c for c in _commands(text)), _commands(text)


def test_cmds_nvcc_search_is_cmds():
    cmds = _commands("C:\\src\\ext> pip install .\nOSError: CUDA_HOME environment variable is not set. Please set it "
                     "to your CUDA install root.\n")
    assert not any("/usr/local/cuda" in c or "which -a" in c for c in cmds), cmds


# ---------------------------------------------------------------- 8. mmcv 1.x's full build
@pytest.mark.parametrize("module", ["mmcv.runner", "mmcv.parallel", "mmcv.fileio"])
def test_mmcv_below_2_is_mmcv_full(module):
    text = ('Traceback (most recent call last):\n  File "tools/train.py", line 9, in <module>\n'
            f"    from {module} import x\nModuleNotFoundError: No module named '{module}'\n")
    cmds = _commands(text, "package_api_version_mismatch")
    assert any('mim install "mmcv-full<2"' in c for c in cmds), cmds
    assert not any(c.startswith('pip install "mmcv<2') for c in cmds), cmds


def test_near_miss_the_lite_mmcv_keeps_its_name():
    text = ("$ pip list | grep mmcv\nmmcv 1.7.1\nmmcv 2.1.0\n"
            'Traceback (most recent call last):\n  File "tools/train.py", line 9, in <module>\n'
            "    from mmcv.runner import x\nModuleNotFoundError: No module named 'mmcv.runner'\n")
    cmds = _commands(text, "package_api_version_mismatch")
    assert not any("mmcv-full" in c.split("#")[0] for c in cmds), cmds


# ---------------------------------------------------------------- 9. the driver's version mismatch
COULDNT = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
           "NVIDIA driver is installed and running.\n")


@pytest.mark.parametrize("shown", ["Failed to initialize NVML: Driver/library version mismatch\n",
                                   "[ 12.3] NVRM: API mismatch: the client has the version 550.120, but this kernel "
                                   "module has the version 550.90.07.  Please make sure that this kernel module and all "
                                   "NVIDIA driver components have the same version.\n"])
def test_a_shown_version_mismatch_names_the_title(shown):
    f = next(f for f in _findings(COULDNT + shown) if f.code == "driver_broken")
    assert "different versions" in f.title and "not loaded" not in f.title, f.title


def test_near_miss_no_mismatch_keeps_not_loaded():
    f = next(f for f in _findings(COULDNT + "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n")
             if f.code == "driver_broken")
    assert "not loaded" in f.title, f.title


@pytest.mark.parametrize("prompt, want", [("C:\\Users\\ana\\proj>", "nvidia-smi & powershell -Command"),
                                          ("PS C:\\Users\\ana\\proj>", "nvidia-smi; powershell -Command")])
def test_a_windows_what_decides_line_is_its_shells(prompt, want):
    f = next(f for f in _findings(prompt + ' python -c "import torch; print(torch.cuda.is_available())"\nFalse\n')
             if f.code == "no_gpu")
    decides = [e for e in f.evidence if "what decides: `" in e]
    assert decides and all("lspci" not in e and want in e for e in decides), decides


def test_near_miss_a_linux_what_decides_line_keeps_lspci():
    f = next(f for f in _findings('$ python -c "import torch; print(torch.cuda.is_available())"\nFalse\n')
             if f.code == "no_gpu")
    assert any("lspci | grep -i nvidia" in e for e in f.evidence), f.evidence


def test_wsls_nvml_message_is_the_title_not_a_kernel_module():
    f = next(f for f in _findings("ana@DESKTOP-9:~$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the "
                                  "operating system\n") if f.code == "driver_broken")
    assert "WSL2" in f.title and "not loaded" not in f.title, f.title
