package sampling

import "math/bits"

// golden is the splitmix64 increment (2^64 / phi).
const golden = 0x9e3779b97f4a7c15

// mix64 is splitmix64's output function (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// layerKey returns the key of layer l's streams under epochSeed.
func layerKey(epochSeed uint64, layer int) uint64 {
	return mix64(epochSeed + uint64(layer+1)*golden)
}

// EpochSeed returns the sampler seed the DataLoader uses for epoch epoch of
// a loader seeded with seed: a hash of both, so that each epoch draws
// different samples and the same (seed, epoch) always draws the same.
func EpochSeed(seed int64, epoch int) uint64 {
	return mix64(mix64(uint64(seed)+golden) ^ (uint64(epoch)+1)*0xd1b54a32d192ed03)
}

// stream is the splitmix64 sequence of one (epoch, layer, node) key.
type stream struct{ state uint64 }

// nodeStream returns the stream that picks node v's neighbours in the layer
// whose key is lk.
func nodeStream(lk uint64, v int64) stream {
	return stream{state: mix64(lk ^ mix64(uint64(v)+golden))}
}

// next returns the next 64 random bits.
func (s *stream) next() uint64 {
	s.state += golden
	return mix64(s.state)
}

// intn returns a value in [0, n) (Lemire's multiply-shift; the bias is below
// n / 2^64).
func (s *stream) intn(n int64) int64 {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int64(hi)
}

// open01 returns a uniform value in the open interval (0, 1).
func (s *stream) open01() float64 {
	return (float64(s.next()>>11) + 0.5) * (1.0 / (1 << 53))
}
