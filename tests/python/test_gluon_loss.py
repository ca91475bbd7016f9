"""Losses against NumPy formulas, with weights and sample weights (the losses added for 1.x's
full list, CTCLoss included, are in test_gluon_loss_more.py)."""
import numpy as np

from mxnet import nd
from mxnet.gluon import loss as gloss

RS = np.random.RandomState(3)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def test_softmax_cross_entropy_sparse_dense_logits():
    pred = RS.randn(5, 4)
    label = np.array([0, 3, 1, 2, 3])
    out = gloss.SoftmaxCrossEntropyLoss()(nd.array(pred), nd.array(label)).asnumpy()
    ref = -_log_softmax(pred)[np.arange(5), label]
    _close(out, ref)
    onehot = np.eye(4)[label]
    out = gloss.SoftmaxCrossEntropyLoss(sparse_label=False)(nd.array(pred), nd.array(onehot)).asnumpy()
    _close(out, ref)
    out = gloss.SoftmaxCrossEntropyLoss(from_logits=True)(nd.array(_log_softmax(pred)),
                                                          nd.array(label)).asnumpy()
    _close(out, ref)
    sw = RS.rand(5, 1)
    out = gloss.SoftmaxCrossEntropyLoss(weight=2.0)(nd.array(pred), nd.array(label), nd.array(sw)).asnumpy()
    _close(out, ref * sw[:, 0] * 2.0)


def test_l2_l1_huber_hinge():
    pred, label = RS.randn(4, 3), RS.randn(4, 3)
    _close(gloss.L2Loss()(nd.array(pred), nd.array(label)).asnumpy(),
           (0.5 * (pred - label) ** 2).mean(axis=1))
    _close(gloss.L1Loss()(nd.array(pred), nd.array(label)).asnumpy(), np.abs(pred - label).mean(axis=1))
    d = np.abs(pred - label)
    _close(gloss.HuberLoss(rho=0.5)(nd.array(pred), nd.array(label)).asnumpy(),
           np.where(d > 0.5, d - 0.25, d ** 2 / (2 * 0.5)).mean(axis=1))
    sign = np.sign(RS.randn(4, 3))
    _close(gloss.HingeLoss()(nd.array(pred), nd.array(sign)).asnumpy(),
           np.maximum(0, 1 - pred * sign).mean(axis=1))
    sw = RS.rand(4, 1)
    _close(gloss.L1Loss()(nd.array(pred), nd.array(label), nd.array(sw)).asnumpy(),
           (np.abs(pred - label) * sw).mean(axis=1))


def test_label_reshaped_like_pred():
    pred, label = RS.randn(4, 1), RS.randn(4)
    _close(gloss.L2Loss()(nd.array(pred), nd.array(label)).asnumpy(), 0.5 * (pred[:, 0] - label) ** 2)


def test_sigmoid_bce_logits_and_probabilities():
    pred = RS.randn(3, 5)
    label = (RS.rand(3, 5) > 0.5).astype(np.float64)
    p = 1 / (1 + np.exp(-pred))
    ref = -(label * np.log(p) + (1 - label) * np.log(1 - p)).mean(axis=1)
    _close(gloss.SigmoidBinaryCrossEntropyLoss()(nd.array(pred), nd.array(label)).asnumpy(), ref, 1e-4)
    _close(gloss.SigmoidBCELoss(from_sigmoid=True)(nd.array(p), nd.array(label)).asnumpy(), ref, 1e-4)


def test_kldiv_sums_over_classes():
    pred = RS.randn(2, 4)
    target = np.exp(_log_softmax(RS.randn(2, 4)))
    # MXNet 1.x sums the divergence over the non-batch axes
    ref = (target * (np.log(target + 1e-12) - _log_softmax(pred))).sum(axis=1)
    _close(gloss.KLDivLoss(from_logits=False)(nd.array(pred), nd.array(target)).asnumpy(), ref, 1e-4)
    _close(gloss.KLDivLoss()(nd.array(_log_softmax(pred)), nd.array(target)).asnumpy(), ref, 1e-4)


def test_kldiv_batch_axis_and_3d():
    pred, target = RS.randn(3, 2, 5), RS.rand(3, 2, 5)
    out = gloss.KLDivLoss(batch_axis=1)(nd.array(pred), nd.array(target)).asnumpy()
    _close(out, (target * (np.log(target + 1e-12) - pred)).sum(axis=(0, 2)), 1e-4)
