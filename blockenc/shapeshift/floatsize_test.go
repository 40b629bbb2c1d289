package shapeshift

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// alpBits reads ALP's own bits per value per file from the table of
// testdata/alp/README.md.
func alpBits(tb testing.TB) map[string]float64 {
	tb.Helper()
	f, err := os.Open(alpDir + "/README.md")
	require.NoError(tb, err)
	defer f.Close()
	cell := regexp.MustCompile(`\|\s*([a-z0-9_]+)(?: \(ALP_rd\))?\s*\|\s*([0-9.]+)\s*`)
	m := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, c := range cell.FindAllStringSubmatch(sc.Text(), -1) {
			v, err := strconv.ParseFloat(c[2], 64)
			require.NoError(tb, err)
			m[c[1]] = v
		}
	}
	require.NoError(tb, sc.Err())
	return m
}

func TestFloatSizeTable(t *testing.T) {
	alp := alpBits(t)
	var sum, sumALP float64
	n := 0
	for _, f := range loadALP(t) {
		enc := EncodeFloat64(nil, f.values, Options{})
		col, err := OpenFloat64(enc)
		require.NoError(t, err)
		bpv := float64(8*len(enc)) / float64(len(f.values))
		a, ok := alp[f.name]
		t.Logf("%-24s %6.2f  alp %5.1f  limit %5.2f  %v", f.name, bpv, a, a*1.1+1, col.Composition())
		if ok {
			sum += bpv
			sumALP += a
			n++
		}
	}
	t.Logf("mean over %d: %.2f (ALP %.2f)", n, sum/float64(n), sumALP/float64(n))
	_ = math.Abs
}
