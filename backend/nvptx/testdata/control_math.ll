target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define internal float @scale(float %arg0, float %arg1) {
entry:
	%0 = call float @llvm.fma.f32(float %arg0, float %arg1, float 1.0)
	ret float %0
}

define void @math(float addrspace(1)* %arg0, i32 addrspace(1)* %arg1) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = sext i32 %0 to i64
	%2 = sitofp i32 %0 to float
	%3 = call float @llvm.sqrt.f32(float %2)
	%4 = call float @llvm.nvvm.rsqrt.approx.f(float %2)
	%5 = fneg float %3
	%6 = call float @llvm.fabs.f32(float %5)
	%7 = call float @llvm.minnum.f32(float %6, float %4)
	%8 = call float @llvm.maxnum.f32(float %6, float %4)
	%9 = icmp slt i32 %0, 16
	br i1 %9, label %if0.then, label %if0.else

if0.then:
	br label %if0.end

if0.else:
	%10 = fdiv float %8, %2
	br label %if0.end

if0.end:
	%11 = phi float [ %7, %if0.then ], [ %10, %if0.else ]
	%12 = phi i32 [ %0, %if0.then ], [ 7, %if0.else ]
	%13 = select i1 %9, float %7, float %8
	%14 = call float @scale(float %11, float %13)
	%15 = call float @llvm.nvvm.shfl.sync.idx.f32(i32 -1, float %14, i32 0, i32 31)
	%16 = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %12, i32 1, i32 0)
	%17 = getelementptr inbounds float, float addrspace(1)* %arg0, i64 %1
	store float %15, float addrspace(1)* %17, align 4
	%18 = getelementptr inbounds i32, i32 addrspace(1)* %arg1, i64 %1
	store i32 %16, i32 addrspace(1)* %18, align 4
	ret void
}

declare float @llvm.fma.f32(float %0, float %1, float %2)

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare float @llvm.sqrt.f32(float %0)

declare float @llvm.nvvm.rsqrt.approx.f(float %0)

declare float @llvm.fabs.f32(float %0)

declare float @llvm.minnum.f32(float %0, float %1)

declare float @llvm.maxnum.f32(float %0, float %1)

declare float @llvm.nvvm.shfl.sync.idx.f32(i32 %0, float %1, i32 %2, i32 %3)

declare i32 @llvm.nvvm.shfl.sync.up.i32(i32 %0, i32 %1, i32 %2, i32 %3)

!nvvm.annotations = !{!0}

!0 = !{void (float addrspace(1)*, i32 addrspace(1)*)* @math, !"kernel", i32 1}
