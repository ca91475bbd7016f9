"""mx.mod beyond the basics: callbacks, Monitor, mx.viz, and more of 1.x's Module behaviours
(fp16, group2ctxs, several contexts, SequentialModule). Expected values come from numpy."""
import logging
import os
import re

import numpy as np
import pytest

import mxnet as mx

from module_testing import _bucket_batch, _bucket_sym_gen, _mlp, _np_mlp, _np_params, _problem, _trained_module


# ---- callbacks ------------------------------------------------------------------------------
def test_speedometer_and_do_checkpoint(tmp_path, caplog):
    x, y = _problem(n=120)
    prefix = str(tmp_path / "cb")
    with caplog.at_level(logging.INFO):
        mod, _ = _trained_module(x, y, epochs=2, batch_size=10,
                                 batch_end_callback=[mx.callback.Speedometer(10, frequent=3),
                                                     mx.callback.log_train_metric(4)],
                                 epoch_end_callback=mx.callback.do_checkpoint(prefix))
    lines = re.findall(r"Epoch\[(\d+)\] Batch \[(\d+)-(\d+)\]\tSpeed: [\d.]+ samples/sec"
                       r"\taccuracy=[\d.]+", caplog.text)
    assert ("0", "0", "3") in lines and ("0", "3", "6") in lines and ("1", "6", "9") in lines
    assert re.search(r"Iter\[0\] Batch\[4\] Train-accuracy=[\d.]+", caplog.text)
    for epoch in (1, 2):
        assert os.path.isfile("%s-%04d.params" % (prefix, epoch))
    assert os.path.isfile(prefix + "-symbol.json")
    sym, arg, aux = mx.model.load_checkpoint(prefix, 2)
    assert sym.list_arguments() == mod.symbol.list_arguments()
    trained = _np_params(mod)
    for k, v in arg.items():
        np.testing.assert_array_equal(v.asnumpy(), trained[k])


def test_speedometer_without_auto_reset_and_progress(caplog):
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1, 0])], [mx.nd.array([[0, 1], [0, 1]])])
    speed = mx.callback.Speedometer(4, frequent=2, auto_reset=False)
    bar = mx.callback.ProgressBar(total=4, length=8)
    with caplog.at_level(logging.INFO):
        for nbatch in range(5):
            param = mx.model.BatchEndParam(epoch=3, nbatch=nbatch, eval_metric=metric,
                                           locals=None)
            speed(param)
            bar(param)
    assert re.search(r"Epoch\[3\] Batch \[0-4\]\tSpeed: [\d.]+ samples/sec\taccuracy=0.5",
                     caplog.text)
    assert "[====----] 50%" in caplog.text
    assert metric.num_inst == 2  # not reset


def test_module_checkpoint_callback(tmp_path):
    x, y = _problem(n=40)
    mod = mx.mod.Module(_mlp())
    prefix = str(tmp_path / "mc")
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mod.fit(it, num_epoch=2, epoch_end_callback=mx.callback.module_checkpoint(
        mod, prefix, period=2, save_optimizer_states=True))
    assert not os.path.exists(prefix + "-0001.params")
    assert os.path.isfile(prefix + "-0002.params") and os.path.isfile(prefix + "-0002.states")


