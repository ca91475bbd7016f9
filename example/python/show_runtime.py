"""Prints what the runtime is: versions, build features, thread choices, and the
environment variables in effect that differ from their defaults."""
import mxnet as mx


def main():
    print("mxnet %s (runtime %s), library %s" % (mx.__version__, mx.runtime.info()["version"], mx.base._LIB_PATH))
    for key, value in mx.runtime.info().items():
        print("  %-24s %s" % (key, value))
    enabled = [f.name for f in mx.runtime.feature_list() if f.enabled]
    print("features: " + " ".join(enabled))
    changed = [v for v in mx.runtime.env_vars().values() if v.is_set]
    print("environment variables set: %d of %d known" % (len(changed), len(mx.runtime.env_vars())))
    for v in changed:
        print("  %s=%s%s" % (v.name, v.value, "" if v.acted_on else "  (accepted; this build does not act on it)"))


if __name__ == "__main__":
    main()
