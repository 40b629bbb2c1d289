package report

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTableAlignsAndWritesCSV(t *testing.T) {
	tb := NewTable("t1", "title", "name", "value")
	tb.Add("a", "1.5")
	tb.Add("longer", "12345")
	tb.Note("n=%d", 2)
	var b bytes.Buffer
	require.NoError(t, tb.Fprint(&b))
	want := "== title\n" +
		"name    value\n" +
		"------  -----\n" +
		"a         1.5\n" +
		"longer  12345\n" +
		"  n=2\n\n"
	assert.Equal(t, want, b.String())
	path, err := tb.WriteCSV(t.TempDir())
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	if assert.Len(t, recs, 3, "csv %v", recs) {
		assert.Equal(t, []string{"longer", "12345"}, recs[2])
	}
}

func TestAddPanicsOnWrongWidth(t *testing.T) {
	assert.Panics(t, func() { NewTable("t", "", "a", "b").Add("only one") })
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Ratio(1, 2), "0.50x"},
		{Ratio(1, 0), "-"},
		{Ratio(math.NaN(), 1), "-"},
		{Float(math.NaN(), 2), "-"},
		{NS(3.14159), "3.14"},
		{NS(314.159), "314.2"},
		{NS(31415.9), "31416"},
	} {
		assert.Equal(t, c.want, c.got)
	}
}

func TestPlotsDecode(t *testing.T) {
	dir := t.TempDir()
	bars := Bars{Title: "b", Categories: []string{"x", "y"}, Series: []string{"s1", "s2"},
		Values: [][]float64{{1, 2}, {math.NaN(), 3}}}
	lines := Lines{Title: "l", LogX: true, LogY: true, Lines: []Line{{Name: "a", X: []float64{1, 10, 100}, Y: []float64{1, 0, 5}}}}
	require.NoError(t, SaveBars(filepath.Join(dir, "b.png"), bars))
	require.NoError(t, SaveLines(filepath.Join(dir, "l.png"), lines))
	for _, n := range []string{"b.png", "l.png"} {
		f, err := os.Open(filepath.Join(dir, n))
		require.NoError(t, err)
		_, err = png.Decode(f)
		assert.NoError(t, err, n)
		f.Close()
	}
	bars.Values[0] = bars.Values[0][:1]
	assert.Error(t, SaveBars(filepath.Join(dir, "bad.png"), bars), "mismatched bars")
}

func TestProgressSilentUnlessEnabled(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 3, false)
	p.Step("x")
	p.Done()
	assert.Zero(t, b.Len(), "disabled bar wrote %q", b.String())
	p = NewProgress(&b, 2, true)
	p.start = p.start.Add(-3e9) // pretend it has run for 3 s
	p.Step("half")
	assert.Contains(t, b.String(), " 50% half")
	p.Done()
	assert.True(t, strings.HasSuffix(b.String(), "\r"), "Done did not clear: %q", b.String())
}