# ---- monitor and visualization ----------------------------------------------------------------
def test_monitor_collects_outputs_and_arguments():
    x, y = _problem(n=4)
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[("data", (4, 10))], label_shapes=[("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer()
    mon = mx.mon.Monitor(1, pattern=".*", sort=True)
    mod.install_monitor(mon)
    mon.tic()
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    rows = mon.toc()
    names = [r[1] for r in rows]
    assert names == sorted(names)
    for name in ("fc1_output", "relu1_output", "fc2_output", "softmax_output", "fc1_weight",
                 "fc2_bias", "data"):
        assert name in names, names
    # inactive between tic()s: nothing collected
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    assert mon.toc() == []


def _lenet():
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name="conv1")
    b1 = mx.sym.BatchNorm(c1, name="bn1")
    a1 = mx.sym.Activation(b1, act_type="relu", name="relu1")
    p1 = mx.sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    c2 = mx.sym.Convolution(p1, kernel=(5, 5), num_filter=50, name="conv2")
    a2 = mx.sym.Activation(c2, act_type="relu", name="relu2")
    p2 = mx.sym.Pooling(a2, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool2")
    f = mx.sym.Flatten(p2, name="flatten")
    fc1 = mx.sym.FullyConnected(f, num_hidden=500, name="fc1")
    fc2 = mx.sym.FullyConnected(fc1, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def test_print_summary(capsys):
    mx.viz.print_summary(_lenet(), shape={"data": (1, 1, 28, 28)})
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "_" * 120
    assert lines[1].startswith("Layer (type)") and "Output Shape" in lines[1]
    assert lines[1].index("Output Shape") == int(120 * .44)
    assert lines[1].index("Param #") == int(120 * .64)
    assert lines[1].index("Previous Layer") == int(120 * .74)
    conv1 = [l for l in lines if l.startswith("conv1(Convolution)")][0]
    assert "20x24x24" in conv1 and " 520 " in conv1 and conv1.rstrip().endswith("data")
    assert re.search(r"^bn1\(BatchNorm\)\s+20x24x24\s+40\s+conv1", out, re.M)
    assert re.search(r"^conv2\(Convolution\)\s+50x8x8\s+25050\s+pool1", out, re.M)
    assert re.search(r"^fc1\(FullyConnected\)\s+500\s+400500\s+flatten", out, re.M)
    assert re.search(r"^fc2\(FullyConnected\)\s+10\s+5010\s+fc1", out, re.M)
    assert re.search(r"^data\(null\)\s+1x28x28\s+0", out, re.M)
    assert "Total params: %d" % (520 + 40 + 25050 + 400500 + 5010) in out
    assert lines[-1] == "_" * 120
    # without shapes: no shape column, still a table
    mx.viz.print_summary(_lenet())
    out = capsys.readouterr().out
    assert "conv1(Convolution)" in out and "Total params:" in out


def test_print_summary_multiple_inputs_and_narrow_lines(capsys):
    a = mx.sym.var("data")
    c1 = mx.sym.Convolution(a, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c1")
    c2 = mx.sym.Convolution(a, kernel=(1, 1), num_filter=6, no_bias=True, name="c2")
    cat = mx.sym.Concat(c1, c2, dim=1, name="cat")
    mx.viz.print_summary(cat, shape={"data": (2, 3, 8, 8)}, line_length=80)
    out = capsys.readouterr().out
    assert re.search(r"^c2\(Convolution\)\s+6x8x8\s+18\s+data", out, re.M)
    assert re.search(r"^cat\(Concat\)\s+10x8x8\s+0\s+c1", out, re.M)
    assert re.search(r"^\s+c2\s*$", out, re.M)  # second input on its own row
    assert "Total params: %d" % (3 * 4 * 9 + 4 + 18) in out
    assert all(len(l) <= 80 for l in out.splitlines())


def test_plot_network_needs_graphviz():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="graphviz"):
            mx.viz.plot_network(_mlp())
        return
    dot = mx.viz.plot_network(_lenet(), shape={"data": (1, 1, 28, 28)})
    assert "conv1" in dot.source


def test_data_desc_and_batch_axis():
    d = mx.io.DataDesc("data", (4, 3), layout="TNC")
    assert mx.io.DataDesc.get_batch_axis(d.layout) == 1
    assert d.dtype == np.float32


# ---- more of 1.x's module behaviours -------------------------------------------------------------
def test_fp16_module_keeps_dtype():
    data = mx.sym.var("data")
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=[mx.io.DataDesc("data", (4, 5), np.float16)],
             label_shapes=[mx.io.DataDesc("softmax_label", (4,), np.float16)])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "multi_precision": True})
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((4, 5), dtype="float16")],
                                         [mx.nd.ones((4,), dtype="float16")]))
    mod.update()
    assert mod.get_outputs()[0].dtype == np.float16
    assert mod.get_params()[0]["fc_weight"].dtype == np.float16


def test_group2ctxs_on_one_device():
    data = mx.sym.var("data")
    with mx.AttrScope(ctx_group="dev1"):
        fc1 = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    with mx.AttrScope(ctx_group="dev2"):
        fc2 = mx.sym.FullyConnected(fc1, num_hidden=2, name="fc2")
    out = mx.sym.SoftmaxOutput(fc2, name="softmax")
    mod = mx.mod.Module(out, group2ctxs=[{"dev1": mx.cpu(0), "dev2": mx.cpu(0)}])
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer()
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.ones((4,))]))
    mod.update()
    assert mod.get_outputs()[0].shape == (4, 2)


