# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32a (the build side): pip failing to build a CUDA extension that only a project's source tree builds
(tables/source_built_modules.csv: tinycudann, freqencoder, diff_gaussian_rasterization, ...) is that extension's build
(extension_build_failed); CMake's "CMAKE_CUDA_ARCHITECTURES must be non-empty if set" (an empty architecture list);
torch's c10/util/C++17.h "#error You need C++17 to compile PyTorch" read as the cxx17_required row; dm_control's
mjbindings that its setup.py generates (extension_not_compiled when a checkout lacks them); SparseConvNet's
'sparseconvnet.SCN', whose sources' folder has the compiled module's name (extension_not_compiled); apt's unmet
dependencies (build_dependency_missing, the apt side of dpkg's row); Bend's hvm built without nvcc on PATH ('CUDA not
available!' after 'Error reading result from hvm'); CTranslate2's classes missing when its compiled _ext was not built
(its __init__.py swallows that ImportError); instant-ngp's testbed executable, renamed instant-ngp; a NameError for a
source-built module (RAFT-Stereo's corr_sampler, RAFT's alt_cuda_corr, imported inside try/except).
Each kind has a wording not from the corpus and near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # pip failing to build a source-built CUDA extension (its setup.py names the distribution as the module)
    ("  Building wheel for tinycudann (setup.py) ... error\n  ERROR: Failed building wheel for tinycudann\n"
     "  Running setup.py clean for tinycudann\nFailed to build tinycudann\n"
     "ERROR: Could not build wheels for tinycudann, which is required to install pyproject.toml-based projects\n",
     "extension_build_failed"),
    ("$ pip install ./freqencoder\nProcessing ./freqencoder\n  error: subprocess-exited-with-error\n"
     "ERROR: Failed building wheel for freqencoder\nFailed to build freqencoder\n", "extension_build_failed"),
    ("Building wheels for collected packages: diff_gaussian_rasterization\n"
     "  Building wheel for diff_gaussian_rasterization (setup.py) ... error\n"
     "  ERROR: Failed building wheel for diff_gaussian_rasterization\n", "extension_build_failed"),
    # CMake's empty CUDA architecture list, in CMake >= 3.20's module and in 3.18's inline check
    ("-- The CUDA compiler identification is NVIDIA 12.1.105\n"
     "CMake Error at /usr/share/cmake-3.22/Modules/Internal/CMakeCUDAArchitecturesValidate.cmake:7 (message):\n"
     "  CMAKE_CUDA_ARCHITECTURES must be non-empty if set.\nCall Stack (most recent call first):\n"
     "  /usr/share/cmake-3.22/Modules/CMakeDetermineCUDACompiler.cmake:112 (cmake_cuda_architectures_validate)\n"
     "  CMakeLists.txt:4 (project)\n-- Configuring incomplete, errors occurred!\n", "extension_build_failed"),
    ("CMake Error at /opt/cmake/share/cmake-3.18/Modules/CMakeDetermineCUDACompiler.cmake:277 (message):\n"
     "  CMAKE_CUDA_ARCHITECTURES must be non-empty if set.\nCall Stack (most recent call first):\n"
     "  CMakeLists.txt:2 (project)\n", "extension_build_failed"),
    # ... and a value CMake refuses (torch's 8.6 or nvcc's sm_86 form, where CMake wants 86)
    ("CMake Error at /usr/share/cmake-3.26/Modules/Internal/CMakeCUDAArchitecturesValidate.cmake:7 (message):\n"
     "  CMAKE_CUDA_ARCHITECTURES:\n\n    sm_86\n\n  is not one of the following:\n\n"
     "    * a semicolon-separated list of integers, each optionally\n      followed by '-real' or '-virtual'\n"
     "    * a special value: all, all-major, native\n\nCall Stack (most recent call first):\n", "extension_build_failed"),
    # torch's own header refusing a pre-C++17 compile (an extension's setup.py passing -std=c++14)
    ("/opt/conda/lib/python3.10/site-packages/torch/include/c10/util/C++17.h:24:2: error: #error You need C++17 to "
     "compile PyTorch\n   24 | #error You need C++17 to compile PyTorch\n      |  ^~~~~\n"
     "error: command '/usr/bin/gcc' failed with exit code 1\n", "library_bug"),
    ("torch/include/c10/util/C++17.h:27:2: error: #error You need C++17 to compile PyTorch\n", "host_compiler_unsupported"),
    # dm_control's generated MuJoCo bindings missing from a checkout
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    from dm_control import suite\n"
     "  File \"/home/u/src/dm_control/dm_control/mujoco/wrapper/mjbindings/__init__.py\", line 20, in <module>\n"
     "    from dm_control.mujoco.wrapper.mjbindings import constants\n"
     "ImportError: cannot import name 'constants' from partially initialized module "
     "'dm_control.mujoco.wrapper.mjbindings' (most likely due to a circular import) "
     "(/home/u/src/dm_control/dm_control/mujoco/wrapper/mjbindings/__init__.py)\n", "extension_not_compiled"),
    ("ImportError: cannot import name 'enums' from 'dm_control.mujoco.wrapper.mjbindings' "
     "(/work/dm_control/dm_control/mujoco/wrapper/mjbindings/__init__.py)\n", "extension_not_compiled"),
    # SparseConvNet's SCN: the sources' folder imported in place of the compiled module
    ("  File \"/home/u/SparseConvNet/sparseconvnet/metadata.py\", line 17, in Metadata\n"
     "    return getattr(sparseconvnet.SCN, 'Metadata_%d' % dim)()\n"
     "AttributeError: module 'sparseconvnet.SCN' has no attribute 'Metadata_3'\n", "extension_not_compiled"),
    ("AttributeError: module 'sparseconvnet.SCN' has no attribute 'cuda_float_SubmanifoldConvolution_updateOutput'\n",
     "extension_not_compiled"),
    # RAFT-Stereo's / RAFT's correlation samplers, imported inside try/except: unbuilt, a NameError at first use
    ("  File \"/home/u/RAFT-Stereo/core/corr.py\", line 22, in forward\n"
     "    corr, = corr_sampler.forward(volume, coords, radius)\n"
     "NameError: name 'corr_sampler' is not defined\n", "extension_not_compiled"),
    ("  File \"/data/RAFT/core/corr.py\", line 80, in __call__\n"
     "    corr, = alt_cuda_corr.forward(fmap1_i, fmap2_i, coords_i, r)\n"
     "NameError: name 'alt_cuda_corr' is not defined\n", "extension_not_compiled"),
    ("Traceback (most recent call last):\n  File \"demo.py\", line 9, in <module>\n    import corr_sampler\n"
     "ModuleNotFoundError: No module named 'corr_sampler'\n", "extension_not_compiled"),
    # CMake's generator without its build program (make or ninja not installed)
    ("      *** Configuring CMake...\n      loading initial cache file /tmp/tmpx/build/CMakeInit.txt\n"
     "      CMake Error: CMake was unable to find a build program corresponding to \"Ninja\".  CMAKE_MAKE_PROGRAM is "
     "not set.  You probably need to select a different build tool.\n"
     "      CMake Error: CMAKE_C_COMPILER not set, after EnableLanguage\n"
     "      -- Configuring incomplete, errors occurred!\n      *** CMake configuration failed\n",
     "build_dependency_missing"),
    # apt unable to install a package whose dependency no configured repository has (Docker's repository not set up)
    ("$ sudo apt-get install -y nvidia-docker2\nReading package lists... Done\nBuilding dependency tree\n"
     "Some packages could not be installed. This may mean that you have\nrequested an impossible situation.\n"
     "The following packages have unmet dependencies:\n"
     " nvidia-docker2 : Depends: docker-ce (>= 18.06.0~ce~3-0~ubuntu) but it is not installable or\n"
     "                  docker-ee (>= 18.06.0~ce~3-0~ubuntu) but it is not installable\n"
     "E: Unable to correct problems, you have held broken packages.\n", "build_dependency_missing"),
    ("E: Unmet dependencies. Try 'apt --fix-broken install' with no packages (or specify a solution).\n",
     "build_dependency_missing"),
    # Bend's runtime (hvm) installed while nvcc was not on PATH: built without its CUDA backend
    ("$ bend run-cu sorter.bend -s\nErrors:\nError reading result from hvm. Output :\nCUDA not available!\n\n",
     "cuda_home_missing"),
    # CTranslate2's compiled module never built: its classes missing from the package
    ("  File \"/opt/venv/lib/python3.11/site-packages/faster_whisper/transcribe.py\", line 128, in __init__\n"
     "    self.model = ctranslate2.models.Whisper(\n"
     "AttributeError: module 'ctranslate2.models' has no attribute 'Whisper'\n", "extension_not_compiled"),
    (">>> import ctranslate2\n>>> ctranslate2.Translator('ende_ctranslate2/', device='cpu')\n"
     "AttributeError: module 'ctranslate2' has no attribute 'Translator'\n", "extension_not_compiled"),
    # instant-ngp's executable renamed from testbed to instant-ngp
    ("~/instant-ngp$ ./build/testbed --scene data/nerf/fox\nbash: ./build/testbed: No such file or directory\n",
     "package_api_version_mismatch"),
    ("PS C:\\src\\instant-ngp> .\\build\\testbed.exe --scene data\\nerf\\fox\n"
     ".\\build\\testbed.exe : The term '.\\build\\testbed.exe' is not recognized as the name of a cmdlet, function, "
     "script file, or operable program.\n", "package_api_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), READINGS)
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NEAR_MISSES = [
    # a pure-Python or non-CUDA package whose wheel failed: not read as a CUDA extension's build
    ("ERROR: Failed building wheel for pyyaml\nFailed to build pyyaml\n", "extension_build_failed"),
    ("ERROR: Could not build wheels for tokenizers, which is required to install pyproject.toml-based projects\n",
     "extension_build_failed"),
    # CMake given an architecture it accepts syntactically that nvcc refuses: nvcc's code, not the empty list
    ("CMake Error at /usr/share/cmake-3.22/Modules/Internal/CMakeCUDAArchitecturesValidate.cmake:7 (message):\n"
     "  CMAKE_CUDA_ARCHITECTURES must be set\n", "extension_build_failed"),
    # C++17 said by a user, not torch's #error
    ("I think you need C++17 to compile this project, my gcc is 5.4\n", "host_compiler_unsupported"),
    # another name missing from dm_control's bindings package (a release without a function): not the generated files
    ("ImportError: cannot import name 'mjlib' from 'dm_control.mujoco.wrapper.mjbindings.functions' "
     "(/usr/lib/python3/site-packages/dm_control/mujoco/wrapper/mjbindings/functions.py)\n", "extension_not_compiled"),
    ("ImportError: cannot import name 'constants' from 'dm_control.utils' "
     "(/usr/lib/python3.10/site-packages/dm_control/utils/__init__.py)\n", "extension_not_compiled"),
    # a Python module of SparseConvNet lacking a name: not the compiled SCN
    ("AttributeError: module 'sparseconvnet' has no attribute 'SubmanifoldConvolution2'\n", "extension_not_compiled"),
    # a NameError of the person's own name (not a source-built module): their code, not an extension unbuilt
    ("  File \"/home/u/proj/train.py\", line 40, in main\n    out = my_sampler(x)\n"
     "NameError: name 'my_sampler' is not defined\n", "extension_not_compiled"),
    # CMake told to use a generator it does not know at all: a typo in -G, not a build tool missing
    ("CMake Error: Could not create named generator Unix Makefile\n", "build_dependency_missing"),
    # apt that installed everything, and a package apt cannot find at all: not an unmet dependency
    ("The following NEW packages will be installed:\n  nvidia-docker2\n0 upgraded, 1 newly installed, 0 to remove\n",
     "build_dependency_missing"),
    # a script's own "CUDA not available!" (torch finds no GPU), not hvm's
    ("$ python train.py\nCUDA not available!\nTraining on CPU\n", "cuda_home_missing"),
    # a name CTranslate2's compiled module never had (a typo, or a faster-whisper helper): not the module missing
    ("AttributeError: module 'ctranslate2' has no attribute 'WhisperModel'\n", "extension_not_compiled"),
    # CTranslate2's library not found by the loader: that library first, not the compiled module unbuilt
    ("AttributeError: module 'ctranslate2' has no attribute 'Translator'\n"
     "ImportError: libctranslate2.so: cannot open shared object file: No such file or directory\n",
     "extension_not_compiled"),
    # instant-ngp's testbed running and failing: not a missing executable
    ("./build/testbed --scene data/nerf/fox\nUncaught exception: Could not initialize GLFW window\n",
     "package_api_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), NEAR_MISSES)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=2), (text, rule_codes(text, n=4))


@pytest.mark.parametrize(("table", "key"), [("library_messages", "cmake_cuda_architectures_empty"),
                                            ("library_messages", "dm_control_mjbindings_not_generated"),
                                            ("library_messages", "cmake_cuda_architectures_invalid"),
                                            ("library_messages", "apt_unmet_dependencies"),
                                            ("library_messages", "cmake_build_program_not_found"),
                                            ("library_messages", "hvm_built_without_cuda"),
                                            ("library_messages", "ctranslate2_ext_not_built"),
                                            ("library_messages", "instant_ngp_testbed_renamed"),
                                            ("cpp_extension_checks", "cxx17_required")])
def test_rows_match_their_examples(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)
