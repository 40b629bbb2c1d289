package tikvbench

import (
	"context"
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/stretchr/testify/require"
)

// A small run on the mock: both ways hold every cell (each scan checks
// the count), the plain way one key per cell, kvenc far fewer keys.
func TestRun(t *testing.T) {
	Quiet()
	var cells []dataset.KV
	for i := range 5000 {
		cells = append(cells, dataset.KV{Key: fmt.Appendf(nil, "%08d|%d", i/4, i%4), Value: fmt.Appendf(nil, "row %d of lineitem-like text, shipmode AIR", i)})
	}
	r, err := Run(context.Background(), cells, Options{Cache: 8 << 20, Gets: 50, Seeks: 50, Concurrent: 400, Rounds: 3, Seed: 1})
	require.NoError(t, err)
	require.Equal(t, int64(len(cells)), r.Plain.Keys)
	require.Less(t, r.Kvenc.Keys*20, r.Plain.Keys)
	require.Less(t, r.Kvenc.Bytes, r.Plain.Bytes)
	for _, w := range []Way{r.Kvenc, r.Plain} {
		require.Positive(t, w.Load, w.Name)
		require.Positive(t, w.GetP50, w.Name)
		require.LessOrEqual(t, w.GetP50, w.GetP99, w.Name)
		require.Positive(t, w.Scan, w.Name)
		require.Positive(t, w.Seek10, w.Name)
		require.Positive(t, w.PutsPerSec, w.Name)
	}
}
