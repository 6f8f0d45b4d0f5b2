#!/usr/bin/env bash
# Builds the Pulumi CLI this project tests with, from the Go module proxy, into a cache folder
# outside the repository, and prints that folder's bin/ as the last line of stdout.
#
#   bash tools/pulumi-cli/build.sh           build when the cache lacks this pin, else reuse it
#   bash tools/pulumi-cli/build.sh --check   print bin/ if this pin is built, else exit 1 (never builds)
#
# bin/ holds `pulumi` (go.mod here), `pulumi-language-nodejs` (nodejs-host/go.mod, wrapped so that
# policy packs start as newer hosts start them: run-path.js), `pulumi-language-yaml` (yaml-host/),
# `pulumi-language-go` (go-host/), `pulumi-language-python` (python-host/: for `pulumi package
# gen-sdk --language python` only, see its exec shim below) and `pulumi-resource-pulumi-nodejs`, the launcher the engine runs
# for dynamic providers. Put bin/ first on PATH. The cache is keyed by
# the pins and these scripts, so a pin change builds anew. Progress goes to stderr; a cold build
# downloads about 1 GB of modules and compiles for some minutes on 2 cores.
# REVIEWADMIN_PULUMI_CACHE chooses the cache folder (default ~/.cache/pulumi-reviewadmin/pulumi-cli).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${REVIEWADMIN_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-reviewadmin/pulumi-cli}"
say() { echo "[pulumi-cli] $*" >&2; }

version=$(sed -n 's#^\s*github.com/pulumi/pulumi/pkg/v3 \(v[0-9.]*\).*#\1#p' "$here/go.mod" | head -n 1)
[ -n "$version" ] || { say "no github.com/pulumi/pulumi/pkg/v3 requirement in $here/go.mod"; exit 1; }
key=$(cat "$here/go.mod" "$here/go.sum" "$here/nodejs-host/go.mod" "$here/nodejs-host/go.sum" "$here/yaml-host/go.mod" \
  "$here/yaml-host/go.sum" "$here/go-host/go.mod" "$here/go-host/go.sum" "$here/python-host/go.mod" "$here/python-host/go.sum" \
  "$here/run-path.js" "$here/build.sh" |
  sha256sum | cut -c1-12)
out="$cache/$version-$key"
bin="$out/bin"

built() { [ -f "$out/complete" ] && [ "$("$bin/pulumi" version 2>/dev/null)" = "$version" ]; }
if built; then
  say "pulumi $version: reusing the build in $out"
  echo "$bin"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then exit 1; fi
command -v go >/dev/null || { say "Go is not installed: the Pulumi CLI is built from source with Go >= 1.26 (see tools/pulumi-cli/README.md)"; exit 1; }

# Sources come from the module proxy only; "direct" would try GitHub, which is not reachable here.
export GOPROXY="${GOPROXY:-https://proxy.golang.org}"
GOPROXY="${GOPROXY%,direct}"
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0
# The checksum database does not answer for the language host's pseudo-version (404 through the
# proxy); its hashes are pinned in nodejs-host/go.sum instead, which go checks every download against.
export GONOSUMDB="github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs,github.com/pulumi/pulumi/sdk/go/pulumi-language-go,github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python"

started=$SECONDS
# Runs a long step in the background and says every 20 s that it is still going.
step() {
  local what="$1"
  shift
  say "$what ..."
  "$@" &
  local pid=$! t0=$SECONDS next=20
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS - t0 >= next)); then
      say "  still $what ($((SECONDS - t0)) s)"
      next=$((next + 20))
    fi
  done
  wait "$pid" || { say "$what failed"; exit 1; }
  say "  done in $((SECONDS - t0)) s"
}

tmp="$out.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/bin" "$tmp/libexec"
trap 'rm -rf "$tmp"' EXIT
flags=(-trimpath -tags osusergo,grpcnotrace)
ldflags() { echo "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$1"; }
host_sdk=$(sed -n 's#^\s*github.com/pulumi/pulumi/sdk/v3 \(v[0-9.]*\).*#\1#p' "$here/nodejs-host/go.mod" | head -n 1)

