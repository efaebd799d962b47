// Generic forms of unregistered ops: results, properties, attributes,
// regions with several blocks, block arguments and successors.
"builtin.module"() ({
  %a:3 = "test.source"() : () -> (i32, tensor<?x16xf32>, i64)
  %b = "test.use"(%a#0, %a#2) {z, a = 1 : i32, "m b" = "quoted key"} : (i32, i64) -> f32
  %c = "test.props"(%a#1) <{n = 2 : i64, kind = "p"}> {later = true} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  "test.noresult"() : () -> ()
  %f = "test.fnresult"() : () -> ((i32) -> i32)
  %r = "test.cfg"(%a#0) ({
  ^entry(%x: i32, %cond: i1):
    %y = "test.x"(%x) : (i32) -> i32
    "test.cond_br"(%cond, %y)[^left, ^right] : (i1, i32) -> ()
  ^left(%l: i32):
    %p:2 = "test.y"(%l) : (i32) -> (i32, f32)
    "test.br"(%p#0, %p#1)[^exit] : (i32, f32) -> ()
  ^right:
    "test.br"(%y, %y)[^left] : (i32, i32) -> ()
  ^exit(%e: i32, %ef: f32):
    "test.yield"(%e) : (i32) -> ()
  }, {
  ^bb0:
  }, {
  }) : (i32) -> i32
  "test.loop"() ({
  ^bb0:
    "test.br"()[^bb0] : () -> ()
  }) : () -> ()
}) : () -> ()
