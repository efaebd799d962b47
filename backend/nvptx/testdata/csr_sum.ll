target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @csr_sum(i64 addrspace(1)* %arg0, i64 addrspace(1)* %arg1, float addrspace(1)* %arg2, float addrspace(1)* %arg3, i64 %arg4) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%2 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
	%3 = mul i32 %1, %2
	%4 = add i32 %3, %0
	%5 = sext i32 %4 to i64
	%6 = icmp slt i64 %5, %arg4
	br i1 %6, label %if0.then, label %if0.end

if0.then:
	%7 = add i64 %5, 1
	%8 = getelementptr inbounds i64, i64 addrspace(1)* %arg0, i64 %5
	%9 = load i64, i64 addrspace(1)* %8, align 8, !invariant.load !0
	%10 = getelementptr inbounds i64, i64 addrspace(1)* %arg0, i64 %7
	%11 = load i64, i64 addrspace(1)* %10, align 8, !invariant.load !0
	br label %for0.header

for0.header:
	%12 = phi i64 [ %9, %if0.then ], [ %32, %for0.latch ]
	%13 = phi float [ 0.0, %if0.then ], [ %28, %for0.latch ]
	%14 = phi float [ 0.0, %if0.then ], [ %29, %for0.latch ]
	%15 = phi float [ 0.0, %if0.then ], [ %30, %for0.latch ]
	%16 = phi float [ 0.0, %if0.then ], [ %31, %for0.latch ]
	%17 = icmp slt i64 %12, %11
	br i1 %17, label %for0.body, label %for0.exit

for0.body:
	%18 = getelementptr inbounds i64, i64 addrspace(1)* %arg1, i64 %12
	%19 = load i64, i64 addrspace(1)* %18, align 8, !invariant.load !0
	%20 = mul i64 %19, 4
	%21 = getelementptr inbounds float, float addrspace(1)* %arg2, i64 %20
	%22 = bitcast float addrspace(1)* %21 to <4 x float> addrspace(1)*
	%23 = load <4 x float>, <4 x float> addrspace(1)* %22, align 16, !invariant.load !0
	%24 = extractelement <4 x float> %23, i32 0
	%25 = extractelement <4 x float> %23, i32 1
	%26 = extractelement <4 x float> %23, i32 2
	%27 = extractelement <4 x float> %23, i32 3
	%28 = fadd float %13, %24
	%29 = fadd float %14, %25
	%30 = fadd float %15, %26
	%31 = fadd float %16, %27
	br label %for0.latch

for0.latch:
	%32 = add i64 %12, 1
	br label %for0.header

for0.exit:
	%33 = mul i64 %5, 4
	%34 = getelementptr inbounds float, float addrspace(1)* %arg3, i64 %33
	%35 = bitcast float addrspace(1)* %34 to <4 x float> addrspace(1)*
	%36 = insertelement <4 x float> undef, float %13, i32 0
	%37 = insertelement <4 x float> %36, float %14, i32 1
	%38 = insertelement <4 x float> %37, float %15, i32 2
	%39 = insertelement <4 x float> %38, float %16, i32 3
	store <4 x float> %39, <4 x float> addrspace(1)* %35, align 16
	br label %if0.end

if0.end:
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

!nvvm.annotations = !{!1, !2}

!0 = !{}
!1 = !{void (i64 addrspace(1)*, i64 addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i64)* @csr_sum, !"kernel", i32 1}
!2 = !{void (i64 addrspace(1)*, i64 addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i64)* @csr_sum, !"maxntidx", i32 128}
