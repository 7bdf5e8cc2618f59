# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit, kind ``lost``: every output smrnb writes, against the user's files in the way.

The check in each case: after the operation, every file the user had is byte-for-byte what it was
(unless the user asked to replace that very file, and then it is a whole new file), and nothing was
left behind (temp files, half-written outputs). An error is fine when it names its cause.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

from tests.audit._blind import (
    CONFIG,
    Ran,
    as_nobody,
    attempt,
    cli,
    cli_until,
    full_disk,
    glb_ok,
    intact,
    kill_at,
    mesh_sphere,
    no_traceback,
    not_a_wrong_cause,
    refused,
    settle,
    small_config,
    snapshot,
    textured_sphere,
    user_file,
)
from tests.audit._cases import AuditLost, AuditMisleading, AuditSilent, blind_case, tmp

KIND = "lost"
OLD = b"user's earlier file: precious bytes " * 40  # 1.4 kB, not a valid mesh: recognisable


def _disk_full_export(suffix: str, textured: bool = False, free: int = 8192) -> None:
    import smrnb

    d = tmp() / "disk"
    names = ["scan" + suffix] + ([] if not textured else ["scan.mtl", "scan.png"])
    mesh = textured_sphere(3, 256) if textured else mesh_sphere(4)
    full_disk(d, free, {n: OLD + n.encode() for n in names} | {"notes.txt": b"my notes\n"})
    before = snapshot(d)
    _, exc = attempt(lambda: smrnb.export_mesh(mesh, d / names[0]))
    intact(before, d, what=f"export_mesh to a full disk over an existing {names}")
    if exc is None:
        raise AuditSilent("export_mesh on a full disk returned normally and the files are unchanged")
    settle(exc, r"space|disk|too large|write|scan", what="export_mesh on a full disk")


@blind_case("lost_export_glb_disk_full", "export_mesh", kind=KIND)
def _():
    _disk_full_export(".glb")


@blind_case("lost_export_ply_disk_full", "export_mesh", kind=KIND)
def _():
    _disk_full_export(".ply")


@blind_case("lost_export_obj_textured_disk_full", "export_mesh", kind=KIND)
def _():
    # OBJ + MTL + PNG: the three files the user had must all stay (no new OBJ next to the old PNG)
    _disk_full_export(".obj", textured=True, free=40_000)


@blind_case("lost_export_obj_texture_name_is_a_folder", "export_mesh", kind=KIND)
def _():
    import smrnb

    d = tmp() / "objdir"
    user_file(d / "scan.obj", OLD)
    user_file(d / "scan.png" / "holiday.jpg", b"a photo")
    before = snapshot(d)
    res, exc = attempt(lambda: smrnb.export_mesh(textured_sphere(2), d / "scan.obj"))
    if exc is None:  # it found another name for the texture: the OBJ may be new, the folder must stay
        intact(before, d, may_change=["scan.obj"], may_appear=[r"scan[^/]*\.(mtl|png|jpg)"],
               what="textured OBJ export where scan.png is a folder")
        return
    intact(before, d, what="textured OBJ export where scan.png is a folder (failed)")
    settle(exc, r"scan\.png", os_errors=False, what="textured OBJ export where scan.png is a folder")


@blind_case("lost_export_path_is_a_folder", "export_mesh", kind=KIND)
def _():
    import smrnb

    d = tmp() / "exp"
    user_file(d / "scan.glb" / "part1.glb", OLD)
    user_file(d / "scan.glb" / "readme.txt", "mine")
    before = snapshot(d)
    _, exc = attempt(lambda: smrnb.export_mesh(mesh_sphere(2), d / "scan.glb"))
    intact(before, d, what="export_mesh onto a folder named scan.glb")
    if exc is None:
        raise AuditSilent("export_mesh onto an existing folder returned normally")
    settle(exc, r"folder|director", os_errors=False, what="export_mesh onto a folder")


