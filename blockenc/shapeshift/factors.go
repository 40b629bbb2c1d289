package shapeshift

// Form selection: score = exact encoded size (bytes) x factor(target, cost),
// where cost is the form's bulk decode time in ns/value; the lowest score
// wins and ties go to the form considered first (Raw, BytePack, BitPack,
// Delta, RunLength, Patched, PatchedDelta, LZ4).
//
// factor(t, cost) = 1 + costWeight[t]*cost. With Balanced's weight 0.05, a
// form that decodes 1 ns/value slower must be about 5% smaller to win
// (Druid's FASTBUTSMALLISH weighed LZ4 at 1.05 against bytepacking).
//
// The costs come from BenchmarkDecodeForm in bench_test.go (bulk Decode of
// 65536 values, every chunk forced into one form), run interleaved with the
// previous version's binary, ten rounds of
//
//	go test -c -o new.test ./blockenc/shapeshift/
//	./new.test -test.run '^$' -test.bench '^BenchmarkDecodeForm$' -test.benchtime 50ms
//
// and summarised with benchstat (golang.org/x/perf/cmd/benchstat); each
// number is the median ns/value of the ten. The machine (2 shared vCPUs,
// Xeon, amd64, Go 1.26.8) ran other engineers' builds at the same time
// (load 4-8), so the spreads were wide (± 40-400%); the callgrind
// instruction counts per value (GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1,
// difference of a 40x and a 10x run), which do not depend on the load, are
// given as a cross-check. Only the costs' ratios matter here. (The unrolled
// fill came after this calibration and cut Constant's and RunLength's
// instructions by 60% and 45%: their costs here are upper bounds.)
var formCost = [numForms]float64{
	Zero:         0.22, // clear()
	Constant:     0.21, // fill loop
	BytePack:     0.45, // w=1: 0.41 (7.3 instr), w=2: 0.47 (8.0), w=4: 0.42 (5.6)
	BitPack:      0.45, // b=8: 0.37 (5.8 instr), b=13: 0.48 (6.8), b=32: 0.49 (6.2)
	Delta:        0.46, // timestamps 0.45 (8.2 instr), counter 0.47 (8.0): one-pass unpack + sum
	RunLength:    0.21, // fill; plus runCost per run (runs data: 0.80, 8.8 instr, at 1 run per 40 values)
	Patched:      0.46, // outliers (0.5% exceptions) 0.49 (7.8 instr), sparse (b=0, 1%) 0.49 (7.6)
	LZ4:          1.26, // lowcard (w=6, short matches) 1.26 (15.7 instr); random8 (w=1, few matches) 0.46
	Raw:          0.82, // random64
	PatchedDelta: 0.77, // plus exceptionCost each: orderkeys (3% exceptions) 0.95 (15.6 instr), forced counter (53%) 4.13
	Huffman:      3.5,
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
	runCost       = 24.0 // ns per run: (0.80 - 0.21) * 40, from the runs data
	exceptionCost = 6.0  // ns per exception: (4.13 - 0.95) / (0.53 - 0.03), from the two PatchedDelta runs
)

// huffMinGain is how much lower than the best other score Huffman's must
// be, per target, on top of its cost factor; Faster never takes Huffman.
var huffMinGain = [numTargets]float64{
	Balanced: 0.2,
	Smaller:  0,
	Faster:   1,
}
