# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The step registry: one description per step, the single source of every generated interface.

A :class:`Step` is a pure function (named by a dotted path, imported only when the step runs)
plus :class:`ParamSpec` parameter descriptions, the kind(s) of data it takes and the kind it
returns, and a one-line summary. Widget controls (:meth:`ParamSpec.widget`), CLI flags
(:meth:`ParamSpec.flag`), the config-file schema (:func:`smrnb.pipeline._config.config_schema`)
and ``docs/steps.md`` (:mod:`smrnb.pipeline._docs`) are all generated from these objects.

This module imports neither torch nor any geometry module, so listing steps and building CLI
help stays fast.
"""

from __future__ import annotations

import importlib
import math
import numbers
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._text import short

#: Kinds of data that flow between steps.
#:
#: ``frames`` :class:`~smrnb.geometry.Frames` (RGB-D + K + camera-to-world poses, OpenCV axes);
#: ``points`` :class:`~smrnb.geometry.PointCloud`; ``voxels`` ``VoxelGrid`` (occupancy);
#: ``tsdf`` ``TSDFVolume``; ``mesh`` / ``textured_mesh`` :class:`~smrnb.geometry.Mesh`
#: (the latter with ``uvs``, ``face_uvs_idx`` and ``texture``); ``file`` a written file's path.
KINDS: tuple[str, ...] = ("frames", "points", "voxels", "tsdf", "mesh", "textured_mesh", "file")

#: Kinds of parameter values.
PARAM_KINDS: tuple[str, ...] = ("float", "int", "bool", "choice", "str", "path")

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a step.

    Parameters
    ----------
    name : str
        The keyword passed to the step function (a Python identifier).
    default : Any
        The default value; ``None`` makes the parameter optional ("none" on the command line).
    kind : str
        One of ``float``, ``int``, ``bool``, ``choice``, ``str``, ``path``.
    range : (min, max), optional
        Inclusive bounds for ``float`` / ``int``; either side may be ``None`` (unbounded). Widgets
        need both for a slider; an unbounded side gets a text box instead.
    step : float, optional
        Slider increment (widgets only; values between increments are still valid).
    choices : tuple of str, optional
        The allowed values for ``choice``.
    unit : str
        Unit shown next to the value (``"m"``, ``"voxels"``, ``"px"``); empty when unitless.
    help : str
        One sentence: what the knob does and which way to turn it.
    log_scale : bool
        Sliders move on a log scale (for values spanning decades, e.g. voxel sizes).
    none_ok : bool
        ``None`` is accepted although the default is a value (e.g. "no limit"); implied when the
        default is ``None``.
    """

    name: str
    default: Any
    kind: str = "float"
    range: tuple[float | None, float | None] | None = None
    step: float | None = None
    choices: tuple[str, ...] | None = None
    unit: str = ""
    help: str = ""
    log_scale: bool = False
    none_ok: bool = False
    suffixes: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise SmrnbValueError(f"ParamSpec name must be a Python identifier, got {self.name!r}")
        if self.kind not in PARAM_KINDS:
            raise SmrnbValueError(f"ParamSpec {self.name!r}: kind must be one of {', '.join(PARAM_KINDS)}, "
                                  f"got {self.kind!r}")
        if self.kind == "choice":
            if not self.choices:
                raise SmrnbValueError(f"ParamSpec {self.name!r}: kind 'choice' needs choices")
            object.__setattr__(self, "choices", tuple(self.choices))
        if self.range is not None:
            if len(self.range) != 2:
                raise SmrnbValueError(f"ParamSpec {self.name!r}: range must be (min, max), got {self.range!r}")
            lo, hi = self.range
            if lo is not None and hi is not None and lo > hi:
                raise SmrnbValueError(f"ParamSpec {self.name!r}: range min {lo} > max {hi}")
            object.__setattr__(self, "range", (lo, hi))
        if self.suffixes is not None:
            if self.kind != "path" or not all(isinstance(x, str) and x.startswith(".") for x in self.suffixes):
                raise SmrnbValueError(f"ParamSpec {self.name!r}: suffixes are for kind 'path', each like '.glb'")
            object.__setattr__(self, "suffixes", tuple(x.lower() for x in self.suffixes))
        if self.log_scale and (self.range is None or self.range[0] is None or self.range[0] <= 0):
            raise SmrnbValueError(f"ParamSpec {self.name!r}: log_scale needs a positive range minimum")
        if self.default is not None:
            # the default must itself be valid: a spec that contradicts itself is a bug here
            object.__setattr__(self, "default", self.validate(self.default, step="(spec default)"))

    # ----------------------------------------------------------------------------------- values
    @property
    def optional(self) -> bool:
        """``None`` is an accepted value (the default is ``None``)."""
        return self.default is None or self.none_ok

    @property
    def flag(self) -> str:
        """The CLI flag: ``voxel_size`` -> ``--voxel-size``."""
        return "--" + self.name.replace("_", "-")

    def _where(self, step: str) -> str:
        return f"step {step!r} parameter {self.name!r}"

    def validate(self, value: Any, step: str = "?") -> Any:
        """Return ``value`` checked and normalised (int -> float for floats, Path -> str for paths).

        Raises :class:`SmrnbTypeError` / :class:`SmrnbValueError` naming ``step`` and the parameter.
        """
        where = self._where(step)
        if value is None:
            if self.optional:
                return None
            raise SmrnbValueError(f"{where} must be set ({self._expect()}), got None")
        k = self.kind
        if k == "bool":
            if not isinstance(value, bool):
                raise SmrnbTypeError(f"{where} must be true or false, got {type(value).__name__} {short(value)}")
            return value
        if k in ("float", "int"):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise SmrnbTypeError(f"{where} must be {'a number' if k == 'float' else 'an integer'}, "
                                     f"got {type(value).__name__} {short(value)}")
            if k == "int":
                if isinstance(value, numbers.Integral):
                    v: float | int = int(value)
                elif float(value).is_integer():
                    v = int(value)
                else:
                    raise SmrnbTypeError(f"{where} must be an integer, got {short(value)}")
            else:
                v = float(value)
                if not math.isfinite(v):
                    raise SmrnbValueError(f"{where} must be finite, got {short(value)}")
            lo, hi = self.range if self.range is not None else (None, None)
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                raise SmrnbValueError(f"{where} must be {self._range_text()}, got {short(value)}")
            return v
        if k == "choice":
            if value not in self.choices:
                raise SmrnbValueError(f"{where} must be one of {', '.join(map(repr, self.choices))}, got {short(value)}")
            return value
        if k == "path":
            if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
                raise SmrnbTypeError(f"{where} must be a non-empty path, got {type(value).__name__} {short(value)}")
            if self.suffixes and os.path.splitext(os.fspath(value))[1].lower() not in self.suffixes:
                raise SmrnbValueError(f"{where} must end in {' or '.join(self.suffixes)} (the suffix picks the file "
                                      f"format), got {short(os.fspath(value))}")
            return os.fspath(value)
        if not isinstance(value, str):
            raise SmrnbTypeError(f"{where} must be a string, got {type(value).__name__} {short(value)}")
        return value

    def parse(self, text: str, step: str = "?") -> Any:
        """Parse a command-line string into a validated value (``none`` -> None when optional)."""
        where = self._where(step)
        t = text.strip()
        if self.optional and t.lower() in ("none", "null"):
            return None
        k = self.kind
        if k == "bool":
            if t.lower() in _TRUE:
                return True
            if t.lower() in _FALSE:
                return False
            raise SmrnbValueError(f"{where} must be true or false, got {short(text)}")
        if k in ("float", "int"):
            try:
                value: Any = float(t) if k == "float" else int(t)
            except ValueError:
                raise SmrnbValueError(f"{where} must be {'a number' if k == 'float' else 'an integer'}, "
                                      f"got {short(text)}") from None
            return self.validate(value, step)
        return self.validate(t, step)

    def num_text(self, x: float) -> str:
        """A bound or value as text: integers in full, floats in ``%g``."""
        return str(int(x)) if self.kind == "int" else f"{x:g}"

    def _range_text(self) -> str:
        lo, hi = self.range if self.range is not None else (None, None)
        u = f" {self.unit}" if self.unit else ""
        if lo is not None and hi is not None:
            return f"in [{self.num_text(lo)}, {self.num_text(hi)}]{u}"
        if lo is not None:
            return f">= {self.num_text(lo)}{u}"
        if hi is not None:
            return f"<= {self.num_text(hi)}{u}"
        return "any value"

    def _expect(self) -> str:
        if self.kind in ("float", "int"):
            return f"{self.kind} {self._range_text()}"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices or ())
        if self.suffixes:
            return f"{self.kind} ({', '.join(self.suffixes)})"
        return self.kind

    def describe(self) -> str:
        """One line for ``--help``, ``smrnb steps`` and the docs: help, unit, range, default."""
        head = self.help.rstrip(".") + ". " if self.help else ""
        return f"{head}{self._expect()}{' or none' if self.optional else ''}; default {self.default_text()}"

    def default_text(self) -> str:
        d = self.default
        if d is None:
            return "none"
        if isinstance(d, bool):
            return "true" if d else "false"
        if isinstance(d, float):
            return f"{d:g}" + (f" {self.unit}" if self.unit else "")
        return f"{d}" + (f" {self.unit}" if self.unit and self.kind == "int" else "")

    # ------------------------------------------------------------------------------- interfaces
    def widget(self) -> dict[str, Any]:
        """How an ipywidgets control for this parameter is built (data only, no ipywidgets import).

        Returns ``{"widget": class name in ipywidgets, "kwargs": {...}}``; the ``description`` is
        the parameter name and the ``tooltip`` carries help, unit and range. ``None``-able
        parameters and unbounded ranges get a text box whose value is parsed with :meth:`parse`.
        """
        tip = self.describe()
        base = {"description": self.name, "tooltip": tip, "description_tooltip": tip}
        k = self.kind
        lo, hi = self.range if self.range is not None else (None, None)
        if k == "bool":
            return {"widget": "Checkbox", "kwargs": {**base, "value": bool(self.default)}}
        if k == "choice":
            return {"widget": "Dropdown", "kwargs": {**base, "options": list(self.choices or ()),
                                                      "value": self.default}}
        if k in ("float", "int") and lo is not None and hi is not None and not self.optional:
            if k == "int":
                return {"widget": "IntSlider", "kwargs": {**base, "value": self.default, "min": int(lo),
                                                           "max": int(hi), "step": int(self.step or 1)}}
            if self.log_scale:
                return {"widget": "FloatLogSlider", "kwargs": {
                    **base, "value": self.default, "base": 10, "min": math.log10(lo), "max": math.log10(hi),
                    "step": self.step or (math.log10(hi) - math.log10(lo)) / 100}}
            return {"widget": "FloatSlider", "kwargs": {**base, "value": self.default, "min": lo, "max": hi,
                                                         "step": self.step or (hi - lo) / 100}}
        return {"widget": "Text", "kwargs": {**base, "value": "none" if self.default is None else
                                             self.default_text().split(" ")[0] if k in ("float", "int")
                                             else str(self.default)}}

    def json_schema(self) -> dict[str, Any]:
        """JSON-schema fragment for the config file."""
        k = self.kind
        s: dict[str, Any] = {"description": self.describe()}
        if k in ("float", "int"):
            s["type"] = "number" if k == "float" else "integer"
            lo, hi = self.range if self.range is not None else (None, None)
            if lo is not None:
                s["minimum"] = lo
            if hi is not None:
                s["maximum"] = hi
        elif k == "bool":
            s["type"] = "boolean"
        elif k == "choice":
            s["enum"] = list(self.choices or ())
        else:
            s["type"] = "string"
            if self.suffixes:
                s["pattern"] = "(" + "|".join("\\" + x for x in self.suffixes) + ")$"
        if self.optional:
            if "type" in s:
                s["type"] = [s["type"], "null"]
            else:
                s["enum"] = [*s["enum"], None]
        s["default"] = self.default
        if self.unit:
            s["x-unit"] = self.unit
        return s