@blind_case("lost_export_parent_is_a_file", "export_mesh", kind=KIND)
def _():
    import smrnb

    d = tmp() / "exp2"
    user_file(d / "notes.txt", "my notes")
    before = snapshot(d)
    _, exc = attempt(lambda: smrnb.export_mesh(mesh_sphere(2), d / "notes.txt" / "scan.glb"))
    intact(before, d, what="export_mesh below a file (notes.txt/scan.glb)")
    if exc is None:
        raise AuditSilent("export_mesh below a file returned normally")
    settle(exc, r"notes\.txt.*(not a (folder|directory)|is a file)|(not a (folder|directory)|is a file).*notes\.txt",
           os_errors=False, what="export_mesh below a file")


@blind_case("lost_export_through_symlink", "export_mesh", kind=KIND)
def _():
    import smrnb

    d = tmp() / "ln"
    user_file(d / "thesis.tex", OLD)
    (d / "out").mkdir()
    os.symlink("../thesis.tex", d / "out" / "scan.glb")
    before = snapshot(d)
    _, exc = attempt(lambda: smrnb.export_mesh(mesh_sphere(2), d / "out" / "scan.glb"))
    # out/scan.glb itself was named by the user and may be replaced; what it pointed to was not
    intact(before, d, may_change=[r"out/scan\.glb"], what="export_mesh to a symlink pointing at the user's file")
    settle(exc, r"link|scan\.glb", os_errors=False, what="export_mesh to a symlink")


@blind_case("lost_export_readonly_folder", "export_mesh", kind=KIND)
def _():
    import smrnb

    d = tmp() / "ro"
    user_file(d / "scan.glb", OLD)
    os.chmod(d, 0o555)  # root's folder, read-only for everybody else
    before = snapshot(d)
    smrnb.export_mesh(mesh_sphere(2), tmp() / "warm" / "scan.glb")  # modules imported while they are readable
    as_nobody()
    _, exc = attempt(lambda: smrnb.export_mesh(mesh_sphere(2), d / "scan.glb"))
    intact(before, d, what="export_mesh into a read-only folder")
    if exc is None:
        raise AuditSilent("export_mesh into a read-only folder returned normally")
    if isinstance(exc, smrnb.SmrnbError):
        not_a_wrong_cause(exc, r"does not exist|no such|not found", r"permission|read-only|not writable|denied",
                          "export_mesh into a read-only folder")
    else:
        settle(exc, what="export_mesh into a read-only folder")


def _kill_trials(write, reset, check_target, what, points: int = 12):
    """SIGKILL a forked ``write`` at ``points`` moments spread over its own duration (measured first in
    a fork too, so a loaded machine stretches the moments with the work); the user's files are put back
    before each try and checked after it."""
    reset()
    t0 = time.monotonic()
    kill_at(write, 600.0)  # runs to the end: its duration
    span = time.monotonic() - t0
    for i in range(points):
        reset()
        delay = span * (0.3 + 0.8 * i / (points - 1))
        status = kill_at(write, delay)
        problem = check_target()
        if problem:
            raise AuditLost(f"{what}: killed after {delay * 1000:.0f} ms of {span * 1000:.0f} ms "
                            f"(status {status}): {problem}")


def _states_during(write, paths) -> list[tuple[float, tuple]]:
    """Run ``write`` in a forked child while this process stats ``paths`` as fast as it can: what a crash
    at each moment would leave. One (time, (stat or None per path)) per change."""
    def st(p):
        try:
            r = os.stat(p)
            return (r.st_ino, r.st_size, r.st_mtime_ns)
        except FileNotFoundError:
            return None

    seen: list[tuple[float, tuple]] = []
    pid = os.fork()
    if pid == 0:
        try:
            write()
        finally:
            os._exit(0)
    t0 = time.monotonic()
    while True:
        now = tuple(st(p) for p in paths)
        if not seen or seen[-1][1] != now:
            seen.append((time.monotonic() - t0, now))
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    seen.append((time.monotonic() - t0, tuple(st(p) for p in paths)))
    return seen


