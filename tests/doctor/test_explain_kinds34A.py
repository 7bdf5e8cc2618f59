# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 34a: readings of mechanisms from the tools' own messages and facts, for the misses of heldout16-18 labelled a
release's own bug. accelerate / transformers asking for an offload folder (the model does not fit GPU + CPU memory);
Cycles' illegal address (its own kernels); a .blend written by a newer Blender; a submodule cloned by an SSH URL; a
kernel's bad address in a program XLA compiles; a notebook kernel that imported the package whose own file asks for a
missing dependency (IPython's frames); a GPU container under NVIDIA Container Toolkit 1.17.0."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result
from tests.doctor.test_codes25n import assert_row_matches_its_example_and_stays_linear


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


POSITIVE = {
    # accelerate's dispatch_model, as big_modeling.py raises it (not the corpus' wording: a plain traceback)
    "accelerate_dispatch": ("Traceback (most recent call last):\n"
                            '  File "/home/lee/chat/serve.py", line 22, in <module>\n'
                            "    model = dispatch_model(model, device_map=device_map)\n"
                            '  File "/opt/conda/lib/python3.10/site-packages/accelerate/big_modeling.py", line 364, in '
                            "dispatch_model\n    raise ValueError(\n"
                            "ValueError: We need an `offload_dir` to dispatch this model according to this `device_map`, "
                            "the following submodules need to be offloaded: model.layers.38, model.layers.39, "
                            "model.norm, lm_head.\n", {"cuda_oom"}),
    "toolbench_question": ('How can I solve the following error "ValueError: We need an `offload_dir` to dispatch this '
                           'model according to this `device_map`, the following submodules need to be offloaded: "',
                           {"user_code_error"}),
    "transformers_offload_folder": ("  File \"/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py\", "
                                    "line 3601, in _load_pretrained_model\n    raise ValueError(\n"
                                    "ValueError: The current `device_map` had weights offloaded to the disk. Please "
                                    "provide an `offload_folder` for them. Alternatively, make sure you have "
                                    "`safetensors` installed if the model you are using offers the weights in this "
                                    "format.\n", {"user_code_error", "cuda_oom"}),
    # Cycles' CUDADeviceQueue::assert_success (Blender 3.x/4.x), and the older device_cuda.cpp's cuda_assert
    "cycles_queue": ("Blender 4.1.1\nRead blend: /home/ana/scenes/city.blend\n"
                     "Fra:1 Mem:2331.08M (Peak 2412.66M) | Time:00:14.52 | Sample 96/512\n"
                     "Illegal address in CUDA queue synchronize (integrator_intersect_closest "
                     "integrator_shade_surface)\nError: Illegal address in CUDA queue synchronize "
                     "(integrator_intersect_closest integrator_shade_surface)\n", {"library_bug", "gpu_hardware_fault"}),
    "cycles_queue_switch_toolbox": ("Illegal address in CUDA queue copy_from_device (integrator_shade_surface "
                                    "integrator_sorted_paths_array prefix_sum)", {"gpu_hardware_fault"}),
    "cycles_cuda_assert": ("CUDA error: Illegal address in cuCtxSynchronize(), line 1372\n"
                           "Refer to the Cycles GPU rendering documentation for possible solutions:\n"
                           "https://docs.blender.org/manual/en/latest/render/cycles/gpu_rendering.html\n",
                           {"library_bug", "gpu_hardware_fault"}),
    # Blender's readfile warning: the running Blender is older than the file's
    "blender_newer_file": ("$ blender -b scenes/table.blend -P render_views.py\nBlender 2.79 (sub 0)\n"
                           "Read blend: scenes/table.blend\n"
                           "Warning: File written by newer Blender binary (402.14), expect loss of data!\n"
                           "Traceback (most recent call last):\n"
                           '  File "render_views.py", line 11, in <module>\n'
                           "    bpy.context.scene.eevee.use_gtao = True\n"
                           "AttributeError: 'Scene' object has no attribute 'eevee'\n",
                           {"package_api_version_mismatch"}),
    "blender_newer_file_iwgan": ("'Error: File written by newer Blender binary (270.5), expect loss of data!\n"
                                 "AttributeError: 'NoneType' object has no attribute 'compute_device_type''",
                                 {"package_api_version_mismatch"}),
    # Blender 4.x's own words when the file needs a newer Blender
    "blender_newer_file_4x": ("Error: The file was saved by a newer version, open it with Blender 4.2 or later\n"
                              "/tmp/scene.blend: File saved by a newer version of Blender (4.2), Blender 4.2 or later "
                              "is needed to open it.\n", {"package_api_version_mismatch"}),
    # git's submodule--helper, as git prints it in full (the corpus' text was cut after 'into submodule')
    "submodule_ssh": ("$ git submodule update --init --recursive\n"
                      "Cloning into '/home/kim/nerf-proj/third_party/tiny-cuda-nn'...\n"
                      "git@github.com: Permission denied (publickey).\n"
                      "fatal: Could not read from remote repository.\n\n"
                      "Please make sure you have the correct access rights\nand the repository exists.\n"
                      "fatal: clone of 'git@github.com:NVlabs/tiny-cuda-nn.git' into submodule path "
                      "'/home/kim/nerf-proj/third_party/tiny-cuda-nn' failed\n"
                      "Failed to clone 'third_party/tiny-cuda-nn'. Retry scheduled\n",
                      {"build_dependency_missing", "library_bug"}),
    "submodule_ssh_old_git": ("Clone of 'ssh://git@gitlab.com/team/renderer-core.git' into submodule path "
                              "'ext/renderer-core' failed", {"build_dependency_missing", "library_bug"}),
    # XLA's own driver-API error names (xla/stream_executor/cuda), in JAX's exceptions
    "jax_illegal_address": ("Traceback (most recent call last):\n"
                            '  File "/home/u/md/run.py", line 88, in <module>\n'
                            "    energy = jax.jit(total_energy)(positions)\n"
                            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime "
                            "executable: run time error: custom call 'xla.gpu.func.launch' failed: "
                            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n",
                            {"library_bug"}),
    "jax_synchronize": ("E0612 10:21:33.512 external/xla/xla/stream_executor/cuda/cuda_driver.cc:1234] could not "
                        "synchronize on CUDA context: CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address :: *** Begin "
                        "stack trace ***\n", {"library_bug"}),
    "jax_reaxff_title": ("CUDA_ERROR_MISALIGNED_ADDRESS while running JAX-ReaxFF\n\nHi, I ran into the error "
                         "\"CUDA_ERROR_MISALIGNED_ADDRESS\" and I did not understand why.", {"library_bug"}),
    # IPython 7's frames of an installed package importing a module that is not installed, in a notebook
    "notebook_dependency": ("---------------------------------------------------------------------------\n"
                            "ModuleNotFoundError                       Traceback (most recent call last)\n"
                            "<ipython-input-3-2b1f0a1c9e11> in <module>\n"
                            "----> 1 import pyvista_tools\n\n"
                            "~/miniconda3/envs/geo/lib/python3.9/site-packages/pyvista_tools/__init__.py in <module>\n"
                            "      1 from .mesh import *\n"
                            "----> 2 from trame.app import get_server\n\n"
                            "ModuleNotFoundError: No module named 'trame'\n",
                            {"python_package_missing", "library_bug"}),
    # NVIDIA Container Toolkit 1.17.0 (nvidia-ctk's and nvidia-cdi-hook's --version)
    "ctk_1170_podman": ("$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
                        "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-cdi-hook` "
                        "(exit code: 1)\n$ nvidia-ctk --version\nNVIDIA Container Toolkit CLI version 1.17.0\n"
                        "commit: 5bc031544833253e3ab6a36daec376cee2c4a64d\n", {"library_bug"}),
    # nvidia-cdi-hook 1.17.0's own refusal of an image's symlink (create-symlinks.go), no version shown
    "cdi_hook_link_target": ("docker: Error response from daemon: failed to create task for container: failed to "
                             "create shim task: OCI runtime create failed: runc create failed: unable to start "
                             "container process: error during container init: error running hook #1: error running "
                             "hook: exit status 1, stdout: , stderr: time=\"2024-11-05T08:12:44Z\" level=error "
                             "msg=\"failed to create link [libGLX_nvidia.so.550.120 /usr/lib/x86_64-linux-gnu/"
                             "libGLX_indirect.so.0]: failed to check if link exists: unexpected link target: "
                             "libGLX_mesa.so.0\": unknown\n", {"library_bug"}),
    "ctk_1170_hook": ("Error: OCI runtime error: --device nvidia.com/gpu=all podman nvidia container\n\n"
                      "Same here.\n...\nnvidia-cdi-hook --version\nNVIDIA CDI Hook version 1.17.0\n", {"library_bug"}),
    # the gpuErrchk check most CUDA projects copy ("GPUassert: %s %s %d"): a project's own kernel at a line
    "gpuassert_launch": ("GPUassert: too many resources requested for launch network_eval.cu 292", {"library_bug"}),
    "gpuassert_path": ("Loading scene... done\nGPUassert: an illegal memory access was encountered "
                       "/home/u/raytrace/src/kernels/shade.cu 118\n", {"library_bug"}),
    # Bazel's PackageLookupFunction: a project's BUILD file names a package its pinned external repository lacks
    "bazel_jaxlib": ("ERROR: /build/source/jaxlib/cuda/BUILD:185:17: no such package '@tsl//tsl/cuda': BUILD file not "
                     "found in directory 'tsl/cuda>\nERROR: Analysis of target '//jaxlib/tools:build_wheel' failed; "
                     "build aborted: \n", {"library_bug"}),
    "bazel_go_module": ("ERROR: /workspace/api/v3/BUILD.bazel:5:11: no such package "
                        "'@com_github_envoyproxy_go_control_plane//envoy/service/auth/v3': BUILD file not found in "
                        "directory 'envoy/service/auth/v3' of external repository "
                        "@com_github_envoyproxy_go_control_plane. Add a BUILD file to a directory to mark it as a "
                        "package. and referenced by '//api/v3:api'\n", {"library_bug", "build_dependency_missing"}),
    # pip's "(from Y)": a dependency Y's release names, which no index has, one letter off a released project
    "dependency_misspelt_quadricslam": ("ERROR: Could not find a version that satisfies the requirement dinstinctipy "
                                        "(from quadricslam==1.0.1) (from versions: none)\nERROR: No matching "
                                        "distribution found for dinstinctipy (from quadricslam==1.0.1)\n",
                                        {"library_bug"}),
    "dependency_misspelt_metrics": ("Collecting lightning-tools==1.2.0\n  Downloading lightning_tools-1.2.0-py3-none-"
                                    "any.whl (41 kB)\nERROR: Could not find a version that satisfies the requirement "
                                    "torchmetrcs>=0.11 (from lightning-tools) (from versions: none)\n"
                                    "ERROR: No matching distribution found for torchmetrcs>=0.11\n",
                                    {"library_bug"}),
    # torch's MPS Placeholder check (aten/src/ATen/native/mps/OperationUtils.mm): a tensor left on the CPU, by the
    # calling code or by a library's own device placement
    "mps_placeholder_pipeline": ("Traceback (most recent call last):\n"
                                 '  File "/Users/kim/tagger/run.py", line 30, in <module>\n'
                                 "    out = pipe(images=img, text=prompt)\n"
                                 '  File "/Users/kim/.venv/lib/python3.11/site-packages/torch/nn/functional.py", '
                                 "line 2233, in embedding\n"
                                 "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
                                 "RuntimeError: Placeholder storage has not been allocated on MPS device!\n",
                                 {"library_bug"}),
    "mps_placeholder_comfy": ("comfyui Prompt each time you use an image extension Placeholder storage has not been "
                              "allocated on MPS device!\n\nDevice: mps\nTorch version: 2.3.0.dev20231231\n",
                              {"library_bug"}),
    # a program's guarded `import X` reporting its failure as its own ImportError, chained after X's own submodule
    "guarded_import_bnb": ("ModuleNotFoundError: No module named 'bitsandbytes.cuda_setup.paths'\n\nDuring handling "
                           "of the above exception, another exception occurred:\n\nImportError: No bitsandbytes / "
                           "bitsandbytesがインストールされていないようです\n", {"library_bug"}),
    "guarded_import_apex": ("ModuleNotFoundError: No module named 'apex.normalization.fused_layer_norm'\n\n"
                            "During handling of the above exception, another exception occurred:\n\n"
                            "Traceback (most recent call last):\n"
                            '  File "/home/u/mt/train.py", line 14, in <module>\n'
                            "    raise ImportError(\"apex is not installed correctly: reinstall NVIDIA apex\")\n"
                            "ImportError: apex is not installed correctly: reinstall NVIDIA apex\n", {"library_bug"}),
    # IPython 8's frames ("File <path>.py:2" at a module's top level, then its "---->" line)
    "notebook_dependency_ipython8": ("ModuleNotFoundError                       Traceback (most recent call last)\n"
                                     "Cell In[3], line 1\n----> 1 import pyvista_tools\n\n"
                                     "File ~/miniconda3/envs/geo/lib/python3.9/site-packages/pyvista_tools/"
                                     "__init__.py:2\n      1 from .mesh import *\n"
                                     "----> 2 from trame.app import get_server\n\n"
                                     "ModuleNotFoundError: No module named 'trame'\n",
                                     {"python_package_missing", "library_bug"}),
    "notebook_dependency_meteva": ("ModuleNotFoundError: No module named 'ipywidgets'\nimport nmc_verification\n"
                                   "-----------------------------------------------------------------------\n"
                                   "ModuleNotFoundError                       Traceback (most recent call last)\n"
                                   "<ipython-input-6-565b5172ee3f> in <module>\n----> 1 import nmc_verification\n"
                                   "...\nD:\\ProgramData\\Anaconda3\\envs\\keras\\lib\\site-packages\\"
                                   "nmc_verification\\nmc_vf_product\\presentation\\winter_olympic.py in <module>\n"
                                   "      1 import nmc_verification\n----> 3 from ipywidgets import widgets\n"
                                   "ModuleNotFoundError: No module named 'ipywidgets'\n", {"library_bug"}),
    # a shell prompt's directory and script, and the one frame of a module in a package folder below it: the
    # checkout's own class lacks what its own method asks for
    "prompt_checkout_windows": ("(py311) D:\\ISAT>python main.py\nTraceback (most recent call last):\n"
                                '  File "D:\\ISAT\\ISAT\\widgets\\mainwindow.py", line 453, in open_dir\n'
                                "    self.seganythread.wait()\n    ^^^^^^^^^^^^^^^^^\n"
                                "AttributeError: 'MainWindow' object has no attribute 'seganythread'\n",
                                {"library_bug"}),
    "prompt_checkout_bash": ("kim@lab-pc:~/splat-viewer$ python app.py --scene garden\n"
                             "Traceback (most recent call last):\n"
                             '  File "/home/kim/splat-viewer/viewer/render_panel.py", line 88, in on_resize\n'
                             "    self.renderer.resize(w, h)\n"
                             "AttributeError: 'RenderPanel' object has no attribute 'renderer'\n", {"library_bug"}),
}


@pytest.mark.parametrize("key", sorted(POSITIVE))
def test_the_mechanism_is_read(key):
    text, codes = POSITIVE[key]
    assert codes & set(_first_two(text)), (key, _first_two(text))


#: the order of the readings (the release's first where the mechanism says so)
FIRST_READINGS = {
    "accelerate_dispatch": ["cuda_oom", "user_code_error"],  # round 34c's row, merged beside 34a's
    "cycles_queue": ["library_bug", "gpu_hardware_fault"],
    "submodule_ssh": ["build_dependency_missing", "library_bug"],
    "jax_illegal_address": ["library_bug", "user_code_error"],
    "jax_synchronize": ["library_bug", "user_code_error"],
    "notebook_dependency": ["python_package_missing", "library_bug"],
    "gpuassert_launch": ["library_bug", "user_code_error"],
    "dependency_misspelt_metrics": ["library_bug", "build_dependency_missing"],
    "mps_placeholder_pipeline": ["user_code_error", "library_bug"],
    "notebook_dependency_ipython8": ["python_package_missing", "library_bug"],
    "ctk_1170_podman": ["library_bug", "gpu_not_exposed_to_process"],
}


@pytest.mark.parametrize("key", sorted(FIRST_READINGS))
def test_the_first_readings(key):
    assert _first_two(POSITIVE[key][0]) == FIRST_READINGS[key]


NEAR = {
    # torch's own runtime-API message of the same fault, beside a pip list naming jax: torch's kernels, not XLA's
    "torch_illegal_address_jax_listed": ("RuntimeError: CUDA error: an illegal memory access was encountered\n"
                                         "CUDA kernel errors might be asynchronously reported at some other API call, "
                                         "so the stacktrace below might be incorrect.\n"
                                         "jax                0.4.20\ntorch              2.1.0\n", "library_bug"),
    # numba's driver error: the user's own @cuda.jit kernel
    "numba_own_kernel": ("numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in "
                         "CUDA_ERROR_ILLEGAL_ADDRESS\n", "library_bug"),
    # a Pallas kernel the JAX program writes itself
    "jax_pallas_kernel": ("from jax.experimental import pallas as pl\n"
                          "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: "
                          "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n", "library_bug"),
    # an illegal address that is not Cycles' (torch's message)
    "not_cycles": ("RuntimeError: CUDA error: an illegal memory access was encountered\n", "gpu_hardware_fault"),
    # a plain clone of the person's own SSH remote, no submodule: no project's setting
    "ssh_clone_no_submodule": ("$ git clone git@github.com:kim/private-notes.git\nCloning into 'private-notes'...\n"
                               "git@github.com: Permission denied (publickey).\n"
                               "fatal: Could not read from remote repository.\n", "build_dependency_missing"),
    # a .blend opened by a newer Blender: no warning, nothing read
    "blender_older_file": ("Read blend: /home/ana/scenes/city.blend\nBlender quit\n", "package_api_version_mismatch"),
    # accelerate placing modules on the CPU (a quantised model): its own row, the GPU memory, not the offload folder
    "bnb_dispatched": ("ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU "
                       "RAM to fit the quantized model.\n", "user_code_error"),
    # the same container failure under 1.17.5: no release bug read
    "ctk_1175": ("$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
                 "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-cdi-hook` (exit code: 1)\n"
                 "NVIDIA Container Toolkit CLI version 1.17.5\n", "library_bug"),
    # the same check naming a host file: no kernel's source, the calling code's launch
    "gpuassert_host_file": ("GPUassert: too many resources requested for launch main.cpp 40\n", "library_bug"),
    # Bazel's own workspace: a target the command names that does not exist (no external repository)
    "bazel_own_package": ("ERROR: Skipping '//tools/pip_package:build_pip_pkg': no such package 'tools/pip_package': "
                          "BUILD file not found in any of the following directories. Add a BUILD file to a directory "
                          "to mark it as a package.\n - /home/u/tensorflow/tools/pip_package\n", "library_bug"),
    # a real dependency no index pip looked in holds (a released name; another index's project): not a misspelling
    "dependency_released_name": ("ERROR: Could not find a version that satisfies the requirement pytorch3d (from "
                                 "gaussian-avatars==0.1.0) (from versions: none)\n", "library_bug"),
    "dependency_versioned_family": ("ERROR: Could not find a version that satisfies the requirement "
                                    "nvidia-dali-cuda130 (from video-loader==2.0) (from versions: none)\n",
                                    "library_bug"),
    # a misspelling in the person's own command (no "(from Y)"): theirs, not a release's
    "own_command_misspelt": ("$ pip install torchmetrcs\nERROR: Could not find a version that satisfies the "
                             "requirement torchmetrcs (from versions: none)\n", "library_bug"),
    # MPS running out of memory: the workload, no release's bug
    "mps_oom": ("RuntimeError: MPS backend out of memory (MPS allocated: 18.04 GB, other allocations: 384.00 KB, max "
                "allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool.\n", "library_bug"),
    # the handler's ImportError names another package than the one whose submodule is missing
    "guarded_other_package": ("ModuleNotFoundError: No module named 'torch_scatter.utils'\n\nDuring handling of the "
                              "above exception, another exception occurred:\n\nImportError: Please install "
                              "torch_geometric first\n", "library_bug"),
    # the person's own script, the only file: the prompt's directory holds it, no package folder below
    "prompt_own_script": ("C:\\Users\\kim\\work>python train.py\nTraceback (most recent call last):\n"
                          '  File "C:\\Users\\kim\\work\\train.py", line 40, in <module>\n'
                          "    net.fit(x)\nAttributeError: 'Net' object has no attribute 'fit'\n", "library_bug"),
    # a module missing in a notebook cell's own import: the kernel's Python, as before
    "notebook_own_import": ("ModuleNotFoundError                       Traceback (most recent call last)\n"
                            "<ipython-input-6-565b5172ee3f> in <module>\n"
                            "----> 1 import trame\n\n"
                            "ModuleNotFoundError: No module named 'trame'\n", "library_bug"),
}


@pytest.mark.parametrize("key", sorted(NEAR))
def test_near_misses_do_not_give_the_code(key):
    text, code = NEAR[key]
    assert code not in _first_two(text), (key, _first_two(text))


def test_a_notebook_own_import_stays_the_kernels():
    assert _first_two(NEAR["notebook_own_import"][0])[:1] == ["kernel_wrong_python"]


@pytest.mark.parametrize("key", ["transformers_offload_folder_needed", "cycles_illegal_address",
                                 "blender_file_from_newer_blender", "git_submodule_ssh_url",
                                 "bazel_external_package_missing", "nvidia_cdi_hook_unexpected_link_target"])
def test_the_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_the_readings_say_what_the_release_did():
    """The library_bug words of round 34a's readings name the release's own setting, kernel or bug, not a generic
    'internal check failed'."""
    def titles(key: str) -> dict[str, str]:
        return {f.code: f.title for f in explain_result(POSITIVE[key][0], similar=False).findings}

    assert "Cycles" in titles("cycles_queue")["library_bug"]
    assert ".gitmodules" in titles("submodule_ssh")["library_bug"]
    assert "1.17.0" in titles("ctk_1170_podman")["library_bug"]
    assert "BUILD files" in titles("bazel_jaxlib")["library_bug"]
    assert "1.17.0" in titles("cdi_hook_link_target")["library_bug"]
    assert "distinctipy" in titles("dependency_misspelt_quadricslam")["library_bug"]
    fixes = {f.code: f.fix for f in explain_result(POSITIVE["submodule_ssh"][0], similar=False).findings}
    assert any("insteadOf" in c for c in fixes["build_dependency_missing"].commands)
