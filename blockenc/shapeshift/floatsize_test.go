package shapeshift

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
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

// TestFloatSizeGoals pins the sizes of ALP's 30 paper files (sizes are
// deterministic): the mean bits per value at most 0.95x ALP's mean on the
// same vectors, and no file above ALP's own figure x 1.1 + 1 bit. Run with
// -v for the table.
func TestFloatSizeGoals(t *testing.T) {
	alp := alpBits(t)
	require.Len(t, alp, 30, "ALP figures in %s/README.md", alpDir)
	var sum, sumALP float64
	for _, f := range loadALP(t) {
		enc := EncodeFloat64(nil, f.values, Options{})
		col, err := OpenFloat64(enc)
		require.NoError(t, err)
		bpv := float64(8*len(enc)) / float64(len(f.values))
		a, paper := alp[f.name]
		if !paper {
			t.Logf("%-24s %6.2f bits/value  (not a paper file)  %v", f.name, bpv, col.Composition())
			continue
		}
		t.Logf("%-24s %6.2f bits/value  ALP %5.1f  ratio %.2f  %v", f.name, bpv, a, bpv/a, col.Composition())
		assert.LessOrEqual(t, bpv, a*1.1+1, "%s: %.2f bits/value, ALP %.1f", f.name, bpv, a)
		sum += bpv
		sumALP += a
	}
	mean, meanALP := sum/30, sumALP/30
	t.Logf("mean over the 30 paper files: %.2f bits/value, ALP %.2f, ratio %.3f", mean, meanALP, mean/meanALP)
	assert.LessOrEqual(t, mean, 0.95*meanALP, "mean bits/value")
}
