# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Rules of the context layer, and :func:`env_fix_commands`: how to set an environment variable
so that it reaches *this* kernel (Slurm job, JupyterHub spawner, systemd unit, conda env, shell).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from smrnb.doctor._codes import meanings, why
from smrnb.doctor._model import Finding, Fix
from smrnb.doctor.rules import Facts, rule
from smrnb.doctor.rules._events import builds, events, resolve

CODES = meanings("rules.context")  # this module's codes, from the one table (codes.py)


def layer(facts: Facts, name: str) -> dict[str, Any]:
    """The facts of one layer, or {} when missing or unavailable."""
    d = facts.get(name) or {}
    return d if isinstance(d, dict) and d.get("status") != "unavailable" else {}


def env_fix_commands(facts: Facts, assignments: Mapping[str, str], module: str | None = None) -> list[str]:
    """Copyable snippets that set ``assignments`` (``{"CUDA_HOME": "/usr/local/cuda-12.1"}``) where
    this kernel's environment really comes from. ``module`` is an environment-module name to load
    (``"cuda/12.1"``) on clusters that have them. The first snippet is the most specific one."""
    ctx = layer(facts, "context")
    jup = layer(facts, "jupyter")
    exports = [f"export {k}={shlex.quote(str(v))}" for k, v in assignments.items()]
    out: list[str] = []
    mods = (ctx.get("env_modules") or {}).get("system")
    if ctx.get("slurm"):
        lines = ["# in the sbatch script, before the command that starts Jupyter / python:"]
        if module and mods:
            lines.append(f"module load {module}")
        lines += exports
        out.append("\n".join(lines))
    if ctx.get("jupyterhub"):
        body = ", ".join(f"{k!r}: {str(v)!r}" for k, v in assignments.items())
        out.append("# jupyterhub_config.py (admin), then restart your server:\n"
                   f"c.Spawner.environment.update({{{body}}})")
    unit = ctx.get("systemd_unit")
    if unit:
        lines = [f"sudo systemctl edit {unit if unit != 'unknown.service' else '<jupyter unit>'}", "# add:", "[Service]"]
        lines += [f'Environment="{k}={v}"' for k, v in assignments.items()]
        lines.append(f"sudo systemctl restart {unit if unit != 'unknown.service' else '<jupyter unit>'}")
        out.append("\n".join(lines))
    if ctx.get("conda_env"):
        pairs = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in assignments.items())
        out.append(f"conda env config vars set {pairs}\nconda deactivate && conda activate {ctx.get('conda_env_name') or ctx['conda_env']}")
    spec = jup.get("kernelspec")
    if spec and spec.get("path"):
        out.append(f"# or in the kernelspec {spec['path']}/kernel.json (restart the kernel):\n"
                   + '"env": {' + ", ".join(f'"{k}": "{v}"' for k, v in assignments.items()) + "}")
    if ctx.get("container"):
        out.append("# in the image (Dockerfile):\n" + "\n".join(f"ENV {k}={v}" for k, v in assignments.items()))
    out.append("# ~/.bashrc (then restart Jupyter from that shell):\n" + "\n".join(exports))
    return out


def _slurm_export(s: Mapping[str, Any]) -> Iterable[Finding]:
    """``sbatch --export=NONE`` (or ``--export=A,B`` without ALL) starts the job without the submitting
    shell's variables: the CUDA ones a job needs are then missing unless the script sets them."""
    export = s.get("export_env")
    if export is None:
        return
    parts = [p.strip() for p in str(export).split(",") if p.strip()]
    names = {p.split("=", 1)[0] for p in parts}
    if "ALL" in {n.upper() for n in names}:
        return
    have = s.get("has_env") or {}
    dropped = [k for k in ("LD_LIBRARY_PATH", "CUDA_HOME") if k not in names and not have.get(k)]
    if not s.get("path_has_cuda") and "PATH" not in names:
        dropped.append("the CUDA entries of PATH")
    if not dropped:
        return  # the script set them again itself (module load, exports): nothing was lost
    keep = ",".join(["ALL"] + [n for n in names if n.upper() not in ("NONE", "NIL")])
    yield Finding("slurm_export_dropped_env", "context", "warning",
                  f"sbatch --export={export}: {', '.join(dropped)} did not reach the job",
                  (f"SLURM_EXPORT_ENV={export}", *(f"{k} is not set in the job" for k in ("LD_LIBRARY_PATH", "CUDA_HOME")
                                                  if k in dropped)),
                  Fix(why("slurm_export_dropped_env"),
                      (f"#SBATCH --export={keep}", "# or, in the script:\nmodule load cuda   # or: export "
                       "LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH CUDA_HOME=/usr/local/cuda",
                       "# for srun steps inside the job: srun --export=ALL ...")))


