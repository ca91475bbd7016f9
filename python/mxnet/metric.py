"""Evaluation metrics (mx.metric, also reachable as mx.gluon.metric).

A metric accumulates a running sum and an instance count over update(labels, preds) calls and
reports (name, value) from get(). Labels and predictions may be NDArrays or NumPy arrays, one
array or a list of them.
"""
import math

import numpy

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "PCC", "MAE", "MSE",
           "RMSE", "CrossEntropy", "NegativeLogLikelihood", "Perplexity", "PearsonCorrelation",
           "Loss", "CustomMetric", "np", "create", "register", "check_label_shapes"]

_REGISTRY = {}


def register(klass, name=None):
    """Makes `klass` creatable by create() from its lower-case class name, and from `name`
    (any case) when given."""
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise TypeError("metric.register: %r is not an EvalMetric subclass" % (klass,))
    _REGISTRY[klass.__name__.lower()] = klass
    if name is not None:
        _REGISTRY[name.lower()] = klass
    return klass


def alias(*aliases):
    """Class decorator: registers the class under each of `aliases` (and its own name)."""
    def deco(klass):
        register(klass)
        for name in aliases:
            register(klass, name)
        return klass
    return deco


def _to_numpy(x):
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return numpy.asarray(x)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raises ValueError when the counts (or shapes, with shape=True) differ."""
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}"
                         .format(label_shape, pred_shape))
    if wrap:
        labels, preds = _as_list(labels), _as_list(preds)
    return labels, preds


def _pairs(labels, preds):
    labels, preds = _as_list(labels), _as_list(preds)
    check_label_shapes(labels, preds)
    return zip(labels, preds)


class EvalMetric(object):
    """Base class: a running (sum, count) pair, both local and global (not reset by reset_local)."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """update() with dicts of named outputs and labels, filtered by output/label names."""
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        raise NotImplementedError("%s must define update()" % self.__class__.__name__)

    def _add(self, value, count):
        self.sum_metric += value
        self.num_inst += count
        self.global_sum_metric += value
        self.global_num_inst += count

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    def get_name_value(self):
        name, value = self.get()
        return list(zip(_as_list(name), _as_list(value)))

    def get_global_name_value(self):
        name, value = self.get_global()
        return list(zip(_as_list(name), _as_list(value)))


@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; get() returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [create(m) for m in (metrics or [])]
        super(CompositeEvalMetric, self).__init__(name, output_names=output_names,
                                                  label_names=label_names)

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError("Metric index {} is out of range 0 and {}"
                             .format(index, len(self.metrics)))

    def update_dict(self, labels, preds):
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()
        super(CompositeEvalMetric, self).reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend(_as_list(name))
            values.extend(_as_list(value))
        return (names, values)

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super(CompositeEvalMetric, self).get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config


@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of predictions equal to the label; class scores are argmax'ed along `axis`."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super(Accuracy, self).__init__(name, axis=axis, output_names=output_names,
                                       label_names=label_names)
        self.axis = axis

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label), _to_numpy(pred)
            if pred.shape != label.shape:
                pred = numpy.argmax(pred, axis=self.axis)
            pred = pred.astype("int32").ravel()
            label = label.astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the top_k highest-scoring classes."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        if top_k < 1:
            raise ValueError("Please use Accuracy if top_k is no more than 1")
        super(TopKAccuracy, self).__init__("%s_%d" % (name, top_k), top_k=top_k,
                                           output_names=output_names, label_names=label_names)
        self.top_k = top_k

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label).astype("int32").ravel(), _to_numpy(pred)
            if pred.ndim == 1:
                self._add(int((pred.astype("int32") == label).sum()), pred.shape[0])
                continue
            if pred.ndim != 2:
                raise ValueError("TopKAccuracy expects 1-D or 2-D predictions, got shape %s"
                                 % (pred.shape,))
            k = min(self.top_k, pred.shape[1])
            top = numpy.argpartition(pred.astype("float32"), -k, axis=1)[:, -k:]
            self._add(int((top == label[:, None]).any(axis=1).sum()), pred.shape[0])


def _binary_counts(label, pred, refusal):
    """(tp, fp, fn, tn) of binary labels against predictions (class scores, argmax, or a
    probability of class 1 thresholded at 0.5); labels other than 0 and 1 raise refusal."""
    label, pred = _to_numpy(label).astype("int32").ravel(), _to_numpy(pred)
    pred_label = numpy.argmax(pred, axis=1) if pred.ndim > 1 else (pred > 0.5)
    pred_label = pred_label.astype("int32").ravel()
    check_label_shapes(label, pred_label)
    if len(numpy.unique(label)) > 2 or label.max(initial=0) > 1 or label.min(initial=0) < 0:
        raise ValueError(refusal)
    return (float(((pred_label == 1) & (label == 1)).sum()), float(((pred_label == 1) & (label == 0)).sum()),
            float(((pred_label == 0) & (label == 1)).sum()), float(((pred_label == 0) & (label == 0)).sum()))


@alias("f1")
class F1(EvalMetric):
    """F1 score of binary classification (positive class 1).

    'macro' averages the per-update scores, 'micro' computes one score from all counts.
    """

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        if average not in ("macro", "micro"):
            raise ValueError("F1 average must be 'macro' or 'micro', got %r" % (average,))
        self.average = average
        super(F1, self).__init__(name=name, output_names=output_names, label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            tp, fp, fn, _ = _binary_counts(label, pred, "F1 currently only supports binary classification.")
            self._tp += tp
            self._fp += fp
            self._fn += fn
            if self.average == "macro":
                self._add(self._fscore(tp, fp, fn), 1)
            else:
                score = self._fscore(self._tp, self._fp, self._fn)
                self.sum_metric = score * (self.num_inst + 1)
                self.num_inst += 1
                self.global_sum_metric = score * (self.global_num_inst + 1)
                self.global_num_inst += 1

    @staticmethod
    def _fscore(tp, fp, fn):
        precision = tp / (tp + fp) if tp + fp > 0 else 0.0
        recall = tp / (tp + fn) if tp + fn > 0 else 0.0
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    def reset(self):
        super(F1, self).reset()
        self._tp = self._fp = self._fn = 0.0


def _regression_pair(label, pred):
    label, pred = _to_numpy(label), _to_numpy(pred)
    if label.ndim == 1:
        label = label.reshape(label.shape[0], 1)
    if pred.ndim == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


@alias("mae")
class MAE(EvalMetric):
    """Mean absolute error, averaged over updates."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super(MAE, self).__init__(name, output_names=output_names, label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _regression_pair(label, pred)
            self._add(float(numpy.abs(label - pred).mean()), 1)


