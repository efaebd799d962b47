// RUN: recom-opt %s --lower-emb | FileCheck %s
// RUN: recom-opt %s --lower-emb | FileCheck %s --check-prefix=GONE

// embedding_lookup on partitioned variables (recom gen --lookups, TF 1.15):
// emb_0 in 3 shards looked up by partition_strategy "mod" (FloorMod and
// FloorDiv of the ids), emb_1 (resource variables) in 2 shards by "div"
// (the Maximum/Select arithmetic over 11 rows), each a DynamicPartition
// of the ids, a gather per shard and ParallelDynamicStitch. Each becomes
// one emb.table of the whole table, read from its shards.

// CHECK: %[[T0:.*]] = emb.table {name = "emb_0", partition_strategy = "mod", partitions = ["emb_0/part_0", "emb_0/part_1", "emb_0/part_2"]} : tensor<10x4xf32>
// CHECK: emb.gather %[[T0]]
// CHECK: %[[T1:.*]] = emb.table {name = "emb_1", partition_strategy = "div", partitions = ["emb_1/part_0", "emb_1/part_1"]} : tensor<11x4xf32>
// CHECK: emb.lookup %[[T1]], %{{.*}}, %{{.*}} {combiner = "sum"} : tensor<11x4xf32>, tensor<?xi64> -> tensor<?x4xf32>

// GONE-NOT: tfg.DynamicPartition
// GONE-NOT: tfg.ParallelDynamicStitch
// GONE-NOT: tfg.FloorMod
// GONE-NOT: tfg.Maximum
// GONE-NOT: tfg.Sum

