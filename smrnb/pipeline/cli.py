# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The ``smrnb`` command: ``steps``, ``step NAME``, ``run CONFIG.yaml`` and ``demo``.

Every ``smrnb step NAME`` flag is generated from the step's :class:`ParamSpec` list. Exit codes:
0 success, 1 a step failed (the message names it), 2 a usage error (bad flag or value, unknown
config key, unreadable input).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbError, SmrnbValueError
from smrnb._files import (
    DEMO_OUTPUT,
    atomic_write,
    check_folder,
    check_free_space,
    check_new_file,
    confine,
    default_output_folder,
    no_clobber,
)
from smrnb._text import cap, console_safe
from smrnb.pipeline._batch import batch
from smrnb.pipeline._config import config_schema, load_config
from smrnb.pipeline._docs import render_markdown
from smrnb.pipeline._pipeline import Pipeline
from smrnb.pipeline._registry import ParamSpec, Step, StepRegistry
from smrnb.pipeline._source import load_source
from smrnb.pipeline._steps import REGISTRY

#: kinds ``smrnb step`` can read from a path, and what the path must be
READABLE = {"frames": "a dataset folder (Redwood, TUM, 7-Scenes) or 'sample'",
            "points": "a point-cloud file (.ply, .xyz, ...)",
            "mesh": "a mesh file (.ply, .obj, .glb, .off, .stl)",
            "textured_mesh": "a textured mesh file (.glb, .obj)"}
#: kinds ``smrnb step`` can write to a path
WRITABLE = {"points": "a .ply point cloud", "mesh": "a .ply, .obj or .glb mesh",
            "textured_mesh": "a .glb or .obj (+ .mtl + .png) textured mesh", "file": "the file the step writes"}



class UsageError(Exception):
    """Exit code 2: the command line or the config is wrong."""


def _param_type(spec: ParamSpec, step: str):
    def parse(text: str) -> Any:
        try:
            return spec.parse(text, step)
        except SmrnbError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = spec.kind
    return parse


def add_param_flags(parser: argparse.ArgumentParser, step: Step, *, skip: Sequence[str] = ()) -> None:
    """One ``--flag`` per :class:`ParamSpec` of ``step`` (``voxel_size`` -> ``--voxel-size``)."""
    group = parser.add_argument_group(f"parameters of {step.name}")
    for spec in step.params:
        if spec.name in skip:
            continue
        metavar = {"bool": "true|false", "choice": "{" + ",".join(spec.choices or ()) + "}",
                   "path": "PATH"}.get(spec.kind, spec.kind.upper())
        group.add_argument(spec.flag, dest=f"param__{spec.name}", type=_param_type(spec, step.name),
                           default=argparse.SUPPRESS, metavar=metavar,
                           help=spec.describe().replace("%", "%%"))


