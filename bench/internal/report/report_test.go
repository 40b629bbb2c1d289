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
)

func TestTableAlignsAndWritesCSV(t *testing.T) {
	tb := NewTable("t1", "title", "name", "value")
	tb.Add("a", "1.5")
	tb.Add("longer", "12345")
	tb.Note("n=%d", 2)
	var b bytes.Buffer
	if err := tb.Fprint(&b); err != nil {
		t.Fatal(err)
	}
	want := "== title\n" +
		"name    value\n" +
		"------  -----\n" +
		"a         1.5\n" +
		"longer  12345\n" +
		"  n=2\n\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	path, err := tb.WriteCSV(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 3 || strings.Join(recs[2], ",") != "longer,12345" {
		t.Errorf("csv %v %v", recs, err)
	}
}

func TestAddPanicsOnWrongWidth(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	NewTable("t", "", "a", "b").Add("only one")
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
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestPlotsDecode(t *testing.T) {
	dir := t.TempDir()
	bars := Bars{Title: "b", Categories: []string{"x", "y"}, Series: []string{"s1", "s2"},
		Values: [][]float64{{1, 2}, {math.NaN(), 3}}}
	lines := Lines{Title: "l", LogX: true, LogY: true, Lines: []Line{{Name: "a", X: []float64{1, 10, 100}, Y: []float64{1, 0, 5}}}}
	if err := SaveBars(filepath.Join(dir, "b.png"), bars); err != nil {
		t.Fatal(err)
	}
	if err := SaveLines(filepath.Join(dir, "l.png"), lines); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b.png", "l.png"} {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		f.Close()
	}
	bars.Values[0] = bars.Values[0][:1]
	if err := SaveBars(filepath.Join(dir, "bad.png"), bars); err == nil {
		t.Error("mismatched bars: no error")
	}
}

func TestProgressSilentUnlessEnabled(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 3, false)
	p.Step("x")
	p.Done()
	if b.Len() != 0 {
		t.Errorf("disabled bar wrote %q", b.String())
	}
	p = NewProgress(&b, 2, true)
	p.start = p.start.Add(-3e9) // pretend it has run for 3 s
	p.Step("half")
	if !strings.Contains(b.String(), " 50% half") {
		t.Errorf("bar: %q", b.String())
	}
	p.Done()
	if !strings.HasSuffix(b.String(), "\r") {
		t.Errorf("Done did not clear: %q", b.String())
	}
}
