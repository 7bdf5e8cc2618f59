# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Kinds of error text explain reads as facts: each family is tested from the tools' own messages (NCCL's
socket and InfiniBand warnings, IPython's and Colab's restart notes, triton's compiler lookup, the loader's
forms, NVML's strings, torch's checks), written here for the tests, and through the live probes where the
same fact can be probed on the machine.
"""

from __future__ import annotations

import types

import pytest

from smrnb.doctor._codes import CODES
from smrnb.doctor._explain import explain_result, explain_text
from smrnb.doctor._paste import decode
from smrnb.doctor.probes import _context as context_probe
from smrnb.doctor.probes import _jupyter as jupyter_probe
from smrnb.doctor.rules import evaluate
from tests.doctor._rules import rule_codes as _codes


# ------------------------------------------------------------------ NCCL's network transport
@pytest.mark.parametrize("text", [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
    "remote process exited or there was a network error, NCCL version 2.19.3\nncclRemoteError: A call failed possibly "
    "due to a network error or a remote process exiting prematurely.",
    "node01:1234:1290 [0] misc/socket.cc:538 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<41745> failed : "
    "Connection reset by peer",
    "node03:77:91 [2] NCCL WARN NET/IB : Got completion from peer 10.1.1.3<53002> with error 12, opcode 0, len 0, "
    "vendor err 129",
    "gpu7:55:55 [0] bootstrap.cc:44 NCCL WARN Bootstrap : no socket interface found\n"
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, internal error, NCCL version 2.18.1",
    "NCCL WARN socketStartConnect: Connect to 192.168.1.7<36061> failed : Connection refused",
    "NCCL WARN socketProgress: Connection closed by remote peer node02<52418>",
])
def test_nccl_network_failures_are_the_network_between_the_nodes(text):
    assert _codes(text, n=1) == ["nccl_network_unreachable"], _codes(text, n=3)


def test_nccl_shared_memory_stays_shared_memory():
    text = "include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-1 (size 9637888)"
    assert _codes(text, n=1) == ["container_shm_too_small"]


def test_nccl_socket_ifname_is_checked_against_the_nodes_interfaces(tmp_path):
    net = tmp_path / "net"
    for name in ("lo", "eth0", "ib0", "docker0"):
        (net / name).mkdir(parents=True)
    probe = context_probe.nccl_socket_ifname
    assert probe("ens1f0", str(net))["matches"] == []
    assert probe("eth", str(net))["matches"] == ["eth0"]
    assert probe("=eth0,ib0", str(net))["matches"] == ["eth0", "ib0"]
    assert probe("=eth", str(net))["matches"] == []  # '=' is an exact name
    assert probe("^docker,lo", str(net))["matches"] == ["eth0", "ib0"]
    assert probe(None, str(net)) is None and probe("eth0", str(tmp_path / "absent")) is None
    bad = {"context": {"status": "ok", "nccl_socket_ifname": probe("ens1f0", str(net))}}
    f = next(f for f in evaluate(bad) if f.code == "nccl_network_unreachable")
    assert f.severity == "error" and "ens1f0" in f.title
    assert any("NCCL_SOCKET_IFNAME=eth0" in c for c in f.fix.commands)
    good = {"context": {"status": "ok", "nccl_socket_ifname": probe("eth", str(net))}}
    assert not [f for f in evaluate(good) if f.code == "nccl_network_unreachable"]


# ------------------------------------------------------------------ a kernel that started before the install
@pytest.mark.parametrize("text", [
    "%pip install -U transformers\nSuccessfully installed transformers-4.40.0\n"
    "Note: you may need to restart the kernel to use updated packages.\n"
    "ImportError: cannot import name 'LlamaForCausalLM' from 'transformers'",
    "!pip install seaborn\nWARNING: The following packages were previously imported in this runtime:\n  [seaborn]\n"
    "You must restart the runtime in order to use newly installed versions.\nAttributeError: module 'seaborn' has no "
    "attribute 'objects'",
    "ModuleNotFoundError: No module named 'open3d'\nI installed it with pip in a terminal while the notebook was "
    "running; python in the terminal imports it",
    "In the notebook: ModuleNotFoundError: No module named 'trimesh'. The terminal and the notebook use the same "
    "environment and the terminal imports it.",
])
def test_a_kernel_not_restarted_since_the_install_needs_a_restart_first(text):
    codes = _codes(text)
    assert codes[0] == "kernel_restart_needed", codes


def test_a_kernel_of_another_python_stays_another_python():
    text = "ModuleNotFoundError: No module named 'open3d' in the notebook, works in the terminal"
    assert _codes(text, n=1) == ["kernel_wrong_python"]


def test_modules_imported_before_an_upgrade_are_found_live():
    mods = {"numpy": types.SimpleNamespace(__version__="1.26.4"), "torch": types.SimpleNamespace(__version__="2.3.0+cu121"),
            "json": types.SimpleNamespace(__version__="2.0.9"), "mylocal": types.SimpleNamespace(__version__="0.1"),
            "numpy.linalg": types.SimpleNamespace(__version__="9")}
    installed = {"numpy": "2.1.0", "torch": "2.3.0+cu121", "json": "9.9"}

    def version_of(name):
        if name not in installed:
            raise LookupError(name)
        return installed[name]

    stale = jupyter_probe.stale_modules(mods, version_of)
    assert stale == [{"module": "numpy", "imported": "1.26.4", "installed": "2.1.0"}]
    f = next(f for f in evaluate({"jupyter": {"status": "ok", "stale_modules": stale}}) if f.code == "kernel_restart_needed")
    assert f.severity == "warning" and "numpy 1.26.4" in " ".join(f.evidence)
    assert f.fix.why.startswith(CODES["kernel_restart_needed"].fix)
    assert not [f for f in evaluate({"jupyter": {"status": "ok", "stale_modules": []}}) if f.code == "kernel_restart_needed"]


def test_new_codes_have_their_table_entries():
    for code in ("kernel_restart_needed", "nccl_network_unreachable"):
        e = CODES[code]
        assert e.fix and e.told_from and e.check and e.source and "text" in e.homes
        assert explain_result("").recognised is False


# ------------------------------------------------------------------ bytes of any encoding a saved log has
def test_bytes_are_decoded_by_mark_then_utf16_then_utf8_then_cp1252():
    text = "nvcc fatal   : Unsupported gpu architecture \u2018compute_90\u2019 \u2014 caf\u00e9"
    for enc in ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "cp1252"):
        got, how = decode(text.encode(enc))
        assert got.lstrip("\ufeff") == text, (enc, got, how)
    assert decode(text.encode("cp1252"))[1] == "cp1252" and decode(text.encode("utf-8"))[1] == "utf-8"
    # cp1252's five undefined bytes read as Latin-1's, every other byte as cp1252's: nothing lost, nothing raised
    high, how = decode(bytes(range(128, 256)))
    assert how == "cp1252" and len(high) == 128 and "\ufffd" not in high and high[1] == "\x81" and high[0] == "\u20ac"
    assert _codes(text.encode("cp1252"), n=1) == ["unsupported_gpu_arch"]


# ------------------------------------------------------------------ messages of the tools, by kind
@pytest.mark.parametrize(("text", "code"), [
    # triton compiles its launcher at run time and needs a C compiler (runtime/build.py)
    ("RuntimeError: Failed to find C compiler. Please specify via CC environment variable.", "build_dependency_missing"),
    ("RuntimeError: Failed to find C compiler. Please specify via CC environment variable or set "
     "triton.knobs.build.impl.", "build_dependency_missing"),
    # cudarc (Rust) dlopens the CUDA libraries by their plain names
    ("thread 'main' panicked at src/driver/sys/mod.rs:61:9:\nUnable to find cuda lib under the names "
     "[\"cuda\", \"nvcuda\"]. Please open GitHub issue.", "library_not_found"),
    ('Unable to dynamically load the "nvrtc" shared library - searched for library names: ["nvrtc", "nvrtc64"]. '
     "Ensure that `LD_LIBRARY_PATH` has the correct path to the installed library.", "library_not_found"),
    # onnxruntime's provider list of a CPU build
    (">>> onnxruntime.get_available_providers()\n['AzureExecutionProvider', 'CPUExecutionProvider']\n"
     "GPU: NVIDIA GeForce RTX 3080", "cpu_only_torch_with_gpu"),
    # torch's own shape and usage checks: the user's code, not the environment
    ("RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[8, 1, 224, 224] to have 3 channels, "
     "but got 1 channels instead", "user_code_error"),
    ("RuntimeError: Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be "
     "greater than actual input size", "user_code_error"),
    ("RuntimeError: shape '[-1, 400]' is invalid for input of size 1024", "user_code_error"),
    ("ValueError: Expected input batch_size (32) to match target batch_size (64).", "user_code_error"),
    ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
     "have already been freed).", "user_code_error"),
    # torch's cudaGetDeviceCount check for every error but 'no device' and 'insufficient driver'
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non "
     "supported HW", "forward_compat_unsupported"),
    # Windows: the DLL was found and its initialisation failed (ERROR_DLL_INIT_FAILED)
    ('OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading '
     '"C:\\env\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.', "library_bug"),
])
def test_the_tools_own_messages_are_their_causes(text, code):
    assert code in _codes(text), (code, _codes(text, n=3))


def test_a_device_count_error_without_its_number_gives_the_readings_torch_leaves():
    codes = _codes("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
                   "calling NumCudaDevices() that might have already set an error? Error occurred", n=3)
    assert codes[:2] == ["forward_compat_unsupported", "driver_broken"], codes


def test_triton_without_a_compiler_on_windows_is_the_msvc_toolchain():
    text = ("C:\\Users\\me\\venv\\Lib\\site-packages\\triton\\runtime\\build.py\nRuntimeError: Failed to find C "
            "compiler. Please specify via CC environment variable.")
    assert _codes(text, n=1) == ["windows_msvc_toolchain"], _codes(text, n=3)


def test_a_dll_whose_initialisation_failed_is_not_missing():
    text = ('OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading '
            '"C:\\env\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.')
    assert "library_not_found" not in _codes(text, n=3)
    assert "library_not_found" in _codes(text.replace("[WinError 1114] A dynamic link library (DLL) initialization "
                                                      "routine failed", "[WinError 126] The specified module could "
                                                      "not be found"), n=3)


# ------------------------------------------------------------------ enumerations' messages in their other forms
@pytest.mark.parametrize(("text", "code"), [
    # NVML's strings (nvmlErrorString) beside an NVML word
    ("pynvml.NVMLError_NoPermission: Insufficient Permissions", "gpu_device_permission_denied"),
    ("nvml init failed: Insufficient Permissions", "gpu_device_permission_denied"),
    # the runtime's message in another release's wording
    ("RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable", "gpu_busy_exclusive"),
    ('I get the error "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable".',
     "gpu_busy_exclusive"),
])
def test_enumerations_are_read_by_their_messages_in_every_form(text, code):
    assert _codes(text, n=1) == [code], _codes(text, n=3)


def test_a_reworded_message_needs_every_word_of_one_row():
    from smrnb.doctor._textfacts import _reworded

    assert _reworded("all CUDA-capable devices are busy or unavailable").name == "cudaErrorDevicesUnavailable"
    assert _reworded("the device is busy") is None and _reworded("something else entirely happened") is None


# ------------------------------------------------------------------ the loader's forms
@pytest.mark.parametrize(("text", "code"), [
    # the version line with "not found" cut off still names the version and who required it
    ("./tool: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' (required by ./tool)", "symbol_version_missing"),
    ("/usr/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' (required by /opt/app/lib/libfoo.so)", "libstdcxx_too_old"),
    # glibc's own translations of the loader's messages (its message catalogs)
    ("error: libfoo.so: 无法启用共享目标需要的可执行栈: 无效的参数", "loader_security_policy"),
    ("libfoo.so: Kann den Stack nicht ausführbar machen wie vom Shared Object verlangt: Das Argument ist ungültig",
     "loader_security_policy"),
    ("ImportError: libjemalloc.so.2: 无法在静态 TLS 块中分配内存", "static_tls_exhausted"),
    ("ImportError: libcudart.so.11.0: 无法打开共享对象文件: 没有那个文件或目录", "cudart_not_found"),
    ("ImportError: libcudart.so.11.0: невозможно открыть разделяемый объектный файл: Нет такого файла или каталога",
     "cudart_not_found"),
    # the unversioned driver library is the development link a program dlopens by that name
    ("RuntimeError: Failed to dlopen libcuda.so", "library_not_found"),
])
def test_the_loaders_forms_are_read(text, code):
    assert code in _codes(text), (code, _codes(text, n=3))


def test_the_translations_come_from_glibcs_catalogs():
    from smrnb.doctor import tables

    pairs = dict(tables.loader_translations())
    assert pairs["无法打开共享对象文件"] == "cannot open shared object file"
    assert pairs["Datei oder Verzeichnis nicht gefunden"] == "No such file or directory"
    rows = tables.rows("loader_translations")
    assert {r["lang"] for r in rows} >= {"zh_CN", "ja", "ru", "de", "fr", "es"}
    assert all(r["source"] and r["verified"] == "yes" for r in rows)


def test_the_unversioned_libcuda_in_a_container_is_the_gpu_not_given():
    text = "docker run -it my/image python app.py\nRuntimeError: Failed to dlopen libcuda.so"
    assert _codes(text, n=1) == ["gpu_not_exposed_to_process"]


@pytest.mark.parametrize(("torch", "first"), [(None, "torch_libs_not_loaded"), ("1.4.0", "abi_torch_version_mismatch"),
                                              ("2.1.0", "torch_libs_not_loaded")])
def test_a_torch_library_that_exists_since_1_5_is_decided_by_the_torch_release(torch, first):
    text = "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory"
    if torch:
        text = f"torch=={torch}\n" + text
    codes = _codes(text, n=2)
    assert codes[0] == first, codes
    if torch is None:
        assert codes == ["torch_libs_not_loaded", "abi_torch_version_mismatch"]


# ------------------------------------------------------------------ builds
def test_a_cuda_function_the_linker_cannot_find_is_another_toolkits_library():
    text = ("/usr/bin/ld: sample.o: in function `main':\nsample.cu:(.text+0x1a4): undefined reference to "
            "`cusparseDenseToSparse_bufferSize'\ncollect2: error: ld returned 1 exit status")
    assert _codes(text) == ["multiple_cuda_toolkits", "library_shadowed_older_copy"]
    # a CUDA function named undefined in prose reads the same
    assert "multiple_cuda_toolkits" in _codes("the reference to cublasLtMatmulAlgoGetHeuristic is undefined at link time")


def test_a_cuda_header_without_a_toolkit_on_the_command_line_may_be_no_toolkit_at_all():
    bare = "binding.cpp:4:10: fatal error: cuda_runtime_api.h: No such file or directory"
    assert _codes(bare) == ["cuda_home_incomplete", "cuda_home_missing"]
    shown = ("gcc -I/usr/local/cuda-11.8/include -c binding.cpp\n" + bare)
    assert _codes(shown) == ["cuda_home_incomplete", "build_dependency_missing"]


def test_pip_failing_to_build_a_cuda_extension_is_a_build_failure():
    text = "pip install flash-attn --no-build-isolation\n...\nERROR: Failed building wheel for flash-attn"
    assert _codes(text, n=1) == ["extension_build_failed"]
    assert explain_result("ERROR: Failed building wheel for pyyaml-include").recognised is False


# ------------------------------------------------------------------ GPUs counted, said absent, of another vendor
@pytest.mark.parametrize("text", [
    "docker run -p 8080:8080 my/image\nNumber of GPUs: 0\nNumber of CPUs: 8",
    "docker compose up\nINFO: found 0 GPUs",
    "[container] GPU count: 0",
])
def test_a_gpu_count_of_zero_in_a_container_is_the_gpu_not_given(text):
    assert _codes(text, n=1) == ["gpu_not_exposed_to_process"], _codes(text, n=3)


def test_no_gpus_available_in_words_on_a_machine_with_an_nvidia_gpu():
    codes = _codes("RuntimeError: there are no CUDA GPUs available, though the machine has an RTX 3060", n=2)
    assert codes and codes[0] in ("gpu_not_exposed_to_process", "driver_broken") and "no_gpu" not in codes


@pytest.mark.parametrize("gpu", ["an integrated Intel Iris Xe graphics", "Intel UHD Graphics 620 only",
                                 "an AMD Radeon RX 6600", "a MacBook with Apple M2"])
def test_a_machine_whose_gpu_is_another_vendors_has_no_cuda_device(gpu):
    text = f"CUDA driver version is insufficient for CUDA runtime version\nMy laptop has {gpu}."
    assert _codes(text, n=1) == ["no_gpu"], _codes(text, n=3)
    # with an NVIDIA GPU named too, the runtime's own words decide
    assert _codes(text + " and an RTX 3050", n=1) == ["driver_too_old"]


@pytest.mark.parametrize(("text", "code"), [
    # DeepSpeed's op builder (op_builder/builder.py)
    ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 11.8 does "
     "not match the version torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda "
     "version.", "nvcc_torch_cuda_mismatch"),
    ("deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)",
     "cuda_home_missing"),
    # a package built against another release of one it depends on
    ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.0 as it may crash.",
     "package_api_version_mismatch"),
    ("RuntimeError: jaxlib is version 0.4.7, but this version of jax requires version >= 0.4.14.",
     "package_api_version_mismatch"),
    # setuptools' spawn: a build command failed, or the compiler it runs is not installed
    ("error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1", "extension_build_failed"),
    ("error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory", "build_dependency_missing"),
    # the compiler's line with its 'fatal error:' prefix cut off
    ("cuda_runtime_api.h: No such file or directory", "cuda_home_incomplete"),
])
def test_more_tools_messages(text, code):
    assert code in _codes(text), (code, _codes(text, n=3))


def test_deepspeeds_accepted_minor_mismatch_is_not_an_error():
    text = ("Installed CUDA version 12.6 does not match the version torch was compiled with 12.4 but since the APIs are "
            "compatible, accepting this combination")
    assert explain_result(text).recognised is False


def test_the_same_environment_outside_a_notebook_is_no_kernel_restart():
    text = ("ModuleNotFoundError: No module named 'open3d'\nRequirement already satisfied: open3d in ./venv/lib/python3.10 "
            "(0.18.0)\nthe script and pip use the same environment")
    assert "kernel_restart_needed" not in _codes(text, n=3)


def test_the_library_the_loader_names_is_the_missing_one():
    text = ("Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so: cannot open shared object file: No such "
            "file or directory")
    missing = [e["library"] for e in explain_result(text).facts["loader"]["events"] if e["kind"] == "library_missing"]
    assert missing == ["libcuda.so"]


def test_the_drivers_library_in_wsl_is_a_directory_not_searched():
    text = "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n(Ubuntu 22.04 on WSL2)"
    assert _codes(text, n=1) == ["library_not_found"]
    assert _codes("OSError: libcuda.so.1: cannot open shared object file: No such file or directory", n=1) == [
        "gpu_not_exposed_to_process"]


def test_the_apple_gpus_memory_running_out_is_out_of_memory():
    assert _codes("RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.20 GB, max "
                  "allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool.", n=1) == ["cuda_oom"]


# ------------------------------------------------------------------ cuDNN's own loader of its sub-libraries
@pytest.mark.parametrize("text", [
    "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
    "Please make sure cudnn_cnn_infer64_8.dll is in your library path!",
    "Could not locate cudnn_graph64_9.dll. Please make sure it is in your library path!\n"
    "Invalid handle. Cannot load symbol cudnnCreate",
    "Could not locate cudnn_adv64_9.dll. Please make sure it is in your library path!",
])
def test_cudnns_sub_library_not_found_is_a_cuda_library_missing(text):
    res = explain_result(text)
    missing = [e for e in res.facts["loader"]["events"] if e["kind"] == "library_missing"]
    assert missing and all(e["family"] == "cudnn" for e in missing)
    assert _codes(text, n=1) == ["cudart_not_found"]


# ------------------------------------------------------------------ a library's CUDA part failing, no file named
def test_nccls_unhandled_cuda_error_in_torchs_process_group_is_that_nccls_release():
    # (round 31c) torch's own process group runs the NCCL its wheel pins, built for torch's CUDA
    text = ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled cuda "
            "error, NCCL version 2.14.3")
    assert _codes(text) == ["library_bug", "driver_too_old"]
    assert "NCCL" in explain_text(text)[0].title


@pytest.mark.parametrize("text", [
    "NCCL failure common.cu:393 'unhandled cuda error'",
    "tensorflow.python.framework.errors_impl.UnknownError: ncclCommInitRank failed: unhandled cuda error",
])
def test_nccls_unhandled_cuda_error_is_a_cuda_build_or_driver(text):
    assert _codes(text) == ["prebuilt_binary_wrong_cuda", "driver_too_old"]
    assert "NCCL" in explain_text(text)[0].title


@pytest.mark.parametrize("text", [
    "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors "
    "above for more details.",
    "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:445 Loaded runtime CuDNN library: 8.5.0 but source was "
    "compiled with: 8.6.0.\nXlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.",
])
def test_xlas_dnn_initialization_is_an_older_cudnn_or_the_driver(text):
    assert _codes(text) == ["library_shadowed_older_copy", "driver_too_old"]


def test_onnxruntimes_cuda_provider_not_created_is_its_cuda_libraries():
    text = ("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 CreateExecutionProviderInstance] Failed to create "
            "CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/execution-providers/CUDA-Execution"
            "Provider.html#requirements to ensure all dependencies are met.")
    assert _codes(text) == ["cudart_not_found", "prebuilt_binary_wrong_cuda"]


# ------------------------------------------------------------------ the runtime's and the kernel driver's own words
def test_tensorflows_status_after_implicit_initialisation_is_the_runtimes_error():
    text = ("tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 "
            "failed. Status: all CUDA-capable devices are busy or unavailable")
    assert "gpu_busy_exclusive" in _codes(text)


def test_a_long_runtime_message_quoted_without_its_plural_s():
    text = "RuntimeError: peer access is not supported between these two device"
    assert _codes(text, n=1) == ["gpu_p2p_unsupported"]


@pytest.mark.parametrize("text", [
    "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "kernel: NVRM: GPU at PCI:0000:3b:00: GPU-5c1e\nkernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1532, GPU has fallen "
    "off the bus.",
])
def test_the_kernel_drivers_xid_79_is_the_hardware(text):
    assert _codes(text, n=1) == ["gpu_hardware_fault"]


def test_torchs_device_check_quoted_in_lower_case():
    assert _codes("got: expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
                  "cpu!", n=1) == ["user_code_error"]


# ------------------------------------------------------------------ the loader's ELF class, extensions' own checks
@pytest.mark.parametrize("text", [
    "ImportError: /home/pi/env/lib/python3.9/site-packages/pkg/_native.so: wrong ELF class: ELFCLASS64",
    "OSError: libfoo.so: wrong ELF class: ELFCLASS 32",
    "pip install fails on the board with an ELF class error from the bundled shared library",
])
def test_the_elf_class_is_the_binarys_architecture(text):
    assert _codes(text, n=1) == ["wrong_architecture_binary"]


def test_an_older_flash_attention_minimum_is_the_toolkit_below_it():
    text = ("RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a "
            "supported version by running nvcc -V.")
    assert "toolkit_below_extension_minimum" in _codes(text)


def test_xformers_without_its_cuda_build_is_a_wheel_for_another_torch():
    text = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support\n"
            "    operator wasn't built - see `python -m xformers.info` for more info")
    assert _codes(text) == ["companion_built_for_other_torch", "extension_not_compiled"]


# ------------------------------------------------------------------ facts read in other forms
@pytest.mark.parametrize("header", ["vector_types.h", "cuda_runtime.h", "driver_types.h"])
def test_the_edg_front_ends_missing_header_is_a_cuda_header(header):
    text = (f'/tmp/kern.cu(12): catastrophic error: cannot open source file "{header}"\n'
            "1 catastrophic error detected in the compilation of \"/tmp/kern.cu\".\nCompilation terminated.")
    ev = [e for e in explain_result(text).facts["toolkit"]["events"] if e["kind"] == "header_missing"]
    assert [e["header"] for e in ev] == [header]
    assert _codes(text, n=1) == ["cuda_home_incomplete"]


def test_the_stub_libcuda_answering_is_the_stub_loaded():
    text = "AttributeError: /opt/cuda-12.4/lib64/stubs/libcuda.so: undefined symbol: cuDeviceGetUuid_v2"
    assert _codes(text, n=1) == ["cuda_stub_driver_loaded"]


@pytest.mark.parametrize("text", [
    "-- Found CUDA_CUDA_LIBRARY=/usr/local/cuda/lib64/stubs/libcuda.so: cannot be used at run time",
    "g++ -shared a.o -L/usr/local/cuda/lib64/stubs -lcuda -o a.so",
])
def test_a_build_linking_the_stub_is_not_the_stub_loaded(text):
    assert "cuda_stub_driver_loaded" not in _codes(text, n=3)


def test_a_submission_refused_over_its_gpu_option():
    text = "sbatch: error: --gres=gpu is not accepted on this cluster, request GPUs with --gpus\n"
    assert _codes(text, n=1) == ["slurm_gpu_request_rejected"]


def test_a_cuda_library_of_another_major_than_the_cuda_the_text_names():
    text = "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory\nCUDA 11.1, driver 470"
    assert _codes(text, n=1) == ["prebuilt_binary_wrong_cuda"]
    same = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\nCUDA 11.1"
    assert _codes(same) == ["cudart_not_found", "prebuilt_binary_wrong_cuda"]


@pytest.mark.parametrize("text", ["AssertionError: Requires PyTorch >= 1.8", "note: this release requires pytorch>=1.8"])
def test_detectron2s_torch_minimum_in_its_forms(text):
    assert _codes(text, n=1) == ["extension_torch_version_gate"]


def test_warp_without_a_driver_version_is_the_stub_or_a_driver_that_does_not_answer():
    text = "Warp 1.2.0 initialized:\nWarp CUDA warning: Unable to determine CUDA driver version\n   CUDA Toolkit 12.5"
    assert _codes(text) == ["cuda_stub_driver_loaded", "driver_broken"]


def test_a_byte_order_mark_before_8_bit_text_is_stray_bytes_not_utf16():
    """UTF-16 brings a NUL byte with every ASCII character: a mark followed by none is junk before UTF-8 or
    Windows-1252 text (a copy's stray bytes), which is read as such and keeps its error."""
    from smrnb.doctor._paste import decode

    line = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
    for mark in (b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"[:2]):
        text, enc = decode(mark + b"\xc3(" + line.encode() + b"\xed\xa0\x80")
        assert line.strip() in text and enc == "cp1252", (mark, enc)
    for enc in ("utf-16", "utf-32"):  # real UTF-16/32 with their marks still decode as such
        text, got = decode(line.encode(enc))
        assert text == line and got == enc


def test_tabs_between_words_read_as_spaces_and_leading_tabs_stay():
    """A message whose spaces a copy turned into tabs is the message; ldd's and a traceback's indentation is kept."""
    from smrnb.doctor._explain import explain_text
    from smrnb.doctor._paste import normalise

    msg = "nvcc fatal   : Unsupported gpu architecture 'compute_90'"
    tabbed = msg.replace("   ", "\t").replace(" ", "\t")
    assert normalise(tabbed) == "nvcc fatal : Unsupported gpu architecture 'compute_90'"
    assert [f.code for f in explain_text(tabbed)][:1] == [f.code for f in explain_text(msg)][:1] \
        == ["unsupported_gpu_arch"]
    ldd = "\tlibcudart.so.11.0 => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)"
    assert normalise(ldd) == ldd


# ------------------------------------------------------------------ the tools' messages of the sixth collection's kinds
def test_jax_falling_back_to_the_cpu_is_the_cpu_only_jaxlib():
    for text in ("WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and "
                 "rerun for more info.)", "UserWarning: No GPU/TPU found, falling back to CPU."):
        assert _codes(text) == ["cpu_only_torch_with_gpu", "no_gpu"], _codes(text, n=3)


def test_a_jaxlib_newer_than_jax_is_a_pair_of_releases_that_do_not_go_together():
    text = ("RuntimeError: jaxlib version 0.4.30 is newer than and incompatible with jax version 0.4.23. Please update "
            "your jax and/or jaxlib packages.")
    assert _codes(text, n=1) == ["package_api_version_mismatch"]


@pytest.mark.parametrize("text, code", [
    ("CMake Error at CMakeLists.txt:3 (project):\n  No CMAKE_CUDA_COMPILER could be found.\n\n  Tell CMake where to find "
     "the compiler by setting either the environment\n  variable \"CUDACXX\" or the CMake cache entry CMAKE_CUDA_COMPILER",
     "cuda_home_missing"),
    ("CMake Error: CMAKE_CUDA_COMPILER not set, after EnableLanguage", "cuda_home_missing"),
    ("CMake Error at /usr/share/cmake-3.25/Modules/CMakeDetermineCUDACompiler.cmake:28 (message):\n  Could not find "
     "compiler set in environment variable CUDACXX:\n\n  /opt/cuda-12.1/bin/nvcc.", "cuda_home_malformed"),
    ("CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT find "
     "CUDAToolkit (missing: CUDAToolkit_INCLUDE_DIR CUDA_CUDART)", "cuda_home_missing"),
])
def test_cmakes_cuda_compiler_and_toolkit_lookups(text, code):
    assert _codes(text, n=1) == [code], _codes(text, n=3)


def test_thrusts_check_of_an_own_cub_is_the_projects_build():
    text = ("/opt/cuda/include/thrust/system/cuda/config.h:91:2: error: #error The version of CUB in your include path "
            "is not compatible with this release of Thrust. CUB is now included in the CUDA Toolkit, so you no longer "
            "need to use your own checkout of CUB. Define THRUST_IGNORE_CUB_VERSION_CHECK to ignore this.")
    assert _codes(text, n=1) == ["library_bug"]


@pytest.mark.parametrize("text", [
    'src/knn.cu(12): error: identifier "DBL_MAX" is undefined',
    "src/box.cpp:40:17: error: 'INT_MAX' was not declared in this scope",
])
def test_a_limit_macro_without_its_header_is_the_projects_source(text):
    assert _codes(text, n=1) == ["library_bug"], _codes(text, n=3)


def test_a_thrust_name_the_toolkits_thrust_does_not_declare_is_the_projects_source():
    text = 'src/sort.cu(77): error: namespace "thrust" has no member "host"\n1 error detected in the compilation of "x.cu".'
    assert _codes(text) == ["library_bug", "toolkit_below_extension_minimum"], _codes(text, n=3)


@pytest.mark.parametrize("text, first", [
    ("Unable to open /dev/kfd read-write: No such file or directory\nFailed to get user name to check for video group "
     "membership", "gpu_not_exposed_to_process"),
    ("ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\nalice is not member of \"render\" "
     "group, the default DRM access group.", "gpu_device_permission_denied"),
])
def test_rocminfos_kfd_node_missing_or_refused(text, first):
    assert _codes(text, n=1) == [first], _codes(text, n=3)


def test_tensorflow_ignoring_a_gpu_below_its_minimum_capability():
    text = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device (device: 0, name: GeForce "
            "GT 730, pci bus id: 0000:02:00.0, compute capability: 3.5) with Cuda compute capability 3.5. The minimum "
            "required Cuda capability is 6.0.")
    assert set(_codes(text)) == {"gpu_below_extension_minimum", "torch_wheel_lacks_gpu_arch"}, _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "ptxas /tmp/tmpq1w2e3.ptx, line 88; error   : Feature '.bf16' requires .target sm_80 or higher",
    "ptxas /tmp/k.ptx, line 9; error   : Instruction 'cp.async' requires .target sm_80 or higher",
])
def test_ptxas_refusing_an_instruction_for_an_older_target(text):
    assert _codes(text, n=1) == ["gpu_below_extension_minimum"], _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "gcc: error: unrecognized command-line option '-std=c++17'",
    "g++: error: unrecognized command line option \u2018-std=c++14\u2019\nerror: command 'g++' failed with exit status 1",
])
def test_gcc_not_knowing_the_standard_is_an_old_host_compiler(text):
    assert _codes(text, n=1) == ["host_compiler_unsupported"], _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file specified",
    "UserWarning: Failed to check compiler version for cl: [WinError 2] The system cannot find the file specified",
])
def test_the_extension_builders_cl_that_does_not_run_is_msvc(text):
    assert _codes(text, n=1) == ["windows_msvc_toolchain"], _codes(text, n=3)


