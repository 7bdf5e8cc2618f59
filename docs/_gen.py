# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""mkdocs hook: pages generated at build time from the package's own data, so they cannot drift.

* ``kaolin-install.md``: the kaolin install guide, from the doctor's tables
  (``smrnb/doctor/tables/*.csv``, ``kaolin.json``) and the doctor's own planner
  (:func:`smrnb.doctor._install.install_plan`) run on example environments;
* ``codes.md``: the doctor's finding codes, from its one table of codes (``smrnb.doctor._codes``, like CODES.md);
* ``api.md``: one mkdocstrings block per public name of ``smrnb.__all__``, in the module that defines it
  (the object's ``__module__``; ``smrnb._LAZY``'s module for a constant);
* ``images/*.png``: the user guide's pictures, drawn by the viewer's renderer on the bundled sample;
* ``benchmarks.md``: ``benchmarks/RESULTS.md`` and every ``benchmarks/RESULTS_*.md``, included verbatim;
* ``notebooks/*.ipynb``: the teaching notebooks from ``notebooks/`` at the repository root, executed
  here as a student would first run them (exercises unsolved: their checks say "not answered yet"),
  two at a time, each in its own ``jupyter nbconvert --execute`` with a time limit, into a temporary
  folder (nothing is written into the checkout); mkdocs-jupyter renders the executed copies. With no
  live widget front end, every viewer, step widget and app leaves a static picture in the output
  (``smrnb.widgets._display.static_pictures``). ``SMRNB_DOCS_EXECUTE=0`` renders them unexecuted (a
  quick local build); ``SMRNB_DOCS_EXECUTED=FOLDER`` renders the executed copies a previous step left in
  ``FOLDER`` (the tests pass the copies their own execution of the committed notebooks made).

Registered in ``mkdocs.yml`` under ``hooks:``. ``on_files`` runs before mkdocs-jupyter's (priority 100)
so the added notebooks are wrapped as pages. Importing only the doctor tables and ``smrnb`` (lazy) keeps
the build free of torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # build from a checkout without `pip install -e .`
    sys.path.insert(0, str(REPO))

WHEEL_PAGE_NOTE = ("kaolin is not on PyPI (`pip install kaolin` finds only a placeholder); wheels live on one page "
                   "per torch/CUDA combination")


def _cell(x: object) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _csv_table(name: str, columns: list[str]) -> str:
    from smrnb.doctor import tables

    return _table(columns, [[r.get(c, "") for c in columns] for r in tables.rows(name)])


def kaolin_install_md() -> str:
    """The kaolin install guide, from the doctor's tables and planner."""
    from smrnb.doctor import tables
    from smrnb.doctor._install import install_plan

    k = tables._kaolin()
    rel_rows = []
    for rel in tables.kaolin_releases():
        pages = ", ".join(f"[`{w}`]({tables.kaolin_wheel_page(*_split_wheel(w))})" for w in rel.wheels)
        rel_rows.append([f"**{rel.version}**", f"{rel.python_min}–{rel.python_max}", f"{rel.torch_min}–{rel.torch_max}",
                         pages or "(none)", rel.verified])
    examples = [
        ("A GPU server: torch 2.8.0+cu128, Python 3.11, H200",
         {"installed": True, "version": "2.8.0+cu128", "version_base": "2.8.0", "cuda": "12.8"},
         {"status": "ok", "driver_version": "580.65.06", "cuda_driver_version": "13.0",
          "gpus": [{"name": "NVIDIA H200", "compute_capability": "9.0"}]},
         {"nvccs": [{"path": "/usr/local/cuda-12.8/bin/nvcc", "version": "12.8", "toolkit_dir": "/usr/local/cuda-12.8",
                     "has_headers": True}]}, "3.11.9"),
        ("A newer torch than any kaolin wheel: torch 2.10.0+cu130, Python 3.12, RTX 4090, nvcc 13.0",
         {"installed": True, "version": "2.10.0+cu130", "version_base": "2.10.0", "cuda": "13.0"},
         {"status": "ok", "driver_version": "580.65.06", "cuda_driver_version": "13.0",
          "gpus": [{"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}]},
         {"nvccs": [{"path": "/usr/local/cuda-13.0/bin/nvcc", "version": "13.0", "toolkit_dir": "/usr/local/cuda-13.0",
                     "has_headers": True}]}, "3.12.3"),
        ("A laptop without a GPU: torch 2.13.0+cpu, Python 3.11",
         {"installed": True, "version": "2.13.0+cpu", "version_base": "2.13.0", "cuda": None}, {"status": "absent"},
         {}, "3.11.7"),
    ]
    ex_md = []
    for title, torch_f, driver_f, toolkit_f, py in examples:
        plan = install_plan(torch_f, driver_f, toolkit_f, py)
        notes = "".join(f"\n- {n}" for n in plan.notes)
        ex_md.append(f"### {title}\n\nPlan: **{plan.kind}**{notes}\n\n```bash\n{plan.command}\n```\n")
    return f"""# kaolin install guide

*Generated at build time by `docs/_gen.py` from the doctor's tables (`smrnb/doctor/tables/`) and its planner
(`smrnb.doctor._install.install_plan`): the same data `%smr_doctor` uses, so this page cannot disagree with it.*

smrnb works without kaolin (plain PyTorch everywhere); kaolin adds CUDA kernels for voxelization, marching cubes and
rendering. {WHEEL_PAGE_NOTE}: `{k["wheel_page"]}`. A wheel must match the installed torch's **patch** version
and CUDA variant, and the kaolin release must support your Python. Otherwise, build from source.

**The short way**: run the doctor in the environment (kernel) that will import kaolin; its `kaolin` layer prints
the exact command for that environment:

```bash
smr-doctor --layer kaolin        # or, in a notebook: %smr_doctor --layer kaolin
```

## 1. Which kaolin has a wheel for my torch?

Read your combination with `python -c "import torch, sys; print(torch.__version__, torch.version.cuda, sys.version_info[:2])"`,
then find it here (each link is the wheel page for `pip install kaolin==VERSION -f PAGE`; index of all pages:
{k["wheel_index"]}).

{_table(["kaolin", "Python", "torch range (setup.py)", "wheel pages (torch_cuda)", "verified"], rel_rows)}

## 2. The doctor's plan on three example environments

{chr(10).join(ex_md)}
## 3. Building from source: what must agree

1. **nvcc major = torch's CUDA major** (`torch.version.cuda`), found through `CUDA_HOME`
   (`torch.utils.cpp_extension` refuses otherwise; notebook 07, section 4).
2. **The driver** must run torch's CUDA (table 3.1). `nvidia-smi`'s "CUDA Version" is the newest CUDA the driver
   supports, not an installed toolkit (notebook 01).
3. **The host gcc** must not be newer than the nvcc accepts (table 3.2).
4. **`TORCH_CUDA_ARCH_LIST`** = the compute capabilities of your GPUs that this nvcc compiles for (table 3.3).
5. `pip install --no-build-isolation .` so the build sees the installed torch; `IGNORE_TORCH_VER=1` when torch is
   outside kaolin's `setup.py` range; remove stale `build/` and `*.egg-info` first.

### 3.1 CUDA release → minimum Linux driver

Under minor-version compatibility a CUDA major runs on the family minimum instead (no PTX JIT):

{_csv_table("cuda_family", ["major", "min_driver", "verified"])}

{_csv_table("cuda_driver", ["cuda", "release", "min_driver", "verified"])}

### 3.2 nvcc → newest host gcc

{_csv_table("nvcc_gcc", ["cuda", "max_gcc", "verified", "source"])}

### 3.3 nvcc → GPU architectures it compiles for

{_csv_table("nvcc_archs", ["cuda", "archs", "verified"])}

### 3.4 torch → CUDA variants on download.pytorch.org

{_csv_table("torch_cuda", ["torch", "variants", "pypi_default", "verified"])}

Rows marked `verified = no` come from memory and are waiting for a source; corrections are one line in the CSV
file named above the table (the `source` column says where each row comes from).
"""


def _split_wheel(w: str) -> tuple[str, str]:
    torch_v, cu = w.split("_cu")
    return torch_v, f"{cu[:-1]}.{cu[-1]}"


def api_md() -> str:
    """One mkdocstrings block per public name, grouped as in ``smrnb.__all__``."""
    import smrnb

    groups: dict[str, list[str]] = {}
    for name in smrnb.__all__:
        if name == "__version__":
            continue
        module = smrnb._LAZY.get(name)
        if module is None:
            module = "smrnb._errors" if name.endswith("Error") else "smrnb"
        else:  # where it is defined: a package may offer it lazily, which the docs' static reader cannot follow
            home = getattr(getattr(importlib.import_module(module), name), "__module__", None)
            module = home if isinstance(home, str) and home.startswith("smrnb.") else module
        top = module.split(".")[1] if module.count(".") else "smrnb"
        groups.setdefault(top.lstrip("_") or "smrnb", []).append(f"{module}.{name}")
    titles = {"errors": "Errors", "doctor": "Doctor", "geometry": "Geometry", "datasets": "Datasets",
              "pipeline": "Pipeline", "widgets": "Widgets", "smrnb": "IPython extension"}
    out = ["# API reference", "",
           "*Generated at build time from `smrnb.__all__` and the docstrings (mkdocstrings). Import every name "
           "from `smrnb` (`smrnb.depth_to_points`); the module shown is where it is defined.*", ""]
    for key, paths in groups.items():
        out += [f"## {titles.get(key, key)}", ""]
        for p in paths:
            out += [f"::: {p}", "    options:", "      heading_level: 3"]
            out.append("")
    return "\n".join(out)


def benchmarks_md() -> str:
    parts = []
    results = REPO / "benchmarks" / "RESULTS.md"
    others = sorted((REPO / "benchmarks").glob("RESULTS_*.md"))
    for p in ([results] if results.is_file() else []) + others:
        text = p.read_text(encoding="utf-8").strip()
        if parts:  # demote the included page's title so the site page has one h1
            text = "\n".join(("#" + line) if line.startswith("#") else line for line in text.splitlines())
        parts.append(f"<!-- from benchmarks/{p.name} -->\n\n{text}\n")
    if not parts:
        return "# Benchmarks\n\nNo `benchmarks/RESULTS*.md` in this checkout yet; run the scripts in `benchmarks/`.\n"
    if not results.is_file():
        parts.insert(0, "# Benchmarks\n\n`benchmarks/RESULTS.md` is not written yet; measured results so far:\n")
    return "\n".join(parts)


def codes_md() -> str:
    """The finding-codes page, generated from the doctor's one table of codes (as CODES.md is)."""
    from smrnb.doctor._codes import codes_markdown

    return codes_markdown()


def guide_images() -> dict[str, bytes]:
    """PNG pictures for the user guide: the viewer's own static renderer on the bundled sample.

    ``Viewer.to_png`` draws the same scene (layers, camera fitted the same way) that the live pythreejs viewer
    shows and embeds for front ends without the widget. About half a minute on a 2-core CPU.
    """
    import smrnb

    def shot(data, **options) -> bytes:
        return smrnb.Viewer(data, width=640, height=400, **options).to_png()

    frames = smrnb.load_sample(stride=10)
    cloud = smrnb.clean_points(smrnb.frames_to_points(frames, stride=8)).cloud
    grid = smrnb.pointcloud_to_voxelgrid(cloud, voxel_size=0.04, grid_shape=(100, 48, 52))
    few = smrnb.load_sample(stride=18)
    scan = smrnb.fuse_tsdf(few, voxel_size=0.03, progress=False).extract_mesh()
    filled = smrnb.fill_holes(scan, return_report=True)
    small = smrnb.simplify_mesh(filled.mesh, target_number_of_vertices=4000, measure_hausdorff=False)
    uvs, face_uvs_idx = smrnb.auto_uv(small.vertices, small.faces, resolution=256, padding=0.008)
    baked = smrnb.bake_texture(small.replace(uvs=uvs, face_uvs_idx=face_uvs_idx), few, resolution=256)
    return {"images/points.png": shot(cloud), "images/marching_cubes.png": shot(smrnb.voxelgrid_to_mesh(grid, smooth=True)),
            "images/tsdf.png": shot(scan), "images/fill_holes.png": shot(filled.mesh, overlays=["boundary"]),
            "images/texture.png": shot(baked.mesh)}


#: per notebook; the CI bar is 120 s on a 2-core machine (tests/test_notebooks.py)
NOTEBOOK_TIMEOUT_S = 600
_EXECUTED: dict[str, Path] = {}


def _executor():
    """``docs/_notebooks.py`` (the executor the tests share), loaded by path: mkdocs loads this file as a hook,
    not as a module of a package."""
    spec = importlib.util.spec_from_file_location("smrnb_docs_notebooks", Path(__file__).with_name("_notebooks.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def execute_notebooks(notebooks: list[Path], out_dir: Path, parallel: int = 2) -> dict[str, Path]:
    """Execute ``notebooks`` with ``jupyter nbconvert --execute`` into ``out_dir``, ``parallel`` at a
    time; returns name -> executed copy. A notebook that fails to execute raises with its log tail."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    env.pop("SMRNB_STATIC_PICTURES", None)  # auto: no live front end here, so static pictures
    return _executor().execute(notebooks, out_dir, env=env, parallel=parallel, cell_timeout=NOTEBOOK_TIMEOUT_S)


def _given_executions(notebooks: list[Path], folder: Path) -> dict[str, Path]:
    """``SMRNB_DOCS_EXECUTED``: copies of the notebooks already executed elsewhere (a CI step that executed them
    for its own checks), one per notebook under its own name, copied into a temporary ``notebooks/`` folder."""
    missing = [nb.name for nb in notebooks if not (folder / nb.name).is_file()]
    if missing:
        raise RuntimeError(f"SMRNB_DOCS_EXECUTED={folder}: no executed copy of {', '.join(missing)} there")
    out = Path(tempfile.mkdtemp(prefix="smrnb-docs-")) / "notebooks"
    out.mkdir()
    for nb in notebooks:
        shutil.copyfile(folder / nb.name, out / nb.name)
    return {nb.name: out / nb.name for nb in notebooks}


def executed_notebooks() -> dict[str, Path]:
    """The teaching notebooks, executed once per build process (see :func:`execute_notebooks`)."""
    if not _EXECUTED:
        notebooks = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        given = os.environ.get("SMRNB_DOCS_EXECUTED", "").strip()
        if os.environ.get("SMRNB_DOCS_EXECUTE", "1").strip() in ("0", "false", "no"):
            _EXECUTED.update({nb.name: nb for nb in notebooks})
        elif given:
            _EXECUTED.update(_given_executions(notebooks, Path(given)))
        else:
            out = Path(tempfile.mkdtemp(prefix="smrnb-docs-")) / "notebooks"
            out.mkdir()
            _EXECUTED.update(execute_notebooks(notebooks, out))
    return _EXECUTED


GENERATED = {"kaolin-install.md": kaolin_install_md, "api.md": api_md, "benchmarks.md": benchmarks_md,
             "codes.md": codes_md}


@event_priority(100)
def on_files(files: Files, config) -> Files:
    for uri, make in GENERATED.items():
        files.append(File.generated(config, uri, content=make()))
    for uri, png in guide_images().items():
        files.append(File.generated(config, uri, content=png))
    for name, nb in executed_notebooks().items():
        # a real File rooted at the folder that holds notebooks/NAME (not File.generated): mkdocs-jupyter's
        # NotebookFile wrapper recomputes abs_src_path from src_dir, which a generated file does not have
        files.append(File(f"notebooks/{name}", src_dir=str(nb.parent.parent), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
    return files