@blind_case("lost_export_sigkill_glb", "export_mesh", kind=KIND, timeout=90)
def _():
    import smrnb

    d = tmp() / "kill"
    ref = tmp() / "ref.glb"
    mesh = mesh_sphere(7)
    smrnb.export_mesh(mesh, ref)
    new = ref.read_bytes()
    target = d / "scan.glb"

    def reset():
        user_file(target, OLD)

    def check():
        data = target.read_bytes() if target.exists() else None
        if data is None:
            return "scan.glb is gone"
        if data not in (OLD, new):
            return f"scan.glb is neither the old file nor the whole new one ({len(data)} bytes; {glb_ok(data)})"
        return None

    # what a crash at any moment would leave at scan.glb: the old file or the whole new one, never less
    for _ in range(2):
        reset()
        for t, (state,) in _states_during(lambda: smrnb.export_mesh(mesh, target), [target]):
            if state is None or state[1] not in (len(OLD), len(new)):
                raise AuditLost(f"export_mesh GLB: {t * 1000:.1f} ms into the export scan.glb was "
                                f"{'missing' if state is None else f'{state[1]} bytes (partly written)'}")
        problem = check()
        if problem or target.read_bytes() != new:
            raise AssertionError(f"the export in a forked child did not finish: {problem}")
    _kill_trials(lambda: smrnb.export_mesh(mesh, target), reset, check, "export_mesh GLB")


@blind_case("lost_export_sigkill_obj_set", "export_mesh", kind=KIND, timeout=120)
def _():
    import smrnb

    mesh = textured_sphere(4, 512)
    ref = tmp() / "ref"
    smrnb.export_mesh(mesh, ref / "scan.obj")
    names = ("scan.obj", "scan.mtl", "scan.png")
    new = {n: (ref / n).read_bytes() for n in names}
    d = tmp() / "killobj"
    old = {n: OLD + n.encode() for n in new}

    def reset():
        for n, b in old.items():
            user_file(d / n, b)

    def check():
        have = {n: (d / n).read_bytes() if (d / n).exists() else None for n in new}
        if have == old or have == new:
            return None
        mix = {n: ("old" if have[n] == old[n] else "new" if have[n] == new[n] else "other") for n in new}
        return f"the OBJ set is half-replaced: {mix}"

    # the three files are one result: a crash must leave all old or all new. Renaming three finished
    # files back to back leaves a mixed state for microseconds; one that lasts 0.3 ms or more in every
    # one of three exports (writing between the renames) is a window in which a crash leaves a mix.
    windows = []
    for _ in range(3):
        reset()
        first = tuple(os.stat(d / n).st_ino for n in names)
        states = _states_during(lambda: smrnb.export_mesh(mesh, d / "scan.obj"), [d / n for n in names])
        longest, start, example = 0.0, None, None
        for t, st in states:
            changed = [s is None or s[0] != i for s, i in zip(st, first)]
            mixed = any(changed) and not all(changed)
            if mixed and start is None:
                start = t
                example = {n: ("gone" if s is None else "new" if c else "old") for n, s, c in zip(names, st, changed)}
            elif not mixed and start is not None:
                longest, start = max(longest, t - start), None
        windows.append((longest, example))
        if check() is not None or (d / "scan.obj").read_bytes() != new["scan.obj"]:
            raise AssertionError("the export in a forked child did not finish")
    shortest = min(w for w, _ in windows)
    if shortest >= 3e-4:
        raise AuditLost(f"textured OBJ export: in each of 3 exports the set stayed half-replaced for "
                        f"{', '.join(f'{w * 1000:.1f}' for w, _ in windows)} ms (e.g. {windows[0][1]}): a crash "
                        f"then leaves it so")
    _kill_trials(lambda: smrnb.export_mesh(mesh, d / "scan.obj"), reset, check, "textured OBJ export")


