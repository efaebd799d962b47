// Package gpu is the GPU dialect: device modules, kernels, the thread
// hierarchy, memory with address spaces and vector widths, structured
// control flow, and the host-side program that launches kernels. --fuse
// lowers the emb/shape level to it; backend/nvptx emits it as NVPTX LLVM IR;
// the interpreter simulates it (blocks and threads, barriers and shuffles
// included) so that every lowering is checked without a GPU.
//
// # The contract (ops, forms, semantics)
//
// Integer and float arithmetic inside kernels uses the arith dialect
// (arith.addi, arith.muli, arith.cmpi, arith.select, arith.addf, ...); the
// gpu dialect adds what arith has no word for. Scalars are builtin integer
// and float types; addresses are element indices of type i64 into typed
// pointers.
//
// Types:
//
//	!gpu.ptr<f32, global>    a pointer to f32 in address space 1 (global)
//	!gpu.ptr<f32, shared>    address space 3 (shared memory of the block)
//	!gpu.ptr<i64, global>    any builtin scalar element type
//
// Module and kernels:
//
//	gpu.module @emb {                        // SymbolTable, IsolatedFromAbove, NoTerminator, one block
//	  gpu.func @layer(%in: !gpu.ptr<i64, global>, %out: !gpu.ptr<f32, global>, %n: i64)
//	      kernel attributes {max_threads = 256 : i64, min_blocks = 1 : i64} {
//	    ...
//	    gpu.return
//	  }
//	}
//
// gpu.func is a Symbol and IsolatedFromAbove; `kernel` marks an entry point
// (a unit attribute "kernel"); max_threads becomes the kernel's launch bound
// (maxntidx); a non-kernel gpu.func is a device function callable with
// gpu.call. Its body is an SSA region (several blocks allowed but the
// lowerings use structured control flow), ended by gpu.return.
//
// Thread hierarchy (all Pure, results i32; dim is x, y or z):
//
//	%t = gpu.thread_id x      // threadIdx.x        (llvm.nvvm.read.ptx.sreg.tid.x)
//	%b = gpu.block_id x       // blockIdx.x         (…ctaid.x)
//	%d = gpu.block_dim x      // blockDim.x         (…ntid.x)
//	%g = gpu.grid_dim x       // gridDim.x          (…nctaid.x)
//	%l = gpu.lane_id          // threadIdx.x % 32 for 1-D blocks (…laneid)
//
// Synchronisation and warp exchange:
//
//	gpu.barrier                                      // __syncthreads (llvm.nvvm.barrier0)
//	gpu.warp_sync                                    // __syncwarp: every lane of the warp, memory ordered (llvm.nvvm.bar.warp.sync)
//	%r = gpu.shuffle xor %v, %offset, %width : f32    // also down, up, idx; %offset, %width i32;
//	                                                 // every lane of the warp takes part (mask 0xffffffff)
//
// Memory (element index %i : i64; width 1, 2 or 4 — 4 × f32 is one 16-byte
// access and requires 16-byte alignment of element %i, i.e. %i % 4 == 0 for
// f32 on a 16-byte aligned base; results/operands are the width scalars):
//
//	%a = gpu.load %p[%i] : !gpu.ptr<f32, global> -> f32
//	%a, %b, %c, %d = gpu.load %p[%i] {width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
//	gpu.store %a, %p[%i] : f32, !gpu.ptr<f32, global>
//	gpu.store %a, %b, %c, %d, %p[%i] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
//	%p2 = gpu.ptr_offset %p, %i : !gpu.ptr<f32, global>      // &p[i]
//	%q = gpu.ptr_cast %p : !gpu.ptr<i8, global> to !gpu.ptr<i64, global>  // reinterpret (byte offsets stay the caller's business)
//	%s = gpu.shared_alloc {count = 1024 : i64} : !gpu.ptr<f32, shared>    // static shared memory of the block
//	%old = gpu.atomic_add %p[%i], %v : !gpu.ptr<f32, global>, f32
//
// Loads may carry `nontemporal` or `readonly` (→ ld.global.nc / __ldg) unit
// attributes. Out-of-bounds accesses are errors in the simulator (it knows
// every buffer's size), undefined on the GPU.
//
// Structured control flow (terminated by gpu.yield; results are the values
// yielded at the end of the last iteration / of the branch taken):
//
//	%r:2 = gpu.for %i = %lb to %ub step %st iter_args(%x = %x0, %y = %y0) -> (f32, f32) {
//	  ...
//	  gpu.yield %nx, %ny : f32, f32
//	}                                            // %lb, %ub, %st : i64 (or all i32), %st > 0
//	%v = gpu.if %c -> (f32) { gpu.yield %a : f32 } else { gpu.yield %b : f32 }
//	gpu.if %c { ... gpu.yield }                  // no results: else optional
//
// Math beyond arith (Pure): gpu.sqrt, gpu.rsqrt, gpu.fabs (f32/f64),
// gpu.min/gpu.max with IEEE fminf/fmaxf semantics, gpu.fma.
//
// Host side: a func.func that names the buffers and the launches, e.g.
//
//	func.func @host(%inputs: !gpu.buffer, %tables: !gpu.buffer, %out: !gpu.buffer, %batch: i64) {
//	  %grid = arith.constant 264 : i64
//	  %block = arith.constant 256 : i64
//	  gpu.launch @emb::@layer blocks(%grid) threads(%block) args(%inputs, %out, %batch) : !gpu.buffer, !gpu.buffer, i64
//	  func.return
//	}
//
// !gpu.buffer is a device allocation of bytes; passing it where a kernel
// takes !gpu.ptr<T, global> passes its base address. gpu.buffer_view %buf
// [%byte_offset] : !gpu.buffer -> !gpu.buffer names a slice (for one packed
// input buffer and one output arena); gpu.alloc %bytes : !gpu.buffer makes
// an arena whose size the shape expressions compute. The host program is
// what the runtime executes: one host-to-device copy of the packed inputs,
// the launches (one for the whole embedding layer), and one copy back.
//
// # Precisions of the contract (fixed by the implementation)
//
//   - Launches are 1-D: gpu.launch takes one grid size and one block size
//     (i64); thread_id/block_id y and z are 0, block_dim/grid_dim y and z 1.
//     Without arguments the form ends after threads(...): no args(), no
//     type list.
//   - A load or store moves at most 16 bytes: width × element size ≤ 16
//     (so i64/f64 allow width 1 or 2). The access must be aligned to its
//     size (width × element size). `readonly` needs a global pointer.
//     {width = N} prints without its i64 type.
//   - Pointer element types: i8, i16, i32, i64, f16, bf16, f32, f64; the
//     address space is global or shared; !gpu.ptr<f32,global> prints as
//     !gpu.ptr<f32, global>. Accessors: PtrType, PtrElem, PtrSpace, IsPtr,
//     Buffer, IsBuffer.
//   - gpu.for with i32 bounds prints ": i32" after the result types (before
//     the region), as scf.for does for non-index types; i64 prints nothing.
//     Result lists of gpu.for and gpu.if are always parenthesised; gpu.yield
//     is always written. Attributes of gpu.for and gpu.if follow the last
//     region.
//   - gpu.shuffle exchanges 32- or 64-bit values (i32, i64, f32, f64);
//     %offset and %width are i32 (%width a power of two ≤ 32, CUDA's width).
//   - gpu.atomic_add works on i32, i64, f32 and f64.
//   - gpu.shared_alloc is not Pure (each op is its own memory, never merged);
//     count > 0, and a kernel's shared_allocs total at most 48 KiB
//     (MaxSharedBytes). gpu.module holds gpu.func ops only; gpu.call names a
//     non-kernel gpu.func of the same gpu.module; gpu.return is directly in
//     the gpu.func body (its last op). max_threads ∈ [1, 1024] and
//     min_blocks ∈ [1, 2^31-1] are allowed on kernels only. gpu.func arguments are
//     scalars or pointers (never !gpu.buffer).
//   - Folders: ptr_offset by 0, buffer_view at 0, ptr_cast to the same type
//     or back, gpu.for without trips (constant bounds), math of constants
//     (materialised as arith.constant); gpu.if with a constant condition is
//     inlined by a canonicalization pattern.
//
// # The simulator
//
// Compile and Kernel.Launch run a kernel on the CPU (sim.go: lockstep
// threads, barriers, warp shuffles, checked memory); importing the package
// registers interp/exec semantics for gpu.alloc, gpu.buffer_view and
// gpu.launch (semantics.go), so a host func.func runs with exec's
// function-argument feeds ("@host:0", ...).
package gpu
