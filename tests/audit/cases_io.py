# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Audit cases of mesh files and dataset readers, the doctor, the pipeline and the widgets."""

from __future__ import annotations

import math

from tests.audit._cases import OK, case, copy_sample, sphere, tmp, tum_folder, uv_sphere


def _s():
    import smrnb

    return smrnb


# ------------------------------------------------------------------------------------ export_mesh

def _bad_faces(value):
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = value
    return m.replace(faces=f)


for _fmt in ("glb", "ply", "obj"):
    for _label, _value in (("negative", -1), ("out_of_range", 10 ** 6)):
        def _make(fmt, value):
            def run():
                p = tmp() / f"bad.{fmt}"
                try:
                    _s().export_mesh(_bad_faces(value), p)
                finally:
                    assert not p.exists(), f"{p} was written"
            return run
        case(f"export_{_label}_face_{_fmt}", ("export_mesh",), r"mesh.faces must index")(
            _make(_fmt, _value))


@case("export_nan_uvs", ("export_mesh",), r"mesh.uvs must be finite")
def _():
    m = uv_sphere()
    uvs = m.uvs.clone()
    uvs[3, 1] = math.nan
    _s().export_mesh(m.replace(uvs=uvs), tmp() / "x.glb")


@case("export_bad_face_uvs_idx", ("export_mesh",), r"mesh.face_uvs_idx must index")
def _():
    m = uv_sphere()
    fuv = m.face_uvs_idx.clone()
    fuv[0, 0] = -7
    _s().export_mesh(m.replace(face_uvs_idx=fuv), tmp() / "x.glb")


@case("export_to_directory", ("export_mesh",), r"path .* is a folder")
def _():
    d = tmp() / "folder.glb"
    d.mkdir(exist_ok=True)
    _s().export_mesh(sphere(1), d)


@case("export_under_a_file", ("export_mesh",), r"is a file, not a folder")
def _():
    f = tmp() / "plain.txt"
    f.write_text("x")
    _s().export_mesh(sphere(1), f / "sub" / "x.glb")


@case("export_unwritable_place", ("export_mesh",), r"cannot be written|does not accept")
def _():
    _s().export_mesh(sphere(1), "/proc/smrnb-audit/x.glb")


@case("export_none_path", ("export_mesh",), r"path must be a str")
def _():
    _s().export_mesh(sphere(1), None)


@case("export_bad_format", ("export_mesh",), r"format must be one of")
def _():
    _s().export_mesh(sphere(1), tmp() / "x.stl")


@case("export_replaces_and_says_so", ("export_mesh",), OK)
def _():
    p = tmp() / "again.glb"
    r1 = _s().export_mesh(sphere(1), p)
    r2 = _s().export_mesh(sphere(2), p)
    assert r1.replaced == () and r2.replaced == (str(p),), (r1, r2)
    assert not [q for q in p.parent.iterdir() if q.name.endswith(".tmp")]


@case("export_round_trip_obj_textured", ("export_mesh", "load_mesh"), OK)
def _():
    import torch

    m = uv_sphere()
    p = tmp() / "rt" / "m.obj"
    rep = _s().export_mesh(m, p)
    back = _s().load_mesh(p)
    assert rep.textured and back.num_faces == m.num_faces
    assert torch.allclose(back.vertices[back.faces].mean(1), m.vertices[m.faces].mean(1), atol=1e-5)


# ------------------------------------------------------------------------------------ load_mesh

@case("load_mesh_none", ("load_mesh",), r"path must be a str")
def _():
    _s().load_mesh(None)


@case("load_mesh_nan_obj", ("load_mesh",), r"not finite.*vertex 2")
def _():
    p = tmp() / "nan.obj"
    p.write_text("v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n")
    _s().load_mesh(p)


@case("load_mesh_bad_face_obj", ("load_mesh",), r"faces of .* must index|could not be read|holds no")
def _():
    p = tmp() / "badf.ply"
    p.write_text("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n")
    _s().load_mesh(p)


@case("load_mesh_directory", ("load_mesh",), r"path must be a mesh file, got the folder")
def _():
    _s().load_mesh(tmp())


@case("load_mesh_garbage", ("load_mesh",), r"could not be read as a mesh|holds no|not a triangle")
def _():
    p = tmp() / "g.glb"
    p.write_bytes(b"\x00\xff" * 100)
    _s().load_mesh(p)


# ------------------------------------------------------------------------------------ datasets

TUM_K = (50.0, 50.0, 31.5, 23.5)  # for the 64x48 images of tum_folder()

