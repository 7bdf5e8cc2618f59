# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 35a (heldout19's misses, read by the tool's own message): Python's "partially initialized module P
(most likely due to a circular import)" on a released package P, with no file or the user's own P.py printed (a file
of the user's named like the package imports itself in its place: user_code_error); ctypes' refusal of a union passed
by value (Python 3.7.6/3.8.1+, a library's old declarations: library_bug); squashfuse's unreadable SquashFS image (a
truncated .sif/AppImage: binary_corrupt); a Unix-only standard-library module or name asked on Windows
(package_no_build_for_platform); Slurm's memory refusal retyped 'cannot' (slurm_memory_request_rejected); a released
package's import name missing behind a three-part import (python_package_missing); pip finding no project one letter
off a released one (diffuers: user_code_error); ComfyUI's missing node types (the pack absent or failing to import:
python_package_missing); pxr/carb missing inside Isaac Sim / Isaac Lab (imported before the app: user_code_error);
Python's "'X' object is not subscriptable" on a line of the person's own that indexes it (user_code_error), and an
issue title repeating the exception raised under a frame of the person's own read under that frame; int() refusing the
very value the text's command gives an option (user_code_error); Python's refusal of a relative import outside a package
(a module run as a script, a notebook cell: user_code_error), and a notebook cell shown running one; spconv's tuner
finding no kernel (features of another dtype than the layers', an empty input: user_code_error); Mesa's 'libGL error:
MESA-LOADER' cut short in a title (its DRI driver not loaded: no OpenGL context); nvcc's bound-function and
type-name errors at one line of a torch extension (a member called as a template the older torch declares plain:
source_needs_newer_torch).
Each kind has a wording not from the corpus and near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # CPython Python/ceval.c import_from, the corpus' form (no file printed: the reporter cut it)
    ("ImportError: cannot import name 'WhisperModel' from partially initialized module 'faster_whisper' (most likely "
     "due to a circular import)\nI got the following error, please help!\n", "user_code_error"),
    # the same with the user's file printed
    ("Traceback (most recent call last):\n  File \"/home/u/bot/main.py\", line 1, in <module>\n"
     "    from openai import OpenAI\n  File \"/home/u/bot/openai.py\", line 2, in <module>\n    from openai import OpenAI\n"
     "ImportError: cannot import name 'OpenAI' from partially initialized module 'openai' (most likely due to a "
     "circular import) (/home/u/bot/openai.py)\n", "user_code_error"),
    # Objects/moduleobject.c, before 3.13 and 3.13's form with the module's file
    ("Traceback (most recent call last):\n  File \"C:\\Users\\me\\Desktop\\cv2.py\", line 3, in <module>\n"
     "    img = cv2.imread('a.png')\nAttributeError: partially initialized module 'cv2' has no attribute 'imread' "
     "(most likely due to a circular import)\n", "user_code_error"),
    ("AttributeError: partially initialized module 'trimesh' from '/home/me/work/trimesh.py' has no attribute "
     "'load' (most likely due to a circular import)\n", "user_code_error"),
    # CPython Modules/_ctypes/_ctypes.c converters_from_argtypes, both forms
    ("TypeError: item 1 in _argtypes_ passes a union by value, which is unsupported.\nDuring the build of pyglet on "
     "Debian unstable using Python 3.8 the tests fails.\n", "library_bug"),
    ("Traceback (most recent call last):\n  File \"C:\\Python38\\lib\\site-packages\\comtypes\\__init__.py\", line 375, "
     "in <module>\n    class _cominterface_meta(type):\nTypeError: item 2 in _argtypes_ passes a struct/union with a "
     "bitfield by value, which is unsupported.\n", "library_bug"),
    # squashfuse util.c sqfs_open_image, under Apptainer and an AppImage
    ("FATAL:   container creation failed: image driver mount failure: image driver squashfuse_ll instance exited with "
     "error: squashfuse_ll exited: Something went wrong trying to read the squashfs image.\n", "binary_corrupt"),
    ("$ ./Cura-5.2.AppImage\nThis doesn't look like a squashfs image.\nCannot mount AppImage, please check your FUSE "
     "setup.\n", "binary_corrupt"),
    # Unix-only standard library on Windows (Python 2's form; an installed package importing fcntl)
    ("OS: Windows 8\nTraceback (most recent call last):\n  File \"C:\\Anaconda2\\envs\\tf\\lib\\site-packages\\tensorflow\\"
     "python\\__init__.py\", line 46, in <module>\n    _default_dlopen_flags = sys.getdlopenflags()\nAttributeError: "
     "'module' object has no attribute 'getdlopenflags'\n", "package_no_build_for_platform"),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\me\\proj\\train.py\", line 4, in <module>\n    import "
     "somepkg\n  File \"C:\\Users\\me\\miniconda3\\envs\\ds\\lib\\site-packages\\somepkg\\util.py\", line 9, in "
     "<module>\n    import fcntl\nModuleNotFoundError: No module named 'fcntl'\n", "package_no_build_for_platform"),
    # Slurm's reason as slurmctld words it and as people retype it
    ("$ srun -N 1 hostname\nsrun: error: Unable to allocate resources: Memory specification can not be satisfied\n",
     "slurm_memory_request_rejected"),
    ("srun -N 1 hostname shows memory specification cannot be satisfied. unable to allocate resources\n",
     "slurm_memory_request_rejected"),
    # a released package missing behind a three-part import
    ("from segment_anything import sam_model_registry\nfrom segment_anything.utils.amg import calculate_stability_score\n"
     "ModuleNotFoundError: No module named 'segment_anything'\n", "python_package_missing"),
    (">>> from diffusers.models.attention_processor import AttnProcessor2_0\nTraceback (most recent call last):\n"
     "  File \"<stdin>\", line 1, in <module>\nModuleNotFoundError: No module named 'diffusers'\n",
     "python_package_missing"),
    # pip: a name one letter off a released project, versions shown or not
    ("ERROR: No matching distribution found for diffuers\nThe package name should be diffusers.\n", "user_code_error"),
    ("$ pip install -r requirements.txt\nERROR: Could not find a version that satisfies the requirement "
     "scikit_imgae (from versions: none)\nERROR: No matching distribution found for scikit_imgae\n", "user_code_error"),
    # ComfyUI's frontend, the current dialog and the legacy one
    ("I keep getting a message that says \"this workflow uses custom nodes you haven't installed yet.\"\n",
     "python_package_missing"),
    ("When loading the graph, the following node types were not found:\n  UnetLoaderGGUF\nNodes that have failed to "
     "load will show as red on the graph.\n", "python_package_missing"),
    # Kit's modules inside Isaac Lab / Isaac Sim
    ("Traceback (most recent call last):\n  File \"/home/u/proj/scripts/train.py\", line 15, in <module>\n"
     "    from isaaclab_rl.rsl_rl import handle_deprecated_rsl_rl_cfg\n  File \"/home/u/IsaacLab/source/isaaclab/"
     "isaaclab/utils/mesh.py\", line 14, in <module>\n    from pxr import Usd, UsdGeom\nModuleNotFoundError: No module "
     "named 'pxr'\n", "user_code_error"),
    ("Traceback (most recent call last):\n  File \"/opt/isaac-sim/exts/isaacsim.core.utils/isaacsim/core/utils/"
     "stage.py\", line 9, in <module>\n    import carb\nModuleNotFoundError: No module named 'carb'\n", "user_code_error"),
    # CPython's PyObject_GetItem on the person's own line (the title repeating the last line, as issues do)
    ("TypeError: 'open3d.cuda.pybind.geometry.PointCloud' object is not subscriptable\nTraceback (most recent call "
     "last):\n  File \"visualize.py\", line 11, in <module>\n    pcd.points = o3d.utility.Vector3dVector(cloud[:,:3])\n"
     "TypeError: 'open3d.cuda.pybind.geometry.PointCloud' object is not subscriptable\n", "user_code_error"),
    ("Traceback (most recent call last):\n  File \"/home/me/proj/crop.py\", line 8, in <module>\n"
     "    left = img[0:100, 0:100]\nTypeError: 'PngImageFile' object is not subscriptable\n", "user_code_error"),
    # a KeyError title repeated under the person's own frame
    ("KeyError: 'val_split'\nTraceback (most recent call last):\n  File \"/home/me/proj/train.py\", line 40, in "
     "<module>\n    split = cfg['val_split']\nKeyError: 'val_split'\n", "user_code_error"),
    # int() refusing the value the command gives an option
    ("I used: \"nnUNet_plan_and_preprocess -t Task101_BrainSeg --verify_dataset_integrity\" and get 'ValueError: "
     "invalid literal for int() with base 10: 'Task101_BrainSeg'\n", "user_code_error"),
    ("$ python tools/train.py --gpus=0,1 --epochs 20\nTraceback (most recent call last):\n  File \"/opt/venv/lib/"
     "python3.10/site-packages/trainer/cli.py\", line 30, in main\n    n = int(args.gpus)\nValueError: invalid literal "
     "for int() with base 10: '0,1'\n", "user_code_error"),
    # importlib's words, Python 3 and 2
    ("Traceback (most recent call last):\n  File \"/home/me/repo/lib/models/net.py\", line 3, in <module>\n    from "
     "..utils import load\nImportError: attempted relative import with no known parent package\n", "user_code_error"),
    ("ValueError: Attempted relative import in non-package\n", "user_code_error"),
    # a cell running a relative import (Colab's and IPython 8's frames)
    ("ImportError Traceback (most recent call last)\n[( in <cell line: 33>()\n31 from torch import nn\n---> 33 from "
     "..utils import USE_PEFT_BACKEND\n34 from .lora import LoRACompatibleLinear\n", "user_code_error"),
    ("---------------------------------------------------------------------------\nImportError                      "
     "         Traceback (most recent call last)\nCell In[4], line 2\n      1 import torch\n----> 2 from .models "
     "import UNet\n\nImportError: attempted relative import with no known parent package\n", "user_code_error"),
    # spconv's tuner: 2.1's Python ValueError and 2.3's C++ assertion
    ("ValueError: (\"can't find suitable algorithm for\", <ConvOpType.kForward: 0>)\n", "user_code_error"),
    ("RuntimeError: /io/build/temp.linux-x86_64-cpython-310/spconv/build/core_cc/src/csrc/sparse/convops/convops/"
     "ConvTunerSimple/ConvTunerSimple_tune_and_cache.cc(153)\n!all_profile_res.empty() assert faild. can't find "
     "suitable algorithm for 0\n", "user_code_error"),
    # Mesa's loader line cut short in an issue title
    ("Can't open viewer with the command\"python -m mujoco.viewer\" ; Error info:libGL error: MESA-LOADER...\n",
     "opengl_egl_unavailable"),
    ("glfw window creation fails on Ubuntu 22.04: libGL error: MESA-LOADER\n", "opengl_egl_unavailable"),
    # EDG's triple at one line of a torch extension's .cu
    ("python setup.py install\n  torchsparse/backend/devoxelize/devoxelize_cuda.cu(90): error: a pointer to a bound "
     "function may only be used to call the function\n  torchsparse/backend/devoxelize/devoxelize_cuda.cu(90): error: "
     "type name is not allowed\n  torchsparse/backend/devoxelize/devoxelize_cuda.cu(90): error: expected an "
     "expression\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit status 1\n", "source_needs_newer_torch"),
    ("- pytorch3d/csrc/nearest_neighbor_points/nearest_neighbor_points.cu(231): error: a pointer to a bound function "
     "may only be used to call the function\n- pytorch3d/csrc/nearest_neighbor_points/nearest_neighbor_points.cu(231): "
     "error: type name is not allowed\n", "source_needs_newer_torch"),
]


