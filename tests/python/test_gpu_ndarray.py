"""Arrays on GPUs: creation, host<->device and device<->device copies (dtype changes
included), views, save/load, memory figures, autograd and a Gluon MLP trained on gpu(0) to the
loss it reaches on the CPU. The first test runs everywhere: without a device, GPU use is a
clear MXNetError."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from gpu_testing import HAS_GPU, needs_gpu

DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int32", "int64", "bool"]


def test_gpu_use_without_a_device_is_a_clear_error():
    if HAS_GPU:
        pytest.skip("this machine has a GPU")
    assert mx.context.num_gpus() == 0
    with pytest.raises(mx.base.MXNetError, match=r"gpu\(0\)"):
        nd.zeros((2, 3), ctx=mx.gpu(0)).wait_to_read()
    with pytest.raises(mx.base.MXNetError, match=r"gpu\(0\)"):
        nd.array([1.0, 2.0]).as_in_context(mx.gpu(0)).asnumpy()




@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_through_the_gpu(dtype):
    x = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    g = nd.array(x, ctx=mx.gpu(0), dtype=dtype)
    assert g.context == mx.gpu(0) and g.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(g.asnumpy(), x)
    back = g.copyto(mx.cpu())
    assert back.context == mx.cpu()
    np.testing.assert_array_equal(back.asnumpy(), x)
    pinned = nd.array(x, ctx=mx.cpu_pinned(0), dtype=dtype)
    np.testing.assert_array_equal(pinned.as_in_context(mx.gpu(0)).asnumpy(), x)


@pytest.mark.gpu
@needs_gpu
def test_copies_that_change_dtype_on_either_side():
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    g = nd.array(x, ctx=mx.gpu(0))
    to_host_f16 = nd.zeros((3, 4), dtype="float16")
    g.copyto(to_host_f16)
    np.testing.assert_array_equal(to_host_f16.asnumpy(), x.astype(np.float16))
    to_gpu_i32 = nd.zeros((3, 4), ctx=mx.gpu(0), dtype="int32")
    nd.array(x).copyto(to_gpu_i32)
    np.testing.assert_array_equal(to_gpu_i32.asnumpy(), x.astype(np.int32))
    same_gpu_f64 = nd.zeros((3, 4), ctx=mx.gpu(0), dtype="float64")
    g.copyto(same_gpu_f64)
    np.testing.assert_array_equal(same_gpu_f64.asnumpy(), x.astype(np.float64))


@pytest.mark.gpu
@needs_gpu
def test_views_and_assignment_on_the_gpu():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    g = nd.array(x, ctx=mx.gpu(0))
    np.testing.assert_array_equal(g[1:3].asnumpy(), x[1:3])
    np.testing.assert_array_equal(g[2].asnumpy(), x[2])
    g[1:3] = nd.array(np.ones((2, 5)), ctx=mx.gpu(0))
    x[1:3] = 1
    np.testing.assert_array_equal(g.asnumpy(), x)
    g[:] = 7
    np.testing.assert_array_equal(g.asnumpy(), np.full((4, 5), 7, np.float32))
    h = nd.zeros((4, 5), ctx=mx.gpu(0))
    h[:] = g
    np.testing.assert_array_equal(h.asnumpy(), g.asnumpy())


@pytest.mark.gpu
@needs_gpu
def test_save_and_load_of_gpu_arrays(tmp_path):
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    path = str(tmp_path / "a.params")
    nd.save(path, {"w": nd.array(x, ctx=mx.gpu(0)), "b": nd.array(x[0], ctx=mx.cpu())})
    loaded = nd.load(path)
    assert loaded["w"].context == mx.gpu(0)  # as 1.x: back on the GPU it was saved from
    assert loaded["b"].context == mx.cpu()
    np.testing.assert_array_equal(loaded["w"].asnumpy(), x)
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(ctx=mx.gpu(0))
    net.save_parameters(str(tmp_path / "d.params"))
    other = gluon.nn.Dense(3, in_units=4)
    other.load_parameters(str(tmp_path / "d.params"), ctx=mx.cpu())
    np.testing.assert_array_equal(other.weight.data().asnumpy(), net.weight.data().asnumpy())
    assert other.weight.data().context == mx.cpu()


@pytest.mark.gpu
@needs_gpu
def test_memory_figures_and_count():
    assert mx.context.num_gpus() >= 1
    free, total = mx.context.gpu_memory_info(0)
    assert 0 < free <= total
    with pytest.raises(mx.base.MXNetError, match="gpu"):
        nd.zeros((1,), ctx=mx.gpu(mx.context.num_gpus())).wait_to_read()


@pytest.mark.gpu
@needs_gpu
def test_autograd_on_the_gpu():
    x = np.linspace(-1, 1, 10)
    g = nd.array(x, ctx=mx.gpu(0), dtype="float64")
    g.attach_grad()
    with autograd.record():
        y = g * g + nd.exp(g)
    y.backward()
    np.testing.assert_allclose(g.grad.asnumpy(), 2 * x + np.exp(x), rtol=1e-12)
    assert g.grad.context == mx.gpu(0)


def _train_mlp(ctx, steps=30, hybridize=False):
    mx.random.seed(3)
    rs = np.random.RandomState(0)
    X = rs.randn(256, 20).astype(np.float32)
    y = (X[:, :5].sum(axis=1) > 0).astype(np.float32)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(32, activation="relu"), gluon.nn.Dense(2))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    data, label = nd.array(X, ctx=ctx), nd.array(y, ctx=ctx)
    losses = []
    for _ in range(steps):
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(data.shape[0])
        losses.append(float(loss.mean().asscalar()))
    return losses


@pytest.mark.gpu
@needs_gpu
def test_gluon_mlp_trains_on_the_gpu_as_on_the_cpu():
    cpu = _train_mlp(mx.cpu())
    gpu = _train_mlp(mx.gpu(0))
    assert gpu[-1] < 0.5 * gpu[0]
    np.testing.assert_allclose(gpu, cpu, rtol=2e-3, atol=2e-4)
    hybrid = _train_mlp(mx.gpu(0), hybridize=True)
    np.testing.assert_allclose(hybrid, cpu, rtol=2e-3, atol=2e-4)


@pytest.mark.gpu
@needs_gpu
def test_profiler_records_gpu_ops_and_memory_on_the_gpu_device(tmp_path):
    import json
    from mxnet import profiler
    path = str(tmp_path / "gpu.json")
    profiler.set_config(filename=path, profile_imperative=True, profile_memory=True, profile_api=False,
                        continuous_dump=False)
    a = nd.ones((64, 64), ctx=mx.gpu(0))
    nd.waitall()
    profiler.set_state("run")
    b = nd.exp(a)
    c = b.copyto(mx.cpu())
    nd.waitall()
    profiler.set_state("stop")
    profiler.dump(finished=True)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    pid_of = {e["args"]["name"]: e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    gpu_pid = pid_of["gpu/0"]
    ops = [e for e in events if e.get("cat") == "operator" and e["ph"] == "B"]
    assert any(e["name"] == "exp" and e["pid"] == gpu_pid for e in ops), ops
    assert any(e["name"] == "CopyGPU2CPU" and e["pid"] == gpu_pid for e in ops), ops
    assert any(e["pid"] == gpu_pid and e.get("cat") == "Device Storage" and e["ph"] == "i" for e in events)
    del b, c