def test_two_contexts_split_the_batch_and_match_one():
    x, y = _problem(n=120)
    results = []
    for ctx in (mx.cpu(), [mx.cpu(0), mx.cpu(0)]):
        mx.random.seed(5)
        mod = mx.mod.Module(_mlp(), context=ctx)
        it = mx.io.NDArrayIter(x, y, batch_size=20)
        mod.fit(it, num_epoch=3, kvstore="device", initializer=mx.init.Xavier(),
                optimizer_params={"learning_rate": 0.1})
        results.append((_np_params(mod), mod.predict(it).asnumpy()))
        if isinstance(ctx, list):
            assert len(mod._exec_group.execs) == 2
            assert [s.stop - s.start for s in mod._exec_group.slices] == [10, 10]
            parts = mod.get_outputs(merge_multi_context=False)
            assert [p.shape for p in parts[0]] == [(10, 4), (10, 4)]
    (p1, o1), (p2, o2) = results
    for k in p1:
        np.testing.assert_allclose(p1[k], p2[k], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(o1, o2, rtol=1e-4, atol=1e-5)


class _BucketIter(mx.io.DataIter):
    """Batches of sequences whose length (the bucket key) varies from batch to batch."""

    def __init__(self, keys, batch_size=8, seed=0):
        super(_BucketIter, self).__init__(batch_size)
        self.keys = list(keys)
        self.seed = seed
        self.provide_data = [mx.io.DataDesc("data", (batch_size, max(keys), 4))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (batch_size,))]
        self.default_bucket_key = max(keys)
        self.reset()

    def reset(self):
        self.rng = np.random.RandomState(self.seed)
        self.pos = 0

    def next(self):
        if self.pos == len(self.keys):
            raise StopIteration
        key = self.keys[self.pos]
        self.pos += 1
        batch, _, _ = _bucket_batch(self.rng, key, n=self.batch_size)
        return batch


def test_bucketing_module_fit_and_score():
    train = _BucketIter([4, 9, 6, 9, 4, 6] * 10, seed=1)
    val = _BucketIter([4, 9, 6] * 4, batch_size=16, seed=2)
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=train.default_bucket_key)
    mod.fit(train, eval_data=val, num_epoch=3, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1})
    acc = dict(mod.score(val, "acc"))["accuracy"]
    assert acc > 0.8, acc
    assert sorted(mod._buckets) == [4, 6, 9]
    preds = mod.predict(val, merge_batches=False)
    assert [p[0].shape for p in preds[:3]] == [(16, 3)] * 3


def test_fit_with_monitor_logs_stats(caplog):
    x, y = _problem(n=20)
    mon = mx.mon.Monitor(2, pattern="fc1.*")
    mod = mx.mod.Module(_mlp())
    with caplog.at_level(logging.INFO):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=10), num_epoch=1, monitor=mon)
    assert re.search(r"Batch:\s+1 fc1_output\s+", caplog.text)
    assert re.search(r"Batch:\s+1 fc1_weight\s+", caplog.text)
    assert "relu1_output" not in caplog.text


def test_state_names_are_inputs_not_params():
    data = mx.sym.var("data")
    state = mx.sym.var("state")
    out = mx.sym.FullyConnected(data, num_hidden=3, name="fc") + state
    mod = mx.mod.Module(out, label_names=None, state_names=["state"])
    mod.bind(data_shapes=[("data", (2, 4))])
    mod.init_params(initializer=mx.init.One())
    assert sorted(mod.get_params()[0]) == ["fc_bias", "fc_weight"]
    mod.set_states(value=5)
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 4))]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.full((2, 3), 4 + 5.0))
    np.testing.assert_allclose(mod.get_states()[0].asnumpy(), np.full((2, 3), 5.0))
    mod.set_states(states=[mx.nd.zeros((2, 3))])
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 4))]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.full((2, 3), 4.0))


def test_errors_before_bind_and_init():
    mod = mx.mod.Module(_mlp())
    with pytest.raises(RuntimeError):
        mod.init_params()
    with pytest.raises(RuntimeError):
        mod.forward(mx.io.DataBatch([mx.nd.ones((2, 10))]))
    mod.bind(data_shapes=[("data", (2, 10))], for_training=False)
    mod.init_params()
    with pytest.raises(RuntimeError):
        mod.backward()
    with pytest.raises(RuntimeError):
        mod.get_input_grads()


