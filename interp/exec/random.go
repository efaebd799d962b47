package exec

import (
	"fmt"
	"hash/fnv"

	"github.com/recom-compiler/recom/interp"
)

// Random values of variables (Options.RandomTables) are a pure function of
// (seed, name, flat element index), so a lowering that reads a table row
// by row sees exactly the values the tfg program saw, and a gather can make
// the rows it needs without the whole table.

// nameKey hashes a variable name with the seed.
func nameKey(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return mix(h.Sum64() ^ mix(seed+0x9e3779b97f4a7c15))
}

// mix is SplitMix64's finalizer.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// RandomFloat is element i of the random variable keyed by key (see
// RandomKey): uniform in [-0.1, 0.1).
func RandomFloat(key uint64, i int64) float64 {
	u := mix(key + uint64(i)*0x9e3779b97f4a7c15)
	return (float64(u>>11)/(1<<53))*0.2 - 0.1
}

// RandomInt is element i of an integer random variable: uniform in [0, 100).
func RandomInt(key uint64, i int64) int64 {
	return int64(mix(key+uint64(i)*0x9e3779b97f4a7c15) % 100)
}

// RandomKey is the key of the random variable name under seed.
func RandomKey(seed uint64, name string) uint64 { return nameKey(seed, name) }

// RandomTensor returns the random value of variable name: floats uniform in
// [-0.1, 0.1), integers in [0, 100), bools and strings from the same
// stream.
func RandomTensor(dt interp.DType, shape []int64, seed uint64, name string) (*interp.Tensor, error) {
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, err
	}
	key := nameKey(seed, name)
	return RandomRows(dt, shape, key, 0, n)
}

// RandomRows returns elements [from, from+count) of the random variable
// keyed by key, as a tensor of the given shape (whose element count must
// be count).
func RandomRows(dt interp.DType, shape []int64, key uint64, from, count int64) (*interp.Tensor, error) {
	data, err := interp.MakeSlice(dt, int(count))
	if err != nil {
		return nil, err
	}
	FillRandom(data, key, from)
	return interp.FromSlice(shape, data)
}

// FillRandom fills a backing slice with elements from, from+1, ... of the
// random variable keyed by key.
func FillRandom(data any, key uint64, from int64) {
	switch d := data.(type) {
	case []float32:
		for i := range d {
			d[i] = float32(RandomFloat(key, from+int64(i)))
		}
	case []float64:
		for i := range d {
			d[i] = RandomFloat(key, from+int64(i))
		}
	case []int8:
		for i := range d {
			d[i] = int8(RandomInt(key, from+int64(i)))
		}
	case []int16:
		for i := range d {
			d[i] = int16(RandomInt(key, from+int64(i)))
		}
	case []int32:
		for i := range d {
			d[i] = int32(RandomInt(key, from+int64(i)))
		}
	case []int64:
		for i := range d {
			d[i] = RandomInt(key, from+int64(i))
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(RandomInt(key, from+int64(i)))
		}
	case []bool:
		for i := range d {
			d[i] = RandomInt(key, from+int64(i))&1 == 1
		}
	case []string:
		for i := range d {
			d[i] = fmt.Sprintf("s%d", RandomInt(key, from+int64(i)))
		}
	}
}