@alias("mse")
class MSE(EvalMetric):
    """Mean squared error, averaged over updates."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super(MSE, self).__init__(name, output_names=output_names, label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _regression_pair(label, pred)
            self._add(float(((label - pred) ** 2.0).mean()), 1)


@alias("rmse")
class RMSE(EvalMetric):
    """Root mean squared error of each update, averaged over updates."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super(RMSE, self).__init__(name, output_names=output_names, label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _regression_pair(label, pred)
            self._add(float(numpy.sqrt(((label - pred) ** 2.0).mean())), 1)


@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean of -log(p[label] + eps) over samples; predictions are probabilities."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super(CrossEntropy, self).__init__(name, eps=eps, output_names=output_names,
                                           label_names=label_names)
        self.eps = eps

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label).ravel(), _to_numpy(pred)
            if label.shape[0] != pred.shape[0]:
                raise ValueError("CrossEntropy: %d labels for %d predictions"
                                 % (label.shape[0], pred.shape[0]))
            prob = pred[numpy.arange(label.shape[0]), label.astype(numpy.int64)]
            self._add(float((-numpy.log(prob + self.eps)).sum()), label.shape[0])


@alias("nll_loss")
class NegativeLogLikelihood(CrossEntropy):
    """Same computation as CrossEntropy under the name 'nll-loss'."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super(NegativeLogLikelihood, self).__init__(eps=eps, name=name, output_names=output_names,
                                                    label_names=label_names)


@alias("perplexity")
class Perplexity(EvalMetric):
    """exp of the mean negative log-probability of the labels (ignore_label skipped)."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super(Perplexity, self).__init__(name, ignore_label=ignore_label, axis=axis,
                                         output_names=output_names, label_names=label_names)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        loss, num = 0.0, 0
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label), _to_numpy(pred)
            if label.size != pred.size // pred.shape[self.axis]:
                raise ValueError("Perplexity: %d labels for predictions of shape %s"
                                 % (label.size, pred.shape))
            moved = numpy.moveaxis(pred, self.axis, -1).reshape(-1, pred.shape[self.axis])
            label = label.reshape(-1).astype(numpy.int64)
            prob = moved[numpy.arange(label.shape[0]), numpy.clip(label, 0, moved.shape[1] - 1)]
            if self.ignore_label is not None:
                keep = label != self.ignore_label
                prob = prob[keep]
            loss -= float(numpy.log(numpy.maximum(1e-10, prob)).sum())
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of labels and predictions, averaged over updates."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None):
        super(PearsonCorrelation, self).__init__(name, output_names=output_names,
                                                 label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label).ravel(), _to_numpy(pred).ravel()
            self._add(float(numpy.corrcoef(pred, label)[0, 1]), 1)


