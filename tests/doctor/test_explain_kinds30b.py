# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 30b: precision, readings that fired without a cue in the text (blind audit 29).

- cpu_only_torch_with_gpu is "a CPU-only torch on a machine with an NVIDIA GPU" (CODES.md): only where the text (or
  this machine) shows a GPU or CUDA in use; not beside a CPU kernel's internal assert with torch '+cpu', nor as the
  second reading of a CUDA_HOME that is not set while a CUDA extension is configured (torch's build helpers' own
  lines name CUDA only to find the toolkit). Its torch reinstall names the CUDA variant from the text's driver, else
  says how to pick it: never a guessed one.
- env_not_propagated_to_kernel in a notebook only where the text sets a variable or fails on what a variable finds
  (a library path, CUDA_HOME), not from "I installed it in a terminal" alone.
- A library's own exception that says a keyword or name was removed (or is deprecated, use Y) is an API change
  (package_api_version_mismatch): dask's "The get= keyword has been removed. Please use the scheduler= keyword".
- No readings of similar reports for texts outside the field (Rust, npm, Java, git) or with no failure at all.
Near-misses keep their readings: a GPU named beside torch '+cpu', torch's own "Torch not compiled with CUDA enabled",
a CUDA_HOME not set beside nvidia-smi's GPU, a variable set in .bashrc, a DeprecationWarning beside another error."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result, explain_text
from smrnb.doctor._model import SIMILAR_REPORTS

from ._rules import rule_codes

# torch '+cpu' with a failure that shows no GPU at all
NO_GPU_CPU_TORCH = [
    ("Traceback (most recent call last):\n  File \"/home/r/tsdf/fuse.py\", line 88, in integrate\n"
     "    w = torch.where(valid, sdf.clamp(-1, 1), zeros)\nRuntimeError: !needs_dynamic_casting<func_t>::check(iter) "
     "INTERNAL ASSERT FAILED at \"../aten/src/ATen/native/cpu/Loops.h\":347, please report a bug to PyTorch.\n"
     "torch 2.0.1+cpu\n"),
    ("$ python -c 'import torch; print(torch.__version__)'\n2.1.2+cpu\n$ python eval.py\nTraceback (most recent call "
     "last):\n  File \"eval.py\", line 40, in <module>\n    idx = torch.searchsorted(edges, vals)\nRuntimeError: "
     "false INTERNAL ASSERT FAILED at \"../aten/src/ATen/native/Bucketization.cpp\":120, please report a bug to "
     "PyTorch.\n"),
    ("pip list | grep torch\ntorch                2.2.0+cpu\ntorchvision          0.17.0+cpu\n\nTraceback (most recent "
     "call last):\n  File \"/srv/app/pipeline.py\", line 12, in <module>\n    import trimesh\n"
     "ModuleNotFoundError: No module named 'trimesh'\n"),
]

# CUDA_HOME not set while a CUDA extension is configured, no GPU shown
CUDA_HOME_NO_GPU = [
    ("$ pip install --no-build-isolation git+https://github.com/ourlab/fast-raymarch.git\n"
     "  error: subprocess-exited-with-error\n  × python setup.py egg_info did not run successfully.\n"
     "      Traceback (most recent call last):\n        File \"/tmp/pip-req-build-k2j3h4/setup.py\", line 21, in "
     "<module>\n          CUDAExtension(\"raymarch._C\", sources),\n        File \"/home/ci/.venv/lib/python3.10/"
     "site-packages/torch/utils/cpp_extension.py\", line 1076, in CUDAExtension\n          library_dirs += "
     "library_paths(cuda=True)\n        File \"/home/ci/.venv/lib/python3.10/site-packages/torch/utils/"
     "cpp_extension.py\", line 1203, in library_paths\n          if (not os.path.exists(_join_cuda_home(lib_dir)) and\n"
     "        File \"/home/ci/.venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py\", line 2416, in "
     "_join_cuda_home\n          raise OSError('CUDA_HOME environment variable is not set. '\n"
     "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"),
    ("$ python setup.py develop\nTraceback (most recent call last):\n  File \"setup.py\", line 30, in <module>\n"
     "    ext_modules=[CUDAExtension('knn_ops', ['src/knn.cpp', 'src/knn_kernel.cu'])],\n"
     "  File \"/opt/conda/lib/python3.9/site-packages/torch/utils/cpp_extension.py\", line 1048, in CUDAExtension\n"
     "    library_dirs += library_paths(cuda=True)\n  File \"/opt/conda/lib/python3.9/site-packages/torch/utils/"
     "cpp_extension.py\", line 1186, in library_paths\n    if (not os.path.exists(_join_cuda_home(lib_dir)) and\n"
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"),
]


@pytest.mark.parametrize("text", NO_GPU_CPU_TORCH)
def test_a_cpu_torch_beside_a_failure_that_shows_no_gpu_is_not_read_as_the_cpu_build(text):
    assert "cpu_only_torch_with_gpu" not in [f.code for f in explain_text(text, similar=False)]


def test_a_cpu_kernels_internal_assert_with_a_cpu_torch_is_the_librarys_bug_alone():
    assert rule_codes(NO_GPU_CPU_TORCH[0]) == ["library_bug"]


@pytest.mark.parametrize("text", CUDA_HOME_NO_GPU)
def test_cuda_home_not_set_with_no_gpu_shown_is_the_toolkit_alone(text):
    assert rule_codes(text) == ["cuda_home_missing"]


# near-misses: a GPU or CUDA in use shown, the CPU build kept
GPU_SHOWN = [
    ("nvidia-smi shows my card:\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
     "|   0  NVIDIA GeForce RTX 3090  Off |\n>>> import torch\n>>> torch.__version__\n'2.1.0+cpu'\n"
     ">>> torch.cuda.is_available()\nFalse\n"),
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = torch.zeros(3).cuda()\n"
     "  File \"/usr/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 239, in _lazy_init\n"
     "    raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch not compiled with CUDA "
     "enabled\n"),
    ("torch 2.0.1+cpu on a GeForce RTX 4090 box\nTraceback (most recent call last):\n  File \"run.py\", line 5, in "
     "<module>\n    model.to('cuda:0')\nAssertionError: Torch not compiled with CUDA enabled\n"),
]


