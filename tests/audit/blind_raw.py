# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit, kind ``raw``: errors that must reach the user as one clear smrnb message.

Library exceptions (numpy, torch, PIL, yaml, json, trimesh) instead of a SmrnbError naming the
argument or file; wrong causes ("does not exist" for a permission problem or a symlink loop);
hostile files (0 bytes, decompression bombs, deep JSON, YAML aliases, corrupt images); and the
command lines under Ctrl-C, an ASCII-only terminal, and bad paths that must be refused before the
long work starts.
"""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import time
import zlib

from tests.audit._blind import (
    CONFIG,
    _command,
    as_nobody,
    cli,
    cli_until,
    either,
    mesh_sphere,
    no_traceback,
    not_a_wrong_cause,
    redwood_copy,
    refused,
    small_config,
    snapshot,
    tiny_frames,
    user_file,
)
from tests.audit._cases import OK, AuditLost, AuditMisleading, AuditRaw, AuditSilent, blind_case, tmp

KIND = "raw"


# --------------------------------------------------------------------------------- tensors

@blind_case("raw_meta_device_vertices", "compute_vertex_normals", r"vertices|meta|device", kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(2)
    smrnb.compute_vertex_normals(m.vertices.to("meta"), m.faces.to("meta"))


@blind_case("raw_meta_device_depth", "depth_to_points", r"depth|meta|device", kind=KIND)
def _():
    import torch

    import smrnb

    smrnb.depth_to_points(torch.ones(48, 64, device="meta"), torch.eye(3))


@blind_case("raw_requires_grad_simplify", "simplify_mesh", OK, kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(4)
    m = smrnb.Mesh(m.vertices.clone().requires_grad_(True), m.faces)

    def check(out):
        n = out.vertices.shape[0]
        return None if 0 < n <= 300 else f"{n} vertices for a target of 300"

    either(lambda: smrnb.simplify_mesh(m, target_number_of_vertices=300), check, r"grad|vertices", "simplify_mesh")


@blind_case("raw_requires_grad_export", "export_mesh", OK, kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(2)
    m = smrnb.Mesh(m.vertices.clone().requires_grad_(True), m.faces)

    def check(report):
        back = smrnb.load_mesh(tmp() / "g.ply")
        return None if back.faces.shape[0] == m.faces.shape[0] else "the exported file lost faces"

    either(lambda: smrnb.export_mesh(m, tmp() / "g.ply"), check, r"grad|vertices", "export_mesh")


@blind_case("raw_fuse_tsdf_on_cuda_without_gpu", "fuse_tsdf", r"cuda|gpu", kind=KIND)
def _():
    import torch

    import smrnb

    if torch.cuda.is_available():  # the case is about a machine without CUDA
        return
    smrnb.fuse_tsdf(tiny_frames(2), voxel_size=0.05, device="cuda", progress=False)


@blind_case("raw_viewer_points_of_two_columns", "Viewer", r"data|shape|\(N, 3\)", kind=KIND)
def _():
    import torch

    import smrnb

    smrnb.Viewer(torch.zeros(5, 2))


@blind_case("raw_step_widget_misspelt_param", "StepWidget", r"voxel_sise", kind=KIND)
def _():
    import smrnb

    smrnb.StepWidget("voxelize", params={"voxel_sise": 0.1})


@blind_case("raw_pipeline_misspelt_step", "Pipeline", r"tsdff", kind=KIND)
def _():
    import smrnb

    smrnb.Pipeline(steps=["tsdff", "extract_mesh"], source="sample")


@blind_case("raw_export_unknown_format", "export_mesh", r"fbx|format", kind=KIND)
def _():
    import smrnb

    smrnb.export_mesh(mesh_sphere(1), tmp() / "x.glb", format="fbx")


# ------------------------------------------------------------------------------- files and paths

@blind_case("raw_load_redwood_on_a_file", "load_redwood", r"folder|director", kind=KIND)
def _():
    import smrnb

    smrnb.load_redwood(user_file(tmp() / "scan.zip", b"PK\x03\x04 not unpacked"))


@blind_case("raw_load_redwood_permission_denied", "load_redwood", OK, kind=KIND)
def _():
    import smrnb

    smrnb.load_redwood(redwood_copy(2, name="warm"))  # modules imported while they are readable
    d = redwood_copy(2)
    os.chmod(d, 0o000)
    as_nobody()
    try:
        smrnb.load_redwood(d)
    except Exception as exc:
        not_a_wrong_cause(exc, r"does not exist|no such|not found|missing", r"permission|denied|not readable|access",
                          "load_redwood on a folder the user may not read")
        return
    raise AuditSilent("load_redwood read a folder with mode 000 as an unprivileged user")


@blind_case("raw_load_mesh_symlink_loop", "load_mesh", OK, kind=KIND)
def _():
    import smrnb

    d = tmp() / "loop"
    d.mkdir()
    os.symlink("b.ply", d / "a.ply")
    os.symlink("a.ply", d / "b.ply")
    try:
        smrnb.load_mesh(d / "a.ply")
    except Exception as exc:
        not_a_wrong_cause(exc, r"does not exist|no such|not found", r"link|loop", "load_mesh on a symlink loop")
        return
    raise AuditSilent("load_mesh returned a mesh for a symlink loop")


@blind_case("raw_load_mesh_missing_file", "load_mesh", r"nonexistent\.ply.*(not exist|no such|not found)|"
            r"(not exist|no such|not found).*nonexistent\.ply", kind=KIND)
def _():
    import smrnb

    smrnb.load_mesh(tmp() / "nonexistent.ply")


@blind_case("raw_load_mesh_zero_bytes_ply", "load_mesh", r"empty|0 bytes|no data", kind=KIND)
def _():
    import smrnb

    smrnb.load_mesh(user_file(tmp() / "scan.ply", b""))


@blind_case("raw_load_mesh_zero_bytes_glb", "load_mesh", r"empty|0 bytes|no data", kind=KIND)
def _():
    import smrnb

    smrnb.load_mesh(user_file(tmp() / "scan.glb", b""))


@blind_case("raw_load_mesh_garbage_obj", "load_mesh", r"\.obj|pars|read|no (faces|mesh)|empty", kind=KIND)
def _():
    import smrnb

    smrnb.load_mesh(user_file(tmp() / "scan.obj", bytes(range(256)) * 64))


@blind_case("raw_load_mesh_truncated_glb", "load_mesh", r"\.glb|truncat|corrupt|read|pars", kind=KIND)
def _():
    import smrnb

    smrnb.export_mesh(mesh_sphere(3), tmp() / "whole.glb")
    data = (tmp() / "whole.glb").read_bytes()
    smrnb.load_mesh(user_file(tmp() / "scan.glb", data[: len(data) // 2]))


@blind_case("raw_load_mesh_on_a_folder", "load_mesh", r"folder|director", kind=KIND)
def _():
    import smrnb

    (tmp() / "scan.ply").mkdir()
    smrnb.load_mesh(tmp() / "scan.ply")


@blind_case("raw_load_mesh_unknown_suffix", "load_mesh", r"fbx|format|suffix", kind=KIND)
def _():
    import smrnb

    smrnb.load_mesh(user_file(tmp() / "scan.fbx", b"Kaydara FBX Binary  \x00\x1a\x00"))


@blind_case("raw_intrinsic_json_zero_bytes", "datasets.read_intrinsic_json", r"empty|0 bytes|no data", kind=KIND)
def _():
    import smrnb.datasets

    smrnb.datasets.read_intrinsic_json(user_file(tmp() / "camera.json", b""))


@blind_case("raw_intrinsic_json_deep_nesting", "datasets.read_intrinsic_json", r"json|intrinsic|camera|nest|deep",
            kind=KIND, timeout=30)
def _():
    import smrnb.datasets

    smrnb.datasets.read_intrinsic_json(user_file(tmp() / "camera.json", "[" * 200_000 + "]" * 200_000))


@blind_case("raw_intrinsic_json_huge_matrix", "datasets.read_intrinsic_json", r"intrinsic_matrix|9 (numbers|values)", kind=KIND,
            timeout=30)
def _():
    import smrnb.datasets

    body = '{"width": 640, "height": 480, "intrinsic_matrix": [' + ", ".join(["1.5"] * 2_000_000) + "]}"
    smrnb.datasets.read_intrinsic_json(user_file(tmp() / "camera.json", body))


def _load_config_text(text: str | bytes):
    import smrnb.pipeline

    return smrnb.pipeline.load_config(user_file(tmp() / "scan.yaml", text))


@blind_case("raw_config_zero_bytes", "pipeline.load_config", r"empty|0 bytes|no data", kind=KIND)
def _():
    _load_config_text(b"")


@blind_case("raw_config_tab_indentation", "pipeline.load_config", r"line|tab|indent|yaml", kind=KIND)
def _():
    _load_config_text("source: sample\nsteps:\n\t- step: tsdf\n")


@blind_case("raw_config_not_a_mapping", "pipeline.load_config", r"mapping|dict|source|steps|scan\.yaml", kind=KIND)
def _():
    _load_config_text("- tsdf\n- extract_mesh\n")


@blind_case("raw_config_yaml_alias_bomb", "pipeline.load_config", OK, kind=KIND, timeout=30, mem_gib=2.0)
def _():
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    text = "\n".join(lines) + "\nsource: sample\nsteps:\n  - step: tsdf\n    params: {voxel_size: *a9}\n"

    def check(cfg):
        return "an alias bomb was accepted as a config"

    either(lambda: _load_config_text(text), check, r"a0|a9|voxel_size|unknown|alias|key", "a YAML alias bomb")


def _png_header_only(path, w: int, h: int) -> None:
    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 16, 0, 0, 0, 0)
    idat = zlib.compress((b"\x00" + b"\x00" * (2 * w)) * 2)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


@blind_case("raw_redwood_decompression_bomb", "load_redwood", r"\.png|large|pixels|size|bomb", kind=KIND,
            mem_gib=2.0, timeout=60)
def _():
    import smrnb

    d = redwood_copy(2)
    _png_header_only(sorted((d / "depth").iterdir())[1], 40_000, 40_000)
    smrnb.load_redwood(d)


@blind_case("raw_redwood_truncated_depth_png", "load_redwood", r"\.png|truncat|corrupt|read|decod", kind=KIND)
def _():
    import smrnb

    d = redwood_copy(2)
    p = sorted((d / "depth").iterdir())[1]
    p.write_bytes(p.read_bytes()[:4000])
    smrnb.load_redwood(d)


@blind_case("raw_redwood_corrupt_jpeg", "load_redwood", r"\.jpg|corrupt|read|decod|identify|image", kind=KIND)
def _():
    import smrnb

    d = redwood_copy(2)
    p = sorted((d / "image").iterdir())[0]
    p.write_bytes(b"\xff\xd8\xff\xe0" + os.urandom(3000))
    smrnb.load_redwood(d)


@blind_case("raw_redwood_junk_files_beside_frames", "load_redwood", OK, kind=KIND)
def _():
    import smrnb

    d = redwood_copy(2)
    user_file(d / "depth" / ".DS_Store", b"\x00\x00\x00\x01Bud1" + os.urandom(200))
    user_file(d / "image" / "Thumbs.db", os.urandom(300))
    user_file(d / "depth" / "notes.txt", "depth from the sensor, mm")

    def check(fr):
        return None if len(fr.names) == 2 else f"{len(fr.names)} frames from 2 depth images and junk"

    either(lambda: smrnb.load_redwood(d), check, r"DS_Store|Thumbs|notes\.txt", "load_redwood beside junk files")


@blind_case("raw_redwood_empty_folders", "load_redwood", r"depth|no (depth|frames|images)|empty", kind=KIND)
def _():
    import smrnb

    d = tmp() / "empty"
    (d / "depth").mkdir(parents=True)
    (d / "image").mkdir()
    smrnb.load_redwood(d)


@blind_case("raw_tum_missing_depth_image", "load_tum", r"1\.0\.png|depth|missing|not exist|no such", kind=KIND)
def _():
    import smrnb
    from tests.audit._cases import tum_folder

    root = tum_folder()
    (root / "depth" / "1.0.png").unlink()
    smrnb.load_tum(root, intrinsics=(50.0, 50.0, 31.5, 23.5))


# --------------------------------------------------------------------------------------- doctor

@blind_case("raw_explain_bytes", "explain", OK, kind=KIND)
def _():
    import smrnb

    text = b"ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"

    def check(report):
        return None if "cudart_not_found" in report.codes else f"bytes explained as {report.codes}"

    either(lambda: smrnb.explain(text, live=False), check, r"text|str|bytes", "explain(bytes)")


@blind_case("raw_diagnose_unknown_layer", "diagnose", r"gpu|layer", kind=KIND)
def _():
    import smrnb

    smrnb.diagnose(layers=["gpu"])


@blind_case("raw_diagnose_nan_timeout", "diagnose", r"timeout", kind=KIND)
def _():
    import smrnb

    smrnb.diagnose(layers=["driver"], timeout=float("nan"))


@blind_case("raw_explain_unknown_error_called_fine", "cli", kind=KIND)
def _():
    text = "Segmentation fault (core dumped)\npython train.py exited with code 139"
    ran = cli("smr-doctor", "explain", "--offline", input=text, timeout=60)
    no_traceback(ran, "smr-doctor explain (unknown error)")
    says_unknown = r"not recogni[sz]|unknown|no known|did not match|didn't match|no finding|could not tell|" \
                   r"nothing (known|matched)|not one the doctor knows"
    import re

    if ran.rc == 0 and not re.search(says_unknown, ran.out, re.I):
        raise AuditMisleading(f"smr-doctor explain calls an unknown crash fine (exit 0):\n{ran.out[-600:]}")


@blind_case("raw_cli_invalid_utf8_stdin", "cli", kind=KIND)
def _():
    data = b"\xff\xfe\xc3(" + b"ImportError: libcudart.so.11.0: cannot open shared object file: No such file or " \
                               b"directory\n\xed\xa0\x80"
    ran = cli("smr-doctor", "explain", "--offline", input=data, timeout=60)
    no_traceback(ran, "smr-doctor explain with invalid UTF-8")
    if "cudart_not_found" not in ran.out:
        raise AuditMisleading(f"smr-doctor explain lost the error in invalid UTF-8 input (exit {ran.rc}):\n"
                              f"{ran.both[-600:]}")


def _ascii_env() -> dict:
    return {"PYTHONIOENCODING": "ascii", "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"}


@blind_case("raw_cli_ascii_doctor", "cli", kind=KIND, timeout=90)
def _():
    ran = cli("smr-doctor", env=_ascii_env(), timeout=80)
    no_traceback(ran, "smr-doctor under PYTHONIOENCODING=ascii")
    if ran.rc not in (0, 1) or "torch" not in ran.out.lower():
        raise AuditRaw(f"smr-doctor under an ASCII terminal: exit {ran.rc}, no readable report:\n{ran.both[-600:]}")


@blind_case("raw_cli_ascii_explain", "cli", kind=KIND)
def _():
    ran = cli("smr-doctor", "explain", "--offline", "ImportError: libcudart.so.11.0: cannot open shared object file: "
              "No such file or directory", env=_ascii_env(), timeout=60)
    no_traceback(ran, "smr-doctor explain under PYTHONIOENCODING=ascii")
    if "cudart_not_found" not in ran.out:
        raise AuditRaw(f"smr-doctor explain under an ASCII terminal printed no diagnosis (exit {ran.rc}):\n"
                       f"{ran.both[-600:]}")


@blind_case("raw_cli_ascii_steps", "cli", kind=KIND)
def _():
    ran = cli("smrnb", "steps", env=_ascii_env(), timeout=60)
    no_traceback(ran, "smrnb steps under PYTHONIOENCODING=ascii")
    if ran.rc != 0 or "voxel" not in ran.out or "tsdf" not in ran.out:
        raise AuditRaw(f"smrnb steps under an ASCII terminal: exit {ran.rc}:\n{ran.both[-600:]}")


@blind_case("raw_cli_ascii_run", "cli", kind=KIND, timeout=120)
def _():
    d = tmp() / "asc"
    cfg = small_config(tmp() / "cfg")
    ran = cli("smrnb", "run", str(cfg), "--output", str(d), env=_ascii_env(), timeout=110)
    no_traceback(ran, "smrnb run under PYTHONIOENCODING=ascii")
    if ran.rc != 0 or not (d / "mesh.glb").exists():
        raise AuditRaw(f"smrnb run under an ASCII terminal: exit {ran.rc}:\n{ran.both[-600:]}")


@blind_case("raw_cli_doctor_timeout_zero", "cli", kind=KIND)
def _():
    ran = cli("smr-doctor", "--timeout", "0", timeout=60)
    refused(ran, r"timeout", "smr-doctor --timeout 0")
    if ran.rc != 2:
        raise AuditMisleading(f"smr-doctor --timeout 0: exit {ran.rc}, documented usage error is 2")


@blind_case("raw_cli_doctor_unknown_layer", "cli", kind=KIND)
def _():
    ran = cli("smr-doctor", "--layer", "gpu", timeout=60)
    refused(ran, r"gpu|layer", "smr-doctor --layer gpu")
    if ran.rc != 2:
        raise AuditMisleading(f"smr-doctor --layer gpu: exit {ran.rc}, documented usage error is 2")


# ------------------------------------------------------------------------------------ smrnb run

def _slow_config(folder, path="mesh.glb"):
    # 1 cm voxels: about 4 s of steps on a 2-core machine. With 2 cm the steps took under a second, and a Ctrl-C sent
    # 0.3 s into the TSDF could land after the run had returned, while Python shut down (the run's own status then)
    text = ("source: {path: sample, stride: 4, max_frames: 18}\nsteps:\n  - step: tsdf\n"
            "    params: {voxel_size: 0.01}\n  - step: extract_mesh\n  - step: simplify\n"
            "    params: {target_number_of_vertices: 3000}\n  - step: export\n    params: {path: PATH}\n")
    return small_config(folder, path, text=text)


@blind_case("raw_cli_sigint_during_run", "cli", kind=KIND, timeout=120)
def _():
    d = tmp() / "intr"
    user_file(d / "notes.txt", "mine")
    before = snapshot(d)
    cfg = _slow_config(tmp() / "cfg")
    env = dict(os.environ)
    env.pop("SMRNB_AUDIT_TMP", None)
    # SIGINT's default restored in the child: a suite started in the background of a non-interactive shell ignores
    # SIGINT, the child would inherit that and never see the Ctrl-C
    p = subprocess.Popen([*_command("smrnb"), "run", str(cfg), "--output", str(d)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0, seen = time.monotonic(), b""
    os.set_blocking(p.stderr.fileno(), False)
    while p.poll() is None and time.monotonic() - t0 < 60:
        seen += p.stderr.read() or b""
        if b"tsdf" in seen:
            break
        time.sleep(0.01)
    time.sleep(0.3)
    if p.poll() is not None:
        raise AuditRaw(f"the run ended before Ctrl-C could be sent (exit {p.returncode}); make the config slower")
    os.killpg(p.pid, signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        from tests.audit._cases import AuditHang

        raise AuditHang("smrnb run did not stop within 30 s of Ctrl-C") from None
    err_text = (seen + err).decode(errors="replace")
    if "Traceback (most recent call last)" in err_text + out.decode(errors="replace"):
        raise AuditRaw(f"Ctrl-C during smrnb run printed a traceback:\n{err_text[-1200:]}")
    if p.returncode != 130:
        raise AuditMisleading(f"Ctrl-C during smrnb run: exit {p.returncode}, expected 130:\n{err_text[-600:]}")
    import re

    last = [line for line in re.split(r"[\r\n]", err_text) if line.strip()][-1:]
    if not last or not re.search(r"interrupt|stopp|cancel|kept|nothing", last[0], re.I):
        raise AuditMisleading(f"Ctrl-C during smrnb run: the last line does not say what happened: {last}")
    after = snapshot(d)
    stray = [k for k in after if k not in before]
    if stray:
        raise AuditLost(f"Ctrl-C during smrnb run left {stray} in the output folder")


@blind_case("raw_cli_bad_export_suffix_refused_first", "cli", kind=KIND, timeout=120)
def _():
    d = tmp() / "suffix"
    cfg = small_config(tmp() / "cfg", path="mesh.fbx")
    ran = cli_until("smrnb", "run", str(cfg), "--output", str(d), marker=b"running tsdf", timeout=110)
    if ran is None:
        raise AuditMisleading("smrnb run started the steps before refusing the export path mesh.fbx")
    refused(ran, r"fbx|suffix|format", "smrnb run with an export path mesh.fbx")


@blind_case("raw_cli_step_export_bad_suffix", "cli", kind=KIND)
def _():
    import smrnb

    src = tmp() / "s.ply"
    smrnb.export_mesh(mesh_sphere(2), src)
    ran = cli("smrnb", "step", "export", "--input", str(src), "--output", str(tmp() / "out.xyz"), timeout=60)
    refused(ran, r"xyz|suffix|format", "smrnb step export --output out.xyz")
    if (tmp() / "out.xyz").exists():
        raise AuditSilent("smrnb step export wrote out.xyz while refusing it")


@blind_case("raw_cli_run_missing_config", "cli", kind=KIND)
def _():
    ran = cli("smrnb", "run", str(tmp() / "nope.yaml"), timeout=60)
    refused(ran, r"nope\.yaml", "smrnb run nope.yaml")


@blind_case("raw_cli_run_missing_source", "cli", kind=KIND)
def _():
    cfg = small_config(tmp() / "cfg", text=CONFIG.replace("path: sample", "path: /nonexistent/scan42"))
    ran = cli("smrnb", "run", str(cfg), "--output", str(tmp() / "o"), timeout=60)
    refused(ran, r"scan42", "smrnb run with a missing source folder")
    if ran.seconds > 10:
        raise AuditMisleading(f"the missing source was found only after {ran.seconds:.1f} s")


@blind_case("raw_cli_run_cuda_without_gpu", "cli", kind=KIND)
def _():
    import torch

    if torch.cuda.is_available():  # the case is about a machine without CUDA
        return
    cfg = small_config(tmp() / "cfg")
    ran = cli("smrnb", "run", str(cfg), "--output", str(tmp() / "o"), "--device", "cuda", timeout=90)
    refused(ran, r"cuda|gpu", "smrnb run --device cuda on a machine without a GPU")


@blind_case("raw_cli_run_until_unknown_stage", "cli", kind=KIND)
def _():
    cfg = small_config(tmp() / "cfg")
    ran = cli("smrnb", "run", str(cfg), "--output", str(tmp() / "o"), "--until", "tsdff", timeout=90)
    refused(ran, r"tsdff", "smrnb run --until tsdff")


@blind_case("raw_cli_batch_empty_folder", "cli", kind=KIND, timeout=120)
def _():
    (tmp() / "nocfg").mkdir()
    ran = cli("smrnb", "batch", str(tmp() / "nocfg"), "--output", str(tmp() / "res"), "--local", "1", timeout=110)
    refused(ran, r"yaml|config|nocfg|empty", "smrnb batch on a folder without configs")

