# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Config files: round trip, unknown keys, schema; one registry feeds CLI flags, schema, docs and widgets."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
import yaml

from smrnb import SmrnbError, SmrnbTypeError, SmrnbValueError
from smrnb.pipeline import (
    ParamSpec,
    Pipeline,
    Step,
    StepRegistry,
    config_schema,
    default_config_path,
    dump_config,
    get_step,
    list_steps,
    load_config,
    validate_config,
)
from smrnb.pipeline._docs import render_markdown
from smrnb.pipeline.cli import build_parser


def ident(pc, **kw):
    return pc


def _reg(extra: tuple[ParamSpec, ...] = ()) -> StepRegistry:
    return StepRegistry([
        Step("denoise", ident, "drop noisy points", ("points",), "points",
             (ParamSpec("radius", 0.05, "float", (0.001, 1.0), unit="m", help="neighbourhood radius", log_scale=True),
              ParamSpec("min_neighbours", 4, "int", (1, 64)),
              ParamSpec("method", "radius", "choice", choices=("radius", "statistical")),
              ParamSpec("keep_colors", True, "bool"),
              ParamSpec("max_points", None, "int", (1, 10**9)),
              *extra)),
        Step("save", ident, "write points", ("points",), "file", (ParamSpec("path", "out.ply", "path"),)),
    ])


def test_to_config_round_trips_through_yaml(tmp_path):
    reg = _reg()
    p = Pipeline([("denoise", {"radius": 0.1, "method": "statistical", "max_points": 1000}),
                  {"step": "denoise", "name": "again", "params": {"keep_colors": False}},
                  ("save", {"path": "x.ply"})], source="sample", device="cpu", registry=reg)
    cfg = p.to_config()
    assert cfg == {"source": "sample", "device": "cpu", "steps": [
        {"step": "denoise", "params": {"radius": 0.1, "method": "statistical", "max_points": 1000}},
        {"step": "denoise", "name": "again", "params": {"keep_colors": False}},
        {"step": "save", "params": {"path": "x.ply"}}]}
    path = p.save_config(tmp_path / "c.yaml")
    text = path.read_text()
    assert "radius: 0.1    # m, default 0.05 m" in text
    back = Pipeline.from_config(path, registry=reg)
    assert back.to_config() == cfg
    assert back.names == ["denoise", "again", "save"]
    assert back.params("denoise") == {"radius": 0.1, "min_neighbours": 4, "method": "statistical",
                                      "keep_colors": True, "max_points": 1000}
    assert yaml.safe_load(text)["steps"][1] == {"step": "denoise", "name": "again", "params": {"keep_colors": False}}


def test_mapping_source_round_trips(tmp_path):
    p = Pipeline(["tsdf"], source={"path": "sample", "stride": 5})
    cfg = p.to_config()
    assert cfg["source"] == {"path": "sample", "stride": 5}
    (tmp_path / "c.yaml").write_text(dump_config(cfg))
    assert Pipeline.from_config(tmp_path / "c.yaml").to_config() == cfg
    with pytest.raises(SmrnbValueError, match=r"source has unknown key\(s\) 'strid'; allowed: path, stride, max_frames"):
        Pipeline(["tsdf"], source={"path": "sample", "strid": 5})
    with pytest.raises(SmrnbValueError, match=r"source 'stride' must be an int >= 1, got 0"):
        Pipeline(["tsdf"], source={"path": "sample", "stride": 0})


def test_default_demo_config_is_valid_and_round_trips():
    cfg = load_config(default_config_path())
    p = Pipeline.from_config(cfg)
    assert p.names[0] == "tsdf" and p.stages[-1].step.output == "file"
    assert p.names == ["tsdf", "extract_mesh", "fill_holes", "simplify", "uv", "texture", "export"]
    back = Pipeline.from_config(p.to_config())
    assert [(s.name, s.params) for s in back.stages] == [(s.name, s.params) for s in p.stages]
    assert back.source == p.source == {"path": "sample", "stride": 5}


