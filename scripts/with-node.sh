#!/usr/bin/env bash
# Runs a command with another Node.js version first on PATH: scripts/with-node.sh 24.21.0 npm run test:own
# The binary comes from the npm registry (the node-linux-<arch> package, which ships it in its tarball; no install
# script runs) and is cached in ${XDG_CACHE_HOME:-~/.cache}/iotc-node/<version>. CI uses it for Node 22 and 24.
set -euo pipefail
version="$1"
shift
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "with-node: no node-linux package for $(uname -m)" >&2; exit 2 ;;
esac
cache="${XDG_CACHE_HOME:-$HOME/.cache}/iotc-node/$version"
if [ ! -x "$cache/package/bin/node" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm pack --silent "node-linux-$arch@$version" >/dev/null && tar xzf "node-linux-$arch-$version.tgz" && rm -f ./*.tgz)
fi
export PATH="$cache/package/bin:$PATH"
echo "with-node: $(node --version)"
exec "$@"
