"""Every mx.gluon.loss class against MXNet 1.9.1 (skipped when the peer is not installed): the
same script computes values and input gradients in both runtimes; they must agree.

Compared where 1.x is well defined: PoissonNLLLoss(compute_full=True) uses targets >= 1 (1.x
gives NaN for a zero target), and CTCLoss only feasible labels (for a label too long for its
data length 1.x returns 0 with a non-zero gradient; we give the zero gradient of a constant).
compute_full is compared forward only: 1.9.1 cannot record it under autograd."""
import textwrap

import numpy as np

from peer_oracle import needs_peer, run_script_in_both

# Run by both runtimes: writes each case's output and input-0 gradient to OUT (an .npz path).
SCRIPT = textwrap.dedent("""
    import numpy as np
    from mxnet import autograd, nd
    from mxnet.gluon import loss as L
    rs = np.random.RandomState(0)
    A = lambda *s: rs.randn(*s)
    U = lambda *s: rs.rand(*s)
    S = lambda *s: np.sign(rs.randn(*s))
    B = lambda *s: (rs.rand(*s) > 0.5) * 1.0
    cases = {
        'l2': (L.L2Loss(), [A(3, 4), A(3, 4)]),
        'l2_weighted_3d': (L.L2Loss(weight=3.), [A(3, 4, 2), A(3, 4, 2), U(3, 1, 1)]),
        'l2_batch_axis1': (L.L2Loss(batch_axis=1), [A(3, 4), A(3, 4)]),
        'l1': (L.L1Loss(), [A(3, 4), A(3, 4)]),
        'l1_label_vector': (L.L1Loss(), [A(3, 1), A(3)]),
        'bce': (L.SigmoidBCELoss(), [A(3, 4), B(3, 4)]),
        'bce_pos_weight': (L.SigmoidBCELoss(), [A(3, 4), B(3, 4), None, U(4) + 0.5]),
        'bce_sigmoid': (L.SigmoidBCELoss(from_sigmoid=True), [U(3, 4), B(3, 4)]),
        'bce_sigmoid_pos_weight': (L.SigmoidBCELoss(from_sigmoid=True), [U(3, 4), B(3, 4), None, U(4) + 0.5]),
        'sce': (L.SoftmaxCELoss(), [A(3, 5), np.array([0, 4, 2.])]),
        'sce_axis1': (L.SoftmaxCELoss(axis=1), [A(2, 5, 3), rs.randint(0, 5, (2, 3)) * 1.]),
        'sce_dense': (L.SoftmaxCELoss(sparse_label=False), [A(3, 5), U(3, 5)]),
        'sce_from_logits': (L.SoftmaxCELoss(from_logits=True), [A(3, 5), np.array([1, 1, 3.])]),
        'kl': (L.KLDivLoss(), [A(3, 5), U(3, 5)]),
        'kl_logits': (L.KLDivLoss(from_logits=False), [A(3, 5), U(3, 5)]),
        'kl_3d_weighted': (L.KLDivLoss(weight=2.), [A(2, 3, 4), U(2, 3, 4), U(2, 1, 1)]),
        'huber': (L.HuberLoss(rho=0.7), [A(3, 4), A(3, 4)]),
        'hinge': (L.HingeLoss(margin=0.5), [A(3, 4), S(3, 4)]),
        'squared_hinge': (L.SquaredHingeLoss(margin=2), [A(3, 4), S(3, 4)]),
        'logistic': (L.LogisticLoss(), [A(3, 4), S(3, 4)]),
        'logistic_binary': (L.LogisticLoss(label_format='binary'), [A(3, 4), B(3, 4)]),
        'triplet': (L.TripletLoss(margin=0.5), [A(3, 4), A(3, 4), A(3, 4)]),
        'triplet_3d_weighted': (L.TripletLoss(weight=2.), [A(3, 2, 2), A(3, 2, 2), A(3, 2, 2)]),
        'poisson': (L.PoissonNLLLoss(), [A(3, 4), np.floor(U(3, 4) * 5)]),
        'poisson_rate': (L.PoissonNLLLoss(from_logits=False), [U(3, 4) + .1, np.floor(U(3, 4) * 5)]),
        'poisson_full': (L.PoissonNLLLoss(compute_full=True), [A(3, 4), 1 + np.floor(U(3, 4) * 5)]),
        'poisson_full_weighted': (L.PoissonNLLLoss(weight=2., compute_full=True, from_logits=False),
                                  [U(3, 4) + .1, 1 + np.floor(U(3, 4) * 5), U(3, 1)]),
        'cosine': (L.CosineEmbeddingLoss(), [A(4, 5), A(4, 5), np.array([1, -1, 1, -1.])]),
        'cosine_margin_weighted': (L.CosineEmbeddingLoss(margin=0.3, weight=2.),
                                   [A(4, 5), A(4, 5), np.array([1, -1, -1, -1.]), U(4, 1)]),
        'sdml': (L.SDMLLoss(), [A(4, 3), A(4, 3)]),
        'sdml_smoothing_weight': (L.SDMLLoss(smoothing_parameter=0.1, weight=2.), [A(5, 6), A(5, 6)]),
        'ctc': (L.CTCLoss(), [A(2, 5, 4), np.array([[0, 1, 1], [2, -1, -1.]])]),
        'ctc_tnc_tn': (L.CTCLoss(layout='TNC', label_layout='TN'), [A(5, 2, 4), np.array([[0, 2], [1, 1], [-1, 0.]])]),
        'ctc_lengths': (L.CTCLoss(), [A(3, 5, 4), np.array([[0, 1, 1], [2, 0, 1], [1, 1, 1.]]),
                                      np.array([5, 4, 3.]), np.array([3, 1, 2.])]),
        'ctc_label_lengths_weighted': (L.CTCLoss(weight=0.5), [A(3, 5, 4), np.array([[0, 1, 1], [2, 0, 1], [1, 1, 1.]]),
                                                                None, np.array([3, 1, 2.]), U(3)]),
        'ctc_data_lengths': (L.CTCLoss(), [A(2, 5, 4), np.array([[0, 1, 1], [2, -1, -1.]]), np.array([4, 2.])]),
    }
    out = {}
    for name, (block, args) in cases.items():
        # float32: some 1.9.1 losses build float32 constants that clash with float64 inputs
        xs = [None if a is None else nd.array(a) for a in args]
        if '_full' in name:  # 1.9.1 computes this term in place, which autograd refuses
            out[name] = block(*xs).asnumpy()
            continue
        xs[0].attach_grad()
        with autograd.record():
            y = block(*xs)
        y.backward()
        out[name] = y.asnumpy()
        out[name + '.grad'] = xs[0].grad.asnumpy()
    np.savez(OUT, **out)
""")


@needs_peer
def test_losses_equal_mxnet191(tmp_path):
    peer, ours = run_script_in_both(SCRIPT, tmp_path, "loss cases")
    assert sorted(peer.files) == sorted(ours.files)
    bad = []
    for key in sorted(peer.files):
        if peer[key].shape != ours[key].shape:
            bad.append("%s: shape %s, 1.9.1 %s" % (key, ours[key].shape, peer[key].shape))
        elif not np.allclose(ours[key], peer[key], rtol=1e-4, atol=1e-5):
            bad.append("%s: max difference %g" % (key, np.abs(ours[key] - peer[key]).max()))
    assert not bad, "\n".join(bad)
