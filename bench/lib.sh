# Shared steps of the bench scripts (source it from the repository root).

# build_recom DIR: recom for the GPU machine as DIR/recom (no cgo, linux/amd64: the
# device has no Go) and one for this machine as DIR/recom-here (remove it before the
# folder travels: the device tool carries at most 64 MiB).
build_recom() {
  export PATH="/usr/local/go/bin:$PATH"
  mkdir -p "$1"
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o "$1/recom" ./cmd/recom
  go build -o "$1/recom-here" ./cmd/recom
}
