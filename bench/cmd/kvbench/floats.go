package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/floatbench"
	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
)

// floatCodecs are the codec names of the floats tables, kvenc first.
var floatCodecs = []string{floatbench.KvencName, "xor", "vm", "zstd"}

// alpFiles loads ALP's sample files (-alpfiles selects some).
func (e *env) alpFiles() ([]dataset.ALPFile, error) {
	dir, err := dataset.FindALPDir()
	if err != nil {
		return nil, err
	}
	files, err := dataset.LoadALP(dir, e.cfg.alpFiles)
	if err != nil {
		return nil, err
	}
	e.dataset("ALP samples: %d files of 1,024 float64 values from %s (ALP's MIT-licensed sample data)", len(files), dataset.ALPDirInRepo)
	return files, nil
}

func runFloats(e *env) error {
	files, err := e.alpFiles()
	if err != nil {
		return err
	}
	vecs := make([]floatbench.Vector, len(files))
	for i, f := range files {
		vecs[i] = floatbench.Vector{Name: f.Name, Values: f.Values}
	}
	codecs := append([]floatbench.Codec{floatbench.KvencCodec()}, floatbench.Codecs()...)
	fmt.Fprintln(e.stdout)
	bar := report.StderrProgress(len(vecs) * len(codecs) * 2 * e.cfg.count)
	results := floatbench.Measure(vecs, codecs, e.cfg.count, func(n string) { bar.Step("floats " + n) })
	bar.Done()
	for _, r := range results {
		switch {
		case r.Err != nil:
			fmt.Fprintf(e.stdout, "floats: FAILED CHECK, no numbers for it: %v\n", r.Err)
		case r.Codec == floatbench.KvencName && r.Lossy != "":
			fmt.Fprintf(e.stdout, "floats: FAILED CHECK, kvenc is not lossless on %s: %s\n", r.Vector, r.Lossy)
		}
	}
	fs := newFloatSet(files, results)
	for _, t := range []*report.Table{fs.sizeTable(), fs.speedTable("floats_decode", "decode"), fs.speedTable("floats_encode", "encode"), fs.formsTable(), fs.goals()} {
		if err := e.emit(t); err != nil {
			return err
		}
	}
	if _, err := fs.allTable().WriteCSV(e.cfg.out); err != nil {
		return err
	}
	return fs.plot(e.outPath("floats_size.png"))
}

// floatSet indexes the results by file and codec.
type floatSet struct {
	files []dataset.ALPFile
	rs    map[[2]string]floatbench.Result
	all   []floatbench.Result
}

func newFloatSet(files []dataset.ALPFile, results []floatbench.Result) *floatSet {
	fs := &floatSet{files: files, rs: map[[2]string]floatbench.Result{}, all: results}
	for _, r := range results {
		fs.rs[[2]string{r.Vector, r.Codec}] = r
	}
	return fs
}

// metric returns a codec's metric on a file, NaN if missing or failed; a
// kvenc result that is not exact counts as failed.
func (fs *floatSet) metric(file, codec, what string) float64 {
	r, ok := fs.rs[[2]string{file, codec}]
	if !ok || r.Err != nil || (codec == floatbench.KvencName && r.Lossy != "") {
		return math.NaN()
	}
	switch what {
	case "bits":
		return r.BitsPerValue()
	case "encode":
		return r.Encode
	}
	return r.Decode
}

// vmExact reports whether VictoriaMetrics gives back a file exactly.
func (fs *floatSet) vmExact(file string) bool {
	r, ok := fs.rs[[2]string{file, "vm"}]
	return ok && r.Err == nil && r.Lossy == ""
}

