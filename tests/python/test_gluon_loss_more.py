"""TripletLoss, PoissonNLLLoss, CosineEmbeddingLoss, SDMLLoss and CTCLoss against NumPy float64
formulas (CTC against brute-force enumeration of the frame paths), every loss hybridized
against imperative, and 1.9.1's public names of mx.gluon.loss."""
import math

import numpy as np
import pytest

from mxnet import autograd, nd
from mxnet.gluon import loss as gloss
from op_rows.nn_losses import ctc_brute_nll

RS = np.random.RandomState(11)

# The public classes of MXNet 1.9.1's mx.gluon.loss.
MXNET191_LOSSES = ["CTCLoss", "CosineEmbeddingLoss", "HingeLoss", "HuberLoss", "KLDivLoss", "L1Loss", "L2Loss",
                   "LogisticLoss", "Loss", "PoissonNLLLoss", "SDMLLoss", "SigmoidBCELoss",
                   "SigmoidBinaryCrossEntropyLoss", "SoftmaxCELoss", "SoftmaxCrossEntropyLoss", "SquaredHingeLoss",
                   "TripletLoss"]


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_every_mxnet191_loss_is_present():
    missing = [n for n in MXNET191_LOSSES if not hasattr(gloss, n)]
    assert not missing, missing


def test_triplet_loss():
    pred, pos, neg = RS.randn(4, 3, 2), RS.randn(4, 3, 2), RS.randn(4, 3, 2)
    d = ((pos - pred) ** 2 - (neg - pred) ** 2).sum(axis=(1, 2))
    out = gloss.TripletLoss(margin=0.5)(nd.array(pred), nd.array(pos), nd.array(neg)).asnumpy()
    _close(out, np.maximum(d + 0.5, 0))
    sw = RS.rand(4)
    out = gloss.TripletLoss(weight=2.0)(nd.array(pred), nd.array(pos), nd.array(neg), nd.array(sw)).asnumpy()
    _close(out, np.maximum(d + 1, 0) * 2.0 * sw)


def _stirling(t):
    return np.where(t > 1, t * np.log(np.maximum(t, 1)) - t + 0.5 * np.log(2 * math.pi * np.maximum(t, 1)), 0.0)


def test_poisson_nll_loss():
    pred, target = RS.randn(3, 4), np.floor(RS.rand(3, 4) * 5)
    target[0, 0] = 0  # a zero target stays finite with compute_full
    out = gloss.PoissonNLLLoss()(nd.array(pred), nd.array(target)).asnumpy()
    assert out.shape == (1,)
    _close(out, [(np.exp(pred) - target * pred).mean()])
    rate = RS.rand(3, 4) + 0.1
    out = gloss.PoissonNLLLoss(from_logits=False)(nd.array(rate), nd.array(target)).asnumpy()
    _close(out, [(rate - target * np.log(rate + 1e-8)).mean()])
    out = gloss.PoissonNLLLoss(compute_full=True)(nd.array(pred), nd.array(target)).asnumpy()
    _close(out, [(np.exp(pred) - target * pred + _stirling(target)).mean()])
    sw = RS.rand(3, 1)
    out = gloss.PoissonNLLLoss(weight=3.0, from_logits=False, compute_full=True)(
        nd.array(rate), nd.array(target), nd.array(sw)).asnumpy()
    _close(out, [((rate - target * np.log(rate + 1e-8) + _stirling(target)) * sw * 3.0).mean()])


def test_cosine_embedding_loss_shape_and_formula():
    a, b = RS.randn(5, 4), RS.randn(5, 4)
    label = np.array([1, -1, 1, -1, 0.])
    cos = (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
    ref = np.where(label == 1, 1 - cos, np.where(label == -1, np.maximum(cos - 0.2, 0), 0.0))
    out = gloss.CosineEmbeddingLoss(margin=0.2)(nd.array(a), nd.array(b), nd.array(label)).asnumpy()
    assert out.shape == (5, 1)
    _close(out[:, 0], ref)
    sw = RS.rand(5, 1)
    out = gloss.CosineEmbeddingLoss(weight=2.0, margin=0.2)(nd.array(a), nd.array(b), nd.array(label),
                                                           nd.array(sw)).asnumpy()
    _close(out, ref[:, None] * sw * 2.0)


@pytest.mark.parametrize("n,smoothing", [(4, 0.3), (5, 0.1)])
def test_sdml_loss(n, smoothing):
    x1, x2 = RS.randn(n, 3), RS.randn(n, 3)
    dist = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    logp = _log_softmax(-dist, axis=1)
    eye = np.eye(n)
    target = eye * (1 - smoothing) + (1 - eye) * smoothing / (n - 1)
    ref = (target * (np.log(target) - logp)).sum(axis=1)
    out = gloss.SDMLLoss(smoothing_parameter=smoothing)(nd.array(x1), nd.array(x2)).asnumpy()
    _close(out, ref, 1e-4)
    # MXNet 1.x keeps `weight` on the block but does not scale the loss by it
    out = gloss.SDMLLoss(smoothing_parameter=smoothing, weight=3.0)(nd.array(x1), nd.array(x2)).asnumpy()
    _close(out, ref, 1e-4)


# ---- CTCLoss: the blank is the last class, labels padded with -1 ----

def _ctc_expected(pred_ntc, label_nt, pred_lengths=None, label_lengths=None):
    n, t, c = pred_ntc.shape
    out = []
    for i in range(n):
        row = [int(v) for v in label_nt[i]]
        target = row[:int(label_lengths[i])] if label_lengths is not None else \
            (row[:row.index(-1)] if -1 in row else row)
        frames = int(pred_lengths[i]) if pred_lengths is not None else t
        out.append(ctc_brute_nll(pred_ntc[i, :frames], target, c - 1))
    return np.array(out)


def test_ctc_loss_layouts():
    pred = RS.randn(3, 4, 4)
    label = np.array([[0, 1, -1], [2, 2, -1], [1, -1, -1]])
    ref = _ctc_expected(pred, label)
    _close(gloss.CTCLoss()(nd.array(pred), nd.array(label)).asnumpy(), ref)
    out = gloss.CTCLoss(layout="TNC", label_layout="TN")(nd.array(pred.transpose(1, 0, 2)),
                                                          nd.array(label.T)).asnumpy()
    _close(out, ref)


def test_ctc_loss_lengths_and_sample_weight():
    pred = RS.randn(3, 5, 3)
    label = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 1]])
    pred_len, label_len = np.array([5, 4, 3]), np.array([3, 1, 2])
    ref = _ctc_expected(pred, label, pred_len, label_len)
    out = gloss.CTCLoss()(nd.array(pred), nd.array(label), nd.array(pred_len), nd.array(label_len)).asnumpy()
    _close(out, ref)
    sw = RS.rand(3)
    out = gloss.CTCLoss(weight=0.5)(nd.array(pred), nd.array(label), None, nd.array(label_len),
                                    nd.array(sw)).asnumpy()
    _close(out, _ctc_expected(pred, label, None, label_len) * 0.5 * sw)