def test_unknown_keys_are_named(tmp_path):
    reg = _reg()
    with pytest.raises(SmrnbValueError, match=r"config has unknown key\(s\) 'sourc', 'stepz'; allowed: source"):
        validate_config({"sourc": "sample", "stepz": [], "steps": []}, reg)
    with pytest.raises(SmrnbValueError, match=r"config steps\[0\] has unknown key\(s\) 'parms'; allowed: step, name, params"):
        validate_config({"steps": [{"step": "denoise", "parms": {}}]}, reg)
    with pytest.raises(SmrnbValueError, match=r"step 'denoise' has no parameter\(s\) 'radiuss'; its parameters are: radius"):
        validate_config({"steps": [{"step": "denoise", "params": {"radiuss": 1}}]}, reg)
    with pytest.raises(SmrnbValueError, match=r"unknown step 'denoize'; registered steps: denoise, save"):
        validate_config({"steps": ["denoize"]}, reg)
    with pytest.raises(SmrnbValueError, match=r"step 'denoise' parameter 'radius' must be in \[0.001, 1\] m, got 5"):
        validate_config({"steps": [{"step": "denoise", "params": {"radius": 5}}]}, reg)
    with pytest.raises(SmrnbTypeError, match=r"config 'steps' must be a list, got dict"):
        validate_config({"steps": {"denoise": {}}}, reg)
    with pytest.raises(SmrnbValueError, match=r"config 'device' must be cpu, cuda or cuda:N, got 'gpu'"):
        validate_config({"device": "gpu", "steps": []}, reg)
    f = tmp_path / "bad.yaml"
    f.write_text("steps:\n  - step: denoise\n    params: {radius: [1, 2}\n")
    with pytest.raises(SmrnbValueError, match=r"config file .*bad.yaml' is not valid YAML"):
        load_config(f, reg)
    f.write_text("steps:\n  - step: denoise\n    params: {colour: 1}\n")
    with pytest.raises(SmrnbValueError, match=r"step 'denoise' has no parameter\(s\) 'colour'"):
        load_config(f, reg)


def test_schema_is_derived_from_specs():
    s = config_schema(_reg())
    variants = s["properties"]["steps"]["items"]["oneOf"]
    assert [v["properties"]["step"]["const"] for v in variants] == ["denoise", "save"]
    props = variants[0]["properties"]["params"]["properties"]
    assert props["radius"]["minimum"] == 0.001 and props["radius"]["maximum"] == 1.0 and props["radius"]["x-unit"] == "m"
    assert props["method"]["enum"] == ["radius", "statistical"]
    assert props["keep_colors"]["type"] == "boolean"
    assert props["max_points"]["type"] == ["integer", "null"]
    assert variants[0]["properties"]["params"]["additionalProperties"] is False
    assert s["additionalProperties"] is False
    # the real registry: every step and every parameter appears
    real = config_schema()
    names = [v["properties"]["step"]["const"] for v in real["properties"]["steps"]["items"]["oneOf"]]
    assert names == [st.name for st in list_steps()]


def _help_text(parser: argparse.ArgumentParser, argv: list[str]) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit) as ei:
        parser.parse_args(argv)
    assert ei.value.code == 0
    return buf.getvalue()