// paperMean is the mean of f over the paper's files that keep (all of
// them when keep is nil); NaN if any is NaN or none is kept.
func (fs *floatSet) paperMean(f func(dataset.ALPFile) float64, keep func(dataset.ALPFile) bool) float64 {
	sum, n := 0.0, 0
	for _, file := range fs.files {
		if file.Paper && (keep == nil || keep(file)) {
			sum += f(file)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

func (fs *floatSet) sizeTable() *report.Table {
	heads := append([]string{"file"}, floatCodecs...)
	heads = append(heads, "alp", "vm exact")
	for _, p := range append(floatCodecs[1:], "alp") {
		heads = append(heads, "kvenc/"+p)
	}
	t := report.NewTable("floats_size", "floats: bits per value (1,024 values per file)", heads...)
	row := func(name string, vals []float64, exact string) {
		cells := []string{name}
		for _, v := range vals {
			cells = append(cells, report.Float(v, 1))
		}
		cells = append(cells, exact)
		for _, p := range vals[1:] {
			cells = append(cells, report.Ratio(vals[0], p))
		}
		t.Add(cells...)
	}
	values := func(file dataset.ALPFile) []float64 {
		var v []float64
		for _, c := range floatCodecs {
			v = append(v, fs.metric(file.Name, c, "bits"))
		}
		return append(v, file.ALPBits)
	}
	var lossy []string
	for _, file := range fs.files {
		exact := "yes"
		if !fs.vmExact(file.Name) {
			exact = "no"
			lossy = append(lossy, file.Name)
		}
		row(file.Name, values(file), exact)
	}
	means := func(keep func(dataset.ALPFile) bool) []float64 {
		var out []float64
		for i := range len(floatCodecs) + 1 {
			out = append(out, fs.paperMean(func(f dataset.ALPFile) float64 { return values(f)[i] }, keep))
		}
		return out
	}
	row("MEAN (paper files)", means(nil), "-")
	row("MEAN (paper files vm keeps exact)", means(func(f dataset.ALPFile) bool { return fs.vmExact(f.Name) }), "-")
	t.Note("xor: Prometheus XOR chunks of 120 samples, value bits only (chunk header and padding included, timestamps at a fixed step taken out);")
	t.Note("vm: VictoriaMetrics decimal conversion + MarshalValues(64 bits) + 11 header bytes; zstd: raw doubles, best level; alp: ALP's own figure (testdata README).")
	t.Note("paper files: every file but %s. vm does not give back exactly: %s.", dataset.ALPExtra, strings.Join(orNone(lossy), ", "))
	return t
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

func (fs *floatSet) speedTable(name, what string) *report.Table {
	heads := append([]string{"file"}, floatCodecs...)
	for _, p := range floatCodecs[1:] {
		heads = append(heads, "kvenc/"+p)
	}
	title := "floats: full decode, ns per value"
	note := "xor decode runs Prometheus's chunk iterator (timestamps and values); vm's includes its conversion back to floats."
	if what == "encode" {
		title = "floats: encode, ns per value"
		note = "xor encode appends timestamps and values to chunks; vm's includes its decimal conversion."
	}
	t := report.NewTable(name, title, heads...)
	row := func(name string, vals []float64) {
		cells := []string{name}
		for _, v := range vals {
			cells = append(cells, report.NS(v))
		}
		for _, p := range vals[1:] {
			cells = append(cells, report.Ratio(vals[0], p))
		}
		t.Add(cells...)
	}
	cols := make([][]float64, len(floatCodecs))
	for _, file := range fs.files {
		var vals []float64
		for i, c := range floatCodecs {
			v := fs.metric(file.Name, c, what)
			vals = append(vals, v)
			if file.Paper {
				cols[i] = append(cols[i], v)
			}
		}
		row(file.Name, vals)
	}
	var meds []float64
	for _, c := range cols {
		meds = append(meds, nanMedian(c))
	}
	row("MEDIAN (paper files)", meds)
	t.Note("medians of -count rounds; %s", note)
	return t
}

// nanMedian is the median of v, NaN if any value is NaN.
func nanMedian(v []float64) float64 {
	if slices.ContainsFunc(v, math.IsNaN) {
		return math.NaN()
	}
	return measure.MedianOf(v)
}

func (fs *floatSet) goals() *report.Table {
	t := newGoalTable("floats_goals", "floats goals: kvenc on the paper files")
	add := t.add
	bits := func(c string) func(dataset.ALPFile) float64 {
		return func(f dataset.ALPFile) float64 { return fs.metric(f.Name, c, "bits") }
	}
	kv := fs.paperMean(bits(floatbench.KvencName), nil)
	add("mean bits/value", kv, 20.2, kv <= 20.2, 2)
	aboveALP, aboveXOR := math.NaN(), math.NaN()
	if !math.IsNaN(kv) {
		aboveALP, aboveXOR = 0, 0
		for _, f := range fs.files {
			b := bits(floatbench.KvencName)(f)
			if f.Paper && b > f.ALPBits*1.1+1 {
				aboveALP++
			}
			if f.Paper && b > bits("xor")(f) {
				aboveXOR++
			}
		}
	}
	add("files above ALP x 1.1 + 1 bit", aboveALP, 0, aboveALP == 0, 0)
	r := kv / fs.paperMean(bits("xor"), nil)
	add("mean / xor mean", r, 0.5, r <= 0.5, 3)
	add("files above xor", aboveXOR, 0, aboveXOR == 0, 0)
	r = kv / fs.paperMean(bits("zstd"), nil)
	add("mean / zstd mean", r, 0.85, r <= 0.85, 3)
	exact := func(f dataset.ALPFile) bool { return fs.vmExact(f.Name) }
	r = fs.paperMean(bits(floatbench.KvencName), exact) / fs.paperMean(bits("vm"), exact)
	add("mean / vm mean (files vm keeps exact)", r, 1, r <= 1, 3)
	speed := func(c, what string) float64 {
		var v []float64
		for _, f := range fs.files {
			if f.Paper {
				v = append(v, fs.metric(f.Name, c, what))
			}
		}
		return nanMedian(v)
	}
	dec := speed(floatbench.KvencName, "decode")
	r = speed("xor", "decode") / dec
	add("xor decode / kvenc decode (medians)", r, 5, r >= 5, 2)
	add("decode ns/value (median)", dec, 1, dec <= 1, 2)
	enc := speed(floatbench.KvencName, "encode")
	add("encode ns/value (median)", enc, 15, enc <= 15, 2)
	t.Note("sizes over the %d paper files; - = kvenc not measured.", len(slices.DeleteFunc(slices.Clone(fs.files), func(f dataset.ALPFile) bool { return !f.Paper })))
	return t.Table
}

// formsTable lists the chunk forms of kvenc's column per file.
func (fs *floatSet) formsTable() *report.Table {
	t := report.NewTable("floats_forms", "floats: kvenc's chunk forms per file", "file", "forms")
	for _, f := range fs.files {
		if r, ok := fs.rs[[2]string{f.Name, floatbench.KvencName}]; ok && r.Err == nil {
			t.Add(f.Name, r.Forms)
		}
	}
	return t
}

// allTable is every result in long form (CSV only).
func (fs *floatSet) allTable() *report.Table {
	t := report.NewTable("floats_all", "", "file", "codec", "values", "bits", "encode_ns_per_value", "decode_ns_per_value", "lossy", "forms", "error")
	for _, r := range fs.all {
		e := ""
		if r.Err != nil {
			e = r.Err.Error()
		}
		t.Add(r.Vector, r.Codec, report.Int(int64(r.Values)), report.Float(r.Bits, 0),
			report.Float(r.Encode, 3), report.Float(r.Decode, 3), r.Lossy, r.Forms, e)
	}
	return t
}

// plot: bits per value by file (groups) and codec (bars), ALP's beside.
func (fs *floatSet) plot(path string) error {
	b := report.Bars{Title: "Float columns: bits per value by file", YLabel: "bits/value"}
	for _, f := range fs.files {
		b.Categories = append(b.Categories, f.Name)
	}
	for _, c := range append(slices.Clone(floatCodecs), "alp") {
		b.Series = append(b.Series, c)
		var vals []float64
		for _, f := range fs.files {
			v := f.ALPBits
			if c != "alp" {
				v = fs.metric(f.Name, c, "bits")
			}
			vals = append(vals, v)
		}
		b.Values = append(b.Values, vals)
	}
	return report.SaveBars(path, b)
}
