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
// The costs come from BenchmarkDecodeForm in bench_test.go (bulk Decode of
// 65536 values, every chunk forced into one form), run as
//
//	go test ./blockenc/shapeshift/ -run '^$' -bench DecodeForm -benchtime 100ms -count 5
//
// on the development machine (2 shared vCPUs, Xeon, amd64, Go 1.26.8). That
// machine ran other engineers' builds at the same time (load 5-6): run to
// run spread was 2-10x, so each number is the minimum of the 5 runs, the
// least disturbed one. Only their ratios matter here.
var formCost = [numForms]float64{
	Zero:         0.21, // clear()
	Constant:     0.33, // fill loop
	BytePack:     0.70, // w=1: 0.70, w=2: 0.75, w=4: 1.67
	BitPack:      0.80, // b=8: 0.78, b=13: 1.07, b=32: 0.80
	Delta:        1.65, // timestamps 1.65, counter 1.79: unpack + prefix sum
	RunLength:    0.35, // fill; plus runCost per run (runs data: 1.25 at 1 run per 40 values)
	Patched:      0.95, // outliers (0.5% exceptions) 1.03, sparse (b=0, 1%) 1.02
	LZ4:          2.00, // random8 (w=1, few matches) 0.66, lowcard (w=6, short matches) 4.47
	Raw:          0.92, // random64
	PatchedDelta: 1.2,
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

// patchedDeltaCost models PatchedDelta decode as Delta's plus a per-exception
// fix-up and a pass adding the exceptions' running sum.
func patchedDeltaCost(exceptions, n int) float64 {
	return formCost[PatchedDelta] + exceptionCost*float64(exceptions)/float64(n)
}

// patchedCost models Patched decode as a bit unpack plus a per-exception fix-up.
func patchedCost(exceptions, n int) float64 {
	return formCost[Patched] + exceptionCost*float64(exceptions)/float64(n)
}

const (
	runCost       = 36.0 // ns per run: (1.25 - 0.35) * 40, from the runs data
	exceptionCost = 5.0  // ns per exception: a scattered add, not measured alone
)
