# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Layer 1, driver: GPUs, driver version, compute capability, the newest CUDA the driver supports.

NVML (``pynvml`` from nvidia-ml-py) is asked first; when it cannot load (no ``libnvidia-ml.so``,
no kernel module: a CPU machine) the probe falls back to ``nvidia-smi`` on ``ctx.environ["PATH"]``:

* ``nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,uuid --format=csv,noheader``
  (drivers older than ~510 do not know ``compute_cap``: the query is repeated without it and the
  capability comes from the GPU-name table);
* the plain ``nvidia-smi`` header for ``CUDA Version: X.Y``, which is the newest CUDA the *driver*
  supports, not an installed toolkit.

No NVIDIA driver is ``status: "absent"`` (a plain fact). A driver that is installed but does not
work is ``status: "broken"`` with ``broken_kind``:

* ``"not_loaded"``: nvidia-smi "couldn't communicate with the NVIDIA driver" / NVML "Driver Not
  Loaded": the user-space driver is there, its kernel module is not loaded (driver updated without
  a reboot, Secure Boot refusing an unsigned module, a DKMS build that failed for a new kernel);
* ``"version_mismatch"``: "Failed to initialize NVML: Driver/library version mismatch" / NVML
  "RM has detected an NVML/RM version mismatch": the loaded kernel module is of another version
  than the user-space libraries (an upgrade without a reboot).

The loaded kernel module's version is read from ``/proc/driver/nvidia/version`` when present. A
tool that hangs (or floods its output) is cut off and the layer is ``"unavailable"``: it "did not
answer", which says nothing about whether a driver is installed.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from smrnb.doctor import tables
from smrnb.doctor._model import ProbeContext, unavailable

QUERY_FIELDS = "name,driver_version,compute_cap,memory.total,uuid"
QUERY_FIELDS_OLD = "name,driver_version,memory.total,uuid"
_CUDA_HDR = re.compile(r"CUDA Version\s*:\s*([0-9]+\.[0-9]+)")
_DRIVER_HDR = re.compile(r"Driver Version\s*:\s*([0-9][0-9.]*)")
_NOT_LOADED = re.compile(r"couldn't communicate with the NVIDIA driver|Driver Not Loaded|NVIDIA kernel module.{0,40}not loaded",
                         re.IGNORECASE)
_MISMATCH = re.compile(r"Driver/library version mismatch|NVML/RM version mismatch", re.IGNORECASE)
_NVML_LIB_VERSION = re.compile(r"NVML library version:\s*([0-9][0-9.]*)")
_KMOD_VERSION = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+([0-9]+\.[0-9]+(?:\.[0-9]+)?)")
# NVML return codes (nvml.h): the library loaded, the kernel side did not answer as it should
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18


def kernel_module_version(proc: str = "/proc") -> str | None:
    """Version of the loaded ``nvidia`` kernel module (``/proc/driver/nvidia/version``), or None."""
    try:
        with open(f"{proc}/driver/nvidia/version", encoding="utf-8", errors="replace") as fh:
            m = _KMOD_VERSION.search(fh.read(4096))
    except OSError:
        return None
    return m.group(1) if m else None


def broken_kind(text: str) -> str | None:
    """``"not_loaded"`` / ``"version_mismatch"`` when a driver tool's message says the installed driver
    does not work, else None."""
    if _MISMATCH.search(text or ""):
        return "version_mismatch"
    if _NOT_LOADED.search(text or ""):
        return "not_loaded"
    return None


#: (blind audit 36, C-M5) nvidia-smi(1), RETURN VALUE: "Return code 9 - NVIDIA driver is not loaded"
SMI_EXIT_NOT_LOADED = 9
#: the man page's words for it, quoted by the probe's message and reason and by the driver rule's title (one place)
SMI_EXIT_9_MEANS = "NVIDIA driver is not loaded"
#: what an exit status 9 without the driver's own words tells: the probe's ``reason``, the driver rule's title
SMI_EXIT_9_SAID = f"nvidia-smi exited with status 9, its code for '{SMI_EXIT_9_MEANS}'"


