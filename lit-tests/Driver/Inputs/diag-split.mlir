// The first chunk is fine.
func.func @one() {
  func.return
}

// -----

// The second chunk expects an error it gets.
func.func @two() -> i64 {
  // expected-error@+1 {{undeclared SSA value name '%x'}}
  func.return %x : i64
}

// -----

// The third chunk gets one it does not expect (line 18) and misses one (line 20).
func.func @three() -> i64 {
  func.return %y : i64
}
// expected-error@below {{never reported}}
func.func @four() {
  func.return
}