def test_force_rebind_keeps_trained_parameters():
    x, y = _problem(n=40)
    mod, it = _trained_module(x, y, epochs=1)
    it.reset()
    mod.forward_backward(next(iter(it)))
    mod.update()  # the host copies are stale now
    group = mod._exec_group
    trained = {n: a[0].asnumpy() for n, a in zip(group.param_names, group.param_arrays)}
    mod.bind(data_shapes=[("data", (5, 10))], label_shapes=[("softmax_label", (5,))],
             for_training=False, force_rebind=True)
    np.testing.assert_allclose(mod.predict(mx.nd.array(x[:5])).asnumpy(),
                               _np_mlp(trained, x[:5]), rtol=1e-4, atol=1e-6)
    for k, v in _np_params(mod).items():
        np.testing.assert_array_equal(v, trained[k])


def test_monitor_counts_as_mxnet():
    """21 stats: 5 forward outputs, 10 backward outputs, 6 arguments (MXNet 1.x's count)."""
    x = mx.sym.var("data")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_0")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_0")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_1")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_1")
    x = mx.sym.SoftmaxOutput(x, name="softmax")

    def mean_abs(arr):
        return mx.nd.sum(mx.nd.abs(arr)) / arr.size

    mon = mx.mon.Monitor(1, stat_func=mean_abs, pattern=".*", sort=True)
    it = mx.io.NDArrayIter(np.array([[0.05, 0.10]]), np.array([1.0]), batch_size=1)
    mod = mx.mod.Module(x, context=[mx.cpu()])
    mod.bind(it.provide_data, label_shapes=it.provide_label, for_training=True)
    mod.install_monitor(mon)
    mod.init_params(arg_params={"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
                                "fc_0_bias": mx.nd.array([.35, .35]),
                                "fc_1_weight": mx.nd.array([[.40, .45], [.50, .55]]),
                                "fc_1_bias": mx.nd.array([.60, .60])})
    mon.tic()
    mod.forward_backward(next(iter(it)))
    res = mon.toc()
    assert len(res) == 21
    keys = ["act_0", "act_1", "data", "fc_0", "fc_1", "softmax"]
    counts = [sum(1 for _, k, _ in res if k.startswith(key)) for key in keys]
    assert counts == [2, 2, 1, 6, 6, 4]
    stats = {k: float(v.split()[0]) for _, k, v in res}
    assert stats["fc_0_weight"] == pytest.approx(np.mean([.15, .20, .25, .30]))
    h = 1 / (1 + np.exp(-(np.array([.05, .10]).dot([[.15, .25], [.20, .30]]) + .35)))
    assert stats["act_0_output"] == pytest.approx(h.mean(), rel=1e-5)


def test_bucketing_batch_without_provide_data():
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=6)
    mod.bind(data_shapes=[("data", (8, 6, 4))], label_shapes=[("softmax_label", (8,))])
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.ones((8, 3, 4))], [mx.nd.zeros((8,))], bucket_key=3)
    mod.forward(batch, is_train=False)
    assert mod.get_outputs()[0].shape == (8, 3)
    assert [tuple(d.shape) for d in mod.data_shapes] == [(8, 3, 4)]


def test_sequential_module_with_symbolic_and_python_loss():
    x, y = _problem(n=200)
    data = mx.sym.var("data")
    body = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    body = mx.sym.Activation(body, act_type="relu", name="relu1")
    body = mx.sym.FullyConnected(body, num_hidden=4, name="fc2")
    head = mx.sym.SoftmaxOutput(mx.sym.var("data"), name="softmax")

    # symbolic body + symbolic loss
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(body, label_names=None))
    seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mx.random.seed(2)
    seq.fit(it, num_epoch=8, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert dict(seq.score(it, "acc"))["accuracy"] > 0.85
    assert sorted(seq.get_params()[0]) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert seq.output_shapes == [("softmax_output", (20, 4))]

    # symbolic body + a loss written in Python: softmax cross-entropy's gradient
    def grad_func(scores, labels):
        s = scores.asnumpy()
        e = np.exp(s - s.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        return p - np.eye(4)[labels.asnumpy().astype(int)]

    seq2 = mx.mod.SequentialModule()
    seq2.add(mx.mod.Module(body, label_names=None))
    seq2.add(mx.mod.PythonLossModule(grad_func=grad_func), take_labels=True, auto_wiring=True)
    mx.random.seed(2)
    seq2.fit(it, num_epoch=8, initializer=mx.init.Xavier(),
             optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    # the Python loss outputs raw scores: accuracy still works on their argmax
    assert dict(seq2.score(it, "acc"))["accuracy"] > 0.85
    with pytest.raises(ValueError):
        seq2.add(mx.mod.Module(head), take_lables=True)