def smi_exit_kind(returncode: int | None, text: str) -> tuple[str | None, str]:
    """``(broken_kind, message)`` of a failed nvidia-smi: its words first (:func:`broken_kind`); else its exit status
    9, which its man page documents as "NVIDIA driver is not loaded" (the message then says that only the exit status
    tells it); else ``(None, text)``."""
    kind = broken_kind(text)
    if kind or returncode != SMI_EXIT_NOT_LOADED:
        return kind, text
    said = f"it printed: {text.splitlines()[0][:200]}" if text else "it printed nothing"
    return "not_loaded", (f"exit status 9 ({said}); nvidia-smi(1), RETURN VALUE: "
                          f"'Return code 9 - {SMI_EXIT_9_MEANS}'")


def _broken(kind: str, message: str, source: str, proc: str, **extra: Any) -> dict[str, Any]:
    m = _NVML_LIB_VERSION.search(message)
    return {"status": "broken", "broken_kind": kind, "source": source, "message": message.strip()[:500],
            "reason": ("the NVIDIA driver is installed but its kernel module is not loaded" if kind == "not_loaded"
                       else "the loaded NVIDIA kernel module and the driver libraries are of different versions"),
            "driver_version": None, "cuda_driver_version": None, "gpus": [],
            "library_version": m.group(1) if m else None,
            "kernel_module_version": kernel_module_version(proc), **extra}


def probe(ctx: ProbeContext, *, use_nvml: bool = True, proc: str = "/proc") -> dict[str, Any]:
    """Facts of the driver layer (schema in ``smrnb/doctor/FACTS.md``).

    Parameters
    ----------
    ctx : ProbeContext
    use_nvml : bool
        Ask NVML first (tests that fabricate ``nvidia-smi`` turn it off).
    proc : str
        Where ``driver/nvidia/version`` is read (tests pass a fabricated tree).
    """
    nvml_error = None
    if use_nvml:
        facts, nvml_error = _via_nvml()
        if facts is not None:
            if facts.get("driver_version") and _platform(proc) == "windows":
                facts["platform"] = "windows"  # (round 32l) a Windows driver's number: the Windows column
            return facts
        if nvml_error and broken_kind(nvml_error):
            # libnvidia-ml.so loaded, the kernel side failed: an installed, broken driver. nvidia-smi
            # would say the same; its wording is kept when it is there.
            smi = _via_nvidia_smi(ctx, nvml_error, proc)
            if smi.get("status") == "broken":
                return smi
            return _broken(broken_kind(nvml_error) or "not_loaded", nvml_error, "nvml", proc, nvml_error=nvml_error)
    return _via_nvidia_smi(ctx, nvml_error, proc)


def _dec(v: Any) -> str:
    return v.decode(errors="replace") if isinstance(v, bytes) else str(v)


def _nvml_gpu(pynvml: Any, i: int) -> dict[str, Any]:
    """One GPU's row from NVML; a field NVML cannot give (old driver, MIG, vGPU) stays None."""
    h = pynvml.nvmlDeviceGetHandleByIndex(i)
    gpu: dict[str, Any] = {"index": i, "name": _dec(pynvml.nvmlDeviceGetName(h)), "compute_capability": None,
                           "memory_bytes": None, "uuid": None, "pci_bus_id": None, "memory_free_bytes": None}
    try:
        major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(h)
        gpu["compute_capability"] = f"{int(major)}.{int(minor)}"
    except Exception:
        gpu["compute_capability"] = tables.compute_capability_for_gpu(gpu["name"])
    try:
        mem = pynvml.nvmlDeviceGetMemoryInfo(h)
        gpu["memory_bytes"] = int(mem.total)
        gpu["memory_free_bytes"] = int(mem.free)
    except Exception:
        pass
    try:
        gpu["uuid"] = _dec(pynvml.nvmlDeviceGetUUID(h))
    except Exception:
        pass
    try:
        gpu["pci_bus_id"] = _dec(pynvml.nvmlDeviceGetPciInfo(h).busId)
    except Exception:
        pass
    return gpu


