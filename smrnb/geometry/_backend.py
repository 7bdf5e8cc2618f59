# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The only module that touches kaolin. Decides, per call, between kaolin, torch CUDA and torch CPU.

kaolin is imported lazily, once, catching ``ImportError`` and ``OSError`` (an ABI mismatch shows
up as ``ImportError: undefined symbol``, a missing library as ``OSError``); the reason is kept
for the doctor (:func:`kaolin_status`). Set ``SMRNB_DISABLE_KAOLIN=1`` to never use it.

kaolin is never trusted blindly: a kaolin built without kernels for the running GPU prints
"no kernel image is available" and returns *empty* tensors without raising. Callers check the
result with :func:`suspicious_empty` and fall back to plain PyTorch, recording why.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

import torch

_lock = threading.Lock()
_state: dict[str, Any] = {"tried": False, "module": None, "reason": None}
# ops for which kaolin returned a suspicious (empty) result on this process: never used again
_distrusted: dict[str, str] = {}


@dataclass(frozen=True)
class KaolinStatus:
    available: bool
    version: str | None
    reason: str | None  # why it is not used (None when available)


def _load_kaolin() -> Any:
    with _lock:
        if _state["tried"]:
            return _state["module"]
        _state["tried"] = True
        if os.environ.get("SMRNB_DISABLE_KAOLIN", "").strip() not in ("", "0"):
            _state["reason"] = "disabled by SMRNB_DISABLE_KAOLIN"
            return None
        try:
            import kaolin  # noqa: F401  (the only kaolin import in smrnb)
            import kaolin.ops.conversions  # noqa: F401
        except (ImportError, OSError) as exc:
            _state["reason"] = f"{type(exc).__name__}: {exc}"
            return None
        except Exception as exc:  # a broken install can raise anything at import time
            _state["reason"] = f"{type(exc).__name__} while importing kaolin: {exc}"
            return None
        _state["module"] = kaolin
        return kaolin


def kaolin_status() -> KaolinStatus:
    """Whether kaolin can be used in this process, its version, and why not if not."""
    k = _load_kaolin()
    if k is None:
        return KaolinStatus(False, None, _state["reason"])
    return KaolinStatus(True, getattr(k, "__version__", None), None)


def get_kaolin() -> Any | None:
    """The kaolin module, or None (never raises)."""
    return _load_kaolin()


def distrust(op: str, why: str) -> None:
    """Stop using kaolin for ``op`` in this process (e.g. it returned empty on non-empty input)."""
    _distrusted[op] = why


def distrusted() -> dict[str, str]:
    return dict(_distrusted)


def use_kaolin(op: str, device: torch.device, backend: str = "auto") -> bool:
    """True when ``op`` should run through kaolin: asked for (or auto), on CUDA, loadable, trusted."""
    if backend == "torch":
        return False
    if op in _distrusted:
        return False
    if backend == "auto" and device.type != "cuda":
        return False
    return get_kaolin() is not None


def backend_name(device: torch.device, used_kaolin: bool) -> str:
    """The name shown in result records: ``kaolin``, ``torch CUDA`` or ``torch CPU``."""
    if used_kaolin:
        return "kaolin"
    return "torch CUDA" if device.type == "cuda" else "torch CPU"


def suspicious_empty(result_numel: int, input_nonempty: bool) -> bool:
    """An empty kaolin result for non-empty input: the "no kernel image" failure mode."""
    return input_nonempty and result_numel == 0
