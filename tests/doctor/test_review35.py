# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""(round 35 review) Two fixes of the release tables' findings that printed something untrue: a name YOLOv5 added
(a repository run from its checkout, whose PyPI namesake is another project's packaging) is fixed with git in the
checkout, not `pip install yolov5`; a compiled class's member a release removed is not blamed on that removal where the
text shows only releases before it."""

from smrnb.doctor._explain import explain_result

_PICKLE = ("Traceback (most recent call last):\n  File \"detect.py\", line 12, in <module>\n    model = torch.load("
           "'yolov5s.pt')\nAttributeError: Can't get attribute 'DetectionModel' on <module 'models.yolo' from "
           "'/home/u/catkin_ws/src/yolov5/models/yolo.py'>\n")


def _first(text: str):
    return explain_result(text, similar=False).findings[0]


def test_a_name_a_checkout_s_release_added_is_fixed_in_the_checkout():
    f = _first(_PICKLE)
    assert f.code == "package_api_version_mismatch"
    cmds = "\n".join(f.fix.commands)
    assert "pip install" not in cmds and "pip show yolov5" not in cmds, cmds
    assert 'git -C "<the yolov5 checkout>"' in cmds and "v6.2" in cmds, cmds


def test_a_package_s_added_name_is_still_an_install():
    f = _first("ImportError: cannot import name 'CogVideoXPipeline' from 'diffusers' "
               "(/usr/lib/python3/site-packages/diffusers/__init__.py)")
    assert f.code == "package_api_version_mismatch"
    assert 'pip install -U "diffusers>=0.30.0"' in "\n".join(f.fix.commands)


_TRT = ("Traceback (most recent call last):\n  File \"build.py\", line 20, in <module>\n    engine = "
        "builder.build_engine(network, config)\nAttributeError: 'tensorrt.tensorrt.Builder' object has no attribute "
        "'build_engine'\n")


def test_a_member_s_removal_is_not_blamed_before_that_release():
    res = explain_result("tensorrt 8.6.1\n" + _TRT, similar=False)
    assert not any("removed in tensorrt 10.0" in f.title for f in res.findings), [f.title for f in res.findings]
    assert not any("trt10_build_engine" in " ".join(f.evidence) for f in res.findings)


def test_a_member_s_removal_is_read_at_or_after_that_release_and_with_no_release_shown():
    for head in ("tensorrt 10.0.1\n", ""):
        f = _first(head + _TRT)
        assert f.code == "package_api_version_mismatch" and "removed in tensorrt 10.0" in f.title, f.title