def test_a_new_spec_shows_up_in_every_generated_interface():
    new = ParamSpec("leaf_size", 16, "int", (2, 128), unit="points", help="kd-tree leaf size for the search")
    reg = _reg((new,))
    # CLI flag, with help, unit and range
    text = _help_text(build_parser(reg), ["step", "denoise", "--help"])
    assert "--leaf-size INT" in text and "kd-tree leaf size for the search" in " ".join(text.split())
    args = build_parser(reg).parse_args(["step", "denoise", "--input", "a.ply", "--output", "b.ply", "--leaf-size", "32"])
    assert args.param__leaf_size == 32
    # config schema and validation
    params = config_schema(reg)["properties"]["steps"]["items"]["oneOf"][0]["properties"]["params"]["properties"]
    assert params["leaf_size"] == {"description": new.describe(), "type": "integer", "minimum": 2, "maximum": 128,
                                   "default": 16, "x-unit": "points"}
    assert validate_config({"steps": [{"step": "denoise", "params": {"leaf_size": 8}}]}, reg)["steps"][0]["params"] == {"leaf_size": 8}
    # docs
    md = render_markdown(reg)
    assert "| `leaf_size` | `--leaf-size` | int | 16 points | [2, 128] | points | kd-tree leaf size for the search |" in md
    # widget control
    w = reg.get("denoise").param("leaf_size").widget()
    assert w["widget"] == "IntSlider" and (w["kwargs"]["min"], w["kwargs"]["max"], w["kwargs"]["value"]) == (2, 128, 16)
    # and without it, none of them mention it
    assert "leaf" not in render_markdown(_reg()) and "leaf" not in _help_text(build_parser(_reg()), ["step", "denoise", "--help"])


