package segwrite

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
)

// holdEngine checks that no value of a batch changes while Write has it:
// it copies the values first and compares them after the write and a
// pause that lets the compressors run.
type holdEngine struct {
	engine.Engine
	writes  atomic.Int64
	mu      sync.Mutex
	changed []string
}

func (e *holdEngine) Write(b *engine.Batch) error {
	e.writes.Add(1)
	var copies [][]byte
	for _, o := range b.Ops() {
		copies = append(copies, bytes.Clone(o.Value))
	}
	err := e.Engine.Write(b)
	for range 3 {
		runtime.Gosched()
	}
	for i, o := range b.Ops() {
		if !bytes.Equal(copies[i], o.Value) {
			e.mu.Lock()
			e.changed = append(e.changed, fmt.Sprintf("%q", o.Key))
			e.mu.Unlock()
		}
	}
	return err
}

// newTestStore returns a Store on an in-memory Badger behind a
// holdEngine, with blocks of blockSize and batches of batchBytes.
func newTestStore(t *testing.T, blockSize, batchBytes int) (*Store, *holdEngine) {
	eng, err := badgereng.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	he := &holdEngine{Engine: eng}
	keys := layout.NewKeys([]byte("t"))
	var ids atomic.Uint64
	c := cache.New(0)
	rd := segread.New(segread.Config{
		Engine: he, Keys: keys, Prefix: []byte("t"), Cache: c, Pool: &cache.Pool{}, BlockSize: blockSize,
		Closing: func() bool { return false }, ErrClosed: func() error { return errors.New("closed") }, EngineErr: func() error { return nil },
	})
	return New(Config{
		Engine: he, Keys: keys, Cache: c, Reader: rd, BlockSize: blockSize, DictSize: blockenc.MaxDictSize,
		BatchBytes: batchBytes, NextID: func() uint64 { return ids.Add(1) }, EngineErr: func() error { return nil },
		TooLarge: errors.New("too large"),
	}), he
}

// testCells returns n Puts, keys prefix+0.., with values of 0..300
// bytes that partly repeat.
func testCells(rng *rand.Rand, prefix string, n int) []blockenc.Cell {
	cells := make([]blockenc.Cell, n)
	for i := range cells {
		v := make([]byte, rng.IntN(300))
		for j := range v {
			v[j] = "abcdefgh"[rng.IntN(8)] + byte(rng.IntN(2)*rng.IntN(100))
		}
		cells[i] = blockenc.Cell{Key: fmt.Appendf(nil, "%s%07d", prefix, i), Value: v, Seq: uint64(i + 1), Kind: blockenc.KindPut}
	}
	return cells
}

// readSegment returns the cells of g's blocks, read from the engine.
func readSegment(t *testing.T, st *Store, g *segment.Segment) []blockenc.Cell {
	var cells []blockenc.Cell
	for i, k := range g.BlockKeys {
		var blk []byte
		require.NoError(t, st.c.Engine.Get(k, engine.ViewFunc(func(v []byte) error {
			blk = bytes.Clone(v)
			return nil
		})), "block %d", i)
		s, err := blockenc.NewSeekerDict(blk, g.DictFor(i))
		require.NoError(t, err, "block %d", i)
		for ok := s.First(); ok; ok = s.Next() {
			c := *s.Cell()
			c.Key, c.Value = bytes.Clone(c.Key), bytes.Clone(c.Value)
			cells = append(cells, c)
		}
		require.NoError(t, s.Err(), "block %d", i)
		require.Equal(t, g.LastKeys[i], cells[len(cells)-1].Key, "block %d's last key", i)
	}
	return cells
}

// plainCell is a cell with its bytes as strings, so that an empty value
// compares equal whether nil or not.
type plainCell struct {
	Key, Value string
	Seq        uint64
	Kind       blockenc.Kind
}

// plain returns cells as plainCells, for require.Equal.
func plain(cells []blockenc.Cell) []plainCell {
	out := make([]plainCell, len(cells))
	for i, c := range cells {
		out[i] = plainCell{string(c.Key), string(c.Value), c.Seq, c.Kind}
	}
	return out
}

// TestWriterReusesBuffers writes segments of many small batches, whose
// blocks' buffers take later blocks, then a segment that copies the
// first one's blocks between new cells: every block reads back whole and
// no batch's value changed while the engine had it.
func TestWriterReusesBuffers(t *testing.T) {
	row := blockenc.DefaultOptions()
	row.Compression = blockenc.LZ4Dict
	row.IntValues = true
	col := blockenc.DefaultOptions()
	col.Encoding = blockenc.Columnar
	col.Compression = blockenc.LZ4Dict
	for _, tc := range []struct {
		name  string
		opts  blockenc.Options
		batch int
	}{
		{"RowIndex/one block a batch", row, 1},
		{"RowIndex/batches of 8 KiB", row, 8 << 10},
		{"Columnar/one block a batch", col, 1},
		{"Columnar/batches of 8 KiB", col, 8 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, he := newTestStore(t, 2<<10, tc.batch)
			rng := rand.New(rand.NewPCG(3, 5))
			cells := testCells(rng, "b", 4000)
			var vals [][]byte
			for _, c := range cells[:500] {
				vals = append(vals, c.Value)
			}
			dict := blockenc.SampleDict(vals, 4<<10)

			w := st.NewWriter(tc.opts, dict)
			for _, c := range cells {
				require.NoError(t, w.Add(c))
			}
			g, err := w.Finish(0, nil)
			require.NoError(t, err)
			require.Greater(t, len(g.BlockKeys), 50)
			writes := he.writes.Load()
			require.Greater(t, writes, int64(10), "batches")
			require.Equal(t, plain(cells), plain(readSegment(t, st, g)))

			// Cells before, g's blocks copied, cells after.
			before, after := testCells(rng, "a", 2000), testCells(rng, "c", 2000)
			w = st.NewWriterDict(tc.opts, w.Dict())
			for _, c := range before {
				require.NoError(t, w.Add(c))
			}
			require.NoError(t, w.CopyBlocks(g, 0, len(g.BlockKeys)))
			for _, c := range after {
				require.NoError(t, w.Add(c))
			}
			h, err := w.Finish(0, nil)
			require.NoError(t, err)
			require.Greater(t, he.writes.Load(), 2*writes, "batches")
			require.Equal(t, plain(append(append(before, cells...), after...)), plain(readSegment(t, st, h)))
			require.Empty(t, he.changed, "values changed during a write")
		})
	}
}
