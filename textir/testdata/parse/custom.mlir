// Custom forms of the parser tests' dialect (ptest).
ptest.func @add(%a: i32 {arg.attr = 1}, %b: i32 loc("b")) -> i32 attributes {sym_visibility = "private"} {
  %s = ptest.add %a, %b : i32
  ptest.br ^bb1(%s : i32)
^bb1(%r: i32):
  ptest.ret %r : i32
}
ptest.func @decl(i32, f32) -> (i32, f32)
"a.strings"() {d = dense<["a", "b\0A"]> : tensor<2x!tfg.string>, h = dense<"0xDEADBEEF"> : tensor<2xi16>, e = dense<> : tensor<0xf32>, nan = 0x7FC00000 : f32, o = #tfg.shape<2x?x"s>">, t = !tfg.res<"x">} : () -> ()
