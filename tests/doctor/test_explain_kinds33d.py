# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 33d: the nineteenth collection's development half (dev22), read from the tools' own messages as
their sources print them, never from a reporter's sentence.

- pyglet's NoSuchConfigException (pyglet/canvas/base.py Screen.get_best_config, pyglet/window/__init__.py: 'No
  standard config is available.'): the machine's OpenGL cannot give the window's configuration (dev22/manim-1337:
  a multisampled window) -> opengl_egl_unavailable.
- pybind11's (and nanobind's) "Unable to convert function return value to a Python type! The signature was"
  (cpp_function::dispatcher): no caster for the returned C++ type (dev22/mujoco-2555: an enum the bindings forgot;
  dev21/vggsfm-95: ceres types pyceres registers) -> library_bug, package_api_version_mismatch.
- vispy gloo's "data must be 32-bit not float64" (VertexBuffer._prepare_data; dev22/cookbook-code-23) ->
  user_code_error.
- A browser refusing a local server's JavaScript served as text/plain (Python's mimetypes from the Windows registry;
  jupyter/notebook#4468, notebook 5.7.7; dev22/help-545) -> library_bug.
- pip's OSError on a file under a GitHub Actions runner's work folder (D:\\a\\..., /home/runner/work/...;
  dev22/mix-studio-12: a portable bundle's pinned wheel folder) -> library_bug.
- ggml's Metal shader library failing to compile at run time ("ggml_metal_init: error: Error
  Domain=MTLLibraryErrorDomain ... program_source:3:10: fatal error: 'ggml-common.h' file not found";
  dev22/instructlab-698) -> library_bug, and no build's missing header (program_source is Metal's run-time source).
- A package's own Python check and pip's 'requires a different Python' (dev22/ipykernel-364, dev14/ipykernel-459)
  -> package_api_version_mismatch first (round 16's reading, test_explain_kinds16_dev14), package_no_build_for_platform
  second (the labels of dev22/ipykernel-364 and heldout12/kg_rag-45); the setup.py's own check, not torch, is why
  pip's build-requirements step failed.
- CARLA's client/simulator "Version mismatch detected" warning (LibCarla Simulator.cpp ValidateVersions;
  dev22/carla-8723) -> package_api_version_mismatch.
- ultralytics' / YOLOv5's parse_model on a YAML module the installed code lacks ("globals()[m]" -> KeyError: 'C3STR';
  "eval(m)" -> NameError; dev22/stf-yolo-1) -> package_api_version_mismatch.
Near-misses share words but not the mechanism and do not get the code."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

