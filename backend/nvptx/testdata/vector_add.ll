target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @vadd(float addrspace(1)* %arg0, float addrspace(1)* %arg1, float addrspace(1)* %arg2, i64 %arg3) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%2 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
	%3 = mul i32 %1, %2
	%4 = add i32 %3, %0
	%5 = sext i32 %4 to i64
	%6 = mul i64 %5, 4
	%7 = icmp slt i64 %6, %arg3
	br i1 %7, label %if0.then, label %if0.end

if0.then:
	%8 = getelementptr inbounds float, float addrspace(1)* %arg0, i64 %6
	%9 = bitcast float addrspace(1)* %8 to <4 x float> addrspace(1)*
	%10 = load <4 x float>, <4 x float> addrspace(1)* %9, align 16, !invariant.load !0
	%11 = extractelement <4 x float> %10, i32 0
	%12 = extractelement <4 x float> %10, i32 1
	%13 = extractelement <4 x float> %10, i32 2
	%14 = extractelement <4 x float> %10, i32 3
	%15 = getelementptr inbounds float, float addrspace(1)* %arg1, i64 %6
	%16 = bitcast float addrspace(1)* %15 to <4 x float> addrspace(1)*
	%17 = load <4 x float>, <4 x float> addrspace(1)* %16, align 16
	%18 = extractelement <4 x float> %17, i32 0
	%19 = extractelement <4 x float> %17, i32 1
	%20 = extractelement <4 x float> %17, i32 2
	%21 = extractelement <4 x float> %17, i32 3
	%22 = fadd float %11, %18
	%23 = fadd float %12, %19
	%24 = fadd float %13, %20
	%25 = fadd float %14, %21
	%26 = getelementptr inbounds float, float addrspace(1)* %arg2, i64 %6
	%27 = bitcast float addrspace(1)* %26 to <4 x float> addrspace(1)*
	%28 = insertelement <4 x float> undef, float %22, i32 0
	%29 = insertelement <4 x float> %28, float %23, i32 1
	%30 = insertelement <4 x float> %29, float %24, i32 2
	%31 = insertelement <4 x float> %30, float %25, i32 3
	store <4 x float> %31, <4 x float> addrspace(1)* %27, align 16
	br label %if0.end

if0.end:
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

!nvvm.annotations = !{!1, !2, !3}

!0 = !{}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i64)* @vadd, !"kernel", i32 1}
!2 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i64)* @vadd, !"maxntidx", i32 256}
!3 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i64)* @vadd, !"minctasm", i32 2}
