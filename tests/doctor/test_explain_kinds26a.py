# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 26a: tables/removed_apis.csv as the enumeration of the removals and moves in the releases of the
field's Python packages (mmcv 2 / mmengine, mmseg 1, mmdet 3, mmdet3d 1.1, trimesh, Pillow 10's font methods,
pandas 1.0 / 2.0, torchvision's model_urls, TensorFlow 2, Open3D 0.8, transformers 4, jax 0.6, matplotlib 3.10,
Python 3.9 / 3.12, scikit-learn, Lightning), each row from the package's own release notes, and the forms these
removals take in a pasted text beyond Python's module-level lines: an object of the package's class without the
removed method (``'Trimesh' object has no attribute 'remove_duplicate_faces'``, where the text names the package or
the class is named after it), the removed name alone (``cannot import name 'load_state_dict_from_url'``), and the
import statement a report quotes and says fails (``from torchvision.models.utils import ...`` "throws an error").
The finding: package_api_version_mismatch first (the release that removed it, the replacement, both fixes), library_bug
second (the project calling it must update). Each text is written for the test; near-misses must NOT get the reading."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

API, BUG = "package_api_version_mismatch", "library_bug"


def _removal(text: str):
    """The finding the table gave ``text`` (its evidence names tables/removed_apis.csv), else None."""
    res = explain_result(text, similar=False)
    return next((f for f in res.findings if any("tables/removed_apis.csv" in str(e) for e in f.evidence)), None)


