"""What every model-zoo constructor shares: loading pretrained parameters when asked."""
from ....context import cpu
from ..model_store import get_model_file


def finish(net, name, pretrained, ctx, root):
    """Loads `name`'s pretrained parameters into net when pretrained is true."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx if ctx is not None else cpu())
    return net
