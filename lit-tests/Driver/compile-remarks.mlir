// The summary of recom compile says why each column is not fused and why
// the ids of a fused column are computed before the layer: the remarks of
// --fuse, printed under the columns (and on stderr as remarks).
// RUN: rm -rf %t && mkdir -p %t
//
// One column: input_layer's "concat" of one tensor is an Identity, whose
// only concatenation is the DLRM part's, with the bottom MLP.
// RUN: recom gen --spec %S/Inputs/remarks-one-column.json -o %t/one.pbtxt 2>/dev/null
// RUN: recom compile %t/one.pbtxt -o %t/one --stop-after=fuse 2>%t/one.err | FileCheck %s --check-prefix=ONE
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t/one/summary.txt
// RUN: FileCheck %s --check-prefix=ONE-ERR --input-file=%t/one.err
//
// A vocabulary with default_value = -1 (its missing words pruned in the
// kernel), an identity column (its raw ids checked against the table on the
// host), a hashed column.
// RUN: recom gen --spec %S/Inputs/remarks-host-ids.json -o %t/ids.pbtxt 2>/dev/null
// RUN: recom compile %t/ids.pbtxt -o %t/ids --stop-after=fuse 2>/dev/null | FileCheck %s --check-prefix=IDS
// RUN: recom compile %t/ids.pbtxt -o %t/ids --stop-after=fuse --fuse='ids-in-kernel=false' 2>/dev/null | FileCheck %s --check-prefix=OFF

// ONE:      columns: 1
// ONE:        fused                 0 of 1
// ONE-NEXT:   not fused: input_layer/str_0000_embedding/str_0000_embedding_weights: it is input #0 of 'tfg.ConcatV2' (node "concat"), which is not fused: input #1 is not a pooled embedding lookup
// ONE:      note: fuse made 0 embedding kernels and left 1 of the 1 embedding columns out of them (the columns above and the remarks say why)
// ONE-ERR:  remark: 'emb.gather_scatter' op (node "input_layer/str_0000_embedding/str_0000_embedding_weights") not fused: it is input #0 of 'tfg.ConcatV2' (node "concat")

// IDS:      columns: 3
// IDS:        fused                 3 of 3 (into 1 embedding kernel)
// IDS-NEXT:   ids in kernel         2 of 3 (1 computed before the layer)
// IDS-NEXT:   ids before the layer: input_layer/id_0001_embedding/id_0001_embedding_weights: its ids are filtered by 'emb.filter' (node "input_layer/id_0001_embedding/id_0001_embedding_weights/Where"): its ids are not proven inside the table's 50 rows
// IDS-NOT:  ids before the layer
// IDS-NOT:  note: fuse made
// IDS:      host-id-chains                              1
// IDS:      id-chains                                   2

// OFF:        ids in kernel         0 of 3 (3 computed before the layer)
// OFF-NEXT:   ids before the layer: input_layer/id_0001_embedding/id_0001_embedding_weights: its ids are filtered by {{.*}} (ids-in-kernel=false)
// OFF-NEXT:   ids before the layer: input_layer/str_0002_embedding/str_0002_embedding_weights: its ids are computed by 'emb.hash' {{.*}} (ids-in-kernel=false)
// OFF-NEXT:   ids before the layer: input_layer/voc_0000_embedding/voc_0000_embedding_weights: its ids are computed by 'emb.vocab_lookup' {{.*}} (ids-in-kernel=false)
