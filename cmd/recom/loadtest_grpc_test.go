package main

import "testing"

func TestGRPCMessage(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"plain text":       "plain text",
		"100%25 sure":      "100% sure",
		"caf%C3%A9":        "café",
		"ends in %2":       "ends in %2",
		"not hex %zz here": "not hex %zz here",
	} {
		if got := grpcMessage(in); got != want {
			t.Errorf("grpcMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTargetRows(t *testing.T) {
	for in, want := range map[string]int{
		"http://h:8501/v1/models/m:predict#rows=17":                      17,
		"http://h:8500/inference.GRPCInferenceService/ModelInfer#rows=1": 1,
		"http://h:8501/v1/models/m:predict":                              0,
		"http://h:8501/v1/models/m:predict#rows=x":                       0,
	} {
		if got := targetRows(in); got != want {
			t.Errorf("targetRows(%q) = %d, want %d", in, got, want)
		}
	}
}
