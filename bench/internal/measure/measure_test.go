package measure

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		assert.Equal(t, c.want, MedianOf(c.in), "MedianOf(%v)", c.in)
	}
	assert.True(t, math.IsNaN(MedianOf(nil)), "MedianOf(nil) not NaN")
}

func TestRoundsInterleaveAndCountAllocs(t *testing.T) {
	require.NoError(t, SetBenchtime("5x"))
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
	assert.Equal(t, []string{"alloc", "none", "alloc", "none"}, order)
	// Allocations are counted process-wide, so the runtime and the
	// testing package can add a few to any subject.
	assert.GreaterOrEqual(t, res["alloc"].AllocsPerOp, float64(15), "alloc subject: allocs/op, want 16")
	assert.GreaterOrEqual(t, res["none"].NsPerOp, float64(0), "none: %+v", res["none"])
	assert.Less(t, res["none"].AllocsPerOp, float64(4), "none: %+v", res["none"])
}
