package intsbench

import (
	"math"
	"strings"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/measure"
)

// TestCodecsRoundTrip runs every codec's own check on awkward columns:
// negative values, full 64-bit range, lengths around the buffer and chunk
// sizes.
func TestCodecsRoundTrip(t *testing.T) {
	cols := [][]int64{
		nil,
		{7},
		{math.MinInt64, math.MaxInt64, 0, -1, 1},
	}
	for _, n := range []int{colblkChunk + 1, lz4BufBytes/3 + 5} {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(i*i%1000) - 500
		}
		cols = append(cols, v)
	}
	for _, codec := range Codecs() {
		for ci, col := range cols {
			enc, err := codec.Encode(col)
			if err != nil {
				t.Fatalf("%s col %d: %v", codec.Name, ci, err)
			}
			if err := check(enc, col, randomRows(len(col), 50, 3)); err != nil {
				t.Errorf("%s col %d: %v", codec.Name, ci, err)
			}
		}
	}
}

func TestMeasureAndSelectN(t *testing.T) {
	if err := measure.SetBenchtime("3x"); err != nil {
		t.Fatal(err)
	}
	v := make([]int64, 3000)
	for i := range v {
		v[i] = int64(i / 7)
	}
	res := Measure([]Column{{"steps", v}}, Codecs(), 1, nil)
	if len(res) != len(Codecs()) {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		if r.Err != nil || r.Bytes <= 0 || !(r.Decode > 0) || !(r.Encode > 0) {
			t.Errorf("%+v", r)
		}
		if hasGet := r.Codec != "zstd"; hasGet != (r.Get > 0) {
			t.Errorf("%s: Get %v", r.Codec, r.Get)
		}
		if (r.Composition != nil) != strings.HasPrefix(r.Codec, ShapeshiftPrefix) {
			t.Errorf("%s: composition %v", r.Codec, r.Composition)
		}
	}
	curves, err := SelectN(v, Codecs()[:2], 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := curves[0].Ns; len(got) != 5 || got[4] != 3000 {
		t.Errorf("ns %v", got)
	}
}