@pytest.mark.parametrize("text", GPU_SHOWN)
def test_a_gpu_or_cuda_use_shown_keeps_the_cpu_build_first(text):
    assert rule_codes(text)[:1] == ["cpu_only_torch_with_gpu"]


def test_a_cpu_torch_with_this_machines_gpu_keeps_the_cpu_build():
    facts = {"driver": {"status": "ok", "source": "nvidia-smi", "driver_version": "535.104.05",
                        "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "compute_capability": "8.6"}]}}
    text = ("Traceback (most recent call last):\n  File \"fuse.py\", line 8, in <module>\n    y = model(x)\n"
            "RuntimeError: something failed\ntorch 2.0.1+cpu\n")
    assert "cpu_only_torch_with_gpu" in [f.code for f in explain_text(text, facts, similar=False)]


def test_the_cpu_build_reinstall_never_guesses_a_cuda_variant():
    f = next(f for f in explain_text(GPU_SHOWN[1], similar=False) if f.code == "cpu_only_torch_with_gpu")
    cmds = " ".join(f.fix.commands)
    assert "whl/cu126" not in cmds and 'whl/"<cuXYZ>"' in cmds and "nvidia-smi" in cmds
    assert "only if the line above prints None" in cmds


def test_the_cpu_build_reinstall_takes_its_variant_from_the_texts_driver_cuda():
    text = ("Thu Mar  7 10:00:00 2024\n| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = torch.zeros(3).cuda()\n"
            "AssertionError: Torch not compiled with CUDA enabled\n")
    f = next(f for f in explain_text(text, similar=False) if f.code == "cpu_only_torch_with_gpu")
    cmds = " ".join(f.fix.commands)
    assert "whl/cu126" not in cmds and "<cuXYZ>" not in cmds
    assert "whl/cu11" in cmds


# a notebook where the module was installed in a terminal: the kernel's Python, no variable
TERMINAL_INSTALL = [
    ("this is what the .ipynb has in the cell output, I installed pytorch3d in a terminal:\n{\n \"output_type\": "
     "\"error\",\n \"ename\": \"ModuleNotFoundError\",\n \"evalue\": \"No module named 'pytorch3d'\",\n \"traceback\": [\n"
     "  \"\\u001b[0;31mModuleNotFoundError\\u001b[0m: No module named 'pytorch3d'\"\n ]\n}\n"),
    ("In the notebook cell:\n---------------------------------------------------------------------------\n"
     "ModuleNotFoundError                       Traceback (most recent call last)\nCell In[3], line 1\n"
     "----> 1 import open3d\n\nModuleNotFoundError: No module named 'open3d'\n\nbut it works in a terminal: python -c "
     "'import open3d' prints nothing\n"),
]


@pytest.mark.parametrize("text", TERMINAL_INSTALL)
def test_works_in_a_terminal_with_no_variable_is_not_a_variable_the_kernel_lacks(text):
    codes = [f.code for f in explain_text(text, similar=False)]
    assert codes[:1] == ["kernel_wrong_python"]
    assert "env_not_propagated_to_kernel" not in codes


def test_a_variable_set_in_a_shell_keeps_its_reading_in_a_notebook():
    text = ("In the notebook:\nOSError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
            "It works in a terminal, I export LD_LIBRARY_PATH=/opt/cudnn/lib64 in my .bashrc\n")
    assert "env_not_propagated_to_kernel" in rule_codes(text)


# a library's own words that a name or keyword was removed
REMOVED_SAID = [
    ("Traceback (most recent call last):\n  File \"pipeline.py\", line 55, in <module>\n"
     "    result = ddf.compute(get=dask.multiprocessing.get)\n  File \"/usr/lib/python3/dist-packages/dask/base.py\", "
     "line 375, in compute\n    (result,) = compute(self, traverse=False, **kwargs)\n  File \"/usr/lib/python3/"
     "dist-packages/dask/base.py\", line 1060, in get_scheduler\n    raise TypeError(\nTypeError: The get= keyword "
     "has been removed. Please use the scheduler= keyword instead with the name of the desired scheduler like "
     "'threads' or 'processes'\n"),
    ("  File \"/home/u/inv/run.py\", line 31, in <module>\n    reg = regularization.Smallness(mesh, cell_weights=w)\n"
     "  File \"/home/u/.local/lib/python3.11/site-packages/simpeg/regularization/base.py\", line 80, in __init__\n"
     "    raise TypeError(\nTypeError: 'cell_weights' argument has been removed. Please use 'weights' instead.\n"),
    ("Traceback (most recent call last):\n  File \"fit.py\", line 12, in <module>\n    print(reg.cell_weights)\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/simpeg/regularization/base.py\", line 210, in cell_weights\n"
     "    raise AttributeError(\nAttributeError: 'cell_weights' has been removed. Please access weights using the "
     "`set_weights`, `get_weights`, and `remove_weights` methods.\n"),
    ("Traceback (most recent call last):\n  File \"serve.py\", line 8, in <module>\n    app = make_app(legacy_mode=True)\n"
     "  File \"/usr/local/lib/python3.12/site-packages/meshserve/app.py\", line 44, in make_app\n"
     "    raise ValueError(\"legacy_mode is deprecated since 3.0; use compat='v2' instead\")\n"
     "ValueError: legacy_mode is deprecated since 3.0; use compat='v2' instead\n"),
]


@pytest.mark.parametrize("text", REMOVED_SAID)
def test_a_librarys_own_words_that_a_name_was_removed_are_an_api_change(text):
    assert rule_codes(text)[:1] == ["package_api_version_mismatch"]


def test_the_removed_keywords_fix_quotes_the_librarys_words_and_names_its_package():
    f = next(f for f in explain_text(REMOVED_SAID[0], similar=False) if f.code == "package_api_version_mismatch")
    cmds = " ".join(f.fix.commands)
    assert "scheduler= keyword" in cmds and "pip show dask" in cmds


def test_a_deprecation_warning_beside_another_error_is_not_the_api_change():
    text = ("/usr/lib/python3.10/site-packages/torch/cuda/amp/grad_scaler.py:120: FutureWarning: "
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` "
            "instead.\nTraceback (most recent call last):\n  File \"train.py\", line 90, in <module>\n"
            "    loss.backward()\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; "
            "23.65 GiB total capacity; 20.10 GiB already allocated; 1.20 GiB free; 21.00 GiB reserved in total by "
            "PyTorch)\n")
    codes = rule_codes(text)
    assert codes[:1] == ["cuda_oom"] and "package_api_version_mismatch" not in codes


# texts outside the field, or with no failure: no readings of similar reports
OUTSIDE = [
    ("error[E0382]: borrow of moved value: `v`\n --> src/main.rs:5:20\n  |\n2 |     let v = vec![1, 2, 3];\n"
     "  |         - move occurs because `v` has type `Vec<i32>`, which does not implement the `Copy` trait\n"
     "3 |     let w = v;\n  |             - value moved here\n5 |     println!(\"{:?}\", v);\n"
     "  |                    ^ value borrowed here after move\n\nerror: could not compile `hello` (bin \"hello\") due "
     "to 1 previous error\n"),
    ("npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR!\nnpm ERR! While resolving: "
     "my-viewer@0.1.0\nnpm ERR! Found: react@18.2.0\nnpm ERR! node_modules/react\nnpm ERR! Could not resolve "
     "dependency:\nnpm ERR! peer react@\"^16.8.0\" from react-three-fiber@4.2.21\n"),
    ("Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" "
     "is null\n\tat com.example.mesh.Loader.parseHeader(Loader.java:42)\n\tat com.example.mesh.Loader.load("
     "Loader.java:17)\n\tat com.example.Main.main(Main.java:9)\n"),
    ("$ git pull origin main\nFrom github.com:lab/recon\n * branch            main       -> FETCH_HEAD\n"
     "fatal: refusing to merge unrelated histories\n"),
    ("Epoch 1/10  loss=0.8123  val_loss=0.7991  psnr=18.42\nEpoch 2/10  loss=0.6120  val_loss=0.6043  psnr=20.11\n"
     "Epoch 3/10  loss=0.5011  val_loss=0.5102  psnr=21.37\nSaved checkpoint to runs/exp3/ckpt_epoch3.pt\n"
     "GPU 0: NVIDIA RTX A5000, mem 11.2/24.0 GB\n"),
]


@pytest.mark.parametrize("text", OUTSIDE)
def test_a_text_outside_the_field_gets_no_guess_from_similar_reports(text):
    b = explain_result(text)
    assert not b.recognised
    assert not [f for f in b.findings if SIMILAR_REPORTS in f.sources]