say "building Pulumi CLI $version and its Node.js language host into $out"
# `go list -deps` fetches just the modules the build needs (`go mod download` would want every
# module of the graph, some of which the proxy refuses).
step "downloading the CLI's modules" bash -c "cd '$here' && go list -deps github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >/dev/null"
step "downloading the language host's modules" bash -c "cd '$here/nodejs-host' && go list -deps github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3 >/dev/null"
step "compiling pulumi" bash -c "cd '$here' && go build ${flags[*]} -ldflags '$(ldflags "$version")' -o '$tmp/bin/pulumi' github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
step "compiling pulumi-language-nodejs" bash -c "cd '$here/nodejs-host' && go build ${flags[*]} -ldflags '$(ldflags "$host_sdk")' -o '$tmp/libexec/pulumi-language-nodejs' github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3"
# The YAML and Go language hosts: the engine finds them next to `pulumi` for `runtime: yaml` and `runtime: go`.
step "downloading the YAML host's modules" bash -c "cd '$here/yaml-host' && go list -deps github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml >/dev/null"
step "compiling pulumi-language-yaml" bash -c "cd '$here/yaml-host' && go build ${flags[*]} -ldflags '-s -w' -o '$tmp/bin/pulumi-language-yaml' github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
step "downloading the Go host's modules" bash -c "cd '$here/go-host' && go list -deps github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3 >/dev/null"
step "compiling pulumi-language-go" bash -c "cd '$here/go-host' && go build ${flags[*]} -ldflags '$(ldflags "$host_sdk")' -o '$tmp/bin/pulumi-language-go' github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3"
# The Python host: `pulumi package gen-sdk --language python` asks it for the SDK's code.
step "downloading the Python host's modules" bash -c "cd '$here/python-host' && go list -deps github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3 >/dev/null"
step "compiling pulumi-language-python" bash -c "cd '$here/python-host' && go build ${flags[*]} -ldflags '$(ldflags "$host_sdk")' -o '$tmp/bin/pulumi-language-python' github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3"

cp "$here/run-path.js" "$tmp/libexec/run-path.js"
cat >"$tmp/bin/pulumi-language-nodejs" <<'EOF'
#!/bin/sh
# The language host, with the run entry that starts policy packs as newer hosts do (run-path.js).
here=$(cd "$(dirname "$0")/../libexec" && pwd)
PULUMI_LANGUAGE_NODEJS_RUN_PATH="${PULUMI_LANGUAGE_NODEJS_RUN_PATH:-$here/run-path.js}" exec "$here/pulumi-language-nodejs" "$@"
EOF
# The engine runs this in the program's folder for every dynamic resource: it must start the
# @pulumi/pulumi that folder resolves, whose serialized providers it is given.
cat >"$tmp/bin/pulumi-resource-pulumi-nodejs" <<'EOF'
#!/bin/sh
entry=$(node -p 'require.resolve("@pulumi/pulumi/cmd/dynamic-provider")') || exit 1
exec node "$entry" "$@"
EOF
# The Python host refuses to start without its exec shim beside it, which runs Python programs with
# the pulumi package from PyPI; PyPI is not reachable here, so this shim says so instead. gen-sdk
# never runs it.
cat >"$tmp/bin/pulumi-language-python-exec" <<'EOF'
#!/bin/sh
echo "pulumi-language-python-exec: this build of the Python host serves 'pulumi package gen-sdk --language python' only; running a Python program needs the pulumi package from PyPI" >&2
exit 1
EOF
chmod +x "$tmp/bin/"* "$tmp/libexec/run-path.js"

got=$("$tmp/bin/pulumi" version)
[ "$got" = "$version" ] || { say "the built pulumi says it is '$got', not $version"; exit 1; }
touch "$tmp/complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
say "pulumi $got built in $((SECONDS - started)) s"
echo "$bin"
