// A preset served from serialized tf.Example records (recom gen --tf-example):
// one string placeholder parsed by ParseExampleV2 (or TF1's ParseExample),
// feeds drawn as records, every column lowered and fused with its id
// transforms in the kernel, and every stage equal to the interpreter on the
// GraphDef.
// RUN: recom gen --preset small --tf-example -o %t.pbtxt 2>&1 | FileCheck %s --check-prefix=GEN
// RUN: recom gen --feeds %t.pbtxt --batch 16 --seed 3 -o %t.feeds.npz
// RUN: recom interp %t.pbtxt --feeds %t.feeds.npz --tables %t.tables.npz --outputs prediction -o %t.ref.npz
// RUN: recom compile %t.pbtxt -o %t.out | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=PARSE < %t.out/3-gpu.mlir
// RUN: recom interp %t.out/1-emb.mlir --feeds %t.feeds.npz --tables %t.tables.npz --outputs prediction -o %t.emb.npz
// RUN: recom compare %t.ref.npz %t.emb.npz | FileCheck %s --check-prefix=SAME
// RUN: recom interp %t.out/4-dense.mlir --feeds %t.feeds.npz --tables %t.tables.npz --outputs prediction -o %t.dense.npz
// RUN: recom compare %t.ref.npz %t.dense.npz | FileCheck %s --check-prefix=SAME
//
// Records drawn from the graph (no recorded spec: --outputs), as for a real
// export: each weighted column's weight feature as long as its ids, which
// TensorFlow pairs value by value.
// RUN: recom gen --feeds %t.pbtxt --outputs prediction --batch 16 --seed 3 -o %t.graph.npz 2>&1 | FileCheck %s --check-prefix=GRAPH
// RUN: recom interp %t.pbtxt --feeds %t.graph.npz --tables %t.tables.npz --outputs prediction -o %t.graph.ref.npz
// RUN: recom interp %t.out/1-emb.mlir --feeds %t.graph.npz --tables %t.tables.npz --outputs prediction -o %t.graph.emb.npz
// RUN: recom compare %t.graph.ref.npz %t.graph.emb.npz | FileCheck %s --check-prefix=SAME
//
// TF1's ParseExample.
// RUN: recom gen --preset micro --tf-example=v1 -o %t.v1.pbtxt 2>&1 | FileCheck %s --check-prefix=GEN1
// RUN: recom gen --feeds %t.v1.pbtxt --batch 8 -o %t.v1.feeds.npz
// RUN: recom interp %t.v1.pbtxt --feeds %t.v1.feeds.npz --tables %t.v1.tables.npz -o %t.v1.ref.npz
// RUN: recom compile %t.v1.pbtxt -o %t.v1.out | FileCheck %s --check-prefix=COMPILE1
// RUN: recom interp %t.v1.out/3-gpu.mlir --feeds %t.v1.feeds.npz --tables %t.v1.tables.npz --outputs input_layer/concat -o %t.v1.gpu.npz
// RUN: recom compare %t.v1.ref.npz %t.v1.gpu.npz | FileCheck %s --check-prefix=SAME
//
// Flag errors.
// RUN: not recom gen --preset small --tf-example=v3 -o %t.bad.pbtxt 2>&1 | FileCheck %s --check-prefix=BADV
// RUN: not recom gen --feeds --tf-example %t.pbtxt -o %t.bad.npz 2>&1 | FileCheck %s --check-prefix=BADF

// GEN: recom gen: {{.*}}.pbtxt: 24 columns, {{[0-9]+}} nodes, output "prediction"
// GEN1: recom gen: {{.*}}.pbtxt: 100 columns, {{[0-9]+}} nodes, output "input_layer/concat"

// COMPILE:      columns: 24
// COMPILE:        fused                24 of 24 (into 1 embedding kernel
// COMPILE1:     columns: 100
// COMPILE1-NEXT:  bucketized          100
// COMPILE1:       fused               100 of 100

// PARSE: "tfg.ParseExampleV2"
// PARSE: emb.from_sparse
// PARSE: "fused.embedding_layer"
// PARSE-SAME: source = "str", {{[^}]*}}transforms = [{num_buckets = 200 : i64, op = "hash"}]

// GRAPH: input_example_tensor string[16]: serialized tf.Example records (20 sparse, 7 dense features), 2 weight features as long as their ids

// SAME: match: 1 arrays

// BADV: error: --tf-example=v3: want v2 (ParseExampleV2, a bare --tf-example) or v1 (ParseExample)
// BADF: error: --feeds takes no {{.*}}--tf-example
