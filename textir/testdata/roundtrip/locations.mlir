// Locations of every kind, including aliases (printed inline).
#fused = loc(fused<"CSE">[unknown, "y"])
module {
  %0 = "test.a"() : () -> i32 loc("node/a")
  "test.b"(%0) : (i32) -> () loc("n"("f.py":3:4))
  "test.d"() : () -> () loc(fused["x", "g.mlir":10:2])
  "test.e"() : () -> () loc(#fused)
  "test.f"() : () -> () loc(unknown)
  "test.g"() : () -> () loc("dir/quote\"d \C3\A9.mlir":7:0)
  pt.func @f(%a: i32 loc("f.mlir":2:9)) {
    pt.return loc("f.mlir":6:3)
  } loc("fn")
} loc("model.mlir":1:1)
