# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 28a (blind audit 27's 'own code or data' texts): one of Python's built-in exceptions raised on the
person's own values in the person's own code (the traceback's last frame outside site-/dist-packages and the Python
installation: a script, a module of their project, a notebook's cell) is user_code_error, saying what to look at: a
data path of theirs not found (FileNotFoundError / [Errno 2], raised by their own open() or by the package they
passed the path to: pandas.read_csv, np.load, Image.open), a key missing from their dict or from the environment
(KeyError), an index past a list's end (IndexError), their data file that is not JSON (JSONDecodeError through
json.load), a keyword their own function does not take (the text shows its def), an attribute a method of their own
class reads from self, two of their modules importing each other (the cycle in the frames), a module one letter off a
module file of theirs the text names. Each text is written for the test (CPython's own messages in several wordings:
Objects/exceptions.c, Lib/json/decoder.py, Python/import.c); each kind has near-misses that must NOT get the code (a
library's file, a CUDA library or a model cache not found, a KeyError raised inside transformers, a circular import
inside site-packages or a checkout's missing submodule)."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import rule_codes

OWN = [
    # a data path of the person's own
    ("Traceback (most recent call last):\n  File \"C:\\Users\\ken\\proj\\train.py\", line 12, in <module>\n"
     "    df = pd.read_csv(\"data/train.csv\")\n  File \"C:\\Users\\ken\\proj\\venv\\Lib\\site-packages\\pandas\\io\\"
     "parsers\\readers.py\", line 1026, in read_csv\n    return _read(filepath_or_buffer, kwds)\n"
     "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'\n"),
    ("Traceback (most recent call last):\n  File \"/home/ana/exp/prep.py\", line 8, in <module>\n"
     "    with open(args.labels) as f:\nFileNotFoundError: [Errno 2] No such file or directory: "
     "'/home/ana/exp/labels/val.txt'\n"),
    ("---------------------------------------------------------------------------\nFileNotFoundError"
     "                         Traceback (most recent call last)\nCell In[5], line 2\n      1 import numpy as np\n"
     "----> 2 X = np.load('features_2023.npy')\n\nFile ~/.venv/lib/python3.11/site-packages/numpy/lib/npyio.py:427, in "
     "load(file, mmap_mode, allow_pickle, fix_imports, encoding, max_header_size)\n    425     own_fid = False\n"
     "--> 427     fid = stack.enter_context(open(os.fspath(file), \"rb\"))\n\n"
     "FileNotFoundError: [Errno 2] No such file or directory: 'features_2023.npy'\n"),
    # a key of their dict / their environment
    ("Traceback (most recent call last):\n  File \"/home/o/exp/run.py\", line 15, in <module>\n"
     "    lr = cfg[\"optimizer\"][\"learning_rate\"]\nKeyError: 'learning_rate'\n"),
    ("Traceback (most recent call last):\n  File \"/content/train_colab.py\", line 40, in <module>\n"
     "    batch = params['batch_sz']\nKeyError: 'batch_sz'\n"),
    ("Traceback (most recent call last):\n  File \"/srv/app/settings.py\", line 12, in <module>\n"
     "    REDIS = os.environ[\"REDIS_URL\"]\n  File \"/usr/lib/python3.11/os.py\", line 679, in __getitem__\n"
     "    raise KeyError(key) from None\nKeyError: 'REDIS_URL'\n"),
    # an index past the end
    ("In [3]: labels[len(labels)]\n---------------------------------------------------------------------------\n"
     "IndexError                                Traceback (most recent call last)\nCell In[3], line 1\n"
     "----> 1 labels[len(labels)]\n\nIndexError: list index out of range\n"),
    ("Traceback (most recent call last):\n  File \"/home/li/proj/eval.py\", line 31, in <module>\n"
     "    best = scores[0]\nIndexError: list index out of range\n"),
    # their JSON data file
    ("Traceback (most recent call last):\n  File \"/home/c/app/load.py\", line 6, in <module>\n"
     "    meta = json.load(open(\"meta.json\"))\n  File \"/usr/lib/python3.10/json/__init__.py\", line 293, in load\n"
     "    return loads(fp.read(),\n  File \"/usr/lib/python3.10/json/decoder.py\", line 355, in raw_decode\n"
     "    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\n"
     "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"),
    ("Traceback (most recent call last):\n  File \"D:\\work\\bot\\main.py\", line 3, in <module>\n"
     "    data = json.loads(raw)\n  File \"C:\\Users\\w\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\json\\"
     "__init__.py\", line 346, in loads\n    return _default_decoder.decode(s)\n  File \"C:\\Users\\w\\AppData\\Local\\"
     "Programs\\Python\\Python311\\Lib\\json\\decoder.py\", line 353, in raw_decode\n"
     "    obj, end = self.scan_once(s, idx)\njson.decoder.JSONDecodeError: Expecting property name enclosed in double "
     "quotes: line 4 column 1 (char 57)\n"),
    # a keyword their own function does not take
    ("Traceback (most recent call last):\n  File \"/home/a/proj/run.py\", line 9, in <module>\n"
     "    build_model(num_classes=10, dropout=0.1)\nTypeError: build_model() got an unexpected keyword argument "
     "'dropout'\n(build_model is defined in /home/a/proj/models.py, I wrote it)\n"),
    ("my helper in utils.py:\n\ndef make_loader(path, batch_size):\n    ...\n\nTraceback (most recent call last):\n"
     "  File \"train.py\", line 20, in <module>\n    dl = make_loader(p, batch_size=8, shuffle=True)\n"
     "TypeError: make_loader() got an unexpected keyword argument 'shuffle'\n"),
    # an attribute their own class never sets
    ("Traceback (most recent call last):\n  File \"/home/m/sim/run.py\", line 30, in <module>\n"
     "    state.update_velocity(dt)\n  File \"/home/m/sim/physics.py\", line 55, in update_velocity\n"
     "    self.vel += self.accel * dt\nAttributeError: 'State' object has no attribute 'accel'\n"),
    ("Traceback (most recent call last):\n  File \"/home/q/bot/main.py\", line 12, in <module>\n    t.fit()\n"
     "  File \"/home/q/bot/trainer.py\", line 40, in fit\n    for batch in self.train_loader:\n"
     "AttributeError: 'Trainer' object has no attribute 'train_loader'\n"),
    # their modules importing each other
    ("Traceback (most recent call last):\n  File \"/home/r/app/main.py\", line 1, in <module>\n"
     "    from app.models import User\n  File \"/home/r/app/app/models.py\", line 2, in <module>\n"
     "    from app.services import hash_pw\n  File \"/home/r/app/app/services.py\", line 1, in <module>\n"
     "    from app.models import User\nImportError: cannot import name 'User' from partially initialized module "
     "'app.models' (most likely due to a circular import) (/home/r/app/app/models.py)\n"),
    # a module one letter off a file of theirs
    ("Traceback (most recent call last):\n  File \"/home/p/proj/main.py\", line 2, in <module>\n"
     "    from helpers.utilz import load_cfg\nModuleNotFoundError: No module named 'helpers.utilz'\n"
     "(the folder helpers/ in my project has util.py and __init__.py)\n"),
    ("$ ls\ndata  train.py  util.py\n$ python train.py\nTraceback (most recent call last):\n"
     "  File \"/home/k/proj/train.py\", line 3, in <module>\n    from utils import seed_all\n"
     "ModuleNotFoundError: No module named 'utils'\n"),
]


@pytest.mark.parametrize("text", OWN)
def test_a_builtin_exception_on_the_persons_own_values_is_their_code(text):
    assert rule_codes(text, n=1) == ["user_code_error"]


NEAR = [
    # files that are a library's, a CUDA library's, a model cache's, a program's
    ("Traceback (most recent call last):\n  File \"/home/a/run.py\", line 3, in <module>\n    import foo_ext\n"
     "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/lib64/libcudart.so.12'\n"),
    ("Traceback (most recent call last):\n  File \"/home/a/run.py\", line 5, in <module>\n"
     "    m = AutoModel.from_pretrained(name)\n  File \"/home/a/.venv/lib/python3.10/site-packages/transformers/"
     "modeling_utils.py\", line 3000, in from_pretrained\n    with open(resolved) as f:\nFileNotFoundError: [Errno 2] "
     "No such file or directory: '/home/a/.cache/huggingface/hub/models--x--y/snapshots/abc/config.json'\n"),
    ("Traceback (most recent call last):\n  File \"/home/a/setup_ext.py\", line 9, in <module>\n"
     "    subprocess.check_call(['nvcc', '--version'])\nFileNotFoundError: [Errno 2] No such file or directory: 'nvcc'\n"),
    # a KeyError raised inside a package (a model type an old transformers does not know)
    ("Traceback (most recent call last):\n  File \"/home/a/chat.py\", line 4, in <module>\n"
     "    cfg = AutoConfig.from_pretrained('Qwen/Qwen2-7B')\n  File \"/home/a/.venv/lib/python3.10/site-packages/"
     "transformers/models/auto/configuration_auto.py\", line 1039, in from_pretrained\n"
     "    config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]\n  File \"/home/a/.venv/lib/python3.10/"
     "site-packages/transformers/models/auto/configuration_auto.py\", line 734, in __getitem__\n"
     "    raise KeyError(key)\nKeyError: 'qwen2'\n"),
    # a circular import inside site-packages, and a checkout's own __init__ importing a submodule it lacks
    ("Traceback (most recent call last):\n  File \"/home/r/x.py\", line 1, in <module>\n    import somepkg\n"
     "  File \"/home/r/.venv/lib/python3.11/site-packages/somepkg/__init__.py\", line 3, in <module>\n"
     "    from .core import X\n  File \"/home/r/.venv/lib/python3.11/site-packages/somepkg/core.py\", line 2, in "
     "<module>\n    from somepkg import helpers\nImportError: cannot import name 'helpers' from partially initialized "
     "module 'somepkg' (most likely due to a circular import) (/home/r/.venv/lib/python3.11/site-packages/somepkg/"
     "__init__.py)\n"),
    ("  File \"/home/y/AIGC/Proj-main/threestudio/__init__.py\", line 55, in <module>\n"
     "    from . import data, models, systems\nImportError: cannot import name 'data' from partially initialized "
     "module 'threestudio' (most likely due to a circular import) (/home/y/AIGC/Proj-main/threestudio/__init__.py)\n"),
    # an attribute of a library's object, not read from self
    ("Traceback (most recent call last):\n  File \"/home/a/p.py\", line 7, in <module>\n    df = df.append(row)\n"
     "AttributeError: 'DataFrame' object has no attribute 'append'\n"),
    # a library's source checkout installed in develop mode, and a downloaded package's setup.py in pip's build folder
    ("    Traceback (most recent call last):\n      File \"/src/jupyterhub/jupyterhub/singleuser.py\", line 95, in "
     "get_user\n        user = auth_data['user']\n    KeyError: 'user'\n"),
    ("    Traceback (most recent call last):\n      File \"<string>\", line 1, in <module>\n      File \"/tmp/pip-install-"
     "x1y2z3/somepkg_0123456789abcdef0123/setup.py\", line 8, in <module>\n        with open('requirements.txt') as f:\n"
     "    FileNotFoundError: [Errno 2] No such file or directory: 'requirements.txt'\n"),
    # a project's checkout (frames in two of its folders): the project's bug first (round 26b)
    ("(splat) D:\\work\\mesh-splat> python train.py -s data/chair\nTraceback (most recent call last):\n"
     "  File \"D:\\work\\mesh-splat\\train.py\", line 120, in training\n    gaussians.densify(grads)\n"
     "  File \"D:\\work\\mesh-splat\\scene\\gaussian_model.py\", line 402, in densify\n"
     "    n = self.max_radii.shape[0]\nAttributeError: 'GaussianModel' object has no attribute 'max_radii'\n"),
    # a module no file of theirs is near
    ("Traceback (most recent call last):\n  File \"/home/k/proj/train.py\", line 3, in <module>\n    import yaml\n"
     "ModuleNotFoundError: No module named 'yaml'\n"),
]


@pytest.mark.parametrize("text", NEAR)
def test_near_misses_are_not_read_as_the_persons_own_code(text):
    assert "user_code_error" not in rule_codes(text, n=1)


def _first(text: str):
    return next(f for f in explain_result(text, similar=False).findings if f.code == "user_code_error")


def test_the_printed_fixes_say_what_to_look_at():
    f = _first(OWN[0])
    assert f.severity == "info" and "data/train.csv" in f.title and "Not your environment" in f.title
    assert any(c.startswith('dir "data/train.csv"') for c in f.fix.commands)  # a Windows text: cmd's words
    f = _first(OWN[5])
    assert "REDIS_URL" in f.title and any(c.startswith("export REDIS_URL=") for c in f.fix.commands)
    f = _first(OWN[3])
    assert any('grep -rn "learning_rate"' in c for c in f.fix.commands)
    f = _first(OWN[12])
    assert "State" in f.title and any('"self.accel"' in c for c in f.fix.commands)
    f = _first(OWN[14])
    assert "import each other" in f.title
    f = _first(OWN[15])
    assert "util.py" in f.title and not any("pip install" in c for c in f.fix.commands)
    assert any("helpers.util" in c for c in f.fix.commands)
    f = _first(OWN[10])
    assert any(c.startswith('grep -rn "def build_model("') for c in f.fix.commands)


# pip's resolver giving up (src/pip/_internal/resolution/resolvelib/factory.py: "The conflict is caused by:")
PIP = [
    ("ERROR: Cannot install -r requirements.txt (line 3) and numpy==1.21.0 because these package versions have "
     "conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested numpy==1.21.0\n"
     "    pandas 2.2.0 depends on numpy>=1.22.4; python_version < \"3.11\"\n\nTo fix this you could try to:\n"
     "1. loosen the range of package versions you've specified\n2. remove package versions to allow pip to attempt to "
     "solve the dependency conflict\n\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/"
     "topics/dependency-resolution/#dealing-with-dependency-conflicts\n", "package_api_version_mismatch"),
    ("$ pip install scikit-learn==1.4.0 scipy==1.5.4\nERROR: Cannot install scikit-learn==1.4.0 and scipy==1.5.4 "
     "because these package versions have conflicting dependencies.\nThe conflict is caused by:\n"
     "    The user requested scipy==1.5.4\n    scikit-learn 1.4.0 depends on scipy>=1.6.0\n", "package_api_version_mismatch"),
    ("ERROR: Cannot install torch==2.1.0 and torchvision==0.18.0 because these package versions have conflicting "
     "dependencies.\n\nThe conflict is caused by:\n    The user requested torch==2.1.0\n"
     "    torchvision 0.18.0 depends on torch==2.3.0\n\nERROR: ResolutionImpossible\n", "companion_built_for_other_torch"),
]


@pytest.mark.parametrize(("text", "code"), PIP)
def test_pips_resolver_conflict_names_the_pins(text, code):
    assert rule_codes(text, n=1) == [code]


def test_pips_resolver_conflict_commands_align_the_named_pins():
    f = explain_result(PIP[1][0], similar=False).findings[0]
    assert "scikit-learn 1.4.0 requires scipy>=1.6.0" in f.title and "scipy==1.5.4" in f.title
    cmds = list(f.fix.commands)
    assert cmds[0].startswith('pip install "scipy>=1.6.0" "scikit-learn==1.4.0"')
    assert cmds[1].startswith('pip install "scipy==1.5.4" "scikit-learn<1.4.0"')
    assert not any("--force-reinstall" in c or "index-url" in c for c in cmds)


def test_near_miss_a_successful_install_is_no_conflict():
    text = ("Collecting pandas==2.2.0\nRequirement already satisfied: numpy>=1.22.4 in ./venv/lib/python3.10/"
            "site-packages (from pandas==2.2.0) (1.26.4)\nSuccessfully installed pandas-2.2.0\n")
    assert rule_codes(text) == []


# blind audit 27's harmful or not runnable commands
def _commands(text: str) -> list[str]:
    return [c for f in explain_result(text, similar=False).findings for c in f.fix.commands]


@pytest.mark.parametrize("text", [
    "Traceback (most recent call last):\n  File \"/home/sam/thesis/load.py\", line 4, in <module>\n"
    "    img = scipy.misc.imread(p)\nAttributeError: module 'scipy.misc' has no attribute 'imread'\n",
    "Traceback (most recent call last):\n  File \"/home/p/reg.py\", line 9, in <module>\n"
    "    r = o3d.registration.registration_icp(a, b, 0.02)\nAttributeError: module 'open3d' has no attribute "
    "'registration'\n",
])
def test_an_old_releases_pin_comes_after_the_code_change_with_the_python_it_needs(text):
    cmds = _commands(text)
    assert cmds[0].startswith("# change the code:")
    pin = next(c for c in cmds if "<1.2" in c or "<0.10" in c)
    assert pin.startswith("conda create -n ") and " python=3." in pin


def test_xformers_beside_a_cuda_torch_gets_no_cpu_only_reading():
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.2.0+cu118)\n    Python  3.10.11 (you have 3.10.12)\n"
            "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(1, 1024, 8, 64) (torch.float16)\n")
    codes = rule_codes(text, n=3)
    assert codes[0] == "companion_built_for_other_torch" and "cpu_only_torch_with_gpu" not in codes