POSITIVE = [
    # (reading, code that must be among the first two, text)
    ("pyglet_config", "opengl_egl_unavailable",
     # dev22/manim-1337 (the corpus' wording)
     'pyglet.window.NoSuchConfigException when running "Get Started Example Code"\nYields the following error:\n'
     "`pyglet.window.NoSuchConfigException`"),
    ("pyglet_config", "opengl_egl_unavailable",
     # pyglet's own raise in a traceback, not from the corpus
     "Traceback (most recent call last):\n  File \"viewer.py\", line 12, in <module>\n    window = pyglet.window.Window("
     "config=config)\n  File \"/usr/local/lib/python3.8/dist-packages/pyglet/window/xlib/__init__.py\", line 173, in "
     "__init__\n    super(XlibWindow, self).__init__(*args, **kwargs)\n  File \"/usr/local/lib/python3.8/dist-packages/"
     "pyglet/window/__init__.py\", line 595, in __init__\n    raise NoSuchConfigException('No standard config is "
     "available.')\npyglet.window.NoSuchConfigException: No standard config is available."),
    ("pybind11_return", "library_bug",
     # dev22/mujoco-2555
     "MuJoCo Version: 3.2.7\n>           print(f\"act_0.trntype = {act_0.trntype}\")\nE           TypeError: Unable to "
     "convert function return value to a Python type! The signature was\nE               (arg0: mujoco._specs."
     "MjsActuator) -> mjtTrn_"),
    ("pybind11_return", "package_api_version_mismatch",
     # TensorFlow's bfloat16 type under a NumPy it was not built for, not from the corpus
     "  File \"/opt/conda/lib/python3.10/site-packages/tensorflow/python/framework/dtypes.py\", line 37, in <module>\n"
     "    _np_bfloat16 = _pywrap_bfloat16.TF_bfloat16_type()\nTypeError: Unable to convert function return value to a "
     "Python type! The signature was\n        () -> handle"),
    ("vispy_32bit", "user_code_error",
     # dev22/cookbook-code-23
     "program['a_position'] = np.c_[\n        np.linspace(-1.0, +1.0, 1000),\n        np.random.uniform(-0.5, +0.5, "
     "1000)]\n```\nresults in:\n```\nTypeError: data must be 32-bit not float64\n```"),
    ("vispy_32bit", "user_code_error",
     # vispy's raise for int64 data in a traceback, not from the corpus
     "Traceback (most recent call last):\n  File \"plot.py\", line 30, in <module>\n    vbo = gloo.VertexBuffer(idx)\n"
     "  File \"/home/u/.local/lib/python3.11/site-packages/vispy/gloo/buffer.py\", line 373, in _prepare_data\n"
     "    raise TypeError('data must be 32-bit not %s'\nTypeError: data must be 32-bit not int64"),
    ("js_text_plain", "library_bug",
     # dev22/help-545
     "But when I run on `Anaconda Prompt` either `jupyter lab` or `jupyter notebook` I only get a blank screen.\n"
     "Refused to execute script from 'http://localhost:8888/lab/static/main.13de647526d0a582493b.js' because its MIME "
     "type ('text/plain') is not executable, and strict MIME type checking is enabled."),
    ("js_text_plain", "library_bug",
     # Chrome's module-script wording for a local app's bundle, not from the corpus
     "Running on local URL:  http://127.0.0.1:7860\nthe page stays blank; the console says:\nFailed to load module "
     "script: Expected a JavaScript module script but the server responded with a MIME type of \"text/plain\". Strict "
     "MIME type checking is enforced for module scripts per HTML spec."),
    ("runner_path", "library_bug",
     # dev22/mix-studio-12
     "Processing D:\\a\\ComfyUI\\cu130_python_deps\\numpy-2.4.6-cp313-cp313-win_amd64.whl (from gguf>=0.13.0)\n\n"
     "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
     "'D:\\\\a\\\\ComfyUI\\\\cu130_python_deps\\\\numpy-2.4.6-cp313-cp313-win_amd64.whl'"),
    ("runner_path", "library_bug",
     # a macOS runner's temporary folder in a package's requirement, not from the corpus
     "Processing /Users/runner/work/_temp/wheels/mlx_core-0.5.0-cp311-cp311-macosx_14_0_arm64.whl (from mytool==1.2)\n"
     "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
     "'/Users/runner/work/_temp/wheels/mlx_core-0.5.0-cp311-cp311-macosx_14_0_arm64.whl'"),
    ("metal_library", "library_bug",
     # dev22/instructlab-698
     "ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 \"program_source:3:10: fatal error: "
     "'ggml-common.h' file not found\n#include \"ggml-common.h\"\n         ^~~~~~~~~~~~~~~\n\" UserInfo={"
     "NSLocalizedDescription=program_source:3:10: fatal error: 'ggml-common.h' file not found\n}\n"
     "llama_new_context_with_model: failed to initialize Metal backend"),
    ("metal_library", "library_bug",
     # a later llama.cpp's header, not from the corpus
     "ggml_metal_init: loading '/Users/me/venv/lib/python3.11/site-packages/llama_cpp/ggml-metal.metal'\n"
     "ggml_metal_init: error: Error Domain=MTLLibraryErrorDomain Code=3 \"program_source:6:10: fatal error: "
     "'ggml-metal-impl.h' file not found\" UserInfo={NSLocalizedDescription=program_source:6:10: fatal error: "
     "'ggml-metal-impl.h' file not found}\nllama_init_from_model: failed to initialize Metal backend"),
    ("python_release", "package_no_build_for_platform",
     # dev22/ipykernel-364
     "ERROR: ipykernel requires Python version 3.4 or above\nmy default python binary is python2.7.\n"
     ">python -m pip install ipykernel"),
    ("python_release", "package_no_build_for_platform",
     # pip's own wording (resolver's _check_dist_requires_python), not from the corpus
     "Processing ./nerfstudio-0.3.4-py3-none-any.whl\nERROR: Package 'nerfstudio' requires a different Python: "
     "3.7.12 not in '>=3.8.0'"),
    ("python_release", "package_api_version_mismatch",
     # dev14/ipykernel-459: the setup.py's check inside pip's build-requirements step (not torch missing)
     "C:\\ipykernel>pip install -e .\nObtaining file:///C:/ipykernel\n  Installing build dependencies ... done\n"
     "  Getting requirements to build wheel ... error\n  ERROR: Command errored out with exit status 1:\n   command: "
     "'c:\\python27\\python.exe' ...\n  Complete output (1 lines):\n  ERROR: ipykernel requires Python version 3.4 "
     "or above."),
    ("python_release", "package_no_build_for_platform",
     # numpy's setup.py check (and many others'), not from the corpus
     "  Getting requirements to build wheel ... error\n  File \"/tmp/pip-install-x1/numpy_5c/setup.py\", line 31, in "
     "<module>\n    raise RuntimeError(\"Python version >= 3.9 required.\")\nRuntimeError: Python version >= 3.9 "
     "required."),
    ("python_release", "package_no_build_for_platform",
     # uv's resolver, not from the corpus
     "  \u00d7 No solution found when resolving dependencies:\n  \u2570\u2500\u25b6 Because the current Python version "
     "(3.9.6) does not satisfy Python>=3.10 and gsplat==1.5.0 depends on Python>=3.10, we can conclude that "
     "gsplat==1.5.0 cannot be used."),
    ("carla_versions", "package_api_version_mismatch",
     # dev22/carla-8723
     "C:\\carla\\carla\\PythonAPI\\examples>python mercedes_forwarddrive.py\nWARNING: Version mismatch detected: You "
     "are trying to connect to a simulator that might be incompatible with this API\nWARNING: Client API version     "
     "= 0.9.15\nWARNING: Simulator API version  = 0.9.15-278-g6292059fd\nERROR: invalid color autopilot\nTraceback "
     "(most recent call last):\n  File \"mercedes_forwarddrive.py\", line 10, in <module>\n    blueprint_library = "
     "world.get_blueprint_library()\nValueError: role_name: colors must have 3 channels (R,G,B)"),
    ("carla_versions", "package_api_version_mismatch",
     # the client of another release against a packaged simulator, not from the corpus
     "$ python3 manual_control.py\nINFO: listening to server 127.0.0.1:2000\nWARNING: Version mismatch detected: "
     "You are trying to connect to a simulator that might be incompatible with this API\nWARNING: Client API version"
     "     = 0.9.14\nWARNING: Simulator API version  = 0.9.13\nRuntimeError: rpc::rpc_error during call in function "
     "get_blueprint_library"),
    ("yaml_module", "package_api_version_mismatch",
     # dev22/stf-yolo-1
     "----> 3 model = YOLO('/content/STF-YOLO/cfg/models/v8/yolov8x_DW_swin_FOCUS-3.yaml')\n...\n[/usr/local/lib/"
     "python3.10/dist-packages/ultralytics/nn/tasks.py](https://localhost:8080/#) in parse_model(d, ch, verbose)\n"
     "...\n--> 855         m = getattr(torch.nn, m[3:]) if \"nn.\" in m else globals()[m]  # get module\n...\n"
     "KeyError: 'C3STR'"),
    ("yaml_module", "package_api_version_mismatch",
     # YOLOv5's eval of the module name, not from the corpus
     "Traceback (most recent call last):\n  File \"train.py\", line 630, in <module>\n    main(opt)\n  File "
     "\"/content/yolov5/models/yolo.py\", line 182, in __init__\n    self.model, self.save = parse_model(deepcopy("
     "self.yaml), ch=[ch])\n  File \"/content/yolov5/models/yolo.py\", line 301, in parse_model\n    m = eval(m) if "
     "isinstance(m, str) else m  # eval strings\n  File \"<string>\", line 1, in <module>\nNameError: name "
     "'C3CBAM' is not defined"),
    ("guarded_import", "python_package_missing",
     # dev22/pymaf-34
     "fail to import Renderer.\nINFO:utils.train_utils:log name: logs/pymaf_res50_mix\n...\nNo renderer for "
     "visualization.\nTraceback (most recent call last):\n  File \"train.py\", line 69, in <module>\n    main(None, "
     "ngpus_per_node, options)\n  File \"/user3/ID2462_PyMAF/core/trainer.py\", line 143, in init_fn\n    "
     "self.iuv_maker = IUV_Renderer(output_size=cfg.MODEL.PyMAF.DP_HEATMAP_SIZE)\nNameError: name 'IUV_Renderer' is "
     "not defined"),
    ("guarded_import", "python_package_missing",
     # a program's warning in another form, not from the corpus
     "WARNING: Failed to import pytorch3d\nLoading checkpoint ckpt/model.pth\nTraceback (most recent call last):\n"
     "  File \"demo.py\", line 88, in <module>\n    mesh = Meshes(verts=[v], faces=[f])\nNameError: name 'Meshes' is "
     "not defined"),
    ("spectral_norm", "package_api_version_mismatch",
     # dev22/nifty-1
     "  File \"/home/u/gnn/nifty/models/ssf.py\", line 29, in __init__\n    self.gc1 = spectral_norm(GCNConv(nfeat, "
     "nhid))\n  File \"/home/u/anaconda3/envs/nifty/lib/python3.7/site-packages/torch/nn/utils/spectral_norm.py\", "
     "line 254, in spectral_norm\n    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)\n  File \"/home/"
     "u/anaconda3/envs/nifty/lib/python3.7/site-packages/torch/nn/utils/spectral_norm.py\", line 116, in apply\n    "
     "weight = module._parameters[name]\nKeyError: 'weight'"),
    ("spectral_norm", "package_api_version_mismatch",
     # torch 2's line numbers, another layer's parameter name, not from the corpus
     "Traceback (most recent call last):\n  File \"model.py\", line 40, in <module>\n    disc = spectral_norm("
     "SAGEConv(64, 64), name='weight')\n  File \"/opt/venv/lib/python3.11/site-packages/torch/nn/utils/"
     "spectral_norm.py\", line 291, in spectral_norm\n    SpectralNorm.apply(module, name, n_power_iterations, dim, "
     "eps)\n  File \"/opt/venv/lib/python3.11/site-packages/torch/nn/utils/spectral_norm.py\", line 166, in apply\n"
     "    weight = module._parameters[name]\n             ~~~~~~~~~~~~~~~~~~^^^^^^\nKeyError: 'weight'"),
    ("transformers_8bit", "package_api_version_mismatch",
     # dev22/llama2rag-1
     "load_in_8bit=True` requires Accelerate:\nImportError: Using `load_in_8bit=True` requires Accelerate: `pip "
     "install accelerate` and the latest version of bitsandbytes `pip install -i https://test.pypi.org/simple/ "
     "bitsandbytes` or pip install bitsandbytes`"),
    ("transformers_8bit", "package_api_version_mismatch",
     # the later quantizer's wording, not from the corpus
     "  File \"/usr/local/lib/python3.10/dist-packages/transformers/quantizers/quantizer_bnb_8bit.py\", line 62, in "
     "validate_environment\n    raise ImportError(\nImportError: Using `bitsandbytes` 8-bit quantization requires "
     "Accelerate: `pip install accelerate` and the latest version of bitsandbytes: `pip install -i "
     "https://pypi.org/simple/ bitsandbytes`"),
    ("quoted_bare_import", "package_api_version_mismatch",
     # dev22/trl-849
     "randn_tensor error while diffusers==0.21.4\nIn file trl/models/modeling_sd_base.py, line 27, there is an import "
     "\"diffusers.utils import randn_tensor\".\nBut it should be \"from diffusers.utils.torch_utils import "
     "randn_tensor\" while diffusers==0.21.4 (maybe >= 0.21.4), or it will throw an ImportError."),
    ("quoted_bare_import", "package_api_version_mismatch",
     # another removed name quoted the same way, not from the corpus
     "My script has the line \"torchvision.models.utils import load_state_dict_from_url\" and it throws an error "
     "with torchvision 0.15.2"),
    ("size_t_pointer", "library_bug",
     # dev22/knn-cuda-1
     "ubgpu@ubgpu:~/github/kNN-CUDA$ sudo nvcc -o knn_cuda_with_indexes.exe knn_cuda_with_indexes.cu -lcuda\n"
     "knn_cuda_with_indexes.cu(344): error: argument of type \"unsigned int *\" is incompatible with parameter of "
     "type \"size_t *\"\n\nknn_cuda_with_indexes.cu(349): error: more than one instance of overloaded function "
     "\"min\" matches the argument list:\n4 errors detected in the compilation of \"/tmp/tmpxft_00000ba3-9_knn.cpp1.ii\"."),
    ("size_t_pointer", "library_bug",
     # GCC's wording for the same call in a host file, not from the corpus
     "g++ -O2 -I/usr/local/cuda/include -c src/alloc.cpp -o build/alloc.o\nsrc/alloc.cpp: In function 'void "
     "alloc_img(int, int)':\nsrc/alloc.cpp:41:38: error: invalid conversion from 'unsigned int*' to 'size_t*' {aka "
     "'long unsigned int*'} [-fpermissive]\n   41 |     cudaMallocPitch((void**)&d_img, &pitch, w * 4, h);"),
]

