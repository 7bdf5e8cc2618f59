"""Round 35d: the releases of the 3D-vision libraries users pin, read from their changelogs and source.

Rows of tables/removed_apis.csv and added_apis.csv (spconv 2's move to spconv.pytorch, dgl 1.0's renamed
heterograph class, pytorch-lightning 0.10's metrics, TensorRT 8.0 / 10.0's Builder members, MuJoCo's renamed fields,
pytorch3d's renderer names, ultralytics' old layout, torch_geometric's subpackages), pickle's words for a class a
release removed, and OpenMMLab's own import checks of its dependencies' ranges. Each reading: texts written here
(the library's message as its source prints it), and near-misses that share words but not the mechanism.
"""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

CODE = "package_api_version_mismatch"


def _first_two(text: str):
    return explain_result(text, similar=False).findings[:2]


def _cites(text: str, where: str) -> bool:
    """The first two findings give the code, and one of them cites ``where`` (a table row) in its evidence."""
    first = _first_two(text)
    return CODE in [f.code for f in first] and any(where in " ".join(map(str, f.evidence)) for f in first)


# (text, the table row it must cite)
POSITIVE = [
    # spconv 2: spconv.xxx moved to spconv.pytorch.xxx (docs/SPCONV_2_BREAKING_CHANGEs.md)
    ("Traceback (most recent call last):\n  File \"tools/train.py\", line 14, in <module>\n"
     "    from pcdet.models import build_network\n"
     "  File \"/home/u/OpenPCDet/pcdet/models/backbones_3d/spconv_backbone.py\", line 30, in VoxelBackBone8x\n"
     "    self.conv_input = spconv.SparseSequential(\n"
     "AttributeError: module 'spconv' has no attribute 'SparseSequential'\n",
     "removed_apis.csv spconv2_sparsesequential"),
    ("  File \"/work/second.pytorch/second/pytorch/models/middle.py\", line 8, in <module>\n"
     "    from spconv.modules import SparseModule\nModuleNotFoundError: No module named 'spconv.modules'\n",
     "removed_apis.csv spconv2_mod_modules"),
    ("Traceback (most recent call last):\n  File \"demo.py\", line 6, in <module>\n"
     "    from spconv.utils import VoxelGenerator\n"
     "ImportError: cannot import name 'VoxelGenerator' from 'spconv.utils' "
     "(/opt/conda/lib/python3.10/site-packages/spconv/utils/__init__.py)\n",
     "removed_apis.csv spconv2_utils_voxelgenerator"),
    # dgl 1.0: a graph pickled by dgl 0.9 names dgl.heterograph.DGLHeteroGraph
    ("Traceback (most recent call last):\n  File \"main.py\", line 20, in <module>\n"
     "    data = torch.load(\"graphs.pt\")\n"
     "  File \"/opt/conda/lib/python3.9/site-packages/torch/serialization.py\", line 1415, in find_class\n"
     "    return super().find_class(mod_name, name)\n"
     "AttributeError: Can't get attribute 'DGLHeteroGraph' on <module 'dgl.heterograph' from "
     "'/opt/conda/lib/python3.9/site-packages/dgl/heterograph.py'>\n",
     "removed_apis.csv dgl1_heterograph_dglheterograph"),
    ("  File \"run.py\", line 5, in <module>\n    from dgl.heterograph import DGLHeteroGraph\n"
     "ImportError: cannot import name 'DGLHeteroGraph' from 'dgl.heterograph' "
     "(/usr/lib/python3.10/site-packages/dgl/heterograph.py)\n",
     "removed_apis.csv dgl1_heterograph_dglheterograph"),
    # pytorch-lightning 0.10's new Metrics API
    ("  File \"run.py\", line 5, in <module>\n    from pytorch_lightning.metrics.metric import TensorMetric\n"
     "ImportError: cannot import name 'TensorMetric' from 'pytorch_lightning.metrics.metric' "
     "(/usr/local/lib/python3.8/site-packages/pytorch_lightning/metrics/metric.py)\n",
     "removed_apis.csv pl010_metric_tensormetric"),
    # TensorRT 10.0 / 8.0 Builder members (python/src/infer/pyCore.cpp at the tags)
    ("Traceback (most recent call last):\n  File \"export_trt.py\", line 31, in <module>\n"
     "    engine = builder.build_engine(network, config)\n"
     "AttributeError: 'tensorrt.tensorrt.Builder' object has no attribute 'build_engine'\n",
     "removed_apis.csv trt10_build_engine"),
    ("  File \"onnx2trt.py\", line 18, in build\n    config.max_workspace_size = 1 << 30\n"
     "AttributeError: 'tensorrt_bindings.tensorrt.IBuilderConfig' object has no attribute 'max_workspace_size'\n",
     "removed_apis.csv trt10_config_max_workspace_size"),
    ("    engine = builder.build_cuda_engine(network)\n"
     "AttributeError: 'tensorrt.tensorrt.Builder' object has no attribute 'build_cuda_engine'\n",
     "removed_apis.csv trt8_build_cuda_engine"),
    # MuJoCo's changelog
    ("  File \"/home/u/robosuite/robosuite/utils/binding_utils.py\", line 212, in step\n"
     "    print(self.data.solver_iter)\n"
     "AttributeError: 'mujoco._structs.MjData' object has no attribute 'solver_iter'\n",
     "removed_apis.csv mujoco300_mjdata_solver_iter"),
    ("  File \"/opt/venv/lib/python3.10/site-packages/gymnasium/envs/mujoco/mujoco_env.py\", line 40, in __init__\n"
     "    mujoco.mj_activate(key_path)\nAttributeError: module 'mujoco' has no attribute 'mj_activate'\n",
     "removed_apis.csv mujoco236_mj_activate"),
    # pytorch3d
    ("Traceback (most recent call last):\n  File \"render.py\", line 9, in <module>\n"
     "    from pytorch3d.renderer import FoVPerspectiveCameras, RasterizationSettings\n"
     "ImportError: cannot import name 'FoVPerspectiveCameras' from 'pytorch3d.renderer' "
     "(/opt/conda/lib/python3.7/site-packages/pytorch3d/renderer/__init__.py)\n",
     "added_apis.csv pytorch3d025_fovperspectivecameras"),
    ("from pytorch3d.renderer import TexturedSoftPhongShader\n"
     "ImportError: cannot import name 'TexturedSoftPhongShader' from 'pytorch3d.renderer'\n",
     "removed_apis.csv pytorch3d025_textured_soft_phong_shader"),
    # ultralytics' pre-8.0.136 layout
    ("  File \"app.py\", line 2, in <module>\n    from ultralytics.yolo.utils.plotting import Annotator, colors\n"
     "ModuleNotFoundError: No module named 'ultralytics.yolo'\n",
     "removed_apis.csv ultralytics81_yolo"),
    # torch_geometric 2.0's loader package
    ("Traceback (most recent call last):\n  File \"train_gnn.py\", line 4, in <module>\n"
     "    from torch_geometric.loader import DataLoader\nModuleNotFoundError: No module named 'torch_geometric.loader'\n",
     "added_apis.csv pyg20_loader"),
    # OpenMMLab's own checks of its dependencies' ranges
    ("  File \"/opt/conda/lib/python3.8/site-packages/mmdet/__init__.py\", line 24, in <module>\n"
     "    f'MMEngine=={mmengine.__version__} is used but incompatible. ' \\\n"
     "AssertionError: MMEngine==0.2.0 is used but incompatible. Please install mmengine>=0.7.1, <1.0.0.\n",
     "library_messages:openmmlab_dependency_range"),
    ("AssertionError: MMCV 2.2.0 is incompatible with MMOCR 1.0.1. Please use MMCV >= 2.0.0rc4, < 2.1.0 instead.\n",
     "library_messages:openmmlab_dependency_range"),
    ("AssertionError: mmcv==2.1.0 is used but incompatible. Please install mmcv-full>=1.3.8, <1.8.0.\n",
     "library_messages:openmmlab_dependency_range"),
    # detectron2 0.3: DefaultTrainer's base became TrainerBase (no arguments); a 0.2-era trainer passes three
    ("Traceback (most recent call last):\n  File \"tools/train_net.py\", line 210, in <module>\n    args=(args,),\n"
     "  File \"/opt/detectron2/detectron2/engine/launch.py\", line 62, in launch\n    main_func(*args)\n"
     "  File \"tools/train_net.py\", line 184, in main\n    trainer = Trainer(cfg)\n"
     "  File \"tools/train_net.py\", line 61, in __init__\n"
     "    super(DefaultTrainer, self).__init__(model, data_loader, optimizer)\n"
     "TypeError: TrainerBase.__init__() takes 1 positional argument but 4 were given\n",
     "library_messages:detectron2_03_default_trainer_base"),
    # a YOLOv5 checkpoint pickled by v6.2 or later (models.yolo.DetectionModel) loaded by an older checkout
    ("Traceback (most recent call last):\n  File \"detect.py\", line 12, in <module>\n"
     "    model = torch.load('yolov5s.pt', map_location=device)['model'].float()\n"
     "AttributeError: Can't get attribute 'DetectionModel' on <module 'models.yolo' from "
     "'/home/u/catkin_ws/src/yolov5/models/yolo.py'>\n",
     "added_apis.csv yolov5_62_detectionmodel"),
    # gym 0.22 draws classic control with pygame: the pyglet rendering module is gone
    ("Traceback (most recent call last):\n  File \"/home/u/pendulum/env.py\", line 7, in <module>\n"
     "    from gym.envs.classic_control import rendering\n"
     "ImportError: cannot import name 'rendering' from 'gym.envs.classic_control' "
     "(/home/u/.local/lib/python3.10/site-packages/gym/envs/classic_control/__init__.py)\n",
     "removed_apis.csv gym022_classic_control_rendering"),
    # mmcv 2.0 moved mmcv.utils' helpers to mmengine
    ("  File \"/work/mmdetection/mmdet/core/visualization/image.py\", line 5, in <module>\n"
     "    from mmcv.utils import ConfigDict\n"
     "ImportError: cannot import name 'ConfigDict' from 'mmcv.utils' "
     "(/opt/conda/lib/python3.8/site-packages/mmcv/utils/__init__.py)\n",
     "removed_apis.csv mmcv2_utils_configdict"),
    # pyglet 2.0: the legacy OpenGL calls left pyglet.gl (now pyglet.gl.gl_compat), GLU went; a star import then
    # leaves the name undefined
    ("Traceback (most recent call last):\n"
     "  File \"/opt/venv/lib/python3.11/site-packages/gym/envs/classic_control/rendering.py\", line 27, in <module>\n"
     "    from pyglet.gl import *\n"
     "  File \"/opt/venv/lib/python3.11/site-packages/gym/envs/classic_control/rendering.py\", line 154, in render\n"
     "    glPushMatrix()\nNameError: name 'glPushMatrix' is not defined\n",
     "removed_apis.csv pyglet2_gl_glpushmatrix"),
    ("  File \"scene.py\", line 88, in on_resize\n    pyglet.gl.gluPerspective(60.0, width / float(height), 0.1, 100.0)\n"
     "AttributeError: module 'pyglet.gl' has no attribute 'gluPerspective'\n",
     "removed_apis.csv pyglet2_gl_gluperspective"),
    # Open3D: the compiled module prints its build's path (open3d.cpu.pybind...)
    ("  File \"global_reg.py\", line 52, in execute_fast_global_registration\n"
     "    result = o3d.pipelines.registration.registration_fast_based_on_feature_matching(\n"
     "AttributeError: module 'open3d.cpu.pybind.pipelines.registration' has no attribute "
     "'registration_fast_based_on_feature_matching'\n",
     "removed_apis.csv open3d014_registration_fast_based_on_feature_matching"),
    ("  File \"clean.py\", line 9, in <module>\n    inlier = pcd.select_down_sample(ind)\n"
     "AttributeError: 'open3d.cuda.pybind.geometry.PointCloud' object has no attribute 'select_down_sample'\n",
     "removed_apis.csv open3d010_pointcloud_select_down_sample"),
]