def test_the_extension_builders_gcc_that_does_not_run_stays_a_missing_compiler():
    text = "UserWarning: Error checking compiler version for c++: [Errno 2] No such file or directory: 'c++'"
    assert "windows_msvc_toolchain" not in _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
    "LINK : fatal error LNK1181: cannot open input file 'c10_cuda.lib'",
    "/usr/bin/ld: cannot find -lc10_cuda: No such file or directory",
])
def test_torchs_own_cuda_libraries_missing_is_a_cpu_only_torch(text):
    assert "cpu_only_torch_with_gpu" in _codes(text), _codes(text, n=3)


@pytest.mark.parametrize("header", ["Eigen/Dense", "boost/functional/hash", "google/sparse_hash_map"])
def test_a_header_without_an_extension_is_a_missing_dependency(header):
    text = f"src/x.cpp:3:10: fatal error: {header}: No such file or directory\n    3 | #include <{header}>"
    assert _codes(text, n=1) == ["build_dependency_missing"], _codes(text, n=3)


def test_a_source_file_the_command_names_is_not_a_header():
    assert _codes("g++: fatal error: main.cpp: No such file or directory", n=3) == []


def test_dockers_older_unknown_runtime_message():
    text = "docker: Error response from daemon: Unknown runtime specified nvidia."
    assert _codes(text, n=1) == ["gpu_not_exposed_to_process"]


