# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""smr-doctor in subprocesses: exit codes 0/1/2/3, stdin, JSON, fixes, --package, and a hanging nvidia-smi."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "smrnb.doctor.cli"]
NVCC_120 = "nvcc fatal   : Unsupported gpu architecture 'compute_120'"


def run(args, *, input=None, env=None, timeout=60):
    """Run smr-doctor in its own session; afterwards kill whatever it left behind in that group."""
    p = subprocess.Popen([*CLI, *args], stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    t0 = time.perf_counter()
    try:
        out, err = p.communicate(input, timeout=timeout)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the group of the process this test started
        except ProcessLookupError:
            pass
    return p.returncode, out, err, time.perf_counter() - t0


@pytest.mark.parametrize(("encoding", "note"), [("utf-8", None), ("cp1252", "cp1252"), ("utf-16", "utf-16"),
                                                ("utf-16-le", "utf-16-le"), ("utf-8-sig", None)])
def test_explain_reads_stdin_bytes_of_every_encoding_a_saved_log_has(encoding, note):
    """A log saved by a Windows editor (cp1252 quotes), by PowerShell's ``>`` (UTF-16 with a byte-order mark) or
    without one: explain finds the same cause as in the UTF-8 text and says how it read the bytes."""
    text = "nvcc fatal   : Unsupported gpu architecture \u2018compute_120\u2019\n"
    p = subprocess.run([*CLI, "explain", "--offline", "--json"], input=text.encode(encoding), capture_output=True,
                       timeout=60)
    d = json.loads(p.stdout)
    assert p.returncode == 1 and [f["code"] for f in d["findings"]] == ["unsupported_gpu_arch"], p.stderr
    assert (f"read as {note}" in p.stderr.decode()) if note else b"not UTF-8" not in p.stderr
    assert b"Traceback" not in p.stderr


def test_check_json_parses_and_exit_code_matches_errors():
    rc, out, err, _ = run(["--json", "--timeout", "2"])
    d = json.loads(out)
    assert rc == d["summary"]["exit_code"] == (1 if d["summary"]["errors"] else 0), err
    assert set(d) == {"summary", "meta", "findings", "facts"}
    assert list(d["facts"]) == ["driver", "torch", "toolkit", "loader", "abi", "kaolin", "jupyter", "context"]


def test_check_is_the_default_and_layers_filter():
    rc, out, err, _ = run(["check", "--layer", "torch", "--layer", "driver", "--json"])
    d = json.loads(out)
    assert d["meta"]["layers"] == ["driver", "torch"]
    assert {f["layer"] for f in d["findings"]} <= {"driver", "torch"}
    rc2, out2, _, _ = run(["--layer", "torch"])
    assert out2.startswith("smrnb doctor: ") and "[torch] PyTorch build" in out2


def test_explain_exit_1_on_error_3_on_unrecognised_and_reads_stdin():
    rc, out, _, _ = run(["explain", "--offline", NVCC_120])
    assert rc == 1 and "[unsupported_gpu_arch]" in out
    rc, out, _, _ = run(["explain", "--offline", "-"], input="RuntimeError: Ninja is required to load C++ extensions\n")
    assert rc == 1 and "[ninja_missing]" in out
    rc, out, _, _ = run(["explain", "--offline", "--json", NVCC_120])
    assert [f["code"] for f in json.loads(out)["findings"]] == ["unsupported_gpu_arch"]
    assert json.loads(out)["recognised"] is True
    # an error the doctor does not know: exit status 3, never an all-clear, in every output
    unknown = "KeyError: 'x'\nFailed to frobnicate the widget (torch 2.4.0+cu121)\n"
    rc, out, err, _ = run(["explain", "--offline"], input=unknown)
    assert rc == 3 and out.startswith("smrnb doctor: NOT RECOGNISED") and "nothing to report" not in out
    assert "torch: 2.4.0+cu121 (CUDA 12.1)" in out and "smr-doctor --import-check" in out
    rc, out, _, _ = run(["explain", "--offline", "--json"], input=unknown)
    d = json.loads(out)
    assert rc == 3 and d["recognised"] is False and d["summary"]["exit_code"] == 3
    assert all(f["sources"] == ["similar reports"] and f["severity"] == "info" for f in d["findings"])
    assert d["next_steps"] and d["meta"]["read"]
    rc, out, _, _ = run(["explain", "--offline", "--markdown"], input=unknown)
    assert rc == 3 and "**NOT RECOGNISED" in out.split("\n", 3)[2]
    rc, out, _, _ = run(["explain", "--timeout", "2"], input=unknown)  # with this machine's facts too
    assert rc == 3 and out.startswith("smrnb doctor: NOT RECOGNISED") and "nothing to report" not in out


def _gcc_so(path: Path, source: str, *args: str) -> Path:
    src = path.with_suffix(".c")
    src.write_text(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(path), str(src), *args], check=True, capture_output=True)
    return path


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_package_checks_every_compiled_module_of_a_distribution(tmp_path):
    """--package NAME finds the .so files a distribution's RECORD lists and checks each: one needs a c10
    symbol no torch defines (abi), one a library that is nowhere (loader)."""
    site = tmp_path / "site"
    pkg = site / "fakeext"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    _gcc_so(pkg / "_C.cpython-311-x86_64-linux-gnu.so",
            "extern void _ZN3c1019NoSuchSmrnbSymbolXYZEv(void); void f(void){ _ZN3c1019NoSuchSmrnbSymbolXYZEv(); }")
    dep = _gcc_so(tmp_path / "libsmrnbmissingdep.so", "int g(void){return 1;}")
    _gcc_so(pkg / "_ops.so", "extern int g(void); int h(void){return g();}", f"-L{tmp_path}", "-lsmrnbmissingdep")
    dep.unlink()  # built against it, then gone: the loader will not find it
    info = site / "fakeext-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeext\nVersion: 1.0\n")
    (info / "RECORD").write_text("fakeext/__init__.py,,\nfakeext/_C.cpython-311-x86_64-linux-gnu.so,,\n"
                                 "fakeext/_ops.so,,\nfakeext-1.0.dist-info/METADATA,,\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(Path(__file__).resolve().parents[2])])}
    rc, out, err, _ = run(["--package", "fakeext", "--layer", "loader", "--layer", "abi", "--json"], env=env)
    d = json.loads(out)
    assert rc == 1, err
    assert sorted(os.path.basename(p) for p in d["meta"]["packages"]["fakeext"]) == [
        "_C.cpython-311-x86_64-linux-gnu.so", "_ops.so"]
    by = {(f["code"], os.path.basename(f["title"].split(":")[0])) for f in d["findings"]}
    assert ("library_not_found", "_ops.so") in by, d["findings"]
    assert any(f["code"] in ("abi_torch_version_mismatch", "cxx11_abi_mismatch") and "_C." in f["title"]
               for f in d["findings"]), d["findings"]
    rc, out, err, _ = run(["--package", "no-such-distribution-xyz"], env=env)
    assert rc == 2 and "no installed distribution named 'no-such-distribution-xyz'" in err


@pytest.mark.slow
def test_usage_errors_exit_2():
    for args in (["--bogus"], ["--layer", "gpu"], ["--timeout", "0"], ["fix"], ["fix", "kernelspec", "--what"],
                 ["--json", "--markdown"], ["--timeout", "inf"], ["--timeout", "1e308"], ["--timeout", "nan"],
                 ["--timeout=-1"], ["explain", "--timeout", "inf", "x"], ["fix", "snippets", "--timeout", "1e999"]):
        rc, out, err, _ = run(args)
        assert rc == 2, args
        assert "usage: smr-doctor" in err and "Traceback" not in err and "OverflowError" not in err
    rc, _, err, _ = run(["explain", "--offline"], input="")
    assert rc == 2 and "explain needs an error text" in err


def test_markdown_output():
    rc, out, _, _ = run(["--markdown", "--layer", "torch"])
    assert out.startswith("### smrnb doctor report") and "<details><summary>facts</summary>" in out


@pytest.mark.slow
def test_fix_kernelspec_dry_run_then_write_then_refuse(tmp_path):
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path), LD_LIBRARY_PATH="/opt/lib-for-kernel")
    rc, out, _, _ = run(["fix", "kernelspec", "--name", "t1", "--dry-run"], env=env)
    assert rc == 0 and out.startswith(f"Dry run: would write {tmp_path}/kernels/t1/kernel.json")
    assert not (tmp_path / "kernels").exists()
    rc, out, _, _ = run(["fix", "kernelspec", "--name", "t1"], env=env)
    kj = json.loads((tmp_path / "kernels" / "t1" / "kernel.json").read_text())
    assert rc == 0 and kj["env"]["LD_LIBRARY_PATH"] == "/opt/lib-for-kernel"
    assert out.startswith("Wrote ") and "Dry run" not in out  # (blind audit 30, F03) a real run shows no dry run
    rc, out, err, _ = run(["fix", "kernelspec", "--name", "t1"], env=env)
    # (blind audit 36, C-L5) a refused name is a usage error: exit 2, as the CLI's other usage errors
    assert rc == 2 and "existing kernelspec" in err and "--force" in err and "Dry run" not in out
    # the dry run says what the real run would do: refuse the existing name without --force
    rc, out, err, _ = run(["fix", "kernelspec", "--name", "t1", "--dry-run"], env=env)
    assert rc == 2 and "existing kernelspec" in err and "replacing" not in out
    rc, out, err, _ = run(["fix", "kernelspec", "--name", "t1", "--dry-run", "--force"], env=env)
    assert rc == 0 and "(replacing the existing spec, backed up first to " in out
    rc, out, err, _ = run(["fix", "kernelspec", "--name", "t1", "--force"], env=env)
    assert rc == 0 and "(replaced; the previous spec is backed up in " in out
    backups = list((tmp_path / "smrnb-kernelspec-backups").iterdir())
    assert len(backups) == 1 and str(backups[0]) in out
    assert json.loads((backups[0] / "kernel.json").read_text()) == kj


