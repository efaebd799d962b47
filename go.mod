module github.com/recom-compiler/recom

go 1.26

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/dgryski/go-farm v0.0.0-20240924180020-3414d57e47da
	github.com/ebitengine/purego v0.11.3
	github.com/llir/llvm v0.3.6
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/llir/ll v0.0.0-20220802044011-65001c0fb73c // indirect
	github.com/mewmew/float v0.0.0-20201204173432-505706aa38fa // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/mod v0.4.2 // indirect
	golang.org/x/sys v0.0.0-20210510120138-977fb7262007 // indirect
	golang.org/x/tools v0.1.4 // indirect
	golang.org/x/xerrors v0.0.0-20200804184101-5ec99f83aff1 // indirect
)
