
NoOp