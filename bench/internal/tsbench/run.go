package tsbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvenc/kvenc/bench/internal/diskuse"
	"github.com/kvenc/kvenc/bench/internal/measure"
)

// Spans are the range queries' lengths, in milliseconds, by name.
var Spans = []struct {
	Name string
	MS   int64
}{{"1h", 3600 * 1000}, {"1d", 24 * 3600 * 1000}}

// Queries is the number of distinct windows (series, start) per span; the
// timed queries cycle through them.
const Queries = 16

// Result is one engine's numbers. Query, QueryRounds and QuerySamples are
// per span, in the order of Spans: the median ns per query, the ns per
// query of every round (the engines take turns round by round) and the
// mean samples a query returns. Err, when set, means the engine failed (an error, or a
// query that did not return the samples stored) and its numbers are not
// reported.
type Result struct {
	Engine       string
	Samples      int
	Ingest       time.Duration // every Scrape
	Compact      time.Duration // Compact
	DiskBytes    int64         // the directory after the last Close
	Disk         []Part        // DiskBytes by part
	Query        []float64
	QueryRounds  [][]float64
	QuerySamples []float64
	Err          error
}

// Part is the bytes of one part of an engine's directory.
type Part struct {
	Name  string
	Bytes int64
}

// window is one range query.
type window struct {
	series     int
	mint, maxt int64
	n          int
	sum        float64
}

// windows picks Queries windows per span: a random series and start
// (fixed seed), the expected answer computed from the series.
func windows(series []Series) [][]window {
	r := rand.New(rand.NewPCG(7, 31))
	out := make([][]window, len(Spans))
	for k, sp := range Spans {
		for range Queries {
			s := r.IntN(len(series))
			last := series[s].T[len(series[s].T)-1]
			mint := Start - Jitter // the earliest a sample can be
			if room := last - sp.MS - mint; room > 0 {
				mint += r.Int64N(room)
			}
			w := window{series: s, mint: mint, maxt: mint + sp.MS - 1}
			w.n, w.sum = series[s].Expect(w.mint, w.maxt)
			out[k] = append(out[k], w)
		}
	}
	return out
}

// Run loads the series into every engine (each in a directory of its own
// under dir), compacts them, reopens them, checks every query window's
// answer and times the queries, count rounds interleaved. step is called
// after every scrape batch of 1,000 and every timed run.
func Run(dir string, series []Series, count int, step func(string)) []Result {
	ws := windows(series)
	results := make([]Result, len(Engines))
	engines := make([]Engine, len(Engines))
	var subjects []measure.Subject
	for k, en := range Engines {
		r := &results[k]
		r.Engine, r.Samples = en.Name, Samples(series)
		r.Query, r.QuerySamples = nanSlice(len(Spans)), nanSlice(len(Spans))
		r.QueryRounds = make([][]float64, len(Spans))
		e, err := load(filepath.Join(dir, en.Name), en.Open, series, r, step)
		if err == nil {
			err = check(e, series, ws, r)
		}
		if err != nil {
			r.Err = fmt.Errorf("%s: %w", en.Name, err)
			if e != nil {
				e.Close()
			}
			continue
		}
		engines[k] = e
		for i, sp := range Spans {
			subjects = append(subjects, measure.Subject{Name: en.Name + "/" + sp.Name, Fn: queryBench(e, series, ws[i])})
		}
	}
	rounds := map[string][]float64{} // ns per query of every round, by subject
	for range max(count, 1) {
		for _, sub := range subjects {
			rounds[sub.Name] = append(rounds[sub.Name], measure.Run(sub.Fn).NsPerOp)
			if step != nil {
				step(sub.Name)
			}
		}
	}
	for k, e := range engines {
		if e == nil {
			continue
		}
		r := &results[k]
		for i, sp := range Spans {
			r.QueryRounds[i] = rounds[r.Engine+"/"+sp.Name]
			r.Query[i] = measure.MedianOf(r.QueryRounds[i])
		}
		if err := e.Close(); err != nil {
			r.Err = fmt.Errorf("%s: close: %w", r.Engine, err)
			continue
		}
		d := filepath.Join(dir, r.Engine)
		var err error
		if r.DiskBytes, err = diskuse.Of(d); err == nil {
			r.Disk, err = parts(d)
		}
		if err != nil {
			r.Err = fmt.Errorf("%s: disk: %w", r.Engine, err)
		}
	}
	return results
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// load opens an engine, scrapes every sample into it, compacts and reopens
// it.
func load(dir string, open func(string) (Engine, error), series []Series, r *Result, step func(string)) (Engine, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	e, err := open(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for i := range len(series[0].T) {
		if err := e.Scrape(series, i); err != nil {
			return e, fmt.Errorf("scrape %d: %w", i, err)
		}
		if step != nil && i%1000 == 999 {
			step(r.Engine + " load")
		}
	}
	r.Ingest = time.Since(start)
	start = time.Now()
	if err := e.Compact(); err != nil {
		return e, fmt.Errorf("compact: %w", err)
	}
	r.Compact = time.Since(start)
	return e, e.Reopen()
}

// check runs every window's query once and compares the answer.
func check(e Engine, series []Series, ws [][]window, r *Result) error {
	for i, sp := range Spans {
		total := 0
		for _, w := range ws[i] {
			n, sum, err := e.Query(series[w.series].Name, w.mint, w.maxt)
			if err != nil {
				return fmt.Errorf("query %s: %w", sp.Name, err)
			}
			if n != w.n || sum != w.sum {
				return fmt.Errorf("query %s of %s [%d, %d]: %d samples summing to %v, want %d summing to %v",
					sp.Name, series[w.series].Name, w.mint, w.maxt, n, sum, w.n, w.sum)
			}
			total += n
		}
		r.QuerySamples[i] = float64(total) / float64(len(ws[i]))
	}
	return nil
}

// queryBench runs one query per op, cycling through the windows.
func queryBench(e Engine, series []Series, ws []window) func(b *testing.B) {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w := ws[i%len(ws)]
			if _, _, err := e.Query(series[w.series].Name, w.mint, w.maxt); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// parts sums an engine directory's bytes by top-level entry: Prometheus's
// block directories together as "blocks", other directories by name, files
// by extension.
func parts(dir string) ([]Part, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	var out []Part
	for _, de := range ents {
		name := filepath.Ext(de.Name())
		if name == "" {
			name = de.Name()
		}
		if de.IsDir() {
			name = de.Name()
			if len(name) == 26 { // a ULID: a TSDB block
				name = "blocks"
			}
		}
		n, err := diskuse.Of(filepath.Join(dir, de.Name())) // a file or a tree
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		if _, ok := idx[name]; !ok {
			idx[name] = len(out)
			out = append(out, Part{Name: name})
		}
		out[idx[name]].Bytes += n
	}
	return out, nil
}