READINGS = [
    # an object of the package's class without the removed method
    ("  File \"/home/ana/terrain/build.py\", line 41, in clean\n    mesh.remove_duplicate_faces()\n"
     "AttributeError: 'Trimesh' object has no attribute 'remove_duplicate_faces'\n$ pip list | grep trimesh\n"
     "trimesh                    4.11.0\n", "trimesh 4.10"),
    ("[load_mesh] Error loading mesh: 'Trimesh' object has no attribute 'remove_degenerate_faces'\n", "trimesh 4.10"),
    ("from PIL import ImageFont\nfont = ImageFont.truetype('DejaVuSans.ttf', 24)\nw, h = font.getsize(label)\n"
     "AttributeError: 'FreeTypeFont' object has no attribute 'getsize'\n", "Pillow 10.0"),
    ("  File \"/srv/app/venv/lib/python3.11/site-packages/PIL/ImageDraw.py\"\n    w, h = draw.textsize(txt, font=fnt)\n"
     "AttributeError: 'ImageDraw' object has no attribute 'textsize'\n", "Pillow 10.0"),
    ("import pandas as pd\nresults = results.append({'epoch': e, 'psnr': p}, ignore_index=True)\n"
     "AttributeError: 'DataFrame' object has no attribute 'append'\n", "pandas 2.0"),
    ("for k, v in scores.iteritems():\nAttributeError: 'Series' object has no attribute 'iteritems'\npandas 2.1.4\n",
     "pandas 2.0"),
    ("  File \"tools/render.py\", line 88, in grab\n    buf = fig.canvas.tostring_rgb()\nAttributeError: "
     "'FigureCanvasAgg' object has no attribute 'tostring_rgb'. Did you mean: 'tostring_argb'?\nmatplotlib 3.10.1\n",
     "matplotlib 3.10"),
    # the removed name alone
    ("ImportError: cannot import name 'load_state_dict_from_url'\n\nwhy can't it be found when I run it?\n",
     "torchvision 0.13"),
    # an import statement quoted and said to fail
    ("Loading the pretrained weights breaks.\n\nThe following line throws an error:\n```python\n"
     "from torchvision.models.utils import load_state_dict_from_url\n```\n", "torchvision 0.13"),
    ("`from torchvision.models.utils import load_state_dict_from_url` no longer works with the new torchvision\n",
     "torchvision 0.13"),
    ("mmcv.runner has been removed\n\nwith mmcv==2.1.0 installed, tools/test.py does `import mmcv.runner` and this "
     "fails, what should I install?\n", "mmcv 2.0"),
    # Python's module-level forms of the new rows
    ("  File \"/work/seg/tools/train.py\", line 9, in <module>\n    from mmcv.parallel import MMDataParallel\n"
     "ModuleNotFoundError: No module named 'mmcv.parallel'\n", "mmcv 2.0"),
    ("ImportError: cannot import name 'Config' from 'mmcv' (/opt/conda/lib/python3.10/site-packages/mmcv/__init__.py)\n",
     "mmcv 2.0"),
    ("ModuleNotFoundError: No module named 'mmdet.core'\n", "mmdet 3.0"),
    ("ImportError: cannot import name 'inference_segmentor' from 'mmseg.apis' "
     "(/home/u/.local/lib/python3.9/site-packages/mmseg/apis/__init__.py)\n", "mmsegmentation 1.0"),
    ("ImportError: cannot import name 'model_urls' from 'torchvision.models.resnet' "
     "(/usr/local/lib/python3.10/dist-packages/torchvision/models/resnet.py)\n", "torchvision 0.15"),
    ("    pcd = o3d.PointCloud()\nAttributeError: module 'open3d' has no attribute 'PointCloud'\n", "open3d 0.8"),
    ("    sess = tf.Session(config=config)\nAttributeError: module 'tensorflow' has no attribute 'Session'\n",
     "tensorflow 2.0"),
    ("ModuleNotFoundError: No module named 'transformers.modeling_roberta'\n", "transformers 4.0"),
    ("    leaves = jax.tree_leaves(params)\nAttributeError: module 'jax' has no attribute 'tree_leaves'\n", "jax 0.6.0"),
    ("    from gym.wrappers import Monitor\nImportError: cannot import name 'Monitor' from 'gym.wrappers' "
     "(/home/rl/.venv/lib/python3.10/site-packages/gym/wrappers/__init__.py)\n", "gym 0.23"),
    ("ImportError: cannot import name 'HfFolder'\n", "huggingface_hub 1.0"),
    ("    from skimage.feature import plot_matches\nImportError: cannot import name 'plot_matches' from "
     "'skimage.feature' (/opt/conda/lib/python3.12/site-packages/skimage/feature/__init__.py)\n", "scikit-image 0.25"),
    # a keyword argument a release removed, refused in Python's words
    ("    frame = pd.read_csv(csv_path, sep=';', error_bad_lines=False)\nTypeError: read_csv() got an unexpected "
     "keyword argument 'error_bad_lines'\n", "pandas 2.0"),
    ("Traceback (most recent call last):\n  File \"fit.py\", line 3, in <module>\n    enc = OneHotEncoder(sparse=False)"
     "\nTypeError: __init__() got an unexpected keyword argument 'sparse'\n$ pip list | grep scikit\n"
     "scikit-learn              1.5.1\n", "scikit-learn 1.4"),
    ("    out.to_csv(dst, index=False, line_terminator='\\n')\nTypeError: NDFrame.to_csv() got an unexpected keyword "
     "argument 'line_terminator'\n$ python -c 'import pandas; print(pandas.__version__)'\n2.1.4\n", "pandas 2.0"),
]


@pytest.mark.parametrize(("text", "release"), READINGS)
def test_removal_reads_as_the_release_that_removed_it(text, release):
    codes = rule_codes(text, n=2)
    assert codes[0] == API, (text, rule_codes(text, n=4))
    f = _removal(text)
    assert f is not None and release in f.title, (text, f and f.title)


@pytest.mark.parametrize("text", [READINGS[0][0], READINGS[7][0], READINGS[8][0], READINGS[10][0]])
def test_the_calling_projects_update_is_the_second_reading(text):
    assert rule_codes(text, n=2) == [API, BUG], rule_codes(text, n=4)
    bug = [f for f in explain_result(text, similar=False).findings if f.code == BUG][0]
    assert "was not updated for" in bug.title and "tables/removed_apis.csv" in " ".join(map(str, bug.evidence))


