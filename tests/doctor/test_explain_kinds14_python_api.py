# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 14 (the kinds behind dev12's misses at the level of Python code calling an installed library):
a call that does not fit the callee's signature when the text shows the callee coming from a package, and the
libraries whose signatures or names changed between releases in their own words (diff-gaussian-rasterization's
forks, torchmetrics' task, peft's configs, a custom autograd Function's backward, pybind11's overloads, face-alignment's
LandmarksType, notebook 7, sglang's version check, Python 3.11's dataclass defaults); a checkpoint saved on a GPU
index this machine lacks; trimesh's Scene; cuDNN's frontend without an execution plan; the PyG companions without their
compiled libraries. Each text is written for the test (other wordings, versions, callees than the threads); each kind
has near-misses that must NOT get its code, and a plain bug of the user's own code keeps getting no finding."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # a call with another release's signature of a function or class the text shows imported from a package
    ("Traceback (most recent call last):\n  File \"eval.py\", line 4, in <module>\n"
     "    from torchmetrics.functional import f1_score\n  File \"eval.py\", line 40, in evaluate\n"
     "    f1 = f1_score(preds, target, num_classes=10, average='macro', multiclass=True)\n"
     "TypeError: f1_score() got an unexpected keyword argument 'multiclass'\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("  File \"train.py\", line 88, in resume\n    state = torch.load(path, map_location='cpu', weights_only=True)\n"
     "TypeError: load() got an unexpected keyword argument 'weights_only'\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("  File \"viz.py\", line 12, in <module>\n    r = o3d.visualization.rendering.OffscreenRenderer(640, 480, "
     "'', True)\nTypeError: OffscreenRenderer.__init__() takes 3 positional arguments but 5 were given\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # Python before 3.10 prints a bare __init__(): the class is the call's on the traceback's source line
    ("Traceback (most recent call last):\n  File \"finetune.py\", line 3, in <module>\n"
     "    from peft import LoraConfig, get_peft_model\n  File \"finetune.py\", line 20, in main\n"
     "    cfg = LoraConfig(r=8, lora_alpha=16, use_rslora=True)\n"
     "TypeError: __init__() got an unexpected keyword argument 'use_rslora'\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # a fork of the Gaussian rasterizer other than the one the project's code was written for
    ("  File \"gaussian_renderer/__init__.py\", line 52, in render\n    raster_settings = GaussianRasterizationSettings("
     "\nTypeError: __new__() got an unexpected keyword argument 'antialiasing'\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("    raster_settings = GaussianRasterizationSettings(\n"
     "TypeError: GaussianRasterizationSettings.__new__() got an unexpected keyword argument 'include_feature'\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("TypeError: GaussianRasterizationSettings.__new__() missing 3 required positional arguments: 'kernel_size', "
     "'subpixel_offset', and 'antialiasing'\n", ["package_api_version_mismatch", "library_bug"]),
    # torchmetrics 0.11's required task, a class this time
    ("    self.acc = torchmetrics.Accuracy(num_classes=5)\nTypeError: __new__() missing 1 required positional "
     "argument: 'task'\n", ["package_api_version_mismatch"]),
    # an adapter saved by a newer peft
    ("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n",
     ["package_api_version_mismatch"]),
    ("TypeError: AdaLoraConfig.__init__() got an unexpected keyword argument 'exclude_modules'\n",
     ["package_api_version_mismatch"]),
    # a custom autograd Function whose backward takes fewer gradients than its forward returns
    ("  File \"/opt/env/lib/python3.11/site-packages/torch/autograd/function.py\", line 301, in apply\n"
     "    return user_fn(self, *args)\nTypeError: backward() takes 2 positional arguments but 3 were given\n",
     ["library_bug", "user_code_error"]),
    # pybind11's overload resolution failing (Open3D's vectors)
    ("    pcd.points = o3d.utility.Vector3dVector(pts)\nRuntimeError: ...\n"
     "TypeError: __init__(): incompatible constructor arguments. The following argument types are supported:\n"
     "    1. open3d.cpu.pybind.utility.Vector3dVector()\n", ["user_code_error", "package_api_version_mismatch"]),
    ("TypeError: create_from_point_cloud_alpha_shape(): incompatible function arguments. The following argument "
     "types are supported:\n", ["user_code_error", "package_api_version_mismatch"]),
    # a checkpoint's tensors saved on a GPU index this machine lacks (torch sees GPUs)
    ("RuntimeError: Attempting to deserialize object on CUDA device 7 but torch.cuda.device_count() is 4. Please use "
     "torch.load with map_location to map your storages to an existing device.\n",
     ["user_code_error", "gpu_not_exposed_to_process"]),
    # trimesh's Scene where a mesh was expected
    ("    normals = mesh.face_normals\nAttributeError: 'Scene' object has no attribute 'face_normals'\n",
     ["user_code_error"]),
    # the classic notebook's modules, gone from notebook 7
    ("    from notebook.notebookapp import NotebookApp\nModuleNotFoundError: No module named 'notebook.notebookapp'\n",
     ["package_api_version_mismatch"]),
    ("ImportError: cannot import name 'url_path_join' from 'notebook.utils' (unknown location)\n",
     ["package_api_version_mismatch"]),
    # sglang's minimum-version check of a companion
    ("Exception: vllm with minimum required version 0.6.4 is not installed. Please uninstall the old version and "
     "reinstall the latest version by following the instructions at https://docs.vllm.ai\n",
     ["package_api_version_mismatch", "library_bug"]),
    # Python 3.11's dataclasses and a package written for 3.10
    ("ValueError: mutable default <class 'omegaconf.dictconfig.DictConfig'> for field model is not allowed: use "
     "default_factory\n", ["library_bug", "package_api_version_mismatch"]),
    # cuDNN's frontend without an execution plan for the graph
    ("cudnn_frontend::graph error: No execution plans support the graph.\n",
     ["library_bug", "gpu_below_extension_minimum"]),
    # face-alignment's renamed LandmarksType members
    ("    fa = face_alignment.FaceAlignment(face_alignment.LandmarksType._3D, flip_input=False)\n"
     "  File \"/usr/lib/python3.9/enum.py\", line 429, in __getattr__\n    raise AttributeError(name) from None\n"
     "AttributeError: _3D\n", ["package_api_version_mismatch"]),
    ("AttributeError: type object 'LandmarksType' has no attribute '_2halfD'\n", ["package_api_version_mismatch"]),
    # a PyG companion whose compiled libraries are not next to it
    ("  File \"/venv/lib/python3.9/site-packages/torch_scatter/__init__.py\", line 16, in <module>\n"
     "    torch.ops.load_library(importlib.machinery.PathFinder().find_spec(\n"
     "AttributeError: 'NoneType' object has no attribute 'origin'\n",
     ["extension_not_compiled", "companion_built_for_other_torch"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


def test_a_checkpoint_on_a_cpu_only_machine_still_reads_as_no_gpu():
    text = ("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')\n")
    assert rule_codes(text)[0] == "no_gpu"
    assert "user_code_error" not in rule_codes(text, n=3)


NOT = [
    # a signature mismatch of the project's own function, or of a callback a library calls: no sign of a package
    ("  File \"train.py\", line 30, in main\n    loss = compute_loss(pred, gt, reduction='sum')\n"
     "TypeError: compute_loss() got an unexpected keyword argument 'reduction'\n", "package_api_version_mismatch"),
    ("  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
     "    return forward_call(*args, **kwargs)\nTypeError: forward() takes 2 positional arguments but 3 were given\n",
     "package_api_version_mismatch"),
    ("TypeError: __init__() missing 1 required positional argument: 'cfg'\n", "package_api_version_mismatch"),
    ("  File \"train.py\", line 20, in main\n    cfg = MyConfig(r=8)\nTypeError: __init__() got an unexpected keyword "
     "argument 'r'\n", "package_api_version_mismatch"),
    # a user's own config class, a named tuple of the project's own, a Tensor's backward with too many arguments
    ("TypeError: TrainConfig.__init__() got an unexpected keyword argument 'lr'\n", "package_api_version_mismatch"),
    ("TypeError: CameraSettings.__new__() missing 1 required positional argument: 'fov'\n",
     "package_api_version_mismatch"),
    ("TypeError: backward() takes from 1 to 5 positional arguments but 6 were given\n", "library_bug"),
    # a required argument named otherwise than torchmetrics' task
    ("TypeError: run() missing 1 required positional argument: 'tasks'\n", "package_api_version_mismatch"),
    # another object without vertices; a mesh attribute of a Scene the project defines under another name
    ("AttributeError: 'NoneType' object has no attribute 'vertices'\n", "user_code_error"),
    ("AttributeError: 'Scene' object has no attribute 'camera_rig'\n", "user_code_error"),
    # another package's base module; a folder of the project's own named notebook
    ("ModuleNotFoundError: No module named 'notebook_base'\n", "package_api_version_mismatch"),
    ("  File \"/home/u/proj/notebook/base.py\", line 3, in <module>\nImportError: cannot import name 'helper' from "
     "'notebook_tools' (/home/u/proj/notebook_tools.py)\n", "package_api_version_mismatch"),
    # a list, dict or set default: refused by every Python (the dataclass's own bug)
    ("ValueError: mutable default <class 'list'> for field layers is not allowed: use default_factory\n",
     "library_bug"),
    # an enum's own missing member, a None's origin without a package loading its libraries
    ("AttributeError: _2D\n", "package_api_version_mismatch"),
    ("AttributeError: 'NoneType' object has no attribute 'origin'\n", "extension_not_compiled"),
    # a checkpoint on a machine where torch sees no GPU at all is not the calling code's index
    ("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False.\n",
     "user_code_error"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


@pytest.mark.parametrize("text", [
    "  File \"train.py\", line 30, in main\n    loss = compute_loss(pred, gt, reduction='sum')\n"
    "TypeError: compute_loss() got an unexpected keyword argument 'reduction'",
    "TypeError: forward() takes 2 positional arguments but 3 were given",
    "ValueError: mutable default <class 'dict'> for field opts is not allowed: use default_factory",
])
def test_a_plain_bug_of_the_users_code_gets_no_finding(text):
    assert not explain_result(text, similar=False).findings
