// Custom forms of every gpu op: printing, printing what was printed (same
// text), and parsing the generic form back.
// RUN: recom-opt %s | FileCheck %s
// RUN: recom-opt %s | recom-opt | FileCheck %s
// RUN: recom-opt %s --mlir-print-op-generic | recom-opt | FileCheck %s
// RUN: recom-opt %s -o %t.1.mlir && recom-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: recom-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: gpu.module @emb {
// CHECK:         gpu.func @dev(%[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32 {
// CHECK-NEXT:      %[[M:.*]] = gpu.max %[[X]], %[[Y]] : f32
// CHECK-NEXT:      gpu.return %[[M]] : f32
// CHECK-NEXT:    }
// GENERIC:       "gpu.module"() ({
// GENERIC:       "gpu.func"() ({
// GENERIC:       "gpu.max"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// GENERIC:       "gpu.return"(%{{.*}}) : (f32) -> ()
// GENERIC:       }) {function_type = (f32, f32) -> f32, sym_name = "dev"} : () -> ()
gpu.module @emb {
  gpu.func @dev(%x: f32, %y: f32) -> f32 {
    %m = gpu.max %x, %y : f32
    gpu.return %m : f32
  }

// CHECK:         gpu.func @layer(%[[IN:.*]]: !gpu.ptr<i64, global>, %[[OUT:.*]]: !gpu.ptr<f32, global>, %[[N:.*]]: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 1 : i64} {
// CHECK-NEXT:      %{{.*}} = gpu.thread_id x
// CHECK-NEXT:      %{{.*}} = gpu.block_id y
// CHECK-NEXT:      %{{.*}} = gpu.block_dim z
// CHECK-NEXT:      %{{.*}} = gpu.grid_dim x
// CHECK-NEXT:      %{{.*}} = gpu.lane_id
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      gpu.warp_sync
// GENERIC:       "gpu.thread_id"() {dimension = "x"} : () -> i32
// GENERIC:       "gpu.lane_id"() : () -> i32
// GENERIC:       "gpu.barrier"() : () -> ()
// GENERIC:       "gpu.warp_sync"() : () -> ()
  gpu.func @layer(%in: !gpu.ptr<i64, global>, %out: !gpu.ptr<f32,global>, %n: i64) kernel attributes {max_threads = 256 : i64, min_blocks = 1 : i64} {
    %t = gpu.thread_id x
    %b = gpu.block_id y
    %d = gpu.block_dim z
    %g = gpu.grid_dim x
    %l = gpu.lane_id
    gpu.barrier
    gpu.warp_sync
    %o = arith.constant 16 : i32
    %w = arith.constant 32 : i32
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %f0 = arith.constant 0.0 : f32
// CHECK:           %[[V:.*]] = gpu.load %[[OUT]][%[[C0:.*]]] : !gpu.ptr<f32, global> -> f32
// CHECK-NEXT:      %{{.*}} = gpu.shuffle xor %[[V]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[V4:.*]]:4 = gpu.load %[[OUT]][%[[C0]]] {readonly, width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
// CHECK-NEXT:      gpu.store %[[V4]]#0, %[[OUT]][%[[C0]]] : f32, !gpu.ptr<f32, global>
// CHECK-NEXT:      gpu.store %[[V4]]#0, %[[V4]]#1, %[[V4]]#2, %[[V4]]#3, %[[OUT]][%[[C0]]] {nontemporal, width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
// CHECK-NEXT:      %[[P2:.*]] = gpu.ptr_offset %[[OUT]], %{{.*}} : !gpu.ptr<f32, global>
// CHECK-NEXT:      %{{.*}} = gpu.ptr_cast %[[IN]] : !gpu.ptr<i64, global> to !gpu.ptr<i8, global>
// CHECK-NEXT:      %{{.*}} = gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f32, shared>
// CHECK-NEXT:      %{{.*}} = gpu.atomic_add %[[P2]][%[[C0]]], %[[V]] : !gpu.ptr<f32, global>, f32
// GENERIC:       "gpu.shuffle"(%{{.*}}, %{{.*}}, %{{.*}}) {mode = "xor"} : (f32, i32, i32) -> f32
// GENERIC:       "gpu.load"(%{{.*}}, %{{.*}}) {readonly, width = 4 : i64} : (!gpu.ptr<f32, global>, i64) -> (f32, f32, f32, f32)
// GENERIC:       "gpu.store"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, !gpu.ptr<f32, global>, i64) -> ()
// GENERIC:       "gpu.shared_alloc"() {count = 1024 : i64} : () -> !gpu.ptr<f32, shared>
// GENERIC:       "gpu.atomic_add"(%{{.*}}, %{{.*}}, %{{.*}}) : (!gpu.ptr<f32, global>, i64, f32) -> f32
    %v = gpu.load %out[%c0] : !gpu.ptr<f32, global> -> f32
    %r = gpu.shuffle xor %v, %o, %w : f32
    %a, %bb, %cc, %dd = gpu.load %out[%c0] {width = 4, readonly} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
    gpu.store %a, %out[%c0] : f32, !gpu.ptr<f32, global>
    gpu.store %a, %bb, %cc, %dd, %out[%c0] {width = 4, nontemporal} : f32, f32, f32, f32, !gpu.ptr<f32, global>
    %p2 = gpu.ptr_offset %out, %c1 : !gpu.ptr<f32, global>
    %q = gpu.ptr_cast %in : !gpu.ptr<i64, global> to !gpu.ptr<i8, global>
    %s = gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f32, shared>
    %old = gpu.atomic_add %p2[%c0], %v : !gpu.ptr<f32, global>, f32
    %y1 = gpu.shuffle down %v, %o, %w : f32
    %y2 = gpu.shuffle up %v, %o, %w : f32
    %y3 = gpu.shuffle idx %v, %o, %w : f32
// CHECK:           %{{.*}}:2 = gpu.for %[[I:.*]] = %[[C0]] to %[[N]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %[[V]]) -> (f32, f32) {
// CHECK-NEXT:        %[[Z:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:        gpu.yield %[[Z]], %[[A]] : f32, f32
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.for %{{.*}} = %[[C0]] to %[[N]] step %{{.*}} {
// CHECK-NEXT:        gpu.yield
// CHECK-NEXT:      }
// CHECK:           gpu.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// GENERIC:       "gpu.for"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC-NEXT:  ^bb0(%{{.*}}: i64, %{{.*}}: f32, %{{.*}}: f32):
// GENERIC:       "gpu.yield"(%{{.*}}, %{{.*}}) : (f32, f32) -> ()
// GENERIC-NEXT:  }) : (i64, i64, i64, f32, f32) -> (f32, f32)
    %res:2 = gpu.for %i = %c0 to %n step %c1 iter_args(%x = %f0, %y = %v) -> (f32, f32) {
      %z = arith.addf %x, %y : f32
      gpu.yield %z, %x : f32, f32
    }
    gpu.for %i = %c0 to %n step %c1 {
      gpu.yield
    }
    %z0 = arith.constant 0 : i32
    gpu.for %j = %z0 to %o step %w : i32 {
      gpu.yield
    }
// CHECK:           %[[C:.*]] = arith.cmpi slt
// CHECK-NEXT:      %{{.*}} = gpu.if %[[C]] -> (f32) {
// CHECK-NEXT:        gpu.yield %[[V]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        gpu.yield %{{.*}} : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.if %[[C]] {
// CHECK-NEXT:        gpu.yield
// CHECK-NEXT:      }
// GENERIC:       "gpu.if"(%{{.*}}) ({
// GENERIC:       }, {
// GENERIC:       }) : (i1) -> f32
// GENERIC:       "gpu.if"(%{{.*}}) ({
// GENERIC:       }, {
// GENERIC-NEXT:  }) : (i1) -> ()
    %cond = arith.cmpi slt, %c0, %n : i64
    %sel = gpu.if %cond -> (f32) {
      gpu.yield %v : f32
    } else {
      gpu.yield %f0 : f32
    }
    gpu.if %cond {
      gpu.yield
    }
// CHECK:           %[[SQ:.*]] = gpu.sqrt %[[V]] : f32
// CHECK-NEXT:      %[[RS:.*]] = gpu.rsqrt %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = gpu.fabs %[[V]] : f32
// CHECK-NEXT:      %{{.*}} = gpu.min %[[V]], %[[SQ]] : f32
// CHECK-NEXT:      %[[FM:.*]] = gpu.fma %[[V]], %[[SQ]], %[[RS]] : f32
// CHECK-NEXT:      %{{.*}} = gpu.call @dev(%[[V]], %[[FM]]) : (f32, f32) -> f32
// CHECK-NEXT:      gpu.return
// GENERIC:       "gpu.fma"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// GENERIC:       "gpu.call"(%{{.*}}, %{{.*}}) {callee = @dev} : (f32, f32) -> f32
// GENERIC:       }) {function_type = (!gpu.ptr<i64, global>, !gpu.ptr<f32, global>, i64) -> (), kernel, max_threads = 256 : i64, min_blocks = 1 : i64, sym_name = "layer"} : () -> ()
    %sq = gpu.sqrt %v : f32
    %rs = gpu.rsqrt %v : f32
    %fa = gpu.fabs %v : f32
    %mn = gpu.min %v, %sq : f32
    %fm = gpu.fma %v, %sq, %rs : f32
    %cl = gpu.call @dev(%v, %fm) : (f32, f32) -> f32
    gpu.return
  }
// CHECK:         gpu.func @empty() kernel {
// CHECK-NEXT:      gpu.return
// CHECK-NEXT:    }
// CHECK:       gpu.module @emb2 {
// CHECK-NEXT:  }
  gpu.func @empty() kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%[[INS:.*]]: !gpu.buffer, %[[OB:.*]]: !gpu.buffer, %[[BATCH:.*]]: i64)
// CHECK:         %[[VIEW:.*]] = gpu.buffer_view %[[INS]][%[[C8:.*]]] : !gpu.buffer -> !gpu.buffer
// CHECK-NEXT:    %{{.*}} = gpu.alloc %[[C8]] : !gpu.buffer
// CHECK-NEXT:    gpu.launch @emb::@layer blocks(%{{.*}}) threads(%{{.*}}) args(%[[VIEW]], %[[OB]], %[[BATCH]]) : !gpu.buffer, !gpu.buffer, i64
// CHECK-NEXT:    gpu.launch @emb::@empty blocks(%{{.*}}) threads(%{{.*}}){{$}}
// GENERIC:       "gpu.buffer_view"(%{{.*}}, %{{.*}}) : (!gpu.buffer, i64) -> !gpu.buffer
// GENERIC:       "gpu.alloc"(%{{.*}}) : (i64) -> !gpu.buffer
// GENERIC:       "gpu.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {kernel = @emb::@layer} : (i64, i64, !gpu.buffer, !gpu.buffer, i64) -> ()
gpu.module @emb2 {
}
func.func @host(%inputs: !gpu.buffer, %out: !gpu.buffer, %batch: i64) {
  %grid = arith.constant 264 : i64
  %block = arith.constant 256 : i64
  %c8 = arith.constant 8 : i64
  %v = gpu.buffer_view %inputs [%c8] : !gpu.buffer -> !gpu.buffer
  %a = gpu.alloc %c8 : !gpu.buffer
  gpu.launch @emb::@layer blocks(%grid) threads(%block) args(%v, %out, %batch) : !gpu.buffer, !gpu.buffer, i64
  gpu.launch @emb::@empty blocks(%grid) threads(%block)
  func.return
}
