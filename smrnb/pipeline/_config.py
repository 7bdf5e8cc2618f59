# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Pipeline config files (YAML): the schema is derived from the step registry.

A config file::

    source: sample            # 'sample', a dataset folder, or a mesh / point-cloud file;
                              # or {path: sample, stride: 5, max_frames: 20} to read fewer frames
    device: cpu               # cpu | cuda | cuda:N (optional)
    output_dir: out           # where relative export paths go (optional; --output overrides)
    steps:
      - step: tsdf
        params: {voxel_size: 0.02}
      - step: extract_mesh
      - step: export
        params: {path: mesh.ply}

Unknown keys anywhere (top level, step entries, parameters) are errors that name them.
"""

from __future__ import annotations

import copy
import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smrnb._errors import SmrnbError, SmrnbTypeError, SmrnbValueError
from smrnb._files import check_input
from smrnb._text import short
from smrnb.pipeline._registry import StepRegistry
from smrnb.pipeline._source import check_source_mapping
from smrnb.pipeline._steps import REGISTRY

TOP_KEYS: tuple[str, ...] = ("source", "device", "output_dir", "steps")
STEP_KEYS: tuple[str, ...] = ("step", "name", "params")


def _registry(registry: StepRegistry | None) -> StepRegistry:
    return REGISTRY if registry is None else registry


def config_schema(registry: StepRegistry | None = None) -> dict[str, Any]:
    """JSON schema (draft 2020-12) of config files, generated from the registry's parameter specs."""
    reg = _registry(registry)
    variants = []
    for step in reg:
        variants.append({
            "type": "object",
            "description": step.summary,
            "properties": {
                "step": {"const": step.name},
                "name": {"type": "string", "description": "stage name (defaults to the step name)"},
                "params": {"type": "object", "additionalProperties": False,
                           "properties": {p.name: p.json_schema() for p in step.params}},
            },
            "required": ["step"],
            "additionalProperties": False,
        })
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "smrnb pipeline config",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "source": {"description": "'sample', a dataset folder (Redwood, TUM, 7-Scenes) or a mesh / "
                                      "point-cloud file; or a mapping {path, stride, max_frames, holdout} for frames "
                                      "(holdout k: every k-th frame is left out of the steps and used to "
                                      "measure the final mesh's depth error)",
                       "oneOf": [{"type": ["string", "null"]},
                                 {"type": "object", "additionalProperties": False, "required": ["path"],
                                  "properties": {"path": {"type": "string"},
                                                 "stride": {"type": "integer", "minimum": 1},
                                                 "max_frames": {"type": ["integer", "null"], "minimum": 1},
                                                 "holdout": {"type": ["integer", "null"], "minimum": 2}}}]},
            "device": {"type": ["string", "null"], "pattern": "^(cpu|cuda(:[0-9]+)?)$"},
            "output_dir": {"type": ["string", "null"], "description": "where relative export paths are written"},
            "steps": {"type": "array", "items": {"oneOf": variants}},
        },
        "required": ["steps"],
    }


def validate_config(config: Any, registry: StepRegistry | None = None, *, where: str = "config") -> dict[str, Any]:
    """A checked copy of ``config`` with every step's parameters validated (defaults not filled in).

    Raises :class:`SmrnbValueError` / :class:`SmrnbTypeError` naming the unknown keys, the step and
    the parameter at fault.
    """
    reg = _registry(registry)
    if not isinstance(config, Mapping):
        raise SmrnbTypeError(f"{where} must be a mapping with keys {', '.join(TOP_KEYS)}, got {type(config).__name__}")
    unknown = [k for k in config if k not in TOP_KEYS]
    if unknown:
        raise SmrnbValueError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; "
                              f"allowed: {', '.join(TOP_KEYS)}")
    if "steps" not in config:
        raise SmrnbValueError(f"{where} needs a 'steps' list")
    steps = config["steps"]
    if not isinstance(steps, list):
        raise SmrnbTypeError(f"{where} 'steps' must be a list, got {type(steps).__name__}")
    out: dict[str, Any] = {}
    if isinstance(config.get("source"), Mapping):
        out["source"] = check_source_mapping(config["source"], where=f"{where} 'source'")
    for key in ("source", "device", "output_dir"):
        v = config.get(key)
        if key in out:
            continue
        if v is not None and not isinstance(v, (str, os.PathLike)):
            raise SmrnbTypeError(f"{where} {key!r} must be a string, got {type(v).__name__} {short(v)}")
        if v is not None:
            out[key] = os.fspath(v)
    dev = out.get("device")
    if dev is not None and not (dev == "cpu" or dev == "cuda" or (dev.startswith("cuda:") and dev[5:].isdigit())):
        raise SmrnbValueError(f"{where} 'device' must be cpu, cuda or cuda:N, got {short(dev)}")
    checked = []
    for i, entry in enumerate(steps):
        here = f"{where} steps[{i}]"
        if isinstance(entry, str):
            entry = {"step": entry}
        if not isinstance(entry, Mapping):
            raise SmrnbTypeError(f"{here} must be a mapping with keys step, params, name, got {type(entry).__name__}")
        bad = [k for k in entry if k not in STEP_KEYS]
        if bad:
            raise SmrnbValueError(f"{here} has unknown key(s) {', '.join(map(repr, bad))}; "
                                  f"allowed: {', '.join(STEP_KEYS)}")
        if "step" not in entry:
            raise SmrnbValueError(f"{here} needs a 'step' key naming one of: {', '.join(reg.names())}")
        step = reg.get(entry["step"])
        params = entry.get("params") or {}
        if not isinstance(params, Mapping):
            raise SmrnbTypeError(f"{here} params of step {step.name!r} must be a mapping, got {type(params).__name__}")
        e: dict[str, Any] = {"step": step.name}
        if entry.get("name") is not None:
            if not isinstance(entry["name"], str):
                raise SmrnbTypeError(f"{here} 'name' must be a string, got {short(entry['name'])}")
            e["name"] = entry["name"]
        p = step.validate_params(dict(params), partial=True)
        if p:
            e["params"] = p
        checked.append(e)
    out["steps"] = checked
    return out


