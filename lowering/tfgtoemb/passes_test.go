package tfgtoemb_test

import allpasses "github.com/recom-compiler/recom/lowering/all"

// The tests run the passes by flag.
func init() { allpasses.Register() }
