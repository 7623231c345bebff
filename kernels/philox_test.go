package kernels

import "testing"

// Random123's known-answer vectors for philox4x32_10 (its tests/kat_vectors).
func TestPhilox4x32KnownAnswers(t *testing.T) {
	for _, c := range []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		if got := Philox4x32(c.ctr, c.key); got != c.want {
			t.Errorf("Philox4x32(%x, %x) = %x, want %x", c.ctr, c.key, got, c.want)
		}
	}
}

func TestDropoutMaskMatchesKeep(t *testing.T) {
	const n = 1001
	keep := make([]bool, n)
	DropoutMask(42, 7, 0.3, keep)
	kept := 0
	for i := range keep {
		if keep[i] != DropoutKeep(42, 7, 0.3, int64(i)) {
			t.Fatalf("element %d: DropoutMask %v, DropoutKeep disagrees", i, keep[i])
		}
		if keep[i] {
			kept++
		}
	}
	// 700 expected; 5 standard deviations is about 72.
	if kept < 628 || kept > 772 {
		t.Errorf("kept %d of %d at p=0.3", kept, n)
	}
	other := make([]bool, n)
	DropoutMask(42, 8, 0.3, other)
	same := 0
	for i := range keep {
		if keep[i] == other[i] {
			same++
		}
	}
	if same == n {
		t.Error("offset 8 gives the same mask as offset 7")
	}
}