#: bounds on a config file: bytes, YAML nodes once aliases are expanded, nesting depth
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_NODES = 100_000
MAX_CONFIG_DEPTH = 32


def _expanded_size(root: Any, where: str) -> None:
    """Refuse a node graph whose alias expansion exceeds :data:`MAX_CONFIG_NODES` or nests past
    :data:`MAX_CONFIG_DEPTH` (an alias bomb is small on disk and huge once expanded)."""
    import yaml

    sizes: dict[int, int] = {}
    # iterative post-order walk; a node seen again through an alias reuses its size
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    on_path: set[int] = set()
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            kids = _children(node, yaml)
            total = 1 + sum(sizes[id(k)] for k in kids)
            if total > MAX_CONFIG_NODES:
                raise SmrnbValueError(f"{where}: expands to more than {MAX_CONFIG_NODES:,} values through YAML aliases "
                                      "(&anchor / *alias); a config needs only a few dozen: write the values out")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise SmrnbValueError(f"{where}: holds a recursive YAML alias (a value that contains itself)")
        if depth > MAX_CONFIG_DEPTH:
            raise SmrnbValueError(f"{where}: is nested more than {MAX_CONFIG_DEPTH} levels deep; a config is a mapping "
                                  "of steps with flat parameters")
        on_path.add(key)
        stack.append((node, depth, True))
        for k in _children(node, yaml):
            stack.append((k, depth + 1, False))


#: plain scalars YAML 1.1 (PyYAML) reads otherwise than YAML 1.2 and most people: ``010`` is octal 8,
#: ``1:30`` is base-60 90; and the words ``yes``/``no``/``on``/``off`` are booleans
_YAML11_OCTAL = re.compile(r"[-+]?0[0-7_]+")
_YAML11_BOOL_WORDS = frozenset({"yes", "no", "on", "off"})


def _key_text(node: Any) -> str:
    v = getattr(node, "value", None)
    return v[:60] if isinstance(v, str) else "?"


def _check_yaml_forms(root: Any, where: str) -> list[str]:
    """Refuse what YAML reads silently otherwise than written: a key given twice in one mapping (the last
    would win), YAML 1.1 octal (``010`` = 8) and base-60 (``1:30`` = 90) numbers. Returns notes on the
    YAML 1.1 boolean words (``yes``, ``no``, ``on``, ``off``) for an error message that may need them."""
    import yaml

    notes: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, key = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode):
                    ident = (k.tag, k.value)
                    if ident in first:
                        raise SmrnbValueError(f"{where} line {k.start_mark.line + 1}: key {_key_text(k)!r} appears twice "
                                              f"in one mapping (lines {first[ident]} and {k.start_mark.line + 1}); "
                                              "YAML would keep the last one silently: keep one")
                    first[ident] = k.start_mark.line + 1
                stack.append((k, key))
                stack.append((v, _key_text(k)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, key) for v in node.value)
        elif isinstance(node, yaml.ScalarNode) and node.style is None:
            text, tag = node.value, node.tag.rsplit(":", 1)[-1]
            what = f"{where} line {line}" + (f": {key}" if key else "")
            if tag == "int" and _YAML11_OCTAL.fullmatch(text) and text.strip("+-0_"):
                value = int(text.replace("_", ""), 8)
                raise SmrnbValueError(f"{what}: {text} is an octal number in YAML 1.1 (= {value}); write it without "
                                      f"the leading 0 ({int(text.replace('_', ''), 10)}), or {value} if you mean that")
            if tag in ("int", "float") and ":" in text:
                raise SmrnbValueError(f"{what}: {text} is a base-60 number in YAML 1.1 (1:30 = 90); write the number "
                                      "itself, or quote it for text")
            if tag == "bool" and text.lower() in _YAML11_BOOL_WORDS:
                notes.append(f"line {line}: YAML reads the unquoted word {text!r}"
                             f"{' of ' + repr(key) if key else ''} as {text.lower() in ('yes', 'on')}")
    return notes