def test_ctc_loss_gradient_matches_finite_differences():
    pred = RS.randn(2, 4, 3)
    label = np.array([[0, 1], [1, -1]])
    head = np.array([1.0, 2.5])
    x = nd.array(pred, dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = gloss.CTCLoss()(x, nd.array(label))
    y.backward(nd.array(head, dtype="float64"))
    numeric = np.zeros_like(pred)
    h = 1e-6
    for idx in np.ndindex(*pred.shape):
        up, down = pred.copy(), pred.copy()
        up[idx] += h
        down[idx] -= h
        numeric[idx] = ((_ctc_expected(up, label) - _ctc_expected(down, label)) / (2 * h) * head).sum()
    _close(x.grad.asnumpy(), numeric, 1e-6)


def test_ctc_loss_infeasible_label_is_zero_with_zero_gradient():
    # "1 1" needs three frames (1, blank, 1); two are given
    x = nd.array(RS.randn(1, 2, 3))
    x.attach_grad()
    with autograd.record():
        y = gloss.CTCLoss()(x, nd.array([[1, 1]]))
    y.backward()
    assert y.asnumpy().tolist() == [0.0]
    assert not x.grad.asnumpy().any()


def test_ctc_loss_rejects_bad_layouts():
    with pytest.raises(ValueError, match="layout must be 'NTC' or 'TNC'"):
        gloss.CTCLoss(layout="NCT")
    with pytest.raises(ValueError, match="label_layout must be 'NT' or 'TN'"):
        gloss.CTCLoss(label_layout="NTC")


# ---- hybridized == imperative, values and gradients ----

def _hybrid_cases():
    r = np.random.RandomState(5)
    a = lambda *s: r.randn(*s)
    sign = lambda *s: np.sign(r.randn(*s))
    return [
        ("L2", gloss.L2Loss, [a(3, 4), a(3)[:, None].repeat(4, 1)]),
        ("L1_label_vector", gloss.L1Loss, [a(3, 1), a(3)]),
        ("SigmoidBCE", gloss.SigmoidBCELoss, [a(3, 4), (r.rand(3, 4) > 0.5) * 1.0]),
        ("SoftmaxCE", gloss.SoftmaxCELoss, [a(3, 5), np.array([0, 4, 2.])]),
        ("KLDiv", lambda: gloss.KLDivLoss(from_logits=False), [a(3, 5), r.rand(3, 5)]),
        ("Huber", gloss.HuberLoss, [a(3, 4), a(3, 4)]),
        ("Hinge", gloss.HingeLoss, [a(3, 4), sign(3, 4)]),
        ("SquaredHinge", gloss.SquaredHingeLoss, [a(3, 4), sign(3, 4)]),
        ("Logistic", gloss.LogisticLoss, [a(3, 4), sign(3, 4)]),
        ("Triplet", gloss.TripletLoss, [a(3, 4), a(3, 4), a(3, 4)]),
        ("PoissonNLL", lambda: gloss.PoissonNLLLoss(compute_full=True), [a(3, 4), np.floor(r.rand(3, 4) * 5)]),
        ("CosineEmbedding", gloss.CosineEmbeddingLoss, [a(4, 5), a(4, 5), np.array([1, -1, 1, -1.])]),
        ("SDML", gloss.SDMLLoss, [a(4, 3), a(4, 3)]),
        ("CTC", gloss.CTCLoss, [a(2, 4, 4), np.array([[0, 1], [2, -1]])]),
        ("CTC_label_lengths", gloss.CTCLoss, [a(2, 4, 4), np.array([[0, 1], [2, 0]]), None, np.array([2, 1]),
                                              r.rand(2)]),
    ]


@pytest.mark.parametrize("name,make,inputs", _hybrid_cases(), ids=[c[0] for c in _hybrid_cases()])
def test_hybridized_equals_imperative(name, make, inputs):
    def run(hybridize):
        block = make()
        if hybridize:
            block.hybridize()
        xs = [None if v is None else nd.array(v) for v in inputs]
        xs[0].attach_grad()
        with autograd.record():
            y = block(*xs)
        y.backward()
        return y.asnumpy(), xs[0].grad.asnumpy()
    (y0, g0), (y1, g1) = run(False), run(True)
    _close(y1, y0)
    _close(g1, g0)
