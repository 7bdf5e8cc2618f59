# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain from the user's side: texts that name an error without failing (Java's heap, a configuration comment, a
pytest run whose expected failure mentions a GPU's memory, an error caught and retried, documentation, a log that says
the rerun went well), a library's name inside another file's name, a Windows path with spaces, TensorFlow's own
'ignore this' line, and what a reader of the report must see: no cause the text does not show, no exit status 1 for a
run that ended well, commands that run on the system the text comes from."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor._report import Report


def _report(text: str) -> Report:
    res = explain_result(text, similar=False)
    return Report(res.facts, res.findings, {"recognised": res.recognised}, secrets=[])


def _codes(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings]


TORCH_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "23.64 GiB of which 1.02 GiB is free.")


# ------------------------------------------------------------------ out of memory named where no GPU ran out
@pytest.mark.parametrize("text", [
    # the JVM's message (host memory: the Java heap)
    'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
    "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3512)\n",
    "java.lang.OutOfMemoryError: GC overhead limit exceeded\n",
    # a configuration file's comment
    "# training config\nbatch_size: 64   # was 128 -> CUDA out of memory on 3090\nlr: 3e-4\nprecision: bf16\n",
    "train.batch_size = 16  # 32 gave torch.cuda.OutOfMemoryError\n",
    # pytest: a test expected to fail, in a run where nothing failed
    "tests/test_gpu.py::test_oom_handling XFAIL (CUDA out of memory expected on small GPU)\n"
    "tests/test_gpu.py::test_render PASSED\n"
    "==================== 41 passed, 1 xfailed in 12.31s ====================\n",
    # a program that caught the error and retried with less
    "[WARN] caught torch.cuda.OutOfMemoryError at batch 64, retrying with batch 32\n"
    "[INFO] batch 32 OK, epoch 1 finished, val_loss=0.21\n",
])
def test_out_of_memory_named_without_failing_is_no_gpu_oom(text):
    rep = _report(text)
    assert "cuda_oom" not in _codes(text)
    assert rep.exit_code != 1


def test_a_real_oom_is_still_read_beside_a_config_and_a_test_log():
    assert _codes(TORCH_OOM)[0] == "cuda_oom"
    assert _codes("FAILED tests/test_gpu.py::test_big - " + TORCH_OOM)[0] == "cuda_oom"
    # a configuration line without a comment that carries the error is still the error (a log line with a colon)
    assert _codes("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB")[0] == "cuda_oom"


# ------------------------------------------------------------------ a text whose last lines say the run went well
def test_a_log_quoting_an_earlier_error_then_a_good_rerun_is_no_current_failure():
    text = ("[2024-05-03 09:00] previous run failed with: RuntimeError: CUDA error: no kernel image is available for "
            "execution on the device\n"
            "[2024-05-03 09:15] reinstalled torch 2.3.1+cu121, rerun OK\n"
            "[2024-05-03 09:16] epoch 1/10 loss=0.53 -- all good\n")
    res = explain_result(text, similar=False)
    assert res.recognised and res.findings[0].code == "no_kernel_image_for_gpu"  # what it was is still explained
    assert all(f.severity == "info" for f in res.findings)
    assert any("went well" in e for e in res.findings[0].evidence)
    assert _report(text).exit_code == 0


def test_pasted_documentation_that_says_the_run_did_not_fail_is_no_failure():
    text = ("## Troubleshooting\nIf you see `CUDA out of memory`, reduce the batch size. If you see `libcudart.so.11.0: "
            "cannot open shared object file`, install the matching wheel. These are examples; your run did not fail.\n")
    res = explain_result(text, similar=False)
    assert all(f.severity == "info" for f in res.findings)
    assert _report(text).exit_code != 1


@pytest.mark.parametrize("tail", [
    "",
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: boom\n",
    "all good so far, but then:\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n",
])
def test_an_error_after_the_good_line_or_none_is_still_a_failure(tail):
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n" + tail
    assert _report(text).exit_code == 1


def test_prose_that_says_something_else_worked_is_no_good_ending():
    text = ("ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
            "deviceQuery from the CUDA samples works fine, and this script did not fail due to OOM before.\n")
    assert _report(text).exit_code == 1


