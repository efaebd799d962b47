target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @warp_sum(float addrspace(1)* %arg0, float addrspace(1)* %arg1, i64 %arg2) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%2 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
	%3 = mul i32 %1, %2
	%4 = add i32 %3, %0
	%5 = sext i32 %4 to i64
	%6 = icmp slt i64 %5, %arg2
	br i1 %6, label %if0.then, label %if0.else

if0.then:
	%7 = getelementptr inbounds float, float addrspace(1)* %arg0, i64 %5
	%8 = load float, float addrspace(1)* %7, align 4, !invariant.load !0
	br label %if0.end

if0.else:
	br label %if0.end

if0.end:
	%9 = phi float [ %8, %if0.then ], [ 0.0, %if0.else ]
	%10 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %9, i32 16, i32 31)
	%11 = fadd float %9, %10
	%12 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %11, i32 8, i32 31)
	%13 = fadd float %11, %12
	%14 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %13, i32 4, i32 31)
	%15 = fadd float %13, %14
	%16 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %15, i32 2, i32 31)
	%17 = fadd float %15, %16
	%18 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %17, i32 1, i32 31)
	%19 = fadd float %17, %18
	%20 = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
	%21 = icmp eq i32 %20, 0
	br i1 %21, label %if1.then, label %if1.end

if1.then:
	%22 = atomicrmw fadd float addrspace(1)* %arg1, float %19 monotonic
	br label %if1.end

if1.end:
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %0, float %1, i32 %2, i32 %3)

declare float @llvm.nvvm.shfl.sync.down.f32(i32 %0, float %1, i32 %2, i32 %3)

declare i32 @llvm.nvvm.read.ptx.sreg.laneid()

!nvvm.annotations = !{!1, !2}

!0 = !{}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, i64)* @warp_sum, !"kernel", i32 1}
!2 = !{void (float addrspace(1)*, float addrspace(1)*, i64)* @warp_sum, !"maxntidx", i32 1024}
