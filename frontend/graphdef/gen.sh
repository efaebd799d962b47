#!/bin/sh
# gen.sh regenerates frontend/graphdef/tfpb from frontend/graphdef/proto.
# Run from anywhere: sh frontend/graphdef/gen.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
version=v1.36.12 # keep equal to google.golang.org/protobuf in go.mod
gobin=$(go env GOPATH)/bin
if ! command -v protoc-gen-go >/dev/null 2>&1 && [ ! -x "$gobin/protoc-gen-go" ]; then
	go install "google.golang.org/protobuf/cmd/protoc-gen-go@$version"
fi
PATH="$gobin:$PATH"
have=$(protoc-gen-go --version | awk '{print $2}')
if [ "$have" != "$version" ]; then
	go install "google.golang.org/protobuf/cmd/protoc-gen-go@$version"
fi
rm -f frontend/graphdef/tfpb/*.pb.go
protoc -I . -I /usr/include \
	--go_out=. --go_opt=module=github.com/recom-compiler/recom \
	frontend/graphdef/proto/*.proto
gofmt -l frontend/graphdef/tfpb
