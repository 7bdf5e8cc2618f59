# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Write ``smrnb/doctor/tables/released_import_names.txt``: the import names of the most downloaded PyPI projects
that are what a traceback's top-level module name means (round 33k).

Usage (a git snapshot of github.com/hugovk/top-pypi-packages; english-words installed only for this run)::

    pip install --target /tmp/ew english-words
    PYTHONPATH=.:/tmp/ew python tests/tools/released_import_names.py /path/to/top-pypi-packages/.git

Source: hugovk/top-pypi-packages ``top-pypi-packages.csv`` (the 15,000 most downloaded projects of PyPI over 30 days,
``top-pypi-packages.min.json``'s ``last_update``; rank = the file's order). A project's import name is its name
normalised as PEP 503 does, ``_`` for the separators (``faster-whisper`` -> ``faster_whisper``), less the suffix of a
build for one CUDA release or for GPUs (``rules._abi._import_name``), plus the import name of the projects whose import
differs from their name: ``_printed.PIP_DISTRIBUTION`` (each by its project's install page) and :data:`IMPORT_AS` below.

Left out, as names a project's own folder may have as well (a traceback's ``utils.x`` is a folder of the project far
more often than the PyPI project ``utils``):

- :data:`FOLDER_NAMES`: the names projects give their own folders and the corpus' texts show as a project's own (paths
  outside every installed tree: ``lib``, ``tools``, ``data``, ``utils``, ``datasets``, ``ops``, ``envs``, ``config``;
  Windows' ``AppData`` / ``username``) and the layout folders of research code (``models``, ``src``, ``scripts``, ...):
  never counted, whatever the rank (HF ``datasets`` is read from the text's own evidence, as before);
- an ordinary English word (Webster's 2nd International, ``english_words`` ``web2``; a plural ``-s`` / ``-es`` of one)
  or a name of one or two letters, outside the :data:`TOP_WORDS` most downloaded (``six``, ``click``, ``rich``: at
  rank 1,000 a project is downloaded about 17 million times a month, and its name is that package first), unless it is
  an import name that differs from its project's (``paddle``) or a package the doctor's own lists name as the field's
  (``rules._abi``'s ``STACK_PACKAGES``, ``_COMMON_PACKAGES`` and tables: ``diffusers``, ``accelerate``).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

from smrnb.doctor._printed import PIP_DISTRIBUTION
from smrnb.doctor.rules._abi import _COMMON_PACKAGES, STACK_PACKAGES, _import_name, _table_packages

OUT = Path(__file__).resolve().parents[2] / "smrnb" / "doctor" / "tables" / "released_import_names.txt"

#: projects of the field whose import name is not their name, by their install pages: PaddlePaddle's install guide
#: (paddlepaddle.org.cn "Installation": `pip install paddlepaddle` / `paddlepaddle-gpu`, then `import paddle`);
#: opencv-python's PyPI page (its headless and contrib builds import as cv2); Open3D's docs (open3d-cpu imports as
#: open3d); TensorFlow's install page (tensorflow-cpu imports as tensorflow)
IMPORT_AS = {"paddlepaddle": "paddle", "paddlepaddle_gpu": "paddle", "opencv_python_headless": "cv2",
             "opencv_contrib_python": "cv2", "opencv_contrib_python_headless": "cv2", "open3d_cpu": "open3d",
             "tensorflow_cpu": "tensorflow"}

#: folder names of a project's own code (see the module's docstring); only those on the list matter
FOLDER_NAMES = frozenset({
    "utils", "util", "lib", "libs", "src", "config", "configs", "cfg", "common", "core", "data", "dataset",
    "datasets", "models", "model", "modules", "module", "networks", "network", "nets", "ops", "scripts", "tools",
    "engine", "envs", "env", "build", "path", "temp", "tmp", "webui", "appdata", "username", "args", "trainer",
    "scheduler", "logger", "inference", "evaluation", "eval", "test", "tests", "demo", "app", "api", "layers",
    "helpers", "misc", "external", "third_party", "thirdparty", "extensions", "structures", "options", "tasks",
    "pipelines", "pipeline", "losses", "metrics", "renderer", "render", "scene", "geometry", "camera", "image",
    "dataloader", "preprocessing", "experiments", "baselines", "shared", "storage", "kernel", "record", "fields"})

#: an English word counts only among this many most downloaded projects
TOP_WORDS = 1000


def _english() -> frozenset[str]:
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True, alpha=True))


def _is_word(name: str, words: frozenset[str]) -> bool:
    return len(name) < 3 or name in words or (name.endswith("s") and name[:-1] in words) or (
        name.endswith("es") and name[:-2] in words)


def main(gitdir: str) -> None:
    show = ["git", "--git-dir", gitdir, "show"]
    text = subprocess.run([*show, "HEAD:top-pypi-packages.csv"], check=True, capture_output=True, text=True).stdout
    when = json.loads(subprocess.run([*show, "HEAD:top-pypi-packages.min.json"], check=True, capture_output=True,
                                     text=True).stdout)["last_update"][:10]
    projects = [r["project"] for r in csv.DictReader(io.StringIO(text))]
    words = _english()
    to_import = {_import_name(d): i for i, d in PIP_DISTRIBUTION.items()}
    known = STACK_PACKAGES | _COMMON_PACKAGES | _table_packages()
    names: dict[str, None] = {}
    for rank, project in enumerate(projects, 1):
        norm = re.sub(r"[-_.]+", "_", project.lower())
        mapped = {IMPORT_AS.get(norm, ""), to_import.get(norm, "")} - {""}
        for name in {_import_name(norm), *mapped}:
            if name in FOLDER_NAMES or (rank > TOP_WORDS and _is_word(name, words) and not (
                    name in mapped or name in known)):
                continue
            names.setdefault(name)
    head = (f"# import names of the {len(projects)} most downloaded PyPI projects (30 days to {when}): "
            "github.com/hugovk/top-pypi-packages top-pypi-packages.csv\n"
            "# less the names a project's own folder may have; written by tests/tools/released_import_names.py (round 33k), "
            "whose docstring says what is left out and why\n")
    OUT.write_text(head + "".join(f"{n}\n" for n in sorted(names)), encoding="utf-8")
    print(f"{len(names)} names -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
