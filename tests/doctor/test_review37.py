"""Session 37's own mends after the rounds (blind audit 37 D, F6's last point): a rerun command keeps the arguments
the text ran the script with."""
from __future__ import annotations

import pytest

import smrnb
from tests.doctor._audit37_texts import T66

pytestmark = pytest.mark.filterwarnings("ignore")

# blind audit 37 D, t54 (its head): pdb's rerun keeps --workers 8
T54 = """$ python preprocess.py --workers 8
torch 2.1.1+cu121
Traceback (most recent call last):
  File "/usr/lib/python3.10/multiprocessing/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
  File "/home/hh/proj/preprocess.py", line 33, in process_frame
    d = torch.from_numpy(depth).cuda()
  File "/home/hh/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 284, in _lazy_init
    raise RuntimeError(
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
"""


def _commands(text: str) -> list[str]:
    r = smrnb.explain(text, live=False)
    return [c for f in r.findings for c in f.fix.commands]


def test_the_rerun_keeps_the_failing_argument():
    """Before: ``CUDA_LAUNCH_BLOCKING=1 python train.py`` (cuda:1 dropped: the rerun would run on GPU 0 and pass)."""
    runs = [c for c in _commands(T66) if "python train.py" in c]
    assert runs and all("python train.py --device cuda:1" in c for c in runs), runs


def test_pdb_rerun_keeps_the_arguments():
    runs = [c for c in _commands(T54) if "pdb -c continue" in c]
    assert runs and all("preprocess.py --workers 8" in c for c in runs), runs


@pytest.mark.parametrize("line", [
    "I ran python train.py and then it fails",          # prose after the script: no arguments
    "$ python train.py --device cuda:1\n$ python train.py --device cuda:0",  # two runs with different arguments
])
def test_no_arguments_where_the_text_does_not_give_one_set(line):
    text = T66.replace("$ python train.py --device cuda:1", line)
    runs = [c for c in _commands(text) if "python train.py" in c]
    assert runs and not any("--device" in c or " and " in c for c in runs), runs


DOCKER_NO_DRIVER = ('docker run --rm --gpus all nvidia/cuda:12.4.0-base-ubuntu22.04 nvidia-smi\n'
                    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n')


def test_docker_desktop_on_windows_gets_no_apt_install():
    """Round 37f's Container Toolkit install (apt, Debian/Ubuntu) is a Linux host's; Docker Desktop on Windows gives
    the GPU through its WSL 2 engine (before the merge review: the apt lines on a PowerShell text)."""
    win = _commands("PS C:\\Users\\ana> " + DOCKER_NO_DRIVER)
    assert not any("apt-get" in c for c in win), win
    assert any("WSL 2 based engine" in c for c in win), win
    linux = _commands("$ " + DOCKER_NO_DRIVER)
    assert any("apt-get install -y nvidia-container-toolkit" in c for c in linux), linux
