package intsbench

import (
	"fmt"
	"math"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/measure"
)

// selectSets is how many different row sets each select-n measurement
// cycles through, so that no reader's cache is warm from the previous op.
const selectSets = 8

// SelectCurve is the time to read n sorted random rows of one column, for
// each n in Ns, with one codec. Codecs without random access decode the
// whole column whatever n is.
type SelectCurve struct {
	Codec string
	Ns    []int
	NsOp  []float64 // median ns to select Ns[i] rows
}

// SelectSizes are the row counts SelectN measures on a column of n values:
// 1, 10, 100, ... and n itself.
func SelectSizes(n int) []int {
	var ns []int
	for k := 1; k < n; k *= 10 {
		ns = append(ns, k)
	}
	return append(ns, n)
}

// SelectN measures every codec on values for each of SelectSizes.
func SelectN(values []int64, codecs []Codec, count int, step func(string)) ([]SelectCurve, error) {
	ns := SelectSizes(len(values))
	var subjects []measure.Subject
	var curves []SelectCurve
	for _, codec := range codecs {
		enc, err := codec.Encode(values)
		if err != nil {
			return nil, err
		}
		curves = append(curves, SelectCurve{Codec: codec.Name, Ns: ns})
		_, random := enc.SumAt([]int{0})
		for _, n := range ns {
			var fn func(b *testing.B)
			if random {
				var sets [][]int
				for s := range selectSets {
					sets = append(sets, randomRows(len(values), n, uint64(s)+1))
					if n >= len(values) {
						break
					}
				}
				fn = sumBench(enc, sets)
			} else {
				fn = decodeBench(enc, len(values))
			}
			subjects = append(subjects, measure.Subject{Name: key(codec.Name, n), Fn: fn})
		}
	}
	res := measure.Rounds(subjects, count, step)
	for i := range curves {
		c := &curves[i]
		for _, n := range ns {
			m, ok := res[key(c.Codec, n)]
			if !ok {
				m.NsPerOp = math.NaN()
			}
			c.NsOp = append(c.NsOp, m.NsPerOp)
		}
	}
	return curves, nil
}

func key(codec string, n int) string { return fmt.Sprintf("%s/%d", codec, n) }
