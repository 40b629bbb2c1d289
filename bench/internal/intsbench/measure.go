package intsbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// Column is one named int64 column to encode.
type Column struct {
	Name   string
	Values []int64
}

// Result is one codec on one column. Times are medians in ns per value
// (Get: ns per call). NaN means not measured (Get on a codec without
// random access). Err, when set, means the codec failed its check and no
// number of it is reported.
type Result struct {
	Column, Codec       string
	Values, Bytes       int
	Encode, Decode, Get float64
	Composition         map[shapeshift.Form]int
	Err                 error
}

// getRows is how many random rows one Get measurement reads.
const getRows = 4096

// Measure encodes every column with every codec, checks each encoding
// decodes to the input and answers Get correctly, then times encode, full
// decode and random Get, count rounds interleaved, and returns medians.
// step is called after every timed run.
func Measure(cols []Column, codecs []Codec, count int, step func(string)) []Result {
	var results []Result
	var subjects []measure.Subject
	for _, col := range cols {
		rows := randomRows(len(col.Values), getRows, 11)
		for _, codec := range codecs {
			r := Result{Column: col.Name, Codec: codec.Name, Values: len(col.Values),
				Encode: math.NaN(), Decode: math.NaN(), Get: math.NaN()}
			enc, err := codec.Encode(col.Values)
			if err == nil {
				err = check(enc, col.Values, rows)
			}
			if err != nil {
				r.Err = fmt.Errorf("%s on %s: %w", codec.Name, col.Name, err)
				results = append(results, r)
				continue
			}
			r.Bytes, r.Composition = enc.Size(), Composition(enc)
			results = append(results, r)
			key := col.Name + "/" + codec.Name
			subjects = append(subjects,
				measure.Subject{Name: key + "/encode", Fn: encodeBench(codec, col.Values)},
				measure.Subject{Name: key + "/decode", Fn: decodeBench(enc, len(col.Values))})
			if _, ok := enc.SumAt(rows[:1]); ok {
				subjects = append(subjects, measure.Subject{Name: key + "/get", Fn: sumBench(enc, [][]int{rows})})
			}
		}
	}
	res := measure.Rounds(subjects, count, step)
	for i := range results {
		r := &results[i]
		key := r.Column + "/" + r.Codec
		if m, ok := res[key+"/encode"]; ok {
			r.Encode = m.NsPerOp / float64(r.Values)
		}
		if m, ok := res[key+"/decode"]; ok {
			r.Decode = m.NsPerOp / float64(r.Values)
		}
		if m, ok := res[key+"/get"]; ok {
			r.Get = m.NsPerOp / getRows
		}
	}
	return results
}

// check verifies a full decode and a Get of every row in rows.
func check(enc Encoded, want []int64, rows []int) error {
	got, err := enc.Decode(nil)
	if err != nil {
		return err
	}
	if i := firstDiff(got, want); i >= 0 {
		return fmt.Errorf("decode differs at value %d of %d", i, len(want))
	}
	var sum int64
	for _, i := range rows {
		sum += want[i]
	}
	if s, ok := enc.SumAt(rows); ok && s != sum {
		return fmt.Errorf("Get of %d rows sums to %d, want %d", len(rows), s, sum)
	}
	return nil
}

func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// randomRows returns k sorted distinct random row numbers below n (all of
// them when k >= n), from a fixed seed.
func randomRows(n, k int, seed uint64) []int {
	if k >= n {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		return rows
	}
	r := rand.New(rand.NewPCG(seed, 113))
	seen := make(map[int]bool, k)
	rows := make([]int, 0, k)
	for len(rows) < k {
		i := r.IntN(n)
		if !seen[i] {
			seen[i] = true
			rows = append(rows, i)
		}
	}
	slices.Sort(rows)
	return rows
}

func encodeBench(codec Codec, values []int64) func(b *testing.B) {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := codec.Encode(values); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func decodeBench(enc Encoded, n int) func(b *testing.B) {
	return func(b *testing.B) {
		dst := make([]int64, 0, n)
		for i := 0; i < b.N; i++ {
			var err error
			if dst, err = enc.Decode(dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// sumBench reads the row sets in turn, one set per op.
func sumBench(enc Encoded, sets [][]int) func(b *testing.B) {
	return func(b *testing.B) {
		var sink int64
		for i := 0; i < b.N; i++ {
			s, _ := enc.SumAt(sets[i%len(sets)])
			sink += s
		}
		sinkSum = sink
	}
}

var sinkSum int64
