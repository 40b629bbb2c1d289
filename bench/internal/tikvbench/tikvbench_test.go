package tikvbench

import (
	"context"
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/stretchr/testify/require"
)

// A small run on the mock: both ways hold every cell (each scan checks
// the count), the plain way one key per cell, kvenc far fewer keys. With
// a cache too small for its blocks, kvenc's scan fetches no block from
// TiKV twice: it reads less than it stores (blocks and metas).
func TestRun(t *testing.T) {
	Quiet()
	var cells []dataset.KV
	for i := range 20000 {
		cells = append(cells, dataset.KV{Key: fmt.Appendf(nil, "%08d|%d", i/4, i%4), Value: fmt.Appendf(nil, "row %d of lineitem-like text, shipmode AIR", i)})
	}
	r, err := Run(context.Background(), cells, Options{Cache: 64 << 10, Gets: 50, Seeks: 50, Concurrent: 400, Rounds: 3, Seed: 1})
	require.NoError(t, err)
	require.Equal(t, int64(len(cells)), r.Plain.Keys)
	require.Less(t, r.Kvenc.Keys*20, r.Plain.Keys)
	require.Less(t, r.Kvenc.Bytes, r.Plain.Bytes)
	require.GreaterOrEqual(t, r.Plain.ScanRead, r.Plain.Bytes, "the plain scan reads every cell")
	require.Positive(t, r.Kvenc.ScanRead)
	require.Less(t, r.Kvenc.ScanRead, r.Kvenc.Bytes, "kvenc's scan fetches no block twice")
	for _, w := range []Way{r.Kvenc, r.Plain} {
		require.Positive(t, w.Load, w.Name)
		require.Positive(t, w.GetP50, w.Name)
		require.LessOrEqual(t, w.GetP50, w.GetP99, w.Name)
		require.Positive(t, w.Scan, w.Name)
		require.Positive(t, w.Seek10, w.Name)
		require.Positive(t, w.PutsPerSec, w.Name)
	}
}
