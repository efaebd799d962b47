// Custom forms (the test dialect "pt" of printer_test.go), name hints,
// isolated-from-above numbering and nested modules.
module attributes {test.flag} {
  pt.func @add(%x: i32, %y: i32) -> i32 attributes {pt.inline} {
    %three = pt.const 3 : i32
    %s = pt.add %x, %y : i32
    %t = pt.add %s, %three {overflow = "nsw"} : i32
    pt.return %t : i32
  }
  pt.func @"with space"() {
    %h = pt.const 5.000000e-01 : f32
    %n:2, %ctl = "pt.node"(%h) : (f32) -> (i32, i32, !tfg.control)
    %o:2, %oc, %c2 = pt.named %n#1, %ctl {names = "out,,ctl,ctl"} : (i32, !tfg.control) -> (f32, f32, !tfg.control, !tfg.control)
    pt.return
  }
  pt.func @branches(%c: i1, %v: i32) -> i32 {
    pt.cond_br %c, ^a, ^b
  ^a:
    pt.br ^b(%v : i32)
  ^b(%m: i32):
    pt.return %m : i32
  }
  module @inner {
    module {
      %leaf = "test.leaf"() : () -> i32
    }
  }
  pt.wrap attributes {tag = "w"} {
  ^bb0(%w: f32):
    "test.use"(%w) : (f32) -> ()
  }
  "test.outer"() ({
  ^bb0(%arg: i32):
    %in = "test.x"(%arg) : (i32) -> i32
    "test.inner"() ({
    ^bb0(%q: i64):
      %deep = "test.y"(%q, %in) : (i64, i32) -> i32
    }) : () -> ()
  }) : () -> ()
}
