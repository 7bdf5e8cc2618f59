# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The ``smrnb`` command through real subprocesses: exit codes, generated flags, files written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from smrnb.pipeline import list_steps
from smrnb.pipeline.cli import main

TIMEOUT = 120


def smrnb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smrnb.pipeline.cli", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=cwd, check=False)


@pytest.fixture(scope="module")
def sphere_ply(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("cli") / "sphere.ply"
    trimesh.creation.icosphere(subdivisions=3, radius=0.5).export(p)
    return p


def test_help_and_usage_errors():
    r = smrnb("--help")
    assert r.returncode == 0 and all(c in r.stdout for c in ("steps", "step", "run", "demo"))
    r = smrnb()
    assert r.returncode == 2 and "required" in r.stderr
    r = smrnb("step", "nosuchstep", "--input", "x", "--output", "y")
    assert r.returncode == 2 and "invalid choice: 'nosuchstep'" in r.stderr


def test_step_help_lists_generated_flags():
    r = smrnb("step", "tsdf", "--help")
    assert r.returncode == 0
    out = " ".join(r.stdout.split())
    for spec in next(s for s in list_steps() if s.name == "tsdf").params:
        assert spec.flag in out
    assert "--voxel-size FLOAT" in out and "float in [0.002, 0.2] m; default 0.01 m" in out


def test_steps_lists_every_step_and_flag():
    r = smrnb("steps")
    assert r.returncode == 0
    for step in list_steps():
        assert f"{step.name}: {step.summary}" in r.stdout
        for spec in step.params:
            assert f"{spec.flag} / {spec.name} " in r.stdout  # the step command's flag and the config key
    # it says where each applies: `smrnb run` takes a config, not parameter flags
    head = " ".join(r.stdout.split("\n\n", 1)[0].split())
    assert "`smrnb step NAME --input IN --output OUT`" in head and "`smrnb run` takes no parameter flags" in head
    bad = smrnb("run", "x.yaml", "--voxel-size", "0.02")
    assert bad.returncode == 2 and "unrecognized arguments: --voxel-size" in bad.stderr
    assert "--voxel-size is a parameter of a step, not of `smrnb run`: set it in the config" in bad.stderr


@pytest.mark.slow  # ~4 s idle, 20 s on a loaded 2-core machine (torch + trimesh imports)
def test_step_runs_and_writes(sphere_ply, tmp_path):
    out = tmp_path / "small.ply"
    r = smrnb("step", "simplify", "--input", str(sphere_ply), "--output", str(out),
              "--target-number-of-vertices", "100")
    assert r.returncode == 0, r.stderr
    assert "simplify" in r.stdout and "642 vertices, 1,280 faces ->" in r.stdout and f"wrote {out}" in r.stdout
    m = trimesh.load(out, process=False)
    assert 0 < len(m.vertices) <= 100
    # the decimated sphere still is a sphere of radius 0.5 (vertices kept on/near the surface)
    r_ = np.linalg.norm(np.asarray(m.vertices), axis=1)
    assert abs(float(np.median(r_)) - 0.5) < 0.03


def test_bad_parameter_value_exits_2(sphere_ply, tmp_path):
    r = smrnb("step", "simplify", "--input", str(sphere_ply), "--output", str(tmp_path / "o.ply"),
              "--target-number-of-vertices", "ten")
    assert r.returncode == 2
    assert "step 'simplify' parameter 'target_number_of_vertices' must be an integer, got 'ten'" in r.stderr
    r = smrnb("step", "simplify", "--input", str(tmp_path / "missing.ply"), "--output", str(tmp_path / "o.ply"))
    assert r.returncode == 2 and "missing.ply' does not exist" in r.stderr


def test_unwritable_kind_is_a_usage_error(sphere_ply, tmp_path):
    r = smrnb("step", "tsdf", "--input", "sample", "--output", str(tmp_path / "v.npz"))
    assert r.returncode == 2 and "makes tsdf, which cannot be written to a file" in r.stderr
    r = smrnb("step", "extract_mesh", "--input", str(sphere_ply), "--output", str(tmp_path / "m.ply"))
    assert r.returncode == 2 and "this step takes tsdf, which cannot be read from a file" in r.stderr
    r = smrnb("step", "simplify", "--input", str(sphere_ply), "--output", str(tmp_path / "m.stl"))
    assert r.returncode == 2 and "step 'simplify' makes mesh, written as .glb or .obj or .ply; got" in r.stderr


# The next two call main() in-process (same code path as the entry point): each subprocess that
# runs a step pays torch + trimesh imports, which is most of this file's time on a 2-core machine.


def test_failing_step_exits_1_naming_it(sphere_ply, tmp_path, capsys):
    # a bad export suffix is a usage error found before the step runs, in one line (no generic usage text)
    assert main(["step", "export", "--input", str(sphere_ply), "--output", str(tmp_path / "m.xyz")]) == 2
    err = capsys.readouterr().err
    assert "parameter 'path' must end in .glb or .obj or .ply" in err and "usage:" not in err
    assert not (tmp_path / "m.xyz").exists()
    # a step that fails on its input: exit 1, naming the step
    flat = trimesh.Trimesh(np.zeros((300, 3)), np.arange(297)[:, None] + np.arange(3), process=False)
    flat.export(tmp_path / "flat.ply")
    assert main(["step", "simplify", "--input", str(tmp_path / "flat.ply"), "--output", str(tmp_path / "s.ply"),
                 "--target-number-of-vertices", "100"]) == 1
    assert "step 'simplify' failed" in capsys.readouterr().err


def test_run_config(sphere_ply, tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"source: {sphere_ply}\nsteps:\n  - step: simplify\n    params: {{target_number_of_vertices: 200}}\n"
                   "  - step: export\n    params: {path: out/s.glb}\n")
    assert main(["run", str(cfg), "--output", str(tmp_path / "dir")]) == 0
    out = capsys.readouterr().out
    glb = tmp_path / "dir" / "out" / "s.glb"
    assert f"wrote {glb}" in out and "steps total" in out and f"source         {sphere_ply}: 642 vertices" in out
    m = trimesh.load(glb, force="mesh", process=False)
    assert 0 < len(m.vertices) <= 200 and len(m.faces) > 100
    # unknown keys and unknown params are usage errors naming them
    cfg.write_text(f"source: {sphere_ply}\noutput: x\nsteps: [simplify]\n")
    r = smrnb("run", str(cfg))
    assert r.returncode == 2 and "unknown key(s) 'output'" in r.stderr
    cfg.write_text(f"source: {sphere_ply}\nsteps:\n  - step: simplify\n    params: {{target: 5}}\n")
    r = smrnb("run", str(cfg))
    assert r.returncode == 2 and "step 'simplify' has no parameter(s) 'target'" in r.stderr
    r = smrnb("run", str(tmp_path / "nope.yaml"))
    assert r.returncode == 2 and "nope.yaml' does not exist" in r.stderr


@pytest.mark.slow
def test_demo_end_to_end(tmp_path):
    """`smrnb demo`: the bundled sample -> TSDF -> mesh -> ... -> textured GLB, with the summary printed."""
    import time

    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "smrnb.pipeline.cli", "demo", "--output", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, check=False)
    wall = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for name in ("source", "tsdf", "extract_mesh", "fill_holes", "simplify", "uv", "texture", "export",
                 "steps total", "demo finished in"):
        assert name in out
    assert "[torch CPU, cpu]" in out
    mesh_path = tmp_path / "mesh.glb"
    assert f"wrote {mesh_path}" in out
    m = trimesh.load(mesh_path, process=False, force="mesh")
    assert 5_000 < len(m.faces) and len(m.vertices) >= 7_000  # simplified to 8000 vertices, then split at seams
    assert m.visual.kind == "texture" and m.visual.material.baseColorTexture.size == (1024, 1024)
    tex = np.asarray(m.visual.material.baseColorTexture.convert("RGB"), dtype=float)
    assert tex.std() > 10  # a real photo texture, not a flat fill
    # a living room: metres across, not millimetres or kilometres
    extent = np.ptp(np.asarray(m.vertices), axis=0)
    assert 1.0 < extent.max() < 20.0
    print(f"smrnb demo wall time {wall:.1f} s")