def test_the_kernel_restart_check_imports_the_package_it_prints():
    text = ("%pip install -U diffusers\nSuccessfully installed diffusers-0.30.0\nNote: you may need to restart the "
            "kernel to use updated packages.\n-----------------------------------------------------------------------"
            "----\nImportError                               Traceback (most recent call last)\nCell In[2], line 1\n"
            "----> 1 from diffusers import FluxPipeline\nImportError: cannot import name 'FluxPipeline' from "
            "'diffusers' (/opt/conda/lib/python3.10/site-packages/diffusers/__init__.py)\n")
    f = next(x for x in explain_result(text, similar=False).findings if x.code == "kernel_restart_needed")
    said = " ".join(f.evidence) + " ".join(_commands(text))
    assert "importlib.metadata as md, diffusers;" in said


def test_a_removed_methods_grep_is_the_texts_own_call():
    text = ("In [5]: frame = frame.append({\"a\": 1}, ignore_index=True)\n-------------------------------------------"
            "--------------------------------\nAttributeError                            Traceback (most recent call "
            "last)\nCell In[5], line 1\n----> 1 frame = frame.append({\"a\": 1}, ignore_index=True)\n\n"
            "AttributeError: 'DataFrame' object has no attribute 'append'\npandas 2.2.1\n")
    cmds = _commands(text)
    assert any(c.startswith('grep -rnF "frame.append("') for c in cmds)
    assert not any(c.startswith('grep -rn "append"') for c in cmds)
