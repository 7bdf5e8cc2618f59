# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Kinds of error text explain reads as facts: each family is tested from the tools' own messages (NCCL's
socket and InfiniBand warnings, IPython's and Colab's restart notes, triton's compiler lookup, the loader's
forms, NVML's strings, torch's checks), written here for the tests, and through the live probes where the
same fact can be probed on the machine.
"""

from __future__ import annotations

import types

import pytest

from smrnb.doctor._codes import CODES
from smrnb.doctor._explain import explain_result, explain_text
from smrnb.doctor._paste import decode
from smrnb.doctor.probes import _context as context_probe
from smrnb.doctor.probes import _jupyter as jupyter_probe
from smrnb.doctor.rules import evaluate


def _codes(text: str, facts=None, n: int = 2) -> list[str]:
    return [f.code for f in explain_text(text, facts)][:n]


# ------------------------------------------------------------------ NCCL's network transport
@pytest.mark.parametrize("text", [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
    "remote process exited or there was a network error, NCCL version 2.19.3\nncclRemoteError: A call failed possibly "
    "due to a network error or a remote process exiting prematurely.",
    "node01:1234:1290 [0] misc/socket.cc:538 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<41745> failed : "
    "Connection reset by peer",
    "node03:77:91 [2] NCCL WARN NET/IB : Got completion from peer 10.1.1.3<53002> with error 12, opcode 0, len 0, "
    "vendor err 129",
    "gpu7:55:55 [0] bootstrap.cc:44 NCCL WARN Bootstrap : no socket interface found\n"
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, internal error, NCCL version 2.18.1",
    "NCCL WARN socketStartConnect: Connect to 192.168.1.7<36061> failed : Connection refused",
    "NCCL WARN socketProgress: Connection closed by remote peer node02<52418>",
])
def test_nccl_network_failures_are_the_network_between_the_nodes(text):
    assert _codes(text, n=1) == ["nccl_network_unreachable"], _codes(text, n=3)


def test_nccl_shared_memory_stays_shared_memory():
    text = "include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-1 (size 9637888)"
    assert _codes(text, n=1) == ["container_shm_too_small"]


def test_nccl_socket_ifname_is_checked_against_the_nodes_interfaces(tmp_path):
    net = tmp_path / "net"
    for name in ("lo", "eth0", "ib0", "docker0"):
        (net / name).mkdir(parents=True)
    probe = context_probe.nccl_socket_ifname
    assert probe("ens1f0", str(net))["matches"] == []
    assert probe("eth", str(net))["matches"] == ["eth0"]
    assert probe("=eth0,ib0", str(net))["matches"] == ["eth0", "ib0"]
    assert probe("=eth", str(net))["matches"] == []  # '=' is an exact name
    assert probe("^docker,lo", str(net))["matches"] == ["eth0", "ib0"]
    assert probe(None, str(net)) is None and probe("eth0", str(tmp_path / "absent")) is None
    bad = {"context": {"status": "ok", "nccl_socket_ifname": probe("ens1f0", str(net))}}
    f = next(f for f in evaluate(bad) if f.code == "nccl_network_unreachable")
    assert f.severity == "error" and "ens1f0" in f.title
    assert any("NCCL_SOCKET_IFNAME=eth0" in c for c in f.fix.commands)
    good = {"context": {"status": "ok", "nccl_socket_ifname": probe("eth", str(net))}}
    assert not [f for f in evaluate(good) if f.code == "nccl_network_unreachable"]


# ------------------------------------------------------------------ a kernel that started before the install
@pytest.mark.parametrize("text", [
    "%pip install -U transformers\nSuccessfully installed transformers-4.40.0\n"
    "Note: you may need to restart the kernel to use updated packages.\n"
    "ImportError: cannot import name 'LlamaForCausalLM' from 'transformers'",
    "!pip install seaborn\nWARNING: The following packages were previously imported in this runtime:\n  [seaborn]\n"
    "You must restart the runtime in order to use newly installed versions.\nAttributeError: module 'seaborn' has no "
    "attribute 'objects'",
    "ModuleNotFoundError: No module named 'open3d'\nI installed it with pip in a terminal while the notebook was "
    "running; python in the terminal imports it",
    "In the notebook: ModuleNotFoundError: No module named 'trimesh'. The terminal and the notebook use the same "
    "environment and the terminal imports it.",
])
def test_a_kernel_not_restarted_since_the_install_needs_a_restart_first(text):
    codes = _codes(text)
    assert codes[0] == "kernel_restart_needed", codes


def test_a_kernel_of_another_python_stays_another_python():
    text = "ModuleNotFoundError: No module named 'open3d' in the notebook, works in the terminal"
    assert _codes(text, n=1) == ["kernel_wrong_python"]


def test_modules_imported_before_an_upgrade_are_found_live():
    mods = {"numpy": types.SimpleNamespace(__version__="1.26.4"), "torch": types.SimpleNamespace(__version__="2.3.0+cu121"),
            "json": types.SimpleNamespace(__version__="2.0.9"), "mylocal": types.SimpleNamespace(__version__="0.1"),
            "numpy.linalg": types.SimpleNamespace(__version__="9")}
    installed = {"numpy": "2.1.0", "torch": "2.3.0+cu121", "json": "9.9"}

    def version_of(name):
        if name not in installed:
            raise LookupError(name)
        return installed[name]

    stale = jupyter_probe.stale_modules(mods, version_of)
    assert stale == [{"module": "numpy", "imported": "1.26.4", "installed": "2.1.0"}]
    f = next(f for f in evaluate({"jupyter": {"status": "ok", "stale_modules": stale}}) if f.code == "kernel_restart_needed")
    assert f.severity == "warning" and "numpy 1.26.4" in " ".join(f.evidence)
    assert f.fix.why.startswith(CODES["kernel_restart_needed"].fix)
    assert not [f for f in evaluate({"jupyter": {"status": "ok", "stale_modules": []}}) if f.code == "kernel_restart_needed"]


def test_new_codes_have_their_table_entries():
    for code in ("kernel_restart_needed", "nccl_network_unreachable"):
        e = CODES[code]
        assert e.fix and e.told_from and e.check and e.source and "text" in e.homes
        assert explain_result("").recognised is False


# ------------------------------------------------------------------ bytes of any encoding a saved log has
def test_bytes_are_decoded_by_mark_then_utf16_then_utf8_then_cp1252():
    text = "nvcc fatal   : Unsupported gpu architecture \u2018compute_90\u2019 \u2014 caf\u00e9"
    for enc in ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "cp1252"):
        got, how = decode(text.encode(enc))
        assert got.lstrip("\ufeff") == text, (enc, got, how)
    assert decode(text.encode("cp1252"))[1] == "cp1252" and decode(text.encode("utf-8"))[1] == "utf-8"
    # cp1252's five undefined bytes read as Latin-1's, every other byte as cp1252's: nothing lost, nothing raised
    high, how = decode(bytes(range(128, 256)))
    assert how == "cp1252" and len(high) == 128 and "\ufffd" not in high and high[1] == "\x81" and high[0] == "\u20ac"
    assert _codes(text.encode("cp1252"), n=1) == ["unsupported_gpu_arch"]
