# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 27e: what blind audit 27 (Python-level error texts) found: a private index kept in every pip command (never a
bare name that public PyPI would serve: dependency confusion), torch companions never pinned alone, commands that run
in cmd, values the text gives instead of placeholders, no torch reinstall where nothing points to it, a library's own
assertion with the release that fixed it, Python's "Did you mean" typo, and four tools' own messages."""

from __future__ import annotations

import re

import pytest

from smrnb.doctor._explain import explain_result
from smrnb.doctor.rules._abi import companion_for_torch


def _found(text: str) -> list:
    return list(explain_result(text, similar=False).findings)


def _codes(text: str) -> list[str]:
    return [f.code for f in _found(text) if not f.code.startswith("context_")]


def _all_commands(text: str) -> list[str]:
    return [c for f in _found(text) for c in (f.fix.commands if f.fix else ())]


def _all_words(text: str) -> str:
    return "\n".join(" ".join([f.title, f.fix.why if f.fix else "", *(f.fix.commands if f.fix else ()), *f.evidence])
                     for f in _found(text))


# ---- 1. a private index: never a bare name, never PyPI's page, never the credentials ----

PRIVATE = [
    ("% pip install --index-url https://alice:S3cr3tPassw0rd@pypi.corp.example.com/simple internal-utils\n"
     "Looking in indexes: https://alice:****@pypi.corp.example.com/simple\n"
     "ERROR: Could not find a version that satisfies the requirement internal-utils (from versions: none)\n"
     "ERROR: No matching distribution found for internal-utils\n", "--index-url", "pypi.corp.example.com/simple",
     "S3cr3tPassw0rd"),
    ("$ pip install -i https://deploy:gh7Kq2LmZx9WvB4@nexus.acme.io/repository/pypi/simple acme-core==1.4\n"
     "ERROR: Could not find a version that satisfies the requirement acme-core==1.4 (from versions: none)\n"
     "ERROR: No matching distribution found for acme-core==1.4\n", "--index-url", "nexus.acme.io/repository/pypi/simple",
     "gh7Kq2LmZx9WvB4"),
    ("$ pip install --extra-index-url https://__token__:Tk_8fjQ2mZp0Lx7Rw@gitlab.acme.dev/api/v4/projects/12/packages/"
     "pypi/simple mlkit\n"
     "Looking in indexes: https://pypi.org/simple, https://__token__:****@gitlab.acme.dev/api/v4/projects/12/packages/"
     "pypi/simple\n"
     "Traceback (most recent call last):\n  File \"/home/u/run.py\", line 1, in <module>\n    import mlkit\n"
     "ModuleNotFoundError: No module named 'mlkit'\n", "--extra-index-url", "gitlab.acme.dev/api/v4/projects/12",
     "Tk_8fjQ2mZp0Lx7Rw"),
]


@pytest.mark.parametrize(("text", "opt", "host", "secret"), PRIVATE)
def test_a_private_index_stays_in_every_pip_command(text, opt, host, secret):
    cmds = _all_commands(text)
    fetch = [c for c in cmds if re.search(r"\bpip3? (?:install|download|index versions)\b", c)]
    assert fetch, cmds
    for c in fetch:
        assert opt in c and host in c and "<user>:<token>@" in c, c
    words = _all_words(text)
    assert secret not in words
    assert "pypi.org/project/" not in words


@pytest.mark.parametrize("text", [
    # PyPI itself, PyTorch's index, a public mirror: nothing private to keep
    "$ pip install --index-url https://download.pytorch.org/whl/cu121 torchvision==0.99\n"
    "ERROR: Could not find a version that satisfies the requirement torchvision==0.99 (from versions: 0.16.0)\n",
    "$ pip install -i https://pypi.tuna.tsinghua.edu.cn/simple foo-bar-baz\n"
    "ERROR: Could not find a version that satisfies the requirement foo-bar-baz (from versions: none)\n",
])
def test_near_miss_a_public_index_is_not_written_into_the_commands(text):
    assert not any("<user>:<token>" in c for c in _all_commands(text))


# ---- 2. a torch companion never pinned alone ----

@pytest.mark.parametrize("text", [
    "Traceback (most recent call last):\n"
    '  File "C:\\Users\\li\\GFPGAN\\inference_gfpgan.py", line 7, in <module>\n    from basicsr.utils import imwrite\n'
    '  File "C:\\Users\\li\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\basicsr\\data\\'
    'degradations.py", line 8, in <module>\n'
    "    from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"
    "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'\n",
    "Traceback (most recent call last):\n  File \"/home/a/Real-ESRGAN/inference.py\", line 5, in <module>\n"
    "    from basicsr.archs.rrdbnet_arch import RRDBNet\n"
    "  File \"/home/a/.venv/lib/python3.11/site-packages/basicsr/data/degradations.py\", line 8, in <module>\n"
    "    from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"
    "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'\n",
])
def test_a_removed_torchvision_module_changes_the_code_first_and_pins_the_pair(text):
    cmds = _all_commands(text)
    assert not any(re.search(r'pip install "torchvision<', c) for c in cmds), cmds
    first = next(i for i, c in enumerate(cmds) if "change the code" in c)
    pin = next(i for i, c in enumerate(cmds) if "torchvision==0.16" in c)
    assert first < pin and "torch==2.1" in cmds[pin] and "download.pytorch.org" in cmds[pin], cmds


@pytest.mark.parametrize(("lib", "torch", "want"), [
    ("torchvision", "2.3.0", "0.18.0"), ("torchvision", "2.4.1", "0.19.1"), ("torchvision", "2.0.1", "0.15.2"),
    ("torchaudio", "2.1.0", "2.1.0"), ("torchaudio", "1.13.1", "0.13.1"), ("torchvision", "2.5", "0.20.*"),
    ("torchvision", "3.9.0", ""), ("torchvision", "", "")])
def test_the_companion_of_a_torch_release_is_the_pairing_tables(lib, torch, want):
    assert companion_for_torch(lib, torch) == want


@pytest.mark.parametrize(("text", "want", "who"), [
    ("Traceback (most recent call last):\n  File \"/home/j/det.py\", line 3, in <module>\n    import torchvision\n"
     "RuntimeError: operator torchvision::nms does not exist\ntorch 2.3.0, torchvision 0.16.0\n",
     "torchvision==0.18.0", "torchvision"),
    ("OSError: /home/l/.venv/lib/python3.10/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
     "_ZN2at4_ops9fft_irfft4callERKNS_6TensorEN3c108optionalINS5_6SymIntEEElNS6_ISt17basic_string_viewIcSt11char_"
     "traitsIcEEEE\ntorch 2.1.0 torchaudio 2.0.2\n", "torchaudio==2.1.0", "torchaudio"),
    ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
     "This behaviour is the source of the following dependency conflicts.\n"
     "torchvision 0.18.0 requires torch==2.3.0, but you have torch 2.4.0 which is incompatible.\n"
     "Successfully installed torch-2.4.0\n", "torchvision==0.19.0", "torchvision"),
])
def test_a_companion_mismatch_installs_the_companion_of_the_installed_torch(text, want, who):
    cmds = [c for f in _found(text) if f.code == "companion_built_for_other_torch" for c in f.fix.commands]
    assert any(want in c and "--force-reinstall" not in c for c in cmds), cmds
    assert not any("<the matching release>" in c for c in cmds), cmds
    assert any(f"import torch, {who};" in c for c in cmds), cmds


# ---- 3. commands that run in cmd ----

def test_use_libuv_in_cmd_is_a_quoted_set_with_the_note_after_rem():
    text = ("C:\\proj>python train.py\n"
            "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was build without libuv support\n")
    cmds = _all_commands(text)
    line = next(c for c in cmds if "USE_LIBUV" in c)
    assert line.startswith('set "USE_LIBUV=0"') and "& rem" in line, cmds


@pytest.mark.parametrize("prompt", ["(myenv) C:\\Users\\tom> ", "C:\\Users\\tom>"])
def test_the_jupyter_subcommand_fix_in_cmd_has_no_bash(prompt):
    cmds = _all_commands(prompt + "jupyter lab\nJupyter command `jupyter-lab` not found.\n")
    assert cmds and not any(re.search(r"\bhead -1\b|\$\(|\bwhich\b", c) for c in cmds), cmds
    assert any(c.startswith("where jupyter") for c in cmds), cmds


# ---- 4. the release the text says fixed it, in place of a placeholder ----

@pytest.mark.parametrize(("tail", "want"), [
    ("It's a bug in 4.38.0, fixed in 4.38.1 per the release notes.\n", 'pip install "transformers>=4.38.1"'),
    ("fixed in transformers 4.38.1\n", 'pip install "transformers>=4.38.1"'),
])
def test_a_release_the_text_says_fixed_it_fills_the_command(tail, want):
    text = ("Just pip installed transformers 4.38.0, the same script worked on 4.37.2:\n"
            "Traceback (most recent call last):\n  File \"/home/h/chat.py\", line 20, in <module>\n"
            "    out = model.generate(**inputs, max_new_tokens=50)\n"
            "  File \"/home/h/.venv/lib/python3.10/site-packages/transformers/models/gemma/modeling_gemma.py\", line 885,"
            " in _update_causal_mask\n    causal_mask = torch.triu(causal_mask, diagonal=1)\n"
            "RuntimeError: \"triu_tril_cuda_template\" not implemented for 'BFloat16'\n" + tail)
    cmds = _all_commands(text)
    assert any(c.startswith(want) for c in cmds), cmds
    assert not any("<the release the text says works>" in c for c in cmds), cmds


# ---- 5. no torch reinstall for NCCL on Windows ----

@pytest.mark.parametrize("prompt", ["PS C:\\Users\\wu\\ddp> ", "C:\\Users\\wu\\ddp>"])
def test_nccl_on_windows_is_the_backend_not_a_torch_reinstall(prompt):
    text = (prompt + "python -m torch.distributed.run --nproc_per_node 2 train.py\n"
            "Traceback (most recent call last):\n  File \"C:\\Users\\wu\\ddp\\train.py\", line 20, in <module>\n"
            "    dist.init_process_group(backend=\"nccl\")\nRuntimeError: Distributed package doesn't have NCCL built in\n")
    assert _codes(text)[:1] == ["user_code_error"]
    assert "cpu_only_torch_with_gpu" not in _codes(text)
    assert not any("--force-reinstall torch" in c for c in _all_commands(text))


def test_near_miss_nccl_on_linux_keeps_the_cpu_build_reading():
    text = ("Traceback (most recent call last):\n  File \"/home/wu/ddp/train.py\", line 20, in <module>\n"
            "    dist.init_process_group(backend=\"nccl\")\nRuntimeError: Distributed package doesn't have NCCL built in\n")
    assert "cpu_only_torch_with_gpu" in _codes(text)


# ---- 6. a library's own assertion, and no CUDA advice without CUDA ----

PANDAS = ("Traceback (most recent call last):\n  File \"/home/w/etl.py\", line 55, in <module>\n"
          "    out = df.groupby(\"k\").agg(total=(\"v\", \"sum\"))\n"
          "  File \"/home/w/.venv/lib/python3.11/site-packages/pandas/core/internals/managers.py\", line 1056, in "
          "_verify_integrity\n    raise AssertionError(\n"
          "AssertionError: Number of manager items must equal union of block items\n")


@pytest.mark.parametrize("tail", ["pandas 2.2.0 - fixed in 2.2.1 according to the changelog\n",
                                  "pandas==2.2.0 here; the changelog says fixed in 2.2.1\n"])
def test_a_library_assertion_a_release_fixed_is_its_bug(tail):
    text = PANDAS + tail
    assert _codes(text)[:1] == ["library_bug"]
    cmds = _all_commands(text)
    assert any(c.startswith('pip install "pandas>=2.2.1"') for c in cmds), cmds
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in cmds), cmds


def test_near_miss_the_assertion_without_a_fixing_release_keeps_its_readings():
    assert _codes(PANDAS)[:1] == ["package_api_version_mismatch"]
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in _all_commands(PANDAS))


# ---- 7. Python's "Did you mean" typo; a removal after "upgrading" ----

@pytest.mark.parametrize(("asked", "meant"), [("train_laoder", "train_loader"), ("optimzer", "optimizer"),
                                              ("batch_szie", "batch_size")])
def test_did_you_mean_a_typo_away_is_the_codes_error_first(asked, meant):
    text = ("Traceback (most recent call last):\n  File \"/home/n/proj/main.py\", line 40, in <module>\n"
            "    trainer.fit()\n  File \"/home/n/proj/mytrainer.py\", line 88, in fit\n"
            f"    for batch in self.{asked}:\n"
            f"AttributeError: 'MyTrainer' object has no attribute '{asked}'. Did you mean: '{meant}'?\n")
    assert _codes(text)[:1] == ["user_code_error"]
    assert any(meant in c for c in _all_commands(text))


def test_near_miss_did_you_mean_a_renamed_member_is_not_a_typo():
    text = ("Traceback (most recent call last):\n  File \"/home/n/proj/train.py\", line 12, in <module>\n"
            "    runner.add_gaussian_splats(x)\n"
            "AttributeError: 'Runner' object has no attribute 'add_gaussian_splats'. Did you mean: "
            "'_add_gaussian_splats'?\n")
    assert _codes(text)[:1] != ["user_code_error"]


@pytest.mark.parametrize("said", ["after upgrading everything my old script broke:\n",
                                  "since updating my packages this fails:\n"])
def test_a_removed_api_after_an_upgrade_is_the_removal_first(said):
    text = (said + "Traceback (most recent call last):\n  File \"/home/ana/proj/train.py\", line 14, in <module>\n"
            "    x = np.zeros(10, dtype=np.float)\n"
            "AttributeError: module 'numpy' has no attribute 'float'.\n")
    assert _codes(text)[:1] == ["package_api_version_mismatch"]


# ---- 8. the tools' own messages ----

@pytest.mark.parametrize("text", [
    "openai.lib._old_api.APIRemovedInV1: \n\nYou tried to access openai.ChatCompletion, but this is no longer "
    "supported in openai>=1.0.0 - see the README at https://github.com/openai/openai-python for the API.\n",
    "You tried to access openai.Completion, but this is no longer supported in openai>=1.0.0 - see the README at "
    "https://github.com/openai/openai-python for the API.\n",
])
def test_openai_v1_removed_api(text):
    assert _codes(text)[:1] == ["package_api_version_mismatch"]
    assert any("openai migrate" in c for c in _all_commands(text))


@pytest.mark.parametrize("text", [
    "pydantic.errors.PydanticImportError: `BaseSettings` has been moved to the `pydantic-settings` package. See "
    "https://docs.pydantic.dev/2.5/migration/#basesettings-has-moved-to-pydantic-settings for more details.\n",
    "PydanticImportError: `BaseSettings` has been moved to the `pydantic-settings` package.\n",
])
def test_pydantic_basesettings_moved(text):
    assert _codes(text)[:1] == ["package_api_version_mismatch"]
    assert any(c.startswith("pip install pydantic-settings") for c in _all_commands(text))


@pytest.mark.parametrize(("text", "dist"), [("$ tensorboard --logdir runs\nbash: tensorboard: command not found\n",
                                             "tensorboard"),
                                            ("% torchrun --nproc_per_node 2 train.py\nzsh: command not found: torchrun\n",
                                             "torch"),
                                            ("-bash: huggingface-cli: command not found\n", "huggingface_hub")])
def test_a_packages_console_script_not_found(text, dist):
    # (session 36) huggingface_hub 1.0 removed huggingface-cli: with no release shown, that removal is read first and
    # the install second (test_review36)
    assert _codes(text)[:1] == ["python_package_missing"] or _codes(text)[:2] == ["package_api_version_mismatch",
                                                                                   "python_package_missing"]
    assert any(c.startswith(f"python -m pip install {dist}") for c in _all_commands(text))


def test_near_miss_a_program_no_python_package_installs():
    assert "python_package_missing" not in _codes("bash: htop: command not found\n")
