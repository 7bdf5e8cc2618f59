# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 27c (dev20's Python-level misses, read as mechanisms): a title that repeats the traceback's last
line no longer hides the exception raised in an installed package's own file (the generic reading of round 24);
syntax of a newer Python than the one running, in Python's own message (PEP 604's X | None before 3.10, PEP 584's
dict | dict before 3.9); an installer too old for the package's metadata, in setuptools' own words (an environment
marker its pkg_resources cannot read; a PEP 621 project built as UNKNOWN 0.0.0 by setuptools before 61); TensorRT 10's
removals of the binding API and diffusers 0.25's DIFFUSERS_CACHE (tables/removed_apis.csv), the class printed under its
module's dotted name; a library's own bug told by the tool's own message: pybind11's default argument of a type not
registered (two compiled modules of other builds), torch's autograd refusing a custom Function's gradient shape,
Python's signal handler set from a worker thread, spconv 1.x's CUDA hash failing to build; a top-level compiled module
that imports and lacks a function its Python code calls (a build of another revision); the calling code's mistake in
the tools' own words (mmcv's imread given no image, SAM 2 run from its clone's parent folder, Python's name mangling of a
special method missing its trailing underscores, Slurm's refused node count, llama-cpp-python's Llama cleaned up after
its model failed to load); numba's CudaAPIError by its CUresult number.
Each text is written for the test (other wordings and packages than the threads); each kind has near-misses that
must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # a title repeating the last line, over a traceback ending in an installed package's own file
    ("TypeError: 'type' object is not subscriptable\n\nRunning the CLI after pip install:\n$ fastseg\n"
     "Traceback (most recent call last):\n  File \"/usr/local/bin/fastseg\", line 5, in <module>\n"
     "    from fastseg.cli import main\n...\n  File \"/home/u/.local/lib/python3.8/site-packages/fastseg/schema.py\", "
     "line 12, in Box\n    corners: tuple[float, float]\nTypeError: 'type' object is not subscriptable\n",
     "library_bug"),
    ("KeyError: 'sample_rate'\nwhen I start the server:\nTraceback (most recent call last):\n"
     "  File \"/opt/conda/lib/python3.10/site-packages/audiokit/loader.py\", line 88, in _meta\n"
     "    return cfg['sample_rate']\nKeyError: 'sample_rate'\n", "library_bug"),
    # PEP 604 unions before Python 3.10
    ("TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\npython 3.9.7, viewerlib 0.3.1\n",
     "library_bug"),
    ("  File \"/venv/lib/python3.8/site-packages/tinyhttp/models.py\", line 20, in Request\n"
     "    body: bytes | None = None\nTypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\n",
     "package_api_version_mismatch"),
    ("TypeError: unsupported operand type(s) for |: 'types.GenericAlias' and 'NoneType'\n", "library_bug"),
    ("TypeError: unsupported operand type(s) for |: '_GenericAlias' and 'type'\n", "package_api_version_mismatch"),
    # PEP 584 dict union before Python 3.9
    ("    merged = defaults | overrides\nTypeError: unsupported operand type(s) for |: 'dict' and 'dict'\n",
     "library_bug"),
    # setuptools too old for the environment markers
    ("Downloading/unpacking nbformat\n  Running setup.py egg_info for package nbformat\n    error in nbformat setup "
     "command: Invalid environment marker: python_version < \"3.5\"\n", "package_api_version_mismatch"),
    ("distutils.errors.DistutilsSetupError: Invalid environment marker: platform_system == \"Windows\"\n",
     "package_api_version_mismatch"),
    # a PEP 621 project built as UNKNOWN 0.0.0
    ("Building wheels for collected packages: UNKNOWN\n  Building wheel for UNKNOWN (pyproject.toml) ... done\n"
     "Successfully built UNKNOWN\nInstalling collected packages: UNKNOWN\nSuccessfully installed UNKNOWN-0.0.0\n",
     "package_api_version_mismatch"),
    ("$ pip install -e .\n...\nSuccessfully installed UNKNOWN-0.0.0\n$ python -c 'import mytool'\n"
     "ModuleNotFoundError: No module named 'mytool'\n", "library_bug"),
    # TensorRT 10's removed binding API, the class under its module's dotted name
    ("  File \"trt_infer.py\", line 52, in allocate\n    shape = engine.get_binding_shape(i)\n"
     "AttributeError: 'tensorrt_bindings.tensorrt.ICudaEngine' object has no attribute 'get_binding_shape'\n"
     "tensorrt 10.0.1\n", "package_api_version_mismatch"),
    ("AttributeError: 'tensorrt.tensorrt.IExecutionContext' object has no attribute 'execute_async_v2'\n"
     "TensorRT Version: 10.3.0\n", "package_api_version_mismatch"),
    ("for i in range(engine.num_bindings):\nAttributeError: 'tensorrt.tensorrt.ICudaEngine' object has no attribute "
     "'num_bindings'\n", "package_api_version_mismatch"),
    # diffusers 0.25's removed cache constant
    ("  File \"/app/pipeline.py\", line 9, in <module>\n    from diffusers.utils import DIFFUSERS_CACHE, "
     "is_accelerate_available\nImportError: cannot import name 'DIFFUSERS_CACHE' from 'diffusers.utils'\n",
     "package_api_version_mismatch"),
    # pybind11's default argument of a type no module registered (two wheels of other builds)
    ("  File \"/env/lib/python3.11/site-packages/spconv/algo.py\", line 18, in <module>\n    from spconv.core_cc.cumm "
     "import x\nImportError: arg(): could not convert default argument 'mask: tv::Tensor' in function 'gen' into a "
     "Python object (type not registered yet?)\n", "library_bug"),
    ("ImportError: arg(): could not convert default argument into a Python object (type not registered yet?). "
     "#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for more information.\n",
     "package_api_version_mismatch"),
    # a custom autograd Function's backward of the wrong shape
    ("    loss.backward()\nRuntimeError: Function _RasterizePointsBackward returned an invalid gradient at index 3 - "
     "got [1024, 2] but expected shape compatible with [1024, 3]\n", "library_bug"),
    ("RuntimeError: Function MyVoxelPoolBackward returned an invalid gradient at index 0 - got [8, 64] but expected "
     "shape compatible with [8, 128]\n", "user_code_error"),
    # a signal handler installed from a worker thread
    ("  File \"/env/lib/python3.10/site-packages/lightning/fabric/plugins/environments/slurm.py\", line 70\n"
     "    signal.signal(signal.SIGUSR1, handler)\nValueError: signal only works in main thread of the main "
     "interpreter\n", "library_bug"),
    ("ValueError: signal only works in main thread (inside the Ray actor)\n", "user_code_error"),
    # a top-level compiled module that imports and lacks a function (a build of another revision)
    ("  File \"/src/fastattn/ops.py\", line 40, in warmup\n    fastattn_ext.fused_rope(q, k)\nAttributeError: module "
     "'fastattn_ext' has no attribute 'fused_rope'\n", "package_api_version_mismatch"),
    ("AttributeError: module 'voxelize_backend' has no attribute 'hard_voxelize_v2'\n", "package_api_version_mismatch"),
    # the tools' own words for the calling code's mistake
    ("  File \"/env/lib/python3.8/site-packages/mmcv/image/io.py\", line 177, in imread\n    raise TypeError('\"img\" "
     "must be a numpy array or a str or '\nTypeError: \"img\" must be a numpy array or a str or a pathlib.Path object\n",
     "user_code_error"),
    ("RuntimeError: You're likely running Python from the parent directory of the sam2 repository (i.e. the "
     "directory where https://github.com/facebookresearch/sam2 is cloned into).\n", "user_code_error"),
    ("    super(Net, self).__init(cfg)\nAttributeError: 'super' object has no attribute '_Net__init'\n",
     "user_code_error"),
    ("AttributeError: 'Trainer' object has no attribute '_Trainer__call'\n", "user_code_error"),
    ("sbatch: error: invalid node count `2:ppn=8'\n", "user_code_error"),
    ("srun: error: \"1:gpus=1\" is not a valid node count\n", "user_code_error"),
    ("llm = LlamaCpp(model_path='./models/7B/ggml-model-q4_0.bin')\nAttributeError: 'Llama' object has no attribute "
     "'_ctx'\n", "user_code_error"),
    # vLLM's bf16 check, its words lower-cased by the report
    ("valueerror: bfloat16 is only supported on gpus with compute capability of at least 8.0. your tesla v100 gpu has "
     "compute capability 7.0.\n", "gpu_below_extension_minimum"),
    # numba's CUresult by its number (its message cut off)
    ("  File \"/env/lib/python3.10/site-packages/numba/cuda/cudadrv/driver.py\", line 327, in _check_ctypes_error\n"
     "    raise CudaAPIError(retcode, msg)\nnumba.cuda.cudadrv.driver.CudaAPIError: [34]\n", "cuda_stub_driver_loaded"),
    # spconv 1.x's bundled CUDA hash
    ("[120/4000]\ncudahash: Completely failed to build\nCuda error in file 'src/cuhash/hash_table.cpp' in line 194 : "
     "an illegal memory access was encountered.\n", "library_bug"),
]


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


