package shapeshift

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var targets = []Target{Smaller, Balanced, Faster}

// checkColumn decodes enc both ways and compares with want.
func checkColumn(t *testing.T, enc []byte, want []int64) {
	t.Helper()
	got, err := Decode([]int64{-7}, enc)
	require.NoError(t, err, "Decode")
	if got[0] != -7 || !slices.Equal(got[1:], want) { // cheap check on long columns; require only on failure
		require.Equal(t, slices.Concat([]int64{-7}, want), got, "Decode mismatch: got %d values, want %d (first diff %d)", len(got)-1, len(want), firstDiff(got[1:], want))
	}
	col, err := Open(enc)
	require.NoError(t, err, "Open")
	require.Equal(t, len(want), col.Len(), "Len")
	for i, w := range want {
		if g := col.Get(i); g != w { // cheap check per value; require only on failure
			require.Equal(t, w, g, "Get(%d)", i)
		}
	}
	// Backwards too, so decoded chunks are revisited.
	for i := len(want) - 1; i >= 0; i -= 97 {
		if g := col.Get(i); g != want[i] {
			require.Equal(t, want[i], g, "Get(%d) backwards", i)
		}
	}
}

func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestRoundTripDistributions(t *testing.T) {
	for _, d := range datasets {
		for _, tg := range targets {
			for _, lg := range []int{8, 12, 0} {
				t.Run(fmt.Sprintf("data=%s/target=%v/log=%d", d.name, tg, lg), func(t *testing.T) {
					v := genData(d, 1, 40000)
					enc := Encode(nil, v, Options{Target: tg, LogChunkSize: lg})
					checkColumn(t, enc, v)
				})
			}
		}
	}
}

func TestRoundTripChunkEdges(t *testing.T) {
	for _, lg := range []int{8, 10, 16} {
		size := 1 << lg
		for _, n := range []int{0, 1, 2, 63, 64, 65, size - 1, size, size + 1, 2*size + 3} {
			for _, d := range datasets {
				v := genData(d, uint64(n), n)
				enc := Encode(nil, v, Options{LogChunkSize: lg})
				t.Run(fmt.Sprintf("log=%d/n=%d/data=%s", lg, n, d.name), func(t *testing.T) {
					checkColumn(t, enc, v)
				})
			}
		}
	}
}

// TestEveryForm makes sure each form is chosen by some input and round trips.
func TestEveryForm(t *testing.T) {
	seen := map[Form]bool{}
	for _, d := range datasets {
		for _, tg := range targets {
			v := genData(d, 2, 20000)
			col, err := Open(Encode(nil, v, Options{Target: tg}))
			require.NoError(t, err)
			for f := range col.Composition() {
				seen[f] = true
			}
		}
	}
	for f := Form(0); f < numIntForms; f++ {
		if f == Raw {
			continue // BytePack w=8 is never larger than Raw by more than 16 bytes
		}
		assert.True(t, seen[f], "form %v never chosen", f)
	}
}

// TestForcedForms encodes chunks in every form directly (bypassing
// selection) and decodes them, so forms that selection rarely picks are
// still covered.
func TestForcedForms(t *testing.T) {
	for _, d := range datasets {
		for _, n := range []int{1, 2, 5, 64, 100, 256, 1000} {
			v := genData(d, 3, n)
			for f := Form(0); f < numIntForms; f++ {
				body, ok := forceChunk(v, f)
				if !ok {
					continue
				}
				got := make([]int64, n)
				require.NoError(t, decodeChunk(got, body, 0, new([]byte)), "data=%s n=%d form=%v", d.name, n, f)
				require.Equal(t, v, got, "data=%s n=%d form=%v: first diff at %d", d.name, n, f, firstDiff(got, v))
			}
		}
	}
}

// TestGetEveryBitWidth forces BitPack columns of every width 1..64 and
// lengths that end a chunk anywhere, so Get's one 8-byte load meets fields
// at the very end of the column (copied with padding by Open) and fields
// of 57..63 bits (expanded by Open).
func TestGetEveryBitWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for b := 1; b <= 64; b++ {
		for _, n := range []int{1, 7, 256, 300} {
			v := make([]int64, n)
			for i := range v {
				v[i] = int64(r.Uint64() >> (64 - uint(b)))
			}
			v[0] = int64(lowMask(b)) // full width
			if n > 1 {
				v[1] = 0
			}
			enc := encodeForced(v, BitPack, 8)
			col, err := Open(enc)
			require.NoError(t, err, "b=%d n=%d", b, n)
			for i, want := range v {
				if got := col.Get(i); got != want { // cheap check per value; require only on failure
					require.Equal(t, want, got, "b=%d n=%d: Get(%d)", b, n, i)
				}
			}

		}
	}
}

func TestErrCorruptShortInputs(t *testing.T) {
	for n := 0; n < 20; n++ {
		_, err := Decode(nil, make([]byte, n))
		require.ErrorIs(t, err, ErrCorrupt, "Decode(%d zero bytes)", n)
		_, err = Open(make([]byte, n))
		require.ErrorIs(t, err, ErrCorrupt, "Open(%d zero bytes)", n)
	}
}

func TestDecodeReusesCapacity(t *testing.T) {
	v := genData(datasets[2], 1, 5000)
	enc := Encode(nil, v, Options{})
	buf := make([]int64, 3, 6000)
	got, err := Decode(buf, enc)
	require.NoError(t, err)
	require.Same(t, &buf[0], &got[0], "Decode reallocated despite enough capacity")
	allocs := testing.AllocsPerRun(20, func() { got, _ = Decode(got[:0], enc) })
	require.Zero(t, allocs, "Decode into a large enough dst: allocs")
}

func TestGetZeroAllocs(t *testing.T) {
	for _, d := range datasets {
		v := genData(d, 1, 20000)
		col, err := Open(Encode(nil, v, Options{}))
		require.NoError(t, err)
		i := 0
		allocs := testing.AllocsPerRun(300, func() {
			i = (i + 7919) % len(v)
			_ = col.Get(i)
		})
		assert.Zero(t, allocs, "data=%s: Get allocates", d.name)
	}
}

func TestEncodeAppendsAndIsDeterministic(t *testing.T) {
	v := genData(datasets[4], 9, 30000)
	a := Encode(nil, v, Options{})
	b := Encode([]byte("prefix"), v, Options{})
	require.Equal(t, "prefix", string(b[:6]), "Encode overwrote its dst prefix")
	require.Equal(t, a, b[6:], "Encode with a prefix differs from Encode into nil")
}

// TestGetConcurrent reads one Column from several goroutines (run with
// -race: Get must not write to the Column).
func TestGetConcurrent(t *testing.T) {
	var v []int64
	for _, name := range []string{"gauge", "runs", "outliers", "lowcard", "random13"} {
		for _, d := range datasets {
			if d.name == name {
				v = append(v, genData(d, 5, 3000)...)
			}
		}
	}
	col, err := Open(Encode(nil, v, Options{LogChunkSize: 8}))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(v); i += 3 {
				if got := col.Get(i); got != v[i] { // cheap check per value; assert (not require) off the test goroutine
					assert.Equal(t, v[i], got, "goroutine %d: Get(%d)", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestStrings(t *testing.T) {
	require.Equal(t, "Delta", Delta.String())
	require.Equal(t, "Form(200)", Form(200).String())
	require.False(t, Form(200).IsValid())
	require.Equal(t, "Faster", Faster.String())
	require.Equal(t, "Target(9)", Target(9).String())
	require.Equal(t, DefaultOptions(), (Options{}).normalized(), "zero Options normalise")

}
