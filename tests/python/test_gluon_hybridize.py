"""Hybridize on the graph: one CachedOp call per forward, plans per input signature, flags,
autograd through the cached graph, deferred initialisation, clear errors, threads."""
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn
from mxnet.test_utils import environment


def _mlp(hidden=(16, 8), out=3, in_units=0):
    net = nn.HybridSequential()
    with net.name_scope():
        for h in hidden:
            net.add(nn.Dense(h, activation="relu", in_units=in_units))
            in_units = h if in_units else 0
        net.add(nn.Dense(out))
    return net


def _convnet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Dense(5))
    return net


class _CountingLib(object):
    """Wraps mx.base._LIB, counting calls of chosen C functions."""

    def __init__(self, lib, names):
        self._lib = lib
        self.counts = dict.fromkeys(names, 0)

    def __getattr__(self, name):
        fn = getattr(self._lib, name)
        if name not in self.counts:
            return fn

        def counted(*args):
            self.counts[name] += 1
            return fn(*args)
        return counted


@pytest.fixture
def count_calls(monkeypatch):
    import mxnet.base
    import mxnet.ndarray.cached_op as cached_op_mod
    import mxnet.ndarray.register as register_mod
    lib = _CountingLib(mxnet.base._LIB, ["MXInvokeCachedOpEx", "MXImperativeInvokeEx"])
    for mod in (cached_op_mod, register_mod):
        monkeypatch.setattr(mod, "_LIB", lib)
    return lib.counts


def test_hybridized_forward_is_one_library_call_whatever_the_depth(count_calls):
    net = _mlp(hidden=(8,) * 20)
    net.initialize()
    x = nd.array(np.random.rand(2, 5))
    net.hybridize()
    expected = net(x).asnumpy()
    for k in count_calls:
        count_calls[k] = 0
    for _ in range(3):
        out = net(x)
    assert count_calls["MXInvokeCachedOpEx"] == 3
    assert count_calls["MXImperativeInvokeEx"] == 0
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True},
                                   {"forward_bulk_size": 1, "backward_bulk_size": 1}])
def test_hybridized_matches_imperative_forward_and_training(flags):
    mx.random.seed(1)
    x = nd.array(np.random.RandomState(0).rand(4, 2, 6, 6))
    y = nd.array([0, 1, 2, 3])
    nets = []
    for hybrid in (False, True):
        net = _convnet()
        net.initialize(mx.init.Xavier())
        net(x)
        if hybrid:
            net.load_parameters(path, ctx=mx.cpu())
            net.hybridize(**flags)
        else:
            path = "/tmp/_hyb_test_%d.params" % id(flags)
            net.save_parameters(path)
        nets.append(net)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainers = [gluon.Trainer(n.collect_params(), "sgd", {"learning_rate": 0.1}) for n in nets]
    for step in range(3):
        outs, grads = [], []
        for net, tr in zip(nets, trainers):
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            tr.step(4)
            outs.append(loss.asnumpy())
            grads.append([p.grad().asnumpy() for p in net.collect_params().values()
                          if p.grad_req != "null"])
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-4, atol=1e-5)
        for g1, g0 in zip(grads[1], grads[0]):
            np.testing.assert_allclose(g1, g0, rtol=1e-3, atol=1e-5)
    # inference (running statistics, fusion) agrees too
    np.testing.assert_allclose(nets[1](x).asnumpy(), nets[0](x).asnumpy(), rtol=1e-4, atol=1e-5)
    # BatchNorm's running statistics were updated alike by the training calls
    bn = [[p.data().asnumpy() for n, p in net.collect_params().items() if "running" in n] for net in nets]
    for a, b in zip(bn[1], bn[0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_new_input_shapes_replan_and_plans_are_bounded():
    net = _mlp()
    net.initialize()
    net.hybridize()
    with environment("MXNET_CACHEDOP_MAX_PLANS", "2"):
        for batch in (1, 2, 3, 2, 1):
            x = nd.array(np.random.rand(batch, 5))
            net.hybridize(active=False, clear=False)
            ref = net(x).asnumpy()
            net.hybridize(active=True, clear=False)
            np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5)
        plans, _ = net._cached_op.info()
        assert plans == 2
    with environment("MXNET_CACHEDOP_MAX_PLANS", "8"):
        for batch in (4, 5, 6):
            net(nd.ones((batch, 5)))
        assert net._cached_op.info()[0] == 5


def test_static_shape_needs_static_alloc_and_unknown_flags_are_rejected():
    net = _mlp()
    with pytest.raises(ValueError, match="static_alloc must be True"):
        net.hybridize(static_shape=True)
    with pytest.raises(ValueError, match="unknown arguments"):
        net.hybridize(static_aloc=True)
    with pytest.raises(ValueError, match="takes no backend_opts"):
        net.hybridize(backend="ONEDNN", backend_opts={"dedup_subgraph": True})
    net.initialize()
    net.hybridize(backend="TVM")
    with pytest.raises(ValueError, match="'TVM' is not available"):
        net(nd.ones((1, 4)))


def test_static_alloc_outputs_are_not_overwritten_by_later_calls():
    net = _mlp()
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    a, b = nd.ones((2, 5)), nd.zeros((2, 5))
    out_a = net(a)
    out_b = net(b)
    net.hybridize(active=False)
    np.testing.assert_allclose(out_a.asnumpy(), net(a).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(out_b.asnumpy(), net(b).asnumpy(), rtol=1e-6)


def test_deferred_initialisation_through_the_graph():
    net = _mlp(hidden=(7,))
    net.initialize()
    net.hybridize()
    net(nd.ones((3, 11)))
    assert net[0].weight.shape == (7, 11)
    assert net[1].weight.shape == (3, 7)


def test_two_calls_under_one_record_get_their_own_saved_values():
    net = _mlp(hidden=(6,), in_units=4)
    net.initialize()
    for static in (False, True):
        net.hybridize(static_alloc=static)
        x1 = nd.array(np.random.rand(2, 4))
        x2 = nd.array(np.random.rand(2, 4))
        x1.attach_grad()
        x2.attach_grad()
        with autograd.record():
            loss = (net(x1) * net(x2)).sum()
        loss.backward()
        got = (x1.grad.asnumpy(), x2.grad.asnumpy())
        net.hybridize(active=False)
        with autograd.record():
            loss = (net(x1) * net(x2)).sum()
        loss.backward()
        np.testing.assert_allclose(got[0], x1.grad.asnumpy(), rtol=1e-5)
        np.testing.assert_allclose(got[1], x2.grad.asnumpy(), rtol=1e-5)


def test_retain_graph_allows_a_second_backward_and_freed_graph_is_an_error():
    net = _mlp(hidden=(6,), in_units=4)
    net.initialize()
    net.hybridize(inline_limit=0)
    x = nd.array(np.random.rand(2, 4))
    x.attach_grad()
    with autograd.record():
        y = net(x).sum()
    y.backward(retain_graph=True)
    first = x.grad.asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), first, rtol=1e-6)
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()