def test_extra_input_gets_its_own_flag():
    r = smrnb("step", "texture", "--help")
    assert r.returncode == 0
    out = " ".join(r.stdout.split())
    assert "--frames PATH second input: a dataset folder (Redwood, TUM, 7-Scenes) or 'sample'" in out
    assert "--resolution INT" in out and "--depth-check FLOAT" in out and "or none" in out
    r = smrnb("step", "texture", "--input", "m.glb", "--output", "t.glb")
    assert r.returncode == 2 and "the following arguments are required: --frames" in r.stderr


def test_listing_and_help_do_not_import_torch():
    code = ("import sys, json\nfrom smrnb.pipeline.cli import main\n"
            "import contextlib, io\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n    main(['steps'])\n"
            "print(json.dumps({'torch': 'torch' in sys.modules, 'trimesh': 'trimesh' in sys.modules}))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == '{"torch": false, "trimesh": false}'


def test_demo_cuda_without_gpu_is_a_usage_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible: --device cuda is valid here")
    assert main(["demo", "--device", "cuda", "--output", "unused"]) == 2
    err = capsys.readouterr().err
    assert "--device cuda: torch sees no CUDA GPU here" in err and "usage:" not in err


def test_points_round_trip_through_ply(tmp_path):
    import torch

    from smrnb import PointCloud
    from smrnb.pipeline.cli import read_input, write_output

    torch.manual_seed(1)
    pc = PointCloud(torch.rand(500, 3) * 4 - 2, colors=torch.rand(500, 3))
    path = write_output("points", pc, str(tmp_path / "p.ply"))
    kind, back = read_input(("points",), path)
    assert kind == "points" and len(back) == 500
    torch.testing.assert_close(back.points, pc.points)
    assert float((back.colors - pc.colors).abs().max()) <= 0.5 / 255 + 1e-6  # 8-bit colors


def test_textured_glb_reads_back_as_textured_mesh(tmp_path):
    import torch

    from smrnb.geometry import Mesh, export_mesh
    from smrnb.pipeline.cli import UsageError, read_input

    v = torch.tensor([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=torch.float32)
    f = torch.tensor([[0, 1, 2], [0, 2, 3]])
    tex = torch.zeros(8, 8, 3)
    tex[:, :, 0] = 1.0
    m = Mesh(v, f, uvs=v[:, :2].clone(), face_uvs_idx=f.clone(), texture=tex)
    path = export_mesh(m, tmp_path / "t.glb").path
    kind, back = read_input(("mesh", "textured_mesh"), path)
    assert kind == "textured_mesh" and back.texture is not None and back.num_faces == 2
    assert float(back.texture[..., 0].mean()) > 0.99 and float(back.texture[..., 1].mean()) < 0.01
    kind, _ = read_input(("mesh",), path)  # a mesh-only step takes it as a plain mesh
    assert kind == "mesh"
    plain = export_mesh(Mesh(v, f), tmp_path / "p.ply").path
    with pytest.raises(UsageError, match="holds a mesh without a texture; this step needs a textured mesh"):
        read_input(("textured_mesh",), plain)


def _default_sigint() -> None:
    """In the child before exec: SIGINT's default action (a suite started in the background of a non-interactive
    shell ignores SIGINT, and a child would inherit that and never see the Ctrl-C these tests send)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _run_until(cmd: list[str], marker: bytes, stream: str) -> tuple[subprocess.Popen, bytes]:
    """Start ``cmd`` in its own session (SIGINT's default restored) and read ``stream`` ("stdout" or "stderr")
    until ``marker`` shows, the process ends or TIMEOUT passes: the process and what was read."""
    import os
    import time

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=_default_sigint)
    pipe = getattr(p, stream)
    seen, t0 = b"", time.monotonic()
    os.set_blocking(pipe.fileno(), False)
    while marker not in seen and p.poll() is None and time.monotonic() - t0 < TIMEOUT:
        seen += pipe.read() or b""
        time.sleep(0.005)
    return p, seen


def test_ctrl_c_during_a_run_says_what_was_kept_in_one_line(tmp_path):
    import os
    import signal
    import time

    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("source: {path: sample, stride: 2}\nsteps:\n  - step: tsdf\n    params: {voxel_size: 0.01}\n"
                   "  - step: extract_mesh\n  - step: export\n    params: {path: mesh.glb}\n")
    p, seen = _run_until([sys.executable, "-m", "smrnb.pipeline.cli", "run", str(cfg), "--output", str(out)],
                         b"running tsdf", "stderr")
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    err = (seen + stderr).decode()
    assert p.returncode == 130, err[-2000:]
    assert "Traceback" not in err + stdout.decode()
    assert err.strip().splitlines()[-1] == "smrnb run: interrupted (Ctrl-C) during tsdf; nothing was written " \
                                           "(mesh.glb as before)"
    assert sorted(x.name for x in out.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("entry", [["-m", "smrnb.pipeline.cli"], ["-m", "smrnb"]])
def test_ctrl_c_after_the_report_ends_with_the_runs_own_status_not_the_signal(tmp_path, entry):
    # the report ("wrote .../mesh.glb") is printed, then Python and torch take a fraction of a second to shut down: a
    # Ctrl-C there used to kill the process by the signal (status -2, no word) after a complete run
    import os
    import signal
    import time

    cfg = tmp_path / "c.yaml"
    cfg.write_text("source: {path: sample, stride: 4, max_frames: 6}\nsteps:\n  - step: tsdf\n"
                   "    params: {voxel_size: 0.02}\n  - step: extract_mesh\n  - step: export\n"
                   "    params: {path: mesh.glb}\n")
    out = tmp_path / "out"
    p, _ = _run_until([sys.executable, *entry, "run", str(cfg), "--output", str(out)], b"wrote ", "stdout")
    time.sleep(0.05)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, (p.returncode, stderr.decode()[-2000:])
    assert "Traceback" not in stderr.decode() + stdout.decode()
    assert (out / "mesh.glb").stat().st_size > 1000


def test_demo_refuses_the_users_file_before_any_work_and_its_default_folder_is_never_reused(tmp_path):
    from smrnb._files import default_output_folder

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "mesh.glb").write_bytes(b"the user's mesh")
    r = smrnb("demo", "--output", str(tmp_path / "d"))
    assert r.returncode == 2 and "mesh.glb" in r.stderr and "exists; pass --overwrite" in r.stderr, r.stderr
    assert "usage:" not in r.stderr and "running" not in r.stderr + r.stdout
    assert (tmp_path / "d" / "mesh.glb").read_bytes() == b"the user's mesh"
    (tmp_path / "f").write_text("a file")
    r = smrnb("demo", "--output", str(tmp_path / "f"))
    assert r.returncode == 2 and "is a file, not a folder" in r.stderr and (tmp_path / "f").read_text() == "a file"
    # no --output: ./out, then ./out-2 once ./out holds the earlier result (it is kept), and the run says so
    assert default_output_folder(str(tmp_path / "out")) == (tmp_path / "out", None)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mesh.glb").write_bytes(b"earlier")
    folder, note = default_output_folder(str(tmp_path / "out"))
    assert folder == tmp_path / "out-2" and "holds files already (kept)" in note