def build_parser(registry: StepRegistry | None = None) -> argparse.ArgumentParser:
    reg = registry or REGISTRY
    p = argparse.ArgumentParser(prog="smrnb", description="smrnb reconstruction pipeline: RGB-D frames to meshes.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    sp = sub.add_parser("steps", help="list the registered steps with their parameters")
    sp.add_argument("--format", choices=("text", "markdown", "schema"), default="text",
                    help="text (default), markdown (the docs page) or schema (JSON schema of config files)")

    st = sub.add_parser("step", help="run one step on a file or folder",
                        description="Run one registered step: read --input by the step's input kind, "
                                    "write --output by its output kind. `smrnb step NAME --help` lists its flags.")
    steps_sub = st.add_subparsers(dest="step_name", metavar="NAME")
    steps_sub.required = True
    for step in reg:
        one = steps_sub.add_parser(step.name, help=step.summary, description=f"{step.summary}. "
                                   f"{step.signature_text()}.")
        ins = " or ".join(READABLE.get(k, k) for k in step.inputs) or "nothing"
        one.add_argument("--input", required=bool(step.inputs), metavar="PATH", help=f"input: {ins}")
        for k in step.extra_inputs:
            one.add_argument(f"--{k.replace('_', '-')}", required=True, dest=f"extra__{k}", metavar="PATH",
                             help=f"second input: {READABLE.get(k, k)}")
        path_param = step.output == "file" and any(s.name == "path" for s in step.params)
        one.add_argument("--output", required=True, metavar="PATH",
                         help=f"output: {WRITABLE.get(step.output, step.output)}"
                         + (" (sets --path)" if path_param else ""))
        one.add_argument("--device", default=None, help="cpu or cuda (default: where the input is loaded, cpu)")
        one.add_argument("--overwrite", action="store_true", help="replace --output if it exists (default: refuse)")
        add_param_flags(one, step, skip=("path",) if path_param else ())

    rp = sub.add_parser("run", help="run a pipeline config file (YAML)")
    rp.add_argument("config", metavar="CONFIG.yaml")
    rp.add_argument("--output", metavar="DIR", help="folder for exported files (default: the config's output_dir, "
                                                    "else the current folder)")
    rp.add_argument("--device", default=None, help="cpu or cuda (overrides the config)")
    rp.add_argument("--until", default=None, metavar="STAGE", help="stop after this stage")
    rp.add_argument("--overwrite", action="store_true", help="replace files the config writes if they exist "
                                                             "(default: refuse before running anything)")

    bp = sub.add_parser("batch", help="run many config files (one scan each) as tasks on a Dask cluster",
                        description="One pipeline run per config file, each a dask.distributed task, outputs written "
                                    "atomically to OUTPUT/<config name>/, re-runs skip finished scans, a summary "
                                    "table in OUTPUT/summary.csv and summary.md.")
    bp.add_argument("configs", nargs="+", metavar="CONFIG_OR_FOLDER")
    bp.add_argument("--output", metavar="DIR", required=True, help="one folder per scan is made under it")
    where = bp.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--local", type=int, default=2, metavar="N", help="workers of a LocalCluster (default 2)")
    where.add_argument("--gpus", metavar="all|N|I,J|device=I", default=None,
                       help="one worker per GPU of this machine, each pinned to its card with CUDA_VISIBLE_DEVICES: "
                            "all of them, the first N, or these indices/UUIDs as nvidia-smi lists them (one card: "
                            "device=I); scans run on CUDA, one per card at a time")
    bp.add_argument("--device", choices=("cpu", "cuda"), default=None, help="for every scan (default: the config's)")
    bp.add_argument("--gpu", action="store_true", help="one GPU worker resource per scan (workers with "
                                                       "--resources GPU=1)")
    bp.add_argument("--retries", type=int, default=1, help="re-runs of a scan whose worker died (default 1)")
    bp.add_argument("--force", action="store_true", help="run finished scans again")

    dp = sub.add_parser("demo", help="the bundled RGB-D sample to a mesh file, with a summary")
    dp.add_argument("--output", metavar="DIR", default=None,
                    help=f"output folder (default: ./{DEMO_OUTPUT}, or ./{DEMO_OUTPUT}-2, -3, ... when it holds files "
                         "already: an earlier result is never replaced)")
    dp.add_argument("--overwrite", action="store_true", help="replace the files the demo writes in --output DIR if "
                                                             "they exist (default: refuse before running anything)")
    dp.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    return p


# ---------------------------------------------------------------------------------- commands


def _print_steps(reg: StepRegistry, fmt: str) -> None:
    if fmt == "schema":
        print(json.dumps(config_schema(reg), indent=2))
        return
    if fmt == "markdown":
        print(render_markdown(reg), end="")
        return
    print(STEPS_HEAD + "\n")
    for step in reg:
        print(f"{step.name}: {step.summary}")
        print(f"    {step.signature_text()}")
        for spec in step.params:
            print(f"    {spec.flag + ' / ' + spec.name:<36} {spec.describe()}")
        print()


#: what the listing of ``smrnb steps`` says first: where the parameters it lists go
STEPS_HEAD = ("Each parameter is listed as FLAG / KEY: the flag of `smrnb step NAME --input IN --output OUT` (one "
              "step on a file),\nthe key under that step's `params:` in a config file for `smrnb run CONFIG.yaml` "
              "and `smrnb batch`\n(`smrnb run` takes no parameter flags: e.g. `- step: tsdf` with `params: "
              "{voxel_size: 0.02}`).")


def read_input(kind_options: Sequence[str], path: str, what: str = "--input") -> tuple[str, Any]:
    """Read ``path`` as one of ``kind_options`` (by what the path holds)."""
    readable = [k for k in kind_options if k in READABLE]
    if not readable:
        raise UsageError(f"{what}: this step takes {' or '.join(kind_options)}, which cannot be read from a file; "
                         "run it inside a pipeline (`smrnb run CONFIG.yaml`) after the step that makes it")
    if path != "sample" and not Path(path).exists():
        raise UsageError(f"{what}: {path!r} does not exist")
    try:
        kind, data = load_source(path)
    except SmrnbError as exc:
        raise UsageError(f"{what}: {exc}") from None
    if kind == "textured_mesh" and "textured_mesh" not in kind_options and "mesh" in kind_options:
        kind = "mesh"
    if kind == "mesh" and kind not in kind_options and "textured_mesh" in kind_options:
        raise UsageError(f"{what}: {path!r} holds a mesh without a texture; this step needs a textured mesh")
    if kind not in kind_options:
        raise UsageError(f"{what}: {path!r} holds {kind}, this step takes {' or '.join(kind_options)}")
    return kind, data


def write_output(kind: str, data: Any, path: str) -> str:
    """Write ``data`` of ``kind`` to ``path``; returns what was written."""
    if kind == "file":
        return os.fspath(data)
    out = Path(path)
    if kind == "points":
        import numpy as np
        import trimesh

        pts = data.points.detach().cpu().numpy()
        cols = None
        if data.colors is not None:
            cols = (data.colors.detach().cpu().float().clamp(0, 1).numpy() * 255 + 0.5).astype(np.uint8)
        atomic_write(out, trimesh.PointCloud(pts, colors=cols).export(file_type="ply", encoding="binary"), "--output")
        return os.fspath(out)
    if kind in ("mesh", "textured_mesh"):
        from smrnb.geometry import export_mesh

        return export_mesh(data, out).path
    raise UsageError(f"--output: {kind} cannot be written to a file by `smrnb step`; put the step in a "
                     f"pipeline config that ends in a step making a mesh")


def _check_device(device: str | None, flag: str = "--device") -> None:
    """Usage error (exit 2) for a device this machine cannot give: unknown names, CUDA without a GPU."""
    if device is None:
        return
    if not (device in ("cpu", "cuda") or (device.startswith("cuda:") and device[5:].isdigit())):
        raise UsageError(f"{flag} must be cpu, cuda or cuda:N, got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise UsageError(f"{flag} {device}: torch sees no CUDA GPU here (torch {torch.__version__}); "
                             "use --device cpu, or run `smr-doctor`")


def _check_output(path: Any, what: str, overwrite: bool) -> Path:
    """Before any work: ``path`` can be written, and is not an existing file unless ``overwrite``."""
    try:
        return check_new_file(path, what, overwrite=overwrite)
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None


#: what an export writes beside an OBJ (its material, and its texture when the mesh is textured)
_OBJ_SIDE_FILES = (".mtl", ".png")
#: a bound on the bytes a mesh file takes per vertex (OBJ text with uvs and faces; GLB and PLY take less)
_BYTES_PER_VERTEX = 160


def _stage_param(st: Any, name: str) -> Any:
    spec = next((s for s in st.step.params if s.name == name), None)
    return None if spec is None else st.params.get(name, spec.default)


def _output_estimate(stages: Sequence[Any]) -> int:
    """Bytes the exports of ``stages`` write at most, where it can be known before the run: the texture
    (its side squared, 4 bytes a texel before compression) and a simplified mesh's vertices."""
    need, texels, vertices = 0, 0, None
    for st in stages:
        if st.step.name == "texture":
            texels = int(_stage_param(st, "resolution") or 0) ** 2
        if st.step.name == "simplify":
            vertices = _stage_param(st, "target_number_of_vertices")
        if st.step.output == "file":
            need += 4 * texels + (_BYTES_PER_VERTEX * int(vertices) if vertices else 0)
    return need


def _check_config_outputs(pipe: Any, out_dir: str, until: str | None, overwrite: bool) -> list[Path]:
    """Before any work, every file a config's stages will write: inside ``out_dir`` (a folder, or one that can
    be made), writable, new unless ``overwrite`` (an OBJ's .mtl and .png too), with room for what can be
    estimated. Returns those files."""
    try:
        check_folder(out_dir, "--output")
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    end = pipe._index(until) if until else len(pipe.stages) - 1
    stages = pipe.stages[: end + 1]
    files: list[Path] = []
    for i, st in enumerate(stages):
        for spec in st.step.params:
            value = st.params.get(spec.name, spec.default) if spec.kind == "path" else None
            if value is None:
                continue
            what = f"stage {st.name!r} parameter {spec.name!r}"
            try:
                full = confine(value, out_dir, what)
            except SmrnbError as exc:
                raise UsageError(str(exc)) from None
            files.append(_check_output(full, what, overwrite))
            if full.suffix.lower() == ".obj":
                textured = any(s.step.output == "textured_mesh" for s in stages[:i])
                for suffix in _OBJ_SIDE_FILES[: 2 if textured else 1]:
                    files.append(_check_output(full.with_suffix(suffix), f"{what} (its {suffix} beside it)", overwrite))
    try:
        check_free_space(out_dir, _output_estimate(stages), "--output")
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    return files


class _Kept:
    """What a run has written so far, for the one line a Ctrl-C prints: the planned output files, the
    state they had before the run, and the stage running."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.ran: str | None = None  # the command main() ran in this process
        self.files: list[tuple[Path, tuple[int, int] | None]] = []
        self.stage: str | None = None
        self.folder: str | None = None

    @staticmethod
    def _stat(p: Path) -> tuple[int, int] | None:
        try:
            st = os.stat(p)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns)

    def plan(self, files: Sequence[Path]) -> None:
        self.files = [(p, self._stat(p)) for p in files]

    def line(self, command: str) -> str:
        during = f" during {self.stage}" if self.stage else ""
        written = [os.fspath(p) for p, before in self.files if self._stat(p) not in (None, before)]
        if command == "batch":
            kept = (f"finished scans are kept in {self.folder} (each in its own folder), unfinished ones left "
                    "nothing" if self.folder else "nothing was written")
        elif written:
            kept = "kept, complete: " + ", ".join(written)
        elif self.files:
            kept = "nothing was written (" + ", ".join(os.fspath(p.name) for p, _ in self.files[:3]) + " as before)"
        else:
            kept = "nothing was written"
        return f"smrnb {command}: interrupted (Ctrl-C){during}; {kept}"


def guard_shutdown() -> None:
    """For a program (``smrnb``, ``python -m smrnb``; not a caller of :func:`main` in its own process) whose
    :func:`main` ran a command in this process and returned: a Ctrl-C while the interpreter shuts down (torch's and
    OpenMP's teardown take a fraction of a second after the report) is ignored, so the process ends with the
    command's own exit status after its last line ("wrote ...") instead of dying by the signal without a word. The
    outputs were written whole and reported before. Only in the main thread. (CPython keeps an ignored SIGINT
    through finalization; a Python handler would be reset to the default there.)"""
    if _KEPT.ran and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


_KEPT = _Kept()


def _cmd_step(args: argparse.Namespace, reg: StepRegistry) -> int:
    step = reg.get(args.step_name)
    _check_device(args.device)
    params = {k[len("param__"):]: v for k, v in vars(args).items() if k.startswith("param__")}
    if step.output == "file" and any(s.name == "path" for s in step.params):
        params["path"] = args.output
    elif step.output not in WRITABLE:
        raise UsageError(f"--output: step {step.name!r} makes {step.output}, which cannot be written to a file; "
                         "run it in a pipeline config (`smrnb run`) followed by a step that makes a mesh")
    suffix = Path(args.output).suffix.lower()
    allowed = {"points": (".ply",), "mesh": (".glb", ".obj", ".ply"), "textured_mesh": (".glb", ".obj", ".ply")}
    if step.output in allowed and suffix not in allowed[step.output]:
        raise UsageError(f"--output: step {step.name!r} makes {step.output}, written as "
                         f"{' or '.join(allowed[step.output])}; got {args.output!r}")
    try:  # the parameters (their ranges, the export suffix) before any input is read
        step.validate_params(dict(params), partial=True)
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    _check_output(args.output, "--output", args.overwrite)
    if step.inputs:
        _, source = read_input(step.inputs, args.input)
    else:
        source = None
    side = {k: read_input((k,), getattr(args, f"extra__{k}"), f"--{k.replace('_', '-')}")[1]
            for k in step.extra_inputs}
    try:
        pipe = Pipeline([(step.name, params)], source=source, device=args.device, registry=reg, side_inputs=side)
    except SmrnbError as exc:  # a parameter the step refuses (its range, the export suffix): before any work
        raise UsageError(str(exc)) from None
    out = pipe.run()
    rec = pipe.record()
    written = write_output(step.output, out, args.output)
    print(rec)
    print(f"wrote {written}")
    return 0


def _run_pipeline(pipe: Any, until: str | None) -> Any:
    t0, c0 = time.perf_counter(), time.process_time()

    def started(name: str) -> None:
        _KEPT.stage = name
        print(f"running {name} ...", file=sys.stderr, flush=True)

    out = pipe.run(until, on_start=started)
    print(pipe.summary())
    print(f"wall time {time.perf_counter() - t0:.2f} s, cpu {time.process_time() - c0:.2f} s (source + steps)")
    return out


def _cmd_run(args: argparse.Namespace, reg: StepRegistry) -> int:
    try:
        cfg = load_config(args.config, reg)
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    out_dir = args.output or cfg.get("output_dir") or "."
    _check_device(args.device or cfg.get("device"), "--device" if args.device else "config 'device'")
    try:
        pipe = Pipeline(cfg["steps"], source=cfg.get("source"), device=args.device or cfg.get("device"),
                        output_dir=out_dir, registry=reg)
        until = None if args.until is None else pipe.names[pipe._index(args.until)]
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    if pipe.source is None:
        raise UsageError(f"config file {args.config}: 'source' is not set (use 'sample' or a dataset folder)")
    _KEPT.plan(_check_config_outputs(pipe, out_dir, until, args.overwrite))
    with contextlib.nullcontext() if args.overwrite else no_clobber():  # never over a file that appears meanwhile
        out = _run_pipeline(pipe, until)
    last = pipe.stages[pipe._index(until) if until else -1].step
    if last.output == "file":
        print(f"wrote {out}")
    return 0


#: the demo's warm-up on a GPU: the same steps once on a tiny input (3 frames, coarse voxels, small atlas)
WARM_UP_SOURCE = {"path": "sample", "stride": 35}
WARM_UP_PARAMS = {"tsdf": {"voxel_size": 0.08}, "simplify": {"target_number_of_vertices": 300},
                  "uv": {"resolution": 128, "chart_num": 4}, "texture": {"resolution": 128},
                  "export": {"path": "warm-up.glb"}}

#: the demo makes the CUDA context while torch imports (:func:`cuda_context_early`), and the warm-up loads
#: cuBLAS' double-precision kernels, the solver and cuDNN beside the steps' imports
_EARLY_CUDA = True

#: what the demo's steps import on first use (imported by the warm-up while the CUDA context is made)
WARM_UP_IMPORTS = ("smrnb.geometry", "smrnb.datasets", "scipy.ndimage", "scipy.spatial", "fast_simplification",
                   "PIL.Image", "PIL.JpegImagePlugin", "PIL.PngImagePlugin", "tqdm.auto")


def warm_up(device: str) -> dict[str, float]:
    """Make the CUDA context (a thread) while the steps' modules are imported, then run the demo pipeline
    once on 3 of the sample's frames at coarse settings: the kernels every step launches (loaded on first
    use), cuBLAS and the UV helper are ready afterwards, so the real run's step times are the work.
    Returns the seconds of each part and the total."""
    import torch

    t0 = time.perf_counter()
    ctx: dict[str, float] = {}

    def context() -> None:
        t = time.perf_counter()
        try:
            a = torch.ones(8, 8, device=device)
            float((a @ a).sum())  # the context and cuBLAS
            if _EARLY_CUDA:  # the libraries the steps load on first use (torch releases the GIL in them)
                b = torch.ones(2, 4, 4, dtype=torch.float64, device=device)
                torch.linalg.inv(torch.bmm(b, b) + torch.eye(4, dtype=torch.float64, device=device))  # solver
                x = torch.ones(1, 1, 16, 16, device=device)
                torch.nn.functional.conv2d(x, torch.ones(1, 1, 3, 3, device=device), padding=1)  # cuDNN
                torch.linalg.vector_norm(x.pow(2.0), dim=-1)  # large kernel modules the texture step loads
                torch.cuda.synchronize(device)
        except RuntimeError:  # the pipeline run below reports what is wrong with the device
            pass
        ctx["s"] = time.perf_counter() - t

    thread = threading.Thread(target=context, name="smrnb-cuda-context", daemon=True)
    thread.start()
    for name in WARM_UP_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # a step that needs it says so when it runs
            pass
    imports = time.perf_counter() - t0
    thread.join()
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="smrnb-warm-up-") as tmp:
        pipe = Pipeline.default(source=dict(WARM_UP_SOURCE), device=device, output_dir=tmp)
        for stage, params in WARM_UP_PARAMS.items():
            if stage in pipe.names:
                pipe.set_params(stage, **params)
        pipe.run()
    t2 = time.perf_counter()
    return {"total": t2 - t0, "context": ctx.get("s", 0.0), "imports": imports, "context_and_imports": t1 - t0,
            "pipeline": t2 - t1, "steps": {r.step: r.seconds for r in pipe.records}}


def cuda_context_early(device: str) -> None:
    """Start making ``device``'s primary CUDA context (the one torch's runtime uses) in a thread, through
    the driver library, so that it is made while torch imports: the driver call holds no Python lock.
    Nothing happens where the driver library is missing or refuses (torch reports that when it looks)."""
    if not device.startswith("cuda"):
        return
    index = int(device[5:]) if device.startswith("cuda:") else 0

    def make() -> None:
        try:
            cuda = ctypes.CDLL("libcuda.so.1")
            dev, ctx = ctypes.c_int(), ctypes.c_void_p()
            if cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), index) == 0:
                cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)  # kept for the process's life
        except (OSError, AttributeError):
            pass

    threading.Thread(target=make, name="smrnb-cuda-driver", daemon=True).start()


def _cmd_demo(args: argparse.Namespace, reg: StepRegistry) -> int:
    from smrnb import _native

    out_dir = args.output
    if out_dir is None:
        folder, note = default_output_folder(DEMO_OUTPUT)
        out_dir = os.fspath(folder)
        if note:
            print(f"smrnb demo: {note}", flush=True)
    try:
        pipe = Pipeline.default(device=args.device, output_dir=out_dir)
    except SmrnbError as exc:
        raise UsageError(str(exc)) from None
    _KEPT.plan(_check_config_outputs(pipe, out_dir, None, args.overwrite))  # before any work
    _native.prewarm("smrnb._xatlas")  # the UV helper process starts now, beside this one
    if _EARLY_CUDA:
        cuda_context_early(args.device)
    t_import = time.perf_counter()
    _check_device(args.device)  # imports torch
    t0 = time.perf_counter()
    imports = t0 - t_import
    print(f"smrnb demo: {len(pipe.stages)} steps ({' -> '.join(pipe.names)}) on the bundled sample, "
          f"device {args.device}", flush=True)
    warm = None
    if args.device.startswith("cuda"):
        w = warm_up(args.device)
        warm = w["total"]
        print(f"warm-up {w['total']:.2f} s, not part of the step times below: CUDA context and libraries "
              f"{w['context']:.2f} s beside the steps' imports {w['imports']:.2f} s ({w['context_and_imports']:.2f} s "
              f"together), then the pipeline once on a few frames at 8 cm {w['pipeline']:.2f} s (kernels "
              "loaded on first use, the UV helper: " + ", ".join(f"{k} {v:.2f}" for k, v in w["steps"].items()) + ")",
              flush=True)
    with contextlib.nullcontext() if args.overwrite else no_clobber():
        out = _run_pipeline(pipe, None)
    print(f"wrote {out}")
    started = os.environ.get("SMRNB_STARTED")  # set by `python3 -m smrnb` when it started this process
    since = f"; {time.time() - float(started):.1f} s since `python3 -m smrnb demo` started" if started else ""
    print(f"demo finished in {time.perf_counter() - t0:.1f} s (torch import {imports:.1f} s before it"
          + (f", warm-up {warm:.1f} s" if warm is not None else "")
          + f"; cpu {time.process_time():.1f} s since start{since})", flush=True)
    return 0


def _gpus_arg(text: str | None) -> Any:
    """``--gpus``: ``all``, a count, or a comma-separated list of indices / UUIDs."""
    if text is None:
        return None
    text = text.strip()
    if text.lower() == "all":
        return "all"
    if text.isdigit():
        return int(text)
    explicit = text.lower().startswith("device=")
    text = text[len("device="):] if explicit else text
    if not text or any(not t.strip() for t in text.split(",")) or ("," not in text and not explicit
                                                                      and not text.upper().startswith(("GPU-", "MIG-"))):
        raise UsageError(f"--gpus must be all, a number of GPUs, a comma-separated list of GPU indices/UUIDs or "
                         f"device=I (one card), got {text!r}")
    return [int(t) if t.strip().isdigit() else t.strip() for t in text.split(",")]


def _cmd_batch(args: argparse.Namespace) -> int:
    if args.local < 1:
        raise UsageError(f"--local must be >= 1 (workers), got {args.local}")
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError("--scheduler needs dask.distributed: pip install \"dask[distributed]\"") from None
        from smrnb.doctor import parse_scheduler_address, probe_scheduler

        try:
            addr = parse_scheduler_address(args.scheduler)
        except SmrnbValueError as exc:
            raise UsageError(str(exc)) from None
        if addr.scheme == "tcp":
            # (blind audit 36) distributed waits for ever on a server that accepts and says nothing, and allocates the
            # length a foreign server's first bytes spell: ask what listens there first, within 30 s
            probe = probe_scheduler(addr, 30.0)
            if not probe.ok:
                where = ("something listens there but does not speak Dask's protocol" if probe.listens else
                         "no Dask scheduler answers there")
                raise UsageError(f"--scheduler {addr}: {where} ({probe.reason})")
        try:
            client = Client(str(addr), timeout=30)
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"--scheduler {addr}: no Dask scheduler answers there ({exc})") from None
    try:
        _KEPT.folder = args.output
        res = batch(args.configs, args.output, client=client, local=args.local, device=args.device, gpu=args.gpu,
                    retries=args.retries, force=args.force, gpus=_gpus_arg(args.gpus))
    finally:
        if client is not None:
            client.close()
    print(res)
    return 1 if res.failed else 0


def _param_flags_hint(args: argparse.Namespace, unknown: Sequence[str], reg: StepRegistry) -> None:
    """A step's parameter flag given to ``smrnb run`` / ``demo`` / ``batch``: say where it goes."""
    if getattr(args, "command", None) not in ("run", "demo", "batch"):
        return
    for u in unknown:
        flag = u.split("=", 1)[0]
        owners = [(step.name, spec.name) for step in reg for spec in step.params if spec.flag == flag]
        if owners:
            step, key = owners[-1]
            others = f" (also a parameter of {', '.join(s for s, _ in owners[:-1])})" if len(owners) > 1 else ""
            print(f"smrnb {args.command}: {flag} is a parameter of a step, not of `smrnb {args.command}`: set it in "
                  f"the config, e.g. under `- step: {step}` `params: {{{key}: ...}}`{others}; or run one step with "
                  f"`smrnb step {step} --input IN --output OUT {flag} ...`", file=sys.stderr)
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``smrnb``; returns the exit code (0 ok, 1 a step failed, 2 usage error)."""
    console_safe()  # an ASCII-only terminal gets plain words instead of a UnicodeEncodeError
    reg = REGISTRY
    parser = build_parser(reg)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _param_flags_hint(args, unknown, reg)
        parser.parse_args(argv)  # exits 2 on bad flags or values (one line, no generic usage text)
    _KEPT.reset()
    _KEPT.ran = args.command if args.command in ("run", "demo", "step", "batch") else None
    try:
        if args.command == "steps":
            _print_steps(reg, args.format)
            return 0
        if args.command == "step":
            return _cmd_step(args, reg)
        if args.command == "run":
            return _cmd_run(args, reg)
        if args.command == "demo":
            return _cmd_demo(args, reg)
        if args.command == "batch":
            return _cmd_batch(args)
    except UsageError as exc:  # one line: what is wrong and what to do; the generic usage adds nothing
        print(f"smrnb {args.command}: error: {cap(str(exc))}", file=sys.stderr)
        return 2
    except SmrnbError as exc:
        print(f"smrnb {args.command}: error: {cap(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_KEPT.line(args.command), file=sys.stderr, flush=True)
        return 130
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":
    code = main()
    guard_shutdown()
    sys.exit(code)
