#!/usr/bin/env bash
# A real kubectl session against `podflow serve`, once with each kubectl
# binary the machine has (`kubectl`, and the versioned `kubectl.1.NN` the
# Google Cloud SDK package puts beside it, and any named in
# PODFLOW_MORE_KUBECTL, space-separated). Prints each check; exits non-zero
# when any failed. Usage: .ci/kubectl-session.sh PODFLOW_BINARY
set -uo pipefail

podflow=${1:?usage: kubectl-session.sh PODFLOW_BINARY}
podflow=$(readlink -f "$podflow")
repo=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v kubectl >/dev/null; then
  echo "kubectl-session: no kubectl on this machine; skipped"
  exit 0
fi
dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
binaries=("$(readlink -f "$(command -v kubectl)")")
for b in "$dir"/kubectl.1.* ${PODFLOW_MORE_KUBECTL:-}; do
  [ -x "$b" ] && binaries+=("$b")
done

work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

failed=0
check() { # NAME EXPECTED-REGEX COMMAND...
  local name=$1 want=$2
  shift 2
  local out
  out=$("$@" 2>&1)
  if grep -Eq -- "$want" <<<"$out"; then
    echo "  ok    $name"
  else
    echo "  FAIL  $name: expected /$want/, got:"
    sed 's/^/          /' <<<"$out"
    failed=1
  fi
}

# Runs a Pod of IMAGE named NAME and prints its container's waiting message
# once the kubelet has one (the registry's answer).
waiting_message() { # NAME IMAGE
  "$kubectl" run "$1" --image="$2" >/dev/null || return
  local message=""
  for _ in $(seq 120); do
    message=$("$kubectl" get pod "$1" -o jsonpath='{.status.containerStatuses[0].state.waiting.message}')
    [ -n "$message" ] && break
    sleep 0.25
  done
  echo "$message"
}

port=16443
for kubectl in "${binaries[@]}"; do
  version=$("$kubectl" version --client 2>/dev/null | head -1)
  minor=$("$kubectl" version --client -o json 2>/dev/null | grep -o '"minor": *"[0-9]*' | grep -o '[0-9]*$')
  if [ -n "$minor" ] && [ "$minor" -lt 31 ]; then
    echo "== $version: skipped (podflow serve supports kubectl 1.31 and newer)"
    continue
  fi
  # Typed-client commands send protobuf from 1.32 on; podflow decodes it
  # where `podflow serve` says so in the README.
  port=$((port + 1))
  kubeconfig="$work/kubeconfig-$port"
  "$podflow" serve --headless --port "$port" --speed 20 \
    --cluster "$repo/tests/fixtures/rbac-cluster.yaml" \
    --kubeconfig "$kubeconfig" >"$work/serve-$port.log" 2>&1 &
  server=$!
  for _ in $(seq 50); do
    [ -s "$kubeconfig" ] && break
    sleep 0.1
  done
  export KUBECONFIG=$kubeconfig
  k() { "$kubectl" "$@"; }
  echo "== $version ($kubectl)"
  check "version" "Server Version: v1\." k version
  check "get nodes" "node-1 +Ready" k get nodes
  check "apply" "pod/nginx created" k apply -f "$repo/assets/manifests/nginx-pod.yaml"
  check "apply again" "pod/nginx unchanged" k apply -f "$repo/assets/manifests/nginx-pod.yaml"
  check "strict decoding" 'unknown field "spec.containers\[0\].imagePullPolicyy"' \
    k apply -f "$repo/tests/fixtures/typo-pod.yaml"
  check "wait" "condition met" k wait --for=condition=Ready pod/nginx --timeout=60s
  check "get -o wide" "nginx +1/1 +Running .* 10\.244\." k get pods -o wide
  check "get -o yaml" "imagePullPolicy: IfNotPresent" k get pod nginx -o yaml
  check "get -l" "^nginx " k get pods -l app=nginx --no-headers
  check "get -l (none)" "No resources found" k get pods -l app=none
  check "a typo'd image" "pull access denied, repository does not exist" waiting_message typo ngnix:1.27
  check "delete the typo" 'pod "typo" deleted' k delete pod typo --timeout=60s
  check "label" "pod/nginx labeled" k label pod nginx tier=web
  check "annotate" "pod/nginx annotated" k annotate pod nginx note=hello
  check "describe" "Node: +node-" k describe pod nginx
  check "logs" "" k logs nginx
  check "get -w" "nginx" timeout 3 "$kubectl" get pods -w
  check "auth can-i (admin)" "^yes" k auth can-i create deployments
  check "auth can-i --as" "^no" k auth can-i list pods --as=jane -n default
  check "auth can-i (token user)" "^yes" k --context jane@podflow auth can-i list pods -n dev
  check "auth whoami" "kubeadm:cluster-admins" k auth whoami
  check "403 for a token user" 'User "jane" cannot list resource "pods"' \
    k --context jane@podflow get pods -n default
  check "create deployment" "deployment.apps/web created" \
    k create deployment web --image=nginx:1.27 --replicas=2
  check "rollout status" "successfully rolled out" k rollout status deploy/web --timeout=60s
  check "get deploy (columns)" "^web +2/2 +2 +2 " k get deploy web --no-headers
  check "get rs -o wide" "nginx +nginx:1.27 +app=web,pod-template-hash=" k get rs -o wide
  check "scale" "deployment.apps/web scaled" k scale deploy/web --replicas=3
  check "set image" "image updated" k set image deploy/web nginx=nginx:1.28
  check "rollout status (new image)" "successfully rolled out" \
    k rollout status deploy/web --timeout=90s
  check "rollout history" "^2 " k rollout history deploy/web
  check "rollout undo" "rolled back" k rollout undo deploy/web
  check "delete" 'pod "nginx" deleted' k delete pod nginx --timeout=60s
  check "get (gone)" "NotFound" k get pod nginx
  # The Deployment's Pods on node-1 are evicted (pods/eviction) and replaced elsewhere.
  check "drain" "node/node-1 drained" k drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=60s
  check "after drain" "SchedulingDisabled" k get node node-1
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  server=""
done
exit $failed
