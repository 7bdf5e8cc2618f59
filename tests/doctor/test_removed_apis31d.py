# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 31d: tables/removed_apis.csv for the libraries smrnb's users run most (the ones the released
corpus parts' tracebacks name most often): what each release removed or renamed, from the library's own changelog,
release notes, deprecation message or the commit that removed it (flash_attn 2.0, nerfacc 0.5, mmcv 2.0's mmcv.cnn
and mmcv.utils, kaolin 0.9, peft 0.10, dgl 1.0 and 0.5.1, gsplat 1.4, PyG 2.1 / 2.3, torchaudio 2.9, diffusers 0.25 /
0.29 / 0.37, trimesh 4.4.8 / 4.8.2, detectron2 0.2, pytorch3d 0.2.5, keras 2.13, Pillow 10 / 12, torch_scatter 2.0,
nvdiffrast 0.4, triton 3.2, torch 2.0). Each text is written for the test in Python's own words, in several shapes (a
project's traceback, a notebook cell, a bare error line, a keyword refused); each must be read as
``package_api_version_mismatch`` naming the release that removed the name and its replacement. Near-misses (the same
name on another module, the replacement name itself, a release shown older than the removal, a class of another
package, a keyword refused by a function of the user's own) must not get the table's finding."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from smrnb.doctor._explain import explain_text

TABLE = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "tables" / "removed_apis.csv"
ROWS = {r["key"]: r for r in csv.DictReader(TABLE.open(encoding="utf-8"))}


def _findings(text: str):
    return list(explain_text(text, None, similar=False))


def _removal(text: str):
    """The finding tables/removed_apis.csv gave for ``text`` (its evidence names the table), else None."""
    return next((f for f in _findings(text) if any("tables/removed_apis.csv" in str(e) for e in f.evidence)), None)


SP = "/home/user/miniconda3/envs/proj/lib/python3.10/site-packages"

# (text, the row's key, a word of the replacement the printed fix must carry)
TEXTS = [
    # flash_attn 2.0 renamed the unpadded functions
    ("Traceback (most recent call last):\n  File \"/work/longctx/train.py\", line 4, in <module>\n"
     "    from longctx.monkey_patch import replace_attn\n  File \"/work/longctx/longctx/monkey_patch.py\", line 9, in "
     "<module>\n    from flash_attn.flash_attn_interface import flash_attn_unpadded_qkvpacked_func\n"
     f"ImportError: cannot import name 'flash_attn_unpadded_qkvpacked_func' from 'flash_attn.flash_attn_interface' "
     f"({SP}/flash_attn/flash_attn_interface.py)\n", "flash_attn2_unpadded_qkvpacked_func",
     "flash_attn_varlen_qkvpacked_func"),
    ("I installed flash-attn with pip install flash-attn --no-build-isolation and the example fails:\n"
     "----> 3 from flash_attn.flash_attn_interface import flash_attn_unpadded_func\n\n"
     "ImportError: cannot import name 'flash_attn_unpadded_func' from 'flash_attn.flash_attn_interface'\n",
     "flash_attn2_unpadded_func", "flash_attn_varlen_func"),
    ("  File \"/opt/app/models/attention.py\", line 12, in <module>\n    from flash_attn.flash_attention import "
     "FlashMHA\nModuleNotFoundError: No module named 'flash_attn.flash_attention'\n", "flash_attn2_flash_attention",
     "flash_attn.modules.mha.MHA"),
    # nerfacc 0.5
    ("Traceback (most recent call last):\n  File \"examples/train_ngp_nerf.py\", line 211, in <module>\n"
     "    rgb, acc, depth, n_rendering_samples = render_image(\n  File \"/ws/nerf/utils.py\", line 77, in "
     "render_image\n    ray_indices, t_starts, t_ends = nerfacc.ray_marching(\n"
     "AttributeError: module 'nerfacc' has no attribute 'ray_marching'\n", "nerfacc05_ray_marching", "sampling()"),
    ("  File \"/ws/proj/fields/grid.py\", line 3, in <module>\n    from nerfacc import ContractionType, OccupancyGrid\n"
     f"ImportError: cannot import name 'ContractionType' from 'nerfacc' ({SP}/nerfacc/__init__.py)\n",
     "nerfacc05_contractiontype", "OccGridEstimator"),
    # mmcv 2.0: mmcv.cnn's init functions and mmcv.utils' helpers moved to mmengine
    ("Traceback (most recent call last):\n  File \"tools/train.py\", line 15, in <module>\n    from mmdet3d.models "
     "import build_model\n  File \"/ws/mmdet3d/models/backbones/second.py\", line 3, in <module>\n    from mmcv.cnn "
     f"import build_conv_layer, build_norm_layer, constant_init, kaiming_init\nImportError: cannot import name "
     f"'constant_init' from 'mmcv.cnn' ({SP}/mmcv/cnn/__init__.py)\n", "mmcv2_cnn_constant_init",
     "mmengine.model.constant_init"),
    ("  File \"/ws/seg/models/utils/embed.py\", line 6, in <module>\n    from mmcv.utils import to_2tuple\n"
     f"ImportError: cannot import name 'to_2tuple' from 'mmcv.utils' ({SP}/mmcv/utils/__init__.py)\n",
     "mmcv2_utils_to_2tuple", "mmengine.utils.to_2tuple"),
    # kaolin 0.9
    ("  File \"/content/pix2mesh/losses.py\", line 2, in <module>\n    from kaolin.metrics.point import "
     "chamfer_distance\nModuleNotFoundError: No module named 'kaolin.metrics.point'\n", "kaolin09_metrics_point",
     "kaolin.metrics.pointcloud"),
    ("    from kaolin.conversions.meshconversions import trianglemesh_to_sdf\n"
     "ModuleNotFoundError: No module named 'kaolin.conversions'\n", "kaolin09_conversions", "kaolin.ops.conversions"),
    # peft 0.10
    ("Traceback (most recent call last):\n  File \"finetune.py\", line 19, in <module>\n    from peft import (\n"
     f"ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft' ({SP}/peft/__init__.py)\n",
     "peft010_prepare_model_for_int8_training", "prepare_model_for_kbit_training"),
    # dgl 1.0 builtins, dgl 0.5.1 create_format_
    ("  File \"/ws/gnn/layers.py\", line 40, in forward\n    g.update_all(fn.copy_src(src='h', out='m'), "
     "fn.sum(msg='m', out='h'))\nAttributeError: module 'dgl.function' has no attribute 'copy_src'\n",
     "dgl1_function_copy_src", "dgl.function.copy_u"),
    ("with dgl 0.9.1:\n  File \"sampler.py\", line 88, in sample_blocks\n    block.create_format_()\n"
     "AttributeError: 'DGLBlock' object has no attribute 'create_format_'\n", "dgl051_block_create_format_",
     "create_formats_"),
    # gsplat 1.4
    ("  File \"/ws/splat/render.py\", line 5, in <module>\n    from gsplat import project_gaussians, "
     f"rasterize_gaussians\nImportError: cannot import name 'project_gaussians' from 'gsplat' ({SP}/gsplat/__init__.py)\n",
     "gsplat14_project_gaussians", "gsplat.rasterization"),
    # PyG
    ("  File \"explain.py\", line 8, in <module>\n    from torch_geometric.nn import GCNConv, GNNExplainer\n"
     f"ImportError: cannot import name 'GNNExplainer' from 'torch_geometric.nn' ({SP}/torch_geometric/nn/__init__.py)\n",
     "pyg23_nn_gnnexplainer", "torch_geometric.explain.Explainer"),
    ("    from torch_geometric.utils import accuracy, to_undirected\nImportError: cannot import name 'accuracy' from "
     f"'torch_geometric.utils' ({SP}/torch_geometric/utils/__init__.py)\n", "pyg21_utils_accuracy", "torchmetrics"),
    # torchaudio 2.9
    ("  File \"/ws/asr/augment.py\", line 3, in <module>\n    import torchaudio.sox_effects as sox\n"
     "ModuleNotFoundError: No module named 'torchaudio.sox_effects'\n", "torchaudio29_sox_effects",
     "torchaudio.functional"),
    # diffusers
    ("  File \"/ws/ldm/pipeline.py\", line 7, in <module>\n    from diffusers.models.unet_2d_condition import "
     "UNet2DConditionModel\nModuleNotFoundError: No module named 'diffusers.models.unet_2d_condition'\n",
     "diffusers029_models_unet_2d_condition", "diffusers.models.unets.unet_2d_condition"),
    ("    from diffusers.models.vae import DiagonalGaussianDistribution\nModuleNotFoundError: No module named "
     "'diffusers.models.vae'\n", "diffusers025_models_vae", "diffusers.models.autoencoders.vae"),
    # trimesh
    ("import trimesh\nmesh = trimesh.load('bunny.obj')\nlow = mesh.simplify_quadratic_decimation(5000)\n"
     "AttributeError: 'Trimesh' object has no attribute 'simplify_quadratic_decimation'\n",
     "trimesh448_simplify_quadratic_decimation", "simplify_quadric_decimation"),
    # detectron2
    ("  File \"/ws/det/data/mapper.py\", line 9, in <module>\n    from detectron2.data.transforms.transform_gen import "
     "TransformGen\nModuleNotFoundError: No module named 'detectron2.data.transforms.transform_gen'\n",
     "detectron2_02_transform_gen", "detectron2.data.transforms"),
    # pytorch3d
    ("  File \"render_mesh.py\", line 6, in <module>\n    from pytorch3d.structures import Meshes, Textures\n"
     f"ImportError: cannot import name 'Textures' from 'pytorch3d.structures' ({SP}/pytorch3d/structures/__init__.py)\n",
     "pytorch3d025_structures_textures", "TexturesVertex"),
    # keras 2.13
    ("  File \"grid_search.py\", line 4, in <module>\n    from keras.wrappers.scikit_learn import KerasClassifier\n"
     "ModuleNotFoundError: No module named 'keras.wrappers'\n", "keras213_wrappers", "scikeras"),
    # Pillow 12
    ("  File \"/ws/img/ops.py\", line 22, in blend\n    out = ImageMath.eval('a * 0.5 + b * 0.5', a=im1, b=im2)\n"
     "AttributeError: module 'PIL.ImageMath' has no attribute 'eval'\n", "pillow12_imagemath_eval", "lambda_eval"),
    # torch_scatter 2.0: a removed keyword
    ("  File \"/ws/pointnet/pool.py\", line 31, in forward\n    out, _ = torch_scatter.scatter_max(x, batch, dim=0, "
     "fill_value=-1e9)\nTypeError: scatter_max() got an unexpected keyword argument 'fill_value'\n",
     "torch_scatter2_scatter_max_fill_value", "torch.full"),
    # nvdiffrast 0.4
    ("    import nvdiffrast.tensorflow as dr\nModuleNotFoundError: No module named 'nvdiffrast.tensorflow'\n",
     "nvdiffrast04_tensorflow", "nvdiffrast.torch"),
    # diffusers 0.21, mmcv 2.0's registry, kaolin 0.9's model zoo, TensorFlow 2.16's estimator
    ("  File \"/ws/sr/pipeline_sr.py\", line 28, in <module>\n    from diffusers.utils import randn_tensor\n"
     f"ImportError: cannot import name 'randn_tensor' from 'diffusers.utils' ({SP}/diffusers/utils/__init__.py)\n",
     "diffusers021_utils_randn_tensor", "diffusers.utils.torch_utils.randn_tensor"),
    ("    from mmcv.cnn import MODELS\nImportError: cannot import name 'MODELS' from 'mmcv.cnn' "
     f"({SP}/mmcv/cnn/__init__.py)\n", "mmcv2_cnn_models", "mmengine.registry.MODELS"),
    ("  File \"demo.py\", line 3, in <module>\n    from kaolin.models.PointNet import PointNetClassifier\n"
     "ModuleNotFoundError: No module named 'kaolin.models'\n", "kaolin09_models", "v0.1 tag"),
    ("  File \"/ws/wide_deep/train.py\", line 40, in main\n    est = tf.estimator.DNNClassifier(feature_columns=cols, "
     "hidden_units=[64, 32])\nAttributeError: module 'tensorflow' has no attribute 'estimator'\n", "tf216_estimator",
     "tensorflow<2.16"),
    # triton 3.2, through the package importing it
    ("  File \"/venv/lib/python3.11/site-packages/bitsandbytes/triton/int8_matmul_mixed_dequantize.py\", line 12, in "
     "<module>\n    from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time\n"
     "ModuleNotFoundError: No module named 'triton.ops'\n", "triton32_ops", "bitsandbytes 0.45.1"),
]


@pytest.mark.parametrize("text, key, replacement", TEXTS, ids=[t[1] for t in TEXTS])
def test_a_removed_name_is_read_as_the_release_that_removed_it(text, key, replacement):
    row = ROWS[key]
    found = _findings(text)
    assert found and found[0].code == "package_api_version_mismatch", [(f.code, f.title) for f in found]
    f = _removal(text)
    assert f is not None and f.code == "package_api_version_mismatch"
    lib = "Python" if row["library"] == "python" else row["library"]
    assert f"removed in {lib} {row['removed_in']}" in f.title, f.title
    assert f"tables/removed_apis.csv {key}:" in " ".join(str(e) for e in f.evidence)
    printed = " ".join([f.title, f.fix.why, *f.fix.commands])
    assert replacement in row["replacement"] and row["replacement"] in printed, printed


def test_torch_six_gives_the_release_beside_the_torch_source_reading():
    text = ("  File \"/ws/apex/apex/amp/_amp_state.py\", line 14, in <module>\n    from torch._six import "
            "container_abcs\nModuleNotFoundError: No module named 'torch._six'\n")
    codes = [f.code for f in _findings(text)][:2]
    assert "package_api_version_mismatch" in codes, codes
    f = _removal(text)
    assert f is not None and "removed in torch 2.0" in f.title


def test_the_printed_fix_changes_the_code_first_then_pins():
    text = TEXTS[5][0]  # mmcv.cnn constant_init
    f = _removal(text)
    assert f.fix.commands[0].startswith("# change the code: mmcv.cnn.constant_init -> mmengine.model.constant_init")
    assert 'mmcv-full<2' in f.fix.commands[1]  # mmcv 1.x with its CUDA ops is the package mmcv-full


NEAR_MISSES = [
    # the same name on another module
    "ImportError: cannot import name 'OccupancyGrid' from 'scene.grids' (/ws/proj/scene/grids.py)\n",
    "ImportError: cannot import name 'constant_init' from 'mmengine.model' "
    f"({SP}/mmengine/model/__init__.py)\n",
    "AttributeError: module 'my_ops' has no attribute 'ray_marching'\n",
    # the replacement name itself (the installed release is older than the code: not a removal)
    f"ImportError: cannot import name 'OccGridEstimator' from 'nerfacc' ({SP}/nerfacc/__init__.py)\n",
    "AttributeError: module 'dgl.function' has no attribute 'copy_u'\n",
    "ModuleNotFoundError: No module named 'diffusers.models.unets.unet_2d_condition'\n",
    # a release shown older than the removal: the name was there, something else lacks it
    "nerfacc 0.3.5\ntorch 1.13.1\n  File \"train.py\", line 40, in <module>\n    nerfacc.ray_marching(rays_o, rays_d)\n"
    "AttributeError: module 'nerfacc' has no attribute 'ray_marching'\n",
    "$ pip list | grep mmcv\nmmcv                          1.7.1\n    from mmcv.cnn import constant_init\nImportError: cannot import name "
    f"'constant_init' from 'mmcv.cnn' ({SP}/mmcv/cnn/__init__.py)\n",
    # a class of another package with the member's name
    "AttributeError: 'PolyData' object has no attribute 'smoothed'\n",
    # a keyword refused by a function of the user's own (no torch_scatter in the text)
    "  File \"/ws/ops.py\", line 10, in pool\n    return scatter_max(x, idx, fill_value=0)\n"
    "TypeError: scatter_max() got an unexpected keyword argument 'fill_value'\n",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_get_no_removal_finding(text):
    assert _removal(text) is None, [(f.code, f.title) for f in _findings(text)]
