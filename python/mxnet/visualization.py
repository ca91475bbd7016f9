"""Looking at symbolic graphs (mx.viz): a Keras-style layer table and a graphviz drawing.

Both walk the symbol's JSON: op nodes are layers; variables are parameters, except the
first node (normally the data input), which is shown as a layer of its own.
"""
import copy
import json
import re

__all__ = ["print_summary", "plot_network"]


def _str2tuple(text):
    """'(5, 5)' or '[5,5]' or '5' -> ['5', '5'] / ['5']."""
    return re.findall(r"-?\d+", str(text))


def _true(value):
    return str(value).strip().lower() in ("true", "1")


def _output_shapes(symbol, shape):
    """{output name: shape} of every internal output, given the input shapes."""
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _node_shape(shape_dict, nodes, node_id, index=0):
    """The shape of output `index` of node `node_id` (None when not known)."""
    node = nodes[node_id]
    name = node["name"]
    if node["op"] == "null":
        return shape_dict.get(name)
    for key in ("%s_output" % name, "%s_output%d" % (name, index)):
        if key in shape_dict:
            return shape_dict[key]
    prefix = name + "_"
    matches = [k for k in shape_dict if k.startswith(prefix)]
    if len(matches) > index:
        return shape_dict[matches[index]]
    return None


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Prints a table of the layers: name(op), output shape, parameter count, inputs.

    shape: {input name: shape}; without it the shape column is empty and layers whose
    count needs a shape (BatchNorm, or anything fed by an unknown width) count 0.
    positions: column ends as fractions of line_length (or absolute when > 1).
    """
    from .symbol import Symbol
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    show_shape = shape is not None
    shape_dict = _output_shapes(symbol, shape) if show_shape else {}
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    positions = list(positions)
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ""
        for field, end in zip(fields, positions):
            line += str(field)
            line = line[:end]
            line += " " * (end - len(line))
        print(line)

    def shown(node_id):
        # layers: op nodes, and node 0 (the data input)
        return nodes[node_id]["op"] != "null" or node_id == 0

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)

    def in_width(node):
        """Channels (axis 1) summed over the shown inputs, or the flattened FC input size."""
        total = 0
        for entry in node["inputs"]:
            nid, idx = entry[0], entry[1]
            if not shown(nid):
                continue
            in_shape = _node_shape(shape_dict, nodes, nid, idx) if show_shape else None
            if not in_shape or len(in_shape) < 2:
                continue
            if node["op"] == "FullyConnected":
                if _true(node.get("attrs", {}).get("flatten", "True")):
                    n = 1
                    for d in in_shape[1:]:
                        n *= int(d)
                    total += n
                else:
                    total += int(in_shape[-1])
            else:
                total += int(in_shape[1])
        return total

    def param_count(node_id, out_shape):
        node = nodes[node_id]
        op = node["op"]
        attrs = node.get("attrs", {})
        if op in ("Convolution", "Deconvolution"):
            groups = int(attrs.get("num_group", "1"))
            filters = int(attrs["num_filter"])
            count = in_width(node) * filters // groups
            for k in _str2tuple(attrs["kernel"]):
                count *= int(k)
            if not _true(attrs.get("no_bias", "False")):
                count += filters
            return count
        if op == "FullyConnected":
            hidden = int(attrs["num_hidden"])
            width = in_width(node)
            return width * hidden if _true(attrs.get("no_bias", "False")) else \
                (width + 1) * hidden
        if op == "BatchNorm":
            if show_shape and out_shape:
                return 2 * int(_node_shape(shape_dict, nodes, node_id)[1])
            return 0
        if op == "Embedding":
            return int(attrs["input_dim"]) * int(attrs["output_dim"])
        return 0

    total = 0
    for i, node in enumerate(nodes):
        if not shown(i):
            continue
        out_shape = []
        if show_shape:
            full = _node_shape(shape_dict, nodes, i)
            if full is not None:
                out_shape = list(full[1:])
        previous = [nodes[e[0]]["name"] for e in node["inputs"] if shown(e[0])] \
            if node["op"] != "null" else []
        count = param_count(i, out_shape) if node["op"] != "null" else 0
        total += count
        row(["%s(%s)" % (node["name"], node["op"]), "x".join(str(x) for x in out_shape),
             count, previous[0] if previous else ""])
        for name in previous[1:]:
            row(["", "", "", name])
        print("=" * line_length if i == len(nodes) - 1 else "_" * line_length)
    print("Total params: {params}".format(params=total))
    print("_" * line_length)


_FILL = {"Convolution": "#fb8072", "Deconvolution": "#fb8072", "FullyConnected": "#fb8072",
         "BatchNorm": "#bebada", "Activation": "#ffffb3", "LeakyReLU": "#ffffb3",
         "Pooling": "#80b1d3", "Concat": "#fdb462", "Flatten": "#fdb462", "Reshape": "#fdb462",
         "Softmax": "#b3de69", "SoftmaxOutput": "#b3de69"}


def _label(node):
    op, attrs = node["op"], node.get("attrs", {})
    if op == "null":
        return node["name"]
    if op in ("Convolution", "Deconvolution"):
        return "%s\n%s/%s, %s" % (op, "x".join(_str2tuple(attrs.get("kernel", ""))),
                                  "x".join(_str2tuple(attrs.get("stride", "1"))),
                                  attrs.get("num_filter", ""))
    if op == "FullyConnected":
        return "FullyConnected\n%s" % attrs.get("num_hidden", "")
    if op == "Activation" or op == "LeakyReLU":
        return "%s\n%s" % (op, attrs.get("act_type", ""))
    if op == "Pooling":
        return "Pooling\n%s, %s/%s" % (attrs.get("pool_type", "max"),
                                       "x".join(_str2tuple(attrs.get("kernel", ""))),
                                       "x".join(_str2tuple(attrs.get("stride", "1"))))
    return op


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs={},
                 hide_weights=True):
    """A graphviz Digraph of the symbol (needs the `graphviz` Python package).

    With shape, edges are labelled with the shapes flowing along them. Weights, biases and
    other parameter variables are hidden unless hide_weights=False.
    """
    # pylint: disable=dangerous-default-value
    try:
        from graphviz import Digraph
    except ImportError as err:
        raise ImportError("plot_network needs the graphviz Python package "
                          "(pip install graphviz)") from err
    from .symbol import Symbol
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shape_dict = _output_shapes(symbol, shape) if shape is not None else {}
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    base_attr = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
                 "style": "filled"}
    base_attr.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    input_names = set(symbol.list_inputs()) if hasattr(symbol, "list_inputs") else set()
    hidden = set()
    for i, node in enumerate(nodes):
        if node["op"] == "null" and hide_weights and i != 0 and \
                re.search(r"(weight|bias|gamma|beta|moving_mean|moving_var|label)$",
                          node["name"]):
            hidden.add(i)
            continue
        attr = copy.deepcopy(base_attr)
        attr["fillcolor"] = _FILL.get(node["op"], "#8dd3c7" if node["op"] == "null"
                                      else "#fccde5")
        if node["op"] == "null" and node["name"] in input_names:
            attr["shape"] = "oval"
        dot.node(name=node["name"], label=_label(node), **attr)
    for i, node in enumerate(nodes):
        if node["op"] == "null":
            continue
        for entry in node["inputs"]:
            if entry[0] in hidden:
                continue
            src = nodes[entry[0]]
            kw = {"dir": "back", "arrowtail": "open"}
            in_shape = _node_shape(shape_dict, nodes, entry[0], entry[1]) if shape_dict else None
            if in_shape is not None:
                kw["label"] = "x".join(str(x) for x in in_shape[1:])
            dot.edge(tail_name=node["name"], head_name=src["name"], **kw)
    return dot