def test_fix_snippets():
    rc, out, _, _ = run(["fix", "snippets"])
    assert rc == 0 and "c.Spawner.environment" in out and "[Service]" in out and "#SBATCH" in out


def _fake_tool(bindir, name, body):
    p = bindir / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(0o755)


@pytest.mark.slow
@pytest.mark.parametrize("body", ["exec sleep 600", "sleep 600; echo never"], ids=["exec", "child-holds-pipe"])
def test_hanging_nvidia_smi_is_cut_off(tmp_path, body):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _fake_tool(bindir, "nvidia-smi", body)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
    rc, out, err, wall = run(["--json", "--timeout", "1"], env=env, timeout=60)
    d = json.loads(out)
    assert wall < 8.0, wall  # per-command timeout 1 s, whole collection at most 3 s, plus start-up
    drv = d["facts"]["driver"]
    assert drv["status"] in ("unavailable", "absent"), drv
    assert "nvidia-smi" in drv["reason"] or "deadline" in drv["reason"], drv
    assert drv["elapsed_s"] <= 3.5, drv  # the deadline (2 * timeout + 1 s) bounds the probe


def _console_script() -> str | None:
    """The ``smr-doctor`` installed with this interpreter (its environment's bin, which need not be on PATH:
    ``python3 -m smrnb test`` runs the project's .venv without activating it), else one on PATH."""
    here = Path(sys.executable).parent / "smr-doctor"
    return str(here) if here.is_file() else shutil.which("smr-doctor")


