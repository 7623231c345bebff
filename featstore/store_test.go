package featstore

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gnnrepl/gnnrepl/tensor"
	"github.com/x448/float16"
)

// randFeatures returns a deterministic (n, f) float32 tensor mixing the
// value ranges features have: unit normals, all-zero and constant rows,
// sparse non-negative rows that sum to 1 (bag of words), wide-range rows,
// tiny values and exact zeros.
func randFeatures(n, f int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*f)
	for r := 0; r < n; r++ {
		row := x[r*f : r*f+f]
		switch r % 6 {
		case 0:
			for j := range row {
				row[j] = float32(rng.NormFloat64())
			}
		case 1: // all zero
		case 2:
			for j := range row {
				row[j] = -3.25
			}
		case 3:
			k := 0
			for j := range row {
				if rng.IntN(8) == 0 {
					row[j] = 1
					k++
				}
			}
			for j := range row {
				if k > 0 {
					row[j] /= float32(k)
				}
			}
		case 4:
			for j := range row {
				row[j] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
			}
		case 5:
			for j := range row {
				row[j] = float32(rng.Float64() * 1e-6)
			}
		}
	}
	return tensor.FromFloat32(x, n, f)
}

func allIDs(n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	return ids
}

// mustPanic runs f and returns the *Error it panicked with, failing the test
// when it does not panic or panics with anything else.
func mustPanic(t *testing.T, kind error, f func()) *Error {
	t.Helper()
	err := tensor.Catch(f)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, kind) || e.Pkg != "featstore" {
		t.Fatalf("got %v, want a *featstore.Error of kind %v", err, kind)
	}
	return e
}

func TestFloat32RoundTrip(t *testing.T) {
	x := randFeatures(50, 7, 1)
	s, err := NewFloat32(x)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{3, 0, 49, 3, 17}
	got := s.Gather(ids).Float32s()
	for i, v := range ids {
		for j := 0; j < 7; j++ {
			if got[i*7+j] != x.Float32s()[int(v)*7+j] {
				t.Fatalf("row %d col %d: %v != %v", v, j, got[i*7+j], x.Float32s()[int(v)*7+j])
			}
		}
	}
	if s.Bytes() != 50*7*4 || s.DType() != tensor.Float32 || s.NumNodes() != 50 || s.Dim() != 7 {
		t.Errorf("metadata: %v", s)
	}
}