NOT = [
    # the repeated title over a traceback of the project's own files: the project's code, not a package's
    ("KeyError: 'label'\nTraceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 40, in <module>\n"
     "    y = row['label']\nKeyError: 'label'\n", "library_bug"),
    # an int | int, a set union and a bitwise or of arrays: no union of classes
    ("TypeError: unsupported operand type(s) for |: 'int' and 'str'\n", "library_bug"),
    ("TypeError: unsupported operand type(s) for |: 'set' and 'list'\n", "package_api_version_mismatch"),
    # uv's own marker file and a marker in a requirement that pip itself reads
    ("error: invalid environment marker: /home/u/.cache/tool/env.json\n", "package_api_version_mismatch"),
    # a package named for real, not UNKNOWN
    ("Successfully installed unknownlib-1.0.2\n", "package_api_version_mismatch"),
    ("Successfully installed UNKNOWNS-2.0\n", "package_api_version_mismatch"),
    # a method TensorRT 10 keeps (get_tensor_shape) missing on another class: no TensorRT removal row
    ("AttributeError: 'tensorrt.tensorrt.ICudaEngine' object has no attribute 'get_tensor_shapes'\n",
     "library_bug"),
    # torch's own autograd nodes (numbered) and DataParallel's Broadcast: no extension's backward
    ("RuntimeError: Function ConvolutionBackward0 returned an invalid gradient at index 1 - got [128, 255, 3, 3] but "
     "expected shape compatible with [128, 256, 3, 3]\n", "library_bug"),
    ("RuntimeError: Function BroadcastBackward returned an invalid gradient at index 395 - got [0] but expected shape "
     "compatible with [0, 4, 1, 1]\n", "library_bug"),
    # a module of the package's own, not compiled, lacking a name; a compiled module still importing itself
    ("AttributeError: module 'fastattn' has no attribute 'fused_rope'\n", "extension_not_compiled"),
    ("AttributeError: module 'mesh_ops' has no attribute 'simplify'\n", "package_api_version_mismatch"),
    ("AttributeError: partially initialized module 'fastattn_ext' has no attribute 'x' (most likely due to a "
     "circular import)\n", "package_api_version_mismatch"),
    # a private attribute of the class's own (mangled, as meant) and another object's missing context
    ("AttributeError: 'Net' object has no attribute '_Net__cache'\n", "user_code_error"),
    ("AttributeError: 'Llama' object has no attribute 'tokenize_fast'\n", "user_code_error"),
    ("TypeError: img must be a numpy array\n", "user_code_error"),
    # a number in brackets that is no numba driver error
    ("ValueError: [34] is not a valid shape\n", "cuda_stub_driver_loaded"),
    # another pybind11 message (a function's incompatible arguments), and a hash that built
    ("TypeError: run(): incompatible function arguments. The following argument types are supported:\n", "library_bug"),
    ("cudahash: built the table in 2 attempts\n", "library_bug"),
]