# ------------------------------------------------------------------ a library's name inside another file's name
def test_a_library_name_inside_a_data_files_name_is_no_missing_library():
    text = "FileNotFoundError: [Errno 2] No such file or directory: 'data/libcudart.so.12_notes.txt'\n"
    assert not {"cudart_not_found", "prebuilt_binary_wrong_cuda", "library_not_found"} & set(_codes(text))
    assert _report(text).exit_code != 1
    # the loader's own message, with the name ending at its colon, stays the missing runtime
    real = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    assert _codes(real)[0] == "cudart_not_found"


# ------------------------------------------------------------------ a Windows path with spaces
def test_a_windows_toolkit_path_with_spaces_is_no_relative_cuda_home():
    text = ("nvcc fatal   : Cannot find compiler 'cl.exe' in PATH\n"
            "error: command 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin\\nvcc.exe' failed with "
            "exit code 1\n")
    res = explain_result(text, similar=False)
    codes = [f.code for f in res.findings]
    assert codes[0] == "windows_msvc_toolchain"
    assert "cuda_home_malformed" not in codes
    assert "Toolkit\\CUDA" not in str((res.facts.get("toolkit") or {}).get("cuda_home_malformed_value", ""))
    nvccs = (res.facts.get("toolkit") or {}).get("nvccs") or []
    assert all(str(n.get("path", "")).startswith("C:\\Program Files") for n in nvccs if n.get("path"))
    # no Linux-only command in a Windows report, neither as a fix nor as what decides between readings
    shown = "\n".join([*(c for f in res.findings for c in f.fix.commands), *(e for f in res.findings for e in f.evidence)])
    assert "apt-file" not in shown and "apt-get" not in shown


def test_an_unquoted_windows_path_with_spaces_invents_no_cuda_home():
    text = ("error: command C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin\\nvcc.exe failed with "
            "exit code 2\n")
    assert "cuda_home_malformed" not in _codes(text)


def test_a_relative_cuda_home_is_still_read():
    text = "error: command 'cuda/bin/nvcc' failed with exit code 1\n"
    codes = _codes(text)
    assert "cuda_home_malformed" in codes


# ------------------------------------------------------------------ TensorFlow's 'ignore above cudart dlerror'
TF_DLERROR = ("2024-06-01 12:00:00.1: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
              "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
              "file or directory\n")
TF_IGNORE = ("2024-06-01 12:00:00.1: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror "
             "if you do not have a GPU set up on your machine.\n")


def test_tensorflows_own_ignore_line_makes_its_dlerror_a_warning_with_that_hint():
    res = explain_result(TF_DLERROR + TF_IGNORE, similar=False)
    assert res.findings[0].code == "cudart_not_found"
    assert all(f.severity != "error" for f in res.findings)
    assert any("CPU-only" in e for e in res.findings[0].evidence)


def test_tensorflows_dlerror_followed_by_a_failure_stays_an_error():
    text = TF_DLERROR + TF_IGNORE + ("Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n"
                                     "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. "
                                     "Status: CUDA driver version is insufficient for CUDA runtime version\n")
    assert any(f.severity == "error" for f in explain_result(text, similar=False).findings)
    assert any(f.severity == "error" for f in explain_result(TF_DLERROR, similar=False).findings)


# ------------------------------------------------------------------ a user's typo: the user's code first
def test_a_registry_name_one_slip_from_a_registered_type_is_the_users_code_first():
    # mmengine/registry/build_functions.py's message, for a misspelt backbone
    text = ("KeyError: 'ResNett is not in the mmengine::model registry. Please check whether the value of `ResNett` "
            "is correct or it was registered as expected.'")
    assert _codes(text)[0] == "user_code_error"
    # a type of another release (a name no slip away from a known one) stays the release's
    other = ("KeyError: 'EncoderDecoderV2 is not in the mmengine::model registry. Please check whether the value of "
             "`EncoderDecoderV2` is correct or it was registered as expected.'")
    assert _codes(other)[0] == "package_api_version_mismatch"


@pytest.mark.parametrize("word,name,slip", [("ResNett", "ResNet", True), ("Resnet", "ResNet", True),
                                            ("ResNte", "ResNet", True), ("ResNe", "ResNet", False),
                                            ("ResNetV1c", "ResNetV1d", False), ("ResNet", "ResNet", False)])
def test_typing_slip(word, name, slip):
    from smrnb.doctor.rules._events import typing_slip

    assert typing_slip(word, name) is slip