// TestHalfBounds checks every stored value of Float16 and BFloat16 against
// the documented bound and against the reference conversions.
func TestHalfBounds(t *testing.T) {
	x := randFeatures(120, 33, 2)
	xs := x.Float32s()
	ids := allIDs(120)
	h, err := NewFloat16(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBFloat16(x)
	if err != nil {
		t.Fatal(err)
	}
	hg, bg := h.Gather(ids).Float32s(), b.Gather(ids).Float32s()
	var worstH, worstB float64
	for i, v := range xs {
		a := math.Abs(float64(v))
		if want := float16.Fromfloat32(v).Float32(); hg[i] != want {
			t.Fatalf("float16 of %g: got %g, want %g", v, hg[i], want)
		}
		eh := math.Abs(float64(v) - float64(hg[i]))
		if eh > math.Max(a*0x1p-11, 0x1p-25) {
			t.Fatalf("float16 error %g of %g above the bound", eh, v)
		}
		eb := math.Abs(float64(v) - float64(bg[i]))
		if eb > math.Max(a*0x1p-8, 0x1p-134) {
			t.Fatalf("bfloat16 error %g of %g above the bound", eb, v)
		}
		if a > 1e-3 {
			worstH, worstB = max(worstH, eh/a), max(worstB, eb/a)
		}
	}
	t.Logf("largest relative error above 1e-3: float16 %.3g (bound 2^-11 = %.3g), bfloat16 %.3g (bound 2^-8 = %.3g)",
		worstH, 0x1p-11, worstB, 0x1p-8)
	if h.Bytes() != 120*33*2 || b.Bytes() != 120*33*2 || h.DType() != tensor.Float16 || b.DType() != tensor.BFloat16 {
		t.Errorf("metadata: %v %v", h, b)
	}
}

// TestBFloat16Rounding checks round-to-nearest-even and the special values.
func TestBFloat16Rounding(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x3f808001, 0x3f81}, // above the tie
		{0x3f807fff, 0x3f80}, // below the tie
		{0xbf808001, 0xbf81}, // negative
		{0x7f800000, 0x7f80}, // +Inf
		{0xff800000, 0xff80}, // -Inf
		{0x7f800001, 0x7fc0}, // signalling NaN becomes quiet
		{0x7f7fffff, 0x7f80}, // MaxFloat32 rounds to +Inf
		{0x00000001, 0x0000}, // smallest subnormal
	} {
		if got := bf16Bits(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("bf16Bits(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
}

// TestInt8Bound checks the documented bound |x - x̂| <= scale/2 +
// 2^-22*max(|lo|, |hi|) on every value, the exactness of constant and
// two-valued rows, and RowScale.
func TestInt8Bound(t *testing.T) {
	const n, f = 240, 57
	x := randFeatures(n, f, 3)
	xs := x.Float32s()
	s, err := NewInt8(x)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Gather(allIDs(n)).Float32s()
	var worst float64 // largest error / (scale/2)
	for r := 0; r < n; r++ {
		row := xs[r*f : r*f+f]
		lo, hi := row[0], row[0]
		for _, v := range row {
			lo, hi = min(lo, v), max(hi, v)
		}
		scale, zlo := s.RowScale(int64(r))
		if zlo != lo || math.Abs(float64(scale)-(float64(hi)-float64(lo))/255) > 1e-6*float64(scale) {
			t.Fatalf("row %d: RowScale = (%g, %g), want ((%g-%g)/255, %g)", r, scale, zlo, hi, lo, lo)
		}
		bound := float64(scale)/2 + 0x1p-22*math.Max(math.Abs(float64(lo)), math.Abs(float64(hi)))
		for j, v := range row {
			e := math.Abs(float64(v) - float64(got[r*f+j]))
			if e > bound {
				t.Fatalf("row %d col %d: |%g - %g| = %g > bound %g", r, j, v, got[r*f+j], e, bound)
			}
			if scale > 0 {
				worst = max(worst, e/(float64(scale)/2))
			}
			switch r % 6 {
			case 1, 2: // constant rows are exact
				if e != 0 {
					t.Fatalf("constant row %d: %g restored as %g", r, v, got[r*f+j])
				}
			case 3: // two distinct values: exact up to float32 rounding
				if e > 1e-7*float64(hi) {
					t.Fatalf("two-valued row %d: %g restored as %g", r, v, got[r*f+j])
				}
			}
		}
	}
	t.Logf("largest int8 error: %.4f of scale/2", worst)
	if worst > 1+1e-4 {
		t.Errorf("largest error %.6f of scale/2 exceeds the bound", worst)
	}
	if want := int64(n*f + 8*n); s.Bytes() != want {
		t.Errorf("Bytes = %d, want %d", s.Bytes(), want)
	}
}

// TestInt8Extremes covers ranges whose width exceeds float32's and rows of
// values a few ulps apart.
func TestInt8Extremes(t *testing.T) {
	x := tensor.FromFloat32([]float32{
		-3e38, 3e38, 0, 1e38,
		1, math.Nextafter32(1, 2), 1, 1,
		-1e-40, 1e-40, 0, 5e-41,
	}, 3, 4)
	s, err := NewInt8(x)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Gather([]int64{0, 1, 2}).Float32s()
	for i, v := range x.Float32s() {
		r := int64(i / 4)
		scale, lo := s.RowScale(r)
		hi := float64(lo) + 255*float64(scale)
		bound := float64(scale)/2 + 0x1p-22*math.Max(math.Abs(float64(lo)), math.Abs(hi))
		if e := math.Abs(float64(v) - float64(got[i])); e > bound || math.IsInf(float64(got[i]), 0) {
			t.Errorf("value %d: %g restored as %g (error %g, bound %g)", i, v, got[i], e, bound)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	nan := tensor.FromFloat32([]float32{0, 1, float32(math.NaN()), 2}, 2, 2)
	inf := tensor.FromFloat32([]float32{0, 1, 2, float32(math.Inf(1))}, 2, 2)
	big := tensor.FromFloat32([]float32{0, 1, 7e4, 2}, 2, 2)
	for _, c := range []struct {
		name string
		err  error
		kind error
		want string
	}{
		{"int8 NaN", second(NewInt8(nan)), ErrData, "row 1, column 0"},
		{"int8 Inf", second(NewInt8(inf)), ErrData, "row 1, column 1"},
		{"float16 overflow", second(NewFloat16(big)), ErrData, "value 70000 at row 1, column 0"},
		{"1-D", second(NewInt8(tensor.Zeros(4))), ErrShape, "(N, F) float32"},
		{"int64", second(NewFloat16(tensor.New(tensor.Int64, 2, 2))), ErrShape, "int64"},
		{"nil", second(NewBFloat16(nil)), ErrArgument, "nil"},
		{"dtype", second(New(tensor.Zeros(2, 2), tensor.Int64)), ErrArgument, "dtype int64"},
	} {
		if !errors.Is(c.err, c.kind) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want %v mentioning %q", c.name, c.err, c.kind, c.want)
		}
	}
	// float16 keeps infinities and NaN, as PyTorch does.
	if _, err := NewFloat16(inf); err != nil {
		t.Errorf("float16 of an infinity: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// stores returns one store of each dtype over x.
func stores(t testing.TB, x *tensor.Tensor) []Store {
	var out []Store
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int8} {
		s, err := New(x, dt)
		if err != nil {
			t.Fatal(err)
		}
		if s.DType() != dt {
			t.Fatalf("New(%v) made a %v store", dt, s.DType())
		}
		out = append(out, s)
	}
	return out
}

// TestGatherMisuse checks the documented panics of every store.
func TestGatherMisuse(t *testing.T) {
	x := randFeatures(10, 3, 4)
	all := stores(t, x)
	hc, err := NewHotCacheNodes(all[3], []int64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := NewConcat(all[0], all[3])
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, hc, cc)
	for _, s := range all {
		e := mustPanic(t, ErrIndex, func() { s.Gather([]int64{0, 4, 10}) })
		if !strings.Contains(e.Error(), "node id 10 at position 2 is outside [0, 10)") {
			t.Errorf("%v: %v", s, e)
		}
		mustPanic(t, ErrIndex, func() { s.Gather([]int64{-1}) })
		mustPanic(t, ErrShape, func() { s.GatherInto(make([]float32, 100), s.Dim()-1, []int64{0}) })
		e = mustPanic(t, ErrShape, func() { s.GatherInto(make([]float32, 2*s.Dim()), s.Dim()+1, []int64{0, 1}) })
		if !strings.Contains(e.Error(), "dst has") {
			t.Errorf("%v: %v", s, e)
		}
		if got := s.Gather(nil); got.Size(0) != 0 || got.Size(1) != s.Dim() {
			t.Errorf("%v: empty gather has shape %v", s, got.Shape())
		}
	}
	mustPanic(t, ErrShape, func() { GatherTensor(all[0], tensor.Zeros(2)) })
	if got := GatherTensor(all[1], tensor.FromInt64([]int64{2, 2})); got.Size(0) != 2 {
		t.Errorf("GatherTensor shape %v", got.Shape())
	}
	for _, s := range all[:4] {
		s.(interface{ Close() error }).Close()
		mustPanic(t, ErrClosed, func() { s.Gather([]int64{0}) })
	}
	hc.Close()
	mustPanic(t, ErrClosed, func() { hc.Gather([]int64{0}) })
}

// TestStridedAndParallel gathers a batch large enough to be split over
// goroutines into a strided buffer and compares it with row-by-row gathers
// made with GOMAXPROCS 1; the columns outside each row stay untouched.
func TestStridedAndParallel(t *testing.T) {
	const n, f, b = 3000, 40, 2500
	x := randFeatures(n, f, 5)
	rng := rand.New(rand.NewPCG(5, 5))
	ids := make([]int64, b)
	for i := range ids {
		ids[i] = rng.Int64N(n)
	}
	for _, s := range stores(t, x) {
		stride := f + 3
		dst := make([]float32, b*stride)
		for i := range dst {
			dst[i] = -7
		}
		s.GatherInto(dst, stride, ids)
		prev := runtime.GOMAXPROCS(1)
		for i, v := range ids {
			one := s.Gather([]int64{v}).Float32s()
			for j := 0; j < stride; j++ {
				want := float32(-7)
				if j < f {
					want = one[j]
				}
				if dst[i*stride+j] != want {
					runtime.GOMAXPROCS(prev)
					t.Fatalf("%v: row %d col %d = %v, want %v", s, i, j, dst[i*stride+j], want)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// TestAccounting checks that a copying store's bytes are counted while it
// lives and released by Close.
func TestAccounting(t *testing.T) {
	x := randFeatures(1000, 64, 6)
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16, tensor.Int8} {
		// Let earlier tests' garbage be collected and finalised first, so
		// that no release lands between the two readings.
		runtime.GC()
		runtime.GC()
		before := tensor.MemoryAllocated("cpu")
		s, err := New(x, dt)
		if err != nil {
			t.Fatal(err)
		}
		if d := tensor.MemoryAllocated("cpu") - before; d < s.Bytes() {
			t.Errorf("%v: allocation grew by %d bytes, want at least Bytes() = %d", dt, d, s.Bytes())
		}
		var acct *account
		switch v := s.(type) {
		case *Float16:
			acct = v.acct
		case *BFloat16:
			acct = v.acct
		case *Int8:
			acct = v.acct
		}
		if acct.n != s.Bytes() || acct.done.Load() {
			t.Errorf("%v: account of %d bytes (released %v), want %d", dt, acct.n, acct.done.Load(), s.Bytes())
		}
		runtime.GC()
		runtime.GC()
		mid := tensor.MemoryAllocated("cpu")
		s.(interface{ Close() error }).Close()
		s.(interface{ Close() error }).Close()
		if !acct.done.Load() {
			t.Errorf("%v: Close did not release the account", dt)
		}
		if d := mid - tensor.MemoryAllocated("cpu"); d < s.Bytes() {
			t.Errorf("%v: Close released %d bytes, want %d", dt, d, s.Bytes())
		}
	}
}

func TestConcat(t *testing.T) {
	x := randFeatures(20, 5, 7)
	y := randFeatures(20, 3, 8)
	a, _ := NewFloat32(x)
	b, _ := NewInt8(y)
	c, err := NewConcat(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dim() != 8 || c.Bytes() != a.Bytes()+b.Bytes() || c.NumNodes() != 20 {
		t.Fatalf("metadata: %v", c)
	}
	ids := []int64{19, 0, 7}
	got := c.Gather(ids).Float32s()
	ga, gb := a.Gather(ids).Float32s(), b.Gather(ids).Float32s()
	for i := range ids {
		for j := 0; j < 8; j++ {
			want := float32(0)
			if j < 5 {
				want = ga[i*5+j]
			} else {
				want = gb[i*3+j-5]
			}
			if got[i*8+j] != want {
				t.Fatalf("row %d col %d: %v != %v", i, j, got[i*8+j], want)
			}
		}
	}
	short, _ := NewFloat32(randFeatures(19, 2, 1))
	if _, err := NewConcat(a, short); !errors.Is(err, ErrArgument) || !strings.Contains(err.Error(), "part 1 has 19 nodes") {
		t.Errorf("mismatched parts: %v", err)
	}
	if _, err := NewConcat(); !errors.Is(err, ErrArgument) {
		t.Errorf("no parts: %v", err)
	}
}

func TestStrings(t *testing.T) {
	x := randFeatures(10, 4, 9)
	for _, s := range stores(t, x) {
		if str := s.String(); !strings.Contains(str, "num_nodes=10") {
			t.Errorf("String: %s", str)
		}
	}
}

// TestFloat16Widening checks the gather's float16 -> float32 conversion
// against github.com/x448/float16 on all 65536 bit patterns.
func TestFloat16Widening(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		want, got := float16.Frombits(uint16(i)).Float32(), f16Float32(uint16(i))
		if math.Float32bits(want) != math.Float32bits(got) && !(want != want && got != got) {
			t.Fatalf("%#04x: got %v (%#08x), want %v (%#08x)", i, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}
