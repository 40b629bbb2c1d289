package shapeshift

import (
	"math"
	"math/rand/v2"
)

// dataset is a named synthetic column with a fixed seed.
type dataset struct {
	name string
	gen  func(r *rand.Rand, n int) []int64
}

// datasets are the distributions the tests and benchmarks run over.
var datasets = []dataset{
	{"zero", func(r *rand.Rand, n int) []int64 { return make([]int64, n) }},
	{"constant", func(r *rand.Rand, n int) []int64 {
		v := make([]int64, n)
		fill(v, -123456789)
		return v
	}},
	{"timestamps", func(r *rand.Rand, n int) []int64 {
		// Sorted epoch milliseconds, ~1 s apart with jitter.
		v := make([]int64, n)
		t := int64(1_700_000_000_000)
		for i := range v {
			t += 1000 + r.Int64N(20) - 10
			v[i] = t
		}
		return v
	}},
	{"regular", func(r *rand.Rand, n int) []int64 {
		// Exactly periodic timestamps: Delta with 0-bit deltas.
		v := make([]int64, n)
		for i := range v {
			v[i] = 1_700_000_000 + 15*int64(i)
		}
		return v
	}},
	{"orderkeys", func(r *rand.Rand, n int) []int64 {
		// TPC-H lineitem order keys: each order has 1..7 lines, and of
		// every 32 keys only the first 8 are used; deltas 0, 1 and 25:
		// PatchedDelta territory.
		v := make([]int64, 0, n+7)
		for o := int64(0); len(v) < n; o++ {
			key := o/8*32 + o%8 + 1
			for range 1 + r.IntN(7) {
				v = append(v, key)
			}
		}
		return v[:n]
	}},
	{"counter", func(r *rand.Rand, n int) []int64 {
		// Monotonic counter with bursty increments.
		v := make([]int64, n)
		c := int64(0)
		for i := range v {
			c += int64(r.ExpFloat64() * 50)
			v[i] = c
		}
		return v
	}},
	{"gauge", func(r *rand.Rand, n int) []int64 {
		// Random walk around 50000.
		v := make([]int64, n)
		g := int64(50000)
		for i := range v {
			g += r.Int64N(201) - 100
			v[i] = g
		}
		return v
	}},
	{"sparse", func(r *rand.Rand, n int) []int64 {
		// Metrics-like: mostly zero, rare spikes.
		v := make([]int64, n)
		for i := range v {
			if r.IntN(100) == 0 {
				v[i] = 1 + r.Int64N(1_000_000)
			}
		}
		return v
	}},
	{"random8", randomBits(8)},
	{"random13", randomBits(13)},
	{"random32", randomBits(32)},
	{"random64", randomBits(64)},
	{"negative", func(r *rand.Rand, n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = -r.Int64N(1 << 20)
		}
		return v
	}},
	{"extremes", func(r *rand.Rand, n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = [...]int64{math.MinInt64, math.MaxInt64, 0, -1}[r.IntN(4)]
		}
		return v
	}},
	{"runs", func(r *rand.Rand, n int) []int64 {
		v := make([]int64, n)
		x := int64(0)
		for i := range v {
			if r.IntN(40) == 0 {
				x = r.Int64N(1 << 30)
			}
			v[i] = x
		}
		return v
	}},
	{"outliers", func(r *rand.Rand, n int) []int64 {
		// 10-bit values with 0.5% 40-bit outliers.
		v := make([]int64, n)
		for i := range v {
			v[i] = r.Int64N(1 << 10)
			if r.IntN(200) == 0 {
				v[i] = r.Int64N(1 << 40)
			}
		}
		return v
	}},
	{"lowcard", func(r *rand.Rand, n int) []int64 {
		// A few wide values in a repeating pattern: LZ4 territory.
		dict := []int64{7_000_000_123, -42, 9_999_999_999_999, 5, 123_456_789_012}
		v := make([]int64, n)
		for i := range v {
			v[i] = dict[(i*7+i/13)%len(dict)]
		}
		return v
	}},
}

func randomBits(b int) func(r *rand.Rand, n int) []int64 {
	return func(r *rand.Rand, n int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(r.Uint64() >> (64 - uint(b)))
		}
		return v
	}
}

func genData(d dataset, seed uint64, n int) []int64 {
	return d.gen(rand.New(rand.NewPCG(seed, 0x5eed)), n)
}

func datasetByName(name string) dataset {
	for _, d := range datasets {
		if d.name == name {
			return d
		}
	}
	panic("no dataset " + name)
}
