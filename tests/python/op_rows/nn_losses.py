"""Rows of the loss heads: SoftmaxOutput, the regression outputs, MakeLoss, BlockGrad; and of
CTCLoss against brute-force enumeration of the alignments."""
import itertools

import numpy as np

from op_testing import BadCase, Case

# --------------------------------------------------------------------------------------------
# Loss heads: SoftmaxOutput, the regression outputs, MakeLoss, BlockGrad. Their gradients are
# defined by the op (not the derivative of the forward), so rows give grad_ref.

R_LOSS = np.random.RandomState(17)

# ---- SoftmaxOutput: forward = softmax, gradient (p - target) * grad_scale / norm, head ignored ----

def softmax_output_expect(x, label, grad_scale=1.0, ignore_label=-1.0, multi_output=False, use_ignore=False,
                          preserve_shape=False, normalization="null", smooth_alpha=0.0, head=None):
    if multi_output:  # (N, C, rest...) with softmax over axis 1
        n, c = x.shape[:2]
        z = np.moveaxis(x.reshape(n, c, -1), 1, -1).reshape(-1, c)
        lab = label.reshape(-1)
    elif preserve_shape:
        c = x.shape[-1]
        z, lab = x.reshape(-1, c), label.reshape(-1)
    else:
        n = x.shape[0]
        z, lab = x.reshape(n, -1), label.reshape(-1)
        c = z.shape[1]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    target = np.full_like(p, smooth_alpha / (c - 1) if smooth_alpha else 0.0)
    target[np.arange(len(lab)), lab.astype(int)] = 1.0 - smooth_alpha
    g = p - target
    ignored = lab == ignore_label
    if use_ignore:
        g[ignored] = 0
    norm = {"null": 1.0, "batch": float(x.shape[0]), "valid": float(max(1, (~ignored).sum()))}[normalization]
    g = g * grad_scale / norm

    def back(a):
        if multi_output:
            return np.moveaxis(a.reshape(n, -1, c), -1, 1).reshape(x.shape)
        return a.reshape(x.shape)
    g = back(g)
    if head is not None:
        g = g * head
    return back(p), g




def _smo_case(name, xs, ls, params, dtypes=("float32", "float64"), op="SoftmaxOutput"):
    x = R_LOSS.randn(*xs)
    ncls = xs[1] if params.get("multi_output") else (xs[-1] if params.get("preserve_shape") else
                                                    int(np.prod(xs[1:])))
    label = R_LOSS.randint(0, ncls, size=ls).astype(np.float64)
    if params.get("use_ignore"):
        label.reshape(-1)[0] = params.get("ignore_label", -1)

    def ref(x, label, **p):
        return softmax_output_expect(x, label, **{k: v for k, v in p.items() if k != "out_grad"})[0]

    def grad_ref(base, head, **p):
        kw = {k: v for k, v in p.items() if k != "out_grad"}
        return [softmax_output_expect(base[0], base[1], head=head if p.get("out_grad") else None, **kw)[1]]
    return Case(op, name, [x, label], params, ref, grad=(0,), const=(1,), grad_ref=grad_ref, dtypes=dtypes)


