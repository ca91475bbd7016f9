"""mx.kernels and the MXNET_KERNEL_* variables: listing, forcing, excluding and tracing the
implementations of an op's kernel list (the per-op behaviour is covered by test_op_harness)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
ONEDNN = mx.runtime.Features().is_enabled("ONEDNN")


def _conv(x, w, **kw):
    return mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0], no_bias=True, **kw)


def _winograd_problem():
    rng = np.random.RandomState(0)
    return (mx.nd.array(rng.uniform(-1, 1, (2, 16, 16, 16))), mx.nd.array(rng.uniform(-1, 1, (16, 16, 3, 3))))


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "..", "python")] +
                                                    [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)


def test_reference_is_last_and_everywhere():
    for name in ("relu", "Convolution", "_backward_Convolution", "FullyConnected", "sum"):
        impls = mx.kernels.implementations(name)
        assert impls[-1] == "reference", (name, impls)
        assert len(set(impls)) == len(impls)
    assert mx.kernels.implementations("relu", "gpu") == [] or "reference" not in mx.kernels.implementations("relu", "gpu")


@pytest.mark.skipif(not ONEDNN, reason="the oneDNN build's convolution list")
def test_convolution_list_and_tags():
    assert mx.kernels.implementations("Convolution") == ["winograd", "few_channel", "onednn", "reference"]
    tags = mx.kernels.tags("Convolution")
    assert "winograd" in tags["winograd"] and "onednn" in tags["winograd"]
    assert tags["reference"] == []


def test_unknown_op_is_a_clear_error():
    with pytest.raises(mx.base.MXNetError, match="Cannot find operator no_such_op"):
        mx.kernels.implementations("no_such_op")
    with pytest.raises(ValueError):
        mx.kernels.implementations("relu", "tpu")


def test_trace_names_what_ran_and_forcing_the_reference_agrees():
    x, w = _winograd_problem()
    with mx.kernels.trace() as t:
        fast = _conv(x, w).asnumpy()
    assert t.implementations("Convolution") == [mx.kernels.implementations("Convolution")[0] if ONEDNN else "reference"]
    with mx.kernels.force({"Convolution": "reference"}), mx.kernels.trace() as t:
        ref = _conv(x, w).asnumpy()
    assert t.implementations("Convolution") == ["reference"]
    np.testing.assert_allclose(fast, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not ONEDNN, reason="needs more than the reference")
def test_forcing_is_strict_and_the_rules_come_back():
    x, w = _winograd_problem()
    before = mx.kernels.rules()
    with mx.kernels.force({"Convolution": "few_channel"}):
        assert "Convolution:few_channel" in mx.kernels.rules()[0]
        with pytest.raises(mx.base.MXNetError, match="forced kernel 'few_channel' does not accept"):
            _conv(x, w).wait_to_read()
    assert mx.kernels.rules() == before
    with pytest.raises(mx.base.MXNetError, match="is not one of its cpu kernels"):
        with mx.kernels.force({"Convolution": "nosuch"}):
            _conv(x, w).wait_to_read()
    assert mx.kernels.rules() == before


@pytest.mark.skipif(not ONEDNN, reason="needs more than the reference")
def test_exclude_by_name_and_tag_and_nesting():
    x, w = _winograd_problem()
    with mx.kernels.exclude("winograd"), mx.kernels.trace() as t:
        _conv(x, w).wait_to_read()
    assert t.implementations("Convolution") == ["onednn"]
    with mx.kernels.exclude("onednn"):
        with mx.kernels.exclude("Convolution:few_channel"), mx.kernels.trace() as t:
            _conv(x, w).wait_to_read()
        assert "onednn" in mx.kernels.rules()[1] and "few_channel" not in mx.kernels.rules()[1]
    assert t.implementations("Convolution") == ["reference"]
    with pytest.raises(mx.base.MXNetError, match="reference kernel cannot be excluded"):
        with mx.kernels.exclude("reference"):
            pass


def test_verbose_prints_one_line_per_kernel_run():
    res = _run("import mxnet as mx\n"
               "x = mx.nd.ones((2, 3))\n"
               "mx.nd.relu(x).wait_to_read()\n", MXNET_KERNEL_VERBOSE="1")
    assert res.returncode == 0, res.stderr
    lines = [l for l in res.stderr.splitlines() if l.startswith("mxnet_kernel,exec,cpu,relu,")]
    assert len(lines) == 1, res.stderr
    fields = lines[0].split(",")
    assert fields[4] == "reference" and "in=2x3:float32:plain" in fields[5] and float(fields[6]) >= 0


@pytest.mark.skipif(not ONEDNN, reason="oneDNN implementations to switch off")
def test_environment_force_exclude_and_onednn_switch():
    code = ("import mxnet as mx, numpy as np\n"
            "x = mx.nd.ones((2, 16, 16, 16)); w = mx.nd.ones((16, 16, 3, 3))\n"
            "with mx.kernels.trace() as t:\n"
            "    mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True).wait_to_read()\n"
            "print(t.implementations('Convolution'))\n")
    for env, want in [({"MXNET_KERNEL_FORCE": "Convolution:onednn"}, "['onednn']"),
                      ({"MXNET_KERNEL_EXCLUDE": "winograd"}, "['onednn']"),
                      ({"MXNET_CPU_WINOGRAD_CONV": "0"}, "['onednn']"),
                      ({"MXNET_ONEDNN_ENABLED": "0"}, "['reference']"),
                      ({}, "['winograd']")]:
        res = _run(code, **env)
        assert res.returncode == 0, (env, res.stderr[-2000:])
        assert res.stdout.strip().splitlines()[-1] == want, (env, res.stdout)
    res = _run(code, MXNET_KERNEL_FORCE="nosuchop:reference")
    assert res.returncode != 0 and "no operator named 'nosuchop'" in res.stderr, res.stderr[-2000:]
