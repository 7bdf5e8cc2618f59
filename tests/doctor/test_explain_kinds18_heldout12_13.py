# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 18 (the kinds behind the misses of heldout12 and heldout13, released): a user's own file named like
the package whose submodule is then missing (Python 3's dotted name, Python 2's bare one), apex's fused optimizers
without their CUDA extensions, torchvision's video_reader backend not built, Compose v1's schema refusing GPU
reservations, COLMAP's unrecognised option, PyMeshLab's missing filter, "Not compiled with GPU support" on a machine
without an NVIDIA GPU (ROCm, another vendor's GPU, macOS), docker's GPU request refused where only an Intel/AMD GPU is
named, cuDNN's EXECUTION_FAILED (a torch build without kernels for the GPU first), GNU ld's "DSO missing from command
line", OpenMMLab's mmcv assertion refusing a version inside its own range, pip's legacy install of an extension failing,
a compiled module's attribute named without quotes, and an extension's wrapper and compiled module of different builds
(pybind11 refusing the wrapper's own call; a private autograd Function given another number of arguments). Each text
is written for the test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get
its code."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

READINGS = [
    # a user's own file named like the package: Python imports it, a module, so the package has no submodules
    ("Traceback (most recent call last):\n  File \"/home/ana/proj/trimesh.py\", line 2, in <module>\n"
     "    import trimesh.exchange.load\nModuleNotFoundError: No module named 'trimesh.exchange'; 'trimesh' is not a "
     "package\n", ["user_code_error"]),
    ("Traceback (most recent call last):\n  File \"kaolin.py\", line 1, in <module>\n    import kaolin\n"
     "  File \"/Users/bo/work/kaolin.py\", line 2, in <module>\n    from kaolin.ops import mesh\n"
     "ImportError: No module named ops\n", ["user_code_error"]),
    # apex built without --cpp_ext/--cuda_ext: its fused optimizers refuse to run
    ("  File \"/opt/conda/lib/python3.8/site-packages/apex/optimizers/fused_lamb.py\", line 74, in __init__\n"
     "RuntimeError: apex.optimizers.FusedLAMB requires cuda extensions\n", ["extension_not_compiled"]),
    ("RuntimeError: FP16_Optimizer requires cuda extensions\n", ["extension_not_compiled"]),
    # torchvision's compiled video decoder exists only in a source build
    (">>> torchvision.set_video_backend(\"video_reader\")\nRuntimeError: video_reader video backend is not available. "
     "Please compile torchvision from source and try again\n", ["extension_not_compiled"]),
    # Compose v1 (< 1.28) validating a file that reserves GPUs the Compose specification's way
    ("$ docker-compose up\nERROR: The Compose file './compose.yaml' is invalid because:\nservices.trainer.deploy."
     "resources.reservations value Additional properties are not allowed ('devices' was unexpected)\n",
     ["package_api_version_mismatch"]),
    ("docker-compose 1.25.0 says 'devices' property is not allowed under reservations\n",
     ["package_api_version_mismatch"]),
    # COLMAP given an option of another release (a script written for it), else a misspelt one
    ("colmap feature_extractor --database_path db.db --image_path images --FeatureExtraction.use_gpu 1\n"
     "ERROR: Failed to parse options - unrecognised option '--FeatureExtraction.use_gpu'.\n",
     ["package_api_version_mismatch", "user_code_error"]),
    ("Failed to parse options - unrecognised option '--Mapper.ba_global_max_num_iterations=30'.\n",
     ["package_api_version_mismatch", "user_code_error"]),
    # PyMeshLab's filter names of another release (2022.2 renamed them all)
    ("ms.apply_filter('surface_reconstruction_screened_poisson', depth=9)\npymeshlab.pmeshlab.PyMeshLabException: "
     "Failed to apply filter: surface_reconstruction_screened_poisson. Filter does not exists. Take a look at "
     "MeshSet.print_filter_list function.\n", ["package_api_version_mismatch", "user_code_error"]),
    # an extension's CUDA code on a machine without an NVIDIA GPU: ROCm, another vendor's GPU, a Mac
    ("torch 2.4.1+rocm6.1 on a Radeon RX 7900 XTX\n  File \"pytorch3d/ops/knn.py\", line 72, in forward\n"
     "RuntimeError: Not compiled with GPU support\n", ["no_gpu", "extension_not_compiled"]),
    ("MacBook Pro M3, macOS 14\nRuntimeError: Not compiled with GPU support\n", ["no_gpu", "extension_not_compiled"]),
    # docker's GPU request where the machine's only GPU is Intel's
    ("Laptop: Intel(R) Iris Xe Graphics, Ubuntu 24.04\n$ docker run --rm --gpus all ollama/ollama\n"
     "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n",
     ["no_gpu", "gpu_not_exposed_to_process"]),
    # cuDNN failing to launch its kernels: mostly a torch build without kernels for this GPU (CUDA 10.x on Ampere)
    ("torch 1.5.1+cu101, RTX 3080\n  File \"torch/nn/modules/conv.py\", line 416, in _conv_forward\n"
     "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n", ["torch_wheel_lacks_gpu_arch", "user_code_error"]),
    # GNU ld finding a symbol only in a library the link line does not name
    ("[100%] Linking CXX executable render_app\n/usr/bin/ld: CMakeFiles/render_app.dir/app.cpp.o: undefined "
     "reference to symbol '_ZTVN10__cxxabiv117__class_type_infoE@@CXXABI_1.3'\n/usr/bin/ld: /usr/lib/x86_64-linux-gnu/"
     "libstdc++.so.6: error adding symbols: DSO missing from command line\n",
     ["library_shadowed_older_copy", "library_bug"]),
    ("/usr/bin/ld: main.o: undefined reference to symbol 'dlopen@@GLIBC_2.2.5'\n"
     "/usr/bin/ld: /lib/x86_64-linux-gnu/libdl.so.2: error adding symbols: DSO missing from command line\n",
     ["library_bug", "user_code_error"]),
    # OpenMMLab's version assertion refusing an mmcv inside the range it names: the check compares wrongly
    ("AssertionError: MMCV==1.5.0 is used but incompatible. Please install mmcv>=1.4.2, <=1.5.\n",
     ["library_bug", "package_api_version_mismatch"]),
    # pip's legacy install (setup.py install) of an extension failing, its reason not shown
    ("  Running setup.py install for pytorch3d ... error\n  error: legacy-install-failure\n",
     ["extension_build_failed"]),
    # a compiled module's attribute written without quotes (a report's placeholder)
    ("AttributeError: module 'tinycudann_bindings_86._C' has no attribute create_network_with_input_encoding\n",
     ["extension_not_compiled", "package_api_version_mismatch"]),
    # an extension's wrapper and its compiled module of different builds
    ("  File \"/home/u/nerf/raymarching/raymarching.py\", line 212, in forward\n"
     "    _backend.march_rays_train(rays_o, rays_d, grid, bound, dt_gamma, max_steps, N, C, H, nears, fars)\n"
     "TypeError: march_rays_train(): incompatible function arguments. The following argument types are supported:\n",
     ["package_api_version_mismatch", "library_bug"]),
    ("TypeError: _TruncExp.forward() takes 2 positional arguments but 3 were given\n",
     ["package_api_version_mismatch", "library_bug"]),
    # an import-time crash that comes and goes with another package installed: their native libraries clash
    ("$ python -c \"import open3d\"\nSegmentation fault (core dumped)\nIt happens only when I have pyrender "
     "installed, import open3d alone works in a fresh env; uninstalling pyrender fixes it.\n",
     ["native_library_conflict", "library_bug"]),
    # a failure inside a library the text says was just upgraded (X==V): that release's bug, else code written for the
    # release before (an API it changed)
    ("Since upgrading to `ipywidgets==8.0.1` the slider fails:\n  File \"/opt/conda/lib/python3.10/site-packages/"
     "ipywidgets/widgets/widget_int.py\", line 50, in __init__\nTraitError: The 'readout_format' trait of an "
     "IntSlider instance expected a valid format\n", ["library_bug", "package_api_version_mismatch"]),
    # Windows' missing procedure while importing a _C in a text about a torch extension (not torch's own import)
    ("Built nvdiffrast on Windows 11 against torch 2.1, then upgraded torch\nImportError: DLL load failed while "
     "importing _C: The specified procedure could not be found.\n", ["abi_torch_version_mismatch"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # the package's own __init__ importing its submodule (no file of the user's own); a top-level module missing beside
    # a user's file of another name
    ("  File \"/usr/lib/python3/dist-packages/trimesh/__init__.py\", line 4, in <module>\n    import trimesh.exchange\n"
     "ModuleNotFoundError: No module named 'trimesh.exchange'\n", "user_code_error"),
    ("  File \"/home/ana/proj/open3d.py\", line 1, in <module>\n    import numpy\n"
     "ModuleNotFoundError: No module named 'numpy'\n", "user_code_error"),
    # another library's 'requires cuda extensions'; apex's optimizer working
    ("RuntimeError: energon_scale_mask requires cuda extensions\n", "package_api_version_mismatch"),
    # the pyav backend chosen; torchvision's other backend messages
    ("torchvision.set_video_backend('pyav') ok\n", "extension_not_compiled"),
    # a compose file refused for another property
    ("services.web value Additional properties are not allowed ('gpus' was unexpected)\n",
     "package_api_version_mismatch"),
    # another tool's unknown option; COLMAP failing for another reason
    ("ffmpeg: Unrecognized option 'hwaccel_outputformat'.\n", "package_api_version_mismatch"),
    ("ERROR: Failed to parse options for unknown reason.\n", "package_api_version_mismatch"),
    # 'not compiled with GPU support' on an NVIDIA machine: not no GPU
    ("RTX 4090, driver 550.54.14\nRuntimeError: Not compiled with GPU support\n", "no_gpu"),
    # docker's GPU request refused beside an NVIDIA GPU named (the toolkit's, not no GPU)
    ("Intel(R) UHD Graphics 630 and an RTX 2070 (driver 535.104.05)\n$ docker run --gpus all img\ndocker: Error "
     "response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n", "no_gpu"),
    # cuDNN's other statuses keep their own readings
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous "
     "input.\n", "torch_wheel_lacks_gpu_arch"),
    # the linker's other errors: a library missing altogether
    ("/usr/bin/ld: cannot find -lGL\ncollect2: error: ld returned 1 exit status\n", "library_shadowed_older_copy"),
    # mmcv outside the range (the check is right); an rc release (ordered otherwise)
    ("AssertionError: MMCV==1.2.0 is used but incompatible. Please install mmcv>=1.3.8, <=1.5.0.\n", "library_bug"),
    ("AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.\n", "library_bug"),
    # pip's legacy install that worked; one of a pure-Python package
    ("  Running setup.py install for apex ... done\nSuccessfully installed apex-0.1\n", "extension_build_failed"),
    ("  Running setup.py install for pyyaml ... error\n", "extension_build_failed"),
    # pybind11 refusing the user's own call of a library's function; a module's forward() given extra arguments
    ("  File \"train.py\", line 30, in <module>\n    pcd.points = o3d.utility.Vector3dVector(pts)\nTypeError: "
     "__init__(): incompatible constructor arguments. The following argument types are supported:\n",
     "library_bug"),
    ("TypeError: Encoder.forward() takes 2 positional arguments but 3 were given\n", "package_api_version_mismatch"),
    # an upgrade of another package than the one failing
    ("Since upgrading to `jupyterlab==4.1.0` the widget fails:\n  File \"/opt/conda/lib/python3.10/site-packages/"
     "ipywidgets/widgets/widget.py\", line 500, in __init__\nTraitError: The 'value' trait of an IntSlider instance "
     "expected an int, not the float 3.5.\n", "package_api_version_mismatch"),
    # a crash where the user reinstalled the same package (no other package decides it)
    ("Segmentation fault (core dumped) at import. I tried pip uninstall open3d and reinstalling, still crashes.\n",
     "native_library_conflict"),
    # torch's own _C failing in a text that names an extension
    ("Installed nvdiffrast on Windows 11\n  File \"C:\\Python311\\Lib\\site-packages\\torch\\__init__.py\", line 139, in "
     "<module>\n    from torch._C import *\nImportError: DLL load failed while importing _C: The specified procedure "
     "could not be found.\n", "abi_torch_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)