@pytest.mark.parametrize("text,where", POSITIVE, ids=[w.split()[-1] for _, w in POSITIVE])
def test_release_reading_names_the_mismatch_and_its_source(text, where):
    assert _cites(text, where), [(f.code, f.title) for f in _first_two(text)]


# near-misses: the same words, another mechanism (no table row may be cited, and no version mismatch given)
NEAR = [
    # pickle of the person's own class from a script's __main__, not a library's removed class
    "Traceback (most recent call last):\n  File \"train.py\", line 11, in <module>\n"
    "    model = torch.load(\"model.pt\")\nAttributeError: Can't get attribute 'GCNNet' on <module '__main__' from "
    "'train.py'>\n",
    # a class named Builder with no TensorRT in the text: the person's own object
    "AttributeError: 'Builder' object has no attribute 'build_engine'\n",
    # MjData of no named package (mujoco_py's own wrapper, a project's class)
    "AttributeError: 'MjData' object has no attribute 'solver_iter'\n",
    # a trainer of the person's own whose parent takes no arguments: not detectron2's DefaultTrainer
    "  File \"train.py\", line 40, in __init__\n    super(MyTrainer, self).__init__(model, data_loader, optimizer)\n"
    "TypeError: __init__() takes 1 positional argument but 4 were given\n",
    # a NameError after a star import of a module no row names, and of a name pyglet never had
    "from mylib import *\nNameError: name 'glPushMatrix' is not defined\n",
    "from pyglet.gl import *\nNameError: name 'my_helper' is not defined\n",
]