#: texts that share words with a reading but not its mechanism: the code is not among the first two
NEAR_MISS = [
    ("a pointer of another element type (no size_t, no 32-bit mix)", "library_bug",
     "kernel.cu(88): error: argument of type \"float *\" is incompatible with parameter of type \"const double *\"\n"
     "1 error detected in the compilation of \"kernel.cu\"."),
    ("a quoted bare import of a name no release removed", "package_api_version_mismatch",
     "In file app/pipe.py there is an import \"diffusers.utils import load_image\" and it throws an error."),
    ("a NameError with no import failure reported (prose of a failed import)", "python_package_missing",
     "I failed to import the renderer at first so I commented it out\nTraceback (most recent call last):\n  File "
     "\"train.py\", line 12, in <module>\n    r = make_renderer(cfg)\nNameError: name 'make_renderer' is not defined"),
    ("a KeyError 'weight' of a checkpoint dict in the person's code", "package_api_version_mismatch",
     "Traceback (most recent call last):\n  File \"eval.py\", line 21, in <module>\n    w = ckpt['weight']\n"
     "KeyError: 'weight'"),
    ("another project's own NoSuchConfigException", "opengl_egl_unavailable",
     "Traceback (most recent call last):\n  File \"app/settings.py\", line 40, in config_get\n    raise "
     "NoSuchConfigException(\"No such config: {}\".format(j_args))\napp.errors.NoSuchConfigException: No such config: "
     "db.host"),
    ("pybind11's argument cast (the caller's value)", "library_bug",
     "Traceback (most recent call last):\n  File \"run.py\", line 8, in <module>\n    ms.set_value(arr)\n"
     "RuntimeError: Unable to cast Python instance to C++ type (compile in debug mode for details)"),
    ("a web page's script answered by an HTML error page", "library_bug",
     "Refused to execute script from 'https://cdn.example.org/assets/app.js' because its MIME type ('text/html') is "
     "not executable, and strict MIME type checking is enabled."),
    ("pip's OSError on the person's own wheel path", "library_bug",
     "ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
     "'C:\\\\Users\\\\me\\\\Downloads\\\\torch-2.1.0-cp310-cp310-win_amd64.whl'"),
    ("vispy without its GUI backend (float64 data shown, no dtype refusal)", "user_code_error",
     "data = np.random.uniform(-0.5, +0.5, 1000)  # float64\ncanvas = app.Canvas(keys='interactive')\nTraceback (most "
     "recent call last):\n  File \"/usr/lib/python3/dist-packages/vispy/app/backends/_pyqt5.py\", line 41, in "
     "<module>\n    from PyQt5 import QtGui, QtCore\nModuleNotFoundError: No module named 'PyQt5'"),
    ("a CUDA toolkit minimum (not Python's)", "package_no_build_for_platform",
     "RuntimeError: FlashAttention is only supported on CUDA 11.7 and above.  Note: make sure nvcc has a supported "
     "version by running nvcc -V."),
    ("CARLA's simulator not reachable (no version warning)", "package_api_version_mismatch",
     "RuntimeError: time-out of 10000ms while waiting for the simulator, make sure the simulator is ready and "
     "connected to localhost:2000"),
]

