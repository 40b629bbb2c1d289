package tsbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
)

func testSeries(t *testing.T, n int) []Series {
	dir, err := dataset.FindALPDir()
	require.NoError(t, err)
	files, err := dataset.LoadALP(dir, []string{"cms1", "cms25"})
	require.NoError(t, err)
	return Make(files, n)
}

func TestMake(t *testing.T) {
	series := testSeries(t, 3000)
	require.Len(t, series, 2)
	assert.NotEqual(t, series[0].T, series[1].T, "each series has its own jitter")
	for _, s := range series {
		require.Len(t, s.T, 3000)
		for i, ts := range s.T {
			nominal := Start + int64(i)*Interval
			require.LessOrEqual(t, ts, nominal+Jitter, "%s sample %d", s.Name, i)
			require.GreaterOrEqual(t, ts, nominal-Jitter, "%s sample %d", s.Name, i)
		}
		assert.Equal(t, s.V[0], s.V[1024], "%s replays its file", s.Name)
	}
	again := testSeries(t, 3000)
	assert.Equal(t, series, again, "fixed seeds")
	n, _ := series[0].Expect(Start-Jitter, Start+Interval*10-Jitter-1)
	assert.Equal(t, 10, n)
}

// TestRun loads two small series into both engines; Run itself checks
// every query window against the series.
func TestRun(t *testing.T) {
	require.NoError(t, measure.SetBenchtime("1x"))
	series := testSeries(t, 600) // 2.5 hours
	rs := Run(t.TempDir(), series, 1, nil)
	require.Len(t, rs, len(Engines))
	for _, r := range rs {
		require.NoError(t, r.Err)
		assert.Equal(t, 1200, r.Samples)
		assert.Positive(t, r.DiskBytes, r.Engine)
		var sum int64
		for _, p := range r.Disk {
			sum += p.Bytes
		}
		assert.Equal(t, r.DiskBytes, sum, "%s: parts add up", r.Engine)
		assert.InDelta(t, 240.0, r.QuerySamples[0], 1, "%s: 1 hour of 15 s samples, give or take one for the jitter", r.Engine)
		assert.Equal(t, 600.0, r.QuerySamples[1], "%s: a day's window holds every sample", r.Engine)
		for i := range Spans {
			assert.Positive(t, r.Query[i], r.Engine)
			assert.Len(t, r.QueryRounds[i], 1, r.Engine)
		}
	}
	partNames := func(r Result) []string {
		var n []string
		for _, p := range r.Disk {
			n = append(n, p.Name)
		}
		return n
	}
	assert.Contains(t, partNames(rs[1]), "blocks", "Prometheus compacted its head into a block")
	assert.Contains(t, partNames(rs[0]), ".vlog", "kvenc's blocks live in Badger's value log")
}

func TestBreakdown(t *testing.T) {
	series := testSeries(t, 2000)
	b, err := MeasureBreakdown(series)
	require.NoError(t, err)
	// One seq per scrape: the seq column costs next to nothing, either way
	// (a column of equal zeros and one of scrape numbers can cut the
	// blocks at other cells).
	assert.InDelta(t, b.Blocks, b.NoSeq, 0.2, "seqs")
	assert.Greater(t, b.NoSeq, b.KeysOnly, "values cost something")
	assert.Positive(t, b.KeysOnly)
	assert.Less(t, b.Blocks, 8.0+12+8, "below the raw value, key and seq")
	assert.Positive(t, b.BlockCount)
	assert.Positive(t, b.FloatValues)
	assert.Less(t, b.FloatValues, 8.0, "cms files are decimals")
	// Jittered timestamps: a delta of delta within ±2000 ms takes the
	// 14-bit bucket (2 bytes) in XOR chunks; the first two of a chunk more.
	assert.InDelta(t, 2.0, b.PromTimestamps, 0.1)
}