def test_androids_linker_refusing_to_map_code_from_shared_storage():
    text = 'ImportError: dlopen failed: couldn\'t map "/sdcard/Download/libfoo.so" segment 1: Permission denied'
    assert _codes(text, n=1) == ["loader_security_policy"], _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "modprobe: ERROR: could not insert 'nvidia_uvm': No such device",
    "modprobe: ERROR: ../libkmod/libkmod-module.c:838 kmod_module_insert_module() could not find module by "
    "name='nvidia_535_uvm'",
])
def test_modprobe_failing_on_the_nvidia_modules_is_the_driver(text):
    assert _codes(text, n=1) == ["driver_broken"], _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "OSError: dlopen(/opt/venv/lib/libbar.dylib, 0x0006): tried: '/opt/venv/lib/libbar.dylib' (no such file), "
    "'/usr/local/lib/libbar.dylib' (no such file)",
    "ImportError: dlopen(/opt/venv/ext.so, 2): Library not loaded: @rpath/libbar.dylib\n  Referenced from: "
    "/opt/venv/ext.so\n  Reason: image not found",
])
def test_macos_dyld_finding_the_library_nowhere(text):
    assert _codes(text, n=1) == ["library_not_found"], _codes(text, n=3)


@pytest.mark.parametrize("text, code", [
    ("UserWarning: Failed to load image Python extension: /env/lib/python3.10/site-packages/torchvision/image.so: "
     "undefined symbol: _ZN5torch3jit17parseSchemaERKSs", "companion_built_for_other_torch"),
    ("UserWarning: Failed to load image Python extension: ", "companion_built_for_other_torch"),
    ("misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Ab12Cd (size 4194304), "
     "error: No such file or directory (2)", "container_shm_too_small"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient Shared Memory (SHM).",
     "container_shm_too_small"),
    ("zsh: illegal instruction (core dumped)  python3 train.py", "cpu_instruction_unsupported"),
    ("RuntimeError: Expected object of scalar type Long but got scalar type Int for argument #2 'target'",
     "user_code_error"),
])
def test_library_messages_and_their_other_forms(text, code):
    assert _codes(text, n=1) == [code], _codes(text, n=3)