@rule("context")
def context_findings(facts: Facts) -> Iterable[Finding]:
    ctx = layer(facts, "context")
    if not ctx:
        return
    if ctx.get("slurm"):
        s = ctx["slurm"]
        yield Finding("context_slurm", "context", "info", f"Slurm job {s.get('job_id')}",
                      tuple(f"SLURM_{k.upper()}={v}" for k, v in s.items()),
                      Fix("A job's environment is the one of the submitting shell (sbatch --export) plus what the "
                          "script sets; put exports and module loads in the sbatch script.",
                          ("#SBATCH --export=ALL",)))
    if ctx.get("slurm"):
        yield from _slurm_export(ctx["slurm"])
    if ctx.get("jupyterhub"):
        yield Finding("context_jupyterhub", "context", "info", "Spawned by JupyterHub",
                      tuple(f"{n} is set" for n in ctx.get("jupyterhub_variables") or ()),
                      Fix("JupyterHub starts single-user servers with a clean environment: variables reach the "
                          "kernel only through c.Spawner.environment or c.Spawner.env_keep.",
                          ("c.Spawner.env_keep.append('LD_LIBRARY_PATH')",)))
    if ctx.get("systemd_unit"):
        yield Finding("context_systemd", "context", "info", f"Running under systemd ({ctx['systemd_unit']})",
                      (f"systemd unit: {ctx['systemd_unit']}",),
                      Fix("A service does not read ~/.bashrc or ~/.profile; set variables with Environment= lines.",
                          (f"sudo systemctl edit {ctx['systemd_unit']}",)))
    if ctx.get("container"):
        yield Finding("context_container", "context", "info", f"Inside a {ctx['container']} container",
                      (f"container: {ctx['container']}",))
    if ctx.get("conda_env"):
        yield Finding("context_conda", "context", "info", f"conda env {ctx.get('conda_env_name') or ctx['conda_env']}",
                      (f"CONDA_PREFIX={ctx['conda_env']}",))
    if ctx.get("venv"):
        yield Finding("context_venv", "context", "info", "virtualenv active", (f"venv: {ctx['venv']}",))
    nccl = ctx.get("nccl_socket_ifname")
    if isinstance(nccl, Mapping) and nccl.get("interfaces") and not nccl.get("matches"):
        value = str(nccl.get("value"))
        yield Finding("nccl_network_unreachable", "context", "error",
                      f"NCCL_SOCKET_IFNAME={value} matches none of this node's network interfaces",
                      (f"NCCL_SOCKET_IFNAME={value} (prefixes; '=' exact names; '^' excludes)",
                       f"this node's interfaces: {', '.join(map(str, nccl['interfaces'][:12]))}",
                       "NCCL fails with 'Bootstrap : no socket interface found' on this node"),
                      Fix(why("nccl_network_unreachable", "Here the variable names no interface of this node."),
                          ("ip -br addr   # the interfaces and their addresses",
                           f"export NCCL_SOCKET_IFNAME={_first_up(nccl['interfaces'])}   # one the nodes reach each "
                           "other on")))


