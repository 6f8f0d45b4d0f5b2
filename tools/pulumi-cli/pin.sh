#!/usr/bin/env bash
# Moves the CLI pin to another Pulumi release: bash tools/pulumi-cli/pin.sh 3.280.0
# Writes go.mod and go.sum here; commit them with a CHANGELOG line. The language host keeps its
# own pin (nodejs-host/go.mod): upstream never tags it, and the proxy serves one pseudo-version.
# After a pin change, build.sh builds anew (the cache is keyed by these files).
set -euo pipefail
v="${1:?usage: pin.sh <pulumi release, e.g. 3.274.1>}"
cd "$(dirname "$0")"
export GOPROXY="${GOPROXY:-https://proxy.golang.org}" CGO_ENABLED=0
GOPROXY="${GOPROXY%,direct}"
go get -tool "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@v$v"
go get "github.com/pulumi/pulumi/sdk/v3@v$v"
# Upstream's release builds use this fork of the clipboard module (a Windows-only change); kept for parity.
go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
go mod tidy
mod=$(go mod download -json "github.com/pulumi/pulumi/pkg/v3@v$v" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
echo "replace directives upstream carries in pkg/v3@v$v (a local path needs nothing; review any other):"
grep -E '^replace|=>' "$mod" || true
