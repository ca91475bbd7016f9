"""Losses (mx.gluon.loss). Most return one value per sample: the elementwise loss, weighted
by `weight` (a number) and `sample_weight` (an array broadcast against the loss), averaged
over every axis except batch_axis. The exceptions follow MXNet 1.x: KLDivLoss, TripletLoss and
SDMLLoss sum over the non-batch axes, CosineEmbeddingLoss returns (batch, 1), PoissonNLLLoss
averages over everything (shape (1,)) and CTCLoss returns one negative log-likelihood per
sequence."""
import math
import numbers

from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "HuberLoss", "HingeLoss",
           "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss", "CosineEmbeddingLoss",
           "SDMLLoss", "CTCLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise TypeError("weight must be a number")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """x reshaped to y's shape (a (batch,) label against (batch, 1) predictions)."""
    if hasattr(x, "shape") and hasattr(y, "shape"):
        return x.reshape(y.shape) if x.shape != y.shape else x
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of the losses: holds the scalar weight and the batch axis."""

    def __init__(self, weight, batch_axis, **kwargs):
        super(Loss, self).__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return "{name}(batch_axis={b}, w={w})".format(name=self.__class__.__name__,
                                                      b=self._batch_axis, w=self._weight)

    def _mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("%s must define hybrid_forward()" % self.__class__.__name__)


class L2Loss(Loss):
    """weight/2 * (pred - label)^2."""

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super(L2Loss, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return self._mean(F, loss)


class L1Loss(Loss):
    """weight * |pred - label|."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super(L1Loss, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy on logits (stable form max(x,0) - x*z + log(1+exp(-|x|))) or on
    probabilities (from_sigmoid=True); pos_weight scales the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super(SigmoidBinaryCrossEntropyLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            softplus_neg_abs = F.Activation(-F.abs(pred), act_type="softrelu")
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + softplus_neg_abs
            else:
                log_weight = F.broadcast_mul(pos_weight - 1, label) + 1
                loss = pred - pred * label + log_weight * (softplus_neg_abs + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1. - pred + eps) * (1. - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight) +
                         F.log(1. - pred + eps) * (1. - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] along `axis` (sparse_label: label holds class indices;
    otherwise a distribution over classes). from_logits: pred is already log-probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super(SoftmaxCrossEntropyLoss, self).__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """label * (log(label) - pred), pred being log-probabilities (from_logits=True) or logits
    turned into them with log_softmax along `axis`; summed over the non-batch axes (the
    divergence of each sample's distributions, as MXNet 1.x computes it)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super(KLDivLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class HuberLoss(Loss):
    """Smooth L1: |d| - rho/2 where |d| > rho, else d^2 / (2 rho), d = pred - label."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super(HuberLoss, self).__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(loss))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class HingeLoss(Loss):
    """max(0, margin - pred * label) with labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(HingeLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class SquaredHingeLoss(Loss):
    """max(0, margin - pred * label)^2 with labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(SquaredHingeLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class LogisticLoss(Loss):
    """log(1 + exp(-pred * label)); label_format 'signed' ({-1,1}) or 'binary' ({0,1})."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super(LogisticLoss, self).__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError("label_format can only be signed or binary, received %s."
                             % label_format)
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "binary":
            label = 2 * label - 1
        loss = F.relu(-pred * label) + F.Activation(-F.abs(pred * label), act_type="softrelu")
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class TripletLoss(Loss):
    """max(0, sum((positive - pred)^2) - sum((negative - pred)^2) + margin), the sums running
    over the non-batch axes: pred should lie nearer the positive than the negative by margin."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(TripletLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred),
                     axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of `target` under a Poisson distribution of mean exp(pred)
    (from_logits=True: exp(pred) - target * pred) or pred (pred - target * log(pred + epsilon)),
    averaged over every element (shape (1,), as in MXNet 1.x). compute_full adds Stirling's
    approximation of log(target!), target*log(target) - target + log(2*pi*target)/2, where
    target > 1 (elsewhere log(target!) is 0; 1.x gives NaN for a zero target there)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super(PoissonNLLLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            # log(max(target, 1)) keeps the unused branch finite for targets 0 and 1
            safe = F.maximum(target, 1.0)
            stirling = safe * F.log(safe) - safe + 0.5 * F.log(2 * math.pi * safe)
            loss = loss + (target > 1) * stirling
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """1 - cos(input1, input2) for label 1, max(0, cos(input1, input2) - margin) for label -1
    (0 for any other label), the cosine taken along the last axis of (batch, features) inputs
    with the norms' product floored at 1e-12. Returns shape (batch, 1)."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super(CosineEmbeddingLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        dot = F.sum(input1 * input2, axis=-1).reshape((-1, 1))
        norms = (F.norm(input1, axis=-1) * F.norm(input2, axis=-1)).reshape((-1, 1))
        cos = dot / F.maximum(norms, 1e-12)
        pos = (label == 1) * (1 - cos)
        neg = F.relu((label == -1) * (cos - self._margin))
        return _apply_weighting(F, pos + neg, self._weight, sample_weight)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss for a batch of aligned pairs (x1[i], x2[i]), both
    (batch, features): each row of softmax(-squared distances between x1 and x2) is compared,
    by the KL divergence summed over the row, with a smoothed identity (1 - smoothing_parameter
    on the diagonal, smoothing_parameter / (batch - 1) elsewhere). As in MXNet 1.x, `weight` is
    accepted but does not scale the loss."""

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super(SDMLLoss, self).__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _smoothed_identity(self, F, x1):
        ones = F.ones_like(F.sum(x1, axis=1))         # (batch,)
        gold = F.diag(ones)                            # (batch, batch) identity
        others = F.maximum(F.sum(ones) - 1, 1.0)       # batch - 1 (1 for a batch of one)
        off = F.broadcast_div((1 - gold) * self.smoothing_parameter, others)
        return gold * (1 - self.smoothing_parameter) + off

    def hybrid_forward(self, F, x1, x2):
        # squared Euclidean distance of every x1 row to every x2 row: (batch, batch)
        diffs = F.broadcast_sub(F.expand_dims(x1, axis=1), F.expand_dims(x2, axis=0))
        distances = F.sum(F.square(diffs), axis=2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(log_probabilities, self._smoothed_identity(F, x1))


class CTCLoss(Loss):
    """Connectionist temporal classification loss (the CTCLoss operator with the blank as the
    last class). pred holds activations before softmax, (batch, time, classes) for layout 'NTC'
    or (time, batch, classes) for 'TNC'; label holds class indices in [0, classes - 2],
    (batch, length) for label_layout 'NT' or (length, batch) for 'TN', padded with -1 unless
    label_lengths is given. pred_lengths / label_lengths give each sequence's true length.
    Returns the negative log-likelihood per sequence, shape (batch,)."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError("CTCLoss: layout must be 'NTC' or 'TNC', got %r" % (layout,))
        if label_layout not in ("NT", "TN"):
            raise ValueError("CTCLoss: label_layout must be 'NT' or 'TN', got %r" % (label_layout,))
        self._layout = layout
        self._label_layout = label_layout
        super(CTCLoss, self).__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, dim1=0, dim2=1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, dim1=0, dim2=1)
        lengths = {}
        if pred_lengths is not None:
            lengths["data_lengths"] = pred_lengths
        if label_lengths is not None:
            lengths["label_lengths"] = label_lengths
        loss = F.CTCLoss(pred, label, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last", **lengths)
        return _apply_weighting(F, loss, self._weight, sample_weight)