@pytest.mark.parametrize("text", NEAR)
def test_near_misses_get_no_release_reading(text):
    first = _first_two(text)
    assert CODE not in [f.code for f in first]
    assert not any("removed_apis.csv" in " ".join(map(str, f.evidence)) or "added_apis.csv" in " ".join(
        map(str, f.evidence)) for f in first)


def test_a_pickled_class_no_release_row_names_gets_no_release_reading():
    """pickle's same words for a class every YOLOv5 release before 6.2 has (Model): no release added or removed it, so
    no row of removed_apis / added_apis is cited. (Round 35b's row of pickle's own words, a class another release of
    the module lacks, may still read it as package_api_version_mismatch: the merge kept that reading for every class
    no release row names.)"""
    text = "AttributeError: Can't get attribute 'Model' on <module 'models.yolo' from '/content/yolov7/models/yolo.py'>\n"
    assert not any("removed_apis.csv" in " ".join(map(str, f.evidence)) or "added_apis.csv" in " ".join(
        map(str, f.evidence)) for f in _first_two(text))


def test_spconv_1x_shown_is_not_read_as_spconv_2():
    """spconv 1.2.1 shown: the name spconv 2 moved is there in 1.x, so the row does not explain its absence."""
    text = "AttributeError: module 'spconv' has no attribute 'SparseConvTensor'\nspconv 1.2.1\n"
    assert not any("spconv2_sparseconvtensor" in " ".join(map(str, f.evidence)) for f in _first_two(text))


def test_a_class_dgl_still_has_is_no_row():
    """dgl.heterograph.DGLGraph is the 1.0 name: pickle's failure on it is no removal the table knows."""
    text = ("AttributeError: Can't get attribute 'DGLGraph' on <module 'dgl.heterograph' from "
            "'/usr/lib/python3/site-packages/dgl/heterograph.py'>\n")
    assert not any("removed_apis.csv" in " ".join(map(str, f.evidence)) for f in _first_two(text))


def test_openmmlab_row_leaves_mmcv_own_row():
    """MMCV==X keeps its own row (mmcv_version_range, with its inside-the-range reading)."""
    text = "AssertionError: MMCV==1.7.2 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.\n"
    ev = " ".join(" ".join(map(str, f.evidence)) for f in _first_two(text))
    assert "mmcv_version_range" in ev and "openmmlab_dependency_range" not in ev


def test_removed_row_fix_names_the_replacement():
    text = POSITIVE[0][0]
    f = next(f for f in _first_two(text) if f.code == CODE)
    assert "spconv 2.0" in f.title
    assert "spconv.pytorch" in str(f.__dict__)
