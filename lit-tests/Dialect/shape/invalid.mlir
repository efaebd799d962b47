// The verifiers of the shape ops reject invalid IR with a diagnostic on the op;
// the custom forms report syntax errors in expression maps where they are.
// RUN: recom-opt %s --split-input-file --verify-diagnostics

func.func @dim_range(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'shape.dim' op dimension index 2 is out of range for a tensor of rank 2}}
  %0 = shape.dim %x, 2 : tensor<?x1xi64> -> index
  func.return
}

// -----

func.func @dim_negative(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'shape.dim' op dimension index -1 is negative}}
  %0 = shape.dim %x, -1 : tensor<?x1xi64> -> index
  func.return
}

// -----

func.func @dim_not_tensor(%b: index) {
  // expected-error@+1 {{'shape.dim' op operand #0 must be tensor, but got 'index'}}
  %0 = "shape.dim"(%b) {index = 0 : i64} : (index) -> index
  func.return
}

// -----

func.func @dim_no_index(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'shape.dim' op requires attribute 'index'}}
  %0 = "shape.dim"(%x) : (tensor<?x1xi64>) -> index
  func.return
}

// -----

func.func @dim_empty_symbol(%x: tensor<?x1xi64>) {
  // expected-error@+1 {{'shape.dim' op attribute 'symbol' must not be empty}}
  %0 = shape.dim %x, 0 {symbol = ""} : tensor<?x1xi64> -> index
  func.return
}

// -----

func.func @count_keyword_symbol(%x: tensor<?xi64>) {
  // expected-error@+1 {{'shape.count' op attribute 'symbol': symbol name "floordiv" is a keyword}}
  %0 = shape.count %x {symbol = "floordiv"} : tensor<?xi64> -> index
  func.return
}

// -----

func.func @count_reserved_symbol(%x: tensor<?xi64>) {
  // expected-error@+1 {{'shape.count' op attribute 'symbol': symbol name "s0" is reserved for unnamed symbols}}
  %0 = shape.count %x {symbol = "s0"} : tensor<?xi64> -> index
  func.return
}

// -----

func.func @count_result(%x: tensor<?xi64>) {
  // expected-error@+1 {{'shape.count' op result #0 must be index, but got 'i64'}}
  %0 = "shape.count"(%x) : (tensor<?xi64>) -> i64
  func.return
}

// -----

func.func @apply_no_map(%b: index) {
  // expected-error@+1 {{'shape.apply' op requires attribute 'map'}}
  %0 = "shape.apply"(%b) : (index) -> index
  func.return
}

// -----

func.func @apply_map_kind(%b: index) {
  // expected-error@+1 {{'shape.apply' op expected an #shape.expr<...> attribute}}
  %0 = "shape.apply"(%b) {map = "(a) -> a"} : (index) -> index
  func.return
}

// -----

func.func @apply_params(%b: index) {
  // expected-error@+1 {{'shape.apply' op expression map has 2 parameters, but the op has 1 index operands}}
  %0 = "shape.apply"(%b) {map = #shape.expr<(a, c) -> a + c>} : (index) -> index
  func.return
}

// -----

func.func @apply_results(%b: index) {
  // expected-error@+1 {{'shape.apply' op expression map must have 1 result(s), but has 2}}
  %0 = "shape.apply"(%b) {map = #shape.expr<(a) -> (a, a)>} : (index) -> index
  func.return
}

// -----

func.func @apply_div_zero(%b: index) {
  // expected-error@+1 {{'shape.apply' op invalid expression map at column 10 of '(a) -> a floordiv 0': division by zero in floordiv}}
  %0 = "shape.apply"(%b) {map = #shape.expr<(a) -> a floordiv 0>} : (index) -> index
  func.return
}

// -----

func.func @apply_operand_type(%x: tensor<?xi64>) {
  // expected-error@+1 {{'shape.apply' op operand #0 must be index, but got 'tensor<?xi64>'}}
  %0 = "shape.apply"(%x) {map = #shape.expr<(a) -> a>} : (tensor<?xi64>) -> index
  func.return
}

// -----

func.func @from_extents_count(%b: index) {
  // expected-error@+1 {{'shape.from_extents' op result type tensor<3xi64> must have 1 elements, one per operand}}
  %0 = shape.from_extents %b : tensor<3xi64>
  func.return
}

// -----

func.func @from_extents_elem(%b: index) {
  // expected-error@+1 {{'shape.from_extents' op result #0 must be 1-D tensor of 32- or 64-bit signless integers, but got 'tensor<1xi8>'}}
  %0 = shape.from_extents %b : tensor<1xi8>
  func.return
}

// -----

func.func @index_cast_both_index(%b: index) {
  // expected-error@+1 {{'shape.index_cast' op operand type 'index' and result type 'index' are cast incompatible: exactly one must be index}}
  %0 = "shape.index_cast"(%b) : (index) -> index
  func.return
}

// -----

func.func @index_cast_vector(%b: index) {
  // expected-error@+1 {{'shape.index_cast' op result #0 must be index or 0-D tensor of 32- or 64-bit signless integers, but got 'tensor<1xi64>'}}
  %0 = shape.index_cast %b : index to tensor<1xi64>
  func.return
}

// -----

func.func @assert_rank(%y: tensor<?x8xf32>, %b: index) {
  // expected-error@+1 {{'shape.assert_shape' op expression map must have 2 result(s), but has 1}}
  shape.assert_shape %y, #shape.expr<(b) -> b>(%b) : tensor<?x8xf32>
  func.return
}

// -----

func.func @assert_static(%y: tensor<?x8xf32>, %b: index) {
  // expected-error@+1 {{'shape.assert_shape' op asserted dim 1 is 4, but the tensor type tensor<?x8xf32> has 8}}
  shape.assert_shape %y, #shape.expr<(b) -> (b, 4)>(%b) : tensor<?x8xf32>
  func.return
}

// -----

func.func @assert_negative(%y: tensor<?x8xf32>) {
  // expected-error@+1 {{'shape.assert_shape' op asserted dim 0 is -2, a negative size}}
  shape.assert_shape %y, #shape.expr<() -> (-2, 8)>() : tensor<?x8xf32>
  func.return
}

// -----

func.func @map_syntax(%b: index) -> index {
  // expected-error@+1 {{invalid expression map at column 11 of '(a) -> a +': expected an expression, found end of expression}}
  %0 = shape.apply #shape.expr<(a) -> a +>(%b) : index
  func.return %0 : index
}

// -----

func.func @map_unknown(%b: index) -> index {
  // expected-error@+1 {{invalid expression map at column 9 of '"(a) -> b"': unknown symbol 'b'}}
  %0 = shape.apply #shape.expr<"(a) -> b">(%b) : index
  func.return %0 : index
}

// -----

func.func @apply_type(%b: index) -> index {
  // expected-error@+1 {{expected 'index', found 'i32'}}
  %0 = shape.apply #shape.expr<(a) -> a>(%b) : i32
  func.return %0 : index
}

// -----

func.func @dim_arrow(%x: tensor<?xi64>) -> index {
  // expected-error@+1 {{expected '-> index'}}
  %0 = shape.dim %x, 0 : tensor<?xi64> -> i64
  func.return %0 : index
}
