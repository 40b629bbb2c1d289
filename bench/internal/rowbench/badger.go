package rowbench

import (
	"fmt"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/kvenc/kvenc/bench/internal/badgertab"
	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// badgerBytes builds one Badger table over cells with compression c and
// returns its size, after reading every cell back from it.
func badgerBytes(c options.CompressionType, cells []dataset.KV) (int, error) {
	// TableSize only sizes the builder's first arena (it grows) and
	// ReachedCapacity, which is not asked: the table holds every cell.
	opts := table.Options{
		BlockSize: BlockBytes, TableSize: 16 << 20, BloomFalsePositive: 0.01,
		Compression: c, ZSTDCompressionLevel: 1, ChkMode: options.NoVerification,
		AllocPool: z.NewAllocatorPool(1),
	}
	t, n, err := badgertab.Build(cells, opts)
	if err != nil {
		return 0, err
	}
	defer t.DecrRef()
	if t.CompressionType() != c {
		return 0, fmt.Errorf("table says compression %v", t.CompressionType())
	}
	return n, nil
}
