# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""CLI and YAML cases: each runs ``smrnb`` in a subprocess and checks the exit code, the time and
the message (exit 2 with a usage line for a bad config, never a traceback, never an unbounded echo)."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.audit._cases import OK, case, tmp

BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{b}: &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")))


def smrnb_cli(*args, timeout=60):
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "smrnb.pipeline.cli", *args], capture_output=True, text=True,
                       timeout=timeout, cwd=tmp())
    return r, time.monotonic() - t0


def _usage_error(config_text: bytes | str, pattern: str, *extra: str, max_seconds: float = 30.0):
    import re

    p = tmp() / "c.yaml"
    p.write_bytes(config_text if isinstance(config_text, bytes) else config_text.encode())
    r, dt = smrnb_cli("run", str(p), "--output", str(tmp() / "out"), *extra)
    assert r.returncode == 2, (r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr, r.stderr[-1500:]
    assert "usage:" not in r.stderr, r.stderr[-500:]  # one line: what is wrong, not the generic usage
    assert re.search(pattern, r.stderr, re.I), r.stderr[-1500:]
    assert len(r.stderr) < 3000, f"{len(r.stderr)} characters of stderr"
    assert dt < max_seconds, f"took {dt:.1f} s"


@case("cli_yaml_alias_bomb", ("cli",), OK, timeout=60, mem_gib=4.0)
def _():
    assert len(BOMB) < 400
    _usage_error(BOMB, r"aliases", max_seconds=10)


@case("cli_yaml_binary", ("cli",), OK)
def _():
    _usage_error(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", r"binary")


@case("cli_yaml_non_utf8", ("cli",), OK)
def _():
    _usage_error(b"steps: [\xff\xfe]\n", r"not UTF-8")


@case("cli_yaml_deep", ("cli",), OK)
def _():
    _usage_error("steps: " + "[" * 3000 + "]" * 3000, r"nested")


@case("cli_yaml_recursive_alias", ("cli",), OK)
def _():
    _usage_error("steps: &a [*a]\n", r"recursive|alias|steps")


@case("cli_yaml_huge_scalar_not_echoed", ("cli",), OK)
def _():
    _usage_error("source: sample\nsteps:\n - step: tsdf\n   params: {voxel_size: '" + "x" * 200_000 + "'}\n",
                 r"voxel_size")


@case("cli_yaml_huge_int", ("cli",), OK)
def _():
    _usage_error("source: sample\nsteps:\n - step: tsdf\n   params: {voxel_size: " + "9" * 5000 + "}\n",
                 r"cannot build|voxel_size")


@case("cli_yaml_unknown_key", ("cli",), OK)
def _():
    _usage_error("source: sample\nstepz: []\n", r"unknown key")


@case("cli_export_path_escapes", ("cli",), OK)
def _():
    _usage_error("source: sample\nsteps:\n - step: export\n   params: {path: ../../x.glb}\n", r"outside the output")
    assert not (tmp().parent / "x.glb").exists()


@case("cli_export_path_absolute", ("cli",), OK)
def _():
    _usage_error("source: sample\nsteps:\n - step: export\n   params: {path: /tmp/smrnb-audit-abs.glb}\n",
                 r"is absolute")


@case("cli_existing_output_refused_before_work", ("cli",), OK)
def _():
    out = tmp() / "out"
    out.mkdir(exist_ok=True)
    (out / "mesh.ply").write_text("keep me")
    cfg = "source: sample\nsteps:\n - step: tsdf\n   params: {voxel_size: 0.05}\n - step: extract_mesh\n" \
          " - step: export\n   params: {path: mesh.ply}\n"
    _usage_error(cfg, r"exists; pass --overwrite", max_seconds=20)
    assert (out / "mesh.ply").read_text() == "keep me"


@case("cli_unwritable_output_refused_before_work", ("cli",), OK)
def _():
    p = tmp() / "c.yaml"
    p.write_text("source: sample\nsteps:\n - step: tsdf\n   params: {voxel_size: 0.05}\n - step: extract_mesh\n"
                 " - step: export\n   params: {path: mesh.ply}\n")
    r, dt = smrnb_cli("run", str(p), "--output", "/proc/1/nope")
    assert r.returncode == 2 and "cannot be written" in r.stderr and "running tsdf" not in r.stderr, r.stderr[-800:]


@case("cli_step_existing_output", ("cli",), OK)
def _():
    out = tmp() / "o.ply"
    out.write_text("keep")
    r, _ = smrnb_cli("step", "points", "--input", "sample", "--output", str(out))
    assert r.returncode == 2 and "--overwrite" in r.stderr and out.read_text() == "keep", r.stderr[-800:]


@case("cli_device_banana", ("cli",), OK)
def _():
    r, _ = smrnb_cli("demo", "--device", "banana", "--output", str(tmp() / "d"))
    assert r.returncode == 2 and "banana" in r.stderr


@case("cli_run_missing_config", ("cli",), OK)
def _():
    r, _ = smrnb_cli("run", str(tmp() / "none.yaml"))
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr, r.stderr[-800:]