module {
  "tfg.graph"() ({
    %0:2 = "tfg.VariableV2"() {_mlir_name = "emb_0/part_0", container = "", dtype = f32, shape = #tfg.shape<4x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %1:2 = "tfg.Identity"(%0#0) {T = f32, _mlir_name = "emb_0/part_0/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %2:2 = "tfg.VariableV2"() {_mlir_name = "emb_0/part_1", container = "", dtype = f32, shape = #tfg.shape<3x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %3:2 = "tfg.Identity"(%2#0) {T = f32, _mlir_name = "emb_0/part_1/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %4:2 = "tfg.VariableV2"() {_mlir_name = "emb_0/part_2", container = "", dtype = f32, shape = #tfg.shape<3x4>, shared_name = ""} : () -> (tensor<*x!tfg.ref<f32>>, !tfg.control)
    %5:2 = "tfg.Identity"(%4#0) {T = f32, _mlir_name = "emb_0/part_2/read"} : (tensor<*x!tfg.ref<f32>>) -> (tensor<*xf32>, !tfg.control)
    %6:2 = "tfg.Placeholder"() {_mlir_name = "ids_0", dtype = i64, shape = #tfg.shape<?>} : () -> (tensor<*xi64>, !tfg.control)
    %7:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/Reshape/shape", dtype = i32, value = dense<[-1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %8:2 = "tfg.Reshape"(%6#0, %7#0) {T = i64, Tshape = i32, _mlir_name = "embedding_lookup/Reshape"} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %9:2 = "tfg.Size"(%8#0) {T = i64, _mlir_name = "embedding_lookup/Size", out_type = i32} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %10:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/range/start", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %11:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/range/delta", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %12:2 = "tfg.Range"(%10#0, %9#0, %11#0) {Tidx = i32, _mlir_name = "embedding_lookup/range"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %13:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/mod/y", dtype = i64, value = dense<3> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %14:2 = "tfg.FloorMod"(%8#0, %13#0) {T = i64, _mlir_name = "embedding_lookup/mod"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %15:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/floordiv/y", dtype = i64, value = dense<3> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %16:2 = "tfg.FloorDiv"(%8#0, %15#0) {T = i64, _mlir_name = "embedding_lookup/floordiv"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %17:2 = "tfg.Cast"(%14#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "embedding_lookup/Cast"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %18:4 = "tfg.DynamicPartition"(%16#0, %17#0) {T = i64, _mlir_name = "embedding_lookup/DynamicPartition", num_partitions = 3 : i64} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, tensor<*xi64>, tensor<*xi64>, !tfg.control)
    %19:4 = "tfg.DynamicPartition"(%12#0, %17#0) {T = i32, _mlir_name = "embedding_lookup/DynamicPartition_1", num_partitions = 3 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, !tfg.control)
    %20:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %21:2 = "tfg.GatherV2"(%1#0, %18#0, %20#0) {Taxis = i32, Tindices = i64, Tparams = f32, _class = ["loc:@emb_0/part_0"], _mlir_name = "embedding_lookup/GatherV2", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %22:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2_1/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %23:2 = "tfg.GatherV2"(%3#0, %18#1, %22#0) {Taxis = i32, Tindices = i64, Tparams = f32, _class = ["loc:@emb_0/part_1"], _mlir_name = "embedding_lookup/GatherV2_1", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %24:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/GatherV2_2/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %25:2 = "tfg.GatherV2"(%5#0, %18#2, %24#0) {Taxis = i32, Tindices = i64, Tparams = f32, _class = ["loc:@emb_0/part_2"], _mlir_name = "embedding_lookup/GatherV2_2", batch_dims = 0 : i64} : (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %26:2 = "tfg.ParallelDynamicStitch"(%19#0, %19#1, %19#2, %21#0, %23#0, %25#0) {N = 3 : i64, T = f32, _mlir_name = "embedding_lookup"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %27:2 = "tfg.Shape"(%6#0) {T = i64, _mlir_name = "embedding_lookup/Shape", out_type = i32} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %28:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/concat/values_1", dtype = i32, value = dense<[4]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %29:2 = "tfg.Const"() {_mlir_name = "embedding_lookup/concat/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %30:2 = "tfg.ConcatV2"(%27#0, %28#0, %29#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "embedding_lookup/concat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %31:2 = "tfg.Reshape"(%26#0, %30#0) {T = f32, Tshape = i32, _mlir_name = "embedding_lookup/Reshape_1"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %32:2 = "tfg.VarHandleOp"() {_mlir_name = "emb_1/part_0", allowed_devices = [], container = "", dtype = f32, shape = #tfg.shape<6x4>, shared_name = "emb_1/part_0"} : () -> (tensor<*x!tfg.resource>, !tfg.control)
    %33:2 = "tfg.VarHandleOp"() {_mlir_name = "emb_1/part_1", allowed_devices = [], container = "", dtype = f32, shape = #tfg.shape<5x4>, shared_name = "emb_1/part_1"} : () -> (tensor<*x!tfg.resource>, !tfg.control)
    %34:2 = "tfg.Placeholder"() {_mlir_name = "ids_1", dtype = i64, shape = #tfg.shape<?x2>} : () -> (tensor<*xi64>, !tfg.control)
    %35:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/Reshape/shape", dtype = i32, value = dense<[-1]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %36:2 = "tfg.Reshape"(%34#0, %35#0) {T = i64, Tshape = i32, _mlir_name = "embedding_lookup_1/Reshape"} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, !tfg.control)
    %37:2 = "tfg.Size"(%36#0) {T = i64, _mlir_name = "embedding_lookup_1/Size", out_type = i32} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %38:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/range/start", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %39:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/range/delta", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %40:2 = "tfg.Range"(%38#0, %37#0, %39#0) {Tidx = i32, _mlir_name = "embedding_lookup_1/range"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %41:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/Const", dtype = i64, value = dense<11> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %42:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/floordiv/y", dtype = i64, value = dense<2> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %43:2 = "tfg.FloorDiv"(%41#0, %42#0) {T = i64, _mlir_name = "embedding_lookup_1/floordiv"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %44:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/mod/y", dtype = i64, value = dense<2> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %45:2 = "tfg.FloorMod"(%41#0, %44#0) {T = i64, _mlir_name = "embedding_lookup_1/mod"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %46:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/add/y", dtype = i64, value = dense<1> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %47:2 = "tfg.Add"(%43#0, %46#0) {T = i64, _mlir_name = "embedding_lookup_1/add"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %48:2 = "tfg.FloorDiv"(%36#0, %47#0) {T = i64, _mlir_name = "embedding_lookup_1/floordiv_1"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %49:2 = "tfg.Sub"(%36#0, %45#0) {T = i64, _mlir_name = "embedding_lookup_1/sub"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %50:2 = "tfg.FloorDiv"(%49#0, %43#0) {T = i64, _mlir_name = "embedding_lookup_1/floordiv_2"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %51:2 = "tfg.Maximum"(%48#0, %50#0) {T = i64, _mlir_name = "embedding_lookup_1/Maximum"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %52:2 = "tfg.Less"(%51#0, %45#0) {T = i64, _mlir_name = "embedding_lookup_1/Less"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi1>, !tfg.control)
    %53:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/add_1/y", dtype = i64, value = dense<1> : tensor<i64>} : () -> (tensor<*xi64>, !tfg.control)
    %54:2 = "tfg.Add"(%43#0, %53#0) {T = i64, _mlir_name = "embedding_lookup_1/add_1"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %55:2 = "tfg.FloorMod"(%36#0, %54#0) {T = i64, _mlir_name = "embedding_lookup_1/mod_1"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %56:2 = "tfg.Sub"(%36#0, %45#0) {T = i64, _mlir_name = "embedding_lookup_1/sub_1"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %57:2 = "tfg.FloorMod"(%56#0, %43#0) {T = i64, _mlir_name = "embedding_lookup_1/mod_2"} : (tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %58:2 = "tfg.Select"(%52#0, %55#0, %57#0) {T = i64, _mlir_name = "embedding_lookup_1/Select"} : (tensor<*xi1>, tensor<*xi64>, tensor<*xi64>) -> (tensor<*xi64>, !tfg.control)
    %59:2 = "tfg.Cast"(%51#0) {DstT = i32, SrcT = i64, Truncate = false, _mlir_name = "embedding_lookup_1/Cast"} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %60:3 = "tfg.DynamicPartition"(%58#0, %59#0) {T = i64, _mlir_name = "embedding_lookup_1/DynamicPartition", num_partitions = 2 : i64} : (tensor<*xi64>, tensor<*xi32>) -> (tensor<*xi64>, tensor<*xi64>, !tfg.control)
    %61:3 = "tfg.DynamicPartition"(%40#0, %59#0) {T = i32, _mlir_name = "embedding_lookup_1/DynamicPartition_1", num_partitions = 2 : i64} : (tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, tensor<*xi32>, !tfg.control)
    %62:2 = "tfg.ResourceGather"(%32#0, %60#0) {Tindices = i64, _class = ["loc:@emb_1/part_0"], _mlir_name = "embedding_lookup_1/Gather", batch_dims = 0 : i64, dtype = f32, validate_indices = true} : (tensor<*x!tfg.resource>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %63:2 = "tfg.ResourceGather"(%33#0, %60#1) {Tindices = i64, _class = ["loc:@emb_1/part_1"], _mlir_name = "embedding_lookup_1/Gather_1", batch_dims = 0 : i64, dtype = f32, validate_indices = true} : (tensor<*x!tfg.resource>, tensor<*xi64>) -> (tensor<*xf32>, !tfg.control)
    %64:2 = "tfg.ParallelDynamicStitch"(%61#0, %61#1, %62#0, %63#0) {N = 2 : i64, T = f32, _mlir_name = "embedding_lookup_1"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xf32>, tensor<*xf32>) -> (tensor<*xf32>, !tfg.control)
    %65:2 = "tfg.Shape"(%34#0) {T = i64, _mlir_name = "embedding_lookup_1/Shape", out_type = i32} : (tensor<*xi64>) -> (tensor<*xi32>, !tfg.control)
    %66:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/concat/values_1", dtype = i32, value = dense<[4]> : tensor<1xi32>} : () -> (tensor<*xi32>, !tfg.control)
    %67:2 = "tfg.Const"() {_mlir_name = "embedding_lookup_1/concat/axis", dtype = i32, value = dense<0> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %68:2 = "tfg.ConcatV2"(%65#0, %66#0, %67#0) {N = 2 : i64, T = i32, Tidx = i32, _mlir_name = "embedding_lookup_1/concat"} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> (tensor<*xi32>, !tfg.control)
    %69:2 = "tfg.Reshape"(%64#0, %68#0) {T = f32, Tshape = i32, _mlir_name = "embedding_lookup_1/Reshape_1"} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %70:2 = "tfg.Const"() {_mlir_name = "Sum/reduction_indices", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %71:2 = "tfg.Sum"(%69#0, %70#0) {T = f32, Tidx = i32, _mlir_name = "Sum", keep_dims = false} : (tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
    %72:2 = "tfg.Const"() {_mlir_name = "concat/axis", dtype = i32, value = dense<1> : tensor<i32>} : () -> (tensor<*xi32>, !tfg.control)
    %73:2 = "tfg.ConcatV2"(%31#0, %71#0, %72#0) {N = 2 : i64, T = f32, Tidx = i32, _mlir_name = "concat"} : (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> (tensor<*xf32>, !tfg.control)
  }) {versions = {min_consumer = 0 : i32, producer = 808 : i32}} : () -> ()
}