def _via_nvml(full: bool = False) -> tuple[dict[str, Any] | None, str | None]:
    """NVML facts, or (None, why) when NVML does not load. Never raises.

    ``full``: each GPU also has ``pci_bus_id`` and ``memory_free_bytes`` (the per-GPU rows).
    """
    try:
        import pynvml
    except Exception as exc:  # not installed, or broken
        return None, f"pynvml not importable: {type(exc).__name__}"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # LibraryNotFound on a CPU machine; DriverNotLoaded / mismatch: broken
        code = getattr(exc, "value", None)
        text = str(exc)
        if code == NVML_ERROR_DRIVER_NOT_LOADED and not broken_kind(text):
            text += " (Driver Not Loaded)"
        elif code == NVML_ERROR_LIB_RM_VERSION_MISMATCH and not broken_kind(text):
            text += " (NVML/RM version mismatch)"
        return None, f"nvmlInit failed: {text}"
    try:
        driver = _dec(pynvml.nvmlSystemGetDriverVersion())
        cuda = None
        try:
            code = int(pynvml.nvmlSystemGetCudaDriverVersion())  # 13000 -> "13.0"
            cuda = f"{code // 1000}.{(code % 1000) // 10}"
        except Exception:
            pass
        gpus = [_nvml_gpu(pynvml, i) for i in range(int(pynvml.nvmlDeviceGetCount()))]
        if not full:
            gpus = [{k: g[k] for k in ("index", "name", "compute_capability", "memory_bytes", "uuid")} for g in gpus]
    except Exception as exc:
        return None, f"NVML query failed: {type(exc).__name__}: {exc}"
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass
    return {"status": "ok" if gpus else "absent", "source": "nvml", "driver_version": driver,
            "cuda_driver_version": cuda, "gpus": gpus}, None


