# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Jupyter probe on fabricated data dirs, kernelspecs, runtime files; a real server process for the pid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from smrnb.doctor._model import ProbeContext, Runner
from smrnb.doctor.probes import _jupyter as jupyter
from smrnb.doctor.rules import evaluate


def write_spec(kdir: Path, name: str, argv0: str, env: dict | None = None) -> Path:
    d = kdir / name
    d.mkdir(parents=True)
    spec = {"argv": [argv0, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": name,
            "language": "python"}
    if env is not None:
        spec["env"] = env
    (d / "kernel.json").write_text(json.dumps(spec))
    return d


def write_labext(share: Path, version: str) -> Path:
    d = share / "labextensions" / "jupyter-threejs"
    d.mkdir(parents=True)
    (d / "package.json").write_text(json.dumps({"name": "jupyter-threejs", "version": version}))
    return d / "package.json"


def make_ctx(tmp_path: Path, python: str, **env) -> ProbeContext:
    e = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), **env}
    return ProbeContext(run=Runner(env=e), environ=e, python=python)


def test_kernelspec_with_env_is_found_and_secrets_redacted(tmp_path):
    prefix = tmp_path / "venv"
    py = prefix / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.symlink_to(sys.executable)
    write_spec(prefix / "share" / "jupyter" / "kernels", "python3", "/usr/bin/python3")
    write_spec(tmp_path / "home" / ".local" / "share" / "jupyter" / "kernels", "cuda-lab", str(py),
               {"LD_LIBRARY_PATH": "/usr/local/cuda-12.1/lib64", "CUDA_HOME": "/usr/local/cuda-12.1",
                "HF_TOKEN": "hf_supersecret"})
    write_labext(prefix / "share" / "jupyter", "2.4.1")
    facts = jupyter.probe(make_ctx(tmp_path, str(py)), prefix=str(prefix), runtime_dir=str(tmp_path / "rt"))
    spec = facts["kernelspec"]
    assert spec["name"] == "cuda-lab" and facts["kernelspec_matched_by"] == "argv[0] == kernel python"
    assert spec["env"]["HF_TOKEN"] == "<redacted>"
    assert "hf_supersecret" not in json.dumps(facts)
    assert facts["kernelspecs"] == ["cuda-lab", "python3"]
    found = {f.code: f for f in evaluate({"jupyter": facts}, layers=["jupyter"])}
    assert "CUDA_HOME=/usr/local/cuda-12.1" in found["kernelspec_env"].evidence
    assert "hf_supersecret" not in json.dumps([f.to_dict() for f in found.values()])


def test_threejs_extension_missing_and_mismatched(tmp_path):
    prefix = tmp_path / "env"
    (prefix / "share" / "jupyter").mkdir(parents=True)
    c = make_ctx(tmp_path, sys.executable)
    facts = jupyter.probe(c, prefix=str(prefix), runtime_dir=str(tmp_path / "rt"))
    if facts["versions"]["pythreejs"] is None:
        pytest.skip("pythreejs not installed")
    assert facts["threejs_labextension"]["installed"] is False
    found = {f.code: f for f in evaluate({"jupyter": facts}, layers=["jupyter"])}
    assert found["threejs_extension_missing"].title == "jupyter-threejs lab extension not found"
    write_labext(prefix / "share" / "jupyter", "1.0.0")
    facts = jupyter.probe(c, prefix=str(prefix), runtime_dir=str(tmp_path / "rt"))
    assert facts["threejs_labextension"]["matches_pythreejs"] is False
    found = {f.code: f for f in evaluate({"jupyter": facts}, layers=["jupyter"])}
    assert "does not match pythreejs" in found["threejs_extension_missing"].title


def test_this_machines_labextension_matches_pythreejs():
    """pythreejs 2.4.2 ships jupyter-threejs 2.4.1 (read off this machine's share/jupyter)."""
    facts = jupyter.probe(ProbeContext(run=Runner(), environ=dict(os.environ)))
    if facts["versions"]["pythreejs"] != "2.4.2":
        pytest.skip("pythreejs 2.4.2 not installed")
    ext = facts["threejs_labextension"]
    assert ext["installed"] and ext["version"] == "2.4.1" and ext["matches_pythreejs"] is True
    assert facts["in_kernel"] is False  # pytest is not a kernel


