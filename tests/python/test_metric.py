"""Metrics against NumPy computations (NumPy and NDArray inputs)."""
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd

RS = np.random.RandomState(5)


def test_accuracy_from_scores_and_labels():
    pred = RS.rand(10, 4)
    label = RS.randint(0, 4, 10)
    m = mx.metric.Accuracy()
    m.update(nd.array(label), nd.array(pred))
    assert m.get() == ("accuracy", pytest.approx((pred.argmax(1) == label).mean()))
    m.update([label], [pred.argmax(1)])
    assert m.num_inst == 20
    m.reset()
    assert math.isnan(m.get()[1])
    assert mx.gluon.metric.Accuracy is mx.metric.Accuracy


def test_topk_accuracy():
    pred = RS.rand(20, 6)
    label = RS.randint(0, 6, 20)
    m = mx.metric.TopKAccuracy(top_k=3)
    m.update(label, pred)
    top3 = np.argsort(-pred, axis=1)[:, :3]
    assert m.get()[0] == "top_k_accuracy_3"
    assert m.get()[1] == pytest.approx(np.mean([label[i] in top3[i] for i in range(20)]))


def test_f1_macro_and_micro():
    label1, pred1 = np.array([1, 0, 1, 1]), np.array([[0.2, 0.8], [0.6, 0.4], [0.7, 0.3], [0.1, 0.9]])
    label2, pred2 = np.array([0, 1]), np.array([[0.1, 0.9], [0.3, 0.7]])

    def f1(lab, pr):
        p = pr.argmax(1)
        tp = ((p == 1) & (lab == 1)).sum()
        fp = ((p == 1) & (lab == 0)).sum()
        fn = ((p == 0) & (lab == 1)).sum()
        prec, rec = tp / (tp + fp), tp / (tp + fn)
        return 2 * prec * rec / (prec + rec)

    macro = mx.metric.F1()
    macro.update(nd.array(label1), nd.array(pred1))
    macro.update(nd.array(label2), nd.array(pred2))
    assert macro.get()[1] == pytest.approx((f1(label1, pred1) + f1(label2, pred2)) / 2)
    micro = mx.metric.F1(average="micro")
    micro.update(label1, pred1)
    micro.update(label2, pred2)
    assert micro.get()[1] == pytest.approx(f1(np.concatenate([label1, label2]),
                                              np.concatenate([pred1, pred2])))
    with pytest.raises(ValueError, match="binary"):
        macro.update(np.array([2, 0]), pred2)


def test_regression_metrics():
    l1, p1 = RS.rand(5), RS.rand(5, 1)
    l2, p2 = RS.rand(3), RS.rand(3, 1)
    for cls, fn in ((mx.metric.MAE, lambda l, p: np.abs(l - p).mean()),
                    (mx.metric.MSE, lambda l, p: ((l - p) ** 2).mean()),
                    (mx.metric.RMSE, lambda l, p: np.sqrt(((l - p) ** 2).mean()))):
        m = cls()
        m.update([nd.array(l1), nd.array(l2)], [nd.array(p1), nd.array(p2)])
        ref = (fn(l1.reshape(-1, 1), p1) + fn(l2.reshape(-1, 1), p2)) / 2
        assert m.get()[1] == pytest.approx(ref, rel=1e-5)


def test_cross_entropy_and_perplexity():
    prob = RS.rand(6, 4)
    prob /= prob.sum(1, keepdims=True)
    label = np.array([0, 1, 2, 3, 0, 1])
    ce = mx.metric.CrossEntropy()
    ce.update(nd.array(label), nd.array(prob))
    nll = -np.log(prob[np.arange(6), label] + 1e-12)
    assert ce.get()[1] == pytest.approx(nll.mean(), rel=1e-5)
    pp = mx.metric.Perplexity(ignore_label=None)
    pp.update(nd.array(label), nd.array(prob))
    assert pp.get()[1] == pytest.approx(math.exp(nll.mean()), rel=1e-5)
    pp_ignore = mx.metric.Perplexity(ignore_label=0)
    pp_ignore.update(label, prob)
    keep = label != 0
    assert pp_ignore.get()[1] == pytest.approx(math.exp(nll[keep].mean()), rel=1e-5)


def test_composite_and_create():
    comp = mx.metric.create(["acc", "mse"])
    assert isinstance(comp, mx.metric.CompositeEvalMetric)
    label, pred = np.array([0, 1]), np.array([[0.9, 0.1], [0.2, 0.8]])
    comp.get_metric(0).update(label, pred)
    comp.get_metric(1).update(label, pred[:, 1])
    names, values = comp.get()
    assert names == ["accuracy", "mse"]
    assert values[0] == 1.0 and values[1] == pytest.approx(((label - pred[:, 1]) ** 2).mean())
    assert isinstance(mx.metric.create("top_k_accuracy", top_k=2), mx.metric.TopKAccuracy)
    custom = mx.metric.create(lambda l, p: float((l == p).mean()))
    custom.update([np.array([1, 2])], [np.array([1, 3])])
    assert custom.get()[1] == 0.5
    with pytest.raises(ValueError):
        mx.metric.create("no-such-metric")


def test_label_count_mismatch():
    with pytest.raises(ValueError, match="does not match"):
        mx.metric.Accuracy().update([np.zeros(2)], [np.zeros((2, 2)), np.zeros((2, 2))])
