package floatbench

import (
	"fmt"
	"math"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/measure"
)

// Vector is one named float64 vector to encode.
type Vector struct {
	Name   string
	Values []float64
}

// Result is one codec on one vector. Encode and Decode are medians in ns
// per value. Lossy, when not empty, says how the decoded values differ
// from the input (the codec rounds); Err, when set, means the codec failed
// (an error, or a decode that does not give back the number of values) and
// no number of it is reported.
type Result struct {
	Vector, Codec  string
	Values         int
	Bits           float64 // encoded bits
	Encode, Decode float64
	Lossy          string
	Forms          string // the chunk forms, for codecs that have them
	Err            error
}

// former is an encoding made of chunks of several forms.
type former interface {
	Forms() (string, error)
}

// BitsPerValue is the encoded size in bits per value.
func (r Result) BitsPerValue() float64 { return r.Bits / float64(r.Values) }

// Measure encodes every vector with every codec, checks each decode, then
// times encode and full decode, count rounds interleaved, and returns the
// medians. step is called after every timed run.
func Measure(vecs []Vector, codecs []Codec, count int, step func(string)) []Result {
	var results []Result
	var subjects []measure.Subject
	for _, v := range vecs {
		for _, c := range codecs {
			r := Result{Vector: v.Name, Codec: c.Name, Values: len(v.Values), Encode: math.NaN(), Decode: math.NaN()}
			enc, err := c.Encode(v.Values)
			var got []float64
			if err == nil {
				got, err = enc.Decode(nil)
			}
			if err == nil && len(got) != len(v.Values) {
				err = fmt.Errorf("decoded %d values for %d", len(got), len(v.Values))
			}
			if f, ok := enc.(former); ok && err == nil {
				r.Forms, err = f.Forms()
			}
			if err != nil {
				r.Err = fmt.Errorf("%s on %s: %w", c.Name, v.Name, err)
				results = append(results, r)
				continue
			}
			r.Bits, r.Lossy = enc.Bits(), describeMismatch(got, v.Values)
			results = append(results, r)
			key := v.Name + "/" + c.Name
			subjects = append(subjects,
				measure.Subject{Name: key + "/encode", Fn: encodeBench(c, v.Values)},
				measure.Subject{Name: key + "/decode", Fn: decodeBench(enc, len(v.Values))})
		}
	}
	res := measure.Rounds(subjects, count, step)
	for i := range results {
		r := &results[i]
		key := r.Vector + "/" + r.Codec
		if m, ok := res[key+"/encode"]; ok {
			r.Encode = m.NsPerOp / float64(r.Values)
		}
		if m, ok := res[key+"/decode"]; ok {
			r.Decode = m.NsPerOp / float64(r.Values)
		}
	}
	return results
}

func encodeBench(c Codec, values []float64) func(b *testing.B) {
	return func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := c.Encode(values); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func decodeBench(enc Encoded, n int) func(b *testing.B) {
	return func(b *testing.B) {
		dst := make([]float64, 0, n)
		for i := 0; i < b.N; i++ {
			var err error
			if dst, err = enc.Decode(dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
