# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 19a (the kinds behind dev16's misses): an exception raised by an installed package's own code (an
AssertionError of its check of what it was given, a SyntaxError of its source under this Python, TorchScript's missing
attribute of a torch type in its scripted code), an assertion of the project's own code, an object of a named class
without the attribute the code asks for, gsplat's block_width check, 3D Gaussian Splatting's scene loader,
pkg_resources' missing distribution, conda 4.x's conflicting specifications, an SELinux AVC denial, Apptainer builds
(no fakeroot command, a failed script section), pip's no-match lines without the versions it saw, a wheel of another
Python, torch.load's weights_only refusal, and a module name with a dash asked of importlib. Each text is written for
the test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # an installed package's own assertion, no frame of the project's shown: the caller of another release first
    ("  File \"/opt/conda/lib/python3.10/site-packages/spconv/pytorch/conv.py\", line 140, in forward\n"
     "    assert input.features.shape[1] == self.in_channels\nAssertionError\n",
     ["package_api_version_mismatch", "library_bug"]),
    # ... called from the project's own code: that code's inputs second
    ("Traceback (most recent call last):\n  File \"tools/voxelize.py\", line 88, in main\n    voxels = gen(points)\n"
     "  File \"/home/u/.local/lib/python3.8/site-packages/cumm/tensorview/__init__.py\", line 21, in gen\n"
     "    assert pts.ndim == 2\nAssertionError\n", ["package_api_version_mismatch", "user_code_error"]),
    # Markdown's bold marks around the exception's line
    ("**File \"D:\\envs\\pc\\Lib\\site-packages\\torchsparse\\nn\\functional\\conv.py\", line 52, in conv3d\n"
     "    assert kernel_size % 2 == 1\nAssertionError**\n", ["package_api_version_mismatch", "library_bug"]),
    # an installed package's source that this Python cannot parse (syntax of a newer Python)
    ("  File \"/usr/local/lib/python3.7/site-packages/nerfacc/grid.py\", line 44\n    if (n := len(aabbs)) == 0:\n"
     "          ^\nSyntaxError: invalid syntax\n", ["library_bug", "package_api_version_mismatch"]),
    # TorchScript: a package's scripted code uses a method of torch's Tensor the installed torch lacks
    ("RuntimeError: \nTried to access nonexistent attribute or method 'nan_to_num' of type 'Tensor'.:\n"
     "  File \"/opt/conda/lib/python3.7/site-packages/torch_scatter/utils.py\", line 12\n"
     "    out = src.nan_to_num()\n          ~~~~~~~~~~~~~~ <--- HERE\n",
     ["package_api_version_mismatch", "library_bug"]),
    # the project's own check of its inputs
    ("Traceback (most recent call last):\n  File \"train.py\", line 41, in <module>\n    ds = Frames(args.root)\n"
     "  File \"/home/u/proj/data/frames.py\", line 12, in __init__\n    assert len(self.images) > 0, \"no images in "
     "root\"\nAssertionError: no images in root\n", ["user_code_error"]),
    # an object of a package's class (imported from it, or Python's suggestion of a renamed member) without the
    # attribute asked for, outside installed code: both readings
    ("from pandas import DataFrame\n...\n    df = df.append(row, ignore_index=True)\nAttributeError: 'DataFrame' "
     "object has no attribute 'append'\n", ["package_api_version_mismatch", "user_code_error"]),
    ("'ViserServer' object has no attribute 'add_point_cloud'. Did you mean: '_add_point_cloud'?\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # gsplat's block_width check (a caller of another gsplat signature)
    ("  File \"/opt/conda/lib/python3.10/site-packages/gsplat/rasterize.py\", line 71, in rasterize_gaussians\n"
     "    assert block_width > 1 and block_width <= 16, \"block_width must be between 2 and 16\"\n"
     "AssertionError: block_width must be between 2 and 16\n", ["package_api_version_mismatch", "library_bug"]),
    # 3D Gaussian Splatting's scene loader: the source folder is neither COLMAP's nor Blender's
    ("python train.py -s ./scenes/garden_images\nOptimizing\nAssertionError: Could not recognize scene type!\n",
     ["user_code_error"]),
    # pkg_resources: a distribution an installed one requires is not installed
    ("  File \"/usr/lib/python3/dist-packages/pkg_resources/__init__.py\", line 787, in resolve\n    raise "
     "DistributionNotFound(req, requirers)\npkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not "
     "found and is required by transformers\n", ["build_dependency_missing"]),
    ("    raise DistributionNotFound(req)\npkg_resources.DistributionNotFound: msgpack-python\n",
     ["build_dependency_missing"]),
    # pkg_resources: an installed dependency outside the range another installed distribution declares
    ("pkg_resources.ContextualVersionConflict: (tornado 6.1 (/usr/lib/python3/dist-packages), "
     "Requirement.parse('tornado<6,>=5'), {'distributed'})\n", ["package_api_version_mismatch"]),
    ("error: numpy 1.16.6 is installed but numpy>=1.18.5 is required by {'pandas'}\n", ["package_api_version_mismatch"]),
    # gsplat's CUDA backend left None (its JIT build found no toolkit, or failed)
    ("  File \"/opt/conda/lib/python3.10/site-packages/gsplat/cuda/_wrapper.py\", line 212, in fully_fused_projection\n"
     "    return _make_lazy_cuda_func(\"fully_fused_projection_fwd\")(means, covars)\nAttributeError: 'NoneType' object "
     "has no attribute 'fully_fused_projection_fwd'\n", ["extension_not_compiled", "cuda_home_missing"]),
    ("gsplat: No CUDA toolkit found. gsplat will be disabled.\n", ["cuda_home_missing", "extension_not_compiled"]),
    # conda 4.x's solver: no build fits the specifications asked for
    ("Solving package specifications: .\nUnsatisfiableError: The following specifications were found to be in "
     "conflict:\n  - python 3.9*\n  - pytorch3d -> python >=3.7,<3.9.0a0\nUse \"conda info <package>\" to see the "
     "dependencies for each package.\n", ["package_no_build_for_platform"]),
    # SELinux refusing a library's text relocation
    ("type=AVC msg=audit(1712345678.123:456): avc:  denied  { execmod } for  pid=4242 comm=\"python\" "
     "path=\"/opt/env/lib/libfoo.so\" dev=\"dm-0\" ino=1234 scontext=unconfined_u:unconfined_r:unconfined_t:s0 "
     "tcontext=unconfined_u:object_r:user_home_t:s0 tclass=file permissive=0\n", ["loader_security_policy"]),
    # Apptainer building without the fakeroot command, then failing
    ("$ apptainer build --fakeroot torch.sif torch.def\nINFO:    fakeroot command not found\nINFO:    Installing some "
     "packages may fail\nINFO:    Starting build...\nFATAL:   While performing build: packer failed to pack: while "
     "unpacking tmpfs: operation not permitted\n", ["build_dependency_missing"]),
    # Apptainer: a script section of the definition file failed
    ("INFO:    Running setup scriptlet\n+ cp -r ./weights /tmp/build-temp-1/rootfs/opt\nFATAL:   While performing "
     "build: failed to run %setup script: exit status 1\n", ["user_code_error", "build_dependency_missing"]),
    # pip's no-match lines without the versions it saw, or with the list cut at the line's end
    ("ERROR: Could not find a version that satisfies the requirement spconv-cu102 (from mmdet3d)\nERROR: No matching "
     "distribution found for spconv-cu102\n", ["package_no_build_for_platform"]),
    ("ERROR: Could not find a version that satisfies the requirement pymeshlab==2023.12 (from versions: \n"
     "    0.1.8, 0.1.9, 0.2, 2021.7)\n", ["package_no_build_for_platform"]),
    # a wheel of another Python (its platform one every Linux of the last years runs)
    ("ERROR: torch-1.4.0-cp36-cp36m-manylinux1_x86_64.whl is not a supported wheel on this platform.\n",
     ["package_no_build_for_platform", "wrong_architecture_binary"]),
    # torch.load's weights_only default (torch 2.6) against a checkpoint of pickled objects
    ("UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do "
     "those steps only if you trust the source of the checkpoint.\n\tWeightsUnpickler error: Unsupported global: "
     "GLOBAL argparse.Namespace was not an allowed global by default.\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # a script in a folder of the project importing the project's own package deep: run by its path, the project's
    # root is not on sys.path
    ("Traceback (most recent call last):\n  File \"tools/export_mesh.py\", line 9, in <module>\n    from splatkit.render."
     "mesh.extract import MeshExtractor\nModuleNotFoundError: No module named 'splatkit'\n", ["user_code_error"]),
    # a module name with a dash asked of importlib: the asking code's bug
    ("  File \"/opt/conda/lib/python3.11/site-packages/vizkit/utils/_deps.py\", line 30, in check\n"
     "    importlib.import_module(name)\nModuleNotFoundError: No module named 'vizkit-svg'\n",
     ["library_bug", "user_code_error"]),
    ("  File \"/home/u/app/plugins.py\", line 8, in load\n    mod = importlib.import_module(\"my-plugin\")\n"
     "ModuleNotFoundError: No module named 'my-plugin'\n", ["user_code_error", "library_bug"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # torch's own assertions check how the code calls torch: not a package of another release
    ("  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py\", line 88, in flatten\n"
     "    assert self.batch_first\nAssertionError\n", "package_api_version_mismatch"),
    # an assertion of the project's own code whose words a table row reads: the row's cause alone
    ("  File \"/work/mmdetection/mmdet/__init__.py\", line 17, in <module>\n    and mmcv_version < digit_version(mmcv_"
     "maximum_version)), \\\nAssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, "
     "<2.2.0.\n", "user_code_error"),
    # None, or a built-in type, without an attribute: not a class of another release
    ("    out = model.encoder(x)\nAttributeError: 'NoneType' object has no attribute 'encoder'\n",
     "package_api_version_mismatch"),
    ("    h = feats.shape[0]\nAttributeError: 'list' object has no attribute 'shape'\n", "package_api_version_mismatch"),
    # a class of the project's own file (nothing shows a package's): its own bug or the user's edit, no rule reading
    ("  File \"/home/u/splat-tools/render.py\", line 80, in <module>\n    alphas = loader.opacities[mask]\n"
     "AttributeError: 'SplatLoader' object has no attribute 'opacities'\n", "package_api_version_mismatch"),
    # a bare class name with nothing showing whose class it is (a class defined in Python prints its bare name)
    ("AttributeError: 'Pipeline' object has no attribute 'run_all'\n", "package_api_version_mismatch"),
    # Apptainer without fakeroot whose command went through (run/exec's own wording, or no FATAL)
    ("INFO:    User not listed in /etc/subuid, trying root-mapped namespace\nINFO:    fakeroot command not found, "
     "using only root-mapped namespace\nFATAL:   could not open image /data/x.sif: failed to retrieve path\n",
     "build_dependency_missing"),
    ("INFO:    fakeroot command not found\nINFO:    Installing some packages may fail\nINFO:    Creating SIF file...\n"
     "INFO:    Build complete: torch.sif\n", "build_dependency_missing"),
    # a toolkit's release said against another (not a Python requirement)
    ("CUDA 11.8 is installed but 12.1 is required by this build\n", "package_api_version_mismatch"),
    # SELinux allowing (an audit of a granted permission)
    ("audit: type=1403 avc:  granted  { setenforce } for  pid=1 comm=\"systemd\" scontext=system_u:system_r:init_t:s0\n",
     "loader_security_policy"),
    # pip finding no torch release another package pins (the versions it saw not shown): no dependency missing
    ("ERROR: No matching distribution found for torch==1.1.0 (from finbert-embedding==0.1.4)\n",
     "build_dependency_missing"),
    # TorchScript on the code's own scripted class: not a torch release's
    ("Tried to access nonexistent attribute or method 'name' of type '__torch__.MyClass'. Did you forget to "
     "initialize an attribute in __init__()?:\n  File \"/opt/conda/lib/python3.9/site-packages/mylib/model.py\", line "
     "10\n", "package_api_version_mismatch"),
    # a SyntaxError in the project's own file
    ("  File \"train.py\", line 12\n    print \"epoch\", i\n    ^\nSyntaxError: Missing parentheses in call to 'print'\n",
     "library_bug"),
    # a released package the text knows, imported deep by the project's script: not the project's own package
    ("  File \"tools/train.py\", line 9, in <module>\n    from mmcv.runner.hooks import HOOKS\n"
     "ModuleNotFoundError: No module named 'mmcv'\n", "user_code_error"),
    # a dash in a name the user typed in prose (Python itself names the module it looked for)
    ("I get: No module named 'pointnet2-ops' when I run train.py\n", "library_bug"),
    # a wheel for another OS stays the platform's alone
    ("ERROR: gsplat-1.4.0+pt23cu118-cp310-cp310-win_amd64.whl is not a supported wheel on this platform.\n"
     "Ubuntu 22.04\n", "package_no_build_for_platform"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


def test_wheel_of_another_python_names_its_own_package():
    f = explain_result("ERROR: torch-1.4.0-cp36-cp36m-manylinux1_x86_64.whl is not a supported wheel on this "
                       "platform.\n", similar=False).findings[0]
    assert f.code == "package_no_build_for_platform" and "torch-1.4.0" in f.title and "kaolin" not in f.title.lower()
