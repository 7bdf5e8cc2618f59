# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 34b: heldout16-18's misses of a package-level cause, read from the tools' own messages as their
sources print them (each reading's source is cited where it is written), never from a reporter's sentence.

- setuptools 70 no longer exposes pkg_resources.packaging (pypa/setuptools#4376): outside a build (a program run,
  the bare line) the code was written for an older setuptools -> package_api_version_mismatch first, the row's
  library_bug / build_dependency_missing after it (heldout18/nerfstudio-3215, st-nerf-18); inside pip's build the
  row's readings stay first (round 17).
- triton.kernel (the 0.x line's C-source kernels) removed in triton 1.0; tl.make_block_ptr added in triton 2.1
  (tables/removed_apis.csv, added_apis.csv; heldout17/dalle-pytorch-342, triton-2024) -> package_api_version_mismatch.
- torchaudio's "torchaudio C++ extension is not available." (torchaudio/extension/extension.py: warned only where
  torchaudio._torchaudio is absent) -> extension_not_compiled, package_no_build_for_platform.
- A module of ComfyUI's own tree a custom node imports and the running ComfyUI lacks (node_helpers, comfy_execution,
  comfy.<submodule>) -> package_api_version_mismatch.
- Warp's "Error launching kernel 'k', passed N arguments but kernel requires M." (warp/context.py launch): from a
  package built on Warp -> package_api_version_mismatch; from the person's own launch -> user_code_error first.
- pycaffe's NCCL class without new_uid/bcast (python/caffe/_caffe.cpp binds them under #ifdef USE_NCCL only) ->
  extension_not_compiled.
- Hunyuan3D-2's mesh_processor, a pybind11 module built in place (source_built_modules.csv's dotted row) ->
  extension_not_compiled.