@case("redwood_8bit_depth_png", ("load_redwood",), r"8-bit")
def _():
    import numpy as np
    from PIL import Image

    root = copy_sample(2)
    for p in (root / "depth").iterdir():
        Image.fromarray((np.random.rand(480, 640) * 255).astype(np.uint8)).save(p)
    _s().load_redwood(root)


@case("redwood_8bit_values_in_16bit_png", ("load_redwood",), r"8-bit data in a 16-bit PNG")
def _():
    import numpy as np
    from PIL import Image

    root = copy_sample(2)
    for p in (root / "depth").iterdir():
        Image.fromarray((np.random.rand(480, 640) * 255).astype(np.uint16)).save(p)
    _s().load_redwood(root)


@case("redwood_non_utf8_trajectory", ("load_redwood",), r"trajectory .* is not UTF-8")
def _():
    root = copy_sample(2)
    (root / "trajectory.log").write_bytes(b"0 0 1\n\xff\xfe 1 0 0\n")
    _s().load_redwood(root)


@case("redwood_scaled_pose", ("load_redwood",), r"not orthonormal.*trajectory.log lines 2-4, frame id 0")
def _():
    root = copy_sample(2)
    lines = (root / "trajectory.log").read_text().splitlines()
    lines[1] = " ".join(str(3 * float(x)) for x in lines[1].split())
    (root / "trajectory.log").write_text("\n".join(lines) + "\n")
    _s().load_redwood(root)


@case("redwood_last_row_1234", ("load_redwood",), r"last row.*trajectory.log line 5, frame id 0")
def _():
    root = copy_sample(2)
    lines = (root / "trajectory.log").read_text().splitlines()
    lines[4] = "1 2 3 4"
    (root / "trajectory.log").write_text("\n".join(lines) + "\n")
    _s().load_redwood(root)


@case("redwood_nan_pose", ("load_redwood",), r"finite.*trajectory.log line 2, frame id 0")
def _():
    root = copy_sample(2)
    lines = (root / "trajectory.log").read_text().splitlines()
    lines[1] = "nan 0 0 0"
    (root / "trajectory.log").write_text("\n".join(lines) + "\n")
    _s().load_redwood(root)


@case("redwood_nan_intrinsics", ("load_redwood",), r"intrinsics")
def _():
    _s().load_redwood(copy_sample(2), intrinsics=(math.nan, 525, 319.5, 239.5))


@case("redwood_missing", ("load_redwood",), r"does not exist")
def _():
    _s().load_redwood(tmp() / "nope")


@case("tum_non_utf8_list", ("load_tum",), r"depth list .* is not UTF-8")
def _():
    root = tum_folder()
    (root / "depth.txt").write_bytes(b"# \xff\xfe\n1.0 depth/1.0.png\n")
    _s().load_tum(root, intrinsics=TUM_K)


@case("tum_non_numeric_ground_truth", ("load_tum",), r"ground truth .* must hold 7 numbers")
def _():
    _s().load_tum(tum_folder("1.0 0 0 one 0 0 0 1"), intrinsics=TUM_K)


@case("tum_zero_quaternion", ("load_tum",), r"finite.*groundtruth.txt line 2, .*a zero quaternion")
def _():
    _s().load_tum(tum_folder("1.0 0 0 1 0 0 0 0"), intrinsics=TUM_K)


@case("tum_nan_translation", ("load_tum",), r"finite.*groundtruth.txt line 2")
def _():
    _s().load_tum(tum_folder("1.0 nan 0 1 0 0 0 1"), intrinsics=TUM_K)


@case("tum_good", ("load_tum",), OK)
def _():
    f = _s().load_tum(tum_folder(), intrinsics=TUM_K)
    assert len(f) == 1 and abs(float(f.depth.max()) - 1.0) < 1e-6


@case("sevenscenes_empty_folder", ("load_7scenes",), r"load_7scenes")
def _():
    d = tmp() / "seven"
    d.mkdir(exist_ok=True)
    _s().load_7scenes(d)


@case("sevenscenes_scaled_pose", ("load_7scenes",), r"rigid.*frame-000000.pose.txt line 4")
def _():
    import numpy as np
    from PIL import Image

    d = tmp() / "seven2"
    d.mkdir(exist_ok=True)
    Image.fromarray(np.full((48, 64), 1000, np.uint16)).save(d / "frame-000000.depth.png")
    Image.fromarray(np.zeros((48, 64, 3), np.uint8)).save(d / "frame-000000.color.png")
    np.savetxt(d / "frame-000000.pose.txt", np.eye(4) * 5)
    _s().load_7scenes(d, intrinsics=(50, 50, 32, 24))


