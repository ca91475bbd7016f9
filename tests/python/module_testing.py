"""Shared pieces of the mx.mod tests: a small MLP, a separable problem, numpy references,
a trained module, and the symbols and batches of the bucketing tests."""
import numpy as np

import mxnet as mx


# ---- helpers -----------------------------------------------------------------------------------
def _mlp(num_hidden=16, num_classes=4):
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=num_hidden, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=num_classes, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _problem(n=400, dim=10, classes=4, seed=0):
    """Linearly separable classes: label = argmax(x @ w)."""
    rng = np.random.RandomState(seed)
    x = rng.randn(n, dim).astype(np.float32)
    w = rng.randn(dim, classes).astype(np.float32)
    y = np.argmax(x.dot(w), axis=1).astype(np.float32)
    return x, y


def _np_mlp(params, x):
    h = np.maximum(x.dot(params["fc1_weight"].T) + params["fc1_bias"], 0)
    z = h.dot(params["fc2_weight"].T) + params["fc2_bias"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _np_params(mod):
    arg, _ = mod.get_params()
    return {k: v.asnumpy() for k, v in arg.items()}


def _trained_module(x, y, epochs=8, batch_size=20, **fit_kwargs):
    mx.random.seed(1)
    np.random.seed(1)
    it = mx.io.NDArrayIter(x, y, batch_size=batch_size, shuffle=True)
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    mod.fit(it, num_epoch=epochs, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            initializer=mx.init.Xavier(), **fit_kwargs)
    return mod, it



def _bucket_sym_gen(seq_len):
    data = mx.sym.var("data")
    pooled = mx.sym.sum(data, axis=1)  # (N, L, 4) -> (N, 4): parameters independent of L
    fc = mx.sym.FullyConnected(pooled, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax"), ("data",), ("softmax_label",)


def _bucket_batch(rng, seq_len, n=8):
    x = rng.randn(n, seq_len, 4).astype(np.float32)
    y = np.argmax(x.sum(axis=1)[:, :3], axis=1).astype(np.float32)
    return mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)], bucket_key=seq_len,
                           provide_data=[mx.io.DataDesc("data", x.shape)],
                           provide_label=[mx.io.DataDesc("softmax_label", y.shape)]), x, y