- A NameError of a distinctive name a release added or removed (flash-attn 2's flash_attn_varlen_func): the code's
  guarded import of that release's API -> package_api_version_mismatch, python_package_missing.
- Python's "'function' object has no attribute 'var'" with the source line under the last frame naming a removed
  name (taichi's ti.Vector.var, removed by taichi-dev/taichi#3725) -> package_api_version_mismatch.
- argparse's whole "prog: error: argument X: invalid choice: 'v'" line with its choices cut off -> the existing
  row's readings (user_code_error, package_api_version_mismatch).
- getopt's "error: option --x not recognized" after distutils' usage (a project's own setup.py option its checkout
  does not take) -> package_api_version_mismatch.
- A plain package missing at run time after "pip install -e ." -> python_package_missing (the install is no build
  failing).
- pip under a Python 2.7 the text shows, failing in a package's setup.py egg_info (pip's own 'Command "python
  setup.py egg_info" failed'): no wheel for Python 2, the Python-3-only source fails -> package_no_build_for_platform.
- requests' / httpx's 404 from a server on this machine (127.0.0.1, localhost): the running server's release lacks
  the route its client calls -> package_api_version_mismatch, the client's URL second (user_code_error).
- transformers' "the package flash_attn seems to be not installed" / InternVL's "flash_attn is not installed." ->
  python_package_missing; on native Windows package_no_build_for_platform first (flash-attn's Linux-only wheels), as
  for a plain "No module named 'flash_attn'" (or vllm's) there.
Near-misses share words but not the mechanism and do not get the code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

POSITIVE = [
    # (reading, code that must be among the first two, text)
    ("pkg_resources_packaging", "package_api_version_mismatch",
     # heldout18/st-nerf-18 (the corpus' wording)
     "ImportError: cannot import name 'packaging' from 'pkg_resources'\nHi,\nI got the following error when trying to "
     "run \n```\npython demo/walking_demo.py -c configs/config_walking.yml\n```"),
    ("pkg_resources_packaging", "package_api_version_mismatch",
     # torch 2.1's cpp_extension under setuptools 70, imported by a program's JIT build at run time, not from the corpus
     "$ python train.py --config configs/nerf.yaml\nTraceback (most recent call last):\n  File \"train.py\", line 9, in "
     "<module>\n    from torch.utils.cpp_extension import load\n  File \"/opt/conda/lib/python3.10/site-packages/torch/"
     "utils/cpp_extension.py\", line 28, in <module>\n    from pkg_resources import packaging  # type: ignore[attr-"
     "defined]\nImportError: cannot import name 'packaging' from 'pkg_resources' (/opt/conda/lib/python3.10/site-"
     "packages/pkg_resources/__init__.py)"),
    ("triton_kernel_removed", "package_api_version_mismatch",
     # heldout17/dalle-pytorch-342
     "AttributeError: module 'triton' has no attribute 'kernel'"),
    ("triton_kernel_removed", "package_api_version_mismatch",
     # a C-source kernel of the triton 0.x line, in the project's own file, under triton 2, not from the corpus
     "  File \"/home/ana/sparse/matmul.py\", line 80, in __init__\n    self.kernel = triton.kernel(src, device=torch."
     "cuda.current_device(), defines=defines)\nAttributeError: module 'triton' has no attribute 'kernel'"),
    ("make_block_ptr_added", "package_api_version_mismatch",
     # heldout17/triton-2024
     "AttributeError: module 'triton.language' has no attribute 'make_block_ptr'\nhey Friends:\n   someone knows what "
     "caused this error?"),
    ("make_block_ptr_added", "package_api_version_mismatch",
     # a kernel using block pointers under triton 2.0.0, not from the corpus
     "triton==2.0.0\nTraceback (most recent call last):\n  File \"/work/kern/attn.py\", line 57, in _fwd_kernel\n"
     "    K_block_ptr = tl.make_block_ptr(base=K, shape=(D, N), strides=(s1, s2), offsets=(0, 0), "
     "block_shape=(BD, BN), order=(0, 1))\nAttributeError: module 'triton.language' has no attribute "
     "'make_block_ptr'"),
    ("torchaudio_extension", "extension_not_compiled",
     # heldout17/a-hackers-ai-voice-assistant-20
     "torchaudio C++ extension is not available\n Warning (from warnings module):\n          File \"C:\\Users\\A\\"
     "AppData\\Local\\Programs\\Python\\Python36\\lib\\site-packages\\torchaudio\\extension\\extension.py\", line 14\n"
     "            warnings.warn('torchaudio C++ extension is not available.')\n        UserWarning: torchaudio C++ "
     "extension is not available."),
    ("torchaudio_extension", "extension_not_compiled",
     # a source build of torchaudio without its extension on Linux, not from the corpus
     "$ python -c 'import torchaudio'\n/home/kim/src/audio/torchaudio/_extension.py:67: UserWarning: torchaudio C++ "
     "extension is not available.\n  warnings.warn(\"torchaudio C++ extension is not available.\")"),
    ("comfyui_core_module", "package_api_version_mismatch",
     # heldout16/comfyui_ipadapter_plus-596
     "(IMPORT FAILED): /content/drive/MyDrive/ComfyUI/custom_nodes/ComfyUI_IPAdapter_plus\nCannot import /content/"
     "drive/MyDrive/ComfyUI/custom_nodes/ComfyUI_IPAdapter_plus module for custom nodes: No module named "
     "'node_helpers'"),
    ("comfyui_core_module", "package_api_version_mismatch",
     # ComfyUI's own log of a node needing comfy_execution, not from the corpus
     "Traceback (most recent call last):\n  File \"D:\\ComfyUI_windows_portable\\ComfyUI\\nodes.py\", line 2006, in "
     "load_custom_node\n    module_spec.loader.exec_module(module)\n  File \"D:\\ComfyUI_windows_portable\\ComfyUI\\"
     "custom_nodes\\comfyui-easy-use\\__init__.py\", line 3, in <module>\n    from comfy_execution.graph_utils import "
     "GraphBuilder\nModuleNotFoundError: No module named 'comfy_execution'\n\nCannot import D:\\ComfyUI_windows_"
     "portable\\ComfyUI\\custom_nodes\\comfyui-easy-use module for custom nodes: No module named 'comfy_execution'"),
    ("comfyui_core_module", "package_api_version_mismatch",
     # a submodule of comfy a later release added, not from the corpus
     "  File \"/workspace/ComfyUI/custom_nodes/x-flux-comfyui/nodes.py\", line 9, in <module>\n    from comfy.ldm.flux."
     "layers import timestep_embedding\nModuleNotFoundError: No module named 'comfy.ldm.flux'"),
    ("warp_launch_package", "package_api_version_mismatch",
     # heldout18/rewarped-30
     "  File \"/home/qdinh/Desktop/working/.venv/lib/python3.10/site-packages/rewarped/warp/integrator_featherstone.py"
     "\", line 1718, in simulate\n    wp.launch(\n  File \"/home/qdinh/Desktop/working/.venv/lib/python3.10/"
     "site-packages/warp/context.py\", line 5710, in launch\n    raise RuntimeError(\nRuntimeError: Error launching "
     "kernel 'eval_rigid_contacts', passed 14 arguments but kernel requires 15."),
    ("warp_launch_own", "user_code_error",
     # the person's own kernel and launch, not from the corpus
     "Traceback (most recent call last):\n  File \"/home/kim/sim/step.py\", line 41, in <module>\n    wp.launch("
     "integrate, dim=n, inputs=[x, v, dt], device=\"cuda\")\n  File \"/home/kim/.venv/lib/python3.11/site-packages/"
     "warp/context.py\", line 6120, in launch\n    raise RuntimeError(\nRuntimeError: Error launching kernel "
     "'integrate', passed 3 arguments but kernel requires 4."),
    ("caffe_nccl", "extension_not_compiled",
     # heldout18/py-r-fcn-multigpu-21
     "  File \"/home/ultron/py-R-FCN-multiGPU/tools/../lib/fast_rcnn/train_multi_gpu.py\", line 205, in "
     "train_net_multi_gpu\n    uid = caffe.NCCL.new_uid()\nAttributeError: type object 'NCCL' has no attribute "
     "'new_uid'"),
    ("caffe_nccl", "extension_not_compiled",
     # Caffe's own multi-GPU example on a build without USE_NCCL, not from the corpus
     "  File \"python/train.py\", line 62, in solve\n    nccl.bcast()\nAttributeError: 'NCCL' object has no attribute "
     "'bcast'"),
    ("mesh_processor", "extension_not_compiled",
     # heldout16/hunyuan3d-2-1
     "ModuleNotFoundError: No module named 'hy3dgen.texgen.differentiable_renderer.mesh_processor'\npython "
     "gradio_app.py\n\nfrom .mesh_processor import meshVerticeInpaint\nModuleNotFoundError: No module named "
     "'hy3dgen.texgen.differentiable_renderer.mesh_processor'"),
    ("mesh_processor", "extension_not_compiled",
     # the full traceback of the texture pipeline, not from the corpus
     "Traceback (most recent call last):\n  File \"/root/Hunyuan3D-2/minimal_demo.py\", line 3, in <module>\n    from "
     "hy3dgen.texgen import Hunyuan3DPaintPipeline\n  File \"/root/Hunyuan3D-2/hy3dgen/texgen/pipelines.py\", line 29, "
     "in <module>\n    from .differentiable_renderer.mesh_render import MeshRender\n  File \"/root/Hunyuan3D-2/hy3dgen/"
     "texgen/differentiable_renderer/mesh_render.py\", line 32, in <module>\n    from .mesh_processor import "
     "meshVerticeInpaint\nModuleNotFoundError: No module named 'hy3dgen.texgen.differentiable_renderer."
     "mesh_processor'"),
    ("guarded_release_name", "package_api_version_mismatch",
     # heldout16/openchat-52
     "I have installed flash-attn using `pip3 install --no-build-isolation \"flash-attn<2\"`\nBut an error emerges:\n"
     "File \"openchat/ochat/models/unpadded_llama.py\", line 184, in forward\n    attn_output = flash_attn_varlen_func(\n"
     "                  ^^^^^^^^^^^^^^^^^^^^^^\nNameError: name 'flash_attn_varlen_func' is not defined"),
    ("guarded_release_name", "package_api_version_mismatch",
     # another renamed function of flash-attn 2 at its first use, not from the corpus
     "  File \"/data/proj/models/bert_padding_attn.py\", line 88, in forward\n    out = "
     "flash_attn_varlen_qkvpacked_func(qkv, cu_seqlens, max_s, 0.0, causal=True)\nNameError: name "
     "'flash_attn_varlen_qkvpacked_func' is not defined"),
    ("argparse_choice_cut", "package_api_version_mismatch",
     # heldout16/totalsegmentator-401
     "TotalSegmentator: error: argument -ta/--task: invalid choice: 'total_mr'\nThe MR model used to work fine, "
     "thoughts on why I get this error now?"),
    ("argparse_choice_cut", "package_api_version_mismatch",
     # argparse's line for a subcommand of a later release, not from the corpus
     "$ ns-train splatfacto-w --data data/x\nusage: ns-train [-h] {depth-nerfacto,nerfacto,splatfacto}\nns-train: "
     "error: argument {depth-nerfacto,nerfacto,splatfacto}: invalid choice: 'splatfacto-w'"),
    ("setup_option", "package_api_version_mismatch",
     # heldout17/hab-mobile-manipulation-2
     "When I run this command, the terminal prompts me:\n\nusage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 "
     "[cmd2_opts] ...]\n   or: setup.py --help [cmd1 cmd2 ...]\n   or: setup.py --help-commands\n   or: setup.py cmd "
     "--help\n\nerror: option --bullet not recognized"),
    ("setup_option", "package_api_version_mismatch",
     # apex's former build options under its later setup.py, not from the corpus
     "$ python setup.py install --cuda_ext --cpp_ext\nusage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] "
     "...]\n   or: setup.py --help [cmd1 cmd2 ...]\n\nerror: option --cuda_ext not recognized"),
    ("run_after_editable_install", "python_package_missing",
     # heldout17/depth-anything-3-86
     "On a clean install from `main`, `DepthAnything3` fails to import because `addict` isn't installed...\nconda "
     "create -n da3 python=3.10 -y\nconda activate da3\ngit clone https://github.com/ByteDance-Seed/Depth-Anything-3."
     "git\ncd Depth-Anything-3\npip install -e .\npip install -r requirements.txt\npython -c \"from depth_anything_3."
     "api import DepthAnything3\"\n\nModuleNotFoundError: No module named 'addict'\n  from depth_anything_3/model/"
     "da3.py: from addict import Dict"),
    ("run_after_editable_install", "python_package_missing",
     # a project installed in place, its script run after, not from the corpus
     "git clone https://github.com/foo/splatkit && cd splatkit\npip install -e .\npython scripts/train.py --data "
     "garden\nTraceback (most recent call last):\n  File \"/home/lee/splatkit/scripts/train.py\", line 7, in <module>\n"
     "    from plyfile import PlyData\nModuleNotFoundError: No module named 'plyfile'"),
    ("python2_sdist", "package_no_build_for_platform",
     # heldout18/bpy-build-10
     "Problem with install\npip install bpy && bpy_post_install\n\nresults in:\nCommand \"python setup.py egg_info\" "
     "failed with error code 1 in /tmp/pip-build-y1jbk_c2/bpy/\n...\nubuntu 18.04, Python 2.7.17"),
    ("python2_sdist", "package_no_build_for_platform",
     # pip 9 under Python 2.7 building a Python-3-only release, not from the corpus
     "$ python --version\nPython 2.7.12\n$ pip install open3d-python\nCollecting open3d-python\n  Downloading "
     "open3d-python-0.7.0.tar.gz (1.2MB)\n    Complete output from command python setup.py egg_info:\n    "
     "Traceback (most recent call last):\n      File \"<string>\", line 1, in <module>\n    ---------------------------"
     "-------------\nCommand \"python setup.py egg_info\" failed with error code 1 in /tmp/pip-build-Zq3x/"
     "open3d-python/"),
    ("local_api_404", "package_api_version_mismatch",
     # heldout18/srt-ai-voice-assistant-8
     "GPT-SoVITS切换模型发生错误。报错内容: 404 Client Error: Not Found for url: http://127.0.0.1:9683/set_gpt_weights?"
     "weights_path=E:%5CProgram%20Files%5CGPT-SoVITS-beta0306fix2%5CGPT_weights%5Cxingzou-e15.ckpt"),
    ("local_api_404", "package_api_version_mismatch",
     # httpx's words for a local model server without the route, not from the corpus
     "  File \"/home/u/.venv/lib/python3.11/site-packages/httpx/_models.py\", line 829, in raise_for_status\n    raise "
     "HTTPStatusError(message, request=request, response=self)\nhttpx.HTTPStatusError: Client error '404 Not Found' "
     "for url 'http://localhost:11434/api/embed'\nFor more information check: https://developer.mozilla.org/en-US/"
     "docs/Web/HTTP/Status/404"),
    ("taichi_var_removed", "package_api_version_mismatch",
     # heldout17/deepmulticap-1
     "AttributeError: 'function' object has no attribute 'var'\nTraceback (most recent call last):\n  File "
     "\"render_smpl.py\", line 50, in render_smpl_global_normal\n    camera = t3.Camera(res=res)\n  File \"/workspace/"
     "DeepMultiCap/taichi_render_gpu/taichi_three/transform.py\", line 111, in __init__\n    self.mask = ti.Vector."
     "var(3, ti.f32, self.res)\nAttributeError: 'function' object has no attribute 'var'"),
    ("taichi_var_removed", "package_api_version_mismatch",
     # an old taichi example under a later taichi, not from the corpus
     "Traceback (most recent call last):\n  File \"/home/jo/sim/run.py\", line 30, in <module>\n    grid = ti.Vector."
     "var(2, dt=ti.f32, shape=(128, 128))\nAttributeError: 'function' object has no attribute 'var'"),
    ("linux_wheels_only_windows", "package_no_build_for_platform",
     # flash-attn's plain import on native Windows, not from the corpus
     "Traceback (most recent call last):\n  File \"C:\\Users\\mo\\proj\\infer.py\", line 5, in <module>\n    from "
     "flash_attn import flash_attn_func\nModuleNotFoundError: No module named 'flash_attn'"),
    ("linux_wheels_only_windows", "package_no_build_for_platform",
     # vllm on native Windows, not from the corpus
     "PS D:\\llm> python serve.py\nTraceback (most recent call last):\n  File \"D:\\llm\\serve.py\", line 1, in "
     "<module>\n    from vllm import LLM\nModuleNotFoundError: No module named 'vllm'"),
    ("flash_attn_missing", "python_package_missing",
     # transformers' own check on Linux, not from the corpus
     "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 9, in <module>\n    model = AutoModel."
     "from_pretrained(path, attn_implementation=\"flash_attention_2\")\nImportError: FlashAttention2 has been toggled "
     "on, but it cannot be used due to the following error: the package flash_attn seems to be not installed. Please "
     "refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to "
     "install Flash Attention 2."),
    ("flash_attn_missing_windows", "package_no_build_for_platform",
     # heldout18/internvl-197
     "windows ：ImportError: flash_attn is not installed\nwindows 下使用demo程序，本地加载模型库，运行一直报错：\n    raise "
     "ImportError('flash_attn is not installed.')\nImportError: flash_attn is not installed.\n通过 pip install "
     "flash_attn  一直无法安装成功"),
    ("flash_attn_missing_windows", "package_no_build_for_platform",
     # transformers' check in a Windows venv, not from the corpus
     "  File \"C:\\Users\\mo\\venv\\Lib\\site-packages\\transformers\\modeling_utils.py\", line 1587, in "
     "_flash_attn_2_can_dispatch\n    raise ImportError(f\"{preface} the package flash_attn seems to be not installed. "
     "{install_message}\")\nImportError: FlashAttention2 has been toggled on, but it cannot be used due to the "
     "following error: the package flash_attn seems to be not installed. Please refer to the documentation of "
     "https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2."),
]

NEAR_MISS = [
    # (why, code that must stay out of the first two, text)
    ("setuptools itself missing is no API of a release", "package_api_version_mismatch",
     "Traceback (most recent call last):\n  File \"/usr/bin/dask-worker\", line 5, in <module>\n    from pkg_resources "
     "import load_entry_point\nModuleNotFoundError: No module named 'pkg_resources'"),
    ("FFmpeg's extension of torchaudio is the FFmpeg libraries, not the C++ extension unbuilt", "extension_not_compiled",
     "  File \"/opt/conda/lib/python3.10/site-packages/torchaudio/_extension/utils.py\", line 85, in _init_ffmpeg\n"
     "    raise ImportError(\"FFmpeg libraries are not found. Please install FFmpeg.\") from err\nImportError: FFmpeg "
     "libraries are not found. Please install FFmpeg."),
    ("comfy itself missing: a node run outside ComfyUI, no release of it", "package_api_version_mismatch",
     "Traceback (most recent call last):\n  File \"/home/ana/nodes/my_node/test_node.py\", line 2, in <module>\n    "
     "import comfy.model_management\nModuleNotFoundError: No module named 'comfy'"),
    ("a kernel parameter Warp cannot pack is the value's type, no release", "package_api_version_mismatch",
     "  File \"/home/kim/sim/step.py\", line 41, in <module>\n    wp.launch(integrate, dim=n, inputs=[x, v, dt])\n  File "
     "\"/home/kim/.venv/lib/python3.11/site-packages/warp/context.py\", line 6100, in launch\n    raise RuntimeError(\n"
     "RuntimeError: Error launching kernel, unable to pack kernel parameter type <class 'list'> for param x, expected "
     "array(ndim=1, dtype=vec3f)"),
    ("torch's NCCL bindings are no pycaffe build", "extension_not_compiled",
     "  File \"train.py\", line 12, in <module>\n    uid = torch.cuda.nccl.unique_id()\nAttributeError: module "
     "'torch.cuda.nccl' has no attribute 'unique_id'"),
    ("a Python file of Hunyuan3D-2's renderer is no compiled module", "extension_not_compiled",
     "  File \"/root/Hunyuan3D-2/hy3dgen/texgen/differentiable_renderer/mesh_render.py\", line 30, in <module>\n    "
     "from .mesh_utils import load_mesh\nModuleNotFoundError: No module named 'hy3dgen.texgen.differentiable_renderer."
     "mesh_utils'"),
    ("a name every flash-attn release has is no release's API", "package_api_version_mismatch",
     "  File \"/data/proj/models/attn.py\", line 40, in forward\n    out = flash_attn_func(q, k, v, causal=True)\n"
     "NameError: name 'flash_attn_func' is not defined"),
    ("a short name code forgets to import is no release's API", "package_api_version_mismatch",
     "  File \"/home/ana/proj/smooth.py\", line 14, in smooth\n    return gaussian_filter(img, sigma=2)\nNameError: "
     "name 'gaussian_filter' is not defined"),
    ("a function of the project's own lacking an attribute is no release's API", "package_api_version_mismatch",
     "Traceback (most recent call last):\n  File \"/home/jo/proj/stats.py\", line 8, in <module>\n    s = utils.spread."
     "var(x)\nAttributeError: 'function' object has no attribute 'var'"),
    ("argparse's unrecognized option is the command's own", "package_api_version_mismatch",
     "usage: train.py [-h] [--epochs EPOCHS]\ntrain.py: error: unrecognized arguments: --epoch 10"),
    ("a failed pip build of the project is the build's environment, not this Python", "python_package_missing",
     "pip install -e .\nObtaining file:///home/lee/splatkit\n  Installing build dependencies ... done\n  error: "
     "subprocess-exited-with-error\n  \n  × Getting requirements to build editable did not run successfully.\n  "
     "│ exit code: 1\n  ╰─> [6 lines of output]\n      Traceback (most recent call last):\n        File \"setup.py\", "
     "line 3, in <module>\n          from plyfile import PlyData\n      ModuleNotFoundError: No module named "
     "'plyfile'"),
    ("flash_attn missing on Linux is no platform's lack", "package_no_build_for_platform",
     "Traceback (most recent call last):\n  File \"/home/mo/proj/infer.py\", line 5, in <module>\n    from flash_attn "
     "import flash_attn_func\nModuleNotFoundError: No module named 'flash_attn'"),
    ("a remote site's 404 is no local server's release", "package_api_version_mismatch",
     "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://huggingface.co/api/models/foo/"
     "bar-7b/revision/main"),
    ("pip's egg_info failure under Python 3 is no Python 2 fallback", "package_no_build_for_platform",
     "$ python3 --version\nPython 3.8.10\n$ pip install open3d-python\nCollecting open3d-python\n    Complete output "
     "from command python setup.py egg_info:\n    ----------------------------------------\nCommand \"python "
     "setup.py egg_info\" failed with error code 1 in /tmp/pip-build-Zq3x/open3d-python/"),
    ("flash-attn's missing module on Linux is no platform's lack", "package_no_build_for_platform",
     "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 9, in <module>\n    model = AutoModel."
     "from_pretrained(path, attn_implementation=\"flash_attention_2\")\nImportError: FlashAttention2 has been toggled "
     "on, but it cannot be used due to the following error: the package flash_attn seems to be not installed. Please "
     "refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to "
     "install Flash Attention 2."),
    ("a program's own note that it falls back without flash_attn is no failure", "python_package_missing",
     "Loading checkpoint shards: 100%|██████████| 4/4\nWarning: flash_attn is not installed, falling back to SDPA "
     "attention.\nGenerated 128 tokens in 3.2 s"),
]

ROWS = ["local_api_route_not_found", "setuptools_pkg_resources_packaging_removed", "torchaudio_cpp_extension_missing",
        "warp_launch_argument_count", "caffe_built_without_nccl", "cli_invalid_or_misplaced_choice",
        "setup_py_option_not_recognized", "flash_attn_not_installed"]


@pytest.mark.parametrize("reading,code,text", POSITIVE, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_reading_gives_its_code(reading: str, code: str, text: str) -> None:
    assert code in rule_codes(text), (reading, rule_codes(text, n=4))


@pytest.mark.parametrize("why,code,text", NEAR_MISS, ids=[n[0] for n in NEAR_MISS])
def test_near_miss_keeps_off_the_code(why: str, code: str, text: str) -> None:
    assert code not in rule_codes(text), (why, rule_codes(text, n=4))


def test_own_warp_launch_is_the_code_first() -> None:
    """The person's own launch: their inputs list first, a Warp release second (rules._torch.torch_messages)."""
    text = next(t for r, _, t in POSITIVE if r == "warp_launch_own")
    assert rule_codes(text)[:1] == ["user_code_error"], rule_codes(text, n=4)


def test_setuptools_api_first_outside_a_build() -> None:
    """A program run: the environment's setuptools, newer than the code, first; inside pip's build (round 17's reading,
    test_explain_kinds17_heldout11) the package's build code and its build requirements stay first."""
    text = POSITIVE[1][2]
    assert rule_codes(text)[:1] == ["package_api_version_mismatch"], rule_codes(text, n=4)
    build = ("Collecting apex\n  File \"/tmp/pip-build-env-x/setup.py\", line 7, in <module>\nImportError: cannot "
             "import name 'packaging' from 'pkg_resources' (/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/"
             "pkg_resources/__init__.py)\n")
    assert rule_codes(build) == ["library_bug", "build_dependency_missing"], rule_codes(build, n=4)


@pytest.mark.parametrize("key", ROWS)
def test_rows_match_their_examples(key: str) -> None:
    assert_row_matches_its_example_and_stays_linear("library_messages", key)