@dataclass
class StepOutput:
    """What a step function may return instead of bare data, to report notes and its backend.

    The pipeline unwraps it: ``data`` becomes the stage's result, ``notes`` go to its
    :class:`~smrnb.pipeline.StepResult`, ``backend`` overrides the one inferred from the device.
    ``details`` are the long lists behind a note (every hole's size, ...): widgets show them folded
    under "show all", the command line leaves them out.
    """

    data: Any
    notes: list[str] = field(default_factory=list)
    backend: str | None = None
    details: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Step:
    """A registered step: a pure function and its description.

    Parameters
    ----------
    name : str
        Registry key (``"tsdf"``), also the CLI sub-command and the config ``step:`` value.
    func : str or callable
        ``"package.module:function"`` (imported when the step first runs) or a callable. It is
        called as ``func(data, **extra_inputs, **params)`` and returns the output kind.
    summary : str
        One line for listings.
    inputs : tuple of str
        Kinds accepted as the main input (alternatives), ``()`` for a source step.
    output : str
        Kind returned.
    params : tuple of ParamSpec
    extra_inputs : tuple of str
        Further kinds the step needs, passed as keyword arguments named by kind (``frames=``),
        taken from the latest upstream result (or the source) of that kind.
    memory_hungry : bool
        The function estimates its allocation first and may raise ``MemoryEstimateError``.
    cost : str or callable, optional
        The step's cost model, ``"package.module:function"`` (imported when first asked) or a callable:
        ``cost(func, data, params, extra_inputs)`` returns the
        :class:`~smrnb.pipeline._estimate.Estimate` of time and memory before the step runs, sized as
        the step sizes its work. None: no estimate is made.
    warm : str or callable, optional
        ``"package.module:function"`` (or a callable) taking no argument, called when a pipeline that
        will run this step starts: it starts slow resources in the background (a helper process) so
        that the step finds them ready. It must return at once and never raise.
    """

    name: str
    func: str | Callable[..., Any]
    summary: str
    inputs: tuple[str, ...]
    output: str
    params: tuple[ParamSpec, ...] = ()
    extra_inputs: tuple[str, ...] = ()
    memory_hungry: bool = False
    cost: str | Callable[..., Any] | None = None
    warm: str | Callable[[], Any] | None = None
    _resolved: list = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.name.replace("_", "a").isalnum() or not self.name[0].isalpha():
            raise SmrnbValueError(f"step name must be letters, digits and _, starting with a letter, got {self.name!r}")
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "extra_inputs", tuple(self.extra_inputs))
        object.__setattr__(self, "params", tuple(self.params))
        for k in (*self.inputs, *self.extra_inputs, self.output):
            if k not in KINDS:
                raise SmrnbValueError(f"step {self.name!r}: kind must be one of {', '.join(KINDS)}, got {k!r}")
        names = [p.name for p in self.params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise SmrnbValueError(f"step {self.name!r}: duplicate parameter(s) {', '.join(dup)}")
        clash = set(names) & set(self.extra_inputs)
        if clash:
            raise SmrnbValueError(f"step {self.name!r}: parameter(s) {', '.join(sorted(clash))} clash with extra inputs")
        for what, ref in (("func", self.func), ("cost", self.cost)):
            if isinstance(ref, str) and ":" not in ref:
                raise SmrnbValueError(f"step {self.name!r}: {what} must be 'module:function', got {ref!r}")

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise SmrnbValueError(f"step {self.name!r} has no parameter {name!r}; "
                              f"its parameters are: {', '.join(p.name for p in self.params) or '(none)'}")

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def validate_params(self, params: dict[str, Any] | None = None, *, partial: bool = False) -> dict[str, Any]:
        """Checked parameters; unknown names raise naming them. Missing ones get defaults unless ``partial``."""
        params = dict(params or {})
        known = {p.name for p in self.params}
        unknown = [k for k in params if k not in known]
        if unknown:
            raise SmrnbValueError(f"step {self.name!r} has no parameter(s) {', '.join(map(repr, unknown))}; "
                                  f"its parameters are: {', '.join(p.name for p in self.params) or '(none)'}")
        out = {} if partial else self.defaults()
        for k, v in params.items():
            out[k] = self.param(k).validate(v, self.name)
        return out

    def prepare(self) -> None:
        """Call the step's ``warm`` hook (errors are left for the step's own run to report)."""
        if self.warm is None:
            return
        try:
            if callable(self.warm):
                self.warm()
            else:
                mod_name, _, attr = self.warm.partition(":")
                getattr(importlib.import_module(mod_name), attr)()
        except Exception:  # a resource that cannot start now: the step says what is wrong when it runs
            pass

    def resolve(self) -> Callable[..., Any]:
        """The function (imported now if given as a dotted path)."""
        if callable(self.func):
            return self.func
        if self._resolved:
            return self._resolved[0]
        fn = self._import(self.func)
        self._resolved.append(fn)
        return fn

    def cost_model(self) -> Callable[..., Any] | None:
        """The step's cost model (imported now if given as a dotted path), or None."""
        if self.cost is None or callable(self.cost):
            return self.cost
        return self._import(self.cost)

    def _import(self, ref: str) -> Callable[..., Any]:
        mod_name, _, attr = ref.partition(":")
        try:
            mod = importlib.import_module(mod_name)
        except ImportError as exc:
            raise SmrnbValueError(f"step {self.name!r} needs {mod_name} which cannot be imported "
                                  f"({type(exc).__name__}: {exc})") from exc
        try:
            return getattr(mod, attr)
        except AttributeError:
            raise SmrnbValueError(f"step {self.name!r}: {mod_name} has no function {attr!r}") from None

    def __call__(self, data: Any, **kwargs: Any) -> Any:
        """Run the function on ``data`` with validated parameters (defaults filled in, extra inputs by
        keyword); returns the output data (a :class:`StepOutput` is unwrapped)."""
        extras = {k: kwargs.pop(k) for k in list(kwargs) if k in self.extra_inputs}
        missing = [k for k in self.extra_inputs if k not in extras]
        if missing:
            raise SmrnbValueError(f"step {self.name!r} needs input(s) {', '.join(missing)} passed by keyword")
        out = self.resolve()(data, **extras, **self.validate_params(kwargs))
        return out.data if isinstance(out, StepOutput) else out

    def signature_text(self) -> str:
        ins = "|".join(self.inputs) or "(source)"
        if self.extra_inputs:
            ins += " + " + " + ".join(self.extra_inputs)
        return f"{ins} -> {self.output}"


class StepRegistry:
    """Name -> :class:`Step`, in registration order."""

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self._steps: dict[str, Step] = {}
        for s in steps:
            self.register(s)

    def register(self, step: Step, *, replace: bool = False) -> Step:
        if not isinstance(step, Step):
            raise SmrnbTypeError(f"step must be a Step, got {type(step).__name__}")
        if step.name in self._steps and not replace:
            raise SmrnbValueError(f"a step named {step.name!r} is already registered")
        self._steps[step.name] = step
        return step

    def get(self, name: str) -> Step:
        if isinstance(name, Step):
            return name
        try:
            return self._steps[name]
        except (KeyError, TypeError):
            raise SmrnbValueError(f"unknown step {name!r}; registered steps: {', '.join(self._steps)}") from None

    def names(self) -> list[str]:
        return list(self._steps)

    def steps(self) -> list[Step]:
        return list(self._steps.values())

    def __contains__(self, name: object) -> bool:
        return name in self._steps

    def __iter__(self):
        return iter(self._steps.values())

    def __len__(self) -> int:
        return len(self._steps)


def kinds_text(kinds: Sequence[str]) -> str:
    return " or ".join(kinds) if kinds else "(nothing)"