def test_a_snippet_of_the_users_own_code_reads_its_change_second():
    text = ("import pandas as pd\nresults = results.append({'epoch': e}, ignore_index=True)\n"
            "AttributeError: 'DataFrame' object has no attribute 'append'\n")
    assert rule_codes(text, n=2) == [API, "user_code_error"], rule_codes(text, n=4)
    own = [f for f in explain_result(text, similar=False).findings if f.code == "user_code_error"][0]
    assert "your code calls pandas.DataFrame.append" in own.title and "pandas.concat" in own.title


NEAR_MISSES = [
    # a class of the project's own named like a library's, defined in the text
    "class DataFrame:\n    def __init__(self):\n        self.rows = []\n\nAttributeError: 'DataFrame' object has no "
    "attribute 'append'\n",
    # a DataFrame whose package the text does not show (pyspark, polars: no pandas named)
    "  File \"/opt/spark/python/lib/job.py\", line 12\n    out = df.append(other)\nAttributeError: 'DataFrame' object "
    "has no attribute 'append'\n",
    # a removed method's name on another class
    "AttributeError: 'PointCloud' object has no attribute 'remove_duplicate_faces'\n",
    # a name no release removed, on a removal row's class
    "AttributeError: 'Trimesh' object has no attribute 'as_open3d'\ntrimesh 4.4.9\n",
    # a common bare name: no row reads it alone
    "ImportError: cannot import name 'Config'\n",
    # a quoted import of a removed module, in a text failing elsewhere
    "from torchvision.models.utils import load_state_dict_from_url\n...\nRuntimeError: CUDA error: out of memory\n",
    # a quoted import of a module no release removed, said to fail
    "from torchvision.models import resnet50 throws an error\n",
    # the quoted import with no word that it fails
    "I use `from torchvision.models.utils import load_state_dict_from_url` in my fork.\n",
    # a removed keyword refused by a callable of the project's own (no package named, another class)
    "TypeError: read_csv() got an unexpected keyword argument 'error_bad_lines'\n",
    "import pandas as pd\nTypeError: CsvLoader.__init__() got an unexpected keyword argument 'error_bad_lines'\n",
    "import pytorch_lightning as pl\nTypeError: MyTrainer.__init__() got an unexpected keyword argument 'gpus'\n",
    # a release shown older than the removal: something else lacks the name
    "AttributeError: 'Trimesh' object has no attribute 'remove_duplicate_faces'\ntrimesh 3.23.5\n",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_get_no_removal_finding(text):
    assert _removal(text) is None, (text, rule_codes(text, n=4))


def test_fix_names_the_release_the_replacement_and_both_fixes():
    f = _removal(READINGS[0][0])
    assert f.title.endswith("(the text shows trimesh 4.11.0)")  # the release the text prints, as evidence
    assert "the text shows trimesh 4.11.0, not older than 4.10" in f.evidence
    cmds = "\n".join(f.fix.commands)
    assert 'pip install "trimesh<4.10"' in cmds
    assert "mesh.update_faces(mesh.unique_faces())" in cmds + f.fix.why
    f = _removal(READINGS[8][0])
    # (round 27e) a torch companion pinned with the torch of its release line, never alone
    assert '"torch==1.11.*" "torchvision==0.12.*"' in "\n".join(f.fix.commands)
    assert "torch.hub.load_state_dict_from_url" in "\n".join(f.fix.commands)
    f = _removal(READINGS[2][0])
    assert "getbbox" in f.fix.why and "pillow10_freetypefont_getsize" in " ".join(map(str, f.evidence))
    f = _removal(READINGS[-3][0])  # read_csv(error_bad_lines=)
    assert f.title.startswith("The error_bad_lines= argument of pandas.read_csv() was removed in pandas 2.0")
    assert "on_bad_lines" in "\n".join(f.fix.commands)