def test_higher_order_gradients_need_the_ops_recorded_one_by_one():
    x = nd.array([[0.3, -0.2, 0.5]])
    x.attach_grad()
    block = gluon.nn.HybridLambda(lambda F, v: F.elemwise_add(F.elemwise_add(v, v), v))
    block.hybridize(inline_limit=0)
    with autograd.record():
        y = block(x)
        with pytest.raises(mx.MXNetError, match="higher order"):
            autograd.grad(y, [x], create_graph=True)
    block.hybridize(inline_limit=10)  # two ops: recorded one by one, gradients recorded too
    with autograd.record():
        y = block(x)
        g = autograd.grad(y, [x], create_graph=True)[0]
        h = g * x
    h.backward()
    np.testing.assert_allclose(g.asnumpy(), np.full((1, 3), 3.0))
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((1, 3), 3.0))


def test_parameter_changes_reach_the_cached_graph(tmp_path):
    net = _mlp(hidden=(4,), in_units=3)
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 3))
    net(x)
    w = net[0].weight
    w.set_data(nd.zeros(w.shape))
    net.hybridize(active=False)
    expected = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected)
    net.cast("float64")
    out = net(nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64


class _ReadsValues(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum().asscalar() > 0:
            return x * 2
        return x


class _NoSuchOp(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.shape[0] * x


def test_what_a_symbol_cannot_express_is_a_clear_error_naming_the_line():
    for block, what in ((_ReadsValues(), "asscalar"), (_NoSuchOp(), "shape")):
        block.hybridize()
        with pytest.raises(RuntimeError) as err:
            block(nd.ones((2, 2)))
        msg = str(err.value)
        assert "cannot be hybridized" in msg and "test_gluon_hybridize.py" in msg and what in msg
        assert "hybridize(False)" in msg
        block.hybridize(False)
        block(nd.ones((2, 2)))  # runs imperatively


def test_argument_structure_must_match_the_cached_one():
    class TwoIn(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y=None):
            return x if y is None else x + y
    b = TwoIn()
    b.hybridize()
    b(nd.ones((2,)), nd.ones((2,)))
    with pytest.raises(ValueError, match="argument structure"):
        b(nd.ones((2,)))


def test_one_hybridized_network_from_eight_threads():
    net = _convnet()
    net.initialize(mx.init.Xavier())
    xs = [nd.array(np.random.RandomState(i).rand(2, 2, 6, 6)) for i in range(8)]
    expected = [net(x).asnumpy() for x in xs]
    for flags in ({}, {"static_alloc": True}):
        net.hybridize(**flags)
        results = [None] * 8
        errors = []
        barrier = threading.Barrier(8)

        def work(i):
            try:
                barrier.wait()
                for _ in range(5):
                    results[i] = net(xs[i]).asnumpy()
            except Exception as e:  # pylint: disable=broad-except
                errors.append(e)
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        for got, exp in zip(results, expected):
            np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-5)


class _ConvBnRelu(gluon.HybridBlock):
    """A user's own block: fusion must not depend on Gluon's classes."""

    def __init__(self, **kwargs):
        super(_ConvBnRelu, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(8, 3, padding=1, in_channels=3)
            self.bn = nn.BatchNorm(in_channels=8)

    def hybrid_forward(self, F, x):
        return F.relu(self.bn(self.conv(x)))


def test_a_users_conv_bn_relu_block_fuses_in_inference_only():
    net = _ConvBnRelu()
    net.initialize(mx.init.Xavier())
    for p in net.collect_params().values():
        if "running" in p.name:
            p.set_data(nd.array(np.random.rand(*p.shape) + 0.5))
    x = nd.array(np.random.rand(2, 3, 8, 8))
    ref = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    assert net._cached_op.info()[1] == 1  # one fused op: bn and relu folded into the convolution
    net.hybridize(backend="NONE")
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    assert net._cached_op.info()[1] == 0
    with environment("MXNET_SUBGRAPH_BACKEND", "NONE"):
        net.hybridize()
        net(x)
        assert net._cached_op.info()[1] == 0


def test_the_package_has_no_import_cycles():
    import ast
    import os
    root = os.path.dirname(mx.__file__)
    graph = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
            mod = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel
            pkg = mod if f == "__init__.py" else mod.rsplit(".", 1)[0]
            deps = set()
            for node in ast.parse(open(path).read()).body:  # module-level imports only
                if isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        parts = pkg.split(".")
                        parts = parts[:len(parts) - node.level + 1]
                        base = ".".join(parts + ([base] if base else []))
                    if not base.startswith("mxnet"):
                        continue
                    for alias in node.names:
                        sub = base + "." + alias.name
                        deps.add(sub if os.path.exists(os.path.join(os.path.dirname(root), *sub.split("."))) or
                                 os.path.exists(os.path.join(os.path.dirname(root), *sub.split(".")) + ".py")
                                 else base)
            deps.discard(mod)
            graph[mod] = deps
    # A module importing one of its own subpackages/submodules is the normal package pattern.
    state = {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if d.startswith(m + ".") or m.startswith(d + "."):
                continue
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d in graph and not state.get(d):
                visit(d, stack)
        stack.pop()
        state[m] = 2
    for m in sorted(graph):
        if not state.get(m):
            visit(m, [])


PROFILE_HYBRID = r"""
import mxnet as mx
from mxnet.gluon import nn
net = nn.HybridSequential()
net.add(nn.Dense(8, activation="relu", in_units=8), nn.Dense(8, activation="relu", in_units=8))
net.initialize()
net.hybridize(backend="NONE", **FLAGS)
x = mx.nd.ones((2, 8))
net(x); mx.nd.waitall()
mx.profiler.set_config(aggregate_stats=True, filename='/dev/null', profile_symbolic=True,
                       profile_imperative=False, profile_api=False, profile_memory=False)
mx.profiler.set_state('run')
net(x); mx.nd.waitall()
mx.profiler.set_state('stop')
print(mx.profiler.dumps())
"""


@pytest.mark.parametrize("flags", ["{}", "{'forward_bulk_size': 0}"])
def test_the_profiler_records_the_ops_inside_a_hybridized_block(run_python, flags):
    res = run_python("FLAGS = %s\n" % flags + PROFILE_HYBRID)
    assert res.returncode == 0, res.stderr
    rows = [line.split()[0] for line in res.stdout.splitlines()
            if line and not line.startswith((" ", "="))]
    if flags == "{}":  # one bulk segment, named by its ops
        assert "[FullyConnected,Activation,FullyConnected,Activation]" in rows, res.stdout
    else:
        assert "FullyConnected" in rows and "Activation" in rows, res.stdout
