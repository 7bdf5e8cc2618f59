# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The 3D viewer: :class:`Viewer`, a pythreejs canvas with its controls.

:class:`Viewer` is a small interface (``show`` / ``add`` / ``clear`` / ``fit_camera`` / ``link``
/ ``to_png`` / ``widget``) so that another front end could replace pythreejs later. Scene data is
first turned into plain numpy layers (:mod:`smrnb.widgets._layers`, shared with the static renderer
in :mod:`smrnb.widgets._static` and the saved page of :mod:`smrnb.widgets._html`), then into
three.js objects (:mod:`smrnb.widgets._three`). The viewer draws in the OpenGL frame (x right,
y up, z towards the viewer), metres.
"""

from __future__ import annotations

import base64
import contextlib
import html
import math
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import atomic_write
from smrnb.widgets._colors import hex_color, parse_rgb
from smrnb.widgets._compat import close_quietly
from smrnb.widgets._display import (
    StaticOutput,
    colorbar_html,
    frontend_status,
    quiet_widgets,
    set_changed,
    static_pictures,
    widget_bundle,
)
from smrnb.widgets._framing import axes_of, axes_points, fit_camera_pose, format_length, layers_units
from smrnb.widgets._html import scene_html
from smrnb.widgets._layers import SHADINGS, VOXEL_MODES, Layer, layers_for
from smrnb.widgets._static import render_png
from smrnb.widgets._sync import buffer_sync, drop_pending, send_arrays, sync_ready
from smrnb.widgets._three import (
    AXES_RGB,
    array_targets,
    axes_object,
    close_tree,
    drawn,
    headlight,
    make_object,
    same_structure,
    set_look,
    wire_arrays,
    wire_normals_of,
)

#: points drawn while the camera moves in the live viewer (every k-th point of a larger cloud)
POINT_BUDGET = 300_000
#: seconds without camera motion before full detail comes back
SETTLE_SECONDS = 0.3
#: the canvas events that start coarse drawing: a press, and a wheel step as OrbitControls hears it
GRAB_EVENTS = ("mousedown", "mousewheel", "MozMousePixelScroll")
#: the canvas event that ends a drag: OrbitControls reports the camera only when a drag ends, so without it a drag
#: held longer than the fallback below went back to full detail in the middle of the drag
RELEASE_EVENTS = ("mouseup",)
#: seconds after a press whose end the page never reports (a click that moved nothing, a release outside the
#: canvas that left the camera where it was) before full detail comes back anyway; after a wheel step that moved
#: nothing (the zoom at its limit), :data:`WHEEL_FALLBACK_SECONDS`
PRESS_FALLBACK_SECONDS = 20.0
WHEEL_FALLBACK_SECONDS = 3.0
#: an in-place update sending more bytes than this pauses the renderer's autorender around its messages (one
#: repaint). A smaller one arrives within a frame: pythreejs already draws once per animation frame, and the
#: pause would be two of the five widget messages of redrawing a 16k-vertex coloured mesh
PAUSE_BYTES = 1 << 20
#: what a viewer's buttons set, by the kind of data they apply to: (the ``show`` option and viewer attribute,
#: its values); the buttons show while such data is on screen
_MODE_BUTTONS = {"VoxelGrid": ("voxel_mode", VOXEL_MODES), "Mesh": ("shading", SHADINGS)}


class Viewer(StaticOutput):
    """An interactive 3D view (pythreejs) of meshes, point clouds and voxel grids.

    Parameters
    ----------
    data : Mesh, PointCloud, VoxelGrid or (N, 3) array, optional
        Shown right away (see :meth:`show` for the options, passed as keywords).
    width, height : int
        Canvas size in CSS pixels; the camera's aspect ratio is ``width / height``.
    background : str
        Canvas colour ``'#rrggbb'``.
    fov : float
        Vertical field of view, degrees.
    caption : str
        A line under the canvas saying what the picture shows (kept in static pictures and
        :meth:`save_html` pages); settable later through :attr:`caption`.
    point_budget : int
        While the person drags or zooms, a point layer of more than this many points is drawn as
        every k-th point (at most ``point_budget``, dots enlarged to keep the surface closed); full
        detail comes back when the camera rests (:data:`SETTLE_SECONDS`). A press or a wheel step on
        the canvas starts it (the browser tells the kernel through a picker on an enclosing sphere:
        OrbitControls itself reports only the end of a drag).

    Notes
    -----
    ``display(viewer)`` (or a viewer as the last expression of a cell) shows the live widget and
    carries a PNG of the same scene for nbconvert, docs and front ends without the widget extension.
    ``show`` on a viewer already on screen updates it in place: same canvas, camera kept.
    :meth:`save_png` and :meth:`save_html` (an offline interactive page) keep the current view.
    """

    @quiet_widgets
    def __init__(self, data: Any = None, *, width: int = 640, height: int = 400, background: str = "#ffffff",
                 fov: float = 45.0, caption: str = "", point_budget: int = POINT_BUDGET, **options: Any) -> None:
        import ipywidgets as ipw
        import pythreejs as three

        for nm, v in (("width", width), ("height", height)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 16:
                raise SmrnbValueError(f"{nm} must be an int >= 16 (pixels), got {v!r}")
        if not isinstance(point_budget, int) or isinstance(point_budget, bool) or point_budget < 1000:
            raise SmrnbValueError(f"point_budget must be an int >= 1000 (points), got {point_budget!r}")
        self.point_budget = point_budget
        buffer_sync()  # made with the first viewer, so that a front end has loaded it before any in-place update
        #: the coarse twin of each drawn object (None where the layer is within the budget)
        self._coarse: dict[str, list[Any]] = {}
        #: True while the camera moves and coarse twins are drawn; ``detail_log`` lists the switches
        self.moving = False
        self.detail_log: list[tuple[float, str]] = []
        self._settle_timer: Any = None
        self._detail_lock = threading.RLock()
        self._three = three
        self.width, self.height = width, height
        self.background = hex_color(parse_rgb(background, (1, 1, 1)))
        self.fov = float(fov)
        self.layers: dict[str, list[Layer]] = {}
        self._objects: dict[str, list[Any]] = {}
        self._fitted = False
        self._shown: dict[str, tuple[Any, dict[str, Any]]] = {}
        self._build_scene(three)
        self._build_controls(ipw)
        self.caption = caption
        self._links: list[Any] = []
        if data is not None:
            self.show(data, **options)
        elif options:
            raise SmrnbValueError(f"options {sorted(options)} need data to show")

    def _build_scene(self, three: Any) -> None:
        """The three.js side: camera with its headlight, orbit controls, the content group beside the axes and
        the ambient light, the pickers and the renderer."""
        self.camera = three.PerspectiveCamera(position=[0, 0, 3], fov=self.fov, aspect=self.width / self.height,
                                              near=0.01, far=100.0, children=[headlight(three)])
        self.controls = three.OrbitControls(controlling=self.camera)
        #: the drawn data (what picking looks at); axes and lights sit beside it in the scene
        self.content = three.Group()
        self.axes = axes_object(three)
        self.scene = three.Scene(children=[self.camera, three.AmbientLight(color="#ffffff", intensity=0.55),
                                           self.content, self.axes], background=self.background)
        # a double click picks (a single click ends every orbit drag, it would pick on each)
        self.picker = three.Picker(controlling=self.content, event="dblclick", pointThreshold=0.01,
                                   lineThreshold=0.005)
        # a press or a wheel step anywhere on the canvas: a picker on a sphere around everything (1000 km:
        # never in the scene, never drawn, its world matrix the identity) reports it to the kernel, which
        # switches big clouds to their coarse twins; each press hits it at another point, so each is sent
        self._grab_sphere = three.Mesh(three.SphereBufferGeometry(1e6, 16, 12),
                                       three.MeshBasicMaterial(side="DoubleSide", transparent=True, opacity=0.0))
        # The wheel is heard through the legacy "mousewheel" event (and Firefox's "MozMousePixelScroll"), the
        # ones pythreejs' OrbitControls zooms on: Chromium fires an element's "mousewheel" listeners only
        # when it has no "wheel" listener, so a picker on "wheel" would take the zoom away and let the
        # page scroll instead.
        self._grab = [three.Picker(controlling=self._grab_sphere, event=ev) for ev in GRAB_EVENTS]
        for g, ev in zip(self._grab, GRAB_EVENTS):
            g.observe(self._on_press if ev == "mousedown" else self._on_grab, names=["point"])
        # the release of a drag: full detail once the camera rests (a release at the press's own point is not
        # sent, the picker's point unchanged: the camera's report or the fallback ends that one)
        self._release = [three.Picker(controlling=self._grab_sphere, event=ev) for ev in RELEASE_EVENTS]
        for g in self._release:
            g.observe(self._on_camera_moved, names=["point"])
        self.camera.observe(self._on_camera_moved, names=["position", "quaternion"])
        self.renderer = three.Renderer(scene=self.scene, camera=self.camera,
                                       controls=[self.controls, self.picker, *self._grab, *self._release],
                                       width=self.width, height=self.height, antialias=True)
        self.renderer.add_class("smrnb-viewer")

    def _build_controls(self, ipw: Any) -> None:
        """The controls around the canvas (pick readout, clipping, voxel and shading buttons, legend, notes and
        caption) and :attr:`widget`, the whole panel."""
        self.pick_info = ipw.HTML(value="<span style='color:#777;font-size:12px'>double-click the data: its "
                                  "coordinates and normal</span>")
        self.pick_info.add_class("smrnb-viewer-pick")
        self.picker.observe(self._on_pick, names=["point", "distance"])
        self.clip_axis = ipw.Dropdown(options=["x", "y", "z"], value="x", description="clip",
                                      layout=ipw.Layout(width="110px"), style={"description_width": "30px"})
        self.clip = ipw.FloatSlider(value=1.0, min=0.0, max=1.0, step=0.01, readout_format=".0%",
                                    description="keep", style={"description_width": "35px"},
                                    layout=ipw.Layout(width="260px"))
        self.clip.add_class("smrnb-viewer-clip")
        self.clip_axis.observe(self._on_clip, names="value")
        self.clip.observe(self._on_clip, names="value")
        self.legend = ipw.HTML(value="")
        # voxel grids: cubes (exposed faces, one merged mesh) or one dot per voxel; shown with a grid only
        self.voxel_mode = ipw.ToggleButtons(options=[("cubes", "cubes"), ("dots", "points")], value="cubes",
                                            description="voxels", style={"button_width": "56px",
                                                                         "description_width": "45px"},
                                            layout=ipw.Layout(display="none"))
        self.voxel_mode.add_class("smrnb-viewer-voxel-mode")
        self.voxel_mode.observe(self._on_mode, names="value")
        # meshes: auto (flat, smooth when textured), each triangle lit by its plane, or smooth vertex normals
        self.shading = ipw.ToggleButtons(options=[(m, m) for m in SHADINGS], value="auto", description="shading",
                                         tooltips=["flat for a plain mesh, smooth for a textured one",
                                                   "each triangle lit by its own plane: the triangles show",
                                                   "area-weighted vertex normals interpolated across triangles"],
                                         style={"button_width": "72px", "description_width": "52px"},
                                         layout=ipw.Layout(display="none"))
        self.shading.add_class("smrnb-viewer-shading")
        self.shading.observe(self._on_mode, names="value")
        self.notice = ipw.HTML(value="", layout=ipw.Layout(margin="2px 0 0 0"))
        self._caption_html = ipw.HTML(value="")
        self._caption_html.add_class("smrnb-viewer-caption")
        tools = ipw.HBox([self.clip_axis, self.clip, self.pick_info], layout=ipw.Layout(align_items="center"))
        modes = ipw.HBox([self.voxel_mode, self.shading])
        self.widget = ipw.VBox([self.renderer, self._caption_html, tools, modes, self.legend, self.notice])

    @property
    def caption(self) -> str:
        """The line under the canvas (``""`` for none)."""
        return self._caption

    @caption.setter
    def caption(self, text: str) -> None:
        if not isinstance(text, str):
            raise SmrnbTypeError(f"caption must be a str, got {type(text).__name__}")
        self._caption = text
        self._caption_html.value = (f"<div style='font-size:13px;color:#333;margin:2px 0'>{html.escape(text)}</div>"
                                    if text else "")

    # ----------------------------------------------------------------------------- content
    @quiet_widgets
    def show(self, data: Any, *, name: str = "main", fit: bool | None = None, **options: Any) -> Viewer:
        """Replace layer ``name`` (default ``"main"``) with ``data``; other layers stay.

        Options: ``point_size`` (metres), ``colors`` ((N, 3) in [0, 1] for arrays), ``color``
        (``'#rrggbb'``, used without per-vertex colours), ``voxel_mode`` (``points`` | ``cubes``),
        ``max_voxels``, ``shading`` (``auto`` | ``flat`` | ``smooth``, see :func:`resolve_shading`; the
        viewer's shading buttons show and set it), ``wireframe`` (bool), ``overlays``
        (any of ``boundary``, ``non_manifold``, ``normals``), ``texture`` (bool: draw the baked
        texture when the mesh has one). ``fit``: refit the camera (default: only for the first data).
        Returns the viewer (so ``Viewer().show(mesh)`` displays).
        """
        kind = type(data).__name__
        if kind in _MODE_BUTTONS:  # the option follows the buttons, and an option given sets them
            option, allowed = _MODE_BUTTONS[kind]
            buttons = getattr(self, option)
            value = options.setdefault(option, buttons.value)
            if value in allowed and value != buttons.value:
                with buttons.hold_trait_notifications():
                    self._shown[name] = (data, dict(options))  # the observer below sees this value already
                    buttons.value = value
        layers = layers_for(data, **options)
        self._shown[name] = (data, dict(options))
        kinds = {type(d).__name__ for d, _ in self._shown.values()}
        for k, (option, _allowed) in _MODE_BUTTONS.items():
            set_changed(getattr(self, option).layout, "display", "flex" if k in kinds else "none")
        self._set_layers(name, layers)
        if fit or (fit is None and not self._fitted):
            self.fit_camera()
        self._update_static()
        return self

    add = show

    @quiet_widgets
    def remove(self, name: str) -> None:
        """Remove layer ``name`` (unknown names raise, listing the layers)."""
        if name not in self.layers:
            raise SmrnbValueError(f"no layer named {name!r}; layers: {', '.join(self.layers) or '(none)'}")
        self._set_layers(name, [])
        del self.layers[name]
        self._shown.pop(name, None)
        self._update_static()

    def clear(self) -> None:
        """Remove every layer (the camera stays where it is)."""
        for name in list(self.layers):
            self.remove(name)

    def _coarse_layer(self, layer: Layer) -> Layer | None:
        """Every k-th point of a points layer over the budget (dots enlarged by sqrt(k), at most 3x)."""
        n = len(layer.positions)
        if layer.kind != "points" or n <= self.point_budget:
            return None
        k = -(-n // self.point_budget)
        return replace(layer, positions=np.ascontiguousarray(layer.positions[::k]),
                       colors=None if layer.colors is None else np.ascontiguousarray(layer.colors[::k]),
                       size=layer.size * min(math.sqrt(k), 3.0), notes=[])

    def _set_layers(self, name: str, layers: list[Layer]) -> None:
        """Draw ``layers`` as layer ``name``: in place when the objects drawn for it have the same structure
        (same buffers and materials, and coarse twins for the same layers), else as new objects."""
        prev = self.layers.get(name)
        coarse = [self._coarse_layer(layer) for layer in layers]
        if (prev is not None and len(prev) == len(layers) and all(map(same_structure, prev, layers))
                and [c is None for c in coarse] == [c is None for c in self._coarse.get(name, [])]):
            self._redraw_in_place(name, prev, layers, coarse)
        else:
            self._replace_objects(name, layers, coarse)
        self.layers[name] = layers
        self._update_notice()

    def _redraw_in_place(self, name: str, prev: list[Layer], layers: list[Layer],
                         coarse: list[Layer | None]) -> None:
        """Give the objects drawn for ``prev`` the arrays of ``layers`` (and their coarse twins those of
        ``coarse``): no new front-end models or materials."""
        # the arrays and the bounds are computed before the first message goes out (each message wakes the
        # kernel's IO thread, which then competes for the interpreter with the numpy work still to do)
        updates = [(obj, a, b) for obj, a, b in zip(self._objects[name], prev, layers)]
        updates += [(obj, obj._smrnb_layer, b) for obj, b in zip(self._coarse[name], coarse) if obj is not None]
        # one message for every array when a page runs smrnb's sync model (it applies them within one task:
        # the page draws the whole update in its next frame), the page deriving smooth normals from the new
        # positions and triangles; else one message per array, normals computed here
        def plan(page_normals: bool) -> list[tuple[Any, str, np.ndarray]]:
            """(buffer widget, trait, array) of every object, each object's in the order of wire_arrays."""
            return [(attr, "array", arr) for obj, a, b in updates
                    for attr, arr in array_targets(obj, wire_arrays(a, b, page_normals))]

        page = sync_ready()
        targets = plan(page)
        for layer in layers:
            layer.bounds()
        derived = [(g.attributes["normal"], g.attributes["position"], g.index, wire_normals_of(b))
                   for obj, _a, b in updates if page and b.normals is None and b.derived_normals
                   for g in [drawn(obj).geometry]]
        if not send_arrays(targets, derived):
            if derived:  # no page to derive them after all
                targets = plan(False)
            # a large update: one repaint for the whole of it, not one per array (each costs a frame in
            # software GL)
            pause = sum(arr.nbytes for _w, _n, arr in targets) > PAUSE_BYTES
            with self.renderer.hold() if pause else contextlib.nullcontext():
                for attr, _n, arr in targets:
                    drop_pending(attr)
                    attr.array = arr
        for obj, _a, b in updates:
            set_look(obj, b)
        for obj, b in zip(self._coarse[name], coarse):
            if obj is not None:
                obj._smrnb_layer = b

    def _replace_objects(self, name: str, layers: list[Layer], coarse: list[Layer | None]) -> None:
        """New three.js objects for ``layers`` (and coarse twins for ``coarse``) in place of layer ``name``'s,
        whose front-end models are closed."""
        old = self._objects.pop(name, []) + [o for o in self._coarse.pop(name, []) if o is not None]
        new = [make_object(self._three, layer) for layer in layers]
        twins = []
        for obj, c in zip(new, coarse):
            twin = None
            if c is not None:
                twin = make_object(self._three, c)
                twin._smrnb_layer = c
                twin.visible = self.moving
                obj.visible = not self.moving
            twins.append(twin)
        keep = [c for c in self.content.children if not any(c is o for o in old)]
        self.content.children = tuple(keep + new + [t for t in twins if t is not None])
        for o in old:  # free the front-end models of the replaced geometry
            close_tree(o)
        self._objects[name] = new
        self._coarse[name] = twins

    # ------------------------------------------------------------------------- level of detail
    def _on_grab(self, change: Any = None) -> None:
        """A wheel step on the canvas: coarse twins while the camera moves."""
        self._set_detail(moving=True)
        self._schedule_settle(WHEEL_FALLBACK_SECONDS)

    def _on_press(self, change: Any = None) -> None:
        """A press on the canvas: coarse twins until the release (a drag may last many seconds)."""
        self._set_detail(moving=True)
        self._schedule_settle(PRESS_FALLBACK_SECONDS)

    def _on_camera_moved(self, change: Any = None) -> None:
        """The browser reports the camera at the end of a drag or wheel step, or the release of a press:
        full detail once it rests."""
        if self.moving:
            self._schedule_settle(SETTLE_SECONDS)

    def _schedule_settle(self, seconds: float) -> None:
        with self._detail_lock:
            if self._settle_timer is not None:
                self._settle_timer.cancel()
            self._settle_timer = threading.Timer(seconds, self._set_detail, kwargs={"moving": False})
            self._settle_timer.daemon = True
            self._settle_timer.start()

    def _set_detail(self, *, moving: bool) -> None:
        with self._detail_lock:
            if moving == self.moving:
                return
            twins = [(o, t) for name in self._objects for o, t in zip(self._objects[name], self._coarse.get(name, []))
                     if t is not None]
            self.moving = moving
            if not twins:
                return
            with self.renderer.hold():  # one repaint for the switch
                for obj, twin in twins:
                    (obj if moving else twin).visible = False
                    (twin if moving else obj).visible = True
            self.detail_log.append((time.time(), "coarse" if moving else "full"))
            del self.detail_log[:-100]

    def _update_notice(self) -> None:
        layers = [layer for ls in self.layers.values() for layer in ls]
        ax = axes_of(layers)
        origin = tuple(ax["origin"])
        # a re-run that moves the corner by at most one snap step (a fifth of an axis: a corner at -1.47 m then
        # -1.54 m snaps to -1.5 then -1.6) leaves the axes where they are: no jump, and nothing to send
        step = ax["length"] / 5.0
        if (self.axes.visible and layers and tuple(self.axes.scale) == (ax["length"],) * 3
                and all(abs(a - b) <= step * 1.001 for a, b in zip(origin, self.axes.position))):
            origin = tuple(self.axes.position)
        # traits are set only when they change: a set that changes nothing still validates (a re-run's redraw
        # is ~1 ms of mostly widget machinery, and these are half of its trait sets)
        axes = {"position": origin, "scale": (ax["length"],) * 3, "visible": bool(layers)}
        changed = {k: v for k, v in axes.items() if getattr(self.axes, k) != v}
        if changed:
            with self.axes.hold_sync():
                for k, v in changed.items():
                    setattr(self.axes, k, v)
        set_changed(self.legend, "value", colorbar_html(layers) + (
            "<div class='smrnb-viewer-axes' style='font-size:12px;color:#555'>axes <b style='color:#d00'>x</b> "
            f"<b style='color:#080'>y</b> <b style='color:#00d'>z</b>: {format_length(ax['length'], ax['units'])} each "
            "(y up)</div>"
            if layers else ""))
        sizes = [layer.size for layer in layers if layer.kind == "points"]
        if sizes:  # points within about one point of the ray are picked
            set_changed(self.picker, "pointThreshold", float(max(min(sizes), 1e-6)))
        self._update_clip()
        notes = [n for ls in self.layers.values() for layer in ls for n in layer.notes]
        set_changed(self.notice, "value", "".join(f"<div class='smrnb-viewer-note' style='font-size:12px;color:#555'>"
                                                   f"{html.escape(n)}</div>" for n in notes))

    # ------------------------------------------------------------------------------ teaching tools
    def _on_clip(self, _change: Any = None) -> None:
        self._update_clip()
        self._update_static()

    @quiet_widgets
    def _update_clip(self) -> None:
        """Clip away what lies beyond ``clip`` (a fraction of the data's extent) along ``clip_axis``
        (three.js renderer clipping plane: drawn where ``-x + c >= 0``, i.e. ``x <= c``)."""
        three = self._three
        old = list(self.renderer.clippingPlanes)
        plane = self._clip_plane()
        if plane is None:
            if old:
                self.renderer.clippingPlanes = []
            return
        normal = [0.0, 0.0, 0.0]
        normal[plane[0]] = -1.0
        self.renderer.clippingPlanes = [three.Plane(normal=normal, constant=plane[1])]
        for p in old:
            close_quietly(p)

    @quiet_widgets
    def _on_mode(self, change: Any) -> None:
        """Redraw what the buttons just changed apply to (voxel grids for ``voxel_mode``, meshes for
        ``shading``), camera kept."""
        option = "voxel_mode" if change["owner"] is self.voxel_mode else "shading"
        for name, (data, options) in list(self._shown.items()):
            if _MODE_BUTTONS.get(type(data).__name__, ("",))[0] == option and options.get(option) != change["new"]:
                self.show(data, name=name, fit=False, **{**options, option: change["new"]})

    def _on_pick(self, change: Any = None) -> None:
        self.pick_info.value = pick_text(self, self.picker.object, self.picker.point, self.picker.faceNormal,
                                         self.picker.face, self.picker.index)

    # ------------------------------------------------------------------------------ camera
    def fit_camera(self, *, also: Viewer | None = None) -> dict[str, Any]:
        """Point the camera at everything shown (and at what ``also`` shows), at the canvas's aspect
        ratio; returns the pose."""
        viewers = (self,) if also is None else (self, also)
        layers = [layer for v in viewers for ls in v.layers.values() for layer in ls]
        # the axes are framed too: they sit at the data's corner nearest the camera, which a round scene
        # (a sphere) leaves outside its own silhouette
        pose = fit_camera_pose([layer.positions for layer in layers], self.fov, self.width / self.height,
                               also=axes_points(axes_of(layers)) if layers else None)
        with self.camera.hold_sync():
            self.camera.aspect = self.width / self.height
            self.camera.near = pose["near"]
            self.camera.far = pose["far"]
            self.camera.position = pose["position"]
            self.camera.quaternion = pose["quaternion"]
        self.controls.target = pose["target"]
        self._fitted = True
        return pose

    @quiet_widgets
    def link(self, other: Viewer) -> None:
        """Share one camera view with ``other`` (before/after): orbiting either moves both.

        Both sides are linked in the browser (``jslink`` of position, quaternion and the orbit
        target); the shared view is fitted to what both show, so neither side runs off its canvas.
        """
        import ipywidgets as ipw

        if not isinstance(other, Viewer):
            raise SmrnbTypeError(f"other must be a Viewer, got {type(other).__name__}")
        if other is self:
            raise SmrnbValueError("other must be a different Viewer, got this one")
        self.fit_camera(also=other)
        with other.camera.hold_sync():
            for attr in ("position", "quaternion", "near", "far"):
                setattr(other.camera, attr, getattr(self.camera, attr))
        other.controls.target = self.controls.target
        other._fitted = True
        for a, b in ((self.camera, other.camera), (self.controls, other.controls)):
            for attr in (("position", "quaternion") if a is self.camera else ("target",)):
                lk = ipw.jslink((a, attr), (b, attr))
                self._links.append(lk)
                other._links.append(lk)

    # ------------------------------------------------------------------------------ output
    @property
    def nbytes(self) -> int:
        """Bytes of the binary geometry buffers currently in the scene."""
        return sum(layer.nbytes for ls in self.layers.values() for layer in ls)

    def _clip_plane(self) -> tuple[int, float] | None:
        """``(axis, c)``: what the clipping control keeps is ``position[axis] <= c``; None when it keeps all."""
        if self.clip.value >= 1.0 or not self.layers:
            return None
        a = "xyz".index(self.clip_axis.value)
        pts = [layer.positions[:, a] for ls in self.layers.values() for layer in ls if len(layer.positions)]
        if not pts:
            return None
        lo = min(float(np.nanmin(p)) for p in pts)
        hi = max(float(np.nanmax(p)) for p in pts)
        return a, lo + self.clip.value * (hi - lo)

    def _axes(self) -> dict[str, Any]:
        """The axes as the live view draws them (``origin``, ``length``): pictures and pages show the same
        ones (:meth:`_update_notice` places them, and keeps them through a small move of the data)."""
        return {"origin": [float(x) for x in self.axes.position], "length": float(self.axes.scale[0])}

    def static_layers(self) -> list[Layer]:
        """What a static picture draws: the layers cut by the clipping control (whole faces and
        segments: those with every vertex on the kept side; points one by one) and the axes."""
        layers = [layer for ls in self.layers.values() for layer in ls]
        if not layers:
            return []
        axes = self._axes()
        plane = self._clip_plane()
        if plane is not None:
            a, c = plane
            cut = []
            for layer in layers:
                keep = layer.positions[:, a] <= c
                if layer.kind == "mesh" and layer.faces is not None:
                    cut.append(replace(layer, faces=layer.faces[keep[layer.faces.astype(np.int64)].all(1)]))
                elif layer.kind == "lines":
                    seg = keep.reshape(-1, 2).all(1).repeat(2)
                    cut.append(replace(layer, positions=layer.positions[seg],
                                       colors=None if layer.colors is None else layer.colors[seg]))
                else:
                    cut.append(replace(layer, positions=layer.positions[keep],
                                       colors=None if layer.colors is None else layer.colors[keep]))
            layers = cut
        o = np.asarray(axes["origin"], np.float32)
        for k, rgb in enumerate(AXES_RGB):
            end = o.copy()
            end[k] += axes["length"]
            layers.append(Layer("lines", np.stack([o, end]).astype(np.float32), None, rgb))
        return layers

    def to_png(self, width: int | None = None, height: int | None = None) -> bytes:
        """A PNG of the scene from the current camera (software renderer, no browser needed), with
        the axes and the clipping control's cut."""
        return render_png(self.static_layers(), self.camera_pose(), width or self.width, height or self.height,
                          self.background)

    def static_html(self, note: str = "") -> str:
        """The scene as a static page fragment: the PNG of :meth:`to_png`, the caption, the colour bars,
        the axes' length, the layers' notes and ``note`` (what nbconvert, the docs and GitHub show)."""
        png = self.to_png()
        b64 = base64.b64encode(png).decode("ascii")
        layers = [layer for ls in self.layers.values() for layer in ls]
        parts = [f"<div class='smrnb-viewer-static'><img src='data:image/png;base64,{b64}'/>",
                 self._caption_html.value, colorbar_html(layers)]
        if layers:
            parts.append("<div style='font-size:12px;color:#555'>axes <b style='color:#d00'>x</b> "
                         f"<b style='color:#080'>y</b> <b style='color:#00d'>z</b>: "
                         f"{format_length(self._axes()['length'], layers_units(layers))} each (y up)</div>")
        plane = self._clip_plane()
        if plane is not None:
            parts.append(f"<div style='font-size:12px;color:#555'>clipped: {'xyz'[plane[0]]} &lt;= "
                         f"{plane[1]:.3g} m kept</div>")
        parts += [f"<div style='font-size:12px;color:#555'>{html.escape(n)}</div>"
                  for layer in layers for n in layer.notes]
        if note:
            parts.append(f"<div style='color:#666;font-size:90%'>{html.escape(note)}</div>")
        return "".join(parts) + "</div>"

    def camera_pose(self) -> dict[str, Any]:
        return {"position": tuple(self.camera.position), "quaternion": tuple(self.camera.quaternion),
                "fov": self.fov, "near": self.camera.near, "far": self.camera.far}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = {"text/plain": repr(self)}
        mode = static_pictures()
        status = frontend_status() if mode != "static" else {}
        if mode == "live" and status.get("installed") is not False:
            data.update(widget_bundle(self.widget, include=include, exclude=exclude, **kwargs))  # no picture
            return data
        png = self.to_png()
        data["image/png"] = base64.b64encode(png).decode("ascii")
        if status.get("installed") is False:
            data["text/html"] = self.static_html("static picture: the jupyter-threejs front end is not installed "
                                                 "where the server looks (run %smr_doctor)")
            return data
        if mode == "both":
            data.update(widget_bundle(self.widget, include=include, exclude=exclude, **kwargs))
        else:  # no live front end (nbconvert, docs, GitHub): the picture, not an empty widget view
            data["text/html"] = self.static_html(f"static picture of {self!r}; run the notebook for the 3D view")
        return data

    def save_png(self, path: Any, width: int | None = None, height: int | None = None) -> Any:
        """Write :meth:`to_png` to ``path`` (atomically, :func:`smrnb._files.atomic_write`); returns the path."""
        atomic_write(path, self.to_png(width, height))
        return Path(path)

    def save_html(self, path: Any, *, title: str | None = None, point_budget: int = 200_000) -> Any:
        """Write one self-contained HTML page of the current scene and camera to ``path`` (atomically);
        returns the path.

        The page inlines three.js (npm ``three``, MIT, shipped in the wheel; version in
        :func:`smrnb.widgets._html.threejs_version`) and every array, so it opens offline: orbit, zoom
        and pan like the live viewer, with axes (their length in metres), colour bars and the layers'
        notes as captions. While the camera moves, a cloud of more than ``point_budget`` points is
        drawn as every k-th point (at most ``point_budget``), in full when the drag ends.
        """
        if title is not None and not isinstance(title, str):
            raise SmrnbTypeError(f"title must be a str, got {type(title).__name__}")
        if not isinstance(point_budget, int) or isinstance(point_budget, bool) or point_budget < 1:
            raise SmrnbValueError(f"point_budget must be an int >= 1, got {point_budget!r}")
        pose = self.camera_pose()
        pose["target"] = tuple(self.controls.target)
        page = scene_html([layer for ls in self.layers.values() for layer in ls], pose, self.width, self.height,
                          self.background, title or self.caption or repr(self), point_budget, axes=self._axes())
        atomic_write(path, page)
        return Path(path)

    def __repr__(self) -> str:
        parts = []
        for name, ls in self.layers.items():
            for layer in ls:
                n = len(layer.positions) // (2 if layer.kind == "lines" else 1)
                unit = {"points": "points", "mesh": "vertices", "lines": "segments"}[layer.kind]
                extra = f", {len(layer.faces):,} faces" if layer.faces is not None else ""
                parts.append(f"{name}: {layer.kind} {n:,} {unit}{extra}")
        return f"Viewer({self.width}x{self.height}; {'; '.join(parts) or 'empty'})"


def pick_text(viewer: Viewer, obj: Any, point: Any, normal: Any, face: Any, index: Any) -> str:
    """What a pick shows: the point (metres, display frame), the surface normal of a mesh, the index of a
    picked point, and for a vertex on the rim of a hole the hole's edge count."""
    layer = None
    for name, objs in viewer._objects.items():
        for o, lay in zip(objs, viewer.layers[name]):
            if obj is o or any(obj is c for c in getattr(o, "children", ())):
                layer = lay
    if obj is None or layer is None:
        return "<span class='smrnb-pick-miss' style='font-size:12px;color:#777'>nothing under the pointer</span>"
    x, y, z = (float(c) for c in point)
    parts = [f"<b>point</b> ({x:.3f}, {y:.3f}, {z:.3f}) m"]
    if layer.kind == "mesh":
        parts.append("<b>normal</b> ({:.2f}, {:.2f}, {:.2f})".format(*(float(c) for c in normal)))
        f = [int(v) for v in face]
        p = np.array([x, y, z], np.float32)
        nearest = min(f, key=lambda v: float(np.linalg.norm(layer.positions[v] - p)))
        rim = _rim_sizes(layer).get(nearest)
        if rim:
            parts.append(f"<b>hole rim</b>: {rim} edges")
    elif layer.kind == "points" and index is not None:
        parts.append(f"point #{int(index):,}")
    return "<span class='smrnb-pick' style='font-size:12px'>" + " &middot; ".join(parts) + "</span>"


def _rim_sizes(layer: Layer) -> dict[int, int]:
    """Vertex -> edge count of the boundary loop (hole) it lies on, for a mesh layer (cached on it).
    Vertices split at uv seams are welded by position first, so seams are not taken for holes."""
    cached = getattr(layer, "_rims", None)
    if cached is not None:
        return cached
    from smrnb.geometry import boundary_loops

    _, inv = np.unique(layer.positions, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    welded = inv[layer.faces.astype(np.int64)]
    loop_len = np.zeros(int(inv.max()) + 1 if len(inv) else 0, np.int64)
    for loop in boundary_loops(welded):
        loop_len[np.asarray(loop)] = len(loop)
    per_vertex = loop_len[inv]
    on_rim = np.flatnonzero(per_vertex)
    sizes = dict(zip(on_rim.tolist(), per_vertex[on_rim].tolist()))
    layer._rims = sizes  # type: ignore[attr-defined]
    return sizes


__all__ = ["PAUSE_BYTES", "POINT_BUDGET", "SETTLE_SECONDS", "Viewer", "pick_text"]
