// A graph region: uses before definitions, cycles through control values.
module {
  pt.graph {
    %a, %ctl = "pt.node"(%b, %ctl_b) : (i32, !tfg.control) -> (i32, !tfg.control)
    %b, %ctl_b = "pt.node"(%a) : (i32) -> (i32, !tfg.control)
    "test.sink"(%a, %b, %ctl, %ctl_b) : (i32, i32, !tfg.control, !tfg.control) -> ()
  }
}