@functools.cache
def _config_loader() -> Any:
    """PyYAML's safe loader, reading ``1e-3`` as the number YAML 1.2 (and everyone) means, not as text."""
    import yaml

    class ConfigLoader(yaml.SafeLoader):
        pass

    ConfigLoader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$"),
                                       list("-+0123456789"))
    return ConfigLoader


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def read_yaml(path: str | os.PathLike, where: str | None = None) -> Any:
    """Parse a small YAML file safely: at most :data:`MAX_CONFIG_BYTES`, UTF-8 text, not empty, bounded
    alias expansion and nesting, no key twice in one mapping, no YAML 1.1 octal or base-60 number (all
    checked on the node graph before any Python object is built)."""
    return _read_yaml(path, where)[0]


def _read_yaml(path: str | os.PathLike, where: str | None = None) -> tuple[Any, list[str]]:
    """:func:`read_yaml`'s data and the notes on YAML 1.1 boolean words it holds."""
    import yaml

    p = Path(path)
    where = where or f"config file {os.fspath(p)[:200]!r}"
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise SmrnbValueError(f"{where} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise SmrnbValueError(f"{where} is larger than {MAX_CONFIG_BYTES >> 20} MiB; a config is a few lines of YAML")
    if b"\x00" in data:
        raise SmrnbValueError(f"{where} is a binary file (it holds NUL bytes), not YAML text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SmrnbValueError(f"{where} is not UTF-8 text (byte {exc.start}): is it the right file?") from None
    if not text.strip():
        raise SmrnbValueError(f"{where} is empty ({len(data)} bytes): a config needs at least a 'steps' list")
    loader = _config_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")):
            raise SmrnbValueError(f"{where} is empty (only comments or document markers): a config needs at least a "
                                  "'steps' list")
        _expanded_size(node, where)
        notes = _check_yaml_forms(node, where)
        return loader.construct_document(node), notes
    except SmrnbError:
        raise
    except yaml.YAMLError as exc:
        raise SmrnbValueError(f"{where} is not valid YAML: {str(exc)[:500]}") from None
    except RecursionError:
        raise SmrnbValueError(f"{where} is nested too deeply to be a config") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar the constructor refuses (e.g. a 5000-digit int)
        raise SmrnbValueError(f"{where} holds a value YAML cannot build: {type(exc).__name__}: {str(exc)[:200]}") from None
    finally:
        loader.dispose()


def load_config(path: str | os.PathLike, registry: StepRegistry | None = None) -> dict[str, Any]:
    """Read and validate a YAML config file; relative ``source`` and ``output_dir`` resolve against its folder."""
    p = check_input(path, "config file", empty_ok=True, what="YAML file")  # missing, a symlink loop, a folder, permission
    raw, notes = _read_yaml(p)
    try:
        cfg = validate_config(raw, registry, where=f"config file {p.name}")
    except (SmrnbValueError, SmrnbTypeError) as exc:
        if not notes:
            raise
        raise type(exc)(f"{exc} (note: {'; '.join(notes[:3])}; quote a word meant as text)") from None
    for key in ("source", "output_dir"):
        holder, k2 = (cfg["source"], "path") if key == "source" and isinstance(cfg.get("source"), dict) else (cfg, key)
        v = holder.get(k2)
        if v is not None and v != "sample" and not Path(v).expanduser().is_absolute():
            cand = (p.parent / v)
            if key == "output_dir" or cand.exists():
                holder[k2] = os.fspath(cand)
    return cfg


def dump_config(config: Mapping[str, Any], registry: StepRegistry | None = None) -> str:
    """YAML text of ``config`` (validated first), each step's parameters commented with their help."""
    import yaml

    reg = _registry(registry)
    cfg = validate_config(config, reg)
    lines = ["# smrnb pipeline config: `smrnb run THIS.yaml`; parameters documented in docs/steps.md"]
    for key in ("source", "device", "output_dir"):
        if key in cfg or key == "source":
            lines.append(f"{key}: {yaml.safe_dump(cfg.get(key), default_flow_style=True).strip().removesuffix('...').strip()}")
    lines.append("steps:")
    for e in cfg["steps"]:
        step = reg.get(e["step"])
        lines.append(f"  - step: {step.name}    # {step.summary}")
        if "name" in e:
            lines.append(f"    name: {e['name']}")
        if e.get("params"):
            lines.append("    params:")
            for k, v in e["params"].items():
                val = yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()
                spec = step.param(k)
                lines.append(f"      {k}: {val}    # {spec.unit + ', ' if spec.unit else ''}default {spec.default_text()}")
    return "\n".join(lines) + "\n"


def default_config_path() -> Path:
    """The bundled ``smrnb demo`` config (``smrnb/pipeline/default.yaml``)."""
    return Path(__file__).with_name("default.yaml")


@functools.cache
def _default_config() -> dict[str, Any]:
    return load_config(default_config_path())


def default_config() -> dict[str, Any]:
    """The bundled ``smrnb demo`` config, read and validated on first use (each call gets its own copy)."""
    return copy.deepcopy(_default_config())