@pytest.mark.parametrize(("text", "code"), READINGS)
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text), rule_codes(text, n=4)


NEAR_MISSES = [
    # a cycle among the project's own modules (no released package): not read as a shadowing file
    ("AttributeError: partially initialized module 'dialogbox_app_prefs' has no attribute 'prefs' (most likely due to "
     "a circular import)\n", "user_code_error"),
    # a private name asked of the package (its own modules ask it: two opencv releases mixed), not a user's file
    ("AttributeError: partially initialized module 'cv2' has no attribute '_registerMatType' (most likely due to a "
     "circular import)\n", "user_code_error"),
    # the installed package's own files run in the traceback: its own cycle, not a file of the user's
    ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import transformers\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/transformers/__init__.py\", line 26, in <module>\n"
     "    from . import dependency_versions_check\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/transformers/dependency_versions_check.py\", line 16, in "
     "<module>\n    from .utils.versions import require_version\nImportError: cannot import name 'AutoConfig' from "
     "partially initialized module 'transformers' (most likely due to a circular import) "
     "(/opt/conda/lib/python3.10/site-packages/transformers/__init__.py)\n", "user_code_error"),
    # a ctypes prototype of the user's own with a wrong restype (no union): not the union refusal
    ("TypeError: argument 1: <class 'TypeError'>: wrong type\n  File \"mylib.py\", line 7, in <module>\n", "library_bug"),
    # squashfs words of another failure (FUSE absent: the image is fine)
    ("fuse: failed to exec fusermount: No such file or directory\nCannot mount AppImage, please check your FUSE setup.\n"
     "You might still be able to extract the contents of this AppImage\n", "binary_corrupt"),
    # Unix-only names on Linux: not the platform
    ("Traceback (most recent call last):\n  File \"/home/u/x.py\", line 1, in <module>\n    import fcntl\n"
     "ModuleNotFoundError: No module named 'fcntl'\n", "package_no_build_for_platform"),
    ("C:\\Users\\me> python run.py\nAttributeError: module 'os' has no attribute 'makedirss'\n",
     "package_no_build_for_platform"),
    # Slurm refusing GPUs, not memory
    ("sbatch: error: Batch job submission failed: Requested node configuration is not available\n#SBATCH --gres=gpu:8\n",
     "slurm_memory_request_rejected"),
    # a project's own package tree three parts deep stays the project's
    ("Traceback (most recent call last):\n  File \"demo.py\", line 3, in <module>\n    from vision.fair.detectron2.demo "
     "import predictor\nModuleNotFoundError: No module named 'vision'\n", "python_package_missing"),
    # a released project's own name, not found for this platform: not a typo
    ("ERROR: Could not find a version that satisfies the requirement diffusers (from versions: none)\nERROR: No "
     "matching distribution found for diffusers\n", "user_code_error"),
    # a -gpu variant of a project (tensorflow-gpu beside tensorflow-cpu) is no typo
    ("pip3 install --upgrade tensorflow-gpu: No matching distribution found for tensorflow-gpu\n", "user_code_error"),
    # ComfyUI's node pack that imports and fails at run time: not the missing-node dialog
    ("!!! Exception during processing !!! 'NoneType' object has no attribute 'shape'\n  File \"D:\\ComfyUI\\"
     "custom_nodes\\RES4LYF\\sigmas.py\", line 40, in main\n", "python_package_missing"),
    # pxr outside Isaac Sim: usd-core's plain package
    ("Traceback (most recent call last):\n  File \"/home/u/tools/export_usd.py\", line 2, in <module>\n    from pxr "
     "import Usd\nModuleNotFoundError: No module named 'pxr'\n", "user_code_error"),
    # int() refusing a value read from a file, not one the command gives
    ("$ python eval.py --split val\nTraceback (most recent call last):\n  File \"/opt/venv/lib/python3.10/site-packages/"
     "ds/io.py\", line 12, in read\n    n = int(fields[2])\nValueError: invalid literal for int() with base 10: "
     "'nan'\n", "user_code_error"),
    # a cell running an absolute import; a relative import only in the prose after it
    ("ModuleNotFoundError                       Traceback (most recent call last)\nCell In[2], line 1\n----> 1 import "
     "segment_anything\n\nModuleNotFoundError: No module named 'segment_anything'\nthe repo's file does from .utils "
     "import x\n", "user_code_error"),
    # cuDNN finding no convolution algorithm: not spconv's tuner
    ("RuntimeError: Unable to find a valid cuDNN algorithm to run convolution\n", "library_bug"),
    # Mesa's informational loader line: not a driver that failed to load
    ("MESA-LOADER: device is not located on the PCI bus\nRendering with llvmpipe, 60 fps\n", "opengl_egl_unavailable"),
    # a bound function used without its call (a method missing its parentheses), no template at that line
    ("src/kernel.cu(12): error: a pointer to a bound function may only be used to call the function\n"
     "src/kernel.cu(40): error: type name is not allowed\npython setup.py build_ext\n", "source_needs_newer_torch"),
    # 'type' object is not subscriptable: list[int] before Python 3.9, in a package's frame
    ("Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.8/site-packages/whisperx/asr.py\", line 8, "
     "in <module>\n    def f(x: list[int]): pass\nTypeError: 'type' object is not subscriptable\n", "user_code_error"),
]


@pytest.mark.parametrize(("text", "code"), NEAR_MISSES)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text), rule_codes(text, n=4)
