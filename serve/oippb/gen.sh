#!/bin/sh
# gen.sh regenerates serve/oippb from oip.proto. Run from anywhere:
# sh serve/oippb/gen.sh (go generate ./serve/oippb runs it). Needs protoc
# (Debian's protobuf-compiler); installs the two plugins at the versions
# below into bin/tools. The generated files are committed: building and
# testing recom need none of this.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
pbversion=v1.36.12  # keep equal to google.golang.org/protobuf in go.mod
grpcversion=v1.6.0  # google.golang.org/grpc/cmd/protoc-gen-go-grpc
tools="$root/bin/tools"
mkdir -p "$tools"
if [ "$("$tools/protoc-gen-go" --version 2>/dev/null | awk '{print $2}')" != "$pbversion" ]; then
	GOBIN="$tools" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$pbversion"
fi
if [ "$("$tools/protoc-gen-go-grpc" --version 2>/dev/null | awk '{print $2}')" != "${grpcversion#v}" ]; then
	GOBIN="$tools" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$grpcversion"
fi
PATH="$tools:$PATH"
rm -f serve/oippb/*.pb.go
protoc -I . \
	--go_out=. --go_opt=module=github.com/recom-compiler/recom \
	--go-grpc_out=. --go-grpc_opt=module=github.com/recom-compiler/recom \
	serve/oippb/oip.proto
gofmt -l serve/oippb
