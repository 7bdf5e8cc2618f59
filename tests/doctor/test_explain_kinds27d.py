# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 27d: names a release ADDED (tables/added_apis.csv, the reverse of removed_apis.csv, each row from
the package's release notes): Python's "module 'P' has no attribute 'X'", "cannot import name 'X' from 'P'" and "No
module named 'P.X'" for a name a later release of P added read as the installed release being older than the code's
(package_api_version_mismatch, the upgrade to that release), unless the text shows that release or a later one; a
module that is a bare folder in Python's own words ("cannot import name 'X' from 'P' (unknown location)": the module
has no __file__, a PEP 420 namespace package; "module 'P' has no attribute '__version__'"): a folder named P shadowing
the installed package first, the install's files gone second; a namespace root by design (google, azure, nvidia)
lacking the distribution of P.X; the Gaussian Splatting COLMAP loaders' own words for a model with distorted cameras.
Each text is written for the test (other wordings and packages than the threads); each kind has near-misses that
must NOT get its code."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

TABLE = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "tables" / "added_apis.csv"

ADDED = [
    # names a later release added: the row of tables/added_apis.csv, in the first finding
    ("Traceback (most recent call last):\n  File \"render_loop.py\", line 9, in <module>\n    @dr.syntax\n"
     "AttributeError: module 'drjit' has no attribute 'syntax'\n", "drjit10_syntax"),
    ("When I follow the README I get\nAttributeError: module 'whisperx' has no attribute 'load_model'\n",
     "whisperx3_load_model"),
    ("    net = monai.networks.nets.BasicUNet(dimensions=3)\nAttributeError: module 'monai.networks.nets' has no "
     "attribute 'BasicUNet'\nMONAI version: 0.3.0\n", "monai04_basicunet"),
    ("  File \"/home/u/proj/train.py\", line 4, in <module>\n    from huggingface_hub import "
     "split_torch_state_dict_into_shards\nImportError: cannot import name 'split_torch_state_dict_into_shards' from "
     "'huggingface_hub' (/opt/conda/lib/python3.10/site-packages/huggingface_hub/__init__.py)\n",
     "hfhub023_split_torch_state_dict"),
    ("    from torch.nn.attention import sdpa_kernel, SDPBackend\nModuleNotFoundError: No module named "
     "'torch.nn.attention'\n", "torch22_nn_attention"),
    ("model = torch.compile(model)\nAttributeError: module 'torch' has no attribute 'compile'\ntorch==1.13.1\n",
     "torch20_compile"),
    ("    area = np.trapezoid(y, x)\nAttributeError: module 'numpy' has no attribute 'trapezoid'\n",
     "numpy20_trapezoid"),
    ("ImportError: cannot import name 'FluxPipeline' from 'diffusers' "
     "(/usr/lib/python3/site-packages/diffusers/__init__.py)\n", "diffusers030_flux"),
    ("from transformers import Qwen2VLForConditionalGeneration\nImportError: cannot import name "
     "'Qwen2VLForConditionalGeneration' from 'transformers'\n", "transformers445_qwen2vl"),
    ("    from numpy.exceptions import AxisError\nModuleNotFoundError: No module named 'numpy.exceptions'\n",
     "numpy125_exceptions"),
]

READINGS = [
    # a bare folder in the package's place
    ("[Bug]: cannot import name 'SamplingParams' from 'vllm' (unknown location)\n", "user_code_error"),
    ("Traceback (most recent call last):\n  File \"run.py\", line 2, in <module>\n    from ultralytics import YOLO\n"
     "ImportError: cannot import name 'YOLO' from 'ultralytics' (unknown location)\n", "user_code_error"),
    ("  File \"/env/lib/python3.9/site-packages/paddlehub/__init__.py\", line 20, in <module>\n"
     "    _paddle_version = Version(paddle.__version__)\nAttributeError: module 'paddle' has no attribute "
     "'__version__'\n", "user_code_error"),
    ("print(tf.__version__)\nAttributeError: module 'tensorflow' has no attribute '__version__'\n",
     "user_code_error"),
    ("ImportError: cannot import name 'genai' from 'google' (unknown location)\n", "python_package_missing"),
    ("    from azure import storage\nImportError: cannot import name 'storage' from 'azure' (unknown location)\n",
     "python_package_missing"),
    # a COLMAP model with distorted cameras given to a Gaussian Splatting loader
    ("  File \"/home/u/gaussian-splatting/scene/dataset_readers.py\", line 97, in readColmapCameras\n    assert False, "
     "\"Colmap camera model not handled: only undistorted datasets (PINHOLE or SIMPLE_PINHOLE cameras) supported!\"\n"
     "AssertionError: Colmap camera model not handled: only undistorted datasets (PINHOLE or SIMPLE_PINHOLE cameras) "
     "supported!\n", "user_code_error"),
    ("python main.py fit --data.path data/garden\nRuntimeError: Unsupported camera model: only PINHOLE or "
     "SIMPLE_PINHOLE currently. Please undistort your images with the command below first:\n  colmap "
     "image_undistorter --image_path data/garden/images --input_path data/garden/sparse/0 --output_path "
     "data/garden/dense\n", "user_code_error"),
]