def test_cli_rejects_bad_values_with_exit_2(capsys):
    parser = build_parser(_reg())
    with pytest.raises(SystemExit) as ei:
        parser.parse_args(["step", "denoise", "--input", "a", "--output", "b", "--radius", "7"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "argument --radius: step 'denoise' parameter 'radius' must be in [0.001, 1] m, got 7.0" in err


def test_docs_page_matches_registry():
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "steps.md"
    assert page.is_file(), "docs/steps.md missing: run smrnb steps --format markdown > docs/steps.md"
    assert page.read_text() == render_markdown(), "docs/steps.md is stale: run smrnb steps --format markdown > docs/steps.md"


def test_real_steps_parameter_names_match_their_functions():
    """Drift check: every spec is a keyword of the function the step calls, with the same default
    where the step binds an adapter of this package."""
    import inspect

    for step in list_steps():
        try:
            fn = step.resolve()
        except SmrnbValueError as exc:  # a geometry module that is not there yet
            pytest.fail(f"step {step.name!r} cannot resolve its function: {exc}")
        sig = inspect.signature(fn)
        for spec in step.params:
            assert spec.name in sig.parameters, f"{step.name}: {fn.__qualname__} has no parameter {spec.name!r}"
            if fn.__module__ == "smrnb.pipeline._steps":
                assert sig.parameters[spec.name].default == spec.default, (step.name, spec.name)
    assert get_step("tsdf").memory_hungry


@pytest.mark.slow  # importing jsonschema alone takes ~2-7 s here (its format grammars)
def test_schema_accepts_what_validation_accepts_and_rejects_the_rest():
    """The generated JSON schema agrees with validate_config on real configs (jsonschema is a
    dependency of jupyterlab, so present wherever the lab extra is)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    good = yaml.safe_load(default_config_path().read_text())
    assert list(v.iter_errors(good)) == []
    validate_config(good)
    for bad in ({**good, "outputs": "x"},
                {**good, "steps": [{"step": "tsdf", "params": {"voxel_sise": 0.1}}]},
                {**good, "steps": [{"step": "tsdf", "params": {"voxel_size": 5.0}}]},
                {**good, "steps": [{"step": "fill_holes", "params": {"max_hole_edges": 2}}]},
                {**good, "source": {"path": "sample", "stride": 0}}):
        assert list(v.iter_errors(bad)), bad
        with pytest.raises(SmrnbValueError):
            validate_config(bad)
    ok_none = {**good, "steps": [{"step": "fill_holes", "params": {"max_hole_edges": None}}]}
    assert list(v.iter_errors(ok_none)) == [] and validate_config(ok_none)


def test_relative_paths_in_a_config_file_resolve_against_its_folder(tmp_path):
    import trimesh

    (tmp_path / "cfg").mkdir()
    trimesh.creation.box().export(tmp_path / "cfg" / "box.ply")
    f = tmp_path / "cfg" / "c.yaml"
    f.write_text("source: box.ply\noutput_dir: out\nsteps: [export]\n")
    cfg = load_config(f)
    assert cfg["source"] == str(tmp_path / "cfg" / "box.ply")
    assert cfg["output_dir"] == str(tmp_path / "cfg" / "out")
    f.write_text("source: {path: sample, stride: 3}\nsteps: [tsdf]\n")
    assert load_config(f)["source"] == {"path": "sample", "stride": 3}


def test_save_config_on_a_full_disk_keeps_the_old_file(tmp_path):
    from tests._fsize import SMRNB_ERROR_EXITS_3, run_with_file_size_limit

    old = tmp_path / "params.yaml"
    old.write_text("# the user's own config\n")
    code = ("import sys, smrnb\np = smrnb.Pipeline(steps=['tsdf', 'extract_mesh', ('export', {'path': 'm.glb'})], "
            "source='sample')\ntry:\n    p.save_config(sys.argv[1])\n" + SMRNB_ERROR_EXITS_3)
    r = run_with_file_size_limit(code, str(old), limit=60)
    assert r.returncode == 3 and "unchanged" in r.stdout, (r.stdout, r.stderr[-1500:])
    assert old.read_text() == "# the user's own config\n" and sorted(p.name for p in tmp_path.iterdir()) == ["params.yaml"]


@pytest.mark.parametrize("text,match", [
    ("", r"is empty \(0 bytes\)"),
    ("\n  \n", r"is empty"),
    ("# only a comment\n---\n", r"is empty \(only comments"),
    ("source: sample\nsteps:\n  - step: tsdf\n    params:\n      voxel_size: 0.01\n      voxel_size: 0.2\n",
     r"line 6: key 'voxel_size' appears twice in one mapping \(lines 5 and 6\)"),
    ("source: sample\nsource: other\nsteps: []\n", r"key 'source' appears twice"),
    ("source: sample\nsteps:\n  - step: fill_holes\n    params: {max_hole_edges: 010}\n",
     r"max_hole_edges: 010 is an octal number in YAML 1.1 \(= 8\); write it without the leading 0 \(10\)"),
    ("source: sample\nsteps:\n  - step: tsdf\n    params: {voxel_size: 1:30}\n", r"voxel_size: 1:30 is a base-60 number"),
    ("source: sample\nsteps:\n  - step: export\n    params: {path: no}\n",
     r"parameter 'path'.*note: line 4: YAML reads the unquoted word 'no' of 'path' as False; quote"),
])
def test_yaml_that_reads_otherwise_than_written_is_refused_and_explained(tmp_path, text, match):
    p = tmp_path / "scan.yaml"
    p.write_text(text)
    with pytest.raises(SmrnbError, match=match):
        load_config(p)


def test_yaml_numbers_read_as_written(tmp_path):
    p = tmp_path / "scan.yaml"
    p.write_text("source: sample\nsteps:\n  - step: tsdf\n    params: {voxel_size: 2e-2, depth_max: 3}\n"
                 "  - step: fill_holes\n    params: {max_hole_edges: 0x10}\n")
    cfg = load_config(p)
    assert cfg["steps"][0]["params"]["voxel_size"] == pytest.approx(0.02)
    assert cfg["steps"][1]["params"]["max_hole_edges"] == 16
    p.write_text("source: 'no'\nsteps:\n  - step: tsdf\n")  # quoted, a word stays text
    assert load_config(p)["source"] == "no"


def test_config_paths_name_their_cause(tmp_path):
    import os

    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    with pytest.raises(SmrnbValueError, match="a.yaml' is a symbolic link that leads back to itself") as e:
        load_config(tmp_path / "a.yaml")
    assert "not exist" not in str(e.value)
    with pytest.raises(SmrnbValueError, match="config file must be a YAML file, got the folder"):
        load_config(tmp_path)
    with pytest.raises(SmrnbValueError, match="nope.yaml' does not exist"):
        load_config(tmp_path / "nope.yaml")