@blind_case("lost_two_exports_one_path", "export_mesh", kind=KIND, timeout=90)
def _():
    import smrnb

    meshes = [mesh_sphere(6), mesh_sphere(5)]
    refs = []
    for i, m in enumerate(meshes):
        smrnb.export_mesh(m, tmp() / f"r{i}.glb")
        refs.append((tmp() / f"r{i}.glb").read_bytes())
    d = tmp() / "two"
    d.mkdir()
    for round_ in range(3):
        pids = []
        for m in meshes:
            pid = os.fork()
            if pid == 0:
                try:
                    smrnb.export_mesh(m, d / "scan.glb")
                finally:
                    os._exit(0)
            pids.append(pid)
        for p in pids:
            os.waitpid(p, 0)
        data = (d / "scan.glb").read_bytes()
        if data not in refs:
            raise AuditLost(f"two exports to one path (round {round_}): the file is neither export "
                            f"({len(data)} bytes; {glb_ok(data)})")
        left = sorted(p.name for p in d.iterdir())
        if left != ["scan.glb"]:
            raise AuditLost(f"two exports to one path: stray files {left}")


def _disk_full_save(what: str, name: str, save) -> None:
    d = tmp() / "save"
    full_disk(d, 600, {name: OLD, "notes.txt": b"my notes\n"})
    before = snapshot(d)
    _, exc = attempt(lambda: save(d / name))
    intact(before, d, what=f"{what} to a full disk over an existing {name}")
    settle(exc, what=what)


@blind_case("lost_save_config_disk_full", "Pipeline", kind=KIND)
def _():
    import smrnb

    p = smrnb.Pipeline(steps=[("tsdf", {"voxel_size": 0.02}), "extract_mesh", ("fill_holes", {"max_hole_edges": 50}),
                              ("simplify", {"target_number_of_vertices": 5000}), ("uv", {"chart_num": 30}),
                              ("texture", {"resolution": 512}), ("export", {"path": "mesh.glb"})],
                       source={"path": "sample", "stride": 5})
    _disk_full_save("Pipeline.save_config", "params.yaml", p.save_config)


@blind_case("lost_app_save_params_disk_full", "ReconstructionApp", kind=KIND)
def _():
    import smrnb

    d = tmp() / "save"
    app = smrnb.ReconstructionApp(output_dir=d)
    _disk_full_save("ReconstructionApp.save_params", "params.yaml", lambda p: app.save_params(p))


@blind_case("lost_viewer_save_png_disk_full", "Viewer", kind=KIND)
def _():
    import smrnb

    v = smrnb.Viewer(mesh_sphere(3), width=320, height=200)
    _disk_full_save("Viewer.save_png", "view.png", v.save_png)


@blind_case("lost_viewer_save_html_disk_full", "Viewer", kind=KIND)
def _():
    import smrnb

    v = smrnb.Viewer(mesh_sphere(3), width=320, height=200)
    _disk_full_save("Viewer.save_html", "view.html", v.save_html)


@blind_case("lost_write_log_disk_full", "datasets.write_log", kind=KIND)
def _():
    import numpy as np

    import smrnb.datasets

    poses = np.tile(np.eye(4), (200, 1, 1))
    _disk_full_save("datasets.write_log", "trajectory.log", lambda p: smrnb.datasets.write_log(p, poses))


@blind_case("lost_app_export_onto_a_folder", "ReconstructionApp", kind=KIND, timeout=90)
def _():
    import smrnb

    d = tmp() / "appexp"
    user_file(d / "room.glb" / "lod0.glb", OLD)
    user_file(d / "room.glb" / "notes.txt", "the user's folder called room.glb")
    before = snapshot(d)
    app = smrnb.ReconstructionApp(source=mesh_sphere(3), steps=[("simplify", {"target_number_of_vertices": 200})],
                                  output_dir=d)
    res, exc = attempt(lambda: app.export(d / "room.glb", "glb"))
    intact(before, d, what="ReconstructionApp.export onto a folder named room.glb")
    if exc is None and res is not None:
        raise AuditSilent(f"ReconstructionApp.export onto a folder returned {res!r}")
    settle(exc, r"room\.glb|folder|director", os_errors=False, what="ReconstructionApp.export onto a folder")


