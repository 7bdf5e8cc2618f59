# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 35c: the installers' and build front ends' own messages, read from their sources (cited in
tables/library_messages.csv and the rules): pip's hash mismatch, setuptools' 'invalid command bdist_wheel' (the wheel
package missing), a wheel of the plain linux_<arch> tag refused (another Python); uv's resolver ('there is no version
of', the first-index hint) and its build frontend ('Build backend failed to determine requirements', 'Failed to
download and build'); mamba / libsolv / resolvo (pixi) naming a package no channel has ('does not exist (perhaps a
typo or a missing channel)', 'nothing provides', 'for which no candidates were found'), and the __cuda virtual package
in mamba 2's and resolvo's words; conda's damaged package cache (CondaVerificationError, SafetyError), builds for
another Python and for a newer glibc; apt's packages not located; setuptools-rust's and maturin's missing Rust
compiler; poetry's no matching version.

Each reading: texts that must give the code among the first two findings (in the tool's own words as its source prints
them, in a plausible log; none from the corpus but carla's), and near-misses that share words but not the mechanism."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


NB = "package_no_build_for_platform"

POSITIVE = {
    # pypa/pip exceptions.py HashErrors: a requirements file with hashes; pip's own check of an index's hash
    "pip_hash_requirements": (
        "$ pip install --require-hashes -r requirements.lock\nCollecting torch==2.3.0\n"
        "  Downloading torch-2.3.0-cp310-cp310-manylinux1_x86_64.whl (779.1 MB)\n"
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package "
        "versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have "
        "tampered with them.\n    torch==2.3.0 from https://files.pythonhosted.org/packages/c3/torch-2.3.0-cp310-"
        "cp310-manylinux1_x86_64.whl#sha256=...:\n        Expected sha256 a9cb3b1e4e0dd3ac\n"
        "             Got        58f4c1a38b2e0f19\n", {"binary_corrupt"}),
    "pip_hash_index": (
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package "
        "versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have "
        "tampered with them.\n    nvidia-cudnn-cu12==8.9.2.26 from https://pypi.tuna.tsinghua.edu.cn/packages/"
        "nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl:\n        Expected sha256 5ccb2880\n"
        "             Got        1c6bd0ba\n", {"binary_corrupt"}),
    # pip's InvalidWheel (a wheel that is no zip archive): today's words and pip 20's
    "pip_invalid_wheel": ("Processing ./torch-2.1.0-cp310-cp310-linux_x86_64.whl\nERROR: Wheel 'torch' located at "
                          "/home/u/dl/torch-2.1.0-cp310-cp310-linux_x86_64.whl is invalid.\n", {"binary_corrupt"}),
    "pip_invalid_wheel_old": ("ERROR: open3d has an invalid wheel, File is not a zip file\n", {"binary_corrupt"}),
    # setuptools/_distutils/dist.py get_command_class: an old pip's legacy build; a bare setup.py
    "bdist_wheel_pip": (
        "  Running setup.py bdist_wheel for pycocotools ... error\n  Complete output from command /usr/bin/python3 -u "
        "-c \"import setuptools, tokenize;__file__='/tmp/pip-build-x/pycocotools/setup.py'\" bdist_wheel -d "
        "/tmp/tmpabc:\n  usage: -c [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] ...]\n     or: -c --help "
        "[cmd1 cmd2 ...]\n  error: invalid command 'bdist_wheel'\n  Failed building wheel for pycocotools\n",
        {"build_dependency_missing"}),
    "bdist_wheel_bare": (
        "(venv) $ python setup.py bdist_wheel\nusage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] ...]\n"
        "   or: setup.py --help [cmd1 cmd2 ...]\n   or: setup.py --help-commands\n   or: setup.py cmd --help\n\n"
        "error: invalid command 'bdist_wheel'\n", {"build_dependency_missing"}),
    # pip's tag check against a plain linux_x86_64 wheel (torch-scatter's wheel page, torch's own index)
    "wheel_linux_tag_scatter": (
        "$ pip install torch_scatter-2.1.2+pt21cu121-cp39-cp39-linux_x86_64.whl\nERROR: torch_scatter-2.1.2+pt21cu121-"
        "cp39-cp39-linux_x86_64.whl is not a supported wheel on this platform.\n", {NB}),
    "wheel_linux_tag_torch": (
        "ERROR: torch-1.13.1+cu117-cp38-cp38-linux_x86_64.whl is not a supported wheel on this platform.\n", {NB}),
    # astral-sh/uv crates/uv-resolver/src/pubgrub/report.rs: a local version only another index has; the hint alone
    "uv_no_version_local": (
        "$ uv pip install torch==2.5.1+cu124\n  × No solution found when resolving dependencies:\n  ╰─▶ Because there "
        "is no version of torch==2.5.1+cu124 and you require torch==2.5.1+cu124, we can conclude that your "
        "requirements are unsatisfiable.\n", {NB}),
    "uv_no_versions_hint": (
        "  × Failed to resolve requirements from `build-system.requires`\n  ├─▶ No solution found when resolving: "
        "`hatchling`\n  ╰─▶ Because there are no versions of hatchling and you require hatchling, we can conclude "
        "that your requirements are unsatisfiable.\n\n      hint: `hatchling` was found on https://test.pypi.org/"
        "simple, but not at the requested version (all versions of hatchling). A compatible version may be available "
        "on a subsequent index (e.g., https://pypi.org/simple).\n", {NB}),
    "uv_hint_only": (
        "      hint: `torch` was found on https://download.pytorch.org/whl/cpu, but not at the requested version "
        "(torch==2.5.1+cu124). A compatible version may be available on a subsequent index (e.g., https://"
        "download.pytorch.org/whl/cu124). By default, uv will only consider versions that are published on the "
        "first index that contains a given package, to avoid dependency confusion attacks.\n", {NB}),
    # uv's build frontend (crates/uv-build-frontend/src/lib.rs): uv 0.5's words; 'Failed to download and build'
    "uv_build_requirements_05": (
        "error: Failed to prepare distributions\n  Caused by: Failed to fetch wheel: flash-attn==2.6.3\n  Caused by: "
        "Build backend failed to determine requirements with `build_wheel()` (exit status: 1)\n--- stderr:\n"
        "Traceback (most recent call last):\n  File \"<string>\", line 14, in <module>\n"
        "ModuleNotFoundError: No module named 'torch'\n---\n", {"torch_not_found_at_build"}),
    "uv_download_and_build": (
        "  × Failed to download and build `pytorch3d @ git+https://github.com/facebookresearch/pytorch3d.git`\n"
        "  ╰─▶ Build backend failed to determine metadata through `prepare_metadata_for_build_wheel` (exit status: 1)"
        "\n\n      [stderr]\n      ModuleNotFoundError: No module named 'torch'\n", {"torch_not_found_at_build"}),
    # mamba-org/mamba libmamba/src/solver/problems_graph.cpp; libsolv's problem text; prefix-dev/resolvo (pixi)
    "mamba2_does_not_exist": (
        "$ micromamba create -n gs -c conda-forge python=3.10 pytorch-cuda=11.8\nerror    libmamba Could not solve "
        "for environment specs\n    The following package could not be installed\n    └─ pytorch-cuda =11.8 * does "
        "not exist (perhaps a typo or a missing channel).\ncritical libmamba Could not solve for environment specs\n",
        {NB}),
    "libsolv_nothing_provides": (
        "Looking for: ['pytorch-cuda=12.4', 'pytorch']\n\nEncountered problems while solving:\n  - nothing provides "
        "requested pytorch-cuda 12.4**\n  - nothing provides cuda-cudart >=12.4,<12.5 needed by "
        "pytorch-cuda-12.4-hc786d27_7\n", {NB}),
    "resolvo_no_candidates": (
        "  × failed to solve the conda requirements of 'default' 'linux-64'\n  ╰─▶ Cannot solve the request because "
        "of: open3d * cannot be installed because there are no viable options:\n      └─ open3d 0.18.0 would require\n"
        "         └─ python_abi 3.13.*, for which no candidates were found.\n", {NB}),
    # libsolv's SOLVER_RULE_PKG_REQUIRES on the interpreter (conda-libmamba-solver): every build is for another Python
    "libsolv_requires_python": (
        "Solving environment: failed\n\nLibMambaUnsatisfiableError: Encountered problems while solving:\n  - package "
        "open3d-0.17.0-py38_0 requires python >=3.8,<3.9.0a0, but none of the providers can be installed\n", {NB}),
    "libsolv_requires_python_pin": (
        "Encountered problems while solving:\n  - package pytorch3d-0.7.4-py39_cu117_pyt1131 requires python "
        ">=3.9,<3.10.0a0, but none of the providers can be installed\n", {NB}),
    # the __cuda virtual package in mamba 2's and resolvo's words: the machine shows no NVIDIA driver
    "mamba2_cuda_missing": (
        "error    libmamba Could not solve for environment specs\n    The following package could not be installed\n"
        "    └─ pytorch-cuda 12.1**  is not installable because it requires\n       └─ __cuda, which is missing on "
        "the system.\n", {"no_gpu", "gpu_not_exposed_to_process"}),
    "resolvo_cuda_missing": (
        "  ╰─▶ Cannot solve the request because of: pytorch-gpu * can be installed with any of the following "
        "options:\n      └─ pytorch-gpu 2.5.1 would require\n         └─ __cuda *, for which no candidates were "
        "found.\n", {"no_gpu", "gpu_not_exposed_to_process"}),
    # conda/core/path_actions.py: CondaVerificationError and SafetyError
    "conda_verification": (
        "Preparing transaction: done\nVerifying transaction: failed\n\nCondaVerificationError: The package for "
        "pytorch located at /opt/conda/pkgs/pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0\nappears to be corrupted. "
        "The path 'lib/python3.10/site-packages/torch/lib/libtorch_cuda.so'\nspecified in the package manifest "
        "cannot be found.\n", {"binary_corrupt"}),
    "conda_safety": (
        "Verifying transaction: \\ \nSafetyError: The package for cudatoolkit located at /home/u/anaconda3/pkgs/"
        "cudatoolkit-11.3.1-h2bc3f7f_2\nappears to be corrupted. The path 'lib/libcufft.so.10.4.2.109'\nhas an "
        "incorrect size.\n  reported size: 146772120 bytes\n  actual size: 107263488 bytes\n", {"binary_corrupt"}),
    # conda/exceptions.py UnsatisfiableError: the environment's Python; the system's glibc
    "conda_other_python": (
        "UnsatisfiableError: The following specifications were found\nto be incompatible with the existing python "
        "installation in your environment:\n\nSpecifications:\n\n  - open3d -> python[version='>=3.6,<3.7.0a0|"
        ">=3.7,<3.8.0a0|>=3.8,<3.9.0a0']\n\nYour python: python=3.11\n", {NB}),
    "conda_other_python_pytorch3d": (
        "Solving environment: failed with initial frozen solve. Retrying with flexible solve.\n"
        "UnsatisfiableError: The following specifications were found\nto be incompatible with the existing python "
        "installation in your environment:\n\nSpecifications:\n\n  - pytorch3d -> python[version='>=3.8,<3.9.0a0']"
        "\n\nYour python: python=3.12\n", {NB}),
    "conda_glibc": (
        "UnsatisfiableError: The following specifications were found to be incompatible with your system:\n\n"
        "  - feature:/linux-64::__glibc==2.17=0\n  - feature:|@/linux-64::__glibc==2.17=0\n  - pytorch==2.3.0 -> "
        "libgcc-ng[version='>=12'] -> __glibc[version='>=2.28']\n\nYour installed version is: 2.17\n", {NB}),
    "conda_glibc_cuda_nvcc": (
        "  - feature:/linux-64::__glibc==2.12=0\n  - cuda-nvcc -> __glibc[version='>=2.17,<3.0.a0']\n"
        "Your installed version is: 2.12\n", {NB, "symbol_version_missing"}),
    # libsolv's and resolvo's __glibc: the system's C library older than the builds (or none: not Linux)
    "libsolv_glibc": ("Encountered problems while solving:\n  - nothing provides __glibc >=2.28,<3.0.a0 needed by "
                      "pytorch-2.3.0-py3.10_cuda12.1_cudnn8.9.2_0\n", {NB, "symbol_version_missing"}),
    "resolvo_glibc": ("      └─ sysroot_linux-64 2.34 would require\n         └─ __glibc >=2.34, for which no "
                      "candidates were found.\n", {NB, "symbol_version_missing"}),
    # uv's availability.rs: not in the --find-links folder under --no-index
    "uv_not_in_find_links": ("  ╰─▶ Because torch-scatter was not found in the provided package locations and you "
                             "require torch-scatter, we can conclude that your requirements are unsatisfiable.\n",
                             {NB}),
    # apt-private/private-install.cc, apt-pkg/cacheset.cc (heldout16 carla-2815 is the corpus' own)
    "apt_carla_corpus": (
        "Package carla is not available, but is referred to by another package.\nThis may mean that the package is "
        "missing, has been obsoleted, or\nis only available from another source\n\nE: Package 'carla' has no "
        "installation candidate\n\nThis is after adding carla 0.9.8 repository.", {"user_code_error", NB}),
    "apt_python_pip": (
        "$ sudo apt install python-pip\nReading package lists... Done\nPackage python-pip is not available, but is "
        "referred to by another package.\nThis may mean that the package is missing, has been obsoleted, or\nis only "
        "available from another source\nHowever the following packages replace it:\n  python3-pip\n\nE: Package "
        "'python-pip' has no installation candidate\n", {NB, "user_code_error"}),
    "apt_old_no_quotes": (
        "Package python-opengl is not available, but is referred to by another package.\nThis may mean that the "
        "package is missing, has been obsoleted, or\nis only available from another source\n\nE: Package "
        "python-opengl has no installation candidate\n", {NB, "user_code_error"}),
    # PyO3/setuptools-rust setuptools_rust/build.py; PyO3/maturin's PEP 517 backend
    "rust_setuptools_rust": (
        "      running build_ext\n      running build_rust\n      error: can't find Rust compiler\n\n      If you are "
        "using an outdated pip version, it is possible a prebuilt wheel is available for this package but pip is not "
        "able to install from it.\n      [end of output]\n  ERROR: Failed building wheel for tokenizers\n",
        {"build_dependency_missing"}),
    "rust_maturin": (
        "  × Preparing metadata (pyproject.toml) did not run successfully.\n  ╰─> [6 lines of output]\n\n      Cargo, "
        "the Rust package manager, is not installed or is not on PATH.\n      This package requires Rust and Cargo "
        "to compile extensions. Install it through\n      the system's package manager or via https://rustup.rs/\n",
        {"build_dependency_missing"}),
    # setuptools/_distutils/spawn.py: nvcc run by name (a setup.py's own CUDA compiler) or from a CUDA_HOME without it
    "nvcc_by_name": (
        "building 'knn_cuda' extension\nnvcc -c src/knn.cu -o build/temp.linux-x86_64-cpython-310/src/knn.o "
        "-Xcompiler -fPIC\nerror: command 'nvcc' failed: No such file or directory\n", {"cuda_home_missing"}),
    "nvcc_unable_to_execute": ("unable to execute '/usr/local/cuda/bin/nvcc': No such file or directory\n"
                               "error: command '/usr/bin/gcc' failed with exit status 1\n", {"cuda_home_missing"}),
    # setuptools/discovery.py (61.0+): a repository root of several folders, asked for its build requirements
    "flat_layout_editable": (
        "$ pip install -e .\n  × Getting requirements to build editable did not run successfully.\n  │ exit code: 1\n"
        "  ╰─> [14 lines of output]\n      error: Multiple top-level packages discovered in a flat-layout: "
        "['configs', 'assets', 'lib'].\n\n      To avoid accidental inclusion of unwanted files or directories,\n"
        "      setuptools will not proceed with this build.\n", {"library_bug"}),
    "flat_layout_modules": ("error: Multiple top-level modules discovered in a flat-layout: ['train', 'eval', "
                            "'utils'].\n", {"library_bug", "package_api_version_mismatch"}),
    # setuptools/dist.py check_requirements / check_extras
    "invalid_specifier_new": (
        "  × Getting requirements to build wheel did not run successfully.\n  ╰─> error in moose setup command: "
        "'install_requires' must be a string or iterable of strings containing valid project/version requirement "
        "specifiers; Expected end or semicolon (after version specifier)\n      openpyxl>=2.5.0Pillow>=3.4.1\n",
        {"library_bug", "package_api_version_mismatch"}),
    "invalid_extras_gym": (
        "error in gym setup command: 'extras_require' must be a dictionary whose values are strings or lists of "
        "strings containing valid project/version requirement specifiers.\n", {"library_bug",
                                                                              "package_api_version_mismatch"}),
    # dell/dkms dkms.in: the NVIDIA module not built for a new kernel (dkms 2's line breaks; an Ubuntu report glued)
    "dkms_nvidia_apt": (
        "Setting up nvidia-dkms-535 (535.154.05-0ubuntu0.22.04.1) ...\nBuilding initial module for 6.5.0-14-generic\n"
        "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)\nConsult /var/lib/dkms/nvidia/"
        "535.154.05/build/make.log for more information.\ndpkg: error processing package nvidia-dkms-535 "
        "(--configure):\n", {"driver_broken"}),
    "dkms_nvidia_pacman": (
        "(3/9) Install DKMS modules\n==> dkms install --no-depmod nvidia/580.95.05 -k 7.1.10-arch1-1\nError! Bad "
        "return status for module build on kernel: 7.1.10-arch1-1 (x86_64)Consult /var/lib/dkms/nvidia/580.95.05/"
        "build/make.log for more information.\n", {"driver_broken"}),
    # apt-pkg/algorithms.cc pkgProblemResolver, the line alone
    "apt_held_broken": ("$ sudo apt install cuda-toolkit-12-4\nE: Unable to correct problems, you have held broken "
                        "packages.\n", {"build_dependency_missing"}),
    # pip's editable check (PEP 660): today's words and pip 21.3-22's
    "editable_hook_new": ("$ pip install -e .\nObtaining file:///work/nerfacc\nERROR: Project file:///work/nerfacc "
                          "uses a build backend that is missing the 'build_editable' hook, so it cannot be installed in "
                          "editable mode. Consider using a build backend that supports PEP 660.\n",
                          {"package_api_version_mismatch"}),
    "editable_hook_old": ("ERROR: Project file:///home/u/gaussian-splatting/submodules/simple-knn has a "
                          "'pyproject.toml' and its build backend is missing the 'build_editable' hook. Since it does "
                          "not have a 'setup.py' nor a 'setup.cfg', it cannot be installed in editable mode. Consider "
                          "using a build backend that supports PEP 660.\n", {"package_api_version_mismatch"}),
    # setuptools/config/pyprojecttoml.py validate: a PEP 639 license string read by an older setuptools
    "pyproject_license_old_setuptools": (
        "  × Getting requirements to build editable did not run successfully.\n  │ exit code: 1\n  ╰─> [40 lines of "
        "output]\n      configuration error: `project.license` must be valid exactly by one definition (2 matches "
        "found):\n\n          - keys:\n              'file': {type: string}\n            required: ['file']\n"
        "      ValueError: invalid pyproject.toml config: `project.license`.\n", {"package_api_version_mismatch"}),
    "pyproject_license_bare": ("ValueError: invalid pyproject.toml config: `project.license`.\n",
                               {"package_api_version_mismatch", "library_bug"}),
    # setuptools/dist.py (77.0+): classifiers beside a license expression
    "license_classifiers": (
        "  × Getting requirements to build wheel did not run successfully.\n      setuptools.errors.InvalidConfigError: "
        "License classifiers have been superseded by license expressions (see https://peps.python.org/pep-0639/). "
        "Please remove:\n\n      License :: OSI Approved :: MIT License\n", {"library_bug"}),
    "license_classifiers_bare": ("InvalidConfigError: License classifiers have been superseded by license expressions "
                                 "(see https://peps.python.org/pep-0639/). Please remove:\n",
                                 {"library_bug", "package_api_version_mismatch"}),
    # python-poetry/poetry src/poetry/mixology/incompatibility.py
    "poetry_local_version": (
        "$ poetry add torch==2.0.0+cu118\nUpdating dependencies\nResolving dependencies...\n\nBecause myproj depends "
        "on torch (2.0.0+cu118) which doesn't match any versions, version solving failed.\n", {NB}),
    "poetry_range": (
        "SolverProblemError\n\nBecause detectron-app depends on detectron2 (>=0.6) which doesn't match any versions, "
        "version solving failed.\n", {NB}),
}


NEAR_MISS = {
    # pip's other hash error: hashes missing, not a file that differs
    "pip_hash_missing": ("ERROR: Hashes are required in --require-hashes mode, but they are missing from some "
                         "requirements. Here is a list of those requirements along with the hashes their downloaded "
                         "archives actually had.\n", {"binary_corrupt"}),
    # a wheel refused for its tags: a valid file for another platform, not a damaged one
    "pip_unsupported_not_invalid": ("ERROR: torch-2.1.0-cp310-cp310-win_amd64.whl is not a supported wheel on this "
                                    "platform.\n", {"binary_corrupt"}),
    # a bdist_wheel run that worked; another command setup.py does not know (a distutils-only setup.py, 'develop')
    "bdist_wheel_done": ("  Running setup.py bdist_wheel for pycocotools ... done\n  Stored in directory: /root/.cache"
                         "\nSuccessfully built pycocotools\n", {"build_dependency_missing"}),
    # a macOS wheel on another machine: another platform, not the Python
    "wheel_macos": ("ERROR: torch-2.0.0-cp310-none-macosx_11_0_arm64.whl is not a supported wheel on this "
                    "platform.\n", {NB}),
    # uv's conflict between two requirements: nothing missing from an index
    "uv_conflict": ("  × No solution found when resolving script dependencies:\n  ╰─▶ Because you require "
                    "pandas==2.2.3 and pandas==2.2.2, we can conclude that your requirements are unsatisfiable.\n",
                    {NB}),
    # a program run with uv that lacks torch: no build
    "uv_run_no_torch": ("$ uv run python train.py\nTraceback (most recent call last):\n  File \"train.py\", line 1, "
                        "in <module>\n    import torch\nModuleNotFoundError: No module named 'torch'\n",
                        {"torch_not_found_at_build"}),
    # mamba's own other 'does not exist': a prefix, not a package
    "mamba_prefix": ("critical libmamba Cannot activate, prefix does not exist at: /opt/conda/envs/gs\n", {NB}),
    # libsolv's same rule on another dependency than the interpreter: a conflict, not this Python
    "libsolv_requires_other": ("Encountered problems while solving:\n  - package torchvision-0.15.2-py310_cu118 "
                               "requires pytorch 2.0.1, but none of the providers can be installed\n",
                               {NB}),
    # libsolv's __cuda: the driver, not a channel
    "libsolv_cuda": ("Encountered problems while solving:\n  - nothing provides __cuda needed by "
                     "pytorch-1.11.0-cuda102py310hdf4a2db_202\n", {NB}),
    # conda's other listing: packages missing from the target environment (conda remove), not a damaged cache
    "conda_missing_from_env": ("PackagesNotFoundError: The following packages are missing from the target "
                               "environment:\n  - keyutils\n", {"binary_corrupt"}),
    # conda's __cuda listing: the driver's CUDA (driver_too_old's reading), not the glibc
    "conda_cuda_feature": ("UnsatisfiableError: The following specifications were found to be incompatible with your "
                           "system:\n\n  - feature:/linux-64::__cuda==10.2=0\n  - pytorch-cuda=11.8 -> "
                           "__cuda[version='>=11.8']\n\nYour installed version is: 10.2\n", {"symbol_version_missing"}),
    # a name apt does not know at all: round 25b keeps the distribution's own names out of this code
    "apt_unknown_name": ("E: Unable to locate package python3.12-venv\n", {NB}),
    # apt's other errors: a lock held, archives not fetched
    "apt_lock": ("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2291 (unattended-upgr)\n"
                 "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process "
                 "using it?\n", {NB, "user_code_error"}),
    "apt_fetch": ("E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?\n",
                  {NB, "user_code_error"}),
    # Rust code that does not compile: a compiler present
    "rust_compile_error": ("      error[E0658]: use of unstable library feature 'once_cell'\n      error: could not "
                           "compile `tokenizers` (lib) due to 1 previous error\n", {"build_dependency_missing"}),
    # nvcc that ran and failed: the compile's own output decides, no toolkit missing
    "nvcc_ran_failed": ("error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n", {"cuda_home_missing"}),
    # a package that declares its packages: no discovery refusal, the build's own failure
    "flat_layout_absent": ("  × Getting requirements to build wheel did not run successfully.\n"
                           "      ModuleNotFoundError: No module named 'torch'\n", {"library_bug"}),
    # DKMS failing for another module (VirtualBox's): not the NVIDIA driver
    "dkms_virtualbox": ("Error! Bad return status for module build on kernel: 3.17.0-rc5+ (x86_64)\nConsult "
                        "/var/lib/dkms/virtualbox/4.3.14/build/make.log for more information.\n", {"driver_broken"}),
    # uv's 'not found in the package registry': a name no index has, a misspelling first (round 23's reading)
    "uv_not_in_registry": ("  × No solution found when resolving dependencies:\n  ╰─▶ Because diff-gaussian-"
                           "rasterization was not found in the package registry and you require diff-gaussian-"
                           "rasterization, we can conclude that your requirements are unsatisfiable.\n", {NB}),
    # uv offline: the cache lacks it, nothing about the index's builds
    "uv_offline": ("  ╰─▶ Because torch was not found in the cache and you require torch, we can conclude that your "
                   "requirements are unsatisfiable.\n\n      hint: Packages were unavailable because the network was "
                   "disabled.\n", {NB}),
    # setuptools' other configuration message: a deprecation warning, the build goes on
    "setuptools_license_warning": ("SetuptoolsDeprecationWarning: License classifiers are deprecated.\n!!\n"
                                   "        Please consider removing the following classifiers in favor of a SPDX "
                                   "license expression:\n", {"library_bug", "package_api_version_mismatch"}),
    # poetry's conflict between two constraints: versions exist
    "poetry_conflict": ("Because myproj depends on both numpy (1.26.4) and numpy (2.0.0), version solving "
                        "failed.\n", {NB}),
}


@pytest.mark.parametrize("key", sorted(POSITIVE))
def test_positive(key):
    text, want = POSITIVE[key]
    got = _first_two(text)
    assert want & set(got), (key, got)


@pytest.mark.parametrize("key", sorted(NEAR_MISS))
def test_near_miss(key):
    text, unwanted = NEAR_MISS[key]
    got = _first_two(text)
    assert not (unwanted & set(got)), (key, got)


@pytest.mark.parametrize("key", ("setuptools_bdist_wheel_missing", "conda_package_cache_corrupted",
                                 "mamba_package_does_not_exist", "apt_package_not_located",
                                 "uv_no_version_of_package", "pip_hash_mismatch", "conda_requires_other_python",
                                 "rust_compiler_missing", "conda_incompatible_with_python",
                                 "conda_incompatible_with_glibc", "poetry_no_matching_version",
                                 "conda_virtual_package_cuda_missing", "nvcc_command_absent",
                                 "setuptools_flat_layout_discovery", "setuptools_invalid_requirement_specifier",
                                 "dkms_nvidia_module_build_failed", "apt_unmet_dependencies",
                                 "pip_backend_lacks_build_editable", "setuptools_pyproject_config_invalid",
                                 "setuptools_license_classifiers_superseded", "pip_wheel_not_a_zip"))
def test_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


@pytest.mark.parametrize(("key", "tool", "pkg"), (("apt_python_pip", "apt", "python-pip"),
                                                  ("mamba2_does_not_exist", "conda solver", "pytorch-cuda"),
                                                  ("uv_no_version_local", "uv", "torch"),
                                                  ("poetry_local_version", "poetry", "torch")))
def test_installer_finding_names_its_tool_and_package(key, tool, pkg):
    # the finding is worded for the installer that printed the line, not pip's "from versions"
    f = next(f for f in explain_result(POSITIVE[key][0], similar=False).findings if f.code == NB)
    assert tool in f.title and pkg in f.title and not f.title.startswith("pip"), f.title
