target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@block_sum_smem0 = internal addrspace(3) global [256 x float] undef, align 16

define void @block_sum(float addrspace(1)* %arg0, float addrspace(1)* %arg1) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%2 = sext i32 %0 to i64
	%3 = sext i32 %1 to i64
	%4 = mul i64 %3, 256
	%5 = add i64 %4, %2
	%6 = getelementptr inbounds float, float addrspace(1)* %arg0, i64 %5
	%7 = load float, float addrspace(1)* %6, align 4, !invariant.load !0
	%8 = getelementptr inbounds float, float addrspace(3)* getelementptr inbounds ([256 x float], [256 x float] addrspace(3)* @block_sum_smem0, i64 0, i64 0), i64 %2
	store float %7, float addrspace(3)* %8, align 4
	call void @llvm.nvvm.barrier0()
	br label %for0.header

for0.header:
	%9 = phi i32 [ 0, %entry ], [ %21, %for0.latch ]
	%10 = icmp slt i32 %9, 8
	br i1 %10, label %for0.body, label %for0.exit

for0.body:
	%11 = lshr i32 128, %9
	%12 = icmp ult i32 %0, %11
	br i1 %12, label %if0.then, label %if0.end

if0.then:
	%13 = sext i32 %11 to i64
	%14 = add i64 %2, %13
	%15 = getelementptr inbounds float, float addrspace(3)* getelementptr inbounds ([256 x float], [256 x float] addrspace(3)* @block_sum_smem0, i64 0, i64 0), i64 %2
	%16 = load float, float addrspace(3)* %15, align 4
	%17 = getelementptr inbounds float, float addrspace(3)* getelementptr inbounds ([256 x float], [256 x float] addrspace(3)* @block_sum_smem0, i64 0, i64 0), i64 %14
	%18 = load float, float addrspace(3)* %17, align 4
	%19 = fadd float %16, %18
	%20 = getelementptr inbounds float, float addrspace(3)* getelementptr inbounds ([256 x float], [256 x float] addrspace(3)* @block_sum_smem0, i64 0, i64 0), i64 %2
	store float %19, float addrspace(3)* %20, align 4
	br label %if0.end

if0.end:
	call void @llvm.nvvm.barrier0()
	br label %for0.latch

for0.latch:
	%21 = add i32 %9, 1
	br label %for0.header

for0.exit:
	%22 = icmp eq i32 %0, 0
	br i1 %22, label %if1.then, label %if1.end

if1.then:
	%23 = load float, float addrspace(3)* getelementptr inbounds ([256 x float], [256 x float] addrspace(3)* @block_sum_smem0, i64 0, i64 0), align 4
	%24 = getelementptr inbounds float, float addrspace(1)* %arg1, i64 %3
	store float %23, float addrspace(1)* %24, align 4
	br label %if1.end

if1.end:
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!1, !2}

!0 = !{}
!1 = !{void (float addrspace(1)*, float addrspace(1)*)* @block_sum, !"kernel", i32 1}
!2 = !{void (float addrspace(1)*, float addrspace(1)*)* @block_sum, !"maxntidx", i32 256}
