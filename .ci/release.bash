# shellcheck shell=bash
# What a release is, for .ci/release-prepare and .ci/release-check, which
# source this file (RELEASING.md explains the scheme).

root_module=github.com/paygate/paygate-go

# The directories of the modules a release publishes, the root first. Each
# nested one is tagged <dir>/vX.Y.Z beside the root's vX.Y.Z. The other
# modules go.work joins (examples/checkout, paygatetest/dashboardtest,
# internal/cmd/modproxy) are never tagged: they live in the workspace only.
published=(. cmd/paygate paygateotel dedup/redisdedup dedup/pgdedup)

# required GOMOD PATH prints the version the go.mod file GOMOD requires of
# the module PATH, if it requires it.
required() {
  awk -v p="$2" '$1 == "require" && $2 == p { print $3 } $1 == p { print $2 }' "$1"
}

# module_path DIR prints the path of the module in DIR.
module_path() { awk '$1 == "module" { print $2; exit }' "$1/go.mod"; }

# merchant_env WORK sets the environment of a go command outside the
# workspace, as a merchant's: WORK/proxy (internal/cmd/modproxy's) first,
# then the module cache's downloads and $(go env GOPROXY); a module cache of
# its own in WORK, so that an unpublished version never reaches the shared
# one (where it would stand in for the real release later, and an earlier
# run's copy for this one); the checksum database never asked about the
# unpublished modules.
merchant_env() {
  GOPROXY="file://$1/proxy,file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
  export GOPROXY GOWORK=off GOMODCACHE="$1/modcache" GONOSUMDB=$root_module
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw"
}

# publish WORK VERSION publishes the working tree's published modules to
# WORK/proxy at VERSION.
publish() {
  echo "+ go run ./internal/cmd/modproxy -out \$work/proxy -version $2 ${published[*]}"
  go run ./internal/cmd/modproxy -out "$1/proxy" -version "$2" "${published[@]}"
}
