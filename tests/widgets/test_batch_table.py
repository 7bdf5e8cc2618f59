# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``BatchTable``: a batch's scans in a notebook table, updated in place as they finish, with thumbnails."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("distributed", reason="dask.distributed is not installed (the cluster extra)")

import smrnb
from smrnb.pipeline._batch import ScanResult
from smrnb.widgets import BatchTable

CONFIG = """source: {{path: sample, stride: 35{hold}}}
steps:
  - step: tsdf
    params: {{voxel_size: 0.05, depth_max: 3.0}}
  - step: extract_mesh
  - step: export
    params: {{path: mesh.ply}}
"""


def not_blank(png: bytes) -> float:
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return float((np.abs(img - 255).sum(-1) > 30).mean())  # share of pixels that are not the white background


@pytest.mark.slow
def test_a_real_batch_fills_the_table_with_status_counts_errors_and_thumbnails(tmp_path, monkeypatch):
    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "never")  # the live widget, as in JupyterLab
    cfg = tmp_path / "configs"
    cfg.mkdir()
    (cfg / "room.yaml").write_text(CONFIG.format(hold=", holdout: 2"))
    (tmp_path / "empty").mkdir()
    (cfg / "broken.yaml").write_text(CONFIG.format(hold="").replace("{path: sample, stride: 35}", "../empty"))
    table = BatchTable(thumb_size=(96, 72))
    box = table.widget  # on screen before the batch starts, as a notebook shows it
    res = table.run([cfg], tmp_path / "out", local=1)
    assert {s.scan: s.status for s in res.scans} == {"broken": "failed", "room": "done"}
    assert set(table.pngs) == {"room"} and not table.thumb_errors
    assert not_blank(table.pngs["room"]) > 0.05
    rows = box.children[2:]  # header text, column titles, then one row per scan
    assert len(rows) == 2
    cells = {r.children[1].value.split(">")[1].split("<")[0]: r for r in rows}
    room, broken = cells["room"].children, cells["broken"].children
    assert room[0].value == table.pngs["room"] and "done" in room[2].value
    assert "mm median" in room[8].value  # the held-out depth error column
    assert "failed" in broken[2].value and "is not a Redwood" in broken[9].value  # the error, in the row
    assert room[3].value.endswith("></span>")  # the GPU column: a CPU worker ran it
    assert "1 done" in box.children[0].value and "1 failed" in box.children[0].value
    html = table.to_html()
    assert html.count("<img") == 1 and "failed" in html and "mm median" in html


def test_updates_change_the_shown_rows_in_place(tmp_path, monkeypatch):
    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "never")
    import trimesh

    folder = tmp_path / "a"
    folder.mkdir()
    trimesh.creation.icosphere(subdivisions=3).export(folder / "mesh.ply")
    table = BatchTable()
    table.start([ScanResult("a", "a.yaml", "queued"), ScanResult("b", "b.yaml", "queued")])
    box = table.widget
    row_a = box.children[2]
    assert "queued" in row_a.children[2].value and row_a.children[0].value == b""
    table.update(ScanResult("a", "a.yaml", "done", str(folder), {"frames": 9, "vertices": 642, "faces": 1280}, 1.5,
                            ["mesh.ply"], heldout={"n_frames": 2, "median_abs_error": 0.0042, "coverage": 0.97},
                            gpu="1: NVIDIA H200", worker="gpu1"))
    assert box.children[2] is row_a  # the same row widget, changed in place
    assert "done" in row_a.children[2].value and "642" in row_a.children[6].value
    assert ">1: NVIDIA H200<" in row_a.children[3].value  # which GPU ran the scan
    assert "4.20 mm median (2 frames, 97 % covered)" in row_a.children[8].value
    assert not_blank(row_a.children[0].value) > 0.05
    assert "1 done, 1 queued" in box.children[0].value


def test_without_a_live_front_end_the_table_is_html_with_inline_thumbnails(tmp_path, monkeypatch):
    import trimesh

    monkeypatch.setenv("SMRNB_STATIC_PICTURES", "always")
    folder = tmp_path / "a"
    folder.mkdir()
    trimesh.creation.box().export(folder / "m.glb")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "m.ply").write_bytes(b"ply\nnot really\n")
    table = BatchTable()
    table.start([ScanResult("a", "a.yaml", "skipped", str(folder), outputs=["m.glb"]),
                 ScanResult("b", "b.yaml", "skipped", str(tmp_path / "b"), outputs=["m.ply"])])
    bundle = table._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    assert bundle["text/html"].count("data:image/png;base64,") == 1 and "complete from an earlier run" in \
        bundle["text/html"]
    assert "b" in table.thumb_errors  # a broken mesh file costs its thumbnail, never the table


def test_bad_arguments():
    with pytest.raises(smrnb.SmrnbValueError, match="thumb_size must be"):
        BatchTable(thumb_size=(8, 8))
    with pytest.raises(smrnb.SmrnbValueError, match="'progress' is the table itself"):
        BatchTable().run(["x"], "o", progress=False)
