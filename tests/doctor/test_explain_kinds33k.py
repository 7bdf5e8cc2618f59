# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 33k: a released package is known by its name. "No module named 'X.Y'", "module 'X' has no attribute 'Y'",
"cannot import name 'Y' from 'X'" say that Python found X and X lacks Y; where X is the import name of a released
package (tables/released_import_names.txt, from hugovk/top-pypi-packages; or a package of the doctor's own tables),
that is X's installed release, whether or not the text names the release. A project's own folder (``utils``,
``models``, an English word, a released name whose files the traceback shows in the project's tree) is read as before.
And a compiled class of a top-level module prints two names ('pycolmap.Image', pybind11's tp_name)."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor import tables
from smrnb.doctor._explain import explain_result


def _first_two(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings][:2]


POSITIVE = {
    # torchtext 0.9 moved the old data API to torchtext.legacy, 0.12 removed it: a project's own script asks
    "torchtext_own_script": ("Traceback (most recent call last):\n"
                             '  File "/home/ana/seq2seq/train.py", line 4, in <module>\n'
                             "    from torchtext.data import TabularDataset\n"
                             "ImportError: cannot import name 'TabularDataset' from 'torchtext.data'\n",
                             {"package_api_version_mismatch"}),
    # diffusers added its SDXL pipelines in 0.18: an older release lacks the subpackage
    "diffusers_submodule": ("Traceback (most recent call last):\n"
                            '  File "inference.py", line 12, in <module>\n'
                            "    from diffusers.pipelines.stable_diffusion_xl import StableDiffusionXLPipeline\n"
                            "ModuleNotFoundError: No module named 'diffusers.pipelines.stable_diffusion_xl'\n",
                            {"package_api_version_mismatch"}),
    "mitsuba_attribute": ("  File \"render.py\", line 7, in <module>\n"
                          "    mi.set_variant('cuda_ad_rgb')\n"
                          "AttributeError: module 'mitsuba' has no attribute 'set_variant'\n",
                          {"package_api_version_mismatch"}),
    "monai_name": ("ImportError: cannot import name 'SlidingWindowInfererAdapt' from 'monai.inferers'",
                   {"package_api_version_mismatch"}),
    # the person's own add-on asks bpy for a name: the installed bpy's release first, their code second
    "bpy_own_addon": ("Traceback (most recent call last):\n"
                      '  File "C:\\Users\\kim\\addons\\my_tool\\__init__.py", line 12, in <module>\n'
                      "    class MyPanel(bpy.types.SpaceView3D):\n"
                      "AttributeError: module 'bpy.types' has no attribute 'SpaceView3D'\n",
                      {"package_api_version_mismatch"}),
    # Isaac Gym is released by NVIDIA outside PyPI: the doctor's own table names it
    "isaacgym_enum": ("  File \"train.py\", line 40, in create_sim\n"
                      "    sim_params.physx.contact_collection = gymapi.ContactCollection.CC_ALL_SUBSTEPS\n"
                      "AttributeError: module 'isaacgym.gymapi' has no attribute 'ContactCollection'\n",
                      {"package_api_version_mismatch"}),
    # pybind11 prints a class of a top-level module as 'module.Class'
    "pycolmap_type": ("  File \"sfm/triangulate.py\", line 88, in run\n"
                      "    img = rec.find_image_with_name(name)\n"
                      "AttributeError: 'pycolmap.Reconstruction' object has no attribute 'find_image_with_name'\n",
                      {"package_api_version_mismatch"}),
    "pycolmap_type_title": ("'pycolmap.Image' object has no attribute 'projection_matrix'",
                            {"package_api_version_mismatch"}),
}


@pytest.mark.parametrize("key", sorted(POSITIVE))
def test_a_released_package_lacking_a_name_is_its_release(key):
    text, codes = POSITIVE[key]
    assert codes & set(_first_two(text)), (key, _first_two(text))


def test_the_second_reading_is_whose_code_asks():
    assert _first_two(POSITIVE["bpy_own_addon"][0]) == ["package_api_version_mismatch", "user_code_error"]
    assert _first_two(POSITIVE["monai_name"][0]) == ["package_api_version_mismatch"]  # no frame, no code: one reading


NEAR = {
    # a project's own folders, named like PyPI projects (utils, models, datasets, lib)
    "own_utils": ("Traceback (most recent call last):\n"
                  '  File "train.py", line 5, in <module>\n'
                  "    from utils.general import check_img_size\n"
                  "ModuleNotFoundError: No module named 'utils.general'\n"),
    "own_models": "AttributeError: module 'models' has no attribute 'build_model'",
    "own_lib_config": "ImportError: cannot import name 'cfg' from 'lib.config'",
    "own_datasets": ("  File \"tools/train.py\", line 8, in <module>\n"
                     "    from datasets.coco import build\n"
                     "ModuleNotFoundError: No module named 'datasets.coco'\n"),
    # an English word a PyPI project also has, outside the most downloaded (kernels, segments)
    "own_kernels": "ModuleNotFoundError: No module named 'kernels.fused_adam'",
    "own_segments": "AttributeError: module 'segments.stages' has no attribute 'Resize'",
    # a released name whose files the traceback shows in the project's own tree: the project's copy
    "own_monai_copy": ("Traceback (most recent call last):\n"
                       '  File "/home/u/proj/train.py", line 3, in <module>\n'
                       "    from monai.networks.nets import SwinUNETR2\n"
                       '  File "/home/u/proj/monai/networks/nets/__init__.py", line 1, in <module>\n'
                       "    from .swin import SwinUNETR\n"
                       "ImportError: cannot import name 'SwinUNETR2' from 'monai.networks.nets'\n"),
    # numpy's ndarray prints as 'numpy.ndarray': a lower-case type, the calling code's own mistake
    "ndarray_append": "AttributeError: 'numpy.ndarray' object has no attribute 'append'",
}


@pytest.mark.parametrize("key", sorted(NEAR))
def test_a_project_folder_is_not_a_release(key):
    assert "package_api_version_mismatch" not in _first_two(NEAR[key]), (key, _first_two(NEAR[key]))


def test_released_import_names_table_is_sourced_and_leaves_folder_names_out():
    from smrnb.doctor.tables import _read

    head = (_read.HERE / "released_import_names.txt").read_text(encoding="utf-8").splitlines()[:2]
    assert "hugovk/top-pypi-packages" in head[0] and re.search(r"20\d\d-\d\d-\d\d", head[0])
    names = tables.released_import_names()
    assert {"torchtext", "diffusers", "pycolmap", "bpy", "monai", "paddle", "mitsuba", "six", "cv2"} <= names
    assert not {"utils", "models", "data", "datasets", "config", "tools", "common", "lib", "src", "ops", "scripts",
                "kernels", "segments"} & names
    assert all(re.fullmatch(r"[a-z0-9_]+", n) for n in names)
