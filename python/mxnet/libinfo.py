"""Finding libmxnet.so, the way MXNet 1.x's libinfo does, with clearer messages."""
import os
import platform
import warnings

__version__ = "1.9.1"


def _candidate_dirs():
    """Directories searched after MXNET_LIBRARY_PATH, in order."""
    curr_path = os.path.dirname(os.path.abspath(os.path.expanduser(__file__)))
    dirs = []
    if os.environ.get("LD_LIBRARY_PATH"):
        dirs.extend(p.strip() for p in os.environ["LD_LIBRARY_PATH"].split(":") if p.strip())
    dirs.append(curr_path)
    dirs.append(os.path.join(curr_path, "../../lib/"))
    dirs.append(os.path.join(curr_path, "../../build/"))
    if platform.system() == "Linux":
        dirs.append(os.path.join(os.getcwd(), "../../../"))
    # The system library path, where `cmake --install` puts it.
    dirs.extend(["/usr/local/lib", "/usr/local/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"])
    return dirs


def find_lib_path(prefix="libmxnet"):
    """Every existing candidate path of the library, best first.

    MXNET_LIBRARY_PATH, when it names an existing file, comes first. A value that does not
    exist is reported with a warning and the normal search goes on.
    """
    lib_from_env = os.environ.get("MXNET_LIBRARY_PATH")
    found = []
    if lib_from_env:
        if os.path.isfile(lib_from_env):
            if not os.path.isabs(lib_from_env):
                warnings.warn("MXNET_LIBRARY_PATH should be an absolute path; using %s relative to %s"
                              % (lib_from_env, os.getcwd()), stacklevel=2)
            found.append(os.path.abspath(lib_from_env))
        else:
            warnings.warn("MXNET_LIBRARY_PATH=%s does not name an existing file; searching the usual "
                          "places instead" % lib_from_env, stacklevel=2)
    candidates = [os.path.join(d, prefix + ".so") for d in _candidate_dirs()]
    for path in candidates:
        path = os.path.abspath(path)
        if os.path.isfile(path) and path not in found:
            found.append(path)
    if not found:
        raise RuntimeError("Cannot find the MXNet library.\nList of candidates:\n" +
                           "\n".join(([lib_from_env + " (MXNET_LIBRARY_PATH)"] if lib_from_env else []) +
                                     [os.path.abspath(c) for c in candidates]))
    return found


def find_include_path():
    """The directory holding mxnet/c_api.h (MXNET_INCLUDE_PATH first)."""
    incl_from_env = os.environ.get("MXNET_INCLUDE_PATH")
    if incl_from_env:
        if os.path.isdir(incl_from_env):
            return os.path.abspath(incl_from_env)
        warnings.warn("MXNET_INCLUDE_PATH=%s is not a directory; searching the usual places" % incl_from_env,
                      stacklevel=2)
    curr_path = os.path.dirname(os.path.abspath(os.path.expanduser(__file__)))
    for cand in (os.path.join(curr_path, "include"), os.path.join(curr_path, "../../include"),
                 "/usr/local/include", "/usr/include"):
        if os.path.isfile(os.path.join(cand, "mxnet", "c_api.h")):
            return os.path.abspath(cand)
    raise RuntimeError("Cannot find the MXNet include path (set MXNET_INCLUDE_PATH).")