def test_cudas_illegal_instruction_error_is_not_the_cpus():
    text = "RuntimeError: CUDA error: an illegal instruction was encountered"
    assert "cpu_instruction_unsupported" not in _codes(text, n=3)


def test_the_container_runtime_finding_no_wsl_adapter_keeps_a_host_without_a_gpu():
    text = ("docker: Error response from daemon: failed to create task for container: OCI runtime create failed: "
            "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found: unknown.")
    assert _codes(text) == ["gpu_not_exposed_to_process", "no_gpu"], _codes(text, n=3)


def test_torch_in_a_container_finding_no_driver_is_still_the_container():
    text = ("docker run --gpus all img\nUserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please "
            "check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    assert _codes(text, n=1) == ["gpu_not_exposed_to_process"], _codes(text, n=3)
    assert "no_gpu" not in _codes(text, n=3)


def test_hashcats_tdr_check_is_the_watchdog_or_hashcat():
    text = "Kernel minimum runtime larger than default TDR\n\n* Device #2: skipped, due to kernel autotune failure (-4)."
    assert _codes(text) == ["gpu_watchdog_timeout", "library_bug"], _codes(text, n=3)


@pytest.mark.parametrize("text", [
    "Exception ignored in: <function Session.__del__ at 0x7f00aa11bb22>\nTraceback (most recent call last):\n"
    "  File \"lib/session.py\", line 12, in __del__\nAttributeError: 'NoneType' object has no attribute 'close'",
    "Exception AttributeError: \"'NoneType' object has no attribute 'free'\" in <bound method Buffer.__del__ of "
    "<lib.Buffer object at 0x7f3c>> ignored",
])
def test_an_exception_in_a_finaliser_is_the_librarys(text):
    assert "library_bug" in _codes(text), _codes(text, n=3)


def test_an_ignored_finaliser_exception_does_not_hide_the_error_before_it():
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity)\n"
            "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f1b2c3d4e50>")
    assert _codes(text, n=1) == ["cuda_oom"], _codes(text, n=3)


