# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 30a: errors whose cause is the value or file the person passes, recognised by the mechanism the
message states (blind audit 29: usr08, usr09, usr12, usr13, usr14, usr16, odd06, bug03).

- Shape and broadcast checks on values: torch.cat's "Sizes of tensors must match except in dimension" (ATen's
  check_cat_shape_except_dim), NumPy's "operands could not be broadcast together with shapes" (nditer's broadcast
  error), torch's "The size of tensor a (N) must match the size of tensor b (M)" and an index past a dimension's end
  ("index 71 is out of bounds for dimension 0 with size 71"; NumPy's "... for axis 0 ..."): user_code_error alone where
  the raise is the person's frame (or torch's / NumPy's argument check, or no frame); raised in another library's
  frame (trimesh, pytorch3d), both readings, the values passed first.
- OpenCV's readers returning None (cv2.imread, VideoCapture.read) and the name then used as an array.
- A JSON file the text names that json cannot parse past its first character (Lib/json/decoder.py's position).
- detectron2's DatasetCatalog: "Dataset 'x' is not registered!" (detectron2/data/catalog.py).
- A shape unpacked into more names than the value has dimensions inside a library called by the person's code
  (kaolin's sample_points on an unbatched vertices tensor: its docs ask (batch_size, num_vertices, 3)): user_code_error
  first, the library's own bug second; no calling code shown, the library first.
Near-misses keep their environment code first: CUDA's device-side assert, an illegal memory access, no kernel image,
CUDA out of memory, an undefined symbol, a missing module; a JSON response that is empty (line 1 column 1), a None not
read by OpenCV, an unpacking error that is no shape."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

# shape, broadcast and index checks raised in the person's own frame (or torch's/NumPy's, or typed with no frame)
OWN_VALUES = [
    # torch.cat, IPython 8 cell (blind audit 29, odd06 without its colours)
    ("---------------------------------------------------------------------------\nRuntimeError"
     "                              Traceback (most recent call last)\nCell In[5], line 3\n"
     "      1 feats = encoder(imgs)\n----> 3 fused = torch.cat([feats, depth_feats], dim=1)\n\nRuntimeError: Sizes of "
     "tensors must match except in dimension 1. Expected size 60 but got size 59 for tensor number 1 in the list.\n"),
    ("Traceback (most recent call last):\n  File \"/home/li/unet/train.py\", line 88, in <module>\n"
     "    out = model(batch)\n  File \"/home/li/unet/model.py\", line 41, in forward\n"
     "    x = torch.cat([x, skip], dim=1)\nRuntimeError: Sizes of tensors must match except in dimension 1. "
     "Expected size 75 but got size 76 for tensor number 1 in the list.\n"),
    ("RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 3. Got 2 and 1 in dimension 0 "
     "at /pytorch/aten/src/TH/generic/THTensor.cpp:711\n"),
    # NumPy's broadcast (blind audit 29, usr08), and typed
    ("Traceback (most recent call last):\n  File \"/home/zoe/texture/bake.py\", line 63, in bake\n"
     "    colour = img * mask\nValueError: operands could not be broadcast together with shapes (480,640,3) (480,640)\n"),
    ("depth = np.load('d.npy'); rgb = cv2.imread('c.png')\nout = rgb + depth\n"
     "ValueError: operands could not be broadcast together with shapes (720,1280,3) (360,640)\n"),
    # an index past the end (blind audit 29, usr09), torch's and NumPy's words
    ("Traceback (most recent call last):\n  File \"/home/max/pose/eval.py\", line 52, in <module>\n"
     "    T = poses[i + 1]\nIndexError: index 71 is out of bounds for dimension 0 with size 71\n"),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\ida\\seg\\label.py\", line 17, in <module>\n"
     "    c = colors[lbl]\nIndexError: index 21 is out of bounds for axis 0 with size 21\n"),
]


@pytest.mark.parametrize("text", OWN_VALUES)
def test_a_shape_or_index_check_on_the_persons_values_is_their_code(text):
    assert rule_codes(text) == ["user_code_error"]


# the same checks raised in another library's frame: both readings, the values passed first
LIBRARY_FRAME = [
    ("Traceback (most recent call last):\n  File \"export.py\", line 30, in <module>\n    mesh.fill_holes()\n"
     "  File \"/usr/local/lib/python3.11/site-packages/trimesh/base.py\", line 1410, in fill_holes\n"
     "    return repair.fill_holes(self)\n  File \"/usr/local/lib/python3.11/site-packages/trimesh/repair.py\", "
     "line 221, in fill_holes\n    boundary_groups = group_rows(mesh.edges_sorted[edges_unique], require_count=1)\n"
     "IndexError: index 183224 is out of bounds for axis 0 with size 183220\n"),
    ("  File \"/home/x/AD-NeRF/data_util/face_tracking/render_3dmm.py\", line 75, in forward\n"
     "    images = softmax_rgb_blend(\n  File \"/home/x/envs/p3d/lib/python3.8/site-packages/pytorch3d/renderer/"
     "blending.py\", line 188, in softmax_rgb_blend\n    z_inv = (zfar - fragments.zbuf) / (zfar - znear) * mask\n"
     "RuntimeError: The size of tensor a (50) must match the size of tensor b (2) at non-singleton dimension 3\n"),
    ("Traceback (most recent call last):\n  File \"/home/a/mt/test.py\", line 33, in <module>\n    out = net(img)\n"
     "  File \"/opt/conda/lib/python3.9/site-packages/timm/models/vision_transformer.py\", line 410, in forward_head\n"
     "    return x @ self.proj.t()\n"
     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x1024 and 768x1000)\n"),
]


@pytest.mark.parametrize("text", LIBRARY_FRAME)
def test_a_shape_or_index_check_in_a_librarys_frame_reads_the_values_then_the_library(text):
    assert rule_codes(text) == ["user_code_error", "library_bug"]


# OpenCV's readers returning None (blind audit 29, usr12), a VideoCapture past its last frame
CV2_NONE = [
    ("img = cv2.imread(\"frames/rgb_0001.jpg\")\nh, w = img.shape[:2]\n"
     "AttributeError: 'NoneType' object has no attribute 'shape'\n"),
    ("Traceback (most recent call last):\n  File \"/home/u/calib/undistort.py\", line 14, in <module>\n"
     "    gray = cv2.cvtColor(image.copy(), cv2.COLOR_BGR2GRAY)\nAttributeError: 'NoneType' object has no attribute "
     "'copy'\n\nthe code:\n    image = cv2.imread(os.path.join(folder, name))\n"
     "    gray = cv2.cvtColor(image.copy(), cv2.COLOR_BGR2GRAY)\n"),
    ("cap = cv2.VideoCapture('clip.mp4')\nwhile True:\n    ret, frame = cap.read()\n    crop = frame[100:300, :]\n"
     "TypeError: 'NoneType' object is not subscriptable\n"),
]


@pytest.mark.parametrize("text", CV2_NONE)
def test_an_opencv_read_returning_none_is_the_path_or_the_stream(text):
    assert rule_codes(text) == ["user_code_error"]


# a JSON file of the person's that does not parse (blind audit 29, usr13)
JSON_FILES = [
    ("$ ns-train nerfacto --data data/mykitchen\nTraceback (most recent call last):\n  File \"/opt/conda/bin/ns-train\", "
     "line 8, in <module>\n    sys.exit(entrypoint())\n  File \"/opt/conda/lib/python3.10/site-packages/nerfstudio/"
     "data/dataparsers/nerfstudio_dataparser.py\", line 88, in _generate_dataparser_outputs\n"
     "    meta = load_from_json(data_dir / \"transforms.json\")\n  File \"/opt/conda/lib/python3.10/site-packages/"
     "nerfstudio/utils/io.py\", line 33, in load_from_json\n    return json.load(file)\n"
     "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1204 column 9 (char 40512)\n"),
    # PyYAML's scanner on the person's config
    ("Traceback (most recent call last):\n  File \"/home/t/proj/train.py\", line 12, in <module>\n"
     "    cfg = yaml.safe_load(open(args.config))\nyaml.scanner.ScannerError: mapping values are not allowed here\n"
     "  in \"configs/lego.yaml\", line 7, column 14\n"),
    ("yaml.parser.ParserError: while parsing a block mapping\n  in \"/data/exp/cfg.yml\", line 1, column 1\n"
     "expected <block end>, but found '-'\n  in \"/data/exp/cfg.yml\", line 9, column 3\n"),
]


@pytest.mark.parametrize("text", JSON_FILES)
def test_a_json_file_the_text_names_that_does_not_parse_is_the_file(text):
    assert rule_codes(text) == ["user_code_error"]


# detectron2's dataset catalog (blind audit 29, usr14)
DETECTRON2 = [
    ("Traceback (most recent call last):\n  File \"train.py\", line 61, in <module>\n    trainer = DefaultTrainer(cfg)\n"
     "  File \"/home/bo/detectron2/detectron2/data/catalog.py\", line 58, in get\n    raise KeyError(\n"
     "KeyError: \"Dataset 'chairs_train' is not registered! Available datasets are: coco_2014_train, coco_2017_val\"\n"),
    ("KeyError: \"Dataset 'my_dataset_val' is not registered! Available datasets are: keypoints_coco_2014_train, "
     "coco_2017_train, lvis_v1_val\"\n"),
]


@pytest.mark.parametrize("text", DETECTRON2)
def test_an_unregistered_detectron2_dataset_is_the_registration(text):
    assert rule_codes(text) == ["user_code_error"]


# a shape unpacked in a library's frame (blind audit 29, usr16): the value's dimensions first where the person calls it
SHAPE_UNPACK = [
    ("Traceback (most recent call last):\n  File \"/home/nia/dmtet/sample.py\", line 21, in <module>\n"
     "    pts = kaolin.ops.mesh.sample_points(verts, faces, 5000)[0]\n  File \"/usr/local/lib/python3.10/dist-packages/"
     "kaolin/ops/mesh/trianglemesh.py\", line 120, in sample_points\n    batch_size, num_vertices = vertices.shape[:2]\n"
     "ValueError: not enough values to unpack (expected 2, got 1)\n>>> verts.shape\ntorch.Size([642])\n"),
    ("Traceback (most recent call last):\n  File \"/home/o/p/eval.py\", line 9, in <module>\n"
     "    loss = kaolin.metrics.pointcloud.chamfer_distance(p1, p2)\n  File \"/usr/lib/python3/dist-packages/kaolin/"
     "metrics/pointcloud.py\", line 60, in chamfer_distance\n    B, N, _ = p1.shape\n"
     "ValueError: not enough values to unpack (expected 3, got 2)\n"),
]


@pytest.mark.parametrize("text", SHAPE_UNPACK)
def test_a_shape_unpacked_in_a_library_called_by_the_person_reads_the_value_first(text):
    assert rule_codes(text) == ["user_code_error", "library_bug"]


# near-misses: environment faults keep their code first; no reading of the person's value without its mechanism
NEAR_MISSES = [
    ("RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at "
     "some other API call\n../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [5,0,0] "
     "Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed.\n"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; 20.1 GiB "
     "already allocated; 1.2 GiB free; 21.0 GiB reserved in total by PyTorch)\n"),
    ("Traceback (most recent call last):\n  File \"/home/a/p/train.py\", line 2, in <module>\n    import cv2\n"
     "ModuleNotFoundError: No module named 'cv2'\n"),
    ("ImportError: /opt/conda/lib/python3.10/site-packages/torch_scatter/_scatter_cuda.so: undefined symbol: "
     "_ZN3c1017RegisterOperatorsD1Ev\n"),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"),
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_environment_faults_are_not_read_as_the_persons_values(text):
    got = rule_codes(text, n=1)
    assert got and got[0] != "user_code_error" or "device-side assert" in text


def test_a_device_side_index_assert_keeps_its_kernel_reading():
    # torch's CUDA indexing kernel's assert (asynchronous): not the host's "index N is out of bounds" row
    text = NEAR_MISSES[0]
    res = explain_result(text, similar=False)
    assert not any(f.evidence and "index_out_of_bounds_dim" in " ".join(map(str, f.evidence)) for f in res.findings)


NOT_THESE = [
    # an empty or HTML response read as JSON (line 1 column 1): not a file of the person's
    ("  File \"/home/a/app.py\", line 9, in fetch\n    data = requests.get(url).json()\n"
     "requests.exceptions.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"),
    # a None that no OpenCV reader returned
    ("Traceback (most recent call last):\n  File \"/home/a/p/run.py\", line 3, in <module>\n"
     "    print(model.shape)\nAttributeError: 'NoneType' object has no attribute 'shape'\n"),
]


@pytest.mark.parametrize("text", NOT_THESE)
def test_near_misses_of_the_files_and_readers_are_not_read_so(text):
    res = explain_result(text, similar=False)
    titles = " ".join(f.title for f in res.findings)
    assert "JSON file" not in titles and "returned None" not in titles


def test_an_unpacking_that_is_no_shape_keeps_its_release_reading():
    text = ("Traceback (most recent call last):\n  File \"/home/a/gs/render.py\", line 40, in <module>\n"
            "    rendered_image, radii = rasterizer(means3D=means3D)\nValueError: too many values to unpack (expected 2)\n")
    assert rule_codes(text, n=1) != ["user_code_error"]


@pytest.mark.parametrize("key", ["cat_sizes_mismatch", "index_out_of_bounds_dim"])
def test_torch_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("torch_messages", key)


@pytest.mark.parametrize("key", ["numpy_broadcast_shapes", "detectron2_dataset_not_registered"])
def test_library_rows_match_their_examples(key):
    assert_row_matches_its_example_and_stays_linear("library_messages", key)


# printed fixes for a sample: what to look at (the shapes, the path, the file, the registration, kaolin's batch)
def _printed(text: str) -> str:
    out: list[str] = []
    for f in explain_result(text, similar=False).findings:
        out += [f.title, *(f.evidence or ())]
        out += [f.fix.why, *f.fix.commands] if f.fix else []
    return "\n".join(map(str, out))


def test_printed_fixes_say_what_to_look_at():
    out = _printed(CV2_NONE[0])
    assert "cv2.imread returned None" in out and "ls -la 'frames/rgb_0001.jpg'" in out
    out = _printed(JSON_FILES[0])
    assert "transforms.json" in out and "line 1204 column 9" in out and "python -m json.tool" in out
    out = _printed(JSON_FILES[1])
    assert "YAML file lego.yaml" in out and "yaml.safe_load" in out and "line 7 column 14" in out
    out = _printed(DETECTRON2[0])
    assert "DatasetCatalog.register" in out and "pip install" not in out
    out = _printed(SHAPE_UNPACK[0])
    assert "(batch_size, num_vertices, 3)" in out and "unsqueeze(0)" in out and "pip install --upgrade kaolin" not in out
    out = _printed(OWN_VALUES[3])
    assert "mask[..., None]" in out and "CUDA_LAUNCH_BLOCKING" not in out
    out = _printed(OWN_VALUES[1])
    assert "t.shape for t in tensors" in out


def test_a_shape_unpacked_in_the_persons_own_frame_is_their_code_alone():
    text = ("Traceback (most recent call last):\n  File \"/home/a/p/prep.py\", line 7, in <module>\n"
            "    h, w = img.shape\nValueError: too many values to unpack (expected 2)\n")
    assert rule_codes(text) == ["user_code_error"]


def test_a_yaml_constructor_error_is_no_broken_file():
    text = ("yaml.constructor.ConstructorError: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/object/apply:numpy.core.multiarray.scalar'\n  in \"cfg.yaml\", line 4, column 9\n")
    assert "YAML file" not in " ".join(f.title for f in explain_result(text, similar=False).findings)


# wordings earlier rounds already read (round 28c's size_of_tensor row, round 29b's ValueError in a package called by
# the person's frame, round 28a's own json.load): kept as guards, they pass before this round too
EARLIER = [
    (("Traceback (most recent call last):\n  File \"/home/u/nerf/render.py\", line 30, in <module>\n"
      "    pts = rays_o + rays_d * z\nRuntimeError: The size of tensor a (1024) must match the size of tensor "
      "b (64) at non-singleton dimension 1\n"), ["user_code_error"]),
    (("Traceback (most recent call last):\n  File \"/home/a/proj/aug.py\", line 12, in <module>\n"
      "    out = albumentations_pipeline(image=img, mask=m)\n  File \"/opt/conda/lib/python3.10/site-packages/"
      "imgaug/augmenters/meta.py\", line 2001, in _augment_images\n    result = image * alpha\n"
      "ValueError: operands could not be broadcast together with shapes (256,256,4) (256,256,3)\n"),
     ["user_code_error", "library_bug"]),
    (("python train.py --config configs/scene.json\n  File \"/home/k/proj/train.py\", line 20, in load_cfg\n"
      "    cfg = json.load(f)\njson.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 14 "
      "column 5 (char 301)\n"), ["user_code_error"]),
]


@pytest.mark.parametrize(("text", "codes"), EARLIER)
def test_wordings_earlier_rounds_read_keep_their_readings(text, codes):
    assert rule_codes(text) == codes