NOT = [
    # the text shows the release that added the name, or a later one: something else lacks it
    ("AttributeError: module 'drjit' has no attribute 'syntax'\ndrjit 1.0.3\n", "tables/added_apis.csv"),
    ("AttributeError: module 'torch' has no attribute 'compile'\ntorch 2.1.0\n", "tables/added_apis.csv"),
    # an attribute of the parent (a submodule not imported), not "No module named"
    ("AttributeError: module 'torch.nn' has no attribute 'attention'\n", "tables/added_apis.csv"),
    # a name no row holds
    ("AttributeError: module 'drjit' has no attribute 'sytnax'\n", "tables/added_apis.csv"),
    # a bare name with no module: not decided by the table
    ("ImportError: cannot import name 'FluxPipeline'\n", "tables/added_apis.csv"),
    # another tool's camera-model message (a numeric id, a SLAM config): not the Gaussian Splatting loaders' row
    ("RuntimeError: Unsupported camera model: 2\n", "gs_colmap_camera_not_undistorted"),
    ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  Unsupported camera model: ATAN\n",
     "gs_colmap_camera_not_undistorted"),
]

NOT_CODES = [
    # a module with a file: not a bare folder
    ("ImportError: cannot import name 'SamplingParams' from 'vllm' "
     "(/usr/lib/python3/site-packages/vllm/__init__.py)\n", "user_code_error"),
    # a submodule's __version__ (submodules never define one)
    ("AttributeError: module 'keras.backend' has no attribute '__version__'\n", "user_code_error"),
    # a namespace root: the distribution is missing, not a folder of the user's
    ("ImportError: cannot import name 'genai' from 'google' (unknown location)\n", "user_code_error"),
    # a circular import's own words
    ("ImportError: cannot import name 'A' from partially initialized module 'mypkg' (most likely due to a circular "
     "import) (/home/u/mypkg/__init__.py)\n", "python_package_missing"),
]


def _findings(text: str):
    return explain_result(text, similar=False).findings


@pytest.mark.parametrize(("text", "key"), ADDED, ids=[t[:50] for t, _ in ADDED])
def test_added_name_reads_as_the_release_that_added_it(text, key):
    f = _findings(text)[0]
    assert f.code == "package_api_version_mismatch", (text, [g.code for g in _findings(text)])
    assert f"tables/added_apis.csv {key}:" in " ".join(map(str, f.evidence)), (text, f.evidence)


@pytest.mark.parametrize(("text", "code"), READINGS, ids=[t[:50] for t, _ in READINGS])
def test_kind_reads_as_its_cause(text, code):
    assert code in rule_codes(text, n=2), (text, rule_codes(text, n=4))


@pytest.mark.parametrize(("text", "source"), NOT, ids=[t[:50] for t, _ in NOT])
def test_table_does_not_read_other_texts(text, source):
    assert not any(source in " ".join(map(str, f.evidence)) for f in _findings(text)), text


def test_new_row_matches_its_example_and_stays_linear():
    assert_row_matches_its_example_and_stays_linear("library_messages", "gs_colmap_camera_not_undistorted")


def test_colmap_fix_undistorts():
    text = "AssertionError: Colmap camera model not handled: only undistorted datasets (PINHOLE or SIMPLE_PINHOLE)\n"
    f = _findings(text)[0]
    assert f.code == "user_code_error" and "image_undistorter" in " ".join(f.fix.commands)


@pytest.mark.parametrize(("text", "code"), NOT_CODES, ids=[t[:50] for t, _ in NOT_CODES])
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3), (text, rule_codes(text, n=4))


def test_every_row_names_its_release_note_and_reads_its_example():
    with open(TABLE, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len({r["key"] for r in rows}) == len(rows)
    for r in rows:
        assert r["source"].startswith("https://") and r["added_in"][:1].isdigit(), r["key"]
        assert r["verified"] in ("yes", "partial", "no"), r["key"]
        first = _findings(r["example"])[:2]
        assert any("tables/added_apis.csv " + r["key"] in " ".join(map(str, f.evidence)) for f in first), r["key"]


def test_added_fix_upgrades_to_the_release_that_added_it():
    f = _findings("AttributeError: module 'drjit' has no attribute 'syntax'\n")[0]
    assert f.code == "package_api_version_mismatch" and "drjit 1.0.0" in f.title
    cmds = " ".join(f.fix.commands)
    assert 'pip install -U "drjit>=1.0.0"' in cmds and "pip show drjit" in cmds


def test_added_fix_names_the_release_shown():
    f = _findings("AttributeError: module 'monai.networks.nets' has no attribute 'BasicUNet'\nmonai 0.3.0\n")[0]
    assert "monai 0.3.0" in f.title and "0.4.0" in f.title


def test_bare_folder_fix_finds_the_folder():
    f = _findings("ImportError: cannot import name 'SamplingParams' from 'vllm' (unknown location)\n")[0]
    assert f.code == "user_code_error" and "bare folder" in f.title
    assert "vllm.__path__" in " ".join(f.fix.commands)


def test_namespace_root_fix_names_the_distribution():
    f = _findings("ImportError: cannot import name 'genai' from 'google' (unknown location)\n")[0]
    assert f.code == "python_package_missing" and "google.genai" in f.title
