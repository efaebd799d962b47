// recom compile runs every stage on the bundled model, writes each stage's
// output and the summary into the directory (atomically), and prints the
// summary. The model has 24 columns of every kind; one kernel comes out
// (--dense=cpu: the dense layers' kernels are --fuse-dense's, tested in
// Conversion/fuse-dense.mlir).
// REQUIRES: llc
// RUN: rm -rf %t && mkdir -p %t
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --no-cubin --dense=cpu | FileCheck %s
// RUN: FileCheck %s --input-file=%t/out/summary.txt
// RUN: ls %t/out | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/out/model.ptx
// RUN: FileCheck %s --check-prefix=GPU --input-file=%t/out/3-gpu.mlir
//
// Ablations reach the passes (the schedule is spelled RECom because lit
// substitutes the word recom); --stop-after ends the run and writes only what
// was made, replacing the previous directory whole.
// RUN: recom compile %S/../../examples/small.pbtxt -o %t/out --lower-emb=no-range-analysis --fuse='schedule=RECom' --stop-after=fuse \
// RUN:   | FileCheck %s --check-prefix=ABL
// RUN: ls %t/out | FileCheck %s --check-prefix=STOP --implicit-check-not=model
//
// A failing run leaves the previous directory as it was and nothing beside it.
// RUN: not recom compile %S/../../examples/small.pbtxt -o %t/out --fuse='no-such-option' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=tmp
// RUN: FileCheck %s --check-prefix=ABL --input-file=%t/out/summary.txt

// CHECK:      model: {{.*}}small.pbtxt (text GraphDef, 2068 nodes)
// CHECK:      columns: 24
// CHECK-NEXT:   hashed_string         4
// CHECK-NEXT:   hashed_int            3
// CHECK-NEXT:   split_string          3
// CHECK-NEXT:   identity              4
// CHECK-NEXT:   vocabulary            3
// CHECK-NEXT:   bucketized            3
// CHECK-NEXT:   weighted              2
// CHECK-NEXT:   shared                2
// CHECK:      ops removed by rewrites:
// CHECK:        lower-emb        removed-by-lookup-lowering {{ *[1-9][0-9]*}}
// CHECK:        lower-emb        removed-by-range-analysis {{ *[1-9][0-9]*}}
// CHECK:        lower-emb        removed-unique {{ *}}24
// CHECK:        simplify-shapes  shape-ops-removed {{ *[1-9][0-9]*}}
// CHECK:      stages:
// CHECK-NEXT:   stage                before      after       time  after, by dialect
// CHECK-NEXT:   import           2068 nodes       2070 {{ *[0-9.]+}} s  tfg 2069, builtin 1
// CHECK-NEXT:   lower-emb              2070 {{ *[0-9]+ *[0-9.]+}} s  {{.*}}emb 102
// CHECK-NEXT:   simplify-shapes {{.*}} s  {{.*}}shape
// CHECK-NEXT:   fuse            {{.*}} s  {{.*}}gpu {{[0-9]+}}
// CHECK-NEXT:   llvm            {{ *}}{{[0-9]+}} B {{ *[0-9.]+}} s  model.ll: {{[0-9]+}} lines
// CHECK-NEXT:   ptx             {{ *}}{{[0-9]+}} B {{ *[0-9.]+}} s  model.ptx: {{[0-9]+}} lines, {{[1-9][0-9]*}} 16-byte loads
// CHECK-NEXT:   total           {{ *[0-9.]+}} s
// CHECK:      kernels: 1 (layer)
// CHECK-NEXT:   @emb::@layer: schedule tuned, 24 columns, width {{[0-9]+}}, block {{[0-9]+}}
// CHECK:      pass statistics:
// CHECK-NEXT:   lower-emb
// CHECK-NEXT:     columns                                    24
// CHECK:        fuse
// CHECK:          layers                                      1

// FILES:      0-tfg.mlir
// FILES-NEXT: 1-emb.mlir
// FILES-NEXT: 2-shape.mlir
// FILES-NEXT: 3-gpu.mlir
// FILES-NEXT: model.ll
// FILES-NEXT: model.ptx
// FILES-NEXT: summary.txt

// PTX:     .visible .entry layer(
// PTX-NOT: .entry

// GPU: "fused.embedding_layer"{{.*}}kernel = @emb::@layer, min_tasks = {{[0-9]+}} : i64, schedule = "tuned"
// GPU: gpu.module @emb
// GPU: gpu.func @layer({{.*}}) kernel

// ABL:      pass options: --fuse='schedule=RECom' --lower-emb='no-range-analysis'
// ABL:        lower-emb        removed-by-range-analysis {{ *}}0
// ABL:      kernels: 1 (layer)
// ABL-NEXT:   @emb::@layer: schedule recom, 24 columns, width {{[0-9]+}}, block 64

// STOP:      0-tfg.mlir
// STOP-NEXT: 1-emb.mlir
// STOP-NEXT: 2-shape.mlir
// STOP-NEXT: 3-gpu.mlir
// STOP-NEXT: summary.txt

// ERR: error: pass 'fuse': option 'no-such-option': unknown option

// LS: out
