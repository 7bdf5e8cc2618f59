# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The private parts of ipywidgets and traitlets that the widgets rely on, each behind one function.

None of them is public API, so each has a test in ``tests/widgets/test_compat.py`` that fails when the
library changes it (the attribute is gone, or no longer does what is relied on here). The front-end side
(``_handle_comm_msg`` of a widget model, called by the sync model's JavaScript in
:mod:`smrnb.widgets._sync`) is checked there too, in the installed widget manager.

* :func:`split_buffers`: ipywidgets' ``_remove_buffers``, the binary buffers of a widget state taken out
  the way a widget's own update message carries them.
* :func:`control_comm_open`: ipywidgets' ``Widget._control_comm``, the comm a widget front end opens
  when it connects to the kernel.
* :func:`stored_value` and :func:`store_value`: traitlets' ``HasTraits._trait_values``, a trait's value
  as stored, read and written without validation, defaults or change notifications.
"""

from __future__ import annotations

from typing import Any


def split_buffers(state: dict[str, Any]) -> tuple[dict[str, Any], list[list[Any]], list[Any]]:
    """``(state without its binary values, the paths of those values, the values)``, as a widget's update
    message carries them (``state`` itself is left as it is)."""
    from ipywidgets.widgets.widget import _remove_buffers

    return _remove_buffers(state)


def control_comm_open() -> bool:
    """Has a widget front end opened ipywidgets' control comm to this kernel (``jupyter.widget.control``)?"""
    from ipywidgets import Widget

    return getattr(Widget, "_control_comm", None) is not None


def stored_value(obj: Any, name: str) -> Any:
    """The value stored for trait ``name`` of ``obj`` (None when none is), without computing a default."""
    return obj._trait_values.get(name)


def store_value(obj: Any, name: str, value: Any) -> None:
    """Make ``value`` the value of trait ``name`` of ``obj`` without validating it or telling observers (no
    widget message goes out)."""
    obj._trait_values[name] = value


__all__ = ["control_comm_open", "split_buffers", "store_value", "stored_value"]