@case("load_sample_bad_stride", ("load_sample",), r"stride")
def _():
    _s().load_sample(stride=0)


# ------------------------------------------------------------------------------------ pipeline, doctor, widgets

@case("get_step_unknown", ("get_step",), r"banana")
def _():
    _s().get_step("banana")


@case("list_steps_ok", ("list_steps",), OK)
def _():
    assert len(_s().list_steps()) > 5


@case("pipeline_unknown_param", ("Pipeline",), r"voxel_sizee|no parameter")
def _():
    _s().Pipeline([("tsdf", {"voxel_sizee": 0.1})], source="sample")


@case("diagnose_bad_layer", ("diagnose",), r"layer", timeout=120)
def _():
    _s().diagnose(layers=["banana"])


@case("explain_not_text", ("explain",), r"text")
def _():
    _s().explain(12345, live=False)


@case("explain_huge_text", ("explain",), OK, timeout=120)
def _():
    r = _s().explain("ImportError: undefined symbol " + "x" * 5_000_000, live=False)
    assert r is not None


@case("report_bad_findings", ("Report",), r"finding")
def _():
    _s().Report({}, [object()])


@case("viewer_bad_data", ("Viewer",), r"data")
def _():
    _s().Viewer(data=object())


@case("stepwidget_unknown_step", ("StepWidget",), r"banana|step")
def _():
    _s().StepWidget("banana")


@case("app_missing_config", ("ReconstructionApp",), r"config")
def _():
    _s().ReconstructionApp(config=tmp() / "missing.yaml")


@case("doctorview_bad_report", ("DoctorView",), r"report")
def _():
    _s().DoctorView(report=42)


@case("load_ipython_extension_none", ("load_ipython_extension", "unload_ipython_extension"), r"ipython|IPython")
def _():
    _s().load_ipython_extension(None)


@case("memory_estimate_error_fields", ("MemoryEstimateError",), OK)
def _():
    e = _s().MemoryEstimateError("x", estimate_bytes=10, budget_bytes=5, knob="voxel_size")
    assert isinstance(e, ValueError) and e.knob == "voxel_size"


# ------------------------------------------------------------------------------- batch and cluster

@case("batch_missing_config", ("batch",), r"configs: .* is neither a config file nor a folder of them")
def _():
    _s().batch([tmp() / "nope.yaml"], tmp() / "out")


@case("batch_bad_workers_and_device", ("batch",), r"local must be an int >= 1 \(workers\), got -3")
def _():
    p = tmp() / "c.yaml"
    p.write_text("source: sample\nsteps: [tsdf]\n")
    _s().batch([p], tmp() / "out", local=-3)


@case("batch_hostile_yaml", ("batch",), r"alias|expand|values")
def _():
    p = tmp() / "bomb.yaml"
    p.write_text("a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                 "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                 "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n")
    _s().batch([p], tmp() / "out")


@case("diagnose_cluster_not_a_client", ("diagnose_cluster",), r"client must be a distributed.Client, got str")
def _():
    _s().diagnose_cluster("tcp://127.0.0.1:9")


@case("batchtable_bad_thumb_size", ("BatchTable",), r"thumb_size must be \(width, height\), ints in \[16, 1024\], got \(0, -5\)")
def _():
    _s().BatchTable(thumb_size=(0, -5))


@case("batchtable_corrupt_mesh_and_hostile_names", ("BatchTable",), OK)
def _():
    # a finished scan whose mesh is garbage and whose name and error carry markup: the table records
    # the thumbnail's failure, keeps every row, and escapes what it shows
    from smrnb.pipeline._batch import ScanResult

    folder = tmp() / "scan"
    folder.mkdir()
    (folder / "mesh.glb").write_bytes(b"\x00garbage" * 64)
    table = _s().BatchTable()
    bad = ScanResult(scan="<script>x</script>", config="c.yaml", status="done", folder=str(folder),
                     outputs=["mesh.glb"], counts={"vertices": 3})
    failed = ScanResult(scan="b", config="b.yaml", status="failed", error="<img src=x onerror=alert(1)>")
    table.start([bad, failed])
    table.update(bad)
    table.update(failed)
    assert "could not be read as a mesh" in table.thumb_errors.get(bad.scan, "") and bad.scan not in table.pngs, \
        table.thumb_errors
    page = table.to_html()
    assert "<script>" not in page and "<img src=x" not in page, page
    assert table.summary() == "1 done, 1 failed", table.summary()