@pytest.fixture
def fake_server(tmp_path):
    """A live process started from another prefix's python, registered as a jupyter server."""
    other = tmp_path / "server_env"
    (other / "bin").mkdir(parents=True)
    (other / "bin" / "python3").symlink_to(sys.executable)
    script = other / "bin" / "jupyter-lab"
    script.write_text("import time\ntime.sleep(60)\n")
    proc = subprocess.Popen([str(other / "bin" / "python3"), str(script)])
    rt = tmp_path / "rt"
    rt.mkdir()
    (rt / f"jpserver-{proc.pid}.json").write_text(json.dumps({"pid": proc.pid, "root_dir": str(tmp_path),
                                                              "version": "2.21.1"}))
    (rt / "jpserver-999999999.json").write_text(json.dumps({"pid": 999999999}))  # stale
    (rt / "jpserver-bad.json").write_bytes(b"\xff{not json")
    try:
        yield other, rt
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_server_python_from_runtime_files(tmp_path, fake_server):
    other, rt = fake_server
    write_labext(other / "share" / "jupyter", "2.4.1")
    # not a kernel of that server: it is someone else's, never compared
    facts = jupyter.probe(make_ctx(tmp_path, sys.executable), prefix=sys.prefix, runtime_dir=str(rt))
    assert facts["server_python"] is None and facts["server_python_differs"] is None
    assert len(facts["servers"]) == 1
    pid = facts["servers"][0]["pid"]
    assert "kernel_server_python_differs" not in {f.code for f in evaluate({"jupyter": facts}, layers=["jupyter"])}
    # a kernel whose ancestors include the server: this kernel's server
    facts = jupyter.probe(make_ctx(tmp_path, sys.executable), prefix=sys.prefix, runtime_dir=str(rt),
                          kernel_ancestors=[12345, pid, 1])
    assert facts["server_python"] == str(other / "bin" / "python3")
    assert facts["server_prefix"] == str(other)
    assert facts["server_python_differs"] is True
    assert len(facts["servers"]) == 1  # stale and broken files skipped
    # the server looks in its own prefix first
    assert facts["threejs_labextension"]["searched"][0] == str(other / "share" / "jupyter" / "labextensions")
    found = {f.code: f for f in evaluate({"jupyter": facts}, layers=["jupyter"])}
    assert found["kernel_server_python_differs"].severity == "info"
    assert found["kernel_server_python_differs"].fix.commands[0].startswith(str(other / "bin" / "python3"))
    # the server's environment belongs to another user: no pip command into it, ever
    os.chown(other, 4242, 4242)
    try:
        facts = jupyter.probe(make_ctx(tmp_path, sys.executable), prefix=sys.prefix, runtime_dir=str(rt),
                              kernel_ancestors=[pid])
        assert facts["server_prefix_owned"] is False
        found = evaluate({"jupyter": facts}, layers=["jupyter"])
        cmds = [c for f in found for c in (f.fix.commands if f.fix else ())]
        assert not any("pip install" in c and str(other) in c for c in cmds), cmds
        assert "not yours to change" in {f.code: f for f in found}["kernel_server_python_differs"].fix.why
    finally:
        os.chown(other, os.getuid(), os.getgid())


def test_ancestors_from_a_fabricated_proc(tmp_path):
    proc = tmp_path / "proc"
    for pid, ppid in ((500, 400), (400, 300), (300, 1), (1, 0)):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "stat").write_text(f"{pid} (python (x) 3) S {ppid} {pid} {pid} 0 -1\n")
    assert jupyter.ancestors(500, str(proc)) == [400, 300, 1]
    assert jupyter.ancestors(500, str(tmp_path / "masked")) is None


def test_garbage_kernelspecs_never_raise(tmp_path):
    kdir = tmp_path / "home" / ".local" / "share" / "jupyter" / "kernels"
    for i, blob in enumerate([b"", b"\xff\xfe", b"[1, 2]", b'{"argv": "notalist", "env": 3}']):
        (kdir / f"k{i}").mkdir(parents=True)
        (kdir / f"k{i}" / "kernel.json").write_bytes(blob)
    facts = jupyter.probe(make_ctx(tmp_path, sys.executable), prefix=str(tmp_path / "p"),
                          runtime_dir=str(tmp_path / "none"), proc=str(tmp_path / "noproc"))
    assert facts["kernelspecs"] == ["k3"]
    json.dumps(facts)


@pytest.mark.slow
def test_inside_a_real_ipykernel(tmp_path):
    """A real kernel started by jupyter_client from a kernelspec with an env: the probe, run inside it,
    sees it is in a kernel, finds the kernelspec through the connection file, and redacts the secret."""
    from jupyter_client.manager import start_new_kernel

    kdir = tmp_path / "data" / "kernels"
    write_spec(kdir, "smrnb-test", sys.executable, {"CUDA_HOME": "/opt/cuda-12.8", "LAB_TOKEN": "s3cr3t-value"})
    env = {**os.environ, "JUPYTER_PATH": str(tmp_path / "data"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    old = dict(os.environ)
    os.environ.update(env)
    try:
        km, kc = start_new_kernel(kernel_name="smrnb-test", startup_timeout=60)
    finally:
        os.environ.clear()
        os.environ.update(old)
    try:
        code = ("import json\nfrom smrnb.doctor._model import ProbeContext\nfrom smrnb.doctor.probes import _jupyter as jupyter\n"
                "print(json.dumps(jupyter.probe(ProbeContext())))\n")
        out: list[str] = []
        reply = kc.execute_interactive(code, timeout=60, output_hook=lambda m: out.append(
            m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        assert reply["content"]["status"] == "ok", reply["content"]
        facts = json.loads("".join(out))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert facts["in_kernel"] is True and facts["connection_file"]
    assert facts["kernelspec"]["name"] == "smrnb-test"
    assert facts["kernelspec"]["env"] == {"CUDA_HOME": "/opt/cuda-12.8", "LAB_TOKEN": "<redacted>"}
    assert "s3cr3t-value" not in json.dumps(facts)