def _first_up(names: list[str]) -> str:
    """An interface name to suggest: the first that is not loopback, docker or a virtual bridge (NCCL's own
    automatic choice skips those)."""
    return next((n for n in names if not str(n).startswith(("lo", "docker", "virbr", "veth"))), "<interface>")


# ------------------------------------------------------------------ container and Slurm messages
@rule("context")
def context_messages(facts: Facts) -> Iterable[Finding]:
    """The NVIDIA container toolkit's, Docker's, Kubernetes' and Slurm's messages about GPUs
    (tables/container_messages.csv, tables/slurm_gpu.csv), read in a text or produced by a probe."""
    evs = list(events(facts, "context", "message"))
    memory = any(ev.get("key") == "mem_spec_unsatisfiable" for ev in evs)
    for ev in evs:
        if ev.get("key") in _SLURM_ONLY_WITH_A_JOB and not layer(facts, "context").get("slurm"):
            continue  # CUDA_VISIBLE_DEVICES=0 means a job's renumbered GPU only inside a Slurm job
        if memory and ev.get("key") in _SLURM_REFUSAL_ROWS and "node configuration" in str(ev.get("line") or ""):
            # (round 31b) slurmctld's _set_err_msg names the reason of this same refusal on the line before
            # ('Memory specification can not be satisfied'): the memory asked for, not a GPU, was refused
            continue
        yield from resolve(facts, ev)


#: Slurm rows that are a cause only inside a job (the table's sign needs the job for company)
_SLURM_ONLY_WITH_A_JOB = frozenset({"cvd_local_indices"})
#: (round 31b) the rows of Slurm's generic refusal, whose reason another line may name
_SLURM_REFUSAL_ROWS = frozenset({"node_config", "unable_to_allocate"})
#: a partition a Slurm command of the text names (``srun -p gpu``, ``sbatch --partition=gpu``, ``#SBATCH -p gpu``; not
#: the ``-p`` inside ``--cpus-per-task``)
_PARTITION_RE = re.compile(r"(?:#SBATCH|sbatch|srun|salloc)[^\n]*?(?:--partition[= ]|(?<![\w-])-p ?)([A-Za-z0-9_.-]{1,40})")


def slurm_partition(text: str) -> str | None:
    """The partition the text's first Slurm command that names one asks for (``srun -p gpu``: ``gpu``); None where
    none does. The one reading of it: this rule's fix and :mod:`smrnb.doctor._printed`'s share it."""
    m = _PARTITION_RE.search(text)
    return m.group(1) if m else None


