# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 25's blind audit of the new codes (a helper given README, docs/troubleshooting.md and CODES.md only wrote 77
texts from its own knowledge and ran them; /work/audit25 in the session's notes): the outputs it found wrong, as
tests. A port the text names (a c10d address, socket.bind's tuple, a server's address, asyncio's bind message) is the
port in the title and in the commands, lsof on macOS; a misspelt import of a widely used package gets no install
command (typo-squatting); code meeting a Jupyter kernel reads so only where the text shows a kernel (or an interactive
__main__), the script's own doing otherwise, and the kernel's reading comes before a library's bug."""

from __future__ import annotations

import pytest

from smrnb.doctor import explain

CASES = {
    "port10": "RuntimeError: Address already in use\nTraceback (most recent call last):\n  File \"/home/u/.venv/bin/torchrun\", line 8, in <module>\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \ntrain.py FAILED\n[W socket.cpp:426] [c10d] The server socket cannot be initialized on [::]:12355 (errno: 97 - Address family not supported by protocol).\n[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:12355\nRuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to 0.0.0.0:12355 (errno: 98 - Address already in use).",
    "port6": "Traceback (most recent call last):\n  File \"server.py\", line 12, in <module>\n    s.bind((\"0.0.0.0\", 5000))\nOSError: [Errno 98] Address already in use",
    "port7": "Traceback (most recent call last):\n  File \"/Users/me/srv.py\", line 9, in <module>\n    httpd = HTTPServer(('', 8000), Handler)\n  File \"/usr/local/Cellar/python@3.11/3.11.6/Frameworks/Python.framework/Versions/3.11/lib/python3.11/socketserver.py\", line 456, in __init__\n    self.server_bind()\nOSError: [Errno 48] Address already in use",
    "port8": "Traceback (most recent call last):\n  File \"C:\\srv\\main.py\", line 30, in <module>\n    uvicorn.run(app, host=\"127.0.0.1\", port=8000)\nERROR:    [Errno 10048] error while attempting to bind on address ('127.0.0.1', 8000): only one usage of each socket address (protocol/network address/port) is normally permitted",
    "port9": "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8080): address already in use\nINFO:     Waiting for application shutdown.",
    "x11": "  File \"/usr/lib/python3.10/asyncio/base_events.py\", line 1463, in create_server\n    raise OSError(err.errno, 'error while attempting '\nOSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 7860): address already in use",
    "sck2": "---------------------------------------------------------------------------\nRuntimeError                              Traceback (most recent call last)\nCell In[5], line 2\n----> 2 loop.run_until_complete(fetch_all())\nFile ~/miniconda3/lib/python3.10/asyncio/base_events.py:625, in BaseEventLoop.run_until_complete(self, future)\nRuntimeError: This event loop is already running",
    "sck3": "Process SpawnProcess-1:\nTraceback (most recent call last):\n  File \"/Users/me/miniforge3/lib/python3.11/multiprocessing/process.py\", line 314, in _bootstrap\n    self.run()\n  File \"/Users/me/miniforge3/lib/python3.11/multiprocessing/spawn.py\", line 132, in _main\n    self = reduction.pickle.load(from_parent)\nAttributeError: Can't get attribute 'worker' on <module '__main__' (built-in)>",
    "nm12": "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 30, in <module>\n    main()\n  File \"/home/u/run.py\", line 25, in main\n    asyncio.run(serve())\nRuntimeError: asyncio.run() cannot be called from a running event loop",
    "x3": "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\n    import pandsa as pd\nModuleNotFoundError: No module named 'pandsa'"
}


@pytest.mark.parametrize(("case", "port", "finder"), [
    ("port10", "12355", "ss -ltnp | grep ':12355'"),  # torchrun: the c10d line's [::]:12355, not the default 29500
    ("port6", "5000", "ss -ltnp | grep ':5000'"),  # s.bind(("0.0.0.0", 5000))
    ("port7", "8000", "lsof -nP -i :8000"),  # macOS (errno 48, /Users/): no ss there
    ("port8", "8000", "netstat -ano | findstr :8000"),  # Windows uvicorn: asyncio's bind message, WinError 10048's words
    ("port9", "8080", "ss -ltnp | grep ':8080'"),  # asyncio's lower-cased strerror
    ("x11", "7860", "ss -ltnp | grep ':7860'"),
])
def test_the_port_the_text_names_is_the_one_printed(case, port, finder):
    rep = explain(CASES[case], live=False)
    assert rep.codes[0] == "port_in_use", rep.codes
    f = rep.findings[0]
    cmds = "\n".join(f.fix.commands)
    assert f"Port {port} " in f.title and finder in cmds, (f.title, cmds)
    assert "<port>" not in cmds and "<another free port>" not in cmds, cmds


@pytest.mark.parametrize("name", ["pandsa", "tqmd", "matplotlb", "seabron", "reqeusts"])
def test_a_misspelt_common_package_gets_no_install_command(name):
    text = (f'Traceback (most recent call last):\n  File "p.py", line 1, in <module>\n    import {name}\n'
            f"ModuleNotFoundError: No module named '{name}'\n")
    rep = explain(text, live=False)
    assert "python_package_missing" not in rep.codes, rep.codes
    assert f"install {name}" not in rep.to_text(verbose=True)


@pytest.mark.parametrize("name", ["pandas", "tqdm", "plyfile", "cv2"])
def test_a_real_package_missing_still_gets_its_install(name):
    text = (f'Traceback (most recent call last):\n  File "p.py", line 1, in <module>\n    import {name}\n'
            f"ModuleNotFoundError: No module named '{name}'\n")
    assert explain(text, live=False).codes[:1] == ["python_package_missing"]


@pytest.mark.parametrize(("case", "first", "absent"), [
    ("sck2", "script_code_in_kernel", ""),  # IPython's Cell In[5]: the kernel's loop, before a library's bug
    ("sck3", "script_code_in_kernel", ""),  # a spawned worker's "<module '__main__' (built-in)>": interactive
    ("nm12", "user_code_error", "script_code_in_kernel"),  # /home/u/run.py nesting asyncio.run: no notebook at all
])
def test_code_meeting_a_kernel_reads_so_only_where_the_text_shows_one(case, first, absent):
    rep = explain(CASES[case], live=False)
    assert rep.codes[:1] == [first], rep.codes
    if absent:
        assert absent not in rep.codes, rep.codes


def test_the_kernel_finding_prints_no_placeholder():
    rep = explain(CASES["sck2"], live=False)
    f = next(f for f in rep.findings if f.code == "script_code_in_kernel")
    assert not any("<" in c.split("#")[0] for c in f.fix.commands), f.fix.commands
