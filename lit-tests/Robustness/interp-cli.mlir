// recom gen, interp and compare on bad inputs: a message that names the
// field, placeholder, variable or array; exit status 1; no output file (nor
// temporary file) left with -o. (The program text below is not used.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: not recom gen --spec %S/Inputs/spec-bad-buckets.json -o %t/bad.pbtxt 2>&1 | FileCheck %s --check-prefix=SPEC --implicit-check-not="internal error"
// SPEC: spec-bad-buckets.json: groups[0].buckets: must be positive for kind hashed_string (got -5)
// RUN: not recom gen --spec %S/Inputs/spec-bad-dim.json -o %t/dim.pbtxt 2>&1 | FileCheck %s --check-prefix=DIM --implicit-check-not="internal error"
// DIM: spec-bad-dim.json: groups[0].dim:
// RUN: not recom gen --spec %S/Inputs/spec-bad-combiner.json -o %t/comb.pbtxt 2>&1 | FileCheck %s --check-prefix=COMB --implicit-check-not="internal error"
// COMB: spec-bad-combiner.json: groups[0].combiner:
// RUN: not recom gen --spec %S/Inputs/spec-bad-kind.json -o %t/kind.pbtxt 2>&1 | FileCheck %s --check-prefix=KIND --implicit-check-not="internal error"
// KIND: spec-bad-kind.json:{{.*}}hashed_strin
// RUN: not recom gen --preset nosuch -o %t/nosuch.pbtxt 2>&1 | FileCheck %s --check-prefix=PRESET --implicit-check-not="internal error"
// PRESET: nosuch
// RUN: recom gen --preset micro --columns 2 -o %t/m.pbtxt 2>/dev/null
// RUN: recom gen --feeds --batch 2 %t/m.pbtxt -o %t/f2.npz
// RUN: recom gen --feeds --batch 3 %t/m.pbtxt -o %t/f3.npz
// RUN: not recom interp %t/m.pbtxt --tables %t/m.tables.npz --outputs input_layer/concat -o %t/nofeed.npz 2>&1 | FileCheck %s --check-prefix=NOFEED --implicit-check-not="internal error"
// NOFEED:      loc("num_0000"): error: 'tfg.Placeholder' op (node "num_0000") is not fed: no value was given for it
// NOFEED-NEXT: loc("num_0000"): note: --feeds gives the program's inputs: an .npz with an array per placeholder, named by its node (recom gen --feeds draws them for a model recom gen made)
// RUN: not recom interp %t/m.pbtxt --feeds %t/f2.npz --tables %t/f3.npz --outputs input_layer/concat -o %t/notable.npz 2>&1 | FileCheck %s --check-prefix=NOTABLE --implicit-check-not="internal error"
// NOTABLE: error: 'tfg.VariableV2' op (node "input_layer/{{.*}}/embedding_weights") no value for variable
// RUN: not recom interp %t/m.pbtxt --feeds %t/m.tables.npz --tables %t/m.tables.npz --outputs input_layer/concat -o %t/wrongfeed.npz 2>&1 | FileCheck %s --check-prefix=WRONGFEED --implicit-check-not="internal error"
// WRONGFEED:      loc("num_0000"): error: 'tfg.Placeholder' op (node "num_0000") is not fed: no value was given for it
// WRONGFEED-NEXT: loc("num_0000"): note: --feeds {{.*}}m.tables.npz has no array named "num_0000"
// The spec recom gen records (recom/spec) is not a second sink: the one
// output is found without --outputs.
// RUN: recom interp %t/m.pbtxt --feeds %t/f2.npz --tables %t/m.tables.npz -o %t/sinks.npz
// RUN: not recom interp %t/m.pbtxt --feeds %t/f2.npz --tables %t/m.tables.npz --outputs no/such -o %t/nosuchout.npz 2>&1 | FileCheck %s --check-prefix=NOOUT --implicit-check-not="internal error"
// NOOUT: no/such
// RUN: recom interp %t/m.pbtxt --feeds %t/f2.npz --tables %t/m.tables.npz --outputs input_layer/concat -o %t/o2.npz
// RUN: recom compare %t/sinks.npz %t/o2.npz
// RUN: recom interp %t/m.pbtxt --feeds %t/f3.npz --tables %t/m.tables.npz --outputs input_layer/concat -o %t/o3.npz
// RUN: not recom compare %t/o2.npz %t/o3.npz 2>&1 | FileCheck %s --check-prefix=CMP
// CMP: input_layer/concat: shape mismatch: got [2,16], want [3,16]
// CMP: 1 of 1 arrays differ
// RUN: not recom compare %t/f2.npz %t/o2.npz 2>&1 | FileCheck %s --check-prefix=CMPNAMES
// CMPNAMES: input_layer/concat
// RUN: ls -a %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: bad.pbtxt
// LEFT-NOT: dim.pbtxt
// LEFT-NOT: comb.pbtxt
// LEFT-NOT: kind.pbtxt
// LEFT-NOT: nosuch
// LEFT-NOT: nofeed
// LEFT-NOT: notable
// LEFT-NOT: wrongfeed
// LEFT-NOT: tmp