def _parse_memory(text: str) -> int | None:
    m = re.match(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(MiB|GiB|KiB|B)?\s*$", text)
    if not m:
        return None
    scale = {"KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "B": 1, None: 1024**2}[m.group(2)]
    return int(float(m.group(1)) * scale)


def parse_query_csv(text: str, with_cc: bool) -> list[dict[str, Any]]:
    """Rows of ``nvidia-smi --query-gpu=... --format=csv,noheader``; malformed rows are skipped."""
    gpus: list[dict[str, Any]] = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != (5 if with_cc else 4) or not parts[0]:
            continue
        if with_cc:
            name, driver, cc, mem, uuid = parts
        else:
            name, driver, mem, uuid = parts
            cc = ""
        if not tables.parse_version(driver):
            continue
        if not re.fullmatch(r"[0-9]+\.[0-9]+", cc):
            cc = tables.compute_capability_for_gpu(name) or ""
        gpus.append({"index": len(gpus), "name": name, "driver_version": driver,
                     "compute_capability": cc or None, "memory_bytes": _parse_memory(mem),
                     "uuid": uuid if uuid.startswith("GPU-") else None})
    return gpus


def _platform(proc: str = "/proc") -> str:
    """The driver column of this machine (tables.driver_platform): Windows, or WSL 2 (a "microsoft" kernel in
    /proc/version: its nvidia-smi prints the Windows host driver's number), else Linux."""
    if sys.platform == "win32":
        return "windows"
    try:
        with open(os.path.join(proc, "version"), encoding="utf-8", errors="replace") as fh:
            wsl = "microsoft" in fh.read(4096).lower()
    except OSError:
        wsl = False
    return tables.driver_platform(None, wsl)


def _via_nvidia_smi(ctx: ProbeContext, nvml_error: str | None, proc: str = "/proc") -> dict[str, Any]:
    smi = ctx.which("nvidia-smi")
    base = {"source": "nvidia-smi", "driver_version": None, "cuda_driver_version": None, "gpus": []}
    if nvml_error:
        base["nvml_error"] = nvml_error
    if smi is None:
        return {"status": "absent", **base, "source": None,
                "reason": "no NVIDIA driver: NVML does not load and nvidia-smi is not on PATH"}
    timeout = min(ctx.timeout, 10.0)

    def no_answer(res: Any) -> dict[str, Any]:
        why = (f"nvidia-smi did not answer within {timeout:g} s" if res.timed_out else
               f"nvidia-smi did not answer usefully: {res.error}")
        return unavailable(why, **base, nvidia_smi=smi, did_not_answer=True)

    res = ctx.run([smi, f"--query-gpu={QUERY_FIELDS}", "--format=csv,noheader"], timeout=timeout)
    if res.no_answer:
        return no_answer(res)
    with_cc = True
    if not res.ok and "compute_cap" in (res.stdout + res.stderr) and "valid field" in (res.stdout + res.stderr):
        # drivers before ~510 do not know compute_cap
        with_cc = False
        res = ctx.run([smi, f"--query-gpu={QUERY_FIELDS_OLD}", "--format=csv,noheader"], timeout=timeout)
        if res.no_answer:
            return no_answer(res)
    if not res.ok:
        whole = (res.stdout + "\n" + res.stderr).strip()
        kind, said = smi_exit_kind(res.returncode, whole)
        if kind:
            return _broken(kind, said, "nvidia-smi", proc, nvidia_smi=smi,
                           **({"nvml_error": nvml_error} if nvml_error else {}),
                           **({"exit_status_only": True, "reason": SMI_EXIT_9_SAID} if said != whole else {}))
        text = whole.splitlines()
        why = text[0][:300] if text else (res.error or f"exit status {res.returncode}")
        # "No devices were found": a driver without a visible GPU
        return {"status": "absent", **base, "nvidia_smi": smi, "reason": f"nvidia-smi failed: {why}"}
    gpus = parse_query_csv(res.stdout, with_cc)
    if not gpus:
        return unavailable("nvidia-smi printed no GPU rows it could read", **base, nvidia_smi=smi,
                           output_head=res.stdout[:200])
    drivers = {g.pop("driver_version") for g in gpus}
    driver = sorted(drivers, key=tables.version_key)[0]
    cuda = None
    hdr = ctx.run([smi], timeout=timeout)
    if hdr.ok:
        m = _CUDA_HDR.search(hdr.stdout)
        cuda = m.group(1) if m else None
    if _platform(proc) == "windows":
        # (round 32l) on Windows, and in WSL 2 (whose nvidia-smi prints the Windows host driver), the driver's number
        # is read against the Windows column of the release notes' tables
        base["platform"] = "windows"
    if cuda is None:
        # no header (hung or odd): the release table says what this driver supports at least
        cuda = tables.newest_cuda_for_driver(driver, base.get("platform") or "linux")
        base["cuda_driver_version_from"] = "table"
    return {"status": "ok", **base, "nvidia_smi": smi, "driver_version": driver,
            "cuda_driver_version": cuda, "gpus": gpus}


# --- per-GPU rows (the doctor per node) ------------------------------------------------------

GPU_FIELDS = ("index", "name", "uuid", "pci.bus_id", "driver_version", "compute_cap", "memory.total", "memory.free")
_PCI = re.compile(r"^\s*([0-9A-Fa-f]{4,8}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.[0-7]\s*$")

_TORCH_GPUS = (
    "import json, torch\n"
    "out = {'version': torch.__version__, 'cuda': torch.version.cuda, 'available': bool(torch.cuda.is_available()),"
    " 'devices': []}\n"
    "for i in range(torch.cuda.device_count() if out['available'] else 0):\n"
    "    p = torch.cuda.get_device_properties(i)\n"
    "    out['devices'].append({'torch_index': i, 'name': p.name, 'uuid': str(getattr(p, 'uuid', '') or ''),\n"
    "                           'pci': [getattr(p, a, None) for a in ('pci_domain_id', 'pci_bus_id', 'pci_device_id')],\n"
    "                           'compute_capability': f'{p.major}.{p.minor}'})\n"
    "print(json.dumps(out))\n"
)


def arch_of(cc: str | None) -> str | None:
    """``"9.0"`` -> ``"sm_90"`` (the name nvcc and torch's arch list use), else None."""
    m = re.fullmatch(r"([0-9]+)\.([0-9]+)", cc or "")
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


def pci_key(bus_id: object) -> tuple[int, int, int] | None:
    """(domain, bus, device) of an NVML / nvidia-smi bus id ``"00000000:19:00.0"``, else None."""
    m = _PCI.match(str(bus_id or ""))
    return (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)) if m else None


def uuid_key(uuid: object) -> str:
    """A GPU UUID without its ``GPU-`` prefix, lower case: NVML's and torch's spellings compare equal."""
    text = str(uuid or "").strip().lower()
    return text[4:] if text.startswith("gpu-") else text


def _gpu_row(g: dict[str, Any], driver: str | None) -> dict[str, Any]:
    cc = g.get("compute_capability")
    return {"index": g.get("index"), "name": g.get("name"), "uuid": g.get("uuid"), "pci_bus_id": g.get("pci_bus_id"),
            "driver_version": g.get("driver_version") or driver, "compute_capability": cc, "arch": arch_of(cc),
            "memory_total_bytes": g.get("memory_bytes"), "memory_free_bytes": g.get("memory_free_bytes")}


def parse_gpu_csv(text: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of ``nvidia-smi --query-gpu=<fields> --format=csv,noheader`` as per-GPU rows; malformed rows are
    skipped; a value ``[N/A]`` / ``[Not Supported]`` is None."""
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != len(fields) or not parts[fields.index("name")]:
            continue
        v = {f: (None if p.startswith("[") or p == "" else p) for f, p in zip(fields, parts)}
        if not (v.get("index") or "").isdigit() or not tables.parse_version(v.get("driver_version")):
            continue
        cc = v.get("compute_cap")
        if not re.fullmatch(r"[0-9]+\.[0-9]+", cc or ""):
            cc = tables.compute_capability_for_gpu(v["name"])
        uuid = v.get("uuid")
        out.append(_gpu_row({"index": int(v["index"]), "name": v["name"], "compute_capability": cc,
                             "uuid": uuid if uuid and uuid.startswith(("GPU-", "MIG-")) else None,
                             "pci_bus_id": v.get("pci.bus_id"), "driver_version": v["driver_version"],
                             "memory_bytes": _parse_memory(v["memory.total"] or ""),
                             "memory_free_bytes": _parse_memory(v.get("memory.free") or "")}, None))
    return out


def gpu_rows(ctx: ProbeContext, *, use_nvml: bool = True) -> dict[str, Any]:
    """Every GPU of this node, one row each: ``index`` (NVML / nvidia-smi order, the PCI bus order), ``name``,
    ``uuid``, ``pci_bus_id``, ``driver_version``, ``compute_capability``, ``arch`` (``sm_90``),
    ``memory_total_bytes``, ``memory_free_bytes``.

    NVML first, ``nvidia-smi --query-gpu`` when NVML does not load. NVML and nvidia-smi list every GPU
    of the node whatever this process's ``CUDA_VISIBLE_DEVICES`` says. Never raises: ``status`` is
    ``ok``, ``absent`` (no driver or no GPU), ``broken`` or ``unavailable`` (with ``reason``).
    """
    nvml_error = None
    if use_nvml:
        facts, nvml_error = _via_nvml(full=True)
        if facts is not None:
            return {"status": facts["status"], "source": "nvml",
                    "gpus": [_gpu_row(g, facts["driver_version"]) for g in facts["gpus"]]}
    smi = ctx.which("nvidia-smi")
    if smi is None:
        return {"status": "absent", "source": None, "gpus": [],
                "reason": "no NVIDIA driver: NVML does not load and nvidia-smi is not on PATH"}
    timeout = min(ctx.timeout, 10.0)
    fields = GPU_FIELDS
    res = ctx.run([smi, f"--query-gpu={','.join(fields)}", "--format=csv,noheader"], timeout=timeout)
    whole = res.stdout + res.stderr
    if not res.no_answer and not res.ok and "compute_cap" in whole and "valid field" in whole:
        fields = tuple(f for f in GPU_FIELDS if f != "compute_cap")  # drivers before ~510
        res = ctx.run([smi, f"--query-gpu={','.join(fields)}", "--format=csv,noheader"], timeout=timeout)
    base = {"source": "nvidia-smi", "gpus": [], **({"nvml_error": nvml_error} if nvml_error else {})}
    if res.no_answer:
        return unavailable(f"nvidia-smi did not answer within {timeout:g} s" if res.timed_out else
                           f"nvidia-smi did not answer usefully: {res.error}", **base)
    if not res.ok:
        text = (res.stdout + "\n" + res.stderr).strip()
        kind, said = smi_exit_kind(res.returncode, text)
        first = said.splitlines()[0][:300] if said else f"exit status {res.returncode}"
        return {"status": "broken" if kind else "absent", **base, "reason": f"nvidia-smi failed: {first}",
                **({"broken_kind": kind} if kind else {})}
    rows = parse_gpu_csv(res.stdout, fields)
    if not rows:
        return unavailable("nvidia-smi printed no GPU rows it could read", **base, output_head=res.stdout[:200])
    return {"status": "ok", **base, "gpus": rows}


def torch_gpus(ctx: ProbeContext, timeout: float | None = None) -> dict[str, Any]:
    """The CUDA devices torch sees *in a subprocess with this process's environment* (so with its
    ``CUDA_VISIBLE_DEVICES``): ``{"status": "ok", "available", "version", "cuda", "devices": [{"torch_index",
    "name", "uuid", "pci", "compute_capability"}]}``; ``status`` ``not_installed`` / ``unavailable`` with a
    ``reason`` otherwise. Never raises."""
    timeout = max(ctx.timeout, 60.0) if timeout is None else timeout
    res = ctx.run([ctx.python, "-c", _TORCH_GPUS], timeout=timeout)
    if res.no_answer:
        return unavailable(f"import torch did not finish within {timeout:g} s" if res.timed_out else
                           f"the torch check did not answer usefully ({res.error})")
    if not res.ok:
        tail = (res.stderr or res.error or "").strip().splitlines()
        last = tail[-1][:300] if tail else f"exit status {res.returncode}"
        if "No module named 'torch'" in last:
            return {"status": "not_installed", "reason": "torch is not installed for this Python", "devices": []}
        return unavailable(f"the torch check failed: {last}", devices=[])
    try:
        d = json.loads(res.stdout.strip().splitlines()[-1])
        devices = [x for x in d.get("devices") or [] if isinstance(x, dict)]
    except (ValueError, IndexError, AttributeError):
        return unavailable("could not read the torch check's output", devices=[])
    return {"status": "ok", "available": bool(d.get("available")), "version": d.get("version"),
            "cuda": d.get("cuda"), "devices": devices}


def match_torch(rows: list[dict[str, Any]], seen: dict[str, Any]) -> list[dict[str, Any]]:
    """``rows`` (from :func:`gpu_rows`) with ``torch_index``: the index torch gives the card in this process
    (None: torch does not see it, so ``CUDA_VISIBLE_DEVICES`` hides it or the driver fails), matched by UUID,
    else by PCI address; ``torch_sees`` is None when torch could not be asked."""
    asked = seen.get("status") == "ok"
    devices = seen.get("devices") or []
    out = []
    for r in rows:
        hit = None
        for d in devices:
            same_uuid = uuid_key(d.get("uuid")) and uuid_key(d.get("uuid")) == uuid_key(r.get("uuid"))
            pci = d.get("pci")
            same_pci = (pci_key(r.get("pci_bus_id")) is not None and isinstance(pci, list) and len(pci) == 3
                        and all(isinstance(x, int) for x in pci) and tuple(pci) == pci_key(r.get("pci_bus_id")))
            if same_uuid or (not uuid_key(d.get("uuid")) and same_pci):
                hit = d
                break
        out.append({**r, "torch_index": hit.get("torch_index") if hit else None,
                    "torch_sees": (hit is not None) if asked else None})
    return out


def list_gpus(*, timeout: float = 10.0, use_nvml: bool = True, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """:func:`gpu_rows` of this process's machine (``environ``'s ``PATH`` finds ``nvidia-smi``; default
    ``os.environ``). Never raises."""
    try:
        ctx = ProbeContext(timeout=float(timeout), **({"environ": dict(environ)} if environ is not None else {}))
        return gpu_rows(ctx, use_nvml=use_nvml)
    except Exception as exc:  # a broken NVML binding or an odd environment: reported, never raised
        return unavailable(f"the GPUs could not be listed: {type(exc).__name__}: {exc}", gpus=[])