@alias("loss")
class Loss(EvalMetric):
    """Mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super(Loss, self).__init__(name, output_names=output_names, label_names=label_names)

    def update(self, _, preds):
        for pred in _as_list(preds):
            value = _to_numpy(pred)
            self._add(float(value.sum()), value.size)


class CustomMetric(EvalMetric):
    """A metric from feval(label, pred) -> value or (sum, count), on NumPy arrays."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if name.find("<") != -1:
                name = "custom(%s)" % name
        super(CustomMetric, self).__init__(name, feval=feval,
                                           allow_extra_outputs=allow_extra_outputs,
                                           output_names=output_names, label_names=label_names)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        labels, preds = _as_list(labels), _as_list(preds)
        if not self._allow_extra_outputs:
            check_label_shapes(labels, preds)
        for label, pred in zip(labels, preds):
            result = self._feval(_to_numpy(label), _to_numpy(pred))
            if isinstance(result, tuple):
                self._add(result[0], result[1])
            else:
                self._add(result, 1)


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """Wraps a NumPy function feval(label, pred) as a CustomMetric."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)



def _mcc(tp, fp, fn, tn):
    """Matthews correlation of binary counts; a zero factor of the denominator counts as 1."""
    terms = [tp + fp, tp + fn, tn + fp, tn + fn]
    denom = numpy.prod([t if t != 0 else 1.0 for t in terms])
    return (tp * tn - fp * fn) / numpy.sqrt(denom)


@alias("mcc")
class MCC(EvalMetric):
    """Matthews correlation coefficient of binary classification (positive class 1).

    'macro' averages the per-update coefficients, 'micro' computes one from all counts.
    """

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        if average not in ("macro", "micro"):
            raise ValueError("MCC average must be 'macro' or 'micro', got %r" % (average,))
        self._average = average
        self._counts = numpy.zeros(4)
        self._global_counts = numpy.zeros(4)
        super(MCC, self).__init__(name=name, output_names=output_names, label_names=label_names)

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            counts = numpy.array(_binary_counts(label, pred, "MCC currently only supports binary classification "
                                                             "(see PCC)."))
            self._counts += counts
            self._global_counts += counts
            if self._average == "macro":
                self._add(_mcc(*counts), 1)
            else:
                self.num_inst += 1
                self.global_num_inst += 1
                self.sum_metric = _mcc(*self._counts) * self.num_inst
                self.global_sum_metric = _mcc(*self._global_counts) * self.global_num_inst

    def reset(self):
        super(MCC, self).reset()
        self._counts = numpy.zeros(4)
        self._global_counts = numpy.zeros(4)

    def reset_local(self):
        super(MCC, self).reset_local()
        self._counts = numpy.zeros(4)


def _pcc(confusion):
    """Multi-class Matthews correlation (Gorodkin's R_K) of a confusion matrix [label, pred]."""
    n = confusion.sum()
    trace = numpy.trace(confusion)
    truth = confusion.sum(axis=1)
    predicted = confusion.sum(axis=0)
    cov_xy = trace * n - numpy.dot(truth, predicted)
    cov_xx = n * n - numpy.dot(predicted, predicted)
    cov_yy = n * n - numpy.dot(truth, truth)
    if cov_xx == 0 or cov_yy == 0:
        return 0.0
    return float(cov_xy / numpy.sqrt(cov_xx * cov_yy))


@alias("pcc")
class PCC(EvalMetric):
    """Multi-class Matthews correlation (1.x's PCC) from the confusion matrix of all updates
    since the last reset (get) or full reset (get_global); classes grow as labels and
    prediction widths reveal them."""

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self._local = numpy.zeros((0, 0))
        self._global = numpy.zeros((0, 0))
        super(PCC, self).__init__(name=name, output_names=output_names, label_names=label_names)

    @staticmethod
    def _grown(confusion, k):
        if confusion.shape[0] >= k:
            return confusion
        bigger = numpy.zeros((k, k))
        bigger[:confusion.shape[0], :confusion.shape[1]] = confusion
        return bigger

    def update(self, labels, preds):
        for label, pred in _pairs(labels, preds):
            label, pred = _to_numpy(label).astype("int64").ravel(), _to_numpy(pred)
            if pred.ndim > 1:
                classes = pred.shape[1]
                pred_label = numpy.argmax(pred, axis=1).astype("int64")
            else:
                classes = 2
                pred_label = (pred.ravel() > 0.5).astype("int64")
            check_label_shapes(label, pred_label)
            k = max(classes, int(label.max(initial=0)) + 1)
            batch = numpy.zeros((k, k))
            numpy.add.at(batch, (label, pred_label), 1)
            self._local = self._grown(self._local, k)
            self._global = self._grown(self._global, k)
            self._local[:k, :k] += batch
            self._global[:k, :k] += batch
            self.num_inst += 1
            self.global_num_inst += 1
            self.sum_metric = _pcc(self._local) * self.num_inst
            self.global_sum_metric = _pcc(self._global) * self.global_num_inst

    def reset(self):
        super(PCC, self).reset()
        self._local = numpy.zeros((0, 0))
        self._global = numpy.zeros((0, 0))

    def reset_local(self):
        super(PCC, self).reset_local()
        self._local = numpy.zeros((0, 0))


def create(metric, *args, **kwargs):
    """A metric from a name, an instance, a callable feval, or a list of those (composite)."""
    if callable(metric) and not isinstance(metric, (EvalMetric, type)):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if isinstance(metric, (list, tuple)):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, str):
        key = metric.lower()
        if key not in _REGISTRY:
            raise ValueError("Metric must be either callable or in %s; got %s"
                             % (sorted(_REGISTRY), metric))
        return _REGISTRY[key](*args, **kwargs)
    raise TypeError("Cannot create a metric from %r" % (metric,))
