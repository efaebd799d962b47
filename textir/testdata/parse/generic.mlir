// Generic forms: results, operands, successors, properties, regions, attributes, locations.
!t = tensor<2x?xf32>
#attrs = {k = [1, 2.5, "s", @sym::@nested, unit, true]}
"builtin.module"() ({
  %c:2 = "a.const"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, x = #attrs} : () -> (!t, i32) loc(#loc1)
  "a.graph"() ({
    "a.use"(%later, %c#1) : (i64, i32) -> ()
    %later = "a.def"() <{p = 0x1F : i32}> : () -> i64
  }) : () -> ()
  "a.cfg"(%c#0) ({
  ^bb0(%arg0: !t loc("arg"), %arg1: i1):
    "a.cond_br"(%arg1)[^bb1, ^bb2(%arg0 : !t)] : (i1) -> ()
  ^bb1:
    "a.ret"() : () -> ()
  ^bb2(%x: !t):
    "a.ret"(%x) : (!t) -> ()
  }) : (!t) -> ()
}) {sym_name = "m"} : () -> () loc(fused<"meta">["gen.mlir":1:1, "name"("f":2:3)])
#loc1 = loc("const"(unknown))
