# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 17b (the kinds behind dev15's remaining misses): pip finding no release of a package other than
kaolin (package_no_build_for_platform since round 23, kaolin_no_wheel_for_combo worded for that package before), or of
a dependency another package requires (pip's "(from Y)": build_dependency_missing first); conda's solver conflict for a package; pip's build of a source
tree it was given (a folder, a git URL) failing with no compiler line; nvcc refusing a device-only call from code it
compiles for the host; GNU ld's undefined reference to a C++ standard library symbol (an older libstdc++ linked than
the compiler's headers); a package's own compiled module whose DLL is missing on Windows (its wheel's packaging
second); a subpackage used without its import (pytorch3d, scikit-image before 0.20, PIL, matplotlib.pyplot); torch's
companions spconv and PyG's operator packages not installed, or None where their optional import failed; a released
package's named compiled module missing (never built, or an older release's name); Python 2's import error beside a
module built for CPython 3 (dev14's kind); a misaligned address (a kernel's bug second). Each text is written for the
test (other wordings, versions, tools than the threads); each kind has near-misses that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

READINGS = [
    # pip: no release of a package for this interpreter (any package: the corpus' code, worded for it)
    ("ERROR: Could not find a version that satisfies the requirement open3d==0.17.0 (from versions: none)\n"
     "ERROR: No matching distribution found for open3d==0.17.0\n", ["package_no_build_for_platform"]),
    ("ERROR: Could not find a version that satisfies the requirement pymeshlab (from versions: none)\n",
     ["package_no_build_for_platform"]),
    # pip: a dependency of the package being installed found nowhere it looked (--no-index / -f page)
    ("ERROR: Could not find a version that satisfies the requirement iopath (from pytorch3d) (from versions: none)\n",
     ["build_dependency_missing", "package_no_build_for_platform"]),
    ("ERROR: Could not find a version that satisfies the requirement ninja>=1.10 (from gsplat==1.0.0) (from "
     "versions: none)\n", ["build_dependency_missing", "package_no_build_for_platform"]),
    # conda's solver: no build of a package fits the others asked for
    ("UnsatisfiableError: The following specifications were found to be incompatible with each other:\n\nOutput in "
     "format: Requested package -> Available versions\n\nPackage pytorch conflicts for:\ntorchaudio=2.0 -> "
     "pytorch==2.0.0\npytorch=1.13\n", ["package_no_build_for_platform"]),
    # pip building a folder or a git checkout it was given: failed, the compiler's reason not in the text
    ("$ pip install ./submodules/raymarching\n  error: subprocess-exited-with-error\n  ERROR: Failed building wheel "
     "for raymarching\nFailed to build raymarching\n", ["extension_build_failed"]),
    ("pip install git+https://github.com/example/pointops.git\nERROR: Command errored out with exit status 1: "
     "/opt/conda/bin/python -u -c 'import sys, setuptools; sys.argv[0] = '\"'\"'/tmp/pip-req-build-3kd9/setup.py'\"'"
     "\"'' install --record /tmp/pip-record-x/install-record.txt --compile Check the logs for full command output.\n",
     ["extension_build_failed"]),
    # nvcc: a device-only function called from a function compiled for the host too
    ("/src/include/tv/math.h(48): error: calling a __device__ function(\"__logf\") from a __host__ __device__ "
     "function(\"fast_log\") is not allowed\n", ["package_api_version_mismatch", "extension_build_failed"]),
    # GNU ld: a C++ standard library symbol undefined at link (older libstdc++ than the compiler's headers)
    ("Linking CXX executable test_ops\nops.cpp:(.text+0x1a4): undefined reference to `std::__throw_out_of_range_fmt("
     "char const*, ...)'\ncollect2: error: ld returned 1 exit status\n",
     ["libstdcxx_too_old", "host_compiler_unsupported"]),
    # Windows: a package's own compiled module whose DLL is missing; the wheel's packaging second
    ("ImportError: DLL load failed while importing _pymeshlab: The specified module could not be found.\n",
     ["library_not_found", "library_bug"]),
    # a subpackage used without its import: the calling code's, or another installed package's code first
    ("    img = PIL.Image.open(path)\nAttributeError: module 'PIL' has no attribute 'Image'\n",
     ["user_code_error", "library_bug"]),
    ("AttributeError: module 'pytorch3d' has no attribute 'renderer'\n", ["user_code_error", "library_bug"]),
    ("  File \"/usr/local/lib/python3.9/site-packages/shap_e/util/mesh.py\", line 12, in to_mesh\n    v, f, _, _ = "
     "skimage.measure.marching_cubes(vol, 0)\nAttributeError: module 'skimage' has no attribute 'measure'\n",
     ["library_bug", "user_code_error"]),
    # torch's companions not installed: spconv, PyG's operator packages
    ("Traceback (most recent call last):\n  File \"tools/test.py\", line 5, in <module>\n    import spconv\n"
     "ModuleNotFoundError: No module named 'spconv'\n", ["torch_not_installed"]),
    ("ModuleNotFoundError: No module named 'torch_scatter'\n", ["torch_not_installed"]),
    # a released package's named compiled module imported by the calling code: never built, or an older release's
    ("ModuleNotFoundError: No module named 'torch_cluster.radius_cuda'\n",
     ["extension_not_compiled", "package_api_version_mismatch"]),
    # a companion imported optionally (None when its import failed), its function called: the companion missing
    ("  File \"/opt/conda/lib/python3.10/site-packages/torch_geometric/nn/pool/__init__.py\", line 210, in knn\n"
     "    return torch_cluster.knn(x, y, k, batch_x, batch_y)\nAttributeError: 'NoneType' object has no attribute "
     "'knn'\n", ["torch_not_installed"]),
    # Python 2's import error beside a module built for CPython 3: another Python runs the code
    ("-- Installing: build/lib/pyfoo.cpython-36m-x86_64-linux-gnu.so\nTraceback (most recent call last):\n  File "
     "\"demo.py\", line 2, in <module>\n    import pyfoo\nImportError: No module named pyfoo\n", ["kernel_wrong_python"]),
    # a misaligned address: the calling code first, a kernel's bug second
    ("RuntimeError: CUDA error: misaligned address\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
     "assertions.\n", ["user_code_error", "library_bug"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # pip finding releases (another version asked for than it has): no dependency missing; kaolin keeps its own words
    ("ERROR: Could not find a version that satisfies the requirement numpy==3.0 (from versions: 1.26.0, 1.26.4)\n",
     "build_dependency_missing"),
    # pip's "(from -r file)": a requirements file asked for it, no package requires it
    ("ERROR: Could not find a version that satisfies the requirement fvcore (from -r req.txt) (from versions: none)\n",
     "build_dependency_missing"),
    # pip installing a package from PyPI that fails to build a pure wheel (no source tree of the user's)
    ("  ERROR: Failed building wheel for pycocotools\nFailed to build pycocotools\n", "extension_build_failed"),
    # pip installing a folder whose build went through
    ("pip install ./submodules/simple-knn\nSuccessfully installed simple-knn-0.0.0\n", "extension_build_failed"),
    # nvcc's warning for a host function called from host-device code (a warning, not a failed build)
    ("main.cu(12): warning: calling a __host__ function(\"std::vector<int>::size\") from a __host__ __device__ "
     "function(\"Box::count\") is not allowed\n", "extension_build_failed"),
    # the linker's undefined cxx11 string symbol (the ABI flag, not an old libstdc++), or a project's own symbol
    ("main.o: undefined reference to `std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
     ">::_M_create(unsigned long&, unsigned long)'\n", "libstdcxx_too_old"),
    ("main.o: undefined reference to `mylib::Grid::build(int)'\n", "libstdcxx_too_old"),
    # torch's own compiled core missing a DLL: the VC++ runtime or CUDA's DLLs, not a wheel's packaging
    ("    from torch._C import *\nImportError: DLL load failed while importing _C: The specified module could not be "
     "found.\n", "library_bug"),
    # a name missing from a package that is not a subpackage left out of its __init__ (another release's API)
    ("AttributeError: module 'skimage' has no attribute 'marching_cubes_lewiner'\n", "user_code_error"),
    ("AttributeError: module 'numpy' has no attribute 'float'\n", "library_bug"),
    # spconv installed, its 2.x API asked of a 1.x install
    ("ModuleNotFoundError: No module named 'spconv.pytorch'\n", "torch_not_installed"),
    # a package's private compiled module (never built): no other release to blame
    ("ModuleNotFoundError: No module named 'pytorch3d._C'\n", "package_api_version_mismatch"),
    # None where the code called a project's own object, not an optional companion
    ("    out = model.encoder(x)\nAttributeError: 'NoneType' object has no attribute 'encoder'\n",
     "torch_not_installed"),
    # Python 3's import error of a module built for the same Python (no other Python shown)
    ("-- Installing: build/lib/pyfoo.cpython-36m-x86_64-linux-gnu.so\nModuleNotFoundError: No module named 'pyfoo'\n",
     "kernel_wrong_python"),
    # an illegal address stays the calling code's alone
    ("RuntimeError: CUDA error: an illegal memory access was encountered\n", "package_api_version_mismatch"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


# the finding for a package other than kaolin names that package and its own install page, never kaolin
@pytest.mark.parametrize(("text", "pkg"), [
    ("ERROR: Could not find a version that satisfies the requirement open3d==0.17.0 (from versions: none)\n",
     "open3d"),
    ("ERROR: Could not find a version that satisfies the requirement fvcore (from pytorch3d) (from versions: none)\n",
     "fvcore"),
    ("Package cudatoolkit conflicts for:\ntorchvision -> pytorch -> cudatoolkit[version='>=10.1,<10.2']\n",
     "cudatoolkit"),
])
def test_no_release_finding_names_its_own_package(text, pkg):
    found = [f for f in explain_result(text, similar=False).findings if f.code == "package_no_build_for_platform"]
    assert found
    words = " ".join([found[0].title, found[0].fix.why, *found[0].fix.commands]).lower()
    assert pkg in words and "kaolin" not in words


def test_companion_install_command_names_its_own_wheel_page():
    f = explain_result("ModuleNotFoundError: No module named 'spconv'\n", similar=False).findings[0]
    assert f.code == "torch_not_installed" and f.title.startswith("spconv")
    assert any("spconv-cu" in c for c in f.fix.commands)
