#!/usr/bin/env bash
# Regenerates docs/env_var.md from the registry. Usage: tools/update_env_doc.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
cmake --build "$build" --target gen_env_doc
env -i PATH="$PATH" "$build/tools/gen_env_doc" > "$root/docs/env_var.md"
echo "wrote $root/docs/env_var.md"
