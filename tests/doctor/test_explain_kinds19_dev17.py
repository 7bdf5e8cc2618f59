# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 19b (the kinds behind dev17's misses): Python code meeting a Jupyter kernel (argparse reading the
kernel's own '-f <connection file>', asyncio.run / run_until_complete inside the kernel's running loop, a spawned
child unpickling a function defined in __main__, ipykernel's OutStream without a file descriptor or a binary
buffer, JavaScript written for the classic Notebook's globals in JupyterLab); torch.distributed's launch errors
(the rendezvous port held by another process, env:// without the launcher's variables, torch 1.x's --local_rank
given to a torchrun script, NCCL asked of a torch build without it, a CPU-only build first unless the text is of
Windows/macOS); a CPU-only torch building a CUDA extension (cpp_extension's torch.version.cuda None, the empty
arch list); an import-time version check of transformers' require_version; DeepSpeed's config naming a scheduler
its release lacks, or rejected by its pydantic model; freeglut and pyglet without a display; a pythreejs widget
shown as its repr (no front-end extension); a pip project name one letter off a known package (a typo, not a
missing wheel); Hunyuan3D-2's custom_rasterizer as a source-built module. Each text is written for the test (other
wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import _prepared, explain_result
from smrnb.doctor._textfacts import read_text

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # (round 25: code of a script meeting a kernel's process has a code of its own, script_code_in_kernel; it was
    # user_code_error)
    # argparse of a script run in a Jupyter kernel (VS Code's --f= form, Colab's launcher, a required argument)
    ("usage: ipykernel_launcher.py [-h] [--epochs EPOCHS]\nipykernel_launcher.py: error: unrecognized arguments: "
     "--f=/home/me/.local/share/jupyter/runtime/kernel-v2-3103abc.json\n", ["script_code_in_kernel"]),
    ("colab_kernel_launcher.py: error: the following arguments are required: --data_root\n", ["script_code_in_kernel"]),
    ("SystemExit: 2\nerror: unrecognized arguments: -f /run/user/1000/jupyter/kernel-4f2a-11.json\n",
     ["script_code_in_kernel"]),
    # asyncio in the kernel's running loop: the calling code's asyncio.run first, a library's run_until_complete first
    ("  File \"/tmp/ipykernel_311/2231.py\", line 9, in <module>\n    asyncio.run(fetch_all(urls))\nRuntimeError: "
     "asyncio.run() cannot be called from a running event loop\n", ["script_code_in_kernel", "library_bug"]),
    ("  File \"/opt/conda/lib/python3.11/asyncio/base_events.py\", line 630, in run_until_complete\n    "
     "self._check_running()\nRuntimeError: This event loop is already running\n", ["library_bug", "script_code_in_kernel"]),
    # a spawned worker (DataLoader on macOS, multiprocessing.Pool on Windows) unpickling a function of __main__
    ("Process SpawnProcess-1:\nTraceback (most recent call last):\nAttributeError: Can't get attribute 'collate_fn' "
     "on <module '__main__' (built-in)>\n", ["script_code_in_kernel"]),
    # ipykernel's OutStream: no binary buffer, no file descriptor
    ("    sys.stdout.buffer.write(data)\nAttributeError: 'OutStream' object has no attribute 'buffer'\n",
     ["library_bug", "script_code_in_kernel"]),
    ("    faulthandler.enable()\nio.UnsupportedOperation: fileno\n", ["library_bug", "script_code_in_kernel"]),
    # torch.distributed: the rendezvous port held by another job (torch 2.x's TCPStore, 1.x's bare message, Windows);
    # round 25: a code of its own, port_in_use (was user_code_error)
    ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: "
     "29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n", ["port_in_use"]),
    ("OSError: [Errno 98] Address already in use\n", ["port_in_use"]),
    ("OSError: [WinError 10048] Only one usage of each socket address (protocol/network address/port) is normally "
     "permitted\n", ["port_in_use"]),
    # env:// rendezvous without the launcher's variables
    ("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR "
     "expected, but not set\n", ["user_code_error"]),
    # torch 1.x's launcher passing --local_rank to a script written for torchrun
    ("train_ddp.py: error: unrecognized arguments: --local_rank=3\n", ["user_code_error", "package_api_version_mismatch"]),
    # NCCL asked of a build without it: the CPU build first; on Windows the backend choice first
    ("    dist.init_process_group(backend='nccl')\nRuntimeError: Distributed package doesn't have NCCL built in\n",
     ["cpu_only_torch_with_gpu", "user_code_error"]),
    ("  File \"C:\\Users\\me\\anaconda3\\envs\\det\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py\", line "
     "602, in init_process_group\nRuntimeError: Distributed package doesn't have NCCL built in\n",
     ["user_code_error"]),  # (round 27e, blind audit 27) no Windows torch has NCCL: no CPU-only reading there
    # a CPU-only torch building a CUDA extension: torch.version.cuda None, or no GPU counted for the arch list
    ("  File \"/usr/lib/python3/dist-packages/torch/utils/cpp_extension.py\", line 404, in _check_cuda_version\n    "
     "torch_cuda_version = packaging.version.parse(torch.version.cuda)\n  File \"/usr/lib/python3/dist-packages/"
     "packaging/version.py\", line 49, in parse\n    return Version(version)\nTypeError: expected string or "
     "bytes-like object\n", ["cpu_only_torch_with_gpu"]),
    ("  ERROR: Failed building wheel for simple_knn: TypeError: expected string or bytes-like object\n",
     ["cpu_only_torch_with_gpu"]),
    ("building 'pointnet2._ext' extension | arch_list[-1] += '+PTX' | IndexError: list index out of range\n",
     ["gpu_not_exposed_to_process", "cpu_only_torch_with_gpu"]),
    # transformers' require_version at import
    ("ImportError: accelerate>=0.26.0 is required for a normal functioning of this module, but found "
     "accelerate==0.21.0.\nTo fix: run `pip install accelerate>=0.26.0`.\n", ["package_api_version_mismatch"]),
    # DeepSpeed: a scheduler its release lacks; its pydantic config model rejecting a value
    ("AssertionError: DeepSpeed does not recognize LR scheduler OneCycleLR\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("pydantic.error_wrappers.ValidationError: 2 validation errors for DeepSpeedZeroConfig\nstage3_max_live_parameters"
     "\n  value is not a valid integer (type=type_error.integer)\n", ["package_api_version_mismatch", "library_bug"]),
    # JavaScript of the classic Notebook in JupyterLab
    ("Javascript Error: IPython is not defined\n", ["user_code_error"]),
    ("Uncaught ReferenceError: Jupyter is not defined\n", ["user_code_error"]),
    # no display for freeglut / pyglet
    ("freeglut (python3): failed to open display ':1'\n", ["opengl_egl_unavailable"]),
    ("pyglet.display.xlib.NoSuchDisplayException: Cannot connect to \"localhost:10.0\"\n", ["opengl_egl_unavailable"]),
    # a pythreejs widget printed as its repr
    ("Preview(child=Mesh(geometry=BufferGeometry(attributes={'position': <BufferAttribute shape=(8, 3), "
     "dtype=float32>}), material=MeshStandardMaterial()), fov=30.0, height=400, width=600)\n",
     ["threejs_extension_missing"]),
    # a project name one letter off a known package: a typo in the install command
    ("ERROR: Could not find a version that satisfies the requirement accelerat (from versions: none)\n"
     "ERROR: No matching distribution found for accelerat\n", ["user_code_error", "package_no_build_for_platform"]),
    ("ERROR: Could not find a version that satisfies the requirement xformer==0.0.23 (from versions: none)\n",
     ["user_code_error", "package_no_build_for_platform"]),
    # NVlabs' custom_ops plugin (StyleGAN3, EG3D, GET3D) failing its JIT build
    ("Setting up PyTorch plugin \"filtered_lrelu_plugin\"... Failed!\n",
     ["extension_not_compiled", "extension_build_failed"]),
    # Hunyuan3D-2's rasterizer: built from its folder only
    ("    from custom_rasterizer import rasterize\nModuleNotFoundError: No module named 'custom_rasterizer'\n",
     ["extension_not_compiled"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # a running loop told of in a log line that is no error of asyncio's
    ("INFO: event loop is running, 3 tasks pending\n", "library_bug"),
    # pickling a lambda (not a __main__ lookup in a spawned child) keeps what it had: no new reading for it here
    ("AttributeError: Can't get attribute 'Net' on <module 'models' from '/src/models/__init__.py'>\n",
     "user_code_error"),
    # the rendezvous failing to connect (not to bind): the network, not a port in use
    ("torch.distributed.DistNetworkError: The client socket has timed out after 1800s while trying to connect to "
     "(10.0.0.2, 29500).\n", "user_code_error"),
    # Gloo missing is not NCCL missing: no CPU-only reading
    ("RuntimeError: Distributed package doesn't have Gloo built in\n", "cpu_only_torch_with_gpu"),
    # a TypeError of a build that is not torch's version check
    ("  File \"setup.py\", line 12, in <module>\n    version=open(VERSION_FILE).read()\nTypeError: expected str, bytes "
     "or os.PathLike object, not NoneType\n", "cpu_only_torch_with_gpu"),
    # require_version's requirement satisfied elsewhere in a log line (no 'but found')
    ("accelerate>=0.26.0 is required for a normal functioning of this module\n", "package_api_version_mismatch"),
    # DeepSpeed's own config of another project (not a DeepSpeed model) failing validation
    ("pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainingArguments\n",
     "package_api_version_mismatch"),
    # a JavaScript error of the page's own code (not the classic Notebook's globals)
    ("Javascript Error: Cannot read properties of undefined (reading 'length')\n", "user_code_error"),
    # glut functions missing (no library) stay library_not_found, not the display
    ("OpenGL.error.NullFunctionError: Attempt to call an undefined function glutInit, check for bool(glutInit) before "
     "calling\n", "opengl_egl_unavailable"),
    # a package that exists but has no wheel here: not a typo
    ("ERROR: Could not find a version that satisfies the requirement open3d==0.18.0 (from versions: none)\n",
     "user_code_error"),
    ("ERROR: Could not find a version that satisfies the requirement bitsandbytes==0.45.0 (from versions: 0.41.1, "
     "0.42.0)\n", "user_code_error"),
    # the plugin built and loaded
    ("Setting up PyTorch plugin \"upfirdn2d_plugin\"... Done.\n", "extension_build_failed"),
    # a short name one letter off another short one: too close to call a typo
    ("ERROR: Could not find a version that satisfies the requirement trimeshh (from versions: none)\n",
     "kernel_wrong_python"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


def test_typo_finding_names_the_package_meant():
    f = explain_result("ERROR: Could not find a version that satisfies the requirement bitsandbyte (from versions: "
                       "none)\n", similar=False).findings[0]
    assert f.code == "user_code_error" and "bitsandbytes" in f.title
    assert any(c.startswith("pip install bitsandbytes") for c in f.fix.commands)


def test_a_port_held_gives_the_launchers_own_port_option():  # round 25: port_in_use, no longer user_code_error
    f = explain_result("RuntimeError: Address already in use\n", similar=False).findings[0]
    assert f.code == "port_in_use" and not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)


@pytest.mark.parametrize(("text", "word"), [
    ("ipykernel_launcher.py: error: unrecognized arguments: -f /x/kernel-1.json\n", "parse_args([])"),
    ("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, "
     "but not set\n", "torchrun"),
])
def test_launch_and_kernel_findings_give_their_own_commands(text, word):
    f = explain_result(text, similar=False).findings[0]
    assert f.code in ("user_code_error", "script_code_in_kernel")  # round 25: the kernel's argv, script_code_in_kernel
    assert any(word in c for c in f.fix.commands) and not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)


_NEW_ROWS = ("jupyter_kernel_argv_argparse", "asyncio_run_in_running_loop", "asyncio_loop_already_running",
             "pickle_main_attribute_spawn", "ipykernel_outstream_no_fd", "address_already_in_use",
             "torch_env_rendezvous_unset", "torch_distributed_no_nccl", "hf_require_version",
             "deepspeed_unknown_scheduler", "deepspeed_config_validation", "jupyterlab_classic_notebook_js",
             "freeglut_no_display", "pyglet_no_display", "torch_launch_local_rank_underscore", "pythreejs_widget_repr",
             "stylegan_custom_ops_failed")


@pytest.mark.parametrize("key", _NEW_ROWS)
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


# an interactive session's answer to torch.version.cuda (the prompt stripped as explain prepares the text) is torch's
# CUDA build: a GPU and a torch release without a local version tag is then no CPU-only torch
def test_repl_answer_of_torch_version_cuda_is_read():
    text = (">>> print(torch.__version__)\n1.9.0\n>>> print(torch.cuda.get_device_name(0))\nNVIDIA GeForce RTX 3060\n"
            ">>> print(torch.version.cuda)\n11.1\n>>> x = torch.ones(2).cuda()\nRuntimeError: CUDA error: unknown error\n")
    assert "cpu_only_torch_with_gpu" not in rule_codes(text, n=3)
    assert read_text(_prepared(text))["torch"]["cuda"] == "11.1"
    # a release on the line after another question, or a question with more on its line, is no answer of it
    assert "cuda" not in read_text("print(torch.__version__)\n11.1\n").get("torch", {})
    assert "cuda" not in read_text("print(torch.version.cuda, torch.__version__)\n11.1\n").get("torch", {})


def test_an_argparse_refusal_in_a_terminal_is_not_the_kernels():
    # argparse rejecting an argument of the user's own command line in a terminal: not the kernel's row (round 25a's
    # argparse row reads the command line as the user's, user_code_error, on purpose: so the row, not the code)
    from smrnb.doctor._explain import explain_text

    fs = explain_text("train.py: error: unrecognized arguments: --lr0 0.01\n", None, similar=False)
    assert not any("kernel" in f.title.lower() or "jupyter" in f.title.lower() for f in fs), [f.title for f in fs]