#: a build's missing header stays build_dependency_missing (Metal's program_source narrowing leaves compilers alone)
BUILD_HEADER = ("clang -O3 -fopenmp -c src/knn.c -o build/knn.o\nsrc/knn.c:3:10: fatal error: 'omp.h' file not found\n"
                "#include <omp.h>\n         ^~~~~~~\n1 error generated.\nerror: command '/usr/bin/clang' failed with "
                "exit code 1")

ROWS = ["pyglet_no_such_config", "pybind11_return_value_unconvertible", "vispy_gloo_data_not_32bit",
        "browser_js_served_text_plain", "pip_ci_runner_path_missing", "ggml_metal_library_compile_failed",
        "carla_client_server_version_mismatch", "ultralytics_yaml_module_undefined",
        "transformers_8bit_needs_accelerate_bnb", "source_32bit_size_t_pointer"]


@pytest.mark.parametrize("reading,code,text", POSITIVE, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_reading_gives_its_code(reading: str, code: str, text: str) -> None:
    assert code in rule_codes(text), (reading, rule_codes(text, n=4))


@pytest.mark.parametrize("why,code,text", NEAR_MISS, ids=[n[0] for n in NEAR_MISS])
def test_near_miss_keeps_off_the_code(why: str, code: str, text: str) -> None:
    assert code not in rule_codes(text), (why, rule_codes(text, n=4))


def test_metal_shader_header_is_no_build_header() -> None:
    text = POSITIVE[10][2]
    assert "build_dependency_missing" not in rule_codes(text, n=4)
    assert rule_codes(BUILD_HEADER, n=4)[:2] and "build_dependency_missing" in rule_codes(BUILD_HEADER)


def test_python_check_is_not_torch_at_build() -> None:
    text = POSITIVE[14][2]
    assert "torch_not_found_at_build" not in rule_codes(text, n=4)


@pytest.mark.parametrize("key", ROWS)
def test_rows_match_their_examples(key: str) -> None:
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def test_torch_row_matches_its_example() -> None:
    assert_row_matches_its_example_and_stays_linear("torch_messages", "spectral_norm_parameter_absent")
