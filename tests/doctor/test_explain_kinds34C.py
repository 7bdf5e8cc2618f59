# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 34c: machine/setup causes and user code errors read from the tools' own messages (their sources cited in
tables/library_messages.csv, tables/extension_checks.csv and the rules): transformers/accelerate offloading to disk
without a folder (the model does not fit GPU + RAM), COLMAP's SiftGPU matcher out of GPU memory, triton's '0 active
drivers' (torch sees no GPU), CTranslate2's float16 refusal beside a GPU that has it (the CPU in use), Magnum's
thread-local GL context, nvdiffrast's CUDA-GL interop, onnxruntime's CUDA provider symbol at link time (a CPU build),
tinycudann's import-time check, bash's report of a killed job and a launcher's or builder's report of SIGKILL, an
option run as a command (bash's translated 'command not found', cmd.exe, PowerShell), Windows error 1455 by number; a
module attribute or a name misspelt (Python's own suggestion, or a name the text uses), and a name every release of a
package defines missing (another module shadows the package).

Each reading: texts that must give the code among the first two findings (one of the corpus, one in the tool's own
words as its source prints them, not from the corpus), and near-misses that share words but not the mechanism."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


POSITIVE = {
    # transformers' _load_pretrained_model (heldout16 galai-57's words) and accelerate's dispatch_model (not corpus)
    "offload_folder_transformers": ("ValueError: The current `device_map` had weights offloaded to the disk. Please "
                                    "provide an `offload_folder` for them. Alternatively, make sure you have "
                                    "`safetensors` installed if the model you are using offers the weights in this "
                                    "format.", {"cuda_oom"}),
    "offload_dir_accelerate": ('  File "/usr/lib/python3.10/site-packages/accelerate/big_modeling.py", line 371, in '
                               "dispatch_model\n    raise ValueError(\nValueError: We need an `offload_dir` to dispatch "
                               "this model according to this `device_map`, the following submodules need to be "
                               "offloaded: model.layers.30, model.layers.31, lm_head.\n", {"cuda_oom"}),
    # COLMAP: the 2016 wording (heldout17 colmap-178) and today's LOG(ERROR) of src/colmap/feature/sift.cc
    "colmap_2016": ("ERROR: Feature matching failed. This probably caused by insufficient GPU memory. Consider reducing "
                    "the maximum number of features.", {"cuda_oom"}),
    "colmap_glog": ("I20240611 10:02:11.331 feature_matching.cc:102] Matching block [1/3, 2/3]\n"
                    "E20240611 10:02:14.870 sift.cc:1467] Feature matching failed. This is probably caused by "
                    "insufficient GPU memory. Consider reducing the maximum number of features and/or matches.\n",
                    {"cuda_oom"}),
    # triton's _create_driver: a Colab CPU runtime; in a container; beside a CPU-only torch
    "triton_no_driver": ('  File "/usr/local/lib/python3.11/dist-packages/triton/runtime/driver.py", line 8, in '
                         "_create_driver\n    raise RuntimeError(f\"{len(actives)} active drivers ({actives}). There "
                         "should only be one.\")\nRuntimeError: 0 active drivers ([]). There should only be one.\n",
                         {"no_gpu"}),
    "triton_no_driver_docker": ("$ docker run --rm -it vllm-img python serve.py\n"
                                "RuntimeError: 0 active drivers ([]). There should only be one.\n",
                                {"gpu_not_exposed_to_process"}),
    "triton_no_driver_cpu_torch": ("torch 2.4.0+cpu\nRuntimeError: 0 active drivers ([]). There should only be one.\n",
                                   {"cpu_only_torch_with_gpu"}),
    # Magnum's Context::current() assertion: habitat-sim under a threaded server; a worker thread's render
    "magnum_threaded": ("When running a Flask server with Habitat-Sim, the /step endpoint crashes with:\n"
                        "GL::Context::current(): no current context\n", {"user_code_error"}),
    "magnum_before_gl_namespace": ("Context::current(): no current context\nAborted (core dumped)\n",
                                   {"user_code_error"}),
    "magnum_worker": ('Traceback (most recent call last):\n  File "worker.py", line 40, in render\n'
                      "    obs = sim.get_sensor_observations()\nGL::Context::current(): no current context\n"
                      "Aborted (core dumped)\n", {"user_code_error"}),
    # nvdiffrast's NVDR_CHECK_CUDA_ERROR on an interop call (heldout17 meshdiffusion-35; a registration, not corpus)
    "nvdiffrast_unregister": ("Cuda error: 208[cudaGraphicsUnregisterResource(s.cudaColorBuffer[i]);]",
                              {"opengl_egl_unavailable"}),
    "nvdiffrast_register": ('  File "nvdiffrast/torch/ops.py", line 246, in rasterize\n'
                            "RuntimeError: Cuda error: 219[cudaGraphicsGLRegisterImage(&s.cudaColorBuffer[i], "
                            "s.glColorBuffer[i], GL_TEXTURE_3D, cudaGraphicsRegisterFlagsReadOnly);]\n",
                            {"opengl_egl_unavailable"}),
    # onnxruntime's CUDA provider entry point, undefined at link time: GNU ld in English and in zh_CN
    "ort_cuda_symbol_en": ("[100%] Linking CXX executable detector\n/usr/bin/ld: CMakeFiles/detector.dir/src/infer.cpp.o: "
                           "in function `Infer::Infer()':\ninfer.cpp:(.text+0x2f1): undefined reference to "
                           "`OrtSessionOptionsAppendExecutionProvider_CUDA'\ncollect2: error: ld returned 1 exit status\n",
                           {"cpu_only_torch_with_gpu"}),
    "ort_cuda_symbol_zh": ("../lib/libObjSLAM.so：对‘OrtSessionOptionsAppendExecutionProvider_CUDA’未定义的引用\n"
                           "collect2: error: ld returned 1 exit status\n", {"cpu_only_torch_with_gpu"}),
    "ort_cuda_symbol_msvc": ("infer.obj : error LNK2019: unresolved external symbol "
                             "OrtSessionOptionsAppendExecutionProvider_CUDA referenced in function main\n",
                             {"cpu_only_torch_with_gpu"}),
    # tinycudann/modules.py's import-time check: in a container; beside a CPU-only torch
    "tcnn_import_docker": ("Unable to import tinycudann during docker run. (OSError: Unknown compute capability. "
                           "Ensure PyTorch with CUDA support is installed)", {"gpu_not_exposed_to_process"}),
    "tcnn_import_cpu_torch": ('  File "/opt/conda/lib/python3.10/site-packages/tinycudann/modules.py", line 19, in '
                              "<module>\n    raise EnvironmentError(\"Unknown compute capability. Ensure PyTorch with "
                              "CUDA support is installed.\")\nOSError: Unknown compute capability. Ensure PyTorch with "
                              "CUDA support is installed.\n>>> torch.__version__\n'2.1.0+cpu'\n",
                              {"cpu_only_torch_with_gpu"}),
    # CTranslate2 refusing float16 where every GPU shown has it (compute capability >= 7.0): the model ran on the CPU
    "ct2_half_on_cpu_quoted": ("Does anyone know if the Gefore RTX 4050 works for float16 computation? ... it still says "
                               "that it doesn't support efficient float16 computation.", {"cpu_only_torch_with_gpu"}),
    "ct2_half_on_cpu": ("| NVIDIA GeForce RTX 3090   On | 00000000:01:00.0 Off |\n"
                        '  File "/opt/venv/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 145, in '
                        "__init__\nValueError: Requested float16 compute type, but the target device or backend do "
                        "not support efficient float16 computation.\n", {"cpu_only_torch_with_gpu"}),
    # bash's job report of a command SIGKILL ended (the OOM killer): mamba in a docker build; a ninja build
    "bash_killed_mamba": ("Solving environment: ...working... bash: line 1:     7 Killed                  ${MAMBA_EXE} "
                          "env update -p ${NB_PYTHON_PREFIX} --file \".binder/environment.yml\"\n",
                          {"host_memory_exhausted"}),
    "bash_killed_ninja": ("[412/980] Building CUDA object src/CMakeFiles/core.dir/kernels.cu.o\n"
                          "bash: line 3: 31337 Killed                  ninja -j 32\n", {"host_memory_exhausted"}),
    # SIGKILL reported by a launcher or builder: torchrun's ProcessFailure, BuildKit, Python's subprocess
    "sigkill_torchrun": ("[0]:\n  time      : 2024-08-25_17:31:27\n  rank      : 0 (local_rank: 0)\n"
                         "  exitcode  : -9 (pid: 8158)\n  error_file: <N/A>\n"
                         "  traceback : Signal 9 (SIGKILL) received by PID 8158\n", {"host_memory_exhausted"}),
    "sigkill_buildkit": ('ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not complete '
                         "successfully: exit code: 137", {"host_memory_exhausted"}),
    "sigkill_subprocess": ("subprocess.CalledProcessError: Command '['ninja', '-v']' died with <Signals.SIGKILL: 9>.",
                           {"host_memory_exhausted"}),
    # bash's translated 'command not found' of an option run as a command (a continuation line broken)
    "option_zh": ("--deepspeed_multinode_launcher: 未找到命令\n", {"user_code_error"}),
    "option_de": ("bash: --num_processes: Kommando nicht gefunden.\n", {"user_code_error"}),
    "option_ja": ("bash: --gpus: コマンドが見つかりません\n", {"user_code_error"}),
    # a bash command's continued lines pasted into cmd.exe or PowerShell
    "option_cmd_exe": ("'--num_processes' is not recognized as an internal or external command,\noperable program or "
                       "batch file.\n", {"user_code_error"}),
    "option_powershell": ("At line:2 char:7\n+     --num_processes 2 \\\n+       ~\nMissing expression after unary "
                          "operator '--'.\n", {"user_code_error"}),
    # Windows error 1455 (ERROR_COMMITMENT_LIMIT) by number: alone, and Rust's io::Error of a German Windows
    "win1455_alone": ("Error 1455", {"host_memory_exhausted"}),
    "win1455_rust": ("safetensors_rust.SafetensorError: Error while deserializing header: Die Auslagerungsdatei ist zu "
                     "klein, um diesen Vorgang durchzuführen. (os error 1455)", {"host_memory_exhausted"}),
    # a module attribute one typo from the name meant: beside the code's own use; Python 3.12's suggestion
    "typo_beside_use": ("AttributeError: module 'torchvision.transforms' has no attribute 'ToTenser'\non\n"
                        "chart_transformer = transforms.Compose([\n    transforms.Resize((224,224)),\n"
                        "    transforms.ToTensor()\n])\n", {"user_code_error"}),
    "typo_did_you_mean": ('  File "train.py", line 12, in <module>\n    loader = torch.utils.data.DataLaoder(ds)\n'
                          "AttributeError: module 'torch.utils.data' has no attribute 'DataLaoder'. Did you mean: "
                          "'DataLoader'?\n", {"user_code_error"}),
    # Python's NameError suggestion one typo away: no frame shown; the person's own frame
    "name_typo_bare": ("NameError: name 'trian_loader' is not defined. Did you mean: 'train_loader'?",
                       {"user_code_error"}),
    "name_typo_own_frame": ('Traceback (most recent call last):\n  File "/home/u/proj/train.py", line 40, in <module>\n'
                            "    for x in trian_loader:\nNameError: name 'trian_loader' is not defined. Did you mean: "
                            "'train_loader'?\n", {"user_code_error"}),
    # a name every release defines: triton.jit (heldout17), numpy.array, Python 3.13's own hint
    "shadow_triton": ("AttributeError: module 'triton' has no attribute 'jit'", {"user_code_error"}),
    "shadow_numpy": ('  File "/home/li/proj/run.py", line 3, in <module>\n    a = np.array([1, 2])\n'
                     "AttributeError: module 'numpy' has no attribute 'array'\n", {"user_code_error"}),
    "shadow_py313_hint": ("AttributeError: module 'cv2' has no attribute 'resize' (consider renaming "
                          "'/home/li/proj/cv2.py' if it has the same name as a library you intended to import)",
                          {"user_code_error"}),
}


#: readings whose order is the point: a typo is the code's before any release; a shadowed package's two readings
FIRST_TWO = {"typo_beside_use": ["user_code_error", "package_api_version_mismatch"],
             "typo_did_you_mean": ["user_code_error", "package_api_version_mismatch"],
             "shadow_triton": ["user_code_error", "python_package_missing"],
             "shadow_numpy": ["user_code_error", "python_package_missing"],
             "shadow_py313_hint": ["user_code_error", "python_package_missing"]}


@pytest.mark.parametrize("key", sorted(POSITIVE))
def test_positive(key):
    text, want = POSITIVE[key]
    got = _first_two(text)
    assert want & set(got), (key, got)
    if key in FIRST_TWO:
        assert got == FIRST_TWO[key], (key, got)


NEAR_MISS = {
    # offload_folder given and the load going on: no failure
    "offload_folder_given": ("model = AutoModelForCausalLM.from_pretrained(name, device_map='auto', "
                             "offload_folder='offload')\nLoading checkpoint shards: 100%|##########| 2/2\n",
                             {"cuda_oom", "user_code_error"}),
    # a matching failure of too few inliers is not the GPU's memory
    "colmap_inliers": ("Feature matching failed for pair 3/7: too few inliers", {"cuda_oom"}),
    # two drivers active is triton's other case (CUDA and HIP both), not 'no GPU'
    "triton_two_drivers": ("RuntimeError: 2 active drivers ([<class 'CudaDriver'>, <class 'HIPDriver'>]). There should "
                           "only be one.", {"no_gpu", "gpu_not_exposed_to_process"}),
    # the EGL context never made (no GPU's EGL device) is the platform, not the code's thread
    "magnum_no_egl_device": ("Platform::WindowlessEglApplication::tryCreateContext(): unable to find CUDA device 0 "
                             "among 2 EGL devices in total\nWindowlessContext: Unable to create windowless context\n",
                             {"user_code_error"}),
    # Qt's own context, not Magnum's
    "qt_context": ("QOpenGLContext::current(): no current context", {"user_code_error"}),
    # nvdiffrast's check on a plain copy: no OpenGL interop
    "nvdiffrast_memcpy": ("RuntimeError: Cuda error: 700[cudaMemcpyAsync(p.out, p.in, size, cudaMemcpyDeviceToDevice, "
                          "stream);]", {"opengl_egl_unavailable"}),
    # onnxruntime not linked at all (its base entry point missing): not a CPU build's missing provider
    "ort_not_linked": ("main.cpp:(.text+0x1a4): undefined reference to `OrtGetApiBase'\ncollect2: error: ld returned 1 "
                       "exit status\n", {"cpu_only_torch_with_gpu"}),
    # tinycudann's performance warning sees the GPU
    "tcnn_lower_cc_warning": ("UserWarning: tinycudann was built for lower compute capability (86) than the system's "
                              "(89). Performance may be suboptimal.", {"gpu_not_exposed_to_process",
                                                                       "cpu_only_torch_with_gpu"}),
    # a Pascal GPU has no efficient float16: the GPU is the reading, not the CPU
    "ct2_half_on_pascal": ("GPU: Tesla P100\nValueError: Requested float16 compute type, but the target device or "
                           "backend do not support efficient float16 computation.", {"cpu_only_torch_with_gpu"}),
    # SIGTERM is not the OOM killer; a build step's plain failure is not a kill
    "bash_terminated": ("bash: line 1:  4242 Terminated              python train.py", {"host_memory_exhausted"}),
    "sigterm_torchrun": ("  exitcode  : -15 (pid: 8158)\n  traceback : Signal 15 (SIGTERM) received by PID 8158",
                         {"host_memory_exhausted"}),
    "buildkit_exit_1": ('ERROR: failed to solve: process "/bin/sh -c pip install flash-attn" did not complete '
                        "successfully: exit code: 1", {"host_memory_exhausted"}),
    # a program (not an option) not found: a missing console script, not a broken continuation line
    "program_not_found_zh": ("bash: deepspeed: 未找到命令", {"user_code_error"}),
    # a build tool not found by cmd.exe is a missing tool, not an option run as a command
    "cmd_tool_missing": ("'cmake' is not recognized as an internal or external command,\noperable program or batch "
                         "file.", {"user_code_error"}),
    # 1455 as an issue number or a line number
    "number_1455": ("See issue #1455 and line 1455 of the log", {"host_memory_exhausted"}),
    # a suggestion that adds a suffix is a renamed member, not a typo; a package's own frame is the package's
    "name_suffix_suggestion": ("NameError: name 'FlashMHA' is not defined. Did you mean: 'FlashMHA2'?",
                               {"user_code_error"}),
    "name_typo_in_package": ('  File "/usr/lib/python3.11/site-packages/foo/bar.py", line 40, in run\n'
                             "    for x in trian_loader:\nNameError: name 'trian_loader' is not defined. Did you mean: "
                             "'train_loader'?\n", {"user_code_error"}),
    # a submodule and its class differ in case only (pyglet.window, pyglet.window.Window): no typo reading first
    "module_and_its_class": ("import pyglet\nwindow = pyglet.window.Window(width=1280, height=720)\n"
                             "AttributeError: module 'pyglet' has no attribute 'window'\n", {"user_code_error"}),
    # a name a release removed (numpy 1.24's np.float) is no typo and no shadowing
    "removed_numpy_float": ("AttributeError: module 'numpy' has no attribute 'float'", {"user_code_error"}),
    # a name a later release added (torch.compile in 2.0): the installed release is older
    "added_torch_compile": ("AttributeError: module 'torch' has no attribute 'compile'", {"user_code_error"}),
}


@pytest.mark.parametrize("key", sorted(NEAR_MISS))
def test_near_miss(key):
    text, unwanted = NEAR_MISS[key]
    got = _first_two(text)
    if key in ("removed_numpy_float", "added_torch_compile", "name_suffix_suggestion", "module_and_its_class"):
        assert got and got[0] not in unwanted, (key, got)  # the release's reading stays first
    else:
        assert not (unwanted & set(got)), (key, got)