# ------------------------------------------------------------------------------------ smrnb run

@blind_case("lost_run_refuses_existing_output", "cli", kind=KIND)
def _():
    d = tmp() / "run1"
    cfg = small_config(tmp() / "cfg")
    user_file(d / "mesh.glb", OLD)
    before = snapshot(d)
    ran = cli("smrnb", "run", str(cfg), "--output", str(d), timeout=120)
    intact(before, d, what="smrnb run without --overwrite over an existing mesh.glb")
    refused(ran, r"exist|overwrite", "smrnb run over an existing output")
    if ran.seconds > 8:
        raise AuditMisleading(f"smrnb run refused an existing output only after {ran.seconds:.1f} s (the work ran)")


@blind_case("lost_run_output_is_a_file", "cli", kind=KIND)
def _():
    d = tmp() / "run2"
    cfg = small_config(tmp() / "cfg")
    user_file(d / "results", OLD)
    before = snapshot(d)
    ran = cli("smrnb", "run", str(cfg), "--output", str(d / "results"), timeout=120)
    intact(before, d, what="smrnb run --output pointing at a file")
    refused(ran, r"results.*(not a (folder|directory)|is a file|exists)|(folder|directory).*results",
            "smrnb run --output FILE")


@blind_case("lost_run_overwrite_folder_in_the_way", "cli", kind=KIND)
def _():
    d = tmp() / "run3"
    cfg = small_config(tmp() / "cfg")
    user_file(d / "mesh.glb" / "lod0.glb", OLD)
    user_file(d / "mesh.glb" / "notes.txt", "mine")
    before = snapshot(d)
    ran = cli("smrnb", "run", str(cfg), "--output", str(d), "--overwrite", timeout=120)
    intact(before, d, what="smrnb run --overwrite where mesh.glb is the user's folder")
    refused(ran, r"mesh\.glb", "smrnb run --overwrite onto a folder")


@blind_case("lost_run_overwrite_keeps_the_rest", "cli", kind=KIND)
def _():
    d = tmp() / "run4"
    cfg = small_config(tmp() / "cfg")
    user_file(d / "mesh.glb", OLD)
    user_file(d / "notes.txt", "mine")
    user_file(d / "older" / "mesh.glb", OLD)
    before = snapshot(d)
    ran = cli("smrnb", "run", str(cfg), "--output", str(d), "--overwrite", timeout=120)
    no_traceback(ran, "smrnb run --overwrite")
    if ran.rc != 0:
        raise AuditMisleading(f"smrnb run --overwrite failed (exit {ran.rc}): {ran.both[-800:]}")
    intact(before, d, may_change=[r"mesh\.glb"], what="smrnb run --overwrite")
    problem = glb_ok((d / "mesh.glb").read_bytes())
    if problem:
        raise AuditLost(f"smrnb run --overwrite left mesh.glb broken: {problem}")