@pytest.mark.parametrize(("text", "code"), NOT, ids=[t[:50] for t, _ in NOT])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


NEW_ROWS = ["mmcv_imread_not_array_or_path", "sam2_repository_parent_directory", "python_mangled_dunder_typo",
            "slurm_invalid_node_count", "llama_cpp_del_after_failed_init", "py_union_operator_before_310", "py_dict_union_before_39", "setuptools_invalid_environment_marker",
            "setuptools_pep621_unknown_project", "pybind11_default_arg_type_unregistered",
            "autograd_custom_function_gradient_shape", "python_signal_not_main_thread", "cuhash_failed_to_build"]


@pytest.mark.parametrize("key", NEW_ROWS)
def test_new_rows_match_their_example_and_stay_linear(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


def _findings(text: str):
    return explain_result(text, similar=False).findings


def test_tensorrt_fix_names_the_release_and_the_replacement():
    f = _findings("AttributeError: 'tensorrt_bindings.tensorrt.ICudaEngine' object has no attribute "
                  "'get_binding_shape'\ntensorrt 10.0.1\n")[0]
    assert f.code == "package_api_version_mismatch"
    assert "removed in tensorrt 10.0" in f.title and "10.0.1" in f.title
    assert any("get_tensor_shape" in c for c in f.fix.commands)


def test_union_fix_names_python_310():
    fs = _findings("TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\n")
    assert [f.code for f in fs][:2] == ["library_bug", "package_api_version_mismatch"]
    assert "Python 3.10" in fs[0].title
    assert any("python=3.10" in c for c in fs[1].fix.commands)


def test_marker_and_unknown_fixes_upgrade_pip_and_setuptools():
    for text in ("error in foo setup command: Invalid environment marker: python_version>=\"3.3\"\n",
                 "Successfully installed UNKNOWN-0.0.0\n"):
        f = _findings(text)[0]
        assert f.code == "package_api_version_mismatch"
        assert any("install --upgrade pip setuptools" in c for c in f.fix.commands), f.fix.commands


def test_repeated_title_keeps_the_package_reading():
    text = ("TypeError: 'type' object is not subscriptable\nTraceback (most recent call last):\n"
            "  File \"/usr/lib/python3.8/site-packages/pkgx/types.py\", line 3, in <module>\n"
            "    x: list[int]\nTypeError: 'type' object is not subscriptable\n")
    f = _findings(text)[0]
    assert f.code == "library_bug" and "pkgx" in f.title


def test_custom_backward_fix_reads_both_ways():
    fs = _findings("RuntimeError: Function _RasterizeGaussiansBackward returned an invalid gradient at index 2 - got "
                   "[0, 0, 3] but expected shape compatible with [0, 16, 3]\n")
    assert [f.code for f in fs][:2] == ["library_bug", "user_code_error"]
    assert "custom autograd Function" in fs[0].title


def test_compiled_module_lacking_a_function_rebuilds_from_the_same_source():
    fs = _findings("AttributeError: module 'exllamav2_ext' has no attribute 'count_match'\n")
    f = next(f for f in fs if f.code == "package_api_version_mismatch")
    assert "exllamav2_ext lacks count_match" in f.title
    assert any("pip uninstall -y exllamav2 " in c for c in f.fix.commands)


def test_slurm_node_count_fix_is_slurms_own():
    f = _findings("sbatch: error: \"1:ppn=1\" is not a valid node count\n")[0]
    assert f.code == "user_code_error" and "node count" in f.title
    assert any("--nodes=1" in c for c in f.fix.commands) and not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)
