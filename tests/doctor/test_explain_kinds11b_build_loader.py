# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""explain, round 11b (build / loader layer): TensorFlow 2.x on Linux that answers its GPU query with none (an empty
list, a count of 0, False) could not dlopen the CUDA libraries it was built for (gpu_device.cc's "Cannot dlopen some
GPU libraries ... Skipping registering GPU devices"), each text written for the test."""

from __future__ import annotations

import pytest

from ._rules import rule_codes

FOUND_NONE = [
    "TensorFlow version: 2.16.1\nUbuntu 22.04\n>>> tf.config.list_physical_devices('GPU')\n[]\n",
    "pip install tensorflow[and-cuda]==2.17.0\nprint(tf.config.list_physical_devices(\"GPU\")) returns an empty list\n",
    "tensorflow 2.15.0 on WSL2\nprint(\"Num GPUs Available: \", len(tf.config.list_physical_devices('GPU')))\n"
    "Num GPUs Available:  0\n",
    "tf.__version__ '2.13.1'\n>>> tf.test.is_gpu_available()\nFalse\n",
    "tensorflow==2.16.2, tf.config.list_physical_devices(device_type='GPU') gives nothing on my RTX 4090\n",
    "tensorflow 2.14\ntf.config.list_physical_devices('GPU')\nW gpu_device.cc:2256] Cannot dlopen some GPU libraries.\n"
    "Skipping registering GPU devices...\n",
]


@pytest.mark.parametrize("text", FOUND_NONE)
def test_tensorflow_finding_no_gpu_could_not_load_cuda(text):
    assert "cudart_not_found" in rule_codes(text, n=2)


NEAR_MISSES = [
    # the GPU is found
    "TensorFlow version: 2.16.1\n>>> tf.config.list_physical_devices('GPU')\n"
    "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n",
    "tensorflow 2.15\nNum GPUs Available:  1\n",
    # native Windows: no GPU in the wheels since 2.11 (another rule's cause)
    "C:\\Users\\me> python\ntensorflow 2.15.0 on Windows 10\n>>> tf.config.list_physical_devices('GPU')\n[]\n",
    # no TensorFlow query at all: an empty list of something else
    "tensorflow 2.16.1\n>>> os.listdir('/data')\n[]\n",
    # TensorFlow 1.x: no tf.config.list_physical_devices, other packaging
    "tensorflow-gpu 1.15\ntf.test.is_gpu_available() -> True\n",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_no_fire_where_tensorflow_finds_its_gpu_or_is_not_asked(text):
    assert "cudart_not_found" not in rule_codes(text, n=3)
