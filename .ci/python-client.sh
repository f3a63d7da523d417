#!/usr/bin/env bash
# The official Kubernetes Python client (PyPI's `kubernetes`, installed into a
# virtualenv under target/) against `podflow serve --headless`: the checks of
# .ci/python_client.py. Skipped with a message where Python or PyPI is not
# reachable. Usage: .ci/python-client.sh PODFLOW_BINARY
set -uo pipefail

podflow=${1:?usage: python-client.sh PODFLOW_BINARY}
podflow=$(readlink -f "$podflow")
repo=$(cd "$(dirname "$0")/.." && pwd)
# The newest release when this was written; it speaks the API of Kubernetes 1.37.
version=37.0.2

venv="$repo/target/python-client"
if ! "$venv/bin/python" -c "import kubernetes" 2>/dev/null; then
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q "kubernetes==$version"; }; then
    echo "python-client: could not install the kubernetes $version client; skipped"
    exit 0
  fi
fi

work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

kubeconfig="$work/kubeconfig"
"$podflow" serve --headless --port 16500 --speed 20 \
  --cluster "$repo/tests/fixtures/rbac-cluster.yaml" \
  --kubeconfig "$kubeconfig" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 50); do
  [ -s "$kubeconfig" ] && break
  sleep 0.1
done
echo "== the Kubernetes Python client $version"
"$venv/bin/python" -u "$repo/.ci/python_client.py" "$kubeconfig"
