func.func @fine() {
  // expected-error@+1 {{this is never reported}}
  func.return
}