_TV_WARNING = ("/env/lib/python3.11/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python "
               "extension: 'libjpeg.so.8: cannot open shared object file: No such file or directory'\n")


@pytest.mark.parametrize("error, first", [
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB", "cuda_oom"),
    ("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory", "cudart_not_found"),
    ("AssertionError: Torch not compiled with CUDA enabled", "cpu_only_torch_with_gpu"),
])
def test_side_notes_rank_below_the_error_they_accompany(error, first):
    for note in (_TV_WARNING, "Exception ignored in: <function Pool.__del__ at 0x7f0011223344>\n",
                 "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU.\n"):
        assert _codes(note + error, n=1) == [first], (note, _codes(note + error, n=3))


def test_jax_falling_back_after_a_cuda_library_it_could_not_load():
    text = ("INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': Unable to load cuSPARSE. Is it installed?\n"
            "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU.")
    assert _codes(text, n=1) != ["cpu_only_torch_with_gpu"], _codes(text, n=3)


@pytest.mark.parametrize("reason, first", [
    ("NOT_FOUND: Could not find registered platform with name: \"cuda\". Available platform names are: Host",
     "cpu_only_torch_with_gpu"),
    ("FAILED_PRECONDITION: No visible GPU devices.", "gpu_not_exposed_to_process"),
])
def test_why_jax_fell_back_to_the_cpu_decides_before_the_fallback(reason, first):
    text = (f"INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': {reason}\n"
            "WARNING:jax._src.xla_bridge:No GPU/TPU found, falling back to CPU.")
    assert _codes(text, n=1) == [first], _codes(text, n=3)