@blind_case("lost_run_two_runs_one_folder", "cli", kind=KIND, timeout=150)
def _():
    from tests.audit._blind import _command

    d = tmp() / "run5"
    d.mkdir()
    cfgs = [small_config(tmp() / "cfgA"), small_config(tmp() / "cfgB", text=CONFIG.replace("0.05", "0.04"))]
    env = dict(os.environ)
    env.pop("SMRNB_AUDIT_TMP", None)
    procs = [subprocess.Popen([*_command("smrnb"), "run", str(c), "--output", str(d), "--overwrite"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
             for c in cfgs]
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            raise
        outs.append(Ran(p.returncode, o.decode(errors="replace"), e.decode(errors="replace"), 0.0))
    for r in outs:
        no_traceback(r, "two smrnb runs into one folder")
    left = sorted(p.name for p in d.iterdir())
    if left != ["mesh.glb"]:
        raise AuditLost(f"two smrnb runs into one folder left {left}")
    problem = glb_ok((d / "mesh.glb").read_bytes())
    if problem:
        raise AuditLost(f"two smrnb runs into one folder: mesh.glb is broken: {problem}")


@blind_case("lost_run_sigkill_during_export", "cli", kind=KIND, timeout=120)
def _():
    from tests.audit._blind import _command

    d = tmp() / "run6"
    cfg = small_config(tmp() / "cfg")
    target = user_file(d / "mesh.glb", OLD)
    user_file(d / "notes.txt", "mine")
    before = snapshot(d)
    env = dict(os.environ)
    env.pop("SMRNB_AUDIT_TMP", None)
    p = subprocess.Popen([*_command("smrnb"), "run", str(cfg), "--output", str(d), "--overwrite"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    t0, seen = time.monotonic(), b""
    os.set_blocking(p.stderr.fileno(), False)
    while p.poll() is None and time.monotonic() - t0 < 100:
        chunk = p.stderr.read() or b""
        seen += chunk
        if b"export" in seen:
            time.sleep(0.05)
            break
        time.sleep(0.005)
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    data = target.read_bytes() if target.exists() else b""
    if data != OLD and glb_ok(data):
        raise AuditLost(f"smrnb run killed during export: mesh.glb is neither the old file nor a whole GLB "
                        f"({glb_ok(data)})")
    # a temp file of the killed writer is expected; the user's other files are not to be touched
    intact(before, d, may_change=[r"mesh\.glb"], may_appear=[r".*"], what="smrnb run killed during export")


# ---------------------------------------------------------------------------------- smrnb demo

@blind_case("lost_demo_over_users_mesh", "cli", kind=KIND, timeout=240)
def _():
    d = tmp() / "demo"
    user_file(d / "mesh.glb", OLD)
    user_file(d / "notes.txt", "mine")
    before = snapshot(d)
    ran = cli("smrnb", "demo", "--output", str(d), timeout=220)
    no_traceback(ran, "smrnb demo over an existing mesh.glb")
    intact(before, d, may_appear=[r".*"], what="smrnb demo --output DIR holding the user's mesh.glb (no --overwrite)")


@blind_case("lost_demo_output_is_a_file", "cli", kind=KIND, timeout=240)
def _():
    d = tmp() / "demo2"
    user_file(d / "out", OLD)
    before = snapshot(d)
    ran = cli_until("smrnb", "demo", "--output", str(d / "out"), marker=b"tsdf", timeout=220)
    intact(before, d, what="smrnb demo --output FILE")
    if ran is None:
        raise AuditMisleading("smrnb demo --output FILE started the pipeline instead of refusing the path first")
    refused(ran, r"out.*(not a (folder|directory)|is a file|exists)|(folder|directory).*out", "smrnb demo --output FILE")


# --------------------------------------------------------------------------------- smrnb batch

@blind_case("lost_batch_users_folder_named_like_the_scan", "batch", kind=KIND, timeout=240)
def _():
    import smrnb

    cfgdir = tmp() / "cfgs"
    small_config(cfgdir, name="scan.yaml")
    out = tmp() / "results"
    user_file(out / "scan" / "notes.txt", "the user's own folder called scan")
    user_file(out / "scan" / "photo.jpg", OLD)
    before = snapshot(out)
    _, exc = attempt(lambda: smrnb.batch([cfgdir], out, local=1, progress=False))
    intact(before, out, may_appear=[r"summary\.(csv|md)", r"scan[^/]*", r"\.scan.*", r"[^/]*/.*"],
           what="smrnb.batch where results/scan is the user's folder")
    settle(exc, r"scan", os_errors=False, what="smrnb.batch where results/scan is the user's folder")


@blind_case("lost_batch_output_is_a_file", "cli", kind=KIND, timeout=180)
def _():
    d = tmp() / "batch2"
    cfgdir = tmp() / "cfgs2"
    small_config(cfgdir, name="scan.yaml")
    user_file(d / "results", OLD)
    before = snapshot(d)
    ran = cli("smrnb", "batch", str(cfgdir), "--output", str(d / "results"), "--local", "1", timeout=170)
    intact(before, d, what="smrnb batch --output FILE")
    refused(ran, r"results", "smrnb batch --output FILE")


# ---------------------------------------------------------------------------- doctor kernelspec

def _jupyter_env(root) -> dict:
    return {"JUPYTER_DATA_DIR": str(root / "jdata"), "HOME": str(root / "home"), "JUPYTER_CONFIG_DIR":
            str(root / "jconf"), "XDG_DATA_HOME": str(root / "xdg")}


KERNEL_JSON = ('{"argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], '
               '"display_name": "my carefully tuned kernel", "language": "python", '
               '"env": {"LD_LIBRARY_PATH": "/opt/mine"}}')


def _user_kernelspec(root, name="mykernel"):
    k = root / "jdata" / "kernels" / name
    user_file(k / "kernel.json", KERNEL_JSON)
    user_file(k / "logo-64x64.png", OLD)
    (root / "home").mkdir(exist_ok=True)
    return k


@blind_case("lost_kernelspec_existing_name", "cli", kind=KIND)
def _():
    root = tmp() / "ks"
    _user_kernelspec(root)
    before = snapshot(root)
    ran = cli("smr-doctor", "fix", "kernelspec", "--name", "mykernel", env=_jupyter_env(root), timeout=60)
    no_traceback(ran, "smr-doctor fix kernelspec --name EXISTING")
    intact(before, root, may_appear=[r"jdata/kernels/(?!mykernel(/|$))[^/]+(/.*)?", r"(home|jconf|xdg)(/.*)?"],
           what="smr-doctor fix kernelspec --name of an existing kernelspec, without --force")


@blind_case("lost_kernelspec_name_escapes", "cli", kind=KIND)
def _():
    root = tmp() / "ks2"
    _user_kernelspec(root)
    user_file(root / "home" / "victim" / "kernel.json", '{"mine": true}')
    before = snapshot(root)
    ran = cli("smr-doctor", "fix", "kernelspec", "--name", "../../home/victim", env=_jupyter_env(root), timeout=60)
    no_traceback(ran, "smr-doctor fix kernelspec --name ../../home/victim")
    intact(before, root, may_appear=[r"jdata/kernels/[^/.][^/]*(/.*)?"],
           what="smr-doctor fix kernelspec --name with '../'")


@blind_case("lost_kernelspec_force_disk_full", "cli", kind=KIND)
def _():
    # --force asks to replace the kernelspec; a write that fails must still leave the old one whole.
    # RLIMIT_FSIZE (not a small disk): deleting the old kernelspec first does not make room.
    root = tmp() / "ks3"
    (root / "home").mkdir(parents=True)
    full_disk(root / "jdata" / "kernels", 200, {"mykernel/kernel.json": KERNEL_JSON.encode()}, fsize=True)
    before = snapshot(root)
    ran = cli("smr-doctor", "fix", "kernelspec", "--name", "mykernel", "--force", env=_jupyter_env(root), timeout=60)
    no_traceback(ran, "smr-doctor fix kernelspec --force with writes failing")
    kj = root / "jdata" / "kernels" / "mykernel" / "kernel.json"
    if ran.rc == 0:
        import json

        try:
            json.loads(kj.read_text())
        except (OSError, ValueError) as exc:
            raise AuditLost(f"smr-doctor fix kernelspec --force exited 0 but kernel.json is not whole: {exc}") from None
        return
    # a backup of the old kernelspec is a copy, not a loss
    intact(before, root, may_appear=[r"(home|jconf|xdg)(/.*)?", r"jdata/[^/]*backup[^/]*(/.*)?"],
           what="smr-doctor fix kernelspec --force failing to write (the old kernelspec must stay whole)")

