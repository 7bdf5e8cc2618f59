# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 38a (blind audits 36 B and 37 D, F6): every printed command complete and runnable as printed, filled from
what the text (explain) or the machine (diagnose) shows; a quoted "<placeholder>" only for what neither shows.

1. ``/usr/local/cuda-"<x.y>"`` where the text shows the CUDA release meant (conda's ``py3.9_cuda11.6`` build of
   pytorch, ``Pytorch 1.6.0 + cu101``, ``cuda11.6``, ``cuda-8.0.`` at a sentence's end); explain on this
   machine: its one toolkit, as before.
2. ``$(python -c 'import torch; ...')`` run by the Python that failed (the text's interpreter; diagnose's own).
3. A top-level compiled module of site-packages built for another torch named by its distribution.
4. Audit B's t14, t19, t20 leftovers."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest


def _explain(text: str) -> dict:
    """smr-doctor explain --offline --json on ``text``."""
    run = subprocess.run([sys.executable, "-m", "smrnb.doctor.cli", "explain", "--offline", "--json"], input=text,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _commands(report: dict, code: str | None = None) -> list[str]:
    return [c for f in report["findings"] if code is None or f["code"] == code for c in (f["fix"] or {}).get("commands", [])]


# ---- 1. the CUDA release of /usr/local/cuda-<x.y> --------------------------------------------------------------

# audit 37 D's t21: a conda env's CUDA_HOME without nvcc; conda's pytorch build string names CUDA 11.6
D_T21 = """(gs) $ conda list | grep -E "cudatoolkit|pytorch "
cudatoolkit               11.6.2              hfc3e2af_12    conda-forge
pytorch                   1.12.1          py3.9_cuda11.6_cudnn8.3.2_0    pytorch
(gs) $ export CUDA_HOME=$CONDA_PREFIX
(gs) $ echo $CUDA_HOME
/home/alice/miniconda3/envs/gs
(gs) $ ls $CUDA_HOME/bin | grep nvcc
(gs) $ pip install submodules/simple-knn
  ...
    File "/home/alice/miniconda3/envs/gs/lib/python3.9/site-packages/torch/utils/cpp_extension.py", line 404, in _check_cuda_version
      cuda_version_str = subprocess.check_output([nvcc, '--version']).strip().decode(*SUBPROCESS_DECODE_ARGS)
    File "/home/alice/miniconda3/envs/gs/lib/python3.9/subprocess.py", line 1837, in _execute_child
      raise child_exception_type(errno_num, err_msg, err_filename)
  FileNotFoundError: [Errno 2] No such file or directory: '/home/alice/miniconda3/envs/gs/bin/nvcc'
  error: subprocess-exited-with-error
"""

SCATTER_CU101 = """binary for Pytorch 1.6.0 + cu101 installed but Runtime error shows torch_scatter has CUDA version 10.2
pip install torch-scatter==2.0.4 -f https://pytorch-geometric.com/whl/torch-1.6.0+cu101.html
$ which -a nvcc
/usr/local/cuda/bin/nvcc
/usr/bin/nvcc
RuntimeError: Detected that PyTorch and torch_scatter were compiled with different CUDA versions. PyTorch has CUDA \
version 10.1 and torch_scatter has CUDA version 10.2. Please reinstall the torch_scatter that matches your PyTorch install.
"""

HEADER_MISSING = """My platform is anaconda for python 3.8 and cuda-11.3.
/opt/conda/envs/x/lib/python3.8/site-packages/torch/include/ATen/cuda/CUDAContext.h:6:10: fatal error: cusparse.h: \
No such file or directory
error: command '/usr/bin/gcc' failed with exit code 1
"""

# audit 36 B's t30: CUDA_HOME is a list of two toolkits and no torch is shown: nothing tells which one
B_T30 = """$ export CUDA_HOME=/usr/local/cuda-12.4:/usr/local/cuda-11.8
$ pip install --no-build-isolation torch-scatter
  ...
  OSError: [Errno 2] No such file or directory: '/usr/local/cuda-12.4:/usr/local/cuda-11.8/bin/nvcc'
"""


@pytest.mark.parametrize("text,code,release", [
    (D_T21, "cuda_home_missing", "11.6"),  # conda's build string of pytorch: torch's CUDA
    (D_T21, "cuda_home_malformed", "11.6"),
    (SCATTER_CU101, "multiple_cuda_toolkits", "10.1"),  # "Pytorch 1.6.0 + cu101": torch's CUDA pins the toolkit
    (HEADER_MISSING, "cuda_home_incomplete", "11.3"),  # "cuda-11.3." at a sentence's end
])
def test_the_cuda_release_the_text_shows_fills_the_toolkit_folder(text, code, release):
    cmds = [c for c in _commands(_explain(text), code) if "CUDA_HOME=" in c]
    assert cmds, _commands(_explain(text))
    for c in cmds:
        assert "<x.y>" not in c, c
        assert f"CUDA_HOME=/usr/local/cuda-{release}" in c, c


def test_several_releases_and_nothing_to_choose_keep_the_placeholder_and_name_them():
    cmds = [c for c in _commands(_explain(B_T30), "cuda_home_malformed") if "CUDA_HOME=" in c]
    assert cmds and all('cuda-"<x.y>"' in c for c in cmds), cmds
    assert all("the text shows CUDA 11.8, 12.4" in c for c in cmds), cmds


# ---- 2. the Python that computes a value: the one that failed ----------------------------------------------------

# a corpus text's shape (test/gladia-928): the traceback's torch is a conda env's
CUDNN_SHADOWED = """>>> print(torch.backends.cudnn.version())
Traceback (most recent call last):
  File "{prefix}/lib/python3.8/site-packages/torch/backends/cudnn/__init__.py", line 50, in _init
    raise RuntimeError(f'{{base_error_msg}}'
RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime version (8, 4, 1). \
PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure PyTorch can find the bundled \
cuDNN.Looks like your LD_LIBRARY_PATH contains incompatible version of cudnnPlease either remove it from the path or \
install cudnn (8, 5, 0)
"""


def _computed(report: dict) -> list[str]:
    return [c for c in _commands(report) if "$(" in c and "python" in c]


@pytest.mark.parametrize("prefix,python", [
    ("/opt/conda/envs/server", "/opt/conda/envs/server/bin/python"),
    ("/Users/Shared/ml envs/venv", '"/Users/Shared/ml envs/venv/bin/python"'),  # a space: quoted
])
def test_a_computed_command_runs_the_python_of_the_traceback(prefix, python):
    cmds = _computed(_explain(CUDNN_SHADOWED.format(prefix=prefix)))
    assert cmds, _commands(_explain(CUDNN_SHADOWED.format(prefix=prefix)))
    for c in cmds:
        assert "$(python " not in c and f"$({python} -c " in c, c
        assert not re.search(r"(?:^|; |&& )python ", c.split("   #")[0]), c  # the line's other python is that one too


def test_a_computed_command_keeps_python_where_the_text_shows_no_interpreter():
    cmds = _computed(_explain(CUDNN_SHADOWED.replace('File "{prefix}/lib/python3.8/site-packages/torch/',
                                                     'File "torch/').format(prefix="")))
    assert cmds and all("$(python -c " in c for c in cmds), cmds


def test_diagnose_computes_with_the_python_it_examined():
    from smrnb.doctor._model import Finding, Fix
    from smrnb.doctor._printed import this_pythons_commands

    cmd = ("python -c \"import torch\" ; ldd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')"
           "/lib/libtorch_cuda.so | grep -iE 'cublas|cudnn'")
    found = [Finding("library_shadowed_older_copy", "loader", "error", "An older library is loaded",
                     fix=Fix("why", (cmd, "pip install --force-reinstall torch==$(pip show torch | sed -n "
                                          "'s/^Version: \\([^+]*\\).*/\\1/p')")))]
    got = this_pythons_commands(found, "/v/bin/python", "/usr/bin/python", "/usr/bin/pip")[0].fix.commands
    assert "$(python " not in got[0] and "ldd $(/v/bin/python -c 'import torch,os;" in got[0], got
    assert got[0].startswith("/v/bin/python -c "), got
    assert "torch==$(/v/bin/python -m pip show torch | " in got[1], got


# ---- 3. a top-level compiled module built for another torch: its distribution -----------------------------------

_SYMBOL = "undefined symbol: _ZN3c104cuda9SetDeviceEi"


@pytest.mark.parametrize("module,dist", [
    ("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", "flash-attn"),
    ("selective_scan_cuda.cpython-310-x86_64-linux-gnu.so", "mamba-ssm"),
    ("causal_conv1d_cuda.cpython-310-x86_64-linux-gnu.so", "causal-conv1d"),
    ("MinkowskiEngineBackend/_C.cpython-38-x86_64-linux-gnu.so", "MinkowskiEngine"),  # its folder is no distribution
    ("amp_C.cpython-310-x86_64-linux-gnu.so", "git+https://github.com/NVIDIA/apex"),  # apex: from its repository
    ("tinycudann_bindings/_86_C.cpython-310-x86_64-linux-gnu.so", "git+https://github.com/NVlabs/tiny-cuda-nn/"),
])
def test_a_compiled_module_built_for_another_torch_is_reinstalled_by_its_distribution(module, dist):
    text = f"$ python train.py\nImportError: /opt/conda/lib/python3.10/site-packages/{module}: {_SYMBOL}\n"
    cmds = [c for c in _commands(_explain(text), "abi_torch_version_mismatch") if "--force-reinstall" in c]
    assert cmds, _commands(_explain(text))
    for c in cmds:
        body = c.split("   #")[0]
        assert "<" not in body and re.search(rf"--force-reinstall (?:--no-deps )?'?{re.escape(dist)}(?![\w-])", body), c


def test_every_compiled_module_row_parses_and_is_sourced():
    from smrnb.doctor import tables

    rows = tables.rows("compiled_modules")
    assert len(rows) >= 15
    for r in rows:
        assert re.fullmatch(r"[A-Za-z_*][\w*]*(?:/[\w*]+)?", r["module"]), r
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", r["distribution"]), r  # a PEP 508 name
        assert r["verified"] in ("yes", "partial", "no") and ("setup.py" in r["source"] or "ops.py" in r["source"]), r
        plain = r["module"].replace("*", "86")
        assert tables.compiled_module_distribution(f"/v/lib/python3.10/site-packages/{plain}.cpython-310-x86_64-"
                                                   "linux-gnu.so") == r["distribution"], r
    assert tables.compiled_module_distribution("/v/lib/python3.10/site-packages/unknown_cuda.so") is None


def test_the_live_rebuild_names_the_distribution_the_table_knows():
    from smrnb.doctor.rules._rebuild import rebuild_of_file

    cmds = rebuild_of_file("/v/lib/python3.10/site-packages/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so", {})
    assert len(cmds) == 1 and "--force-reinstall --no-deps mamba-ssm " in cmds[0], cmds


def test_the_owner_of_a_top_level_module_is_its_distribution():
    from smrnb.doctor._owner import owning_distribution

    # not installed here: the table's distribution, not the module's name (pip has no flash_attn_2_cuda)
    assert owning_distribution("/x/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") \
        == "flash-attn"
    assert owning_distribution("/x/site-packages/MinkowskiEngineBackend/_C.cpython-38-x86_64-linux-gnu.so") \
        == "MinkowskiEngine"


# ---- 4. audit 36 B's t14, t19, t20 -----------------------------------------------------------------------------

B_T14 = r"""$ docker run --rm -it pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime python -c "import torch; print(torch.cuda.is_available()); torch.zeros(1).cuda()"
/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx (Triggered internally at /opt/conda/conda-bld/pytorch_1720538438429/work/c10/cuda/CUDAFunctions.cpp:108.)
  return torch._C._cuda_getDeviceCount() > 0
False
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py", line 314, in _lazy_init
    torch._C._cuda_init()
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
"""

B_T19 = """Traceback (most recent call last):
  File "eval.py", line 30, in <module>
    ckpt = torch.load("checkpoints/model_best.pth")
  File "/home/mo/venv/lib/python3.12/site-packages/torch/serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, \
do those steps only if you trust the source of the checkpoint.
\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to \
`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary \
code execution. Do it only if you got the file from a trusted source.
\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray.scalar was not an allowed global by default. \
Please use `torch.serialization.add_safe_globals([scalar])` or the `torch.serialization.safe_globals([scalar])` context \
manager to allowlist this global if you trust this class/function.
"""

B_T20 = """Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss = criterion(out, target)
  File "/home/ned/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/ned/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 3104, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, \
label_smoothing)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when \
checking argument for argument target in method wrapper_CUDA_nll_loss2d_forward)
"""


def test_t14_the_users_whole_docker_command_is_kept():
    cmds = [c for c in _commands(_explain(B_T14)) if c.startswith("docker run")]
    assert cmds, _commands(_explain(B_T14))
    want = ('docker run --gpus all --rm -it pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime python -c "import torch; '
            'print(torch.cuda.is_available()); torch.zeros(1).cuda()"')
    assert all(c.split("   #")[0] == want for c in cmds), cmds


def test_t19_each_readings_what_decides_fits_it():
    report = _explain(B_T19)
    decides = [e for f in report["findings"] for e in f["evidence"] if "what decides:" in e]
    assert decides, report["findings"]
    assert not any("CUDA_LAUNCH_BLOCKING" in e for e in decides), decides  # an unpickling error: no CUDA kernel
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in _commands(report)), _commands(report)


def test_t20_no_upgrade_of_a_package_no_frame_names():
    report = _explain(B_T20)
    codes = [f["code"] for f in report["findings"]]
    assert "library_bug" in codes, codes  # the reading stays
    cmds = _commands(report, "library_bug")
    assert not any(re.search(r"pip3? install --upgrade\s+\S*<", c.split("   #")[0]) or "--upgrade \"<" in c
                   for c in cmds), cmds
    assert any(c.startswith("#") and "frames" in c for c in cmds), cmds  # what to check instead