SMO_ROWS = [
    _smo_case("default", (4, 5), (4,), {}),
    _smo_case("grad_scale", (3, 4), (3,), dict(grad_scale=0.5)),
    _smo_case("use_ignore", (4, 3), (4,), dict(use_ignore=True, ignore_label=1)),
    _smo_case("normalization_batch", (4, 3), (4,), dict(normalization="batch")),
    _smo_case("normalization_valid", (5, 3), (5,), dict(normalization="valid", use_ignore=True, ignore_label=2)),
    _smo_case("multi_output", (2, 3, 4), (2, 4), dict(multi_output=True)),
    _smo_case("preserve_shape", (2, 3, 4), (2, 3), dict(preserve_shape=True)),
    _smo_case("flatten_4d", (2, 2, 1, 3), (2,), {}),
    _smo_case("smooth_alpha", (3, 4), (3,), dict(smooth_alpha=0.25)),
    _smo_case("out_grad", (3, 4), (3,), dict(out_grad=True), dtypes=("float32", "float64", "bfloat16")),
    # the 1.x name of SoftmaxOutput (an alias of the same registration)
    _smo_case("alias_Softmax", (3, 4), (3,), {}, op="Softmax"),
]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def regression_case(op, name, xs, ls, **params):
    fwd = _sigmoid if op == "LogisticRegressionOutput" else (lambda v: v)

    def ref(x, label, grad_scale=1.0):
        return fwd(x)

    def grad_ref(base, head, grad_scale=1.0):
        x, label = base
        per_sample = label.size / label.shape[0]
        d = fwd(x) - label.reshape(x.shape)
        d = np.sign(d) if op == "MAERegressionOutput" else d
        return [d * grad_scale / per_sample]
    x = R_LOSS.randn(*xs)
    label = R_LOSS.rand(*ls) if op == "LogisticRegressionOutput" else R_LOSS.randn(*ls)
    return Case(op, name, [x, label], params, ref, grad=(0,), const=(1,), grad_ref=grad_ref,
                dtypes=("float32", "float64", "float16", "bfloat16"))


REGRESSION_ROWS = []
for _op in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
    REGRESSION_ROWS += [
        regression_case(_op, "2d", (4, 3), (4, 3)),
        regression_case(_op, "grad_scale", (3, 5), (3, 5), grad_scale=0.25),
        regression_case(_op, "column_label_vector", (5, 1), (5,)),
    ]


def make_loss_grad(base, head, grad_scale=1.0, normalization="null", valid_thresh=0.0):
    x = base[0]
    norm = {"null": 1.0, "batch": float(x.shape[0]),
            "valid": float(max(1, int((x > valid_thresh).sum())))}[normalization]
    return [np.full(x.shape, grad_scale / norm)]


LOSS_ROWS = SMO_ROWS + REGRESSION_ROWS + [
    Case("MakeLoss", "default", [R_LOSS.randn(3, 4)], {}, lambda x, **_: x, grad_ref=make_loss_grad,
         dtypes=("float32", "float64", "bfloat16")),
    Case("MakeLoss", "grad_scale_batch", [R_LOSS.randn(4, 2)], dict(grad_scale=0.5, normalization="batch"),
         lambda x, **_: x, grad_ref=make_loss_grad),
    Case("MakeLoss", "valid", [R_LOSS.randn(3, 5)], dict(normalization="valid", valid_thresh=0.25),
         lambda x, **_: x, grad_ref=make_loss_grad),
    Case("BlockGrad", "2d", [R_LOSS.randn(3, 4)], {}, lambda x: x, grad_ref=lambda base, head: [np.zeros_like(base[0])],
         dtypes=("float32", "float64", "float16", "bfloat16")),
]


# ---- CTCLoss: -log of the summed probability of every frame path that collapses to the label ----

def ctc_collapse(path, blank):
    """A frame path with repeats merged and blanks dropped."""
    out, prev = [], None
    for s in path:
        if s != prev and s != blank:
            out.append(s)
        prev = s
    return out


def ctc_brute_nll(acts, target, blank):
    """-log p(target | acts) for one sample, acts (T, C) before softmax, by enumerating all C^T
    frame paths (tiny inputs only); 0 when no path produces the target (MXNet's convention)."""
    z = acts - acts.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(acts.shape[1]), repeat=acts.shape[0]):
        if ctc_collapse(path, blank) == list(target):
            total += np.exp(sum(logp[t, s] for t, s in enumerate(path)))
    return -np.log(total) if total > 0 else 0.0


def ctc_targets(label, blank_label="first", label_lengths=None):
    """Per sample, the label values before the padding (0 for 'first', -1 for 'last') or the
    first label_lengths[n] of them."""
    pad = 0 if blank_label == "first" else -1
    out = []
    for n, row in enumerate(np.asarray(label).astype(int)):
        row = list(row)
        if label_lengths is not None:
            out.append(row[:int(label_lengths[n])])
        else:
            out.append(row[:row.index(pad)] if pad in row else row)
    return out


