"""MCC (binary Matthews correlation, macro/micro) and PCC (its multi-class form from a
confusion matrix, local and global), checked against the formulas computed here with numpy
and, where the MXNet 1.9.1 peer is installed, against 1.x's own results."""

import numpy as np
import pytest

import mxnet as mx
from peer_oracle import needs_peer, run_peer


def _binary_mcc(label, pred_label):
    tp = np.sum((pred_label == 1) & (label == 1))
    fp = np.sum((pred_label == 1) & (label == 0))
    fn = np.sum((pred_label == 0) & (label == 1))
    tn = np.sum((pred_label == 0) & (label == 0))
    denom = [float(t) if t else 1.0 for t in (tp + fp, tp + fn, tn + fp, tn + fn)]
    return (tp * tn - fp * fn) / np.sqrt(np.prod(denom))


def _multiclass_mcc(label, pred_label, k):
    c = np.zeros((k, k))
    for t, p in zip(label, pred_label):
        c[t, p] += 1
    n, s = c.sum(), np.trace(c)
    t_k, p_k = c.sum(axis=1), c.sum(axis=0)
    return (s * n - t_k @ p_k) / np.sqrt((n * n - p_k @ p_k) * (n * n - t_k @ t_k))


def test_mcc_macro_and_micro_against_the_formula():
    rng = np.random.RandomState(1)
    batches = [(rng.randint(0, 2, 25), rng.uniform(size=(25, 2))) for _ in range(3)]
    macro, micro = mx.metric.MCC(), mx.metric.create("mcc", average="micro")
    for label, pred in batches:
        macro.update([mx.nd.array(label)], [mx.nd.array(pred)])
        micro.update([mx.nd.array(label)], [mx.nd.array(pred)])
    per_batch = [_binary_mcc(l, p.argmax(axis=1)) for l, p in batches]
    np.testing.assert_allclose(macro.get()[1], np.mean(per_batch), rtol=1e-6)
    all_l = np.concatenate([l for l, _ in batches])
    all_p = np.concatenate([p.argmax(axis=1) for _, p in batches])
    np.testing.assert_allclose(micro.get()[1], _binary_mcc(all_l, all_p), rtol=1e-6)
    with pytest.raises(ValueError):
        macro.update([mx.nd.array([0, 2])], [mx.nd.array([[0.1, 0.9], [0.8, 0.2]])])


def test_pcc_local_and_global_against_the_formula():
    rng = np.random.RandomState(2)
    metric = mx.metric.PCC()
    labels, preds = [], []
    for _ in range(3):
        label, pred = rng.randint(0, 4, 40), rng.uniform(size=(40, 4))
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
        labels.append(label)
        preds.append(pred.argmax(axis=1))
    expected = _multiclass_mcc(np.concatenate(labels), np.concatenate(preds), 4)
    np.testing.assert_allclose(metric.get()[1], expected, rtol=1e-6)
    metric.reset_local()
    label, pred = rng.randint(0, 4, 40), rng.uniform(size=(40, 4))
    metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    np.testing.assert_allclose(metric.get()[1], _multiclass_mcc(label, pred.argmax(axis=1), 4), rtol=1e-6)
    everything = _multiclass_mcc(np.concatenate(labels + [label]),
                                 np.concatenate(preds + [pred.argmax(axis=1)]), 4)
    np.testing.assert_allclose(metric.get_global()[1], everything, rtol=1e-6)


SNIPPET = r"""
import numpy as np, mxnet as mx
rng = np.random.RandomState(0)
out = []
for avg in ("macro", "micro"):
    m = mx.metric.MCC(average=avg)
    for b in range(3):
        m.update([mx.nd.array(rng.randint(0, 2, 20))], [mx.nd.array(rng.uniform(size=(20, 2)))])
    out.append(m.get()[1])
p = mx.metric.PCC()
for b in range(3):
    p.update([mx.nd.array(rng.randint(0, 4, 30))], [mx.nd.array(rng.uniform(size=(30, 4)))])
out.append(p.get()[1]); p.reset_local()
p.update([mx.nd.array(rng.randint(0, 4, 30))], [mx.nd.array(rng.uniform(size=(30, 4)))])
out += [p.get()[1], p.get_global()[1]]
m = mx.metric.create('mcc'); m.update([mx.nd.array([0, 0, 0])], [mx.nd.array([[0.9, 0.1]] * 3)])
out.append(m.get()[1])
print(" ".join(repr(float(v)) for v in out))
"""


@needs_peer
def test_mcc_and_pcc_match_mxnet_1x():
    theirs = run_peer(SNIPPET, timeout=120)
    ns = {}
    import io
    import contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(SNIPPET, ns)  # noqa: S102 - the same snippet in this runtime
    ours = [float(v) for v in buf.getvalue().split()]
    expected = [float(v) for v in theirs.stdout.split()]
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-12)
