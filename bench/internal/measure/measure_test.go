package measure

import (
	"math"
	"testing"
)

func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := MedianOf(c.in); got != c.want {
			t.Errorf("MedianOf(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(MedianOf(nil)) {
		t.Error("MedianOf(nil) not NaN")
	}
}

func TestRoundsInterleaveAndCountAllocs(t *testing.T) {
	if err := SetBenchtime("5x"); err != nil {
		t.Fatal(err)
	}
	var order []string
	var sink []byte
	subjects := []Subject{
		{"alloc", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for j := range 16 {
					sink = make([]byte, 64+i+j)
				}
			}
		}},
		{"none", func(b *testing.B) {}},
	}
	res := Rounds(subjects, 2, func(n string) { order = append(order, n) })
	_ = sink
	if got := len(order); got != 4 || order[0] != "alloc" || order[1] != "none" || order[2] != "alloc" {
		t.Errorf("order %v", order)
	}
	// Allocations are counted process-wide, so the runtime and the
	// testing package can add a few to any subject.
	if a := res["alloc"].AllocsPerOp; a < 15 {
		t.Errorf("alloc subject: %v allocs/op, want 16", a)
	}
	if res["none"].NsPerOp < 0 || res["none"].AllocsPerOp >= 4 {
		t.Errorf("none: %+v", res["none"])
	}
}