@pytest.mark.skipif(_console_script() is None, reason="smr-doctor console script not installed")
def test_console_script_is_wired():
    p = subprocess.run([_console_script(), "codes"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("# Doctor finding codes")


def test_an_ascii_only_terminal_gets_the_report_in_words():
    env = dict(os.environ, PYTHONIOENCODING="ascii", LANG="C", LC_ALL="C", PYTHONUTF8="0")
    rc, out, err, _ = run(["explain", "--offline", "ImportError: libcudart.so.11.0: cannot open shared object file: "
                           "No such file or directory"], env=env)
    assert rc == 1 and "cudart_not_found" in out and "[error]" in out, err[-1000:]
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    rc, out, err, _ = run(["--layer", "torch", "--timeout", "20"], env=env)
    assert rc in (0, 1) and "[torch]" in out and "UnicodeEncodeError" not in err, err[-1000:]


def test_console_fallback_words():
    from smrnb._text import CONSOLE_WORDS, _console_fallback

    text = "✅ ok, ❌ bad, ⚠️ careful, ℹ️ note → café 漢"
    out = text.encode("ascii", "smrnb-console").decode("ascii")
    assert out == "[ok] ok, [error] bad, [warning] careful, [info] note -> cafe ?"
    assert all(w.isascii() for w in CONSOLE_WORDS.values()) and callable(_console_fallback)
