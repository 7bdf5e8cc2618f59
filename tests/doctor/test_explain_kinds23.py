# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 23a (the remaining misses of the released parts, read as kinds): c10's checked_convert refusing a
number a tensor's dtype cannot hold ("value cannot be converted to type at::Half without overflow": code written for
float32 running in half precision, the calling code first and a library's own code second); the CUDA runtime API a
project's source uses and a newer toolkit removed (CUDA 12's texture references, also at link time, and CUDA 13's
removed cudaDeviceProp fields: the project's release to fix); Trainer flags Lightning 2.0 removed ("Trainer.__init__()
got an unexpected keyword argument 'gpus'": code written for another release); torch.compile refused on Windows by
the torch releases that had no Windows support (the calling code's call first); and pip finding no torch release (no
wheel for the combination, or a local version +cuXYZ asked of PyPI, which holds none: the command's mistake first); and a
notebook file that is not UTF-8 ("Unreadable Notebook: ... UnicodeDecodeError": the file, not the environment); a
widget's front-end missing in the widget manager's other words ("Failed to load model class 'X' from module 'Y'",
the bare "Error displaying widget"); and the T-Rex miner's own driver checks ("Can't start miner, video driver is too
old", "CUDA initialize error": an old driver in its maintainers' words).
Each text is written for the test (other wordings, tools and packages than the threads); each kind has near-misses
that must NOT get its code."""

from __future__ import annotations

import pytest

from smrnb.doctor._explain import explain_result

from ._rules import assert_row_matches_its_example_and_stays_linear, rule_codes

READINGS = [
    # checked_convert: a float32 mask value written into a float16 tensor (any wording around it, other dtypes)
    ("  File \"/home/ana/llm/attn.py\", line 88, in forward\n    scores.masked_fill_(mask, -1e9)\nRuntimeError: value "
     "cannot be converted to type at::Half without overflow\n", ["user_code_error", "library_bug"]),
    ("System.Runtime.InteropServices.ExternalException: value cannot be converted to type at::BFloat16 without "
     "overflow\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: value cannot be converted to type uint8_t without overflow\n", ["user_code_error", "library_bug"]),
    # CUDA 12's texture references: the compiler's words, and the linker's of objects an older nvcc made
    ("kernels/resample.cu(31): error: texture is not a template\n", ["library_bug"]),
    ("CMakeFiles/recon.dir/bp.cu.o: In function `backproject':\nbp.cu:(.text+0x2f1): undefined reference to "
     "`cudaBindTextureToArray'\ncollect2: error: ld returned 1 exit status\n", ["library_bug"]),
    ("/usr/bin/ld: libfilters.a(sobel.o): undefined reference to symbol '__cudaRegisterTexture'\n/usr/bin/ld: "
     "undefined reference to `__cudaRegisterTexture'\n", ["library_bug"]),
    # CUDA 13's removed cudaDeviceProp fields, in nvcc's (EDG), MSVC's, gcc's and clang's words
    ("/build/src/gpu_info.cu(112): error: class \"cudaDeviceProp\" has no member \"memoryClockRate\"\n",
     ["library_bug"]),
    ("device.cpp(57): error C2039: 'computeMode': is not a member of 'cudaDeviceProp'\n", ["library_bug"]),
    ("src/probe.cpp:40:23: error: 'struct cudaDeviceProp' has no member named 'kernelExecTimeoutEnabled'\n",
     ["library_bug"]),
    ("src/probe.cc:12:15: error: no member named 'clockRate' in 'cudaDeviceProp'\n", ["library_bug"]),
    # Lightning 2.0's removed Trainer flags (the qualified name, or the call on the same line as the message)
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'resume_from_checkpoint'\n",
     ["package_api_version_mismatch"]),
    ("trainer = L.Trainer(max_epochs=5, tpu_cores=8) fails with: __init__() got an unexpected keyword argument "
     "'tpu_cores'\n", ["package_api_version_mismatch"]),
    # torch.compile refused on Windows (TorchDynamo's platform check, the inductor backend's)
    ("  File \"C:\\Users\\ana\\venv\\lib\\site-packages\\torch\\_dynamo\\eval_frame.py\", line 377, in "
     "check_if_dynamo_supported\n    raise RuntimeError(\"Windows not yet supported for torch.compile\")\nRuntimeError: "
     "Windows not yet supported for torch.compile\n", ["user_code_error", "library_bug"]),
    ("RuntimeError: Windows not yet supported for inductor\n", ["user_code_error", "library_bug"]),
    # pip finding no torch: a release for no wheel of this Python, and a local version asked of PyPI
    ("ERROR: Could not find a version that satisfies the requirement torchvision==0.9.0 (from versions: 0.15.0, "
     "0.15.1, 0.16.0)\nERROR: No matching distribution found for torchvision==0.9.0\n", ["package_no_build_for_platform"]),
    ("ERROR: No matching distribution found for torch==2.0.1\n", ["package_no_build_for_platform"]),
    ("ERROR: Could not find a version that satisfies the requirement torchaudio==2.1.0+cu121 (from versions: 2.0.2, "
     "2.1.0, 2.1.1)\nERROR: No matching distribution found for torchaudio==2.1.0+cu121\n",
     ["user_code_error", "package_no_build_for_platform"]),
    # a notebook file that is not UTF-8 (the classic notebook's words, and jupyter_server's)
    ("[W 10:02:11.120 NotebookApp] Unreadable Notebook: /home/ana/course/lab3.ipynb UnicodeDecodeError('utf-8', "
     "b'{\\n \"cells\"', 2210, 2211, 'invalid continuation byte')\n", ["user_code_error"]),
    ("HTTPError: 400 (bad format): /srv/notebooks/report.ipynb is not UTF-8 encoded\n", ["user_code_error"]),
    # a widget's JavaScript missing from the page, in the widget manager's other words (a module's model class it
    # cannot load; the renderer's bare message when the view cannot be created)
    ("[Open Browser Console for more detailed log - Double click to close this message]\nFailed to load model class "
     "'FigureModel' from module 'jupyter-matplotlib'\n", ["threejs_extension_missing", "package_api_version_mismatch"]),
    ("In JupyterLab every cell that shows a mesh only prints **Error displaying widget** instead of the viewer.\n",
     ["threejs_extension_missing", "package_api_version_mismatch"]),
    # the T-Rex miner's own driver checks (a version's own wording, and the older 'miner' one)
    ("20220119 20:22:48 ERROR: Can't start T-Rex, CUDA initialize error, memory dump: eyJhIjoiR2E1\n",
     ["driver_too_old", "driver_broken"]),
    ("Can't start miner, video driver is too old\n", ["driver_too_old", "driver_broken"]),
]


@pytest.mark.parametrize(("text", "want"), READINGS)
def test_message_reads_as_its_cause(text, want):
    assert rule_codes(text, n=len(want)) == want


NOT = [
    # an overflow in the user's own Python arithmetic, or numpy's cast: no tensor's checked conversion
    ("OverflowError: Python int too large to convert to C long\n", "user_code_error"),
    ("RuntimeWarning: overflow encountered in cast\n", "user_code_error"),
    # a texture object (the API CUDA 12 keeps) failing at run time, and another undefined reference: no removed API
    ("CUDA error: cudaCreateTextureObject failed: invalid argument\n", "library_bug"),
    ("/usr/bin/ld: undefined reference to `cudaGraphInstantiateWithFlags'\n", "library_bug"),
    # a member missing from another struct, or a cudaDeviceProp field CUDA 13 keeps
    ("src/x.cu(9): error: class \"cudaPointerAttributes\" has no member \"memoryType\"\n", "library_bug"),
    ("src/x.cu(9): error: class \"cudaDeviceProp\" has no member \"multiProcessorCount2\"\n", "library_bug"),
    # a flag Lightning 2.0 kept, and 'gpus' refused by another class than Trainer
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'devcies'\n", "package_api_version_mismatch"),
    ("TypeError: __init__() got an unexpected keyword argument 'gpus'\n", "package_api_version_mismatch"),
    # torch.compile failing on Linux for other reasons: not the Windows check
    ("RuntimeError: Python 3.12+ not yet supported for torch.compile\n", "library_bug"),
    # pip finding no package that is not torch's, and a torch pin of another package's requirements
    ("ERROR: No matching distribution found for torch==1.1.0 (from legacy-embedder==0.1.4)\n",
     "package_no_build_for_platform"),
    # a local version with PyTorch's own wheel page given: not the missing index
    ("Looking in links: https://download.pytorch.org/whl/torch_stable.html\nERROR: Could not find a version that "
     "satisfies the requirement torch==1.8.0+cu111 (from versions: 1.11.0, 1.12.0)\n", "user_code_error"),
    # a notebook that is not JSON, or a Python file that is not UTF-8: not the notebook's encoding
    ("Unreadable Notebook: /home/ana/a.ipynb NotJSONError('Notebook does not appear to be JSON: \\'\\'')\n",
     "user_code_error"),
    ("SyntaxError: (unicode error) 'utf-8' codec can't decode byte 0x92 in position 3: invalid start byte\n",
     "user_code_error"),
    # widgets named in prose, and a model file another loader cannot read: no widget front-end
    ("Error displaying widgets inline is a known limitation of the static HTML export.\n", "threejs_extension_missing"),
    ("OSError: Failed to load model from checkpoint 'ckpt/model.pth'\n", "threejs_extension_missing"),
    # the miner failing for its pool or its configuration: not the driver
    ("ERROR: Can't start miner, unable to resolve pool host eth.example.org\n", "driver_too_old"),
    ("ERROR: Can't start T-Rex, failed to load config file config.json\n", "driver_too_old"),
]


@pytest.mark.parametrize(("text", "code"), NOT)
def test_other_kinds_do_not_get_the_code(text, code):
    assert code not in rule_codes(text, n=3)


@pytest.mark.parametrize(("table", "key"), [
    ("torch_messages", "checked_convert_overflow"), ("torch_messages", "dynamo_windows_unsupported"),
    ("library_messages", "cuda12_texture_references_removed"),
    ("library_messages", "cuda13_device_prop_fields_removed"), ("library_messages", "lightning2_trainer_flag_removed"),
    ("library_messages", "jupyter_notebook_not_utf8"), ("library_messages", "jupyter_widget_frontend_missing"),
    ("library_messages", "trex_miner_driver_check"),
])
def test_new_rows_match_their_example_and_stay_linear(table, key):
    assert_row_matches_its_example_and_stays_linear(table, key)


def test_local_version_finding_names_pytorchs_index():
    f = explain_result(next(t for t, _ in READINGS if "+cu121" in t), similar=False).findings[0]
    assert "torchaudio==2.1.0+cu121" in f.title and "PyPI" in f.title
    assert any("download.pytorch.org/whl/cu121" in c for c in f.fix.commands)
    assert not any("CUDA_LAUNCH_BLOCKING" in c for c in f.fix.commands)


def test_cuda13_finding_says_which_release_removed_the_field():
    f = explain_result(READINGS[7][0], similar=False).findings[0]
    assert "CUDA 13" in f.title + f.fix.why and "cudaDeviceGetAttribute" in f.fix.why + " ".join(f.evidence)