def ctc_ref(data, label, data_lengths=None, label_lengths=None, use_data_lengths=False,
            use_label_lengths=False, blank_label="first"):
    T, N, C = data.shape
    blank = 0 if blank_label == "first" else C - 1
    targets = ctc_targets(label, blank_label, label_lengths if use_label_lengths else None)
    frames = [int(data_lengths[n]) if use_data_lengths else T for n in range(N)]
    return np.array([ctc_brute_nll(data[:frames[n], n], targets[n], blank) for n in range(N)])


R_CTC = np.random.RandomState(23)
CTC_ROWS = [
    Case("CTCLoss", "blank_first", [R_CTC.randn(4, 3, 3), np.array([[1, 2, 0], [2, 2, 0], [0, 0, 0]], np.int32)],
         {}, ctc_ref, const=(1,)),
    Case("CTCLoss", "blank_last", [R_CTC.randn(4, 2, 4), np.array([[0, 1, 2], [2, -1, -1]], np.int32)],
         dict(blank_label="last"), ctc_ref, const=(1,)),
    Case("CTCLoss", "lengths", [R_CTC.randn(4, 3, 3), np.array([[1, 2, 1], [2, 1, 0], [1, 1, 2]], np.int32),
                                np.array([4, 3, 2], np.int32), np.array([3, 1, 1], np.int32)],
         dict(use_data_lengths=True, use_label_lengths=True), ctc_ref, const=(1, 2, 3)),
    # sample 0 needs 3 frames for "1 1" but has 2: loss 0 and no gradient
    Case("CTCLoss", "data_lengths_infeasible", [R_CTC.randn(3, 2, 3), np.array([[1, 1], [2, 0]], np.int32),
                                                np.array([2, 3], np.int32)],
         dict(use_data_lengths=True), ctc_ref, const=(1, 2)),
    Case("ctc_loss", "alias", [R_CTC.randn(3, 2, 3), np.array([[1, 0], [2, 1]], np.int32)], {}, ctc_ref,
         const=(1,)),
    Case("_contrib_CTCLoss", "alias", [R_CTC.randn(3, 2, 3), np.array([[1, 0], [2, 1]], np.int32)], {}, ctc_ref,
         const=(1,), dtypes=("float32",)),
    # an alphabet wide enough for several lanes per frame in the CUDA kernels' softmax
    Case("CTCLoss", "wide_alphabet", [R_CTC.randn(3, 2, 24), np.array([[7, 7], [12, 23]], np.int32)], {}, ctc_ref,
         const=(1,)),
]

CASES = LOSS_ROWS + CTC_ROWS

BAD = [
    BadCase("CTCLoss", "label_out_of_range", [np.zeros((3, 2, 3), np.float32), np.array([[3, 0], [1, 0]], np.float32)],
            {}, ["CTCLoss", "label[0, 0] = 3", "class index in [1, 2]"]),
    BadCase("CTCLoss", "blank_inside_label_last", [np.zeros((3, 1, 3), np.float32), np.array([[2, 0]], np.float32)],
            dict(blank_label="last"), ["label[0, 0] = 2", "reserves class 2"]),
    BadCase("CTCLoss", "label_longer_than_data", [np.zeros((2, 1, 3), np.float32), np.array([[1, 2, 1]], np.float32)],
            {}, ["label sequence length 3 exceeds the data sequence length 2"]),
    BadCase("CTCLoss", "data_not_3d", [np.zeros((2, 3), np.float32), np.array([[1]], np.float32)],
            {}, ["data must be (sequence_length, batch_size, alphabet_size)"]),
    BadCase("CTCLoss", "data_length_too_long", [np.zeros((2, 1, 3), np.float32), np.array([[1]], np.float32),
                                                np.array([3], np.float32)],
            dict(use_data_lengths=True), ["data_lengths[0] = 3"]),
]
