# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 25b (the released parts' environment misses, read from the mechanisms of the other GPU frameworks,
platforms and builds): a container's empty libcuda.so.1 placeholder (the GPU not given to it); CPU-only builds told by
their own framework (onnxruntime's get_device() / providers, llama.cpp's "BLAS = 0", jax's unknown GPU backend,
Lightning finding no GPU); jaxlib's CUDA kernels missing a CUDA runtime symbol and cuFFT's internal error on new GPUs
(builds for another CUDA); TensorFlow's native module failing on Windows; platforms without a build (triton on
Windows, Open3D's ML ops, NVIDIA's apt repositories not configured, bitsandbytes before Windows support, PyAV built
from source for a Python without wheels); Vulkan's missing layers and Mesa's software Vulkan, GLX without a visual,
PyOpenGL without the GL function, MuJoCo's GL loaders without a context; Jupyter's widget and K3D front-ends, jupyter_core's missing subcommand; build tools
and libraries missing (sudo's secure_path, mujoco-py's MuJoCo, setuptools' requirement off PyPI, a CMake configure
step, pip's summary of a failed build); conda's uninitialised shell; dyld's library built for a newer macOS; compiled modules
by their shape (_ops / _op) and KPConv's cpp_wrappers; a package's unbuilt source tree shadowing it;
a package said installed and working elsewhere; torch's own DLL failing to load on Windows.
Each text is written for the test (other wordings, tools and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # an empty libcuda.so.1 in a container
    ("Traceback (most recent call last):\n  File \"/opt/app/infer.py\", line 2, in <module>\n    import cupy\n"
     "ImportError: /usr/lib64/libcuda.so.1: file too short\n", "gpu_not_exposed_to_process"),
    ("OSError: libcuda.so.1: file too short (while loading the CUDA driver in the singularity image)\n",
     "gpu_not_exposed_to_process"),
    # onnxruntime's CPU build
    (">>> import onnxruntime\n>>> onnxruntime.get_device()\n'CPU'\n", "cpu_only_torch_with_gpu"),
    ("sess = rt.InferenceSession(path)\nprint(rt.get_device())  # prints CPU on the A10 box\n",
     "cpu_only_torch_with_gpu"),
    ("after pip install insightface onnxruntime-gpu, rt.get_device() returns CPU\n", "cpu_only_torch_with_gpu"),
    # llama.cpp built without a GPU backend
    ("llama_new_context_with_model: kv self size = 256.00 MB\nAVX = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | NEON = 0 | "
     "F16C = 1 | BLAS = 0 | SSE3 = 1 | VSX = 0 |\nn_gpu_layers=35 but nothing is offloaded\n", "cpu_only_torch_with_gpu"),
    ("system_info: n_threads = 8 / 16 | BLAS=0 | the model runs on the CPU only\n", "cpu_only_torch_with_gpu"),
    # jax without a GPU backend
    ("x = jax.device_put(a, jax.devices('gpu')[0])\nRuntimeError: Backend 'gpu' failed to initialize. (Set "
     "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "cpu_only_torch_with_gpu"),
    ("  File \"/env/lib/python3.8/site-packages/jaxlib/xla_client.py\", line 101, in get_local_backend\n"
     "    raise RuntimeError('Unknown backend {}'.format(name))\n", "cpu_only_torch_with_gpu"),
    # Lightning finding no GPU
    ("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0, 1]\n"
     " But your machine only has: []\n", "cpu_only_torch_with_gpu"),
    ("MisconfigurationException: `CUDAAccelerator` can not run on your system since the accelerator is not "
     "available.\n", "cpu_only_torch_with_gpu"),
    # jaxlib's CUDA kernels built for another CUDA
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: jaxlib/gpu/solver_kernels.cc:45: operation gpusolverDnCreate() "
     "failed: cusolverDnCreate symbol not found.\n", "prebuilt_binary_wrong_cuda"),
    # cuFFT's internal error (CUDA 11.7 builds on Ada/Hopper)
    ("spec = torch.stft(wav, 1024, return_complex=True)\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n"
     "GPU: RTX 4080\n", "torch_wheel_lacks_gpu_arch"),
    ("OSError: (External) CUFFT error(5).\n  [Hint: 'CUFFT_INTERNAL_ERROR'. Driver or internal cuFFT library error]\n",
     "torch_wheel_lacks_gpu_arch"),
    # TensorFlow's native module on Windows
    ("  File \"C:\\Python36\\lib\\site-packages\\tensorflow\\python\\pywrap_tensorflow_internal.py\", line 18, in "
     "swig_import_helper\n    return importlib.import_module('_pywrap_tensorflow_internal')\n"
     "ModuleNotFoundError: No module named '_pywrap_tensorflow_internal'\n", "cudart_not_found"),
    # triton on native Windows
    ("Traceback (most recent call last):\n  File \"D:\\ai\\venv\\Lib\\site-packages\\torch\\_inductor\\codecache.py\", "
     "line 3, in <module>\n    import triton\nModuleNotFoundError: No module named 'triton'\n",
     "package_no_build_for_platform"),
    ("Z:\\portable\\python_embeded\\python.exe -s main.py\nModuleNotFoundError: No module named 'triton'\n",
     "package_no_build_for_platform"),
    # Open3D without its ML ops
    ("import open3d.ml.tf as ml3d\nException: Open3D was not built with TensorFlow support!\n",
     "package_no_build_for_platform"),
    # NVIDIA's apt repositories not configured
    ("$ sudo apt-get install -y cuda-toolkit-12-4\nE: Unable to locate package cuda-toolkit-12-4\n",
     "package_no_build_for_platform"),
    ("E: Package 'libcudnn8' has no installation candidate\n", "package_no_build_for_platform"),
    # bitsandbytes before its Windows support
    ("  File \"C:\\kohya\\venv\\lib\\site-packages\\bitsandbytes\\cuda_setup\\main.py\", line 131, in "
     "evaluate_cuda_setup (bitsandbytes) TypeError: argument of type 'WindowsPath' is not iterable\n",
     "package_no_build_for_platform"),
    # PyAV built from source
    ("Collecting av==11.0.0\n  Building wheel for av\n      Cython.Compiler.Errors.CompileError: av/codec/context.pyx\n",
     "package_no_build_for_platform"),
    # Vulkan: a layer not installed; Mesa's software Vulkan
    ("vkCreateInstance failed with VK_ERROR_LAYER_NOT_PRESENT\n", "library_not_found"),
    ("loader_validate_layers: Layer 1 does not exist in the list of available layers\n", "library_not_found"),
    ("4.26.2-0+++UE4+Release-4.26\nWARNING: lavapipe is not a conformant vulkan implementation, testing use only.\n"
     "Signal 11 caught.\n", "opengl_egl_unavailable"),
    # GLX without a usable visual; PyOpenGL without the GL function
    ("RuntimeError: glXChooseVisual failed (ssh -X session)\n", "opengl_egl_unavailable"),
    # MuJoCo's renderer without an OpenGL context (headless, or another GLEW)
    ("env.render()\nmujoco.FatalError: gladLoadGL error\n", "opengl_egl_unavailable"),
    ("Creating window glfw\nERROR: GLEW initalization error: Missing GL version\n\nPress Enter to exit ...\n",
     "opengl_egl_unavailable"),
    ("OpenGL.error.NullFunctionError: Attempt to call an undefined function glCreateShader, check for "
     "bool(glCreateShader) before calling\n", "opengl_egl_unavailable"),
    # widget front-ends
    ("failed to display Jupyter Widget of type HBox.\n", "threejs_extension_missing"),
    ("Uncaught Error: Unknown object type (Volume) passed, no loader supporting it found!\n",
     "threejs_extension_missing"),
    # jupyter_core's missing subcommand
    ("$ jupyter lab\nException: Jupyter command `jupyter-lab` not found.\n", "kernel_wrong_python"),
    ("Jupyter command jupyter-nbconvert not found.\n", "kernel_wrong_python"),
    # build tools and libraries
    ("+ sudo ninja -C build install\nsudo: ninja: command not found\n", "build_dependency_missing"),
    ("Exception: \nYou appear to be missing MuJoCo.  We expected to find the file here: /home/ana/.mujoco/mujoco210\n",
     "build_dependency_missing"),
    ("Searching for pycuda>=2019.1\nNo local packages or working download links found for pycuda>=2019.1\n"
     "error: Could not find suitable distribution for Requirement.parse('pycuda>=2019.1')\n", "build_dependency_missing"),
    ("  File \"setup.py\", line 88, in build_extension\n    subprocess.check_call(\nsubprocess.CalledProcessError: "
     "Command '['cmake', '/src/pkg', '-DCMAKE_BUILD_TYPE=Release', '-DWITH_CUDA=ON']' returned non-zero exit status 1.\n",
     "build_dependency_missing"),
    ("ERROR: Failed to build installable wheels for some pyproject.toml based projects (simple-knn)\n",
     "extension_build_failed"),
    # conda's shell not initialised
    ("#!/bin/bash\nconda activate nerf\n\nCommandNotFoundError: Your shell has not been properly configured to use "
     "'conda activate'.\n", "env_not_propagated_to_kernel"),
    # dyld: a library built for a newer macOS
    ("dlopen(/venv/lib/python3.9/site-packages/cv2/cv2.abi3.so, 2): Symbol not found: _aligned_alloc\n  Referenced "
     "from: /venv/lib/python3.9/site-packages/cv2/.dylibs/libtbb.dylib (which was built for Mac OS X 10.15)\n",
     "symbol_version_missing"),
    # compiled modules by their shape, KPConv's wrappers
    ("    from ball_query_ops import ball_query\nModuleNotFoundError: No module named 'ball_query_ops'\n",
     "extension_not_compiled"),
    ("    from lib.iou3d_op import nms_gpu\nModuleNotFoundError: No module named 'lib.iou3d_op'\n",
     "extension_not_compiled"),
    ("    import cpp_wrappers.cpp_neighbors.radius_neighbors as cpp_neighbors\n"
     "ModuleNotFoundError: No module named 'cpp_wrappers.cpp_neighbors.radius_neighbors'\n", "extension_not_compiled"),
    # a package's unbuilt source tree shadowing the installed one (python started in the repository's root)
    (">>> import torch\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n  File "
     "\"/home/dev/pytorch/torch/__init__.py\", line 20, in <module>\n    from .version import __version__\n"
     "ModuleNotFoundError: No module named 'torch.version'\n", "extension_not_compiled"),
    # a package said to be installed and working elsewhere: another Python runs the script
    ("ModuleNotFoundError: No module named 'pyrep'\nPyRep is installed and works with the examples of its repo.\n",
     "kernel_wrong_python"),
    # torch's own DLL failing on Windows (no extension involved)
    ("OSError: [WinError 127] The specified procedure could not be found. Error loading \"D:\\envs\\gnn\\lib\\"
     "site-packages\\torch\\lib\\shm.dll\" or one of its dependencies.\n", "torch_import_failed"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # any other file too short is the file itself (a truncated download), not a container's placeholder
    ("OSError: /home/u/venv/lib/python3.10/site-packages/tokenizers/tokenizers.so: file too short\n",
     "gpu_not_exposed_to_process"),
    # onnxruntime's GPU build, and a CUDA provider listed
    (">>> onnxruntime.get_device()\n'GPU'\n", "cpu_only_torch_with_gpu"),
    ("ort.get_available_providers()\n['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider']\n",
     "cpu_only_torch_with_gpu"),
    # a ggml build with its GPU backend
    ("AVX = 1 | AVX2 = 1 | FMA = 1 | BLAS = 1 | SSE3 = 1 |\n", "cpu_only_torch_with_gpu"),
    # jax asked for a backend that is present, Lightning finding the GPU it was asked for
    ("RuntimeError: Unknown backend: 'tpu' requested, but no platforms that are instances of tpu are present.\n",
     "cpu_only_torch_with_gpu"),
    ("MisconfigurationException: You requested gpu: [0, 1, 2, 3]\n But your machine only has: [0, 1]\n",
     "cpu_only_torch_with_gpu"),
    # triton missing on Linux is torch's companion, not a platform without a build
    ("  File \"/usr/lib/python3/dist-packages/xformers/__init__.py\", line 5\nModuleNotFoundError: No module named "
     "'triton'\n", "package_no_build_for_platform"),
    # apt's own packages, not NVIDIA's repositories
    ("E: Unable to locate package python3.12-venv\n", "package_no_build_for_platform"),
    # glut missing is freeglut's library, not a context
    ("OpenGL.error.NullFunctionError: Attempt to call an undefined function glutInit, check for bool(glutInit) "
     "before calling\n", "opengl_egl_unavailable"),
    # a shell's own command not found (not under sudo) is no secure_path
    ("bash: nvcc: command not found\n", "env_not_propagated_to_kernel"),
    # MuJoCo's own model errors are no rendering context
    ("ValueError: XML Error: Schema violation: unrecognized element\nElement 'geom2', line 7\n", "opengl_egl_unavailable"),
    # mujoco-py's licence key, not MuJoCo itself
    ("You appear to be missing a License Key for mujoco.  We expected to find the file here: /root/.mujoco/mjkey.txt\n",
     "build_dependency_missing"),
    # cmake's build step (compiling), not its configure step
    ("subprocess.CalledProcessError: Command '['cmake', '--build', '.', '--config', 'Release']' returned non-zero exit "
     "status 2.\n", "build_dependency_missing"),
    # conda's environment not found is another failure
    ("EnvironmentNameNotFound: Could not find conda environment: nerf\n", "env_not_propagated_to_kernel"),
    # a module of the project's own with no compiled shape
    ("    from utils.data_ops_helper import load\nModuleNotFoundError: No module named 'utils.data_ops_helper'\n",
     "extension_not_compiled"),
    # another package's DLL in the same words is not torch's import
    ("OSError: [WinError 127] The specified procedure could not be found. Error loading \"C:\\venv\\lib\\"
     "site-packages\\paddle\\..\\nvidia\\cudnn\\bin\\cudnn_ops64_9.dll\" or one of its dependencies.\n",
     "torch_import_failed"),
    # a folder of the project's own (no released package of that name) is no package's source tree
    ("  File \"/home/u/proj/models/__init__.py\", line 3, in <module>\n    from .version import VERSION\n"
     "ModuleNotFoundError: No module named 'models.version'\n", "extension_not_compiled"),
    # the Open3D wheel built for another torch: its version message, not a platform without ML ops
    ("Exception: Version mismatch: Open3D needs PyTorch version 1.13.*, but version 2.1.0 is installed!\n",
     "package_no_build_for_platform"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


NEW_ROWS = [
    "libcuda_placeholder_too_short", "ort_device_cpu_build", "ggml_system_info_no_blas", "jax_unknown_gpu_backend",
    "jaxlib_gpu_symbol_not_found", "lightning_requested_gpus_none", "tf_pywrap_internal_missing",
    "open3d_ml_ops_not_built", "apt_vendor_package_not_located", "bitsandbytes_windows_path", "pyav_cython_source_build",
    "vulkan_layer_not_present", "vulkan_lavapipe_software", "glx_choose_visual_failed", "pyopengl_gl_function_undefined",
    "k3d_unknown_object_type", "jupyter_subcommand_not_found", "sudo_command_not_found", "mujoco_py_mujoco_missing",
    "setuptools_no_distribution_found", "pip_failed_installable_wheels", "conda_shell_not_initialised",
    "dyld_built_for_newer_macos", "cufft_internal_error_new_gpu", "setup_cmake_configure_failed",
    "mujoco_gl_loader_no_context",
]


@pytest.mark.parametrize("key", NEW_ROWS)
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def _first(text: str):
    return explain_result(text, similar=False).findings[0]


def test_llama_cpp_fix_rebuilds_with_cuda():
    f = _first("llama.cpp: AVX = 1 | AVX2 = 1 | BLAS = 0 | SSE3 = 1 |\n")
    assert f.code == "cpu_only_torch_with_gpu" and "llama-cpp-python" in f.title
    assert any("CMAKE_ARGS" in c and "GGML_CUDA" in c for c in f.fix.commands)


def test_onnxruntime_fix_keeps_one_gpu_package():
    f = _first(">>> onnxruntime.get_device()\n'CPU'\n")
    assert f.code == "cpu_only_torch_with_gpu"
    assert any("pip uninstall -y onnxruntime onnxruntime-gpu" in c for c in f.fix.commands)


def test_jax_fix_names_jaxlib_cuda():
    f = _first("RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
               "present. Platforms present are: cpu\n")
    assert f.code == "cpu_only_torch_with_gpu" and any("jax[cuda" in c for c in f.fix.commands)


def test_pip_summary_reads_below_the_build_error():
    # pip's summary line is an aftermath: a compiler's named missing header comes first
    codes = rule_codes("src/knn.cu:3:10: fatal error: glm/glm.hpp: No such file or directory\n"
                       "ERROR: Failed to build installable wheels for some pyproject.toml based projects (simple-knn)\n",
                       n=3)
    assert codes[0] == "build_dependency_missing", codes