@builds("slurm_memory_request_rejected")
def _slurm_memory(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """(round 31b) Slurm refused the job's memory request: the partition's memory per node, and the request lowered."""
    p = slurm_partition(_lines_read(facts)) or "<partition>"
    return {"title": "Slurm refused the job at submission: no node of the partition can give it the memory it asks "
                     "for (--mem / --mem-per-cpu)",
            "commands": [f"sinfo -p {p} -o '%P %m %c %D'   # memory (MB) per node, CPUs, node count",
                         f"scontrol show partition {p} | grep -i -e MaxMem -e DefMem   # the partition's limits",
                         "#SBATCH --mem=<GB>G   # at most what a node offers (RealMemory less the site's reserve); "
                         "or leave --mem out where the site sets a default"]}


@builds("container_shm_too_small")
def _shm(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    ctx = layer(facts, "context")
    k8s = "kubectl" in str(ev.get("line") or "") or ctx.get("container") == "kubernetes"
    what = "NCCL's shared-memory transport" if "nccl" in str(ev.get("key") or ev.get("line") or "").lower() else \
        "DataLoader workers" if "worker" in str(ev.get("line") or "").lower() else "shared memory"
    cmds = ["df -h /dev/shm   # inside the container: 64M is Docker's default",
            "docker run --ipc=host ...   # or --shm-size=16g (docker compose: shm_size: '16gb')"]
    if k8s or not ctx.get("container"):
        cmds.append("# Kubernetes: mount an emptyDir with medium: Memory (sizeLimit: 16Gi) at /dev/shm")
    cmds.append("NCCL_SHM_DISABLE=1 python ...   # NCCL without shared memory (slower); DataLoader: num_workers=0")
    return {"title": f"/dev/shm is too small for {what}" + (" in this container" if ctx.get("container") else ""),
            "commands": cmds}


# ------------------------------------------------------------------ round 25: the host's ports and memory
#: a port a message names ("port: 29500", "bind to [::]:29500", "port 8888", "127.0.0.1:6006")
_PORT_RE = re.compile(r"\b[Pp]ort:?\s{0,2}(\d{2,5})\b|\]:(\d{2,5})\b|\b(?:\d{1,3}\.){3}\d{1,3}:(\d{2,5})\b|"
                      r"\blocalhost:(\d{2,5})\b")


def _lines_read(facts: Facts) -> str:
    """Every line the text reader took a fact or an event from (what the text shows of the tools that ran)."""
    out: list[str] = []
    for d in facts.values():
        if isinstance(d, dict):
            out += [str(v) for v in (d.get("read_from") or {}).values()]
            out += [str(e.get("line") or "") for e in d.get("events") or () if isinstance(e, dict)]
    return "\n".join(out)


def _port_of(ev: Mapping[str, Any], facts: Facts, read: str) -> str:
    """The port the failing server asked for: the row's own group, else one the event's line (or, for
    torch.distributed, MASTER_PORT set in the text) names, else the one the text shows the code or a tool asking to
    bind (``context.bind_port``: socket.bind, a server's address tuple, port=, host:port). ``read``: the lines the
    text reader read (:func:`_lines_read`)."""
    port = str((ev.get("groups") or {}).get("port") or "")
    if port:
        return port
    m = _PORT_RE.search(str(ev.get("line") or ""))
    if m:
        return next(g for g in m.groups() if g)
    m = re.search(r"\bMASTER_PORT[=:]\s?(\d{2,5})\b|--master_port[= ](\d{2,5})\b", read)
    if m:
        return next(g for g in m.groups() if g)
    return str((facts.get("context") or {}).get("bind_port") or "")  # the port the code or a tool asked to bind


#: each tool's own default port, used where the text names none (torchrun/torch.distributed.launch --master-port 29500,
#: Jupyter's ServerApp.port 8888, TensorBoard's --port 6006, Gradio's server_port 7860, Dask's scheduler 8786 and
#: dashboard 8787: each tool's documented default)
_DEFAULT_PORTS = {"torch.distributed": "29500", "Jupyter": "8888", "TensorBoard": "6006", "Gradio": "7860",
                  "Dask": "8787"}


def _port_tool(key: str, text: str) -> str:
    """The tool whose server failed to bind, by the row that read it or the text's words ("" when none)."""
    if key == "tensorboard_port_in_use" or "tensorboard" in text and key != "gradio_no_empty_port":
        return "TensorBoard"
    if key == "gradio_no_empty_port" or "gradio" in text:
        return "Gradio"
    if any(w in text for w in ("torch.distributed", "torchrun", "master_port", "tcpstore", "distnetworkerror", "c10d",
                               "server socket", "init_process_group")):
        return "torch.distributed"
    if "dask" in text or "distributed/node.py" in text or "perhaps you already have a cluster running" in text:
        return "Dask"
    if "uvicorn" in text:
        return "uvicorn"
    if "is in use by another program" in text or "werkzeug" in text:  # (round 27b) werkzeug's run_simple's own words
        return "Flask/werkzeug"
    if any(w in text for w in ("notebookapp", "serverapp", "labapp", "jupyter")):
        return "Jupyter"
    return ""


@builds("port_in_use")
def _port_in_use(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """A port another process holds: who holds it, and the tool's own way to another port (torchrun's
    --master_port, jupyter's and tensorboard's --port, Dask's dashboard address, Gradio's server_port). Where the
    text names no port, the tool's default (:data:`_DEFAULT_PORTS`), said so; with no tool either, every listening
    port: each command runs as printed."""
    read = _lines_read(facts)
    text = (str(ev.get("line") or "") + "\n" + read).lower()
    tool = _port_tool(str(ev.get("key") or ""), text)
    port = _port_of(ev, facts, read)
    said = port
    if not port and tool in _DEFAULT_PORTS:
        port = _DEFAULT_PORTS[tool]
    windows = (facts.get("context") or {}).get("os") == "windows" or "winerror" in text or "wsa" in text
    # macOS has no ss: lsof there (its errno 48 for EADDRINUSE, a /Users/ or Homebrew path)
    mac = (facts.get("context") or {}).get("os") == "macos" or "errno 48]" in text or "/users/" in text
    if port and mac and not windows:
        find = f"lsof -nP -i :{port}   # the process holding the port; kill <pid> stops it"
    elif port:
        find = (f"netstat -ano | findstr :{port}   # the PID holding the port; taskkill /PID <pid> /F stops it" if windows
                else f"ss -ltnp | grep ':{port}'   # the process holding the port (or: lsof -i :{port}); kill <pid> stops it")
    else:
        find = ("netstat -ano   # every listening port and the PID holding it; taskkill /PID <pid> /F stops it" if windows
                else "lsof -nP -iTCP -sTCP:LISTEN   # every listening port and the process holding it; kill <pid> stops it"
                if mac else "ss -ltnp   # every listening port and the process holding it; kill <pid> stops it")
    other = str(int(port) + 1) if port.isdigit() and int(port) < 65535 else "0"
    if tool == "TensorBoard":
        m = re.search(r"--logdir[= ]([^\s'\"]{1,200})", read)
        cmd = (f"tensorboard --logdir {m.group(1) if m else 'runs'} --port {other}   # --port 0: any free port"
               + ("" if m else "; runs/ is where torch's SummaryWriter writes by default, else your log dir"))
    elif tool == "Gradio":
        cmd = f"GRADIO_SERVER_PORT={other} python app.py   # your app's script; or demo.launch(server_port={other})"
    elif tool == "torch.distributed":
        cmd = (f"torchrun --master_port {other} ...   # or MASTER_PORT={other} for torch.distributed.launch / "
               "init_process_group; one port per job on a machine")
    elif tool == "uvicorn":
        cmd = f"uvicorn main:app --port {other}   # main: your app's module; in code: uvicorn.run(app, port={other})"
    elif tool == "Flask/werkzeug":
        cmd = (f"flask run --port {other}   # or in the code: app.run(port={other}) (Dash: app.run(port={other})); "
               "werkzeug's own message: stop that program or start the server with a different port")
    elif tool == "Dask":
        cmd = "client.close(); cluster.close()   # the earlier cluster; or Client(dashboard_address=':0')"
    elif tool == "Jupyter":
        cmd = f"jupyter server list   # the servers running; jupyter server stop {port}, or jupyter lab --port {other}"
    else:
        cmd = "# start the server on another port, or on port 0 where the tool picks a free one"
    name = said or (f"{port} (the {tool} default; the text names none)" if port else "(the one asked for)")
    return {"title": f"Port {name} is already held by another process" + (f" ({tool})" if tool else ""),
            "commands": [find, cmd]}


#: library_messages rows of the host's memory running out (round 25)
HOST_MEMORY_ROWS = frozenset({"dataloader_worker_killed", "kernel_oom_killer", "shell_reports_killed",
                              "slurm_job_memory_limit_killed",
                              "python_memory_error", "numpy_unable_to_allocate", "windows_paging_file_too_small",
                              "compiler_killed_out_of_memory"})
#: rows whose words also name a GPU library's failed allocation (cudf/rmm raise MemoryError for device memory)
_GENERIC_HOST_ROWS = frozenset({"python_memory_error", "shell_reports_killed"})


def gpu_memory_named(facts: Facts) -> bool:
    """Whether the text reads a GPU's memory running out anywhere (a reading of cuda_oom: torch's allocator, a CUDA
    error of a failed allocation, a GPU library's out-of-memory row): then a bare MemoryError or 'Killed' is that."""
    return any("cuda_oom" in (e.get("codes") or ()) or e.get("sign") in ("oom", "oom_said")
               or str(e.get("name") or "") in ("cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY")
               for e in events(facts))


def host_memory_codes(facts: Facts, ev: Mapping[str, Any]) -> list[str] | None:
    """The codes of a host-memory row (:data:`HOST_MEMORY_ROWS`): none where the row's words are generic (a bare
    MemoryError, 'Killed') and the text reads the GPU's memory running out (its own rows decide); else the row's."""
    if ev.get("key") in _GENERIC_HOST_ROWS and gpu_memory_named(facts):
        return []
    return None


@builds("host_memory_exhausted")
def _host_memory(facts: Facts, ev: dict[str, Any]) -> dict[str, Any]:
    """The host's memory exhausted: what the kernel says it killed, and the way to use less memory at once for the
    kind of process that was killed (a DataLoader's workers, a parallel build, Windows' paging file, an array)."""
    key, line = str(ev.get("key") or ""), str(ev.get("line") or "")
    windows = key == "windows_paging_file_too_small" or (facts.get("context") or {}).get("os") == "windows"
    look = ("# Task Manager > Performance > Memory: 'Committed' against its limit (RAM + paging file)" if windows else
            "free -h; dmesg -T | grep -i -e 'out of memory' -e oom-kill   # the process the kernel killed "
            "(journalctl -k; in a Slurm job: sacct -j <job> -o JobID,MaxRSS,ReqMem,State)")
    if key == "compiler_killed_out_of_memory":
        return {"title": "A compiler of a parallel build was killed: the build ran out of host memory",
                "commands": [look, "MAX_JOBS=2 pip install --no-build-isolation -v <package>   # fewer "
                             "parallel compilers (torch's cpp_extension reads MAX_JOBS; make -j2, "
                             "CMAKE_BUILD_PARALLEL_LEVEL=2 for other builds)"]}
    if key == "slurm_job_memory_limit_killed":
        # (round 31b) Slurm's accounting killed the step for passing the job's own memory limit, not the node's
        return {"title": "Slurm killed the job step: it used more memory than the job asked for (--mem)",
                "commands": ["sacct -j <jobid> -o JobID,State,ReqMem,MaxRSS   # what it asked for against its peak",
                             "#SBATCH --mem=<GB>G   # more than MaxRSS (up to what a node offers: sinfo -o '%P %m')",
                             "# or less data in memory at once: a smaller batch, fewer DataLoader workers"]}
    if key == "windows_paging_file_too_small":
        return {"title": "Windows' commit limit was reached (the paging file is too small): the host's memory ran out",
                "commands": [look, "# System > Advanced system settings > Performance > Settings > Advanced > Virtual "
                             "memory: a larger paging file (or system managed) on the drive with space, then restart",
                             "# fewer processes loading torch at once: DataLoader(num_workers=0 or 2)"]}
    worker = key == "dataloader_worker_killed" or "worker" in line.lower()
    size = str((ev.get("groups") or {}).get("size") or "")
    return {"title": ("A DataLoader worker was killed: the host's memory ran out" if worker else
                      f"The host's memory ran out (an array of {size} could not be allocated)" if size else
                      "The process was killed or refused memory: the host's (CPU) memory ran out, not the GPU's"),
            "commands": [look, "# in the Python code: DataLoader(..., num_workers=2, prefetch_factor=2)   # each worker holds its own copy of "
                         "what the dataset keeps in memory" if worker else
                         "# less data in memory at once: a smaller batch or chunk, float32/float16 for float64, "
                         "np.memmap or a dataset that reads from disk",
                         "# or more memory for the job: Slurm --mem=<GB>G, docker run --memory <GB>g, more swap"]}