@pytest.mark.parametrize("line", [
    "src/mesh.cpp:17:5: error: 'vertx' was not declared in this scope; did you mean 'vertex'?",
    "src/mesh.cpp:17:5: error: use of undeclared identifier 'vertx'; did you mean 'vertex'?",
])
def test_a_cpp_typo_in_the_users_extension_is_the_users_code_first(line):
    text = line + "\n   17 |     vertx.push_back(p);\n      |     ^~~~~\nninja: build stopped: subcommand failed.\n"
    assert _codes(text)[0] == "user_code_error"


def test_a_namespace_suggestion_is_not_read_as_a_typo():
    text = "ops.cpp:3:5: error: 'Tensor' was not declared in this scope; did you mean 'at::Tensor'?\n"
    assert "user_code_error" not in _codes(text)[:1]


# ------------------------------------------------------------------ commands that can run as given
def test_kaolin_missing_after_pip_offers_no_pypi_install_and_no_placeholder():
    text = ("Successfully installed kaolin-0.17.0\nNote: you may need to restart the kernel to use updated packages.\n"
            "---------------------------------------------------------------------------\n"
            "ModuleNotFoundError                       Traceback (most recent call last)\nCell In[3], line 1\n"
            "----> 1 import kaolin\nModuleNotFoundError: No module named 'kaolin'\n")
    res = explain_result(text, similar=False)
    assert res.findings[0].code == "kernel_restart_needed"
    cmds = [c for f in res.findings for c in f.fix.commands]
    assert not any(c.split("#")[0].strip() in ("%pip install kaolin", "pip install kaolin") for c in cmds)
    assert any("nvidia-kaolin" in c for c in cmds)  # kaolin's own wheel page
    assert not any("<package>" in c for c in cmds)


# ------------------------------------------------------------------ Qt without an X display
def test_qt_without_a_display_gets_the_headless_fixes():
    text = ('qt.qpa.xcb: could not connect to display\nqt.qpa.plugin: Could not load the Qt platform plugin "xcb" in "" '
            "even though it was found.\nThis application failed to start because no Qt platform plugin could be "
            "initialized. Reinstalling the application may fix this problem.\nAborted (core dumped)\n")
    f = explain_result(text, similar=False).findings[0]
    shown = f.fix.why + "\n" + "\n".join(f.fix.commands)
    assert "QT_QPA_PLATFORM=offscreen" in shown and "xvfb-run" in shown and "DISPLAY" in shown
    assert "libEGL_nvidia" not in shown and "NVIDIA_DRIVER_CAPABILITIES" not in shown


# ------------------------------------------------------------------ readings that were missing or misworded
def test_no_module_named_torch_at_run_time_is_torch_not_installed():
    text = ("Traceback (most recent call last):\n  File \"demo.py\", line 1, in <module>\n    import torch\n"
            "ModuleNotFoundError: No module named 'torch'\n")
    res = explain_result(text, similar=False)
    assert res.recognised and res.findings[0].code == "torch_not_installed"
    assert _report(text).exit_code == 1


def test_bfloat16_on_the_cpu_is_not_called_float16():
    text = "RuntimeError: \"baddbmm_with_gemm\" not implemented for 'BFloat16'"
    f = explain_result(text, similar=False).findings[0]
    assert f.code == "user_code_error"
    assert "BFloat16" in f.title or "bfloat16" in f.title
    assert "float16 tensors" not in f.title


@pytest.mark.parametrize("text", [
    "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::42] Error Code 1: Serialization (Serialization assertion "
    "stdVersionRead == kSERIALIZATION_VERSION failed.Version tag does not match. Note: Current Version: 236, "
    "Serialized Engine Version: 213)",
    "[TensorRT] ERROR: INVALID_CONFIG: The engine plan file is not compatible with this version of TensorRT, expecting "
    "library version 7.1.3 got 7.2.1, please rebuild.",
])
def test_a_tensorrt_engine_of_another_release_is_recognised(text):
    res = explain_result(text, similar=False)
    # a prebuilt binary of another release (the corpora's labels: prebuilt_binary_wrong_cuda, round 13)
    assert res.recognised and res.findings[0].code == "prebuilt_binary_wrong_cuda"
    assert "TensorRT" in res.findings[0].title
