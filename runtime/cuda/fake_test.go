package cuda

// fakeGPU is the simulated driver (sim.go) that the package's tests run
// on; they reach into its state (allocations, modules, graphs, launches)
// and its knobs (failPTX, noParams).
type fakeGPU = Sim

func newFakeGPU() *fakeGPU { return NewSim() }

// addKernel registers a kernel of the fake's modules.
func (g *fakeGPU) addKernel(name string, sizes []uint64, run func(g *fakeGPU, grid, block uint32, args []uint64)) {
	g.AddKernel(name, sizes, run)
}
